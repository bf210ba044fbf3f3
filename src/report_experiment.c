/*-------------------------------------------------------------------------
 *
 * report_experiment.c
 *		sweep() and compare_settings(): many runs recorded as one experiment.
 *
 * An experiment is a list of runs made one after the other by CALLing
 * pgbench_lab.run(), which commits before it waits.  So these procedures
 * must themselves run non-atomically and hold no snapshot between runs,
 * and a procedure with a SET search_path clause cannot do that.  They are
 * therefore thin C loops: the SQL functions they call (all with a fixed
 * search_path, in sql/install/80_reports.sql) check the arguments, create
 * the experiment, spell out each step's CALL with quoted literals, link
 * each run and compute the findings.  Only the loop, the non-atomic CALL
 * and the commits between runs live here.
 *
 * Everything that can be checked is checked before the experiment
 * begins: the arguments, and every session setting of every set, as run()
 * checks them (the name exists, the value is valid, the caller may set
 * it), so that a bad setting in set B does not stop a comparison after
 * set A has run.  If a run still raises an error (no worker slots, say),
 * the procedure stops there; the runs already made stay linked and
 * report() shows the experiment as aborted.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "utils/builtins.h"
#include "utils/datum.h"

#include "pgbench_lab.h"
#include "runner.h"

PG_FUNCTION_INFO_V1(pgbench_lab_sweep);
PG_FUNCTION_INFO_V1(pgbench_lab_compare_settings);

#define PGBL_EXPERIMENT_MAX_ARGS 6

/* What differs between the two experiment procedures. */
typedef struct ExperimentProc
{
	const char *name;			/* for messages */
	const char *check_sql;		/* validates; returns (set, name, value) */
	const char *plan_sql;		/* validates, begins; returns (id, steps) */
	int			nargs;
	Oid			argtypes[PGBL_EXPERIMENT_MAX_ARGS];
	const char *final_sql;		/* $1 = experiment id; the procedure's row */
} ExperimentProc;

static const ExperimentProc sweep_proc = {
	"pgbench_lab.sweep()",
	"SELECT s.set_name, s.name, s.value FROM pgbench_lab.experiment_check_sweep($1, $2, $3, $4, $5) s",
	"SELECT * FROM pgbench_lab.experiment_plan_sweep($1, $2, $3, $4, $5)",
	5, {TEXTOID, INT4ARRAYOID, INTERVALOID, TEXTOID, JSONBOID},
	"SELECT $1, v.peak_clients, v.peak_tps, v.knee_clients, v.finding "
	"FROM pgbench_lab.sweep_verdict($1) v"
};

static const ExperimentProc settings_proc = {
	"pgbench_lab.compare_settings()",
	"SELECT s.set_name, s.name, s.value "
	"FROM pgbench_lab.experiment_check_settings($1, $2, $3, $4, $5, $6) s",
	"SELECT * FROM pgbench_lab.experiment_plan_settings($1, $2, $3, $4, $5, $6)",
	6, {TEXTOID, JSONBARRAYOID, INT4OID, INTERVALOID, INT4OID, TEXTOID},
	"SELECT $1, pgbench_lab.settings_finding($1)"
};

/* One SELECT through SPI that must return exactly one row. */
static void
select_one(const char *sql, int nargs, Oid *types, Datum *values, const char *nulls)
{
	if (SPI_execute_with_args(sql, nargs, types, values, nulls, false, 1) != SPI_OK_SELECT ||
		SPI_processed != 1)
		elog(ERROR, "pgbench_lab: no row from \"%s\"", sql);
}

static int64
get_int8(int col)
{
	bool		isnull;
	Datum		d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, col, &isnull);

	if (isnull)
		elog(ERROR, "pgbench_lab: unexpected null in column %d", col);
	return DatumGetInt64(d);
}

/* Which set a settings error is about, for its CONTEXT line. */
typedef struct SettingsCheck
{
	const char *proc;
	const char *set;			/* NULL for the one set of a sweep */
} SettingsCheck;

static void
settings_check_context(void *arg)
{
	SettingsCheck *check = (SettingsCheck *) arg;

	if (check->set != NULL)
		errcontext("settings set %s of %s, checked before its first run", check->set, check->proc);
	else
		errcontext("settings of %s, checked before its first run", check->proc);
}

/*
 * Check every setting the experiment's runs will apply, as run() does
 * (RunnerCheckSetting), and that each set fits in a run's shared memory.  The
 * first bad one raises the parameter's own error, with the set in CONTEXT.
 */
