/*-------------------------------------------------------------------------
 *
 * transport_spi.c
 *		The transport through SPI, in the client's own backend: every call
 *		is over, its results handed on, when it returns.
 *
 * Transactions: BEGIN starts a transaction with the isolation, read-only
 * and deferrable modes it names (kept for AND CHAIN); COMMIT and ROLLBACK
 * end it; SAVEPOINT, RELEASE and ROLLBACK TO are internal
 * subtransactions.  A command outside a transaction gets one of its own
 * (begin_implicit, commit_implicit: autocommit), as does a pipeline's
 * run of commands outside a block.
 *
 * Statements: query_mode prepared prepares a statement the first time it
 * runs, with its parameters $n typed by PostgreSQL from where they stand
 * (as pgbench -M prepared leaves them to the server), and keeps the plan
 * for the run.  Values go in as the text pgbench would send, through the
 * parameter type's input function, or directly for integers and doubles
 * into integer, float8 and boolean parameters.  A statement that only
 * reads (a SELECT that locks nothing, writes nothing and calls nothing
 * volatile) runs read-only, on the snapshot taken for it.  extended plans
 * the text with its parameters each time, simple the text with the values
 * in it; neither keeps a plan.
 *
 * An error is raised as it comes; the caller catches it, and the rollback
 * of everything (subtransactions included) is AbortOutOfAnyTransaction's
 * (WorkerCatch), after which reset forgets the savepoints.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "parser/parse_param.h"
#include "parser/parser.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/plancache.h"
#include "utils/snapmgr.h"

#include "transport.h"

#define TRANSPORT_MAX_SAVEPOINTS 64

typedef struct TransportSpi
{
	Transport	t;
	MemoryContext cxt;			/* the statements' parameters, savepoints */
	MemoryContext loopcxt;		/* current between transactions */
	int			nsavepoints;
	char	   *savepoints[TRANSPORT_MAX_SAVEPOINTS];
	int			iso;			/* BEGIN's characteristics (-1: not given), */
	int			read_only;		/* kept for AND CHAIN */
	int			deferrable;
} TransportSpi;

/* ------------------------------------------------------------------------
 * Transactions
 * ------------------------------------------------------------------------
 */

static void
xact_begin(TransportSpi *s, bool explicit_block)
{
	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	if (explicit_block)
	{
		if (s->iso >= 0)
			XactIsoLevel = s->iso;
		if (s->read_only >= 0)
			XactReadOnly = s->read_only == 1;
		if (s->deferrable >= 0)
			XactDeferrable = s->deferrable == 1;
	}
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
}

static void
forget_savepoints(TransportSpi *s)
{
	while (s->nsavepoints > 0)
		pfree(s->savepoints[--s->nsavepoints]);
}

static void
xact_end(TransportSpi *s, bool commit)
{
	SPI_finish();
	if (commit)
		CommitTransactionCommand();
	else
		AbortCurrentTransaction();
	MemoryContextSwitchTo(s->loopcxt);
	forget_savepoints(s);
}

static int
savepoint_find(TransportSpi *s, const char *name)
{
	for (int i = s->nsavepoints - 1; i >= 0; i--)
		if (strcmp(s->savepoints[i], name) == 0)
			return i;
	ereport(ERROR,
			(errcode(ERRCODE_S_E_INVALID_SPECIFICATION),
			 errmsg("savepoint \"%s\" does not exist", name)));
	return -1;
}

static void
savepoint_begin(TransportSpi *s, const char *name)
{
	MemoryContext cxt = CurrentMemoryContext;

	if (s->nsavepoints == TRANSPORT_MAX_SAVEPOINTS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("a script's transaction may hold at most %d savepoints",
						TRANSPORT_MAX_SAVEPOINTS)));
	BeginInternalSubTransaction(name);
	MemoryContextSwitchTo(cxt);
	s->savepoints[s->nsavepoints++] = MemoryContextStrdup(s->cxt, name);
}

/* RELEASE and ROLLBACK TO: the savepoints above it go; ROLLBACK TO keeps it. */
static void
savepoint_end(TransportSpi *s, const char *name, bool rollback)
{
	MemoryContext cxt = CurrentMemoryContext;
	int			target = savepoint_find(s, name);

	while (s->nsavepoints > target)
	{
		if (rollback)
			RollbackAndReleaseCurrentSubTransaction();
		else
			ReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		pfree(s->savepoints[--s->nsavepoints]);
	}
	if (rollback)
		savepoint_begin(s, name);
}

static void
need_block(TransportSpi *s, const char *what)
{
	if (!s->t.explicit_block)
		ereport(ERROR,
				(errcode(ERRCODE_NO_ACTIVE_SQL_TRANSACTION),
				 errmsg("%s can only be used in transaction blocks", what)));
}

