/*-------------------------------------------------------------------------
 *
 * tpcc_load.c
 *		TPC-C's rows generated in C for init_tpcc() (32_tpcc.sql): one call
 *		fills one of the nine tables by clause 4.3's rules.
 *
 * The SQL path (generate_series and random() per column) spends most of
 * its time making random strings one function call at a time.  Here each
 * row's values are drawn from a pg_prng state and the rows are written as
 * finished pages, frozen as COPY FREEZE freezes them (tpcc_pages.c): the
 * table is new in the caller's (sub)transaction and nobody else can see
 * it, so its rows need no hint bits set later by ANALYZE or the first
 * readers, and its pages are all-visible.
 *
 * pgbench_lab_internal.tpcc_load(rel regclass, warehouses int4, seed int8)
 * RETURNS int8 is executable by PUBLIC, so that a role granted init_tpcc()
 * can run it, and refuses a role that may not execute init_tpcc()
 * (TpccCheckCaller).  It only adds rows to a table that the
 * caller may insert into and made in this very subtransaction, with no
 * index, trigger, rule, check constraint or row security (so nothing the
 * frozen rows or the skipped checks could bypass), whose columns have the
 * types the generator writes; what it does is what an INSERT ... SELECT of
 * the caller's would do.  The table's name says which of the nine it is.
 *
 * orders and order_line share o_ol_cnt: both draw it from a stream seeded
 * by (seed, warehouse, district), so order_line needs no read of orders.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/heapam.h"
#include "access/nbtree.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/pg_am_d.h"
#include "catalog/pg_class.h"
#include "catalog/pg_index.h"
#include "catalog/pg_type.h"
#include "common/pg_prng.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/datetime.h"
#include "utils/memutils.h"
#include "utils/numeric.h"
#include "utils/rel.h"
#include "utils/relcache.h"
#include "utils/timestamp.h"

#include "pgbench_lab.h"
#include "dataset.h"
#include "progress.h"
#include "tpcc.h"

PG_FUNCTION_INFO_V1(pgbench_lab_tpcc_load);
PG_FUNCTION_INFO_V1(pgbench_lab_tpcc_progress);

/* every this many batches, the activity line shows the rows written */
#define TPCC_PROGRESS_BATCHES	64

/* the rows whose values are freed together */
#define TPCC_BATCH				1000
#define TPCC_MAX_COLS			21
/* the pool of random characters the a-strings are taken from, and the longest */
#define TPCC_POOL				(1 << 16)
#define TPCC_MAX_STRING			512
#define TPCC_ITEMS				100000
#define TPCC_DISTRICTS			10
#define TPCC_CUSTOMERS			3000
#define TPCC_DELIVERED			2100	/* orders 1-2100 delivered, the rest new */
#define TPCC_C_LAST_LOAD		157		/* NURand's C for c_last at the load */

/*
 * The column types, one letter each (i int4, v varchar, b bpchar, n
 * numeric, t timestamp), and the primary key's columns (attnums): the
 * order the rows are made in.
 */
typedef struct TpccTable
{
	const char *name;
	const char *types;
	int			nkey;
	AttrNumber	key[4];
} TpccTable;

static const TpccTable tpcc_tables[] = {
	{"warehouse", "ivvvvbbnn", 1, {1}},
	{"district", "iivvvvbbnni", 2, {2, 1}},
	{"customer", "iiivbvvvvbbbtbnnnniiv", 3, {3, 2, 1}},
	{"history", "iiiiitnv", 0, {0}},
	{"new_order", "iii", 3, {3, 2, 1}},
	{"orders", "iiiitiii", 3, {3, 2, 1}},
	{"order_line", "iiiiiitinb", 4, {3, 2, 1, 4}},
	{"item", "iivnv", 1, {1}},
	{"stock", "iiibbbbbbbbbbiiiv", 2, {2, 1}},
};

static const char *const syllables[] = {
	"BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING"
};

