/*-------------------------------------------------------------------------
 *
 * compat.h
 *		Every difference between the PostgreSQL majors pgbench_lab supports
 *		(15 to 18) lives here, so that function bodies carry no #if blocks.
 *
 *-------------------------------------------------------------------------
 */
#ifndef PGBL_COMPAT_H
#define PGBL_COMPAT_H

#include "postgres.h"

#if PG_VERSION_NUM < 150000
#error "pgbench_lab needs PostgreSQL 15 or later"
#endif

/* PG18 lets a module name itself and its version in the magic block. */
#if PG_VERSION_NUM >= 180000
#define PGBL_MODULE_MAGIC PG_MODULE_MAGIC_EXT(.name = "pgbench_lab", .version = PGBL_VERSION)
#else
#define PGBL_MODULE_MAGIC PG_MODULE_MAGIC
#endif

/*
 * The defaults of effective_io_concurrency and maintenance_io_concurrency:
 * PostgreSQL 18 raised both to 16 (from 1 and 10).  The recommender keeps
 * them when nothing measured the device.
 */
#if PG_VERSION_NUM >= 180000
#define PGBL_DEFAULT_IO_CONCURRENCY 16
#define PGBL_DEFAULT_MAINT_IO_CONCURRENCY 16
#else
#define PGBL_DEFAULT_IO_CONCURRENCY 1
#define PGBL_DEFAULT_MAINT_IO_CONCURRENCY 10
#endif


/*
 * Buffer tags and relation file identities.  PostgreSQL 16 renamed
 * RelFileNode to RelFileLocator and flattened the buffer tag.  The cache part
 * compares a buffer's tag with a relation's file identity through these.
 */
#include "common/relpath.h"
#include "storage/buf_internals.h"
#include "storage/bufmgr.h"
#include "storage/smgr.h"
#include "utils/rel.h"

#if PG_VERSION_NUM >= 160000
#define PGBL_REL_LOCATOR(rel)		(&(rel)->rd_locator)
#define PGBL_REL_SPC(rel)			((rel)->rd_locator.spcOid)
#define PGBL_REL_DB(rel)			((rel)->rd_locator.dbOid)
#define PGBL_REL_FILENUMBER(rel)	((rel)->rd_locator.relNumber)
#define PGBL_BUFTAG_SPC(tag)		((tag)->spcOid)
#define PGBL_BUFTAG_DB(tag)			((tag)->dbOid)
#define PGBL_BUFTAG_FILENUMBER(tag) BufTagGetRelNumber(tag)
#else
#define PGBL_REL_LOCATOR(rel)		(&(rel)->rd_node)
#define PGBL_REL_SPC(rel)			((rel)->rd_node.spcNode)
#define PGBL_REL_DB(rel)			((rel)->rd_node.dbNode)
#define PGBL_REL_FILENUMBER(rel)	((rel)->rd_node.relNode)
#define PGBL_BUFTAG_SPC(tag)		((tag)->rnode.spcNode)
#define PGBL_BUFTAG_DB(tag)			((tag)->rnode.dbNode)
#define PGBL_BUFTAG_FILENUMBER(tag) ((tag)->rnode.relNode)
#endif

/*
 * Path of one fork of a relation, relative to the data directory, palloc'd.
 * PostgreSQL 18 returns the path in a struct by value instead.
 */
static inline char *
pgbl_relation_fork_path(Relation rel, ForkNumber forknum)
{
#if PG_VERSION_NUM >= 180000
	RelPathStr	path = relpathbackend(rel->rd_locator, rel->rd_backend, forknum);

	return pstrdup(path.str);
#elif PG_VERSION_NUM >= 160000
	return relpathbackend(rel->rd_locator, rel->rd_backend, forknum);
#else
	return relpathbackend(rel->rd_node, rel->rd_backend, forknum);
#endif
}

