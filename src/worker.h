/*-------------------------------------------------------------------------
 *
 * worker.h
 *		The one lifecycle of every pgbench_lab background worker (worker.c):
 *		launch it from a session, wait for it, pass its error back, and
 *		what a worker does for itself (signals, logging in, transactions,
 *		catching an error).
 *
 *-------------------------------------------------------------------------
 */
#ifndef PGBL_WORKER_H
#define PGBL_WORKER_H

#include "postmaster/bgworker.h"

#define PGBL_WORKER_ERR_MAX	1024

/*
 * An error on its way from a worker to the session that launched it (or,
 * for a run's clients, to the coordinator that records it), in shared
 * memory.  Set once; message is empty until it is.  The session raises it
 * again with WorkerErrorRaise, so it keeps its SQLSTATE.
 */
typedef struct WorkerError
{
	int			sqlerrcode;
	char		message[PGBL_WORKER_ERR_MAX];
	char		detail[PGBL_WORKER_ERR_MAX];
	char		hint[PGBL_WORKER_ERR_MAX];
} WorkerError;

/* Has the launching session's wait reached what it waits for? */
typedef bool (*WorkerDoneFn) (void *arg);

/* launching session: start, wait, raise */
extern bool WorkerRegister(const char *function, const char *type, const char *name,
						   Datum arg, int extra, BackgroundWorkerHandle **handle);
extern bool WorkerRegisterExtra(const char *function, const char *type, const char *name,
								const void *extra, Size len, BackgroundWorkerHandle **handle);
extern BackgroundWorkerHandle *WorkerLaunch(const char *function, const char *type,
											const char *name, Datum arg,
											const char *what, const char *hint);
extern bool WorkerWait(BackgroundWorkerHandle *handle, WorkerDoneFn done, void *arg,
					   long poll_ms, const char *what);
extern void WorkerErrorRaise(const WorkerError *err, const char *context);

/* the worker itself */
extern void WorkerSignals(void);
extern void WorkerConnectAs(Oid dboid, Oid login_role, Oid run_role);
extern ErrorData *WorkerCatch(MemoryContext cxt, bool log);
extern void WorkerErrorSave(WorkerError *err, const ErrorData *edata);
extern void WorkerErrorSet(WorkerError *err, int sqlerrcode, const char *message,
						   const char *detail, const char *hint);
extern void WorkerXactBegin(void);
extern void WorkerXactCommit(void);

/* either side */
extern bool WorkerErrorIsSet(const WorkerError *err);
extern void WorkerSetLatchOf(int pid);
extern int64 WorkerNowNs(void);

#endif							/* PGBL_WORKER_H */
