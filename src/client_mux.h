/*-------------------------------------------------------------------------
 *
 * client_mux.h
 *		A libpq worker's clients, one event loop over their connections:
 *		what its three files share, and the worker's life (LibpqWorkerRun),
 *		which client.c calls.
 *
 * A libpq worker drives many clients' connections from one process
 * (client_mux.c: the loop, its timers and how the worker starts and
 * ends).  Each connection is a small state machine, MuxConn, whose
 * connecting is in client_mux_conn.c and whose commands, results and
 * transactions are in client_mux_xact.c.  Every function here runs in the
 * worker's one process, on the one MuxWorker (pgbl_mux) it has.
 *
 *-------------------------------------------------------------------------
 */
#ifndef PGBL_CLIENT_MUX_H
#define PGBL_CLIENT_MUX_H

#include "storage/latch.h"

#include "client_ctx.h"
#include "client_libpq.h"
#include "runner.h"
#include "transport.h"

#define PGBL_MUX_POLL_MS	100L	/* longest wait between stop and latch checks */
/*
 * At the run's end, how long a command under way may still take: then its
 * client ends failed, the target named (under the coordinator's 5 s grace,
 * after which it terminates the workers still going).
 */
#define PGBL_MUX_END_ANSWER_S	3
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
	NEXT_SETTINGS,				/* the run's settings given (through a pooler) */
	NEXT_PREPARE,				/* built-in: statement stmt prepared */
	NEXT_EXEC,					/* built-in: statement stmt run */
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
	TransportLibpq lp;			/* its connection (lp.conn), its statements' way */
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
	int64		end_seen;		/* when it saw the run's end with a command under way */
	WorkloadDraw d;
	int			script;
	int64		t0;
	int64		from;
	int			tries;
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
	struct pollfd *fds;			/* from the go on, the sockets poll() waits for */
	int		   *fd_conn;		/* ... and the connection of each */
	MemoryContext itercxt;		/* reset every turn of the loop */
} MuxWorker;

/* the worker's clients (client_mux.c), and its life (for client.c) */
extern MuxWorker *pgbl_mux;
extern void LibpqWorkerRun(RunShared *run, int first, int count, bool timed);

/* client_mux_conn.c: connecting, closing */
extern void MuxCloseConn(MuxConn *c);
extern void MuxCloseAll(int code, Datum arg);
extern void MuxCheckConnectTimeout(MuxConn *c, int64 now);
extern void MuxStartConnect(MuxConn *c, MuxState resume);
extern int	MuxConnEvents(MuxConn *c);
extern bool MuxPollConnect(MuxConn *c);

/* client_mux_xact.c: commands, results, transactions */
extern void MuxConnected(MuxConn *c);
extern void MuxSendPrepare(MuxConn *c);
extern void MuxScriptContinue(MuxConn *c);
extern void MuxReadResults(MuxConn *c);
extern void MuxEndClient(MuxConn *c, ClientState end);
extern void MuxBeginXact(MuxConn *c, int64 scheduled, int64 start);
extern void MuxGuarded(MuxConn *c, void (*fn) (MuxConn *c));

#endif							/* PGBL_CLIENT_MUX_H */
