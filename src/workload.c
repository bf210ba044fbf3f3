/*-------------------------------------------------------------------------
 *
 * workload.c
 *		pgbench's built-in scripts, defined once: their draws, their
 *		statements and their transaction boundaries (workload_defs[]), from
 *		which the in-server path prepares its plans (saved once per client),
 *		the libpq path takes its statements and parameters
 *		(LibpqBuiltinTexts() in client_libpq.c), and scripts => '{tpcb-like}'
 *		its script text (WorkloadScriptText(), for the interpreter).
 *
 * A client runs its workload over its transport (WorkloadClientInit,
 * WorkloadClientXact), as the script interpreter runs a script: BEGIN and
 * END are the transport's transaction control, every other statement is
 * declared once and prepared before the run.  The bare SPI loop that
 * measures the floor under it runs the saved plans directly
 * (WorkloadPrepare, WorkloadExecute).
 *
 * Draws follow pgbench: uniform and inclusive, from a per-client pg_prng
 * state, in the order its scripts \set them (aid, bid, tid, delta); the
 * three ids are independent.  With a seed, client n's state is seeded as
 * pgbench --random-seed seeds its client n (WorkloadSeed), so that a run
 * of the same seed and clients draws, and commits, pgbench's rows; the
 * interpreter's copy of the script draws the same (ScriptSeedClients).
 * The tables are found once, in the launching session through its
 * search_path, and named with their schema in every statement, and the
 * operators are named with theirs (pgbench's text otherwise), so no
 * search_path can send a statement elsewhere.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "compat.h"
#include "script_expr.h"
#include "workload.h"

#define NACCOUNTS	100000
#define NTELLERS	10
#define NBRANCHES	1

/*
 * pgbench's statements (as --show-script prints them), with $n for their
 * :variables, the tables in %s and the operators in pg_catalog.
 */
static const WorkloadStmt stmt_begin = {"BEGIN", 0, {0}, 0, NULL, 0};
static const WorkloadStmt stmt_end = {"END", 0, {0}, 0, NULL, 0};
static const WorkloadStmt stmt_update_account = {
	"UPDATE %s.pgbench_accounts SET abalance = abalance OPERATOR(pg_catalog.+) $1 "
	"WHERE aid OPERATOR(pg_catalog.=) $2",
	2, {WVAR_DELTA, WVAR_AID}, SPI_OK_UPDATE, "pgbench_accounts", ACL_SELECT | ACL_UPDATE
};
static const WorkloadStmt stmt_select_account = {
	"SELECT abalance FROM %s.pgbench_accounts WHERE aid OPERATOR(pg_catalog.=) $1",
	1, {WVAR_AID}, SPI_OK_SELECT, "pgbench_accounts", ACL_SELECT
};
static const WorkloadStmt stmt_update_teller = {
	"UPDATE %s.pgbench_tellers SET tbalance = tbalance OPERATOR(pg_catalog.+) $1 "
	"WHERE tid OPERATOR(pg_catalog.=) $2",
	2, {WVAR_DELTA, WVAR_TID}, SPI_OK_UPDATE, "pgbench_tellers", ACL_SELECT | ACL_UPDATE
};
static const WorkloadStmt stmt_update_branch = {
	"UPDATE %s.pgbench_branches SET bbalance = bbalance OPERATOR(pg_catalog.+) $1 "
	"WHERE bid OPERATOR(pg_catalog.=) $2",
	2, {WVAR_DELTA, WVAR_BID}, SPI_OK_UPDATE, "pgbench_branches", ACL_SELECT | ACL_UPDATE
};
static const WorkloadStmt stmt_insert_history = {
	"INSERT INTO %s.pgbench_history (tid, bid, aid, delta, mtime) "
	"VALUES ($1, $2, $3, $4, CURRENT_TIMESTAMP)",
	4, {WVAR_TID, WVAR_BID, WVAR_AID, WVAR_DELTA}, SPI_OK_INSERT, "pgbench_history", ACL_INSERT
};

