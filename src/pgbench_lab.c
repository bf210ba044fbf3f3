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
#include "utils/guc.h"

#include "pgbench_lab.h"
#include "progress.h"
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
	ProgressInit();
	MarkGUCPrefixReserved(PGBL_GUC_PREFIX);
}
