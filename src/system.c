/*-------------------------------------------------------------------------
 *
 * system.c
 *		The machine as the server sees it (skeleton: the setting that lets
 *		tests point the readers at a laid-out /proc and /sys tree).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/guc.h"

#include "pgbench_lab.h"
#include "system.h"

static char *pgbl_sysroot = NULL;

void
SystemInit(void)
{
	DefineCustomStringVariable(PGBL_GUC_PREFIX ".sysroot",
							   "Directory that stands for / when reading /proc and /sys.",
							   "For tests: lets them feed laid-out cgroup v1 and v2 trees.",
							   &pgbl_sysroot,
							   "",
							   PGC_SUSET,
							   0,
							   NULL, NULL, NULL);
}
