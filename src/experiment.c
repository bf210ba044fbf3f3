/*-------------------------------------------------------------------------
 *
 * experiment.c
 *		One driver for every kind of experiment: many runs made one after
 *		the other and recorded as one experiment.  This file is the
 *		procedure every kind is bound to and its planner's call; the steps
 *		are read, checked, run and recorded by experiment_steps.c, and a
 *		two-phase plan waits for its restart in experiment_restart.c.
 *
 * A kind is a row of pgbench_lab.experiment_kinds: its procedure (bound to
 * pgbench_lab_experiment() below), a planner, an optional preparation, an
 * optional finding and a report function, all SQL.  The driver finds its
 * row by the oid of the procedure that was called, and then:
 *
 *	1. plans: the planner gets the procedure's IN arguments and a jsonb of
 *	   what only the caller's session can tell (which pgbench_accounts its
 *	   search_path finds), checks them and returns the plan: the workload,
 *	   label and parameters to record, and the steps, each with the
 *	   arguments of its run() and what its preparation needs;
 *	2. checks every step's run as run() will check it (RunnerPrepare: the
 *	   workload, clients, duration, label, every setting, the target),
 *	   so that nothing is recorded or started when any step would fail;
 *	3. records the experiment, then for each step that has a "prepare"
 *	   calls the preparation (its text becomes a NOTICE) and commits;
 *	   for every step, launches its run from the step's run specification
 *	   and waits for it, as run() does (RunnerRun), and links the run;
 *	4. ends the experiment and returns the finding function's columns as
 *	   the procedure's INOUT columns of the same names.
 *
 * A plan with "restart" (compare_settings with restart_settings) runs its
 * phase-1 steps, then waits for a restart; resume() runs the phase-2 steps
 * (experiment_restart.c).
 *
 * run() commits before it waits, so the driver runs non-atomically and
 * holds no snapshot between or during runs; that is also why the kinds'
 * procedures are C and not SQL with a SET clause.  Every function of a kind
 * is called by its schema-qualified name, built from the catalog.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/regproc.h"
#include "utils/syscache.h"

#include "experiment_restart.h"
#include "experiment_steps.h"
#include "pgbench_lab.h"
#include "run_spec.h"
#include "script_area.h"
#include "secure.h"

PG_FUNCTION_INFO_V1(pgbench_lab_experiment);

/* The names version 0.1's install script binds its procedures to. */
PG_FUNCTION_INFO_V1(pgbench_lab_sweep);
PG_FUNCTION_INFO_V1(pgbench_lab_compare_settings);
PG_FUNCTION_INFO_V1(pgbench_lab_connection_cost);

/* The arguments of a function: names, types, modes (NULL: all IN). */
static int
function_args(Oid fn, Oid **types, char ***names, char **modes)
{
	HeapTuple	proc = SearchSysCache1(PROCOID, ObjectIdGetDatum(fn));
	int			n;

	if (!HeapTupleIsValid(proc))
		elog(ERROR, "cache lookup failed for function %u", fn);
	n = get_func_arg_info(proc, types, names, modes);
	ReleaseSysCache(proc);
	return n;
}

/* The position of the argument named so, or -1. */
static int
arg_named(char **names, int n, const char *name)
{
	for (int i = 0; names != NULL && i < n; i++)
		if (names[i] != NULL && strcmp(names[i], name) == 0)
			return i;
	return -1;
}

/*
 * An interval option's value as the planners write an interval into a
 * step (their SET intervalstyle = 'postgres'): '00:00:00.01', whatever the
 * caller's IntervalStyle, so that the params recorded do not depend on it.
 */
static Datum
interval_text(Datum value)
{
	int			style = IntervalStyle;
	char	   *text;

	IntervalStyle = INTSTYLE_POSTGRES;
	PG_TRY();
	{
		text = DatumGetCString(DirectFunctionCall1(interval_out, value));
	}
	PG_FINALLY();
	{
		IntervalStyle = style;
	}
	PG_END_TRY();
	return CStringGetTextDatum(text);
}

