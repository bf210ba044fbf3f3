/*-------------------------------------------------------------------------
 *
 * script_setup.c
 *		A script run's set-up in the launching session (script =>,
 *		scripts => and variables =>, checked and laid out for the run's
 *		shared memory); script_record.c records it.
 *
 * scripts => takes entries "name@weight" (weight 1 when not given, as
 * pgbench's -b and -f): the built-in names run pgbench's own scripts
 * through the interpreter, every name in them qualified (the tables with
 * the schema found here, in the server, or on the targets of a libpq run
 * by ScriptSetupTargetScale()); any other name is a script saved in
 * pgbench_lab.scripts by the role the clients run as (the current user);
 * another role's script is named "owner/name", and running it says so in
 * a NOTICE.  A script's text is read once, here, and the run keeps it in
 * its shared memory: what it saved later changes no run under way, and
 * run_scripts records the text run.  script => is one script's text,
 * named "script".  workload => 'tpcc' is the calling role's saved
 * scripts of TPC-C's kit (init_tpcc() saves them) in the kit's mix, as
 * scripts => would name them, recorded as the workload tpcc.
 * Every script is parsed here, so that a bad one is refused, with its
 * line and column, before anything starts.  The variables (pgbench's -D)
 * are a JSON object of names and scalar values; scale, unless given, is
 * pgbench_branches' row count (in the built-in scripts' schema when the
 * run has one) when the caller can read that table through its
 * search_path, else 1; client_id, random_seed and default_seed are set as
 * pgbench sets them.  The clients resolve the names of the user's scripts
 * through the launching session's search_path, as pgbench's would through
 * its user's.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "common/md5.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"

#include "pgbench_lab.h"
#include "run_shared.h"
#include "run_spec.h"
#include "script_area.h"

#define HINT_SCRIPTS "scripts takes entries \"name@weight\": tpcb-like, simple-update, select-only, " \
	"or the name of a script saved in pgbench_lab.scripts; the weight is a whole number, 1 when not given."
#define HINT_OWNER "A name in scripts is a script the calling role saved; another role's is named " \
	"with its owner, as 'bob/hot_accounts'."

typedef struct SetupScript
{
	char	   *name;
	char	   *body;
	char	   *owner;			/* the role that saved it; NULL: none */
	bool		owner_named;	/* given as "owner/name" */
	bool		builtin;		/* pgbench's built-in script of that name */
	WorkloadKind kind;			/* which, if so */
	int			weight;
	int			ncommands;
} SetupScript;

/*
 * A built-in script's text (workload.c's definition, as pgbench's script
 * as it shows it with --show-script: the same \set lines, so the same draws
 * in the same order, the same statements with the same :variables, and the
 * same transaction boundaries), but with every name qualified: the
 * operators in pg_catalog, and the tables in schema (quoted), found once
 * before anything starts.  pgbench's own text would resolve its bare = and
 * + through the search_path of the clients' sessions, where a database
 * owner could plant look-alikes that run as the role of the run.
 */
static char *
builtin_text(WorkloadKind kind, const char *schema)
{
	return WorkloadScriptText(kind, quote_identifier(schema));
}

static void
refuse(int code, const char *msg, const char *hint)
{
	ereport(ERROR, (errcode(code), errmsg("%s", msg), hint ? errhint("%s", hint) : 0));
}

/* The roles other than the caller that saved a name: the first, and up to 5. */
typedef struct OtherOwners
{
	char	   *first;			/* NULL: none */
	char	   *list;			/* "bob", "carol" */
	int64		count;
} OtherOwners;

