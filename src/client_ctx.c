/*-------------------------------------------------------------------------
 *
 * client_ctx.c
 *		One simulated client's own state and figures, whichever process
 *		drives it: an in-server client worker (client.c) or a libpq worker
 *		among many (client_mux.c).
 *
 * Its generators: the workload's draws (with a seed, those of pgbench's
 * client of the same number), the rate's schedule and the sampling's, each
 * seeded apart.  Its figures: every transaction that ends, committed or
 * failed, is published once into its counters in the run's shared memory
 * (single writer per counter, no locks), and sampled (sample_rate).
 *
 * With a rate (pgbench -R), each client keeps its own schedule: a Poisson
 * process at the run's rate divided by its clients, as pgbench divides its
 * rate among its threads, drawn from a generator of its own (so the
 * workload's draws stay those of the same seed without a rate).  A
 * transaction's latency counts from its slot, not from when the client got
 * to it, and that delay, the schedule lag, is counted apart; a retry keeps
 * its slot.  With a latency limit (pgbench -L), committed transactions
 * over it are counted late, and with a rate, a slot already later than the
 * limit when the client gets to it is skipped and counted, as pgbench
 * skips it: its transaction would be late even if it took no time.  The
 * lag is checked when the slot is drawn and again when the transaction
 * would start (ClientSlotStart), so that no transaction that runs lags
 * more than the limit.  When
 * a client stops it counts the slots that fell due before (run, skipped or
 * not yet reached), so the coordinator can tell whether the rate was
 * sustained.
 *
 * Its errors: every error that ends a transaction's try, retried or not,
 * is counted with its text in the run's table of error texts (RunErrors:
 * the first PGBL_ERROR_TEXTS_MAX distinct texts of the run, the others
 * only counted), and a transaction that fails for good is counted by its
 * kind, serialisation failure or deadlock, as pgbench --failures-detailed
 * counts them.
 *
 * Its end: the first error is recorded for the run.  pg_cancel_backend()
 * on a client's worker cancels the whole run, as cancel() would: the
 * client records the cancel (SQLSTATE 57014) as its error and sets the
 * run's stop flag to RUN_STOP_CANCEL, so the run ends "cancelled" with
 * that error.  A 57014 that a target server sends back (its own
 * statement_timeout, a cancel of its backend) is an ordinary error of the
 * workload, as pgbench treats it; a SIGINT handler tells the two apart.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "executor/instrument.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "tcop/tcopprot.h"
#include "utils/guc.h"

#include "client_ctx.h"
#include "secure.h"
#include "telemetry.h"

/* more slots behind than this are skipped in one draw (skip_late_slots) */
#define PGBL_SKIP_BULK	32.0
/* at its end, a client draws at most this many slots to count the due ones */
#define PGBL_DUE_DRAWS	1000000
/* the longest mean gap between slots, so that no time overflows: 30 years */
#define PGBL_GAP_MAX_NS	1e18

/* Set when this worker receives SIGINT (pg_cancel_backend()). */
static volatile sig_atomic_t cancel_received = false;

static void
client_cancel_handler(SIGNAL_ARGS)
{
	cancel_received = true;
	StatementCancelHandler(postgres_signal_arg);
}

/* This worker's SIGINT: a cancel of the run (ClientIsOwnCancel tells it). */
void
ClientCatchCancel(void)
{
	pqsignal(SIGINT, client_cancel_handler);
}

/* The client's first error, for the coordinator to record. */
void
ClientRecordError(ClientCtx *cx, ErrorData *edata)
{
	WorkerErrorSave(&cx->me->error, edata);
}

/* FNV-1a over the SQLSTATE and the text. */
static uint32
error_hash(int sqlerrcode, const char *message)
{
	uint32		h = 2166136261u ^ (uint32) sqlerrcode;

	for (const unsigned char *p = (const unsigned char *) message; *p; p++)
		h = (h ^ *p) * 16777619u;
	return h;
}

/*
 * Count one error in the run's table of texts: its own entry, a new one
 * while there is room, else the others' count.  The text is cut (at a
 * character's boundary) before the lock is taken; under it, only the
 * hashes are scanned and at most a few texts compared.
 */