/* BEGIN, COMMIT, ROLLBACK and the savepoints, run here. */
static void
spi_control(Transport *t, const ScriptTx *tx, const char *text)
{
	TransportSpi *s = (TransportSpi *) t;

	switch (tx->kind)
	{
		case STX_BEGIN:
			s->iso = tx->isolation;
			s->read_only = tx->read_only;
			s->deferrable = tx->deferrable;
			xact_begin(s, true);
			return;
		case STX_COMMIT:
		case STX_ROLLBACK:
			xact_end(s, tx->kind == STX_COMMIT);
			if (tx->chain)
				xact_begin(s, true);
			return;
		case STX_SAVEPOINT:
			need_block(s, "SAVEPOINT");
			savepoint_begin(s, tx->savepoint);
			return;
		case STX_RELEASE:
		case STX_ROLLBACK_TO:
			need_block(s, tx->kind == STX_RELEASE ? "RELEASE SAVEPOINT" : "ROLLBACK TO SAVEPOINT");
			savepoint_end(s, tx->savepoint, tx->kind == STX_ROLLBACK_TO);
			return;
		case STX_NONE:
			break;
	}
}

static void
spi_begin_implicit(Transport *t)
{
	xact_begin((TransportSpi *) t, false);
}

static void
spi_commit_implicit(Transport *t)
{
	xact_end((TransportSpi *) t, true);
}

static void
spi_reset(Transport *t)
{
	forget_savepoints((TransportSpi *) t);
}

/* ------------------------------------------------------------------------
 * Statements
 * ------------------------------------------------------------------------
 */

static void
params_hook(ParseState *pstate, void *arg)
{
	TransportStmt *st = (TransportStmt *) arg;

	setup_parse_variable_parameters(pstate, &st->types, &st->nparams);
}

static bool
stmt_reads_only(SPIPlanPtr plan)
{
	ListCell   *lc;

	foreach(lc, SPI_plan_get_plan_sources(plan))
	{
		CachedPlanSource *ps = (CachedPlanSource *) lfirst(lc);
		ListCell   *lq;

		foreach(lq, ps->query_list)
		{
			Query	   *q = lfirst_node(Query, lq);

			if (q->commandType != CMD_SELECT || q->rowMarks != NIL ||
				q->hasModifyingCTE || q->utilityStmt != NULL ||
				contain_volatile_functions((Node *) q))
				return false;
		}
	}
	return true;
}

/* Prepare a statement for the rest of the run, its parameters typed. */
static void
prepare_stmt(TransportSpi *s, TransportStmt *st)
{
	SPIPrepareOptions opts;
	MemoryContext old;

	memset(&opts, 0, sizeof(opts));
	opts.parserSetup = params_hook;
	opts.parserSetupArg = st;
	opts.parseMode = RAW_PARSE_DEFAULT;
	st->plan = SPI_prepare_extended(st->text, &opts);
	if (st->plan == NULL)
		elog(ERROR, "SPI_prepare failed for \"%s\": %s", st->text,
			 SPI_result_code_string(SPI_result));
	if (SPI_keepplan(st->plan) != 0)
		elog(ERROR, "SPI_keepplan failed");
	st->read_only = stmt_reads_only(st->plan);
	old = MemoryContextSwitchTo(s->cxt);
	st->values = makeParamList(st->nparams);
	for (int p = 0; p < st->nparams; p++)
	{
		TransportSpiParam *pa = &st->params[p];
		Oid			infunc;

		pa->type = st->types[p];
		st->values->params[p].ptype = pa->type == InvalidOid ? UNKNOWNOID : pa->type;
		st->values->params[p].pflags = PARAM_FLAG_CONST;
		if (pa->type == InvalidOid || pa->type == UNKNOWNOID)
			continue;
		getTypeInputInfo(pa->type, &infunc, &pa->ioparam);
		fmgr_info_cxt(infunc, &pa->input, s->cxt);
	}
	MemoryContextSwitchTo(old);
}

static void
int_out_of_range(int64 value, const char *type)
{
	ereport(ERROR,
			(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
			 errmsg("value \"" INT64_FORMAT "\" is out of range for type %s", value, type)));
}

/* One parameter's value: integers directly, anything else through text. */
static void
bind_param(TransportSpiParam *pa, const TransportArg *a, ParamExternData *out)
{
	const ScriptValue *v = a->value;
	char		buf[64];
	const char *text;

	out->isnull = false;
	if (v != NULL && v->type == SCRIPT_NULL)
	{
		out->isnull = true;
		out->value = (Datum) 0;
		return;
	}
	if (v != NULL && v->type == SCRIPT_INT)
	{
		int64		i = v->u.i;

		switch (pa->type)
		{
			case INT8OID:
				out->value = Int64GetDatum(i);
				return;
			case INT4OID:
				if (i < PG_INT32_MIN || i > PG_INT32_MAX)
					int_out_of_range(i, "integer");
				out->value = Int32GetDatum((int32) i);
				return;
			case INT2OID:
				if (i < PG_INT16_MIN || i > PG_INT16_MAX)
					int_out_of_range(i, "smallint");
				out->value = Int16GetDatum((int16) i);
				return;
			case FLOAT8OID:
				out->value = Float8GetDatum((double) i);
				return;
		}
	}
	if (v != NULL && v->type == SCRIPT_DOUBLE && pa->type == FLOAT8OID)
	{
		out->value = Float8GetDatum(v->u.d);
		return;
	}
	if (v != NULL)
	{
		ScriptValueFormat(v, buf, sizeof(buf));
		text = buf;
	}
	else
		text = a->text;
	if (pa->type == InvalidOid || pa->type == UNKNOWNOID)
		out->value = CStringGetDatum(pstrdup(text));
	else
		out->value = InputFunctionCall(&pa->input, (char *) text, pa->ioparam, -1);
}

