/*-------------------------------------------------------------------------
 *
 * run_shared.h
 *		A run's shared state: the dynamic shared memory segment of one run,
 *		shared by the launching session, the coordinator worker that owns
 *		the run, its client workers, and any session that waits for or
 *		cancels it (found through the handle kept in pgbench_lab.runs).
 *
 * Only types, limits and inline readers: every part that reads or writes
 * a run's segment includes this, and none of them needs the runner's
 * functions (runner.h) for it.
 *
 *-------------------------------------------------------------------------
 */
#ifndef PGBL_RUN_SHARED_H
#define PGBL_RUN_SHARED_H

#include "port/atomics.h"
#include "storage/dsm.h"
#include "storage/spin.h"
#include "utils/timestamp.h"

#include "samples.h"
#include "stats.h"
#include "worker.h"
#include "workload.h"

#define PGBL_RUN_MAGIC		0x5042524E	/* "PBRN" */
#define PGBL_SETTINGS_MAX	4096		/* serialised worker settings */
#define PGBL_LABEL_MAX		256
#define PGBL_CONNINFO_MAX	1024
#define PGBL_TARGET_SYSTEM_MAX	8192	/* a target's system_info() as jsonb text */
#define PGBL_TARGETS_MAX	8		/* targets => of one run */
#define PGBL_VERSION_MAX	64		/* a target's server_version */
#define PGBL_CONFLICTS_MAX	512		/* a standby's conflict counters as jsonb text */
#define PGBL_NOTE_MAX		256		/* why a target's facts were not read */
#define PGBL_LSN_MAX		32		/* an LSN or a counter, as text */
#define PGBL_RATE_MAX		1e9		/* transactions per second: a 1 ns schedule */
#define PGBL_LATENCY_LIMIT_MAX_S	86400.0	/* a day */
#define PGBL_MAX_CLIENTS_DEFAULT	5000	/* pgbench_lab.max_clients */
#define PGBL_MAX_CLIENTS_MAX	100000
#define PGBL_FD_RESERVE		100		/* descriptors a libpq worker keeps for itself */
#define PGBL_SLOT_GRACE_MS	2000	/* for the workers of a run just ended to exit */
#define PGBL_ERROR_TEXTS_MAX	100		/* distinct error texts kept per run */
#define PGBL_ERROR_TEXT_MAX	256		/* bytes of each kept, the rest cut */

/* How the clients reach the server (RunShared.via); client_libpq.c. */
typedef enum RunVia
{
	RUN_VIA_SPI = 0,			/* in-server, through SPI */
	RUN_VIA_LIBPQ,				/* one libpq connection per client */
	RUN_VIA_LIBPQ_CONNECT		/* a new libpq connection per transaction */
} RunVia;

/* How a script's statements are sent (RunShared.query_mode; pgbench -M). */
typedef enum RunQueryMode
{
	RUN_QUERY_PREPARED = 0,		/* prepared once per client, then executed */
	RUN_QUERY_SIMPLE,			/* values as literals in the text, planned each time */
	RUN_QUERY_EXTENDED			/* the text and its parameters, planned each time */
} RunQueryMode;

/* Life of a run, as seen in shared memory (RunShared.phase). */
typedef enum RunPhase
{
	RUN_PHASE_STARTING = 0,		/* coordinator launching clients */
	RUN_PHASE_RUNNING,			/* row committed, clients going */
	RUN_PHASE_FINISHED,			/* results committed */
	RUN_PHASE_START_FAILED		/* nothing recorded; start_error says why */
} RunPhase;

/* Why a run stops (RunShared.stop); the first reason set wins. */
typedef enum RunStop
{
	RUN_STOP_NONE = 0,
	RUN_STOP_END,				/* duration reached */
	RUN_STOP_CANCEL				/* cancel() or the waiting session gave up */
} RunStop;

/* Client states (RunClient.state). */
typedef enum ClientState
{
	CLIENT_NEW = 0,
	CLIENT_READY,				/* connected, plans prepared, waiting for go */
	CLIENT_DONE,				/* left the loop normally */
	CLIENT_ABORTED				/* ended by an error; error says which */
} ClientState;

/*
 * One client's counters.  Each is written by its client only and read by the
 * coordinator, except latency_max_interval and lag_max_interval, which the
 * coordinator swaps to zero once per progress interval.
 */
