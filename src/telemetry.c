/*-------------------------------------------------------------------------
 *
 * telemetry.c
 *		Where a run's time went, recorded by its coordinator.
 *
 * Once a second, beside the progress row, the coordinator writes one row of
 * pgbench_lab.run_telemetry: the machine's CPU split from /proc/stat, the
 * CPU time of the run's own processes from /proc/<pid>/stat, and the
 * differences of the server's checkpoint, buffer-write and WAL counters
 * (the views differ between majors: compat.h), the run's database's
 * temporary files, and the data directory's disk from /proc/diskstats (the
 * device system_info() names).  Every 50 ms it samples each WAL sender's
 * positions (what pg_stat_replication shows) against this server's, so
 * that each second's row of run_replication has the largest lag of its
 * samples beside the lag at its end; and, before PostgreSQL 18, whose
 * statistics count checkpoints when they start, the control file's last
 * checkpoint, so that checkpoints are counted when they complete (two that
 * complete within one 50 ms sample count as one).  A run whose server is
 * not this one (RunMeasuredHere) records none of this server's counters,
 * machine or disk: those columns are NULL.  Between those writes, about
 * every 10 ms, it reads each client's wait_event_info from the client's
 * PGPROC, as pg_stat_activity does, without a lock: a torn read is
 * impossible for an aligned uint32, and a stale one only shifts one sample.
 * Sampling happens outside any transaction, so the coordinator holds neither
 * a snapshot nor an xid while it waits; counts are kept by wait_event_info
 * and named only when the second is written.
 *
 * Only in-server clients are sampled: a libpq client's wait is its socket,
 * and the backend doing its work is elsewhere.  Telemetry is on unless the
 * run's settings turn pgbench_lab.telemetry off.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <unistd.h>

#include "access/xlog.h"
#include "catalog/pg_control.h"
#include "catalog/pg_type.h"
#include "common/controldata_utils.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "replication/walreceiver.h"
#include "replication/walsender.h"
#include "replication/walsender_private.h"
#include "storage/lwlock.h"
#include "storage/proc.h"
#include "storage/spin.h"
#include "storage/procarray.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/json.h"
#include "utils/memutils.h"
#include "utils/wait_event.h"

#include "compat.h"
#include "pgbench_lab.h"
#include "run_shared.h"
#include "system.h"
#include "telemetry.h"

bool		pgbl_telemetry = true;

void
TelemetryInit(void)
{
	DefineCustomBoolVariable(PGBL_GUC_PREFIX ".telemetry",
							 "Whether runs record per-second telemetry and the clients' wait events.",
							 "Read as a run setting: settings => '{\"pgbench_lab.telemetry\": \"off\"}'.",
							 &pgbl_telemetry, true,
							 PGC_USERSET, 0, NULL, NULL, NULL);
}

/* The run's own value of pgbench_lab.telemetry (its settings), else on. */
static bool
run_wants_telemetry(RunShared *run)
{
	const char *p = run->settings;
	bool		on = true;

	for (int i = 0; i < run->nsettings; i++)
	{
		const char *name = p;
		const char *value = p + strlen(p) + 1;

		if (pg_strcasecmp(name, PGBL_GUC_PREFIX ".telemetry") == 0 &&
			!parse_bool(value, &on))
			on = true;			/* cannot happen: the launcher checked it */
		p = value + strlen(value) + 1;
	}
	return on;
}

/* The machine's CPU ticks (first line of /proc/stat); false if unreadable. */
static bool
read_cpu(uint64 *cpu)
{
	FILE	   *f = fopen("/proc/stat", "r");
	unsigned long long v[8];
	int			n;

	if (f == NULL)
		return false;
	memset(v, 0, sizeof(v));
	n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu",
			   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
	fclose(f);
	if (n < 5)
		return false;
	cpu[TEL_CPU_USER] = v[0] + v[1];
	cpu[TEL_CPU_SYSTEM] = v[2] + v[5] + v[6];
	cpu[TEL_CPU_IDLE] = v[3];
	cpu[TEL_CPU_IOWAIT] = v[4];
	cpu[TEL_CPU_STEAL] = v[7];
	return true;
}

