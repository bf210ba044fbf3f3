/*-------------------------------------------------------------------------
 *
 * script_run.c
 *		The script interpreter: one client's run of pgbench script files,
 *		one script execution per transaction of the run.
 *
 * Each client parses the run's scripts from their text into programs of
 * its own, finds every variable they name a slot, and runs one script per
 * transaction of the run, chosen by weight.  A transaction of the run is
 * one execution of the script from its first command to its last, as in
 * pgbench; the script's own BEGIN ... COMMIT (or END) blocks are its
 * database transactions, and an SQL command outside them is a transaction
 * of its own (pgbench's autocommit), as are the commands of a pipeline
 * outside a block up to its \syncpipeline or \endpipeline (the implicit
 * transaction of an extended-protocol pipeline).  The interpreter runs the
 * transaction control itself: BEGIN starts a transaction with the
 * isolation, read-only and deferrable modes it names; SAVEPOINT, RELEASE
 * and ROLLBACK TO are internal subtransactions.
 *
 * SQL: each statement of a command is prepared once per client, the first
 * time it runs, with its :variables as bind parameters $n whose types
 * PostgreSQL infers from where they stand (as pgbench -M prepared leaves
 * them to the server); the plan is kept for the rest of the run.  Values
 * go in as the text pgbench would send, through the parameter type's input
 * function, or directly for integers and doubles into integer, float8 and
 * boolean parameters.  A statement that only reads (a SELECT that locks
 * nothing, writes nothing and calls nothing volatile) runs read-only, on
 * the snapshot taken for it.
 *
 * An error anywhere aborts the transaction (all of it, subtransactions
 * included) and is returned to client.c, which retries serialisation
 * failures and deadlocks as for the built-in workloads: a retry runs the
 * same script again with the random state it started with.
 *
 * This file runs a transaction through SPI; script_vars.c sets a client
 * up and keeps its variables, script_step.c runs scripts over libpq in
 * steps; script_run_int.h is what they share.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "common/int.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "parser/parse_param.h"
#include "parser/parser.h"
#include "storage/latch.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/plancache.h"
#include "utils/snapmgr.h"
#include "utils/wait_event.h"

#include "script_run_int.h"

/* ------------------------------------------------------------------------
 * Transactions
 * ------------------------------------------------------------------------
 */

static void
xact_begin(ScriptClient *sc, bool explicit_block)
{
	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	if (explicit_block)
	{
		if (sc->iso >= 0)
			XactIsoLevel = sc->iso;
		if (sc->read_only >= 0)
			XactReadOnly = sc->read_only == 1;
		if (sc->deferrable >= 0)
			XactDeferrable = sc->deferrable == 1;
	}
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	sc->in_xact = true;
	sc->explicit_block = explicit_block;
}

static void
xact_end(ScriptClient *sc, bool commit)
{
	SPI_finish();
	if (commit)
		CommitTransactionCommand();
	else
		AbortCurrentTransaction();
	MemoryContextSwitchTo(sc->loopcxt);
	sc->in_xact = false;
	sc->explicit_block = false;
	sc->nsavepoints = 0;
}

static int
savepoint_find(ScriptClient *sc, const char *name)
{
	for (int i = sc->nsavepoints - 1; i >= 0; i--)
		if (strcmp(sc->savepoints[i], name) == 0)
			return i;
	ereport(ERROR,
			(errcode(ERRCODE_S_E_INVALID_SPECIFICATION),
			 errmsg("savepoint \"%s\" does not exist", name)));
	return -1;
}

static void
savepoint_begin(ScriptClient *sc, const char *name)
{
	MemoryContext cxt = CurrentMemoryContext;

	if (sc->nsavepoints == SCRIPT_MAX_SAVEPOINTS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("a script's transaction may hold at most %d savepoints",
						SCRIPT_MAX_SAVEPOINTS)));
	BeginInternalSubTransaction(name);
	MemoryContextSwitchTo(cxt);
	sc->savepoints[sc->nsavepoints++] = MemoryContextStrdup(sc->cxt, name);
}

