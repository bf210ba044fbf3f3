/*-------------------------------------------------------------------------
 *
 * transport_libpq.c
 *		The transport over libpq, on one connection that a libpq worker's
 *		event loop drives among many (client_mux.c): a call sends and
 *		returns; the results come back when the loop reads them.
 *
 * A statement is sent as written for transaction control; by query_mode,
 * with its values in the text (simple), with its parameters (extended), or
 * prepared on this connection the first time as S_<id> and then executed
 * (prepared: the Parse's answer is awaited before the execution is sent,
 * and only the execution's results are handed on).  The built-in
 * workloads' statements go by TransportLibpqSendPrepare and
 * TransportLibpqSendBuiltin, in the same three modes.
 *
 * The loop hands a readable socket here (TransportLibpqConsume), then
 * takes results as long as they are complete (TransportLibpqNext): each
 * successful one goes to the command's callback; the first failed one is
 * kept, and raised once the command's results are all in
 * (TransportLibpqRaiseFailed), with the server's SQLSTATE.  After a failed
 * transaction, TransportLibpqRollback rolls back what it left open on the
 * server, so that the connection can serve again, or says to drop it.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#include "client_libpq.h"
#include "transport.h"

/*
 * query_mode simple: a statement's text cut where its parameters' values
 * go, found once by TransportInlineParams itself (each value a marker that
 * no text holds) and kept with the statement, so that an execution only
 * joins the pieces and the quoted values (into one buffer kept for the
 * worker's life): no scan of the text and no allocation per execution.
 */
typedef struct TransportInline
{
	int			nparts;			/* pieces of text; a value follows each but the last */
	const char **part;
	int		   *len;
	int		   *param;			/* which value follows piece i */
} TransportInline;

#define INLINE_MARK '\x01'		/* a marker's first and last byte */

static StringInfoData inline_buf;

static void
sent(TransportLibpq *lp, int ok)
{
	if (!ok)
		LibpqConnError(lp->conn, NULL, ERRCODE_CONNECTION_FAILURE, "could not send a statement");
}

/* S_<id>: name holds 24 bytes (pg_ltoa writes at most 12) */
static void
statement_name(char *name, const TransportStmt *st)
{
	name[0] = 'S';
	name[1] = '_';
	(void) pg_ltoa(st->id, name + 2);
}

/*
 * Cut st's text where TransportInlineParams puts each value, by inlining
 * markers ("\x01<n>\x01", which quote_literal_cstr leaves as they are)
 * once; NULL when the text holds the marker's byte itself.
 */
static TransportInline *
inline_cut(TransportStmt *st)
{
	MemoryContext cxt = GetMemoryChunkContext(st->args);
	MemoryContext old;
	TransportInline *in;
	const char **marks;
	char	   *text;
	char	   *s;

	if (strchr(st->text, INLINE_MARK) != NULL)
		return NULL;
	old = MemoryContextSwitchTo(cxt);
	marks = palloc(sizeof(char *) * Max(st->nparams, 1));
	for (int p = 0; p < st->nparams; p++)
		marks[p] = psprintf("%c%d%c", INLINE_MARK, p, INLINE_MARK);
	text = TransportInlineParams(st->text, st->nparams, marks, false);
	in = palloc0(sizeof(TransportInline));
	in->part = palloc(sizeof(char *) * (strlen(text) + 1));
	in->len = palloc(sizeof(int) * (strlen(text) + 1));
	in->param = palloc(sizeof(int) * (strlen(text) + 1));
	for (s = text;;)
	{
		/* a marker stands quoted: '<mark>n<mark>' */
		char	   *m = strchr(s, INLINE_MARK);

		in->part[in->nparts] = s;
		if (m == NULL)
		{
			in->len[in->nparts++] = strlen(s);
			break;
		}
		Assert(m > s && m[-1] == '\'');
		in->len[in->nparts] = (m - 1) - s;
		in->param[in->nparts++] = (int) strtol(m + 1, &s, 10);
		Assert(*s == INLINE_MARK && s[1] == '\'');
		s += 2;
	}
	MemoryContextSwitchTo(old);
	return in;
}

