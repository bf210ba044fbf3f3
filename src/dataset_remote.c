/*-------------------------------------------------------------------------
 *
 * dataset_remote.c
 *		pgbench_lab.init(..., target => conninfo): pgbench's data set made on
 *		another server, through libpq.
 *
 * The target need not have pgbench_lab: init sends it the statements
 * init_sql() shows (dataset.c), the rows made by INSERT ... SELECT FROM
 * generate_series as pgbench -i -I dtpGv does, in local init's steps and
 * transactions: drop, create, primary keys and generate in one transaction,
 * VACUUM (ANALYZE) of each table on its own, foreign keys (if asked) in a
 * last transaction; the last step marks the tables complete (their
 * comment), and only tables that carry init's comment are replaced.  Any
 * other plan (partitions, init_steps) goes the same way: the steps between
 * two vacuums in one transaction, each VACUUM on its own.
 *
 * The target is checked and connected to as a run's is (client_libpq.c):
 * the conninfo parsed before anything starts (22023), a role that is not a
 * superuser must give a password the server asked for (2F003), every wait
 * interruptible, connect_timeout honoured (08001); each check and set-up
 * statement there answered within 10 s (08006), the steps' statements and
 * COMMIT as long as they take (client_remote.c).  Before anything is
 * written, a standby is refused (25006), and the tables' schema is the one
 * CREATE TABLE would choose there: current_schema() of the target's
 * session, i.e. the first existing schema of the search_path its role and
 * database give (as pgbench -i's tables go); then that session's
 * search_path becomes pg_catalog, pg_temp, and every statement names its
 * schema anyway.
 *
 * If init fails, is cancelled or loses its client, or its session ends
 * (pg_terminate_backend, with libpq 17 on), a statement still running on
 * the target is cancelled there and the connection closed, so an open
 * transaction rolls back on the target: as with local init, nothing
 * changes before the first commit, and a stop during vacuum or the foreign
 * keys leaves the tables marked incomplete.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "libpq-fe.h"
#include "miscadmin.h"
#include "portability/instr_time.h"
#include "utils/builtins.h"

#include "client_libpq.h"
#include "dataset.h"
#include "run_shared.h"

typedef struct RemoteInit
{
	PGconn	   *conn;
	DatasetParams *p;
	DatasetTimings t;
	int			step;			/* under way, or -1 */
	const char *display;		/* the target without its password */
	instr_time	start;
} RemoteInit;

static void
remote_context(void *arg)
{
	RemoteInit *r = (RemoteInit *) arg;

	if (r->step >= 0)
		errcontext("pgbench_lab.init step \"%s\", on the target server %s",
				   DatasetPlanStepName(r->p, r->step), r->display);
	else
		errcontext("pgbench_lab.init, on the target server %s", r->display);
}

/* The target's warnings, passed on (its notices are not asked for). */
static void
remote_notice(void *arg, const PGresult *res)
{
	const char *msg = PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY);

	ereport(WARNING,
			(errmsg("the target server: %s", msg ? msg : "(no message)")));
}

/*
 * Send one statement and wait for its result, interruptibly, within
 * "secs" (a check: PGBL_REMOTE_CHECK_S) or as long as it takes (0: a
 * statement that loads, client_remote.c); the result (for the caller to
 * PQclear) if its status is "want", else an ERROR with the target's
 * SQLSTATE and message.
 */
static PGresult *
remote_exec(PGconn *conn, int secs, const char *sql, int nparams, const char *const *params,
			ExecStatusType want)
{
	return LibpqRemoteExec(conn, secs, sql, nparams, params, want, "target");
}

/* A statement that returns no rows (secs as remote_exec's); the rows it wrote. */
static int64
remote_command(PGconn *conn, int secs, const char *sql)
{
	PGresult   *res = remote_exec(conn, secs, sql, 0, NULL, PGRES_COMMAND_OK);
	const char *n = PQcmdTuples(res);
	int64		rows = n[0] ? strtoi64(n, NULL, 10) : 0;

	PQclear(res);
	return rows;
}