/* pgbench's \set lines of tpcb-like and simple-update */
#define DRAWS_ALL \
	4, { \
		{WVAR_AID, 1, NACCOUNTS, true}, \
		{WVAR_BID, 1, NBRANCHES, true}, \
		{WVAR_TID, 1, NTELLERS, true}, \
		{WVAR_DELTA, -5000, 5000, false} \
	}

/* By WorkloadKind. */
static const WorkloadDef workload_defs[WORKLOAD_COUNT] = {
	{"tpcb-like", false, DRAWS_ALL,
		7, {&stmt_begin, &stmt_update_account, &stmt_select_account, &stmt_update_teller,
	&stmt_update_branch, &stmt_insert_history, &stmt_end}},
	{"simple-update", false, DRAWS_ALL,
		5, {&stmt_begin, &stmt_update_account, &stmt_select_account, &stmt_insert_history,
	&stmt_end}},
	{"select-only", true, 1, {{WVAR_AID, 1, NACCOUNTS, true}},
		1, {&stmt_select_account}}
};

static const char *const var_names[WORKLOAD_NVARS] = {"aid", "bid", "tid", "delta"};

const WorkloadDef *
WorkloadDefOf(WorkloadKind kind)
{
	return &workload_defs[kind];
}

const char *
WorkloadVarName(WorkloadVar var)
{
	return var_names[var];
}

/* Is name a built-in workload's?  Its kind in *kind if so. */
bool
WorkloadFind(const char *name, WorkloadKind *kind)
{
	for (int i = 0; i < WORKLOAD_COUNT; i++)
		if (strcmp(name, workload_defs[i].name) == 0)
		{
			*kind = (WorkloadKind) i;
			return true;
		}
	return false;
}

/*
 * The built-ins whose names begin with "prefix" (pgbench -b takes a name's
 * prefix): how many, and the first in *kind.  An exact name is one match.
 */
int
WorkloadFindPrefix(const char *prefix, WorkloadKind *kind)
{
	size_t		len = strlen(prefix);
	int			found = 0;

	if (WorkloadFind(prefix, kind))
		return 1;
	for (int i = WORKLOAD_COUNT - 1; i >= 0 && len > 0; i--)
		if (strncmp(prefix, workload_defs[i].name, len) == 0)
		{
			*kind = (WorkloadKind) i;
			found++;
		}
	return found;
}

/* An ambiguous prefix of the built-ins' names, refused as pgbench refuses it. */
void
WorkloadRefuseAmbiguous(const char *prefix)
{
	StringInfoData names;
	size_t		len = strlen(prefix);

	initStringInfo(&names);
	for (int i = 0; i < WORKLOAD_COUNT; i++)
		if (strncmp(prefix, workload_defs[i].name, len) == 0)
			appendStringInfo(&names, "%s%s", names.len > 0 ? ", " : "", workload_defs[i].name);
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("ambiguous built-in name \"%s\": it begins %s", prefix, names.data),
			 errhint("Give enough of the name to tell one built-in: tpcb-like, simple-update or select-only.")));
}

WorkloadKind
WorkloadParse(const char *name)
{
	WorkloadKind kind;
	int			found = WorkloadFindPrefix(name, &kind);

	if (found == 1)
		return kind;
	if (found > 1)
		WorkloadRefuseAmbiguous(name);
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unknown workload \"%s\"", name),
			 errhint("Valid workloads are tpcb-like, simple-update, select-only and tpcc (TPC-C's kit, "
					 "which init_tpcc() saves).")));
	pg_unreachable();
}

const char *
WorkloadName(WorkloadKind kind)
{
	return workload_defs[kind].name;
}

