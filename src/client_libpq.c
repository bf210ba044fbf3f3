/*-------------------------------------------------------------------------
 *
 * client_libpq.c
 *		The client path: a run's workload sent over libpq, as pgbench sends
 *		it, by client workers that still live in the server.
 *
 * A run with via => 'libpq' gives each client one connection, made before
 * the clock starts, on which pgbench's own statements are executed one
 * round trip each, in the run's query_mode as pgbench -M sends them
 * (prepared: under names, before the clock starts); via =>
 * 'libpq-connect' opens a new connection for every transaction and
 * prepares the statements on it again in that mode (pgbench -C).  The time
 * spent connecting is counted apart, so a run reports its TPS with and
 * without connection set-up.
 *
 * Every network wait goes through the asynchronous API (PQconnectPoll,
 * PQsendQueryPrepared, PQconsumeInput, PQisBusy) and WaitLatchOrSocket, with
 * CHECK_FOR_INTERRUPTS and a look at the run's stop flag every 100 ms at the
 * latest, so a cancelled run never stays behind a silent server.  A stop at
 * the end of the run lets the transaction under way finish; a cancel
 * abandons it (and, on this server, cancels the query).  libpq applies
 * connect_timeout only to blocking connects, so the polling loop enforces it
 * itself, with a default of its own when the target gives none.
 *
 * Security follows dblink and postgres_fdw: a role that is not a superuser
 * must put a password in target, and the server must have asked for it
 * (PQconnectionUsedPassword), so nobody borrows the server's own identity
 * (its Unix socket, .pgpass or certificates).  The conninfo is parsed with
 * PQconninfoParse before anything starts.  The password stays in the run's
 * shared memory; what is recorded (runs.target_display) has it removed.
 *
 * pgbench_lab.init() and init_tpcc() with a target (dataset_remote.c,
 * tpcc_remote.c) check and connect through the same functions, so the same
 * rules hold there; their long waits are client_remote.c's.  What the
 * launching session reads on each target before a run starts (its tables,
 * facts and standby check) is in client_targets.c.
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
#include "portability/instr_time.h"
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
#include "script_area.h"
#include "secure.h"

#define PGBL_LIBPQ_POLL_MS	100L	/* longest wait between stop checks */
#define PGBL_CONNECT_TIMEOUT_S	10	/* when the target gives no connect_timeout */
#define NS_PER_SEC	INT64CONST(1000000000)

/*
 * The texts of the run's built-in statements (workload.c's definition,
 * BEGIN and END included, each ended with ';', as pgbench sends them), the schema put in (always quoted, by libpq, so no keyword
 * of the target's version can break them); palloc'd in the caller's
 * context, NULL-terminated.
 */
char	  **
LibpqBuiltinTexts(PGconn *conn, const RunShared *run)
{
	const WorkloadDef *def = WorkloadDefOf(run->wl.kind);
	char	   *nsp = PQescapeIdentifier(conn, run->wl.schema, strlen(run->wl.schema));
	char	   *quoted;
	char	  **texts = palloc0(sizeof(char *) * (PGBL_STMT_MAX + 1));

	if (nsp == NULL)
		LibpqConnError(conn, NULL, ERRCODE_CONNECTION_FAILURE, "could not quote a schema name");
	quoted = pstrdup(nsp);
	PQfreemem(nsp);
	for (int i = 0; i < def->nstmts; i++)
	{
		StringInfoData sql;

		initStringInfo(&sql);
		WorkloadAppendStmt(&sql, def->stmts[i], quoted, false, run->pin_path);
		appendStringInfoChar(&sql, ';');
		texts[i] = sql.data;
	}
	return texts;
}

StaticAssertDecl(WORKLOAD_MAX_ARGS <= 4, "LibpqBuiltinParams() takes 4 parameters");

/* Statement i's parameters for the draws d, as text in bufs. */
int
LibpqBuiltinParams(const RunShared *run, int i, const WorkloadDraw *d,
				   char bufs[4][24], const char *params[4])
{
	const WorkloadStmt *st = WorkloadDefOf(run->wl.kind)->stmts[i];

	/* pg_lltoa: at most 20 digits and a sign, without snprintf's parsing */
	for (int a = 0; a < st->nargs; a++)
	{
		(void) pg_lltoa(d->v[st->args[a]], bufs[a]);
		params[a] = bufs[a];
	}
	return st->nargs;
}

