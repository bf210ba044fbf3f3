/*-------------------------------------------------------------------------
 *
 * tpcc_remote.c
 *		init_tpcc(..., target => conninfo): TPC-C's tables, keys and kit
 *		functions made on another server, through libpq.
 *
 * The target need not have pgbench_lab: init_tpcc() (32_tpcc.sql) hands
 * over its steps' SQL, the population as set-based SQL (generate_series,
 * random()), and this sends them there in one transaction, in order, as
 * init() sends pgbench's (dataset_remote.c): the target checked and
 * connected to as a run's is (the conninfo parsed before anything starts,
 * 22023; a role that is not a superuser gives a password the server asked
 * for), a standby refused (25006), the schema refused when it already
 * holds one of the nine tables (42P07), every wait interruptible, each
 * check answered within 10 s (08006), the steps and the COMMIT as long as
 * they take (client_remote.c).  The statements that draw random strings
 * take the call's pool of characters ($1, bytea) and the letters ($2).  Each step's seconds and rows, and the
 * bytes of its table (with its primary key) or of the two indexes, come
 * back as rows; the scripts are saved here by init_tpcc() itself.
 *
 * If the call fails, is cancelled or loses its client, or its session ends
 * (pg_terminate_backend, with libpq 17 on), a statement still running on
 * the target is cancelled there and the connection closed: the transaction
 * rolls back on the target and nothing is left.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "funcapi.h"
#include "libpq-fe.h"
#include "miscadmin.h"
#include "portability/instr_time.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/tuplestore.h"

#include "client_libpq.h"
#include "run_shared.h"
#include "tpcc.h"

PG_FUNCTION_INFO_V1(pgbench_lab_tpcc_remote);

/* the target's warnings, passed on */
static void
tpcc_remote_notice(void *arg, const PGresult *res)
{
	const char *msg = PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY);

	ereport(WARNING,
			(errmsg("the target server: %s", msg ? msg : "(no message)")));
}

/* errors name the target, its conninfo without the password */
static void
tpcc_remote_context(void *arg)
{
	errcontext("pgbench_lab.init_tpcc, on the target server %s", (const char *) arg);
}

/*
 * One statement (several when it takes no parameters), its results
 * awaited interruptibly, within "secs" or as long as they take (0: a
 * statement that loads, client_remote.c); the last result, for the caller
 * to PQclear, or an ERROR with the target's SQLSTATE and message.
 */
static PGresult *
tpcc_exec_within(PGconn *conn, int secs, const char *sql, int nparams, const Oid *types,
				 const char *const *values, const int *lengths, const int *formats)
{
	PGresult   *last = NULL;
	PGresult   *res;
	bool		sent = nparams > 0 ?
		PQsendQueryParams(conn, sql, nparams, types, values, lengths, formats, 0) :
		PQsendQuery(conn, sql);

	if (!sent)
		LibpqConnError(conn, NULL, ERRCODE_CONNECTION_FAILURE,
					   "could not send a statement to the target server");
	for (;;)
	{
		LibpqRemoteAwait(conn, secs, "lost the connection to the target server");
		if ((res = PQgetResult(conn)) == NULL)
			break;
		if (last != NULL && (PQresultStatus(last) == PGRES_COMMAND_OK ||
							 PQresultStatus(last) == PGRES_TUPLES_OK))
			PQclear(last);
		else if (last != NULL)
		{
			PQclear(res);		/* keep the error */
			continue;
		}
		last = res;
	}
	if (last == NULL || (PQresultStatus(last) != PGRES_COMMAND_OK &&
						 PQresultStatus(last) != PGRES_TUPLES_OK))
	{
		PG_TRY();
		{
			LibpqConnError(conn, last, ERRCODE_CONNECTION_FAILURE,
						   "the target server reported an error");
		}
		PG_FINALLY();
		{
			PQclear(last);
		}
		PG_END_TRY();
	}
	return last;
}

/* A check or a set-up statement: answered within PGBL_REMOTE_CHECK_S. */
static PGresult *
tpcc_exec(PGconn *conn, const char *sql, int nparams, const Oid *types,
		  const char *const *values, const int *lengths, const int *formats)
{
	return tpcc_exec_within(conn, PGBL_REMOTE_CHECK_S, sql, nparams, types, values, lengths, formats);
}

