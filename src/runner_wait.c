/*-------------------------------------------------------------------------
 *
 * runner_wait.c
 *		Waiting for, cancelling and watching runs: run(), wait(), cancel()
 *		and the live counters behind pgbench_lab.active_runs.
 *
 * A waiting procedure commits first, then waits on the run's shared memory
 * alone (a latch and an atomic phase), so it holds no snapshot while the
 * run goes on.  Its mapping of the segment is pinned for the session, and a
 * detach callback stops the run if the waiter is cancelled or terminated.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/xact.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "storage/latch.h"
#include "storage/proc.h"
#include "storage/procarray.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/wait_event.h"

#include "pgbench_lab.h"
#include "results.h"
#include "runner.h"

PG_FUNCTION_INFO_V1(pgbench_lab_run);
PG_FUNCTION_INFO_V1(pgbench_lab_wait);
PG_FUNCTION_INFO_V1(pgbench_lab_cancel);
PG_FUNCTION_INFO_V1(pgbench_lab_run_live);

/* What the result tables say of a run, as far as the caller may see. */
typedef struct RunRow
{
	bool		found;
	char		status[16];
	dsm_handle	handle;
	bool		has_handle;
	Oid			owner;
} RunRow;

static RunRow
read_run_row(int64 run_id)
{
	RunRow		row;
	Oid			type = INT8OID;
	Datum		arg = Int64GetDatum(run_id);
	bool		isnull;

	memset(&row, 0, sizeof(row));
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (SPI_execute_with_args("SELECT status, dsm_handle, owner::pg_catalog.oid FROM pgbench_lab.runs "
							  "WHERE run_id OPERATOR(pg_catalog.=) $1",
							  1, &type, &arg, NULL, false, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not read pgbench_lab.runs");
	if (SPI_processed == 1)
	{
		HeapTuple	t = SPI_tuptable->vals[0];
		TupleDesc	d = SPI_tuptable->tupdesc;

		row.found = true;
		strlcpy(row.status, SPI_getvalue(t, d, 1), sizeof(row.status));
		row.handle = (dsm_handle) DatumGetInt64(SPI_getbinval(t, d, 2, &isnull));
		row.has_handle = !isnull;
		row.owner = DatumGetObjectId(SPI_getbinval(t, d, 3, &isnull));
	}
	SPI_finish();
	if (!row.found)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("run " INT64_FORMAT " does not exist", run_id),
				 errhint("pgbench_lab.runs lists the runs you may see.")));
	return row;
}

/* End the caller's transaction: no snapshot is held from here on. */
static void
commit_caller(void)
{
	if (SPI_connect_ext(SPI_OPT_NONATOMIC) != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	SPI_commit();
	SPI_finish();
}

/*
 * The run named by the first argument, after marking orphans aborted.  A
 * procedure (commit true) commits that at once, so that it stands even if
 * the call then fails (an unknown run id, say).
 */
static RunRow
lookup_run(FunctionCallInfo fcinfo, int64 *run_id, bool commit)
{
	if (PG_ARGISNULL(0))
		ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
						errmsg("run_id must not be NULL")));
	*run_id = PG_GETARG_INT64(0);
	RunnerReapOrphans();
	if (commit)
		commit_caller();
	return read_run_row(*run_id);
}

static bool
may_control(Oid owner)
{
	return superuser() || has_privs_of_role(GetUserId(), owner);
}

/*
 * Cancel a run that is going, or ending: after its duration, the clients
 * finishing their last transactions and the coordinator reading its
 * targets at the end stop too (and the run ends cancelled).  False when it
 * was cancelled already.
 */
static bool
stop_run(RunShared *run)
{
	uint32		expected = RUN_STOP_NONE;

	if (!pg_atomic_compare_exchange_u32(&run->stop, &expected, RUN_STOP_CANCEL) &&
		(expected != RUN_STOP_END ||
		 !pg_atomic_compare_exchange_u32(&run->stop, &expected, RUN_STOP_CANCEL)))
		return false;
	WorkerSetLatchOf(run->coordinator_pid);
	return true;
}

static void
waiter_detach(dsm_segment *seg, Datum arg)
{
	RunShared  *run = (RunShared *) DatumGetPointer(arg);

	if (pg_atomic_read_u32(&run->phase) == RUN_PHASE_FINISHED)
		return;
	(void) stop_run(run);
}