/* Refuse before anything starts if the role lacks a privilege it needs. */
static void
check_table(Oid nsp, const char *relname, AclMode need, const char *why)
{
	Oid			relid = get_relname_relid(relname, nsp);

	if (!OidIsValid(relid))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation \"%s.%s\" does not exist",
						get_namespace_name(nsp), relname),
				 errhint("Create pgbench's tables with pgbench_lab.init(scale => 10) or pgbench -i.")));
	/* a table: a view (or a foreign table) runs its owner's code as the run's role */
	if (get_rel_relkind(relid) != RELKIND_RELATION && get_rel_relkind(relid) != RELKIND_PARTITIONED_TABLE)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s.%s\" is not a table", get_namespace_name(nsp), relname),
				 errdetail("The built-in workloads run on pgbench's tables; reading a view or a foreign "
						   "table would run what its owner put in it, as role \"%s\".",
						   GetUserNameFromId(GetUserId(), false)),
				 errhint("Create pgbench's tables with pgbench_lab.init(scale => 10) or pgbench -i.")));
	/* every privilege of need (pg_class_aclcheck() is content with any) */
	if (pg_class_aclmask(relid, GetUserId(), need, ACLMASK_ALL) != need)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for table %s", relname),
				 errdetail("The %s workload needs %s on it, and its workers run as role \"%s\".",
						   why, need & ACL_UPDATE ? "SELECT and UPDATE" :
						   need & ACL_INSERT ? "INSERT" : "SELECT",
						   GetUserNameFromId(GetUserId(), false))));
}

/*
 * Find the tables through the caller's search_path, check the caller may do
 * what the workload's statements do to them, and read the scale and the
 * type of aid.
 */
void
WorkloadResolve(WorkloadParams *params)
{
	const WorkloadDef *def = &workload_defs[params->kind];
	const char *why = def->name;
	RangeVar   *rv = makeRangeVar(NULL, "pgbench_accounts", -1);
	Oid			accounts = RangeVarGetRelid(rv, NoLock, true);
	Oid			nsp;
	StringInfoData sql;
	bool		isnull;

	if (!OidIsValid(accounts))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation \"pgbench_accounts\" does not exist"),
				 errhint("Create pgbench's tables with pgbench_lab.init(scale => 10) or pgbench -i, "
						 "or put their schema in search_path.")));
	nsp = get_rel_namespace(accounts);
	if (PGBL_NAMESPACE_ACLCHECK(nsp, GetUserId(), ACL_USAGE) != ACLCHECK_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for schema %s", get_namespace_name(nsp))));
	strlcpy(params->schema, get_namespace_name(nsp), NAMEDATALEN);

	check_table(nsp, "pgbench_branches", ACL_SELECT, why);	/* the scale, below */
	for (int i = 0; i < def->nstmts; i++)
		if (def->stmts[i]->table != NULL)
			check_table(nsp, def->stmts[i]->table, def->stmts[i]->need, why);
	params->aid_bigint = get_atttype(accounts, get_attnum(accounts, "aid")) == INT8OID;

	/* pgbench takes the scale from the branches at run time, and so do we */
	initStringInfo(&sql);
	appendStringInfo(&sql, "SELECT pg_catalog.count(*)::pg_catalog.int4 FROM %s.pgbench_branches",
					 quote_identifier(params->schema));
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (SPI_execute(sql.data, true, 1) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "could not count pgbench_branches");
	params->scale = DatumGetInt32(SPI_getbinval(SPI_tuptable->vals[0],
												SPI_tuptable->tupdesc, 1, &isnull));
	SPI_finish();
	if (params->scale <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("pgbench_branches is empty"),
				 errhint("Load pgbench's data with pgbench_lab.init(scale => 10) or pgbench -i.")));
}

/*
 * Statement st's text, appended to buf: the tables in quoted_schema, and
 * its parameters as $n or, when vars, as pgbench's :variables.  With
 * pinned, its operators bare, as pgbench writes them: only for a session
 * whose search_path the lab pinned to pg_catalog, pg_temp (where no
 * operator is looked up but pg_catalog's).
 */
void
WorkloadAppendStmt(StringInfo buf, const WorkloadStmt *st, const char *quoted_schema, bool vars,
				   bool pinned)
{
	static const char qualified[] = "OPERATOR(pg_catalog.";

	for (const char *c = st->sql; *c; c++)
	{
		if (pinned && strncmp(c, qualified, sizeof(qualified) - 1) == 0)
		{
			/* OPERATOR(pg_catalog.+) is + */
			c += sizeof(qualified) - 1;
			while (*c != ')')
				appendStringInfoChar(buf, *c++);
		}
		else if (c[0] == '%' && c[1] == 's')
		{
			appendStringInfoString(buf, quoted_schema);
			c++;
		}
		else if (vars && c[0] == '$' && c[1] >= '1' && c[1] <= '0' + st->nargs)
		{
			appendStringInfo(buf, ":%s", var_names[st->args[c[1] - '1']]);
			c++;
		}
		else
			appendStringInfoChar(buf, *c);
	}
}

