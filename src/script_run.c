/*-------------------------------------------------------------------------
 *
 * script_run.c
 *		The script interpreter: one client's run of pgbench script files,
 *		one script execution per transaction of the run, over a transport
 *		(transport.h), whichever it is.
 *
 * Each client parses the run's scripts from their text into programs of
 * its own, finds every variable they name a slot (script_vars.c), and runs
 * one script per transaction of the run, chosen by weight.  A transaction
 * of the run is one execution of the script from its first command to its
 * last, as in pgbench; the script's own BEGIN ... COMMIT (or END) blocks
 * are its database transactions, and an SQL command outside them is a
 * transaction of its own (pgbench's autocommit: the server's over libpq,
 * the transport's own through SPI), as are the commands of a pipeline
 * outside a block up to its \syncpipeline or \endpipeline (the implicit
 * transaction of an extended-protocol pipeline).  The interpreter follows
 * the transaction its script has open, and hands BEGIN (with its modes),
 * COMMIT, ROLLBACK and the savepoints to the transport, which runs them
 * (SPI) or sends them (libpq).
 *
 * The interpreter is resumable: a step (ScriptClientStep) runs commands
 * until one has sent a statement whose results are not yet in, a \sleep
 * starts, or the script ends.  Over libpq a worker's event loop drives
 * many clients so, resuming a client's step when its results are in or
 * its sleep is over (client_mux.c).  Through SPI every statement is over
 * when the transport returns, so a step goes straight on, and
 * ScriptClientXact runs a whole transaction, sleeping where it sleeps.
 * Each SQL statement's :variables are bind parameters $n; the transport
 * prepares it the first time it runs (query_mode prepared) and keeps it.
 *
 * An error anywhere aborts the transaction (all of it, subtransactions
 * included) and goes to the client (client.c, client_mux_xact.c), which
 * retries serialisation failures and deadlocks as for the built-in
 * workloads: a retry runs the same script again with the random state it
 * started with.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <ctype.h>

#include "common/int.h"
#include "miscadmin.h"
#include "storage/latch.h"
#include "utils/memutils.h"
#include "utils/wait_event.h"

#include "script_client.h"
#include "script_run.h"

/* ------------------------------------------------------------------------
 * SQL
 * ------------------------------------------------------------------------
 */

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
		int			slot;
		ScriptVar  *v;

		/* as pgbench, which fails the client "storing into variable" */
		if (!ScriptVariableNameValid(name))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_NAME),
					 errmsg("\\%s cannot store column \"%s\": \"%s\" is not a valid variable name",
							sql->gset == SGSET_GSET ? "gset" : "aset", names[f], name),
					 errhint("Name the column with AS: letters, digits and underscores, not a digit first, "
							 "as in SELECT 1 AS one \\gset.")));
		slot = ScriptVarSlot(sc, name);
		v = &sc->vars[slot];

		if (values[f] == NULL)
		{
			ScriptValue null = {.type = SCRIPT_NULL};

			ScriptVarSetValue(v, &null);
		}
		else
			ScriptVarSetText(sc, v, values[f]);
	}
}

/* A statement's result, to set_vars() */
static void
set_result(void *arg, const TransportResult *r)
{
	ScriptResultArg *a = (ScriptResultArg *) arg;

	set_vars(a->sc, a->sql, a->last, r->ntuples, r->ncols, r->names, r->values);
}

/*
 * BEGIN, COMMIT, ROLLBACK and the savepoints: false when sent and awaited
 * (its sub position moved on), true when the command is over.  A BEGIN
 * inside a block, a COMMIT or ROLLBACK outside any, only warn; a BEGIN in
 * a pipeline's implicit transaction makes it the block.
 */