/* utime + stime of a process, in clock ticks; false if it is gone. */
bool
TelemetryProcTicks(int pid, uint64 *ticks)
{
	char		path[64];
	char		buf[1024];
	FILE	   *f;
	size_t		len;
	char	   *p;
	unsigned long long utime;
	unsigned long long stime;

	if (pid <= 0)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (f == NULL)
		return false;
	len = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[len] = '\0';
	/* the command name may hold spaces and parentheses: skip to the last ')' */
	p = strrchr(buf, ')');
	if (p == NULL)
		return false;
	/* fields 3 (state) to 13 skipped; 14 and 15 are utime and stime */
	if (sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
			   &utime, &stime) != 2)
		return false;
	*ticks = utime + stime;
	return true;
}

/* Process i of the run: 0 is the coordinator, then the clients. */
static int
process_pid(Telemetry *tel, int i)
{
	return i == 0 ? MyProcPid : tel->run->client[i - 1].pid;
}

/*
 * The server's counters, in a transaction of the caller's.  WAL bytes are
 * numeric in pg_stat_wal; int8 holds 9 EB.
 */
static void
read_stats(int64 *stat)
{
	bool		isnull;

	pgstat_clear_snapshot();
	if (SPI_execute("SELECT b.*, w.wal_records::pg_catalog.int8, w.wal_fpi::pg_catalog.int8, "
					"w.wal_bytes::pg_catalog.int8, d.temp_files::pg_catalog.int8, "
					"d.temp_bytes::pg_catalog.int8 FROM (" PGBL_TELEMETRY_BUFFERS_SQL ") AS b, "
					"pg_catalog.pg_stat_wal AS w, pg_catalog.pg_stat_database AS d "
					"WHERE d.datname OPERATOR(pg_catalog.=) pg_catalog.current_database()",
					true, 1) != SPI_OK_SELECT ||
		SPI_processed != 1)
		elog(ERROR, "could not read the server's statistics");
	for (int i = 0; i < TEL_NSTAT; i++)
	{
		Datum		d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, i + 1, &isnull);

		stat[i] = isnull ? 0 : DatumGetInt64(d);
	}
}

/* The disk's counters (/proc/diskstats); false if it is not listed. */
static bool
read_disk(const char *name, uint64 *disk)
{
	FILE	   *f;
	char		line[512];
	bool		found = false;

	if (name[0] == '\0' || (f = fopen("/proc/diskstats", "r")) == NULL)
		return false;
	while (!found && fgets(line, sizeof(line), f) != NULL)
	{
		char		dev[64];
		unsigned long long v[10];

		/* major minor name, then reads, merged, sectors, ms, writes, ... */
		if (sscanf(line, " %*u %*u %63s %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu",
				   dev, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9]) != 11 ||
			strcmp(dev, name) != 0)
			continue;
		disk[TEL_DISK_READS] = v[0];
		disk[TEL_DISK_READ_BYTES] = v[2] * 512;	/* sectors of 512 bytes, always */
		disk[TEL_DISK_WRITES] = v[4];
		disk[TEL_DISK_WRITE_BYTES] = v[6] * 512;
		disk[TEL_DISK_BUSY_MS] = v[9];
		found = true;
	}
	fclose(f);
	return found;
}

/* The data directory's disk, as system_info() names it. */
static void
find_disk(Telemetry *tel)
{
	SystemFacts facts;

	memset(&facts, 0, sizeof(facts));
	SystemProbeStorage(&facts);
	if (facts.data_device != NULL)
		strlcpy(tel->disk_name, facts.data_device, sizeof(tel->disk_name));
	tel->disk_ok = read_disk(tel->disk_name, tel->disk);
}

/*
 * The control file's last completed checkpoint (its record's LSN), read as
 * pg_control_checkpoint() reads it: it changes when, and only when, a
 * checkpoint (or a standby's restartpoint) completes.
 */
static uint64
control_checkpoint(void)
{
	ControlFileData *cf;
	bool		crc_ok;
	uint64		lsn;

	LWLockAcquire(ControlFileLock, LW_SHARED);
	cf = get_controlfile(DataDir, &crc_ok);
	LWLockRelease(ControlFileLock);
	lsn = crc_ok ? (uint64) cf->checkPoint : 0;
	pfree(cf);
	return lsn;
}

/* A change of the last checkpoint since the last sample is a completion. */
static void
sample_checkpoint(Telemetry *tel)
{
	uint64		lsn = control_checkpoint();

	if (lsn != 0 && lsn != tel->ckpt_lsn)
	{
		if (tel->ckpt_lsn != 0)
		{
			tel->ckpt_second++;
			tel->ckpt_total++;
		}
		tel->ckpt_lsn = lsn;
	}
}