/* Whether a type is pgbench_lab.rounds (a count, or 0 for 'auto'). */
static bool
is_rounds_type(Oid type)
{
	HeapTuple	tup = SearchSysCache1(TYPEOID, ObjectIdGetDatum(type));
	bool		is;

	if (!HeapTupleIsValid(tup))
		return false;
	is = strcmp(NameStr(((Form_pg_type) GETSTRUCT(tup))->typname), "rounds") == 0 &&
		strcmp(get_namespace_name(((Form_pg_type) GETSTRUCT(tup))->typnamespace), "pgbench_lab") == 0;
	ReleaseSysCache(tup);
	return is;
}

/* The SQL that calls the planner, and its parameters. */
typedef struct PlannerCall
{
	StringInfoData args;		/* "name => $1, " ... */
	StringInfoData options;		/* "'name', $2, " ... */
	int			n;
	Oid		   *types;
	Datum	   *values;
	char	   *nulls;
} PlannerCall;

static int
add_param(PlannerCall *call, Oid type, Datum value, bool isnull)
{
	call->types[call->n] = type;
	call->values[call->n] = value;
	call->nulls[call->n] = isnull ? 'n' : ' ';
	return ++call->n;
}

/*
 * The planner's jsonb.  It is called in named notation with:
 *
 *	- those of the procedure's input arguments (IN or INOUT) that it
 *	  declares, by the same names;
 *	- options, when it declares one: the procedure's other input arguments
 *	  that are named as a run option (RunOptions[], of the option's type),
 *	  as one jsonb object of those not NULL, by their names (a jsonb value
 *	  kept as given, an interval as its text, any other as to_jsonb()
 *	  writes it), with via 'libpq' when they have a target or targets and
 *	  no via.  A kind's procedure declares the run options it takes (the
 *	  build writes them: sql/run_options.awk), and its planner merges the
 *	  object into each step's run: a new option reaches every kind without
 *	  a word of the kind's;
 *	- caller, the facts only the caller's session can tell: the
 *	  pgbench_accounts its search_path finds, looked up here as run() looks
 *	  up pgbench's tables.
 */
