/*-------------------------------------------------------------------------
 *
 * run_spec.c
 *		The run options, defined once, and the RunSpec built from a call of
 *		run() or start() or from an experiment step's jsonb.
 *
 * RunOptions[] is the one list of what a run takes (run_options.h): each option's name
 * (start()'s and run()'s argument, a step's key), SQL type, default,
 * the version it came in and a line of documentation.  A call is read by
 * position (its declaration may be an older install script's, whose tail
 * is shorter: an option it lacks takes its default); a step's jsonb is
 * read by key, each value converted to the option's type as its input
 * function reads it, and a key that names no option is refused.  The
 * checks of what the values mean stay with the parts that use them
 * (runner.c, client_libpq.c, script_setup.c), which read only a RunSpec.
 *
 * pgbench_lab.run_options() lists the table, so that SQL (planners, the
 * export's checks, the documentation) follows it; a test holds it equal to
 * start()'s declaration.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/json.h"
#include "utils/lsyscache.h"

#include "pgbench_lab.h"
#include "run_shared.h"
#include "run_spec.h"

PG_FUNCTION_INFO_V1(pgbench_lab_run_options);

const RunOption RunOptions[RUN_NOPTS] = {
#define RUN_OPTION(e, name, type, sqltype, dflt, since, doc) {#name, type, dflt, since, doc},
#include "run_options.h"
#undef RUN_OPTION
};

/* An option's default as a Datum of its type. */
static NullableDatum
option_default(RunOpt o)
{
	NullableDatum d = {(Datum) 0, true};
	Oid			input;
	Oid			ioparam;

	if (RunOptions[o].default_text == NULL)
		return d;
	getTypeInputInfo(RunOptions[o].type, &input, &ioparam);
	d.value = OidInputFunctionCall(input, (char *) RunOptions[o].default_text, ioparam, -1);
	d.isnull = false;
	return d;
}

/*
 * The options of a call of start() or run(): the head by position, the
 * tail from "tail" on (runner.h); an option the declaration called lacks
 * (an older install script's) takes its default.
 */
void
RunSpecFromCall(FunctionCallInfo fcinfo, int tail, RunSpec *spec)
{
	for (int o = 0; o < RUN_NOPTS; o++)
	{
		int			pos = o < RUN_OPT_HEAD ? o : tail + (o - RUN_OPT_HEAD);

		if (pos < PG_NARGS())
		{
			spec->value[o] = fcinfo->args[pos];
			spec->given[o] = true;
		}
		else
		{
			spec->value[o] = option_default((RunOpt) o);
			spec->given[o] = false;
		}
	}
}

/* The option named so, or -1. */
int
RunOptionNamed(const char *name)
{
	for (int o = 0; o < RUN_NOPTS; o++)
		if (strcmp(RunOptions[o].name, name) == 0)
			return o;
	return -1;
}

static char *
option_names(void)
{
	StringInfoData buf;

	initStringInfo(&buf);
	for (int o = 0; o < RUN_NOPTS; o++)
		appendStringInfo(&buf, "%s%s", o == 0 ? "" : o == RUN_NOPTS - 1 ? " and " : ", ",
						 RunOptions[o].name);
	return buf.data;
}

static const char *
json_kind(const JsonbValue *v)
{
	if (v->type == jbvBinary)
		return JsonContainerIsArray(v->val.binary.data) ? "a JSON array" : "a JSON object";
	return "a JSON scalar";
}

/*
 * Text through a type's input function; an error it raises says which
 * option it was, keeping its SQLSTATE.
 */
static Datum
input_value(RunOpt o, Oid type, char *text)
{
	MemoryContext cxt = CurrentMemoryContext;
	Oid			input;
	Oid			ioparam;
	Datum		d = (Datum) 0;

	getTypeInputInfo(type, &input, &ioparam);
	PG_TRY();
	{
		d = OidInputFunctionCall(input, text, ioparam, -1);
	}
	PG_CATCH();
	{
		ErrorData  *e;

		MemoryContextSwitchTo(cxt);
		e = CopyErrorData();
		FlushErrorState();
		ereport(ERROR,
				(errcode(e->sqlerrcode),
				 errmsg("run option \"%s\" must be of type %s: %s", RunOptions[o].name,
						format_type_be(RunOptions[o].type), e->message)));
	}
	PG_END_TRY();
	return d;
}