/* ---------------------------------------------------------------------
 * Arguments: via and target, checked before anything starts
 * ---------------------------------------------------------------------
 */

/* key='value' with the quoting libpq's conninfo parser expects. */
static void
append_option(StringInfo buf, const char *key, const char *value)
{
	if (buf->len > 0)
		appendStringInfoChar(buf, ' ');
	appendStringInfo(buf, "%s='", key);
	for (const char *c = value; *c; c++)
	{
		if (*c == '\'' || *c == '\\')
			appendStringInfoChar(buf, '\\');
		appendStringInfoChar(buf, *c);
	}
	appendStringInfoChar(buf, '\'');
}

/*
 * An integer connection option read as libpq reads it: decimal, leading
 * and trailing whitespace allowed, nothing else.  False when it is not one.
 */
static bool
parse_conn_int(const char *value, int *result)
{
	char	   *end;
	long		v;

	errno = 0;
	v = strtol(value, &end, 10);
	if (end == value || errno != 0 || v != (long) (int) v)
		return false;
	while (*end != '\0' && isspace((unsigned char) *end))
		end++;
	if (*end != '\0')
		return false;
	*result = (int) v;
	return true;
}

static bool
is_secret(const char *key)
{
	return strcmp(key, "password") == 0 || strcmp(key, "sslpassword") == 0;
}

void
LibpqRefusePassword(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_S_R_E_PROHIBITED_SQL_STATEMENT_ATTEMPTED),
			 errmsg("password is required"),
			 errdetail("Non-superusers must connect with a password, and the target server must ask for it."),
			 errhint("Give target a conninfo with a password, for a role the server authenticates by password "
					 "(md5 or scram-sha-256 in pg_hba.conf).")));
}

/* The conninfo of this server's first Unix socket, as the calling role. */
static void
local_conninfo(RunShared *p)
{
	char	   *dirs = pstrdup(GetConfigOption("unix_socket_directories", false, false));
	List	   *list = NIL;
	StringInfoData buf;

	if (!SplitDirectoriesString(dirs, ',', &list) || list == NIL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("this server listens on no Unix socket"),
				 errhint("Give target a conninfo such as 'host=127.0.0.1 port=5432 dbname=postgres'.")));
	if (!superuser())
		LibpqRefusePassword();
	initStringInfo(&buf);
	append_option(&buf, "host", (char *) linitial(list));
	append_option(&buf, "port", psprintf("%d", PostPortNumber));
	append_option(&buf, "dbname", get_database_name(MyDatabaseId));
	append_option(&buf, "user", GetUserNameFromId(GetUserId(), false));
	strlcpy(p->target[0].conninfo, buf.data, PGBL_CONNINFO_MAX);
	strlcpy(p->target[0].display, buf.data, PGBL_CONNINFO_MAX);
	p->target_local = true;
	p->ntargets = 1;
}

/*
 * Parse target (or one element of targets, named by "what" in errors);
 * keep it in *t, and its display form without passwords.
 */
void
LibpqTargetConninfo(RunTarget *t, const char *target, const char *what)
{
	char	   *err = NULL;
	PQconninfoOption *opts = PQconninfoParse(target, &err);
	StringInfoData shown;
	bool		has_password = false;

	if (opts == NULL)
	{
		char	   *msg = pstrdup(err ? err : "out of memory");

		PQfreemem(err);
		(void) pg_strip_crlf(msg);
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid %s: %s", what, msg),
				 errhint("target is a libpq conninfo, such as 'host=db1 port=5432 dbname=bench user=alice password=...'.")));
	}
	initStringInfo(&shown);
	for (PQconninfoOption *o = opts; o->keyword; o++)
	{
		int			secs;

		if (o->val == NULL || o->val[0] == '\0')
			continue;
		if (strcmp(o->keyword, "password") == 0)
			has_password = true;
		if (strcmp(o->keyword, "connect_timeout") == 0 && !parse_conn_int(o->val, &secs))
		{
			char	   *val = pstrdup(o->val);

			PQconninfoFree(opts);
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("invalid %s: invalid integer value \"%s\" for connection option \"connect_timeout\"",
							what, val),
					 errhint("connect_timeout is a whole number of seconds; 0 waits until cancelled.")));
		}
		if (!is_secret(o->keyword))
			append_option(&shown, o->keyword, o->val);
	}
	PQconninfoFree(opts);
	if (!superuser() && !has_password)
		LibpqRefusePassword();
	if (strlen(target) >= PGBL_CONNINFO_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_STRING_DATA_RIGHT_TRUNCATION),
				 errmsg("%s is longer than %d bytes", what, PGBL_CONNINFO_MAX - 1)));
	strlcpy(t->conninfo, target, PGBL_CONNINFO_MAX);
	strlcpy(t->display, shown.data, PGBL_CONNINFO_MAX);
}