/* Procedures must run non-atomically to commit before they wait. */
static void
require_nonatomic(FunctionCallInfo fcinfo, const char *name)
{
	CallContext *ctx = (CallContext *) fcinfo->context;

	if (ctx == NULL || !IsA(ctx, CallContext) || ctx->atomic)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TRANSACTION_TERMINATION),
				 errmsg("%s must be called with CALL outside a transaction block", name),
				 errhint("It commits before waiting so that it holds no snapshot during the run; "
						 "inside a transaction use pgbench_lab.start() and wait later.")));
}

/* Wait until the run is finished; cancel or termination stops it. */
static void
wait_finished(RunShared *run, dsm_segment *seg, bool stop_on_cancel)
{
	if (stop_on_cancel)
		on_dsm_detach(seg, waiter_detach, PointerGetDatum(run));
	dsm_pin_mapping(seg);
	PG_TRY();
	{
		commit_caller();
		while (pg_atomic_read_u32(&run->phase) == RUN_PHASE_RUNNING)
		{
			if (BackendPidGetProc(run->coordinator_pid) == NULL &&
				pg_atomic_read_u32(&run->phase) == RUN_PHASE_RUNNING)
				break;			/* RunnerReapOrphans will record it */
			(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
							 50L, PG_WAIT_EXTENSION);
			ResetLatch(MyLatch);
			CHECK_FOR_INTERRUPTS();
		}
	}
	PG_CATCH();
	{
		dsm_detach(seg);		/* runs waiter_detach: stops the run */
		PG_RE_THROW();
	}
	PG_END_TRY();
	if (stop_on_cancel)
		cancel_on_dsm_detach(seg, waiter_detach, PointerGetDatum(run));
	dsm_detach(seg);
	RunnerReapOrphans();
}

/*
 * The first row of SPI's last result as a procedure's INOUT columns,
 * copied out of SPI's memory into cxt (which outlives the procedure's
 * commits).  Shared by run(), wait() and the experiment procedures.
 */
Datum
RunnerCallResult(FunctionCallInfo fcinfo, MemoryContext cxt)
{
	TupleDesc	desc;
	Datum	   *values;
	bool	   *nulls;
	HeapTuple	tuple;
	MemoryContext old;

	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	old = MemoryContextSwitchTo(cxt);
	desc = BlessTupleDesc(CreateTupleDescCopy(desc));
	if (SPI_tuptable->tupdesc->natts != desc->natts)
		elog(ERROR, "pgbench_lab: result has %d columns, expected %d",
			 SPI_tuptable->tupdesc->natts, desc->natts);
	values = palloc(sizeof(Datum) * desc->natts);
	nulls = palloc(sizeof(bool) * desc->natts);
	for (int i = 0; i < desc->natts; i++)
	{
		values[i] = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, i + 1, &nulls[i]);
		if (!nulls[i])
			values[i] = datumCopy(values[i], TupleDescAttr(desc, i)->attbyval,
								  TupleDescAttr(desc, i)->attlen);
	}
	tuple = heap_form_tuple(desc, values, nulls);
	MemoryContextSwitchTo(old);
	return HeapTupleGetDatum(tuple);
}

/*
 * The headline figures as the INOUT columns of run() and wait().  A failed
 * run has no TPS headline: its rate covers only what ran until a client
 * failed (runs.tps keeps it, and report() says what it covers).
 */
static Datum
result_tuple(FunctionCallInfo fcinfo, int64 run_id, MemoryContext cxt)
{
	Oid			type = INT8OID;
	Datum		arg = Int64GetDatum(run_id);
	Datum		result;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (SPI_execute_with_args("SELECT run_id, status, transactions, CASE WHEN status OPERATOR(pg_catalog.<>) 'failed' "
							  "THEN tps END, latency_avg_ms, "
							  "latency_p99_ms, failures, error FROM pgbench_lab.runs "
							  "WHERE run_id OPERATOR(pg_catalog.=) $1",
							  1, &type, &arg, NULL, false, 1) != SPI_OK_SELECT ||
		SPI_processed != 1)
		elog(ERROR, "run " INT64_FORMAT " has no row", run_id);
	result = RunnerCallResult(fcinfo, cxt);
	SPI_finish();
	return result;
}

