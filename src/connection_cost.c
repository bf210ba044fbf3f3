/*-------------------------------------------------------------------------
 *
 * connection_cost.c
 *		CALL pgbench_lab.connection_cost(): what the protocol and connection
 *		set-up cost on this server, in one call.
 *
 * The same workload runs three times, one after the other, with the same
 * clients and duration: in-server (via spi), over persistent libpq
 * connections (via libpq, like pgbench -M prepared) and with a new
 * connection per transaction (via libpq-connect, like pgbench -C).  Each is
 * an ordinary run made through CALL pgbench_lab.run(), so each commits and
 * is on record under the same label; the procedure returns their TPS and
 * the ratios between them.  It is a C procedure because it commits between
 * its runs (a procedure with a SET clause cannot), and its SQL names every
 * object with its schema.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "nodes/params.h"
#include "nodes/parsenodes.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/timestamp.h"

#include "pgbench_lab.h"

PG_FUNCTION_INFO_V1(pgbench_lab_connection_cost);

#define NVIA	3
#define NOUT	12				/* INOUT columns, label first */

static const char *const vias[NVIA] = {"spi", "libpq", "libpq-connect"};

/*
 * One run through CALL pgbench_lab.run(), which may commit: SPI runs it as
 * a nonatomic CALL, its arguments as literals.  Returns its run_id.
 */
static int64
one_run(FunctionCallInfo fcinfo, const char *label, int via)
{
	SPIExecuteOptions opts;
	StringInfoData sql;
	bool		isnull;
	char	   *status;
	int64		run_id;

	initStringInfo(&sql);
	appendStringInfo(&sql, "CALL pgbench_lab.run(workload => %s, clients => %d, duration => %s, "
					 "label => %s, via => %s",
					 quote_literal_cstr(text_to_cstring(PG_GETARG_TEXT_PP(0))),
					 PG_GETARG_INT32(1),
					 quote_literal_cstr(DatumGetCString(DirectFunctionCall1(interval_out,
																			PG_GETARG_DATUM(2)))),
					 quote_literal_cstr(label), quote_literal_cstr(vias[via]));
	memset(&opts, 0, sizeof(opts));
	opts.allow_nonatomic = true;
	if (via > 0 && !PG_ARGISNULL(3))
	{
		/* a parameter: a password must not show in an error's context */
		opts.params = makeParamList(1);
		opts.params->numParams = 1;
		opts.params->params[0].value = PG_GETARG_DATUM(3);
		opts.params->params[0].isnull = false;
		opts.params->params[0].pflags = PARAM_FLAG_CONST;
		opts.params->params[0].ptype = TEXTOID;
		appendStringInfoString(&sql, ", target => $1");
	}
	appendStringInfoChar(&sql, ')');
	if (SPI_execute_extended(sql.data, &opts) < 0 || SPI_tuptable == NULL || SPI_processed != 1)
		elog(ERROR, "CALL pgbench_lab.run() returned no row");
	run_id = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	status = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2);
	if (strcmp(status, "done") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("the %s run (run " INT64_FORMAT ") ended %s", vias[via], run_id, status),
				 errdetail("%s", SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 8)
						   ? SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 8)
						   : "No error was recorded."),
				 errhint("The runs made so far are in pgbench_lab.runs with label '%s'.", label)));
	return run_id;
}

/*
 * The INOUT row: label, the three run ids, their TPS, the TPS of the
 * libpq-connect run without connecting, its mean connection time, the two
 * ratios and a sentence.
 */
static void
read_figures(const char *label, const int64 *ids, Datum *out, bool *nulls)
{
	Oid			types[4] = {INT8OID, INT8OID, INT8OID, TEXTOID};
	Datum		v[4] = {Int64GetDatum(ids[0]), Int64GetDatum(ids[1]), Int64GetDatum(ids[2]),
	CStringGetTextDatum(label)};

	if (SPI_execute_with_args(
			"WITH f AS (SELECT s.tps AS spi, l.tps AS libpq, c.tps AS conn, "
			"c.tps_without_connections AS conn_wo, c.connection_avg_ms AS ms "
			"FROM pgbench_lab.runs s, pgbench_lab.runs l, pgbench_lab.runs c "
			"WHERE s.run_id OPERATOR(pg_catalog.=) $1 AND l.run_id OPERATOR(pg_catalog.=) $2 "
			"AND c.run_id OPERATOR(pg_catalog.=) $3) "
			"SELECT $4, $1, $2, $3, spi, libpq, conn, conn_wo, ms, "
			"spi OPERATOR(pg_catalog./) NULLIF(libpq, 0::float8), "
			"libpq OPERATOR(pg_catalog./) NULLIF(conn, 0::float8), "
			"pg_catalog.format('in-server %s tps; over persistent libpq connections %s tps "
			"(%s times fewer); with a new connection per transaction %s tps (%s times fewer "
			"than persistent), %s ms per connection', pg_catalog.round(spi::numeric), "
			"pg_catalog.round(libpq::numeric), pg_catalog.round((spi OPERATOR(pg_catalog./) "
			"NULLIF(libpq, 0::float8))::numeric, 1), pg_catalog.round(conn::numeric), "
			"pg_catalog.round((libpq OPERATOR(pg_catalog./) NULLIF(conn, 0::float8))::numeric, 1), "
			"pg_catalog.round(ms::numeric, 2)) FROM f",
			4, types, v, NULL, true, 1) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "could not read the runs of connection_cost");
	for (int i = 0; i < NOUT; i++)
		out[i] = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, i + 1, &nulls[i]);
}

