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
 * facts where pgbench_lab is provably installed there (read_system), whether
 * it is a standby, and a standby's conflict counters; a standby is refused
 * a workload with nothing that reads (25006), and a run of scripts that
 * read and scripts that write over a primary and its standbys is split
 * between them.
 *
 * A run's figures that are a server's, not its clients' (the WAL written,
 * the checkpoints completed), are read on each primary target that is not
 * this very server (told by its system identifier and its postmaster's
 * start time): its pg_current_wal_lsn() and its completed checkpoints
 * (from PostgreSQL 18 pg_stat_checkpointer.num_done; before, its
 * pg_control_checkpoint(), which only tells whether one completed), at
 * the start by the launching session and at the end by the coordinator,
 * with the standbys' conflicts (read_figures).  A target where they cannot
 * be read keeps them NULL with why (figures_note).
 *
 * Every read of a target has a deadline (TargetRead): the launching
 * session's, PGBL_LAUNCH_READ_TIMEOUT_S for one target's queries, which the
 * caller's cancel also stops; the coordinator's at the run's end,
 * PGBL_END_READ_TIMEOUT_S after a connect of at most
 * PGBL_END_CONNECT_TIMEOUT_S, which cancel() also stops, and it waits
 * outside any transaction (no snapshot, no xid held on this server).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <ctype.h>

#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/pg_type.h"
#include "commands/dbcommands.h"
#include "common/string.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "libpq-fe.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/postmaster.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"
#include "utils/resowner.h"
#include "utils/timestamp.h"
#include "utils/varlena.h"
#include "utils/wait_event.h"

#include "client_libpq.h"
#include "pgbench_lab.h"
#include "results.h"
#include "script_area.h"

#define PGBL_END_CONNECT_TIMEOUT_S	3	/* at most, to connect for the read at a run's end */
#define PGBL_END_READ_TIMEOUT_S		5	/* at most, for that read's queries */
#define PGBL_LAUNCH_READ_TIMEOUT_S	10	/* at most, for the queries on one target at launch */

/*
 * Every read of a target has a deadline: the queries on one connection
 * must all be answered within "secs" of its start (and each query is sent
 * after SET LOCAL statement_timeout = secs, so that the target gives up
 * too).  The read under way
 * in this process: which run's stop flag it answers (none: an interrupt
 * still stops it), and when it must be over.
 */
typedef struct TargetRead
{
	RunShared  *run;			/* whose stop flag is watched, or NULL */
	uint32		stop_level;		/* ... from which level (RUN_STOP_*) */
	int64		deadline_ns;	/* WorkerNowNs() by which it must be over */
	int			secs;
} TargetRead;

static TargetRead target_read;

static void
begin_read(RunShared *run, uint32 stop_level, int secs)
{
	target_read.run = run;
	target_read.stop_level = stop_level;
	target_read.secs = secs;
	target_read.deadline_ns = WorkerNowNs() + secs * INT64CONST(1000000000);
}

/* ---------------------------------------------------------------------
 * The launching session: the target's tables, before anything starts
 * ---------------------------------------------------------------------
 */

static void
await_read(PGconn *conn)
{
	LibpqAwaitResultBy(conn, target_read.run, target_read.stop_level, target_read.deadline_ns,
					   target_read.secs, "could not query the target server");
}

/*
 * Run one query on conn, within the read's deadline; its first row, as
 * text values in *out ('' for NULL), and the rows' count.  An error of the
 * query (not of the connection or the deadline) is raised, or with a note
 * returned as -1, the server's message in note.
 */
