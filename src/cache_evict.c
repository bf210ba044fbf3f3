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
 * What warm loads into shared buffers is what fits (see CacheWarmBudget):
 * pushing a relation larger than shared_buffers through them costs reading
 * all of it and leaves only its last blocks cached.  So a plan picks the
 * hottest blocks first (indexes, then tables, smaller before larger; the
 * last relation that does not fit gets its first blocks, by pg_prewarm's
 * block range) and they are loaded coldest first.  cold_vs_warm records
 * such a plan (warm_plan) and has its warm step load it (warm_blocks).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/relation.h"
#include "catalog/catalog.h"
#include "catalog/index.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "portability/instr_time.h"
#include "utils/acl.h"
#include "utils/array.h"
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
 * What fits in shared buffers.  Loading more blocks than shared_buffers
 * through them leaves only the last ones cached: the clock sweep evicts
 * the first to make room for the rest, so a table loaded before its indexes
 * is gone by the end and one loaded after them pushes them out.  warm()
 * (mode "buffer") and cold_vs_warm's warm step therefore load only what
 * fits: shared_buffers less a margin left for the catalogs, the lab's own
 * tables and whatever else the server reads meanwhile.  The margin is a
 * tenth of shared_buffers, but at least 4MB (at most a quarter): with small
 * shared_buffers the catalogs and the result tables alone take more than a
 * tenth (about 2.3MB of 16MB, measured after a cold_vs_warm).
 */
#define PGBL_WARM_MARGIN_MIN_BYTES (4 * 1024 * 1024)

static int64
warm_margin_of(int64 nbuffers)
{
	return Max((nbuffers + 9) / 10,
			   Min(PGBL_WARM_MARGIN_MIN_BYTES / BLCKSZ, nbuffers / 4));
}

int64
CacheWarmMargin(void)
{
	return warm_margin_of(NBuffers);
}

int64
CacheWarmBudget(void)
{
	return NBuffers - CacheWarmMargin();
}

