/*-------------------------------------------------------------------------
 *
 * script_run.h
 *		pgbench script files run by a run's clients: a client's
 *		interpreter (set up by script_vars.h's ScriptClientSetup), run in
 *		steps over its transport.
 *
 * Each client parses the run's scripts (script_area.h) from their text
 * into its own program; its transport prepares each SQL statement the
 * first time it runs it, keeping it for the rest of the run.
 *
 *-------------------------------------------------------------------------
 */
#ifndef PGBL_SCRIPT_RUN_H
#define PGBL_SCRIPT_RUN_H

#include "script_area.h"
#include "script_vars.h"

/* script_run.c: in a client, over its transport */
extern int	ScriptClientXact(ScriptClient *sc, int script, MemoryContext loopcxt,
							 ErrorData **edata);

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
