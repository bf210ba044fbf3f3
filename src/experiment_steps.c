/*-------------------------------------------------------------------------
 *
 * experiment_steps.c
 *		An experiment's steps: its kind and plan read, every step checked
 *		before anything starts, each prepared, run and linked in turn, the
 *		experiment recorded and ended, and its finding returned; for the
 *		driver (experiment.c) and for the second phase after a restart
 *		(experiment_restart.c).
 *
 * A step's "run" is a run specification (RunSpecFromJsonb): checked as
 * run() checks it and launched and waited for as run() does (RunnerRun),
 * with no SQL text built to call run().  Its run is linked to the
 * experiment unless the step says "counted": false (a warm-up before the
 * first round, which no verdict reads: it stays a run of its own).  The experiment's rows are written
 * through pgbench_lab_internal's writers, one per moment of its life
 * (begun, a run linked, ended), as the extension's owner on the caller's
 * behalf.  A long plan says how it goes (progress.c).
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
#include "utils/timestamp.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/regproc.h"
#include "utils/syscache.h"

#include "experiment_steps.h"
#include "progress.h"
#include "pgbench_lab.h"
#include "script_run.h"
#include "secure.h"

FunctionName
ExperimentFunctionName(Oid fn)
{
	FunctionName f = {quote_identifier(get_namespace_name(get_func_namespace(fn))),
	quote_identifier(get_func_name(fn))};

	return f;
}

static FunctionName
optional_function(HeapTuple row, TupleDesc desc, int col)
{
	bool		isnull;
	Datum		d = SPI_getbinval(row, desc, col, &isnull);
	FunctionName none = {NULL, NULL};

	return isnull ? none : ExperimentFunctionName(DatumGetObjectId(d));
}

/* Whether a table of pgbench_lab has a column (an older install script's may not). */
static bool
has_column(const char *table, const char *column)
{
	Oid			types[2] = {TEXTOID, TEXTOID};
	Datum		values[2] = {CStringGetTextDatum(table), CStringGetTextDatum(column)};

	if (SPI_execute_with_args("SELECT FROM pg_catalog.pg_attribute a "
							  "JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) a.attrelid "
							  "JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace "
							  "WHERE n.nspname OPERATOR(pg_catalog.=) 'pgbench_lab' "
							  "AND c.relname OPERATOR(pg_catalog.=) $1::pg_catalog.name "
							  "AND a.attname OPERATOR(pg_catalog.=) $2::pg_catalog.name "
							  "AND NOT a.attisdropped",
							  2, types, values, NULL, true, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not look up column %s of pgbench_lab.%s", column, table);
	return SPI_processed == 1;
}

/* The kind whose procedure is fn, or an error. */
ExperimentKind
ExperimentReadKind(Oid fn, MemoryContext cxt)
{
	Oid			type = OIDOID;
	Datum		value = ObjectIdGetDatum(fn);
	MemoryContext old;
	ExperimentKind k;
	FunctionName name;
	bool		isnull;

	/* extend is read where the table has it (0.2's install script has not) */
	if (SPI_execute_with_args(has_column("experiment_kinds", "extend") ?
							  "SELECT k.kind, k.planner, k.preparation, k.finding, k.extend "
							  "FROM pgbench_lab.experiment_kinds k "
							  "WHERE k.procedure::pg_catalog.oid OPERATOR(pg_catalog.=) $1" :
							  "SELECT k.kind, k.planner, k.preparation, k.finding, NULL::pg_catalog.regprocedure "
							  "FROM pgbench_lab.experiment_kinds k "
							  "WHERE k.procedure::pg_catalog.oid OPERATOR(pg_catalog.=) $1",
							  1, &type, &value, NULL, true, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not read pgbench_lab.experiment_kinds");
	if (SPI_processed != 1)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("procedure %s is not an experiment kind", format_procedure(fn)),
				 errhint("pgbench_lab.experiment_kinds lists the kinds and their procedures.")));
	old = MemoryContextSwitchTo(cxt);
	name = ExperimentFunctionName(fn);
	k.kind = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
	k.procedure = psprintf("%s.%s()", name.schema, name.name);
	k.planner_oid = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull));
	k.planner = ExperimentFunctionName(k.planner_oid);
	k.preparation = optional_function(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 3);
	k.finding = optional_function(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 4);
	k.extend = optional_function(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 5);
	MemoryContextSwitchTo(old);
	return k;
}