/*
 * targets: 1 to PGBL_TARGETS_MAX conninfos, none NULL, no two the same
 * (as written), each checked as target is; clients are spread over them
 * round-robin, so there must be a client for each.
 */
static void
read_targets(ArrayType *arr, RunShared *p)
{
	Datum	   *elems;
	bool	   *nulls;
	int			n;

	if (ARR_NDIM(arr) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("targets must be a one-dimensional array")));
	deconstruct_array(arr, TEXTOID, -1, false, TYPALIGN_INT, &elems, &nulls, &n);
	if (n == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("targets must not be empty"),
				 errhint("Give one conninfo per server, such as ARRAY['host=db1 dbname=bench', "
						 "'host=db2 dbname=bench'], or leave targets NULL.")));
	if (n > PGBL_TARGETS_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%d targets is above the limit of %d", n, PGBL_TARGETS_MAX)));
	if (p->clients < n)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%d clients cannot cover %d targets", p->clients, n),
				 errhint("Client i goes to targets[(i - 1) %% n + 1] (or as target_clients says): give "
						 "at least one client per target.")));
	for (int i = 0; i < n; i++)
	{
		char	   *what = psprintf("targets[%d]", i + 1);
		char	   *conninfo;

		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("%s must not be NULL", what),
					 errhint("Each element of targets is a libpq conninfo.")));
		conninfo = TextDatumGetCString(elems[i]);
		for (int j = 0; j < i; j++)
			if (strcmp(p->target[j].conninfo, conninfo) == 0)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("targets[%d] is the same as targets[%d]", i + 1, j + 1),
						 errhint("List each server once; give it more clients instead.")));
		LibpqTargetConninfo(&p->target[i], conninfo, what);
	}
	p->ntargets = n;
	p->targets_given = true;
}

/*
 * target_clients: how many of the clients each target takes, in targets'
 * order (clients 1 to c1 go to targets[1], the next c2 to targets[2], ...);
 * one whole number of at least 1 per target, adding up to clients.
 */
static void
read_target_clients(ArrayType *arr, RunShared *p)
{
	Datum	   *elems;
	bool	   *nulls;
	int			n;
	int64		sum = 0;

	deconstruct_array(arr, INT4OID, sizeof(int32), true, TYPALIGN_INT, &elems, &nulls, &n);
	if (ARR_NDIM(arr) > 1 || n != p->ntargets)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("target_clients must have one element per target (%d), not %d", p->ntargets, n),
				 errhint("target_clients[i] is how many clients targets[i] takes.")));
	for (int i = 0; i < n; i++)
	{
		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("target_clients[%d] must not be NULL", i + 1)));
		if (DatumGetInt32(elems[i]) < 1)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("target_clients[%d] must be at least 1, not %d", i + 1, DatumGetInt32(elems[i])),
					 errhint("Every target takes at least one client; leave a server out of targets instead.")));
		sum += DatumGetInt32(elems[i]);
		p->target_clients[i] = DatumGetInt32(elems[i]);
	}
	if (sum != p->clients)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("target_clients add up to " INT64_FORMAT ", clients is %d", sum, p->clients),
				 errhint("Give clients => " INT64_FORMAT ", the sum.", sum)));
}

