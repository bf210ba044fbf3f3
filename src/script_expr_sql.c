/*-------------------------------------------------------------------------
 *
 * script_expr_sql.c
 *		pgbench_lab_internal.script_eval(): one pgbench expression evaluated
 *		from SQL, for the tests and for a DBA who checks an expression
 *		before putting it in a script.
 *
 * It plays pgbench's first client in its first transaction: the variables
 * are pgbench's -D (text, read as pgbench reads them, when referenced),
 * and the automatic variables are pgbench's: scale 1, client_id 0,
 * random_seed the seed, default_seed drawn from it.  With a seed, the
 * random functions draw what "pgbench -c 1 --random-seed=seed" would draw
 * for a script whose first random draw is this expression's.  The result
 * is the text pgbench substitutes for :name in a query (NULL for null).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "lib/stringinfo.h"
#include "utils/numeric.h"

#include "pgbench_lab.h"
#include "script_expr.h"

PG_FUNCTION_INFO_V1(pgbench_lab_script_eval);

typedef struct EvalVar
{
	char	   *name;
	char	   *text;			/* as given, read on first use */
	bool		read;
	ScriptValue value;
} EvalVar;

typedef struct EvalVars
{
	int			n;
	EvalVar    *vars;
} EvalVars;

static EvalVar *
find_var(EvalVars *vars, const char *name)
{
	for (int i = 0; i < vars->n; i++)
	{
		if (strcmp(vars->vars[i].name, name) == 0)
			return &vars->vars[i];
	}
	return NULL;
}

/* The lookup the evaluator calls: a variable's value, read when first used. */
static bool
lookup_var(void *arg, const ScriptVarRef *ref, ScriptValue *value, ScriptError *error)
{
	EvalVar    *var = find_var((EvalVars *) arg, ref->name);

	if (var == NULL)
	{
		ScriptErrorUndefined(error, ref->name);
		return false;
	}
	if (!var->read)
	{
		if (!ScriptValueFromText(var->name, var->text, &var->value, error))
			return false;
		var->read = true;
	}
	*value = var->value;
	return true;
}

static void
refuse_variables(const char *message)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("%s", message),
			 errhint("variables is a JSON object of names and values, as pgbench's -D name=value: "
					 "'{\"aid\": 5, \"ratio\": \"0.5\", \"flag\": true}'.")));
}

/*
 * A variables argument (pgbench's -D, a JSON object) as name\0text\0 ...
 * \0 in out: strings as they are, numbers and booleans as jsonb prints
 * them, and null, where null_ok, as the text "null".  run() and
 * script_eval() read theirs with it.
 */
void
ScriptVariablesText(Jsonb *json, bool null_ok, StringInfo out)
{
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;

	if (json != NULL && !JB_ROOT_IS_OBJECT(json))
		refuse_variables("variables must be a JSON object");
	it = json ? JsonbIteratorInit(&json->root) : NULL;
	while (it && (tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		char	   *name;
		char	   *text;

		if (tok != WJB_KEY)
			continue;
		name = pnstrdup(v.val.string.val, v.val.string.len);
		if (!ScriptVariableNameValid(name))
			refuse_variables(psprintf("invalid variable name \"%s\": letters, digits and underscores, not a digit first",
									  name));
		if (JsonbIteratorNext(&it, &v, true) != WJB_VALUE)
			elog(ERROR, "variables: a key without a value");
		text = PgblJsonScalarText(&v);
		if (text == NULL && null_ok && v.type == jbvNull)
			text = "null";
		if (text == NULL)
			refuse_variables(psprintf(null_ok ? "variable \"%s\" must be a string, a number, a boolean or null"
									  : "variable \"%s\" must be a string, a number or a boolean", name));
		if (text[0] == '\0' && !null_ok)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("variable \"%s\" has an empty value", name),
					 errhint("Give it a value, as pgbench -D name=value needs one; leave it out of "
							 "variables to set it in the script with \\set or \\gset.")));
		appendBinaryStringInfo(out, name, strlen(name) + 1);
		appendBinaryStringInfo(out, text, strlen(text) + 1);
	}
	appendStringInfoChar(out, '\0');
}

/* script_eval()'s variables, from ScriptVariablesText()'s pairs. */
static void
read_variables(Jsonb *json, EvalVars *vars)
{
	StringInfoData pairs;
	int			max = 8;

	initStringInfo(&pairs);
	ScriptVariablesText(json, true, &pairs);
	vars->n = 0;
	vars->vars = palloc0(max * sizeof(EvalVar));
	for (const char *p = pairs.data; *p; p += strlen(p) + 1)
	{
		EvalVar    *var;

		if (vars->n == max)
		{
			max *= 2;
			vars->vars = repalloc(vars->vars, max * sizeof(EvalVar));
		}
		var = &vars->vars[vars->n++];
		memset(var, 0, sizeof(*var));
		var->name = pstrdup(p);
		p += strlen(p) + 1;
		var->text = pstrdup(p);
	}
}

/* pgbench's automatic variables, unless given. */
static void
add_automatic(EvalVars *vars, const char *name, int64 value)
{
	EvalVar    *var;

	if (find_var(vars, name) != NULL)
		return;
	vars->vars = repalloc(vars->vars, (vars->n + 1) * sizeof(EvalVar));
	var = &vars->vars[vars->n++];
	memset(var, 0, sizeof(*var));
	var->name = pstrdup(name);
	var->read = true;
	var->value.type = SCRIPT_INT;
	var->value.u.i = value;
}

/*
 * pgbench_lab_internal.script_eval(expr text, variables jsonb DEFAULT '{}',
 *                                  seed bigint DEFAULT NULL) RETURNS text
 */
Datum
pgbench_lab_script_eval(PG_FUNCTION_ARGS)
{
	char	   *src;
	ScriptExpr *expr;
	ScriptError error;
	EvalVars	vars;
	ScriptEvalEnv env;
	pg_prng_state prng;
	uint64		seed;
	int64		default_seed;
	ScriptValue result;
	char		buf[64];

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("expr must not be null"),
				 errhint("Give an expression as pgbench's \\set takes it, such as 'random(1, 100000 * :scale)'.")));
	src = text_to_cstring(PG_GETARG_TEXT_PP(0));
	expr = ScriptExprParse(src, strlen(src), &error);
	if (expr == NULL)
		ScriptErrorRaise(&error, src);

	read_variables(PG_ARGISNULL(1) ? NULL : PG_GETARG_JSONB_P(1), &vars);
	seed = PG_ARGISNULL(2) ? pg_prng_uint64(&pg_global_prng_state) : (uint64) PG_GETARG_INT64(2);
	ScriptSeedClients(seed, 1, &prng, &default_seed);
	add_automatic(&vars, "default_seed", default_seed);
	add_automatic(&vars, "random_seed", (int64) seed);
	add_automatic(&vars, "client_id", 0);
	add_automatic(&vars, "scale", 1);

	env.lookup = lookup_var;
	env.lookup_arg = &vars;
	env.prng = &prng;
	env.debug_label = "script_eval";
	if (!ScriptExprEval(expr, &env, &result, &error))
		ScriptErrorRaise(&error, src);
	if (result.type == SCRIPT_NULL)
		PG_RETURN_NULL();
	ScriptValueFormat(&result, buf, sizeof(buf));
	PG_RETURN_TEXT_P(cstring_to_text(buf));
}
