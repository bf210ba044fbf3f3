/*-------------------------------------------------------------------------
 *
 * client_targets.c
 *		A libpq run's targets before anything starts: each one's tables,
 *		facts and standby check, read by the launching session; and a
 *		standby's recovery conflicts, read again at the run's end.
 *
 * The launching session connects to every target in turn (with the checks
 * and the connect of client_libpq.c), reads the pgbench tables' schema and
 * scale as pgbench does at start-up, the server's settings, its system
 * facts where pgbench_lab is installed there, whether it is a standby, and
 * a standby's conflict counters; a standby is refused a workload with
 * nothing that reads (25006), and a run of scripts that read and scripts
 * that write over a primary and its standbys is split between them.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <ctype.h>

#include "catalog/pg_type.h"
#include "commands/dbcommands.h"
#include "common/string.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "libpq-fe.h"
#include "miscadmin.h"
#include "postmaster/postmaster.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"
#include "utils/varlena.h"
#include "utils/wait_event.h"

#include "client_libpq.h"
#include "pgbench_lab.h"
#include "results.h"
#include "runner.h"
#include "script_run.h"

#define PGBL_END_CONNECT_TIMEOUT_S	3	/* at most, for the facts read at a run's end */

/* ---------------------------------------------------------------------
 * The launching session: the target's tables, before anything starts
 * ---------------------------------------------------------------------
 */

/* Run one query on conn; its first row, as text values in *out. */
static int
query_row(PGconn *conn, const char *sql, char **out, int ncols)
{
	PGresult   *res;
	int			n;

	if (!PQsendQuery(conn, sql))
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
	n = PQntuples(res);
	for (int i = 0; i < ncols && n > 0; i++)
		out[i] = pstrdup(PQgetvalue(res, 0, i));
	PQclear(res);
	while ((res = PQgetResult(conn)) != NULL)
		PQclear(res);
	return n;
}

/* Find the tables as the target's statements will (its search_path). */
static void
resolve_tables(PGconn *conn, RunShared *p)
{
	char	   *row[2];
	char	   *nsp;
	char	   *sql;

	if (query_row(conn, "SELECT n.nspname, a.atttypid OPERATOR(pg_catalog.=) 'pg_catalog.int8'::pg_catalog.regtype "
				  "FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n "
				  "ON n.oid OPERATOR(pg_catalog.=) c.relnamespace JOIN pg_catalog.pg_attribute a "
				  "ON a.attrelid OPERATOR(pg_catalog.=) c.oid AND a.attname OPERATOR(pg_catalog.=) 'aid' "
				  "WHERE c.oid OPERATOR(pg_catalog.=) pg_catalog.to_regclass('pgbench_accounts')",
				  row, 2) != 1)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation \"pgbench_accounts\" does not exist on the target server"),
				 errhint("Create pgbench's tables there with pgbench_lab.init(scale => 10) or pgbench -i, "
						 "in a schema on the search_path of target's role.")));
	strlcpy(p->wl.schema, row[0], NAMEDATALEN);
	p->wl.aid_bigint = strcmp(row[1], "t") == 0;
	nsp = PQescapeIdentifier(conn, row[0], strlen(row[0]));
	if (nsp == NULL)
		LibpqConnError(conn, NULL, ERRCODE_CONNECTION_FAILURE, "could not quote a schema name");
	sql = psprintf("SELECT pg_catalog.count(*) FROM %s.pgbench_branches", nsp);
	PQfreemem(nsp);
	(void) query_row(conn, sql, row, 1);
	p->wl.scale = pg_strtoint32(row[0]);
	if (p->wl.scale <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("pgbench_branches is empty on the target server"),
				 errhint("Load pgbench's data with pgbench_lab.init(scale => 10) or pgbench -i.")));
}

/*
 * A run of scripts needs no pgbench table; its scale variable, unless
 * given, is pgbench_branches' row count where the target's role can read
 * it, else 1 (wl.scale, for the launcher to put in the scripts' area).
 * Where it is, wl.schema ('' if nowhere), is where the built-in scripts'
 * tables are (ScriptSetupTargetSchema()).
 */
