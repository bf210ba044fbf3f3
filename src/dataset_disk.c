/*-------------------------------------------------------------------------
 *
 * dataset_disk.c
 *		Whether the file system init() writes to can hold what it will
 *		write: checked by init's worker before it drops or creates anything.
 *
 * A scale that max_scale allows can still be far more than the disk holds
 * (scale 5000 is about 78 GB), and a data directory that fills up stops
 * the whole server, not only init.  So the worker, connected as the caller
 * and with the settings its tables will be created with, estimates the
 * bytes the tables will take and compares them with the space free on the
 * file system of the tablespace they go in (init's tablespace, else
 * default_tablespace, else the database's), as statvfs() gives it to an
 * unprivileged process.
 *
 * The estimate follows how the pages are written (dataset_pages.c and
 * dataset_btree.c): each table's rows fill its heap pages up to the
 * fillfactor, as heap_multi_insert would place them; each primary key's
 * leaves hold about 360 entries (90 % full) with an inner page per 250
 * leaves; VACUUM adds a free space map and a visibility map.  Then 10 % to
 * spare.  For logged tables with WAL (wal_level above minimal) written to
 * the same file system, the WAL the pages go through is added too: as much
 * as the data, at most max_wal_size, beyond which checkpoints recycle it.
 * The tables init replaces are not counted as free: they are dropped in
 * the same transaction, and their files go only when it commits.
 *
 * With a target (dataset_remote.c) nothing is checked: the space is the
 * other server's, which this one cannot see.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include "access/htup_details.h"
#include "access/xlog.h"
#include "catalog/pg_class.h"
#include "catalog/pg_tablespace_d.h"
#include "commands/tablespace.h"
#include "miscadmin.h"
#include "storage/bufpage.h"
#include "utils/lsyscache.h"

#include "pgbench_lab.h"
#include "dataset.h"

/* the share of the estimate added to spare */
#define PGBL_DISK_SPARE			0.10

/* a primary key's entries per leaf page (an int4 or int8 key: 20 bytes) */
#define PGBL_BTREE_PER_LEAF		360
#define PGBL_BTREE_PER_INNER	250

/* One table: its rows per scale unit and its row's width on the page. */
typedef struct DiskTable
{
	int			per_scale;
	Size		width;			/* header and data, before MAXALIGN */
} DiskTable;

/*
 * The rows as dataset_pages.c writes them: accounts (aid, bid, abalance,
 * filler blank-padded to 84: 85 bytes with its short header), tellers
 * (filler NULL: a null bitmap), branches (filler NULL).  aid is int8 from
 * scale 20000, four bytes more.  History starts empty.
 */
static const DiskTable disk_tables[] = {
	{PGBL_ACCOUNTS_PER_SCALE, MAXALIGN(SizeofHeapTupleHeader) + 12 + 85},
	{PGBL_TELLERS_PER_SCALE, MAXALIGN(SizeofHeapTupleHeader + 1) + 12},
	{PGBL_BRANCHES_PER_SCALE, MAXALIGN(SizeofHeapTupleHeader + 1) + 8},
};

/* Rows on one heap page: a row goes on while its width and the fillfactor's reserve fit. */
static int64
rows_per_page(Size width, int fillfactor)
{
	int64		item = MAXALIGN(width) + sizeof(ItemIdData);
	int64		reserve = BLCKSZ * (100 - fillfactor) / 100;
	int64		room = (int64) (BLCKSZ - SizeOfPageHeaderData) - sizeof(ItemIdData) -
		(int64) MAXALIGN(width) - reserve;

	return Min(1 + Max(room, 0) / item, (int64) MaxHeapTuplesPerPage);
}

/* Pages of one table at this scale: heap, its maps and its primary key. */
static double
table_pages(const DiskTable *t, const DatasetParams *p)
{
	Size		width = t->width + (t->per_scale == PGBL_ACCOUNTS_PER_SCALE &&
									p->scale >= PGBL_SCALE_BIGINT ? 4 : 0);
	double		rows = (double) p->scale * t->per_scale;
	double		heap = ceil(rows / (double) rows_per_page(width, p->fillfactor));
	double		leaves = ceil(rows / PGBL_BTREE_PER_LEAF);
	double		maps = 3 + ceil(heap / 4000) + 1 + ceil(heap / 32000);

	return heap + maps + leaves + ceil(leaves / PGBL_BTREE_PER_INNER) + 2;
}

/* The bytes init at these parameters writes to its tablespace. */
double
DatasetEstimateBytes(const DatasetParams *p)
{
	double		pages = 0;

	for (int i = 0; i < lengthof(disk_tables); i++)
		pages += table_pages(&disk_tables[i], p);
	return pages * BLCKSZ * (1.0 + PGBL_DISK_SPARE);
}

/* "78.3 GB" */
static char *
bytes_text(double bytes)
{
	static const char *const units[] = {"bytes", "kB", "MB", "GB", "TB", "PB"};
	int			u = 0;

	while (bytes >= 1024.0 * 10 && u < lengthof(units) - 1)
	{
		bytes /= 1024.0;
		u++;
	}
	return u == 0 ? psprintf("%.0f bytes", bytes) : psprintf("%.1f %s", bytes, units[u]);
}

static bool
same_file_system(const char *a, const char *b)
{
	struct stat sa;
	struct stat sb;

	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev;
}

/*
 * Refuse (53100) an init whose tables the free space of their tablespace's
 * file system cannot hold.  In init's worker, in a transaction, before the
 * first step.  Says nothing when statvfs() fails: the space is unknown.
 */
void
DatasetCheckDisk(const DatasetParams *p)
{
	Oid			spc = p->tablespace[0] ? get_tablespace_oid(p->tablespace, false)
		: GetDefaultTablespace(p->unlogged ? RELPERSISTENCE_UNLOGGED
							   : RELPERSISTENCE_PERMANENT, false);
	const char *path;
	char	   *wal_dir = psprintf("%s/pg_wal", DataDir);
	struct statvfs vfs;
	double		need = DatasetEstimateBytes(p);
	double		wal = 0;
	double		free_bytes;

	if (!OidIsValid(spc))
		spc = MyDatabaseTableSpace;
	path = spc == DEFAULTTABLESPACE_OID ? DataDir : psprintf("%s/pg_tblspc/%u", DataDir, spc);
	if (statvfs(path, &vfs) != 0)
	{
		elog(DEBUG1, "pgbench_lab.init: no free space known for \"%s\": %m", path);
		return;
	}
	free_bytes = (double) vfs.f_bavail * (double) vfs.f_frsize;
	if (!p->unlogged && XLogIsNeeded() && same_file_system(path, wal_dir))
		wal = Min(need, (double) max_wal_size_mb * 1024.0 * 1024.0);
	if (need + wal <= free_bytes)
		return;
	ereport(ERROR,
			(errcode(ERRCODE_DISK_FULL),
			 errmsg("init(%d) needs about %s of disk, and the file system of tablespace \"%s\" has %s free",
					p->scale, bytes_text(need + wal), get_tablespace_name(spc), bytes_text(free_bytes)),
			 errdetail("The estimate is the tables and their primary keys at fillfactor %d, %d %% more to spare%s. "
					   "Nothing was dropped or created.",
					   p->fillfactor, (int) (PGBL_DISK_SPARE * 100),
					   wal > 0 ? psprintf(", and %s of WAL on the same file system", bytes_text(wal)) : ""),
			 errhint("Use a smaller scale, free space there, or create the tables in a tablespace with room "
					 "(default_tablespace for the role or the database: init's worker uses their settings).")));
}
