/*-------------------------------------------------------------------------
 *
 * client_libpq.h
 *		What the libpq worker's event loop (client_mux.c) and init with a
 *		target (dataset_remote.c, tpcc_remote.c) take from the client path's
 *		connection and statement code (client_libpq.c, client_remote.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef PGBL_CLIENT_LIBPQ_H
#define PGBL_CLIENT_LIBPQ_H

#include "lib/stringinfo.h"
#include "libpq-fe.h"

#include "run_shared.h"
#include "run_spec.h"

/* client_libpq.c: via and target(s) read and checked, and recorded */
extern void LibpqReadArgs(const RunSpec *spec, RunShared *p);
extern void LibpqRecord(RunShared *run, bool final);
extern char *LibpqTargetsDisplay(const RunShared *run);

/* client_targets.c: each target's facts, read before anything starts */
extern bool LibpqResolve(RunShared *p);

#define PGBL_STMT_MAX		WORKLOAD_MAX_STMTS	/* a built-in workload's statements */

extern void LibpqConnError(PGconn *conn, const PGresult *res, int code,
									   const char *what);
extern void LibpqRefusePassword(void);
extern void LibpqTargetConninfo(RunTarget *t, const char *target, const char *what);
extern PGconn *LibpqConnectTargetWithin(RunShared *run, int target, uint32 stop_level, int max_secs);
extern void LibpqAwaitResultBy(PGconn *conn, RunShared *run, uint32 stop_level, int64 deadline_ns,
							   int secs, const char *what);
extern PGconn *LibpqConnectStart(const RunShared *run, int target);
extern char *LibpqSettingsSql(PGconn *conn, const RunShared *run, bool local);
extern void LibpqAppendSetConfig(StringInfo buf, PGconn *conn, const char *name, const char *value,
								 bool local);
extern int	LibpqConnectTimeout(PGconn *conn);
extern bool LibpqHostChanged(PGconn *conn, char **host, char **port);
extern void LibpqConnectTimedOut(const char *host, const char *port, int secs);

extern void LibpqAwaitSome(PGconn *conn, int64 deadline_ns, const char *what);

/*
 * client_remote.c: init() and init_tpcc() with a target: checks answered
 * within PGBL_REMOTE_CHECK_S (as a run's launch reads, client_targets.c),
 * loading statements (secs 0) as long as they take; the caller's client
 * watched; a statement running there cancelled whatever ends the call.
 */
#define PGBL_REMOTE_CHECK_S		10

extern void LibpqCheckClient(void);
extern void LibpqRemoteFreeXmin(FunctionCallInfo fcinfo, const char *outer);
extern PGconn *LibpqRemoteConnect(RunShared *run);
extern void LibpqRemoteAwait(PGconn *conn, int secs, const char *what);
extern PGresult *LibpqRemoteExec(PGconn *conn, int secs, const char *sql, int nparams,
								  const char *const *params, ExecStatusType want,
								  const char *server);
extern void LibpqRemoteClose(PGconn *conn);

/*
 * client_targets.c: what the read at a run's end found on each standby,
 * kept (in the coordinator's process) for the results' transaction that
 * follows: its counters ('' when it has none for the database), or why
 * they were not read.
 */
typedef struct TargetEnd
{
	bool		read;			/* the read was made or tried */
	char	   *conflicts;		/* jsonb text, or NULL */
	char	   *error;			/* why not, or NULL */
	/* a primary's WAL position and checkpoints at the end (as at the start) */
	bool		figures_read;	/* that read was made or tried */
	char	   *wal_lsn;		/* or NULL */
	char	   *ckpt;			/* or NULL */
	char	   *figures_error;	/* why not, or NULL */
} TargetEnd;

extern void TargetsReadEnd(RunShared *run);
extern const TargetEnd *TargetsEnd(int target);
extern int	TargetsQueryRow(PGconn *conn, const char *sql, char **out, int ncols);

/* client_pooler.c: a pooler between, and the settings, probed at launch */
extern void TargetsProbePooler(PGconn *conn, RunShared *p, int t);
extern void TargetsCheckSettings(PGconn *conn, RunShared *p, int t);
extern char **LibpqBuiltinTexts(PGconn *conn, const RunShared *run);
extern int	LibpqBuiltinParams(const RunShared *run, int i, const WorkloadDraw *d,
							   char bufs[4][24], const char *params[4]);

#endif							/* PGBL_CLIENT_LIBPQ_H */