/* The text that role "owner" saved as "name", or NULL; then who else did. */
static char *
saved_text(const char *owner, const char *name, OtherOwners *others)
{
	Oid			types[2] = {NAMEOID, TEXTOID};
	Datum		args[2];
	MemoryContext cxt = CurrentMemoryContext;
	char	   *body = NULL;

	args[0] = DirectFunctionCall1(namein, CStringGetDatum(owner));
	args[1] = CStringGetTextDatum(name);
	memset(others, 0, sizeof(OtherOwners));
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (SPI_execute_with_args("SELECT s.body FROM pgbench_lab.scripts s "
							  "WHERE s.created_by OPERATOR(pg_catalog.=) $1 AND s.name OPERATOR(pg_catalog.=) $2",
							  2, types, args, NULL, true, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not read pgbench_lab.scripts");
	if (SPI_processed == 1)
		body = MemoryContextStrdup(cxt, SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1));
	else if (SPI_execute_with_args("SELECT pg_catalog.min(o.created_by::pg_catalog.text) "
								   "FILTER (WHERE o.n OPERATOR(pg_catalog.=) 1), "
								   "pg_catalog.string_agg(pg_catalog.format('\"%s\"', o.created_by), ', ' "
								   "ORDER BY o.created_by) FILTER (WHERE o.n OPERATOR(pg_catalog.<=) 5), "
								   "pg_catalog.count(*) "
								   "FROM (SELECT s.created_by, pg_catalog.row_number() OVER (ORDER BY s.created_by) AS n "
								   "FROM pgbench_lab.scripts s WHERE s.created_by OPERATOR(pg_catalog.<>) $1 "
								   "AND s.name OPERATOR(pg_catalog.=) $2) o",
								   2, types, args, NULL, true, 1) == SPI_OK_SELECT && SPI_processed == 1)
	{
		HeapTuple	row = SPI_tuptable->vals[0];
		TupleDesc	desc = SPI_tuptable->tupdesc;
		bool		isnull;

		others->count = DatumGetInt64(SPI_getbinval(row, desc, 3, &isnull));
		if (others->count > 0)
		{
			others->first = MemoryContextStrdup(cxt, SPI_getvalue(row, desc, 1));
			others->list = MemoryContextStrdup(cxt, SPI_getvalue(row, desc, 2));
		}
	}
	SPI_finish();
	return body;
}

/*
 * Set while an experiment checks its steps' runs before any of them starts:
 * the NOTICE of another role's script is given as each run starts, once.
 */
bool		ScriptSetupChecking = false;

/* Another role's text is about to run as this one: say whose and what. */
static void
announce(const SetupScript *s, const char *me)
{
	char		md5[33];
	const char *errstr = NULL;
	bool		hashed = pg_md5_hash(s->body, strlen(s->body), md5, &errstr);

	ereport(NOTICE,
			(errmsg("script \"%s\" is role \"%s\"'s: its text runs as role \"%s\"",
					s->name, s->owner, me),
			 errdetail("The text has %zu bytes%s%s; run_scripts keeps it as the run runs it.",
					   strlen(s->body), hashed ? ", md5 " : "", hashed ? md5 : "")));
}

/*
 * A saved script, by its entry's name: "name" is the current user's own
 * script (the role the clients run as), "owner/name" the one that role
 * "owner" saved (a name has no '/', a role's name may).  A bare name that
 * only other roles saved is refused: another role's text runs only when
 * named so, and a NOTICE then says whose it is, for a reviewer to compare.
 */
static void
saved_script(SetupScript *s)
{
	const char *slash = strrchr(s->name, '/');
	char	   *me = GetUserNameFromId(GetUserId(), false);
	OtherOwners others;

	s->owner_named = slash != NULL;
	s->owner = slash ? pnstrdup(s->name, slash - s->name) : me;
	if (slash)
		s->name = pstrdup(slash + 1);
	if (s->owner[0] == '\0' || s->name[0] == '\0')
		refuse(ERRCODE_INVALID_PARAMETER_VALUE,
			   psprintf("invalid scripts entry \"%s/%s\"", s->owner, s->name), HINT_OWNER);
	s->body = saved_text(s->owner, s->name, &others);
	if (s->body == NULL && others.count > 0 && !slash)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("role \"%s\" has no script named \"%s\"", me, s->name),
				 others.count == 1 ? errdetail("Role %s saved a script of that name.", others.list)
				 : errdetail("Roles %s%s saved scripts of that name.", others.list,
							 others.count > 5 ? " and others" : ""),
				 errhint("A name in scripts is a script the calling role saved; to run another role's, "
						 "name its owner, as '%s/%s'.", others.first, s->name)));
	if (s->body == NULL)
		refuse(ERRCODE_UNDEFINED_OBJECT,
			   slash ? psprintf("role \"%s\" has no script named \"%s\"", s->owner, s->name)
			   : psprintf("no script named \"%s\"", s->name),
			   slash ? HINT_OWNER : HINT_SCRIPTS);
	if (strcmp(s->owner, me) != 0 && !ScriptSetupChecking)
		announce(s, me);
}

