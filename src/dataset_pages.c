/*-------------------------------------------------------------------------
 *
 * dataset_pages.c
 *		pgbench's rows written as finished heap pages, for init().
 *
 * The tables are created by init's own transaction, so nobody else can see
 * them and they have no pages yet.  Rather than inserting rows one batch at
 * a time through shared buffers (where every page is WAL-logged tuple by
 * tuple, and written again when the bulk-insert ring recycles it), this
 * fills pages in local memory and hands them to the bulk writer (compat.h):
 * written straight to the file, WAL-logged as whole pages when the table
 * needs WAL, the file synced before commit.  It is how the server builds
 * indexes.
 *
 * The pages are the ones COPY FREEZE makes (which pgbench -i uses): the same
 * tuples in the same places (fillfactor honoured the way heap_multi_insert
 * honours it), xmin frozen, every page marked all-visible, and the
 * visibility map fork written with every page all-visible and all-frozen,
 * so VACUUM has nothing to do but its statistics.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/visibilitymapdefs.h"
#include "access/xact.h"
#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/bufpage.h"
#include "storage/smgr.h"
#include "utils/builtins.h"
#include "utils/rel.h"

#include "compat.h"
#include "dataset.h"

/* every this many heap pages the activity line shows the rows written */
#define PGBL_PROGRESS_PAGES		1024

/* the visibility map's layout: 2 bits a heap block after the page header */
#define PGBL_VM_MAPSIZE			(BLCKSZ - MAXALIGN(SizeOfPageHeaderData))
#define PGBL_VM_BLOCKS_PER_BYTE	(BITS_PER_BYTE / BITS_PER_HEAPBLOCK)
#define PGBL_VM_BLOCKS_PER_PAGE	(PGBL_VM_MAPSIZE * PGBL_VM_BLOCKS_PER_BYTE)

/* The row every page shares: header set once, data filled per row. */
typedef struct RowTemplate
{
	TupleDesc	desc;
	HeapTupleHeader tup;
	Size		len;
	Size		data_len;
	bool		hasnull;
	bool		bigint_id;
	int			per_bid;
	Datum		values[4];
	bool		isnull[4];
} RowTemplate;

/*
 * (id, [bid,] balance 0, filler): filler blank-padded '' when blank_filler,
 * else NULL; the same columns and values as pgbench's generation.
 */
static void
template_init(RowTemplate *t, Relation rel, int per_bid, bool blank_filler)
{
	TupleDesc	desc = RelationGetDescr(rel);
	int			filler_att = per_bid > 0 ? 3 : 2;
	Size		hoff = offsetof(HeapTupleHeaderData, t_bits);

	if (desc->natts != filler_att + 1)
		elog(ERROR, "table \"%s\" has %d columns, not %d",
			 RelationGetRelationName(rel), desc->natts, filler_att + 1);
	memset(t, 0, sizeof(*t));
	t->desc = desc;
	t->per_bid = per_bid;
	t->bigint_id = TupleDescAttr(desc, 0)->atttypid == INT8OID;
	t->hasnull = !blank_filler;
	for (int i = 0; i < filler_att; i++)
		t->values[i] = t->bigint_id && i == 0 ? Int64GetDatum(0) : Int32GetDatum(0);
	if (blank_filler)
		t->values[filler_att] =
			DirectFunctionCall3(bpcharin, CStringGetDatum(""),
								ObjectIdGetDatum(BPCHAROID),
								Int32GetDatum(TupleDescAttr(desc, filler_att)->atttypmod));
	t->isnull[filler_att] = !blank_filler;

	if (t->hasnull)
		hoff += BITMAPLEN(desc->natts);
	hoff = MAXALIGN(hoff);
	t->data_len = heap_compute_data_size(desc, t->values, t->isnull);
	t->len = hoff + t->data_len;
	t->tup = palloc0(t->len);
	t->tup->t_hoff = hoff;
	HeapTupleHeaderSetNatts(t->tup, desc->natts);
	/* what heap_insert sets, with xmin frozen as COPY FREEZE's */
	t->tup->t_infomask = HEAP_XMAX_INVALID;
	HeapTupleHeaderSetXmin(t->tup, GetCurrentTransactionId());
	HeapTupleHeaderSetXminFrozen(t->tup);
	HeapTupleHeaderSetCmin(t->tup, GetCurrentCommandId(true));
	HeapTupleHeaderSetXmax(t->tup, 0);
}

static void
template_fill(RowTemplate *t, int64 id)
{
	t->values[0] = t->bigint_id ? Int64GetDatum(id) : Int32GetDatum((int32) id);
	if (t->per_bid > 0)
		t->values[1] = Int32GetDatum((int32) ((id - 1) / t->per_bid + 1));
	heap_fill_tuple(t->desc, t->values, t->isnull,
					(char *) t->tup + t->tup->t_hoff, t->data_len,
					&t->tup->t_infomask, t->hasnull ? t->tup->t_bits : NULL);
}

