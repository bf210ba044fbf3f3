/*-------------------------------------------------------------------------
 *
 * dataset_btree.c
 *		A primary key's B-tree written from rows that arrive in key order,
 *		for init() (and init_tpcc()'s composite keys, tpcc_load.c).
 *
 * init() creates each primary key on its table while the table is still
 * empty, in the same transaction, then writes the rows as finished pages
 * (dataset_pages.c).  Their keys come in ascending order with their
 * places already known, so the index needs neither a heap scan nor a
 * sort: each entry goes on the current leaf page, and the leaf level is
 * written out as it fills.  The levels above are built one after the
 * other from the first keys of the level below, and the metapage last.
 *
 * The tree has the shape a CREATE INDEX on the same rows gives it: leaf
 * pages filled to the index's fillfactor, inner pages to 70 %, a full page
 * ending with a high key (on the leaf level the server's own suffix
 * truncation of the pair it separates), the first item of an inner page a
 * "minus infinity" downlink, siblings linked, the root flagged.  Only the
 * block numbers differ: each level is written after the one below it.  The
 * tests check every tree with amcheck's bt_index_parent_check.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/nbtree.h"
#include "catalog/pg_type.h"
#include "utils/inval.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "compat.h"
#include "dataset.h"

/* One level of the tree while it is written. */
typedef struct BtLevel
{
	uint32		level;
	Size		full;			/* free space below which a page is full */
	Page		page;			/* the page being filled, NULL before the first */
	BlockNumber blkno;
	OffsetNumber last_off;
	IndexTuple	lowkey;			/* of the current page */
	IndexTuple *down;			/* a downlink per finished page, for the parent */
	int			ndown;
	int			maxdown;
} BtLevel;

struct DatasetBtree
{
	Relation	index;
	BTScanInsert inskey;		/* for _bt_truncate */
	PgblBulkWrite *bulk;
	BlockNumber next_blkno;
	MemoryContext cxt;
	IndexTuple	leaf;			/* the entry, key and heap TID set per row */
	Size		key_off;
	bool		bigint_key;
	BtLevel		level;			/* the leaves, then each level above in turn */
};

static void
level_init(BtLevel *lv, uint32 level, Size full)
{
	memset(lv, 0, sizeof(*lv));
	lv->level = level;
	lv->full = full;
	lv->maxdown = 64;
	lv->down = palloc(sizeof(IndexTuple) * lv->maxdown);
}

/* A tuple with no key: the low key of a level's first page. */
static IndexTuple
minus_infinity(void)
{
	IndexTuple	t = palloc0(sizeof(IndexTupleData));

	t->t_info = sizeof(IndexTupleData);
	BTreeTupleSetNAtts(t, 0, false);
	return t;
}

static void
new_page(DatasetBtree *bt, BtLevel *lv)
{
	BTPageOpaque opaque;

	lv->page = pgbl_bulk_get_buf(bt->bulk);
	lv->blkno = bt->next_blkno++;
	_bt_pageinit(lv->page, BLCKSZ);
	opaque = BTPageGetOpaque(lv->page);
	opaque->btpo_prev = opaque->btpo_next = P_NONE;
	opaque->btpo_level = lv->level;
	opaque->btpo_flags = lv->level == 0 ? BTP_LEAF : 0;
	opaque->btpo_cycleid = 0;
	/* the high key's line pointer, taken now, filled when the page is full */
	((PageHeader) lv->page)->pd_lower += sizeof(ItemIdData);
	lv->last_off = P_HIKEY;
}

/* Put a tuple on a page; an inner page's first item loses its key. */
static void
page_add(Page page, IndexTuple itup, OffsetNumber off, bool first_inner)
{
	IndexTupleData trunc;
	Size		size = IndexTupleSize(itup);

	if (first_inner)
	{
		trunc = *itup;
		trunc.t_info = sizeof(IndexTupleData);
		BTreeTupleSetNAtts(&trunc, 0, false);
		itup = &trunc;
		size = sizeof(IndexTupleData);
	}
	if (PageAddItem(page, (Item) itup, size, off, false, false) != off)
		elog(ERROR, "could not add an item to a B-tree page");
}