/*
 * The built-in script's text as pgbench --show-script prints it, every
 * name qualified: its \set lines, then its statements with :variables,
 * one a line, each ended with ';'.  palloc'd.
 */
char *
WorkloadScriptText(WorkloadKind kind, const char *quoted_schema)
{
	const WorkloadDef *def = &workload_defs[kind];
	StringInfoData buf;

	initStringInfo(&buf);
	for (int i = 0; i < def->ndraws; i++)
	{
		const WorkloadDrawDef *d = &def->draws[i];

		appendStringInfo(&buf, "\\set %s random(" INT64_FORMAT ", " INT64_FORMAT "%s)\n",
						 var_names[d->var], d->lo, d->hi, d->per_scale ? " * :scale" : "");
	}
	for (int i = 0; i < def->nstmts; i++)
	{
		WorkloadAppendStmt(&buf, def->stmts[i], quoted_schema, true, false);
		appendStringInfoString(&buf, ";\n");
	}
	return buf.data;
}

/*
 * Prepare and save the plans of the workload's statements that SPI runs
 * (all but BEGIN and END); SPI must be connected.  Once per client.
 */
void
WorkloadPrepare(const WorkloadParams *params, WorkloadPlans *plans)
{
	const WorkloadDef *def = &workload_defs[params->kind];
	const char *quoted = quote_identifier(params->schema);
	StringInfoData sql;

	memset(plans, 0, sizeof(*plans));
	initStringInfo(&sql);
	for (int i = 0; i < def->nstmts; i++)
	{
		const WorkloadStmt *st = def->stmts[i];
		Oid			types[WORKLOAD_MAX_ARGS];
		SPIPlanPtr	plan;

		if (st->spi_ok == 0)
			continue;			/* BEGIN, END: the caller's transaction */
		for (int a = 0; a < st->nargs; a++)
			types[a] = st->args[a] == WVAR_AID && params->aid_bigint ? INT8OID : INT4OID;
		resetStringInfo(&sql);
		WorkloadAppendStmt(&sql, st, quoted, false, false);
		plan = SPI_prepare(sql.data, st->nargs, types);
		if (plan == NULL)
			elog(ERROR, "SPI_prepare failed for \"%s\": %s", sql.data,
				 SPI_result_code_string(SPI_result));
		if (SPI_keepplan(plan) != 0)
			elog(ERROR, "SPI_keepplan failed");
		plans->plan[plans->n] = plan;
		plans->stmt[plans->n] = st;
		plans->n++;
	}
	pfree(sql.data);
}

/*
 * A client's statements over its transport t, prepared now (SPI must be
 * connected, in a transaction), in cxt, which must last for the run (not
 * the current context: SPI leaves its own current after each call), in
 * t's query_mode: prepared and extended type their parameters now (extended
 * then sends the text and the values at every execution), simple puts the
 * values in the text bare, as pgbench -M simple does.  With pinned (the
 * session's search_path is the lab's), pgbench's text with bare operators.
 */
void
WorkloadClientInit(WorkloadClient *wc, const WorkloadParams *params, Transport *t, bool pinned,
				   MemoryContext cxt)
{
	const WorkloadDef *def = &workload_defs[params->kind];
	const char *quoted = quote_identifier(params->schema);

	memset(wc, 0, sizeof(*wc));
	wc->def = def;
	wc->t = t;
	for (int v = 0; v < WORKLOAD_NVARS; v++)
		wc->value[v].type = SCRIPT_INT;
	for (int i = 0; i < def->nstmts; i++)
	{
		const WorkloadStmt *st = def->stmts[i];
		StringInfoData sql;
		MemoryContext old;

		if (st->spi_ok == 0)
			continue;			/* BEGIN, END: transaction control */
		old = MemoryContextSwitchTo(cxt);
		initStringInfo(&sql);
		WorkloadAppendStmt(&sql, st, quoted, false, pinned);
		TransportStmtInit(&wc->stmt[i], sql.data, st->nargs, i);
		wc->stmt[i].bare = true;
		MemoryContextSwitchTo(old);
		for (int a = 0; a < st->nargs; a++)
			wc->stmt[i].args[a].value = &wc->value[st->args[a]];
		TransportSpiPrepare(t, &wc->stmt[i]);
	}
}