/* One row of the steps query into an ExperimentStep, copied into cxt. */
static void
read_step(HeapTuple row, TupleDesc desc, ExperimentStep *s)
{
	bool		isnull;
	Datum		d;

	s->variant = DatumGetInt32(SPI_getbinval(row, desc, 1, &isnull));
	if (isnull)
		elog(ERROR, "a step of an experiment's plan has no variant");
	s->round = DatumGetInt32(SPI_getbinval(row, desc, 2, &isnull));
	if (isnull)
		s->round = 1;
	s->name = SPI_getvalue(row, desc, 3);
	s->about = SPI_getvalue(row, desc, 4);
	s->step = datumCopy(SPI_getbinval(row, desc, 5, &isnull), false, -1);
	d = SPI_getbinval(row, desc, 6, &isnull);
	s->run = isnull ? NULL : DatumGetJsonbPCopy(d);
	d = SPI_getbinval(row, desc, 8, &isnull);
	s->system = isnull ? NULL : DatumGetJsonbPCopy(d);
	s->phase = DatumGetInt32(SPI_getbinval(row, desc, 9, &isnull));
	s->prepare = DatumGetBool(SPI_getbinval(row, desc, 10, &isnull));
	s->counted = DatumGetBool(SPI_getbinval(row, desc, 11, &isnull));
}

/* The plan's steps and flags, kept in cxt across the runs' commits. */
ExperimentPlan
ExperimentReadPlan(Datum plan, MemoryContext cxt)
{
	Oid			type = JSONBOID;
	ExperimentPlan p;
	MemoryContext old;
	bool		isnull;
	Datum		d;

	if (SPI_execute_with_args("SELECT (s.v OPERATOR(pg_catalog.->>) 'variant')::pg_catalog.int4, "
							  "(s.v OPERATOR(pg_catalog.->>) 'round')::pg_catalog.int4, "
							  "s.v OPERATOR(pg_catalog.->>) 'name', s.v OPERATOR(pg_catalog.->>) 'about', s.v, "
							  "s.v OPERATOR(pg_catalog.->) 'run', "
							  "COALESCE(($1 OPERATOR(pg_catalog.->>) 'stop_on_failure')::pg_catalog.bool, false), "
							  "s.v OPERATOR(pg_catalog.->) 'system', "
							  "COALESCE((s.v OPERATOR(pg_catalog.->>) 'phase')::pg_catalog.int4, 0), "
							  "s.v OPERATOR(pg_catalog.?) 'prepare', "
							  "COALESCE((s.v OPERATOR(pg_catalog.->>) 'counted')::pg_catalog.bool, true) "
							  "FROM pg_catalog.jsonb_array_elements($1 OPERATOR(pg_catalog.->) 'steps') "
							  "WITH ORDINALITY AS s(v, i) ORDER BY s.i",
							  1, &type, &plan, NULL, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read the steps of an experiment's plan");
	old = MemoryContextSwitchTo(cxt);
	p.plan = datumCopy(plan, false, -1);
	p.checked = NULL;
	p.nsteps = (int) SPI_processed;
	p.steps = palloc0(sizeof(ExperimentStep) * Max(p.nsteps, 1));
	for (int i = 0; i < p.nsteps; i++)
	{
		read_step(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, &p.steps[i]);
		if (p.steps[i].about == NULL)
			p.steps[i].about = psprintf("step %d", i + 1);
	}
	MemoryContextSwitchTo(old);
	/* the plan's flag, repeated on every step's row */
	p.stop_on_failure = p.nsteps > 0 &&
		DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 7, &isnull));
	/* the reload-level settings any step changes; the restart-level ones */
	if (SPI_execute_with_args("SELECT ARRAY(SELECT pg_catalog.jsonb_array_elements_text("
							  "COALESCE($1 OPERATOR(pg_catalog.->) 'system_names', '[]'))), "
							  "$1 OPERATOR(pg_catalog.->) 'restart', "
							  "ARRAY(SELECT k FROM pg_catalog.jsonb_object_keys(CASE WHEN pg_catalog.jsonb_typeof("
							  "$1 OPERATOR(pg_catalog.->) 'restart') OPERATOR(pg_catalog.=) 'object' "
							  "THEN $1 OPERATOR(pg_catalog.->) 'restart' END) AS k ORDER BY k)",
							  1, &type, &plan, NULL, true, 1) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "could not read the settings of an experiment's plan");
	old = MemoryContextSwitchTo(cxt);
	p.system_names = datumCopy(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull),
							   false, -1);
	d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull);
	p.restart = isnull ? NULL : DatumGetJsonbPCopy(d);
	p.restart_names = datumCopy(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 3, &isnull),
								false, -1);
	MemoryContextSwitchTo(old);
	p.has_system = ArrayGetNItems(ARR_NDIM(DatumGetArrayTypeP(p.system_names)),
								  ARR_DIMS(DatumGetArrayTypeP(p.system_names))) > 0;
	return p;
}

