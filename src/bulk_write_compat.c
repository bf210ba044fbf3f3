/*-------------------------------------------------------------------------
 *
 * bulk_write_compat.c
 *		pgbl_bulk_start/get_buf/write/finish for PostgreSQL 15 and 16, which
 *		have no bulk_write.c (see compat.h).  Empty on 17 and later.
 *
 * Pages are kept until PGBL_BULK_BATCH of them are waiting, then WAL-logged
 * as full pages in one log_newpages call (when the relation needs WAL) and
 * appended to the fork with smgrextend, without registering a sync.  The
 * finish syncs the fork itself: a checkpoint that began after our WAL
 * records knows nothing of these writes, so the file must be durable before
 * the transaction that created the relation commits.
 *
 * Only for a relation created in the current transaction, with none of its
 * pages in shared buffers; a block is either one the fork already has
 * (overwritten) or the next one past its end.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "compat.h"

#if PG_VERSION_NUM < 170000

#include "access/xloginsert.h"
#include "storage/smgr.h"
#include "utils/rel.h"

/* log_newpages puts at most this many pages in one record */
#define PGBL_BULK_BATCH 32

struct PgblBulkWrite
{
	Relation	rel;
	ForkNumber	fork;
	bool		use_wal;
	bool		page_std;		/* of the pages waiting */
	BlockNumber nblocks;		/* the fork's size */
	int			npending;
	BlockNumber blknos[PGBL_BULK_BATCH];
	Page		pages[PGBL_BULK_BATCH];
};

static void
bulk_flush(PgblBulkWrite *bulk)
{
	if (bulk->npending == 0)
		return;
	if (bulk->use_wal)
		log_newpages(PGBL_REL_LOCATOR(bulk->rel), bulk->fork, bulk->npending,
					 bulk->blknos, bulk->pages, bulk->page_std);
	for (int i = 0; i < bulk->npending; i++)
	{
		BlockNumber blkno = bulk->blknos[i];

		PageSetChecksumInplace(bulk->pages[i], blkno);
		if (blkno < bulk->nblocks)
			smgrwrite(RelationGetSmgr(bulk->rel), bulk->fork, blkno,
					  (char *) bulk->pages[i], true);
		else if (blkno == bulk->nblocks)
		{
			smgrextend(RelationGetSmgr(bulk->rel), bulk->fork, blkno,
					   (char *) bulk->pages[i], true);
			bulk->nblocks++;
		}
		else
			elog(ERROR, "block %u written past the end (%u blocks) of \"%s\"",
				 blkno, bulk->nblocks, RelationGetRelationName(bulk->rel));
		pfree(bulk->pages[i]);
	}
	bulk->npending = 0;
}

PgblBulkWrite *
pgbl_bulk_start(Relation rel, ForkNumber fork)
{
	PgblBulkWrite *bulk = palloc0(sizeof(PgblBulkWrite));

	bulk->rel = rel;
	bulk->fork = fork;
	bulk->use_wal = RelationNeedsWAL(rel);
	bulk->nblocks = smgrnblocks(RelationGetSmgr(rel), fork);
	return bulk;
}

Page
pgbl_bulk_get_buf(PgblBulkWrite *bulk)
{
	return (Page) palloc(BLCKSZ);
}

void
pgbl_bulk_write(PgblBulkWrite *bulk, BlockNumber blkno, Page page, bool page_std)
{
	if (bulk->npending > 0 && bulk->page_std != page_std)
		bulk_flush(bulk);
	bulk->page_std = page_std;
	bulk->blknos[bulk->npending] = blkno;
	bulk->pages[bulk->npending] = page;
	if (++bulk->npending == PGBL_BULK_BATCH)
		bulk_flush(bulk);
}

void
pgbl_bulk_finish(PgblBulkWrite *bulk)
{
	bulk_flush(bulk);
	smgrimmedsync(RelationGetSmgr(bulk->rel), bulk->fork);
	pfree(bulk);
}

#endif							/* PG_VERSION_NUM < 170000 */
