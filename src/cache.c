/*-------------------------------------------------------------------------
 *
 * cache.c
 *		Where a relation's pages are: shared buffers and the operating
 *		system's page cache (cache_status, which the SQL function
 *		cache_snapshot() of sql/code/api/50_cache.sql also records).
 *
 * cache_status must be cheap enough to call while a benchmark runs, so it
 * makes one pass over the buffer descriptors whatever the number of
 * relations: the relations of interest go into a hash table keyed by their
 * file identity (tablespace, database, file number), and each buffer's tag
 * is looked up there.  Each header is read under its spinlock, as the buffer
 * manager itself does, and nothing else is locked: no buffer is pinned and no
 * content lock taken, so the figures are a moment's picture, not a
 * consistent snapshot.  OS residency comes from mincore() on each segment
 * file of each fork, mapped read-only and unmapped at once.
 *
 * With no relation given, every relation of the current database with
 * storage is looked at, but a relation whose lock cannot be had at once (an
 * ALTER TABLE, a make_cold on PostgreSQL 15) is left out instead of waited
 * for, and locks are released as soon as the size is read.
 *
 * The make_cold and warm functions live in cache_evict.c.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <math.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/relation.h"
#include "access/table.h"
#include "catalog/catalog.h"
#include "catalog/index.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/fd.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/hsearch.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "pgbench_lab.h"
#include "cache.h"

/* Relations smaller than this are left out of cache_status(NULL). */
static int	pgbl_cache_min_size = 128;	/* blocks: 1MB */

#define PGBL_CACHE_STATUS_COLS 9

/* hash entry of CacheCountBuffers: a file identity and its relation */
typedef struct CacheRelEntry
{
	CacheRelKey key;
	CacheRel   *rel;
} CacheRelEntry;

void
CacheInit(void)
{
	DefineCustomIntVariable(PGBL_GUC_PREFIX ".cache_min_size",
							"Smallest relation that cache_status() and cache_snapshot() list when given no relation.",
							NULL,
							&pgbl_cache_min_size,
							128,
							0,
							INT_MAX,
							PGC_USERSET,
							GUC_UNIT_BLOCKS,
							NULL, NULL, NULL);
}

/*
 * Lock the relations of a list (indexes of a locked table) and append those
 * that still exist once locked.
 */
static List *
append_locked(List *result, List *relids, LOCKMODE lockmode)
{
	ListCell   *lc;

	foreach(lc, relids)
	{
		Oid			relid = lfirst_oid(lc);

		LockRelationOid(relid, lockmode);
		if (SearchSysCacheExists1(RELOID, ObjectIdGetDatum(relid)))
			result = lappend_oid(result, relid);
		else
			UnlockRelationOid(relid, lockmode);
	}
	return result;
}

/*
 * The relations one call acts on, locked in the order queries lock them
 * (the table, then its indexes): the relation itself, its TOAST table, and
 * with include_indexes its indexes and the TOAST table's index.  Kinds
 * without storage and temporary relations (local buffers, not shared ones)
 * are refused before any lock is taken.
 */
List *
CacheTargetRelids(Oid relid, bool include_indexes, LOCKMODE lockmode)
{
	char		relkind = get_rel_relkind(relid);
	List	   *result = list_make1_oid(relid);
	Relation	rel;
	Oid			toastid;

	if (relkind == '\0')
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid)));
	if (!RELKIND_HAS_STORAGE(relkind))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("relation \"%s\" has no storage", get_rel_name(relid)),
				 errhint("Pass a table, index, materialized view or sequence; for a partitioned table, each partition.")));
	if (get_rel_persistence(relid) == RELPERSISTENCE_TEMP)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("relation \"%s\" is temporary", get_rel_name(relid)),
				 errdetail("Temporary relations live in their session's local buffers, not in shared buffers.")));

	rel = relation_open(relid, lockmode);
	toastid = rel->rd_rel->reltoastrelid;
	if (include_indexes)
		result = append_locked(result, RelationGetIndexList(rel), lockmode);
	if (OidIsValid(toastid))
	{
		Relation	toast = relation_open(toastid, lockmode);

		result = lappend_oid(result, toastid);
		if (include_indexes)
			result = append_locked(result, RelationGetIndexList(toast), lockmode);
		relation_close(toast, NoLock);
	}
	relation_close(rel, NoLock);
	return result;
}

