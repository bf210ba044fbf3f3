/*-------------------------------------------------------------------------
 *
 * client_remote.c
 *		The caller's own session talking to a target for as long as init()
 *		or init_tpcc() with a target takes: bounded where it can be,
 *		watched where it cannot, and never left behind.
 *
 * init() and init_tpcc() with a target (dataset_remote.c, tpcc_remote.c)
 * send two kinds of statements there.  The checks and the set-up (the
 * standby check, the schema, the tables already there, a step's size,
 * BEGIN) must be answered within PGBL_REMOTE_CHECK_S, as a run's reads of
 * its targets are (client_targets.c): a server that completes the login
 * and then sends nothing fails the call with 08006, not for ever.  The
 * statements that load the data (a step's, COMMIT) legitimately run for
 * minutes, so they have no deadline of this server's; instead:
 *
 * - the connection has TCP keepalives (client_libpq.c: 10 s idle, then
 *   every 5 s, 3 unanswered: a target whose host or network is gone is
 *   noticed within about 25 s; the target's own keepalives_* win), and
 *   the target's statement_timeout, if its role, database or the options
 *   of target set one, applies there as to any session;
 * - every wait is interruptible (the caller's cancel or statement_timeout:
 *   57014), and looks every 100 ms at the caller's own connection
 *   (LibpqCheckClient): a client that went away ends the call at once,
 *   and then the session, as client_connection_check_interval would;
 * - whatever ends the call, an error or the session's exit
 *   (pg_terminate_backend: a FATAL, which skips the callers' PG_FINALLY), a
 *   statement still running on the target is cancelled there and the
 *   connection closed, so its transaction rolls back there
 *   (LibpqRemoteClose, and a before_shmem_exit callback for the exit;
 *   there, before libpq 17, the connection is only closed).
 *
 * A target process that stops answering while the machine under it still
 * acknowledges TCP (a stopped process, a hung disk) is not told from a
 * slow statement: the caller's cancel, statement_timeout, or closing the
 * client ends the call then.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "libpq-fe.h"
#include "miscadmin.h"
#include "nodes/plannodes.h"
#include "optimizer/optimizer.h"
#include "portability/instr_time.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/pmsignal.h"
#include "storage/proc.h"
#include "tcop/pquery.h"
#include "tcop/tcopprot.h"
#include "utils/lsyscache.h"
#include "utils/portal.h"
#include "utils/snapmgr.h"
#include "utils/wait_event.h"

#include "client_libpq.h"
#include "worker.h"

/*
 * PostgreSQL's own check of the client's socket (14 on), declared here as
 * libpq/libpq.h declares it: that header's libpq-be.h needs the GSSAPI
 * headers of a server built with them, which a build machine may lack.
 */
extern bool pq_check_connection(void);

/* how long a cancel request to a target may take, on the way out */
#define PGBL_REMOTE_CANCEL_MS	5000L

/* the target connection of the call under way, for the exit callback */
static PGconn *remote_conn = NULL;
static bool exit_registered = false;

/* may the caller's xmin go while the call waits on its target? */
static bool xmin_free = false;

/*
 * Has the caller's client gone away?  Then an ERROR ends the call, so that
 * its cleanup cancels what runs on the target, and the session ends at its
 * next interrupt check, as PostgreSQL ends it when
 * client_connection_check_interval finds the client gone (FATAL,
 * "connection to client lost"), even if the ERROR is caught.  Only in a
 * backend whose client is a connection, where the platform can tell
 * (Linux, the BSDs).
 */
void
LibpqCheckClient(void)
{
	if (MyProcPort == NULL || whereToSendOutput != DestRemote || !WaitEventSetCanReportClosed())
		return;
	if (!pq_check_connection())
	{
		ClientConnectionLost = true;
		InterruptPending = true;
		ereport(ERROR,
				(errcode(ERRCODE_CONNECTION_FAILURE),
				 errmsg("connection to client lost")));
	}
}

/*
 * A statement still running on the target is cancelled there, within
 * PGBL_REMOTE_CANCEL_MS where libpq can cancel without blocking (17 on),
 * with libpq's blocking PQcancel before.  Nothing here raises an error.
 */