/*
 * One sample of each WAL sender's lag behind this server, in bytes, as
 * pg_stat_replication computes it (this server's write position, or a
 * standby's received one, minus the sender's positions), kept as the
 * second's largest per WAL sender.  The senders' positions are read first,
 * this server's after: read before, a standby could pass it meanwhile.
 */
static void
sample_lag(Telemetry *tel)
{
	struct
	{
		int			pid;
		uint64		pos[TEL_NLAG];
	}		   *seen = palloc(sizeof(*seen) * max_wal_senders);
	int			n = 0;
	uint64		here;

	for (int i = 0; i < max_wal_senders; i++)
	{
		WalSnd	   *w = &WalSndCtl->walsnds[i];

		SpinLockAcquire(&w->mutex);
		seen[n].pid = w->pid;
		seen[n].pos[0] = w->sentPtr;
		seen[n].pos[1] = w->write;
		seen[n].pos[2] = w->flush;
		seen[n].pos[3] = w->apply;
		SpinLockRelease(&w->mutex);
		if (seen[n].pid != 0)
			n++;
	}
	pg_read_barrier();
	here = RecoveryInProgress() ? GetWalRcvFlushRecPtr(NULL, NULL) : GetXLogWriteRecPtr();
	for (int i = 0; i < n; i++)
	{
		TelemetryLag *l = NULL;

		for (int j = 0; j < tel->nlag && l == NULL; j++)
			if (tel->lag[j].pid == seen[i].pid)
				l = &tel->lag[j];
		if (l == NULL)
		{
			if (tel->nlag == max_wal_senders)
				continue;		/* cannot happen: as many as there are senders */
			l = &tel->lag[tel->nlag++];
			l->pid = seen[i].pid;
			l->samples = 0;
			for (int k = 0; k < TEL_NLAG; k++)
				l->max[k] = -1;
		}
		l->samples++;
		for (int k = 0; k < TEL_NLAG; k++)
		{
			uint64		pos = seen[i].pos[k];

			if (pos == 0)
				continue;		/* not reported yet: NULL in the view */
			l->max[k] = Max(l->max[k], here > pos ? (int64) (here - pos) : 0);
		}
	}
	pfree(seen);
}

/* Note where every counter starts; called once the clock has started. */
void
TelemetryBegin(Telemetry *tel, RunShared *run)
{
	memset(tel, 0, sizeof(*tel));
	tel->run = run;
	tel->here = RunMeasuredHere(run);
	/* the run's checkpoints need the watch, telemetry or not */
	tel->ckpt_watch = !PGBL_CHECKPOINTS_DONE_COUNTED && tel->here;
	if (tel->ckpt_watch)
		tel->ckpt_lsn = control_checkpoint();
	tel->next_lag_ns = WorkerNowNs();
	tel->on = run_wants_telemetry(run);
	if (!tel->on)
		return;
	/* a library newer than the installed script (0.1's has no table) */
	WorkerXactBegin();
	if (SPI_execute("SELECT pg_catalog.to_regclass('pgbench_lab.run_telemetry') IS NOT NULL, "
					"EXISTS (SELECT FROM pg_catalog.pg_attribute a WHERE a.attrelid OPERATOR(pg_catalog.=) "
					"pg_catalog.to_regclass('pgbench_lab.run_replication') "
					"AND a.attname OPERATOR(pg_catalog.=) 'lag_samples' AND NOT a.attisdropped)",
					true, 1) != SPI_OK_SELECT ||
		strcmp(SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1), "t") != 0)
		tel->on = false;
	else
	{
		/* an install script before 0.3 has no sampled maxima to write */
		tel->lag_columns = strcmp(SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2), "t") == 0;
		read_stats(tel->stat);
	}
	WorkerXactCommit();
	if (!tel->on)
		return;
	/* the coordinator's loop runs between transactions, in TopMemoryContext */
	tel->cxt = AllocSetContextCreate(TopMemoryContext, "pgbench_lab telemetry",
									 ALLOCSET_SMALL_SIZES);
	tel->waits_on = run->via == RUN_VIA_SPI;
	if (RunIncludesHere(run) && max_wal_senders > 0)
		tel->lag = MemoryContextAllocZero(TopMemoryContext, sizeof(TelemetryLag) * max_wal_senders);
	tel->procs = palloc0(sizeof(PGPROC *) * run->clients);
	tel->proc_ticks = palloc0(sizeof(uint64) * (run->clients + 1));
	tel->cpu_ok = read_cpu(tel->cpu);
	find_disk(tel);
	for (int i = 0; i <= run->clients; i++)
		(void) TelemetryProcTicks(process_pid(tel, i), &tel->proc_ticks[i]);
	tel->next_sample_ns = WorkerNowNs();
}