/*
 * SELECT on the table (for an index, its table) before any lock is taken,
 * so that a role without it cannot queue locks on someone else's table (a
 * lock queued behind an ALTER TABLE holds up every reader after it).
 */
void
CacheCheckSelect(Oid relid)
{
	Oid			table = relid;
	AclResult	aclresult;

	if (get_rel_relkind(relid) == RELKIND_INDEX)
		table = IndexGetRelation(relid, false);
	aclresult = pg_class_aclcheck(table, GetUserId(), ACL_SELECT);
	if (aclresult != ACLCHECK_OK)
		aclcheck_error(aclresult, get_relkind_objtype(get_rel_relkind(table)),
					   get_rel_name(table));
}

/*
 * Every relation of the current database that has storage in shared
 * buffers: no shared catalogs (those belong to every database), no
 * temporary relations.
 */
static List *
database_relids(void)
{
	Relation	pg_class = table_open(RelationRelationId, AccessShareLock);
	SysScanDesc scan = systable_beginscan(pg_class, InvalidOid, false,
										  NULL, 0, NULL);
	HeapTuple	tuple;
	List	   *result = NIL;

	while (HeapTupleIsValid(tuple = systable_getnext(scan)))
	{
		Form_pg_class form = (Form_pg_class) GETSTRUCT(tuple);

		CHECK_FOR_INTERRUPTS();
		if (RELKIND_HAS_STORAGE(form->relkind) && !form->relisshared &&
			form->relpersistence != RELPERSISTENCE_TEMP)
			result = lappend_oid(result, form->oid);
	}
	systable_endscan(scan);
	table_close(pg_class, AccessShareLock);
	return result;
}

static const char *
relation_kind(Relation rel)
{
	bool		toast = IsToastNamespace(RelationGetNamespace(rel));

	switch (rel->rd_rel->relkind)
	{
		case RELKIND_RELATION:
			return "table";
		case RELKIND_TOASTVALUE:
			return "toast table";
		case RELKIND_INDEX:
			return toast ? "toast index" : "index";
		case RELKIND_MATVIEW:
			return "materialized view";
		case RELKIND_SEQUENCE:
			return "sequence";
		default:
			return "other";
	}
}

/* Identity, kind and size (all forks) of an open relation. */
void
CacheDescribe(Relation rel, CacheRel *out)
{
	SMgrRelation smgr = RelationGetSmgr(rel);

	memset(out, 0, sizeof(CacheRel));
	out->key.spcoid = PGBL_REL_SPC(rel);
	out->key.dboid = PGBL_REL_DB(rel);
	out->key.filenumber = PGBL_REL_FILENUMBER(rel);
	out->relid = RelationGetRelid(rel);
	out->kind = relation_kind(rel);
	for (int fork = 0; fork <= MAX_FORKNUM; fork++)
	{
		if (smgrexists(smgr, (ForkNumber) fork))
			out->blocks += smgrnblocks(smgr, (ForkNumber) fork);
	}
}

/*
 * One pass over the buffer descriptors: count, for each relation, its valid
 * buffers, the dirty ones and their usage counts.  The tag and the state are
 * read together under the header spinlock (held for two reads, never across
 * anything that can fail); the hash lookup happens after it is released.
 */
