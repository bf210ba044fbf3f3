/*-------------------------------------------------------------------------
 *
 * stats.c
 *		Latency histograms for runs.
 *
 * Each client keeps its own histogram in the run's shared memory (one
 * writer, no locks); the coordinator merges them when the run ends.  The
 * log-linear layout (HDR-histogram style) keeps a bucket's width under
 * 1/128 of the latencies it holds, whatever the latency, in a fixed 35 kB
 * per client.
 *
 * A run's percentiles are read by one method wherever they are shown
 * (StatsValueAtRank): the run's row as the coordinator writes it, and
 * every SQL reader through pgbench_lab_internal.histogram_values()
 * (latency_percentiles(), report(), latency_curve), from the histogram as
 * run_latency holds it (each non-empty bucket's upper bound in
 * microseconds and its count).  The percentile p of n latencies is the
 * one at rank ceil(n p), read as the upper bound of the bucket that holds
 * that rank, and never above the run's largest latency: so it is never
 * below the latency at that rank (nor below the run's smallest) and at
 * most a bucket's width (0.8 %) above it.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "common/int.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "port/pg_bitutils.h"
#include "utils/array.h"

#include "stats.h"

PG_FUNCTION_INFO_V1(pgbench_lab_histogram_values);

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

/* The rank of the percentile fraction of total values: ceil(total x fraction), at least 1. */
int64
StatsRank(int64 total, double fraction)
{
	double		r = ceil(fraction * (double) total);

	return r < 1 ? 1 : (r >= (double) total ? total : (int64) r);
}

/*
 * The latency (ms) at a rank (1: the smallest) of a histogram given as its
 * n non-empty buckets, their upper bounds in microseconds, ascending, and
 * their counts: the upper bound of the bucket that holds the rank, no
 * higher than max_ms, the largest latency (ignored when below 0).  A rank
 * beyond the count reads the last bucket.
 */
double
StatsValueAtRank(const double *upper_us, const int64 *count, int n, int64 rank, double max_ms)
{
	int64		seen = 0;
	double		v = upper_us[n - 1] / 1000.0;

	for (int i = 0; i < n; i++)
	{
		if (pg_add_s64_overflow(seen, count[i], &seen))
			seen = PG_INT64_MAX;
		if (seen >= rank)
		{
			v = upper_us[i] / 1000.0;
			break;
		}
	}
	if (max_ms >= 0 && v > max_ms)
		v = max_ms;
	return v;
}

/* A one-dimensional array of a fixed-width type without NULLs, or an error. */
static int
flat_array(ArrayType *a, Oid type, const char *name, Datum **items)
{
	bool	   *nulls;
	int			n;

	if (ARR_NDIM(a) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("%s must be a one-dimensional array", name),
				 errhint("Pass the histogram as run_latency holds it, one element per bucket.")));
	deconstruct_array(a, type, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE, items, &nulls, &n);
	for (int i = 0; i < n; i++)
		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("%s must not hold NULL", name),
					 errhint("Pass the histogram as run_latency holds it, one element per bucket.")));
	return n;
}

/*
 * pgbench_lab_internal.histogram_values(upper_us double precision[],
 *     counts bigint[], ranks bigint[], max_ms double precision)
 *     RETURNS double precision[]
 *
 * The latency (ms) at each rank of a histogram (StatsValueAtRank): the
 * buckets' upper bounds in microseconds, ascending, and their counts; the
 * largest latency, NULL when unknown.  NULL when there is no bucket.
 */
Datum
pgbench_lab_histogram_values(PG_FUNCTION_ARGS)
{
	Datum	   *upper;
	Datum	   *count;
	Datum	   *rank;
	int			n;
	int			nranks;
	double	   *u;
	int64	   *c;
	Datum	   *out;
	double		max_ms = PG_ARGISNULL(3) ? -1 : PG_GETARG_FLOAT8(3);

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2))
		PG_RETURN_NULL();
	n = flat_array(PG_GETARG_ARRAYTYPE_P(0), FLOAT8OID, "upper_us", &upper);
	if (flat_array(PG_GETARG_ARRAYTYPE_P(1), INT8OID, "counts", &count) != n)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("upper_us and counts must have as many elements"),
				 errhint("Each bucket has its upper bound and its count.")));
	nranks = flat_array(PG_GETARG_ARRAYTYPE_P(2), INT8OID, "ranks", &rank);
	if (n == 0)
		PG_RETURN_NULL();
	u = palloc(sizeof(double) * n);
	c = palloc(sizeof(int64) * n);
	for (int i = 0; i < n; i++)
	{
		CHECK_FOR_INTERRUPTS();
		u[i] = DatumGetFloat8(upper[i]);
		c[i] = DatumGetInt64(count[i]);
		if (c[i] < 0 || isnan(u[i]) || (i > 0 && !(u[i] > u[i - 1])))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("a histogram needs ascending upper bounds and counts of 0 or more"),
					 errhint("Pass the buckets in the order of their upper bounds, as run_latency holds them.")));
	}
	out = palloc(sizeof(Datum) * Max(nranks, 1));
	for (int i = 0; i < nranks; i++)
		out[i] = Float8GetDatum(StatsValueAtRank(u, c, n, DatumGetInt64(rank[i]), max_ms));
	PG_RETURN_ARRAYTYPE_P(construct_array(out, nranks, FLOAT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
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