static void
add_downlink(BtLevel *lv, IndexTuple lowkey, BlockNumber child)
{
	BTreeTupleSetDownLink(lowkey, child);
	if (lv->ndown == lv->maxdown)
	{
		lv->maxdown *= 2;
		lv->down = repalloc(lv->down, sizeof(IndexTuple) * lv->maxdown);
	}
	lv->down[lv->ndown++] = lowkey;
}

/*
 * Add an item to a level.  When it does not fit (or the page is filled to
 * its fillfactor), the page's last item moves to a new page and becomes
 * the old page's high key, truncated on the leaf level; the old page is
 * written and its low key becomes its downlink.
 */
static void
level_add(DatasetBtree *bt, BtLevel *lv, IndexTuple itup)
{
	bool		leaf = lv->level == 0;
	Size		need = MAXALIGN(IndexTupleSize(itup));

	if (lv->page == NULL)
	{
		new_page(bt, lv);
		lv->lowkey = minus_infinity();
	}
	else
	{
		Size		space = PageGetFreeSpace(lv->page);

		if (space < need + (leaf ? MAXALIGN(sizeof(ItemPointerData)) : 0) ||
			(space < lv->full && lv->last_off > P_FIRSTKEY))
		{
			Page		opage = lv->page;
			BlockNumber oblkno = lv->blkno;
			OffsetNumber olast = lv->last_off;	/* new_page() starts it over */
			ItemId		last = PageGetItemId(opage, olast);
			IndexTuple	moved = (IndexTuple) PageGetItem(opage, last);
			IndexTuple	hikey;

			new_page(bt, lv);
			page_add(lv->page, moved, P_FIRSTKEY, !leaf);

			/* the moved item's space on the old page now holds its high key */
			*PageGetItemId(opage, P_HIKEY) = *last;
			((PageHeader) opage)->pd_lower -= sizeof(ItemIdData);
			if (leaf)
			{
				IndexTuple	lastleft = (IndexTuple)
					PageGetItem(opage, PageGetItemId(opage, OffsetNumberPrev(olast)));
				IndexTuple	truncated = _bt_truncate(bt->index, lastleft, moved, bt->inskey);

				if (!PageIndexTupleOverwrite(opage, P_HIKEY, (Item) truncated,
											 IndexTupleSize(truncated)))
					elog(ERROR, "could not add a high key to a B-tree page");
				pfree(truncated);
			}
			hikey = (IndexTuple) PageGetItem(opage, PageGetItemId(opage, P_HIKEY));

			add_downlink(lv, lv->lowkey, oblkno);
			lv->lowkey = CopyIndexTuple(hikey);
			BTPageGetOpaque(opage)->btpo_next = lv->blkno;
			BTPageGetOpaque(lv->page)->btpo_prev = oblkno;
			pgbl_bulk_write(bt->bulk, oblkno, opage, true);
			lv->last_off = P_FIRSTKEY;
		}
	}
	lv->last_off = OffsetNumberNext(lv->last_off);
	page_add(lv->page, itup, lv->last_off, !leaf && lv->last_off == P_FIRSTKEY);
}

/*
 * Write a level's last page, which has no high key.  Returns true when it
 * was the level's only page: the root.
 */
static bool
level_finish(DatasetBtree *bt, BtLevel *lv)
{
	PageHeader	ph = (PageHeader) lv->page;
	bool		root = lv->ndown == 0;
	int			nitems = PageGetMaxOffsetNumber(lv->page) - 1;

	if (root)
		BTPageGetOpaque(lv->page)->btpo_flags |= BTP_ROOT;
	else
		add_downlink(lv, lv->lowkey, lv->blkno);
	/* the rightmost page: its items move down over the unused high key slot */
	memmove(&ph->pd_linp[0], &ph->pd_linp[1], nitems * sizeof(ItemIdData));
	ph->pd_lower -= sizeof(ItemIdData);
	pgbl_bulk_write(bt->bulk, lv->blkno, lv->page, true);
	lv->page = NULL;
	return root;
}

/*
 * Start the tree of an index whose key columns are int4 or int8 (one, for
 * DatasetBtreeAdd), which must have been created (empty) in this
 * transaction.
 */
