/*-------------------------------------------------------------------------
 *
 * script_vars.c
 *		The script interpreter's set-up and variables: a client's programs
 *		parsed from the run's scripts, a slot for every variable they name,
 *		the variables given and the automatic ones (scale, client_id,
 *		random_seed), and the choice of the next script by weight.
 *
 * A variable holds its value parsed (an integer, a double, a boolean) or,
 * as \gset and the variables given leave it, as text that is parsed the
 * first time an expression reads it, as pgbench does.
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

#include "script_client.h"

/* ------------------------------------------------------------------------
 * Variables
 * ------------------------------------------------------------------------
 */

static int
var_find(ScriptClient *sc, const char *name)
{
	for (int i = 0; i < sc->nvars; i++)
		if (strcmp(sc->vars[i].name, name) == 0)
			return i;
	return -1;
}

/* The slot of a variable, made (undefined) if it has none yet. */
int
ScriptVarSlot(ScriptClient *sc, const char *name)
{
	int			i = var_find(sc, name);
	MemoryContext old;

	if (i >= 0)
		return i;
	if (sc->nvars == sc->maxvars)
	{
		sc->maxvars *= 2;
		sc->vars = repalloc(sc->vars, sc->maxvars * sizeof(ScriptVar));
	}
	old = MemoryContextSwitchTo(sc->cxt);
	memset(&sc->vars[sc->nvars], 0, sizeof(ScriptVar));
	sc->vars[sc->nvars].name = pstrdup(name);
	MemoryContextSwitchTo(old);
	return sc->nvars++;
}

void
ScriptVarSetValue(ScriptVar *v, const ScriptValue *value)
{
	v->defined = true;
	v->parsed = true;
	v->value = *value;
}

void
ScriptVarSetText(ScriptClient *sc, ScriptVar *v, const char *text)
{
	int			len = strlen(text) + 1;

	if (len > v->textcap)
	{
		if (v->text)
			pfree(v->text);
		v->textcap = Max(len, 32);
		v->text = MemoryContextAlloc(sc->cxt, v->textcap);
	}
	memcpy(v->text, text, len);
	v->defined = true;
	v->parsed = false;
}

/* A defined variable's value, its text read as a number the first time. */
bool
ScriptVarValue(ScriptVar *v, ScriptValue *value, ScriptError *error)
{
	if (!v->parsed)
	{
		if (!ScriptValueFromText(v->name, v->text, &v->value, error))
			return false;
		v->parsed = true;
	}
	*value = v->value;
	return true;
}

static bool
lookup(void *arg, const ScriptVarRef *ref, ScriptValue *value, ScriptError *error)
{
	ScriptClient *sc = (ScriptClient *) arg;
	int			slot = ref->slot >= 0 ? ref->slot : var_find(sc, ref->name);
	ScriptVar  *v = slot >= 0 ? &sc->vars[slot] : NULL;

	if (v == NULL || !v->defined)
	{
		ScriptErrorUndefined(error, ref->name);
		return false;
	}
	return ScriptVarValue(v, value, error);
}

void
ScriptRaiseError(const ScriptError *error)
{
	ereport(ERROR,
			(errcode(error->sqlstate),
			 errmsg("%s", error->message),
			 error->hint[0] ? errhint("%s", error->hint) : 0));
}

ScriptVar *
ScriptDefinedVar(ScriptClient *sc, int slot)
{
	ScriptVar		   *v = &sc->vars[slot];

	if (!v->defined)
	{
		ScriptError error;

		ScriptErrorUndefined(&error, v->name);
		ScriptRaiseError(&error);
	}
	return v;
}

/* The variables given (name\0text\0 ... \0) and pgbench's automatic ones. */
static void
define_variables(ScriptClient *sc, int client, int64 default_seed)
{
	const char *p = RunScriptText(sc->area, sc->area->variables);
	ScriptValue v;

	while (*p)
	{
		const char *name = p;
		const char *text = p + strlen(p) + 1;

		{
			int			slot = ScriptVarSlot(sc, name);

			ScriptVarSetText(sc, &sc->vars[slot], text);
		}
		p = text + strlen(text) + 1;
	}
	v.type = SCRIPT_INT;
#define AUTOMATIC(name_, value_) \
	do { \
		int slot_ = ScriptVarSlot(sc, name_); \
		ScriptVar *var_ = &sc->vars[slot_]; \
		if (!var_->defined) { v.u.i = (value_); ScriptVarSetValue(var_, &v); } \
	} while (0)
	AUTOMATIC("client_id", client);
	AUTOMATIC("default_seed", default_seed);
	AUTOMATIC("random_seed", (int64) sc->area->random_seed);
	AUTOMATIC("scale", sc->area->scale);
#undef AUTOMATIC
}

