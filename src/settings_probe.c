/*-------------------------------------------------------------------------
 *
 * settings_probe.c
 *		Waiting until a reload has reached the server: a process started
 *		now must see the values this session sees.
 *
 * pg_reload_conf() only signals the postmaster, which rereads the files
 * when it gets round to it and then signals every other process.  The
 * runs of an experiment start new workers, forked from the postmaster, so
 * the values that matter are the postmaster's.  They cannot be read from
 * another process, so a tiny background worker is started (forked from
 * the postmaster, it has the postmaster's values) and compares its values
 * with the ones this session has after rereading the files itself; until
 * they agree, another one is started a moment later, up to a time limit.
 *
 * XXX: the checkpointer and the background writer reread the files when
 * the postmaster signals them, which happens as the postmaster reloads;
 * their values cannot be seen from outside, so they are not checked.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <signal.h>

#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "storage/dsm.h"
#include "storage/latch.h"
#include "utils/guc.h"
#include "utils/timestamp.h"
#include "utils/wait_event.h"

#include "settings_apply.h"
#include "worker.h"

#define PGBL_PROBE_MAX		4096	/* name\0value\0... */

typedef struct ProbeShared
{
	int			nsettings;
	int			result;			/* 0: not yet, 1: all agree, 2: one differs */
	char		differs[NAMEDATALEN];
	char		seen[256];
	char		pairs[PGBL_PROBE_MAX];
} ProbeShared;

PGDLLEXPORT void pgbench_lab_settings_probe(Datum arg);

/* The probe: compare this fresh process's values with the session's. */
void
pgbench_lab_settings_probe(Datum arg)
{
	dsm_segment *seg;
	ProbeShared *p;
	const char *c;

	WorkerSignals();
	seg = dsm_attach(DatumGetUInt32(arg));
	if (seg == NULL)
		return;
	p = dsm_segment_address(seg);
	c = p->pairs;
	p->result = 1;
	for (int i = 0; i < p->nsettings; i++)
	{
		const char *name = c;
		const char *value = name + strlen(name) + 1;
		const char *seen = GetConfigOption(name, true, false);

		c = value + strlen(value) + 1;
		if (seen == NULL || strcmp(seen, value) != 0)
		{
			strlcpy(p->differs, name, sizeof(p->differs));
			strlcpy(p->seen, seen ? seen : "(none)", sizeof(p->seen));
			p->result = 2;
			break;
		}
	}
	dsm_detach(seg);
}

/* One probe, started and waited for; whether it agreed. */
static bool
probe_once(dsm_segment *seg)
{
	ProbeShared *p = dsm_segment_address(seg);
	BackgroundWorkerHandle *handle;

	p->result = 0;
	handle = WorkerLaunch("pgbench_lab_settings_probe", "pgbench_lab settings probe",
						  "pgbench_lab settings probe",
						  UInt32GetDatum(dsm_segment_handle(seg)),
						  "the worker that checks a reload has reached the server",
						  "Raise max_worker_processes, or wait for running experiments to end.");
	(void) WorkerWait(handle, NULL, NULL, 100, "the wait for a reload");
	pfree(handle);
	return p->result == 1;
}

/*
 * Have the server reload its configuration, reload it in this session too,
 * and wait until a process started now sees the same values of names as
 * this session, polling; an error after PGBL_RELOAD_WAIT_MS.
 */
void
SettingsReloadAndWait(int nnames, char **names)
{
	dsm_segment *seg;
	ProbeShared *p;
	Size		used = 0;
	TimestampTz deadline;

	if (kill(PostmasterPid, SIGHUP) != 0)
		ereport(ERROR,
				(errmsg("could not signal the postmaster to reload its configuration: %m")));
	ProcessConfigFile(PGC_SIGHUP);

	seg = dsm_create(sizeof(ProbeShared), 0);
	p = dsm_segment_address(seg);
	memset(p, 0, sizeof(ProbeShared));
	for (int i = 0; i < nnames; i++)
	{
		const char *value = GetConfigOption(names[i], false, false);
		Size		n = strlen(names[i]) + 1;
		Size		v = strlen(value) + 1;

		if (used + n + v > PGBL_PROBE_MAX)
			elog(ERROR, "too many settings to wait for");
		memcpy(p->pairs + used, names[i], n);
		memcpy(p->pairs + used + n, value, v);
		used += n + v;
		p->nsettings++;
	}
	deadline = TimestampTzPlusMilliseconds(GetCurrentTimestamp(), PGBL_RELOAD_WAIT_MS);
	while (!probe_once(seg))
	{
		if (GetCurrentTimestamp() > deadline)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("the server did not take the new value of \"%s\" within %d s",
							p->differs, PGBL_RELOAD_WAIT_MS / 1000),
					 errdetail("This session sees \"%s\", a process started now sees \"%s\".",
							   GetConfigOption(p->differs, true, false), p->seen),
					 errhint("Look for errors in the server log about its configuration files.")));
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 20, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
	dsm_detach(seg);
}
