/*-------------------------------------------------------------------------
 *
 * stats.h
 *		Latency histograms: log-linear buckets with 128 steps per power of
 *		two, so any percentile read from them is within 0.8% of the truth,
 *		and the one method that reads a run's percentiles (stats.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef PGBL_STATS_H
#define PGBL_STATS_H

/*
 * Values are nanoseconds.  Below 256 ns each value has its own bucket; above,
 * a bucket spans 1/128 of its power of two.  4480 buckets reach 2^40 ns
 * (18 minutes); longer latencies land in the last one.
 */
#define PGBL_HIST_SUB_BITS	7
#define PGBL_HIST_BUCKETS	4480

typedef struct LatencyHistogram
{
	uint64		count[PGBL_HIST_BUCKETS];
} LatencyHistogram;

/*
 * Count, mean and sum of squared deviations of a series (Welford), so that
 * a standard deviation needs no sum of squares, which overflows an integer
 * for long transactions and loses everything to cancellation in a double.
 * Clients publish mean and m2 as float8 bits in 64-bit atomics.
 */
typedef struct StatsMoments
{
	uint64		n;
	double		mean;
	double		m2;
} StatsMoments;

extern int	StatsBucket(uint64 ns);
extern uint64 StatsBucketUpper(int bucket);
extern void StatsMerge(LatencyHistogram *into, const LatencyHistogram *from);
extern int64 StatsRank(int64 total, double fraction);
extern double StatsValueAtRank(const double *upper_us, const int64 *count, int n, int64 rank,
							   double max_ms);
extern void StatsMomentsAdd(StatsMoments *m, double x);
extern void StatsMomentsMerge(StatsMoments *into, const StatsMoments *from);
extern double StatsMomentsStddev(const StatsMoments *m);

#endif							/* PGBL_STATS_H */