/*
 * A step's run options: its "run" object, labelled, when it gives no
 * label, "<kind> <experiment>: <step name>".
 */
static void
step_spec(const ExperimentKind *kind, const ExperimentStep *s, int64 experiment_id, RunSpec *spec)
{
	RunSpecFromJsonb(s->run, spec);
	if (RunSpecIsNull(spec, RUN_OPT_LABEL) && s->name != NULL)
		RunSpecSet(spec, RUN_OPT_LABEL,
				   CStringGetTextDatum(psprintf("%s " INT64_FORMAT ": %s",
												kind->kind, experiment_id, s->name)), false);
}

typedef struct CheckContext
{
	const char *about;
	const char *procedure;
	const char *checked;
} CheckContext;

static void
check_context(void *arg)
{
	CheckContext *c = (CheckContext *) arg;

	errcontext("%s of %s, checked %s", c->about, c->procedure, c->checked);
}

/*
 * Every step's run checked as run() checks it, before anything is recorded:
 * a bad setting in the last step must not stop the experiment halfway.
 */
void
ExperimentCheckSteps(const ExperimentKind *kind, const ExperimentPlan *plan)
{
	bool		any_system = false;
	CheckContext c = {NULL, kind->procedure, plan->checked ? plan->checked : "before its first run"};
	ErrorContextCallback callback = {error_context_stack, check_context, &c};

	error_context_stack = &callback;
	for (int i = 0; i < plan->nsteps; i++)
	{
		const ExperimentStep *s = &plan->steps[i];
		RunSpec		spec;

		CHECK_FOR_INTERRUPTS();
		c.about = s->about;
		step_spec(kind, s, PG_INT64_MAX, &spec);
		/* the settings first: a refused one means the step cannot run at all */
		SettingsCheckSystem(s->system, &any_system);
		if (!RunSpecIsNull(&spec, RUN_OPT_SETTINGS))
			SettingsCheckSession(DatumGetJsonbP(RunSpecDatum(&spec, RUN_OPT_SETTINGS)));
		ScriptSetupChecking = true;
		PG_TRY();
		{
			(void) RunnerPrepare(&spec);
		}
		PG_FINALLY();
		{
			ScriptSetupChecking = false;
		}
		PG_END_TRY();
	}
	/*
	 * A step's reload-level settings must be among the plan's names (they
	 * alone are saved and put back); a plan may list names that some of its
	 * batches do not change (tune: a batch of session knobs between
	 * reload-level ones), whose steps then run with the saved file.
	 */
	if (any_system && !plan->has_system)
		elog(ERROR, "the plan of %s lists its reload-level settings wrongly", kind->procedure);
	error_context_stack = callback.previous;
}

/* One SELECT through SPI that must return one row; its first column. */
static Datum
select_value(const char *sql, int nargs, Oid *types, Datum *values, bool *isnull)
{
	if (SPI_execute_with_args(sql, nargs, types, values, NULL, false, 1) != SPI_OK_SELECT ||
		SPI_processed != 1)
		elog(ERROR, "pgbench_lab: no row from \"%s\"", sql);
	return SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, isnull);
}

/* The preparation of a step, in a transaction of its own. */
static void
prepare_step(const ExperimentKind *kind, const ExperimentStep *s, int64 experiment_id)
{
	Oid			types[2] = {INT8OID, JSONBOID};
	Datum		values[2] = {Int64GetDatum(experiment_id), s->step};
	char	   *sql = psprintf("SELECT %s.%s($1, $2)",
								   kind->preparation.schema, kind->preparation.name);
	bool		isnull;
	Datum		said = select_value(sql, 2, types, values, &isnull);

	if (!isnull)
		ereport(NOTICE, (errmsg("%s", TextDatumGetCString(said))));
	SPI_commit();
}

