/*-------------------------------------------------------------------------
 *
 * tpcc_pages.c
 *		init_tpcc()'s rows written as finished heap pages: any row of a
 *		table new in this transaction, placed as heap_multi_insert places
 *		it, frozen as COPY FREEZE freezes it.
 *
 * What dataset_pages.c does for pgbench's fixed rows, for rows of any
 * shape: each row is formed from its values, given the header heap_insert
 * gives a frozen row (xmin the transaction's, marked frozen), and added to
 * a page in local memory; a full page goes to the bulk writer (compat.h):
 * straight to the file, WAL-logged whole when the table needs WAL, synced
 * before commit.  No shared buffer, no per-row WAL record, no lock.  Every
 * page is all-visible, and the visibility map fork says all-visible and
 * all-frozen for each, so neither VACUUM nor the first readers have work
 * left on them.
 *
 * The caller (tpcc_load.c) has checked that the table is new in this
 * subtransaction, empty and bare: nobody else can see it, and no index,
 * trigger or constraint is skipped.  Rows are never toasted: the longest
 * TPC-C row is far below TOAST_TUPLE_THRESHOLD, and a longer one is an
 * error.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/heaptoast.h"
#include "access/htup_details.h"
#include "access/xact.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/bufpage.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "compat.h"
#include "dataset.h"
#include "tpcc.h"

struct TpccPages
{
	Relation	rel;
	TupleDesc	desc;
	PgblBulkWrite *bulk;
	Page		page;			/* being filled; NULL: none */
	BlockNumber blkno;			/* page's block */
	Size		save_free;		/* the fillfactor's reserve */
	TransactionId xid;
	CommandId	cid;
	int64		rows;
	MemoryContext cxt;			/* the pages' (the caller's values' is reset) */
};

TpccPages *
TpccPagesBegin(Relation rel)
{
	TpccPages  *w = palloc0(sizeof(TpccPages));

	if (rel->rd_createSubid == InvalidSubTransactionId || RelationGetNumberOfBlocks(rel) != 0)
		elog(ERROR, "table \"%s\" is not new and empty", RelationGetRelationName(rel));
	w->rel = rel;
	w->desc = RelationGetDescr(rel);
	w->save_free = RelationGetTargetPageFreeSpace(rel, HEAP_DEFAULT_FILLFACTOR);
	w->xid = GetCurrentTransactionId();
	w->cid = GetCurrentCommandId(true);
	w->cxt = CurrentMemoryContext;
	w->bulk = pgbl_bulk_start(rel, MAIN_FORKNUM);
	return w;
}

static void
page_out(TpccPages *w)
{
	MemoryContext old = MemoryContextSwitchTo(w->cxt);

	pgbl_bulk_write(w->bulk, w->blkno++, w->page, true);
	w->page = NULL;
	MemoryContextSwitchTo(old);
}

/* One row of these values, on the page being filled or a new one; its place in tid. */
void
TpccPagesAdd(TpccPages *w, Datum *values, bool *isnull, ItemPointer tid)
{
	HeapTuple	tup = heap_form_tuple(w->desc, values, isnull);
	HeapTupleHeader h = tup->t_data;
	OffsetNumber off;

	if (tup->t_len > TOAST_TUPLE_THRESHOLD)
		elog(ERROR, "a row of %zu bytes is too long for \"%s\"", (size_t) tup->t_len,
			 RelationGetRelationName(w->rel));
	/* what heap_insert sets, with xmin frozen as COPY FREEZE's */
	h->t_infomask &= ~HEAP_XACT_MASK;
	h->t_infomask2 &= ~HEAP2_XACT_MASK;
	h->t_infomask |= HEAP_XMAX_INVALID;
	HeapTupleHeaderSetXmin(h, w->xid);
	HeapTupleHeaderSetXminFrozen(h);
	HeapTupleHeaderSetCmin(h, w->cid);
	HeapTupleHeaderSetXmax(h, 0);

	/* a new page when this row does not fit, as heap_multi_insert decides */
	if (w->page != NULL && PageGetHeapFreeSpace(w->page) < MAXALIGN(tup->t_len) + w->save_free)
		page_out(w);
	if (w->page == NULL)
	{
		/* in the writer's context: 15's bulk writer pallocs the page */
		MemoryContext old = MemoryContextSwitchTo(w->cxt);

		w->page = pgbl_bulk_get_buf(w->bulk);
		MemoryContextSwitchTo(old);
		PageInit(w->page, BLCKSZ, 0);
		PageSetAllVisible(w->page);
	}
	off = OffsetNumberNext(PageGetMaxOffsetNumber(w->page));
	ItemPointerSet(&h->t_ctid, w->blkno, off);
	if (PageAddItem(w->page, (Item) h, tup->t_len, off, false, true) != off)
		elog(ERROR, "could not add a row to page %u of \"%s\"", w->blkno,
			 RelationGetRelationName(w->rel));
	ItemPointerSet(tid, w->blkno, off);
	heap_freetuple(tup);
	w->rows++;
}

/* The last page, the visibility map and the statistics' count; the rows. */
int64
TpccPagesFinish(TpccPages *w)
{
	int64		rows = w->rows;

	if (w->page != NULL)
		page_out(w);
	pgbl_bulk_finish(w->bulk);
	DatasetWriteVisibilityMap(w->rel, w->blkno);
	pgstat_count_heap_insert(w->rel, rows);
	pfree(w);
	return rows;
}