/* Whether the variables given name "name". */
static bool
variable_given(ScriptClient *sc, const char *name)
{
	for (const char *p = RunScriptText(sc->area, sc->area->variables); *p;)
	{
		const char *text = p + strlen(p) + 1;

		if (strcmp(p, name) == 0)
			return true;
		p = text + strlen(text) + 1;
	}
	return false;
}

/* ------------------------------------------------------------------------
 * Set-up: programs, slots, seeds
 * ------------------------------------------------------------------------
 */

static void
slot_expr(ScriptClient *sc, ScriptExpr *expr)
{
	ScriptVarRef **refs;
	int			n;

	if (expr == NULL)
		return;
	n = ScriptExprVarRefs(expr, &refs);
	for (int i = 0; i < n; i++)
		refs[i]->slot = ScriptVarSlot(sc, refs[i]->name);
}

/* A command's statements: its text split where the raw parser splits it. */
static void
split_statements(ScriptClient *sc, Cmd *c)
{
	ScriptSql  *sql = &c->cmd->sql;
	List	   *raw = raw_parser(sql->text, RAW_PARSE_DEFAULT);
	ListCell   *lc;
	int			i = 0;

	c->nstmts = list_length(raw);
	c->stmts = palloc0(sizeof(Stmt) * Max(c->nstmts, 1));
	foreach(lc, raw)
	{
		RawStmt    *r = lfirst_node(RawStmt, lc);
		int			len = r->stmt_len > 0 ? r->stmt_len : (int) strlen(sql->text) - r->stmt_location;
		Stmt	   *st = &c->stmts[i++];

		TransportStmtInit(&st->ts, pnstrdup(sql->text + r->stmt_location, len), sql->nparams,
						  sc->nstmts++);
		st->slots = palloc(sizeof(int) * Max(sql->nparams, 1));
		for (int p = 0; p < sql->nparams; p++)
			st->slots[p] = -1;
	}
}

static void
setup_program(ScriptClient *sc, Prog *pr, int s)
{
	const RunScript *rs = &sc->area->script[s];

	pr->prog = ScriptParse(RunScriptText(sc->area, rs->name),
						   RunScriptText(sc->area, rs->body));
	if (pr->prog->ncommands != rs->ncommands)
		elog(ERROR, "script \"%s\" parsed into %d commands in a client, %d when launched",
			 pr->prog->name, pr->prog->ncommands, rs->ncommands);
	pr->cmds = palloc0(sizeof(Cmd) * Max(pr->prog->ncommands, 1));
	for (int i = 0; i < pr->prog->ncommands; i++)
	{
		Cmd		   *c = &pr->cmds[i];

		c->cmd = &pr->prog->commands[i];
		c->slot = c->cmd->variable ? ScriptVarSlot(sc, c->cmd->variable) : -1;
		slot_expr(sc, c->cmd->expr);
		if (c->cmd->kind != SCMD_SQL || c->cmd->sql.tx.kind != STX_NONE)
			continue;
		split_statements(sc, c);
		for (int j = 0; j < c->nstmts; j++)
			for (int p = 0; p < c->cmd->sql.nparams; p++)
				c->stmts[j].slots[p] = ScriptVarSlot(sc, c->cmd->sql.params[p].name);
	}
}

/*
 * A client's interpreter, in cxt, over the transport t: its programs
 * parsed, its variables defined, its generators seeded as pgbench seeds
 * its clients.  Runs in a
 * transaction (the raw parser and the catalogs).
 */
