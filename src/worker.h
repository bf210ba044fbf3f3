/*-------------------------------------------------------------------------
 *
 * worker.h
 *		What every pgbench_lab background worker shares (worker.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef PGBL_WORKER_H
#define PGBL_WORKER_H

#include "postmaster/bgworker.h"

extern bool WorkerRegister(const char *function, const char *type, const char *name,
						   Datum arg, int extra, BackgroundWorkerHandle **handle);
extern void WorkerConnectAs(Oid dboid, Oid login_role, Oid run_role);
extern void WorkerSignals(void);
extern void WorkerSetLatchOf(int pid);
extern int64 WorkerNowNs(void);
extern void WorkerXactBegin(void);
extern void WorkerXactCommit(void);

#endif							/* PGBL_WORKER_H */
