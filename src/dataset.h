/*-------------------------------------------------------------------------
 *
 * dataset.h
 *		pgbench's data set, made in the server: what the session calling
 *		pgbench_lab.init() and the background worker that does the work
 *		share.
 *
 * The caller validates, resolves the schema and fills a DatasetShared in a
 * dynamic shared memory segment; the worker runs every step and writes back
 * per-step timings, or the error that stopped it.  Both sides build the
 * statements they run from DatasetStatements(), which is also what
 * pgbench_lab.init_sql() shows.  With a target, init sends those statements
 * to another server through libpq instead (dataset_remote.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef PGBL_DATASET_H
#define PGBL_DATASET_H

#include "fmgr.h"
#include "port/atomics.h"
#include "storage/block.h"
#include "storage/off.h"
#include "utils/relcache.h"

#include "worker.h"

#define PGBL_DATASET_MAGIC		0x5042494E	/* "PBIN" */

/* rows per scale unit, as in pgbench */
#define PGBL_BRANCHES_PER_SCALE	1
#define PGBL_TELLERS_PER_SCALE	10
#define PGBL_ACCOUNTS_PER_SCALE	100000

/* from this scale on, aid is bigint (pgbench's SCALE_32BIT_THRESHOLD) */
#define PGBL_SCALE_BIGINT		20000

/* table comments: how init recognises the tables it may replace */
#define PGBL_DATASET_MARK		"created by pgbench_lab.init"
#define PGBL_DATASET_MARK_INCOMPLETE PGBL_DATASET_MARK "; incomplete"

/*
 * The steps of init, in the order they run: pgbench -i's "dtpgvf", primary
 * keys made on the empty tables and filled as the rows are written.
 */
typedef enum DatasetStep
{
	DATASET_STEP_DROP = 0,
	DATASET_STEP_CREATE,
	DATASET_STEP_PKEYS,
	DATASET_STEP_GENERATE,
	DATASET_STEP_VACUUM,
	DATASET_STEP_FKEYS,
	DATASET_NSTEPS
} DatasetStep;

/* How the worker ended (DatasetShared.state). */
typedef enum DatasetState
{
	DATASET_STATE_NEW = 0,
	DATASET_STATE_RUNNING,		/* connected, working */
	DATASET_STATE_DONE,			/* every step done */
	DATASET_STATE_FAILED		/* error says why */
} DatasetState;

typedef struct DatasetParams
{
	int32		scale;
	int32		fillfactor;
	bool		foreign_keys;
	bool		unlogged;
	char		schema[NAMEDATALEN];
} DatasetParams;

/* What each step of init took: its result rows (DatasetEmitSteps). */
typedef struct DatasetTimings
{
	bool		step_done[DATASET_NSTEPS];
	double		seconds[DATASET_NSTEPS];
	int64		rows[DATASET_NSTEPS];	/* < 0: not applicable */
} DatasetTimings;

typedef struct DatasetShared
{
	uint32		magic;
	DatasetParams params;

	/* who the worker is */
	Oid			database;
	Oid			login_role;		/* the caller's authenticated user */
	Oid			run_role;		/* the caller's current user */

	/* written by the worker */
	pg_atomic_uint32 state;
	pg_atomic_uint32 step;		/* the step under way */
	DatasetTimings timings;
	WorkerError error;			/* what stopped it, for init() to raise */
} DatasetShared;

/* dataset.c */
extern const char *DatasetStepName(DatasetStep step);
extern List *DatasetStatements(DatasetStep step, const DatasetParams *p);
extern void DatasetCheckExisting(Oid nspoid);
extern void DatasetRefuseTable(const char *schema, const char *name);
extern void DatasetEmitSteps(FunctionCallInfo fcinfo, const DatasetTimings *t);
extern int64 DatasetRows(const DatasetParams *p, const char *table);

/* dataset_disk.c: the space init needs, checked by its worker */
extern double DatasetEstimateBytes(const DatasetParams *p);
extern void DatasetCheckDisk(const DatasetParams *p);

/* dataset_pages.c */
extern void DatasetGenerateHeap(Relation rel, Relation pkey, int per_bid,
								 bool blank_filler, int64 nrows);

/* dataset_btree.c */
typedef struct DatasetBtree DatasetBtree;
extern DatasetBtree *DatasetBtreeBegin(Relation index);
extern void DatasetBtreeAdd(DatasetBtree *bt, int64 key, BlockNumber blkno, OffsetNumber off);
extern void DatasetBtreeFinish(DatasetBtree *bt);

/* dataset_remote.c: init with a target, through libpq */
extern void DatasetInitRemote(FunctionCallInfo fcinfo, DatasetParams *p, const char *target);

/* dataset_worker.c */
extern PGDLLEXPORT void pgbench_lab_dataset_main(Datum main_arg);

#endif							/* PGBL_DATASET_H */