/*
 * Evicting one relation's pages from shared buffers.
 *
 * PostgreSQL 17 and later evict unpinned buffers themselves (flushing dirty
 * ones first), which is safe under AccessShareLock: concurrent readers just
 * read the pages back.  PostgreSQL 15 and 16 have no eviction, only the
 * truncate/drop path's "forget these buffers", which discards dirty pages;
 * there the caller must hold AccessExclusiveLock so that nobody can dirty a
 * page between the flush and the drop.
 *
 * pgbl_evict_relation_buffers returns how many dirty buffers it wrote, or -1
 * when the server does not say (then the caller's own count of dirty buffers
 * taken under the exclusive lock is exact).
 */
#if PG_VERSION_NUM >= 170000
#define PGBL_EVICT_LOCKMODE		AccessShareLock
#define PGBL_EVICT_METHOD		"evict unpinned buffers"
#else
#define PGBL_EVICT_LOCKMODE		AccessExclusiveLock
#define PGBL_EVICT_METHOD		"flush and drop under AccessExclusiveLock"
#endif

static inline int64
pgbl_evict_relation_buffers(Relation rel)
{
#if PG_VERSION_NUM >= 180000
	int32		evicted = 0;
	int32		flushed = 0;
	int32		skipped = 0;

	EvictRelUnpinnedBuffers(rel, &evicted, &flushed, &skipped);
	return flushed;
#elif PG_VERSION_NUM >= 170000
	/* XXX not built in CI: 17 has only the per-buffer function */
	int64		flushed = 0;

	for (int i = 0; i < NBuffers; i++)
	{
		BufferDesc *desc = GetBufferDescriptor(i);
		uint32		state = pg_atomic_read_u32(&desc->state);

		CHECK_FOR_INTERRUPTS();
		if ((state & BM_TAG_VALID) &&
			BufTagMatchesRelFileLocator(&desc->tag, &rel->rd_locator) &&
			EvictUnpinnedBuffer(BufferDescriptorGetBuffer(desc)) &&
			(state & BM_DIRTY))
			flushed++;
	}
	return flushed;
#else
	ForkNumber	forks[MAX_FORKNUM + 1];
	BlockNumber firsts[MAX_FORKNUM + 1];
	int			nforks = 0;

	FlushRelationBuffers(rel);
	for (int fork = 0; fork <= MAX_FORKNUM; fork++)
	{
		forks[nforks] = (ForkNumber) fork;
		firsts[nforks] = 0;
		nforks++;
	}
#if PG_VERSION_NUM >= 160000
	DropRelationBuffers(RelationGetSmgr(rel), forks, nforks, firsts);
#else
	DropRelFileNodeBuffers(RelationGetSmgr(rel), forks, nforks, firsts);
#endif
	return -1;
#endif
}

/*
 * Whether the server opens WAL with O_DIRECT, given whether its
 * wal_sync_method is one of the open_* methods.  PG16+ does so only when
 * io_direct includes wal (any method); PG15 for the open_* methods when
 * wal_level is minimal.  Callers include access/xlog.h and storage/fd.h.
 */
#if PG_VERSION_NUM >= 160000
#define PGBL_WAL_USES_O_DIRECT(open_method) \
	((void) (open_method), (io_direct_flags & IO_DIRECT_WAL) != 0)
#else
#define PGBL_WAL_USES_O_DIRECT(open_method) \
	((open_method) && !XLogIsNeeded())
#endif


#include "portability/instr_time.h"
#include "postmaster/bgworker.h"

/* Nanoseconds of an instr_time: a timespec in 15, int64 ns from 16. */
#if PG_VERSION_NUM >= 160000
#define PGBL_INSTR_NS(t) ((uint64) INSTR_TIME_GET_NANOSEC(t))
#else
#define PGBL_INSTR_NS(t) ((uint64) (t).tv_sec * UINT64CONST(1000000000) + (uint64) (t).tv_nsec)
#endif

/*
 * Workers connect as a role.  From 17 a NOLOGIN role can be a worker's
 * login; before that the worker logs in as the session user and switches
 * to the current user (see WorkerConnectAs).
 */