/*
 * Read via, target, targets and target_clients of a run's options into
 * *p.  Also refuses what dblink would refuse, before anything starts.
 */
void
LibpqReadArgs(const RunSpec *spec, RunShared *p)
{
	bool		target_given = !RunSpecIsNull(spec, RUN_OPT_TARGET);
	bool		targets_given = !RunSpecIsNull(spec, RUN_OPT_TARGETS);
	bool		tc_given = !RunSpecIsNull(spec, RUN_OPT_TARGET_CLIENTS);
	char	   *via;

	/* NULL: in the server, or over libpq when there is a server to reach */
	if (RunSpecIsNull(spec, RUN_OPT_VIA))
		via = target_given || targets_given ? "libpq" : "spi";
	else
		via = TextDatumGetCString(RunSpecDatum(spec, RUN_OPT_VIA));
	if (strcmp(via, "spi") == 0)
		p->via = RUN_VIA_SPI;
	else if (strcmp(via, "libpq") == 0)
		p->via = RUN_VIA_LIBPQ;
	else if (strcmp(via, "libpq-connect") == 0)
		p->via = RUN_VIA_LIBPQ_CONNECT;
	else
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown via \"%s\"", via),
				 errhint("Valid values are spi, libpq and libpq-connect, or NULL: spi, or libpq "
						 "with a target.")));
	if (p->via == RUN_VIA_SPI)
	{
		if (target_given || targets_given)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("via spi cannot run against %s", target_given ? "a target" : "targets"),
					 errdetail("In-server clients (via spi) run in this database; another server "
							   "is reached over libpq."),
					 errhint("Leave via out to run over libpq, or give via => 'libpq' or "
							 "'libpq-connect'; or leave %s out to run in the server.",
							 target_given ? "target" : "targets")));
		if (tc_given)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("target_clients needs targets"),
					 errhint("target_clients says how many clients each element of targets takes.")));
		return;
	}
	if (tc_given && !targets_given)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("target_clients needs targets"),
				 errhint("target_clients says how many clients each element of targets takes.")));
	if (targets_given)
	{
		if (target_given)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("give target or targets, not both"),
					 errhint("targets => ARRAY[...] lists every server of the run; "
							 "target => names one.")));
		read_targets(DatumGetArrayTypeP(RunSpecDatum(spec, RUN_OPT_TARGETS)), p);
		if (tc_given)
			read_target_clients(DatumGetArrayTypeP(RunSpecDatum(spec, RUN_OPT_TARGET_CLIENTS)), p);
	}
	else if (!target_given)
		local_conninfo(p);
	else
	{
		LibpqTargetConninfo(&p->target[0], TextDatumGetCString(RunSpecDatum(spec, RUN_OPT_TARGET)), "target");
		p->ntargets = 1;
	}
}

/* ---------------------------------------------------------------------
 * Interruptible waits on the network
 * ---------------------------------------------------------------------
 */

/*
 * An ERROR carrying libpq's message and SQLSTATE: the server's, or "code"
 * when the failure is the connection's (libpq's further lines as detail).
 */
void
LibpqConnError(PGconn *conn, const PGresult *res, int code, const char *what)
{
	const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
	const char *msg = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : NULL;
	char	   *text = pstrdup(msg ? msg : PQerrorMessage(conn));
	char	   *rest = strchr(text, '\n');

	if (state != NULL && strlen(state) == 5)
		code = MAKE_SQLSTATE(state[0], state[1], state[2], state[3], state[4]);
	if (rest != NULL)
	{
		*rest++ = '\0';
		while (*rest == '\t' || *rest == ' ')
			rest++;
		(void) pg_strip_crlf(rest);
	}
	ereport(ERROR,
			(errcode(code),
			 errmsg("%s: %s", what, text),
			 rest && *rest ? errdetail("%s", rest) : 0));
}

/*
 * Wait until the socket is ready for "events", a latch is set or 100 ms
 * passed (less when "deadline_ns" comes sooner; 0: none).  Raises an ERROR
 * if the run's stop flag reached "stop_level" (RUN_STOP_END or
 * RUN_STOP_CANCEL); a client that went away ends the call
 * (LibpqCheckClient).  Returns the events that happened.
 */
