/*-------------------------------------------------------------------------
 *
 * client_mux.c
 *		A libpq worker: many clients' connections driven from one process,
 *		as one pgbench thread (-j) drives its share of the clients (-c).
 *
 * A libpq run has "threads" workers; each owns a contiguous range of the
 * run's clients (RunnerFirstClient) and drives their connections through
 * libpq's asynchronous API, in one event loop: a WaitEventSet with the
 * worker's latch and one socket event per open connection.  Each
 * connection is a small state machine (MuxConn, client_mux.h) with
 * everything a client worker of its own would have: its script position,
 * draws, schedule, timing, retry state and its own figures in the run's
 * shared memory, so that nothing in the results changes shape.  This file
 * is the loop: each turn runs the clients' timers (the next transaction of
 * an idle client, a rate's slot, a \sleep's end, connect_timeout), then
 * waits for the sockets, the latch or the next timer and hands each ready
 * socket to its connection (client_mux_conn.c while connecting,
 * client_mux_xact.c for a command's results); a client whose transaction
 * that ends starts its next one there and then, as a pgbench client does.
 *
 * Two ways of waiting.  Before the go (connecting, then waiting for it)
 * the worker waits in a WaitEventSet (epoll on Linux), whose latch the
 * coordinator sets at the go.  From the go on it waits as pgbench's
 * threads do, in poll() over its open sockets: an epoll set stays
 * registered on every socket, so each result a server sends would run
 * the set's callback in that backend even while this worker is busy and
 * not waiting, where poll() is registered only while the worker sleeps
 * (measured: about 1 % more transactions per second at 2 clients, and no
 * change at 1 or 64; docs/performance.md).  poll() has no latch: the
 * latch is looked at after every wait, the waits are cut at the run's
 * scheduled end (the coordinator's stop is seen then, not up to
 * PGBL_MUX_POLL_MS later) and at PGBL_MUX_POLL_MS, and a signal (a
 * cancel, a terminate) interrupts poll() itself.
 *
 * The rules of the one-client path hold: a stop at the end of the run lets
 * transactions under way finish (connects are abandoned), a cancel
 * abandons them (a query on this server is cancelled first), and every
 * connection is closed on any exit of the worker (before_shmem_exit), so a
 * cancelled or terminated run leaves none behind on the target.  An error
 * of the loop itself (an interrupt) ends every client still going, as the
 * in-server clients' errors would end them.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <poll.h>

#include "miscadmin.h"
#include "pgstat.h"
#include "storage/ipc.h"
#include "storage/pmsignal.h"
#include "storage/latch.h"
#include "utils/memutils.h"
#include "utils/wait_event.h"

#include "client_mux.h"
#include "compat.h"
#include "pgbench_lab.h"

MuxWorker  *pgbl_mux;

static void
on_socket(MuxConn *c)
{
	if (c->state == MUX_SETUP || c->state == MUX_CONNECT)
	{
		if (MuxPollConnect(c))
			MuxConnected(c);
	}
	else if (c->lp.conn != NULL)
		MuxReadResults(c);
}

/* An idle client: its next transaction, at once or at its slot; or its end. */
static void
on_idle(MuxConn *c)
{
	int64		slot = 0;

	if (ClientDoneCount(&c->cx) || ClientStopRequested(&c->cx))
	{
		MuxEndClient(c, CLIENT_DONE);
		return;
	}
	if (c->cx.run->rate > 0)
	{
		if (!ClientNextSlot(&c->cx, &slot))
		{
			MuxEndClient(c, CLIENT_DONE);
			return;
		}
		c->state = MUX_SLOT;
		c->wake_ns = slot;
		return;
	}
	MuxBeginXact(c, 0, 0);
}

/* At its slot: the transaction starts, or the slot is skipped (late). */
static void
on_slot(MuxConn *c)
{
	int64		slot = c->wake_ns;
	int64		start = 0;

	switch (ClientSlotStart(&c->cx, &slot, &start))
	{
		case CLIENT_SLOT_GO:
			MuxBeginXact(c, slot, start);
			break;
		case CLIENT_SLOT_WAIT:
			c->wake_ns = slot;	/* still MUX_SLOT, for the next one */
			break;
		case CLIENT_SLOT_END:
			MuxEndClient(c, CLIENT_DONE);
			break;
	}
}

static void
on_sleep_over(MuxConn *c)
{
	c->wake_ns = 0;
	c->state = MUX_BUSY;		/* the step goes on from the \sleep */
	MuxScriptContinue(c);
}

static void
on_connect_timer(MuxConn *c)
{
	MuxCheckConnectTimeout(c, WorkerNowNs());
}