#if PG_VERSION_NUM >= 170000
#define PGBL_BGW_CAN_LOGIN_NOLOGIN true
#define PGBL_BGW_CONNECT_FLAGS BGWORKER_BYPASS_ROLELOGINCHECK
#else
#define PGBL_BGW_CAN_LOGIN_NOLOGIN false
#define PGBL_BGW_CONNECT_FLAGS 0
#endif

/*
 * The view that counts checkpoints moved in 17.  From 18 it counts those
 * completed (num_done); before, only those started (timed and requested):
 * there the coordinator counts completions itself, from the control file
 * (PGBL_CHECKPOINTS_DONE_COUNTED false: telemetry.c), and these counters
 * are not used for a figure.
 */
#if PG_VERSION_NUM >= 180000
#define PGBL_CHECKPOINTS_DONE_COUNTED true
#define PGBL_CHECKPOINTS_SQL \
	"SELECT num_done::pg_catalog.int8 FROM pg_catalog.pg_stat_checkpointer"
#elif PG_VERSION_NUM >= 170000
#define PGBL_CHECKPOINTS_DONE_COUNTED false
#define PGBL_CHECKPOINTS_SQL \
	"SELECT (num_timed OPERATOR(pg_catalog.+) num_requested)::pg_catalog.int8 " \
	"FROM pg_catalog.pg_stat_checkpointer"
#else
#define PGBL_CHECKPOINTS_DONE_COUNTED false
#define PGBL_CHECKPOINTS_SQL \
	"SELECT (checkpoints_timed OPERATOR(pg_catalog.+) checkpoints_req)::pg_catalog.int8 " \
	"FROM pg_catalog.pg_stat_bgwriter"
#endif

/*
 * Telemetry's checkpoint and buffer-write counters, as four int8 columns:
 * checkpoints, buffers the checkpointer wrote, buffers the background
 * writer wrote, buffers everyone else wrote.  From 17 the checkpointer has
 * its own view and other processes' writes are in pg_stat_io; from 18 it
 * counts the checkpoints completed (before, telemetry.c counts them).
 */
#if PG_VERSION_NUM >= 180000
#define PGBL_TELEMETRY_BUFFERS_SQL \
	"SELECT c.num_done::pg_catalog.int8, " \
	"c.buffers_written::pg_catalog.int8, g.buffers_clean::pg_catalog.int8, " \
	"(SELECT COALESCE(pg_catalog.sum(io.writes), 0)::pg_catalog.int8 FROM pg_catalog.pg_stat_io io " \
	"WHERE io.object OPERATOR(pg_catalog.=) 'relation' AND io.backend_type " \
	"OPERATOR(pg_catalog.<>) ALL (ARRAY['checkpointer', 'background writer']::pg_catalog.text[])) " \
	"FROM pg_catalog.pg_stat_checkpointer c, pg_catalog.pg_stat_bgwriter g"
#elif PG_VERSION_NUM >= 170000
#define PGBL_TELEMETRY_BUFFERS_SQL \
	"SELECT (c.num_timed OPERATOR(pg_catalog.+) c.num_requested)::pg_catalog.int8, " \
	"c.buffers_written::pg_catalog.int8, g.buffers_clean::pg_catalog.int8, " \
	"(SELECT COALESCE(pg_catalog.sum(io.writes), 0)::pg_catalog.int8 FROM pg_catalog.pg_stat_io io " \
	"WHERE io.object OPERATOR(pg_catalog.=) 'relation' AND io.backend_type " \
	"OPERATOR(pg_catalog.<>) ALL (ARRAY['checkpointer', 'background writer']::pg_catalog.text[])) " \
	"FROM pg_catalog.pg_stat_checkpointer c, pg_catalog.pg_stat_bgwriter g"
