/*-------------------------------------------------------------------------
 *
 * transport.h
 *		One transport for a client's statements: a statement declared once
 *		and executed with its parameters' values in a query mode, its
 *		results handed to a callback, transaction control, and the class
 *		of an error.
 *
 * The script interpreter (script_run.c) runs over a Transport and knows
 * nothing of where its statements go.  Two implementations:
 *
 * - SPI (transport_spi.c), in the client's own backend: synchronous, every
 *   callback has fired when the call returns.  It runs the transaction
 *   control itself (BEGIN with its modes, savepoints as internal
 *   subtransactions) and keeps each prepared statement's plan for the run.
 * - libpq (transport_libpq.c), on one connection of a libpq worker's event
 *   loop (client_mux.c), which drives many: asynchronous, a call only sends;
 *   the results come back, each to the callback, when the loop reads them
 *   (TransportLibpqNext), and the loop then resumes whoever sent.  The
 *   built-in workloads' statements go through the same connection code
 *   (TransportLibpqSendPrepare, TransportLibpqSendBuiltin).
 *
 * An error is raised (ereport) with the SQLSTATE it came with, the
 * server's own over libpq; TransportErrorClassOf() says whether it is one
 * a pgbench client retries.  The transport holds the transaction that the
 * client has open (in_xact, explicit_block): its user, the interpreter,
 * keeps them, as it follows its script's transaction control, and the
 * SPI implementation reads them.
 *
 *-------------------------------------------------------------------------
 */
#ifndef PGBL_TRANSPORT_H
#define PGBL_TRANSPORT_H

#include "executor/spi.h"
#include "fmgr.h"
#include "libpq-fe.h"
#include "nodes/params.h"

#include "script_expr.h"
#include "script_parse.h"

/* How a statement goes to the server (pgbench -M); RunQueryMode's order. */
typedef enum TransportMode
{
	TRANSPORT_PREPARED = 0,		/* prepared once, then executed */
	TRANSPORT_SIMPLE,			/* the values as literals in the text */
	TRANSPORT_EXTENDED			/* the text and its parameters, each time */
} TransportMode;

/* Errors a pgbench client retries, and the rest. */
typedef enum TransportErrorClass
{
	TRANSPORT_ERROR_OTHER,
	TRANSPORT_ERROR_SERIALIZATION,
	TRANSPORT_ERROR_DEADLOCK
} TransportErrorClass;

static inline TransportErrorClass
TransportErrorClassOf(int sqlstate)
{
	if (sqlstate == ERRCODE_T_R_SERIALIZATION_FAILURE)
		return TRANSPORT_ERROR_SERIALIZATION;
	if (sqlstate == ERRCODE_T_R_DEADLOCK_DETECTED)
		return TRANSPORT_ERROR_DEADLOCK;
	return TRANSPORT_ERROR_OTHER;
}

static inline bool
TransportRetryable(int sqlstate)
{
	return TransportErrorClassOf(sqlstate) != TRANSPORT_ERROR_OTHER;
}

/* A parameter's value for the next execution: parsed, or as text. */
typedef struct TransportArg
{
	const ScriptValue *value;	/* NULL: text holds it */
	const char *text;
} TransportArg;

/* SPI: how one parameter's value goes in. */
typedef struct TransportSpiParam
{
	Oid			type;			/* as the server inferred it */
	FmgrInfo	input;
	Oid			ioparam;
} TransportSpiParam;

/*
 * A statement, declared once (TransportStmtInit) and prepared where and
 * when its transport needs it: SPI keeps one plan for the run, libpq
 * prepares it on each connection as S_<id>.  Its user fills args before
 * each execution.
 */
typedef struct TransportStmt
{
	const char *text;			/* $1 .. $n for its parameters */
	int			nparams;
	int			id;
	bool		bare;			/* simple: values in the text unquoted (the
								 * built-ins' integers, as pgbench pastes them) */
	TransportArg *args;
	/* SPI */
	SPIPlanPtr	plan;
	Oid		   *types;			/* filled in by the parser's hook */
	TransportSpiParam *params;
	ParamListInfo values;
	bool		read_only;
	/* libpq */
	int			prepared;		/* on the connection of this number */
	const char **texts;			/* the values sent */
	char	   *bufs;			/* 64 bytes per parameter, for numbers */
	struct TransportInline *inlined;	/* query_mode simple: the text cut at
										 * its parameters, once */
} TransportStmt;