/* RELEASE and ROLLBACK TO: the savepoints above it go; ROLLBACK TO keeps it. */
static void
savepoint_end(ScriptClient *sc, const char *name, bool rollback)
{
	MemoryContext cxt = CurrentMemoryContext;
	int			target = savepoint_find(sc, name);

	while (sc->nsavepoints > target)
	{
		if (rollback)
			RollbackAndReleaseCurrentSubTransaction();
		else
			ReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		pfree(sc->savepoints[--sc->nsavepoints]);
	}
	if (rollback)
		savepoint_begin(sc, name);
}

static void
need_block(ScriptClient *sc, const char *what)
{
	if (!sc->explicit_block)
		ereport(ERROR,
				(errcode(ERRCODE_NO_ACTIVE_SQL_TRANSACTION),
				 errmsg("%s can only be used in transaction blocks", what)));
}

/* BEGIN, COMMIT, ROLLBACK and the savepoints, run by the interpreter. */
static void
run_tx(ScriptClient *sc, const ScriptTx *tx)
{
	switch (tx->kind)
	{
		case STX_BEGIN:
			if (sc->explicit_block)
			{
				ereport(WARNING,
						(errcode(ERRCODE_ACTIVE_SQL_TRANSACTION),
						 errmsg("there is already a transaction in progress")));
				return;
			}
			sc->iso = tx->isolation;
			sc->read_only = tx->read_only;
			sc->deferrable = tx->deferrable;
			if (sc->in_xact)	/* a pipeline's implicit transaction */
				sc->explicit_block = true;
			else
				xact_begin(sc, true);
			return;
		case STX_COMMIT:
		case STX_ROLLBACK:
			if (!sc->in_xact)
			{
				ereport(WARNING,
						(errcode(ERRCODE_NO_ACTIVE_SQL_TRANSACTION),
						 errmsg("there is no transaction in progress")));
				return;
			}
			xact_end(sc, tx->kind == STX_COMMIT);
			if (tx->chain)
				xact_begin(sc, true);
			return;
		case STX_SAVEPOINT:
			need_block(sc, "SAVEPOINT");
			savepoint_begin(sc, tx->savepoint);
			return;
		case STX_RELEASE:
		case STX_ROLLBACK_TO:
			need_block(sc, tx->kind == STX_RELEASE ? "RELEASE SAVEPOINT" : "ROLLBACK TO SAVEPOINT");
			savepoint_end(sc, tx->savepoint, tx->kind == STX_ROLLBACK_TO);
			return;
		case STX_NONE:
			break;
	}
}

/* ------------------------------------------------------------------------
 * SQL
 * ------------------------------------------------------------------------
 */