#else
#define PGBL_TELEMETRY_BUFFERS_SQL \
	"SELECT (checkpoints_timed OPERATOR(pg_catalog.+) checkpoints_req)::pg_catalog.int8, " \
	"buffers_checkpoint::pg_catalog.int8, buffers_clean::pg_catalog.int8, " \
	"buffers_backend::pg_catalog.int8 FROM pg_catalog.pg_stat_bgwriter"
#endif

#include "catalog/pg_namespace.h"
#include "miscadmin.h"
#include "utils/acl.h"

/* Privilege check on a schema (utils/acl.h): generic from 16. */
#if PG_VERSION_NUM >= 160000
#define PGBL_NAMESPACE_ACLCHECK(nsp, role, mode) \
	object_aclcheck(NamespaceRelationId, (nsp), (role), (mode))
#else
#define PGBL_NAMESPACE_ACLCHECK(nsp, role, mode) \
	pg_namespace_aclcheck((nsp), (role), (mode))
#endif

/*
 * Writing a new relation's pages straight to its files, bypassing shared
 * buffers, each page WAL-logged whole when the relation needs WAL and the
 * files synced before commit (what index builds do).  PostgreSQL 17 and
 * later have this as bulk_write.c; for 15 and 16 bulk_write_compat.c gives
 * the same four calls from smgrextend, log_newpages and smgrimmedsync.
 * A page from pgbl_bulk_get_buf belongs to the writer once written.
 */
#if PG_VERSION_NUM >= 170000
#include "storage/bulk_write.h"
typedef BulkWriteState PgblBulkWrite;
#define pgbl_bulk_start(rel, fork)	smgr_bulk_start_rel((rel), (fork))
#define pgbl_bulk_get_buf(bulk)		((Page) smgr_bulk_get_buf(bulk))
#define pgbl_bulk_write(bulk, blkno, page, page_std) \
	smgr_bulk_write((bulk), (blkno), (BulkWriteBuffer) (page), (page_std))
#define pgbl_bulk_finish(bulk)		smgr_bulk_finish(bulk)
#else
typedef struct PgblBulkWrite PgblBulkWrite;
extern PgblBulkWrite *pgbl_bulk_start(Relation rel, ForkNumber fork);
extern Page pgbl_bulk_get_buf(PgblBulkWrite *bulk);
extern void pgbl_bulk_write(PgblBulkWrite *bulk, BlockNumber blkno, Page page, bool page_std);
extern void pgbl_bulk_finish(PgblBulkWrite *bulk);
#endif

/*
 * A wait event set of the caller's own: PG17 ties one to a resource owner
 * (none: freed only by FreeWaitEventSet), before to a memory context.
 */
#if PG_VERSION_NUM >= 170000
#define PgblCreateWaitEventSet(nevents) CreateWaitEventSet(NULL, (nevents))
#else
#define PgblCreateWaitEventSet(nevents) CreateWaitEventSet(TopMemoryContext, (nevents))
#endif

/*
 * Every setting and placeholder (runner_limits.c reads how a limit was set):
 * PostgreSQL 16 builds the array on request and returns its length.
 */
#if PG_VERSION_NUM >= 160000
#define PGBL_GUC_VARIABLES(nvars)	get_guc_variables(nvars)
#else
#define PGBL_GUC_VARIABLES(nvars)	(*(nvars) = GetNumConfigOptions(), get_guc_variables())
#endif

/*
 * Memory a setting's check hook may free or replace (settings_pending.c
 * calls hooks on a file's values): malloc's until PostgreSQL 16, the GUC
 * memory context's since.
 */
#if PG_VERSION_NUM >= 160000
#define PgblGucStrdup(s)	guc_strdup(ERROR, (s))
#define PgblGucFree(p)		guc_free(p)
#else
static inline char *
PgblGucStrdup(const char *s)
{
	char	   *copy = strdup(s);

	if (copy == NULL)
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
	return copy;
}
#define PgblGucFree(p)		free(p)
#endif

#endif							/* PGBL_COMPAT_H */