/*
 * A prefix of a built-in's name, as pgbench -b takes one ("se" is
 * select-only), unless the calling role saved a script of that very name:
 * then that script.  A prefix of two built-ins' names is refused, as
 * pgbench refuses it.
 */
static bool
builtin_prefix(SetupScript *s)
{
	WorkloadKind kind;
	int			found;
	OtherOwners others;

	if (strchr(s->name, '/') != NULL || (found = WorkloadFindPrefix(s->name, &kind)) == 0)
		return false;
	if (saved_text(GetUserNameFromId(GetUserId(), false), s->name, &others) != NULL)
		return false;
	if (found > 1)
		WorkloadRefuseAmbiguous(s->name);
	s->kind = kind;
	s->name = pstrdup(WorkloadName(kind));
	return true;
}

/* One "name@weight" entry of scripts. */
static void
read_entry(const char *entry, SetupScript *s)
{
	const char *slash = strrchr(entry, '/');
	const char *at = strrchr(slash ? slash : entry, '@');	/* a role's name may have '@' */
	char	   *end;

	s->name = at ? pnstrdup(entry, at - entry) : pstrdup(entry);
	s->weight = 1;
	if (at)
	{
		long		w;

		errno = 0;
		w = strtol(at + 1, &end, 10);
		if (at[1] == '\0' || *end != '\0' || errno != 0 || w < 0 || w > SCRIPT_RUN_MAX_WEIGHT)
			refuse(ERRCODE_INVALID_PARAMETER_VALUE,
				   psprintf("invalid weight in scripts entry \"%s\"", entry),
				   psprintf("A weight is a whole number from 0 to %d.", SCRIPT_RUN_MAX_WEIGHT));
		s->weight = (int) w;
	}
	s->builtin = WorkloadFind(s->name, &s->kind) || builtin_prefix(s);
	if (s->builtin)
		return;					/* its text: qualify_builtins() */
	saved_script(s);
}

/*
 * The built-in scripts' texts, with their tables in the schema where the
 * caller's search_path finds pgbench_accounts, checked as the built-in
 * workloads check theirs (the same privileges, the same errors); pgbench
 * needs the tables for its built-in scripts too.  Returns the scale read
 * from them, 0 if none was.  For a libpq run the tables are on the targets:
 * the texts name pg_catalog, where no pgbench table can be, until
 * ScriptSetupTargetScale() puts in the schema found there (*pending).
 */
static int64
qualify_builtins(RunShared *p, SetupScript *s, int n, bool *pending)
{
	int64		scale = 0;

	*pending = false;
	for (int i = 0; i < n; i++)
	{
		WorkloadParams wl;

		if (!s[i].builtin)
			continue;
		if (p->via != RUN_VIA_SPI)
		{
			s[i].body = builtin_text(s[i].kind, "pg_catalog");
			*pending = true;
			continue;
		}
		memset(&wl, 0, sizeof(wl));
		wl.kind = s[i].kind;
		WorkloadResolve(&wl);
		s[i].body = builtin_text(s[i].kind, wl.schema);
		scale = wl.scale;
	}
	return scale;
}

