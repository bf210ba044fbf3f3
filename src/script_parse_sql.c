/*-------------------------------------------------------------------------
 *
 * script_parse_sql.c
 *		pgbench_lab_internal.script_parse() and script_check(): a script
 *		as the interpreter reads it, from SQL, for the tests and for a DBA
 *		who checks a script before running it.
 *
 * script_parse() gives a row per command, numbered as pgbench numbers
 * them, with the SQL text the interpreter prepares (its variables as $n)
 * and what else the program holds in a jsonb detail; script_check() the
 * script as a whole.  Both parse with ScriptParse(), so a bad script is
 * the same ERROR that a run would give.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/json.h"
#include "utils/jsonb.h"

#include "script_parse.h"

PG_FUNCTION_INFO_V1(pgbench_lab_script_parse);
PG_FUNCTION_INFO_V1(pgbench_lab_script_check);

static void
json_key(StringInfo buf, const char *key)
{
	if (buf->len > 1)
		appendStringInfoString(buf, ", ");
	escape_json(buf, key);
	appendStringInfoString(buf, ": ");
}

static void
json_text(StringInfo buf, const char *key, const char *value)
{
	json_key(buf, key);
	escape_json(buf, value);
}

static void
json_int(StringInfo buf, const char *key, int64 value)
{
	json_key(buf, key);
	appendStringInfo(buf, INT64_FORMAT, value);
}

static void
json_names(StringInfo buf, const char *key, char **names, int n)
{
	json_key(buf, key);
	appendStringInfoChar(buf, '[');
	for (int i = 0; i < n; i++)
	{
		if (i > 0)
			appendStringInfoString(buf, ", ");
		escape_json(buf, names[i]);
	}
	appendStringInfoChar(buf, ']');
}

static Datum
jsonb_datum(StringInfo buf)
{
	appendStringInfoChar(buf, '}');
	return DirectFunctionCall1(jsonb_in, CStringGetDatum(buf->data));
}

/* Appends name to names[0 .. *n) unless it is there. */
static void
add_name(char **names, int *n, const char *name)
{
	for (int i = 0; i < *n; i++)
	{
		if (strcmp(names[i], name) == 0)
			return;
	}
	names[(*n)++] = (char *) name;
}

/* The variables a command reads, in order, each once (SQL: per parameter). */
static int
command_variables(const ScriptCommand *cmd, char ***names)
{
	ScriptVarRef **refs;
	int			nrefs = cmd->expr ? ScriptExprVarRefs(cmd->expr, &refs) : 0;
	int			n = 0;

	*names = palloc((Max(nrefs, cmd->sql.nparams) + 1) * sizeof(char *));
	if (cmd->kind == SCMD_SQL)
	{
		for (int i = 0; i < cmd->sql.nparams; i++)
			(*names)[n++] = cmd->sql.params[i].name;
	}
	else if (cmd->kind == SCMD_SLEEP && cmd->variable != NULL)
		(*names)[n++] = cmd->variable;
	for (int i = 0; i < nrefs; i++)
		add_name(*names, &n, refs[i]->name);
	return n;
}

static void
sql_detail(StringInfo buf, const ScriptSql *sql)
{
	static const char *const levels[] = {
		[XACT_READ_UNCOMMITTED] = "read uncommitted", [XACT_READ_COMMITTED] = "read committed",
		[XACT_REPEATABLE_READ] = "repeatable read", [XACT_SERIALIZABLE] = "serializable",
	};

	json_int(buf, "statements", sql->nstatements);
	json_key(buf, "parameters");
	appendStringInfoChar(buf, '[');
	for (int i = 0; i < sql->nparams; i++)
	{
		appendStringInfoString(buf, i > 0 ? ", {\"variable\": " : "{\"variable\": ");
		escape_json(buf, sql->params[i].name);
		appendStringInfo(buf, ", \"as\": \"%s\"}",
						 sql->params[i].mode == SPARAM_VALUE ? "value" : "literal");
	}
	appendStringInfoChar(buf, ']');
	if (sql->gset != SGSET_NONE)
		json_text(buf, sql->gset == SGSET_GSET ? "gset" : "aset", sql->gset_prefix);
	if (sql->in_pipeline)
		json_key(buf, "pipeline"), appendStringInfoString(buf, "true");
	if (sql->tx.kind == STX_NONE)
		return;
	if (sql->tx.isolation >= 0)
		json_text(buf, "isolation", levels[sql->tx.isolation]);
	if (sql->tx.read_only >= 0)
		json_key(buf, "read_only"), appendStringInfoString(buf, sql->tx.read_only ? "true" : "false");
	if (sql->tx.deferrable >= 0)
		json_key(buf, "deferrable"), appendStringInfoString(buf, sql->tx.deferrable ? "true" : "false");
	if (sql->tx.chain)
		json_key(buf, "chain"), appendStringInfoString(buf, "true");
	if (sql->tx.savepoint)
		json_text(buf, "savepoint", sql->tx.savepoint);
}

