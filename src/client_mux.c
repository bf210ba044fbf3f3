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
 * connection is a small state machine (MuxConn) with everything a client
 * worker of its own would have: its script position, draws, schedule,
 * timing, retry state and its own figures in the run's shared memory, so
 * that nothing in the results changes shape.  Connections are made
 * concurrently (PQconnectStart/PQconnectPoll), before the clock with via
 * libpq and for every transaction with libpq-connect, so a connection
 * storm measures the server, not one worker's serial loop.
 *
 * A built-in workload's statements are prepared on each new connection and
 * executed one round trip each; a script runs in steps through the
 * interpreter (ScriptClientStep), which sends on the connection of the
 * client whose step runs (LibpqScriptSend below).  An error ends the
 * client's transaction only: the connection is rolled back (ROLLBACK) or
 * dropped, serialisation failures and deadlocks are retried as in-server
 * clients retry them, and any other error ends that client, failed, while
 * the worker's other clients go on.
 *
 * The rules of the one-client path hold: a stop at the end of the run lets
 * transactions under way finish (connects are abandoned), a cancel
 * abandons them (a query on this server is cancelled first), and every
 * connection is closed on any exit of the worker (before_shmem_exit), so a
 * cancelled or terminated run leaves none behind on the target.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "pgstat.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "utils/memutils.h"
#include "utils/wait_event.h"

#include "client.h"
#include "client_libpq.h"
#include "compat.h"
#include "pgbench_lab.h"

#define PGBL_MUX_POLL_MS	100L	/* longest wait between stop checks */
#define NS_PER_MS	INT64CONST(1000000)
#define NS_PER_SEC	INT64CONST(1000000000)

typedef enum MuxState
{
	MUX_SETUP,					/* connecting before the go */
	MUX_READY,					/* waiting for the go */
	MUX_IDLE,					/* between transactions */
	MUX_SLOT,					/* waiting for its rate's slot (wake_ns) */
	MUX_SLEEP,					/* a script's \sleep (wake_ns) */
	MUX_CONNECT,				/* PQconnectPoll under way, in a transaction */
	MUX_BUSY,					/* a command sent, its results awaited */
	MUX_DONE
} MuxState;

/* What the results of the command under way are for. */
typedef enum MuxNext
{
	NEXT_PREPARE,				/* built-in: statement stmt prepared */
	NEXT_EXEC,					/* built-in: statement stmt run */
	NEXT_SCRIPT_PREPARE,		/* script: prepared, to execute next */
	NEXT_SCRIPT,				/* script: its results, to the interpreter */
	NEXT_ROLLBACK				/* after a failed transaction */
} MuxNext;

/* After the rollback of a failed transaction: */
typedef enum MuxAfter
{
	AFTER_RETRY,				/* the same transaction again */
	AFTER_NEXT,					/* the next transaction */
	AFTER_END_DONE,				/* the client ends (the run stops) */
	AFTER_END_ABORTED			/* the client ends, failed */
} MuxAfter;

typedef struct MuxConn
{
	ClientCtx	cx;				/* the client's own state and figures */
	PGconn	   *conn;
	int			number;			/* connections it opened: a script prepares on each */
	MuxState	state;
	MuxState	resume;			/* after connecting: MUX_SETUP or the transaction */
	MuxNext		next;
	MuxAfter	after;
	int			stmt;
	int64		wake_ns;
	int			pos;			/* its socket's event in the set, or -1 */
	pgsocket	sock;			/* ... and that socket */
	/* connecting */
	int			timeout_s;
	int64		deadline;
	char	   *host;
	char	   *port;
	int64		connect_t0;
	/* the transaction under way */
	bool		in_xact;
	WorkloadDraw d;
	int			script;
	int64		t0;
	int64		from;
	int			tries;
	PGresult   *failed;			/* the first failed result of the command */
	/* a script statement sent after its prepare */
	char		name[24];
	int		   *prepared;
	int			nparams;
	const char *const *values;
	LibpqResultFn fn;
	void	   *fn_arg;
} MuxConn;