/* st's text with its values inlined (st->texts), as TransportInlineParams writes it. */
static const char *
inline_params(TransportStmt *st)
{
	TransportInline *in = st->inlined;

	if (in == NULL && st->nparams > 0)
		in = st->inlined = inline_cut(st);
	if (in == NULL)
		return TransportInlineParams(st->text, st->nparams, st->texts, false);
	if (inline_buf.data == NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);

		initStringInfo(&inline_buf);
		MemoryContextSwitchTo(old);
	}
	resetStringInfo(&inline_buf);
	for (int i = 0; i < in->nparts; i++)
	{
		const char *v;

		appendBinaryStringInfo(&inline_buf, in->part[i], in->len[i]);
		if (i == in->nparts - 1)
			break;
		v = st->texts[in->param[i]];
		if (v == NULL)
			appendStringInfoString(&inline_buf, "NULL");
		else if (strpbrk(v, "'\\") == NULL)
		{
			/* what quote_literal_cstr makes of it, without its allocation */
			appendStringInfoChar(&inline_buf, '\'');
			appendStringInfoString(&inline_buf, v);
			appendStringInfoChar(&inline_buf, '\'');
		}
		else
			appendStringInfoString(&inline_buf, quote_literal_cstr(v));
	}
	return inline_buf.data;
}

/*
 * The values of st's parameters as text, as TransportArgTexts writes them;
 * an integer (a script's \set, nearly always) by pg_lltoa, without
 * snprintf's parsing of its format.
 */
static void
arg_texts(TransportStmt *st)
{
	for (int p = 0; p < st->nparams; p++)
	{
		const ScriptValue *v = st->args[p].value;

		if (v == NULL || v->type != SCRIPT_INT)
		{
			TransportArgTexts(st);
			return;
		}
		(void) pg_lltoa(v->u.i, st->bufs + 64 * p);
		st->texts[p] = st->bufs + 64 * p;
	}
}

static void
lp_execute(Transport *t, TransportStmt *st, TransportResultFn fn, void *arg)
{
	TransportLibpq *lp = (TransportLibpq *) t;
	char		name[24];

	lp->fn = fn;
	lp->fn_arg = arg;
	lp->pending = NULL;
	arg_texts(st);
	/* query_mode simple and extended: nothing prepared on the connection */
	if (t->mode == TRANSPORT_SIMPLE)
	{
		sent(lp, PQsendQuery(lp->conn, st->nparams > 0 ? inline_params(st) : st->text));
		return;
	}
	if (t->mode == TRANSPORT_EXTENDED)
	{
		sent(lp, PQsendQueryParams(lp->conn, st->text, st->nparams, NULL, st->texts, NULL, NULL, 0));
		return;
	}
	statement_name(name, st);
	if (st->prepared != lp->number)
	{
		lp->pending = st;
		sent(lp, PQsendPrepare(lp->conn, name, st->text, st->nparams, NULL));
	}
	else
		sent(lp, PQsendQueryPrepared(lp->conn, name, st->nparams, st->texts, NULL, NULL, 0));
}

/* sql as a simple query, its results to no callback. */
void
TransportLibpqSendText(TransportLibpq *lp, const char *sql)
{
	lp->fn = NULL;
	lp->pending = NULL;
	sent(lp, PQsendQuery(lp->conn, sql));
}

/* The transaction control as written: the server runs it. */
static void
lp_control(Transport *t, const ScriptTx *tx, const char *text)
{
	TransportLibpqSendText((TransportLibpq *) t, text);
}

static void
lp_begin_implicit(Transport *t)
{
	TransportLibpqSendText((TransportLibpq *) t, "BEGIN");
}

static void
lp_commit_implicit(Transport *t)
{
	TransportLibpqSendText((TransportLibpq *) t, "COMMIT");
}

static void
lp_reset(Transport *t)
{
}

static const TransportOps libpq_ops = {
	.execute = lp_execute,
	.control = lp_control,
	.begin_implicit = lp_begin_implicit,
	.commit_implicit = lp_commit_implicit,
	.reset = lp_reset,
};

void
TransportLibpqInit(TransportLibpq *lp, TransportMode mode)
{
	lp->t.ops = &libpq_ops;
	lp->t.mode = mode;
	lp->t.sync = false;
	lp->t.autocommits = true;
}

/* A statement prepared by name (a built-in workload's). */
void
TransportLibpqSendPrepare(TransportLibpq *lp, const char *name, const char *sql, int nparams)
{
	lp->fn = NULL;
	lp->pending = NULL;
	sent(lp, PQsendPrepare(lp->conn, name, sql, nparams, NULL));
}

/*
 * A built-in workload's statement executed with these values, in the
 * connection's query_mode: by name (prepared, TransportLibpqSendPrepare
 * first), as the unnamed statement with its parameters (extended), or with
 * the values in the text as pgbench -M simple puts them, bare (the
 * built-ins' values are integers).
 */
void
TransportLibpqSendBuiltin(TransportLibpq *lp, const char *name, const char *sql, int nparams,
						  const char *const *values)
{
	lp->fn = NULL;
	lp->pending = NULL;
	if (lp->t.mode == TRANSPORT_SIMPLE)
		sent(lp, PQsendQuery(lp->conn, nparams > 0 ? TransportInlineParams(sql, nparams, values, true)
							 : sql));
	else if (lp->t.mode == TRANSPORT_EXTENDED)
		sent(lp, PQsendQueryParams(lp->conn, sql, nparams, NULL, values, NULL, NULL, 0));
	else
		sent(lp, PQsendQueryPrepared(lp->conn, name, nparams, values, NULL, NULL, 0));
}