static int
query_row_or_note(PGconn *conn, const char *sql, char **out, int ncols, char *note)
{
	PGresult   *res;
	PGresult   *next;
	int			n;

	/*
	 * statement_timeout with the query, in the one transaction of the two
	 * (a pooler in transaction mode keeps them on one server connection,
	 * and nothing stays set on it afterwards)
	 */
	if (!PQsendQuery(conn, psprintf("SET LOCAL statement_timeout = %d; %s",
									target_read.secs * 1000, sql)))
		LibpqConnError(conn, NULL, ERRCODE_CONNECTION_FAILURE, "could not query the target server");
	/* PQgetResult blocks while libpq is busy: every one is awaited first */
	await_read(conn);
	res = PQgetResult(conn);
	for (;;)
	{
		await_read(conn);
		if ((next = PQgetResult(conn)) == NULL)
			break;
		/* the query's result, after the SET's */
		if (PQresultStatus(res) == PGRES_COMMAND_OK)
		{
			PQclear(res);
			res = next;
		}
		else
			PQclear(next);
	}
	if (PQresultStatus(res) != PGRES_TUPLES_OK && note != NULL)
	{
		char	   *msg = pstrdup(PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) ?
								  PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : "no answer");

		PQclear(res);
		snprintf(note, PGBL_NOTE_MAX, "not read there: %s", msg);
		return -1;
	}
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
	return n;
}

static int
query_row(PGconn *conn, const char *sql, char **out, int ncols)
{
	return query_row_or_note(conn, sql, out, ncols, NULL);
}

/* query_row for the pooler's probe and the settings' check (client_pooler.c). */
int
TargetsQueryRow(PGconn *conn, const char *sql, char **out, int ncols)
{
	return query_row(conn, sql, out, ncols);
}

/*
 * A primary's figures now: its WAL position and its completed checkpoints
 * (num_done from 18; before, the last checkpoint's LSN, which changes when
 * one completes), into wal and ckpt ('' and a note when they cannot be
 * read); *counted says which the checkpoints are.
 */
static void
read_figures(PGconn *conn, int version_num, char *wal, char *ckpt, bool *counted, char *note)
{
	char	   *row[2];

	wal[0] = ckpt[0] = '\0';
	*counted = version_num >= 180000;
	(void) query_row(conn, "SELECT pg_catalog.pg_stat_clear_snapshot()", row, 1);
	if (query_row_or_note(conn, *counted ?
						  "SELECT pg_catalog.pg_current_wal_lsn()::pg_catalog.text, "
						  "c.num_done::pg_catalog.text FROM pg_catalog.pg_stat_checkpointer c" :
						  "SELECT pg_catalog.pg_current_wal_lsn()::pg_catalog.text, "
						  "c.checkpoint_lsn::pg_catalog.text FROM pg_catalog.pg_control_checkpoint() c",
						  row, 2, note) != 1)
		return;
	strlcpy(wal, row[0], PGBL_LSN_MAX);
	strlcpy(ckpt, row[1], PGBL_LSN_MAX);
}

/* pgbench_branches' rows in schema, as pgbench reads the scale (0: none). */
static int32
branches_count(PGconn *conn, const char *schema)
{
	char	   *row[1];
	char	   *nsp = PQescapeIdentifier(conn, schema, strlen(schema));
	char	   *sql;

	if (nsp == NULL)
		LibpqConnError(conn, NULL, ERRCODE_CONNECTION_FAILURE, "could not quote a schema name");
	sql = psprintf("SELECT pg_catalog.count(*) FROM %s.pgbench_branches", nsp);
	PQfreemem(nsp);
	return query_row(conn, sql, row, 1) == 1 ? pg_strtoint32(row[0]) : 0;
}