typedef struct MuxWorker
{
	RunShared  *run;
	int			count;
	MuxConn    *conns;
	char	  **texts;			/* a built-in's statements, with the schema */
	MemoryContext cxt;			/* the worker's, for the whole run */
	WaitEventSet *set;
	bool		dirty;			/* a socket came or went: rebuild the set */
	MemoryContext itercxt;		/* reset every turn of the loop */
} MuxWorker;

static MuxWorker *mux;
static MuxConn *mux_current;	/* whose script step runs (LibpqScriptSend) */

/* ---------------------------------------------------------------------
 * Connections
 * ---------------------------------------------------------------------
 */

/* Close a connection; a query still running on this server is cancelled. */
static void
close_conn(MuxConn *c)
{
	if (c->conn == NULL)
		return;
	if (c->cx.run->target_local && PQtransactionStatus(c->conn) == PQTRANS_ACTIVE)
	{
		PGcancel   *pgcancel = PQgetCancel(c->conn);
		char		err[256];

		if (pgcancel != NULL)
		{
			(void) PQcancel(pgcancel, err, sizeof(err));
			PQfreeCancel(pgcancel);
		}
	}
	PQfinish(c->conn);
	c->conn = NULL;
	if (c->failed)
		PQclear(c->failed);
	c->failed = NULL;
	mux->dirty = true;
}

/* Any exit of the worker: no connection is left behind on the target. */
static void
close_all(int code, Datum arg)
{
	if (mux == NULL)
		return;
	for (int i = 0; i < mux->count; i++)
		close_conn(&mux->conns[i]);
}

/* connect_timeout, for each host of the target in turn. */
static void
check_connect_timeout(MuxConn *c, int64 now)
{
	MemoryContext old;
	char	   *host = c->host;
	char	   *port = c->port;
	bool		changed;

	if (c->timeout_s <= 0)
		return;
	old = MemoryContextSwitchTo(mux->cxt);
	changed = LibpqHostChanged(c->conn, &c->host, &c->port);
	MemoryContextSwitchTo(old);
	if (changed)
	{
		if (host)
			pfree(host);
		if (port)
			pfree(port);
		c->deadline = now + c->timeout_s * NS_PER_SEC;
	}
	else if (now >= c->deadline)
		LibpqConnectTimedOut(c->host, c->port, c->timeout_s);
}

/* Start connecting; resume says what follows a connection made. */
static void
start_connect(MuxConn *c, MuxState resume)
{
	c->connect_t0 = WorkerNowNs();
	c->conn = LibpqConnectStart(c->cx.run);
	mux->dirty = true;
	if (PQstatus(c->conn) == CONNECTION_BAD)
		LibpqConnError(c->conn, NULL, ERRCODE_SQLCLIENT_UNABLE_TO_ESTABLISH_SQLCONNECTION,
					   "could not connect to the target server");
	c->timeout_s = LibpqConnectTimeout(c->conn);
	if (c->host)
		pfree(c->host);
	if (c->port)
		pfree(c->port);
	c->host = c->port = NULL;
	c->deadline = 0;
	c->resume = resume;
	c->state = resume == MUX_SETUP ? MUX_SETUP : MUX_CONNECT;
	c->wake_ns = 0;
	check_connect_timeout(c, c->connect_t0);
}

/* The socket events a connection waits for. */
static int
conn_events(MuxConn *c)
{
	if (c->state == MUX_SETUP || c->state == MUX_CONNECT)
		return c->wake_ns == 1 ? WL_SOCKET_READABLE : WL_SOCKET_WRITEABLE;
	return WL_SOCKET_READABLE;
}

static void send_prepare(MuxConn *c);
static void script_continue(MuxConn *c);
static void start_attempt(MuxConn *c);

