/*-------------------------------------------------------------------------
 *
 * script_setup_targets.c
 *		The schema of pgbench's tables for a libpq run of the built-in
 *		scripts by name, the same on every target, found before anything
 *		starts.
 *
 * A built-in script's text names its tables with their schema (see
 * builtin_scripts[] in script_setup.c), one text for every client of the
 * run, whatever its target.  The launching session finds the schema as
 * pgbench would find the tables, through the search_path of each target's
 * role: script_scale() (client_targets.c) reads it on the first target with
 * the scale, and this file reads it the same way on the others, each over a
 * connection of its own.  A target without the tables, or with them in
 * another schema, is refused, naming it.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "libpq-fe.h"

#include "client_libpq.h"
#include "runner.h"
#include "script_run.h"

/* pgbench_branches, a table (counting a view's rows runs its owner's code),
 * where the target's role finds it and may read it */
#define TABLES_SCHEMA_SQL \
	"SELECT n.nspname FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n " \
	"ON n.oid OPERATOR(pg_catalog.=) c.relnamespace " \
	"WHERE c.oid OPERATOR(pg_catalog.=) pg_catalog.to_regclass('pgbench_branches') " \
	"AND c.relkind OPERATOR(pg_catalog.=) ANY ('{r,p}'::pg_catalog.\"char\"[]) " \
	"AND pg_catalog.has_table_privilege(c.oid, 'SELECT') " \
	"AND pg_catalog.has_schema_privilege(n.oid, 'USAGE')"

/* The schema of the tables on conn into out; false if there are none. */
static bool
read_schema(PGconn *conn, char *out)
{
	PGresult   *res;
	bool		found;

	if (!PQsendQuery(conn, TABLES_SCHEMA_SQL))
		LibpqConnError(conn, NULL, ERRCODE_CONNECTION_FAILURE, "could not query the target server");
	LibpqAwaitResult(conn, NULL, "could not query the target server");
	res = PQgetResult(conn);
	if (PQresultStatus(res) != PGRES_TUPLES_OK)
	{
		PG_TRY();
		{
			LibpqConnError(conn, res, ERRCODE_CONNECTION_FAILURE, "could not query the target server");
		}
		PG_FINALLY();
		{
			PQclear(res);
		}
		PG_END_TRY();
	}
	found = PQntuples(res) == 1;
	if (found)
		strlcpy(out, PQgetvalue(res, 0, 0), NAMEDATALEN);
	PQclear(res);
	while ((res = PQgetResult(conn)) != NULL)
		PQclear(res);
	return found;
}

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

static void
target_context(void *arg)
{
	errcontext("%s", (const char *) arg);
}

/* The schema on target i (1 and up), over a connection of its own. */
static void
read_target_schema(RunShared *p, int i, char *out)
{
	char	   *which = psprintf("targets[%d]", i + 1);
	ErrorContextCallback callback = {error_context_stack, target_context, NULL};
	PGconn	   *conn;

	callback.arg = psprintf("%s: %s", which, p->target[i].display);
	error_context_stack = &callback;
	conn = LibpqConnectTarget(p, i, false);
	PG_TRY();
	{
		if (!read_schema(conn, out))
			missing(which);
	}
	PG_FINALLY();
	{
		PQfinish(conn);
	}
	PG_END_TRY();
	error_context_stack = callback.previous;
}

/*
 * The schema of the tables of a libpq run of built-in scripts: the first
 * target's (p->wl.schema, '' when script_scale() found no table there it may
 * read), the same on every other target.
 */
const char *
ScriptSetupTargetSchema(RunShared *p)
{
	char		schema[NAMEDATALEN];

	if (p->wl.schema[0] == '\0')
		missing(p->targets_given ? "targets[1]" : "the target server");
	for (int i = 1; i < p->ntargets; i++)
	{
		read_target_schema(p, i, schema);
		if (strcmp(schema, p->wl.schema) != 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("the pgbench tables of targets[%d] are in schema %s, those of targets[1] in %s",
							i + 1, schema, p->wl.schema),
					 errdetail("A built-in script's text names its tables with one schema for all the "
							   "clients of the run."),
					 errhint("Load pgbench's tables in the same schema on every target, or give the "
							 "targets' roles search_paths that find them in the same schema.")));
	}
	return p->wl.schema;
}
