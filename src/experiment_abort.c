/*-------------------------------------------------------------------------
 *
 * experiment_abort.c
 *		An experiment stopped by an error or a cancel is marked aborted at
 *		once, by a party that commits on its own.
 *
 * When the driver's procedure is stopped (Ctrl-C, statement_timeout, an
 * error of a step), its transaction is rolled back: nothing it writes then
 * survives, and it cannot commit anything before the error goes on.  So
 * its PG_CATCH block (ExperimentAbortInError) puts the configuration file
 * back from memory, as before, and then starts a tiny background worker
 * that marks the experiment's row aborted, and closes the record of its
 * saved settings when the file was put back as saved, in a transaction of
 * its own, as the extension's owner; the session waits for it (a few
 * seconds at most, interrupts held), so that when the error reaches the
 * client the row already says 'aborted', and the same session's next
 * experiment is not refused.
 *
 * The worker's UPDATE would wait for a lock that the stopped transaction
 * holds on the row (a step's run being linked, the experiment ended): that
 * transaction has an xid then, and the session does not wait for the
 * worker, which commits as soon as the rollback releases the row.  Without
 * a free worker slot the row is marked by the next experiment's reaper, as
 * before (a WARNING says so).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "postmaster/bgworker.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

#include "experiment_steps.h"
#include "secure.h"
#include "settings_apply.h"
#include "worker.h"

/* how long a stopped session waits for the row to be marked */
#define PGBL_ABORT_WAIT_MS		5000

typedef struct AbortArgs
{
	int64		experiment_id;
	Oid			dboid;
	Oid			login_role;
	int			backend_pid;
	bool		settings_back;	/* the file was put back as saved */
} AbortArgs;

PGDLLEXPORT void pgbench_lab_experiment_abort(Datum arg);

/* Runs as the extension's owner (SecureAsOwner), in the worker. */
static void
mark_as_owner(void *arg)
{
	AbortArgs  *a = (AbortArgs *) arg;
	Oid			types[2] = {INT8OID, INT4OID};
	Datum		values[2] = {Int64GetDatum(a->experiment_id), Int32GetDatum(a->backend_pid)};

	if (SPI_execute_with_args("UPDATE pgbench_lab.experiments e SET status = 'aborted', "
							  "finished_at = pg_catalog.clock_timestamp() "
							  "WHERE e.experiment_id OPERATOR(pg_catalog.=) $1 "
							  "AND e.backend_pid OPERATOR(pg_catalog.=) $2 "
							  "AND e.status OPERATOR(pg_catalog.=) 'running'",
							  2, types, values, NULL, false, 0) != SPI_OK_UPDATE)
		elog(ERROR, "could not mark experiment " INT64_FORMAT " aborted", a->experiment_id);
	if (a->settings_back &&
		SPI_execute_with_args("UPDATE pgbench_lab_internal.settings_saved s SET restored_at = pg_catalog.now(), "
							  "outcome = 'postgresql.auto.conf written back byte for byte when the experiment "
							  "was stopped' WHERE s.experiment_id OPERATOR(pg_catalog.=) $1 "
							  "AND s.backend_pid OPERATOR(pg_catalog.=) $2 AND s.restored_at IS NULL",
							  2, types, values, NULL, false, 0) != SPI_OK_UPDATE)
		elog(ERROR, "could not update pgbench_lab_internal.settings_saved");
}

/* The worker: the row marked, committed; an error only logged. */
void
pgbench_lab_experiment_abort(Datum arg)
{
	AbortArgs	a;

	memcpy(&a, MyBgworkerEntry->bgw_extra, sizeof(a));
	WorkerSignals();
	WorkerConnectAs(a.dboid, a.login_role, a.login_role);
	SecureWorkerSession();
	PG_TRY();
	{
		WorkerXactBegin();
		SecureAsOwner(mark_as_owner, &a);
		WorkerXactCommit();
	}
	PG_CATCH();
	{
		(void) WorkerCatch(TopMemoryContext, true);
	}
	PG_END_TRY();
}

/* WorkerWait's test: the deadline has passed. */
static bool
past(void *arg)
{
	return GetCurrentTimestamp() >= *(TimestampTz *) arg;
}

/*
 * In a PG_CATCH block: the settings put back (saved may be NULL), the
 * experiment marked aborted by the worker, then the error thrown on.
 */
void
ExperimentAbortInError(MemoryContext cxt, int64 experiment_id, AutoConfSaved *saved)
{
	ErrorData  *edata;
	AbortArgs	a;
	BackgroundWorkerHandle *handle;

	MemoryContextSwitchTo(cxt);
	edata = CopyErrorData();
	FlushErrorState();
	HOLD_INTERRUPTS();
	memset(&a, 0, sizeof(a));
	a.experiment_id = experiment_id;
	a.dboid = MyDatabaseId;
	a.login_role = GetAuthenticatedUserId();
	a.backend_pid = MyProcPid;
	a.settings_back = saved != NULL ? SettingsRestoreInError(saved) : false;
	PG_TRY();
	{
		if (!WorkerRegisterExtra("pgbench_lab_experiment_abort", "pgbench_lab experiment abort",
								 "pgbench_lab experiment abort", &a, sizeof(a), &handle))
			ereport(WARNING,
					(errmsg("experiment " INT64_FORMAT " stays marked running until the next experiment starts",
							experiment_id),
					 errdetail("No background worker slot was free to mark it aborted now.")));
		else if (GetTopTransactionIdIfAny() == InvalidTransactionId)
		{
			TimestampTz deadline = TimestampTzPlusMilliseconds(GetCurrentTimestamp(), PGBL_ABORT_WAIT_MS);

			(void) WorkerWait(handle, past, &deadline, 50, "the mark of a stopped experiment");
		}
	}
	PG_CATCH();
	{
		EmitErrorReport();
		FlushErrorState();
	}
	PG_END_TRY();
	RESUME_INTERRUPTS();
	ReThrowError(edata);
}
