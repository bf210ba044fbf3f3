/*-------------------------------------------------------------------------
 *
 * results_record.c
 *		pgbench_lab_internal.record(): the door through which imports
 *		write results.
 *
 * Reports, comparisons, plots and exports are plain SQL (sql/code/): they
 * only read tables under row-level security.  Writing
 * is different: the result tables belong to the extension's owner and no
 * user may write them directly, yet the rows a user's import makes must be
 * owned by that user.  A SECURITY DEFINER function cannot tell who called
 * it.  So this C function notes the
 * calling role, becomes the extension's owner (SecureAsOwner, as a SECURITY
 * DEFINER function with a safe search_path would) and hands both to
 * record_as(), which is not executable by PUBLIC and checks that the caller
 * may do what it asks.  (Experiments write the same way from their driver,
 * experiment.c, through a writer per step of their life.)  record_as() is looked up in record()'s own schema:
 * pgbench_lab_internal since version 0.2, pgbench_lab in 0.1, whose
 * install script this library still serves until ALTER EXTENSION UPDATE.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"

#include "pgbench_lab.h"
#include "secure.h"

PG_FUNCTION_INFO_V1(pgbench_lab_record);

typedef struct RecordCall
{
	const char *schema;			/* record()'s schema, quoted */
	Datum		values[3];
	Datum		result;
	bool		isnull;
} RecordCall;

/* Runs as the extension's owner, through SecureAsOwner(). */
static void
record_as_owner(void *arg)
{
	RecordCall *call = (RecordCall *) arg;
	Oid			types[3] = {OIDOID, TEXTOID, JSONBOID};

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (SPI_execute_with_args(psprintf("SELECT %s.record_as($1::pg_catalog.regrole, $2, $3)",
									   call->schema),
							  3, types, call->values, NULL, false, 1) != SPI_OK_SELECT ||
		SPI_processed != 1)
		elog(ERROR, "%s.record_as returned no row", call->schema);
	call->result = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &call->isnull);
	if (!call->isnull)
		call->result = SPI_datumTransfer(call->result, false, -1);
	SPI_finish();
}

/*
 * pgbench_lab_internal.record(action text, args jsonb) RETURNS jsonb
 *
 * Runs record_as(caller, action, args) as the extension's owner and returns
 * its result.  The actions and their checks live in SQL.
 */
Datum
pgbench_lab_record(PG_FUNCTION_ARGS)
{
	RecordCall	call;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("action must not be null"),
				 errhint("The only action is import; experiments record themselves.")));
	if (PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("args must not be null"),
				 errhint("Pass a jsonb object, empty if the action needs no arguments.")));

	call.schema = quote_identifier(get_namespace_name(get_func_namespace(fcinfo->flinfo->fn_oid)));
	call.values[0] = ObjectIdGetDatum(GetUserId());
	call.values[1] = PG_GETARG_DATUM(0);
	call.values[2] = PG_GETARG_DATUM(1);
	SecureAsOwner(record_as_owner, &call);
	if (call.isnull)
		PG_RETURN_NULL();
	PG_RETURN_DATUM(call.result);
}