/* A query's first value as int8; NULL as -1. */
static int64
tpcc_exec_int8(PGconn *conn, const char *sql, const char *param)
{
	Oid			type = TEXTOID;
	PGresult   *res = tpcc_exec(conn, sql, 1, &type, &param, NULL, NULL);
	int64		v = PQntuples(res) > 0 && !PQgetisnull(res, 0, 0) ?
		strtoi64(PQgetvalue(res, 0, 0), NULL, 10) : -1;

	PQclear(res);
	return v;
}

/* Refuse a standby and a schema that holds the tables; a fixed search_path. */
static void
tpcc_prepare(PGconn *conn, const char *schema)
{
	PGresult   *res = tpcc_exec(conn, "SELECT pg_catalog.pg_is_in_recovery()", 0, NULL, NULL, NULL, NULL);
	bool		standby = strcmp(PQgetvalue(res, 0, 0), "t") == 0;
	Oid			type = TEXTOID;

	PQclear(res);
	if (standby)
		ereport(ERROR,
				(errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
				 errmsg("the target is a standby (in recovery): init_tpcc writes"),
				 errhint("Run init_tpcc against the primary; its standbys get the tables by replication.")));
	PQclear(tpcc_exec(conn, "SELECT pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', false), "
					  "pg_catalog.set_config('client_min_messages', 'warning', false)",
					  0, NULL, NULL, NULL, NULL));
	PQclear(tpcc_exec(conn, "BEGIN", 0, NULL, NULL, NULL, NULL));
	res = tpcc_exec(conn, "SELECT c.relname FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n "
					"ON n.oid OPERATOR(pg_catalog.=) c.relnamespace WHERE n.nspname OPERATOR(pg_catalog.=) $1 "
					"AND c.relname OPERATOR(pg_catalog.=) ANY ('{warehouse,district,customer,history,new_order,"
					"orders,order_line,item,stock}'::pg_catalog.name[]) LIMIT 1",
					1, &type, &schema, NULL, NULL);
	if (PQntuples(res) > 0)
	{
		PQclear(res);
		ereport(ERROR,
				(errcode(ERRCODE_DUPLICATE_TABLE),
				 errmsg("init_tpcc: schema \"%s\" already holds TPC-C tables on the target server", schema),
				 errhint("Drop them there first (DROP SCHEMA %s CASCADE), or name another schema.",
						 quote_identifier(schema))));
	}
	PQclear(res);
}

/* The bytes a step wrote on the target: its table's, or the two indexes'; -1: none. */
static int64
tpcc_step_bytes(PGconn *conn, const char *schema, const char *step)
{
	static const char *const tables[] = {"warehouse", "district", "customer", "history", "new_order",
	"orders", "order_line", "item", "stock"};
	char	   *name = NULL;

	for (int i = 0; i < lengthof(tables); i++)
		if (strcmp(step, tables[i]) == 0)
			name = psprintf("%s.%s", quote_identifier(schema), quote_identifier(step));
	if (name != NULL)
		return tpcc_exec_int8(conn, "SELECT pg_catalog.pg_total_relation_size($1::pg_catalog.regclass)", name);
	if (strcmp(step, "indexes") == 0)
		return tpcc_exec_int8(conn, "SELECT pg_catalog.pg_relation_size(pg_catalog.format('%I.customer_name', $1)::pg_catalog.regclass) "
							  "OPERATOR(pg_catalog.+) pg_catalog.pg_relation_size(pg_catalog.format('%I.orders_customer', $1)::pg_catalog.regclass)",
							  schema);
	return -1;
}

/*
 * pgbench_lab_internal.tpcc_remote(target text, schema text, steps text[],
 *     statements text[], pool bytea, letters text, weights float8[])
 * RETURNS TABLE (step text, seconds float8, rows int8, bytes int8)
 *
 * steps[i]'s statements[i] on the target, in one transaction committed at
 * the end; each step's progress as tpcc_progress() gives it, its place in
 * weights (init_tpcc()'s steps) its index.
 */