/* A connection is made: counted, then the workload's statements prepared. */
static void
connected(MuxConn *c)
{
	int64		dt = WorkerNowNs() - c->connect_t0;
	RunClient  *me = c->cx.me;

	if (!superuser_arg(c->cx.run->run_role) && !PQconnectionUsedPassword(c->conn))
		LibpqRefusePassword();
	c->number++;
	if (c->resume == MUX_SETUP)
		me->initial_connect_ns = dt;
	else
	{
		pg_atomic_write_u64(&me->connects, pg_atomic_read_u64(&me->connects) + 1);
		pg_atomic_write_u64(&me->connect_ns, pg_atomic_read_u64(&me->connect_ns) + dt);
	}
	if (c->cx.script == NULL)
	{
		if (mux->texts == NULL)
		{
			MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);

			mux->texts = LibpqBuiltinTexts(c->conn, c->cx.run);
			MemoryContextSwitchTo(old);
		}
		c->stmt = 0;
		send_prepare(c);
		return;
	}
	if (c->resume == MUX_SETUP)
	{
		c->state = MUX_READY;
		pg_atomic_write_u32(&c->cx.me->state, CLIENT_READY);
		WorkerSetLatchOf(c->cx.run->coordinator_pid);
	}
	else
		script_continue(c);
}

/* One turn of PQconnectPoll. */
static void
poll_connect(MuxConn *c)
{
	PostgresPollingStatusType st = PQconnectPoll(c->conn);
	int			events;

	if (st == PGRES_POLLING_FAILED)
		LibpqConnError(c->conn, NULL, ERRCODE_SQLCLIENT_UNABLE_TO_ESTABLISH_SQLCONNECTION,
					   "could not connect to the target server");
	if (st == PGRES_POLLING_OK)
	{
		c->wake_ns = 0;
		if (c->pos >= 0)
			ModifyWaitEvent(mux->set, c->pos, WL_SOCKET_READABLE, NULL);
		connected(c);
		return;
	}
	/* wake_ns holds the direction while connecting: 1 reading, 0 writing */
	c->wake_ns = st == PGRES_POLLING_READING ? 1 : 0;
	events = conn_events(c);
	/* libpq may have moved on to another socket (another host or address) */
	if (c->pos < 0 || PQsocket(c->conn) != c->sock)
		mux->dirty = true;
	else
		ModifyWaitEvent(mux->set, c->pos, events, NULL);
	check_connect_timeout(c, WorkerNowNs());
}

/* ---------------------------------------------------------------------
 * Commands and their results
 * ---------------------------------------------------------------------
 */

static void
sent(MuxConn *c, int ok, MuxNext next)
{
	if (!ok)
		LibpqConnError(c->conn, NULL, ERRCODE_CONNECTION_FAILURE, "could not send a statement");
	c->next = next;
	c->state = MUX_BUSY;
}

static void
send_prepare(MuxConn *c)
{
	WorkloadDraw none = {0};
	char		bufs[4][24];
	const char *params[4];
	char		name[16];
	int			n = LibpqBuiltinParams(c->cx.run, c->stmt, &none, bufs, params);

	snprintf(name, sizeof(name), "P_%d", c->stmt);
	sent(c, PQsendPrepare(c->conn, name, mux->texts[c->stmt], n, NULL), NEXT_PREPARE);
}

static void
send_exec(MuxConn *c)
{
	char		bufs[4][24];
	const char *params[4];
	char		name[16];
	int			n = LibpqBuiltinParams(c->cx.run, c->stmt, &c->d, bufs, params);

	snprintf(name, sizeof(name), "P_%d", c->stmt);
	sent(c, PQsendQueryPrepared(c->conn, name, n, params, NULL, NULL, 0), NEXT_EXEC);
}

/*
 * A script's SQL, on the connection of the client whose step runs: sent
 * as written (prepared NULL: transaction control), or prepared on this
 * connection the first time (S_<id>) and then executed.
 */
void
LibpqScriptSend(RunShared *run, const char *sql, int *prepared, int id, int nparams,
				const char *const *values, LibpqResultFn fn, void *arg)
{
	MuxConn    *c = mux_current;

	c->fn = fn;
	c->fn_arg = arg;
	if (prepared == NULL)
	{
		sent(c, PQsendQuery(c->conn, sql), NEXT_SCRIPT);
		return;
	}
	snprintf(c->name, sizeof(c->name), "S_%d", id);
	c->prepared = prepared;
	c->nparams = nparams;
	c->values = values;
	if (*prepared != c->number)
		sent(c, PQsendPrepare(c->conn, c->name, sql, nparams, NULL), NEXT_SCRIPT_PREPARE);
	else
		sent(c, PQsendQueryPrepared(c->conn, c->name, nparams, values, NULL, NULL, 0),
			 NEXT_SCRIPT);
}