/*
 * A step may ask a rate relative to an earlier step's measured TPS:
 * "rate_share": f and "rate_of": v give rate = f x the TPS of the run of
 * variant v (its first round), so that a plan can follow what this server
 * turns out to reach (latency_curve: shares of the maximum).  NULL when
 * the step asks no such rate.
 */
static NullableDatum
relative_rate(const ExperimentStep *s, int64 experiment_id)
{
	Oid			types[2] = {JSONBOID, INT8OID};
	Datum		values[2] = {s->step, Int64GetDatum(experiment_id)};
	NullableDatum rate = {(Datum) 0, true};
	bool		isnull;
	Datum		d;

	d = select_value("SELECT CASE WHEN $1 OPERATOR(pg_catalog.?) 'rate_share' THEN "
					 "COALESCE((SELECT ($1 OPERATOR(pg_catalog.->>) 'rate_share')::pg_catalog.float8 "
					 "OPERATOR(pg_catalog.*) r.tps FROM pgbench_lab.experiment_runs x "
					 "JOIN pgbench_lab.runs r ON r.run_id OPERATOR(pg_catalog.=) x.run_id "
					 "WHERE x.experiment_id OPERATOR(pg_catalog.=) $2 "
					 "AND x.variant OPERATOR(pg_catalog.=) ($1 OPERATOR(pg_catalog.->>) 'rate_of')::pg_catalog.int4 "
					 "ORDER BY x.round LIMIT 1), 0) END", 2, types, values, &isnull);
	if (isnull)
		return rate;
	if (DatumGetFloat8(d) <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("%s asks a share of a run's throughput, and that run measured none", s->about),
				 errhint("The run it is relative to committed no transactions: look at it with pgbench_lab.report().")));
	rate.value = d;
	rate.isnull = false;
	return rate;
}

/*
 * The step's run, launched and waited for as run() does (it commits before
 * it waits).  Returns the run id; with stop_on_failure, a run that did not
 * finish is an error.
 */
static int64
run_step(const ExperimentKind *kind, const ExperimentPlan *plan, const ExperimentStep *s, int64 experiment_id)
{
	RunSpec		spec;
	NullableDatum relative = relative_rate(s, experiment_id);
	Oid			type = INT8OID;
	Datum		id;
	int64		run_id;
	char	   *status;

	step_spec(kind, s, experiment_id, &spec);
	if (!relative.isnull)
		RunSpecSet(&spec, RUN_OPT_RATE, relative.value, false);
	run_id = RunnerRun(&spec);
	id = Int64GetDatum(run_id);
	if (SPI_execute_with_args("SELECT r.status, r.error FROM pgbench_lab.runs r "
							  "WHERE r.run_id OPERATOR(pg_catalog.=) $1",
							  1, &type, &id, NULL, true, 1) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "run " INT64_FORMAT " has no row", run_id);
	status = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
	if (plan->stop_on_failure && strcmp(status, "done") != 0)
	{
		char	   *error = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2);

		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("%s of %s (run " INT64_FORMAT ") ended %s",
						s->about, kind->procedure, run_id, status),
				 errdetail("%s", error ? error : "No error was recorded."),
				 errhint("The runs made so far are linked to experiment " INT64_FORMAT ".",
						 experiment_id)));
	}
	return run_id;
}

/* What a step's run measured, for its progress line: "run 42 done, 5123.4 tps". */
static char *
run_figures(int64 run_id)
{
	Oid			type = INT8OID;
	Datum		id = Int64GetDatum(run_id);
	char	   *out;

	if (SPI_execute_with_args("SELECT pg_catalog.format('run %s %s%s', r.run_id, r.status, "
							  "', ' OPERATOR(pg_catalog.||) pg_catalog.round(r.tps::pg_catalog.numeric, 1) "
							  "OPERATOR(pg_catalog.||) ' tps') FROM pgbench_lab.runs r "
							  "WHERE r.run_id OPERATOR(pg_catalog.=) $1",
							  1, &type, &id, NULL, true, 1) != SPI_OK_SELECT || SPI_processed != 1)
		return psprintf("run " INT64_FORMAT, run_id);
	out = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
	return out ? out : psprintf("run " INT64_FORMAT, run_id);
}

/*
 * A write of the experiment's record: one of the writers of 72_record.sql,
 * called by name as the extension's owner on behalf of the role running
 * the experiment (the first argument, which the writer checks).
 */