/*
 * A run launched and waited for, the caller's transaction committed before
 * the wait (a cancel or termination of the waiter stops it): run()'s work,
 * and each step's of an experiment.  Returns its id.
 */
int64
RunnerRun(const RunSpec *spec)
{
	dsm_segment *seg;
	RunShared  *run = RunnerLaunch(spec, &seg);
	int64		run_id = run->run_id;

	wait_finished(run, seg, true);
	return run_id;
}

/*
 * CALL pgbench_lab.run(workload, clients, duration, transactions, label,
 *                      settings, max_tries, random_seed, INOUT run_id, ...,
 *                      via, target, ... : the run options, run_spec.h)
 */
Datum
pgbench_lab_run(PG_FUNCTION_ARGS)
{
	MemoryContext cxt = CurrentMemoryContext;
	RunSpec		spec;
	int64		run_id;

	require_nonatomic(fcinfo, "pgbench_lab.run()");
	RunSpecFromCall(fcinfo, RUNNER_TAIL_RUN, &spec);
	run_id = RunnerRun(&spec);
	return result_tuple(fcinfo, run_id, cxt);
}

/* CALL pgbench_lab.wait(run_id bigint, INOUT status text, ...) */
Datum
pgbench_lab_wait(PG_FUNCTION_ARGS)
{
	MemoryContext cxt = CurrentMemoryContext;
	int64		run_id;
	RunRow		row;
	dsm_segment *seg;
	RunShared  *run;

	require_nonatomic(fcinfo, "pgbench_lab.wait()");
	row = lookup_run(fcinfo, &run_id, true);
	if (strcmp(row.status, "running") == 0 && row.has_handle &&
		(run = RunnerAttach(row.handle, run_id, &seg)) != NULL)
		wait_finished(run, seg, may_control(row.owner));
	return result_tuple(fcinfo, run_id, cxt);
}

/* pgbench_lab.cancel(run_id bigint) RETURNS boolean */
Datum
pgbench_lab_cancel(PG_FUNCTION_ARGS)
{
	int64		run_id;
	RunRow		row;
	dsm_segment *seg;
	RunShared  *run;
	bool		stopped = false;

	row = lookup_run(fcinfo, &run_id, false);
	if (!may_control(row.owner))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to cancel run " INT64_FORMAT, run_id),
				 errdetail("Only the role that started it, its members and superusers may.")));
	if (strcmp(row.status, "running") != 0 || !row.has_handle)
		PG_RETURN_BOOL(false);
	run = RunnerAttach(row.handle, run_id, &seg);
	if (run == NULL)
		PG_RETURN_BOOL(false);
	if (pg_atomic_read_u32(&run->phase) == RUN_PHASE_RUNNING)
		stopped = stop_run(run);
	dsm_detach(seg);
	PG_RETURN_BOOL(stopped);
}

/*
 * pgbench_lab_internal.run_live(run_id bigint) RETURNS record: the live counters of
 * a running run, from its shared memory (nothing when it is not running).
 */
Datum
pgbench_lab_run_live(PG_FUNCTION_ARGS)
{
	int64		run_id = PG_GETARG_INT64(0);
	RunRow		row = read_run_row(run_id);
	TupleDesc	desc;
	Datum		values[5];
	bool		nulls[5] = {false, false, false, false, false};
	dsm_segment *seg;
	RunShared  *run;
	RunSample	now;
	double		secs;

	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	if (strcmp(row.status, "running") != 0 || !row.has_handle ||
		(run = RunnerAttach(row.handle, run_id, &seg)) == NULL)
		PG_RETURN_NULL();
	ResultsSample(run, &now, false);
	secs = pg_atomic_read_u32(&run->go) ? (double) (WorkerNowNs() - run->start_ns) / 1e9 : 0;
	dsm_detach(seg);
	values[0] = Float8GetDatum(secs);
	values[1] = Int64GetDatum((int64) now.xacts);
	values[2] = Float8GetDatum(secs > 0 ? now.xacts / secs : 0);
	values[3] = Int64GetDatum((int64) now.failures);
	values[4] = Int32GetDatum(now.running);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(desc), values, nulls)));
}
