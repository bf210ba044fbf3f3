/*-------------------------------------------------------------------------
 *
 * script_setup_targets.c
 *		The schema of pgbench's tables for a libpq run of the built-in
 *		scripts by name, the same on every target, checked before anything
 *		starts.
 *
 * A built-in script's text names its tables with their schema (see
 * WorkloadScriptText() in workload.c and builtin_text() in script_setup.c),
 * one text for every client of the run, whatever its target.  The launching session finds the schema as
 * pgbench would find the tables, through the search_path of each target's
 * role, on the connection and within the deadline of its other reads there
 * (script_scale() and LibpqResolve() in client_targets.c); this file judges
 * what was found: a target without the tables, or with them in another
 * schema than the first target's, is refused, naming it.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "run_shared.h"
#include "script_area.h"

static void
missing(const char *which)
{
	ereport(ERROR,
			(errcode(ERRCODE_UNDEFINED_TABLE),
			 errmsg("relation \"pgbench_branches\" does not exist on %s, or its role may not read it",
					which),
			 errdetail("pgbench's built-in scripts run on pgbench's tables, found through the "
					   "search_path of the target's role."),
			 errhint("Create pgbench's tables there with pgbench_lab.init(scale => 10) or pgbench -i, "
					 "in a schema on the search_path of the target's role, which needs SELECT on them.")));
}

/* Does the run use a built-in script by name, whose tables are not named yet? */
bool
ScriptSetupTablesPending(const RunShared *p)
{
	const RunScriptArea *area = (const RunScriptArea *) p->script_local;

	return area != NULL && area->tables_pending;
}

/*
 * Target i (from 0) found the tables in schema ('' if nowhere); the first
 * target's are in first.  Refuse a target without them, or with them in
 * another schema.
 */
void
ScriptSetupCheckSchema(const RunShared *p, int i, const char *schema, const char *first)
{
	if (schema[0] == '\0')
		missing(p->targets_given ? psprintf("targets[%d]", i + 1) : "the target server");
	if (i > 0 && strcmp(schema, first) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the pgbench tables of targets[%d] are in schema %s, those of targets[1] in %s",
						i + 1, schema, first),
				 errdetail("A built-in script's text names its tables with one schema for all the "
						   "clients of the run."),
				 errhint("Load pgbench's tables in the same schema on every target, or give the "
						 "targets' roles search_paths that find them in the same schema.")));
}
