/*-------------------------------------------------------------------------
 *
 * script_vars.h
 *		A client's interpreter set up, its next script chosen by weight,
 *		and its transactions counted per script (script_vars.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef PGBL_SCRIPT_VARS_H
#define PGBL_SCRIPT_VARS_H

#include "script_area.h"

typedef struct ScriptClient ScriptClient;
struct Transport;

extern ScriptClient *ScriptClientSetup(struct RunShared *run, int client, bool timed,
									   struct Transport *t, MemoryContext cxt);
extern int	ScriptClientChoose(ScriptClient *sc);
extern void ScriptClientRetry(ScriptClient *sc, int script);
extern void ScriptClientEnded(ScriptClient *sc, int script, uint64 latency_ns, int sqlerrcode);

#endif							/* PGBL_SCRIPT_VARS_H */