static const char alnum[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/* One table being filled: its rows go to its pages as they are made. */
typedef struct Loader
{
	Relation	rel;
	TpccPages  *pages;
	const TpccTable *table;
	Relation	pkey;			/* its primary key, written with the rows; or NULL */
	DatasetBtree *bt;
	Datum		values[TPCC_MAX_COLS];
	bool		isnull[TPCC_MAX_COLS];
	int			natts;
	MemoryContext batch_cxt;	/* the values of TPCC_BATCH rows */
	MemoryContext caller_cxt;
	int64		rows;
	pg_prng_state rng;
	int			warehouses;
	uint64		seed;
	Datum		now;			/* the transaction's start, as timestamp */
	Datum	   *v;				/* the row being made */
	/* the values many rows share, made once */
	Datum		oe;
	Datum		gc;
	Datum		bc;
	Datum		credit_lim;
	Datum		balance;
	Datum		ten;			/* 10.00 */
	Datum		zero;			/* 0.00 */
	int32		perm[TPCC_CUSTOMERS];
	char	   *pool;			/* TPCC_POOL random characters */
	int			arena_used;
	char		arena[2 * TPCC_MAX_STRING + 1024] pg_attribute_aligned(MAXIMUM_ALIGNOF);	/* the row's texts */
} Loader;

/* the call's progress (progress.c), across tpcc_progress()'s calls */
static Progress tpcc_watch;
static int	tpcc_step;			/* the step under way, from 1; 0: none */

/* pg_stat_activity's line while a table fills: its rows so far */
static void
loader_progress(Loader *l)
{
	char		activity[160];

	if (tpcc_step == 0)
		return;
	snprintf(activity, sizeof(activity), "pgbench_lab init_tpcc(): step %d of %d: %s, " INT64_FORMAT " rows so far",
			 tpcc_step, tpcc_watch.nsteps, RelationGetRelationName(l->rel), l->rows);
	pgstat_report_activity(STATE_RUNNING, activity);
}

/* The next row's values, every column not null until told otherwise. */
static Datum *
row_begin(Loader *l)
{
	memset(l->isnull, 0, sizeof(bool) * l->natts);
	l->arena_used = 0;
	l->v = l->values;
	return l->v;
}

static void
row_null(Loader *l, int col)
{
	l->isnull[col] = true;
}

/* The row onto its page; every TPCC_BATCH rows, their values freed. */
static void
row_end(Loader *l)
{
	ItemPointerData tid;

	TpccPagesAdd(l->pages, l->values, l->isnull, &tid);
	if (l->bt != NULL)
	{
		Datum		key[4];
		bool		keynull[4] = {false, false, false, false};
		IndexTuple	itup;

		for (int i = 0; i < l->table->nkey; i++)
			key[i] = l->values[l->table->key[i] - 1];
		itup = index_form_tuple(RelationGetDescr(l->pkey), key, keynull);
		itup->t_tid = tid;
		DatasetBtreeAddTuple(l->bt, itup);
	}
	if (++l->rows % TPCC_BATCH == 0)
	{
		MemoryContextReset(l->batch_cxt);
		if (l->rows % (TPCC_BATCH * TPCC_PROGRESS_BATCHES) == 0)
			loader_progress(l);
		CHECK_FOR_INTERRUPTS();
	}
}

/* a uniform integer in [lo, hi] */
static inline int32
rnd(Loader *l, int32 lo, int32 hi)
{
	return lo + (int32) pg_prng_uint64_range(&l->rng, 0, (uint64) (hi - lo));
}

/*
 * A random a-string of lo to hi characters (clause 4.3.2.2) into buf; its
 * length.  A piece of the call's pool of random characters at a random
 * offset: one draw per string, where a draw per character made the strings
 * most of the load's time.  The pool (64 kB, fresh for each table) stays in
 * the processor's cache, where a larger one made each string a cache miss;
 * its 65 000 offsets give each length as many different strings.
 */
static int
astring(Loader *l, char *buf, int lo, int hi)
{
	uint64		r = pg_prng_uint64(&l->rng);
	int			len = lo + (int) ((r >> 32) % (uint64) (hi - lo + 1));

	memcpy(buf, l->pool + (r & (TPCC_POOL - 1)) % (TPCC_POOL - TPCC_MAX_STRING), len);
	return len;
}

/* the pool: random characters of the 62 letters and digits */
static void
fill_pool(Loader *l)
{
	uint64		bits = 0;
	int			left = 0;

	l->pool = palloc(TPCC_POOL);
	for (int i = 0; i < TPCC_POOL; i++)
	{
		int			c;

		do
		{
			if (left == 0)
			{
				bits = pg_prng_uint64(&l->rng);
				left = 10;
			}
			c = bits & 63;
			bits >>= 6;
			left--;
		} while (c >= 62);
		l->pool[i] = alnum[c];
	}
}

/*
 * A text value in the row's arena (Loader.arena, reused by the next row):
 * with a 1-byte header when it fits one, as heap_fill_tuple would store it.
 */
static char *
text_alloc(Loader *l, int len, Datum *d)
{
	char	   *p = l->arena + l->arena_used;

	if (len + VARHDRSZ_SHORT <= VARATT_SHORT_MAX)
	{
		SET_VARSIZE_SHORT(p, len + VARHDRSZ_SHORT);
		l->arena_used += len + VARHDRSZ_SHORT;
		*d = PointerGetDatum(p);
		return p + VARHDRSZ_SHORT;
	}
	p = l->arena + INTALIGN(l->arena_used);
	SET_VARSIZE(p, len + VARHDRSZ);
	l->arena_used = INTALIGN(l->arena_used) + len + VARHDRSZ;
	*d = PointerGetDatum(p);
	return p + VARHDRSZ;
}

static Datum
text_datum(Loader *l, const char *buf, int len)
{
	Datum		d;

	memcpy(text_alloc(l, len, &d), buf, len);
	return d;
}

/* a random a-string of lo to hi characters, straight from the pool */
static Datum
astring_datum(Loader *l, int lo, int hi)
{
	uint64		r = pg_prng_uint64(&l->rng);
	int			len = lo + (int) ((r >> 32) % (uint64) (hi - lo + 1));
	Datum		d;

	memcpy(text_alloc(l, len, &d), l->pool + (r & (TPCC_POOL - 1)) % (TPCC_POOL - TPCC_MAX_STRING), len);
	return d;
}

/* digits: a random n-string of len characters */
static Datum
nstring_datum(Loader *l, int len, const char *suffix)
{
	char		buf[32];
	int			slen = strlen(suffix);
	uint64		r = 0;

	/* 18 digits a draw */
	for (int i = 0; i < len; i++)
	{
		if (i % 18 == 0)
			r = pg_prng_uint64(&l->rng);
		buf[i] = '0' + r % 10;
		r /= 10;
	}
	memcpy(buf + len, suffix, slen);
	return text_datum(l, buf, len + slen);
}

/* i_data and s_data: 26 to 50 characters, 10 % of them with ORIGINAL somewhere */
static Datum
data_datum(Loader *l)
{
	char		buf[64];
	int			len = astring(l, buf, 26, 50);

	if (rnd(l, 1, 10) == 1)
		memcpy(buf + rnd(l, 0, len - 8), "ORIGINAL", 8);
	return text_datum(l, buf, len);
}

static inline Datum
numeric_datum(int64 units, int scale)
{
	return NumericGetDatum(int64_div_fast_to_numeric(units, scale));
}

/* street 1 and 2, city, state, zip (clause 4.3.2.7) from column col on */
static void
address(Loader *l, int col)
{
	char		state[2] = {alnum[rnd(l, 0, 25)], alnum[rnd(l, 0, 25)]};

	l->v[col] = astring_datum(l, 10, 20);
	l->v[col + 1] = astring_datum(l, 10, 20);
	l->v[col + 2] = astring_datum(l, 10, 20);
	l->v[col + 3] = text_datum(l, state, 2);
	l->v[col + 4] = nstring_datum(l, 4, "11111");
}

/* a stream of its own for (kind, w, d): orders' and order_line's o_ol_cnt */
static void
stream(pg_prng_state *r, uint64 seed, int kind, int w, int d)
{
	pg_prng_seed(r, seed ^ ((uint64) kind << 56) ^ ((uint64) w << 16) ^ (uint64) d);
}

static void
gen_item(Loader *l)
{
	for (int i = 1; i <= TPCC_ITEMS; i++)
	{
		Datum	   *v = row_begin(l);

		v[0] = Int32GetDatum(i);
		v[1] = Int32GetDatum(rnd(l, 1, 10000));
		v[2] = astring_datum(l, 14, 24);
		v[3] = numeric_datum(rnd(l, 100, 10000), 2);
		v[4] = data_datum(l);
		row_end(l);
	}
}

static void
gen_warehouse(Loader *l)
{
	for (int w = 1; w <= l->warehouses; w++)
	{
		Datum	   *v = row_begin(l);

		v[0] = Int32GetDatum(w);
		v[1] = astring_datum(l, 6, 10);
		address(l, 2);
		v[7] = numeric_datum(rnd(l, 0, 2000), 4);
		v[8] = numeric_datum(30000000, 2);
		row_end(l);
	}
}

static void
gen_district(Loader *l)
{
	for (int w = 1; w <= l->warehouses; w++)
		for (int d = 1; d <= TPCC_DISTRICTS; d++)
		{
			Datum	   *v = row_begin(l);

			v[0] = Int32GetDatum(d);
			v[1] = Int32GetDatum(w);
			v[2] = astring_datum(l, 6, 10);
			address(l, 3);
			v[8] = numeric_datum(rnd(l, 0, 2000), 4);
			v[9] = numeric_datum(3000000, 2);
			v[10] = Int32GetDatum(TPCC_CUSTOMERS + 1);
			row_end(l);
		}
}

/*
 * The first 1 000 customers of a district take the 1 000 last names in
 * turn, the others NURand(255, 0, 999)'s (clause 4.3.2.3).
 */
static Datum
last_name(Loader *l, int c)
{
	int			n = c <= 1000 ? c - 1 : ((rnd(l, 0, 255) | rnd(l, 0, 999)) + TPCC_C_LAST_LOAD) % 1000;
	char		buf[16];
	int			len = 0;

	for (int k = 100; k >= 1; k /= 10)
	{
		const char *s = syllables[(n / k) % 10];
		int			sl = strlen(s);

		memcpy(buf + len, s, sl);
		len += sl;
	}
	return text_datum(l, buf, len);
}

static void
gen_customer(Loader *l)
{
	for (int w = 1; w <= l->warehouses; w++)
		for (int d = 1; d <= TPCC_DISTRICTS; d++)
			for (int c = 1; c <= TPCC_CUSTOMERS; c++)
			{
				Datum	   *v = row_begin(l);

				v[0] = Int32GetDatum(c);
				v[1] = Int32GetDatum(d);
				v[2] = Int32GetDatum(w);
				v[3] = astring_datum(l, 8, 16);
				v[4] = l->oe;
				v[5] = last_name(l, c);
				address(l, 6);
				v[11] = nstring_datum(l, 16, "");
				v[12] = l->now;
				v[13] = rnd(l, 1, 10) == 1 ? l->bc : l->gc;
				v[14] = l->credit_lim;
				v[15] = numeric_datum(rnd(l, 0, 5000), 4);
				v[16] = l->balance;
				v[17] = l->ten;
				v[18] = Int32GetDatum(1);
				v[19] = Int32GetDatum(0);
				v[20] = astring_datum(l, 300, 500);
				row_end(l);
			}
}

static void
gen_history(Loader *l)
{
	for (int w = 1; w <= l->warehouses; w++)
		for (int d = 1; d <= TPCC_DISTRICTS; d++)
			for (int c = 1; c <= TPCC_CUSTOMERS; c++)
			{
				Datum	   *v = row_begin(l);

				v[0] = Int32GetDatum(c);
				v[1] = Int32GetDatum(d);
				v[2] = Int32GetDatum(w);
				v[3] = Int32GetDatum(d);
				v[4] = Int32GetDatum(w);
				v[5] = l->now;
				v[6] = l->ten;
				v[7] = astring_datum(l, 12, 24);
				row_end(l);
			}
}

/* the customers of a district in a random permutation; the first 2 100 delivered */
static void
gen_orders(Loader *l)
{
	int32	   *perm = l->perm;

	for (int w = 1; w <= l->warehouses; w++)
		for (int d = 1; d <= TPCC_DISTRICTS; d++)
		{
			pg_prng_state cnt;

			stream(&cnt, l->seed, 1, w, d);
			for (int i = 0; i < TPCC_CUSTOMERS; i++)
				perm[i] = i + 1;
			for (int i = TPCC_CUSTOMERS - 1; i > 0; i--)
			{
				int			j = rnd(l, 0, i);
				int32		t = perm[i];

				perm[i] = perm[j];
				perm[j] = t;
			}
			for (int o = 1; o <= TPCC_CUSTOMERS; o++)
			{
				Datum	   *v = row_begin(l);

				v[0] = Int32GetDatum(o);
				v[1] = Int32GetDatum(d);
				v[2] = Int32GetDatum(w);
				v[3] = Int32GetDatum(perm[o - 1]);
				v[4] = l->now;
				if (o <= TPCC_DELIVERED)
					v[5] = Int32GetDatum(rnd(l, 1, 10));
				else
					row_null(l, 5);
				v[6] = Int32GetDatum(5 + (int32) pg_prng_uint64_range(&cnt, 0, 10));
				v[7] = Int32GetDatum(1);
				row_end(l);
			}
		}
}

static void
gen_new_order(Loader *l)
{
	for (int w = 1; w <= l->warehouses; w++)
		for (int d = 1; d <= TPCC_DISTRICTS; d++)
			for (int o = TPCC_DELIVERED + 1; o <= TPCC_CUSTOMERS; o++)
			{
				Datum	   *v = row_begin(l);

				v[0] = Int32GetDatum(o);
				v[1] = Int32GetDatum(d);
				v[2] = Int32GetDatum(w);
				row_end(l);
			}
}

/* o_ol_cnt lines per order, drawn from the stream orders drew them from */
static void
gen_order_line(Loader *l)
{
	for (int w = 1; w <= l->warehouses; w++)
		for (int d = 1; d <= TPCC_DISTRICTS; d++)
		{
			pg_prng_state cnt;

			stream(&cnt, l->seed, 1, w, d);
			for (int o = 1; o <= TPCC_CUSTOMERS; o++)
			{
				int			lines = 5 + (int) pg_prng_uint64_range(&cnt, 0, 10);

				for (int n = 1; n <= lines; n++)
				{
					Datum	   *v = row_begin(l);

					v[0] = Int32GetDatum(o);
					v[1] = Int32GetDatum(d);
					v[2] = Int32GetDatum(w);
					v[3] = Int32GetDatum(n);
					v[4] = Int32GetDatum(rnd(l, 1, TPCC_ITEMS));
					v[5] = Int32GetDatum(w);
					v[7] = Int32GetDatum(5);
					if (o <= TPCC_DELIVERED)
					{
						v[6] = l->now;
						v[8] = l->zero;
					}
					else
					{
						row_null(l, 6);
						v[8] = numeric_datum(rnd(l, 1, 999999), 2);
					}
					v[9] = astring_datum(l, 24, 24);
					row_end(l);
				}
			}
		}
}

static void
gen_stock(Loader *l)
{
	Datum		zero = Int32GetDatum(0);

	for (int w = 1; w <= l->warehouses; w++)
		for (int i = 1; i <= TPCC_ITEMS; i++)
		{
			Datum	   *v = row_begin(l);

			v[0] = Int32GetDatum(i);
			v[1] = Int32GetDatum(w);
			v[2] = Int32GetDatum(rnd(l, 10, 100));
			for (int k = 3; k < 13; k++)
				v[k] = astring_datum(l, 24, 24);
			v[13] = zero;
			v[14] = zero;
			v[15] = zero;
			v[16] = data_datum(l);
			row_end(l);
		}
}

static Oid
type_of(char letter)
{
	switch (letter)
	{
		case 'i':
			return INT4OID;
		case 'v':
			return VARCHAROID;
		case 'b':
			return BPCHAROID;
		case 'n':
			return NUMERICOID;
		case 't':
			return TIMESTAMPOID;
	}
	elog(ERROR, "unknown column type letter %c", letter);
	return InvalidOid;
}

/*
 * Which of the nine tables rel is, refusing one that is not new in this
 * subtransaction, not the caller's to insert into, or not bare.
 */
static int
table_checked(Relation rel)
{
	const char *name = RelationGetRelationName(rel);
	TupleDesc	desc = RelationGetDescr(rel);
	int			t;

	for (t = 0; t < lengthof(tpcc_tables); t++)
		if (strcmp(name, tpcc_tables[t].name) == 0)
			break;
	if (t == lengthof(tpcc_tables))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("table \"%s\" is not one of TPC-C's nine", name),
				 errhint("init_tpcc() fills warehouse, district, customer, history, new_order, orders, order_line, item and stock.")));
	if (pg_class_aclcheck(RelationGetRelid(rel), GetUserId(), ACL_INSERT) != ACLCHECK_OK)
		aclcheck_error(ACLCHECK_NO_PRIV, OBJECT_TABLE, name);
	if (rel->rd_rel->relkind != RELKIND_RELATION ||
		rel->rd_createSubid != GetCurrentSubTransactionId() ||
		rel->trigdesc != NULL || rel->rd_rules != NULL ||
		rel->rd_rel->relrowsecurity ||
		(desc->constr != NULL && desc->constr->num_check > 0) ||
		RelationGetNumberOfBlocks(rel) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("table \"%s\" is not a bare empty table made in this transaction", name),
				 errhint("Let init_tpcc() make and fill the tables.")));
	if (desc->natts != (int) strlen(tpcc_tables[t].types))
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("table \"%s\" has %d columns, not TPC-C's %d", name, desc->natts,
						(int) strlen(tpcc_tables[t].types))));
	for (int a = 0; a < desc->natts; a++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, a);

		if (att->attisdropped || att->atttypid != type_of(tpcc_tables[t].types[a]))
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("column %d of table \"%s\" does not have TPC-C's type", a + 1, name)));
	}
	return t;
}