DatasetBtree *
DatasetBtreeBegin(Relation index)
{
	DatasetBtree *bt = palloc0(sizeof(DatasetBtree));
	TupleDesc	desc = RelationGetDescr(index);
	Oid			type = TupleDescAttr(desc, 0)->atttypid;
	Datum		value;
	bool		isnull = false;
	MemoryContext old;

	bool		ints = true;

	for (int i = 0; i < desc->natts; i++)
		ints &= TupleDescAttr(desc, i)->atttypid == INT4OID ||
			TupleDescAttr(desc, i)->atttypid == INT8OID;
	if (index->rd_rel->relam != BTREE_AM_OID || !ints ||
		index->rd_createSubid == InvalidSubTransactionId)
		elog(ERROR, "index \"%s\" is not a new integer B-tree",
			 RelationGetRelationName(index));
	bt->index = index;
	bt->bigint_key = type == INT8OID;
	bt->cxt = AllocSetContextCreate(CurrentMemoryContext, "pgbench_lab init B-tree",
									ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(bt->cxt);
	bt->inskey = _bt_mkscankey(index, NULL);
	if (desc->natts == 1)
	{
		/* DatasetBtreeAdd's entry, its key set per row */
		value = bt->bigint_key ? Int64GetDatum(0) : Int32GetDatum(0);
		bt->leaf = index_form_tuple(desc, &value, &isnull);
		bt->key_off = IndexInfoFindDataOffset(bt->leaf->t_info);
	}
	level_init(&bt->level, 0, BTGetTargetPageFreeSpace(index));

	/*
	 * The empty build left a metapage, read by nobody yet; make sure no
	 * buffer holds it before the file is written past shared buffers.
	 */
	(void) pgbl_evict_relation_buffers(index);
	bt->bulk = pgbl_bulk_start(index, MAIN_FORKNUM);
	bt->next_blkno = BTREE_METAPAGE + 1;
	MemoryContextSwitchTo(old);
	return bt;
}

/* The next key, greater than every key before it, and its row's place. */
void
DatasetBtreeAdd(DatasetBtree *bt, int64 key, BlockNumber blkno, OffsetNumber off)
{
	MemoryContext old = MemoryContextSwitchTo(bt->cxt);

	if (bt->leaf == NULL)
		elog(ERROR, "index \"%s\" has more than one key column", RelationGetRelationName(bt->index));
	ItemPointerSet(&bt->leaf->t_tid, blkno, off);
	if (bt->bigint_key)
		memcpy((char *) bt->leaf + bt->key_off, &key, sizeof(int64));
	else
	{
		int32		k = (int32) key;

		memcpy((char *) bt->leaf + bt->key_off, &k, sizeof(int32));
	}
	level_add(bt, &bt->level, bt->leaf);
	MemoryContextSwitchTo(old);
}

/*
 * The next entry of an index of any integer key columns (init_tpcc()'s
 * composite keys, tpcc_load.c): its key greater than every key before it,
 * its heap TID set.
 */
void
DatasetBtreeAddTuple(DatasetBtree *bt, IndexTuple itup)
{
	MemoryContext old = MemoryContextSwitchTo(bt->cxt);

	level_add(bt, &bt->level, itup);
	MemoryContextSwitchTo(old);
}

/* The levels above the leaves, the metapage; the index is complete. */
void
DatasetBtreeFinish(DatasetBtree *bt)
{
	MemoryContext old = MemoryContextSwitchTo(bt->cxt);
	BtLevel    *lv = &bt->level;
	Page		meta;

	if (lv->page == NULL)
		elog(ERROR, "index \"%s\" got no rows", RelationGetRelationName(bt->index));
	while (!level_finish(bt, lv))
	{
		BtLevel		upper;

		level_init(&upper, lv->level + 1, BLCKSZ * (100 - BTREE_NONLEAF_FILLFACTOR) / 100);
		for (int i = 0; i < lv->ndown; i++)
			level_add(bt, &upper, lv->down[i]);
		*lv = upper;
	}
	meta = pgbl_bulk_get_buf(bt->bulk);
	_bt_initmetapage(meta, lv->blkno, lv->level, _bt_allequalimage(bt->index, false));
	pgbl_bulk_write(bt->bulk, BTREE_METAPAGE, meta, true);
	pgbl_bulk_finish(bt->bulk);
	/* nobody should keep a cached metapage of the empty index */
	CacheInvalidateRelcache(bt->index);
	MemoryContextSwitchTo(old);
	MemoryContextDelete(bt->cxt);
	pfree(bt);
}