typedef struct RecordCall
{
	const char *sql;
	int			nargs;
	Oid			types[5];
	Datum		values[5];
	char		nulls[5];
	Datum		result;			/* by value: bigint, integer; text: copied */
	bool		isnull;
} RecordCall;

static void
record_as_owner(void *arg)
{
	RecordCall *c = (RecordCall *) arg;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (SPI_execute_with_args(c->sql, c->nargs, c->types, c->values, c->nulls, false, 1) != SPI_OK_SELECT ||
		SPI_processed != 1)
		elog(ERROR, "pgbench_lab: no row from \"%s\"", c->sql);
	c->result = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &c->isnull);
	if (!c->isnull)
		c->result = SPI_datumTransfer(c->result, TupleDescAttr(SPI_tuptable->tupdesc, 0)->attbyval,
									  TupleDescAttr(SPI_tuptable->tupdesc, 0)->attlen);
	SPI_finish();
}

/*
 * An install script older than these writers (0.2's, served until ALTER
 * EXTENSION UPDATE) records through its own SQL functions, which go
 * through record() as that version's record_as() expects.
 */
static bool
has_writers(void)
{
	if (SPI_execute("SELECT pg_catalog.to_regprocedure('pgbench_lab_internal.experiment_begin_as("
					"pg_catalog.regrole, pg_catalog.text, pg_catalog.text, pg_catalog.text, pg_catalog.jsonb)') "
					"IS NOT NULL", true, 1) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "could not look up pgbench_lab_internal.experiment_begin_as");
	return strcmp(SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1), "t") == 0;
}

/* The older writers: the same arguments but the caller, as the caller. */
static Datum
write_record_old(RecordCall *c, const char *sql)
{
	bool		isnull;

	if (SPI_execute_with_args(sql, c->nargs, c->types, c->values, c->nulls, false, 1) != SPI_OK_SELECT ||
		SPI_processed != 1)
		elog(ERROR, "pgbench_lab: no row from \"%s\"", sql);
	return SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
}

static Datum
write_record(RecordCall *c)
{
	/* the caller first, noted before becoming the owner */
	memmove(&c->types[1], &c->types[0], sizeof(Oid) * c->nargs);
	memmove(&c->values[1], &c->values[0], sizeof(Datum) * c->nargs);
	memmove(&c->nulls[1], &c->nulls[0], c->nargs);
	c->types[0] = OIDOID;
	c->values[0] = ObjectIdGetDatum(GetUserId());
	c->nulls[0] = ' ';
	c->nargs++;
	SecureAsOwner(record_as_owner, c);
	return c->result;
}

/* Record the experiment; its id. */
int64
ExperimentBegin(const ExperimentKind *kind, const ExperimentPlan *plan)
{
	Oid			types[1] = {JSONBOID};
	bool		isnull;
	RecordCall	c = {"SELECT pgbench_lab_internal.experiment_begin_as($1::pg_catalog.regrole, $2, $3, $4, $5)",
	4, {TEXTOID, TEXTOID, TEXTOID, JSONBOID}, {0}, "    "};

	/* the plan's workload, label and parameters */
	if (SPI_execute_with_args("SELECT $1 OPERATOR(pg_catalog.->>) 'workload', "
							  "$1 OPERATOR(pg_catalog.->>) 'label', "
							  "COALESCE($1 OPERATOR(pg_catalog.->) 'params', '{}')",
							  1, types, (Datum *) &plan->plan, NULL, true, 1) != SPI_OK_SELECT ||
		SPI_processed != 1)
		elog(ERROR, "could not read an experiment's plan");
	c.values[0] = CStringGetTextDatum(kind->kind);
	for (int i = 1; i < 4; i++)
	{
		c.values[i] = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, i, &isnull);
		c.nulls[i] = isnull ? 'n' : ' ';
	}
	if (!has_writers())
		return DatumGetInt64(write_record_old(&c, "SELECT pgbench_lab_internal.experiment_begin($1, $2, $3, $4)"));
	return DatumGetInt64(write_record(&c));
}

static void
link_run(int64 experiment_id, const ExperimentStep *s, int64 run_id)
{
	RecordCall	c = {"SELECT pgbench_lab_internal.experiment_add_as($1::pg_catalog.regrole, $2, $3, $4, $5)",
		4, {INT8OID, INT8OID, INT4OID, INT4OID},
	{Int64GetDatum(experiment_id), Int64GetDatum(run_id), Int32GetDatum(s->variant), Int32GetDatum(s->round)},
	"    "};

	if (!has_writers())
		(void) write_record_old(&c, "SELECT pgbench_lab_internal.experiment_add($1, $2, $3, $4)");
	else
		(void) write_record(&c);
}