static void
params_hook(ParseState *pstate, void *arg)
{
	Stmt	   *st = (Stmt *) arg;

	setup_parse_variable_parameters(pstate, &st->types, &st->ntypes);
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
prepare_stmt(ScriptClient *sc, Stmt *st)
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
	old = MemoryContextSwitchTo(sc->cxt);
	st->values = makeParamList(st->ntypes);
	for (int p = 0; p < st->ntypes; p++)
	{
		ParamBind	   *pa = &st->params[p];
		Oid			infunc;

		pa->type = st->types[p];
		st->values->params[p].ptype = pa->type == InvalidOid ? UNKNOWNOID : pa->type;
		st->values->params[p].pflags = PARAM_FLAG_CONST;
		if (pa->type == InvalidOid || pa->type == UNKNOWNOID)
			continue;
		getTypeInputInfo(pa->type, &infunc, &pa->ioparam);
		fmgr_info_cxt(infunc, &pa->input, sc->cxt);
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
bind_param(ScriptClient *sc, ParamBind *pa, ParamExternData *out)
{
	ScriptVar		   *v = ScriptDefinedVar(sc, pa->slot);
	char		buf[64];
	const char *text;

	out->isnull = false;
	if (v->parsed && v->value.type == SCRIPT_NULL)
	{
		out->isnull = true;
		out->value = (Datum) 0;
		return;
	}
	if (v->parsed && v->value.type == SCRIPT_INT)
	{
		int64		i = v->value.u.i;

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
	if (v->parsed && v->value.type == SCRIPT_DOUBLE && pa->type == FLOAT8OID)
	{
		out->value = Float8GetDatum(v->value.u.d);
		return;
	}
	if (v->parsed)
	{
		ScriptValueFormat(&v->value, buf, sizeof(buf));
		text = buf;
	}
	else
		text = v->text;
	if (pa->type == InvalidOid || pa->type == UNKNOWNOID)
		out->value = CStringGetDatum(pstrdup(text));
	else
		out->value = InputFunctionCall(&pa->input, (char *) text, pa->ioparam, -1);
}

/*
 * \gset and \aset: a result's columns into variables, from its last row
 * (values NULL for a null; ntuples -1 for a command that returns none).
 */
static void
set_vars(ScriptClient *sc, const ScriptSql *sql, bool last, int64 ntuples, int ncols,
		 char **names, char **values)
{
	if (sql->gset == SGSET_NONE || (sql->gset == SGSET_GSET && !last))
		return;
	if (ntuples < 0)
		ereport(ERROR,
				(errcode(ERRCODE_NO_DATA),
				 errmsg("\\%s found no rows to read: the query returns none",
						sql->gset == SGSET_GSET ? "gset" : "aset"),
				 errhint("\\gset and \\aset follow a query that returns rows, such as a SELECT.")));
	if (sql->gset == SGSET_GSET && ntuples != 1)
		ereport(ERROR,
				(errcode(ERRCODE_CARDINALITY_VIOLATION),
				 errmsg("\\gset expects one row, the query returned " INT64_FORMAT, ntuples),
				 errhint("Make the query return exactly one row, or use \\aset, which keeps the last row "
						 "and sets nothing when there is none.")));
	if (ntuples == 0)
		return;
	for (int f = 0; f < ncols; f++)
	{
		char	   *name = psprintf("%s%s", sql->gset_prefix ? sql->gset_prefix : "", names[f]);
		int			slot = ScriptVarSlot(sc, name);
		ScriptVar  *v = &sc->vars[slot];

		if (values[f] == NULL)
		{
			ScriptValue null = {.type = SCRIPT_NULL};

			ScriptVarSetValue(v, &null);
		}
		else
			ScriptVarSetText(sc, v, values[f]);
	}
}

/* set_vars() from SPI's result */
static void
set_from_spi(ScriptClient *sc, const ScriptSql *sql, bool last)
{
	SPITupleTable *tt = SPI_tuptable;
	int			ncols = 0;
	char	  **names;
	char	  **values;

	if (sql->gset == SGSET_NONE || (sql->gset == SGSET_GSET && !last))
		return;
	if (tt != NULL)
		ncols = tt->tupdesc->natts;
	names = palloc(sizeof(char *) * Max(ncols, 1));
	values = palloc(sizeof(char *) * Max(ncols, 1));
	for (int f = 0; f < ncols; f++)
	{
		names[f] = SPI_fname(tt->tupdesc, f + 1);
		values[f] = SPI_processed > 0 ? SPI_getvalue(tt->vals[SPI_processed - 1], tt->tupdesc, f + 1) : NULL;
	}
	set_vars(sc, sql, last, tt ? (int64) SPI_processed : -1, ncols, names, values);
}

void
ScriptSetFromLibpq(void *arg, int ntuples, int ncols, char **names, char **values)
{
	LibpqResultArg *a = (LibpqResultArg *) arg;

	set_vars(a->sc, a->sql, a->last, ntuples, ncols, names, values);
}

/* The values of a statement's parameters as text, for libpq. */
void
ScriptParamTexts(ScriptClient *sc, Stmt *st)
{
	for (int p = 0; p < st->ntypes; p++)
	{
		ScriptVar  *v = ScriptDefinedVar(sc, st->params[p].slot);

		if (!v->parsed)
			st->texts[p] = v->text;
		else if (v->value.type == SCRIPT_NULL)
			st->texts[p] = NULL;
		else
		{
			ScriptValueFormat(&v->value, st->bufs + 64 * p, 64);
			st->texts[p] = st->bufs + 64 * p;
		}
	}
}

static bool
ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		c == '_' || c == '$' || IS_HIGHBIT_SET(c);
}

/* Where the quoted text, comment or dollar-quoted text starting at s ends. */
static const char *
skip_quoted(const char *start, const char *s)
{
	if (*s == '\'' || *s == '"')
	{
		char		q = *s;
		bool		backslash = q == '\'' && s > start && (s[-1] == 'E' || s[-1] == 'e') &&
			(s - 1 == start || !ident_char(s[-2]));

		for (s++; *s; s++)
		{
			if (backslash && *s == '\\' && s[1] != '\0')
				s++;
			else if (*s == q && s[1] == q)
				s++;
			else if (*s == q)
				return s + 1;
		}
		return s;
	}
	if (s[0] == '-' && s[1] == '-')
		return s + strcspn(s, "\n");
	if (s[0] == '/' && s[1] == '*')
	{
		int			depth = 0;

		for (; *s; s++)
		{
			if (s[0] == '/' && s[1] == '*')
				depth++, s++;
			else if (s[0] == '*' && s[1] == '/' && --depth == 0)
				return s + 2;
			else if (s[0] == '*' && s[1] == '/')
				s++;
		}
		return s;
	}
	/* $tag$ ... $tag$ */
	{
		const char *t = s + 1;
		const char *end;
		char	   *tag;

		while (*t && *t != '$' && ident_char(*t) && !(t == s + 1 && *t >= '0' && *t <= '9'))
			t++;
		if (*t != '$')
			return s + 1;
		tag = pnstrdup(s, t - s + 1);
		end = strstr(t + 1, tag);
		return end ? end + strlen(tag) : t + strlen(t);
	}
}

/*
 * A statement's text with its parameters $1 .. $n replaced by their
 * values as quoted literals (NULL for a null): query_mode simple, as
 * pgbench -M simple puts the values in the text.  Only the parser's own
 * $n stand outside quotes and comments (it refuses a script's own).
 */
char *
ScriptInlineParams(const char *sql, int nparams, const char *const *values)
{
	StringInfoData buf;
	const char *s = sql;

	initStringInfo(&buf);
	while (*s)
	{
		const char *from = s;

		if (*s == '$' && s[1] >= '0' && s[1] <= '9' && (s == sql || !ident_char(s[-1])))
		{
			int			n = 0;

			for (s++; *s >= '0' && *s <= '9' && n < 100000; s++)
				n = n * 10 + (*s - '0');
			if (n >= 1 && n <= nparams)
			{
				appendStringInfoString(&buf, values[n - 1] ? quote_literal_cstr(values[n - 1]) : "NULL");
				continue;
			}
		}
		else if (*s == '\'' || *s == '"' || *s == '$' || (s[0] == '-' && s[1] == '-') ||
				 (s[0] == '/' && s[1] == '*'))
			s = skip_quoted(sql, s);
		else
			s++;
		appendBinaryStringInfo(&buf, from, s - from);
	}
	return buf.data;
}

/*
 * query_mode simple: the values in the text, parsed and planned each time;
 * extended: the text and its parameters, parsed and planned each time.
 * Neither keeps a plan (and simple prepares nothing: a value may stand
 * where no parameter may, as in pgbench).
 */
static int
run_stmt_unprepared(ScriptClient *sc, Stmt *st)
{
	if (sc->run->query_mode == RUN_QUERY_SIMPLE)
	{
		ScriptParamTexts(sc, st);
		return SPI_execute(ScriptInlineParams(st->text, st->ntypes, st->texts), false, 0);
	}
	else
	{
		Datum	   *values = palloc(sizeof(Datum) * Max(st->ntypes, 1));
		Oid		   *types = palloc(sizeof(Oid) * Max(st->ntypes, 1));
		char	   *nulls = palloc(Max(st->ntypes, 1));

		for (int p = 0; p < st->ntypes; p++)
		{
			values[p] = st->values->params[p].value;
			types[p] = st->values->params[p].ptype;
			nulls[p] = st->values->params[p].isnull ? 'n' : ' ';
		}
		return SPI_execute_with_args(st->text, st->ntypes, types, values, nulls, st->read_only, 0);
	}
}

static void
run_stmt(ScriptClient *sc, Cmd *c, Stmt *st, bool last)
{
	SPIExecuteOptions opts;
	int			rc;

	if (st->plan == NULL && sc->run->query_mode != RUN_QUERY_SIMPLE)
		prepare_stmt(sc, st);
	for (int p = 0; p < st->ntypes && st->plan != NULL; p++)
		bind_param(sc, &st->params[p], &st->values->params[p]);
	memset(&opts, 0, sizeof(opts));
	opts.params = st->ntypes > 0 ? st->values : NULL;
	opts.read_only = st->read_only;
	PushActiveSnapshot(GetTransactionSnapshot());
	if (sc->run->query_mode != RUN_QUERY_PREPARED)
		rc = run_stmt_unprepared(sc, st);
	else
		rc = SPI_execute_plan_extended(st->plan, &opts);
	if (rc < 0)
		elog(ERROR, "SPI_execute_plan_extended failed: %s", SPI_result_code_string(rc));
	set_from_spi(sc, &c->cmd->sql, last);
	SPI_freetuptable(SPI_tuptable);
	PopActiveSnapshot();
}

/* An SQL command: in the transaction open, or in a transaction of its own. */
static void
run_sql(ScriptClient *sc, Cmd *c)
{
	bool		own;

	if (c->cmd->sql.tx.kind != STX_NONE)
	{
		run_tx(sc, &c->cmd->sql.tx);
		return;
	}
	own = !sc->in_xact && !sc->in_pipeline;
	if (!sc->in_xact)
		xact_begin(sc, false);
	for (int i = 0; i < c->nstmts; i++)
		run_stmt(sc, c, &c->stmts[i], i == c->nstmts - 1);
	if (own)
		xact_end(sc, true);
}

/* ------------------------------------------------------------------------
 * Meta-commands
 * ------------------------------------------------------------------------
 */

static bool
eval(ScriptClient *sc, Cmd *c, ScriptValue *result)
{
	ScriptError error;

	if (!ScriptExprEval(c->cmd->expr, &sc->env, result, &error))
		ScriptRaiseError(&error);
	return ScriptValueTruth(result);
}

/* A script's last command run: an error if it left a transaction open. */
void
ScriptCheckEndedOutsideXact(ScriptClient *sc, Prog *pr)
{
	if (!sc->in_xact)
		return;
	sc->at = pr->prog->ncommands - 1;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_TRANSACTION_TERMINATION),
			 errmsg("the script ended inside a transaction"),
			 errhint("End every BEGIN with COMMIT, END or ROLLBACK before the script ends, "
					 "on every branch of its \\if commands.")));
}

