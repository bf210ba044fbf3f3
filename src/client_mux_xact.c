/*-------------------------------------------------------------------------
 *
 * client_mux_xact.c
 *		A libpq worker's clients: their commands, results and transactions.
 *
 * Every statement goes over the client's connection through the libpq
 * transport (transport_libpq.c).  A built-in workload's statements are
 * executed one round trip each, in the run's query_mode: prepared on each
 * new connection and executed by name (pgbench -M prepared), or sent as
 * text with their parameters (-M extended) or their values in it (-M
 * simple); a script runs in steps through the interpreter
 * (ScriptClientStep), which sends through the same transport.  A command
 * is sent and the client is MUX_BUSY until the event loop has read all of
 * its results (MuxReadResults); MuxNext says what they are for, and the
 * first failed result is raised once they are all in.
 *
 * An error ends the client's transaction only, never the loop: every step
 * of a client runs under MuxGuarded, which turns an error into the
 * transaction's failure.  The connection is then rolled back (ROLLBACK)
 * or dropped; serialisation failures and deadlocks are retried as
 * in-server clients retry them (client.c), and any other error ends that
 * client, failed, while the worker's other clients go on.  Committed and
 * failed transactions are published into the client's figures in the
 * run's shared memory exactly as an in-server client publishes them.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/memutils.h"

#include "client_mux.h"
#include "script_run.h"

static void
busy(MuxConn *c, MuxNext next)
{
	c->next = next;
	c->state = MUX_BUSY;
}

/* The built-in statements' names on every connection: P_0, P_1 ... */
static const char *const stmt_names[] = {"P_0", "P_1", "P_2", "P_3", "P_4", "P_5", "P_6"};

StaticAssertDecl(lengthof(stmt_names) == PGBL_STMT_MAX, "a name for every built-in statement");

void
MuxSendPrepare(MuxConn *c)
{
	WorkloadDraw none = {0};
	char		bufs[4][24];
	const char *params[4];
	int			n = LibpqBuiltinParams(c->cx.run, c->stmt, &none, bufs, params);

	TransportLibpqSendPrepare(&c->lp, stmt_names[c->stmt], pgbl_mux->texts[c->stmt], n);
	busy(c, NEXT_PREPARE);
}

static void
send_exec(MuxConn *c)
{
	char		bufs[4][24];
	const char *params[4];
	int			n = LibpqBuiltinParams(c->cx.run, c->stmt, &c->d, bufs, params);

	TransportLibpqSendBuiltin(&c->lp, stmt_names[c->stmt], pgbl_mux->texts[c->stmt], n, params);
	busy(c, NEXT_EXEC);
}

/* Set up before the go: the client is ready, and says so to the coordinator. */
static void
client_ready(MuxConn *c)
{
	c->state = MUX_READY;
	pg_atomic_write_u32(&c->cx.me->state, CLIENT_READY);
	WorkerSetLatchOf(c->cx.run->coordinator_pid);
}

/* A built-in's statements are prepared, or need not be: on to the go or the transaction. */
static void
builtin_prepared(MuxConn *c)
{
	if (c->resume == MUX_SETUP)
		client_ready(c);
	else
	{
		c->stmt = 0;
		send_exec(c);
	}
}

static void session_ready(MuxConn *c);

/*
 * A connection is made: through a pooler, the run's settings given first
 * (to the server itself they went with the connection); then its session
 * is ready.
 */
void
MuxConnected(MuxConn *c)
{
	const RunShared *run = c->cx.run;
	char	   *sql = NULL;

	if (run->target[RunnerClientTarget(run, c->cx.index)].pooler != RUN_POOLER_NONE)
		sql = LibpqSettingsSql(c->lp.conn, run, false);
	if (sql == NULL)
		session_ready(c);
	else
	{
		TransportLibpqSendText(&c->lp, sql);
		busy(c, NEXT_SETTINGS);
	}
}

/* A workload's statements prepared, or a script goes on. */
static void
session_ready(MuxConn *c)
{
	if (c->cx.script == NULL)
	{
		if (pgbl_mux->texts == NULL)
		{
			MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);

			pgbl_mux->texts = LibpqBuiltinTexts(c->lp.conn, c->cx.run);
			MemoryContextSwitchTo(old);
		}
		c->stmt = 0;
		/* simple and extended send the texts: nothing to prepare */
		if (c->lp.t.mode == TRANSPORT_PREPARED)
			MuxSendPrepare(c);
		else
			builtin_prepared(c);
		return;
	}
	if (c->resume == MUX_SETUP)
		client_ready(c);
	else
		MuxScriptContinue(c);
}

