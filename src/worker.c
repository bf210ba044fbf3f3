/*-------------------------------------------------------------------------
 *
 * worker.c
 *		The one lifecycle of every pgbench_lab background worker: the
 *		launching session registers it, waits for it and raises its error
 *		again; the worker sets its signals, logs in as the role it works
 *		for, and catches its errors into shared memory.
 *
 * Workers are dynamic background workers, loaded by library name, so the
 * extension needs no shared_preload_libraries.  They never restart, and they
 * always exit with status 0 or through FATAL (status 1): any other exit
 * status would make the postmaster restart every backend.  So a worker
 * never lets an ERROR end it: it catches the error (WorkerCatch), copies it
 * into a WorkerError in the segment it shares with its launcher
 * (WorkerErrorSave), and exits normally; the launcher raises it again in
 * its own session with the worker's SQLSTATE, message, detail and hint
 * (WorkerErrorRaise).  pgbench_lab.init()'s worker and a run's coordinator
 * are launched and waited for the same way (WorkerLaunch, WorkerWait); the
 * coordinator registers the run's clients with WorkerRegister, which does
 * not raise, and reports a lack of slots through the run's WorkerError.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "port/atomics.h"
#include "postmaster/bgworker.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/proc.h"
#include "storage/procarray.h"
#include "tcop/tcopprot.h"
#include "utils/acl.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/wait_event.h"

#include "pgbench_lab.h"
#include "secure.h"
#include "worker.h"

static bool register_worker(const char *function, const char *type, const char *name,
							   Datum arg, const void *extra, Size len,
							   BackgroundWorkerHandle **handle);

/*
 * Register one dynamic worker that runs pgbench_lab's "function" with "arg"
 * and "extra" (an int in bgw_extra).  Returns false, and sets no error, when
 * no worker slot is free.  The caller is notified of start and stop.
 */
bool
WorkerRegister(const char *function, const char *type, const char *name,
			   Datum arg, int extra, BackgroundWorkerHandle **handle)
{
	return register_worker(function, type, name, arg, &extra, sizeof(extra), handle);
}

/* WorkerRegister with the main argument 0 and len bytes of extra in bgw_extra. */
bool
WorkerRegisterExtra(const char *function, const char *type, const char *name,
					const void *extra, Size len, BackgroundWorkerHandle **handle)
{
	return register_worker(function, type, name, (Datum) 0, extra, len, handle);
}

static bool
register_worker(const char *function, const char *type, const char *name,
				   Datum arg, const void *extra, Size len, BackgroundWorkerHandle **handle)
{
	BackgroundWorker w;

	memset(&w, 0, sizeof(w));
	w.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	w.bgw_start_time = BgWorkerStart_RecoveryFinished;
	w.bgw_restart_time = BGW_NEVER_RESTART;
	strlcpy(w.bgw_library_name, "pgbench_lab", BGW_MAXLEN);
	strlcpy(w.bgw_function_name, function, BGW_MAXLEN);
	strlcpy(w.bgw_type, type, BGW_MAXLEN);
	strlcpy(w.bgw_name, name, BGW_MAXLEN);
	w.bgw_main_arg = arg;
	Assert(len <= BGW_EXTRALEN);
	memcpy(w.bgw_extra, extra, len);
	w.bgw_notify_pid = MyProcPid;
	return RegisterDynamicBackgroundWorker(&w, handle);
}

/*
 * Register a worker as WorkerRegister does, or fail with the error every
 * launcher gives when the slots have run out: "could not start <what>",
 * naming max_worker_processes in the hint.
 */
BackgroundWorkerHandle *
WorkerLaunch(const char *function, const char *type, const char *name,
			 Datum arg, const char *what, const char *hint)
{
	BackgroundWorkerHandle *handle;

	if (!WorkerRegister(function, type, name, arg, 0, &handle))
		ereport(ERROR,
				(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
				 errmsg("could not start %s: no free background worker slot", what),
				 errhint("%s", hint)));
	return handle;
}

/*
 * Wait, interruptibly, until done(arg) holds or the worker has stopped
 * (done NULL: until it stops).  Returns whether done(arg) held, looked at
 * once more after the worker stopped.  The worker's start and stop set this
 * session's latch (bgw_notify_pid); poll_ms bounds the wait for anything
 * else done() looks at.
 */
