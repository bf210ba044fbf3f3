/*-------------------------------------------------------------------------
 *
 * script_client.h
 *		A client's interpreter, as its two files share it: its programs,
 *		statements and variables (script_vars.c sets them up and keeps
 *		the variables, script_run.c runs the scripts over a transport).
 *
 *-------------------------------------------------------------------------
 */
#ifndef PGBL_SCRIPT_CLIENT_H
#define PGBL_SCRIPT_CLIENT_H

#include "run_shared.h"
#include "script_vars.h"
#include "transport.h"

typedef struct ScriptVar
{
	char	   *name;
	bool		defined;
	bool		parsed;			/* value holds it (else text does) */
	char	   *text;			/* from \gset or the variables given */
	int			textcap;
	ScriptValue value;
} ScriptVar;

/* One statement of an SQL command, and the variables of its parameters. */
typedef struct Stmt
{
	TransportStmt ts;
	int		   *slots;
} Stmt;

typedef struct Cmd
{
	ScriptCommand *cmd;
	int			slot;			/* \set's variable, \sleep's :variable */
	int			nstmts;
	Stmt	   *stmts;
} Cmd;

typedef struct Prog
{
	ScriptProgram *prog;
	Cmd		   *cmds;
} Prog;

/* Where a statement's results go (\gset, \aset). */
typedef struct ScriptResultArg
{
	ScriptClient *sc;
	const ScriptSql *sql;
	bool		last;
} ScriptResultArg;

struct ScriptClient
{
	RunShared  *run;
	RunClient  *me;
	Transport  *t;				/* where its statements go */
	int			nstmts;			/* statements numbered so far */
	RunScriptArea *area;
	ScriptCounter *row;			/* this client's counters */
	MemoryContext cxt;			/* the programs, plans and variables */
	bool		timed;
	int			nprogs;
	Prog	   *progs;
	int			nvars;
	int			maxvars;
	ScriptVar  *vars;
	pg_prng_state prng;			/* the scripts' random functions */
	pg_prng_state retry_prng;	/* as it was when the transaction began */
	pg_prng_state choose;		/* which script runs next */
	bool	   *eligible;		/* a split run: the scripts this client's
								 * target takes (NULL: all of them) */
	int			total_weight;	/* of those it takes */
	int		   *deck;			/* a dealt run: the deck, its cards dealt so
								 * far and its size (NULL: drawn by weight) */
	int			deck_at;
	int			deck_size;
	ScriptEvalEnv env;
	/* the transaction under way */
	int			script;
	int			at;				/* the command running */
	bool		in_pipeline;
	/* where the command under way stands */
	int			sub;			/* 0: not begun; then the command's own steps */
	bool		own;			/* it runs in a transaction of its own */
	int64		cmd_t0;			/* when it began */
	ScriptResultArg res_arg;	/* for the results of the statement sent */
};

extern int ScriptVarSlot(ScriptClient *sc, const char *name);
extern void ScriptVarSetValue(ScriptVar *v, const ScriptValue *value);
extern void ScriptVarSetText(ScriptClient *sc, ScriptVar *v, const char *text);
extern bool ScriptVarValue(ScriptVar *v, ScriptValue *value, ScriptError *error);
extern void ScriptRaiseError(const ScriptError *error);
extern ScriptVar *ScriptDefinedVar(ScriptClient *sc, int slot);

#endif							/* PGBL_SCRIPT_CLIENT_H */