static SetupScript *
read_scripts(const RunSpec *spec, int *n)
{
	SetupScript *s;

	if (!RunSpecIsNull(spec, RUN_OPT_SCRIPT))
	{
		if (!RunSpecIsNull(spec, RUN_OPT_SCRIPTS))
			refuse(ERRCODE_INVALID_PARAMETER_VALUE, "give script or scripts, not both",
				   "Save the script in pgbench_lab.scripts and name it among the scripts to mix it with others.");
		s = palloc0(sizeof(SetupScript));
		s->name = pstrdup("script");
		s->body = TextDatumGetCString(RunSpecDatum(spec, RUN_OPT_SCRIPT));
		s->weight = 1;
		*n = 1;
		return s;
	}
	else
	{
		ArrayType  *a = DatumGetArrayTypeP(RunSpecDatum(spec, RUN_OPT_SCRIPTS));
		Datum	   *items;
		bool	   *nulls;
		int			count;

		deconstruct_array(a, TEXTOID, -1, false, TYPALIGN_INT, &items, &nulls, &count);
		if (count == 0 || count > SCRIPT_RUN_MAX_SCRIPTS)
			refuse(ERRCODE_INVALID_PARAMETER_VALUE,
				   psprintf("scripts must name from 1 to %d scripts", SCRIPT_RUN_MAX_SCRIPTS),
				   HINT_SCRIPTS);
		s = palloc0(sizeof(SetupScript) * count);
		for (int i = 0; i < count; i++)
		{
			if (nulls[i])
				refuse(ERRCODE_NULL_VALUE_NOT_ALLOWED, "scripts must not contain NULL", HINT_SCRIPTS);
			read_entry(TextDatumGetCString(items[i]), &s[i]);
		}
		*n = count;
		return s;
	}
}

/*
 * workload => 'tpcc': the calling role's saved scripts of TPC-C's kit,
 * named and weighted as pgbench_lab_internal.tpcc_scripts() gives them
 * (the 10/10/1/1/1 mix, dealt from a deck), as scripts => would name
 * them.  A role that has not saved them all (init_tpcc() saves them) is
 * refused before anything starts.
 */
static SetupScript *
tpcc_kit(int *n)
{
	char	   *me = GetUserNameFromId(GetUserId(), false);
	MemoryContext cxt = CurrentMemoryContext;
	SetupScript *s = NULL;
	StringInfoData missing;
	int			count = 0;
	bool		isnull;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	/* an install script before the kit has no tpcc_scripts() */
	if (SPI_execute("SELECT pg_catalog.to_regprocedure('pgbench_lab_internal.tpcc_scripts()') IS NOT NULL",
					true, 1) == SPI_OK_SELECT && SPI_processed == 1 &&
		DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull)) &&
		SPI_execute("SELECT k.name, k.weight FROM pgbench_lab_internal.tpcc_scripts() k",
					true, 0) == SPI_OK_SELECT && SPI_processed > 0)
	{
		count = (int) SPI_processed;
		s = MemoryContextAllocZero(cxt, sizeof(SetupScript) * count);
		for (int i = 0; i < count; i++)
		{
			s[i].name = MemoryContextStrdup(cxt, SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1));
			s[i].weight = DatumGetInt32(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 2, &isnull));
		}
	}
	SPI_finish();
	initStringInfo(&missing);
	for (int i = 0; i < count; i++)
	{
		OtherOwners others;

		s[i].owner = me;
		s[i].body = saved_text(me, s[i].name, &others);
		if (s[i].body == NULL)
			appendStringInfo(&missing, "%s%s", missing.len > 0 ? ", " : "", s[i].name);
	}
	if (count == 0 || missing.len > 0)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("role \"%s\" has no TPC-C kit", me),
				 count > 0 ? errdetail("Workload tpcc runs the role's saved scripts tpcc-new-order, tpcc-payment, "
									   "tpcc-order-status, tpcc-delivery and tpcc-stock-level; it has not saved %s.",
									   missing.data) : 0,
				 errhint("Make the TPC-C tables and the kit first: "
						 "SELECT * FROM pgbench_lab.init_tpcc(warehouses => 1);")));
	*n = count;
	return s;
}

/* The text of the scale variable among name\0text\0 ... \0, or NULL. */
static const char *
given_scale(const char *pairs)
{
	for (const char *p = pairs; *p; p += strlen(p) + 1)
	{
		const char *text = p + strlen(p) + 1;

		if (strcmp(p, "scale") == 0)
			return text;
		p = text;
	}
	return NULL;
}

