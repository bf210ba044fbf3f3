/*-------------------------------------------------------------------------
 *
 * script_run_int.h
 *		What the script interpreter's files share: a client's programs,
 *		statements and variables (script_vars.c sets them up,
 *		script_run.c runs a transaction through SPI, script_step.c over
 *		libpq in steps), and the functions they call across.
 *
 *-------------------------------------------------------------------------
 */
#ifndef PGBL_SCRIPT_RUN_INT_H
#define PGBL_SCRIPT_RUN_INT_H

#include "executor/spi.h"
#include "utils/plancache.h"

#include "runner.h"
#include "script_run.h"

#define SCRIPT_MAX_SAVEPOINTS 64

typedef struct ScriptVar
{
	char	   *name;
	bool		defined;
	bool		parsed;			/* value holds it (else text does) */
	char	   *text;			/* from \gset or the variables given */
	int			textcap;
	ScriptValue value;
} ScriptVar;

/* How one parameter's value goes in. */
typedef struct ParamBind
{
	int			slot;			/* its variable */
	Oid			type;			/* as the server inferred it */
	FmgrInfo	input;
	Oid			ioparam;
} ParamBind;

/* One statement of an SQL command, prepared the first time it runs. */
typedef struct Stmt
{
	char	   *text;
	SPIPlanPtr	plan;
	int			ntypes;
	Oid		   *types;			/* filled in by the parser's hook */
	ParamBind	   *params;
	ParamListInfo values;
	bool		read_only;
	/* over libpq */
	int			id;				/* prepared as S_<id> ... */
	int			prepared;		/* ... on this connection (LibpqScriptSend) */
	const char **texts;			/* the values sent */
	char	   *bufs;			/* 64 bytes per parameter, for numbers */
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

typedef struct LibpqResultArg
{
	ScriptClient *sc;
	const ScriptSql *sql;
	bool		last;
} LibpqResultArg;

struct ScriptClient
{
	RunShared  *run;
	RunClient  *me;
	bool		libpq;			/* the SQL goes over libpq, not SPI */
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
	ScriptEvalEnv env;
	/* the transaction under way */
	int			script;
	int			at;				/* the command running */
	bool		in_xact;		/* a transaction is open */
	bool		explicit_block; /* ... opened by BEGIN */
	bool		in_pipeline;
	int			nsavepoints;
	char	   *savepoints[SCRIPT_MAX_SAVEPOINTS];
	int			iso;			/* BEGIN's characteristics (-1: not given), */
	int			read_only;		/* kept for AND CHAIN */
	int			deferrable;
	MemoryContext loopcxt;		/* current between transactions */
	/* over libpq, in steps: where the command under way stands */
	int			sub;			/* 0: not begun; then the command's own steps */
	int64		cmd_t0;			/* when it began */
	LibpqResultArg res_arg;		/* for the results of the statement sent */
};

extern int ScriptVarSlot(ScriptClient *sc, const char *name);
extern void ScriptVarSetValue(ScriptVar *v, const ScriptValue *value);
extern void ScriptVarSetText(ScriptClient *sc, ScriptVar *v, const char *text);
extern bool ScriptVarValue(ScriptVar *v, ScriptValue *value, ScriptError *error);
extern void ScriptRaiseError(const ScriptError *error);
extern ScriptVar *ScriptDefinedVar(ScriptClient *sc, int slot);
extern void ScriptSetFromLibpq(void *arg, int ntuples, int ncols, char **names, char **values);
extern void ScriptParamTexts(ScriptClient *sc, Stmt *st);
extern void ScriptCheckEndedOutsideXact(ScriptClient *sc, Prog *pr);
extern bool ScriptSleepUntil(ScriptClient *sc, Cmd *c, int64 now, int64 *until);
extern int ScriptRunCommand(ScriptClient *sc, Prog *pr, int i);
extern void ScriptAddLocation(ScriptClient *sc, Prog *pr, ErrorData *edata);

#endif							/* PGBL_SCRIPT_RUN_INT_H */
