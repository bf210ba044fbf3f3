/*-------------------------------------------------------------------------
 *
 * storage_io.c
 *		io_test(): sequential write and read throughput and random 8 kB read
 *		IOPS of the data directory's device.
 *
 * One temporary file of the requested size (handled and cleaned up as
 * storage.c describes) is written sequentially through the page cache,
 * synced every 64 MB and at the end so the sync is part of the time, then
 * read back sequentially and at random 8 kB blocks one at a time (queue
 * depth 1), each phase taking a third of the time.  The OS page cache is
 * kept out of the read figures: O_DIRECT where the file system takes it,
 * else POSIX_FADV_DONTNEED on the synced file (and POSIX_FADV_RANDOM for
 * the random reads); the row says which.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "catalog/pg_tablespace_d.h"
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
#include "storage.h"

#define PGBL_IO_CHUNK (1024 * 1024)
#define PGBL_IO_SYNC_EVERY (64 * 1024 * 1024)
#define PGBL_IO_MIN_KB 1024
#define PGBL_IO_RESERVE_BYTES ((int64) 1024 * 1024 * 1024)

PG_FUNCTION_INFO_V1(pgbench_lab_io_test);

/* io_test()'s one row. */
typedef struct IoResult
{
	int64		file_bytes;
	double		write_mbps;
	double		read_mbps;
	double		random_iops;
	double		random_usec;
	const char *bypass;			/* how the OS cache was kept out */
	double		elapsed;
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
io_open_uncached(IoResult *r, bool random)
{
	if (StorageOpen(O_RDONLY, true))
	{
		r->bypass = "O_DIRECT";
		return;
	}
	(void) StorageOpen(O_RDONLY, false);
	r->bypass = "none";
#if defined(POSIX_FADV_DONTNEED) && defined(POSIX_FADV_RANDOM)
	if (posix_fadvise(StorageFile.fd, 0, 0, POSIX_FADV_DONTNEED) == 0)
		r->bypass = "posix_fadvise";
	if (random)
		(void) posix_fadvise(StorageFile.fd, 0, 0, POSIX_FADV_RANDOM);
#endif
}

static void
io_read_sequential(IoResult *r, double share, char *buf)
{
	instr_time	start;
	int64		done = 0;
	int			n;

	io_open_uncached(r, false);
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

static void
io_read_random(IoResult *r, double share, char *buf)
{
	instr_time	start;
	int64		blocks = r->file_bytes / PGBL_STORAGE_BLOCK;
	int64		reads = 0;
	double		elapsed;

	io_open_uncached(r, true);
	INSTR_TIME_SET_CURRENT(start);
	do
	{
		uint64		b = pg_prng_uint64_range(&pg_global_prng_state, 0, blocks - 1);

		CHECK_FOR_INTERRUPTS();
		if (StoragePread(buf, PGBL_STORAGE_BLOCK,
						 (off_t) b * PGBL_STORAGE_BLOCK) != PGBL_STORAGE_BLOCK)
			elog(ERROR, "short read of block " UINT64_FORMAT " of \"%s\"",
				 b, StorageFile.path);
		reads++;
		elapsed = StorageElapsed(start);
	} while (elapsed < share);
	r->random_iops = reads / elapsed;
	r->random_usec = elapsed * 1e6 / reads;
	StorageClose();
}

static char *
io_json(const IoResult *r)
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
	appendStringInfoChar(&buf, '}');
	return buf.data;
}

static void
io_emit(FunctionCallInfo fcinfo, const IoResult *r)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Datum		values[7];
	bool		nulls[7] = {false};

	values[0] = Int64GetDatum(r->file_bytes);
	values[1] = StorageNumeric(r->write_mbps, 1);
	values[2] = StorageNumeric(r->read_mbps, 1);
	values[3] = StorageNumeric(r->random_iops, 1);
	values[4] = StorageNumeric(r->random_usec, 1);
	values[5] = CStringGetTextDatum(r->bypass);
	values[6] = StorageNumeric(r->elapsed, 3);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

/*
 * pgbench_lab.io_test(size text DEFAULT '1GB', seconds numeric DEFAULT 10)
 *	RETURNS TABLE (file_size bigint, write_mb_per_second numeric,
 *				   read_mb_per_second numeric, random_read_iops numeric,
 *				   random_read_usec numeric, read_cache_bypass text,
 *				   elapsed_seconds numeric)
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
		r.file_bytes = io_write(&r, size, seconds / 3, buf);
		io_read_sequential(&r, seconds / 3, buf);
		io_read_random(&r, seconds / 3, buf);
		r.elapsed = StorageElapsed(start);
		StorageRecord("io", started, PG_GETARG_DATUM(1), r.file_bytes,
					  io_json(&r));
	}
	PG_END_ENSURE_ERROR_CLEANUP(StorageCleanup, (Datum) 0);
	StorageCleanup(0, (Datum) 0);

	io_emit(fcinfo, &r);
	return (Datum) 0;
}
