/*-------------------------------------------------------------------------
 *
 * samples.c
 *		Per-transaction samples: the clients' rings and the coordinator's
 *		inserts into pgbench_lab.run_samples (see samples.h).
 *
 * The coordinator inserts a second's samples in one statement, as arrays
 * unnested, inside the transaction of that second's progress row, and
 * counts what it kept and what was dropped (by full rings, or past
 * pgbench_lab.max_samples) for the run's row.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "utils/array.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"

#include "pgbench_lab.h"
#include "run_shared.h"
#include "samples.h"

int			pgbl_max_samples = 1000000;

/* What the coordinator kept and dropped (only the coordinator has these). */
static uint64 samples_kept = 0;
static uint64 samples_over = 0;

void
SamplesInit(void)
{
	/* a limit: a value the session was configured with stays (runner_limits.c) */
	bool		pending = LimitsPending(PGBL_GUC_PREFIX ".max_samples");

	DefineCustomIntVariable(PGBL_GUC_PREFIX ".max_samples",
							"Most per-transaction samples one run keeps in pgbench_lab.run_samples.",
							"Samples past it are counted, not kept; only superusers may raise this.",
							&pgbl_max_samples, 1000000, 0, INT_MAX,
							PGC_SUSET, 0, NULL, NULL, NULL);
	LimitsDefined(PGBL_GUC_PREFIX ".max_samples", pending);
}

static inline SampleRing *
ring_of(RunShared *run, int client)
{
	return (SampleRing *) ((char *) run + run->sample_area) + client;
}

Size
SamplesAreaSize(int clients)
{
	return mul_size(sizeof(SampleRing), clients);
}

void
SamplesAreaInit(RunShared *run)
{
	for (int i = 0; i < run->clients; i++)
	{
		SampleRing *r = ring_of(run, i);

		pg_atomic_init_u64(&r->head, 0);
		pg_atomic_init_u64(&r->tail, 0);
		pg_atomic_init_u64(&r->dropped, 0);
	}
}

/* A client keeps a sample, or counts it dropped when its ring is full. */
void
SamplesAdd(RunShared *run, int client, const TxSample *s)
{
	SampleRing *r = ring_of(run, client);
	uint64		head = pg_atomic_read_u64(&r->head);

	if (head - pg_atomic_read_u64(&r->tail) >= PGBL_SAMPLE_RING)
	{
		pg_atomic_write_u64(&r->dropped, pg_atomic_read_u64(&r->dropped) + 1);
		return;
	}
	r->slot[head % PGBL_SAMPLE_RING] = *s;
	pg_write_barrier();			/* the slot before the head that shows it */
	pg_atomic_write_u64(&r->head, head + 1);
}

static Datum
array_of(Datum *values, int n, Oid type)
{
	int16		len;
	bool		byval;
	char		align;

	get_typlenbyvalalign(type, &len, &byval, &align);
	return PointerGetDatum(construct_array(values, n, type, len, byval, align));
}

