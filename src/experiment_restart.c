/*-------------------------------------------------------------------------
 *
 * experiment_restart.c
 *		Restart-level settings compared in two phases, with a restart of
 *		the server between them: compare_settings(..., restart_settings =>
 *		...) and resume().
 *
 * A setting such as shared_buffers takes effect only when the server
 * starts, so its two values cannot alternate within a round, and no
 * session can put it back when the experiment ends.  The experiment is
 * therefore cut in two, around a restart that only the DBA can make:
 *
 *	1. compare_settings() checks set B's values as the postmaster will
 *	   (SettingsCheckRestart: a value that the server refuses at its start
 *	   would keep it down), records postgresql.auto.conf (SettingsSave),
 *	   runs set A's rounds, then writes B with ALTER SYSTEM, marks the
 *	   record and the experiment "waiting for restart", keeps the plan in
 *	   the record, and stops, saying what to do next.  From then on no
 *	   session's exit and no automatic restore touches the file
 *	   (settings_restore.c leaves a waiting record alone).
 *	2. resume(id), after the restart, checks that the postmaster started
 *	   after B was written and that every value of B is live, takes the
 *	   experiment up again in its own session (an error, a cancel or the
 *	   session's end puts A's file back, as in a one-phase experiment),
 *	   runs set B's rounds, writes the file back as it was before phase 1
 *	   and says that a second restart returns the server to A's values.
 *
 * restore_settings() by hand abandons a waiting experiment: the file goes
 * back, the experiment is aborted.  The sets run the same workload on the
 * same data; every run of both phases starts with pgbench's tables warmed
 * by pg_prewarm (the kind's preparation, 82_compare_settings.sql).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"

#include "experiment_restart.h"
#include "pgbench_lab.h"
#include "secure.h"

PG_FUNCTION_INFO_V1(pgbench_lab_resume);

typedef struct WaitCall
{
	int64		experiment_id;
	Datum		plan;
	Jsonb	   *restart;
} WaitCall;

/* As the extension's owner: the record and the experiment wait. */
static void
mark_waiting_as_owner(void *arg)
{
	WaitCall   *w = (WaitCall *) arg;
	Oid			types[3] = {INT8OID, JSONBOID, JSONBOID};
	Datum		values[3] = {Int64GetDatum(w->experiment_id), JsonbPGetDatum(w->restart), w->plan};

	if (SPI_execute_with_args("UPDATE pgbench_lab_internal.settings_saved s SET waiting = true, restart = $2, "
							  "plan = $3, written_at = pg_catalog.clock_timestamp() "
							  "WHERE s.experiment_id OPERATOR(pg_catalog.=) $1",
							  3, types, values, NULL, false, 0) != SPI_OK_UPDATE || SPI_processed != 1)
		elog(ERROR, "could not mark the settings of experiment " INT64_FORMAT " waiting", w->experiment_id);
	if (SPI_execute_with_args("UPDATE pgbench_lab.experiments e SET status = 'waiting for restart' "
							  "WHERE e.experiment_id OPERATOR(pg_catalog.=) $1 "
							  "AND e.status OPERATOR(pg_catalog.=) 'running'",
							  1, types, values, NULL, false, 0) != SPI_OK_UPDATE || SPI_processed != 1)
		elog(ERROR, "could not mark experiment " INT64_FORMAT " waiting for a restart", w->experiment_id);
}

/*
 * Phase 1's end, inside the driver's PG_TRY: the record marked, set B
 * written, the session's exit disarmed; the caller commits.  Should the
 * session end before that commit, the record is not waiting and the next
 * call restores the file as after any lost session.
 */
void
ExperimentWaitForRestart(const ExperimentPlan *plan, AutoConfSaved *saved)
{
	WaitCall	w = {saved->experiment_id, plan->plan, plan->restart};

	SecureAsOwner(mark_waiting_as_owner, &w);
	SettingsWriteRestart(saved, plan->restart);
	AutoConfDisarmExit();
}

/* What resume() reads of a waiting experiment, as the owner. */
typedef struct ResumeCall
{
	int64		experiment_id;
	MemoryContext cxt;			/* for saved: lives as long as the exit callback may need it */
	bool		found;
	char	   *kind;
	char	   *status;
	bool		two_phase;		/* called with restart_settings */
	bool		waiting;		/* between its phases, its record open */
	bool		restarted;
	char	   *written_at;
	char	   *started_at;
	Datum		plan;
	Jsonb	   *restart;
	AutoConfSaved *saved;
} ResumeCall;

