/*-------------------------------------------------------------------------
 *
 * stats.c
 *		Latency histograms for runs.
 *
 * Each client keeps its own histogram in the run's shared memory (one
 * writer, no locks); the coordinator merges them when the run ends.  The
 * log-linear layout (HDR-histogram style) keeps the relative error of any
 * percentile under 1/256 when read at a bucket's midpoint, whatever the
 * latency, in a fixed 35 kB per client.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "port/pg_bitutils.h"

#include "stats.h"

#define SUB_COUNT	(1 << PGBL_HIST_SUB_BITS)	/* 128 */

int
StatsBucket(uint64 ns)
{
	int			msb;
	int			shift;
	int			bucket;

	if (ns < 2 * SUB_COUNT)
		return (int) ns;
	msb = pg_leftmost_one_pos64(ns);
	shift = msb - PGBL_HIST_SUB_BITS;
	bucket = shift * SUB_COUNT + (int) (ns >> shift);
	return Min(bucket, PGBL_HIST_BUCKETS - 1);
}

static uint64
bucket_lower(int bucket)
{
	int			shift;

	if (bucket < 2 * SUB_COUNT)
		return (uint64) bucket;
	shift = bucket / SUB_COUNT - 1;
	return (uint64) (bucket - shift * SUB_COUNT) << shift;
}

/* Largest value (ns) that falls into the bucket. */
uint64
StatsBucketUpper(int bucket)
{
	int			shift;

	if (bucket < 2 * SUB_COUNT)
		return (uint64) bucket;
	shift = bucket / SUB_COUNT - 1;
	return (((uint64) (bucket - shift * SUB_COUNT) + 1) << shift) - 1;
}

void
StatsMerge(LatencyHistogram *into, const LatencyHistogram *from)
{
	for (int i = 0; i < PGBL_HIST_BUCKETS; i++)
		into->count[i] += from->count[i];
}

/*
 * The value below which the given fraction of the recorded latencies lie,
 * read at the middle of its bucket; -1 for an empty histogram.
 */
double
StatsPercentileNs(const LatencyHistogram *h, uint64 total, double fraction)
{
	uint64		rank;
	uint64		seen = 0;

	if (total == 0)
		return -1;
	rank = (uint64) ceil(fraction * (double) total);
	rank = Max(rank, 1);
	for (int i = 0; i < PGBL_HIST_BUCKETS; i++)
	{
		seen += h->count[i];
		if (seen >= rank)
			return ((double) bucket_lower(i) + (double) StatsBucketUpper(i)) / 2.0;
	}
	return (double) StatsBucketUpper(PGBL_HIST_BUCKETS - 1);
}

/* One more value (Welford's update). */
void
StatsMomentsAdd(StatsMoments *m, double x)
{
	double		delta = x - m->mean;

	m->n++;
	m->mean += delta / m->n;
	m->m2 += delta * (x - m->mean);
}

/* Two series as one (Chan, Golub and LeVeque's pairwise combination). */
void
StatsMomentsMerge(StatsMoments *into, const StatsMoments *from)
{
	double		n = (double) into->n + (double) from->n;
	double		delta = from->mean - into->mean;

	if (from->n == 0)
		return;
	into->mean += delta * ((double) from->n / n);
	into->m2 += from->m2 + delta * delta * ((double) into->n * (double) from->n / n);
	into->n += from->n;
}

/* Population standard deviation, as pgbench reports it; 0 when empty. */
double
StatsMomentsStddev(const StatsMoments *m)
{
	return m->n > 0 ? sqrt(Max(m->m2, 0) / m->n) : 0;
}
