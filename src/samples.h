/*-------------------------------------------------------------------------
 *
 * samples.h
 *		Per-transaction samples of a run (pgbench --log --sampling-rate):
 *		each client keeps a share of its transactions in a ring of the
 *		run's shared memory, and the coordinator moves them into
 *		pgbench_lab.run_samples once a second.
 *
 * A ring has one writer (its client) and one reader (the coordinator):
 * the client writes a slot and then publishes the new head, the
 * coordinator reads up to the head it sees and then publishes its tail.  A
 * client whose ring is full drops the sample and counts it, so that a
 * client never waits for the coordinator; so does the coordinator, past
 * pgbench_lab.max_samples rows in one run.
 *
 *-------------------------------------------------------------------------
 */
#ifndef PGBL_SAMPLES_H
#define PGBL_SAMPLES_H

#include "port/atomics.h"

#define PGBL_SAMPLE_RING	2048	/* samples a client may have waiting */

typedef struct TxSample
{
	double		t_ms;			/* (scheduled) start, after the run's start */
	double		latency_ms;		/* NULL-like when failed */
	double		lag_ms;			/* with a rate */
	int32		script;			/* a run of scripts: which, from 1; else 0 */
	int16		retries;
	bool		failed;
} TxSample;

typedef struct SampleRing
{
	pg_atomic_uint64 head;		/* written by the client */
	pg_atomic_uint64 tail;		/* written by the coordinator */
	pg_atomic_uint64 dropped;	/* by the client: the ring was full */
	TxSample	slot[PGBL_SAMPLE_RING];
} SampleRing;

struct RunShared;

extern int	pgbl_max_samples;

extern void SamplesInit(void);
extern Size SamplesAreaSize(int clients);
extern void SamplesAreaInit(struct RunShared *run);
extern void SamplesAdd(struct RunShared *run, int client, const TxSample *s);
extern void SamplesFlush(struct RunShared *run);
extern void SamplesRecord(struct RunShared *run, bool final);

#endif							/* PGBL_SAMPLES_H */
