/*-------------------------------------------------------------------------
 *
 * capture.h
 *		capture(): the application's statements from pg_stat_statements,
 *		their parameters mapped by parse analysis (capture_parse.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef PGBL_CAPTURE_H
#define PGBL_CAPTURE_H

#include "fmgr.h"

extern Datum pgbench_lab_capture_params(PG_FUNCTION_ARGS);
extern Datum pgbench_lab_capture_command(PG_FUNCTION_ARGS);
extern Datum pgbench_lab_capture_source(PG_FUNCTION_ARGS);

#endif							/* PGBL_CAPTURE_H */