/* One successful result, to the interpreter (its count and last row). */
static void
script_result(MuxConn *c, PGresult *res)
{
	ExecStatusType st = PQresultStatus(res);
	int			n = st == PGRES_TUPLES_OK ? PQntuples(res) : -1;
	int			ncols = st == PGRES_TUPLES_OK ? PQnfields(res) : 0;
	char	  **names = palloc(sizeof(char *) * Max(ncols, 1));
	char	  **values = palloc(sizeof(char *) * Max(ncols, 1));

	for (int f = 0; f < ncols; f++)
	{
		names[f] = PQfname(res, f);
		values[f] = n > 0 && !PQgetisnull(res, n - 1, f) ? PQgetvalue(res, n - 1, f) : NULL;
	}
	c->fn(c->fn_arg, n, ncols, names, values);
}

static void xact_committed(MuxConn *c);
static void after_rollback(MuxConn *c);

/* The command's results are all in: on to what follows it. */
static void
command_done(MuxConn *c)
{
	if (c->failed != NULL)
		LibpqConnError(c->conn, c->failed, ERRCODE_CONNECTION_FAILURE,
					   c->next == NEXT_ROLLBACK ? "could not roll back" :
					   c->next == NEXT_PREPARE ? "could not prepare the workload" :
					   c->cx.script ? "statement failed on the target server" :
					   "workload statement failed");
	switch (c->next)
	{
		case NEXT_PREPARE:
			if (mux->texts[++c->stmt] != NULL)
				send_prepare(c);
			else if (c->resume == MUX_SETUP)
			{
				c->state = MUX_READY;
				pg_atomic_write_u32(&c->cx.me->state, CLIENT_READY);
				WorkerSetLatchOf(c->cx.run->coordinator_pid);
			}
			else
			{
				c->stmt = 0;
				send_exec(c);
			}
			break;
		case NEXT_EXEC:
			if (mux->texts[++c->stmt] != NULL)
				send_exec(c);
			else
				xact_committed(c);
			break;
		case NEXT_SCRIPT_PREPARE:
			*c->prepared = c->number;
			sent(c, PQsendQueryPrepared(c->conn, c->name, c->nparams, c->values, NULL, NULL, 0),
				 NEXT_SCRIPT);
			break;
		case NEXT_SCRIPT:
			script_continue(c);
			break;
		case NEXT_ROLLBACK:
			after_rollback(c);
			break;
	}
}

/*
 * The socket is readable: take what arrived; when the command's results
 * are complete, go on.  The first failed result is kept to be raised.
 */
static void
read_results(MuxConn *c)
{
	if (!PQconsumeInput(c->conn))
		LibpqConnError(c->conn, NULL, ERRCODE_CONNECTION_FAILURE,
					   "statement failed on the target server");
	if (c->state != MUX_BUSY)
	{
		/* between transactions: a server that hung up is noticed at the next send */
		PGnotify   *n;

		while ((n = PQnotifies(c->conn)) != NULL)
			PQfreemem(n);
		return;
	}
	while (c->state == MUX_BUSY && !PQisBusy(c->conn))
	{
		PGresult   *res = PQgetResult(c->conn);
		ExecStatusType st;

		if (res == NULL)
		{
			command_done(c);
			continue;			/* it may have sent the next command */
		}
		st = PQresultStatus(res);
		if (c->failed == NULL && st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK)
		{
			c->failed = res;
			continue;
		}
		if (c->failed == NULL && c->next == NEXT_SCRIPT && c->fn != NULL)
		{
			PG_TRY();
			{
				script_result(c, res);
			}
			PG_FINALLY();
			{
				PQclear(res);
			}
			PG_END_TRY();
		}
		else
			PQclear(res);
	}
}

/* ---------------------------------------------------------------------
 * Transactions
 * ---------------------------------------------------------------------
 */

