/*-------------------------------------------------------------------------
 *
 * report.c
 *		The one door through which experiments and imports write results.
 *
 * Reports, comparisons, plots and exports are plain SQL (sql/install/
 * 80_reports.sql): they only read tables under row-level security.  Writing
 * is different: the result tables belong to the extension's owner and no
 * user may write them directly, yet the rows a user's sweep or import makes
 * must be owned by that user.  A SECURITY DEFINER function cannot tell who
 * called it, and the procedures that run experiments cannot be SECURITY
 * DEFINER because they commit between runs.  So this C function notes the
 * calling role, switches to the extension's owner (as a SECURITY DEFINER
 * function would) and hands both to pgbench_lab.record_as(), which is not
 * executable by PUBLIC and checks that the caller may do what it asks.
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

#include "pgbench_lab.h"

PG_FUNCTION_INFO_V1(pgbench_lab_record);

/* The role that owns the extension, and so the result tables. */
static Oid
extension_owner(void)
{
	bool		isnull;
	Datum		owner;

	if (SPI_execute("SELECT extowner FROM pg_catalog.pg_extension "
					"WHERE extname OPERATOR(pg_catalog.=) 'pgbench_lab'", true, 1) != SPI_OK_SELECT ||
		SPI_processed != 1)
		elog(ERROR, "extension pgbench_lab is not installed");
	owner = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	return DatumGetObjectId(owner);
}

/*
 * pgbench_lab.record(action text, args jsonb) RETURNS jsonb
 *
 * Runs pgbench_lab.record_as(caller, action, args) as the extension's owner
 * and returns its result.  The actions and their checks live in SQL.
 */
Datum
pgbench_lab_record(PG_FUNCTION_ARGS)
{
	Oid			caller = GetUserId();
	Oid			save_userid;
	int			save_sec;
	Oid			types[3] = {OIDOID, TEXTOID, JSONBOID};
	Datum		values[3];
	Datum		result;
	bool		isnull;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("action must not be null"),
				 errhint("Valid actions are experiment_begin, experiment_add, experiment_end and import.")));
	if (PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("args must not be null"),
				 errhint("Pass a jsonb object, empty if the action needs no arguments.")));

	values[0] = ObjectIdGetDatum(caller);
	values[1] = PG_GETARG_DATUM(0);
	values[2] = PG_GETARG_DATUM(1);

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");

	/* an error in between aborts the (sub)transaction, which restores both */
	GetUserIdAndSecContext(&save_userid, &save_sec);
	SetUserIdAndSecContext(extension_owner(), save_sec | SECURITY_LOCAL_USERID_CHANGE);
	if (SPI_execute_with_args("SELECT pgbench_lab.record_as($1::pg_catalog.regrole, $2, $3)",
							  3, types, values, NULL, false, 1) != SPI_OK_SELECT ||
		SPI_processed != 1)
		elog(ERROR, "pgbench_lab.record_as returned no row");
	SetUserIdAndSecContext(save_userid, save_sec);

	result = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	if (!isnull)
		result = SPI_datumTransfer(result, false, -1);
	SPI_finish();
	if (isnull)
		PG_RETURN_NULL();
	PG_RETURN_DATUM(result);
}