static void xact_committed(MuxConn *c);
static void after_rollback(MuxConn *c);

/* The command's results are all in: on to what follows it. */
static void
command_done(MuxConn *c)
{
	TransportLibpqRaiseFailed(&c->lp,
							  c->next == NEXT_ROLLBACK ? "could not roll back" :
							  c->next == NEXT_PREPARE ? "could not prepare the workload" :
							  c->next == NEXT_SETTINGS ? "could not set the run's settings" :
							  c->cx.script ? "statement failed on the target server" :
							  "workload statement failed");
	switch (c->next)
	{
		case NEXT_SETTINGS:
			session_ready(c);
			break;
		case NEXT_PREPARE:
			if (pgbl_mux->texts[++c->stmt] != NULL)
				MuxSendPrepare(c);
			else
				builtin_prepared(c);
			break;
		case NEXT_EXEC:
			if (pgbl_mux->texts[++c->stmt] != NULL)
				send_exec(c);
			else
				xact_committed(c);
			break;
		case NEXT_SCRIPT:
			MuxScriptContinue(c);
			break;
		case NEXT_ROLLBACK:
			after_rollback(c);
			break;
	}
}

/*
 * The socket is readable: take what arrived; when the command's results
 * are complete, go on (which may send the next command).
 */
void
MuxReadResults(MuxConn *c)
{
	TransportLibpqConsume(&c->lp);
	if (c->state != MUX_BUSY)
	{
		TransportLibpqIdle(&c->lp);
		return;
	}
	while (c->state == MUX_BUSY && TransportLibpqNext(&c->lp))
		command_done(c);
}

/* ---------------------------------------------------------------------
 * Transactions
 * ---------------------------------------------------------------------
 */

/* The client leaves its loop: its end, its due slots, its state. */
void
MuxEndClient(MuxConn *c, ClientState end)
{
	MuxCloseConn(c);
	/* one that got no answer at the end ran until it saw the end */
	c->cx.me->end_ns = c->end_seen > 0 && end == CLIENT_ABORTED ? c->end_seen : WorkerNowNs();
	ClientCountDueSlots(&c->cx);
	pg_write_barrier();
	pg_atomic_write_u32(&c->cx.me->state, end);
	c->state = MUX_DONE;
	c->in_xact = false;
	WorkerSetLatchOf(c->cx.run->coordinator_pid);
}

/* Run the script on until it sends, sleeps or ends. */
void
MuxScriptContinue(MuxConn *c)
{
	int64		wake = 0;
	ScriptStep	st;

	st = ScriptClientStep(c->cx.script, &wake);
	if (st == SCRIPT_STEP_SENT)
		busy(c, NEXT_SCRIPT);
	else if (st == SCRIPT_STEP_SLEEP)
	{
		c->state = MUX_SLEEP;
		c->wake_ns = wake;
	}
	else if (st == SCRIPT_STEP_END)
		xact_committed(c);
}

/* An attempt of the transaction drawn: connect if need be, then send. */
static void
start_attempt(MuxConn *c)
{
	c->in_xact = true;
	if (c->cx.script)
		ScriptClientBegin(c->cx.script, c->script);
	c->stmt = 0;
	if (c->lp.conn == NULL)
	{
		MuxStartConnect(c, MUX_CONNECT);
		return;
	}
	if (c->cx.script)
		MuxScriptContinue(c);
	else
		send_exec(c);
}

/*
 * A transaction of the run begins, at its slot ("scheduled", or 0), at
 * "start" (the clock read when the slot was found still due), or now.
 */
void
MuxBeginXact(MuxConn *c, int64 scheduled, int64 start)
{
	c->t0 = c->cx.timed ? (start > 0 ? start : WorkerNowNs()) : 0;
	c->from = scheduled > 0 ? scheduled : c->t0;
	c->tries = 0;
	if (c->cx.script)
		c->script = ScriptClientChoose(c->cx.script);
	else
		WorkloadDrawNext(&c->cx.run->wl, &c->cx.rng, &c->d);
	c->tries++;
	start_attempt(c);
}

static void
xact_committed(MuxConn *c)
{
	uint64		latency = c->cx.timed ? (uint64) Max(WorkerNowNs() - c->from, 0) : 0;
	uint64		lag = (uint64) Max(c->t0 - c->from, 0);

	c->in_xact = false;
	ClientPublish(&c->cx, latency, lag, true);
	if (c->cx.script)
		ScriptClientEnded(c->cx.script, c->script, latency, 0);
	ClientSample(&c->cx, c->from, latency, lag, c->script, c->tries, false);
	if (c->cx.run->via == RUN_VIA_LIBPQ_CONNECT)
		MuxCloseConn(c);
	c->state = MUX_IDLE;
}