/* The socket is readable: take what arrived. */
void
TransportLibpqConsume(TransportLibpq *lp)
{
	if (!PQconsumeInput(lp->conn))
		LibpqConnError(lp->conn, NULL, ERRCODE_CONNECTION_FAILURE,
					   "statement failed on the target server");
}

/* One successful result, to the callback (its count and last row). */
static void
deliver(TransportLibpq *lp, PGresult *res)
{
	ExecStatusType st = PQresultStatus(res);
	TransportResult r;
	char	   *names[8];
	char	   *values[8];

	r.ntuples = st == PGRES_TUPLES_OK ? PQntuples(res) : -1;
	r.ncols = st == PGRES_TUPLES_OK ? PQnfields(res) : 0;
	/* a few columns (every built-in's, most scripts'): nothing allocated */
	r.names = r.ncols <= lengthof(names) ? names : palloc(sizeof(char *) * r.ncols);
	r.values = r.ncols <= lengthof(values) ? values : palloc(sizeof(char *) * r.ncols);
	r.status = PQcmdStatus(res);
	for (int f = 0; f < r.ncols; f++)
	{
		r.names[f] = PQfname(res, f);
		r.values[f] = r.ntuples > 0 && !PQgetisnull(res, r.ntuples - 1, f) ?
			PQgetvalue(res, r.ntuples - 1, f) : NULL;
	}
	lp->fn(lp->fn_arg, &r);
}

/*
 * Take the results that are complete: true when the command's are all in
 * (then lp->failed holds its first failure, if any), false when more are
 * awaited.  A statement prepared first is executed once that is done.
 */
bool
TransportLibpqNext(TransportLibpq *lp)
{
	while (!PQisBusy(lp->conn))
	{
		PGresult   *res = PQgetResult(lp->conn);
		ExecStatusType st;

		if (res == NULL)
		{
			TransportStmt *st = lp->pending;
			char		name[24];

			if (st == NULL || lp->failed != NULL)
				return true;
			lp->pending = NULL;
			st->prepared = lp->number;
			statement_name(name, st);
			sent(lp, PQsendQueryPrepared(lp->conn, name, st->nparams, st->texts, NULL, NULL, 0));
			continue;
		}
		st = PQresultStatus(res);
		if (lp->failed == NULL && st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK)
		{
			lp->failed = res;
			continue;
		}
		if (lp->failed == NULL && lp->pending == NULL && lp->fn != NULL)
		{
			PG_TRY();
			{
				deliver(lp, res);
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
	return false;
}

/* The command's first failure, raised; "what" when the server says nothing. */
void
TransportLibpqRaiseFailed(TransportLibpq *lp, const char *what)
{
	if (lp->failed != NULL)
		LibpqConnError(lp->conn, lp->failed, ERRCODE_CONNECTION_FAILURE, what);
}

/* A failure kept, forgotten (the connection closes, or is rolled back). */
void
TransportLibpqForget(TransportLibpq *lp)
{
	if (lp->failed)
		PQclear(lp->failed);
	lp->failed = NULL;
	lp->pending = NULL;
}

/*
 * After a failed transaction: roll back what it left open on the server
 * (allowed: not when the run is cancelled), or say that the connection
 * cannot serve again.
 */
TransportRollback
TransportLibpqRollback(TransportLibpq *lp, bool allowed)
{
	PGTransactionStatusType ts = lp->conn ? PQtransactionStatus(lp->conn) : PQTRANS_UNKNOWN;

	TransportLibpqForget(lp);
	lp->t.in_xact = lp->t.explicit_block = false;
	if (lp->conn != NULL && PQstatus(lp->conn) == CONNECTION_OK &&
		(ts == PQTRANS_INERROR || ts == PQTRANS_INTRANS) && allowed)
	{
		if (PQsendQuery(lp->conn, "ROLLBACK"))
		{
			lp->fn = NULL;
			return TRANSPORT_ROLLBACK_SENT;
		}
	}
	if (lp->conn != NULL && (ts != PQTRANS_IDLE || PQstatus(lp->conn) != CONNECTION_OK))
		return TRANSPORT_ROLLBACK_DROP;
	return TRANSPORT_ROLLBACK_NONE;
}

/*
 * Between commands, what arrived unasked is dropped (a server that hung
 * up is noticed at the next send).
 */
void
TransportLibpqIdle(TransportLibpq *lp)
{
	PGnotify   *n;

	while ((n = PQnotifies(lp->conn)) != NULL)
		PQfreemem(n);
}
