/*-------------------------------------------------------------------------
 *
 * pgbench_lab.c
 *		Module entry point: the magic block and _PG_init.
 *
 * pgbench_lab needs no shared_preload_libraries.  The library is loaded on
 * first use (or by a background worker that names it), so _PG_init does
 * nothing but let each part define its settings.  Everything that must be
 * shared between processes lives in dynamic shared memory owned by a run.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/guc.h"
#include "utils/jsonb.h"

#include "pgbench_lab.h"
#include "samples.h"

PGBL_MODULE_MAGIC;

void
_PG_init(void)
{
	SystemInit();
	RunnerInit();
	SamplesInit();
	CacheInit();
	DatasetInit();
	TelemetryInit();
	MarkGUCPrefixReserved(PGBL_GUC_PREFIX);
}

/*
 * A JSON scalar as the text a setting (settings => ...) or a script variable
 * (variables => ...) takes: strings as they are, numbers as jsonb prints
 * them, booleans as true/false; NULL for null, arrays and objects, which
 * each caller refuses or reads in its own way.
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