static bool
step_tx(ScriptClient *sc, Cmd *c)
{
	const ScriptTx *tx = &c->cmd->sql.tx;
	Transport  *t = sc->t;

	if (sc->sub == 0)
	{
		if (tx->kind == STX_BEGIN && t->explicit_block)
		{
			ereport(WARNING,
					(errcode(ERRCODE_ACTIVE_SQL_TRANSACTION),
					 errmsg("there is already a transaction in progress")));
			return true;
		}
		if (tx->kind == STX_BEGIN && t->in_xact)
		{
			t->explicit_block = true;	/* a pipeline's BEGIN: already in one */
			return true;
		}
		if ((tx->kind == STX_COMMIT || tx->kind == STX_ROLLBACK) && !t->in_xact)
		{
			ereport(WARNING,
					(errcode(ERRCODE_NO_ACTIVE_SQL_TRANSACTION),
					 errmsg("there is no transaction in progress")));
			return true;
		}
		sc->sub = 1;
		t->ops->control(t, tx, c->cmd->sql.text);
		if (!t->sync)
			return false;
	}
	if (tx->kind == STX_BEGIN)
		t->in_xact = t->explicit_block = true;
	else if (tx->kind == STX_COMMIT || tx->kind == STX_ROLLBACK)
		t->in_xact = t->explicit_block = tx->chain;
	return true;
}

/*
 * The step of an SQL command: false when it has sent something awaited
 * (its sub position moved on), true when the command is over.  Sub 0
 * begins it (in a transaction of its own or a pipeline's, if it needs
 * one), 1 .. nstmts send its statements, and one more commits its own.
 */
static bool
step_sql(ScriptClient *sc, Cmd *c)
{
	const ScriptSql *sql = &c->cmd->sql;
	Transport  *t = sc->t;

	if (sql->tx.kind != STX_NONE)
		return step_tx(sc, c);
	for (;;)
	{
		int			k;

		if (sc->sub == 0)
		{
			sc->sub = 1;
			sc->own = false;
			if (!t->in_xact && (sc->in_pipeline || !t->autocommits))
			{
				sc->own = !sc->in_pipeline;
				t->in_xact = true;
				t->explicit_block = false;
				t->ops->begin_implicit(t);
				if (!t->sync)
					return false;
			}
		}
		k = sc->sub - 1;
		if (k < c->nstmts)
		{
			Stmt	   *st = &c->stmts[k];
			bool		last = k == c->nstmts - 1;
			bool		wanted = sql->gset == SGSET_ASET || (sql->gset == SGSET_GSET && last);

			for (int p = 0; p < st->ts.nparams; p++)
			{
				ScriptVar  *v = ScriptDefinedVar(sc, st->slots[p]);

				st->ts.args[p].value = v->parsed ? &v->value : NULL;
				st->ts.args[p].text = v->text;
			}
			sc->res_arg.sc = sc;
			sc->res_arg.sql = sql;
			sc->res_arg.last = last;
			sc->sub++;
			t->ops->execute(t, &st->ts, wanted ? set_result : NULL, &sc->res_arg);
			if (!t->sync)
				return false;
			continue;
		}
		if (k == c->nstmts && sc->own)
		{
			sc->sub++;
			t->in_xact = false;
			t->ops->commit_implicit(t);
			if (!t->sync)
				return false;
		}
		return true;
	}
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
static void
check_ended_outside_xact(ScriptClient *sc, Prog *pr)
{
	if (!sc->t->in_xact)
		return;
	sc->at = pr->prog->ncommands - 1;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_TRANSACTION_TERMINATION),
			 errmsg("the script ended inside a transaction"),
			 errhint("End every BEGIN with COMMIT, END or ROLLBACK before the script ends, "
					 "on every branch of its \\if commands.")));
}

/*
 * A \sleep's variable, read as pgbench reads it: the integer at the start
 * of its text (as \set leaves a double, "2.7" is 2; "1e3" is 1), an error
 * when its text does not begin with one.
 */
