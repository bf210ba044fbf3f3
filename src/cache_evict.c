/*-------------------------------------------------------------------------
 *
 * cache_evict.c
 *		make_cold: a relation out of shared buffers and the OS page cache,
 *		without a restart; warm: back in, through pg_prewarm.
 *
 * make_cold must never lose a write.  PostgreSQL 17 and later evict
 * unpinned buffers themselves, writing dirty ones first, so there it takes
 * AccessShareLock and readers carry on (they read the pages back in).
 * PostgreSQL 15 and 16 have no eviction, only the truncate path's "forget
 * these buffers", which throws dirty pages away; there make_cold takes
 * AccessExclusiveLock on the table and each index, so that nobody can dirty
 * a page between its flush and the drop.  It waits for that lock like any
 * DDL (lock_timeout, statement_timeout and cancel apply) and holds it until
 * the transaction ends.  compat.h holds both ways.
 *
 * Then, when asked, each segment file is written back (fsync) and dropped
 * from the OS page cache (posix_fadvise DONTNEED); mincore() before and
 * after tells how much went.  Only the kernel decides what actually leaves,
 * so the figures are measured, not assumed.
 *
 * Evicting reaches any buffer and slows every session, so make_cold checks
 * for superuser in C, whatever EXECUTE grants say, and refuses the system
 * catalogs.  warm never reimplements pg_prewarm: it calls the one installed
 * with the pg_prewarm extension, as the caller, through SPI.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "catalog/catalog.h"
#include "catalog/index.h"
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "portability/instr_time.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "pgbench_lab.h"
#include "cache.h"

#define PGBL_MAKE_COLD_COLS 7
#define PGBL_WARM_COLS 4

/* The forks pg_prewarm is asked to load, when they exist. */
static const char *const warm_forks[] = {"main", "fsm", "vm"};

static void
refuse_null(FunctionCallInfo fcinfo, int argno, const char *name)
{
	if (PG_ARGISNULL(argno))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s must not be null", name)));
}

/*
 * System catalogs (and TOAST tables, which belong to their table) are
 * refused before any lock is queued on them.
 */
static void
refuse_catalog(Oid relid)
{
	Oid			nsp = get_rel_namespace(relid);

	if (!OidIsValid(nsp))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid)));
	if (IsCatalogRelationOid(relid) || IsCatalogNamespace(nsp))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied: \"%s\" is a system catalog",
						get_rel_name(relid)),
				 errdetail("make_cold never evicts the system catalogs.")));
	if (IsToastNamespace(nsp))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is a TOAST relation", get_rel_name(relid)),
				 errhint("Pass the table that owns it; its TOAST table is included.")));
}

/* Evict one locked relation; fill its row of make_cold. */
static void
evict_one(CacheRel *before, bool os_cache, Datum *values)
{
	Relation	rel = relation_open(before->relid, NoLock);
	int64		flushed;
	int64		os_before;
	int64		os_after;

	/* refuse_catalog ran before the locks; this cannot happen */
	if (IsCatalogRelation(rel))
		elog(ERROR, "make_cold reached system catalog \"%s\"",
			 RelationGetRelationName(rel));
	flushed = pgbl_evict_relation_buffers(rel);
	if (flushed < 0)
		flushed = before->dirty;
	os_before = CacheOsPages(rel, os_cache, &os_after);
	relation_close(rel, NoLock);

	values[0] = ObjectIdGetDatum(before->relid);
	values[1] = CStringGetTextDatum(before->kind);
	values[3] = Int64GetDatum(flushed);
	values[5] = Int64GetDatum(os_before - os_after);
	values[6] = Int64GetDatum(os_after);
}

/*
 * pgbench_lab.make_cold(rel regclass, include_indexes bool DEFAULT true,
 *						 os_cache bool DEFAULT true)
 *	RETURNS TABLE (relation regclass, kind text, buffers_evicted bigint,
 *				   dirty_written bigint, buffers_left bigint,
 *				   os_pages_dropped bigint, os_pages_left bigint)
 */