/*
 * The checkpoints completed since TelemetryBegin, as the watch counted
 * them (before PostgreSQL 18), after a last look; -1 where the server's
 * own counter counts completions (18 on) or the run's server is not this.
 */
int64
TelemetryCheckpoints(Telemetry *tel)
{
	if (!tel->ckpt_watch)
		return -1;
	sample_checkpoint(tel);
	return tel->ckpt_total;
}

/* Count one wait_event_info (0: on CPU). */
static void
count_wait(Telemetry *tel, uint32 info)
{
	for (int i = 0; i < tel->nwaits; i++)
	{
		if (tel->waits[i].info == info)
		{
			tel->waits[i].count++;
			return;
		}
	}
	if (tel->nwaits == PGBL_TELEMETRY_MAX_WAITS)
	{
		tel->overflow++;
		return;
	}
	tel->waits[tel->nwaits].info = info;
	tel->waits[tel->nwaits++].count = 1;
}

/* One sample: what each client still in its loop waits on now. */
static void
sample_waits(Telemetry *tel)
{
	RunShared  *run = tel->run;

	if (pg_atomic_read_u32(&run->go) == 0)
		return;					/* the clients have not begun */
	for (int i = 0; i < run->clients; i++)
	{
		RunClient  *c = &run->client[i];
		PGPROC	   *proc = tel->procs[i];
		uint32		info;
		uint32		pacing;

		if (pg_atomic_read_u32(&c->state) != CLIENT_READY || c->pid <= 0)
			continue;
		/* found once (that takes ProcArrayLock), checked at every read */
		if (proc == NULL || proc->pid != c->pid)
			proc = tel->procs[i] = BackendPidGetProc(c->pid);
		if (proc == NULL)
			continue;
		/*
		 * The client's own pacing is no wait on the server.  The flag is
		 * read before and after the wait event: a wait that begins or ends
		 * between the reads still counts as pacing.
		 */
		pacing = pg_atomic_read_u32(&c->pacing);
		pg_read_barrier();
		info = *(volatile uint32 *) &proc->wait_event_info;
		pg_read_barrier();
		pacing |= pg_atomic_read_u32(&c->pacing);
		if (info == PG_WAIT_EXTENSION && pacing)
			info = PGBL_WAIT_PACING;
		count_wait(tel, info);
	}
	tel->samples++;
}

/*
 * Called at every wake of the coordinator's loop: sample when due, and
 * return how long the loop may sleep (at most timeout_ms).
 */
long
TelemetryTick(Telemetry *tel, int64 now_ns, long timeout_ms)
{
	if (tel->lag != NULL || tel->ckpt_watch)
	{
		if (now_ns >= tel->next_lag_ns)
		{
			if (tel->lag != NULL)
				sample_lag(tel);
			if (tel->ckpt_watch)
				sample_checkpoint(tel);
			tel->next_lag_ns += PGBL_TELEMETRY_LAG_NS;
			if (tel->next_lag_ns <= now_ns)
				tel->next_lag_ns = now_ns + PGBL_TELEMETRY_LAG_NS;
		}
		timeout_ms = Max(1L, Min(timeout_ms, (long) ((tel->next_lag_ns - now_ns + 999999) / 1000000)));
	}
	if (!tel->on || !tel->waits_on)
		return timeout_ms;
	if (now_ns >= tel->next_sample_ns)
	{
		sample_waits(tel);
		tel->next_sample_ns += PGBL_TELEMETRY_SAMPLE_NS;
		/* after a long stall, start again from now rather than catch up */
		if (tel->next_sample_ns <= now_ns)
			tel->next_sample_ns = now_ns + PGBL_TELEMETRY_SAMPLE_NS;
	}
	return Max(1L, Min(timeout_ms, (long) ((tel->next_sample_ns - now_ns + 999999) / 1000000)));
}