static void
errors_add(RunShared *run, int sqlerrcode, const char *message)
{
	RunErrors  *e = &run->errors;
	char		text[PGBL_ERROR_TEXT_MAX];
	int			len = strlen(message);
	int64		now = WorkerNowNs() - run->start_ns;
	uint32		hash;
	int			i;

	len = pg_mbcliplen(message, len, Min(len, PGBL_ERROR_TEXT_MAX - 1));
	memcpy(text, message, len);
	text[len] = '\0';
	hash = error_hash(sqlerrcode, text);
	SpinLockAcquire(&e->lock);
	for (i = 0; i < e->ntexts; i++)
		if (e->text[i].hash == hash && e->text[i].sqlerrcode == sqlerrcode &&
			strcmp(e->text[i].message, text) == 0)
			break;
	if (i < e->ntexts)
		e->text[i].count++;
	else if (i < PGBL_ERROR_TEXTS_MAX)
	{
		e->text[i].hash = hash;
		e->text[i].sqlerrcode = sqlerrcode;
		e->text[i].count = 1;
		e->text[i].first_ns = now;
		memcpy(e->text[i].message, text, len + 1);
		e->ntexts++;
	}
	else if (e->others++ == 0)
		e->others_first_ns = now;
	SpinLockRelease(&e->lock);
}

/*
 * An error ended a transaction's try: counted with its text, and if the
 * transaction failed for good (failed: not retried), by its kind.
 */
void
ClientCountError(ClientCtx *cx, const ErrorData *edata, bool failed)
{
	TransportErrorClass kind = TransportErrorClassOf(edata->sqlerrcode);

	errors_add(cx->run, edata->sqlerrcode,
			   edata->message && edata->message[0] ? edata->message : "unknown error");
	if (!failed)
		return;
	if (kind == TRANSPORT_ERROR_SERIALIZATION)
		pg_atomic_write_u64(&cx->me->serialization_failures, ++cx->serialization_failures);
	else if (kind == TRANSPORT_ERROR_DEADLOCK)
		pg_atomic_write_u64(&cx->me->deadlock_failures, ++cx->deadlock_failures);
}

/*
 * Apply the run's settings (validated by the launcher) to this session.  A
 * run of scripts resolves their names through the launching session's
 * search_path (the built-in workloads name every object with its schema).
 */
void
ClientApplySettings(RunShared *run)
{
	const char *p = run->settings;
	RunScriptArea *area = RunScriptAreaOf(run, run->script_area);

	SecureWorkerSession();
	if (area != NULL)
		SetConfigOption("search_path", RunScriptText(area, area->search_path),
						PGC_USERSET, PGC_S_SESSION);
	for (int i = 0; i < run->nsettings; i++)
	{
		const char *name = p;
		const char *value = p + strlen(p) + 1;

		(void) set_config_option(name, value, superuser() ? PGC_SUSET : PGC_USERSET,
								 PGC_S_SESSION, GUC_ACTION_SET, true, 0, false);
		p = value + strlen(value) + 1;
	}
}

bool
ClientStopRequested(ClientCtx *cx)
{
	return pg_atomic_read_u32(&cx->run->stop) != RUN_STOP_NONE;
}

/* Is this error the cancel of this worker (not one sent by a target)? */
bool
ClientIsOwnCancel(const ErrorData *edata)
{
	return edata->sqlerrcode == ERRCODE_QUERY_CANCELED && cancel_received;
}

/*
 * This worker was cancelled: record why and stop the run as cancel() does
 * (unless it is already stopping), waking the coordinator.
 */
void
ClientCancelRun(ClientCtx *cx, ErrorData *edata)
{
	uint32		none = RUN_STOP_NONE;

	ClientRecordError(cx, edata);
	cx->cancelled = true;
	/* a full barrier: the error is visible before the stop that shows it */
	if (pg_atomic_compare_exchange_u32(&cx->run->stop, &none, RUN_STOP_CANCEL))
		WorkerSetLatchOf(cx->run->coordinator_pid);
}

/* A maximum that the coordinator may swap to zero meanwhile. */
static void
raise_max(pg_atomic_uint64 *max, uint64 value)
{
	uint64		seen = pg_atomic_read_u64(max);

	while (value > seen && !pg_atomic_compare_exchange_u64(max, &seen, value))
		;
}

/*
 * Publish the local counters after a transaction: its latency, and with a
 * rate its schedule lag (both ns; failed transactions have neither, as in
 * pgbench).  Every transaction that ends, committed or failed, passes here
 * once: the one place to take per-transaction samples from.
 */