/* A JSON array (or an array literal in a string) as the option's array. */
static Datum
array_value(RunOpt o, JsonbValue *v)
{
	Oid			elem = get_element_type(RunOptions[o].type);
	JsonbIterator *it;
	JsonbValue	e;
	JsonbIteratorToken tok;
	Datum	   *items;
	bool	   *nulls;
	int			n = 0;
	int			dims[1];
	int			lbs[1] = {1};
	int16		len;
	bool		byval;
	char		align;

	if (v->type == jbvString)
		return input_value(o, RunOptions[o].type, pnstrdup(v->val.string.val, v->val.string.len));
	if (v->type != jbvBinary || !JsonContainerIsArray(v->val.binary.data))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("run option \"%s\" must be a JSON array, not %s", RunOptions[o].name, json_kind(v))));
	items = palloc(sizeof(Datum) * Max(JsonContainerSize(v->val.binary.data), 1));
	nulls = palloc(sizeof(bool) * Max(JsonContainerSize(v->val.binary.data), 1));
	it = JsonbIteratorInit(v->val.binary.data);
	while ((tok = JsonbIteratorNext(&it, &e, true)) != WJB_DONE)
	{
		char	   *text;

		if (tok != WJB_ELEM)
			continue;
		nulls[n] = e.type == jbvNull;
		items[n] = (Datum) 0;
		if (!nulls[n])
		{
			if ((text = PgblJsonScalarText(&e)) == NULL)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("run option \"%s\" must be an array of %s, not of JSON arrays or objects",
								RunOptions[o].name, format_type_be(elem))));
			items[n] = input_value(o, elem, text);
		}
		n++;
	}
	dims[0] = n;
	get_typlenbyvalalign(elem, &len, &byval, &align);
	return PointerGetDatum(construct_md_array(items, nulls, n > 0 ? 1 : 0, dims, lbs, elem,
											  len, byval, align));
}

/* One key's value as the option's type. */
static Datum
option_value(RunOpt o, JsonbValue *v)
{
	Oid			type = RunOptions[o].type;
	char	   *text;

	if (type == JSONBOID)
		return JsonbPGetDatum(JsonbValueToJsonb(v));
	if (type_is_array(type))
		return array_value(o, v);
	if ((text = PgblJsonScalarText(v)) == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("run option \"%s\" must be of type %s, not %s", RunOptions[o].name,
						format_type_be(type), json_kind(v))));
	return input_value(o, type, text);
}

/*
 * The options of an experiment step's run: its "run" object, each key an
 * option of run() by name; a key missing or null takes the option's
 * default, as run() called without it would.
 */
void
RunSpecFromJsonb(Jsonb *run, RunSpec *spec)
{
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;

	for (int o = 0; o < RUN_NOPTS; o++)
	{
		spec->value[o] = option_default((RunOpt) o);
		spec->given[o] = false;
	}
	if (run == NULL)
		return;
	if (!JB_ROOT_IS_OBJECT(run))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a step's run must be a JSON object of run options"),
				 errhint("For example {\"workload\": \"select-only\", \"clients\": 4}; "
						 "pgbench_lab.run_options() lists the options.")));
	it = JsonbIteratorInit(&run->root);
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		char	   *name;
		int			o;

		if (tok != WJB_KEY)
			continue;
		name = pnstrdup(v.val.string.val, v.val.string.len);
		if (JsonbIteratorNext(&it, &v, true) != WJB_VALUE)
			elog(ERROR, "a step's run: a key without a value");
		if ((o = RunOptionNamed(name)) < 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("unknown run option \"%s\"", name),
					 errhint("Valid run options are %s.", option_names())));
		if (v.type == jbvNull)
			continue;
		RunSpecSet(spec, (RunOpt) o, option_value((RunOpt) o, &v), false);
	}
}

/*
 * An array option as a JSON array (what array_value reads back): integers
 * as numbers, the rest as strings, NULL elements as null.
 */