static int
wait_socket(PGconn *conn, int events, RunShared *run, uint32 stop_level, int64 deadline_ns)
{
	int			rc;
	long		ms = PGBL_LIBPQ_POLL_MS;

	if (deadline_ns > 0)
		ms = Max(Min(ms, (long) ((deadline_ns - WorkerNowNs()) / 1000000)), 0L);
	rc = WaitLatchOrSocket(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH | events,
						   PQsocket(conn), ms, PG_WAIT_EXTENSION);
	ResetLatch(MyLatch);
	CHECK_FOR_INTERRUPTS();
	LibpqCheckClient();
	if (run != NULL && pg_atomic_read_u32(&run->stop) >= stop_level)
		ereport(ERROR,
				(errcode(ERRCODE_QUERY_CANCELED),
				 errmsg("the run was stopped while waiting for the target server")));
	return rc;
}

/*
 * TCP keepalives of the lab's own connections to a target (its reads,
 * init's): a host or network gone is noticed within about 25 s, even while
 * a statement runs there.  keepalives_* given in target win.
 */
static const char *const keepalive[][2] = {
	{"keepalives_idle", "10"}, {"keepalives_interval", "5"}, {"keepalives_count", "3"}
};

/*
 * The options of a client's connection to the server itself (no pooler
 * between): the target's own, then the run's settings (-c name=value)
 * and, when pin, the search_path that the built-ins' pgbench text leans
 * on, last so that it wins.
 */
static char *
settings_options(const RunShared *run, const char *given, bool pin)
{
	StringInfoData buf;
	const char *p = run->settings;

	initStringInfo(&buf);
	if (given != NULL)
		appendStringInfoString(&buf, given);
	for (int i = 0; i < run->nsettings + (pin ? 1 : 0); i++)
	{
		const char *name = i < run->nsettings ? p : "search_path";
		const char *value = i < run->nsettings ? p + strlen(p) + 1 : PGBL_SAFE_SEARCH_PATH;

		appendStringInfo(&buf, "%s-c %s=", buf.len > 0 ? " " : "", name);
		for (const char *c = value; *c; c++)
		{
			if (*c == ' ' || *c == '\\')
				appendStringInfoChar(&buf, '\\');
			appendStringInfoChar(&buf, *c);
		}
		if (i < run->nsettings)
			p = value + strlen(value) + 1;
	}
	return buf.data;
}

/*
 * Start connecting to a target: its conninfo as given, and with
 * "settings" (a client's connection to the server itself) the run's
 * settings in its options.  Every other connection sends no options of
 * the lab's: a connection pooler refuses them (PgBouncer: "unsupported
 * startup parameter: options"), so through a pooler the settings go as a
 * statement once the connection is made (LibpqSettingsSql), and the
 * launch's reads send their statement_timeout with each query
 * (client_targets.c).
 */
static PGconn *
connect_start(const RunShared *run, int target, bool keepalives, bool settings)
{
	PQconninfoOption *opts = PQconninfoParse(run->target[target].conninfo, NULL);
	const char *keys[64 + lengthof(keepalive)];
	const char *vals[64 + lengthof(keepalive)];
	int			n = 0;
	PGconn	   *conn;

	if (opts == NULL)
		elog(ERROR, "could not parse the run's conninfo");
	for (PQconninfoOption *o = opts; o->keyword && n < 64 - 3; o++)
	{
		if (o->val == NULL || (settings && strcmp(o->keyword, "options") == 0))
			continue;
		keys[n] = o->keyword;
		vals[n++] = o->val;
	}
	for (int k = 0; keepalives && k < lengthof(keepalive); k++)
	{
		bool		given = false;

		for (int i = 0; i < n; i++)
			given |= strcmp(keys[i], keepalive[k][0]) == 0;
		if (!given)
		{
			keys[n] = keepalive[k][0];
			vals[n++] = keepalive[k][1];
		}
	}
	for (PQconninfoOption *o = opts; settings && o->keyword; o++)
		if (strcmp(o->keyword, "options") == 0)
		{
			keys[n] = "options";
			vals[n++] = settings_options(run, o->val, run->pin_path);
		}
	keys[n] = "fallback_application_name";
	vals[n++] = "pgbench_lab";
	keys[n] = NULL;
	vals[n] = NULL;
	conn = PQconnectStartParams(keys, vals, 0);
	PQconninfoFree(opts);
	if (conn == NULL)
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
	return conn;
}

