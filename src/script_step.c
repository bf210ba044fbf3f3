/*-------------------------------------------------------------------------
 *
 * script_step.c
 *		The script interpreter over libpq, in steps: a script runs on until
 *		it sends a statement, sleeps or ends, so that one worker's event
 *		loop (client_mux.c) can drive many clients' scripts at once.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_type.h"
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
 * Over libpq, in steps
 * ------------------------------------------------------------------------
 */

/* A transaction of the run begins: the script from its first command. */
void
ScriptClientBegin(ScriptClient *sc, int script)
{
	sc->script = script;
	sc->at = 0;
	sc->sub = 0;
}

/* An error ended the transaction: where it happened, and a clean slate. */
void
ScriptClientFailed(ScriptClient *sc, ErrorData *edata)
{
	ScriptAddLocation(sc, &sc->progs[sc->script], edata);
	sc->in_xact = sc->explicit_block = sc->in_pipeline = false;
	sc->sub = 0;
}

/* Send a command's text as written (transaction control). */
static void
send_text(ScriptClient *sc, const char *sql)
{
	LibpqScriptSend(sc->run, sql, NULL, 0, 0, NULL, NULL, NULL);
}

/*
 * The step of an SQL command: false when it has sent something (its sub
 * position moved on), true when the command is over.  The target runs the
 * transaction control; the interpreter follows where it leaves the
 * transaction, once the command's results are in (the next step).
 */
static bool
step_sql(ScriptClient *sc, Cmd *c)
{
	const ScriptSql *sql = &c->cmd->sql;
	int			k;

	if (sql->tx.kind != STX_NONE)
	{
		if (sc->sub == 0)
		{
			if (sql->tx.kind == STX_BEGIN && sc->in_xact && !sc->explicit_block)
			{
				sc->explicit_block = true;	/* a pipeline's BEGIN: already in one */
				return true;
			}
			send_text(sc, sql->text);
			sc->sub = 1;
			return false;
		}
		if (sql->tx.kind == STX_BEGIN)
			sc->in_xact = sc->explicit_block = true;
		else if (sql->tx.kind == STX_COMMIT || sql->tx.kind == STX_ROLLBACK)
			sc->in_xact = sc->explicit_block = sql->tx.chain;
		return true;
	}
	if (sc->sub == 0)
	{
		sc->sub = 1;
		/* in a pipeline outside a block: its implicit transaction */
		if (!sc->in_xact && sc->in_pipeline)
		{
			send_text(sc, "BEGIN");
			sc->in_xact = true;
			sc->explicit_block = false;
			return false;
		}
	}
	k = sc->sub - 1;
	if (k >= c->nstmts)
		return true;			/* else the target's autocommit */
	ScriptParamTexts(sc, &c->stmts[k]);
	sc->res_arg.sc = sc;
	sc->res_arg.sql = sql;
	sc->res_arg.last = k == c->nstmts - 1;
	LibpqScriptSend(sc->run, c->stmts[k].text, &c->stmts[k].prepared, c->stmts[k].id,
					c->stmts[k].ntypes, c->stmts[k].texts, ScriptSetFromLibpq, &sc->res_arg);
	sc->sub++;
	return false;
}

/* \sleep: false with *wake set while it sleeps. */
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
	if (!ScriptSleepUntil(sc, c, WorkerNowNs(), wake))
		return true;
	sc->sub = 1;
	return false;
}

/* \syncpipeline and \endpipeline: a commit of the implicit transaction first. */
static bool
step_pipeline_end(ScriptClient *sc, Cmd *c)
{
	if (sc->sub == 0 && sc->in_xact && !sc->explicit_block)
	{
		send_text(sc, "COMMIT");
		sc->in_xact = false;
		sc->sub = 1;
		return false;
	}
	sc->in_pipeline = c->cmd->kind == SCMD_SYNC_PIPELINE;
	return true;
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
			ScriptCheckEndedOutsideXact(sc, pr);
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
				next = ScriptRunCommand(sc, pr, at);
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
