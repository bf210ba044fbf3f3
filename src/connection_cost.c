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
#include "nodes/params.h"
#include "nodes/parsenodes.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/timestamp.h"

#include "pgbench_lab.h"
#include "runner.h"

PG_FUNCTION_INFO_V1(pgbench_lab_connection_cost);

#define NVIA	3
#define NOUT	12				/* INOUT columns, label first */

static const char *const vias[NVIA] = {"spi", "libpq", "libpq-connect"};

/*
 * Everything the three runs will check (workload, clients, duration,
 * label, the tables, the target and its password rule, the target's
 * tables), checked for all three before the first one starts.
 */
static void
check_runs(FunctionCallInfo fcinfo, const char *label)
{
	for (int via = 0; via < NVIA; via++)
	{
		LOCAL_FCINFO(args, RUNNER_NARGS_START);

		InitFunctionCallInfoData(*args, NULL, RUNNER_NARGS_START, InvalidOid, NULL, NULL);
		for (int i = 0; i < RUNNER_NARGS_START; i++)
		{
			args->args[i].value = (Datum) 0;
			args->args[i].isnull = true;
		}
		for (int i = RUNNER_ARG_WORKLOAD; i <= RUNNER_ARG_DURATION; i++)
			args->args[i] = fcinfo->args[i];
		args->args[RUNNER_ARG_LABEL].value = CStringGetTextDatum(label);
		args->args[RUNNER_ARG_LABEL].isnull = false;
		args->args[RUNNER_ARG_MAX_TRIES].value = Int32GetDatum(1);
		args->args[RUNNER_ARG_MAX_TRIES].isnull = false;
		args->args[RUNNER_ARG_VIA].value = CStringGetTextDatum(vias[via]);
		args->args[RUNNER_ARG_VIA].isnull = false;
		if (via > 0)
			args->args[RUNNER_ARG_TARGET] = fcinfo->args[3];
		(void) RunnerPrepare(args);
	}
}

/*
 * One run through CALL pgbench_lab.run(), which may commit: SPI runs it as
 * a nonatomic CALL, with its arguments as parameters (a password in target
 * must not show in an error's context).  Returns its run_id.
 */
static int64
one_run(FunctionCallInfo fcinfo, const char *label, int via)
{
	SPIExecuteOptions opts;
	Oid			types[6] = {TEXTOID, INT4OID, INTERVALOID, TEXTOID, TEXTOID, TEXTOID};
	Datum		values[6];
	bool		isnull;
	char	   *status;
	int64		run_id;

	values[0] = PG_GETARG_DATUM(0);
	values[1] = PG_GETARG_DATUM(1);
	values[2] = PG_GETARG_DATUM(2);
	values[3] = CStringGetTextDatum(label);
	values[4] = CStringGetTextDatum(vias[via]);
	values[5] = via > 0 && !PG_ARGISNULL(3) ? PG_GETARG_DATUM(3) : (Datum) 0;
	memset(&opts, 0, sizeof(opts));
	opts.allow_nonatomic = true;
	opts.params = makeParamList(6);
	opts.params->numParams = 6;
	for (int i = 0; i < 6; i++)
	{
		opts.params->params[i].value = values[i];
		opts.params->params[i].isnull = (i == 5 && values[5] == (Datum) 0);
		opts.params->params[i].pflags = PARAM_FLAG_CONST;
		opts.params->params[i].ptype = types[i];
	}
	if (SPI_execute_extended("CALL pgbench_lab.run(workload => $1, clients => $2, duration => $3, "
							 "label => $4, via => $5, target => $6)", &opts) < 0 ||
		SPI_tuptable == NULL || SPI_processed != 1)
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
			"c.tps_without_connections AS conn_wo, c.connection_avg_ms AS ms, "
			"CASE WHEN l.tps OPERATOR(pg_catalog.<>) 0::pg_catalog.float8 "
			"THEN s.tps OPERATOR(pg_catalog./) l.tps END AS spi_libpq, "
			"CASE WHEN c.tps OPERATOR(pg_catalog.<>) 0::pg_catalog.float8 "
			"THEN l.tps OPERATOR(pg_catalog./) c.tps END AS libpq_conn "
			"FROM pgbench_lab.runs s, pgbench_lab.runs l, pgbench_lab.runs c "
			"WHERE s.run_id OPERATOR(pg_catalog.=) $1 AND l.run_id OPERATOR(pg_catalog.=) $2 "
			"AND c.run_id OPERATOR(pg_catalog.=) $3) "
			"SELECT $4, $1, $2, $3, spi, libpq, conn, conn_wo, ms, spi_libpq, libpq_conn, "
			"pg_catalog.format('in-server %s tps; over persistent libpq connections %s tps "
			"(%s times fewer); with a new connection per transaction %s tps (%s times fewer "
			"than persistent), %s ms per connection', "
			"pg_catalog.round(spi::pg_catalog.numeric), pg_catalog.round(libpq::pg_catalog.numeric), "
			"pg_catalog.round(spi_libpq::pg_catalog.numeric, 1), "
			"pg_catalog.round(conn::pg_catalog.numeric), "
			"pg_catalog.round(libpq_conn::pg_catalog.numeric, 1), "
			"pg_catalog.round(ms::pg_catalog.numeric, 2)) FROM f",
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

	check_runs(fcinfo, label);
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
