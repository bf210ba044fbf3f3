/*-------------------------------------------------------------------------
 *
 * dataset_worker.c
 *		The background worker that makes pgbench's data set for
 *		pgbench_lab.init().
 *
 * It connects as the caller's role and runs the plan's steps in order
 * (dataset_sql.c builds their statements).  The plain data set, the fast
 * plan, goes:
 *
 *	1. drop, create, primary keys and generate, in one transaction.  The
 *	   primary keys are added while the tables are empty (pgbench -I's
 *	   "p" before "G").  Because the tables were created by this
 *	   transaction, nobody else can see them before the commit, and their
 *	   rows go in as finished pages, frozen and all-visible as COPY FREEZE
 *	   (which pgbench -i uses) leaves them, written past shared buffers
 *	   (dataset_pages.c), with each primary key's B-tree written from the
 *	   same rows in key order (dataset_btree.c): no later pass to set hint
 *	   bits or the visibility map, no heap scan or sort to build the keys.
 *	2. VACUUM (ANALYZE) of each table, as top-level commands through
 *	   ExecVacuum, which a function or SPI cannot run.
 *	3. foreign keys if asked, in a transaction.  The last step marks the
 *	   tables complete (their comment).
 *
 * Any other plan (partitions, init_steps in another order) runs the same
 * way with the statements alone: the steps between two vacuums in one
 * transaction, the rows by INSERT ... SELECT.
 *
 * Any ERROR is caught, the transaction aborted, and its SQLSTATE and texts
 * passed to the caller through the shared segment (worker.c), and the
 * worker exits normally: an ERROR never becomes an abnormal exit.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "commands/vacuum.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "parser/parse_node.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "storage/dsm.h"
#include "storage/ipc.h"
#include "tcop/tcopprot.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "pgbench_lab.h"
#include "dataset.h"
#include "secure.h"
#include "worker.h"

/* how one table's rows are made: (id, [bid,] balance, filler) */
typedef struct GenSpec
{
	const char *table;
	int			per_bid;		/* ids per bid; 0: no bid column */
	bool		blank_filler;	/* filler '' (blank-padded), else NULL */
} GenSpec;

static const GenSpec gen_specs[] = {
	{"pgbench_branches", 0, false},
	{"pgbench_tellers", PGBL_TELLERS_PER_SCALE, false},
	{"pgbench_accounts", PGBL_ACCOUNTS_PER_SCALE, true},
};

/* lives for the whole worker; the current context between transactions */
static MemoryContext worker_context = NULL;
static instr_time step_start;

static void
connect_as_caller(const DatasetShared *sh)
{
	WorkerConnectAs(sh->database, sh->login_role, sh->run_role);
	/* every name is qualified; nothing should resolve elsewhere */
	SecureWorkerSession();
}

static void
step_begin(DatasetShared *sh, int pos)
{
	char		activity[64];

	pg_atomic_write_u32(&sh->step, pos);
	snprintf(activity, sizeof(activity), "pgbench_lab init: %s",
			 DatasetPlanStepName(&sh->params, pos));
	pgstat_report_activity(STATE_RUNNING, activity);
	INSTR_TIME_SET_CURRENT(step_start);
}

static void
step_end(DatasetShared *sh, int pos, int64 rows)
{
	instr_time	now;

	INSTR_TIME_SET_CURRENT(now);
	INSTR_TIME_SUBTRACT(now, step_start);
	sh->timings.seconds[pos] = INSTR_TIME_GET_DOUBLE(now);
	sh->timings.rows[pos] = rows;
	sh->timings.step_done[pos] = true;
}

/* One step's statements through SPI; the rows they wrote. */
static int64
run_statements(DatasetShared *sh, int pos)
{
	ListCell   *lc;
	int64		rows = 0;

	foreach(lc, DatasetStatements(&sh->params, pos))
	{
		CHECK_FOR_INTERRUPTS();
		SPI_execute((const char *) lfirst(lc), false, 0);
		rows += SPI_processed;
	}
	return rows;
}

/*
 * Rows of one table and the entries of its primary key, written as
 * finished pages (dataset_pages.c, dataset_btree.c).
 */
static int64
generate_table(Oid nspoid, const GenSpec *g, int64 nrows)
{
	Relation	rel = table_open(get_relname_relid(g->table, nspoid), AccessExclusiveLock);
	List	   *indexes = RelationGetIndexList(rel);
	Relation	pkey;

	if (list_length(indexes) != 1)
		elog(ERROR, "table \"%s\" has %d indexes, not its primary key alone",
			 g->table, list_length(indexes));
	pkey = index_open(linitial_oid(indexes), AccessExclusiveLock);
	DatasetGenerateHeap(rel, pkey, g->per_bid, g->blank_filler, nrows);
	index_close(pkey, NoLock);
	table_close(rel, NoLock);
	return nrows;
}

/* The fast plan's rows: tables created by this transaction, keys on them. */
static int64
generate_fast(const DatasetParams *p)
{
	Oid			nspoid = get_namespace_oid(p->schema, false);
	int64		rows = 0;

	for (int i = 0; i < lengthof(gen_specs); i++)
		rows += generate_table(nspoid, &gen_specs[i], DatasetRows(p, gen_specs[i].table));
	return rows;
}