/*
 * Start connecting a client to a target of the run: to the server itself
 * with the settings in its options, through a pooler without.
 */
PGconn *
LibpqConnectStart(const RunShared *run, int target)
{
	return connect_start(run, target, false, run->target[target].pooler == RUN_POOLER_NONE);
}

/*
 * The statement that gives a client's connection through a pooler in
 * session mode the run's settings, once it is made (the pooler keeps
 * them with the connection), each value as the connection quotes it; with
 * local, for its own transaction only (the launch's check of them).  NULL
 * when there is nothing to set.  palloc'd in the current context.
 */
char *
LibpqSettingsSql(PGconn *conn, const RunShared *run, bool local)
{
	StringInfoData buf;
	const char *p = run->settings;

	if (run->nsettings == 0)
		return NULL;
	initStringInfo(&buf);
	appendStringInfoString(&buf, "SELECT ");
	for (int i = 0; i < run->nsettings; i++)
	{
		const char *value = p + strlen(p) + 1;

		LibpqAppendSetConfig(&buf, conn, p, value, local);
		p = value + strlen(value) + 1;
	}
	return buf.data;
}

/*
 * pg_catalog.set_config('name', 'value', local) appended to a SELECT list,
 * quoted by conn, with a comma before it unless it comes first.
 */
void
LibpqAppendSetConfig(StringInfo buf, PGconn *conn, const char *name, const char *value, bool local)
{
	char	   *n = PQescapeLiteral(conn, name, strlen(name));
	char	   *v = PQescapeLiteral(conn, value, strlen(value));

	if (n == NULL || v == NULL)
		LibpqConnError(conn, NULL, ERRCODE_CONNECTION_FAILURE, "could not quote a setting");
	appendStringInfo(buf, "%spg_catalog.set_config(%s, %s, %s)",
					 buf->data[buf->len - 1] == ' ' ? "" : ", ", n, v, local ? "true" : "false");
	PQfreemem(n);
	PQfreemem(v);
}

/*
 * The seconds one connection attempt may take, 0 for no limit: the
 * connection's connect_timeout (from the target, or PGCONNECT_TIMEOUT in
 * the server's environment), with libpq's rules for its blocking connects:
 * zero or negative means no limit, and libpq before 17 counts 1 as 2.
 * Without one, PGBL_CONNECT_TIMEOUT_S, where libpq would wait for ever.
 */
int
LibpqConnectTimeout(PGconn *conn)
{
	PQconninfoOption *opts = PQconninfo(conn);
	char	   *given = NULL;
	int			secs = PGBL_CONNECT_TIMEOUT_S;

	if (opts == NULL)
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
	for (PQconninfoOption *o = opts; o->keyword; o++)
		if (strcmp(o->keyword, "connect_timeout") == 0 && o->val != NULL && o->val[0] != '\0')
			given = pstrdup(o->val);
	PQconninfoFree(opts);
	if (given == NULL)
		return secs;
	if (!parse_conn_int(given, &secs))
		ereport(ERROR,
				(errcode(ERRCODE_SQLCLIENT_UNABLE_TO_ESTABLISH_SQLCONNECTION),
				 errmsg("could not connect to the target server: invalid integer value \"%s\" for connection option \"connect_timeout\"",
						given)));
	if (secs <= 0)
		return 0;
	return (secs < 2 && PQlibVersion() < 170000) ? 2 : secs;
}

/*
 * Has libpq moved on to another host of the target's list since *host and
 * *port were noted?  (Then the timeout starts again, as libpq's does.)
 */
bool
LibpqHostChanged(PGconn *conn, char **host, char **port)
{
	const char *h = PQhost(conn) ? PQhost(conn) : "";
	const char *p = PQport(conn) ? PQport(conn) : "";

	if (*host != NULL && strcmp(*host, h) == 0 && strcmp(*port, p) == 0)
		return false;
	*host = pstrdup(h);
	*port = pstrdup(p);
	return true;
}