void
ClientPublish(ClientCtx *cx, uint64 latency_ns, uint64 lag_ns, bool committed)
{
	RunClient  *me = cx->me;
	uint64		bits;

	if (committed && !cx->timed)
	{
		pg_atomic_write_u64(&me->xacts, ++cx->xacts);
		return;
	}
	if (committed)
	{
		cx->xacts++;
		cx->lat_sum += latency_ns;
		StatsMomentsAdd(&cx->lat_us, latency_ns / 1000.0);
		if (latency_ns > cx->lat_max)
			cx->lat_max = latency_ns;
		me->hist.count[StatsBucket(latency_ns)]++;
		pg_atomic_write_u64(&me->latency_sum_ns, cx->lat_sum);
		memcpy(&bits, &cx->lat_us.mean, sizeof(bits));
		pg_atomic_write_u64(&me->latency_mean_us, bits);
		memcpy(&bits, &cx->lat_us.m2, sizeof(bits));
		pg_atomic_write_u64(&me->latency_m2_us2, bits);
		pg_atomic_write_u64(&me->latency_max_ns, cx->lat_max);
		raise_max(&me->latency_max_interval, latency_ns);
		if (cx->run->rate > 0)
		{
			cx->lag_sum += lag_ns;
			cx->lag_max = Max(cx->lag_max, lag_ns);
			pg_atomic_write_u64(&me->lag_sum_ns, cx->lag_sum);
			pg_atomic_write_u64(&me->lag_max_ns, cx->lag_max);
			raise_max(&me->lag_max_interval, lag_ns);
		}
		if (cx->run->latency_limit_ns > 0 && latency_ns > (uint64) cx->run->latency_limit_ns)
			pg_atomic_write_u64(&me->late, ++cx->late);
		/* last: the coordinator reads xacts first, then the sums */
		pg_write_barrier();
		pg_atomic_write_u64(&me->xacts, cx->xacts);
	}
	else
		pg_atomic_write_u64(&me->failures, ++cx->failures);
	if (cx->run->via != RUN_VIA_SPI)
		return;					/* the target's buffers are not this process's */
	pg_atomic_write_u64(&me->blks_hit, pgBufferUsage.shared_blks_hit - cx->hit_base);
	pg_atomic_write_u64(&me->blks_read, pgBufferUsage.shared_blks_read - cx->read_base);
}

/* With a sample rate: keep this transaction's sample, or not. */
void
ClientSample(ClientCtx *cx, int64 from, uint64 latency, uint64 lag, int script, int tries, bool failed)
{
	TxSample	s;

	if (cx->run->sample_rate <= 0 || pg_prng_double(&cx->sample_rng) >= cx->run->sample_rate)
		return;
	s.t_ms = (double) (from - cx->run->start_ns) / 1e6;
	s.latency_ms = (double) latency / 1e6;
	s.lag_ms = (double) lag / 1e6;
	s.script = cx->script ? script + 1 : 0;
	s.retries = (int16) Min(tries - 1, PG_INT16_MAX);
	s.failed = failed;
	SamplesAdd(cx->run, cx->index, &s);
}

/* One more slot of the schedule: exponential gaps make a Poisson process. */
static void
next_slot(ClientCtx *cx)
{
	cx->slot += -log(1.0 - pg_prng_double(&cx->sched_rng)) * cx->gap_ns;
	cx->drawn++;
}

/*
 * How many slots a Poisson process has in an interval where it expects
 * "mean" of them, for large means: the normal approximation, drawn with
 * Box and Muller's transform.
 */
static uint64
poisson_count(ClientCtx *cx, double mean)
{
	double		u = 1.0 - pg_prng_double(&cx->sched_rng);
	double		z = sqrt(-2.0 * log(u)) * cos(2.0 * M_PI * pg_prng_double(&cx->sched_rng));

	return (uint64) Max(0.0, rint(mean + sqrt(mean) * z));
}

/* Count n skipped slots, no more than the transaction count leaves. */
static bool
skip_slots(ClientCtx *cx, uint64 n)
{
	uint64		count = (uint64) cx->run->transactions;	/* 0: a timed run */
	uint64		done = cx->xacts + cx->failures + cx->skipped;
	uint64		left = count == 0 ? n : count - Min(count, done);

	cx->skipped += Min(n, left);
	pg_atomic_write_u64(&cx->me->skipped, cx->skipped);
	return count == 0 || n < left;
}

/*
 * With a latency limit, skip the slots already later than the limit, as
 * pgbench -L does.  Far behind, the slots before the horizon are counted in
 * one draw (their number is Poisson), and the next one is an exponential
 * gap after the horizon (the process has no memory), so that catching up
 * takes no longer than a few draws, whatever the rate.  False when the
 * client must end: the run stops, or the skipped slots reached its count.
 */
static bool
skip_late_slots(ClientCtx *cx)
{
	RunShared  *run = cx->run;
	double		horizon = (double) (WorkerNowNs() - run->start_ns - run->latency_limit_ns);

	while (cx->slot < horizon)
	{
		double		behind = (horizon - cx->slot) / cx->gap_ns;
		uint64		between = 0;

		if (ClientStopRequested(cx))
			return false;
		if (behind > PGBL_SKIP_BULK)
		{
			between = poisson_count(cx, behind);
			cx->slot = horizon;
			cx->drawn += between;
		}
		if (!skip_slots(cx, 1 + between))
			return false;
		next_slot(cx);
	}
	return true;
}

/*
 * The next slot of a rate-limited client (ClientNextSlot: drawn; throttle:
 * also waited for); its time in *slot.  False when the client must end
 * instead.
 */