/* Find the tables as the target's statements will (its search_path). */
static void
resolve_tables(PGconn *conn, RunShared *p)
{
	char	   *row[2];

	/*
	 * Tables, not views: counting a view's rows would run whatever
	 * functions its owner put in it, as the run's role.
	 */
	if (query_row(conn, "SELECT n.nspname, a.atttypid OPERATOR(pg_catalog.=) 'pg_catalog.int8'::pg_catalog.regtype "
				  "FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n "
				  "ON n.oid OPERATOR(pg_catalog.=) c.relnamespace JOIN pg_catalog.pg_attribute a "
				  "ON a.attrelid OPERATOR(pg_catalog.=) c.oid AND a.attname OPERATOR(pg_catalog.=) 'aid' "
				  "WHERE c.oid OPERATOR(pg_catalog.=) pg_catalog.to_regclass('pgbench_accounts') "
				  "AND c.relkind OPERATOR(pg_catalog.=) ANY ('{r,p}'::pg_catalog.\"char\"[]) "
				  "AND EXISTS (SELECT FROM pg_catalog.pg_class b WHERE b.relnamespace OPERATOR(pg_catalog.=) n.oid "
				  "AND b.relname OPERATOR(pg_catalog.=) 'pgbench_branches' "
				  "AND b.relkind OPERATOR(pg_catalog.=) ANY ('{r,p}'::pg_catalog.\"char\"[]))",
				  row, 2) != 1)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation \"pgbench_accounts\" does not exist on the target server"),
				 errhint("Create pgbench's tables there with pgbench_lab.init(scale => 10) or pgbench -i, "
						 "in a schema on the search_path of target's role.")));
	strlcpy(p->wl.schema, row[0], NAMEDATALEN);
	p->wl.aid_bigint = strcmp(row[1], "t") == 0;
	p->wl.scale = branches_count(conn, p->wl.schema);
	if (p->wl.scale <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("pgbench_branches is empty on the target server"),
				 errhint("Load pgbench's data with pgbench_lab.init(scale => 10) or pgbench -i.")));
}

/*
 * The schema of pgbench_branches, a table the target's role finds through
 * its search_path and may read, into out; false ('') where there is none.
 */
static bool
tables_schema(PGconn *conn, char *out)
{
	char	   *row[1];

	out[0] = '\0';
	if (query_row(conn, "SELECT n.nspname FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n "
				  "ON n.oid OPERATOR(pg_catalog.=) c.relnamespace "
				  "WHERE c.oid OPERATOR(pg_catalog.=) pg_catalog.to_regclass('pgbench_branches') "
				  "AND c.relkind OPERATOR(pg_catalog.=) ANY ('{r,p}'::pg_catalog.\"char\"[]) "
				  "AND pg_catalog.has_table_privilege(c.oid, 'SELECT') "
				  "AND pg_catalog.has_schema_privilege(n.oid, 'USAGE')", row, 1) != 1)
		return false;
	strlcpy(out, row[0], NAMEDATALEN);
	return true;
}

/*
 * A run of scripts needs no pgbench table; its scale variable, unless
 * given, is pgbench_branches' row count where the target's role can read
 * it, else 1 (wl.scale, for the launcher to put in the scripts' area).
 * Where it is, wl.schema ('' if nowhere), is where the built-in scripts'
 * tables are (checked on every target by ScriptSetupCheckSchema()).
 */
