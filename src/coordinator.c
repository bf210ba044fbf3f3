/*-------------------------------------------------------------------------
 *
 * coordinator.c
 *		The coordinator worker: the party that owns a run.
 *
 * It starts the clients and waits until every one is connected and
 * prepared, and only then records the run (committed at once) and tells the
 * launching session the run id.  If any client cannot start, it stops the
 * others, records nothing and reports why, so a failed start leaves nothing
 * behind.  Then it starts the clock, writes one progress row per second,
 * stops the clients at the end (or on cancel), reads what a libpq run reads
 * on its targets at the end (outside any transaction, with a deadline), and
 * commits the results.  A client whose worker had to be terminated because
 * it did not stop in time is recorded as failed, with why.
 *
 * It logs in as the extension's owner: the result tables are writable only
 * by the extension.  The clients, not the coordinator, run the workload, as
 * the role that started the run.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
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

#include "client_libpq.h"
#include "pgbench_lab.h"
#include "results.h"
#include "run_spec.h"
#include "runner.h"
#include "secure.h"
#include "telemetry.h"

#define NS_PER_SEC	INT64CONST(1000000000)
#define STOP_GRACE_NS (INT64CONST(5) * NS_PER_SEC)

static BackgroundWorkerHandle **handles;

/* Coordinator gone, for whatever reason: the clients must stop too. */
static void
coordinator_detach(dsm_segment *seg, Datum arg)
{
	RunShared  *run = (RunShared *) DatumGetPointer(arg);
	uint32		none = RUN_STOP_NONE;

	(void) pg_atomic_compare_exchange_u32(&run->stop, &none, RUN_STOP_CANCEL);
}

/* Tell the launching session why the run could not start (it raises it). */
static void
start_failed(RunShared *run, int errcode, const char *msg, const char *hint)
{
	WorkerErrorSet(&run->start_error, errcode, msg, NULL, hint);
	pg_atomic_write_u32(&run->phase, RUN_PHASE_START_FAILED);
	WorkerSetLatchOf(run->launcher_pid);
}

/* Stop the clients started so far and wait until they are gone. */
static void
stop_clients(RunShared *run, int n)
{
	pg_atomic_write_u32(&run->stop, RUN_STOP_CANCEL);
	for (int i = 0; i < n; i++)
		TerminateBackgroundWorker(handles[i]);
	for (int i = 0; i < n; i++)
		(void) WaitForBackgroundWorkerShutdown(handles[i]);
}

static bool
launch_clients(RunShared *run)
{
	char		name[BGW_MAXLEN];
	char		msg[PGBL_WORKER_ERR_MAX];
	char		hint[PGBL_WORKER_ERR_MAX];

	int			n = RunnerWorkers(run);

	handles = palloc0(sizeof(BackgroundWorkerHandle *) * n);
	for (int i = 0; i < n; i++)
	{
		if (run->via == RUN_VIA_SPI)
			snprintf(name, sizeof(name), "pgbench_lab client %d", i + 1);
		else
			snprintf(name, sizeof(name), "pgbench_lab client %d-%d",
					 RunnerFirstClient(run, i) + 1, RunnerFirstClient(run, i + 1));
		if (WorkerRegister("pgbench_lab_client_main", "pgbench_lab client", name,
						   UInt32GetDatum(run->handle), i, &handles[i]))
			continue;
		stop_clients(run, i);
		snprintf(msg, sizeof(msg),
				 "could not start %d client workers: no free background worker slot after %d",
				 n, i);
		snprintf(hint, sizeof(hint),
				 "An in-server run needs one worker per client plus its coordinator (a libpq run "
				 "one per thread), all counted against max_worker_processes (now %d; changing it "
				 "needs a restart). Use fewer clients or raise max_worker_processes.",
				 max_worker_processes);
		start_failed(run, ERRCODE_CONFIGURATION_LIMIT_EXCEEDED, msg, hint);
		return false;
	}
	return true;
}

/* Has the worker that drives client i stopped? */
static bool
worker_stopped(RunShared *run, int i)
{
	int			n = RunnerWorkers(run);
	int			w = (int) (((int64) i * n) / run->clients);
	pid_t		pid;

	/* the integer division may land one worker off: move to the owner */
	while (w > 0 && RunnerFirstClient(run, w) > i)
		w--;
	while (w + 1 < n && RunnerFirstClient(run, w + 1) <= i)
		w++;
	return GetBackgroundWorkerPid(handles[w], &pid) == BGWH_STOPPED;
}