/* The second's wait counts as a JSON object, or NULL when none. */
static char *
waits_json(Telemetry *tel)
{
	StringInfoData buf;

	if (!tel->waits_on)
		return NULL;
	initStringInfo(&buf);
	appendStringInfoChar(&buf, '{');
	for (int i = 0; i < tel->nwaits; i++)
	{
		uint32		info = tel->waits[i].info;
		const char *type = NULL;
		const char *event = NULL;

		if (i > 0)
			appendStringInfoString(&buf, ", ");
		if (info == PGBL_WAIT_PACING)
		{
			type = "Idle";
			event = "Pacing";
		}
		else if (info != 0)
		{
			type = pgstat_get_wait_event_type(info);
			event = pgstat_get_wait_event(info);
		}
		escape_json(&buf, info == 0 ? "CPU" :
					psprintf("%s:%s", type ? type : "???", event ? event : "???"));
		appendStringInfo(&buf, ": %d", tel->waits[i].count);
	}
	if (tel->overflow > 0)
		appendStringInfo(&buf, "%s\"Other:more\": %d", tel->nwaits ? ", " : "", tel->overflow);
	appendStringInfoChar(&buf, '}');
	return buf.data;
}

/*
 * The run's processes' CPU seconds since the last call.  A libpq worker
 * drives several clients (contiguous ones): counted once.  A client's
 * process gone already (the last second is written after the clients
 * exit) counts up to the ticks it noted at its end (cpu_ticks_end).
 */
static double
run_cpu_seconds(Telemetry *tel)
{
	uint64		ticks = 0;

	for (int i = 0; i <= tel->run->clients; i++)
	{
		uint64		now;
		int			pid = process_pid(tel, i);

		if (i > 1 && pid == process_pid(tel, i - 1))
			continue;			/* the same libpq worker as the previous client */
		if (!TelemetryProcTicks(pid, &now))
		{
			now = 0;
			/* gone: its clients noted its ticks as each ended */
			for (int j = i; i > 0 && j <= tel->run->clients && process_pid(tel, j) == pid; j++)
				now = Max(now, tel->run->client[j - 1].cpu_ticks_end);
		}
		if (now > tel->proc_ticks[i])
		{
			ticks += now - tel->proc_ticks[i];
			tel->proc_ticks[i] = now;
		}
	}
	return (double) ticks / (double) sysconf(_SC_CLK_TCK);
}

/* The machine's CPU shares since the last call, as percentages. */
static void
cpu_shares(Telemetry *tel, Datum *v, char *nulls)
{
	uint64		cur[TEL_NCPU];
	uint64		total = 0;
	bool		ok = read_cpu(cur);

	for (int i = 0; ok && tel->cpu_ok && i < TEL_NCPU; i++)
		total += cur[i] - tel->cpu[i];
	for (int i = 0; i < TEL_NCPU; i++)
	{
		nulls[i] = total > 0 ? ' ' : 'n';
		v[i] = Float8GetDatum(total > 0 ? 100.0 * (double) (cur[i] - tel->cpu[i]) / (double) total : 0);
	}
	if (ok)
		memcpy(tel->cpu, cur, sizeof(cur));
	tel->cpu_ok = ok;
}

/* The disk's figures since the last call: 5 columns, NULL if unknown. */
static void
disk_deltas(Telemetry *tel, double interval_seconds, Datum *v, char *nulls)
{
	uint64		cur[TEL_NDISK];
	bool		ok = read_disk(tel->disk_name, cur);

	for (int i = 0; i < TEL_NDISK; i++)
	{
		uint64		d = ok && tel->disk_ok && cur[i] >= tel->disk[i] ? cur[i] - tel->disk[i] : 0;

		nulls[i] = ok && tel->disk_ok ? ' ' : 'n';
		if (i == TEL_DISK_BUSY_MS)
			v[i] = Float8GetDatum(Min(100.0, (double) d / (10.0 * interval_seconds)));
		else
			v[i] = Int64GetDatum((int64) d);
	}
	if (ok)
		memcpy(tel->disk, cur, sizeof(cur));
	tel->disk_ok = ok;
}

/*
 * One row of pgbench_lab.run_telemetry, committed, and start the next.
 * The values in the order of the columns below: run_id, second, interval,
 * the run's CPU, the machine's (TEL_NCPU), the server's counters
 * (TEL_NSTAT), the disk's (TEL_NDISK), the wait samples and their counts.
 */
