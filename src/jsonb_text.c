/*-------------------------------------------------------------------------
 *
 * jsonb_text.c
 *		A JSON scalar as the text a setting or a script variable takes.
 *
 * settings => and variables => are jsonb objects whose values the parts
 * that read them (runner.c, settings_apply.c, the script interpreter) take
 * as text, the same way everywhere.  It lives apart from the module's
 * entry point so that those parts depend on it and not on _PG_init.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/jsonb.h"

#include "pgbench_lab.h"

/*
 * Strings as they are, numbers as jsonb prints them, booleans as
 * true/false; NULL for null, arrays and objects, which each caller refuses
 * or reads in its own way.
 */
char *
PgblJsonScalarText(const JsonbValue *v)
{
	switch (v->type)
	{
		case jbvString:
			return pnstrdup(v->val.string.val, v->val.string.len);
		case jbvNumeric:
			return DatumGetCString(DirectFunctionCall1(numeric_out,
													   NumericGetDatum(v->val.numeric)));
		case jbvBool:
			return pstrdup(v->val.boolean ? "true" : "false");
		default:
			return NULL;
	}
}