/* The smallest shared_buffers, in blocks, whose budget holds so many. */
static int64
warm_needed(int64 blocks)
{
	int64		lo = blocks;
	int64		hi = blocks * 2 + 2 * PGBL_WARM_MARGIN_MIN_BYTES / BLCKSZ;

	while (lo < hi)
	{
		int64		mid = lo + (hi - lo) / 2;

		if (mid - warm_margin_of(mid) >= blocks)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/*
 * One relation of a warm: its size and how many of its blocks to load,
 * counted through its forks in warm_forks order (the main fork's first
 * blocks first).
 */
typedef struct WarmItem
{
	Oid			relid;
	const char *kind;
	bool		index;
	int64		blocks;			/* of the forks in warm_forks */
	int64		warm;			/* blocks to load */
	int			input;			/* position among the relations asked for */
} WarmItem;

/* Describe locked relations; every block is to be loaded. */
static WarmItem *
warm_items(List *relids)
{
	WarmItem   *items = palloc0(sizeof(WarmItem) * Max(list_length(relids), 1));

	for (int i = 0; i < list_length(relids); i++)
	{
		Relation	rel = relation_open(list_nth_oid(relids, i), NoLock);
		SMgrRelation smgr = RelationGetSmgr(rel);
		CacheRel	info;

		CacheDescribe(rel, &info);
		items[i].relid = info.relid;
		items[i].kind = info.kind;
		items[i].index = rel->rd_rel->relkind == RELKIND_INDEX;
		items[i].input = i;
		for (int f = 0; f < lengthof(warm_forks); f++)
		{
			ForkNumber	fork = forkname_to_number(warm_forks[f]);

			if (smgrexists(smgr, fork))
				items[i].blocks += smgrnblocks(smgr, fork);
		}
		items[i].warm = items[i].blocks;
		relation_close(rel, NoLock);
	}
	return items;
}

/*
 * Hottest first: indexes before tables (every lookup walks an index, and
 * an index is a fraction of its table's size), then the smaller before
 * the larger (a small table such as pgbench_branches is touched by every
 * transaction; the largest is the one whose blocks are each read least),
 * then in the order asked for.
 */
static int
warm_order(const void *a, const void *b)
{
	const WarmItem *x = (const WarmItem *) a;
	const WarmItem *y = (const WarmItem *) b;

	if (x->index != y->index)
		return x->index ? -1 : 1;
	if (x->blocks != y->blocks)
		return x->blocks < y->blocks ? -1 : 1;
	return x->input - y->input;
}

/* Sort the items hottest first and give each what is left of the budget. */
static void
warm_plan(WarmItem *items, int n, int64 budget)
{
	qsort(items, n, sizeof(WarmItem), warm_order);
	for (int i = 0; i < n; i++)
	{
		items[i].warm = Min(items[i].blocks, Max(budget, 0));
		budget -= items[i].warm;
	}
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
 * SPI plan calling <schema of pg_prewarm>.pg_prewarm(regclass, text, text,
 * int8, int8): the function installed by the pg_prewarm extension,
 * wherever it lives, for a range of blocks of one fork.
 */
static SPIPlanPtr
prepare_prewarm(void)
{
	Oid			argtypes[5] = {REGCLASSOID, TEXTOID, TEXTOID, INT8OID, INT8OID};
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
	plan = SPI_prepare(psprintf("SELECT %s.pg_prewarm($1, $2, $3, $4, $5)",
								quote_identifier(schema)),
					   5, argtypes);
	if (plan == NULL)
		elog(ERROR, "could not prepare pg_prewarm call: %s",
			 SPI_result_code_string(SPI_result));
	return plan;
}

/*
 * Load the first item->warm blocks of a locked relation, fork after fork,
 * each fork's from its first block: blocks loaded.  The forks are measured
 * again first: a relation can grow meanwhile, never shrink under our lock,
 * and pg_prewarm refuses a block past the end.
 */
static int64
warm_one(SPIPlanPtr plan, const WarmItem *item, const char *mode)
{
	Relation	rel = relation_open(item->relid, NoLock);
	SMgrRelation smgr = RelationGetSmgr(rel);
	int64		left = item->warm;
	int64		loaded = 0;

	for (int i = 0; i < lengthof(warm_forks) && left > 0; i++)
	{
		ForkNumber	fork = forkname_to_number(warm_forks[i]);
		Datum		args[5];
		bool		isnull;
		int64		count;

		CHECK_FOR_INTERRUPTS();
		if (!smgrexists(smgr, fork))
			continue;
		count = Min(left, (int64) smgrnblocks(smgr, fork));
		if (count <= 0)
			continue;
		args[0] = ObjectIdGetDatum(item->relid);
		args[1] = CStringGetTextDatum(mode);
		args[2] = CStringGetTextDatum(warm_forks[i]);
		args[3] = Int64GetDatum(0);
		args[4] = Int64GetDatum(count - 1);
		if (SPI_execute_plan(plan, args, NULL, false, 1) != SPI_OK_SELECT ||
			SPI_processed != 1)
			elog(ERROR, "pg_prewarm returned no row");
		loaded += DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0],
											  SPI_tuptable->tupdesc, 1,
											  &isnull));
		left -= count;
	}
	relation_close(rel, NoLock);
	return loaded;
}

/* Reverse a plan: it is loaded coldest first (see warm_load). */
static void
warm_reverse(WarmItem *items, int n)
{
	for (int i = 0; i < n / 2; i++)
	{
		WarmItem	swap = items[i];

		items[i] = items[n - 1 - i];
		items[n - 1 - i] = swap;
	}
}

/*
 * Load the items in the order of the array, which is coldest first for a
 * plan: should the clock sweep come round before the end (other relations
 * holding more than the margin), what it takes back is the least hot part.
 * One row per item, in the order the relations were asked for.
 */