/*
 * The procedure's INOUT row: each column from the finding's column of the
 * same name, experiment_id from the experiment if the finding has none.
 */
Datum
ExperimentResultRow(FunctionCallInfo fcinfo, const ExperimentKind *kind, int64 experiment_id, MemoryContext cxt)
{
	TupleDesc	desc;
	Datum	   *values;
	bool	   *nulls;
	TupleDesc	found = NULL;
	Oid			type = INT8OID;
	Datum		id = Int64GetDatum(experiment_id);
	HeapTuple	tuple;
	MemoryContext old;

	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	if (kind->finding.name != NULL)
	{
		if (SPI_execute_with_args(psprintf("SELECT * FROM %s.%s($1)",
										   kind->finding.schema, kind->finding.name),
								  1, &type, &id, NULL, false, 1) != SPI_OK_SELECT)
			elog(ERROR, "could not read the finding of %s", kind->procedure);
		if (SPI_processed == 1)
			found = SPI_tuptable->tupdesc;
	}
	old = MemoryContextSwitchTo(cxt);
	desc = BlessTupleDesc(CreateTupleDescCopy(desc));
	values = palloc0(sizeof(Datum) * desc->natts);
	nulls = palloc(sizeof(bool) * desc->natts);
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		int			col = found ? SPI_fnumber(found, NameStr(att->attname)) : SPI_ERROR_NOATTRIBUTE;

		nulls[i] = true;
		if (col > 0 && SPI_gettypeid(found, col) != att->atttypid)
			elog(ERROR, "column \"%s\" of the finding of %s has the wrong type",
				 NameStr(att->attname), kind->procedure);
		if (col > 0)
			values[i] = SPI_getbinval(SPI_tuptable->vals[0], found, col, &nulls[i]);
		else if (strcmp(NameStr(att->attname), "experiment_id") == 0 && att->atttypid == INT8OID)
		{
			values[i] = id;
			nulls[i] = false;
		}
		if (!nulls[i])
			values[i] = datumCopy(values[i], att->attbyval, att->attlen);
	}
	tuple = heap_form_tuple(desc, values, nulls);
	MemoryContextSwitchTo(old);
	return HeapTupleGetDatum(tuple);
}

/*
 * What experiments whose session is gone left changed with ALTER SYSTEM,
 * restored before this one starts, and said; committed.
 */
void
ExperimentRecoverSettings(void)
{
	ListCell   *lc;

	foreach(lc, SettingsRecover(false))
	{
		SettingsRecovered *r = (SettingsRecovered *) lfirst(lc);

		if (r->changed)
			ereport(NOTICE,
					(errmsg("settings changed by experiment " INT64_FORMAT " restored: %s",
							r->experiment_id, r->outcome),
					 errdetail("Its session ended before it could restore them (a crash or an immediate shutdown).")));
	}
	SPI_commit();
}

/*
 * The steps of one phase (0: a plan of one phase), one after the other,
 * each with its reload-level settings.
 */
/*
 * A step's planned seconds: its run's duration, or -1 when it has none (a
 * count of transactions).
 */
static double
step_seconds(const ExperimentKind *kind, const ExperimentStep *s, int64 experiment_id)
{
	RunSpec		spec;
	Interval   *iv;

	step_spec(kind, s, experiment_id, &spec);
	if (!RunSpecIsNull(&spec, RUN_OPT_TRANSACTIONS) || RunSpecIsNull(&spec, RUN_OPT_DURATION))
		return -1;
	iv = DatumGetIntervalP(RunSpecDatum(&spec, RUN_OPT_DURATION));
	return (double) iv->time / USECS_PER_SEC + (double) iv->day * SECS_PER_DAY +
		(double) iv->month * DAYS_PER_MONTH * SECS_PER_DAY;
}

/*
 * The steps of one phase (0: all of a one-phase plan), each prepared, run
 * and linked in turn, with commits between; a NOTICE as each starts and
 * ends once the plan is long enough (progress.c), weighing each step by
 * its planned seconds when every step has a duration.
 */