/* The client leaves its loop: its end, its due slots, its state. */
static void
end_client(MuxConn *c, ClientState end)
{
	close_conn(c);
	c->cx.me->end_ns = WorkerNowNs();
	ClientCountDueSlots(&c->cx);
	pg_write_barrier();
	pg_atomic_write_u32(&c->cx.me->state, end);
	c->state = MUX_DONE;
	c->in_xact = false;
	WorkerSetLatchOf(c->cx.run->coordinator_pid);
}

/* Run the script on until it sends, sleeps or ends. */
static void
script_continue(MuxConn *c)
{
	int64		wake = 0;
	ScriptStep	st;

	mux_current = c;
	st = ScriptClientStep(c->cx.script, &wake);
	if (st == SCRIPT_STEP_SLEEP)
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
	if (c->conn == NULL)
	{
		start_connect(c, MUX_CONNECT);
		return;
	}
	if (c->cx.script)
		script_continue(c);
	else
		send_exec(c);
}

/* A transaction of the run begins, at its slot ("scheduled", or 0). */
static void
begin_xact(MuxConn *c, int64 scheduled)
{
	c->t0 = c->cx.timed ? WorkerNowNs() : 0;
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
		ScriptClientEnded(c->cx.script, c->script, latency, true);
	ClientSample(&c->cx, c->from, latency, lag, c->script, c->tries, false);
	if (c->cx.run->via == RUN_VIA_LIBPQ_CONNECT)
		close_conn(c);
	c->state = MUX_IDLE;
}

/* Go on after a failed transaction's rollback (or without one). */
static void
after_rollback(MuxConn *c)
{
	if (c->cx.run->via == RUN_VIA_LIBPQ_CONNECT && c->after != AFTER_RETRY)
		close_conn(c);
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
			end_client(c, CLIENT_DONE);
			break;
		case AFTER_END_ABORTED:
			end_client(c, CLIENT_ABORTED);
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
	PGTransactionStatusType ts = c->conn ? PQtransactionStatus(c->conn) : PQTRANS_UNKNOWN;

	c->state = MUX_IDLE;
	if (c->failed)
		PQclear(c->failed);
	c->failed = NULL;
	if (c->conn != NULL && PQstatus(c->conn) == CONNECTION_OK &&
		(ts == PQTRANS_INERROR || ts == PQTRANS_INTRANS) &&
		pg_atomic_read_u32(&c->cx.run->stop) != RUN_STOP_CANCEL)
	{
		if (PQsendQuery(c->conn, "ROLLBACK"))
		{
			c->next = NEXT_ROLLBACK;
			c->state = MUX_BUSY;
			return;
		}
	}
	if (c->conn != NULL && (ts != PQTRANS_IDLE || PQstatus(c->conn) != CONNECTION_OK))
		close_conn(c);
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
	bool		retryable = code == ERRCODE_T_R_SERIALIZATION_FAILURE ||
		code == ERRCODE_T_R_DEADLOCK_DETECTED;
	uint64		lag = (uint64) Max(c->t0 - c->from, 0);

	if (cx->script)
		ScriptClientFailed(cx->script, edata);
	if (ClientStopRequested(cx))
		c->after = AFTER_END_DONE;	/* interrupted by the end of the run */
	else if (retryable && (cx->run->max_tries == 0 || c->tries < cx->run->max_tries))
	{
		pg_atomic_write_u64(&cx->me->retries, ++cx->retries);
		if (cx->script)
			ScriptClientRetry(cx->script, c->script);
		c->after = AFTER_RETRY;
	}
	else
	{
		ClientRecordError(cx, edata);
		ClientPublish(cx, 0, 0, false);
		if (cx->script)
			ScriptClientEnded(cx->script, c->script, 0, false);
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
		end_client(c, CLIENT_ABORTED);
	}
	PG_END_TRY();
}

/*
 * Run fn for one client; an error ends its transaction (or, before the
 * go, the client) and never the worker's loop.
 */