/* pgbench_branches' rows, if it is a table the caller can read; else 1, as pgbench. */
static int64
default_scale(void)
{
	RangeVar   *rv = makeRangeVar(NULL, "pgbench_branches", -1);
	Oid			rel = RangeVarGetRelid(rv, NoLock, true);
	int64		scale = 1;
	bool		isnull;
	char	   *sql;

	/* a table: counting a view's rows would run its owner's code */
	if (!OidIsValid(rel) ||
		(get_rel_relkind(rel) != RELKIND_RELATION && get_rel_relkind(rel) != RELKIND_PARTITIONED_TABLE) ||
		pg_class_aclcheck(rel, GetUserId(), ACL_SELECT) != ACLCHECK_OK ||
		PGBL_NAMESPACE_ACLCHECK(get_rel_namespace(rel), GetUserId(), ACL_USAGE) != ACLCHECK_OK)
		return 1;
	sql = psprintf("SELECT pg_catalog.count(*) FROM %s.%s",
				   quote_identifier(get_namespace_name(get_rel_namespace(rel))),
				   quote_identifier(get_rel_name(rel)));
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (SPI_execute(sql, true, 1) == SPI_OK_SELECT && SPI_processed == 1)
		scale = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	SPI_finish();
	return scale > 0 ? scale : 1;
}

static Size
append_text(StringInfo buf, const char *text)
{
	Size		at = buf->len;

	appendBinaryStringInfo(buf, text, strlen(text) + 1);
	return at;
}

/* The area, laid out: header, scripts, texts, then room for the counters. */
static Size
build_area(RunShared *p, SetupScript *s, int n, StringInfo vars, const char *json,
		   const char *scale, int64 tables_scale, char **out)
{
	Size		head = MAXALIGN(offsetof(RunScriptArea, script) + sizeof(RunScript) * n);
	StringInfoData buf;
	RunScriptArea *area;
	int			counter = 0;
	int64		total = 0;
	Size		size;

	initStringInfo(&buf);
	enlargeStringInfo(&buf, head);
	memset(buf.data, 0, head);
	buf.len = head;
	for (int i = 0; i < n; i++)
	{
		RunScript  *rs = &((RunScriptArea *) buf.data)->script[i];
		Size		name = append_text(&buf, s[i].name);
		Size		body = append_text(&buf, s[i].body);
		Size		owner = s[i].owner ? append_text(&buf, s[i].owner) : 0;

		rs = &((RunScriptArea *) buf.data)->script[i];	/* buf may move */
		rs->name = name;
		rs->body = body;
		rs->owner = owner;
		rs->weight = s[i].weight;
		rs->ncommands = s[i].ncommands;
		rs->counter = counter;
		counter += 1 + s[i].ncommands;
		total += s[i].weight;
	}
	if (total == 0)
		refuse(ERRCODE_INVALID_PARAMETER_VALUE, "the scripts' weights add up to 0",
			   "Give at least one script a weight above 0.");
	{
		Size		variables = buf.len;
		Size		path;
		Size		variables_json;

		appendBinaryStringInfo(&buf, vars->data, vars->len);
		path = append_text(&buf, namespace_search_path);
		variables_json = append_text(&buf, json);
		size = MAXALIGN(buf.len) + sizeof(ScriptCounter) * counter * (Size) p->clients;
		area = palloc0(size);
		memcpy(area, buf.data, buf.len);
		area->variables = variables;
		area->search_path = path;
		area->variables_json = variables_json;
	}
	area->nscripts = n;
	area->total_weight = (int) total;
	area->ncounters = counter;
	area->counters = MAXALIGN(buf.len);
	/* the scale recorded: the one given if it is a number, else pgbench's */
	if (scale != NULL)
	{
		char	   *end;

		errno = 0;
		area->scale = strtoll(scale, &end, 10);
		if (*end != '\0' || errno != 0 || area->scale < 1 || area->scale > PG_INT32_MAX)
			area->scale = 1;
	}
	else if (tables_scale > 0)
		area->scale = tables_scale; /* the built-in scripts' tables */
	else if (p->via == RUN_VIA_SPI)
		area->scale = default_scale();
	else
		area->scale = 0;		/* read on the target: ScriptSetupTargetScale() */
	area->scale_given = scale != NULL;
	area->random_seed = p->seed_given ? p->seed : pg_prng_uint64(&pg_global_prng_state);
	*out = (char *) area;
	return size;
}

