/*-------------------------------------------------------------------------
 *
 * storage_io.c
 *		io_test(): sequential write and read throughput of the data
 *		directory's device, and its random 8 kB read rate at queue depths 1,
 *		4, 16 and 64 with the depth where that rate stops growing.
 *
 * One temporary file of the requested size (handled and cleaned up as
 * storage.c describes) is written sequentially through the page cache,
 * synced every 64 MB and at the end so the sync is part of the time, then
 * read back sequentially, then at random 8 kB blocks; each phase takes a
 * third of the time.  The sequential read keeps the OS page cache out with
 * O_DIRECT where the file system takes it, else with POSIX_FADV_DONTNEED on
 * the synced file.
 *
 * The random phase measures what effective_io_concurrency is about.  Depth
 * N means N reads in flight, issued the way PostgreSQL 15 to 17 prefetch:
 * the block being read with pread() and the next N - 1 blocks of a random
 * order already advised with POSIX_FADV_WILLNEED, on a buffered file whose
 * cache was dropped, each block read once so that the cache never serves a
 * repeat (io_uring would need liburing, which neither supported server
 * links).  Depth 1 reads with O_DIRECT where the file system takes it, one
 * read at a time, as this function always measured random_read_iops.
 * Each figure says which method it used, and a cache drop that mincore()
 * shows did not happen turns the figure's method into "none".  The knee
 * is the smallest depth within 10% of the best depth's rate: where adding
 * reads in flight stops paying, the value effective_io_concurrency follows
 * in storage_latest.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <math.h>
#include <sys/mman.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "catalog/pg_tablespace_d.h"
#include "common/hashfn.h"
#include "common/pg_prng.h"
#include "fmgr.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "portability/instr_time.h"
#include "storage/fd.h"
#include "storage/ipc.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/json.h"
#include "utils/timestamp.h"

#include "pgbench_lab.h"
#include "progress.h"
#include "storage.h"

#define PGBL_IO_CHUNK (1024 * 1024)
#define PGBL_IO_SYNC_EVERY (64 * 1024 * 1024)
#define PGBL_IO_MIN_KB 1024
#define PGBL_IO_RESERVE_BYTES ((int64) 1024 * 1024 * 1024)
#define PGBL_IO_MAP_WINDOW (64 * 1024 * 1024)	/* mincore() per window */

PG_FUNCTION_INFO_V1(pgbench_lab_io_test);

/* Queue depths of the random phase: reads in flight, shallowest first. */
static const int io_depths[] = {1, 4, 16, 64};

#define PGBL_IO_DEPTHS lengthof(io_depths)
#define PGBL_IO_MAX_DEPTH 64		/* the deepest of io_depths: the window */

/* The knee: the smallest depth that reaches this share of the best rate. */
#define PGBL_IO_KNEE_PERCENT 90

/* Random reads at one queue depth. */
typedef struct IoDepth
{
	int			depth;
	int64		reads;
	double		seconds;
	int64		tenths;			/* reads per second, in tenths */
	double		iops;			/* the same, as returned */
	bool		cached;			/* a cache drop left pages behind */
	const char *method;			/* O_DIRECT, posix_fadvise or none */
} IoDepth;

/* A random order of the file's blocks, each once (io_order_start). */
typedef struct IoOrder
{
	uint64		blocks;
	uint64		next;			/* how many were given */
	int			half;			/* bits per Feistel half */
	uint64		keys[4];
} IoOrder;

/* The blocks in flight: advised and not yet read, oldest first. */
typedef struct IoStream
{
	IoOrder		order;
	int			depth;
	int			head;
	int			count;
	uint64		ring[PGBL_IO_MAX_DEPTH];
} IoStream;

/* io_test()'s one row. */
typedef struct IoResult
{
	int64		file_bytes;
	double		write_mbps;
	double		read_mbps;
	double		random_iops;	/* depth 1 */
	double		random_usec;
	const char *bypass;			/* how the OS cache was kept out */
	double		elapsed;
	int			ndepths;
	IoDepth		depths[PGBL_IO_DEPTHS];
	int			knee;			/* 0 when only depth 1 was measured */
} IoResult;