static Page
new_page(PgblBulkWrite *bulk)
{
	Page		page = pgbl_bulk_get_buf(bulk);

	PageInit(page, BLCKSZ, 0);
	PageSetAllVisible(page);
	return page;
}

/* The worker's pg_stat_activity.query while it generates. */
static void
report_progress(Relation rel, int64 done, int64 total)
{
	char		activity[160];

	snprintf(activity, sizeof(activity),
			 "pgbench_lab init: generate data, %s " INT64_FORMAT " of " INT64_FORMAT " rows",
			 RelationGetRelationName(rel), done, total);
	pgstat_report_activity(STATE_RUNNING, activity);
}

/*
 * The visibility map of npages heap pages, all visible and all frozen:
 * written whole by the bulk writer, for init()'s tables and init_tpcc()'s
 * (tpcc_pages.c).
 */
void
DatasetWriteVisibilityMap(Relation rel, BlockNumber npages)
{
	PgblBulkWrite *bulk;
	BlockNumber vm_pages = (npages + PGBL_VM_BLOCKS_PER_PAGE - 1) / PGBL_VM_BLOCKS_PER_PAGE;
	uint8		bits = VISIBILITYMAP_ALL_VISIBLE | VISIBILITYMAP_ALL_FROZEN;

	if (npages == 0)
		return;
	smgrcreate(RelationGetSmgr(rel), VISIBILITYMAP_FORKNUM, false);
	bulk = pgbl_bulk_start(rel, VISIBILITYMAP_FORKNUM);
	for (BlockNumber v = 0; v < vm_pages; v++)
	{
		Page		page = pgbl_bulk_get_buf(bulk);
		uint8	   *map;
		BlockNumber first = v * PGBL_VM_BLOCKS_PER_PAGE;
		BlockNumber count = Min(npages - first, PGBL_VM_BLOCKS_PER_PAGE);

		PageInit(page, BLCKSZ, 0);
		map = (uint8 *) PageGetContents(page);
		for (BlockNumber b = 0; b < count; b++)
			map[b / PGBL_VM_BLOCKS_PER_BYTE] |=
				bits << (BITS_PER_HEAPBLOCK * (b % PGBL_VM_BLOCKS_PER_BYTE));
		/* not a standard page: the map lies between pd_lower and pd_upper */
		pgbl_bulk_write(bulk, v, page, false);
	}
	pgbl_bulk_finish(bulk);
}

/*
 * nrows rows of one of pgbench's tables, which must be new in this
 * transaction and empty, and the entries of its primary key pkey (made on
 * the empty table; dataset_btree.c).
 */
void
DatasetGenerateHeap(Relation rel, Relation pkey, int per_bid, bool blank_filler, int64 nrows)
{
	DatasetBtree *bt;
	RowTemplate t;
	Size		save_free = RelationGetTargetPageFreeSpace(rel, HEAP_DEFAULT_FILLFACTOR);
	Size		need;
	PgblBulkWrite *bulk;
	Page		page = NULL;
	BlockNumber blkno = 0;

	if (rel->rd_createSubid == InvalidSubTransactionId ||
		RelationGetNumberOfBlocks(rel) != 0)
		elog(ERROR, "table \"%s\" is not new and empty", RelationGetRelationName(rel));

	report_progress(rel, 0, nrows);
	template_init(&t, rel, per_bid, blank_filler);
	need = MAXALIGN(t.len) + save_free;
	bt = DatasetBtreeBegin(pkey);
	bulk = pgbl_bulk_start(rel, MAIN_FORKNUM);
	for (int64 id = 1; id <= nrows; id++)
	{
		OffsetNumber off;

		/* a new page when this row does not fit, as heap_multi_insert decides */
		if (page != NULL && PageGetHeapFreeSpace(page) < need)
		{
			pgbl_bulk_write(bulk, blkno++, page, true);
			page = NULL;
			if (blkno % PGBL_PROGRESS_PAGES == 0)
				report_progress(rel, id - 1, nrows);
			CHECK_FOR_INTERRUPTS();
		}
		if (page == NULL)
			page = new_page(bulk);
		template_fill(&t, id);
		off = OffsetNumberNext(PageGetMaxOffsetNumber(page));
		ItemPointerSet(&t.tup->t_ctid, blkno, off);
		if (PageAddItem(page, (Item) t.tup, t.len, off, false, true) != off)
			elog(ERROR, "could not add row " INT64_FORMAT " to page %u of \"%s\"",
				 id, blkno, RelationGetRelationName(rel));
		DatasetBtreeAdd(bt, id, blkno, off);
	}
	if (page != NULL)
		pgbl_bulk_write(bulk, blkno++, page, true);
	pgbl_bulk_finish(bulk);
	DatasetWriteVisibilityMap(rel, blkno);
	DatasetBtreeFinish(bt);

	pfree(t.tup);
	pgstat_count_heap_insert(rel, nrows);
}