typedef struct RunClient
{
	pg_atomic_uint32 state;
	pg_atomic_uint32 pacing;	/* 1 while it waits by its own choice: for a
								 * rate's next slot or in a \sleep */
	int			pid;
	pg_atomic_uint64 xacts;			/* committed transactions */
	pg_atomic_uint64 failures;		/* transactions that failed for good */
	pg_atomic_uint64 retries;		/* retries of serialisation/deadlock */
	pg_atomic_uint64 serialization_failures;	/* failures by kind: 40001 */
	pg_atomic_uint64 deadlock_failures; /* ... and 40P01 */
	pg_atomic_uint64 latency_sum_ns;
	pg_atomic_uint64 latency_mean_us;	/* StatsMoments mean (float8 bits) */
	pg_atomic_uint64 latency_m2_us2;	/* ... and m2, in us^2 (float8 bits) */
	pg_atomic_uint64 latency_max_ns;
	pg_atomic_uint64 latency_max_interval;	/* max since the last sample */
	pg_atomic_uint64 blks_hit;
	pg_atomic_uint64 blks_read;
	int64		end_ns;			/* when it left its loop */
	uint64		cpu_ticks_end;	/* its process's CPU ticks then (0: unknown) */
	int64		initial_connect_ns; /* libpq: connecting before the go */
	pg_atomic_uint64 connects;	/* libpq: connections made after the go */
	pg_atomic_uint64 connect_ns;	/* ... and the time they took */
	/* with a rate (schedule lag, of committed transactions) and a latency limit */
	pg_atomic_uint64 lag_sum_ns;
	pg_atomic_uint64 lag_max_ns;
	pg_atomic_uint64 lag_max_interval;	/* max since the last sample */
	pg_atomic_uint64 late;		/* committed, but over the latency limit */
	pg_atomic_uint64 skipped;	/* slots skipped: later than the limit already */
	int64		scheduled;		/* slots due before it stopped; set at its end */
	WorkerError error;			/* the first error; set by the client */
	LatencyHistogram hist;
} RunClient;

/*
 * One server a libpq run's clients go to: the run's target (or this
 * server's own socket), or one element of its targets.  Client i goes to
 * target i % ntargets, or with target_clients to the target whose block of
 * clients holds it (RunnerClientTarget).  Its facts are read there by
 * the launching session before anything starts; a standby's conflict
 * counters are read again by the coordinator at the end.
 */
/*
 * A connection pooler between the lab and a target (client_pooler.c): the
 * backend that answers is not the one the connection announced.
 */
typedef enum RunPooler
{
	RUN_POOLER_NONE = 0,		/* the server itself */
	RUN_POOLER_SESSION,			/* a pooler that keeps a server connection per client */
	RUN_POOLER_TRANSACTION		/* one that hands it on between transactions */
} RunPooler;

typedef struct RunTarget
{
	char		conninfo[PGBL_CONNINFO_MAX];	/* may hold a password */
	char		display[PGBL_CONNINFO_MAX];	/* without passwords */
	char		server_version[PGBL_VERSION_MAX];
	bool		in_recovery;	/* a standby */
	char		settings[PGBL_SETTINGS_MAX];	/* its settings as jsonb text, or '' */
	char		system[PGBL_TARGET_SYSTEM_MAX];	/* its system_info() as jsonb text, or '' */
	char		system_note[PGBL_NOTE_MAX];	/* why system is '', or '' */
	/* a standby's pg_stat_database_conflicts at the start, jsonb text, or '' */
	char		conflicts_start[PGBL_CONFLICTS_MAX];
	bool		this_server;	/* the target is this very server */
	bool		this_database;	/* ... and the run's database there */
	char		server_id[64];	/* system identifier:postmaster start (us) */
	/* a primary's WAL position and checkpoints read there at the start */
	char		wal_lsn_start[PGBL_LSN_MAX];	/* '' when not read */
	char		ckpt_start[PGBL_LSN_MAX];	/* num_done, or (before 18) the control
											 * file's checkpoint LSN; '' unread */
	bool		ckpt_counted;	/* ckpt_start is num_done */
	char		figures_note[PGBL_NOTE_MAX];	/* why they were not read, or '' */
	RunPooler	pooler;			/* what stands between, as probed at launch */
} RunTarget;

/*
 * The distinct error texts a run's transactions met (each error that ended
 * a try, retried or not), with their counts: the first
 * PGBL_ERROR_TEXTS_MAX texts, then only a count of the others.  Every
 * client adds to it under the spinlock (RunErrorsAdd in client_ctx.c),
 * which is held for a scan of the hashes and at most one comparison of
 * texts; the coordinator reads it once every client has ended.
 */
typedef struct RunErrorText
{
	uint32		hash;			/* of sqlerrcode and message */
	int			sqlerrcode;
	uint64		count;
	int64		first_ns;		/* first met, after the go */
	char		message[PGBL_ERROR_TEXT_MAX];
} RunErrorText;

typedef struct RunErrors
{
	slock_t		lock;
	int			ntexts;
	uint64		others;			/* errors past the kept texts */
	int64		others_first_ns;
	RunErrorText text[PGBL_ERROR_TEXTS_MAX];
} RunErrors;