ScriptClient *
ScriptClientSetup(RunShared *run, int client, bool timed, Transport *t, MemoryContext cxt)
{
	MemoryContext old = MemoryContextSwitchTo(cxt);
	ScriptClient *sc = palloc0(sizeof(ScriptClient));
	pg_prng_state *states = palloc(sizeof(pg_prng_state) * run->clients);
	int64		default_seed;

	sc->run = run;
	sc->me = &run->client[client];
	sc->t = t;
	sc->area = RunScriptAreaOf(run, run->script_area);
	if (sc->area->tables_pending)
		elog(ERROR, "the built-in scripts' tables were not resolved before the run started");
	sc->row = RunScriptCounters(sc->area, client);
	sc->cxt = cxt;
	sc->timed = timed;
	sc->maxvars = 16;
	sc->vars = palloc0(sizeof(ScriptVar) * sc->maxvars);
	sc->nprogs = sc->area->nscripts;
	sc->progs = palloc0(sizeof(Prog) * sc->nprogs);
	for (int s = 0; s < sc->nprogs; s++)
		setup_program(sc, &sc->progs[s], s);
	sc->total_weight = sc->area->total_weight;
	if (run->split)
	{
		/* a standby's clients take the scripts that read, a primary's the others */
		bool		standby = run->target[RunnerClientTarget(run, client)].in_recovery;

		sc->eligible = palloc(sizeof(bool) * sc->nprogs);
		sc->total_weight = 0;
		for (int s = 0; s < sc->nprogs; s++)
		{
			sc->eligible[s] = sc->area->script[s].reads_only == standby;
			if (sc->eligible[s])
				sc->total_weight += sc->area->script[s].weight;
		}
	}

	if (sc->area->deck)
		sc->deck = palloc(sizeof(int) * sc->total_weight);
	ScriptSeedClients(sc->area->random_seed, run->clients, states, &default_seed);
	sc->prng = states[client];
	pfree(states);				/* a worker of many clients keeps only its own */
	define_variables(sc, client, default_seed);
	/* default_seed given among the variables: pgbench draws none for it */
	ScriptSeedChoose(sc->area->random_seed, run->clients,
					 !variable_given(sc, "default_seed"), client, &sc->choose);
	sc->env.lookup = lookup;
	sc->env.lookup_arg = sc;
	sc->env.prng = &sc->prng;
	sc->env.debug_label = "script";
	MemoryContextSwitchTo(old);
	return sc;
}

/*
 * The next card of a client's deck: each script it takes as many times as
 * its weight, shuffled anew (Fisher-Yates) when the last was dealt.  TPC-C's
 * kit is dealt so (clause 5.2.4.2's deck): each deck holds the mix's
 * shares exactly, so that a run keeps the minimum shares a draw by weight
 * misses as often as not.
 */
static int
deal(ScriptClient *sc)
{
	if (sc->deck_at == sc->deck_size)
	{
		int			n = 0;

		for (int s = 0; s < sc->nprogs; s++)
		{
			if (sc->eligible != NULL && !sc->eligible[s])
				continue;
			for (int w = 0; w < sc->area->script[s].weight; w++)
				sc->deck[n++] = s;
		}
		for (int i = n - 1; i > 0; i--)
		{
			int			j = (int) pg_prng_uint64_range(&sc->choose, 0, i);
			int			card = sc->deck[i];

			sc->deck[i] = sc->deck[j];
			sc->deck[j] = card;
		}
		sc->deck_size = n;
		sc->deck_at = 0;
	}
	return sc->deck[sc->deck_at++];
}

/*
 * The script of the next transaction, by weight among those the client
 * takes (or dealt from its deck); its random state kept.
 */
int
ScriptClientChoose(ScriptClient *sc)
{
	int			s = 0;

	if (sc->nprogs > 1 && sc->deck != NULL)
		s = deal(sc);
	else if (sc->nprogs > 1)
	{
		int64		w = (int64) pg_prng_uint64_range(&sc->choose, 1, sc->total_weight);

		for (;; s++)
		{
			if (sc->eligible != NULL && !sc->eligible[s])
				continue;
			if (w <= sc->area->script[s].weight)
				break;
			w -= sc->area->script[s].weight;
		}
	}
	sc->retry_prng = sc->prng;
	return s;
}

/* A retry: the same script with the random state it started with. */
void
ScriptClientRetry(ScriptClient *sc, int script)
{
	sc->row[sc->area->script[script].counter + 1 + sc->at].retries++;
	sc->prng = sc->retry_prng;
}

static void
count_failure(ScriptCounter *c, TransportErrorClass kind)
{
	c->failures++;
	if (kind == TRANSPORT_ERROR_SERIALIZATION)
		c->serialization_failures++;
	else if (kind == TRANSPORT_ERROR_DEADLOCK)
		c->deadlock_failures++;
}

/*
 * A transaction ended, committed (sqlerrcode 0) or failed with that
 * error: counted for its script (and its failing command), a failure by
 * its kind too.
 */
void
ScriptClientEnded(ScriptClient *sc, int script, uint64 latency_ns, int sqlerrcode)
{
	ScriptCounter *c = &sc->row[sc->area->script[script].counter];
	TransportErrorClass kind = TransportErrorClassOf(sqlerrcode);

	if (sqlerrcode == 0)
	{
		c->count++;
		c->latency_ns += latency_ns;
		return;
	}
	count_failure(c, kind);
	count_failure(&c[1 + sc->at], kind);
}