/*
 * One transaction of the workload with these draws, over the client's
 * transport: pgbench's BEGIN ... END, or a statement alone in a
 * transaction of its own (select-only).  An error is raised as it comes;
 * the caller catches it and resets the transport.
 */
void
WorkloadClientXact(WorkloadClient *wc, const WorkloadDraw *d)
{
	static const ScriptTx begin = {STX_BEGIN, -1, -1, -1, false, NULL};
	static const ScriptTx commit = {STX_COMMIT, -1, -1, -1, false, NULL};
	const WorkloadDef *def = wc->def;
	Transport  *t = wc->t;
	const TransportOps *ops = t->ops;
	bool		implicit = def->stmts[0]->spi_ok != 0;

	for (int v = 0; v < WORKLOAD_NVARS; v++)
		wc->value[v].u.i = d->v[v];
	if (implicit)
	{
		ops->begin_implicit(t);
		t->in_xact = true;
	}
	for (int i = 0; i < def->nstmts; i++)
	{
		const WorkloadStmt *st = def->stmts[i];

		if (st->spi_ok != 0)
			ops->execute(t, &wc->stmt[i], NULL, NULL);
		else if (st == &stmt_begin)
		{
			ops->control(t, &begin, st->sql);
			t->in_xact = t->explicit_block = true;
		}
		else
		{
			ops->control(t, &commit, st->sql);
			t->in_xact = t->explicit_block = false;
		}
	}
	if (implicit)
	{
		ops->commit_implicit(t);
		t->in_xact = false;
	}
}

/*
 * The draws of client number "client" (from 0) of a run with this seed:
 * pgbench's generator of that client's \set random(...).  Once per client,
 * before its first transaction.
 */
void
WorkloadSeed(uint64 seed, int client, pg_prng_state *rng)
{
	ScriptSeedClient(seed, client, rng);
}

static inline int64
draw(pg_prng_state *rng, int64 lo, int64 hi)
{
	return lo + (int64) pg_prng_uint64_range(rng, 0, (uint64) (hi - lo));
}

void
WorkloadDrawNext(const WorkloadParams *params, pg_prng_state *rng, WorkloadDraw *d)
{
	const WorkloadDef *def = &workload_defs[params->kind];
	int64		scale = params->scale;

	for (int i = 0; i < def->ndraws; i++)
	{
		const WorkloadDrawDef *dd = &def->draws[i];

		d->v[dd->var] = draw(rng, dd->lo, dd->per_scale ? dd->hi * scale : dd->hi);
	}
}

/*
 * One transaction's statements, in pgbench's order (accounts, tellers,
 * branches: no deadlocks under READ COMMITTED).  The caller owns the
 * transaction, SPI connection and snapshot.
 */
void
WorkloadExecute(const WorkloadParams *params, const WorkloadPlans *plans,
				const WorkloadDraw *d)
{
	bool		read_only = workload_defs[params->kind].read_only;
	bool		aid_bigint = params->aid_bigint;
	Datum		args[WORKLOAD_MAX_ARGS];

	for (int i = 0; i < plans->n; i++)
	{
		const WorkloadStmt *st = plans->stmt[i];
		int			rc;

		for (int a = 0; a < st->nargs; a++)
		{
			int64		v = d->v[st->args[a]];

			args[a] = st->args[a] == WVAR_AID && aid_bigint ? Int64GetDatum(v)
				: Int32GetDatum((int32) v);
		}
		rc = SPI_execute_plan(plans->plan[i], args, NULL, read_only, 0);
		if (rc != st->spi_ok)
			elog(ERROR, "workload statement failed: %s", SPI_result_code_string(rc));
	}
}
