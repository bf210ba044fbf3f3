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

#include "pgbench_lab.h"
#include "runner.h"
#include "secure.h"

typedef struct ClientCtx
{
	RunShared  *run;
	RunClient  *me;
	int			index;
	WorkloadPlans plans;
	pg_prng_state rng;
	MemoryContext loopcxt;
	/* local copies of the shared counters (we are their only writer) */
	uint64		xacts;
	uint64		failures;
	uint64		retries;
	uint64		lat_sum;
	StatsMoments lat_us;		/* for the standard deviation */
	uint64		lat_max;
	int64		hit_base;
	int64		read_base;
	bool		cancelled;		/* this client cancelled the run */
} ClientCtx;

/* Set when this worker receives SIGINT (pg_cancel_backend()). */
static volatile sig_atomic_t cancel_received = false;

static void
client_cancel_handler(SIGNAL_ARGS)
{
	cancel_received = true;
	StatementCancelHandler(postgres_signal_arg);
}

/* The client's first error, for the coordinator to record. */
static void
record_error(ClientCtx *cx, ErrorData *edata)
{
	WorkerErrorSave(&cx->me->error, edata);
}

/* Apply the run's settings (validated by the launcher) to this session. */
static void
apply_settings(RunShared *run)
{
	const char *p = run->settings;

	SecureWorkerSession();
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
		apply_settings(cx->run);
		if (SPI_connect() != SPI_OK_CONNECT)
			elog(ERROR, "SPI_connect failed");
		PushActiveSnapshot(GetTransactionSnapshot());
		if (cx->run->via == RUN_VIA_SPI)
			WorkloadPrepare(&cx->run->wl, &cx->plans);
		else
			LibpqClientSetup(cx->run, cx->me);
		SPI_finish();
		PopActiveSnapshot();
		CommitTransactionCommand();
	}
	PG_CATCH();
	{
		record_error(cx, caught_error(cx));
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

static inline bool
stop_requested(ClientCtx *cx)
{
	return pg_atomic_read_u32(&cx->run->stop) != RUN_STOP_NONE;
}

/* Is this error the cancel of this worker (not one sent by a target)? */
static bool
is_own_cancel(const ErrorData *edata)
{
	return edata->sqlerrcode == ERRCODE_QUERY_CANCELED && cancel_received;
}

/*
 * This worker was cancelled: record why and stop the run as cancel() does
 * (unless it is already stopping), waking the coordinator.
 */
static void
cancel_run(ClientCtx *cx, ErrorData *edata)
{
	uint32		none = RUN_STOP_NONE;

	record_error(cx, edata);
	cx->cancelled = true;
	/* a full barrier: the error is visible before the stop that shows it */
	if (pg_atomic_compare_exchange_u32(&cx->run->stop, &none, RUN_STOP_CANCEL))
		WorkerSetLatchOf(cx->run->coordinator_pid);
}

/* Publish the local counters after a transaction. */
static void
publish(ClientCtx *cx, uint64 latency_ns, bool committed)
{
	RunClient  *me = cx->me;
	uint64		imax;
	uint64		bits;

	if (committed && !pgbl_instrument)
	{
		pg_atomic_write_u64(&me->xacts, ++cx->xacts);
		return;
	}
	if (committed)
	{
		imax = pg_atomic_read_u64(&me->latency_max_interval);
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
		while (latency_ns > imax &&
			   !pg_atomic_compare_exchange_u64(&me->latency_max_interval, &imax, latency_ns))
			;
		/* last: the coordinator reads xacts first, then the sums */
		pg_write_barrier();
		pg_atomic_write_u64(&me->xacts, cx->xacts);
	}
	else
		pg_atomic_write_u64(&me->failures, ++cx->failures);
	pg_atomic_write_u64(&me->blks_hit, pgBufferUsage.shared_blks_hit - cx->hit_base);
	pg_atomic_write_u64(&me->blks_read, pgBufferUsage.shared_blks_read - cx->read_base);
}

/*
 * One pgbench transaction with its retries.  Returns false when the client
 * must end (a non-retryable error, or a stop that interrupted it).
 */
static bool
client_step(ClientCtx *cx)
{
	WorkloadDraw d;
	int64		t0 = pgbl_instrument ? WorkerNowNs() : 0;
	int			tries = 0;

	WorkloadDrawNext(&cx->run->wl, &cx->rng, &d);
	for (;;)
	{
		ErrorData  *edata = NULL;
		int			code;

		MemoryContextReset(cx->loopcxt);
		MemoryContextSwitchTo(cx->loopcxt);
		if (cx->run->via == RUN_VIA_SPI)
			code = client_xact(cx, &d, &edata);
		else
			code = LibpqXact(cx->run, cx->me, &d, &edata);
		tries++;
		if (code == 0)
		{
			publish(cx, pgbl_instrument ? (uint64) (WorkerNowNs() - t0) : 0, true);
			return true;
		}
		if (stop_requested(cx))
			return false;		/* interrupted by the end of the run */
		if (is_own_cancel(edata))
		{
			cancel_run(cx, edata);	/* not a failed transaction: not counted */
			return false;
		}
		if ((code == ERRCODE_T_R_SERIALIZATION_FAILURE ||
			 code == ERRCODE_T_R_DEADLOCK_DETECTED) &&
			(cx->run->max_tries == 0 || tries < cx->run->max_tries))
		{
			pg_atomic_write_u64(&cx->me->retries, ++cx->retries);
			continue;
		}
		record_error(cx, edata);
		publish(cx, 0, false);
		if (code == ERRCODE_T_R_SERIALIZATION_FAILURE ||
			code == ERRCODE_T_R_DEADLOCK_DETECTED)
			return true;		/* counted as failed; pgbench goes on */
		return false;
	}
}

/* Wait for the coordinator's go (or a stop before it). */
static void
wait_for_go(ClientCtx *cx)
{
	while (pg_atomic_read_u32(&cx->run->go) == 0 && !stop_requested(cx))
	{
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 10L, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
}

/* Transactions until the run stops; how the client ended. */
static ClientState
client_loop(ClientCtx *cx)
{
	RunShared  *run = cx->run;

	while (!stop_requested(cx))
	{
		if (run->transactions > 0 && cx->xacts + cx->failures >= (uint64) run->transactions)
			break;
		CHECK_FOR_INTERRUPTS();
		if (!client_step(cx))
		{
			if (cx->cancelled)
				return CLIENT_ABORTED;
			return stop_requested(cx) || !WorkerErrorIsSet(&cx->me->error) ? CLIENT_DONE : CLIENT_ABORTED;
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
	if (edata->sqlerrcode == ERRCODE_QUERY_CANCELED && stop_requested(cx))
		return CLIENT_DONE;
	if (is_own_cancel(edata))
		cancel_run(cx, edata);
	else
		record_error(cx, edata);
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
	pg_write_barrier();
	pgstat_report_stat(true);
	pg_atomic_write_u32(&cx->me->state, end);
}

static void
seed_client(ClientCtx *cx)
{
	if (cx->run->seed_given)
		pg_prng_seed(&cx->rng, cx->run->seed ^ (UINT64CONST(0x9E3779B97F4A7C15) * (uint64) (cx->index + 1)));
	else if (!pg_prng_strong_seed(&cx->rng))
		pg_prng_seed(&cx->rng, (uint64) MyProcPid ^ (uint64) GetCurrentTimestamp());
}

/*
 * Background worker entry point.  bgw_main_arg is the run's DSM handle and
 * bgw_extra the client's index.
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
	if (cx.run == NULL || cx.index < 0 || cx.index >= cx.run->clients)
		proc_exit(0);
	cx.me = &cx.run->client[cx.index];
	cx.me->pid = MyProcPid;
	cx.loopcxt = AllocSetContextCreate(TopMemoryContext, "pgbench_lab client",
									   ALLOCSET_DEFAULT_SIZES);
	MemoryContextSwitchTo(cx.loopcxt);

	WorkerConnectAs(cx.run->dboid, cx.run->login_role, cx.run->run_role);
	snprintf(activity, sizeof(activity), "pgbench_lab run " INT64_FORMAT ": %s client %d of %d",
			 cx.run->run_id, WorkloadName(cx.run->wl.kind), cx.index + 1, cx.run->clients);
	pgstat_report_activity(STATE_RUNNING, activity);

	if (!client_setup(&cx))
	{
		pg_atomic_write_u32(&cx.me->state, CLIENT_ABORTED);
		WorkerSetLatchOf(cx.run->coordinator_pid);
		proc_exit(0);
	}
	seed_client(&cx);
	pg_atomic_write_u32(&cx.me->state, CLIENT_READY);
	WorkerSetLatchOf(cx.run->coordinator_pid);

	client_run(&cx);
	WorkerSetLatchOf(cx.run->coordinator_pid);
	pgstat_report_activity(STATE_IDLE, NULL);
	proc_exit(0);
}