/*
 * Before anything is written: refuse a standby, and find the schema the
 * tables go in, where this role may create them.  Then the session's
 * search_path becomes pg_catalog, pg_temp (every statement is qualified
 * anyway) and only warnings come back.
 */
static void
prepare_target(RemoteInit *r)
{
	PGresult   *res = remote_exec(r->conn, PGBL_REMOTE_CHECK_S,
								  "SELECT pg_catalog.pg_is_in_recovery(), "
								  "(SELECT pg_catalog.format('host=%s port=%s', w.sender_host, w.sender_port) "
								  "FROM pg_catalog.pg_stat_wal_receiver w WHERE w.sender_host IS NOT NULL), "
								  "n.nspname, "
								  "n.oid OPERATOR(pg_catalog.=) pg_catalog.pg_my_temp_schema() "
								  "OR pg_catalog.pg_is_other_temp_schema(n.oid), "
								  "pg_catalog.has_schema_privilege(n.oid, 'CREATE') "
								  "FROM (SELECT 1) AS one LEFT JOIN pg_catalog.pg_namespace n "
								  "ON n.nspname OPERATOR(pg_catalog.=) pg_catalog.current_schema()",
								  0, NULL, PGRES_TUPLES_OK);
	bool		standby = strcmp(PQgetvalue(res, 0, 0), "t") == 0;
	char	   *primary = pstrdup(PQgetvalue(res, 0, 1));
	bool		no_schema = PQgetisnull(res, 0, 2);
	bool		temp = strcmp(PQgetvalue(res, 0, 3), "t") == 0;
	bool		may_create = strcmp(PQgetvalue(res, 0, 4), "t") == 0;

	strlcpy(r->p->schema, PQgetvalue(res, 0, 2), NAMEDATALEN);
	/* the target's version decides the statements (a partitioned table's persistence) */
	r->p->server_version = PQserverVersion(r->conn);
	PQclear(res);
	if (standby)
		ereport(ERROR,
				(errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
				 errmsg("the target is a standby (in recovery): init writes"),
				 errhint("Run init against the primary%s%s%s; its standbys get the data by replication.",
						 primary[0] ? " (this standby streams from " : "", primary,
						 primary[0] ? ")" : "")));
	if (no_schema)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_SCHEMA),
				 errmsg("no schema has been selected to create in on the target server"),
				 errhint("Give target's role a search_path whose first schema exists there, "
						 "or add options='-c search_path=...' to target.")));
	if (temp)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("pgbench_lab.init cannot create its tables in a temporary schema"),
				 errhint("Put a permanent schema first in the search_path of target's session.")));
	if (!may_create)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for schema %s on the target server", r->p->schema),
				 errhint("Grant CREATE on it to target's role there, or give target another schema first "
						 "in its search_path.")));
	PQclear(remote_exec(r->conn, PGBL_REMOTE_CHECK_S,
						"SELECT pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', false), "
						"pg_catalog.set_config('client_min_messages', 'warning', false)",
						0, NULL, PGRES_TUPLES_OK));
}

/*
 * Refuse to replace a table init did not create there: the remote side of
 * DatasetCheckExisting().
 */
static void
check_existing(RemoteInit *r)
{
	const char *params[2] = {r->p->schema, PGBL_DATASET_MARK};
	PGresult   *res = remote_exec(r->conn, PGBL_REMOTE_CHECK_S,
								  "SELECT c.relname FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n "
								  "ON n.oid OPERATOR(pg_catalog.=) c.relnamespace "
								  "WHERE n.nspname OPERATOR(pg_catalog.=) $1 "
								  "AND c.relname OPERATOR(pg_catalog.=) ANY ('{pgbench_history,pgbench_tellers,"
								  "pgbench_accounts,pgbench_branches}'::pg_catalog.name[]) "
								  "AND (c.relkind OPERATOR(pg_catalog.<>) ALL ('{r,p}'::pg_catalog.\"char\"[]) OR pg_catalog.starts_with("
								  "pg_catalog.obj_description(c.oid, 'pg_class'), $2) IS NOT TRUE) "
								  "ORDER BY c.relname LIMIT 1",
								  2, params, PGRES_TUPLES_OK);
	char	   *name = PQntuples(res) > 0 ? pstrdup(PQgetvalue(res, 0, 0)) : NULL;

	PQclear(res);
	if (name != NULL)
		DatasetRefuseTable(r->p->schema, name);
}

