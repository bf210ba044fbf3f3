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
#include "script_run.h"
#include "secure.h"

PG_FUNCTION_INFO_V1(pgbench_lab_experiment);

/* The names version 0.1's install script binds its procedures to. */
PG_FUNCTION_INFO_V1(pgbench_lab_sweep);
PG_FUNCTION_INFO_V1(pgbench_lab_compare_settings);
PG_FUNCTION_INFO_V1(pgbench_lab_connection_cost);

#define PGBL_EXPERIMENT_MAX_ARGS 32

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

static bool
has_arg(char **names, int n, const char *name)
{
	for (int i = 0; names != NULL && i < n; i++)
		if (names[i] != NULL && strcmp(names[i], name) == 0)
			return true;
	return false;
}

/*
 * The planner's jsonb.  It is called in named notation with those of the
 * procedure's input arguments (IN or INOUT) that it declares, and caller,
 * the facts only the caller's session can tell: the pgbench_accounts its
 * search_path finds, looked up here as run() looks up pgbench's tables.
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
	Oid			argtypes[PGBL_EXPERIMENT_MAX_ARGS];
	Datum		values[PGBL_EXPERIMENT_MAX_ARGS];
	char		nulls[PGBL_EXPERIMENT_MAX_ARGS];
	StringInfoData named;
	int			n = 0;
	bool		isnull;

	initStringInfo(&named);
	for (int i = 0; i < nall && names != NULL && n < PGBL_EXPERIMENT_MAX_ARGS; i++)
	{
		if ((modes != NULL && modes[i] == PROARGMODE_OUT) || !has_arg(pnames, pn, names[i]))
			continue;
		argtypes[n] = types[i];
		values[n] = fcinfo->args[i].value;
		nulls[n] = fcinfo->args[i].isnull ? 'n' : ' ';
		appendStringInfo(&named, "%s => $%d, ", quote_identifier(names[i]), ++n);
	}
	if (SPI_execute_with_args(psprintf("SELECT %s.%s(%scaller => pg_catalog.jsonb_build_object("
									   "'accounts', pg_catalog.to_regclass('pgbench_accounts')"
									   "::pg_catalog.oid))",
									   kind->planner.schema, kind->planner.name, named.data),
							  n, argtypes, values, nulls, false, 1) != SPI_OK_SELECT ||
		SPI_processed != 1)
		elog(ERROR, "the planner of %s returned no row", kind->procedure);
	values[0] = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	if (isnull)
		elog(ERROR, "the planner of %s returned no plan", kind->procedure);
	return values[0];
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
		/* a two-phase plan writes set B's values and waits for a restart */
		if (plan.restart != NULL)
			ExperimentWaitForRestart(&plan, saved);
		else if (saved != NULL)
			SettingsRestore(saved);
	}
	PG_CATCH();
	{
		if (saved != NULL)
			ExperimentRestoreInError(cxt, saved);
		PG_RE_THROW();
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
		ExperimentEnd(experiment_id);
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