void
LibpqConnectTimedOut(const char *host, const char *port, int secs)
{
	ereport(ERROR,
			(errcode(ERRCODE_SQLCLIENT_UNABLE_TO_ESTABLISH_SQLCONNECTION),
			 errmsg("could not connect to the target server: timeout expired after %d s", secs),
			 errdetail("The server at \"%s\", port %s, did not complete the connection in time.",
					   host, port),
			 errhint("connect_timeout in target bounds each connection attempt (%d s when not given); "
					 "connect_timeout=0 waits until cancelled.", PGBL_CONNECT_TIMEOUT_S)));
}

/*
 * Connect to the run's target; each wait is interruptible, the run's stop
 * flag reaching stop_level abandons the attempt (0: it is not watched), and
 * connect_timeout bounds it (for each host of the target in turn; when it
 * expires the attempt fails, where libpq's blocking connect would go on to
 * the next host), or max_secs when that is shorter (0: no cap).  Refuses a
 * connection that did not use a password when the run's role is not a
 * superuser.  The connection has TCP keepalives (keepalive[]).
 */
PGconn *
LibpqConnectTargetWithin(RunShared *run, int target, uint32 stop_level, int max_secs)
{
	PGconn	   *conn = connect_start(run, target, true, false);

	PG_TRY();
	{
		PostgresPollingStatusType st = PGRES_POLLING_WRITING;
		int			timeout;
		int64		deadline = 0;
		char	   *host = NULL;
		char	   *port = NULL;

		if (PQstatus(conn) == CONNECTION_BAD)
			LibpqConnError(conn, NULL, ERRCODE_SQLCLIENT_UNABLE_TO_ESTABLISH_SQLCONNECTION,
						   "could not connect to the target server");
		timeout = LibpqConnectTimeout(conn);
		if (max_secs > 0 && (timeout == 0 || timeout > max_secs))
			timeout = max_secs;
		while (st != PGRES_POLLING_OK)
		{
			int			want = st == PGRES_POLLING_READING ? WL_SOCKET_READABLE : WL_SOCKET_WRITEABLE;

			if (st == PGRES_POLLING_FAILED)
				LibpqConnError(conn, NULL, ERRCODE_SQLCLIENT_UNABLE_TO_ESTABLISH_SQLCONNECTION,
						   "could not connect to the target server");
			if (timeout > 0 && LibpqHostChanged(conn, &host, &port))
				deadline = WorkerNowNs() + timeout * NS_PER_SEC;
			else if (timeout > 0 && WorkerNowNs() >= deadline)
				LibpqConnectTimedOut(host, port, timeout);
			if (wait_socket(conn, want, stop_level > 0 ? run : NULL, stop_level, deadline) & want)
				st = PQconnectPoll(conn);
		}
		if (!superuser_arg(run->run_role) && !PQconnectionUsedPassword(conn))
			LibpqRefusePassword();
	}
	PG_CATCH();
	{
		PQfinish(conn);
		PG_RE_THROW();
	}
	PG_END_TRY();
	return conn;
}

/*
 * Wait until the result of the command sent last has arrived, for a read
 * of a target's facts: the run's stop flag reaching stop_level stops the
 * wait (without a run, or with stop_level 0, only an interrupt does), and
 * when deadline_ns (WorkerNowNs()) passes the target has not answered
 * within secs: an ERROR (08006) says so.
 */
void
LibpqAwaitResultBy(PGconn *conn, RunShared *run, uint32 stop_level, int64 deadline_ns, int secs,
				   const char *what)
{
	while (PQisBusy(conn))
	{
		if (deadline_ns > 0 && WorkerNowNs() >= deadline_ns)
			ereport(ERROR,
					(errcode(ERRCODE_CONNECTION_FAILURE),
					 errmsg("%s: no answer within %d s", what, secs),
					 errdetail("The server took the query and sent nothing back in time "
							   "(a stalled, frozen or unreachable server?)."),
					 errhint("A read of a target's facts waits at most %d s for them; "
							 "statement_timeout is set to that much there too.", secs)));
		if ((wait_socket(conn, WL_SOCKET_READABLE, stop_level > 0 ? run : NULL, stop_level,
						 deadline_ns) & WL_SOCKET_READABLE) &&
			!PQconsumeInput(conn))
			LibpqConnError(conn, NULL, ERRCODE_CONNECTION_FAILURE, what);
	}
}