static void
script_scale(PGconn *conn, RunShared *p)
{
	p->wl.scale = 1;
	if (tables_schema(conn, p->wl.schema))
		p->wl.scale = Max(branches_count(conn, p->wl.schema), 1);
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

/*
 * The target's system_info(), only where it is provably pgbench_lab's: a
 * target need not have pgbench_lab, so the owner of its database could
 * make a schema pgbench_lab with a function system_info() of their own,
 * which a call by name would run as the run's role.  One catalog query,
 * every name in it qualified, nothing found through the session's
 * search_path, proves that extension pgbench_lab is installed there, that
 * its schema pgbench_lab is a member of it (so CREATE EXTENSION made it: a
 * schema someone else made first makes CREATE EXTENSION fail), that the
 * zero-argument system_info() there is a member of it too, a C function of
 * a superuser, and the only routine of that name in the schema (so no other
 * could be chosen), that the schema's owner is a superuser and nobody else
 * may CREATE in it, and that the run's role may execute the function.
 * Only then is it called, qualified with the schema so proven, quoted;
 * otherwise system stays '' and system_note says why.
 */
static void
read_system(PGconn *conn, RunTarget *t)
{
	char	   *row[2];
	char	   *nsp;
	char	   *sql;

	if (query_row(conn,
				  "SELECT coalesce(x.nspname, ''), CASE WHEN e.oid IS NULL THEN 'pgbench_lab is not installed there' "
				  "WHEN x.nspname IS NULL THEN 'its pgbench_lab.system_info() is not proven to be the extension''s "
				  "(a member of it, in its own schema, which only a superuser may create in)' "
				  "WHEN NOT x.may_execute THEN 'the run''s role there may not execute pgbench_lab.system_info()' "
				  "ELSE '' END "
				  "FROM (SELECT) AS one "
				  "LEFT JOIN pg_catalog.pg_extension e ON e.extname OPERATOR(pg_catalog.=) 'pgbench_lab' "
				  "LEFT JOIN LATERAL (SELECT n.nspname, pg_catalog.has_function_privilege(f.oid, 'EXECUTE') AS may_execute "
				  "FROM pg_catalog.pg_namespace n "
				  "JOIN pg_catalog.pg_depend dn ON dn.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_namespace'::pg_catalog.regclass "
				  "AND dn.objid OPERATOR(pg_catalog.=) n.oid AND dn.objsubid OPERATOR(pg_catalog.=) 0 "
				  "AND dn.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_extension'::pg_catalog.regclass "
				  "AND dn.refobjid OPERATOR(pg_catalog.=) e.oid AND dn.deptype OPERATOR(pg_catalog.=) 'e' "
				  "JOIN pg_catalog.pg_proc f ON f.pronamespace OPERATOR(pg_catalog.=) n.oid "
				  "AND f.proname OPERATOR(pg_catalog.=) 'system_info' AND f.pronargs OPERATOR(pg_catalog.=) 0 "
				  "JOIN pg_catalog.pg_depend df ON df.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_proc'::pg_catalog.regclass "
				  "AND df.objid OPERATOR(pg_catalog.=) f.oid AND df.objsubid OPERATOR(pg_catalog.=) 0 "
				  "AND df.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_extension'::pg_catalog.regclass "
				  "AND df.refobjid OPERATOR(pg_catalog.=) e.oid AND df.deptype OPERATOR(pg_catalog.=) 'e' "
				  "JOIN pg_catalog.pg_language l ON l.oid OPERATOR(pg_catalog.=) f.prolang "
				  "AND l.lanname OPERATOR(pg_catalog.=) 'c' "
				  "JOIN pg_catalog.pg_roles so ON so.oid OPERATOR(pg_catalog.=) n.nspowner AND so.rolsuper "
				  "JOIN pg_catalog.pg_roles fo ON fo.oid OPERATOR(pg_catalog.=) f.proowner AND fo.rolsuper "
				  "WHERE n.nspname OPERATOR(pg_catalog.=) 'pgbench_lab' "
				  "AND NOT EXISTS (SELECT FROM pg_catalog.pg_proc o WHERE o.pronamespace OPERATOR(pg_catalog.=) n.oid "
				  "AND o.proname OPERATOR(pg_catalog.=) 'system_info' AND o.oid OPERATOR(pg_catalog.<>) f.oid) "
				  "AND NOT EXISTS (SELECT FROM pg_catalog.aclexplode(n.nspacl) a "
				  "WHERE a.privilege_type OPERATOR(pg_catalog.=) 'CREATE' "
				  "AND a.grantee OPERATOR(pg_catalog.<>) n.nspowner)) AS x ON true",
				  row, 2) != 1)
		return;
	if (row[1][0] != '\0')
	{
		strlcpy(t->system_note, row[1], PGBL_NOTE_MAX);
		return;
	}
	nsp = PQescapeIdentifier(conn, row[0], strlen(row[0]));
	if (nsp == NULL)
		LibpqConnError(conn, NULL, ERRCODE_CONNECTION_FAILURE, "could not quote a schema name");
	sql = psprintf("SELECT pg_catalog.jsonb_object_agg(s.name, s.value)::pg_catalog.text "
				   "FROM %s.system_info() s", nsp);
	PQfreemem(nsp);
	if (query_row(conn, sql, row, 1) == 1 && jsonb_object_text(row[0], PGBL_TARGET_SYSTEM_MAX))
		strlcpy(t->system, row[0], PGBL_TARGET_SYSTEM_MAX);
	else
		strlcpy(t->system_note, "its pgbench_lab.system_info() returned nothing that could be kept",
				PGBL_NOTE_MAX);
}

/*
 * Is the target this very server?  The same system identifier and the same
 * postmaster start time (to the microsecond) as this one's: a standby has
 * its primary's identifier but its own start; another server started from
 * a copy of this one's data its own start.
 */
static bool
is_this_server(PGconn *conn, RunTarget *t, int *version_num, Oid dboid)
{
	char	   *row[4];
	TimestampTz start = PgStartTime;
	int64		unix_us = start + (int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * USECS_PER_DAY;

	*version_num = 0;
	if (query_row(conn, "SELECT pg_catalog.current_setting('server_version_num'), "
				  "(SELECT s.system_identifier::pg_catalog.text FROM pg_catalog.pg_control_system() s), "
				  "(pg_catalog.extract('epoch', pg_catalog.pg_postmaster_start_time()) "
				  "OPERATOR(pg_catalog.*) 1000000)::pg_catalog.int8::pg_catalog.text, "
				  "(SELECT d.oid::pg_catalog.text FROM pg_catalog.pg_database d "
				  "WHERE d.datname OPERATOR(pg_catalog.=) pg_catalog.current_database())", row, 4) != 1)
		return false;
	*version_num = pg_strtoint32(row[0]);
	snprintf(t->server_id, sizeof(t->server_id), "%s:%s", row[1], row[2]);
	if (strcmp(row[1], psprintf(UINT64_FORMAT, GetSystemIdentifier())) != 0 ||
		strcmp(row[2], psprintf(INT64_FORMAT, unix_us)) != 0)
		return false;
	/* the run's database: its statistics count the clients' buffers */
	t->this_database = row[3] != NULL && strcmp(row[3], psprintf("%u", dboid)) == 0;
	return true;
}

static void
read_target_facts(PGconn *conn, RunShared *p, int target)
{
	char	   *row[1];
	RunTarget  *t = &p->target[target];
	int			version_num;

	/*
	 * A primary's WAL and checkpoints, read there (needed unless every
	 * primary among the targets is this very server: RunMeasuredHere)
	 */
	t->this_database = false;
	t->this_server = is_this_server(conn, t, &version_num, p->dboid);
	if (!t->in_recovery)
		read_figures(conn, version_num, t->wal_lsn_start, t->ckpt_start, &t->ckpt_counted,
					 t->figures_note);

	if (query_row(conn, "SELECT pg_catalog.jsonb_object_agg(n, pg_catalog.current_setting(n, true))"
				  "::pg_catalog.text FROM pg_catalog.unnest(" PGBL_SERVER_SETTINGS ") AS n",
				  row, 1) == 1 && jsonb_object_text(row[0], PGBL_SETTINGS_MAX))
		strlcpy(p->target[target].settings, row[0], PGBL_SETTINGS_MAX);
	/* a standby's conflicts so far, to count those of the run at its end */
	if (p->target[target].in_recovery)
		read_conflicts(conn, p->target[target].conflicts_start);
	/* system_info(), on every target that has it: the first one's labels the run row */
	read_system(conn, &p->target[target]);
}

/*
 * At the end of a run, in the coordinator, outside any transaction: a
 * standby target's conflict counters again (read_conflicts), over a
 * connection of its own that may take at most PGBL_END_CONNECT_TIMEOUT_S to
 * open, its queries answered within PGBL_END_READ_TIMEOUT_S (the target's
 * statement_timeout too).  The run's stop flag reaching stop_level (a
 * cancel) stops it, unless 0.  Raises an ERROR when the target cannot be
 * reached or read in time (the caller leaves the figures NULL, with why);
 * '' when it has no counters for the database.
 */
static char *
LibpqTargetConflicts(RunShared *run, int target, uint32 stop_level)
{
	char	   *out = palloc0(PGBL_CONFLICTS_MAX);
	PGconn	   *conn = LibpqConnectTargetWithin(run, target, stop_level, PGBL_END_CONNECT_TIMEOUT_S);

	PG_TRY();
	{
		begin_read(run, stop_level, PGBL_END_READ_TIMEOUT_S);
		read_conflicts(conn, out);
	}
	PG_FINALLY();
	{
		PQfinish(conn);
	}
	PG_END_TRY();
	return out;
}

/* What the read at the end found on each standby (TargetsReadEnd). */
static TargetEnd target_end[PGBL_TARGETS_MAX];

/* A primary target's figures now, over a connection of the coordinator's. */
static void
target_figures_now(RunShared *run, int t, uint32 level, char *wal, char *ckpt, char *note)
{
	PGconn	   *conn = LibpqConnectTargetWithin(run, t, level, PGBL_END_CONNECT_TIMEOUT_S);
	bool		counted;

	PG_TRY();
	{
		begin_read(run, level, PGBL_END_READ_TIMEOUT_S);
		read_figures(conn, run->target[t].ckpt_counted ? 180000 : 0, wal, ckpt, &counted, note);
	}
	PG_FINALLY();
	{
		PQfinish(conn);
	}
	PG_END_TRY();
}

/*
 * At the end, for a primary whose figures were read at the start: read them
 * again over a connection of the coordinator's own, with the deadlines of
 * the standbys' read; why not, if not.
 */
static void
read_end_figures(RunShared *run, int t, uint32 level, MemoryContext cxt)
{
	TargetEnd  *end = &target_end[t];

	end->figures_read = true;
	if (level > 0 && pg_atomic_read_u32(&run->stop) >= level)
	{
		end->figures_error = MemoryContextStrdup(TopMemoryContext,
												 "not read there: the run was cancelled before");
		return;
	}
	pgstat_report_activity(STATE_RUNNING,
						   psprintf("pgbench_lab coordinator: reading the WAL and checkpoints of target %d",
									t + 1));
	PG_TRY();
	{
		char	   *wal = palloc0(PGBL_LSN_MAX);
		char	   *ckpt = palloc0(PGBL_LSN_MAX);
		char	   *note = palloc0(PGBL_NOTE_MAX);

		target_figures_now(run, t, level, wal, ckpt, note);
		if (wal[0] != '\0')
		{
			end->wal_lsn = MemoryContextStrdup(TopMemoryContext, wal);
			end->ckpt = MemoryContextStrdup(TopMemoryContext, ckpt);
		}
		else
			end->figures_error = MemoryContextStrdup(TopMemoryContext, note);
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		FlushErrorState();
		end->figures_error = MemoryContextStrdup(TopMemoryContext,
												 psprintf("not read there at the end: %s", edata->message));
		ereport(LOG,
				(errmsg("pgbench_lab run " INT64_FORMAT ": the WAL and checkpoints of target %d were not read at its end: %s",
						run->run_id, t + 1, edata->message)));
	}
	PG_END_TRY();
	MemoryContextReset(cxt);
}

const TargetEnd *
TargetsEnd(int target)
{
	return &target_end[target];
}

/*
 * At the run's end, before the results' transaction and outside any (the
 * coordinator calls it after its clients are gone): each standby's
 * counters read again, for the results to write (TargetsEnd).  A cancel() during the read
 * stops it (unless the run was cancelled already: then each read has only
 * its deadline); a standby not read in time is noted with why, in the log
 * too, and the next one is read.
 */
void
TargetsReadEnd(RunShared *run)
{
	MemoryContext cxt;
	MemoryContext old;
	uint32		level;

	if (run->via == RUN_VIA_SPI)
		return;
	Assert(!IsTransactionState());
	/*
	 * Whether the run's role must connect with a password is a catalog
	 * lookup: made here in a short transaction of its own, so that the
	 * connects below find it cached (no catalog is read outside one, and no
	 * invalidation is taken in until the next transaction).
	 */
	StartTransactionCommand();
	(void) superuser_arg(run->run_role);
	CommitTransactionCommand();
	level = pg_atomic_read_u32(&run->stop) == RUN_STOP_CANCEL ? 0 : RUN_STOP_CANCEL;
	cxt = AllocSetContextCreate(TopMemoryContext, "pgbench_lab targets' end", ALLOCSET_SMALL_SIZES);
	old = MemoryContextSwitchTo(cxt);
	for (int t = 0; t < run->ntargets; t++)
	{
		TargetEnd  *end = &target_end[t];

		if (run->target[t].wal_lsn_start[0] != '\0')
		{
			if (!RunMeasuredHere(run))
				read_end_figures(run, t, level, cxt);
			continue;
		}
		if (!run->target[t].in_recovery || run->target[t].conflicts_start[0] == '\0')
			continue;
		end->read = true;
		if (level > 0 && pg_atomic_read_u32(&run->stop) >= level)
		{
			end->error = MemoryContextStrdup(TopMemoryContext, "the run was cancelled before it was read");
			continue;
		}
		pgstat_report_activity(STATE_RUNNING,
							   psprintf("pgbench_lab coordinator: reading the recovery conflicts of target %d",
										t + 1));
		PG_TRY();
		{
			end->conflicts = MemoryContextStrdup(TopMemoryContext, LibpqTargetConflicts(run, t, level));
		}
		PG_CATCH();
		{
			ErrorData  *edata;

			MemoryContextSwitchTo(cxt);
			edata = CopyErrorData();
			FlushErrorState();
			if (level > 0 && pg_atomic_read_u32(&run->stop) >= level &&
				edata->sqlerrcode == ERRCODE_QUERY_CANCELED)
				end->error = MemoryContextStrdup(TopMemoryContext, "the run was cancelled while it was read");
			else
				end->error = MemoryContextStrdup(TopMemoryContext, edata->message);
			ereport(LOG,
					(errmsg("pgbench_lab run " INT64_FORMAT ": the recovery conflicts of target %d were not read at its end: %s",
							run->run_id, t + 1, edata->message)));
		}
		PG_END_TRY();
		MemoryContextReset(cxt);
	}
	MemoryContextSwitchTo(old);
	MemoryContextDelete(cxt);
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
		/* the caller's cancel stops every wait here (an interrupt) */
		conn = LibpqConnectTargetWithin(p, i, 0, 0);
		PG_TRY();
		{
			begin_read(NULL, 0, PGBL_LAUNCH_READ_TIMEOUT_S);
			TargetsProbePooler(conn, p, i);
			TargetsCheckSettings(conn, p, i);
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
			else if (ScriptSetupTablesPending(p))
			{
				char		schema[NAMEDATALEN];

				(void) tables_schema(conn, schema);
				ScriptSetupCheckSchema(p, i, schema, first.schema);
			}
			/* the built-in scripts' tables, where the first target has them */
			if (i == 0 && p->script_area_size > 0 && ScriptSetupTablesPending(p))
				ScriptSetupCheckSchema(p, 0, p->wl.schema, p->wl.schema);
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
	/* the search_path pinned only where the lab owns the session: no pooler */
	for (int i = 0; i < p->ntargets; i++)
		p->pin_path &= p->target[i].pooler == RUN_POOLER_NONE;
	return true;
}
