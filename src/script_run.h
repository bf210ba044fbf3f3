/*-------------------------------------------------------------------------
 *
 * script_run.h
 *		pgbench script files run by a run's clients: the scripts' place in
 *		the run's shared memory, the launcher's checks, the interpreter,
 *		and the per-script and per-command figures.
 *
 * A run with script => or scripts => carries its scripts in its dynamic
 * shared memory, after the clients (RunShared.script_area): each script's
 * name, weight and text, the variables given (as JSON text), and one row
 * of counters per client for each script and each of its commands.  The
 * launching session parses every script once (ScriptParse(), so a bad one
 * is refused before anything starts); each client parses them again from
 * the text into its own program and prepares each SQL statement the first
 * time it runs it, keeping the plan for the rest of the run.  A client
 * writes its own counter rows only; the coordinator sums them when every
 * client has ended, into pgbench_lab.run_scripts and run_commands.
 *
 *-------------------------------------------------------------------------
 */
#ifndef PGBL_SCRIPT_RUN_H
#define PGBL_SCRIPT_RUN_H

#include "fmgr.h"

#include "script_parse.h"

struct RunShared;

#define SCRIPT_RUN_MAX_SCRIPTS	64	/* scripts of one mix */
#define SCRIPT_RUN_MAX_WEIGHT	1000000	/* a script's weight, as @N */
#define SCRIPT_RUN_MAX_VARIABLES_TEXT	65536	/* variables as JSON text */

/* What a client counts, per script and per command (single writer). */
typedef struct ScriptCounter
{
	uint64		count;			/* a script: transactions ended; a command: executions */
	uint64		latency_ns;		/* the sum of their latencies (when timed) */
	uint64		failures;		/* failed there for good */
	uint64		retries;		/* a retry started by an error there */
} ScriptCounter;

typedef struct RunScript
{
	int			weight;
	bool		reads_only;		/* by script_readonly.c's rule: set when the
								 * run has a standby among its targets */
	int			ncommands;		/* of its program */
	int			counter;		/* its first counter in a client's row: the
								 * script's own, then one per command */
	Size		name;			/* offsets of its name and text in the area */
	Size		body;
	Size		owner;			/* ... of the role that saved it; 0: none */
} RunScript;

/* The area: this header, the scripts, the texts, then the counters. */
typedef struct RunScriptArea
{
	int			nscripts;
	int			total_weight;
	int			ncounters;		/* per client: scripts and their commands */
	int64		scale;			/* the scale variable, unless given */
	bool		scale_given;	/* ... among the variables */
	bool		tables_pending; /* a libpq run's built-in scripts do not yet
								 * name their tables' schema: never run */
	uint64		random_seed;	/* the random_seed variable: the run's seed */
	Size		variables;		/* offset of name\0text\0 ... \0 */
	Size		search_path;	/* offset of the launcher's search_path */
	Size		variables_json; /* offset of the variables as given, '' if none */
	Size		counters;		/* offset of ScriptCounter[clients][ncounters] */
	RunScript	script[FLEXIBLE_ARRAY_MEMBER];
} RunScriptArea;

static inline RunScriptArea *
RunScriptAreaOf(const struct RunShared *run, Size offset)
{
	return offset == 0 ? NULL : (RunScriptArea *) ((char *) run + offset);
}

static inline const char *
RunScriptText(const RunScriptArea *area, Size offset)
{
	return (const char *) area + offset;
}

static inline ScriptCounter *
RunScriptCounters(RunScriptArea *area, int client)
{
	return (ScriptCounter *) ((char *) area + area->counters) + (Size) client * area->ncounters;
}

/* script_setup.c: in the launching session, and in the coordinator */
struct RunSpec;
extern Size ScriptSetupRead(const struct RunSpec *spec, struct RunShared *p, char **area);
extern void ScriptSetupTargetScale(struct RunShared *p);
extern PGDLLIMPORT bool ScriptSetupChecking;
extern bool ScriptSetupTablesPending(const struct RunShared *p);
extern void ScriptSetupCheckSchema(const struct RunShared *p, int i, const char *schema,
								   const char *first);
extern void ScriptSetupRecord(struct RunShared *run, bool final);

/* script_readonly.c: whether every script only reads (for a standby) */
extern int	ScriptSetupMarkReadsOnly(struct RunShared *p, char **why);

/* script_vars.c, script_run.c: in a client, over its transport */
typedef struct ScriptClient ScriptClient;
struct Transport;

extern ScriptClient *ScriptClientSetup(struct RunShared *run, int client, bool timed,
									   struct Transport *t, MemoryContext cxt);
extern int	ScriptClientChoose(ScriptClient *sc);
extern int	ScriptClientXact(ScriptClient *sc, int script, MemoryContext loopcxt,
							 ErrorData **edata);
extern void ScriptClientRetry(ScriptClient *sc, int script);
extern void ScriptClientEnded(ScriptClient *sc, int script, uint64 latency_ns, bool committed);

/*
 * The interpreter runs in steps, so that one libpq worker drives many
 * clients' connections (client_mux.c): a step runs commands until one has
 * sent a statement whose results are not yet in (they come back through
 * the transport's callback, and the caller steps again), has to sleep
 * until *wake, or the script has ended.  Errors are raised; the caller
 * hands them to ScriptClientFailed.  Over SPI, ScriptClientXact runs the
 * whole transaction so.
 */
typedef enum ScriptStep
{
	SCRIPT_STEP_SENT,
	SCRIPT_STEP_SLEEP,
	SCRIPT_STEP_END
} ScriptStep;

extern void ScriptClientBegin(ScriptClient *sc, int script);
extern ScriptStep ScriptClientStep(ScriptClient *sc, int64 *wake);
extern void ScriptClientFailed(ScriptClient *sc, ErrorData *edata);

#endif							/* PGBL_SCRIPT_RUN_H */