/*
 * One wait for the results of the command sent last (init and init_tpcc
 * with a target, client_remote.c): until some came, 100 ms or deadline_ns
 * passed (0: none), what came read; an interrupt stops it.
 */
void
LibpqAwaitSome(PGconn *conn, int64 deadline_ns, const char *what)
{
	if ((wait_socket(conn, WL_SOCKET_READABLE, NULL, 0, deadline_ns) & WL_SOCKET_READABLE) &&
		!PQconsumeInput(conn))
		LibpqConnError(conn, NULL, ERRCODE_CONNECTION_FAILURE, what);
}

/* ---------------------------------------------------------------------
 * Results: runs.via, target_display and the connection figures
 * ---------------------------------------------------------------------
 */

/* runs.target_display: the target's, or every target's, "; " between them. */
char *
LibpqTargetsDisplay(const RunShared *run)
{
	StringInfoData buf;

	initStringInfo(&buf);
	for (int i = 0; i < run->ntargets; i++)
		appendStringInfo(&buf, "%s%s", i > 0 ? "; " : "", run->target[i].display);
	return buf.data;
}

/*
 * Called by the coordinator inside the results' transactions (SPI
 * connected): at the start, how the clients connect; at the end, the
 * connection counts and times and the TPS without them.
 */
void
LibpqRecord(RunShared *run, bool final)
{
	Oid			types[6] = {INT8OID, TEXTOID, TEXTOID, INT8OID, FLOAT8OID, FLOAT8OID};
	Datum		v[6];
	char		nulls[7] = "      ";
	uint64		connects = 0;
	uint64		all_ns = 0;
	uint64		run_ns = 0;
	static const char *const names[] = {"spi", "libpq", "libpq-connect"};

	if (run->via == RUN_VIA_SPI)
		return;
	v[0] = Int64GetDatum(run->run_id);
	v[1] = CStringGetTextDatum(names[run->via]);
	v[2] = CStringGetTextDatum(LibpqTargetsDisplay(run));
	if (!final)
	{
		if (SPI_execute_with_args("UPDATE pgbench_lab.runs SET via = $2, target_display = $3 "
								  "WHERE run_id OPERATOR(pg_catalog.=) $1",
								  3, types, v, NULL, false, 0) != SPI_OK_UPDATE)
			elog(ERROR, "could not record how run " INT64_FORMAT " connects", run->run_id);
		return;
	}
	for (int i = 0; i < run->clients; i++)
	{
		RunClient  *c = &run->client[i];

		connects += pg_atomic_read_u64(&c->connects) + (c->initial_connect_ns > 0);
		run_ns += pg_atomic_read_u64(&c->connect_ns);
		all_ns += pg_atomic_read_u64(&c->connect_ns) + c->initial_connect_ns;
	}
	v[3] = Int64GetDatum((int64) connects);
	v[4] = Float8GetDatum((double) run_ns / run->clients / 1e9);
	v[5] = Float8GetDatum(connects > 0 ? (double) all_ns / connects / 1e6 : 0);
	nulls[5] = connects > 0 ? ' ' : 'n';
	if (SPI_execute_with_args("UPDATE pgbench_lab.runs SET connections = $4, connection_avg_ms = $6, "
							  "tps_without_connections = CASE WHEN measured_seconds OPERATOR(pg_catalog.-) $5 "
							  "OPERATOR(pg_catalog.<>) 0::pg_catalog.float8 THEN transactions "
							  "OPERATOR(pg_catalog./) (measured_seconds OPERATOR(pg_catalog.-) $5) END "
							  "WHERE run_id OPERATOR(pg_catalog.=) $1",
							  6, types, v, nulls, false, 0) != SPI_OK_UPDATE)
		elog(ERROR, "could not record the connections of run " INT64_FORMAT, run->run_id);
}