/* The set of the latch and every open connection's socket. */
static void
rebuild_set(void)
{
	if (pgbl_mux->set != NULL)
		FreeWaitEventSet(pgbl_mux->set);
	pgbl_mux->set = PgblCreateWaitEventSet(pgbl_mux->count + 2);
	AddWaitEventToSet(pgbl_mux->set, WL_LATCH_SET, PGINVALID_SOCKET, MyLatch, NULL);
	AddWaitEventToSet(pgbl_mux->set, WL_EXIT_ON_PM_DEATH, PGINVALID_SOCKET, NULL, NULL);
	for (int i = 0; i < pgbl_mux->count; i++)
	{
		MuxConn    *c = &pgbl_mux->conns[i];

		c->pos = -1;
		c->sock = c->lp.conn != NULL ? PQsocket(c->lp.conn) : PGINVALID_SOCKET;
		if (c->sock != PGINVALID_SOCKET)
			c->pos = AddWaitEventToSet(pgbl_mux->set, MuxConnEvents(c), c->sock, NULL, c);
	}
	pgbl_mux->dirty = false;
}

/*
 * A command under way at the run's end got no answer within
 * PGBL_MUX_END_ANSWER_S (a frozen or cut-off server): the client ends
 * failed, and says which target and why.
 */
static void
end_unanswered(MuxConn *c)
{
	char		msg[PGBL_WORKER_ERR_MAX];
	char		detail[PGBL_WORKER_ERR_MAX];

	/* the run's error names the target of a client when there are several */
	snprintf(msg, sizeof(msg), "the target server sent no answer within %d s of the run's end",
			 PGBL_MUX_END_ANSWER_S);
	if (c->t0 > 0)
		snprintf(detail, sizeof(detail),
				 "Its transaction had been under way for %.1f s when the run ended; "
				 "the server may be frozen, overloaded or cut off.  Its connection was closed.",
				 (double) Max(c->end_seen - c->t0, 0) / NS_PER_SEC);
	else
		snprintf(detail, sizeof(detail),
				 "A transaction was under way when the run ended; the server may be frozen, "
				 "overloaded or cut off.  Its connection was closed.");
	/* this, not an earlier failed transaction, is why the client ended */
	c->cx.me->error.message[0] = '\0';
	WorkerErrorSet(&c->cx.me->error, ERRCODE_CONNECTION_FAILURE, msg, detail, NULL);
	MuxEndClient(c, CLIENT_ABORTED);
}

/*
 * The run stops: with a cancel every client ends now (transactions and
 * connects abandoned); at the end of the run, those between transactions
 * or connecting end, and those with a command under way finish it, within
 * PGBL_MUX_END_ANSWER_S.
 */
static void
on_stop(MuxConn *c, uint32 stop, int64 now)
{
	if (c->state == MUX_DONE)
		return;
	if (stop == RUN_STOP_CANCEL || c->state != MUX_BUSY)
		MuxEndClient(c, CLIENT_DONE);
	else if (c->end_seen == 0)
		c->end_seen = now;
	else if (now - c->end_seen >= PGBL_MUX_END_ANSWER_S * NS_PER_SEC)
		end_unanswered(c);
}

/* The timers due, and what the loop may sleep before the next (ms). */
static long
run_timers(bool go)
{
	int64		now = WorkerNowNs();
	int64		next = now + PGBL_MUX_POLL_MS * NS_PER_MS;
	uint32		stop = pg_atomic_read_u32(&pgbl_mux->run->stop);

	/*
	 * Going, a poll() is not woken by the coordinator's latch: the wait
	 * ends at the run's scheduled end, and after it in steps of a
	 * millisecond until the coordinator's stop is seen.
	 */
	if (go && stop == RUN_STOP_NONE && pgbl_mux->run->duration_ms > 0)
		next = Min(next, Max(pgbl_mux->run->start_ns + pgbl_mux->run->duration_ms * NS_PER_MS,
							 now + NS_PER_MS));
	for (int i = 0; i < pgbl_mux->count; i++)
	{
		MuxConn    *c = &pgbl_mux->conns[i];

		MemoryContextReset(pgbl_mux->itercxt);
		if (stop != RUN_STOP_NONE)
			on_stop(c, stop, now);
		switch (c->state)
		{
			case MUX_READY:
				if (go)
					c->state = MUX_IDLE;
				else
					break;
				/* FALLTHROUGH */
			case MUX_IDLE:
				MuxGuarded(c, on_idle);
				if (c->state == MUX_IDLE || c->state == MUX_SLOT)
					next = now;	/* come back at once */
				break;
			case MUX_SLOT:
			case MUX_SLEEP:
				if (c->wake_ns <= now)
				{
					MuxGuarded(c, c->state == MUX_SLOT ? on_slot : on_sleep_over);
					next = now;
				}
				else
					next = Min(next, c->wake_ns);
				break;
			case MUX_SETUP:
			case MUX_CONNECT:
				MuxGuarded(c, on_connect_timer);
				if (c->deadline > 0)
					next = Min(next, c->deadline);
				break;
			default:
				break;
		}
	}
	return (long) Max((next - WorkerNowNs() + NS_PER_MS - 1) / NS_PER_MS, 0);
}