/* Wait until every client is ready; on any failure stop them all. */
static bool
wait_clients_ready(RunShared *run)
{
	char		msg[PGBL_WORKER_ERR_MAX];

	for (;;)
	{
		int			ready = 0;

		for (int i = 0; i < run->clients; i++)
		{
			RunClient  *c = &run->client[i];
			uint32		state = pg_atomic_read_u32(&c->state);

			if (state == CLIENT_READY)
				ready++;
			else if (state == CLIENT_ABORTED || worker_stopped(run, i))
			{
				bool		told;

				stop_clients(run, RunnerWorkers(run));
				told = WorkerErrorIsSet(&c->error);
				snprintf(msg, sizeof(msg), "client %d could not start: %s", i + 1,
						 told ? c->error.message : "the worker exited (see the server log)");
				start_failed(run, told ? c->error.sqlerrcode : ERRCODE_INTERNAL_ERROR, msg, NULL);
				return false;
			}
		}
		if (ready == run->clients)
			return true;
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 10L, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
}

/* Has every client left its loop (or died)? */
static bool
clients_finished(RunShared *run)
{
	for (int i = 0; i < run->clients; i++)
	{
		if (pg_atomic_read_u32(&run->client[i].state) == CLIENT_READY &&
			!worker_stopped(run, i))
			return false;
	}
	return true;
}

static void wait_clients_gone(RunShared *run);

/* When the last client left its loop. */
static int64
clients_end_ns(RunShared *run)
{
	int64		end = 0;

	for (int i = 0; i < run->clients; i++)
		end = Max(end, run->client[i].end_ns);
	return end;
}

static void
request_stop(RunShared *run, RunStop why)
{
	uint32		none = RUN_STOP_NONE;

	(void) pg_atomic_compare_exchange_u32(&run->stop, &none, why);
}

/* exit_on_abort (pgbench --exit-on-abort): has a client aborted? */
static bool
client_aborted(RunShared *run)
{
	for (int i = 0; i < run->clients; i++)
		if (pg_atomic_read_u32(&run->client[i].state) == CLIENT_ABORTED)
			return true;
	return false;
}

/*
 * The measured interval: one progress row per second until the duration is
 * reached, the clients finish their transactions, or the run is cancelled
 * (or, with exit_on_abort, a client aborts: the others stop at the end of
 * their transaction, and the run fails with its error).
 */
static void
monitor(RunShared *run, ResultsRun *res)
{
	int64		next = run->start_ns + NS_PER_SEC;
	/* a run by transaction count still stops at pgbench_lab.max_duration */
	int64		limit_ms = run->duration_ms > 0 ? run->duration_ms : (int64) pgbl_max_duration * 1000;
	int64		end = run->start_ns + limit_ms * INT64CONST(1000000);
	RunSample	prev;
	RunSample	cur;
	int			second = 1;
	Telemetry	tel;
	RunSpec		spec;
	bool		exit_on_abort;

	StartTransactionCommand();	/* the options' types are read in the catalogs */
	RunSpecOfRun(run, &spec);
	exit_on_abort = DatumGetBool(RunSpecDatum(&spec, RUN_OPT_EXIT_ON_ABORT));
	CommitTransactionCommand();
	memset(&prev, 0, sizeof(prev));
	TelemetryBegin(&tel, run);
	for (;;)
	{
		int64		now = WorkerNowNs();
		int64		wake;

		if (now >= end || (exit_on_abort && client_aborted(run)))
			request_stop(run, RUN_STOP_END);
		if (pg_atomic_read_u32(&run->stop) != RUN_STOP_NONE || clients_finished(run))
			break;
		if (now >= next)
		{
			ResultsSample(run, &cur, true);
			ResultsProgress(run, second, &prev, &cur, 1.0);
			TelemetryWrite(&tel, second++, 1.0);
			prev = cur;
			next += NS_PER_SEC;
		}
		wake = Min(next, end) - now;
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 TelemetryTick(&tel, now, Max(1L, Min(100L, (long) (wake / 1000000)))),
						 PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}

	/* let the clients finish their current transaction, then the last row */
	for (int i = 0; i < run->clients; i++)
		WorkerSetLatchOf(run->client[i].pid);
	wait_clients_gone(run);
	ResultsSample(run, &cur, true);
	res->end_ns = Max(clients_end_ns(run), run->start_ns + 1);
	ResultsProgress(run, second, &prev, &cur,
					(double) (res->end_ns - (next - NS_PER_SEC)) / NS_PER_SEC);
	TelemetryWrite(&tel, second, (double) (res->end_ns - (next - NS_PER_SEC)) / NS_PER_SEC);
	res->checkpoints_done = TelemetryCheckpoints(&tel);
}

/*
 * After a worker had to be terminated at the run's end: its clients that
 * were still going ended failed, and say why (not a cancel: those a cancel
 * stopped are not failures).
 */
static void
record_terminated(RunShared *run)
{
	char		msg[PGBL_WORKER_ERR_MAX];

	if (pg_atomic_read_u32(&run->stop) == RUN_STOP_CANCEL)
		return;
	for (int i = 0; i < run->clients; i++)
	{
		RunClient  *c = &run->client[i];

		if (pg_atomic_read_u32(&c->state) != CLIENT_READY)
			continue;
		snprintf(msg, sizeof(msg),
				 "did not stop within %d s of the run's end (its command under way got no answer?): "
				 "its worker was terminated", (int) (STOP_GRACE_NS / NS_PER_SEC));
		WorkerErrorSet(&c->error, ERRCODE_ADMIN_SHUTDOWN, msg, NULL, NULL);
		pg_write_barrier();
		pg_atomic_write_u32(&c->state, CLIENT_ABORTED);
	}
}

/* Wait for the clients to exit; stuck ones are terminated after a grace. */
static void
wait_clients_gone(RunShared *run)
{
	int64		deadline = WorkerNowNs() + STOP_GRACE_NS;
	bool		terminated = false;

	for (;;)
	{
		bool		all = true;

		for (int i = 0; i < RunnerWorkers(run); i++)
		{
			pid_t		pid;

			if (GetBackgroundWorkerPid(handles[i], &pid) != BGWH_STOPPED)
				all = false;
		}
		if (all)
		{
			if (terminated)
				record_terminated(run);
			return;
		}
		if (!terminated && WorkerNowNs() > deadline)
		{
			for (int i = 0; i < RunnerWorkers(run); i++)
				TerminateBackgroundWorker(handles[i]);
			terminated = true;
		}
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 10L, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
}

/* Background worker entry point; bgw_main_arg is the run's DSM handle. */
void
pgbench_lab_coordinator_main(Datum arg)
{
	RunShared  *run;
	dsm_segment *seg;
	ResultsRun	res;

	WorkerSignals();
	run = RunnerAttach(DatumGetUInt32(arg), -1, &seg);
	if (run == NULL)
		proc_exit(0);
	run->coordinator_pid = MyProcPid;
	on_dsm_detach(seg, coordinator_detach, PointerGetDatum(run));
	BackgroundWorkerInitializeConnectionByOid(run->dboid, run->owner_role, 0);

	/* it runs as the extension's owner: never with a chosen search_path */
	SecureWorkerSession();
	pgstat_report_activity(STATE_RUNNING, "pgbench_lab coordinator: starting clients");

	if (!launch_clients(run) || !wait_clients_ready(run))
		proc_exit(0);

	ResultsBegin(run, &res);	/* the run row, committed */
	pg_atomic_write_u32(&run->phase, RUN_PHASE_RUNNING);
	WorkerSetLatchOf(run->launcher_pid);

	run->start_ns = WorkerNowNs();
	pg_write_barrier();
	pg_atomic_write_u32(&run->go, 1);
	for (int i = 0; i < run->clients; i++)
		WorkerSetLatchOf(run->client[i].pid);

	PG_TRY();
	{
		monitor(run, &res);
		/* what is read on the targets at the end: outside any transaction */
		TargetsReadEnd(run);
		ResultsFinish(run, &res);
	}
	PG_CATCH();
	{
		ErrorData  *edata = WorkerCatch(TopMemoryContext, true);

		request_stop(run, RUN_STOP_CANCEL);
		wait_clients_gone(run);
		ResultsFailed(run, edata->message);
	}
	PG_END_TRY();
	pg_atomic_write_u32(&run->phase, RUN_PHASE_FINISHED);
	WorkerSetLatchOf(run->launcher_pid);
	pgstat_report_activity(STATE_IDLE, NULL);
	proc_exit(0);
}