static void
cancel_running(PGconn *conn)
{
#ifdef LIBPQ_HAS_ASYNC_CANCEL
	PGcancelConn *cc = PQcancelCreate(conn);
	instr_time	start;

	INSTR_TIME_SET_CURRENT(start);
	if (cc != NULL && PQcancelStart(cc))
	{
		PostgresPollingStatusType st = PGRES_POLLING_WRITING;

		while (st != PGRES_POLLING_OK && st != PGRES_POLLING_FAILED)
		{
			int			want = st == PGRES_POLLING_READING ? WL_SOCKET_READABLE : WL_SOCKET_WRITEABLE;
			instr_time	now;

			INSTR_TIME_SET_CURRENT(now);
			INSTR_TIME_SUBTRACT(now, start);
			if (INSTR_TIME_GET_MILLISEC(now) >= PGBL_REMOTE_CANCEL_MS)
				break;
			if (WaitLatchOrSocket(NULL, want | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, PQcancelSocket(cc),
								  100L, PG_WAIT_EXTENSION) & want)
				st = PQcancelPoll(cc);
		}
	}
	if (cc != NULL)
		PQcancelFinish(cc);
#else
	PGcancel   *cancel = PQgetCancel(conn);
	char		err[256];

	if (cancel != NULL)
	{
		(void) PQcancel(cancel, err, sizeof(err));
		PQfreeCancel(cancel);
	}
#endif
}

/*
 * Is "portal" a SELECT of nothing but one set-returning function's call
 * (and that very call, "expr", when given): one statement, a FunctionScan
 * of one function, no filter, no sub-plan, its columns passed through or
 * computed by immutable functions?  Then the call, else NULL: once the
 * function has returned, the statement reads nothing more with its
 * snapshot.
 */
static FuncExpr *
lone_call(Portal portal, Node *expr)
{
	PlannedStmt *ps;
	FunctionScan *fs;
	RangeTblFunction *rtf;
	ListCell   *lc;

	if (portal == NULL || portal->status != PORTAL_ACTIVE || list_length(portal->stmts) != 1)
		return NULL;
	ps = (PlannedStmt *) linitial(portal->stmts);
	if (!IsA(ps, PlannedStmt) || ps->commandType != CMD_SELECT || ps->subplans != NIL ||
		ps->rowMarks != NIL || ps->hasModifyingCTE || ps->planTree == NULL ||
		!IsA(ps->planTree, FunctionScan))
		return NULL;
	fs = (FunctionScan *) ps->planTree;
	if (fs->scan.plan.qual != NIL || fs->scan.plan.initPlan != NIL || list_length(fs->functions) != 1)
		return NULL;
	foreach(lc, fs->scan.plan.targetlist)
	{
		if (contain_mutable_functions((Node *) ((TargetEntry *) lfirst(lc))->expr))
			return NULL;
	}
	rtf = (RangeTblFunction *) linitial(fs->functions);
	if (!IsA(rtf->funcexpr, FuncExpr) || (expr != NULL && rtf->funcexpr != expr))
		return NULL;
	return (FuncExpr *) rtf->funcexpr;
}

/*
 * A call that waits on a target (init(), init_tpcc()) holds a snapshot
 * here only for the statement that called it, which reads nothing with it
 * once the call returns when that statement is the call alone
 * (lone_call), in a transaction of its own, in READ COMMITTED
 * (where every later statement takes a snapshot of its own).  Then, while
 * it waits on the target, the session advertises no xmin, so that vacuum
 * and pruning here go on for the load's length, as a run's wait() leaves
 * them free; else a NOTICE says the session holds it back, and how not to.
 *
 * "outer" names the function of pgbench_lab that the statement calls when
 * it is not the caller itself ("init_tpcc" for its C part, called by a loop of its body:
 * that loop's cursor is then the active portal, the statement the unnamed
 * one).  A catalog lookup during the wait takes a new snapshot, which
 * holds an xmin again until the next wait lets it go.
 */
void
LibpqRemoteFreeXmin(FunctionCallInfo fcinfo, const char *outer)
{
	bool		free_it = !IsTransactionBlock() && !IsolationUsesXactSnapshot();

	if (free_it && outer == NULL)
		free_it = ActivePortal != NULL && ActivePortal->name[0] == '\0' &&
			lone_call(ActivePortal, fcinfo->flinfo->fn_expr) != NULL;
	else if (free_it)
	{
		Portal		top = GetPortalByName("");
		FuncExpr   *call = lone_call(top, NULL);

		free_it = call != NULL &&
			strcmp(get_namespace_name(get_func_namespace(call->funcid)), "pgbench_lab") == 0 &&
			strcmp(get_func_name(call->funcid), outer) == 0 &&
			ActivePortal != top &&
			lone_call(ActivePortal, fcinfo->flinfo->fn_expr) != NULL;
	}
	xmin_free = free_it;
	if (!free_it)
		ereport(NOTICE,
				(errmsg("this session holds back vacuum here while the target loads"),
				 errdetail("Its statement's snapshot keeps its xmin for the call's whole length."),
				 errhint("Call it as a statement of its own, SELECT * FROM pgbench_lab.%s(...), outside a transaction "
						 "block and in READ COMMITTED: then its session holds no xmin while it waits on the target.",
						 outer ? outer : get_func_name(fcinfo->flinfo->fn_oid))));
}