/* SPI's result, to fn: its count, columns and last row. */
static void
deliver(TransportResultFn fn, void *arg)
{
	SPITupleTable *tt = SPI_tuptable;
	TransportResult r;

	r.ncols = tt != NULL ? tt->tupdesc->natts : 0;
	r.ntuples = tt != NULL ? (int64) SPI_processed : -1;
	r.names = palloc(sizeof(char *) * Max(r.ncols, 1));
	r.values = palloc(sizeof(char *) * Max(r.ncols, 1));
	r.status = NULL;
	for (int f = 0; f < r.ncols; f++)
	{
		r.names[f] = SPI_fname(tt->tupdesc, f + 1);
		r.values[f] = SPI_processed > 0 ? SPI_getvalue(tt->vals[SPI_processed - 1], tt->tupdesc, f + 1) : NULL;
	}
	fn(arg, &r);
}

/*
 * query_mode simple: the values in the text, parsed and planned each time;
 * extended: the text and its parameters, parsed and planned each time.
 * Neither keeps a plan (and simple prepares nothing: a value may stand
 * where no parameter may, as in pgbench).
 */
static int
execute_unprepared(Transport *t, TransportStmt *st)
{
	if (t->mode == TRANSPORT_SIMPLE)
	{
		TransportArgTexts(st);
		return SPI_execute(TransportInlineParams(st->text, st->nparams, st->texts, st->bare),
						   false, 0);
	}
	else
	{
		Datum	   *values = palloc(sizeof(Datum) * Max(st->nparams, 1));
		Oid		   *types = palloc(sizeof(Oid) * Max(st->nparams, 1));
		char	   *nulls = palloc(Max(st->nparams, 1));

		for (int p = 0; p < st->nparams; p++)
		{
			values[p] = st->values->params[p].value;
			types[p] = st->values->params[p].ptype;
			nulls[p] = st->values->params[p].isnull ? 'n' : ' ';
		}
		return SPI_execute_with_args(st->text, st->nparams, types, values, nulls, st->read_only, 0);
	}
}

static void
spi_execute(Transport *t, TransportStmt *st, TransportResultFn fn, void *arg)
{
	TransportSpi *s = (TransportSpi *) t;
	SPIExecuteOptions opts;
	int			rc;

	if (st->plan == NULL && t->mode != TRANSPORT_SIMPLE)
		prepare_stmt(s, st);
	for (int p = 0; p < st->nparams && st->plan != NULL; p++)
		bind_param(&st->params[p], &st->args[p], &st->values->params[p]);
	memset(&opts, 0, sizeof(opts));
	opts.params = st->nparams > 0 ? st->values : NULL;
	opts.read_only = st->read_only;
	PushActiveSnapshot(GetTransactionSnapshot());
	if (t->mode != TRANSPORT_PREPARED)
		rc = execute_unprepared(t, st);
	else
		rc = SPI_execute_plan_extended(st->plan, &opts);
	if (rc < 0)
		elog(ERROR, "SPI_execute_plan_extended failed: %s", SPI_result_code_string(rc));
	if (fn != NULL)
		deliver(fn, arg);
	SPI_freetuptable(SPI_tuptable);
	PopActiveSnapshot();
}

static const TransportOps spi_ops = {
	.execute = spi_execute,
	.control = spi_control,
	.begin_implicit = spi_begin_implicit,
	.commit_implicit = spi_commit_implicit,
	.reset = spi_reset,
};

/* A client's transport through SPI, in cxt for the run. */
Transport *
TransportSpiCreate(TransportMode mode, MemoryContext cxt)
{
	TransportSpi *s = MemoryContextAllocZero(cxt, sizeof(TransportSpi));

	s->t.ops = &spi_ops;
	s->t.mode = mode;
	s->t.sync = true;
	s->t.autocommits = false;
	s->cxt = cxt;
	s->loopcxt = cxt;
	s->iso = s->read_only = s->deferrable = -1;
	return &s->t;
}

/*
 * Prepare st now rather than when it first runs (SPI connected, in a
 * transaction): the built-ins' statements, before the run's go.
 */
void
TransportSpiPrepare(Transport *t, TransportStmt *st)
{
	if (st->plan == NULL && t->mode != TRANSPORT_SIMPLE)
		prepare_stmt((TransportSpi *) t, st);
}

/* The memory context current between transactions (after a commit). */
void
TransportSpiBetween(Transport *t, MemoryContext loopcxt)
{
	((TransportSpi *) t)->loopcxt = loopcxt;
}