/*
 * What pgbench refuses in a query mode, refused before the run:
 * query_mode => 'prepared' refuses a \; compound command with variables,
 * as pgbench -M prepared does (its statements cannot be one prepared
 * statement; left NULL, each statement is prepared on its own, as
 * before), and 'simple' a pipeline, as pgbench -M simple does (the simple
 * protocol has none).
 */
static void
refuse_in_mode(const RunShared *p, const ScriptProgram *prog)
{
	if (!p->query_mode_given || p->query_mode == RUN_QUERY_EXTENDED)
		return;
	for (int c = 0; c < prog->ncommands; c++)
	{
		const ScriptCommand *cmd = &prog->commands[c];

		if (p->query_mode == RUN_QUERY_PREPARED && cmd->kind == SCMD_SQL &&
			cmd->sql.nstatements > 1 && cmd->sql.nparams > 0)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("%s:%d: a \\; compound command with variables cannot be prepared",
							prog->name, cmd->line),
					 errhint("Use query_mode => 'simple' or 'extended', or split the command.")));
		if (p->query_mode == RUN_QUERY_SIMPLE && cmd->kind == SCMD_START_PIPELINE)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("%s:%d: a pipeline cannot be sent with query_mode simple",
							prog->name, cmd->line),
					 errdetail("The simple query protocol has no pipeline (pgbench -M simple "
							   "refuses one too)."),
					 errhint("Use query_mode => 'extended' or 'prepared'.")));
	}
}

/* The name a run of these scripts is recorded under, in runs.workload. */
static void
workload_name(RunShared *p, SetupScript *s, int n)
{
	StringInfoData buf;

	initStringInfo(&buf);
	for (int i = 0; i < n; i++)
	{
		appendStringInfo(&buf, "%s%s%s%s", i > 0 ? " " : "", s[i].owner_named ? s[i].owner : "",
						 s[i].owner_named ? "/" : "", s[i].name);
		if (n > 1)
			appendStringInfo(&buf, "@%d", s[i].weight);
	}
	if (buf.len >= PGBL_LABEL_MAX)
		snprintf(buf.data + PGBL_LABEL_MAX - 4, 4, "...");
	strlcpy(p->workload, buf.data, PGBL_LABEL_MAX);
}

/*
 * script, scripts and variables, checked; the area for the run's shared
 * memory in *area, its size returned (0: the run has no scripts).
 */
Size
ScriptSetupRead(const RunSpec *spec, RunShared *p, char **area)
{
	bool		has_script = !RunSpecIsNull(spec, RUN_OPT_SCRIPT);
	bool		has_scripts = !RunSpecIsNull(spec, RUN_OPT_SCRIPTS);
	Jsonb	   *vars = RunSpecIsNull(spec, RUN_OPT_VARIABLES) ? NULL
		: DatumGetJsonbP(RunSpecDatum(spec, RUN_OPT_VARIABLES));
	SetupScript *s;
	StringInfoData pairs;
	const char *scale;
	int64		tables_scale;
	bool		pending;
	bool		tpcc;
	int			n;
	Size		size;

	*area = NULL;
	tpcc = !has_script && !has_scripts && !RunSpecIsNull(spec, RUN_OPT_WORKLOAD) &&
		strcmp(TextDatumGetCString(RunSpecDatum(spec, RUN_OPT_WORKLOAD)), "tpcc") == 0;
	if (!has_script && !has_scripts && !tpcc)
	{
		if (vars != NULL)
			refuse(ERRCODE_INVALID_PARAMETER_VALUE, "variables are for scripts",
				   "Give variables with script => or scripts =>; the built-in workloads take none.");
		return 0;
	}
	if (!RunSpecIsNull(spec, RUN_OPT_WORKLOAD) && !tpcc)
		refuse(ERRCODE_INVALID_PARAMETER_VALUE, "give a workload or scripts, not both",
			   "Leave workload NULL with script => or scripts =>; name a built-in workload among the "
			   "scripts to mix it in, as 'tpcb-like@9'.");
	s = tpcc ? tpcc_kit(&n) : read_scripts(spec, &n);
	tables_scale = qualify_builtins(p, s, n, &pending);
	for (int i = 0; i < n; i++)
	{
		ScriptProgram *prog = ScriptParse(s[i].name, s[i].body);

		s[i].ncommands = prog->ncommands;
		refuse_in_mode(p, prog);
	}
	initStringInfo(&pairs);
	ScriptVariablesText(vars, false, &pairs);
	scale = given_scale(pairs.data);
	if (pairs.len > SCRIPT_RUN_MAX_VARIABLES_TEXT)
		refuse(ERRCODE_INVALID_PARAMETER_VALUE, "variables are too long",
			   psprintf("The variables may take %d bytes as names and texts.", SCRIPT_RUN_MAX_VARIABLES_TEXT));
	workload_name(p, s, n);
	if (tpcc)
		strlcpy(p->workload, "tpcc", PGBL_LABEL_MAX);
	size = build_area(p, s, n, &pairs,
					  vars ? JsonbToCString(NULL, &vars->root, VARSIZE(vars)) : "",
					  scale, tables_scale, area);
	((RunScriptArea *) *area)->tables_pending = pending;
	((RunScriptArea *) *area)->deck = tpcc;
	return size;
}