/*
 * The table's only index, if it has one: its primary key, made on the
 * empty table in this subtransaction, on the columns the rows come in the
 * order of; else refused.
 */
static Relation
pkey_checked(Relation rel, const TpccTable *t)
{
	List	   *indexes = RelationGetIndexList(rel);
	Relation	index;
	Form_pg_index ix;
	bool		ok;

	if (indexes == NIL)
		return NULL;
	index = index_open(linitial_oid(indexes), RowExclusiveLock);
	ix = index->rd_index;
	ok = list_length(indexes) == 1 && ix->indisprimary && index->rd_rel->relam == BTREE_AM_OID &&
		ix->indnkeyatts == t->nkey && ix->indnatts == t->nkey &&
		index->rd_createSubid == GetCurrentSubTransactionId() &&
		RelationGetIndexExpressions(index) == NIL && RelationGetIndexPredicate(index) == NIL;
	for (int i = 0; ok && i < t->nkey; i++)
		ok = ix->indkey.values[i] == t->key[i];
	if (!ok)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("table \"%s\" has an index other than TPC-C's primary key made with it",
						RelationGetRelationName(rel)),
				 errhint("Let init_tpcc() make and fill the tables.")));
	return index;
}

Datum
pgbench_lab_tpcc_load(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	int32		warehouses = PG_GETARG_INT32(1);
	Loader	   *l;
	int			t;
	int64		rows;

	TpccCheckCaller("tpcc_load()");
	if (warehouses < 1 || warehouses > 100000)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%d warehouses is out of range", warehouses)));
	l = palloc0(sizeof(Loader));
	l->rel = table_open(relid, RowExclusiveLock);
	t = table_checked(l->rel);
	l->warehouses = warehouses;
	l->seed = (uint64) PG_GETARG_INT64(2);
	pg_prng_seed(&l->rng, l->seed ^ ((uint64) (t + 2) << 56));
	l->now = DirectFunctionCall1(timestamptz_timestamp,
								 TimestampTzGetDatum(GetCurrentTransactionStartTimestamp()));
	l->table = &tpcc_tables[t];
	l->natts = RelationGetDescr(l->rel)->natts;
	l->pkey = pkey_checked(l->rel, l->table);
	l->pages = TpccPagesBegin(l->rel);
	if (l->pkey != NULL)
		l->bt = DatasetBtreeBegin(l->pkey);
	l->caller_cxt = CurrentMemoryContext;
	fill_pool(l);
	l->oe = CStringGetTextDatum("OE");
	l->gc = CStringGetTextDatum("GC");
	l->bc = CStringGetTextDatum("BC");
	l->credit_lim = numeric_datum(5000000, 2);
	l->balance = numeric_datum(-1000, 2);
	l->ten = numeric_datum(1000, 2);
	l->zero = numeric_datum(0, 2);
	l->batch_cxt = AllocSetContextCreate(CurrentMemoryContext, "tpcc_load rows",
										 ALLOCSET_DEFAULT_SIZES);
	MemoryContextSwitchTo(l->batch_cxt);
	switch (t)
	{
		case 0:
			gen_warehouse(l);
			break;
		case 1:
			gen_district(l);
			break;
		case 2:
			gen_customer(l);
			break;
		case 3:
			gen_history(l);
			break;
		case 4:
			gen_new_order(l);
			break;
		case 5:
			gen_orders(l);
			break;
		case 6:
			gen_order_line(l);
			break;
		case 7:
			gen_item(l);
			break;
		case 8:
			gen_stock(l);
			break;
	}
	MemoryContextSwitchTo(l->caller_cxt);
	rows = TpccPagesFinish(l->pages);
	if (l->bt != NULL)
	{
		DatasetBtreeFinish(l->bt);
		index_close(l->pkey, NoLock);
	}
	MemoryContextDelete(l->batch_cxt);
	pfree(l->pool);
	table_close(l->rel, NoLock);
	pfree(l);
	PG_RETURN_INT64(rows);
}

