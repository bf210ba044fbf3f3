/*-------------------------------------------------------------------------
 *
 * results.h
 *		Writing what a run measured into pgbench_lab.runs, run_progress and
 *		run_latency.  Only the coordinator writes them.
 *
 *-------------------------------------------------------------------------
 */
#ifndef PGBL_RESULTS_H
#define PGBL_RESULTS_H

#include "stats.h"

struct RunShared;

/*
 * The server settings a run records beside its own session settings (of
 * this server, or of a libpq run's target, read there).
 */
#define PGBL_SERVER_SETTINGS \
	"ARRAY['server_version', 'shared_buffers', 'work_mem', 'maintenance_work_mem', " \
	"'effective_cache_size', 'max_connections', 'max_worker_processes', " \
	"'max_wal_size', 'min_wal_size', 'checkpoint_timeout', " \
	"'checkpoint_completion_target', 'wal_level', 'wal_buffers', 'wal_compression', " \
	"'synchronous_commit', 'fsync', 'full_page_writes', 'huge_pages', 'jit', " \
	"'random_page_cost', 'effective_io_concurrency']"

/* A rate is sustained when the clients ran this share of its slots. */
#define PGBL_SUSTAINED	0.98

/* The clients' counters summed at one moment. */
typedef struct RunSample
{
	uint64		xacts;
	uint64		latency_sum_ns;
	StatsMoments latency_us;	/* count, mean and m2 of latencies in us */
	uint64		latency_max_ns;	/* since the last resetting sample */
	uint64		latency_max_total_ns;
	uint64		failures;
	uint64		serialization_failures; /* failures by kind */
	uint64		deadlock_failures;
	uint64		retries;
	uint64		blks_hit;
	uint64		blks_read;
	uint64		lag_sum_ns;		/* with a rate: schedule lag of committed ones */
	uint64		lag_max_ns;		/* since the last resetting sample */
	uint64		lag_max_total_ns;
	uint64		late;			/* with a latency limit */
	uint64		skipped;
	int			running;		/* clients still in their loop */
} RunSample;

/* What the coordinator keeps between the start and the end of a run. */
typedef struct ResultsRun
{
	char		wal_lsn_before[64];
	int64		checkpoints_before;
	int64		checkpoints_done;	/* counted by the coordinator (before 18), or -1 */
	int64		end_ns;
	/* a libpq run to this server and database: pg_stat_database's at the start, else -1 */
	int64		db_hit_before;
	int64		db_read_before;
} ResultsRun;

extern void ResultsSample(struct RunShared *run, RunSample *s, bool reset_interval_max);
extern void ResultsBegin(struct RunShared *run, ResultsRun *res);
extern void ResultsProgress(struct RunShared *run, int second, const RunSample *prev,
							const RunSample *cur, double interval_seconds);
extern void ResultsFinish(struct RunShared *run, ResultsRun *res);
extern void ResultsFailed(struct RunShared *run, const char *message);
extern bool ResultsHaveColumn(const char *table, const char *column);

/* results_targets.c: pgbench_lab.run_targets, one row per target */
extern void ResultsTargets(struct RunShared *run, bool final);

#endif							/* PGBL_RESULTS_H */
