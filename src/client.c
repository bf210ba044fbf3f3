/*-------------------------------------------------------------------------
 *
 * client.c
 *		A client worker: one of a run's simulated pgbench clients.
 *
 * The worker logs in as the role that started the run, applies the run's
 * session settings, prepares the workload's statements once, reports ready
 * and waits for the coordinator's go.  Then it runs transactions until told
 * to stop or its transaction count is reached: each one is its own
 * top-level transaction, committed, timed and counted in the run's shared
 * memory (single writer per counter, no locks).
 *
 * With a rate (pgbench -R), each client keeps its own schedule: a Poisson
 * process at the run's rate divided by its clients, as pgbench divides its
 * rate among its threads, drawn from a generator of its own (so the
 * workload's draws stay those of the same seed without a rate).  The client
 * sleeps on its latch until the next slot (never spinning: under a
 * millisecond it sleeps the rest), so a stop, a cancel or an interrupt
 * still wakes it at once.  A transaction's latency counts from its slot,
 * not from when the client got to it, and that delay, the schedule lag, is
 * counted apart; a retry keeps its slot.  With a latency limit (pgbench
 * -L), committed transactions over it are counted late, and with a rate, a
 * slot already later than the limit when the client gets to it is skipped
 * and counted, as pgbench skips it: its transaction would be late even if
 * it took no time.  When a client stops it counts the slots that fell due
 * before (run, skipped or not yet reached), so the coordinator can tell
 * whether the rate was sustained.
 *
 * An ERROR inside a transaction is caught, the transaction aborted and the
 * error counted: serialisation failures and deadlocks are retried with the
 * same draws up to max_tries, as pgbench does; any other error ends this
 * client (pgbench aborts the client too), and the run records it.  The
 * worker itself always exits normally.
 *
 * pg_cancel_backend() on a client worker cancels the whole run, as cancel()
 * would: the client records the cancel (SQLSTATE 57014) as its error and
 * sets the run's stop flag to RUN_STOP_CANCEL, so the run ends "cancelled"
 * with that error.  The cancel may be raised anywhere an interrupt is
 * checked: inside a transaction, between two, or while waiting for the go;
 * outside a transaction, the error is caught around the whole loop.  A
 * 57014 that a target server sends back (its own statement_timeout, a
 * cancel of its backend) is an ordinary error of the workload, as pgbench
 * treats it; a SIGINT handler tells the two apart.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/xact.h"
#include "executor/instrument.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "tcop/tcopprot.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/wait_event.h"
#include "utils/snapmgr.h"

#include "client.h"
#include "pgbench_lab.h"
#include "runner.h"
#include "script_run.h"
#include "secure.h"


#define NS_PER_MS	INT64CONST(1000000)
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

/* The client's first error, for the coordinator to record. */
void
ClientRecordError(ClientCtx *cx, ErrorData *edata)
{
	WorkerErrorSave(&cx->me->error, edata);
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

/*
 * In a PG_CATCH block: the error, copied into the loop's context, with the
 * transaction it broke rolled back.  Not logged: failed transactions are
 * counted, and a client's first error is recorded with the run.
 */
static ErrorData *
caught_error(ClientCtx *cx)
{
	return WorkerCatch(cx->loopcxt, false);
}

/* Connect, set up and prepare; false (with the error recorded) on failure. */
static bool
client_setup(ClientCtx *cx)
{
	volatile bool ok = true;

	PG_TRY();
	{
		SetCurrentStatementStartTimestamp();
		StartTransactionCommand();
		ClientApplySettings(cx->run);
		/* a limit needs latencies, whatever pgbench_lab.instrument says */
		cx->timed = pgbl_instrument || cx->run->rate > 0 || cx->run->latency_limit_ns > 0;
		if (SPI_connect() != SPI_OK_CONNECT)
			elog(ERROR, "SPI_connect failed");
		PushActiveSnapshot(GetTransactionSnapshot());
		if (cx->run->script_area != 0)
		{
			MemoryContext cxt = AllocSetContextCreate(TopMemoryContext, "pgbench_lab script",
													  ALLOCSET_DEFAULT_SIZES);

			cx->script = ScriptClientSetup(cx->run, cx->index, cx->timed,
										   TransportSpiCreate(ClientTransportMode(cx->run), cxt),
										   cxt);
		}
		if (cx->script == NULL)
			WorkloadPrepare(&cx->run->wl, &cx->plans);
		SPI_finish();
		PopActiveSnapshot();
		CommitTransactionCommand();
	}
	PG_CATCH();
	{
		ClientRecordError(cx, caught_error(cx));
		ok = false;
	}
	PG_END_TRY();
	return ok;
}

/*
 * Run one transaction.  Returns 0 when committed, else the SQLSTATE of the
 * error that aborted it (the error is kept in *edata_out).
 */
static int
client_xact(ClientCtx *cx, const WorkloadDraw *d, ErrorData **edata_out)
{
	volatile int sqlerrcode = 0;

	PG_TRY();
	{
		SetCurrentStatementStartTimestamp();
		StartTransactionCommand();
		if (SPI_connect() != SPI_OK_CONNECT)
			elog(ERROR, "SPI_connect failed");
		PushActiveSnapshot(GetTransactionSnapshot());
		WorkloadExecute(&cx->run->wl, &cx->plans, d);
		SPI_finish();
		PopActiveSnapshot();
		CommitTransactionCommand();
	}
	PG_CATCH();
	{
		*edata_out = caught_error(cx);
		sqlerrcode = (*edata_out)->sqlerrcode;
	}
	PG_END_TRY();
	return sqlerrcode;
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

/*
 * One pgbench transaction with its retries, for the slot "scheduled" (the
 * monotonic clock's ns) with a rate, else 0.  Returns false when the client
 * must end (a non-retryable error, or a stop that interrupted it).
 */
static bool
client_step(ClientCtx *cx, int64 scheduled)
{
	WorkloadDraw d;
	int64		t0 = cx->timed ? WorkerNowNs() : 0;
	int64		from = scheduled > 0 ? scheduled : t0;
	int			tries = 0;
	int			script = 0;

	if (cx->script)
		script = ScriptClientChoose(cx->script);
	else
		WorkloadDrawNext(&cx->run->wl, &cx->rng, &d);
	for (;;)
	{
		ErrorData  *edata = NULL;
		int			code;

		MemoryContextReset(cx->loopcxt);
		MemoryContextSwitchTo(cx->loopcxt);
		if (cx->script)
			code = ScriptClientXact(cx->script, script, cx->loopcxt, &edata);
		else
			code = client_xact(cx, &d, &edata);
		tries++;
		if (code == 0)
		{
			uint64		latency = cx->timed ? (uint64) Max(WorkerNowNs() - from, 0) : 0;

			ClientPublish(cx, latency, (uint64) Max(t0 - from, 0), true);
			if (cx->script)
				ScriptClientEnded(cx->script, script, latency, true);
			ClientSample(cx, from, latency, (uint64) Max(t0 - from, 0), script, tries, false);
			return true;
		}
		if (ClientStopRequested(cx))
			return false;		/* interrupted by the end of the run */
		if (ClientIsOwnCancel(edata))
		{
			ClientCancelRun(cx, edata);	/* not a failed transaction: not counted */
			return false;
		}
		if (TransportRetryable(code) && (cx->run->max_tries == 0 || tries < cx->run->max_tries))
		{
			pg_atomic_write_u64(&cx->me->retries, ++cx->retries);
			if (cx->script)
				ScriptClientRetry(cx->script, script);
			continue;
		}
		ClientRecordError(cx, edata);
		ClientPublish(cx, 0, 0, false);
		if (cx->script)
			ScriptClientEnded(cx->script, script, 0, false);
		ClientSample(cx, from, 0, (uint64) Max(t0 - from, 0), script, tries, true);
		if (TransportRetryable(code))
			return true;		/* counted as failed; pgbench goes on */
		return false;
	}
}

/* Wait for the coordinator's go (or a stop before it). */
static void
wait_for_go(ClientCtx *cx)
{
	/* idle, as between scheduled slots: telemetry counts no wait here */
	pg_atomic_write_u32(&cx->me->pacing, 1);
	while (pg_atomic_read_u32(&cx->run->go) == 0 && !ClientStopRequested(cx))
	{
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 10L, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
	pg_atomic_write_u32(&cx->me->pacing, 0);
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
 * Sleep until the monotonic clock reaches "when", on the latch (whole
 * milliseconds) and then pg_usleep (the rest); false if the run stops
 * meanwhile.  Interrupts are checked at every wake-up.
 */
static bool
wait_until(ClientCtx *cx, int64 when)
{
	for (;;)
	{
		int64		now;

		if (ClientStopRequested(cx))
			return false;
		now = WorkerNowNs();
		if (now >= when)
			return true;
		if (when - now >= NS_PER_MS)
		{
			pg_atomic_write_u32(&cx->me->pacing, 1);
			(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
							 (long) Min((when - now) / NS_PER_MS, 1000), PG_WAIT_EXTENSION);
			pg_atomic_write_u32(&cx->me->pacing, 0);
			ResetLatch(MyLatch);
		}
		else
			pg_usleep((long) ((when - now + 999) / 1000));
		CHECK_FOR_INTERRUPTS();
	}
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

static bool
throttle(ClientCtx *cx, int64 *slot)
{
	return ClientNextSlot(cx, slot) && wait_until(cx, *slot);
}

/* Has the client run its transaction count (pgbench -t)? */
bool
ClientDoneCount(ClientCtx *cx)
{
	return cx->run->transactions > 0 &&
		cx->xacts + cx->failures + cx->skipped >= (uint64) cx->run->transactions;
}

/*
 * The slots of the schedule that fell due before the client stopped: those
 * drawn (run, skipped or waited for) and those it never got to, drawn now
 * up to a bound and estimated beyond it.
 */
void
ClientCountDueSlots(ClientCtx *cx)
{
	double		until = (double) (cx->me->end_ns - cx->run->start_ns);
	uint64		due = cx->drawn;

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

/* Transactions until the run stops; how the client ended. */
static ClientState
client_loop(ClientCtx *cx)
{
	RunShared  *run = cx->run;

	while (!ClientStopRequested(cx))
	{
		int64		slot = 0;

		if (ClientDoneCount(cx))
			break;
		CHECK_FOR_INTERRUPTS();
		if (run->rate > 0 && !throttle(cx, &slot))
			break;
		if (!client_step(cx, slot))
		{
			if (cx->cancelled)
				return CLIENT_ABORTED;
			return ClientStopRequested(cx) || !WorkerErrorIsSet(&cx->me->error) ? CLIENT_DONE : CLIENT_ABORTED;
		}
		pgstat_report_stat(false);
	}
	return CLIENT_DONE;
}

/*
 * An ERROR raised outside a transaction (an interrupt checked between two,
 * or while waiting for the go) ends the client here rather than the
 * worker: a cancel of this worker cancels the run, anything else is the
 * client's error.  A cancel once the run is stopping anyway changes nothing.
 */
static ClientState
client_error(ClientCtx *cx, ErrorData *edata)
{
	if (edata->sqlerrcode == ERRCODE_QUERY_CANCELED && ClientStopRequested(cx))
		return CLIENT_DONE;
	if (ClientIsOwnCancel(edata))
		ClientCancelRun(cx, edata);
	else
		ClientRecordError(cx, edata);
	return CLIENT_ABORTED;
}

/* Wait for the go, run, and say how the client ended. */
static void
client_run(ClientCtx *cx)
{
	volatile ClientState end = CLIENT_DONE;

	cx->hit_base = pgBufferUsage.shared_blks_hit;
	cx->read_base = pgBufferUsage.shared_blks_read;
	PG_TRY();
	{
		wait_for_go(cx);
		end = client_loop(cx);
	}
	PG_CATCH();
	{
		end = client_error(cx, caught_error(cx));
	}
	PG_END_TRY();
	cx->me->end_ns = WorkerNowNs();
	ClientCountDueSlots(cx);
	pg_write_barrier();
	pgstat_report_stat(true);
	pg_atomic_write_u32(&cx->me->state, end);
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

/*
 * A libpq worker: its settings and whether its clients time their
 * transactions, read in a transaction as an in-server client's are; then
 * its clients' event loop (client_mux.c).
 */
static void
libpq_worker(RunShared *run, int worker)
{
	int			first = RunnerFirstClient(run, worker);
	int			count = RunnerFirstClient(run, worker + 1) - first;
	char		activity[128];
	bool		timed;

	snprintf(activity, sizeof(activity), "pgbench_lab run " INT64_FORMAT ": %s clients %d-%d of %d",
			 run->run_id, run->workload, first + 1, first + count, run->clients);
	pgstat_report_activity(STATE_RUNNING, activity);
	StartTransactionCommand();
	ClientApplySettings(run);
	/* a limit needs latencies, whatever pgbench_lab.instrument says */
	timed = pgbl_instrument || run->rate > 0 || run->latency_limit_ns > 0;
	CommitTransactionCommand();
	LibpqWorkerRun(run, first, count, timed);
	pgstat_report_activity(STATE_IDLE, NULL);
	proc_exit(0);
}

/*
 * Background worker entry point.  bgw_main_arg is the run's DSM handle and
 * bgw_extra the worker's index: an in-server client's, or a libpq worker's,
 * which drives a range of clients (RunnerFirstClient).
 */
void
pgbench_lab_client_main(Datum arg)
{
	ClientCtx	cx;
	dsm_segment *seg;
	char		activity[128];

	memset(&cx, 0, sizeof(cx));
	memcpy(&cx.index, MyBgworkerEntry->bgw_extra, sizeof(int));
	WorkerSignals();
	pqsignal(SIGINT, client_cancel_handler);
	cx.run = RunnerAttach(DatumGetUInt32(arg), -1, &seg);
	if (cx.run == NULL || cx.index < 0 || cx.index >= RunnerWorkers(cx.run))
		proc_exit(0);
	WorkerConnectAs(cx.run->dboid, cx.run->login_role, cx.run->run_role);
	if (cx.run->via != RUN_VIA_SPI)
		libpq_worker(cx.run, cx.index);
	cx.me = &cx.run->client[cx.index];
	cx.me->pid = MyProcPid;
	cx.loopcxt = AllocSetContextCreate(TopMemoryContext, "pgbench_lab client",
									   ALLOCSET_DEFAULT_SIZES);
	MemoryContextSwitchTo(cx.loopcxt);

	snprintf(activity, sizeof(activity), "pgbench_lab run " INT64_FORMAT ": %s client %d of %d",
			 cx.run->run_id, cx.run->workload, cx.index + 1, cx.run->clients);
	pgstat_report_activity(STATE_RUNNING, activity);

	if (!client_setup(&cx))
	{
		pg_atomic_write_u32(&cx.me->state, CLIENT_ABORTED);
		WorkerSetLatchOf(cx.run->coordinator_pid);
		proc_exit(0);
	}
	ClientSeed(&cx);
	pg_atomic_write_u32(&cx.me->state, CLIENT_READY);
	WorkerSetLatchOf(cx.run->coordinator_pid);

	client_run(&cx);
	WorkerSetLatchOf(cx.run->coordinator_pid);
	pgstat_report_activity(STATE_IDLE, NULL);
	proc_exit(0);
}