bool
ClientNextSlot(ClientCtx *cx, int64 *slot)
{
	next_slot(cx);
	if (cx->run->latency_limit_ns > 0 && !skip_late_slots(cx))
		return false;
	/* a slot after the end of any run is as good as never */
	*slot = cx->run->start_ns + (int64) Min(cx->slot, PGBL_GAP_MAX_NS);
	return true;
}

/*
 * A rate-limited client at its slot *slot: may its transaction start now?
 * With a latency limit the slot's lag is checked again here, with the very
 * clock reading that becomes the transaction's start: a slot already later
 * than the limit is skipped, as pgbench -L skips it, and the next one drawn.
 * The check when the slot was drawn (ClientNextSlot) is not enough: the
 * client may get to the slot later than it was due (a late wake-up, a busy
 * machine).  So no transaction that runs lags more than the limit.
 * CLIENT_SLOT_GO: start it, at *start; CLIENT_SLOT_WAIT: wait for the next
 * slot, now in *slot; CLIENT_SLOT_END: the client must end instead.
 */
ClientSlot
ClientSlotStart(ClientCtx *cx, int64 *slot, int64 *start)
{
	int64		now = WorkerNowNs();

	if (cx->run->latency_limit_ns <= 0 || now - *slot <= cx->run->latency_limit_ns)
	{
		*start = now;
		return CLIENT_SLOT_GO;
	}
	if (!skip_slots(cx, 1) || !ClientNextSlot(cx, slot))
		return CLIENT_SLOT_END;
	return CLIENT_SLOT_WAIT;
}

/* Has the client run its transaction count (pgbench -t)? */
bool
ClientDoneCount(ClientCtx *cx)
{
	return cx->run->transactions > 0 &&
		cx->xacts + cx->failures + cx->skipped >= (uint64) cx->run->transactions;
}

/*
 * Called once at the client's end, after its end_ns is set: its process's
 * CPU time so far, for the coordinator's telemetry (the process may be
 * gone before the run's last second is written: TelemetryWrite), and with
 * a rate the slots of the schedule that fell due before the client
 * stopped: those drawn (run, skipped or waited for) and those it never got
 * to, drawn now up to a bound and estimated beyond it.
 */
void
ClientCountDueSlots(ClientCtx *cx)
{
	double		until = (double) (cx->me->end_ns - cx->run->start_ns);
	uint64		due = cx->drawn;
	uint64		ticks;

	if (TelemetryProcTicks(MyProcPid, &ticks))
		cx->me->cpu_ticks_end = ticks;
	if (cx->run->rate <= 0)
		return;
	if (cx->drawn > 0 && cx->slot > until)
		due--;					/* the slot it was waiting for */
	else
	{
		for (int n = 0;; n++)
		{
			double		next;

			if (n == PGBL_DUE_DRAWS)
			{
				due += (uint64) ((until - cx->slot) / cx->gap_ns);
				break;
			}
			next = cx->slot - log(1.0 - pg_prng_double(&cx->sched_rng)) * cx->gap_ns;
			if (next > until)
				break;
			cx->slot = next;
			due++;
		}
	}
	cx->me->scheduled = (int64) due;
}

/*
 * The client's generators: the workload's draws (with a seed, those of
 * pgbench's client of the same number), and the schedule's and sampling's,
 * seeded apart so that a rate does not change the draws of a seed.
 */
void
ClientSeed(ClientCtx *cx)
{
	uint64		mix = UINT64CONST(0x9E3779B97F4A7C15) * (uint64) (cx->index + 1);

	if (cx->run->seed_given)
	{
		WorkloadSeed(cx->run->seed, cx->index, &cx->rng);
		pg_prng_seed(&cx->sched_rng, ~(cx->run->seed ^ mix));
		pg_prng_seed(&cx->sample_rng, (cx->run->seed ^ mix) + UINT64CONST(0x5A4D504C));
	}
	else
	{
		if (!pg_prng_strong_seed(&cx->sample_rng))
			pg_prng_seed(&cx->sample_rng, (uint64) MyProcPid * UINT64CONST(0x9E3779B97F4A7C15) + mix);
		if (!pg_prng_strong_seed(&cx->rng))
			pg_prng_seed(&cx->rng, (uint64) MyProcPid ^ (uint64) GetCurrentTimestamp() ^ mix);
		if (!pg_prng_strong_seed(&cx->sched_rng))
			pg_prng_seed(&cx->sched_rng, ~((uint64) MyProcPid ^ (uint64) GetCurrentTimestamp() ^ mix));
	}
	/* the mean gap of this client's share of the rate, in ns (at most 30 years) */
	if (cx->run->rate > 0)
		cx->gap_ns = Min(1e9 * cx->run->clients / cx->run->rate, PGBL_GAP_MAX_NS);
}