/*
 * pgbench_lab_internal.tpcc_progress(step int4, weights float8[], what text,
 *                                    done bool) RETURNS void
 *
 * init_tpcc()'s progress, as init() gives it (progress.c): step 1's start
 * begins the call (weights: each step's share of the work, their count the
 * steps'); each step's start and end are said as a NOTICE once the call is
 * long enough (pgbench_lab.progress_after) and in pg_stat_activity (the view
 * pgbench_lab.in_progress); step 0 ends the call.
 */
Datum
pgbench_lab_tpcc_progress(PG_FUNCTION_ARGS)
{
	int32		step = PG_GETARG_INT32(0);
	ArrayType  *arr = PG_GETARG_ARRAYTYPE_P(1);
	char	   *what = text_to_cstring(PG_GETARG_TEXT_PP(2));
	bool		done = PG_GETARG_BOOL(3);
	Datum	   *elems;
	bool	   *nulls;
	int			n;
	double		total = 0;

	TpccCheckCaller("tpcc_progress()");
	deconstruct_array(arr, FLOAT8OID, sizeof(float8), FLOAT8PASSBYVAL, TYPALIGN_DOUBLE,
					  &elems, &nulls, &n);
	if (step < 0 || step > n)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("step %d is not one of the %d steps", step, n)));
	if (step == 0)
	{
		if (tpcc_step != 0)
			ProgressEnd(&tpcc_watch);
		tpcc_step = 0;
		PG_RETURN_VOID();
	}
	for (int i = 0; i < n; i++)
		total += nulls[i] ? 0 : DatumGetFloat8(elems[i]);
	if (step == 1 && !done)
		ProgressBegin(&tpcc_watch, "init_tpcc()", n, total, false);
	if (done)
	{
		ProgressStepDone(&tpcc_watch, step, "%s", what);
		tpcc_step = 0;
	}
	else
	{
		ProgressStep(&tpcc_watch, step, nulls[step - 1] ? 0 : DatumGetFloat8(elems[step - 1]), "%s", what);
		tpcc_step = step;
	}
	PG_RETURN_VOID();
}
