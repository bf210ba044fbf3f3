/*-------------------------------------------------------------------------
 *
 * client.c
 *		A client worker: one of a run's simulated pgbench clients.
 *
 * The worker logs in as the role that started the run, applies the run's
 * session settings, prepares the workload's statements once (over its
 * SPI transport, as the script interpreter's are), reports ready
 * and waits for the coordinator's go.  Then it runs transactions until told
 * to stop or its transaction count is reached: each one is its own
 * top-level transaction, committed, timed and counted in the run's shared
 * memory (single writer per counter, no locks).
 *
 * With a rate (pgbench -R), the client sleeps on its latch until the next
 * slot of its schedule (client_ctx.c draws it; never spinning: under a
 * millisecond it sleeps the rest), so a stop, a cancel or an interrupt
 * still wakes it at once.  Its figures, its schedule and its samples are
 * those of client_ctx.c, which a libpq worker's clients share.
 *
 * An ERROR inside a transaction is caught, the transaction aborted and the
 * error counted: serialisation failures and deadlocks are retried with the
 * same draws up to max_tries, as pgbench does; any other error ends this
 * client (pgbench aborts the client too), and the run records it.  The
 * worker itself always exits normally.
 *
 * pg_cancel_backend() on a client worker cancels the whole run
 * (ClientCancelRun).  The cancel may be raised anywhere an interrupt is
 * checked: inside a transaction, between two, or while waiting for the go;
 * outside a transaction, the error is caught around the whole loop.
 *
 * A libpq run's workers come here too, and go to their event loop
 * (client_mux.c) once their settings are applied.
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

#include "client_ctx.h"
#include "client_mux.h"
#include "pgbench_lab.h"
#include "runner.h"
#include "script_run.h"

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
		else
		{
			MemoryContext cxt = AllocSetContextCreate(TopMemoryContext, "pgbench_lab workload",
													  ALLOCSET_SMALL_SIZES);
			Transport  *t = TransportSpiCreate(ClientTransportMode(cx->run), cxt);

			TransportSpiBetween(t, cx->loopcxt);
			WorkloadClientInit(&cx->builtin, &cx->run->wl, t, cx->run->pin_path, cxt);
		}
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
		WorkloadClientXact(&cx->builtin, d);
	}
	PG_CATCH();
	{
		Transport  *t = cx->builtin.t;

		*edata_out = caught_error(cx);
		sqlerrcode = (*edata_out)->sqlerrcode;
		t->ops->reset(t);
		t->in_xact = t->explicit_block = false;
	}
	PG_END_TRY();
	return sqlerrcode;
}

/*
 * One pgbench transaction with its retries, for the slot "scheduled" (the
 * monotonic clock's ns) with a rate, else 0, starting at "start" (the
 * clock read when the slot was found still due), else now.  Returns false
 * when the client must end (a non-retryable error, or a stop that
 * interrupted it).
 */
static bool
client_step(ClientCtx *cx, int64 scheduled, int64 start)
{
	WorkloadDraw d;
	int64		t0 = cx->timed ? (start > 0 ? start : WorkerNowNs()) : 0;
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
				ScriptClientEnded(cx->script, script, latency, 0);
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
			ClientCountError(cx, edata, false);
			pg_atomic_write_u64(&cx->me->retries, ++cx->retries);
			if (cx->script)
				ScriptClientRetry(cx->script, script);
			continue;
		}
		ClientRecordError(cx, edata);
		ClientCountError(cx, edata, true);
		ClientPublish(cx, 0, 0, false);
		if (cx->script)
			ScriptClientEnded(cx->script, script, 0, code);
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
 * The next slot, waited for; its start in *start (a slot later than a
 * latency limit by then is skipped: ClientSlotStart).  False when the
 * client must end instead.
 */
static bool
throttle(ClientCtx *cx, int64 *slot, int64 *start)
{
	if (!ClientNextSlot(cx, slot))
		return false;
	for (;;)
	{
		if (!wait_until(cx, *slot))
			return false;
		switch (ClientSlotStart(cx, slot, start))
		{
			case CLIENT_SLOT_GO:
				return true;
			case CLIENT_SLOT_WAIT:
				break;
			case CLIENT_SLOT_END:
				return false;
		}
	}
}

/* Transactions until the run stops; how the client ended. */
static ClientState
client_loop(ClientCtx *cx)
{
	RunShared  *run = cx->run;

	while (!ClientStopRequested(cx))
	{
		int64		slot = 0;
		int64		start = 0;

		if (ClientDoneCount(cx))
			break;
		CHECK_FOR_INTERRUPTS();
		if (run->rate > 0 && !throttle(cx, &slot, &start))
			break;
		if (!client_step(cx, slot, start))
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
	ClientCatchCancel();
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