static void
warm_load(ReturnSetInfo *rsinfo, WarmItem *items, int n, const char *mode)
{
	int64	   *loaded = palloc0(sizeof(int64) * Max(n, 1));
	double	   *seconds = palloc0(sizeof(double) * Max(n, 1));
	SPIPlanPtr	plan;

	SPI_connect();
	plan = prepare_prewarm();
	for (int i = 0; i < n; i++)
	{
		instr_time	start;
		instr_time	elapsed;

		INSTR_TIME_SET_CURRENT(start);
		loaded[items[i].input] = warm_one(plan, &items[i], mode);
		INSTR_TIME_SET_CURRENT(elapsed);
		INSTR_TIME_SUBTRACT(elapsed, start);
		seconds[items[i].input] = INSTR_TIME_GET_DOUBLE(elapsed);
	}
	SPI_finish();
	for (int pos = 0; pos < n; pos++)
	{
		const WarmItem *item = NULL;
		Datum		values[PGBL_WARM_COLS];
		bool		nulls[PGBL_WARM_COLS] = {0};

		for (int i = 0; i < n && item == NULL; i++)
			if (items[i].input == pos)
				item = &items[i];
		values[0] = ObjectIdGetDatum(item->relid);
		values[1] = CStringGetTextDatum(item->kind);
		values[2] = Int64GetDatum(loaded[pos]);
		values[3] = Float8GetDatum(seconds[pos]);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
}

static char *
size_pretty(int64 blocks)
{
	return text_to_cstring(DatumGetTextPP(DirectFunctionCall1(pg_size_pretty,
															  Int64GetDatum(blocks * BLCKSZ))));
}

/*
 * What a plan leaves out, in words: "only the first 1290 blocks (39%) of
 * pgbench_accounts, none of pgbench_history, the rest whole".
 */
static char *
warm_left_out(const WarmItem *items, int n)
{
	StringInfoData buf;
	bool		whole = false;

	initStringInfo(&buf);
	for (int i = 0; i < n; i++)
	{
		if (items[i].warm >= items[i].blocks)
		{
			whole = whole || items[i].blocks > 0;
			continue;
		}
		if (buf.len > 0)
			appendStringInfoString(&buf, ", ");
		if (items[i].warm == 0)
			appendStringInfo(&buf, "none of %s", get_rel_name(items[i].relid));
		else
			appendStringInfo(&buf, "only the first " INT64_FORMAT " blocks (%d%%) of %s",
							 items[i].warm, (int) (100 * items[i].warm / items[i].blocks),
							 get_rel_name(items[i].relid));
	}
	if (whole)
		appendStringInfoString(&buf, ", the rest whole");
	return buf.data;
}

/*
 * The warning of warm() on a relation that does not fit: what it is, why
 * loading it whole would not warm it, and what was loaded instead.
 */
static void
warn_too_big(Oid relid, const WarmItem *items, int n, int64 total)
{
	bool		indexes = false;
	bool		toast = false;

	for (int i = 0; i < n; i++)
	{
		indexes = indexes || (items[i].index && strcmp(items[i].kind, "index") == 0);
		toast = toast || strcmp(items[i].kind, "toast table") == 0;
	}
	ereport(WARNING,
			(errmsg("\"%s\"%s (" INT64_FORMAT " blocks, %s) does not fit in shared_buffers (%d buffers, %s)",
					get_rel_name(relid),
					indexes && toast ? " with its indexes and TOAST table" :
					indexes ? " with its indexes" : toast ? " with its TOAST table" : "",
					total, size_pretty(total), NBuffers, size_pretty(NBuffers)),
			 errdetail("Loaded whole through shared buffers, only its last blocks would stay cached. "
					   "warm() loaded what fits in shared_buffers less the margin it leaves to the rest of the server "
					   "(" INT64_FORMAT " blocks), hottest first (indexes, then tables, smaller first): %s.",
					   CacheWarmBudget(), warm_left_out(items, n)),
			 errhint("Give shared_buffers at least %s to hold it all, or warm it into the OS page cache with mode => 'read'.",
					 size_pretty(warm_needed(total)))));
}

/*
 * pgbench_lab.warm(rel regclass, mode text DEFAULT 'buffer',
 *					include_indexes bool DEFAULT true)
 *	RETURNS TABLE (relation regclass, kind text, blocks_loaded bigint,
 *				   seconds float8)
 *
 * In mode "buffer", a relation larger than shared_buffers less the margin
 * gets what fits, hottest first, and a WARNING saying what was left out.
 */
PG_FUNCTION_INFO_V1(pgbench_lab_warm);
Datum
pgbench_lab_warm(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	const char *mode;
	List	   *relids;
	WarmItem   *items;
	int			n;
	int64		total = 0;

	refuse_null(fcinfo, 0, "rel");
	refuse_null(fcinfo, 1, "mode");
	refuse_null(fcinfo, 2, "include_indexes");
	mode = check_mode(PG_GETARG_TEXT_PP(1));
	CacheCheckSelect(PG_GETARG_OID(0));

	InitMaterializedSRF(fcinfo, 0);
	relids = CacheTargetRelids(PG_GETARG_OID(0), PG_GETARG_BOOL(2),
							   AccessShareLock);
	relids = readable_relids(relids);
	n = list_length(relids);
	items = warm_items(relids);
	for (int i = 0; i < n; i++)
		total += items[i].blocks;
	if (strcmp(mode, "buffer") == 0)
	{
		warm_plan(items, n, CacheWarmBudget());
		if (total > CacheWarmBudget())
			warn_too_big(PG_GETARG_OID(0), items, n, total);
		warm_reverse(items, n);
	}
	warm_load(rsinfo, items, n, mode);
	return (Datum) 0;
}

/* The relations of a regclass[], each checked as warm() checks its own. */
static List *
warm_array_relids(ArrayType *rels, bool expand)
{
	Datum	   *elems;
	bool	   *nulls;
	int			n;
	List	   *relids = NIL;

	deconstruct_array(rels, REGCLASSOID, sizeof(Oid), true, TYPALIGN_INT,
					  &elems, &nulls, &n);
	for (int i = 0; i < n; i++)
	{
		ListCell   *lc;

		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("rels must not contain null"),
					 errhint("Pass tables, indexes or TOAST tables, each once.")));
		CacheCheckSelect(DatumGetObjectId(elems[i]));
		/* without expand, each relation stands for itself */
		foreach(lc, CacheTargetRelids(DatumGetObjectId(elems[i]), expand, AccessShareLock))
		{
			if (expand || lfirst_oid(lc) == DatumGetObjectId(elems[i]))
				relids = list_append_unique_oid(relids, lfirst_oid(lc));
		}
	}
	return relids;
}