/*
 * VACUUM (ANALYZE) each table as a top-level command.  vacuum() commits
 * the transaction it is called in and starts one per table, so the parse
 * tree lives in worker_context, not in a transaction.  The step's other
 * statements (the marks, when it is the last step) run in one transaction.
 */
static void
vacuum_tables(DatasetShared *sh, int pos)
{
	ListCell   *lc;

	foreach(lc, DatasetStatements(&sh->params, pos))
	{
		const char *sql = (const char *) lfirst(lc);
		RawStmt    *raw = linitial_node(RawStmt, pg_parse_query(sql));
		ParseState *pstate;

		if (!IsA(raw->stmt, VacuumStmt))
		{
			WorkerXactBegin();
			SPI_execute(sql, false, 0);
			WorkerXactCommit();
			MemoryContextSwitchTo(worker_context);
			continue;
		}
		pstate = make_parsestate(NULL);
		pstate->p_sourcetext = sql;
		SetCurrentStatementStartTimestamp();
		StartTransactionCommand();
		pgstat_report_activity(STATE_RUNNING, sql);
		ExecVacuum(pstate, castNode(VacuumStmt, raw->stmt), true);
		CommitTransactionCommand();
		MemoryContextSwitchTo(worker_context);
		CHECK_FOR_INTERRUPTS();
	}
}

/*
 * The plan, step by step.  Every step but vacuum runs in one transaction
 * with the steps next to it: a transaction begins with the first of them
 * and commits before a vacuum and at the end, and that commit is timed
 * with the step before it.  So a failure or a cancel before the first
 * vacuum changes nothing.  The tables are checked first (init() checked
 * too, but they may have changed since), and the disk before anything is
 * dropped or created, when the plan makes rows.
 */
static void
run_plan(DatasetShared *sh)
{
	const DatasetParams *p = &sh->params;
	bool		open = true;
	int64		rows = -1;		/* the last generated, for vacuum */

	WorkerXactBegin();
	DatasetCheckExisting(get_namespace_oid(p->schema, false));
	if (strchr(p->steps, 'g') != NULL || strchr(p->steps, 'G') != NULL)
		DatasetCheckDisk(p);

	for (int pos = 0; pos < p->nsteps; pos++)
	{
		DatasetStep kind = DatasetStepKind(p, pos);
		int64		done = -1;

		if (kind == DATASET_STEP_VACUUM)
		{
			if (open)
			{
				WorkerXactCommit();
				MemoryContextSwitchTo(worker_context);
				open = false;
			}
			step_begin(sh, pos);
			vacuum_tables(sh, pos);
			step_end(sh, pos, rows);
			continue;
		}
		if (!open)
		{
			WorkerXactBegin();
			open = true;
		}
		step_begin(sh, pos);
		if (kind == DATASET_STEP_GENERATE && p->fast)
			done = generate_fast(p);
		else
			done = run_statements(sh, pos);
		if (kind == DATASET_STEP_GENERATE || kind == DATASET_STEP_GENERATE_SERVER)
			rows = done;
		else
			done = -1;
		if (pos + 1 == p->nsteps || DatasetStepKind(p, pos + 1) == DATASET_STEP_VACUUM)
		{
			WorkerXactCommit();
			MemoryContextSwitchTo(worker_context);
			open = false;
		}
		step_end(sh, pos, done);
	}
	if (open)
	{
		WorkerXactCommit();
		MemoryContextSwitchTo(worker_context);
	}
}

/* Log the error, clean up as autovacuum does, and pass it to init(). */
static void
pass_error_to_caller(DatasetShared *sh)
{
	WorkerErrorSave(&sh->error, WorkerCatch(worker_context, true));
	pg_atomic_write_u32(&sh->state, DATASET_STATE_FAILED);
}

void
pgbench_lab_dataset_main(Datum main_arg)
{
	dsm_segment *seg;
	DatasetShared *sh;

	WorkerSignals();

	seg = dsm_attach(DatumGetUInt32(main_arg));
	if (seg == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("could not map the shared memory of pgbench_lab.init"),
				 errdetail("The session that called init has gone.")));
	sh = dsm_segment_address(seg);
	if (sh->magic != PGBL_DATASET_MAGIC)
		elog(ERROR, "bad magic number in the shared memory of pgbench_lab.init");

	connect_as_caller(sh);
	worker_context = AllocSetContextCreate(TopMemoryContext, "pgbench_lab init",
										   ALLOCSET_DEFAULT_SIZES);
	MemoryContextSwitchTo(worker_context);
	pg_atomic_write_u32(&sh->state, DATASET_STATE_RUNNING);

	PG_TRY();
	{
		run_plan(sh);
		pg_atomic_write_u32(&sh->state, DATASET_STATE_DONE);
	}
	PG_CATCH();
	{
		pass_error_to_caller(sh);
	}
	PG_END_TRY();

	pgstat_report_activity(STATE_IDLE, NULL);
	dsm_detach(seg);
	proc_exit(0);
}