/*
 * A statement's result: the rows it returned (-1: a command that returns
 * none), its columns' names and its last row's values (NULL for a null),
 * and its command status where the transport has it (libpq), else NULL.
 */
typedef struct TransportResult
{
	int64		ntuples;
	int			ncols;
	char	  **names;
	char	  **values;
	const char *status;
} TransportResult;

typedef void (*TransportResultFn) (void *arg, const TransportResult *res);

typedef struct Transport Transport;

typedef struct TransportOps
{
	/* Execute st with st->args in the transport's mode; results to fn. */
	void		(*execute) (Transport *t, TransportStmt *st, TransportResultFn fn, void *arg);
	/* BEGIN (with its modes), COMMIT, ROLLBACK (AND CHAIN), savepoints */
	void		(*control) (Transport *t, const ScriptTx *tx, const char *text);
	/* a transaction of the client's own: a pipeline's, a command's (SPI) */
	void		(*begin_implicit) (Transport *t);
	void		(*commit_implicit) (Transport *t);
	/* the failed transaction is rolled back: forget what it held */
	void		(*reset) (Transport *t);
} TransportOps;

struct Transport
{
	const TransportOps *ops;
	TransportMode mode;
	bool		sync;			/* callbacks fire before a call returns */
	bool		autocommits;	/* a statement outside a transaction runs in
								 * one of its own (the server's autocommit) */
	/* the transaction the client has open, as its user follows it */
	bool		in_xact;
	bool		explicit_block; /* ... opened by BEGIN */
};

/* transport.c: what both implementations share */
extern void TransportStmtInit(TransportStmt *st, const char *text, int nparams, int id);
extern void TransportArgTexts(TransportStmt *st);
extern char *TransportInlineParams(const char *sql, int nparams, const char *const *values,
								   bool bare);

/* transport_spi.c */
extern Transport *TransportSpiCreate(TransportMode mode, MemoryContext cxt);
extern void TransportSpiBetween(Transport *t, MemoryContext loopcxt);
extern void TransportSpiPrepare(Transport *t, TransportStmt *st);

/*
 * transport_libpq.c: one connection of a libpq worker.  Its owner makes
 * and closes conn (counting them in number) and reads its socket.
 */
typedef struct TransportLibpq
{
	Transport	t;
	PGconn	   *conn;
	int			number;			/* connections made: statements are prepared on each */
	PGresult   *failed;			/* the first failed result of the command */
	TransportResultFn fn;		/* where the command's results go */
	void	   *fn_arg;
	TransportStmt *pending;		/* prepared, to execute once that is done */
} TransportLibpq;

typedef enum TransportRollback
{
	TRANSPORT_ROLLBACK_SENT,	/* ROLLBACK sent: its result awaited */
	TRANSPORT_ROLLBACK_NONE,	/* the connection is idle: nothing to do */
	TRANSPORT_ROLLBACK_DROP		/* the connection cannot serve: close it */
} TransportRollback;

extern void TransportLibpqInit(TransportLibpq *lp, TransportMode mode);
extern void TransportLibpqSendPrepare(TransportLibpq *lp, const char *name, const char *sql,
									  int nparams);
extern void TransportLibpqSendText(TransportLibpq *lp, const char *sql);
extern void TransportLibpqSendBuiltin(TransportLibpq *lp, const char *name, const char *sql,
									  int nparams, const char *const *values);
extern void TransportLibpqConsume(TransportLibpq *lp);
extern void TransportLibpqIdle(TransportLibpq *lp);
extern bool TransportLibpqNext(TransportLibpq *lp);
extern void TransportLibpqRaiseFailed(TransportLibpq *lp, const char *what);
extern void TransportLibpqForget(TransportLibpq *lp);
extern TransportRollback TransportLibpqRollback(TransportLibpq *lp, bool allowed);

#endif							/* PGBL_TRANSPORT_H */
