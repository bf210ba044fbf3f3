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
#include "access/itup.h"
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
 * The kinds of step of init, pgbench -I's letters: d, t, g, G, v, p, f.
 * A plan (DatasetParams.steps) is a string of those letters, run in order.
 */
typedef enum DatasetStep
{
	DATASET_STEP_DROP = 0,		/* d */
	DATASET_STEP_CREATE,		/* t */
	DATASET_STEP_PKEYS,			/* p */
	DATASET_STEP_GENERATE,		/* g */
	DATASET_STEP_GENERATE_SERVER,	/* G */
	DATASET_STEP_VACUUM,		/* v */
	DATASET_STEP_FKEYS,			/* f */
	DATASET_NKINDS
} DatasetStep;

/* pgbench -I's letters, in DatasetStep's order */
#define PGBL_INIT_STEP_LETTERS	"dtpgGvf"
/* the letters as pgbench lists them */
#define PGBL_INIT_STEPS_ALLOWED	"dtgGvpf"
/* pgbench -i's steps when -I is not given */
#define PGBL_INIT_STEPS_DEFAULT	"dtgvp"
/* the most steps a plan may have */
#define PGBL_INIT_STEPS_MAX		64
/* DatasetShared.step before the first step */
#define PGBL_INIT_NO_STEP		0xFFFF

/* the most partitions init makes (pgbench has no limit) */
#define PGBL_MAX_PARTITIONS		10000

typedef enum DatasetPartitioning
{
	DATASET_PART_NONE = 0,
	DATASET_PART_RANGE,
	DATASET_PART_HASH
} DatasetPartitioning;

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
	int32		partitions;		/* of pgbench_accounts; 0: none */
	DatasetPartitioning partition_method;
	char		tablespace[NAMEDATALEN];	/* "": the default */
	char		index_tablespace[NAMEDATALEN];	/* "": the default */
	int32		server_version; /* of the server the tables go to */
	/*
	 * The plan: pgbench -I's letters, spaces dropped, "f" added for
	 * foreign_keys.  fast: the plain data set, whose rows are written as
	 * finished pages (steps "dtpgv" or "dtpgvf": keys before the rows).
	 */
	int32		nsteps;
	char		steps[PGBL_INIT_STEPS_MAX + 1];
	bool		fast;
	char		schema[NAMEDATALEN];
} DatasetParams;

/* What each step of the plan took: init's result rows (DatasetEmitSteps). */
typedef struct DatasetTimings
{
	bool		step_done[PGBL_INIT_STEPS_MAX];
	double		seconds[PGBL_INIT_STEPS_MAX];
	int64		rows[PGBL_INIT_STEPS_MAX];	/* < 0: not applicable */
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
	pg_atomic_uint32 step;		/* the plan's step under way, from 0 */
	DatasetTimings timings;
	WorkerError error;			/* what stopped it, for init() to raise */
} DatasetShared;

/* dataset.c */
extern DatasetStep DatasetStepKind(const DatasetParams *p, int pos);
extern const char *DatasetStepName(DatasetStep step);
extern const char *DatasetPlanStepName(const DatasetParams *p, int pos);
extern void DatasetPlan(DatasetParams *p, const char *init_steps);
extern List *DatasetStatements(const DatasetParams *p, int pos);
extern void DatasetCheckExisting(Oid nspoid);
extern void DatasetRefuseTable(const char *schema, const char *name);
extern void DatasetEmitSteps(FunctionCallInfo fcinfo, const DatasetParams *p,
							 const DatasetTimings *t);
extern int64 DatasetRows(const DatasetParams *p, const char *table);

/* dataset_disk.c: the space init needs, checked by its worker */
extern double DatasetEstimateBytes(const DatasetParams *p);
extern void DatasetCheckDisk(const DatasetParams *p);

/* dataset_pages.c */
extern void DatasetWriteVisibilityMap(Relation rel, BlockNumber npages);
extern void DatasetGenerateHeap(Relation rel, Relation pkey, int per_bid,
								 bool blank_filler, int64 nrows);

/* dataset_btree.c */
typedef struct DatasetBtree DatasetBtree;
extern DatasetBtree *DatasetBtreeBegin(Relation index);
extern void DatasetBtreeAdd(DatasetBtree *bt, int64 key, BlockNumber blkno, OffsetNumber off);
extern void DatasetBtreeAddTuple(DatasetBtree *bt, IndexTuple itup);
extern void DatasetBtreeFinish(DatasetBtree *bt);

/* dataset_remote.c: init with a target, through libpq */
extern void DatasetInitRemote(FunctionCallInfo fcinfo, DatasetParams *p, const char *target);

/* dataset_worker.c */
extern PGDLLEXPORT void pgbench_lab_dataset_main(Datum main_arg);

#endif							/* PGBL_DATASET_H */