/* Are all of this worker's clients over? */
static bool
all_done(void)
{
	for (int i = 0; i < pgbl_mux->count; i++)
		if (pgbl_mux->conns[i].state != MUX_DONE)
			return false;
	return true;
}

/*
 * A socket is ready: its connection reads or connects on.  If that ended
 * its transaction, the next one goes out now, as pgbench's client goes on,
 * so that its server works on it while this loop reads the other sockets
 * (the timers would send it only after all of them).  on_idle is what the
 * timers would run.
 */
static void
on_ready(MuxConn *c)
{
	MemoryContextReset(pgbl_mux->itercxt);
	MuxGuarded(c, on_socket);
	if (c->state == MUX_IDLE)
	{
		MemoryContextReset(pgbl_mux->itercxt);
		MuxGuarded(c, on_idle);
	}
}

/* Before the go: wait for the sockets, the latch or the next timer. */
static void
wait_events(long timeout_ms, WaitEvent *events)
{
	int			n;

	if (pgbl_mux->dirty || pgbl_mux->set == NULL)
		rebuild_set();
	n = WaitEventSetWait(pgbl_mux->set, timeout_ms, events, pgbl_mux->count + 2, PG_WAIT_EXTENSION);
	for (int e = 0; e < n; e++)
	{
		MuxConn    *c = (MuxConn *) events[e].user_data;

		if (events[e].events & WL_LATCH_SET)
			ResetLatch(MyLatch);
		if (c == NULL || c->pos != events[e].pos || c->state == MUX_DONE || pgbl_mux->dirty)
			continue;			/* the set changed meanwhile: the next turn sees it */
		on_ready(c);
	}
}

/*
 * From the go on: poll() over the open sockets, as pgbench waits (see the
 * head of this file).  The set of wait events is freed at the first turn
 * (its epoll instance would stay registered on the sockets) and every
 * connection's pos set to -1 then, so that a connect in progress marks
 * the set to be rebuilt rather than change an event in it.
 */
static void
wait_poll(long timeout_ms)
{
	struct pollfd *fds = pgbl_mux->fds;
	int			n = 0;
	int			rc;

	for (int i = 0; i < pgbl_mux->count; i++)
	{
		MuxConn    *c = &pgbl_mux->conns[i];
		pgsocket	sock;
		int			events;

		if (c->state == MUX_DONE || c->lp.conn == NULL ||
			(sock = PQsocket(c->lp.conn)) == PGINVALID_SOCKET)
			continue;
		events = MuxConnEvents(c);
		fds[n].fd = sock;
		fds[n].events = ((events & WL_SOCKET_READABLE) ? POLLIN : 0) |
			((events & WL_SOCKET_WRITEABLE) ? POLLOUT : 0);
		fds[n].revents = 0;
		pgbl_mux->fd_conn[n++] = i;
	}
	if (pgbl_mux->set != NULL)
	{
		FreeWaitEventSet(pgbl_mux->set);
		pgbl_mux->set = NULL;
		for (int i = 0; i < pgbl_mux->count; i++)
			pgbl_mux->conns[i].pos = -1;
	}
	pgstat_report_wait_start(PG_WAIT_EXTENSION);
	rc = poll(fds, n, (int) Min(timeout_ms, PGBL_MUX_POLL_MS));
	pgstat_report_wait_end();
	if (rc < 0 && errno != EINTR)
		ereport(ERROR,
				(errcode_for_socket_access(),
				 errmsg("pgbench_lab libpq worker: poll() failed: %m")));
	if (!PostmasterIsAlive())
		proc_exit(1);
	if (MyLatch->is_set)
		ResetLatch(MyLatch);
	for (int k = 0; k < n && rc > 0; k++)
	{
		MuxConn    *c = &pgbl_mux->conns[pgbl_mux->fd_conn[k]];

		if (fds[k].revents != 0 && c->state != MUX_DONE)
			on_ready(c);
	}
}