static void
append_json_array(StringInfo buf, ArrayType *arr)
{
	Oid			elem = ARR_ELEMTYPE(arr);
	Datum	   *items;
	bool	   *nulls;
	int			n;
	int16		len;
	bool		byval;
	char		align;
	Oid			output;
	bool		isvarlena;

	get_typlenbyvalalign(elem, &len, &byval, &align);
	deconstruct_array(arr, elem, len, byval, align, &items, &nulls, &n);
	getTypeOutputInfo(elem, &output, &isvarlena);
	appendStringInfoChar(buf, '[');
	for (int i = 0; i < n; i++)
	{
		if (i > 0)
			appendStringInfoString(buf, ", ");
		if (nulls[i])
			appendStringInfoString(buf, "null");
		else if (elem == INT4OID || elem == INT8OID || elem == INT2OID)
			appendStringInfoString(buf, OidOutputFunctionCall(output, items[i]));
		else
			escape_json(buf, OidOutputFunctionCall(output, items[i]));
	}
	appendStringInfoChar(buf, ']');
}

/* One option's value as JSON: numbers and booleans as such, arrays as arrays, the rest as text. */
static void
append_json_value(StringInfo buf, RunOpt o, Datum value)
{
	Oid			type = RunOptions[o].type;
	Oid			output;
	bool		isvarlena;
	char	   *text;

	if (type == JSONBOID)
	{
		appendStringInfoString(buf, JsonbToCString(NULL, &DatumGetJsonbP(value)->root, 0));
		return;
	}
	if (type == BOOLOID)
	{
		appendStringInfoString(buf, DatumGetBool(value) ? "true" : "false");
		return;
	}
	if (type_is_array(type))
	{
		append_json_array(buf, DatumGetArrayTypeP(value));
		return;
	}
	getTypeOutputInfo(type, &output, &isvarlena);
	text = OidOutputFunctionCall(output, value);
	if (type == INT4OID || type == INT8OID || type == INT2OID ||
		(type == FLOAT8OID && isfinite(DatumGetFloat8(value))))
		appendStringInfoString(buf, text);
	else
		escape_json(buf, text);
}

/*
 * The options given (those not NULL) as one jsonb object, each under its
 * name: what RunSpecFromJsonb reads back into the same RunSpec, and what
 * runs.options records.
 */
Jsonb *
RunSpecToJsonb(const RunSpec *spec)
{
	StringInfoData buf;
	int			n = 0;

	initStringInfo(&buf);
	appendStringInfoChar(&buf, '{');
	for (int o = 0; o < RUN_NOPTS; o++)
	{
		if (!spec->given[o] || spec->value[o].isnull)
			continue;
		if (n++ > 0)
			appendStringInfoString(&buf, ", ");
		escape_json(&buf, RunOptions[o].name);
		appendStringInfoString(&buf, ": ");
		append_json_value(&buf, (RunOpt) o, spec->value[o].value);
	}
	appendStringInfoChar(&buf, '}');
	return DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(buf.data)));
}

/*
 * In any of a run's processes: the options it was started with, every one
 * as the launching session read it (RunShared.options_area), the rest at
 * their defaults.  An option that needs no field of its own in RunShared
 * is read here, by the process that uses it, in a transaction (the
 * options' types are read in the catalogs).
 */
void
RunSpecOfRun(const RunShared *run, RunSpec *spec)
{
	RunSpecFromJsonb(run->options_area != 0 ? (Jsonb *) ((const char *) run + run->options_area)
					 : NULL, spec);
}

/*
 * pgbench_lab.run_options() RETURNS TABLE (name text, type regtype,
 *   "default" text, since text, description text)
 */
Datum
pgbench_lab_run_options(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	InitMaterializedSRF(fcinfo, 0);
	for (int o = 0; o < RUN_NOPTS; o++)
	{
		Datum		values[5];
		bool		nulls[5] = {false, false, false, false, false};

		values[0] = CStringGetTextDatum(RunOptions[o].name);
		values[1] = ObjectIdGetDatum(RunOptions[o].type);
		nulls[2] = RunOptions[o].default_text == NULL;
		values[2] = nulls[2] ? (Datum) 0 : CStringGetTextDatum(RunOptions[o].default_text);
		values[3] = CStringGetTextDatum(RunOptions[o].since);
		values[4] = CStringGetTextDatum(RunOptions[o].doc);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