static int64
sleep_variable(ScriptVar *v)
{
	char		buf[64];
	const char *text = v->text;
	const char *p;
	char	   *end;
	int64		n;

	if (v->parsed)
	{
		(void) ScriptValueFormat(&v->value, buf, sizeof(buf));
		text = buf;
	}
	for (p = text; isspace((unsigned char) *p); p++)
		;
	errno = 0;
	n = strtoi64(p, &end, 10);
	if (end == p || !isdigit((unsigned char) end[-1]))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid sleep time \"%s\" in variable \"%s\"", text, v->name),
				 errhint("\\sleep :name takes the whole number its value begins with, as pgbench does.")));
	if (errno == ERANGE)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("sleep time \"%s\" in variable \"%s\" is out of range", text, v->name),
				 errhint("A \\sleep lasts at most about 292 years: its time in nanoseconds must fit "
						 "in a 64-bit integer.")));
	return n;
}

/*
 * A \sleep's end, from now: its number or variable in its unit, in *until;
 * false for none (0 or less).  A time whose end does not fit in 64-bit
 * nanoseconds is refused (an error of the script, the client's failure),
 * not wrapped round into no sleep at all.
 */
static bool
sleep_until(ScriptClient *sc, Cmd *c, int64 now, int64 *until)
{
	int64		n = c->cmd->sleep_value;
	int64		unit = c->cmd->sleep_unit_usec;
	int64		ns;

	if (c->slot >= 0)
		n = sleep_variable(ScriptDefinedVar(sc, c->slot));
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

/* \sleep: false with *wake set while it sleeps; the run's end ends it. */
static bool
step_sleep(ScriptClient *sc, Cmd *c, int64 *wake)
{
	if (sc->sub > 0)
	{
		if (pg_atomic_read_u32(&sc->run->stop) != RUN_STOP_NONE)
			ereport(ERROR,
					(errcode(ERRCODE_QUERY_CANCELED),
					 errmsg("the run ended during \\sleep")));
		return true;
	}
	if (!sleep_until(sc, c, WorkerNowNs(), wake))
		return true;
	sc->sub = 1;
	return false;
}

/* \syncpipeline and \endpipeline: a commit of the implicit transaction first. */
static bool
step_pipeline_end(ScriptClient *sc, Cmd *c)
{
	Transport  *t = sc->t;

	if (sc->sub == 0 && t->in_xact && !t->explicit_block)
	{
		sc->sub = 1;
		t->in_xact = false;
		t->ops->commit_implicit(t);
		if (!t->sync)
			return false;
	}
	sc->in_pipeline = c->cmd->kind == SCMD_SYNC_PIPELINE;
	return true;
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

/* A command that neither sends nor sleeps; the index of the next. */
static int
run_meta(ScriptClient *sc, Prog *pr, int i)
{
	Cmd		   *c = &pr->cmds[i];
	ScriptValue v;

	switch (c->cmd->kind)
	{
		case SCMD_SET:
			(void) eval(sc, c, &v);
			ScriptVarSetValue(&sc->vars[c->slot], &v);
			break;
		case SCMD_IF:
			return eval(sc, c, &v) ? i + 1 : next_branch(sc, pr, c->cmd->next_branch);
		case SCMD_ELIF:
		case SCMD_ELSE:
			return c->cmd->endif;	/* the end of a branch that ran */
		case SCMD_START_PIPELINE:
			sc->in_pipeline = true;
			break;
		case SCMD_SHELL:
			elog(ERROR, "\\shell in a parsed script");
			break;
		default:
			break;
	}
	return i + 1;
}

/* ------------------------------------------------------------------------
 * Steps
 * ------------------------------------------------------------------------
 */

/* Where an error happened, for the run's record of it. */
static void
add_location(ScriptClient *sc, Prog *pr, ErrorData *edata)
{
	ScriptCommand *cmd = &pr->prog->commands[sc->at];
	char	   *where = psprintf("In script \"%s\", command %d (%s, line %d).",
								 pr->prog->name, sc->at + 1, ScriptCommandKindName(cmd),
								 cmd->line);

	edata->detail = edata->detail ? psprintf("%s %s", edata->detail, where) : where;
}

/* A transaction of the run begins: the script from its first command. */
void
ScriptClientBegin(ScriptClient *sc, int script)
{
	sc->script = script;
	sc->at = 0;
	sc->sub = 0;
}

/*
 * An error ended the transaction, rolled back (SPI) or to be (libpq): where
 * it happened, and a clean slate.
 */
void
ScriptClientFailed(ScriptClient *sc, ErrorData *edata)
{
	add_location(sc, &sc->progs[sc->script], edata);
	sc->t->in_xact = sc->t->explicit_block = false;
	sc->in_pipeline = false;
	sc->sub = 0;
	sc->t->ops->reset(sc->t);
}

/*
 * Run the script on until it sends, sleeps or ends (see script_run.h); a
 * command is counted, and timed, when its last step is over.
 */
ScriptStep
ScriptClientStep(ScriptClient *sc, int64 *wake)
{
	Prog	   *pr = &sc->progs[sc->script];
	ScriptCounter *counters = &sc->row[sc->area->script[sc->script].counter + 1];

	for (;;)
	{
		int			at = sc->at;
		Cmd		   *c;
		bool		over;
		int			next = at + 1;

		if (at >= pr->prog->ncommands)
		{
			check_ended_outside_xact(sc, pr);
			return SCRIPT_STEP_END;
		}
		c = &pr->cmds[at];
		if (sc->sub == 0)
			sc->cmd_t0 = sc->timed ? WorkerNowNs() : 0;
		switch (c->cmd->kind)
		{
			case SCMD_SQL:
				over = step_sql(sc, c);
				break;
			case SCMD_SLEEP:
				over = step_sleep(sc, c, wake);
				if (!over)
					return SCRIPT_STEP_SLEEP;
				break;
			case SCMD_SYNC_PIPELINE:
			case SCMD_END_PIPELINE:
				over = step_pipeline_end(sc, c);
				break;
			default:
				next = run_meta(sc, pr, at);
				over = true;
				break;
		}
		if (!over)
			return SCRIPT_STEP_SENT;
		sc->sub = 0;
		sc->at = next;
		/* an \elif or \else reached from the branch before it is skipped */
		if (c->cmd->kind == SCMD_ELIF || c->cmd->kind == SCMD_ELSE)
			continue;
		counters[at].count++;
		if (sc->timed)
			counters[at].latency_ns += (uint64) (WorkerNowNs() - sc->cmd_t0);
	}
}

/* A \sleep through SPI: on the latch until *wake, or the run's end. */
static void
wait_sleep(ScriptClient *sc, int64 wake)
{
	for (;;)
	{
		int64		now = WorkerNowNs();

		if (pg_atomic_read_u32(&sc->run->stop) != RUN_STOP_NONE || now >= wake)
			return;
		pg_atomic_write_u32(&sc->me->pacing, 1);
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 (long) Min((wake - now + 999999) / 1000000, 1000), PG_WAIT_EXTENSION);
		pg_atomic_write_u32(&sc->me->pacing, 0);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
}

/*
 * One transaction of the run over a synchronous transport (SPI): the
 * script from its first command to its last.  Returns 0, or the SQLSTATE
 * of the error that ended it, the error in *edata (copied into loopcxt,
 * the transaction rolled back).
 */
int
ScriptClientXact(ScriptClient *sc, int script, MemoryContext loopcxt, ErrorData **edata)
{
	volatile int code = 0;

	Assert(sc->t->sync);
	TransportSpiBetween(sc->t, loopcxt);
	ScriptClientBegin(sc, script);
	PG_TRY();
	{
		int64		wake = 0;

		while (ScriptClientStep(sc, &wake) == SCRIPT_STEP_SLEEP)
			wait_sleep(sc, wake);
	}
	PG_CATCH();
	{
		*edata = WorkerCatch(loopcxt, false);
		code = (*edata)->sqlerrcode;
		ScriptClientFailed(sc, *edata);
	}
	PG_END_TRY();
	return code;
}