static void
read_as_owner(void *arg)
{
	ResumeCall *c = (ResumeCall *) arg;
	Oid			type = INT8OID;
	Datum		id = Int64GetDatum(c->experiment_id);
	HeapTuple	row;
	TupleDesc	desc;
	SettingsRecovered r;
	bool		isnull;
	MemoryContext old;

	/* columns 1-8 as SettingsSavedFromRow() reads them */
	if (SPI_execute_with_args("SELECT s.experiment_id, s.names, s.auto_conf, s.saved_at, "
							  "ARRAY(SELECT s.entries OPERATOR(pg_catalog.->>) u.n "
							  "FROM pg_catalog.unnest(s.names) WITH ORDINALITY AS u(n, i) ORDER BY u.i), "
							  "false, s.backend_pid, s.waiting, e.kind, e.status, "
							  "e.params OPERATOR(pg_catalog.?) 'restart_settings', "
							  "COALESCE(s.waiting AND s.restored_at IS NULL, false), "
							  "pg_catalog.pg_postmaster_start_time() OPERATOR(pg_catalog.>) s.written_at, "
							  "s.written_at::pg_catalog.text, pg_catalog.pg_postmaster_start_time()::pg_catalog.text, "
							  "s.plan, s.restart "
							  "FROM pgbench_lab.experiments e LEFT JOIN pgbench_lab_internal.settings_saved s "
							  "ON s.experiment_id OPERATOR(pg_catalog.=) e.experiment_id "
							  "WHERE e.experiment_id OPERATOR(pg_catalog.=) $1 AND e.source_server IS NULL",
							  1, &type, &id, NULL, false, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not read experiment " INT64_FORMAT, c->experiment_id);
	if (SPI_processed != 1)
		return;
	row = SPI_tuptable->vals[0];
	desc = SPI_tuptable->tupdesc;
	old = MemoryContextSwitchTo(c->cxt);
	c->found = true;
	c->kind = SPI_getvalue(row, desc, 9);
	c->status = SPI_getvalue(row, desc, 10);
	c->two_phase = DatumGetBool(SPI_getbinval(row, desc, 11, &isnull));
	c->waiting = DatumGetBool(SPI_getbinval(row, desc, 12, &isnull)) &&
		strcmp(c->status, "waiting for restart") == 0;
	if (c->waiting)
	{
		c->restarted = DatumGetBool(SPI_getbinval(row, desc, 13, &isnull));
		c->written_at = SPI_getvalue(row, desc, 14);
		c->started_at = SPI_getvalue(row, desc, 15);
		c->plan = datumCopy(SPI_getbinval(row, desc, 16, &isnull), false, -1);
		c->restart = DatumGetJsonbPCopy(SPI_getbinval(row, desc, 17, &isnull));
	}
	MemoryContextSwitchTo(old);
	if (c->waiting)
		c->saved = SettingsSavedFromRow(row, desc, c->cxt, &r);
}

/* The experiment, if it waits for a restart that has happened; else an error. */
static void
check_waiting(const ResumeCall *c)
{
	if (!c->found)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("experiment " INT64_FORMAT " does not exist", c->experiment_id),
				 errhint("pgbench_lab.experiments lists the experiments; resume() takes up one whose status is \"waiting for restart\".")));
	if (!c->two_phase)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("experiment " INT64_FORMAT " is not a two-phase experiment", c->experiment_id),
				 errdetail("It is a %s experiment without restart-level settings.", c->kind),
				 errhint("resume() takes up a compare_settings experiment called with restart_settings, after its first phase and a restart.")));
	if (!c->waiting)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("experiment " INT64_FORMAT " is not waiting for a restart", c->experiment_id),
				 errdetail("Its status is \"%s\".", c->status),
				 strcmp(c->status, "running") == 0
				 ? errhint("It is under way in another session.")
				 : strcmp(c->status, "done") == 0
				 ? errhint("Both phases have run: SELECT pgbench_lab.report(" INT64_FORMAT ") shows them.", c->experiment_id)
				 : errhint("It failed or was abandoned; start another with CALL pgbench_lab.compare_settings(..., restart_settings => ...).")));
	if (!c->restarted)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("the server has not restarted since experiment " INT64_FORMAT " wrote set B's settings",
						c->experiment_id),
				 errdetail("They were written at %s; the server started at %s.", c->written_at, c->started_at),
				 errhint("Restart the server (for example with pg_ctl restart), then CALL pgbench_lab.resume(" INT64_FORMAT
						 ") again; SELECT * FROM pgbench_lab.restore_settings() abandons the experiment.",
						 c->experiment_id)));
}

/* One value of set B live, compared in its unit; else an error. */
static void
check_live_one(const char *name, const char *value, void *arg)
{
	const ResumeCall *c = (const ResumeCall *) arg;
	char	   *shown;

	if (value != NULL && !SettingsValueIsLive(name, value, &shown))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("parameter \"%s\" is %s, and experiment " INT64_FORMAT " wrote %s for set B",
						name, shown, c->experiment_id, value),
				 errdetail("The server restarted, but not with set B's value."),
				 errhint("Something overrides postgresql.auto.conf (the command line, an environment variable), or the "
						 "file changed since; SELECT * FROM pgbench_lab.restore_settings() abandons the experiment.")));
}

/* Every value of set B live; else an error. */
static void
check_live(const ResumeCall *c)
{
	SettingsEach(c->restart, "restart_settings", check_live_one, (void *) c);
}