/*
 * A \sleep's end, from now: its number or variable in its unit, in *until;
 * false for none (0 or less).  A time whose end does not fit in 64-bit
 * nanoseconds is refused (an error of the script, the client's failure),
 * not wrapped round into no sleep at all.
 */
bool
ScriptSleepUntil(ScriptClient *sc, Cmd *c, int64 now, int64 *until)
{
	int64		n = c->cmd->sleep_value;
	int64		unit = c->cmd->sleep_unit_usec;
	int64		ns;

	if (c->slot >= 0)
	{
		ScriptValue v;
		ScriptError error;

		if (!ScriptVarValue(ScriptDefinedVar(sc, c->slot), &v, &error) || !ScriptToInt(&v, &n, &error))
			ScriptRaiseError(&error);
	}
	if (n <= 0)
		return false;
	if (pg_mul_s64_overflow(n, unit * 1000, &ns) || pg_add_s64_overflow(now, ns, until))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("sleep time " INT64_FORMAT " %s is out of range", n,
						unit == 1 ? "us" : unit == 1000 ? "ms" : "s"),
				 errhint("A \\sleep lasts at most about 292 years: its time in nanoseconds must fit "
						 "in a 64-bit integer.")));
	return true;
}

static void
run_sleep(ScriptClient *sc, Cmd *c)
{
	int64		until;

	if (!ScriptSleepUntil(sc, c, WorkerNowNs(), &until))
		return;
	for (;;)
	{
		int64		now = WorkerNowNs();

		if (pg_atomic_read_u32(&sc->run->stop) != RUN_STOP_NONE)
			ereport(ERROR,
					(errcode(ERRCODE_QUERY_CANCELED),
					 errmsg("the run ended during \\sleep")));
		if (now >= until)
			return;
		pg_atomic_write_u32(&sc->me->pacing, 1);
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 (long) Min((until - now + 999999) / 1000000, 1000), PG_WAIT_EXTENSION);
		pg_atomic_write_u32(&sc->me->pacing, 0);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
}

