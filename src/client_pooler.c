/*-------------------------------------------------------------------------
 *
 * client_pooler.c
 *		What the launching session learns of each target's connections
 *		before a libpq run starts: whether a connection pooler stands
 *		between (PgBouncer and its kind), in which mode, and whether the
 *		run's settings take there.
 *
 * A pooler answers the connection's start-up itself: the backend key it
 * announces is its own, so the backend that runs a query
 * (pg_backend_pid()) is not the one the connection announced
 * (PQbackendPID).  Its mode decides what a run may rely on:
 *
 * - in session mode a client keeps one server connection while it is
 *   connected, so prepared statements and settings stay with it, as they
 *   do on the server itself;
 * - in transaction mode the server connection is handed to another client
 *   between transactions, so neither does: a statement prepared on one is
 *   missing, or already there, on the next, and a setting made on one
 *   stays behind for whoever gets it next.
 *
 * The mode is probed with a second connection while the first stays
 * connected and idle: in transaction mode the pooler gives it the backend
 * that has just served the first (it takes the idle server connection
 * released last); in session mode that backend stays the first's, so the
 * second gets another, or none while the pool is full.  The probe proves
 * transaction mode when it sees one backend serve both; otherwise it takes
 * session mode (a pooler in transaction mode that hands out its idle
 * connections oldest first, or one that another client took in between,
 * passes for session mode, and then prepared statements fail at run time
 * with the hint given here).
 *
 * Through a pooler in transaction mode, query_mode prepared and settings
 * are refused before anything starts, with the mode or the place that
 * works.  Settings are checked on every target (with set_config(...,
 * true), in a transaction of their own, so that nothing stays behind) and
 * given to each client's connection once it is made (LibpqSettingsSql).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "libpq-fe.h"
#include "utils/builtins.h"

#include "client_libpq.h"
#include "pgbench_lab.h"

#define PGBL_POOLER_PROBE_MS	2000	/* the second connection's answer, at most */

/* The backend that answers on conn. */
static int
served_by(PGconn *conn)
{
	char	   *row[1];

	if (TargetsQueryRow(conn, "SELECT pg_catalog.pg_backend_pid()", row, 1) != 1)
		elog(ERROR, "pg_backend_pid() returned no row");
	return pg_strtoint32(row[0]);
}

/*
 * Does the pooler give "backend" to another connection of the run's while
 * the first is connected and idle?  No answer within PGBL_POOLER_PROBE_MS:
 * the pool is full, so no (session mode).
 */
static bool
handed_on(RunShared *p, int t, int backend)
{
	PGconn	   *other = LibpqConnectTargetWithin(p, t, 0, 0);
	bool		same = false;

	PG_TRY();
	{
		int64		deadline = WorkerNowNs() + PGBL_POOLER_PROBE_MS * INT64CONST(1000000);
		PGresult   *res;

		if (!PQsendQuery(other, "SELECT pg_catalog.pg_backend_pid()"))
			LibpqConnError(other, NULL, ERRCODE_CONNECTION_FAILURE, "could not query the target server");
		while (PQisBusy(other) && WorkerNowNs() < deadline)
			LibpqAwaitSome(other, deadline, "could not query the target server");
		while (!PQisBusy(other) && (res = PQgetResult(other)) != NULL)
		{
			same |= PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) == 1 &&
				atoi(PQgetvalue(res, 0, 0)) == backend;
			PQclear(res);
		}
	}
	PG_FINALLY();
	{
		PQfinish(other);
	}
	PG_END_TRY();
	return same;
}

/*
 * Probe target t's connection (conn, made for the launch's reads): the
 * server itself, or a pooler and its mode; what transaction mode cannot
 * keep is refused here, before anything starts.
 */
void
TargetsProbePooler(PGconn *conn, RunShared *p, int t)
{
	int			backend = served_by(conn);
	RunTarget  *target = &p->target[t];

	if (backend == PQbackendPID(conn))
	{
		target->pooler = RUN_POOLER_NONE;
		return;
	}
	target->pooler = handed_on(p, t, backend) ? RUN_POOLER_TRANSACTION : RUN_POOLER_SESSION;
	if (target->pooler != RUN_POOLER_TRANSACTION)
		return;
	if (p->query_mode == RUN_QUERY_PREPARED)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("query_mode prepared cannot run through a connection pooler in transaction mode"),
				 errdetail("The pooler hands the server connection to another client between "
						   "transactions, so a statement prepared on one is missing or already there "
						   "on the next (pgbench -M prepared fails there too)."),
				 errhint("Give query_mode => 'extended' (or 'simple'), or use the pooler's session mode.")));
	if (p->nsettings > 0)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("settings cannot be kept through a connection pooler in transaction mode"),
				 errdetail("The pooler hands the server connection to another client between "
						   "transactions: a setting made on one would not be there for the next "
						   "transaction, and would stay behind for whoever gets it."),
				 errhint("Set them on the target server for the run's role or database "
						 "(ALTER ROLE ... IN DATABASE ... SET), or use the pooler's session mode.")));
}

/*
 * The run's settings, tried on target t as its clients will set them, in
 * a transaction of their own (nothing stays set): a name the target does
 * not know, a value it refuses or a setting the role may not make there
 * is refused before anything starts.
 */
void
TargetsCheckSettings(PGconn *conn, RunShared *p, int t)
{
	char	   *sql = LibpqSettingsSql(conn, p, true);
	char	   *row[1];

	if (sql != NULL)
		(void) TargetsQueryRow(conn, sql, row, 0);
}
