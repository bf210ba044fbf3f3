/*-------------------------------------------------------------------------
 *
 * worker.c
 *		What every pgbench_lab background worker shares: registration,
 *		signals, and logging in as the role it works for.
 *
 * Workers are dynamic background workers, loaded by library name, so the
 * extension needs no shared_preload_libraries.  They never restart, and they
 * always exit with status 0 or through FATAL (status 1): any other exit
 * status would make the postmaster restart every backend.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/proc.h"
#include "storage/procarray.h"
#include "tcop/tcopprot.h"
#include "utils/acl.h"
#include "utils/snapmgr.h"

#include "pgbench_lab.h"
#include "runner.h"
#include "secure.h"

/*
 * Register one dynamic worker that runs pgbench_lab's "function" with "arg"
 * and "extra" (an int in bgw_extra).  Returns false, and sets no error, when
 * no worker slot is free.  The caller is notified of start and stop.
 */
bool
WorkerRegister(const char *function, const char *type, const char *name,
			   Datum arg, int extra, BackgroundWorkerHandle **handle)
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
	memcpy(w.bgw_extra, &extra, sizeof(extra));
	w.bgw_notify_pid = MyProcPid;
	return RegisterDynamicBackgroundWorker(&w, handle);
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
