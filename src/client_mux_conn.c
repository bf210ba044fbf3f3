/*-------------------------------------------------------------------------
 *
 * client_mux_conn.c
 *		A libpq worker's connections: made concurrently, timed, closed.
 *
 * Connections are made without blocking (PQconnectStart, then one
 * PQconnectPoll each time the event loop sees the socket ready), so that
 * all of a worker's clients connect at once: before the clock with via
 * libpq, for every transaction with libpq-connect, where a connection storm
 * must measure the server and not one worker's serial loop.  While a
 * connection is being made, MuxConn.wake_ns holds the direction libpq
 * waits in (1 reading, 0 writing) and the loop's timers enforce
 * connect_timeout for each host of the target in turn, which libpq applies
 * only to its blocking connects.  A connection made is counted (before the
 * go or in the run's connection time), checked for a password where the
 * run's role is not a superuser, and handed back to the loop, which goes
 * on with it (client_mux_xact.c).  Closing cancels a query still running
 * on this server, and every connection is closed on any exit of the
 * worker (MuxCloseAll, a before_shmem_exit callback).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/memutils.h"

#include "client_mux.h"

/* Close a connection; a query still running on this server is cancelled. */
void
MuxCloseConn(MuxConn *c)
{
	if (c->lp.conn == NULL)
		return;
	if (c->cx.run->target_local && PQtransactionStatus(c->lp.conn) == PQTRANS_ACTIVE)
	{
		PGcancel   *pgcancel = PQgetCancel(c->lp.conn);
		char		err[256];

		if (pgcancel != NULL)
		{
			(void) PQcancel(pgcancel, err, sizeof(err));
			PQfreeCancel(pgcancel);
		}
	}
	PQfinish(c->lp.conn);
	c->lp.conn = NULL;
	TransportLibpqForget(&c->lp);
	pgbl_mux->dirty = true;
}

/* Any exit of the worker: no connection is left behind on the target. */
void
MuxCloseAll(int code, Datum arg)
{
	if (pgbl_mux == NULL)
		return;
	for (int i = 0; i < pgbl_mux->count; i++)
		MuxCloseConn(&pgbl_mux->conns[i]);
}

/* connect_timeout, for each host of the target in turn. */
void
MuxCheckConnectTimeout(MuxConn *c, int64 now)
{
	MemoryContext old;
	char	   *host = c->host;
	char	   *port = c->port;
	bool		changed;

	if (c->timeout_s <= 0)
		return;
	old = MemoryContextSwitchTo(pgbl_mux->cxt);
	changed = LibpqHostChanged(c->lp.conn, &c->host, &c->port);
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
void
MuxStartConnect(MuxConn *c, MuxState resume)
{
	c->connect_t0 = WorkerNowNs();
	c->lp.conn = LibpqConnectStart(c->cx.run, RunnerClientTarget(c->cx.run, c->cx.index));
	pgbl_mux->dirty = true;
	if (PQstatus(c->lp.conn) == CONNECTION_BAD)
		LibpqConnError(c->lp.conn, NULL, ERRCODE_SQLCLIENT_UNABLE_TO_ESTABLISH_SQLCONNECTION,
					   "could not connect to the target server");
	c->timeout_s = LibpqConnectTimeout(c->lp.conn);
	if (c->host)
		pfree(c->host);
	if (c->port)
		pfree(c->port);
	c->host = c->port = NULL;
	c->deadline = 0;
	c->resume = resume;
	c->state = resume == MUX_SETUP ? MUX_SETUP : MUX_CONNECT;
	c->wake_ns = 0;
	MuxCheckConnectTimeout(c, c->connect_t0);
}

/* The socket events a connection waits for. */
int
MuxConnEvents(MuxConn *c)
{
	if (c->state == MUX_SETUP || c->state == MUX_CONNECT)
		return c->wake_ns == 1 ? WL_SOCKET_READABLE : WL_SOCKET_WRITEABLE;
	return WL_SOCKET_READABLE;
}


/* A connection is made: checked and counted. */
static void
connected(MuxConn *c)
{
	int64		dt = WorkerNowNs() - c->connect_t0;
	RunClient  *me = c->cx.me;

	if (!superuser_arg(c->cx.run->run_role) && !PQconnectionUsedPassword(c->lp.conn))
		LibpqRefusePassword();
	c->lp.number++;
	if (c->resume == MUX_SETUP)
		me->initial_connect_ns = dt;
	else
	{
		pg_atomic_write_u64(&me->connects, pg_atomic_read_u64(&me->connects) + 1);
		pg_atomic_write_u64(&me->connect_ns, pg_atomic_read_u64(&me->connect_ns) + dt);
	}
}

/* One turn of PQconnectPoll: true when the connection is made. */
bool
MuxPollConnect(MuxConn *c)
{
	PostgresPollingStatusType st = PQconnectPoll(c->lp.conn);
	int			events;

	if (st == PGRES_POLLING_FAILED)
		LibpqConnError(c->lp.conn, NULL, ERRCODE_SQLCLIENT_UNABLE_TO_ESTABLISH_SQLCONNECTION,
					   "could not connect to the target server");
	if (st == PGRES_POLLING_OK)
	{
		c->wake_ns = 0;
		if (c->pos >= 0)
			ModifyWaitEvent(pgbl_mux->set, c->pos, WL_SOCKET_READABLE, NULL);
		connected(c);
		return true;
	}
	/* wake_ns holds the direction while connecting: 1 reading, 0 writing */
	c->wake_ns = st == PGRES_POLLING_READING ? 1 : 0;
	events = MuxConnEvents(c);
	/* libpq may have moved on to another socket (another host or address) */
	if (c->pos < 0 || PQsocket(c->lp.conn) != c->sock)
		pgbl_mux->dirty = true;
	else
		ModifyWaitEvent(pgbl_mux->set, c->pos, events, NULL);
	MuxCheckConnectTimeout(c, WorkerNowNs());
	return false;
}