/*
 * pgbench_lab_internal.warm_budget(OUT shared_buffers bigint,
 *									 OUT margin bigint, OUT budget bigint)
 *	In blocks: shared_buffers, the margin left to the rest of the server,
 *	and what a warm may load.
 */
PG_FUNCTION_INFO_V1(pgbench_lab_warm_budget);
Datum
pgbench_lab_warm_budget(PG_FUNCTION_ARGS)
{
	TupleDesc	tupdesc;
	Datum		values[3];
	bool		nulls[3] = {0};

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	values[0] = Int64GetDatum(NBuffers);
	values[1] = Int64GetDatum(CacheWarmMargin());
	values[2] = Int64GetDatum(CacheWarmBudget());
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/*
 * pgbench_lab_internal.warm_needed(blocks bigint) RETURNS bigint
 *	The smallest shared_buffers (in blocks) whose budget holds so many.
 */
PG_FUNCTION_INFO_V1(pgbench_lab_warm_needed);
Datum
pgbench_lab_warm_needed(PG_FUNCTION_ARGS)
{
	int64		blocks = PG_GETARG_INT64(0);

	if (blocks < 0 || blocks > PG_INT64_MAX / 4)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("blocks must be from 0 to " INT64_FORMAT, PG_INT64_MAX / 4),
				 errhint("Pass a number of blocks of block_size bytes.")));
	PG_RETURN_INT64(warm_needed(blocks));
}