/*
 * A libpq run's area again, with the built-in scripts' texts naming their
 * tables in schema: the same scripts, owners, weights, marks and variables,
 * the texts of the others as they were.
 */
static void
requalify(RunShared *p, const char *schema)
{
	RunScriptArea *old = (RunScriptArea *) p->script_local;
	Size		head = MAXALIGN(offsetof(RunScriptArea, script) + sizeof(RunScript) * old->nscripts);
	const char *json = RunScriptText(old, old->variables_json);
	Size		tail = old->variables_json + strlen(json) + 1 - old->variables;
	StringInfoData buf;
	RunScriptArea *area;
	Size		size;
	Size		shift;

	initStringInfo(&buf);
	appendBinaryStringInfo(&buf, (char *) old, head);
	for (int i = 0; i < old->nscripts; i++)
	{
		const char *name = RunScriptText(old, old->script[i].name);
		WorkloadKind kind;
		bool		builtin = old->script[i].owner == 0 && WorkloadFind(name, &kind);
		const char *body = builtin ? builtin_text(kind, schema)
			: RunScriptText(old, old->script[i].body);
		Size		at_name = append_text(&buf, name);
		Size		at_body = append_text(&buf, body);
		Size		at_owner = old->script[i].owner ?
			append_text(&buf, RunScriptText(old, old->script[i].owner)) : 0;

		((RunScriptArea *) buf.data)->script[i].name = at_name;
		((RunScriptArea *) buf.data)->script[i].body = at_body;
		((RunScriptArea *) buf.data)->script[i].owner = at_owner;
	}
	shift = buf.len - old->variables;
	appendBinaryStringInfo(&buf, (char *) old + old->variables, tail);
	size = MAXALIGN(buf.len) + sizeof(ScriptCounter) * old->ncounters * (Size) p->clients;
	area = palloc0(size);
	memcpy(area, buf.data, buf.len);
	area->variables += shift;
	area->search_path += shift;
	area->variables_json += shift;
	area->counters = MAXALIGN(buf.len);
	area->tables_pending = false;
	p->script_local = (char *) area;
	p->script_area_size = size;
}

/*
 * A libpq run, once its targets are resolved: the built-in scripts' tables
 * in the schema found on the targets, and the scale the first target has,
 * unless the variables give one.
 */
void
ScriptSetupTargetScale(RunShared *p)
{
	RunScriptArea *area = (RunScriptArea *) p->script_local;

	if (area == NULL)
		return;
	if (area->tables_pending)
	{
		requalify(p, p->wl.schema);	/* checked on every target: LibpqResolve() */
		area = (RunScriptArea *) p->script_local;
	}
	if (!area->scale_given)
		area->scale = p->wl.scale;
}