static void
script_scale(PGconn *conn, RunShared *p)
{
	char	   *row[1];
	char	   *nsp;
	char	   *sql;

	p->wl.scale = 1;
	p->wl.schema[0] = '\0';
	if (query_row(conn, "SELECT n.nspname FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n "
				  "ON n.oid OPERATOR(pg_catalog.=) c.relnamespace "
				  "WHERE c.oid OPERATOR(pg_catalog.=) pg_catalog.to_regclass('pgbench_branches') "
				  "AND pg_catalog.has_table_privilege(c.oid, 'SELECT') "
				  "AND pg_catalog.has_schema_privilege(n.oid, 'USAGE')", row, 1) != 1)
		return;
	strlcpy(p->wl.schema, row[0], NAMEDATALEN);
	nsp = PQescapeIdentifier(conn, row[0], strlen(row[0]));
	if (nsp == NULL)
		LibpqConnError(conn, NULL, ERRCODE_CONNECTION_FAILURE, "could not quote a schema name");
	sql = psprintf("SELECT pg_catalog.count(*) FROM %s.pgbench_branches", nsp);
	PQfreemem(nsp);
	if (query_row(conn, sql, row, 1) == 1)
		p->wl.scale = Max(pg_strtoint32(row[0]), 1);
}

/*
 * The target's settings (the list a run records) and, where the target has
 * pgbench_lab and the role may call it, its system_info(): a run against
 * another server is labelled with that server's facts, read there.  Text
 * too long for the run's shared memory is left out rather than cut.
 */
static bool
jsonb_object_text(const char *text, size_t max)
{
	Jsonb	   *j;

	if (text[0] == '\0' || strlen(text) >= max)
		return false;
	/* what a server sends is checked, as any input: an object, or an error */
	j = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(text)));
	if (!JB_ROOT_IS_OBJECT(j))
		ereport(ERROR,
				(errcode(ERRCODE_PROTOCOL_VIOLATION),
				 errmsg("the target server sent settings that are not a JSON object")));
	return true;
}

/*
 * A standby's recovery conflicts in the connection's database, as a jsonb
 * object of its server's cumulative counters by kind: the confl_* columns
 * of pg_stat_database_conflicts without their prefix (tablespace, lock,
 * snapshot, bufferpin, deadlock, and from PostgreSQL 16 active_logicalslot;
 * the row read whole, so the same text serves every version).  Read after
 * pg_stat_clear_snapshot(), so not from a snapshot of the statistics taken
 * earlier; a backend's counts reach them when it next reports its
 * statistics (at most a second or so later while busy, or when it exits).
 * Into out ('' when there is no such row).
 */
static void
read_conflicts(PGconn *conn, char *out)
{
	char	   *row[1];

	out[0] = '\0';
	(void) query_row(conn, "SELECT pg_catalog.pg_stat_clear_snapshot()", row, 1);
	if (query_row(conn, "SELECT pg_catalog.jsonb_object_agg(pg_catalog.substr(e.key, 7), e.value)"
				  "::pg_catalog.text FROM pg_catalog.pg_stat_database_conflicts c "
				  "CROSS JOIN LATERAL pg_catalog.jsonb_each(pg_catalog.to_jsonb(c)) e "
				  "WHERE c.datname OPERATOR(pg_catalog.=) pg_catalog.current_database() "
				  "AND pg_catalog.starts_with(e.key, 'confl_')", row, 1) == 1 &&
		jsonb_object_text(row[0], PGBL_CONFLICTS_MAX))
		strlcpy(out, row[0], PGBL_CONFLICTS_MAX);
}