static void
check_settings(const ExperimentProc *proc, Datum *values, const char *nulls)
{
	SettingsCheck check = {proc->name, NULL};
	ErrorContextCallback callback = {error_context_stack, settings_check_context, &check};
	char	   *set = NULL;
	Size		used = 0;

	if (SPI_execute_with_args(proc->check_sql, proc->nargs, (Oid *) proc->argtypes, values, nulls,
							  true, 0) != SPI_OK_SELECT)
		elog(ERROR, "pgbench_lab: could not read the settings of %s", proc->name);
	error_context_stack = &callback;
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		HeapTuple	row = SPI_tuptable->vals[i];
		TupleDesc	desc = SPI_tuptable->tupdesc;
		char	   *this_set = SPI_getvalue(row, desc, 1);
		char	   *name = SPI_getvalue(row, desc, 2);
		char	   *value = SPI_getvalue(row, desc, 3);

		CHECK_FOR_INTERRUPTS();
		if (set == NULL || this_set == NULL || strcmp(set, this_set) != 0)
			used = 0;
		set = this_set;
		check.set = this_set;
		if (value == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("setting \"%s\" has no value", name),
					 errhint("Give each setting a value as a string, for example {\"work_mem\": \"64MB\"}.")));
		RunnerCheckSetting(name, value);
		used += strlen(name) + strlen(value) + 2;
		if (used > PGBL_SETTINGS_MAX)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("settings are too long"),
					 errhint("The settings of one run take at most %d bytes.", PGBL_SETTINGS_MAX)));
	}
	error_context_stack = callback.previous;
}

/*
 * Step n of the experiment: CALL pgbench_lab.run() non-atomically (it
 * commits before it waits), then link the run it made.
 */
static void
run_step(int64 experiment_id, int32 step)
{
	Oid			types[4] = {INT8OID, INT4OID, INT4OID, INT4OID};
	Datum		values[4];
	SPIExecuteOptions options;
	char	   *call;
	int32		variant;
	int32		round;
	bool		isnull;

	values[0] = Int64GetDatum(experiment_id);
	values[1] = Int32GetDatum(step);
	select_one("SELECT step_call, variant, round FROM pgbench_lab.experiment_step($1, $2)",
			   2, types, values, NULL);
	call = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
	variant = DatumGetInt32(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull));
	round = DatumGetInt32(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 3, &isnull));

	memset(&options, 0, sizeof(options));
	options.allow_nonatomic = true;
	if (SPI_execute_extended(call, &options) < 0 || SPI_tuptable == NULL || SPI_processed != 1)
		elog(ERROR, "pgbench_lab: \"%s\" returned no row", call);
	values[1] = Int64GetDatum(get_int8(SPI_fnumber(SPI_tuptable->tupdesc, "run_id")));
	types[1] = INT8OID;
	values[2] = Int32GetDatum(variant);
	values[3] = Int32GetDatum(round);
	select_one("SELECT pgbench_lab.experiment_add($1, $2, $3, $4)", 4, types, values, NULL);
}

/* Plan, run every step, end the experiment and return its findings. */
static Datum
run_experiment(FunctionCallInfo fcinfo, const ExperimentProc *proc)
{
	MemoryContext cxt = CurrentMemoryContext;
	CallContext *ctx = (CallContext *) fcinfo->context;
	Datum		values[PGBL_EXPERIMENT_MAX_ARGS];
	char		nulls[PGBL_EXPERIMENT_MAX_ARGS];
	Oid			type = INT8OID;
	Datum		id;
	int64		experiment_id;
	int64		steps;
	Datum		result;

	if (ctx == NULL || !IsA(ctx, CallContext) || ctx->atomic)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TRANSACTION_TERMINATION),
				 errmsg("%s must be called with CALL outside a transaction block", proc->name),
				 errhint("Each of its runs commits before it waits, so that no snapshot is held during the runs.")));
	for (int i = 0; i < proc->nargs; i++)
	{
		values[i] = PG_ARGISNULL(i) ? (Datum) 0 : PG_GETARG_DATUM(i);
		nulls[i] = PG_ARGISNULL(i) ? 'n' : ' ';
	}

	if (SPI_connect_ext(SPI_OPT_NONATOMIC) != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	check_settings(proc, values, nulls);
	select_one(proc->plan_sql, proc->nargs, (Oid *) proc->argtypes, values, nulls);
	experiment_id = get_int8(1);
	steps = get_int8(2);
	id = Int64GetDatum(experiment_id);

	for (int32 step = 1; step <= steps; step++)
	{
		CHECK_FOR_INTERRUPTS();
		run_step(experiment_id, step);
	}

	select_one("SELECT pgbench_lab.experiment_end($1)", 1, &type, &id, NULL);
	select_one(proc->final_sql, 1, &type, &id, NULL);
	result = RunnerCallResult(fcinfo, cxt);
	SPI_finish();
	return result;
}

/*
 * CALL pgbench_lab.sweep(workload text, clients int[], duration interval,
 *                        label text, settings jsonb, INOUT experiment_id,
 *                        INOUT peak_clients, INOUT peak_tps,
 *                        INOUT knee_clients, INOUT finding)
 */
Datum
pgbench_lab_sweep(PG_FUNCTION_ARGS)
{
	return run_experiment(fcinfo, &sweep_proc);
}

/*
 * CALL pgbench_lab.compare_settings(workload text, settings jsonb[],
 *                                   clients int, duration interval,
 *                                   rounds int, label text,
 *                                   INOUT experiment_id, INOUT finding)
 */
Datum
pgbench_lab_compare_settings(PG_FUNCTION_ARGS)
{
	return run_experiment(fcinfo, &settings_proc);
}
