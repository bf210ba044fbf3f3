/*-------------------------------------------------------------------------
 *
 * capture_source.c
 *		capture(source => conninfo): what capture() reads on another
 *		server, over libpq.
 *
 * The application runs on one server (production) and is replayed on
 * another (a copy, here).  capture() reads the source's
 * pg_stat_statements, and the shape of the tables its statements meet,
 * through this file; it analyzes the statements, samples the values and
 * saves the scripts here.  On the source, nothing but two fixed reads
 * runs: in a READ ONLY transaction with a statement_timeout, on a
 * connection made as a libpq run's are (client_libpq.c: the conninfo
 * checked, the caller's role), each statement answered within
 * PGBL_REMOTE_CHECK_S or the call ends (08006, client_remote.c), and the
 * call's cancel, a lost client or an error cancels the statement there
 * and closes the connection.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "funcapi.h"
#include "libpq-fe.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"

#include "capture.h"
#include "client_libpq.h"
#include "run_shared.h"

PG_FUNCTION_INFO_V1(pgbench_lab_capture_source);

static void
source_context(void *arg)
{
	errcontext("pgbench_lab.capture, reading the source server %s", (const char *) arg);
}

/* One statement there, within the checks' deadline; its result, or an ERROR. */
static PGresult *
source_exec(PGconn *conn, const char *sql, int nparams, const char *const *params, ExecStatusType want)
{
	return LibpqRemoteExec(conn, PGBL_REMOTE_CHECK_S, sql, nparams, params, want, "source");
}

/* The rows of res, as text, into the result set; res cleared whatever happens. */
static void
emit_rows(ReturnSetInfo *rsinfo, PGresult *res)
{
	PG_TRY();
	{
		int			ncols = PQnfields(res);

		for (int i = 0; i < PQntuples(res); i++)
		{
			Datum		values[7];
			bool		nulls[7];

			CHECK_FOR_INTERRUPTS();
			for (int j = 0; j < 7; j++)
			{
				nulls[j] = j >= ncols || PQgetisnull(res, i, j);
				values[j] = nulls[j] ? (Datum) 0 : CStringGetTextDatum(PQgetvalue(res, i, j));
			}
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		}
	}
	PG_FINALLY();
	{
		PQclear(res);
	}
	PG_END_TRY();
}

/* The statements of the source's database, as capture() reads them here. */
static const char *const statements_sql =
"SELECT s.queryid::pg_catalog.text, s.query, pg_catalog.sum(s.calls)::pg_catalog.int8::pg_catalog.text,"
" pg_catalog.sum(s.total_exec_time)::pg_catalog.text, pg_catalog.sum(s.rows)::pg_catalog.int8::pg_catalog.text,"
" pg_catalog.sum(s.shared_blks_hit)::pg_catalog.int8::pg_catalog.text,"
" pg_catalog.sum(s.shared_blks_read)::pg_catalog.int8::pg_catalog.text"
" FROM %s.pg_stat_statements(true) AS s"
" WHERE s.dbid OPERATOR(pg_catalog.=) (SELECT d.oid FROM pg_catalog.pg_database d"
" WHERE d.datname OPERATOR(pg_catalog.=) pg_catalog.current_database())"
" AND s.toplevel AND s.calls OPERATOR(pg_catalog.>=) $1::pg_catalog.int8"
" GROUP BY s.queryid, s.query";

/* The columns of the source's tables of those names (schema.table). */
static const char *const columns_sql =
"SELECT r.name, a.attname::pg_catalog.text, pg_catalog.format_type(a.atttypid, a.atttypmod)"
" FROM pg_catalog.unnest($1::pg_catalog.text[]) AS r(name)"
" LEFT JOIN pg_catalog.pg_attribute a ON a.attrelid OPERATOR(pg_catalog.=) pg_catalog.to_regclass(r.name)"
" AND a.attnum OPERATOR(pg_catalog.>) 0 AND NOT a.attisdropped"
" ORDER BY r.name, a.attnum";