/* Go on after a failed transaction's rollback (or without one). */
static void
after_rollback(MuxConn *c)
{
	if (c->cx.run->via == RUN_VIA_LIBPQ_CONNECT && c->after != AFTER_RETRY)
		MuxCloseConn(c);
	switch (c->after)
	{
		case AFTER_RETRY:
			c->tries++;
			start_attempt(c);
			break;
		case AFTER_NEXT:
			c->state = MUX_IDLE;
			break;
		case AFTER_END_DONE:
			MuxEndClient(c, CLIENT_DONE);
			break;
		case AFTER_END_ABORTED:
			MuxEndClient(c, CLIENT_ABORTED);
			break;
	}
}

/*
 * Roll back what the failed transaction left open on the target (then the
 * connection can serve again), or drop the connection; then go on.
 */
static void
recover(MuxConn *c)
{
	TransportRollback r;

	c->state = MUX_IDLE;
	r = TransportLibpqRollback(&c->lp, pg_atomic_read_u32(&c->cx.run->stop) != RUN_STOP_CANCEL);
	if (r == TRANSPORT_ROLLBACK_SENT)
	{
		busy(c, NEXT_ROLLBACK);
		return;
	}
	if (r == TRANSPORT_ROLLBACK_DROP)
		MuxCloseConn(c);
	after_rollback(c);
}

/*
 * An error ended the transaction's attempt: retried, counted as failed, or
 * the client's end, as an in-server client decides (client.c).
 */
static void
xact_failed(MuxConn *c, ErrorData *edata)
{
	ClientCtx  *cx = &c->cx;
	int			code = edata->sqlerrcode;
	bool		retryable = TransportRetryable(code);
	uint64		lag = (uint64) Max(c->t0 - c->from, 0);

	if (cx->script)
		ScriptClientFailed(cx->script, edata);
	if (ClientStopRequested(cx))
		c->after = AFTER_END_DONE;	/* interrupted by the end of the run */
	else if (retryable && (cx->run->max_tries == 0 || c->tries < cx->run->max_tries))
	{
		ClientCountError(cx, edata, false);
		pg_atomic_write_u64(&cx->me->retries, ++cx->retries);
		if (cx->script)
			ScriptClientRetry(cx->script, c->script);
		c->after = AFTER_RETRY;
	}
	else
	{
		ClientRecordError(cx, edata);
		ClientCountError(cx, edata, true);
		ClientPublish(cx, 0, 0, false);
		if (cx->script)
			ScriptClientEnded(cx->script, c->script, 0, code);
		ClientSample(cx, c->from, 0, lag, c->script, c->tries, true);
		c->after = retryable ? AFTER_NEXT : AFTER_END_ABORTED;
	}
	recover(c);
}

/* xact_failed(); an error on the way (a ROLLBACK not sent) ends the client. */
static void
failed_safely(MuxConn *c, ErrorData *edata)
{
	MemoryContext cxt = CurrentMemoryContext;

	PG_TRY();
	{
		xact_failed(c, edata);
	}
	PG_CATCH();
	{
		MemoryContextSwitchTo(cxt);
		FlushErrorState();
		MuxEndClient(c, CLIENT_ABORTED);
	}
	PG_END_TRY();
}

/*
 * Run fn for one client; an error ends its transaction (or, before the
 * go, the client) and never the worker's loop.
 */
void
MuxGuarded(MuxConn *c, void (*fn) (MuxConn *c))
{
	MemoryContext cxt = pgbl_mux->itercxt;

	MemoryContextSwitchTo(cxt);
	PG_TRY();
	{
		fn(c);
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		FlushErrorState();
		if (c->in_xact)
		{
			c->in_xact = false;
			failed_safely(c, edata);
		}
		else if (c->state == MUX_SETUP || c->state == MUX_READY)
		{
			ClientRecordError(&c->cx, edata);
			MuxEndClient(c, CLIENT_ABORTED);
		}
		else
		{
			/* a connection that died between two transactions */
			ClientRecordError(&c->cx, edata);
			ClientCountError(&c->cx, edata, true);
			ClientPublish(&c->cx, 0, 0, false);
			MuxEndClient(c, CLIENT_ABORTED);
		}
	}
	PG_END_TRY();
	MemoryContextSwitchTo(pgbl_mux->cxt);
}