bool
WorkerWait(BackgroundWorkerHandle *handle, WorkerDoneFn done, void *arg,
		   long poll_ms, const char *what)
{
	for (;;)
	{
		pid_t		pid;
		BgwHandleStatus status;

		if (done != NULL && done(arg))
			return true;
		status = GetBackgroundWorkerPid(handle, &pid);
		if (status == BGWH_STOPPED)
			return done != NULL && done(arg);
		if (status == BGWH_POSTMASTER_DIED)
			ereport(ERROR,
					(errcode(ERRCODE_ADMIN_SHUTDOWN),
					 errmsg("postmaster exited during %s", what)));
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 poll_ms, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
}

/*
 * Raise, in the launching session, the error a worker passed back, with its
 * SQLSTATE; context (may be NULL) says where it happened.
 */
void
WorkerErrorRaise(const WorkerError *err, const char *context)
{
	ereport(ERROR,
			(errcode(err->sqlerrcode),
			 errmsg_internal("%s", err->message),
			 err->detail[0] ? errdetail_internal("%s", err->detail) : 0,
			 err->hint[0] ? errhint("%s", err->hint) : 0,
			 context ? errcontext("%s", context) : 0));
}

/*
 * SIGTERM ends the worker at its next CHECK_FOR_INTERRUPTS (not inside a
 * signal handler, as the default bgworker handler would), so transactions
 * abort cleanly; SIGINT cancels the current query.
 */
void
WorkerSignals(void)
{
	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();
}

/*
 * Connect to the database as run_role.  Until PostgreSQL 17 a worker cannot
 * log in as a NOLOGIN role, so it logs in as the session's authenticated
 * user and then becomes the current user, as a SECURITY DEFINER function or
 * SET ROLE would.
 */
void
WorkerConnectAs(Oid dboid, Oid login_role, Oid run_role)
{
	if (PGBL_BGW_CAN_LOGIN_NOLOGIN)
		login_role = run_role;
	BackgroundWorkerInitializeConnectionByOid(dboid, login_role, PGBL_BGW_CONNECT_FLAGS);
	SecureBecome(run_role);
}

/*
 * In a worker's PG_CATCH block: the error, copied into cxt (and written to
 * the server log when log is true), with the transaction it broke rolled
 * back.  Interrupts are held meanwhile, so that a cancel arriving now is
 * served at the next check, not in the middle.  Returns with cxt current.
 */
ErrorData *
WorkerCatch(MemoryContext cxt, bool log)
{
	ErrorData  *edata;

	HOLD_INTERRUPTS();
	MemoryContextSwitchTo(cxt);
	edata = CopyErrorData();
	if (log)
		EmitErrorReport();
	FlushErrorState();
	AbortOutOfAnyTransaction();
	MemoryContextSwitchTo(cxt);
	RESUME_INTERRUPTS();
	return edata;
}

bool
WorkerErrorIsSet(const WorkerError *err)
{
	return err->message[0] != '\0';
}

/*
 * Pass an error on (the first one only).  The message goes last, behind a
 * write barrier: a reader that sees it sees the rest.
 */
void
WorkerErrorSet(WorkerError *err, int sqlerrcode, const char *message,
			   const char *detail, const char *hint)
{
	if (WorkerErrorIsSet(err))
		return;
	err->sqlerrcode = sqlerrcode;
	strlcpy(err->detail, detail ? detail : "", sizeof(err->detail));
	strlcpy(err->hint, hint ? hint : "", sizeof(err->hint));
	pg_write_barrier();
	strlcpy(err->message, message && message[0] ? message : "unknown error",
			sizeof(err->message));
}

/* Pass on an error a worker caught (WorkerCatch). */
void
WorkerErrorSave(WorkerError *err, const ErrorData *edata)
{
	WorkerErrorSet(err, edata->sqlerrcode, edata->message, edata->detail, edata->hint);
}

/* Wake the process with this pid, if it is still a backend. */
void
WorkerSetLatchOf(int pid)
{
	PGPROC	   *proc;

	if (pid <= 0)
		return;
	proc = BackendPidGetProc(pid);
	if (proc != NULL)
		SetLatch(&proc->procLatch);
}

/* Monotonic clock in nanoseconds. */
int64
WorkerNowNs(void)
{
	instr_time	now;

	INSTR_TIME_SET_CURRENT(now);
	return (int64) PGBL_INSTR_NS(now);
}

/*
 * A worker's own transaction with SPI and a snapshot, for bookkeeping
 * statements (results, data generation).  WorkerXactCommit ends it and
 * flushes the worker's statistics.
 */
void
WorkerXactBegin(void)
{
	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	PushActiveSnapshot(GetTransactionSnapshot());
}

void
WorkerXactCommit(void)
{
	SPI_finish();
	PopActiveSnapshot();
	CommitTransactionCommand();
	pgstat_report_stat(false);
}