/*
 * pgbench_lab_internal.capture_source(source text, what text, min_calls bigint, relations text[])
 *	RETURNS TABLE (a text, b text, c text, d text, e text, f text, g text)
 *
 * what 'statements': the source database's pg_stat_statements rows
 * (queryid, query, calls, total_exec_time, rows, shared_blks_hit,
 * shared_blks_read) called at least min_calls times at top level;
 * 'columns': for each of relations (schema-qualified names), its columns
 * and their types there (NULLs: no such table there); 'display': the
 * conninfo as recorded, without a password, nothing read.  All as text.
 */
Datum
pgbench_lab_capture_source(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	char	   *source;
	char	   *what;
	RunShared  *run = palloc0(offsetof(RunShared, client));
	PGconn	   *conn;
	ErrorContextCallback callback;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("source must not be null"),
				 errhint("Give the source server's conninfo.")));
	source = text_to_cstring(PG_GETARG_TEXT_PP(0));
	what = text_to_cstring(PG_GETARG_TEXT_PP(1));
	if (strcmp(what, "statements") != 0 && strcmp(what, "columns") != 0 && strcmp(what, "display") != 0)
		elog(ERROR, "unknown read \"%s\"", what);
	InitMaterializedSRF(fcinfo, 0);

	run->login_role = GetSessionUserId();
	run->run_role = GetUserId();
	LibpqTargetConninfo(&run->target[0], source, "source");
	run->ntargets = 1;
	if (strcmp(what, "display") == 0)
	{
		/* the conninfo as recorded: checked, without its password */
		Datum		values[7] = {CStringGetTextDatum(run->target[0].display)};
		bool		nulls[7] = {false, true, true, true, true, true, true};

		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		return (Datum) 0;
	}
	callback.callback = source_context;
	callback.arg = run->target[0].display;
	callback.previous = error_context_stack;
	error_context_stack = &callback;
	conn = LibpqRemoteConnect(run);
	PG_TRY();
	{
		PGresult   *res;
		char	   *sql;
		char	   *param;

		PQclear(source_exec(conn, "BEGIN READ ONLY", 0, NULL, PGRES_COMMAND_OK));
		PQclear(source_exec(conn, "SET LOCAL statement_timeout = '10s'", 0, NULL, PGRES_COMMAND_OK));
		if (strcmp(what, "statements") == 0)
		{
			char	   *nsp;

			res = source_exec(conn,
							  "SELECT pg_catalog.quote_ident(n.nspname::pg_catalog.text) FROM pg_catalog.pg_extension e"
							  " JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) e.extnamespace"
							  " WHERE e.extname OPERATOR(pg_catalog.=) 'pg_stat_statements'",
							  0, NULL, PGRES_TUPLES_OK);
			if (PQntuples(res) != 1)
			{
				PQclear(res);
				ereport(ERROR,
						(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
						 errmsg("capture: pg_stat_statements is not installed in the source's database"),
						 errhint("On the source server: add pg_stat_statements to shared_preload_libraries (a restart) and run CREATE EXTENSION pg_stat_statements in the application's database.")));
			}
			nsp = pstrdup(PQgetvalue(res, 0, 0));
			PQclear(res);
			sql = psprintf(statements_sql, nsp);
			param = PG_ARGISNULL(2) ? "1" : psprintf(INT64_FORMAT, PG_GETARG_INT64(2));
		}
		else
		{
			sql = (char *) columns_sql;
			param = PG_ARGISNULL(3) ? "{}" : OidOutputFunctionCall(F_ARRAY_OUT, PG_GETARG_DATUM(3));
		}
		res = source_exec(conn, sql, 1, (const char *const *) &param, PGRES_TUPLES_OK);
		emit_rows(rsinfo, res);
		PQclear(source_exec(conn, "COMMIT", 0, NULL, PGRES_COMMAND_OK));
	}
	PG_FINALLY();
	{
		/* a statement running there cancelled; the connection closed */
		LibpqRemoteClose(conn);
	}
	PG_END_TRY();
	error_context_stack = callback.previous;
	return (Datum) 0;
}