static void
guarded(MuxConn *c, void (*fn) (MuxConn *c))
{
	MemoryContext cxt = mux->itercxt;

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
			end_client(c, CLIENT_ABORTED);
		}
		else
		{
			/* a connection that died between two transactions */
			ClientRecordError(&c->cx, edata);
			ClientPublish(&c->cx, 0, 0, false);
			end_client(c, CLIENT_ABORTED);
		}
	}
	PG_END_TRY();
	MemoryContextSwitchTo(mux->cxt);
}

/* ---------------------------------------------------------------------
 * The event loop
 * ---------------------------------------------------------------------
 */

static void
on_socket(MuxConn *c)
{
	if (c->state == MUX_SETUP || c->state == MUX_CONNECT)
		poll_connect(c);
	else if (c->conn != NULL)
		read_results(c);
}

/* An idle client: its next transaction, at once or at its slot; or its end. */
static void
on_idle(MuxConn *c)
{
	int64		slot = 0;

	if (ClientDoneCount(&c->cx) || ClientStopRequested(&c->cx))
	{
		end_client(c, CLIENT_DONE);
		return;
	}
	if (c->cx.run->rate > 0)
	{
		if (!ClientNextSlot(&c->cx, &slot))
		{
			end_client(c, CLIENT_DONE);
			return;
		}
		c->state = MUX_SLOT;
		c->wake_ns = slot;
		return;
	}
	begin_xact(c, 0);
}

static void
on_slot(MuxConn *c)
{
	begin_xact(c, c->wake_ns);
}

static void
on_sleep_over(MuxConn *c)
{
	c->wake_ns = 0;
	c->state = MUX_BUSY;		/* the step goes on from the \sleep */
	script_continue(c);
}

static void
on_connect_timer(MuxConn *c)
{
	check_connect_timeout(c, WorkerNowNs());
}

/* The set of the latch and every open connection's socket. */
static void
rebuild_set(void)
{
	if (mux->set != NULL)
		FreeWaitEventSet(mux->set);
	mux->set = PgblCreateWaitEventSet(mux->count + 2);
	AddWaitEventToSet(mux->set, WL_LATCH_SET, PGINVALID_SOCKET, MyLatch, NULL);
	AddWaitEventToSet(mux->set, WL_EXIT_ON_PM_DEATH, PGINVALID_SOCKET, NULL, NULL);
	for (int i = 0; i < mux->count; i++)
	{
		MuxConn    *c = &mux->conns[i];

		c->pos = -1;
		c->sock = c->conn != NULL ? PQsocket(c->conn) : PGINVALID_SOCKET;
		if (c->sock != PGINVALID_SOCKET)
			c->pos = AddWaitEventToSet(mux->set, conn_events(c), c->sock, NULL, c);
	}
	mux->dirty = false;
}

/*
 * The run stops: with a cancel every client ends now (transactions and
 * connects abandoned); at the end of the run, those between transactions
 * or connecting end, and those with a command under way finish it.
 */
static void
on_stop(MuxConn *c, uint32 stop)
{
	if (c->state == MUX_DONE)
		return;
	if (stop == RUN_STOP_CANCEL || c->state != MUX_BUSY)
		end_client(c, CLIENT_DONE);
}

