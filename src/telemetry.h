/*-------------------------------------------------------------------------
 *
 * telemetry.h
 *		Where a run's time went: the coordinator's per-second telemetry
 *		(pgbench_lab.run_telemetry) and its sampling of the clients' wait
 *		events between the per-second writes (telemetry.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef PGBL_TELEMETRY_H
#define PGBL_TELEMETRY_H

#include "postgres.h"

struct RunShared;
struct PGPROC;

/* How often the clients' wait events are sampled. */
#define PGBL_TELEMETRY_SAMPLE_NS	INT64CONST(10000000)	/* 10 ms */

/*
 * How often the standbys' lag (the WAL senders' positions) and, before
 * PostgreSQL 18, the last completed checkpoint are sampled: 20 times a
 * second, whatever the run.
 */
#define PGBL_TELEMETRY_LAG_NS		INT64CONST(50000000)	/* 50 ms */

/* Distinct wait events counted per second; more go to "Other:more". */
/*
 * A client waiting by its own choice (a rate's next slot, a script's
 * \sleep) is counted under this pseudo wait_event_info, "Idle:Pacing":
 * a class no PostgreSQL uses, so it never meets a real wait event.
 */
#define PGBL_WAIT_PACING			0xFF000000U

#define PGBL_TELEMETRY_MAX_WAITS	64

/* Machine CPU time from /proc/stat, in clock ticks. */
typedef enum TelemetryCpu
{
	TEL_CPU_USER,				/* user and nice */
	TEL_CPU_SYSTEM,				/* system, irq and softirq */
	TEL_CPU_IOWAIT,
	TEL_CPU_STEAL,
	TEL_CPU_IDLE,
	TEL_NCPU
} TelemetryCpu;

/* The server's cumulative counters, from its statistics views. */
typedef enum TelemetryStat
{
	TEL_STAT_CHECKPOINTS,
	TEL_STAT_BUFFERS_CHECKPOINT,
	TEL_STAT_BUFFERS_CLEAN,
	TEL_STAT_BUFFERS_BACKEND,
	TEL_STAT_WAL_RECORDS,
	TEL_STAT_WAL_FPI,
	TEL_STAT_WAL_BYTES,
	TEL_STAT_TEMP_FILES,		/* of the run's database */
	TEL_STAT_TEMP_BYTES,
	TEL_NSTAT
} TelemetryStat;

/* The data directory's disk, from /proc/diskstats. */
typedef enum TelemetryDisk
{
	TEL_DISK_READS,
	TEL_DISK_READ_BYTES,
	TEL_DISK_WRITES,
	TEL_DISK_WRITE_BYTES,
	TEL_DISK_BUSY_MS,			/* time with I/O in flight */
	TEL_NDISK
} TelemetryDisk;

/* One WAL sender's lag in the second: the largest of its samples. */
#define TEL_NLAG	4			/* sent, write, flush, replay */
typedef struct TelemetryLag
{
	int			pid;			/* the WAL sender's */
	int			samples;
	int64		max[TEL_NLAG];	/* bytes; -1: no position reported */
} TelemetryLag;

typedef struct TelemetryWait
{
	uint32		info;			/* wait_event_info; 0 is "CPU" */
	int			count;
} TelemetryWait;

/* What the coordinator keeps between two per-second writes. */
typedef struct Telemetry
{
	bool		on;				/* pgbench_lab.telemetry of the run */
	bool		waits_on;		/* in-server clients: their waits are theirs */
	struct RunShared *run;
	MemoryContext cxt;			/* one row's allocations, reset after each */
	int64		next_sample_ns;
	struct PGPROC **procs;		/* each client's, found once it runs */
	int			nwaits;
	TelemetryWait waits[PGBL_TELEMETRY_MAX_WAITS];
	int			samples;
	int			overflow;		/* samples of events beyond the array */
	bool		cpu_ok;
	uint64		cpu[TEL_NCPU];
	uint64	   *proc_ticks;		/* per process: coordinator, then clients */
	int64		stat[TEL_NSTAT];
	char		disk_name[64];	/* system_info()'s data_device; "" unknown */
	bool		disk_ok;
	uint64		disk[TEL_NDISK];
	/* this server is the run's (RunMeasuredHere): its figures are the run's */
	bool		here;
	/* the standbys' lag, sampled every PGBL_TELEMETRY_LAG_NS */
	bool		lag_columns;	/* run_replication has 0.3's sampled maxima */
	int64		next_lag_ns;
	int			nlag;
	TelemetryLag *lag;			/* max_wal_senders entries */
	/* checkpoints completed, counted where the server does not count them */
	bool		ckpt_watch;
	uint64		ckpt_lsn;		/* the control file's last checkpoint */
	int64		ckpt_second;	/* completions seen in the second */
	int64		ckpt_total;		/* ... and since TelemetryBegin */
} Telemetry;

extern void TelemetryInit(void);
extern void TelemetryBegin(Telemetry *tel, struct RunShared *run);
extern long TelemetryTick(Telemetry *tel, int64 now_ns, long timeout_ms);
extern void TelemetryWrite(Telemetry *tel, int second, double interval_seconds);
extern int64 TelemetryCheckpoints(Telemetry *tel);
extern bool TelemetryProcTicks(int pid, uint64 *ticks);

extern bool pgbl_telemetry;

#endif							/* PGBL_TELEMETRY_H */