/* After a false \if or \elif: the first branch whose condition holds. */
static int
next_branch(ScriptClient *sc, Prog *pr, int i)
{
	for (;;)
	{
		Cmd		   *c = &pr->cmds[i];
		ScriptValue v;

		sc->at = i;
		if (c->cmd->kind != SCMD_ELIF || eval(sc, c, &v))
			return i + 1;
		i = c->cmd->next_branch;
	}
}

/* One command; the index of the next. */
int
ScriptRunCommand(ScriptClient *sc, Prog *pr, int i)
{
	Cmd		   *c = &pr->cmds[i];
	ScriptValue v;

	switch (c->cmd->kind)
	{
		case SCMD_SQL:
			run_sql(sc, c);
			break;
		case SCMD_SET:
			(void) eval(sc, c, &v);
			ScriptVarSetValue(&sc->vars[c->slot], &v);
			break;
		case SCMD_SLEEP:
			run_sleep(sc, c);
			break;
		case SCMD_IF:
			return eval(sc, c, &v) ? i + 1 : next_branch(sc, pr, c->cmd->next_branch);
		case SCMD_ELIF:
		case SCMD_ELSE:
			return c->cmd->endif;	/* the end of a branch that ran */
		case SCMD_ENDIF:
			break;
		case SCMD_START_PIPELINE:
			sc->in_pipeline = true;
			break;
		case SCMD_SYNC_PIPELINE:
		case SCMD_END_PIPELINE:
			if (sc->in_xact && !sc->explicit_block)
				xact_end(sc, true);
			sc->in_pipeline = c->cmd->kind == SCMD_SYNC_PIPELINE;
			break;
		case SCMD_SHELL:
			elog(ERROR, "\\shell in a parsed script");
	}
	return i + 1;
}