/* The timers due, and what the loop may sleep before the next (ms). */
static long
run_timers(bool go)
{
	int64		now = WorkerNowNs();
	int64		next = now + PGBL_MUX_POLL_MS * NS_PER_MS;
	uint32		stop = pg_atomic_read_u32(&mux->run->stop);

	for (int i = 0; i < mux->count; i++)
	{
		MuxConn    *c = &mux->conns[i];

		MemoryContextReset(mux->itercxt);
		if (stop != RUN_STOP_NONE)
			on_stop(c, stop);
		switch (c->state)
		{
			case MUX_READY:
				if (go)
					c->state = MUX_IDLE;
				else
					break;
				/* FALLTHROUGH */
			case MUX_IDLE:
				guarded(c, on_idle);
				if (c->state == MUX_IDLE || c->state == MUX_SLOT)
					next = now;	/* come back at once */
				break;
			case MUX_SLOT:
			case MUX_SLEEP:
				if (c->wake_ns <= now)
				{
					guarded(c, c->state == MUX_SLOT ? on_slot : on_sleep_over);
					next = now;
				}
				else
					next = Min(next, c->wake_ns);
				break;
			case MUX_SETUP:
			case MUX_CONNECT:
				guarded(c, on_connect_timer);
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
	for (int i = 0; i < mux->count; i++)
		if (mux->conns[i].state != MUX_DONE)
			return false;
	return true;
}

/* Wait for the sockets, the latch or the next timer; handle what came. */
static void
wait_events(long timeout_ms, WaitEvent *events)
{
	int			n;

	if (mux->dirty)
		rebuild_set();
	n = WaitEventSetWait(mux->set, timeout_ms, events, mux->count + 2, PG_WAIT_EXTENSION);
	for (int e = 0; e < n; e++)
	{
		MuxConn    *c = (MuxConn *) events[e].user_data;

		if (events[e].events & WL_LATCH_SET)
			ResetLatch(MyLatch);
		if (c == NULL || c->pos != events[e].pos || c->state == MUX_DONE || mux->dirty)
			continue;			/* the set changed meanwhile: the next turn sees it */
		MemoryContextReset(mux->itercxt);
		guarded(c, on_socket);
	}
}

/* Each client's own state: its interpreter, generators and figures. */
static void
setup_clients(RunShared *run, int first, bool timed)
{
	MemoryContext scripts = AllocSetContextCreate(TopMemoryContext, "pgbench_lab scripts",
												  ALLOCSET_DEFAULT_SIZES);

	StartTransactionCommand();
	for (int i = 0; i < mux->count; i++)
	{
		MuxConn    *c = &mux->conns[i];

		c->cx.run = run;
		c->cx.index = first + i;
		c->cx.me = &run->client[first + i];
		c->cx.me->pid = MyProcPid;
		c->cx.timed = timed;
		c->cx.loopcxt = mux->itercxt;
		c->pos = -1;
		if (run->script_area != 0)
			c->cx.script = ScriptClientSetup(run, first + i, timed, scripts);
		ClientSeed(&c->cx);
	}
	CommitTransactionCommand();
}

static void
connect_initial(MuxConn *c)
{
	start_connect(c, MUX_SETUP);
}

/* Before the go: the clients connect (all at once), or are ready. */
static void
start_clients(void)
{
	for (int i = 0; i < mux->count; i++)
	{
		MuxConn    *c = &mux->conns[i];

		c->state = MUX_SETUP;
		if (c->cx.run->via == RUN_VIA_LIBPQ)
			guarded(c, connect_initial);
		else
		{
			c->state = MUX_READY;
			pg_atomic_write_u32(&c->cx.me->state, CLIENT_READY);
		}
	}
	WorkerSetLatchOf(mux->run->coordinator_pid);
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

	for (int i = 0; i < mux->count; i++)
	{
		MuxConn    *c = &mux->conns[i];

		if (c->state == MUX_DONE)
			continue;
		if (edata->sqlerrcode == ERRCODE_QUERY_CANCELED && ClientStopRequested(&c->cx))
			end_client(c, CLIENT_DONE);
		else if (ClientIsOwnCancel(edata))
		{
			if (first)
				ClientCancelRun(&c->cx, edata);
			end_client(c, first ? CLIENT_ABORTED : CLIENT_DONE);
		}
		else
		{
			ClientRecordError(&c->cx, edata);
			end_client(c, CLIENT_ABORTED);
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
	mux = palloc0(sizeof(MuxWorker));
	mux->cxt = cxt;
	mux->dirty = true;
	mux->run = run;
	mux->count = count;
	mux->conns = palloc0(sizeof(MuxConn) * count);
	mux->itercxt = AllocSetContextCreate(cxt, "pgbench_lab libpq turn", ALLOCSET_DEFAULT_SIZES);
	events = palloc(sizeof(WaitEvent) * (count + 2));
	before_shmem_exit(close_all, (Datum) 0);
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
	close_all(0, (Datum) 0);
	if (mux->set != NULL)
		FreeWaitEventSet(mux->set);
	mux->set = NULL;
	WorkerSetLatchOf(run->coordinator_pid);
}