/* Each client's own state: its interpreter, generators and figures. */
static void
setup_clients(RunShared *run, int first, bool timed)
{
	MemoryContext scripts = AllocSetContextCreate(TopMemoryContext, "pgbench_lab scripts",
												  ALLOCSET_DEFAULT_SIZES);

	StartTransactionCommand();
	for (int i = 0; i < pgbl_mux->count; i++)
	{
		MuxConn    *c = &pgbl_mux->conns[i];

		c->cx.run = run;
		c->cx.index = first + i;
		c->cx.me = &run->client[first + i];
		c->cx.me->pid = MyProcPid;
		c->cx.timed = timed;
		c->cx.loopcxt = pgbl_mux->itercxt;
		c->pos = -1;
		TransportLibpqInit(&c->lp, ClientTransportMode(run));
		if (run->script_area != 0)
			c->cx.script = ScriptClientSetup(run, first + i, timed, &c->lp.t, scripts);
		ClientSeed(&c->cx);
	}
	CommitTransactionCommand();
}

static void
connect_initial(MuxConn *c)
{
	MuxStartConnect(c, MUX_SETUP);
}

/* Before the go: the clients connect (all at once), or are ready. */
static void
start_clients(void)
{
	for (int i = 0; i < pgbl_mux->count; i++)
	{
		MuxConn    *c = &pgbl_mux->conns[i];

		c->state = MUX_SETUP;
		if (c->cx.run->via == RUN_VIA_LIBPQ)
			MuxGuarded(c, connect_initial);
		else
		{
			c->state = MUX_READY;
			pg_atomic_write_u32(&c->cx.me->state, CLIENT_READY);
		}
	}
	WorkerSetLatchOf(pgbl_mux->run->coordinator_pid);
}

/*
 * An error of the loop itself (an interrupt: a cancel of this worker, or
 * anything else): a cancel is recorded by the first client still going and
 * cancels the run, as an in-server client's does; any other error ends
 * every client still going with it.
 */
static void
loop_failed(ErrorData *edata)
{
	bool		first = true;

	for (int i = 0; i < pgbl_mux->count; i++)
	{
		MuxConn    *c = &pgbl_mux->conns[i];

		if (c->state == MUX_DONE)
			continue;
		if (edata->sqlerrcode == ERRCODE_QUERY_CANCELED && ClientStopRequested(&c->cx))
			MuxEndClient(c, CLIENT_DONE);
		else if (ClientIsOwnCancel(edata))
		{
			if (first)
				ClientCancelRun(&c->cx, edata);
			MuxEndClient(c, first ? CLIENT_ABORTED : CLIENT_DONE);
		}
		else
		{
			ClientRecordError(&c->cx, edata);
			MuxEndClient(c, CLIENT_ABORTED);
		}
		first = false;
	}
}

/*
 * A libpq worker's life: set up its clients count clients from first,
 * connect them, wait for the go, and run them until each is over.
 */
void
LibpqWorkerRun(RunShared *run, int first, int count, bool timed)
{
	MemoryContext cxt = AllocSetContextCreate(TopMemoryContext, "pgbench_lab libpq worker",
											  ALLOCSET_DEFAULT_SIZES);
	WaitEvent  *events;

	MemoryContextSwitchTo(cxt);
	pgbl_mux = palloc0(sizeof(MuxWorker));
	pgbl_mux->cxt = cxt;
	pgbl_mux->dirty = true;
	pgbl_mux->run = run;
	pgbl_mux->count = count;
	pgbl_mux->conns = palloc0(sizeof(MuxConn) * count);
	pgbl_mux->itercxt = AllocSetContextCreate(cxt, "pgbench_lab libpq turn", ALLOCSET_DEFAULT_SIZES);
	events = palloc(sizeof(WaitEvent) * (count + 2));
	pgbl_mux->fds = palloc(sizeof(struct pollfd) * count);
	pgbl_mux->fd_conn = palloc(sizeof(int) * count);
	before_shmem_exit(MuxCloseAll, (Datum) 0);
	setup_clients(run, first, timed);
	PG_TRY();
	{
		start_clients();
		while (!all_done())
		{
			bool		go = pg_atomic_read_u32(&run->go) != 0;
			long		timeout;

			CHECK_FOR_INTERRUPTS();
			timeout = run_timers(go);
			if (all_done())
				break;
			MemoryContextSwitchTo(cxt);
			if (go)
				wait_poll(timeout);
			else
				wait_events(timeout, events);
			MemoryContextSwitchTo(cxt);
		}
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		FlushErrorState();
		loop_failed(edata);
	}
	PG_END_TRY();
	MuxCloseAll(0, (Datum) 0);
	if (pgbl_mux->set != NULL)
		FreeWaitEventSet(pgbl_mux->set);
	pgbl_mux->set = NULL;
	WorkerSetLatchOf(run->coordinator_pid);
}
