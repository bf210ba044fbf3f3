/*-------------------------------------------------------------------------
 *
 * workload.c
 *		pgbench's built-in scripts: exactly its SQL, its draws and its
 *		transaction boundaries, run through plans saved once per client.
 *
 * Draws follow pgbench: uniform and inclusive, from a per-client pg_prng
 * state, in the order its scripts \set them (aid, bid, tid, delta); the
 * three ids are independent.  With a seed, client n's state is seeded as
 * pgbench --random-seed seeds its client n (WorkloadSeed), so that a run
 * of the same seed and clients draws, and commits, pgbench's rows; the
 * interpreter's copy of the script draws the same (ScriptSeedClients).  The tables are found once, in the launching
 * session through its search_path, and named with their schema in every
 * statement, and the operators are named with theirs (pgbench's text
 * otherwise), so no search_path can send a statement elsewhere.
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

#include "compat.h"
#include "script_expr.h"
#include "workload.h"

#define NACCOUNTS	100000
#define NTELLERS	10

static const char *const workload_names[] = {"tpcb-like", "simple-update", "select-only"};

WorkloadKind
WorkloadParse(const char *name)
{
	for (int i = 0; i < lengthof(workload_names); i++)
		if (strcmp(name, workload_names[i]) == 0)
			return (WorkloadKind) i;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unknown workload \"%s\"", name),
			 errhint("Valid workloads are tpcb-like, simple-update and select-only.")));
	pg_unreachable();
}

const char *
WorkloadName(WorkloadKind kind)
{
	return workload_names[kind];
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
 * what the workload does to them, and read the scale and the type of aid.
 */
void
WorkloadResolve(WorkloadParams *params)
{
	const char *why = WorkloadName(params->kind);
	RangeVar   *rv = makeRangeVar(NULL, "pgbench_accounts", -1);
	Oid			accounts = RangeVarGetRelid(rv, NoLock, true);
	Oid			nsp;
	StringInfoData sql;
	bool		isnull;
	AclMode		modify = ACL_SELECT | ACL_UPDATE;

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

	check_table(nsp, "pgbench_branches", ACL_SELECT, why);
	check_table(nsp, "pgbench_accounts",
				params->kind == WORKLOAD_SELECT_ONLY ? ACL_SELECT : modify, why);
	if (params->kind == WORKLOAD_TPCB)
	{
		check_table(nsp, "pgbench_tellers", modify, why);
		check_table(nsp, "pgbench_branches", modify, why);
	}
	if (params->kind != WORKLOAD_SELECT_ONLY)
		check_table(nsp, "pgbench_history", ACL_INSERT, why);
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

static SPIPlanPtr
prepare(const WorkloadParams *params, const char *fmt, int nargs, Oid *types)
{
	StringInfoData sql;
	SPIPlanPtr	plan;

	initStringInfo(&sql);
	appendStringInfo(&sql, fmt, quote_identifier(params->schema));
	plan = SPI_prepare(sql.data, nargs, types);
	if (plan == NULL)
		elog(ERROR, "SPI_prepare failed for \"%s\": %s", sql.data,
			 SPI_result_code_string(SPI_result));
	if (SPI_keepplan(plan) != 0)
		elog(ERROR, "SPI_keepplan failed");
	pfree(sql.data);
	return plan;
}

/* Prepare the workload's statements; SPI must be connected. */
void
WorkloadPrepare(const WorkloadParams *params, WorkloadPlans *plans)
{
	Oid			aidtype = params->aid_bigint ? INT8OID : INT4OID;
	Oid			upd[2] = {INT4OID, aidtype};
	Oid			sel[1] = {aidtype};
	Oid			upd_id[2] = {INT4OID, INT4OID};
	Oid			hist[4] = {INT4OID, INT4OID, aidtype, INT4OID};

	memset(plans, 0, sizeof(*plans));
	plans->select_account =
		prepare(params, "SELECT abalance FROM %s.pgbench_accounts WHERE aid OPERATOR(pg_catalog.=) $1",
				1, sel);
	if (params->kind == WORKLOAD_SELECT_ONLY)
		return;
	plans->update_account =
		prepare(params, "UPDATE %s.pgbench_accounts SET abalance = abalance OPERATOR(pg_catalog.+) $1 "
				"WHERE aid OPERATOR(pg_catalog.=) $2",
				2, upd);
	plans->insert_history =
		prepare(params, "INSERT INTO %s.pgbench_history (tid, bid, aid, delta, mtime) "
				"VALUES ($1, $2, $3, $4, CURRENT_TIMESTAMP)", 4, hist);
	if (params->kind != WORKLOAD_TPCB)
		return;
	plans->update_teller =
		prepare(params, "UPDATE %s.pgbench_tellers SET tbalance = tbalance OPERATOR(pg_catalog.+) $1 "
				"WHERE tid OPERATOR(pg_catalog.=) $2",
				2, upd_id);
	plans->update_branch =
		prepare(params, "UPDATE %s.pgbench_branches SET bbalance = bbalance OPERATOR(pg_catalog.+) $1 "
				"WHERE bid OPERATOR(pg_catalog.=) $2",
				2, upd_id);
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
	int64		scale = params->scale;

	d->aid = draw(rng, 1, NACCOUNTS * scale);
	if (params->kind == WORKLOAD_SELECT_ONLY)
		return;
	d->bid = (int32) draw(rng, 1, scale);
	d->tid = (int32) draw(rng, 1, NTELLERS * scale);
	d->delta = (int32) draw(rng, -5000, 5000);
}

static void
exec(SPIPlanPtr plan, Datum *values, bool read_only, int expect)
{
	int			rc = SPI_execute_plan(plan, values, NULL, read_only, 0);

	if (rc != expect)
		elog(ERROR, "workload statement failed: %s", SPI_result_code_string(rc));
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
	Datum		aid = params->aid_bigint ? Int64GetDatum(d->aid) : Int32GetDatum((int32) d->aid);
	Datum		args[4];

	if (params->kind == WORKLOAD_SELECT_ONLY)
	{
		args[0] = aid;
		exec(plans->select_account, args, true, SPI_OK_SELECT);
		return;
	}
	args[0] = Int32GetDatum(d->delta);
	args[1] = aid;
	exec(plans->update_account, args, false, SPI_OK_UPDATE);
	args[0] = aid;
	exec(plans->select_account, args, false, SPI_OK_SELECT);
	if (params->kind == WORKLOAD_TPCB)
	{
		args[0] = Int32GetDatum(d->delta);
		args[1] = Int32GetDatum(d->tid);
		exec(plans->update_teller, args, false, SPI_OK_UPDATE);
		args[1] = Int32GetDatum(d->bid);
		exec(plans->update_branch, args, false, SPI_OK_UPDATE);
	}
	args[0] = Int32GetDatum(d->tid);
	args[1] = Int32GetDatum(d->bid);
	args[2] = aid;
	args[3] = Int32GetDatum(d->delta);
	exec(plans->insert_history, args, false, SPI_OK_INSERT);
}