/*
 * pgbench_lab_internal.warm_plan(rels regclass[], budget bigint)
 *	RETURNS TABLE (relation regclass, kind text, blocks bigint,
 *				   warm_blocks bigint)
 *
 * What a warm of the relations (with their indexes and TOAST) loads within
 * the budget, hottest first, one row per relation in that order; loads
 * nothing.  cold_vs_warm records it before its runs, and its warm step
 * loads exactly that with warm_blocks().
 */
PG_FUNCTION_INFO_V1(pgbench_lab_warm_plan);
Datum
pgbench_lab_warm_plan(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	List	   *relids;
	WarmItem   *items;
	int			n;

	refuse_null(fcinfo, 0, "rels");
	refuse_null(fcinfo, 1, "budget");
	if (PG_GETARG_INT64(1) < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("budget must not be negative"),
				 errhint("Pass a number of blocks, such as budget from pgbench_lab_internal.warm_budget().")));
	InitMaterializedSRF(fcinfo, 0);
	relids = warm_array_relids(PG_GETARG_ARRAYTYPE_P(0), true);
	n = list_length(relids);
	items = warm_items(relids);
	warm_plan(items, n, PG_GETARG_INT64(1));
	for (int i = 0; i < n; i++)
	{
		Datum		values[4];
		bool		nulls[4] = {0};

		values[0] = ObjectIdGetDatum(items[i].relid);
		values[1] = CStringGetTextDatum(items[i].kind);
		values[2] = Int64GetDatum(items[i].blocks);
		values[3] = Int64GetDatum(items[i].warm);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

/*
 * pgbench_lab_internal.warm_blocks(rels regclass[], blocks bigint[])
 *	RETURNS TABLE (relation regclass, kind text, blocks_loaded bigint,
 *				   seconds float8)
 *
 * Loads into shared buffers the first blocks[i] blocks of rels[i] (each
 * relation alone: an index or a TOAST table is named itself), in the order
 * given: a plan of warm_plan(), coldest first.
 */
PG_FUNCTION_INFO_V1(pgbench_lab_warm_blocks);
Datum
pgbench_lab_warm_blocks(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	ArrayType  *counts;
	Datum	   *elems;
	bool	   *nulls;
	int			n;
	List	   *relids;
	WarmItem   *items;

	refuse_null(fcinfo, 0, "rels");
	refuse_null(fcinfo, 1, "blocks");
	counts = PG_GETARG_ARRAYTYPE_P(1);
	deconstruct_array(counts, INT8OID, sizeof(int64), FLOAT8PASSBYVAL, TYPALIGN_DOUBLE,
					  &elems, &nulls, &n);
	InitMaterializedSRF(fcinfo, 0);
	relids = warm_array_relids(PG_GETARG_ARRAYTYPE_P(0), false);
	if (list_length(relids) != n ||
		ArrayGetNItems(ARR_NDIM(PG_GETARG_ARRAYTYPE_P(0)), ARR_DIMS(PG_GETARG_ARRAYTYPE_P(0))) != n)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("rels and blocks must have one element per relation, each relation once"),
				 errhint("Pass blocks[i] for rels[i], as pgbench_lab_internal.warm_plan() returns them.")));
	items = warm_items(relids);
	for (int i = 0; i < n; i++)
	{
		if (nulls[i] || DatumGetInt64(elems[i]) < 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("blocks must hold no null and no negative number"),
					 errhint("Each element is how many blocks of its relation to load, from its first.")));
		items[i].warm = DatumGetInt64(elems[i]);
	}
	warm_load(rsinfo, items, n, "buffer");
	return (Datum) 0;
}