/* while waiting on the target: no xmin here, when LibpqRemoteFreeXmin said so */
static void
let_xmin_go(void)
{
	if (!xmin_free)
		return;
	InvalidateCatalogSnapshot();
	MyProc->xmin = InvalidTransactionId;
}

/*
 * The session is exiting (a FATAL: pg_terminate_backend) while a call
 * talks to a target: its statement there is cancelled, the connection
 * closed.  Before libpq 17 the connection is only closed: the blocking
 * cancel request could hold the exit for as long as the target hangs.
 */
static void
at_exit(int code, Datum arg)
{
	PGconn	   *conn = remote_conn;

	remote_conn = NULL;
	if (conn == NULL)
		return;
#ifdef LIBPQ_HAS_ASYNC_CANCEL
	if (PQtransactionStatus(conn) == PQTRANS_ACTIVE && PostmasterIsAlive())
		cancel_running(conn);
#endif
	PQfinish(conn);
}

/*
 * Connect to the target of init() or init_tpcc() (run->target[0]) as a
 * run's launching session does (client_libpq.c), the connection watched
 * until LibpqRemoteClose.
 */
PGconn *
LibpqRemoteConnect(RunShared *run)
{
	PGconn	   *conn;

	let_xmin_go();
	conn = LibpqConnectTargetWithin(run, 0, 0, 0);
	if (!exit_registered)
	{
		before_shmem_exit(at_exit, (Datum) 0);
		exit_registered = true;
	}
	remote_conn = conn;
	return conn;
}

/*
 * The end of the call, whichever way: a statement still running there is
 * cancelled, and the connection closed (an open transaction rolls back
 * there when its session ends).
 */
void
LibpqRemoteClose(PGconn *conn)
{
	remote_conn = NULL;
	xmin_free = false;
	if (PQtransactionStatus(conn) == PQTRANS_ACTIVE)
		cancel_running(conn);
	PQfinish(conn);
}

static void
no_answer(PGconn *conn, int secs)
{
	ereport(ERROR,
			(errcode(ERRCODE_CONNECTION_FAILURE),
			 errmsg("could not query the target server: no answer within %d s", secs),
			 errdetail("The server took the query and sent nothing back in time "
					   "(a stalled, frozen or unreachable server?)."),
			 errhint("Check that the target server at \"%s\", port %s, is running and answering: "
					 "each check and set-up statement there has %d s, the statements that load "
					 "the data as long as they take.",
					 PQhost(conn) ? PQhost(conn) : "", PQport(conn) ? PQport(conn) : "", secs)));
}

/*
 * Wait for the results of the statement sent last: a check's within
 * "secs" (PGBL_REMOTE_CHECK_S), else 08006; a loading statement's
 * (secs 0) as long as they take.  The caller's cancel and a lost client
 * end the wait either way; a lost connection is an ERROR saying "what".
 */
void
LibpqRemoteAwait(PGconn *conn, int secs, const char *what)
{
	int64		deadline = secs > 0 ? WorkerNowNs() + secs * INT64CONST(1000000000) : 0;

	while (PQisBusy(conn))
	{
		if (deadline > 0 && WorkerNowNs() >= deadline)
			no_answer(conn, secs);
		let_xmin_go();
		LibpqAwaitSome(conn, deadline, what);
	}
}

/*
 * Send one statement to "server" (a word for the messages: "target",
 * "source") and wait for its result, interruptibly, within "secs" (a
 * check: PGBL_REMOTE_CHECK_S) or as long as it takes (0: a statement that
 * loads); the result (for the caller to PQclear) if its status is "want",
 * else an ERROR with the server's SQLSTATE and message.
 */
PGresult *
LibpqRemoteExec(PGconn *conn, int secs, const char *sql, int nparams, const char *const *params,
				ExecStatusType want, const char *server)
{
	PGresult   *res;
	PGresult   *next;
	char	   *lost = psprintf("lost the connection to the %s server", server);

	if (!PQsendQueryParams(conn, sql, nparams, NULL, params, NULL, NULL, 0))
		LibpqConnError(conn, NULL, ERRCODE_CONNECTION_FAILURE,
					   psprintf("could not send a statement to the %s server", server));
	LibpqRemoteAwait(conn, secs, lost);
	res = PQgetResult(conn);
	for (;;)
	{
		LibpqRemoteAwait(conn, secs, lost);
		if ((next = PQgetResult(conn)) == NULL)
			break;
		PQclear(next);
	}
	if (res == NULL || PQresultStatus(res) != want)
	{
		PG_TRY();
		{
			LibpqConnError(conn, res, ERRCODE_CONNECTION_FAILURE,
						   psprintf("the %s server reported an error", server));
		}
		PG_FINALLY();
		{
			PQclear(res);
		}
		PG_END_TRY();
	}
	return res;
}