void
ExperimentRunSteps(const ExperimentKind *kind, const ExperimentPlan *plan, int64 experiment_id,
				   AutoConfSaved *saved, int32 phase)
{
	Progress	progress;
	double	   *seconds = palloc(sizeof(double) * Max(plan->nsteps, 1));
	double		planned = 0;
	int			nsteps = 0;
	int			k = 0;

	for (int i = 0; i < plan->nsteps; i++)
	{
		if (plan->steps[i].phase != phase)
			continue;
		nsteps++;
		seconds[i] = step_seconds(kind, &plan->steps[i], experiment_id);
		planned = planned >= 0 && seconds[i] >= 0 ? planned + seconds[i] : -1;
	}
	ProgressBegin(&progress, psprintf("%s()", kind->kind), nsteps, planned >= 0 ? planned : nsteps,
				  planned >= 0);
	for (int i = 0; i < plan->nsteps; i++)
	{
		const ExperimentStep *s = &plan->steps[i];
		int64		run_id;

		CHECK_FOR_INTERRUPTS();
		if (s->phase != phase)
			continue;
		k++;
		ProgressStep(&progress, k, planned >= 0 ? seconds[i] : 1, "%s", s->about ? s->about : "a run");
		if (saved != NULL && plan->has_system)
		{
			SettingsPut(saved, s->system);
			SPI_commit();
		}
		if (kind->preparation.name != NULL && s->prepare)
			prepare_step(kind, s, experiment_id);
		run_id = run_step(kind, plan, s, experiment_id);
		/* a warm-up ("counted": false) is recorded as a run of its own only */
		if (s->counted)
			link_run(experiment_id, s, run_id);
		ProgressStepDone(&progress, k, "%s", run_figures(run_id));
		/* nothing held while the next run starts: its launch waits for workers */
		SPI_commit();
	}
	ProgressEnd(&progress);
	pfree(seconds);
}

/*
 * The kind's extension, called after the planned steps and again after
 * each batch it adds (adaptive rounds, repeats of a step the verdict needs
 * more of), in a transaction of its own, until it returns NULL.  Its steps
 * join the plan's object (its flags and settings' names stay), are checked
 * as the plan's were, and run as they do.  Each batch is reported.
 */
void
ExperimentRunExtensions(const ExperimentKind *kind, const ExperimentPlan *plan, int64 experiment_id,
						AutoConfSaved *saved, MemoryContext cxt)
{
	Oid			types[2] = {INT8OID, JSONBOID};
	Datum		values[2] = {Int64GetDatum(experiment_id), plan->plan};
	char	   *sql;

	if (kind->extend.name == NULL)
		return;
	sql = psprintf("SELECT m OPERATOR(pg_catalog.->>) 'about', "
				   "$2 OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object('steps', m OPERATOR(pg_catalog.->) 'steps') "
				   "FROM %s.%s($1, $2) AS m WHERE m IS NOT NULL "
				   "AND pg_catalog.jsonb_typeof(m OPERATOR(pg_catalog.->) 'steps') OPERATOR(pg_catalog.=) 'array' "
				   "AND pg_catalog.jsonb_array_length(m OPERATOR(pg_catalog.->) 'steps') OPERATOR(pg_catalog.>) 0",
				   kind->extend.schema, kind->extend.name);
	for (;;)
	{
		ExperimentPlan more;
		char	   *about;
		bool		isnull;

		CHECK_FOR_INTERRUPTS();
		if (SPI_execute_with_args(sql, 2, types, values, NULL, false, 1) != SPI_OK_SELECT)
			elog(ERROR, "could not call the extension of %s", kind->procedure);
		if (SPI_processed == 0)
			break;
		about = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
		if (about != NULL)
			ereport(NOTICE, (errmsg("%s", about)));
		more = ExperimentReadPlan(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull), cxt);
		more.checked = "before the runs its extension added";
		ExperimentCheckSteps(kind, &more);
		SPI_commit();
		ExperimentRunSteps(kind, &more, experiment_id, saved, 0);
	}
	SPI_commit();
}

void
ExperimentEnd(int64 experiment_id)
{
	RecordCall	c = {"SELECT pgbench_lab_internal.experiment_end_as($1::pg_catalog.regrole, $2)",
	1, {INT8OID}, {Int64GetDatum(experiment_id)}, " "};

	if (!has_writers())
		(void) write_record_old(&c, "SELECT pgbench_lab_internal.experiment_end($1)");
	else
		(void) write_record(&c);
}