Datum
pgbench_lab_tpcc_remote(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	char	   *target = text_to_cstring(PG_GETARG_TEXT_PP(0));
	char	   *schema = text_to_cstring(PG_GETARG_TEXT_PP(1));
	Datum	   *steps;
	Datum	   *stmts;
	bool	   *nulls;
	int			nsteps;
	int			nstmts;
	bytea	   *pool = PG_GETARG_BYTEA_PP(4);
	char	   *letters = text_to_cstring(PG_GETARG_TEXT_PP(5));
	Datum		weights = PG_GETARG_DATUM(6);
	RunShared  *run = palloc0(offsetof(RunShared, client));
	PGconn	   *conn;
	ErrorContextCallback callback;

	TpccCheckCaller("init_tpcc()'s target");
	deconstruct_array(PG_GETARG_ARRAYTYPE_P(2), TEXTOID, -1, false, TYPALIGN_INT, &steps, &nulls, &nsteps);
	deconstruct_array(PG_GETARG_ARRAYTYPE_P(3), TEXTOID, -1, false, TYPALIGN_INT, &stmts, &nulls, &nstmts);
	if (nsteps != nstmts)
		elog(ERROR, "%d steps for %d statements", nsteps, nstmts);
	InitMaterializedSRF(fcinfo, 0);

	run->login_role = GetSessionUserId();
	run->run_role = GetUserId();
	LibpqTargetConninfo(&run->target[0], target, "target");
	run->ntargets = 1;
	callback.callback = tpcc_remote_context;
	callback.arg = run->target[0].display;
	callback.previous = error_context_stack;
	error_context_stack = &callback;
	LibpqRemoteFreeXmin(fcinfo, "init_tpcc");
	conn = LibpqRemoteConnect(run);
	PG_TRY();
	{
		Oid			types[2] = {BYTEAOID, TEXTOID};
		const char *values[2] = {VARDATA_ANY(pool), letters};
		int			lengths[2] = {VARSIZE_ANY_EXHDR(pool), 0};
		int			formats[2] = {1, 0};

		PQsetNoticeReceiver(conn, tpcc_remote_notice, NULL);
		tpcc_prepare(conn, schema);
		for (int i = 0; i < nsteps; i++)
		{
			char	   *step = TextDatumGetCString(steps[i]);
			char	   *sql = TextDatumGetCString(stmts[i]);
			bool		params = strstr(sql, "$1") != NULL;
			instr_time	t0;
			instr_time	t1;
			PGresult   *res;
			const char *n;
			Datum		values_out[4];
			bool		nulls_out[4] = {false, false, false, false};
			int64		bytes;

			DirectFunctionCall4(pgbench_lab_tpcc_progress, Int32GetDatum(i + 1), weights,
								CStringGetTextDatum(step), BoolGetDatum(false));
			INSTR_TIME_SET_CURRENT(t0);
			res = tpcc_exec_within(conn, 0, sql, params ? 2 : 0, types, values, lengths, formats);
			INSTR_TIME_SET_CURRENT(t1);
			INSTR_TIME_SUBTRACT(t1, t0);
			n = PQcmdTuples(res);
			values_out[0] = CStringGetTextDatum(step);
			values_out[1] = Float8GetDatum(INSTR_TIME_GET_DOUBLE(t1));
			values_out[2] = Int64GetDatum(n[0] ? strtoi64(n, NULL, 10) : 0);
			/* rows for the steps that insert them: their tag starts with I */
			nulls_out[2] = PQcmdStatus(res)[0] != 'I';
			PQclear(res);
			bytes = tpcc_step_bytes(conn, schema, step);
			values_out[3] = Int64GetDatum(bytes);
			nulls_out[3] = bytes < 0;
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values_out, nulls_out);
			DirectFunctionCall4(pgbench_lab_tpcc_progress, Int32GetDatum(i + 1), weights,
								CStringGetTextDatum(psprintf("%s in %.3f s", step, INSTR_TIME_GET_DOUBLE(t1))),
								BoolGetDatum(true));
			CHECK_FOR_INTERRUPTS();
		}
		PQclear(tpcc_exec_within(conn, 0, "COMMIT", 0, NULL, NULL, NULL, NULL));
	}
	PG_FINALLY();
	{
		/* a statement running there cancelled; the transaction rolls back */
		LibpqRemoteClose(conn);
	}
	PG_END_TRY();
	error_context_stack = callback.previous;
	return (Datum) 0;
}