/*
 * Record the three runs as one experiment (kind connection_cost: variants
 * spi, libpq, libpq-connect), through the reports part's recording
 * functions, so report(), compare() and export() see it.
 */
static void
record_experiment(FunctionCallInfo fcinfo, const char *label, const int64 *ids)
{
	Oid			types[4] = {TEXTOID, INT4OID, TEXTOID, TEXTOID};
	Datum		v[4];
	Oid			addtypes[3] = {INT8OID, INT8OID, INT4OID};
	Datum		add[3];
	bool		isnull;

	v[0] = PG_GETARG_DATUM(0);
	v[1] = PG_GETARG_DATUM(1);
	v[2] = CStringGetTextDatum(DatumGetCString(DirectFunctionCall1(interval_out,
																	PG_GETARG_DATUM(2))));
	v[3] = CStringGetTextDatum(label);
	if (SPI_execute_with_args("SELECT pgbench_lab.experiment_begin('connection_cost', $1, $4, "
							  "pg_catalog.jsonb_build_object('clients', $2, 'duration', $3, "
							  "'rounds', 1, 'settings', '[{\"via\": \"spi\"}, "
							  "{\"via\": \"libpq\"}, {\"via\": \"libpq-connect\"}]'::pg_catalog.jsonb))",
							  4, types, v, NULL, false, 1) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "could not record the connection_cost experiment");
	add[0] = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	for (int i = 0; i < NVIA; i++)
	{
		add[1] = Int64GetDatum(ids[i]);
		add[2] = Int32GetDatum(i + 1);
		if (SPI_execute_with_args("SELECT pgbench_lab.experiment_add($1, $2, $3, 1)",
								  3, addtypes, add, NULL, false, 1) != SPI_OK_SELECT)
			elog(ERROR, "could not record the connection_cost experiment");
	}
	if (SPI_execute_with_args("SELECT pgbench_lab.experiment_end($1)",
							  1, addtypes, add, NULL, false, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not record the connection_cost experiment");
}

/*
 * CALL pgbench_lab.connection_cost(workload text, clients int,
 *     duration interval, target text, INOUT label text,
 *     INOUT spi_run_id bigint, ..., INOUT finding text)
 */
Datum
pgbench_lab_connection_cost(PG_FUNCTION_ARGS)
{
	MemoryContext cxt = CurrentMemoryContext;
	CallContext *ctx = (CallContext *) fcinfo->context;
	char	   *label;
	int64		ids[NVIA];
	Datum		out[NOUT];
	bool		nulls[NOUT];
	TupleDesc	desc;
	HeapTuple	tuple;

	if (ctx == NULL || !IsA(ctx, CallContext) || ctx->atomic)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TRANSACTION_TERMINATION),
				 errmsg("pgbench_lab.connection_cost() must be called with CALL outside a transaction block"),
				 errhint("Each of its runs commits before it waits.")));
	for (int i = 0; i < 3; i++)
		if (PG_ARGISNULL(i))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("%s must not be NULL", i == 0 ? "workload" : i == 1 ? "clients" : "duration"),
					 errhint("connection_cost runs one workload, by time, three ways.")));
	label = PG_ARGISNULL(4)
		? psprintf("connection_cost %s", timestamptz_to_str(GetCurrentTimestamp()))
		: text_to_cstring(PG_GETARG_TEXT_PP(4));
	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	desc = CreateTupleDescCopy(desc);

	if (SPI_connect_ext(SPI_OPT_NONATOMIC) != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	for (int i = 0; i < NVIA; i++)
		ids[i] = one_run(fcinfo, label, i);
	record_experiment(fcinfo, label, ids);
	read_figures(label, ids, out, nulls);

	MemoryContextSwitchTo(cxt);
	for (int i = 0; i < NOUT; i++)
		if (!nulls[i])
			out[i] = datumCopy(out[i], TupleDescAttr(desc, i)->attbyval,
							   TupleDescAttr(desc, i)->attlen);
	tuple = heap_form_tuple(BlessTupleDesc(desc), out, nulls);
	SPI_finish();
	return HeapTupleGetDatum(tuple);
}