static void
step_begin(RemoteInit *r, int pos)
{
	r->step = pos;
	INSTR_TIME_SET_CURRENT(r->start);
}

static void
step_end(RemoteInit *r, int64 rows)
{
	instr_time	now;

	INSTR_TIME_SET_CURRENT(now);
	INSTR_TIME_SUBTRACT(now, r->start);
	r->t.seconds[r->step] = INSTR_TIME_GET_DOUBLE(now);
	r->t.rows[r->step] = rows;
	r->t.step_done[r->step] = true;
	r->step = -1;
}

/* Run one step's statements; the rows they inserted. */
static int64
run_statements(RemoteInit *r, int pos)
{
	ListCell   *lc;
	int64		rows = 0;

	foreach(lc, DatasetStatements(r->p, pos))
		rows += remote_command(r->conn, 0, (const char *) lfirst(lc));
	return rows;
}

/*
 * The plan, in local init's transactions (dataset_worker.c): the steps
 * between vacuums in one transaction each, committed before a vacuum and
 * at the end; each VACUUM (and each mark, when it is the last step) on
 * its own.
 */
static void
make_data_set(RemoteInit *r)
{
	const DatasetParams *p = r->p;
	bool		open = true;
	int64		rows = -1;

	(void) remote_command(r->conn, PGBL_REMOTE_CHECK_S, "BEGIN");
	check_existing(r);
	for (int pos = 0; pos < p->nsteps; pos++)
	{
		DatasetStep kind = DatasetStepKind(p, pos);
		int64		done;

		if (kind == DATASET_STEP_VACUUM)
		{
			if (open)
				(void) remote_command(r->conn, 0, "COMMIT");
			open = false;
			step_begin(r, pos);
			(void) run_statements(r, pos);
			step_end(r, rows);
			continue;
		}
		if (!open)
			(void) remote_command(r->conn, PGBL_REMOTE_CHECK_S, "BEGIN");
		open = true;
		step_begin(r, pos);
		done = run_statements(r, pos);
		if (kind == DATASET_STEP_GENERATE || kind == DATASET_STEP_GENERATE_SERVER)
			rows = done;
		else
			done = -1;
		if (pos + 1 == p->nsteps || DatasetStepKind(p, pos + 1) == DATASET_STEP_VACUUM)
		{
			(void) remote_command(r->conn, 0, "COMMIT");
			open = false;
		}
		step_end(r, done);
	}
	if (open)
		(void) remote_command(r->conn, 0, "COMMIT");
}

/*
 * init(..., target): the caller has read and checked the other arguments
 * and set up the result set.
 */
void
DatasetInitRemote(FunctionCallInfo fcinfo, DatasetParams *p, const char *target)
{
	/* a run's shape with one target and no client: connected as runs are */
	RunShared  *run = palloc0(offsetof(RunShared, client));
	RemoteInit	r;
	ErrorContextCallback callback;

	run->login_role = GetSessionUserId();
	run->run_role = GetUserId();
	LibpqTargetConninfo(&run->target[0], target, "target");
	run->ntargets = 1;

	memset(&r, 0, sizeof(r));
	r.p = p;
	r.step = -1;
	r.display = run->target[0].display;
	callback.callback = remote_context;
	callback.arg = &r;
	callback.previous = error_context_stack;
	error_context_stack = &callback;

	LibpqRemoteFreeXmin(fcinfo, NULL);
	r.conn = LibpqRemoteConnect(run);
	PG_TRY();
	{
		PQsetNoticeReceiver(r.conn, remote_notice, NULL);
		prepare_target(&r);
		make_data_set(&r);
	}
	PG_FINALLY();
	{
		/* a statement running there cancelled; an open transaction rolls back */
		LibpqRemoteClose(r.conn);
	}
	PG_END_TRY();
	error_context_stack = callback.previous;
	DatasetEmitSteps(fcinfo, p, &r.t);
}