/* As the owner: the experiment and its record belong to this session now. */
static void
mark_resumed_as_owner(void *arg)
{
	int64		experiment_id = *(int64 *) arg;
	Oid			type = INT8OID;
	Datum		id = Int64GetDatum(experiment_id);

	if (SPI_execute_with_args("UPDATE pgbench_lab.experiments e SET status = 'running', "
							  "resumed_at = pg_catalog.clock_timestamp(), backend_pid = pg_catalog.pg_backend_pid(), "
							  "backend_start = (SELECT a.backend_start FROM pg_catalog.pg_stat_get_activity("
							  "pg_catalog.pg_backend_pid()) a) "
							  "WHERE e.experiment_id OPERATOR(pg_catalog.=) $1 "
							  "AND e.status OPERATOR(pg_catalog.=) 'waiting for restart'",
							  1, &type, &id, NULL, false, 0) != SPI_OK_UPDATE)
		elog(ERROR, "could not mark experiment " INT64_FORMAT " resumed", experiment_id);
	if (SPI_processed != 1)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_IN_USE),
				 errmsg("experiment " INT64_FORMAT " was taken up by another session", experiment_id)));
	if (SPI_execute_with_args("UPDATE pgbench_lab_internal.settings_saved s SET waiting = false, "
							  "backend_pid = pg_catalog.pg_backend_pid(), "
							  "backend_start = (SELECT a.backend_start FROM pg_catalog.pg_stat_get_activity("
							  "pg_catalog.pg_backend_pid()) a) "
							  "WHERE s.experiment_id OPERATOR(pg_catalog.=) $1",
							  1, &type, &id, NULL, false, 0) != SPI_OK_UPDATE || SPI_processed != 1)
		elog(ERROR, "could not mark the settings of experiment " INT64_FORMAT " resumed", experiment_id);
}

/* The kind whose runs a two-phase experiment makes. */
static ExperimentKind
compare_settings_kind(MemoryContext cxt)
{
	bool		isnull;

	if (SPI_execute("SELECT k.procedure::pg_catalog.oid FROM pgbench_lab.experiment_kinds k "
					"WHERE k.kind OPERATOR(pg_catalog.=) 'compare_settings'", true, 1) != SPI_OK_SELECT ||
		SPI_processed != 1)
		elog(ERROR, "the compare_settings kind is missing from pgbench_lab.experiment_kinds");
	return ExperimentReadKind(DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc,
															 1, &isnull)), cxt);
}

/*
 * CALL pgbench_lab.resume(INOUT experiment_id bigint, INOUT finding text)
 *
 * The second phase of a two-phase compare_settings; superusers only.
 */
Datum
pgbench_lab_resume(PG_FUNCTION_ARGS)
{
	MemoryContext cxt = CurrentMemoryContext;
	CallContext *ctx = (CallContext *) fcinfo->context;
	bool		atomic = ctx == NULL || !IsA(ctx, CallContext) || ctx->atomic;
	ResumeCall	c;
	ExperimentKind kind;
	ExperimentPlan plan;
	const char *volatile outcome = NULL;
	Datum		result;

	if (!superuser())
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("only superusers may resume an experiment of restart-level settings"),
				 errhint("It writes postgresql.auto.conf with ALTER SYSTEM, for the whole server.")));
	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("experiment_id must not be null"),
				 errhint("Pass the id compare_settings() gave, for example CALL pgbench_lab.resume(42).")));
	if (atomic)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TRANSACTION_TERMINATION),
				 errmsg("pgbench_lab.resume() must be called with CALL outside a transaction block"),
				 errhint("Each of its runs commits before it waits, so that no snapshot is held during the runs.")));
	if (SPI_connect_ext(SPI_OPT_NONATOMIC) != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");

	memset(&c, 0, sizeof(c));
	c.experiment_id = PG_GETARG_INT64(0);
	/* the saved file lives until the exit callback is disarmed */
	c.cxt = AllocSetContextCreate(TopMemoryContext, "pgbench_lab resume", ALLOCSET_SMALL_SIZES);
	PG_TRY();
	{
		SecureAsOwner(read_as_owner, &c);
		check_waiting(&c);
		check_live(&c);
	}
	PG_CATCH();
	{
		MemoryContextDelete(c.cxt);
		PG_RE_THROW();
	}
	PG_END_TRY();
	kind = compare_settings_kind(cxt);
	plan = ExperimentReadPlan(c.plan, cxt);
	ExperimentCheckSteps(&kind, &plan);
	SecureAsOwner(mark_resumed_as_owner, &c.experiment_id);
	SPI_commit();
	AutoConfArmExit(c.saved);
	PG_TRY();
	{
		ExperimentRunSteps(&kind, &plan, c.experiment_id, NULL, 2);
		outcome = SettingsWriteBackRestart(c.saved);
	}
	PG_CATCH();
	{
		ExperimentAbortInError(cxt, c.experiment_id, c.saved);
	}
	PG_END_TRY();
	ereport(NOTICE,
			(errmsg("postgresql.auto.conf has set A's settings again: restart the server to return to them"),
			 errdetail("%s.", outcome)));
	MemoryContextDelete(c.cxt);
	ExperimentEnd(c.experiment_id);
	result = ExperimentResultRow(fcinfo, &kind, c.experiment_id, cxt);
	SPI_finish();
	return result;
}