#define TEL_COL_CPU		4
#define TEL_COL_STAT	(TEL_COL_CPU + TEL_NCPU)
#define TEL_COL_DISK	(TEL_COL_STAT + TEL_NSTAT)
#define TEL_COL_WAITS	(TEL_COL_DISK + TEL_NDISK)
#define TEL_NCOLS		(TEL_COL_WAITS + 2)

/*
 * Each standby's lag behind this server in the second, one row each, when
 * it has any (a primary, or a standby that others stream from): bytes from
 * the LSNs, times as the WAL senders last measured them.  This server's
 * position is read per row, after the WAL senders' positions (the view
 * reads them all first): read before, a standby could pass it meanwhile
 * and its lag come out negative.
 *
 * The coordinator reads pg_stat_replication as the extension's owner, but
 * the rows are the run's role's to read: each column is kept only where
 * that role would see it in pg_stat_replication itself.  The standby's
 * name and its WAL sender's pid are shown to every role; the WAL sender's
 * state, positions and lags only to members of pg_read_all_stats (the
 * WAL senders' function shows nothing else to anyone else); its client
 * address also to a role that has the privileges of the WAL sender's role
 * (pg_stat_activity's rule).  Elsewhere the column is NULL.
 */
/*
 * The standbys' rows of the second: what a row has had since 0.2, and the
 * sampled maxima since 0.3 (m: the coordinator's samples, by WAL sender).
 */
#define PGBL_REPLICATION_SELECT \
	"SELECT $1, $2, pg_catalog.format('%s (%s)', s.application_name, s.pid), CASE WHEN v.all_stats " \
	"OR pg_catalog.pg_has_role($3, s.usesysid, 'USAGE') THEN pg_catalog.host(s.client_addr) END, " \
	"CASE WHEN v.all_stats THEN s.state END, CASE WHEN v.all_stats THEN s.sync_state END, CASE WHEN " \
	"v.all_stats THEN pg_catalog.pg_wal_lsn_diff(h.lsn, s.sent_lsn) END, CASE WHEN v.all_stats THEN " \
	"pg_catalog.pg_wal_lsn_diff(h.lsn, s.write_lsn) END, CASE WHEN v.all_stats THEN " \
	"pg_catalog.pg_wal_lsn_diff(h.lsn, s.flush_lsn) END, CASE WHEN v.all_stats THEN " \
	"pg_catalog.pg_wal_lsn_diff(h.lsn, s.replay_lsn) END, CASE WHEN v.all_stats THEN " \
	"pg_catalog.date_part('epoch', s.write_lag) OPERATOR(pg_catalog.*) 1000 END, CASE WHEN " \
	"v.all_stats THEN pg_catalog.date_part('epoch', s.flush_lag) OPERATOR(pg_catalog.*) 1000 END, " \
	"CASE WHEN v.all_stats THEN pg_catalog.date_part('epoch', s.replay_lag) OPERATOR(pg_catalog.*) " \
	"1000 END "
#define PGBL_REPLICATION_FROM \
	"FROM (SELECT pg_catalog.pg_has_role($3, 'pg_read_all_stats'::pg_catalog.name, 'USAGE') AS " \
	"all_stats) v CROSS JOIN pg_catalog.pg_stat_replication s CROSS JOIN LATERAL (SELECT s.pid, CASE " \
	"WHEN pg_catalog.pg_is_in_recovery() THEN pg_catalog.pg_last_wal_receive_lsn() ELSE " \
	"pg_catalog.pg_current_wal_lsn() END AS lsn OFFSET 0) h LEFT JOIN (SELECT p.pid, $5[p.i " \
	"OPERATOR(pg_catalog.*) 5 OPERATOR(pg_catalog.-) 4] AS n, CASE WHEN $5[p.i " \
	"OPERATOR(pg_catalog.*) 5 OPERATOR(pg_catalog.-) 3] OPERATOR(pg_catalog.>=) 0 THEN $5[p.i " \
	"OPERATOR(pg_catalog.*) 5 OPERATOR(pg_catalog.-) 3] END AS sent, CASE WHEN $5[p.i " \
	"OPERATOR(pg_catalog.*) 5 OPERATOR(pg_catalog.-) 2] OPERATOR(pg_catalog.>=) 0 THEN $5[p.i " \
	"OPERATOR(pg_catalog.*) 5 OPERATOR(pg_catalog.-) 2] END AS write, CASE WHEN $5[p.i " \
	"OPERATOR(pg_catalog.*) 5 OPERATOR(pg_catalog.-) 1] OPERATOR(pg_catalog.>=) 0 THEN $5[p.i " \
	"OPERATOR(pg_catalog.*) 5 OPERATOR(pg_catalog.-) 1] END AS flush, CASE WHEN $5[p.i " \
	"OPERATOR(pg_catalog.*) 5] OPERATOR(pg_catalog.>=) 0 THEN $5[p.i OPERATOR(pg_catalog.*) 5] END " \
	"AS replay FROM pg_catalog.unnest($4) WITH ORDINALITY AS p(pid, i)) m ON m.pid " \
	"OPERATOR(pg_catalog.=) s.pid"