void
CacheCountBuffers(CacheRel *rels, int nrels)
{
	HASHCTL		ctl;
	HTAB	   *byfile;

	ctl.keysize = sizeof(CacheRelKey);
	ctl.entrysize = sizeof(CacheRelEntry);
	ctl.hcxt = CurrentMemoryContext;
	byfile = hash_create("pgbench_lab cache relations", Max(nrels, 16), &ctl,
						 HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	for (int i = 0; i < nrels; i++)
	{
		bool		found;
		CacheRelEntry *entry = hash_search(byfile, &rels[i].key,
										   HASH_ENTER, &found);

		entry->rel = &rels[i];
		rels[i].buffers = rels[i].dirty = rels[i].usage_sum = 0;
	}

	for (int i = 0; i < NBuffers; i++)
	{
		BufferDesc *desc = GetBufferDescriptor(i);
		CacheRelKey key;
		uint32		state;
		CacheRelEntry *entry;
		CacheRel   *rel;

		if ((i & 1023) == 0)
			CHECK_FOR_INTERRUPTS();
		/* unused buffers need no lock to be skipped */
		if (!(pg_atomic_read_u32(&desc->state) & BM_TAG_VALID))
			continue;
		state = LockBufHdr(desc);
		key.spcoid = PGBL_BUFTAG_SPC(&desc->tag);
		key.dboid = PGBL_BUFTAG_DB(&desc->tag);
		key.filenumber = PGBL_BUFTAG_FILENUMBER(&desc->tag);
		UnlockBufHdr(desc, state);

		if ((state & (BM_VALID | BM_TAG_VALID)) != (BM_VALID | BM_TAG_VALID))
			continue;
		entry = hash_search(byfile, &key, HASH_FIND, NULL);
		if (entry == NULL)
			continue;
		rel = entry->rel;
		rel->buffers++;
		if (state & BM_DIRTY)
			rel->dirty++;
		rel->usage_sum += BUF_STATE_GET_USAGECOUNT(state);
	}
	hash_destroy(byfile);
}

/*
 * Resident OS pages of one open file: map it read-only, ask mincore(),
 * unmap.  Nothing is read from the mapping, so a file that shrinks meanwhile
 * cannot fault.
 */
static int64
file_resident_pages(int fd, const char *path)
{
	struct stat st;
	long		pagesize = sysconf(_SC_PAGESIZE);
	size_t		npages;
	unsigned char *vec;
	void	   *map;
	int64		resident = 0;
	int			rc;
	int			save_errno;

	if (fstat(fd, &st) < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not stat file \"%s\": %m", path)));
	if (st.st_size == 0)
		return 0;
	npages = (st.st_size + pagesize - 1) / pagesize;
	map = mmap(NULL, st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not map file \"%s\": %m", path)));
	vec = palloc(npages);
	rc = mincore(map, st.st_size, vec);
	save_errno = errno;
	munmap(map, st.st_size);
	if (rc < 0)
	{
		errno = save_errno;
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not get page cache residency of file \"%s\": %m", path)));
	}
	for (size_t i = 0; i < npages; i++)
		resident += vec[i] & 1;
	pfree(vec);
	return resident;
}

/*
 * Write back and drop one file's pages from the OS page cache.  fsync(2)
 * itself, not pg_fsync: only clean pages can be dropped, so this must write
 * even with fsync = off.  A failed fsync is treated as the server treats it
 * (PANIC unless data_sync_retry), because the kernel may since have marked
 * the failed pages clean and a later checkpoint would never learn of it.
 */
static void
file_drop_pages(int fd, const char *path)
{
	int			rc;

	if (fsync(fd) != 0)
		ereport(data_sync_elevel(ERROR),
				(errcode_for_file_access(),
				 errmsg("could not fsync file \"%s\": %m", path)));
	rc = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	if (rc != 0)
	{
		errno = rc;
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not advise the kernel to drop file \"%s\": %m", path)));
	}
}

/*
 * Resident OS pages of every segment file of every fork of a relation
 * ("16384", "16384.1", ..., "16384_fsm", "16384_vm"); with drop, each file is
 * written back and dropped too and *after counts what stayed.  A fork or
 * segment that does not exist ends that fork's walk; empty segments left by
 * a truncation count zero.
 */
int64
CacheOsPages(Relation rel, bool drop, int64 *after)
{
	int64		before = 0;

	*after = 0;
	for (int fork = 0; fork <= MAX_FORKNUM; fork++)
	{
		char	   *base = pgbl_relation_fork_path(rel, (ForkNumber) fork);

		for (uint32 segno = 0;; segno++)
		{
			char	   *path = segno == 0 ? pstrdup(base) : psprintf("%s.%u", base, segno);
			int			fd = OpenTransientFile(path, (drop ? O_RDWR : O_RDONLY) | PG_BINARY);
			int64		pages;

			CHECK_FOR_INTERRUPTS();
			if (fd < 0)
			{
				if (errno == ENOENT)
					break;
				ereport(ERROR,
						(errcode_for_file_access(),
						 errmsg("could not open file \"%s\": %m", path)));
			}
			pages = file_resident_pages(fd, path);
			before += pages;
			if (drop)
			{
				file_drop_pages(fd, path);
				pages = file_resident_pages(fd, path);
			}
			*after += pages;
			CloseTransientFile(fd);
			pfree(path);
		}
		pfree(base);
	}
	return before;
}