typedef struct RunShared
{
	uint32		magic;
	int64		run_id;
	dsm_handle	handle;

	/* who and where */
	Oid			dboid;
	Oid			login_role;		/* session user: the clients' login */
	Oid			run_role;		/* current user: what clients run as */
	Oid			owner_role;		/* extension owner: the coordinator */
	int			launcher_pid;

	/* what */
	WorkloadParams wl;			/* a built-in workload */
	char		workload[PGBL_LABEL_MAX];	/* as runs.workload records it */
	Size		script_area;	/* scripts: offset of their RunScriptArea, or 0 */
	Size		script_area_size;
	char	   *script_local;	/* the launcher's copy of it (only there) */
	Size		options_area;	/* the options given, as jsonb (RunSpecOfRun): offset */
	Size		options_area_size;
	char	   *options_local;	/* the launcher's copy of it (only there) */
	double		sample_rate;	/* share of transactions sampled; 0: none */
	Size		sample_area;	/* samples: offset of the clients' rings, or 0 */
	int			clients;
	int			threads;		/* libpq: workers driving the clients */
	int64		duration_ms;	/* 0 with a transaction count */
	int64		transactions;	/* per client, as pgbench -t; 0 = by time */
	int			max_tries;
	bool		seed_given;
	uint64		seed;
	double		rate;			/* transactions per second, all clients; 0: none */
	int64		latency_limit_ns;	/* 0: none */
	char		label[PGBL_LABEL_MAX];
	char		settings_json[PGBL_SETTINGS_MAX];	/* as given */
	int			nsettings;
	char		settings[PGBL_SETTINGS_MAX];	/* name\0value\0... */
	RunVia		via;
	RunQueryMode query_mode;
	bool		query_mode_given;	/* query_mode =>: not today's default */
	bool		pin_path;		/* the built-ins' pgbench text, on connections
								 * whose search_path the lab pinned */
	bool		target_local;	/* target NULL: this server's own socket */
	bool		targets_given;	/* targets =>, not target => */
	int			ntargets;		/* libpq: 1 .. PGBL_TARGETS_MAX */
	RunTarget	target[PGBL_TARGETS_MAX];
	int			target_clients[PGBL_TARGETS_MAX];	/* target_clients =>: each
													 * target's clients (0: spread
													 * round-robin) */
	bool		split;			/* scripts that read run on the standbys,
								 * those that write on the primaries */

	/* control */
	pg_atomic_uint32 phase;
	pg_atomic_uint32 stop;
	pg_atomic_uint32 go;
	int			coordinator_pid;
	WorkerError start_error;	/* why the run could not start */
	int64		start_ns;		/* monotonic clock at go */
	RunErrors	errors;			/* the error texts met (SpinLockInit'd) */

	RunClient	client[FLEXIBLE_ARRAY_MEMBER];
} RunShared;

#define RunSharedSize(nclients) \
	add_size(offsetof(RunShared, client), mul_size(sizeof(RunClient), (nclients)))

/*
 * The whole segment: the clients, then any scripts' area (script_run.h),
 * any samples' rings, and the options given (RunSpecOfRun).
 */
#define RunSharedTotalSize(p) \
	add_size(add_size(add_size(MAXALIGN(RunSharedSize((p)->clients)), MAXALIGN((p)->script_area_size)), \
					  MAXALIGN((p)->sample_rate > 0 ? SamplesAreaSize((p)->clients) : 0)), \
			 (p)->options_area_size)

/* Is this server among the run's servers (its standbys' lag is the run's)? */
static inline bool
RunIncludesHere(const RunShared *p)
{
	if (p->via == RUN_VIA_SPI || p->target_local)
		return true;
	for (int t = 0; t < p->ntargets; t++)
		if (p->target[t].this_server)
			return true;
	return false;
}

/*
 * Is this server the run's server, so that its own WAL, checkpoints,
 * buffers and machine are the run's figures?  An in-server run, a libpq
 * run to this server's socket, or one with this very server among its
 * targets and only standbys besides (a standby writes no WAL of its own).
 * Otherwise those figures are read on the targets or not measured: never
 * this server's under another's run.
 */
static inline bool
RunMeasuredHere(const RunShared *p)
{
	if (!RunIncludesHere(p))
		return false;
	for (int t = 0; t < p->ntargets && p->via != RUN_VIA_SPI && !p->target_local; t++)
		if (!p->target[t].this_server && !p->target[t].in_recovery)
			return false;
	return true;
}

/*
 * The target a libpq run's client i (from 0) connects to: round-robin, or
 * with target_clients the first target's block of clients, then the
 * second's, and so on.
 */
static inline int
RunnerClientTarget(const RunShared *p, int client)
{
	if (p->ntargets <= 1)
		return 0;
	if (p->target_clients[0] == 0)
		return client % p->ntargets;
	for (int t = 0; t < p->ntargets - 1; t++)
	{
		if (client < p->target_clients[t])
			return t;
		client -= p->target_clients[t];
	}
	return p->ntargets - 1;
}

#endif							/* PGBL_RUN_SHARED_H */