static Datum
call_planner(FunctionCallInfo fcinfo, const ExperimentKind *kind)
{
	Oid		   *types;
	char	  **names;
	char	   *modes;
	int			nall = function_args(fcinfo->flinfo->fn_oid, &types, &names, &modes);
	Oid		   *ptypes;
	char	  **pnames;
	char	   *pmodes;
	int			pn = function_args(kind->planner_oid, &ptypes, &pnames, &pmodes);
	int			popt = arg_named(pnames, pn, "options");
	bool		given[RUN_NOPTS] = {0};
	PlannerCall call;
	bool		isnull;
	Datum		plan;

	if (popt >= 0 && ptypes[popt] != JSONBOID)
		elog(ERROR, "the planner of %s declares options of type %s, not jsonb",
			 kind->procedure, format_type_be(ptypes[popt]));
	initStringInfo(&call.args);
	initStringInfo(&call.options);
	call.n = 0;
	/* at most one parameter an argument, and via */
	call.types = palloc((nall + 1) * sizeof(Oid));
	call.values = palloc((nall + 1) * sizeof(Datum));
	call.nulls = palloc((nall + 1) * sizeof(char));
	for (int i = 0; i < nall && names != NULL; i++)
	{
		int			o;

		if ((modes != NULL && modes[i] == PROARGMODE_OUT) || names[i] == NULL || names[i][0] == '\0')
			continue;
		if ((o = arg_named(pnames, pn, names[i])) >= 0)
		{
			Oid			type = types[i];

			/*
			 * rounds (pgbench_lab.rounds) to a planner that takes a count:
			 * its kind has no verdict that calls for more rounds
			 */
			if (ptypes[o] == INT4OID && type != INT4OID && is_rounds_type(type))
			{
				if (!fcinfo->args[i].isnull && DatumGetInt32(fcinfo->args[i].value) == 0)
					ereport(ERROR,
							(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
							 errmsg("%s takes a count of rounds, not 'auto'", kind->procedure),
							 errhint("Give a count, such as rounds => 6; rounds => 'auto' is for "
									 "compare_settings() and validate_recommendation(), which add "
									 "rounds until their verdicts settle.")));
				type = INT4OID;
			}
			appendStringInfo(&call.args, "%s => $%d, ", quote_identifier(names[i]),
							 add_param(&call, type, fcinfo->args[i].value, fcinfo->args[i].isnull));
			continue;
		}
		if (popt < 0 || (o = RunOptionNamed(names[i])) < 0)
			continue;
		if (types[i] != RunOptions[o].type)
			elog(ERROR, "argument %s of %s is of type %s, and the run option of that name of type %s",
				 names[i], kind->procedure, format_type_be(types[i]), format_type_be(RunOptions[o].type));
		if (fcinfo->args[i].isnull)
			continue;
		given[o] = true;
		if (types[i] == INTERVALOID)
			appendStringInfo(&call.options, "%s, $%d, ", quote_literal_cstr(names[i]),
							 add_param(&call, TEXTOID, interval_text(fcinfo->args[i].value), false));
		else
			appendStringInfo(&call.options, "%s, $%d, ", quote_literal_cstr(names[i]),
							 add_param(&call, types[i], fcinfo->args[i].value, false));
	}
	/* the runs go to a target over libpq, as run() would be told */
	if (!given[RUN_OPT_VIA] && (given[RUN_OPT_TARGET] || given[RUN_OPT_TARGETS]))
		appendStringInfo(&call.options, "'via', $%d, ",
						 add_param(&call, TEXTOID, CStringGetTextDatum("libpq"), false));
	if (popt >= 0)
	{
		/* drop the last ", " */
		if (call.options.len > 0)
			call.options.data[call.options.len -= 2] = '\0';
		appendStringInfo(&call.args, "options => pg_catalog.jsonb_build_object(%s), ", call.options.data);
	}
	if (SPI_execute_with_args(psprintf("SELECT %s.%s(%scaller => pg_catalog.jsonb_build_object("
									   "'accounts', pg_catalog.to_regclass('pgbench_accounts')"
									   "::pg_catalog.oid))",
									   kind->planner.schema, kind->planner.name, call.args.data),
							  call.n, call.types, call.values, call.nulls, false, 1) != SPI_OK_SELECT ||
		SPI_processed != 1)
		elog(ERROR, "the planner of %s returned no row", kind->procedure);
	plan = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	if (isnull)
		elog(ERROR, "the planner of %s returned no plan", kind->procedure);
	return plan;
}

/*
 * A plan's "keep": the function (a regprocedure's text, the kind's own,
 * called with the experiment's id) that says which settings to keep with
 * ALTER SYSTEM once the experiment has ended and its file was put back
 * (tune(apply => true): a winner decided faster), or NULL for none.
 */
static void
keep_settings(const ExperimentPlan *plan, int64 experiment_id)
{
	Oid			types[2] = {JSONBOID, INT8OID};
	Datum		values[2] = {plan->plan, Int64GetDatum(experiment_id)};
	bool		isnull;
	Datum		keep;
	FunctionName fn;

	if (SPI_execute_with_args("SELECT pg_catalog.to_regprocedure($1 OPERATOR(pg_catalog.->>) 'keep')::pg_catalog.oid",
							  1, types, values, NULL, true, 1) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "could not read an experiment's plan");
	keep = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	if (isnull)
		return;
	fn = ExperimentFunctionName(DatumGetObjectId(keep));
	if (SPI_execute_with_args(psprintf("SELECT %s.%s($1)", fn.schema, fn.name),
							  1, &types[1], &values[1], NULL, false, 1) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "could not call %s.%s", fn.schema, fn.name);
	keep = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	if (!isnull)
		SettingsKeep(DatumGetJsonbP(keep));
	SPI_commit();
}

/*
 * CALL pgbench_lab.<kind>(...): the procedure of every experiment kind.
 */