static void
read_target_facts(PGconn *conn, RunShared *p, int target)
{
	char	   *row[1];

	if (query_row(conn, "SELECT pg_catalog.jsonb_object_agg(n, pg_catalog.current_setting(n, true))"
				  "::pg_catalog.text FROM pg_catalog.unnest(" PGBL_SERVER_SETTINGS ") AS n",
				  row, 1) == 1 && jsonb_object_text(row[0], PGBL_SETTINGS_MAX))
		strlcpy(p->target[target].settings, row[0], PGBL_SETTINGS_MAX);
	/* a standby's conflicts so far, to count those of the run at its end */
	if (p->target[target].in_recovery)
		read_conflicts(conn, p->target[target].conflicts_start);
	/* system_info(), on every target that has it: the first one's labels the run row */
	if (query_row(conn, "SELECT pg_catalog.to_regprocedure('pgbench_lab.system_info()') IS NOT NULL "
				  "AND pg_catalog.has_function_privilege('pgbench_lab.system_info()', 'EXECUTE')",
				  row, 1) != 1 || strcmp(row[0], "t") != 0)
		return;
	if (query_row(conn, "SELECT pg_catalog.jsonb_object_agg(s.name, s.value)::pg_catalog.text "
				  "FROM pgbench_lab.system_info() s", row, 1) == 1 &&
		jsonb_object_text(row[0], PGBL_TARGET_SYSTEM_MAX))
		strlcpy(p->target[target].system, row[0], PGBL_TARGET_SYSTEM_MAX);
}

/*
 * At the end of a run, in the coordinator: a standby target's conflict
 * counters again (read_conflicts), over a connection of its own that may
 * take at most PGBL_END_CONNECT_TIMEOUT_S to open.  Raises an ERROR when
 * the target cannot be reached or read (the caller leaves the figures
 * NULL); '' when it has no counters for the database.
 */
char *
LibpqTargetConflicts(RunShared *run, int target)
{
	char	   *out = palloc0(PGBL_CONFLICTS_MAX);
	PGconn	   *conn = LibpqConnectTargetWithin(run, target, false, PGBL_END_CONNECT_TIMEOUT_S);

	PG_TRY();
	{
		read_conflicts(conn, out);
	}
	PG_FINALLY();
	{
		PQfinish(conn);
	}
	PG_END_TRY();
	return out;
}

/*
 * Can a standby run the run's workload: does it, or do some of its
 * scripts, only read?  select-only does, the other built-in workloads
 * write; scripts are judged one by one by the rule of script_readonly.c
 * and marked.  *all says whether everything reads; *why names what writes.
 */
typedef struct WorkloadReads
{
	bool		some;			/* something reads: a standby may run it */
	bool		all;			/* everything reads */
	char	   *why;			/* what writes, when not all reads */
} WorkloadReads;

static bool
workload_reads(RunShared *p, bool *all, char **why)
{
	if (p->script_area_size > 0)
	{
		int			reading = ScriptSetupMarkReadsOnly(p, why);

		*all = *why == NULL;
		return reading > 0;
	}
	*all = p->wl.kind == WORKLOAD_SELECT_ONLY;
	if (!*all)
		*why = psprintf("the built-in workload %s writes", p->workload);
	return *all;
}

/*
 * A target in recovery (a standby) takes only what reads: a workload with
 * nothing that reads is refused there before anything starts, with the
 * server's own SQLSTATE for a write in a read-only transaction.  Its
 * primary is named when the role may see the standby's WAL receiver (the
 * primary's conninfo itself is hidden from everyone but superusers).
 */
static void
check_standby(PGconn *conn, RunShared *p, int target, const char *which, const WorkloadReads *reads)
{
	char	   *row[3];

	if (query_row(conn, "SELECT pg_catalog.pg_is_in_recovery(), "
				  "(SELECT pg_catalog.format('host=%s port=%s', w.sender_host, w.sender_port) "
				  "FROM pg_catalog.pg_stat_wal_receiver w WHERE w.sender_host IS NOT NULL), "
				  "pg_catalog.current_setting('server_version')",
				  row, 3) != 1)
		return;
	strlcpy(p->target[target].server_version, row[2], PGBL_VERSION_MAX);
	p->target[target].in_recovery = strcmp(row[0], "t") == 0;
	if (!p->target[target].in_recovery)
		return;
	if (reads->some)
		return;
	ereport(ERROR,
			(errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
			 errmsg("%s is a standby (in recovery) and the run's workload writes", which),
			 errdetail("%s.", reads->why),
			 errhint("Run it against the primary%s%s%s; on a standby only select-only, or scripts "
					 "whose every statement reads, can run.",
					 row[1][0] ? " (this standby streams from " : "", row[1],
					 row[1][0] ? ")" : "")));
}