/* One client's waiting samples, inserted (SPI connected, in a transaction). */
static void
flush_ring(RunShared *run, int client)
{
	SampleRing *r = ring_of(run, client);
	uint64		tail = pg_atomic_read_u64(&r->tail);
	uint64		head = pg_atomic_read_u64(&r->head);
	int			n;
	Datum	   *cols[7];
	Oid			types[10] = {INT8OID, INT4OID, INT8ARRAYOID, FLOAT8ARRAYOID, FLOAT8ARRAYOID,
	FLOAT8ARRAYOID, INT4ARRAYOID, INT4ARRAYOID, BOOLARRAYOID, BOOLOID};
	Datum		v[10];

	pg_read_barrier();			/* the head before the slots it shows */
	if (head == tail)
		return;
	n = (int) (head - tail);
	if (samples_kept + n > (uint64) pgbl_max_samples)
	{
		uint64		room = (uint64) pgbl_max_samples - Min(samples_kept, (uint64) pgbl_max_samples);

		samples_over += n - room;
		n = (int) room;
	}
	if (n == 0)
	{
		pg_atomic_write_u64(&r->tail, head);
		return;
	}
	for (int c = 0; c < 7; c++)
		cols[c] = palloc(sizeof(Datum) * n);
	for (int i = 0; i < n; i++)
	{
		const TxSample *s = &r->slot[(tail + i) % PGBL_SAMPLE_RING];

		cols[0][i] = Int64GetDatum((int64) (tail + i + 1));
		cols[1][i] = Float8GetDatum(s->t_ms);
		cols[2][i] = Float8GetDatum(s->latency_ms);
		cols[3][i] = Float8GetDatum(s->lag_ms);
		cols[4][i] = Int32GetDatum(s->script);
		cols[5][i] = Int32GetDatum(s->retries);
		cols[6][i] = BoolGetDatum(s->failed);
	}
	v[0] = Int64GetDatum(run->run_id);
	v[1] = Int32GetDatum(client + 1);
	v[2] = array_of(cols[0], n, INT8OID);
	v[3] = array_of(cols[1], n, FLOAT8OID);
	v[4] = array_of(cols[2], n, FLOAT8OID);
	v[5] = array_of(cols[3], n, FLOAT8OID);
	v[6] = array_of(cols[4], n, INT4OID);
	v[7] = array_of(cols[5], n, INT4OID);
	v[8] = array_of(cols[6], n, BOOLOID);
	v[9] = BoolGetDatum(run->rate > 0);
	if (SPI_execute_with_args("INSERT INTO pgbench_lab.run_samples (run_id, client, sample, t_ms, "
							  "latency_ms, lag_ms, script, retries, failed) "
							  "SELECT $1, $2, s.n, s.t, CASE WHEN NOT s.f THEN s.l END, "
							  "CASE WHEN $10 THEN s.g END, "
							  "CASE WHEN s.s OPERATOR(pg_catalog.<>) 0 THEN s.s END, s.r, s.f "
							  "FROM ROWS FROM (pg_catalog.unnest($3), pg_catalog.unnest($4), "
							  "pg_catalog.unnest($5), pg_catalog.unnest($6), pg_catalog.unnest($7), "
							  "pg_catalog.unnest($8), pg_catalog.unnest($9)) AS s(n, t, l, g, s, r, f)",
							  10, types, v, NULL, false, 0) != SPI_OK_INSERT)
		elog(ERROR, "could not record the samples of run " INT64_FORMAT, run->run_id);
	samples_kept += n;
	pg_atomic_write_u64(&r->tail, head);
}

/* Every client's waiting samples, in the transaction of a progress row. */
void
SamplesFlush(RunShared *run)
{
	if (run->sample_area == 0)
		return;
	for (int i = 0; i < run->clients; i++)
		flush_ring(run, i);
}

/*
 * The run row's sample rate, at its start; what was kept and dropped, at
 * its end (in the transactions of the run row and of its results).
 */
void
SamplesRecord(RunShared *run, bool final)
{
	uint64		dropped = samples_over;
	Oid			types[3] = {INT8OID, INT8OID, INT8OID};
	Datum		v[3];

	if (run->sample_area == 0)
		return;
	if (!final)
	{
		Oid			rtypes[2] = {INT8OID, FLOAT8OID};
		Datum		rv[2] = {Int64GetDatum(run->run_id), Float8GetDatum(run->sample_rate)};

		if (SPI_execute_with_args("UPDATE pgbench_lab.runs SET sample_rate = $2 "
								  "WHERE run_id OPERATOR(pg_catalog.=) $1", 2, rtypes, rv, NULL,
								  false, 0) != SPI_OK_UPDATE)
			elog(ERROR, "could not record the sample rate of run " INT64_FORMAT, run->run_id);
		return;
	}
	for (int i = 0; i < run->clients; i++)
		dropped += pg_atomic_read_u64(&ring_of(run, i)->dropped);
	v[0] = Int64GetDatum(run->run_id);
	v[1] = Int64GetDatum((int64) samples_kept);
	v[2] = Int64GetDatum((int64) dropped);
	if (SPI_execute_with_args("UPDATE pgbench_lab.runs SET samples = $2, samples_dropped = $3 "
							  "WHERE run_id OPERATOR(pg_catalog.=) $1", 3, types, v, NULL,
							  false, 0) != SPI_OK_UPDATE)
		elog(ERROR, "could not record the samples of run " INT64_FORMAT, run->run_id);
}