/*
 * Describe the listed relations.  With "conditional", a relation that is
 * locked against readers at this moment, or gone, is skipped rather than
 * waited for, its lock is released once it is measured, and relations below
 * pgbench_lab.cache_min_size are left out; otherwise the relations are
 * locked already.  Returns how many went into "out".
 */
static int
describe_relids(List *relids, bool conditional, CacheRel *out)
{
	ListCell   *lc;
	int			n = 0;

	foreach(lc, relids)
	{
		Oid			relid = lfirst_oid(lc);
		Relation	rel;
		int64		unused;

		CHECK_FOR_INTERRUPTS();
		if (conditional)
		{
			if (!ConditionalLockRelationOid(relid, AccessShareLock))
				continue;
			if (!SearchSysCacheExists1(RELOID, ObjectIdGetDatum(relid)))
			{
				UnlockRelationOid(relid, AccessShareLock);
				continue;
			}
		}
		rel = relation_open(relid, NoLock);
		CacheDescribe(rel, &out[n]);
		if (!conditional || out[n].blocks >= pgbl_cache_min_size)
		{
			out[n].os_pages = CacheOsPages(rel, false, &unused);
			n++;
		}
		relation_close(rel, NoLock);
		if (conditional)
			UnlockRelationOid(relid, AccessShareLock);
	}
	return n;
}

/* 100 * part / whole rounded to 0.1, NULL when the whole is zero */
static Datum
percent(double part, double whole, bool *isnull)
{
	*isnull = (whole <= 0);
	return Float8GetDatum(*isnull ? 0 : rint(1000.0 * part / whole) / 10.0);
}

static void
put_status_row(ReturnSetInfo *rsinfo, const CacheRel *r)
{
	Datum		values[PGBL_CACHE_STATUS_COLS];
	bool		nulls[PGBL_CACHE_STATUS_COLS] = {0};
	double		os_blocks = (double) r->os_pages * sysconf(_SC_PAGESIZE) / BLCKSZ;

	values[0] = ObjectIdGetDatum(r->relid);
	values[1] = CStringGetTextDatum(r->kind);
	values[2] = Int64GetDatum(r->blocks);
	values[3] = Int64GetDatum(r->buffers);
	values[4] = Int64GetDatum(r->dirty);
	nulls[5] = (r->buffers == 0);
	values[5] = Float8GetDatum(nulls[5] ? 0 :
							   rint(100.0 * r->usage_sum / r->buffers) / 100.0);
	values[6] = percent(r->buffers, r->blocks, &nulls[6]);
	values[7] = Int64GetDatum(r->os_pages);
	values[8] = percent(os_blocks, r->blocks, &nulls[8]);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

/*
 * pgbench_lab.cache_status(rel regclass DEFAULT NULL)
 *	RETURNS TABLE (relation regclass, kind text, blocks bigint,
 *				   buffers bigint, buffers_dirty bigint,
 *				   usage_count_avg float8, buffers_pct float8,
 *				   os_pages bigint, os_pct float8)
 *
 * One row per relation: "rel" with its TOAST table and all their indexes,
 * or, when NULL, every relation of the database of at least
 * pgbench_lab.cache_min_size.
 */
PG_FUNCTION_INFO_V1(pgbench_lab_cache_status);
Datum
pgbench_lab_cache_status(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	bool		all = PG_ARGISNULL(0);
	List	   *relids;
	CacheRel   *rels;
	int			nrels;

	InitMaterializedSRF(fcinfo, 0);
	if (all)
		relids = database_relids();
	else
	{
		CacheCheckSelect(PG_GETARG_OID(0));
		relids = CacheTargetRelids(PG_GETARG_OID(0), true, AccessShareLock);
	}
	rels = palloc0(sizeof(CacheRel) * Max(list_length(relids), 1));
	nrels = describe_relids(relids, all, rels);
	CacheCountBuffers(rels, nrels);
	for (int i = 0; i < nrels; i++)
		put_status_row(rsinfo, &rels[i]);
	return (Datum) 0;
}