PG_FUNCTION_INFO_V1(pgbench_lab_make_cold);
Datum
pgbench_lab_make_cold(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	List	   *relids;
	CacheRel   *rels;
	CacheRel   *after;
	Datum	   *values;
	bool		nulls[PGBL_MAKE_COLD_COLS] = {0};
	int			n;

	if (!superuser())
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for function make_cold"),
				 errdetail("Only superusers may evict buffers: it affects every session.")));
	refuse_null(fcinfo, 0, "rel");
	refuse_null(fcinfo, 1, "include_indexes");
	refuse_null(fcinfo, 2, "os_cache");
	refuse_catalog(PG_GETARG_OID(0));

	InitMaterializedSRF(fcinfo, 0);
	relids = CacheTargetRelids(PG_GETARG_OID(0), PG_GETARG_BOOL(1),
							   PGBL_EVICT_LOCKMODE);
	n = list_length(relids);
	rels = palloc0(sizeof(CacheRel) * n);
	after = palloc0(sizeof(CacheRel) * n);
	values = palloc0(sizeof(Datum) * PGBL_MAKE_COLD_COLS * n);
	for (int i = 0; i < n; i++)
	{
		Relation	rel = relation_open(list_nth_oid(relids, i), NoLock);

		CacheDescribe(rel, &rels[i]);
		relation_close(rel, NoLock);
	}
	CacheCountBuffers(rels, n);
	for (int i = 0; i < n; i++)
		evict_one(&rels[i], PG_GETARG_BOOL(2), &values[i * PGBL_MAKE_COLD_COLS]);

	memcpy(after, rels, sizeof(CacheRel) * n);
	CacheCountBuffers(after, n);
	for (int i = 0; i < n; i++)
	{
		Datum	   *row = &values[i * PGBL_MAKE_COLD_COLS];

		row[2] = Int64GetDatum(Max(rels[i].buffers - after[i].buffers, 0));
		row[4] = Int64GetDatum(after[i].buffers);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, row, nulls);
	}
	return (Datum) 0;
}

/*
 * pg_prewarm wants SELECT on each relation it loads.  Indexes and TOAST
 * tables have no grants of their own (only their owner has it, and, on
 * recent minor releases, pg_prewarm looks at an index's table instead), so
 * a role that may read a table but does not own it gets the table warmed
 * and a notice for the rest, rather than an error halfway.
 */
static List *
readable_relids(List *relids)
{
	List	   *result = list_make1_oid(linitial_oid(relids));

	for (int i = 1; i < list_length(relids); i++)
	{
		Oid			relid = list_nth_oid(relids, i);

		if (pg_class_aclcheck(relid, GetUserId(), ACL_SELECT) == ACLCHECK_OK)
			result = lappend_oid(result, relid);
		else
			ereport(NOTICE,
					(errmsg("skipping \"%s\": pg_prewarm needs SELECT on it",
							get_rel_name(relid)),
					 errdetail("Only the owner of \"%s\" may warm its indexes and TOAST table.",
							   get_rel_name(linitial_oid(relids)))));
	}
	return result;
}

static const char *
check_mode(text *arg)
{
	char	   *mode = text_to_cstring(arg);

	if (strcmp(mode, "buffer") != 0 && strcmp(mode, "read") != 0 &&
		strcmp(mode, "prefetch") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid warm mode \"%s\"", mode),
				 errhint("Valid modes are \"buffer\" (into shared buffers), \"read\" (into the OS page cache) and \"prefetch\" (asynchronous OS read-ahead).")));
	return mode;
}

/*
 * SPI plan calling <schema of pg_prewarm>.pg_prewarm(regclass, text, text):
 * the function installed by the pg_prewarm extension, wherever it lives.
 */