static Datum
int_array(Datum *d, int n, Oid type)
{
	return PointerGetDatum(construct_array(d, n, type, type == INT4OID ? 4 : 8,
										   type == INT4OID ? true : FLOAT8PASSBYVAL,
										   type == INT4OID ? TYPALIGN_INT : TYPALIGN_DOUBLE));
}

static void
write_replication(Telemetry *tel, int second)
{
	Oid			types[5] = {INT8OID, INT4OID, OIDOID, INT4ARRAYOID, INT8ARRAYOID};
	Datum		v[5];
	Datum	   *pids = palloc(sizeof(Datum) * Max(tel->nlag, 1));
	Datum	   *maxima = palloc(sizeof(Datum) * Max(tel->nlag, 1) * (TEL_NLAG + 1));
	int			rc;

	/* each sender: its pid; its samples, then its largest lags (-1: none, NULL) */
	for (int i = 0; i < tel->nlag; i++)
	{
		pids[i] = Int32GetDatum(tel->lag[i].pid);
		maxima[i * (TEL_NLAG + 1)] = Int64GetDatum(tel->lag[i].samples);
		for (int k = 0; k < TEL_NLAG; k++)
			maxima[i * (TEL_NLAG + 1) + 1 + k] = Int64GetDatum(tel->lag[i].max[k]);
	}
	v[0] = Int64GetDatum(tel->run->run_id);
	v[1] = Int32GetDatum(second);
	v[2] = ObjectIdGetDatum(tel->run->run_role);
	v[3] = int_array(pids, tel->nlag, INT4OID);
	v[4] = int_array(maxima, tel->nlag * (TEL_NLAG + 1), INT8OID);
	if (tel->lag_columns)
		rc = SPI_execute_with_args("INSERT INTO pgbench_lab.run_replication (run_id, second, standby, "
								   "client_addr, state, sync_state, sent_lag_bytes, write_lag_bytes, "
								   "flush_lag_bytes, replay_lag_bytes, write_lag_ms, flush_lag_ms, "
								   "replay_lag_ms, lag_samples, sent_lag_bytes_max, write_lag_bytes_max, "
								   "flush_lag_bytes_max, replay_lag_bytes_max) " PGBL_REPLICATION_SELECT
								   ", COALESCE(m.n, 0)::pg_catalog.int4 OPERATOR(pg_catalog.+) 1, "
								   "CASE WHEN v.all_stats THEN GREATEST(pg_catalog.pg_wal_lsn_diff(h.lsn, s.sent_lsn), m.sent) END, "
								   "CASE WHEN v.all_stats THEN GREATEST(pg_catalog.pg_wal_lsn_diff(h.lsn, s.write_lsn), m.write) END, "
								   "CASE WHEN v.all_stats THEN GREATEST(pg_catalog.pg_wal_lsn_diff(h.lsn, s.flush_lsn), m.flush) END, "
								   "CASE WHEN v.all_stats THEN GREATEST(pg_catalog.pg_wal_lsn_diff(h.lsn, s.replay_lsn), m.replay) END "
								   PGBL_REPLICATION_FROM,
								   5, types, v, NULL, false, 0);
	else						/* an install script before 0.3 */
		rc = SPI_execute_with_args("INSERT INTO pgbench_lab.run_replication (run_id, second, standby, "
								   "client_addr, state, sync_state, sent_lag_bytes, write_lag_bytes, "
								   "flush_lag_bytes, replay_lag_bytes, write_lag_ms, flush_lag_ms, "
								   "replay_lag_ms) " PGBL_REPLICATION_SELECT " " PGBL_REPLICATION_FROM,
								   5, types, v, NULL, false, 0);
	if (rc != SPI_OK_INSERT)
		elog(ERROR, "pgbench_lab could not record the standbys' lag: %s", SPI_result_code_string(rc));
}

