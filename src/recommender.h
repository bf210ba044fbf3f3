/*-------------------------------------------------------------------------
 *
 * recommender.h
 *		The recommender's pure functions: from a described machine to
 *		settings (recommender_math.c), and the memory budget of given
 *		settings (recommender_budget.c).
 *
 * Nothing here reads the catalog or the machine: the caller fills a
 * RecommenderInput (explicit values or facts collected elsewhere) and gets
 * every setting back with its value, unit, the arithmetic that produced it
 * and a one-sentence reason.  recommender_sql.c is the caller: it fills
 * the inputs, and settings_live.c compares the result with the live server
 * and validates it against the server's own bounds.
 *
 *-------------------------------------------------------------------------
 */
#ifndef PGBL_RECOMMENDER_H
#define PGBL_RECOMMENDER_H

typedef enum RecoWorkload
{
	RECO_WEB,
	RECO_OLTP,
	RECO_DW,
	RECO_MIXED,
	RECO_DESKTOP
} RecoWorkload;

typedef enum RecoStorage
{
	RECO_HDD,
	RECO_SSD,
	RECO_NVME,
	RECO_SAN
} RecoStorage;

typedef enum RecoOs
{
	RECO_LINUX,
	RECO_WINDOWS,
	RECO_MACOS
} RecoOs;

typedef struct RecommenderInput
{
	double		ram;			/* bytes given to PostgreSQL's machine */
	double		cpus;			/* may be fractional (a CPU quota) */
	int			max_connections;	/* asked for, else the live value */
	bool		connections_asked;	/* the caller passed max_connections */
	RecoWorkload workload;
	RecoStorage storage;
	RecoOs		os;
	double		data_size;		/* bytes; < 0 unknown */
	double		os_reserve;		/* bytes; < 0 derive from ram */
	double		hugepage_size;	/* bytes; <= 0 assume 2MB */
	double		wal_disk_free;	/* bytes; < 0 unknown */
	bool		has_lz4;		/* server built with lz4 / zstd */
	bool		has_zstd;
	/* storage measured by io_test(): used when storage_note is not NULL */
	const char *storage_note;	/* "measured by ... -> nvme" */
	double		measured_page_cost; /* the class's random_page_cost */
	int			measured_io_concurrency;	/* its effective_io_concurrency */
	const char *measured_io_note;	/* how io_test() found the depth */
	const char *measured_io_date;	/* when */
	int			measured_knee_depth;	/* its knee; 0 when not measured */
	bool		storage_from_flags; /* neither asked nor measured */
	int			default_io_concurrency; /* this server's defaults */
	int			default_maint_io_concurrency;
	/* the WAL sync method: a row only when wal_sync_current is set */
	const char *wal_sync_current;	/* the live value */
	const char *wal_sync_measured;	/* what fsync_test()'s rounds support */
	const char *wal_sync_rule;	/* the rule's arithmetic, for the formula */
	const char *wal_sync_note;	/* "fsync_test() on <date>: <reason>" */
	/*
	 * The machine is this server (ram, cpus, storage and os all detected):
	 * only then do the worker slots count what this server holds, below.
	 */
	bool		this_server;
	int			live_worker_processes;	/* 0: not known */
	int			logical_workers;	/* max_logical_replication_workers */
	int			other_workers;	/* other background workers running now */
	int			lab_clients;	/* the largest in-server run recorded here */
} RecommenderInput;

typedef enum RecoUnit
{
	RECO_UNIT_BYTES,			/* value in bytes */
	RECO_UNIT_SECONDS,			/* value in seconds */
	RECO_UNIT_NUMBER,			/* plain integer or real */
	RECO_UNIT_ENUM				/* text only */
} RecoUnit;

typedef struct RecoSetting
{
	const char *name;
	RecoUnit	unit;
	double		value;
	const char *text;			/* RECO_UNIT_ENUM: the value */
	char	   *formula;
	char	   *reason;
} RecoSetting;

#define PGBL_RECO_MAX_SETTINGS 32

typedef struct RecommenderResult
{
	int			count;
	RecoSetting settings[PGBL_RECO_MAX_SETTINGS];
} RecommenderResult;

/* Inputs of the memory budget; all sizes in bytes. */
typedef struct RecoBudgetInput
{
	double		ram;
	int			max_connections;
	double		work_mem;
	double		shared_buffers;
	double		shared_memory;	/* whole shared segment; < 0 estimate */
	double		maintenance_work_mem;
	double		effective_cache_size;
	double		autovacuum_work_mem;	/* < 0: maintenance_work_mem */
	int			autovacuum_max_workers;
	double		hash_mem_multiplier;
	int			parallel_per_gather;
	int			max_parallel_workers;	/* parallel workers of all queries */
	double		wal_buffers;	/* < 0: what -1 picks */
	double		backend_memory; /* a backend's private memory */
	const char *backend_memory_source;	/* how it was found */
} RecoBudgetInput;

typedef struct RecoBudgetRow
{
	const char *component;
	double		bytes;
	const char *status;			/* NULL, or ok / warning / out-of-memory risk */
	char	   *note;
} RecoBudgetRow;

#define PGBL_RECO_BUDGET_ROWS 13

/*
 * Memory a backend holds beyond work_mem (process, catalog and plan caches)
 * as recommend() plans it; memory_budget() measures it on the server.
 */
#define PGBL_BACKEND_OVERHEAD (5.0 * 1024 * 1024)

extern const char *const RecoWorkloadNames[];
extern const char *const RecoStorageNames[];
extern const char *const RecoOsNames[];

extern void RecommenderCompute(const RecommenderInput *in,
							   RecommenderResult *out);
extern double RecommenderSharedMemory(double shared_buffers, double wal_buffers,
									  int connections);
extern int	RecommenderBudget(const RecoBudgetInput *in, RecoBudgetRow *rows);
extern char *RecommenderFormatValue(RecoUnit unit, double value,
									const char *text);
extern char *RecommenderPrettyBytes(double bytes);

#endif							/* PGBL_RECOMMENDER_H */