/* Where an error happened, for the run's record of it. */
void
ScriptAddLocation(ScriptClient *sc, Prog *pr, ErrorData *edata)
{
	ScriptCommand *cmd = &pr->prog->commands[sc->at];
	char	   *where = psprintf("In script \"%s\", command %d (%s, line %d).",
								 pr->prog->name, sc->at + 1, ScriptCommandKindName(cmd),
								 cmd->line);

	edata->detail = edata->detail ? psprintf("%s %s", edata->detail, where) : where;
}

/*
 * One transaction of the run: the script from its first command to its
 * last.  Returns 0, or the SQLSTATE of the error that ended it, the error
 * in *edata (copied into loopcxt, the transaction rolled back).
 */
int
ScriptClientXact(ScriptClient *sc, int script, MemoryContext loopcxt, ErrorData **edata)
{
	Prog	   *pr = &sc->progs[script];
	ScriptCounter *counters = &sc->row[sc->area->script[script].counter + 1];
	volatile int code = 0;

	sc->script = script;
	sc->at = 0;
	sc->loopcxt = loopcxt;
	PG_TRY();
	{
		int			i = 0;

		while (i < pr->prog->ncommands)
		{
			int64		t0 = sc->timed ? WorkerNowNs() : 0;
			int			at = i;

			sc->at = i;
			i = ScriptRunCommand(sc, pr, i);
			/* an \elif or \else reached from the branch before it is skipped */
			if (pr->cmds[at].cmd->kind == SCMD_ELIF || pr->cmds[at].cmd->kind == SCMD_ELSE)
				continue;
			counters[at].count++;
			if (sc->timed)
				counters[at].latency_ns += (uint64) (WorkerNowNs() - t0);
		}
		ScriptCheckEndedOutsideXact(sc, pr);
	}
	PG_CATCH();
	{
		*edata = WorkerCatch(loopcxt, false);
		code = (*edata)->sqlerrcode;
		ScriptAddLocation(sc, pr, *edata);
		sc->in_xact = sc->explicit_block = sc->in_pipeline = false;
		sc->nsavepoints = 0;
	}
	PG_END_TRY();
	return code;
}