/* The size argument, parsed as a GUC with a unit; bytes, whole blocks. */
static int64
io_size_arg(FunctionCallInfo fcinfo)
{
	char	   *s;
	int			kb;
	const char *hint = NULL;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("size must not be null"),
				 errhint("Give a size such as '256MB' or '1GB'.")));
	s = text_to_cstring(PG_GETARG_TEXT_PP(0));
	if (!parse_int(s, &kb, GUC_UNIT_KB, &hint))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid size: \"%s\"", s),
				 errhint("%s", hint ? hint :
						 "Give a number with a unit: kB, MB, GB or TB (a bare number means kB).")));
	if (kb < PGBL_IO_MIN_KB)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("size must be at least 1MB: \"%s\"", s),
				 errhint("Give a size such as '256MB' or '1GB'.")));
	return ((int64) kb * 1024) / PGBL_STORAGE_BLOCK * PGBL_STORAGE_BLOCK;
}

static char *
io_pretty(int64 bytes)
{
	return text_to_cstring(DatumGetTextPP(DirectFunctionCall1(pg_size_pretty,
															  Int64GetDatum(bytes))));
}

/* Refuse a file that would not leave PGBL_IO_RESERVE_BYTES free. */
static void
io_check_space(int64 size)
{
	struct statvfs fs;
	int64		avail;
	char		dir[MAXPGPATH];

	TempTablespacePath(dir, DEFAULTTABLESPACE_OID);
	if (statvfs(dir, &fs) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not read the free space of the data directory: %m")));
	avail = (int64) fs.f_bavail * (int64) fs.f_frsize;
	if (size > avail - PGBL_IO_RESERVE_BYTES)
		ereport(ERROR,
				(errcode(ERRCODE_DISK_FULL),
				 errmsg("size exceeds the free space of the data directory's file system"),
				 errdetail("%s is asked for, %s is free, and io_test leaves at least %s free.",
						   io_pretty(size), io_pretty(avail),
						   io_pretty(PGBL_IO_RESERVE_BYTES)),
				 errhint("Give a smaller size.")));
}

/*
 * Sequential write through the page cache, synced every 64 MB and at the
 * end so the sync is part of the time.  Returns the bytes written.
 */
static int64
io_write(IoResult *r, int64 size, double share, const char *buf)
{
	instr_time	start;
	int64		done = 0;

	(void) StorageOpen(O_WRONLY | O_CREAT | O_EXCL, false);
	INSTR_TIME_SET_CURRENT(start);
	do
	{
		int			len = (int) Min(size - done, PGBL_IO_CHUNK);

		CHECK_FOR_INTERRUPTS();
		(void) StoragePwrite(buf, len, done, false);
		done += len;
		if (done % PGBL_IO_SYNC_EVERY == 0 && fdatasync(StorageFile.fd) != 0)
			StorageFileError("fdatasync");
	} while (done < size && StorageElapsed(start) < share);
	if (fsync(StorageFile.fd) != 0)
		StorageFileError("fsync");
	r->write_mbps = done / (1024.0 * 1024.0) / StorageElapsed(start);
	StorageClose();
	return done;
}

/*
 * Open for reading with the OS cache out of the way: O_DIRECT where the
 * file system takes it, else drop the file's (clean, synced) pages.
 */
static void
io_open_uncached(IoResult *r)
{
	if (StorageOpen(O_RDONLY, true))
	{
		r->bypass = "O_DIRECT";
		return;
	}
	(void) StorageOpen(O_RDONLY, false);
	r->bypass = "none";
#ifdef POSIX_FADV_DONTNEED
	if (posix_fadvise(StorageFile.fd, 0, 0, POSIX_FADV_DONTNEED) == 0)
		r->bypass = "posix_fadvise";
#endif
}

static void
io_read_sequential(IoResult *r, double share, char *buf)
{
	instr_time	start;
	int64		done = 0;
	int			n;

	io_open_uncached(r);
	INSTR_TIME_SET_CURRENT(start);
	do
	{
		CHECK_FOR_INTERRUPTS();
		n = StoragePread(buf, (int) Min(r->file_bytes - done, PGBL_IO_CHUNK), done);
		done += n;
	} while (n > 0 && done < r->file_bytes && StorageElapsed(start) < share);
	r->read_mbps = done / (1024.0 * 1024.0) / StorageElapsed(start);
	StorageClose();
}

/* ---------------------------------------------------------------------
 * Random reads at several queue depths
 * ---------------------------------------------------------------------
 */

/*
 * A random order of the file's blocks in which each comes once: a keyed
 * four-round Feistel permutation of the smallest even power of two that
 * holds them, cycle-walked back into range.  It needs no memory however
 * large the file, and a new key gives a new order.
 */
static void
io_order_start(IoOrder *o, uint64 blocks)
{
	int			bits = 2;

	while (bits < 62 && ((uint64) 1 << bits) < blocks)
		bits++;
	o->half = (bits + 1) / 2;
	o->blocks = blocks;
	o->next = 0;
	for (int i = 0; i < lengthof(o->keys); i++)
		o->keys[i] = pg_prng_uint64(&pg_global_prng_state);
}

static uint64
io_order_feistel(const IoOrder *o, uint64 x)
{
	uint64		mask = ((uint64) 1 << o->half) - 1;
	uint64		l = x >> o->half;
	uint64		r = x & mask;

	for (int i = 0; i < lengthof(o->keys); i++)
	{
		uint64		t = l ^ (hash_bytes_uint32_extended((uint32) r, o->keys[i]) & mask);

		l = r;
		r = t;
	}
	return (l << o->half) | r;
}

/* The order's next block; false once every block was given. */
static bool
io_order_next(IoOrder *o, uint64 *block)
{
	uint64		x;

	if (o->next >= o->blocks)
		return false;
	x = o->next++;
	do
		x = io_order_feistel(o, x);
	while (x >= o->blocks);
	*block = x;
	return true;
}

/*
 * The next block to read, keeping depth blocks in flight: the one returned
 * and depth - 1 after it, each advised (POSIX_FADV_WILLNEED) when it enters
 * the window, as PostgreSQL's prefetching does.  False once the order is
 * exhausted and every advised block was read.
 */
static bool
io_stream_next(IoStream *s, uint64 *block)
{
	uint64		b;

	while (s->count < s->depth && io_order_next(&s->order, &b))
	{
#ifdef USE_PREFETCH
		int			rc = 0;

		if (s->depth > 1)
			rc = posix_fadvise(StorageFile.fd, (off_t) b * PGBL_STORAGE_BLOCK,
							   PGBL_STORAGE_BLOCK, POSIX_FADV_WILLNEED);
		if (rc != 0)
		{
			errno = rc;
			StorageFileError("prefetch from");
		}
#endif
		s->ring[(s->head + s->count) % PGBL_IO_MAX_DEPTH] = b;
		s->count++;
	}
	if (s->count == 0)
		return false;
	*block = s->ring[s->head];
	s->head = (s->head + 1) % PGBL_IO_MAX_DEPTH;
	s->count--;
	return true;
}

static void
io_read_block(char *buf, uint64 b)
{
	if (StoragePread(buf, PGBL_STORAGE_BLOCK,
					 (off_t) b * PGBL_STORAGE_BLOCK) != PGBL_STORAGE_BLOCK)
		elog(ERROR, "short read of block " UINT64_FORMAT " of \"%s\"",
			 b, StorageFile.path);
}

/* Pages of the open file in the OS page cache, by mincore() per window. */
static int64
io_cached_pages(int64 file_bytes)
{
	long		page = sysconf(_SC_PAGESIZE);
	unsigned char *vec = palloc(PGBL_IO_MAP_WINDOW / page + 1);
	int64		cached = 0;

	for (int64 off = 0; off < file_bytes; off += PGBL_IO_MAP_WINDOW)
	{
		size_t		len = (size_t) Min(file_bytes - off, PGBL_IO_MAP_WINDOW);
		void	   *map = mmap(NULL, len, PROT_READ, MAP_SHARED,
							   StorageFile.fd, (off_t) off);
		int			rc;

		if (map == MAP_FAILED)
			StorageFileError("map");
		rc = mincore(map, len, vec);
		munmap(map, len);
		if (rc != 0)
			StorageFileError("read the cache state of");
		for (size_t i = 0; i < (len + page - 1) / page; i++)
			cached += vec[i] & 1;
	}
	pfree(vec);
	return cached;
}

/*
 * Drop the (synced, clean) file from the OS page cache; true when at most
 * 1% of its pages are left, as mincore() sees them.  No read of the file
 * is in flight here: a locked page would stay.
 */
static bool
io_drop_cache(int64 file_bytes)
{
	int64		pages = file_bytes / sysconf(_SC_PAGESIZE);

#ifdef POSIX_FADV_DONTNEED
	if (posix_fadvise(StorageFile.fd, 0, 0, POSIX_FADV_DONTNEED) != 0)
		return false;
	return io_cached_pages(file_bytes) * 100 <= pages;
#else
	return false;
#endif
}

/*
 * One stretch of share seconds at one depth; adds its reads and time to
 * d.  Depth 1 reads with O_DIRECT where the file system takes it; deeper
 * reads (and depth 1 elsewhere) go through the page cache, dropped first
 * and again whenever every block was read once, so that no read is served
 * by the cache.  The blocks still in flight at the end are read after the
 * clock stops, so that the next stretch's drop finds none under I/O.
 */
static void
io_depth_stretch(IoResult *r, IoDepth *d, double share, char *buf)
{
	IoStream	s = {.depth = d->depth};
	uint64		blocks = r->file_bytes / PGBL_STORAGE_BLOCK;
	bool		direct = d->depth == 1 && StorageOpen(O_RDONLY, true);
	instr_time	start;
	double		elapsed;
	int64		reads = 0;
	uint64		b;

	if (!direct)
	{
		(void) StorageOpen(O_RDONLY, false);
#ifdef POSIX_FADV_RANDOM
		(void) posix_fadvise(StorageFile.fd, 0, 0, POSIX_FADV_RANDOM);
#endif
		d->cached |= !io_drop_cache(r->file_bytes);
	}
	io_order_start(&s.order, blocks);
	INSTR_TIME_SET_CURRENT(start);
	do
	{
		CHECK_FOR_INTERRUPTS();
		if (!io_stream_next(&s, &b))
		{
			/* every block was read once: a cold cache and a new order */
			d->cached |= !direct && !io_drop_cache(r->file_bytes);
			io_order_start(&s.order, blocks);
			(void) io_stream_next(&s, &b);
		}
		io_read_block(buf, b);
		reads++;
		elapsed = StorageElapsed(start);
	} while (elapsed < share);
	s.order.next = s.order.blocks;	/* no new block: only the window's */
	while (io_stream_next(&s, &b))
	{
		CHECK_FOR_INTERRUPTS();
		io_read_block(buf, b);
	}
	StorageClose();
	d->method = direct ? "O_DIRECT" : d->cached ? "none" : "posix_fadvise";
	d->reads += reads;
	d->seconds += elapsed;
}

/*
 * The knee: the smallest depth whose rate is at least PGBL_IO_KNEE_PERCENT
 * of the best depth's, compared in the tenths of a read per second that
 * io_test() returns, so that anyone can apply the rule to its figures.
 */
static int
io_knee(const IoDepth *d, int n)
{
	int64		best = 0;

	for (int i = 0; i < n; i++)
		best = Max(best, d[i].tenths);
	for (int i = 0; i < n; i++)
		if (d[i].tenths * 100 >= best * PGBL_IO_KNEE_PERCENT)
			return d[i].depth;
	return d[n - 1].depth;		/* not reached */
}

/*
 * The random phase: share seconds split evenly among the depths, each
 * measured in two halves in the order 1, 4, 16, 64, 64, 16, 4, 1 so that a
 * device whose speed drifts during the test favours none of them.  Depth 1
 * is random_read_iops, as before depths were measured.  Without
 * posix_fadvise the server cannot prefetch: only depth 1 is measured and
 * there is no knee.
 */
static void
io_read_depths(IoResult *r, double share, char *buf)
{
	int			n = 0;

	for (int i = 0; i < lengthof(io_depths); i++)
	{
#ifndef USE_PREFETCH
		if (io_depths[i] > 1)
			continue;
#endif
		r->depths[n++].depth = io_depths[i];
	}
	r->ndepths = n;
	for (int k = 0; k < 2 * n; k++)
		io_depth_stretch(r, &r->depths[k < n ? k : 2 * n - 1 - k],
						 share / (2 * n), buf);
	for (int i = 0; i < n; i++)
	{
		IoDepth    *d = &r->depths[i];

		d->tenths = (int64) llround(d->reads * 10.0 / d->seconds);
		d->iops = d->tenths / 10.0;
	}
	r->random_iops = r->depths[0].iops;
	r->random_usec = r->depths[0].seconds * 1e6 / r->depths[0].reads;
	r->bypass = r->depths[0].method;
	r->knee = n > 1 ? io_knee(r->depths, n) : 0;
}

/* The depths as a JSON array: [{"depth": 1, "iops": ..., ...}, ...]. */
static char *
io_depths_json(const IoResult *r)
{
	StringInfoData buf;

	initStringInfo(&buf);
	appendStringInfoChar(&buf, '[');
	for (int i = 0; i < r->ndepths; i++)
	{
		const IoDepth *d = &r->depths[i];

		appendStringInfo(&buf, "%s{\"depth\": %d", i > 0 ? ", " : "", d->depth);
		StorageJsonNumber(&buf, "iops", d->iops, 1, false);
		appendStringInfo(&buf, ", \"reads\": " INT64_FORMAT, d->reads);
		StorageJsonNumber(&buf, "seconds", d->seconds, 3, false);
		appendStringInfoString(&buf, ", \"method\": ");
		escape_json(&buf, d->method);
		appendStringInfoChar(&buf, '}');
	}
	appendStringInfoChar(&buf, ']');
	return buf.data;
}

static char *
io_json(const IoResult *r, const char *depths)
{
	StringInfoData buf;

	initStringInfo(&buf);
	appendStringInfo(&buf, "{\"file_bytes\": " INT64_FORMAT, r->file_bytes);
	StorageJsonNumber(&buf, "write_mb_per_second", r->write_mbps, 1, false);
	StorageJsonNumber(&buf, "read_mb_per_second", r->read_mbps, 1, false);
	StorageJsonNumber(&buf, "random_read_iops", r->random_iops, 1, false);
	StorageJsonNumber(&buf, "random_read_usec", r->random_usec, 1, false);
	appendStringInfoString(&buf, ", \"read_cache_bypass\": ");
	escape_json(&buf, r->bypass);
	StorageJsonNumber(&buf, "elapsed_seconds", r->elapsed, 3, false);
	appendStringInfo(&buf, ", \"iops_by_depth\": %s", depths);
	StorageJsonNumber(&buf, "knee_depth", r->knee, 0, r->knee == 0);
	appendStringInfoChar(&buf, '}');
	return buf.data;
}

static void
io_emit(FunctionCallInfo fcinfo, const IoResult *r, const char *depths)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Datum		values[9];
	bool		nulls[9] = {false};

	values[0] = Int64GetDatum(r->file_bytes);
	values[1] = StorageNumeric(r->write_mbps, 1);
	values[2] = StorageNumeric(r->read_mbps, 1);
	values[3] = StorageNumeric(r->random_iops, 1);
	values[4] = StorageNumeric(r->random_usec, 1);
	values[5] = CStringGetTextDatum(r->bypass);
	values[6] = StorageNumeric(r->elapsed, 3);
	values[7] = DirectFunctionCall1(jsonb_in, CStringGetDatum(depths));
	values[8] = Int32GetDatum(r->knee);
	nulls[8] = r->knee == 0;
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

/*
 * pgbench_lab.io_test(size text DEFAULT '1GB', seconds numeric DEFAULT 10)
 *	RETURNS TABLE (file_size bigint, write_mb_per_second numeric,
 *				   read_mb_per_second numeric, random_read_iops numeric,
 *				   random_read_usec numeric, read_cache_bypass text,
 *				   elapsed_seconds numeric, iops_by_depth jsonb,
 *				   knee_depth integer)
 */
Datum
pgbench_lab_io_test(PG_FUNCTION_ARGS)
{
	IoResult	r = {0};
	int64		size;
	double		seconds;
	TimestampTz started = GetCurrentTimestamp();
	instr_time	start;
	char	   *buf;
	char	   *depths;
	Progress	progress;

	StorageRequireSuperuser("io_test");
	size = io_size_arg(fcinfo);
	seconds = StorageSecondsArg(fcinfo, 1);
	InitMaterializedSRF(fcinfo, 0);
	StoragePreparePath("io");
	io_check_space(size);
	buf = StorageBuffer(PGBL_IO_CHUNK);

	INSTR_TIME_SET_CURRENT(start);
	PG_ENSURE_ERROR_CLEANUP(StorageCleanup, (Datum) 0);
	{
		ProgressBegin(&progress, "io_test()", 3, seconds, true);
		ProgressStep(&progress, 1, seconds / 3, "writing the %s test file", io_pretty(size));
		r.file_bytes = io_write(&r, size, seconds / 3, buf);
		ProgressStepDone(&progress, 1, "%s written", io_pretty(r.file_bytes));
		ProgressStep(&progress, 2, seconds / 3, "reading it in order");
		io_read_sequential(&r, seconds / 3, buf);
		ProgressStepDone(&progress, 2, "read in order");
		ProgressStep(&progress, 3, seconds / 3, "random reads at queue depths 1 to %d", PGBL_IO_MAX_DEPTH);
		io_read_depths(&r, seconds / 3, buf);
		ProgressStepDone(&progress, 3, "%.1f random reads per second at depth 1", r.random_iops);
		ProgressEnd(&progress);
		r.elapsed = StorageElapsed(start);
		depths = io_depths_json(&r);
		StorageRecord("io", started, PG_GETARG_DATUM(1), r.file_bytes,
					  io_json(&r, depths));
	}
	PG_END_ENSURE_ERROR_CLEANUP(StorageCleanup, (Datum) 0);
	StorageCleanup(0, (Datum) 0);

	io_emit(fcinfo, &r, depths);
	return (Datum) 0;
}