static SPIPlanPtr
prepare_prewarm(void)
{
	Oid			argtypes[3] = {REGCLASSOID, TEXTOID, TEXTOID};
	bool		isnull;
	char	   *schema;
	SPIPlanPtr	plan;

	if (SPI_execute("SELECT n.nspname FROM pg_catalog.pg_extension e"
					" JOIN pg_catalog.pg_namespace n"
					" ON n.oid OPERATOR(pg_catalog.=) e.extnamespace"
					" WHERE e.extname OPERATOR(pg_catalog.=) 'pg_prewarm'",
					true, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not look up extension pg_prewarm");
	if (SPI_processed == 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("extension \"pg_prewarm\" is not installed"),
				 errhint("Run CREATE EXTENSION pg_prewarm.")));
	schema = NameStr(*DatumGetName(SPI_getbinval(SPI_tuptable->vals[0],
												 SPI_tuptable->tupdesc, 1,
												 &isnull)));
	plan = SPI_prepare(psprintf("SELECT %s.pg_prewarm($1, $2, $3)",
								quote_identifier(schema)),
					   3, argtypes);
	if (plan == NULL)
		elog(ERROR, "could not prepare pg_prewarm call: %s",
			 SPI_result_code_string(SPI_result));
	return plan;
}

/* Warm every existing fork of one relation; blocks loaded. */
static int64
warm_one(SPIPlanPtr plan, Oid relid, const char *mode)
{
	Relation	rel = relation_open(relid, NoLock);
	int64		loaded = 0;

	for (int i = 0; i < lengthof(warm_forks); i++)
	{
		Datum		args[3];
		bool		isnull;

		CHECK_FOR_INTERRUPTS();
		if (!smgrexists(RelationGetSmgr(rel), forkname_to_number(warm_forks[i])))
			continue;
		args[0] = ObjectIdGetDatum(relid);
		args[1] = CStringGetTextDatum(mode);
		args[2] = CStringGetTextDatum(warm_forks[i]);
		if (SPI_execute_plan(plan, args, NULL, false, 1) != SPI_OK_SELECT ||
			SPI_processed != 1)
			elog(ERROR, "pg_prewarm returned no row");
		loaded += DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0],
											  SPI_tuptable->tupdesc, 1,
											  &isnull));
	}
	relation_close(rel, NoLock);
	return loaded;
}

/*
 * pgbench_lab.warm(rel regclass, mode text DEFAULT 'buffer',
 *					include_indexes bool DEFAULT true)
 *	RETURNS TABLE (relation regclass, kind text, blocks_loaded bigint,
 *				   seconds float8)
 */
PG_FUNCTION_INFO_V1(pgbench_lab_warm);
Datum
pgbench_lab_warm(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	const char *mode;
	List	   *relids;
	ListCell   *lc;
	SPIPlanPtr	plan;

	refuse_null(fcinfo, 0, "rel");
	refuse_null(fcinfo, 1, "mode");
	refuse_null(fcinfo, 2, "include_indexes");
	mode = check_mode(PG_GETARG_TEXT_PP(1));
	CacheCheckSelect(PG_GETARG_OID(0));

	InitMaterializedSRF(fcinfo, 0);
	relids = CacheTargetRelids(PG_GETARG_OID(0), PG_GETARG_BOOL(2),
							   AccessShareLock);
	relids = readable_relids(relids);
	SPI_connect();
	plan = prepare_prewarm();
	foreach(lc, relids)
	{
		Datum		values[PGBL_WARM_COLS];
		bool		nulls[PGBL_WARM_COLS] = {0};
		instr_time	start;
		instr_time	elapsed;
		int64		loaded;
		Relation	rel = relation_open(lfirst_oid(lc), NoLock);
		CacheRel	info;

		CacheDescribe(rel, &info);
		relation_close(rel, NoLock);
		INSTR_TIME_SET_CURRENT(start);
		loaded = warm_one(plan, lfirst_oid(lc), mode);
		INSTR_TIME_SET_CURRENT(elapsed);
		INSTR_TIME_SUBTRACT(elapsed, start);

		values[0] = ObjectIdGetDatum(info.relid);
		values[1] = CStringGetTextDatum(info.kind);
		values[2] = Int64GetDatum(loaded);
		values[3] = Float8GetDatum(INSTR_TIME_GET_DOUBLE(elapsed));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	SPI_finish();
	return (Datum) 0;
}