static Datum
command_detail(const ScriptCommand *cmd)
{
	StringInfoData buf;

	initStringInfo(&buf);
	appendStringInfoChar(&buf, '{');
	json_int(&buf, "column", cmd->column);
	switch (cmd->kind)
	{
		case SCMD_SQL:
			sql_detail(&buf, &cmd->sql);
			break;
		case SCMD_SET:
			json_text(&buf, "variable", cmd->variable);
			/* FALLTHROUGH */
		case SCMD_IF:
		case SCMD_ELIF:
			json_text(&buf, "expression", cmd->expr_text);
			if (cmd->kind != SCMD_SET)
				json_int(&buf, "next", cmd->next_branch + 1);
			if (cmd->kind != SCMD_SET)
				json_int(&buf, "endif", cmd->endif + 1);
			break;
		case SCMD_ELSE:
			json_int(&buf, "endif", cmd->endif + 1);
			break;
		case SCMD_ENDIF:
			json_int(&buf, "if", cmd->endif + 1);
			break;
		case SCMD_SLEEP:
			if (cmd->variable)
				json_int(&buf, "usec_per_unit", cmd->sleep_unit_usec);
			else
				json_int(&buf, "usec", cmd->sleep_value * cmd->sleep_unit_usec);
			break;
		default:
			break;
	}
	return jsonb_datum(&buf);
}

static Datum
names_array(char **names, int n)
{
	Datum	   *elems = palloc((n + 1) * sizeof(Datum));

	for (int i = 0; i < n; i++)
		elems[i] = CStringGetTextDatum(names[i]);
	return PointerGetDatum(construct_array(elems, n, TEXTOID, -1, false, TYPALIGN_INT));
}

/* The script and name arguments of both functions, checked. */
static ScriptProgram *
parse_arguments(FunctionCallInfo fcinfo)
{
	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("script must not be null"),
				 errhint("Give a pgbench script's text, as pgbench -f reads it.")));
	if (PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("name must not be null"),
				 errhint("Name the script as its errors should name it, such as 'checkout.sql'.")));
	return ScriptParse(text_to_cstring(PG_GETARG_TEXT_PP(1)),
					   text_to_cstring(PG_GETARG_TEXT_PP(0)));
}

/*
 * pgbench_lab_internal.script_parse(script text, name text DEFAULT 'script')
 *	RETURNS TABLE (command int, line int, kind text, text text,
 *				   variables text[], detail jsonb)
 */
Datum
pgbench_lab_script_parse(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	ScriptProgram *prog;

	InitMaterializedSRF(fcinfo, 0);
	prog = parse_arguments(fcinfo);
	for (int i = 0; i < prog->ncommands; i++)
	{
		ScriptCommand *cmd = &prog->commands[i];
		Datum		values[6];
		bool		nulls[6] = {false};
		char	  **names;
		int			n = command_variables(cmd, &names);

		CHECK_FOR_INTERRUPTS();
		values[0] = Int32GetDatum(i + 1);
		values[1] = Int32GetDatum(cmd->line);
		values[2] = CStringGetTextDatum(ScriptCommandKindName(cmd));
		values[3] = cmd->kind == SCMD_SQL ? CStringGetTextDatum(cmd->sql.text) :
			PointerGetDatum(cstring_to_text_with_len(prog->source + cmd->offset, cmd->length));
		values[4] = names_array(names, n);
		values[5] = command_detail(cmd);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

/*
 * pgbench_lab_internal.script_check(script text, name text DEFAULT 'script')
 *	RETURNS jsonb: the script as a whole
 */
Datum
pgbench_lab_script_check(PG_FUNCTION_ARGS)
{
	ScriptProgram *prog = parse_arguments(fcinfo);
	StringInfoData buf;
	char	  **set = palloc((prog->ncommands + 1) * sizeof(char *));
	char	  **read = NULL;
	int			nset = 0;
	int			nread = 0;
	int			nsql = 0;
	int			maxread = 16;

	read = palloc(maxread * sizeof(char *));
	for (int i = 0; i < prog->ncommands; i++)
	{
		ScriptCommand *cmd = &prog->commands[i];
		char	  **names;
		int			n = command_variables(cmd, &names);

		nsql += cmd->kind == SCMD_SQL;
		if (cmd->kind == SCMD_SET)
			add_name(set, &nset, cmd->variable);
		if (nread + n > maxread)
		{
			maxread = 2 * (nread + n);
			read = repalloc(read, maxread * sizeof(char *));
		}
		for (int k = 0; k < n; k++)
			add_name(read, &nread, names[k]);
	}
	initStringInfo(&buf);
	appendStringInfoChar(&buf, '{');
	json_text(&buf, "name", prog->name);
	json_int(&buf, "commands", prog->ncommands);
	json_int(&buf, "sql_commands", nsql);
	json_key(&buf, "transactions");
	appendStringInfoString(&buf, prog->has_transactions ? "true" : "false");
	json_key(&buf, "conditionals");
	appendStringInfoString(&buf, prog->has_conditionals ? "true" : "false");
	json_key(&buf, "pipelines");
	appendStringInfoString(&buf, prog->has_pipelines ? "true" : "false");
	json_names(&buf, "variables_set", set, nset);
	json_names(&buf, "variables_read", read, nread);
	json_names(&buf, "text_references", prog->text_refs, prog->ntext_refs);
	PG_RETURN_DATUM(jsonb_datum(&buf));
}