void
TelemetryWrite(Telemetry *tel, int second, double interval_seconds)
{
	Oid			types[TEL_NCOLS];
	Datum		v[TEL_NCOLS];
	char		nulls[TEL_NCOLS + 1];
	int64		stat[TEL_NSTAT];
	char	   *waits;
	int			rc;
	MemoryContext old;

	StaticAssertStmt(TEL_NCOLS == 25, "the INSERT below names 25 columns");
	if (!tel->on)
		return;
	old = MemoryContextSwitchTo(tel->cxt);
	interval_seconds = Max(interval_seconds, 0.001);
	memset(nulls, ' ', sizeof(nulls));
	nulls[TEL_NCOLS] = '\0';
	for (int i = 0; i < TEL_NCOLS; i++)
		types[i] = i < TEL_COL_STAT ? FLOAT8OID : INT8OID;
	types[0] = INT8OID;
	types[1] = INT4OID;
	types[TEL_COL_DISK + TEL_DISK_BUSY_MS] = FLOAT8OID;
	types[TEL_COL_WAITS] = INT4OID;
	types[TEL_COL_WAITS + 1] = TEXTOID;
	v[0] = Int64GetDatum(tel->run->run_id);
	v[1] = Int32GetDatum(second);
	v[2] = Float8GetDatum(interval_seconds);
	v[3] = Float8GetDatum(run_cpu_seconds(tel));
	cpu_shares(tel, &v[TEL_COL_CPU], &nulls[TEL_COL_CPU]);
	disk_deltas(tel, interval_seconds, &v[TEL_COL_DISK], &nulls[TEL_COL_DISK]);
	/* another server's run: this machine's shares and disk are not its */
	for (int i = 0; !tel->here && i < TEL_NCPU; i++)
		nulls[TEL_COL_CPU + i] = 'n';
	for (int i = 0; !tel->here && i < TEL_NDISK; i++)
		nulls[TEL_COL_DISK + i] = 'n';
	waits = waits_json(tel);
	v[TEL_COL_WAITS] = Int32GetDatum(tel->samples);
	v[TEL_COL_WAITS + 1] = waits ? CStringGetTextDatum(waits) : (Datum) 0;
	nulls[TEL_COL_WAITS + 1] = waits ? ' ' : 'n';
	tel->nwaits = tel->samples = tel->overflow = 0;

	/* the second's last samples, at its end */
	if (tel->lag != NULL)
		sample_lag(tel);
	if (tel->ckpt_watch)
		sample_checkpoint(tel);

	WorkerXactBegin();
	read_stats(stat);
	for (int i = 0; i < TEL_NSTAT; i++)
	{
		v[TEL_COL_STAT + i] = Int64GetDatum(stat[i] - tel->stat[i]);
		nulls[TEL_COL_STAT + i] = tel->here ? ' ' : 'n';
		tel->stat[i] = stat[i];
	}
	/* before 18: the completions the watch saw, not the starts counted */
	if (tel->ckpt_watch)
		v[TEL_COL_STAT + TEL_STAT_CHECKPOINTS] = Int64GetDatum(tel->ckpt_second);
	tel->ckpt_second = 0;
	rc = SPI_execute_with_args("INSERT INTO pgbench_lab.run_telemetry (run_id, second, interval_seconds, "
							   "run_cpu_seconds, cpu_user_pct, cpu_system_pct, cpu_iowait_pct, "
							   "cpu_steal_pct, cpu_idle_pct, checkpoints, buffers_checkpoint, "
							   "buffers_clean, buffers_backend, wal_records, wal_fpi, wal_bytes, "
							   "temp_files, temp_bytes, disk_reads, disk_read_bytes, disk_writes, "
							   "disk_write_bytes, disk_busy_pct, wait_samples, waits) "
							   "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, "
							   "$15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25::pg_catalog.jsonb)",
							   TEL_NCOLS, types, v, nulls, false, 0);
	if (rc != SPI_OK_INSERT)
		elog(ERROR, "pgbench_lab could not record telemetry: %s", SPI_result_code_string(rc));
	if (tel->lag != NULL)
		write_replication(tel, second);
	tel->nlag = 0;
	WorkerXactCommit();
	MemoryContextSwitchTo(old);
	MemoryContextReset(tel->cxt);
}