Datum
pgbench_lab_experiment(PG_FUNCTION_ARGS)
{
	MemoryContext cxt = CurrentMemoryContext;
	CallContext *ctx = (CallContext *) fcinfo->context;
	bool		atomic = ctx == NULL || !IsA(ctx, CallContext) || ctx->atomic;
	ExperimentKind kind;
	ExperimentPlan plan;
	int64		experiment_id;
	Datum		result;
	AutoConfSaved *volatile saved = NULL;

	/* everything is checked first, even where it could not then run */
	if (SPI_connect_ext(atomic ? 0 : SPI_OPT_NONATOMIC) != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	kind = ExperimentReadKind(fcinfo->flinfo->fn_oid, cxt);
	plan = ExperimentReadPlan(call_planner(fcinfo, &kind), cxt);
	if (plan.restart != NULL)
		SettingsCheckRestart(plan.restart);
	if (plan.has_system || plan.restart != NULL)
		SettingsCheckBusy();
	SettingsCheckPending(plan.has_system, plan.restart);
	ExperimentCheckSteps(&kind, &plan);
	if (atomic)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TRANSACTION_TERMINATION),
				 errmsg("%s must be called with CALL outside a transaction block", kind.procedure),
				 errhint("Each of its runs commits before it waits, so that no snapshot is held during the runs.")));

	ExperimentRecoverSettings();
	experiment_id = ExperimentBegin(&kind, &plan);
	if (plan.has_system)
		saved = SettingsSave(experiment_id, plan.system_names);
	else if (plan.restart != NULL)
		saved = SettingsSave(experiment_id, plan.restart_names);
	/*
	 * Committed before anything changes, and so that the session holds no
	 * xid while the first run starts (a run's launch waits for its workers
	 * before run() commits).
	 */
	SPI_commit();
	PG_TRY();
	{
		ExperimentRunSteps(&kind, &plan, experiment_id, saved, plan.restart != NULL ? 1 : 0);
		if (plan.restart == NULL)
			ExperimentRunExtensions(&kind, &plan, experiment_id, saved, cxt);
		/* a two-phase plan writes set B's values and waits for a restart */
		if (plan.restart != NULL)
			ExperimentWaitForRestart(&plan, saved);
		else
		{
			if (saved != NULL)
				SettingsRestore(saved);
			ExperimentEnd(experiment_id);
			SPI_commit();
		}
	}
	PG_CATCH();
	{
		/* settings put back, the row marked aborted now; the error goes on */
		ExperimentAbortInError(cxt, experiment_id, saved);
	}
	PG_END_TRY();
	if (saved != NULL)
		SettingsFree(saved);
	if (plan.restart != NULL)
	{
		SPI_commit();
		ereport(NOTICE,
				(errmsg("restart the server, then CALL pgbench_lab.resume(" INT64_FORMAT ")", experiment_id),
				 errdetail("Set A ran its rounds; set B's restart-level settings are written to "
						   "postgresql.auto.conf with ALTER SYSTEM and take effect at the restart.")));
	}
	else
		keep_settings(&plan, experiment_id);
	result = ExperimentResultRow(fcinfo, &kind, experiment_id, cxt);
	SPI_finish();
	return result;
}

/*
 * Version 0.1's install script binds sweep(), compare_settings() and
 * connection_cost() to these names, and its SQL around them is not the
 * driver's: until ALTER EXTENSION pgbench_lab UPDATE, they refuse clearly
 * (0.1 can still be installed, its runs, reports and recordings work, and
 * updated).
 */
static Datum
needs_update(FunctionCallInfo fcinfo)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("%s.%s() of pgbench_lab 0.1 cannot run with the library of version %s",
					ExperimentFunctionName(fcinfo->flinfo->fn_oid).schema,
					ExperimentFunctionName(fcinfo->flinfo->fn_oid).name, PGBL_VERSION),
			 errhint("Run ALTER EXTENSION pgbench_lab UPDATE.")));
	pg_unreachable();
}

Datum
pgbench_lab_sweep(PG_FUNCTION_ARGS)
{
	return needs_update(fcinfo);
}

Datum
pgbench_lab_compare_settings(PG_FUNCTION_ARGS)
{
	return needs_update(fcinfo);
}

Datum
pgbench_lab_connection_cost(PG_FUNCTION_ARGS)
{
	return needs_update(fcinfo);
}
