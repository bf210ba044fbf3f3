/*-------------------------------------------------------------------------
 *
 * tpcc.h
 *		init_tpcc()'s helpers in C: the rows (tpcc_load.c) written as pages
 *		(tpcc_pages.c), the disk check (tpcc_disk.c), and the tables made
 *		on a target server (tpcc_remote.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef PGBL_TPCC_H
#define PGBL_TPCC_H

#include "fmgr.h"
#include "storage/itemptr.h"
#include "utils/relcache.h"

/* tpcc_load.c: a step's progress (SQL-callable, called by tpcc_remote.c) */
extern PGDLLEXPORT Datum pgbench_lab_tpcc_progress(PG_FUNCTION_ARGS);

/* tpcc_disk.c: refuse a caller who may not execute init_tpcc() */
extern void TpccCheckCaller(const char *what);

/* tpcc_pages.c: rows written as finished pages of a new table */
typedef struct TpccPages TpccPages;
extern TpccPages *TpccPagesBegin(Relation rel);
extern void TpccPagesAdd(TpccPages *w, Datum *values, bool *isnull, ItemPointer tid);
extern int64 TpccPagesFinish(TpccPages *w);

#endif							/* PGBL_TPCC_H */