/*
 * Scripts that both read and write, with standbys among the targets: the
 * run is split as a read/write-splitting pooler splits a load, the clients
 * of a standby drawing only among the scripts that read, those of a
 * primary only among those that write (each by its weight).  With no
 * primary among the targets the writes could run nowhere: refused.
 */
static void
decide_split(RunShared *p, const WorkloadReads *reads)
{
	RunScriptArea *area = (RunScriptArea *) p->script_local;
	int64		weight[2] = {0, 0};	/* of the scripts that write, that read */
	bool		standby = false;
	bool		primary = false;

	for (int i = 0; i < p->ntargets; i++)
	{
		standby |= p->target[i].in_recovery;
		primary |= !p->target[i].in_recovery;
	}
	if (!standby || p->script_area_size == 0)
		return;
	if (reads->all)
		return;
	if (!primary)
		ereport(ERROR,
				(errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
				 errmsg("the run's targets are all standbys (in recovery) and some of its scripts write"),
				 errdetail("%s.", reads->why),
				 errhint("Add the primary to targets: its clients run the scripts that write, the "
						 "standbys' clients those that only read.")));
	for (int i = 0; i < area->nscripts; i++)
		weight[area->script[i].reads_only] += area->script[i].weight;
	if (weight[0] == 0 || weight[1] == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the scripts that %s have a weight of 0 in all", weight[1] == 0 ? "read" : "write"),
				 errdetail("With standbys among the targets the run is split: the standbys' clients run "
						   "the scripts that read, the primary's those that write."),
				 errhint("Give a weight above 0 to a script of each kind.")));
	p->split = true;
}

static void
target_context(void *arg)
{
	errcontext("%s", (const char *) arg);
}

/*
 * The clients of every target share one workload's parameters: the tables
 * must be in the same schema, of the same scale and key type everywhere.
 */
static void
same_tables(const WorkloadParams *first, WorkloadParams *here, const char *which)
{
	if (strcmp(first->schema, here->schema) != 0 || first->scale != here->scale ||
		first->aid_bigint != here->aid_bigint)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the pgbench tables of %s differ from those of targets[1]", which),
				 errdetail("targets[1]: schema %s, scale %d; %s: schema %s, scale %d.",
						   first->schema, first->scale, which, here->schema, here->scale),
				 errhint("A run's targets serve one workload: load the same data set on each "
						 "(a standby has its primary's).")));
	*here = *first;
}

/*
 * For a libpq run, connect to each target from the launching session (the
 * same checks as a client's connection, interruptible): a standby is
 * refused a write workload, each target's facts are read there, and the
 * scale and the tables' schema, as pgbench reads them at start-up, must be
 * the same on every target.  An error names the target it came from.
 * Returns false for an in-server run: the caller resolves the tables itself.
 */
bool
LibpqResolve(RunShared *p)
{
	WorkloadParams first;
	WorkloadReads reads = {false, false, NULL};

	if (p->via == RUN_VIA_SPI)
		return false;
	/* what reads, judged (and the scripts marked) once for all the targets */
	reads.some = workload_reads(p, &reads.all, &reads.why);
	for (int i = 0; i < p->ntargets; i++)
	{
		PGconn	   *conn;
		char	   *which = p->targets_given ? psprintf("targets[%d]", i + 1) : "the target";

		ErrorContextCallback callback = {error_context_stack, target_context, NULL};

		callback.arg = psprintf("%s: %s", which, p->target[i].display);
		error_context_stack = p->targets_given ? &callback : callback.previous;
		conn = LibpqConnectTarget(p, i, false);
		PG_TRY();
		{
			check_standby(conn, p, i, which, &reads);
			if (i == 0)
			{
				if (p->script_area_size == 0)
					resolve_tables(conn, p);
				else
					script_scale(conn, p);
				first = p->wl;
			}
			else if (p->script_area_size == 0)
			{
				resolve_tables(conn, p);
				same_tables(&first, &p->wl, which);
			}
			read_target_facts(conn, p, i);
		}
		PG_FINALLY();
		{
			PQfinish(conn);
		}
		PG_END_TRY();
		error_context_stack = callback.previous;
	}
	decide_split(p, &reads);
	return true;
}
