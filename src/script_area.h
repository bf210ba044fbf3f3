/*-------------------------------------------------------------------------
 *
 * script_area.h
 *		The scripts' place in a run's shared memory, which the launcher
 *		lays out and checks (script_setup.c, script_readonly.c), the
 *		clients read and count into, and the coordinator records.
 *
 * A run with script => or scripts => carries its scripts in its dynamic
 * shared memory, after the clients (RunShared.script_area): each script's
 * name, weight and text, the variables given (as JSON text), and one row
 * of counters per client for each script and each of its commands.  The
 * launching session parses every script once (ScriptParse(), so a bad one
 * is refused before anything starts); each client parses them again from
 * the text into its own program (script_run.h).  A client writes its own
 * counter rows only; the coordinator sums them when every client has
 * ended, into pgbench_lab.run_scripts and run_commands.
 *
 *-------------------------------------------------------------------------
 */
#ifndef PGBL_SCRIPT_AREA_H
#define PGBL_SCRIPT_AREA_H

#include "fmgr.h"

#include "script_parse.h"

struct RunShared;

#define SCRIPT_RUN_MAX_SCRIPTS	128	/* scripts of one mix */
#define SCRIPT_RUN_MAX_WEIGHT	1000000	/* a script's weight, as @N */
#define SCRIPT_RUN_MAX_VARIABLES_TEXT	65536	/* variables as JSON text */

/* What a client counts, per script and per command (single writer). */
typedef struct ScriptCounter
{
	uint64		count;			/* a script: transactions ended; a command: executions */
	uint64		latency_ns;		/* the sum of their latencies (when timed) */
	uint64		failures;		/* failed there for good */
	uint64		serialization_failures; /* ... by kind: 40001 */
	uint64		deadlock_failures;	/* ... and 40P01 */
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
	bool		deck;			/* deal the scripts from a shuffled deck of
								 * their weights' cards (TPC-C's kit) */
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

/* script_record.c: in the coordinator */
extern void ScriptSetupRecord(struct RunShared *run, bool final, bool by_kind);

/* script_readonly.c: whether every script only reads (for a standby) */
extern int	ScriptSetupMarkReadsOnly(struct RunShared *p, char **why);

#endif							/* PGBL_SCRIPT_AREA_H */
