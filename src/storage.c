/*-------------------------------------------------------------------------
 *
 * storage.c
 *		Storage baseline from SQL: fsync_test() and io_test().
 *
 * Both functions measure the device that holds the data directory by
 * writing one temporary file in base/pgsql_tmp, the server's own directory
 * for temporary files of the default tablespace.  The name starts with
 * "pgsql_tmp", so even a crash that skips every cleanup leaves nothing
 * behind for long: the postmaster empties that directory at start-up.
 * Otherwise the file is removed whatever happens: the work runs inside
 * PG_ENSURE_ERROR_CLEANUP, whose callback runs on ERROR (a cancel, a failed
 * write) and, as a before_shmem_exit callback, on FATAL (pg_terminate_backend)
 * as well.  The callback works from static state, not from memory that error
 * recovery may already have reset.
 *
 * fsync_test() follows pg_test_fsync: the file is 16 MB (a WAL segment) and
 * each method writes 8 kB blocks into it from offset 0, wrapping at the end,
 * and syncs the way one wal_sync_method value would; each method gets an
 * equal share of the time.  io_test() writes a file of the requested size
 * sequentially, then reads it back sequentially and at random 8 kB blocks
 * with the OS page cache kept out (O_DIRECT, else POSIX_FADV_DONTNEED),
 * each phase taking a third of the time.  Syncs are real fsync()/fdatasync()
 * calls, not pg_fsync(), so the figures do not depend on the fsync setting.
 *
 * Results are inserted into pgbench_lab.storage_tests (as jsonb) in the
 * caller's transaction; the SQL view pgbench_lab.storage_latest turns the
 * latest of each kind into figures the recommender can read.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <math.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "access/xlog.h"
#include "access/xlog_internal.h"
#include "catalog/pg_tablespace_d.h"
#include "catalog/pg_type_d.h"
#include "common/file_utils.h"
#include "common/pg_prng.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "portability/instr_time.h"
#include "storage/fd.h"
#include "storage/ipc.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/json.h"
#include "utils/numeric.h"
#include "utils/timestamp.h"

#include "pgbench_lab.h"
#include "storage.h"

#define PGBL_BLOCK_SIZE 8192	/* one WAL or heap block */
#define PGBL_IO_ALIGN 4096		/* O_DIRECT buffer alignment */
#define PGBL_FSYNC_FILE_SIZE (16 * 1024 * 1024)
#define PGBL_FSYNC_MAX_METHODS 24
#define PGBL_IO_CHUNK (1024 * 1024)
#define PGBL_IO_SYNC_EVERY (64 * 1024 * 1024)
#define PGBL_IO_MIN_KB 1024
#define PGBL_IO_RESERVE_BYTES ((int64) 1024 * 1024 * 1024)

PG_FUNCTION_INFO_V1(pgbench_lab_fsync_test);
PG_FUNCTION_INFO_V1(pgbench_lab_io_test);

/* The one temporary file of this backend, for the cleanup callback. */
typedef struct StorageTempFile
{
	int			fd;
	char		path[MAXPGPATH];
} StorageTempFile;

static StorageTempFile storage_file = {-1, ""};

typedef enum FsyncSync
{
	FSYNC_NONE,
	FSYNC_FDATASYNC,
	FSYNC_FSYNC
} FsyncSync;

/* One row of fsync_test(): a way to write and sync, and what it did. */
typedef struct FsyncMethod
{
	const char *name;			/* wal_sync_method spelling, or "write" */
	int			open_flags;		/* O_DSYNC, O_SYNC or 0 */
	FsyncSync	sync;
	bool		direct;
	int			writes;			/* writes per sync */
	int			size;			/* bytes per write */
	bool		supported;
	double		ops_per_second;
	double		usec_per_op;
	bool		is_current;
	bool		fastest_safe;
} FsyncMethod;

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

/* ---------------------------------------------------------------------
 * Shared helpers: arguments, the temporary file, timing, recording
 * ---------------------------------------------------------------------
 */

static void
storage_require_superuser(const char *fname)
{
	if (!superuser())
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for function %s", fname),
				 errdetail("It writes and syncs files in the data directory."),
				 errhint("Run it as a superuser.")));
}

/* The seconds argument: a finite number in (0, PGBL_STORAGE_MAX_SECONDS]. */
static double
storage_seconds_arg(FunctionCallInfo fcinfo, int argno)
{
	Numeric		n;
	Datum		zero = NumericGetDatum(int64_to_numeric(0));
	Datum		max = NumericGetDatum(int64_to_numeric(PGBL_STORAGE_MAX_SECONDS));

	if (PG_ARGISNULL(argno))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("seconds must not be null"),
				 errhint("Give a number of seconds greater than 0 and at most %d.",
						 PGBL_STORAGE_MAX_SECONDS)));
	n = PG_GETARG_NUMERIC(argno);
	if (numeric_is_nan(n) || numeric_is_inf(n))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("seconds must be a finite number"),
				 errhint("Give a number of seconds greater than 0 and at most %d.",
						 PGBL_STORAGE_MAX_SECONDS)));
	if (DatumGetBool(DirectFunctionCall2(numeric_le, NumericGetDatum(n), zero)) ||
		DatumGetBool(DirectFunctionCall2(numeric_gt, NumericGetDatum(n), max)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("seconds must be greater than 0 and at most %d",
						PGBL_STORAGE_MAX_SECONDS),
				 errhint("Give a number of seconds greater than 0 and at most %d.",
						 PGBL_STORAGE_MAX_SECONDS)));
	return DatumGetFloat8(DirectFunctionCall1(numeric_float8, NumericGetDatum(n)));
}

/* Close and remove the temporary file, if any.  Safe to call twice. */
static void
storage_cleanup(int code, Datum arg)
{
	if (storage_file.fd >= 0)
		close(storage_file.fd);
	storage_file.fd = -1;
	if (storage_file.path[0] != '\0' &&
		unlink(storage_file.path) != 0 && errno != ENOENT)
		ereport(WARNING,
				(errcode_for_file_access(),
				 errmsg("could not remove file \"%s\": %m", storage_file.path)));
	storage_file.path[0] = '\0';
}

/* Choose the temporary file's name, making base/pgsql_tmp if needed. */
static void
storage_prepare_path(const char *kind)
{
	char		dir[MAXPGPATH];

	TempTablespacePath(dir, DEFAULTTABLESPACE_OID);
	if (MakePGDirectory(dir) != 0 && errno != EEXIST)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not create directory \"%s\": %m", dir)));
	snprintf(storage_file.path, MAXPGPATH, "%s/%s%d.pgbench_lab_%s",
			 dir, PG_TEMP_FILE_PREFIX, MyProcPid, kind);
}

static void
storage_file_error(const char *what)
{
	ereport(ERROR,
			(errcode_for_file_access(),
			 errmsg("could not %s file \"%s\": %m", what, storage_file.path)));
}

/*
 * Open the temporary file into storage_file.fd.  Returns false, with the
 * file closed, when O_DIRECT was asked for and the file system refuses it.
 */
static bool
storage_open(int flags, bool direct)
{
	Assert(storage_file.fd < 0);
	if (direct && PG_O_DIRECT == 0)
		return false;
	storage_file.fd = BasicOpenFile(storage_file.path,
									flags | PG_BINARY | (direct ? PG_O_DIRECT : 0));
	if (storage_file.fd >= 0)
		return true;
	if (direct && errno == EINVAL)
		return false;
	storage_file_error("open");
	return false;				/* keep the compiler quiet */
}

static void
storage_close(void)
{
	int			fd = storage_file.fd;

	storage_file.fd = -1;
	if (fd >= 0 && close(fd) != 0)
		storage_file_error("close");
}

/* Write len bytes at offset; false only for EINVAL under O_DIRECT. */
static bool
storage_pwrite(const char *buf, int len, off_t offset, bool direct)
{
	ssize_t		n = pwrite(storage_file.fd, buf, len, offset);

	if (n == len)
		return true;
	if (n < 0 && direct && errno == EINVAL)
		return false;
	if (n >= 0)
		errno = ENOSPC;			/* a short write means a full disk */
	storage_file_error("write");
	return false;
}

static int
storage_pread(char *buf, int len, off_t offset)
{
	ssize_t		n = pread(storage_file.fd, buf, len, offset);

	if (n < 0)
		storage_file_error("read");
	return (int) n;
}

/* Seconds since start, never 0 so that rates stay finite. */
static double
storage_elapsed(instr_time start)
{
	instr_time	now;

	INSTR_TIME_SET_CURRENT(now);
	INSTR_TIME_SUBTRACT(now, start);
	return Max(INSTR_TIME_GET_DOUBLE(now), 1e-9);
}

/* A buffer aligned for O_DIRECT, filled with random bytes. */
static char *
storage_buffer(int size)
{
	char	   *buf = (char *) TYPEALIGN(PGBL_IO_ALIGN,
										 palloc(size + PGBL_IO_ALIGN));

	for (int i = 0; i < size; i += sizeof(uint32))
	{
		uint32		r = pg_prng_uint32(&pg_global_prng_state);

		memcpy(buf + i, &r, sizeof(r));
	}
	return buf;
}

static Datum
storage_numeric(double v, int scale)
{
	Datum		n = DirectFunctionCall1(float8_numeric, Float8GetDatum(v));

	return DirectFunctionCall2(numeric_round, n, Int32GetDatum(scale));
}

/*
 * Insert one row into pgbench_lab.storage_tests in the caller's
 * transaction.  On a standby nothing can be written, so the figures are
 * only returned.
 */
static void
storage_record(const char *kind, TimestampTz started, Datum seconds,
			   int64 size_bytes, const char *json)
{
	Oid			types[5] = {TEXTOID, TIMESTAMPTZOID, NUMERICOID, INT8OID, TEXTOID};
	Datum		values[5];
	char		nulls[5] = {' ', ' ', ' ', ' ', ' '};

	if (RecoveryInProgress())
	{
		ereport(NOTICE,
				(errmsg("results not recorded in pgbench_lab.storage_tests"),
				 errdetail("The server is in recovery.")));
		return;
	}
	values[0] = CStringGetTextDatum(kind);
	values[1] = TimestampTzGetDatum(started);
	values[2] = seconds;
	values[3] = Int64GetDatum(size_bytes);
	if (size_bytes < 0)
		nulls[3] = 'n';
	values[4] = CStringGetTextDatum(json);

	SPI_connect();
	if (SPI_execute_with_args("INSERT INTO pgbench_lab.storage_tests "
							  "(kind, started_at, finished_at, seconds, size_bytes, results) "
							  "VALUES ($1, $2, pg_catalog.clock_timestamp(), $3, $4, "
							  "$5::pg_catalog.jsonb)",
							  5, types, values, nulls, false, 0) != SPI_OK_INSERT)
		elog(ERROR, "could not record storage test results");
	SPI_finish();
}

/* Append "key": number (or null) to a JSON object under construction. */
static void
storage_json_number(StringInfo buf, const char *key, double v, int scale,
					bool isnull)
{
	appendStringInfo(buf, ", \"%s\": ", key);
	if (isnull)
		appendStringInfoString(buf, "null");
	else
		appendStringInfo(buf, "%.*f", scale, v);
}

/* ---------------------------------------------------------------------
 * fsync_test()
 * ---------------------------------------------------------------------
 */

static void
fsync_add(FsyncMethod *m, int *n, const char *name, int open_flags,
		  FsyncSync sync, bool direct, int writes, int size)
{
	FsyncMethod *r = &m[(*n)++];

	Assert(*n <= PGBL_FSYNC_MAX_METHODS);
	memset(r, 0, sizeof(*r));
	r->name = name;
	r->open_flags = open_flags;
	r->sync = sync;
	r->direct = direct;
	r->writes = writes;
	r->size = size;
}

/*
 * pg_test_fsync's comparisons: every sync method with one and with two 8 kB
 * writes per sync, each with and without O_DIRECT, the plain write as the
 * unsafe ceiling, and open_sync with one 16 kB write against two 8 kB ones.
 */
static int
fsync_methods(FsyncMethod *m)
{
	static const struct
	{
		const char *name;
		int			open_flags;
		FsyncSync	sync;
	}			kinds[] = {
		{"open_datasync", O_DSYNC, FSYNC_NONE},
		{"fdatasync", 0, FSYNC_FDATASYNC},
		{"fsync", 0, FSYNC_FSYNC},
		{"open_sync", O_SYNC, FSYNC_NONE},
	};
	int			n = 0;

	fsync_add(m, &n, "write", 0, FSYNC_NONE, false, 1, PGBL_BLOCK_SIZE);
	for (int writes = 1; writes <= 2; writes++)
		for (int k = 0; k < lengthof(kinds); k++)
			for (int direct = 0; direct <= 1; direct++)
				fsync_add(m, &n, kinds[k].name, kinds[k].open_flags,
						  kinds[k].sync, direct, writes, PGBL_BLOCK_SIZE);
	for (int direct = 0; direct <= 1; direct++)
		fsync_add(m, &n, "open_sync", O_SYNC, FSYNC_NONE, direct,
				  1, 2 * PGBL_BLOCK_SIZE);
	return n;
}

/* Write the 16 MB file once and sync it, as WAL segments are preallocated. */
static void
fsync_create_file(const char *buf)
{
	(void) storage_open(O_RDWR | O_CREAT | O_EXCL, false);
	for (off_t off = 0; off < PGBL_FSYNC_FILE_SIZE; off += PGBL_BLOCK_SIZE)
	{
		CHECK_FOR_INTERRUPTS();
		(void) storage_pwrite(buf, PGBL_BLOCK_SIZE, off, false);
	}
	if (fsync(storage_file.fd) != 0)
		storage_file_error("fsync");
	storage_close();
}

/* Run one method for share seconds; unsupported if O_DIRECT is refused. */
static void
fsync_run(FsyncMethod *m, double share, const char *buf)
{
	instr_time	start;
	int64		ops = 0;
	off_t		offset = 0;
	double		elapsed;

	if (!storage_open(O_RDWR | m->open_flags, m->direct))
		return;
	INSTR_TIME_SET_CURRENT(start);
	do
	{
		CHECK_FOR_INTERRUPTS();
		for (int w = 0; w < m->writes; w++)
		{
			if (offset + m->size > PGBL_FSYNC_FILE_SIZE)
				offset = 0;
			if (!storage_pwrite(buf, m->size, offset, m->direct))
			{
				storage_close();
				return;
			}
			offset += m->size;
		}
		if (m->sync == FSYNC_FDATASYNC && fdatasync(storage_file.fd) != 0)
			storage_file_error("fdatasync");
		if (m->sync == FSYNC_FSYNC && fsync(storage_file.fd) != 0)
			storage_file_error("fsync");
		ops++;
		elapsed = storage_elapsed(start);
	} while (elapsed < share);
	storage_close();

	m->supported = true;
	m->ops_per_second = ops / elapsed;
	m->usec_per_op = elapsed * 1e6 / ops;
}

/*
 * Mark the row the server's WAL writes look like (its wal_sync_method, one
 * 8 kB write, O_DIRECT as the server would use it) and the fastest row that
 * really syncs among those wal_sync_method alone selects (one 8 kB write,
 * no O_DIRECT).
 */
static void
fsync_mark(FsyncMethod *m, int n, const char *current)
{
	bool		current_open = strncmp(current, "open_", 5) == 0;
	bool		current_direct = PGBL_WAL_USES_O_DIRECT(current_open);
	FsyncMethod *best = NULL;

	for (int i = 0; i < n; i++)
	{
		bool		plain = m[i].writes == 1 && m[i].size == PGBL_BLOCK_SIZE;

		m[i].is_current = plain && strcmp(m[i].name, current) == 0 &&
			m[i].direct == current_direct;
		if (plain && !m[i].direct && m[i].supported &&
			strcmp(m[i].name, "write") != 0 &&
			(best == NULL || m[i].ops_per_second > best->ops_per_second))
			best = &m[i];
	}
	if (best != NULL)
		best->fastest_safe = true;
}

static char *
fsync_json(FsyncMethod *m, int n, const char *current)
{
	StringInfoData buf;

	initStringInfo(&buf);
	appendStringInfoString(&buf, "{\"wal_sync_method\": ");
	escape_json(&buf, current);
	appendStringInfoString(&buf, ", \"methods\": [");
	for (int i = 0; i < n; i++)
	{
		appendStringInfo(&buf, "%s{\"method\": ", i > 0 ? ", " : "");
		escape_json(&buf, m[i].name);
		appendStringInfo(&buf, ", \"direct\": %s, \"writes_per_sync\": %d, "
						 "\"write_size\": %d",
						 m[i].direct ? "true" : "false", m[i].writes, m[i].size);
		storage_json_number(&buf, "ops_per_second", m[i].ops_per_second, 1,
							!m[i].supported);
		storage_json_number(&buf, "usec_per_op", m[i].usec_per_op, 1,
							!m[i].supported);
		appendStringInfo(&buf, ", \"supported\": %s, \"is_current\": %s, "
						 "\"fastest_safe\": %s}",
						 m[i].supported ? "true" : "false",
						 m[i].is_current ? "true" : "false",
						 m[i].fastest_safe ? "true" : "false");
	}
	appendStringInfoString(&buf, "]}");
	return buf.data;
}

static void
fsync_emit(FunctionCallInfo fcinfo, FsyncMethod *m, int n)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	for (int i = 0; i < n; i++)
	{
		Datum		values[9];
		bool		nulls[9] = {false};

		values[0] = CStringGetTextDatum(m[i].name);
		values[1] = BoolGetDatum(m[i].direct);
		values[2] = Int32GetDatum(m[i].writes);
		values[3] = Int32GetDatum(m[i].size);
		values[4] = storage_numeric(m[i].ops_per_second, 1);
		values[5] = storage_numeric(m[i].usec_per_op, 1);
		nulls[4] = nulls[5] = !m[i].supported;
		values[6] = BoolGetDatum(m[i].supported);
		values[7] = BoolGetDatum(m[i].is_current);
		values[8] = BoolGetDatum(m[i].fastest_safe);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
}

static void
fsync_notices(const char *current)
{
	struct stat st;

	if (lstat(XLOGDIR, &st) == 0 && S_ISLNK(st.st_mode))
		ereport(NOTICE,
				(errmsg("pg_wal is a symbolic link: the test measures the data directory's device, not the WAL device")));
	if (!enableFsync)
		ereport(NOTICE,
				(errmsg("fsync is off: the server does not sync WAL, whatever wal_sync_method (%s) says",
						current)));
}

/*
 * pgbench_lab.fsync_test(seconds numeric DEFAULT 2)
 *	RETURNS TABLE (method text, direct boolean, writes_per_sync integer,
 *				   write_size integer, ops_per_second numeric,
 *				   usec_per_op numeric, supported boolean,
 *				   is_current boolean, fastest_safe boolean)
 */
Datum
pgbench_lab_fsync_test(PG_FUNCTION_ARGS)
{
	FsyncMethod methods[PGBL_FSYNC_MAX_METHODS];
	int			n;
	double		seconds;
	const char *current;
	TimestampTz started = GetCurrentTimestamp();
	char	   *buf;

	storage_require_superuser("fsync_test");
	seconds = storage_seconds_arg(fcinfo, 0);
	InitMaterializedSRF(fcinfo, 0);

	current = pstrdup(GetConfigOption("wal_sync_method", false, false));
	fsync_notices(current);
	n = fsync_methods(methods);
	buf = storage_buffer(2 * PGBL_BLOCK_SIZE);
	storage_prepare_path("fsync");

	PG_ENSURE_ERROR_CLEANUP(storage_cleanup, (Datum) 0);
	{
		fsync_create_file(buf);
		for (int i = 0; i < n; i++)
			fsync_run(&methods[i], seconds / n, buf);
		fsync_mark(methods, n, current);
		storage_record("fsync", started, PG_GETARG_DATUM(0), -1,
					   fsync_json(methods, n, current));
	}
	PG_END_ENSURE_ERROR_CLEANUP(storage_cleanup, (Datum) 0);
	storage_cleanup(0, (Datum) 0);

	fsync_emit(fcinfo, methods, n);
	return (Datum) 0;
}

/* ---------------------------------------------------------------------
 * io_test()
 * ---------------------------------------------------------------------
 */

/* The size argument, parsed as a GUC with a unit; bytes, whole blocks. */
static int64
io_size_arg(FunctionCallInfo fcinfo)
{
	char	   *s;
	int			kb;
	const char *hint = NULL;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
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
	return ((int64) kb * 1024) / PGBL_BLOCK_SIZE * PGBL_BLOCK_SIZE;
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
						   text_to_cstring(DatumGetTextPP(DirectFunctionCall1(pg_size_pretty, Int64GetDatum(size)))),
						   text_to_cstring(DatumGetTextPP(DirectFunctionCall1(pg_size_pretty, Int64GetDatum(avail)))),
						   text_to_cstring(DatumGetTextPP(DirectFunctionCall1(pg_size_pretty, Int64GetDatum(PGBL_IO_RESERVE_BYTES))))),
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

	(void) storage_open(O_WRONLY | O_CREAT | O_EXCL, false);
	INSTR_TIME_SET_CURRENT(start);
	do
	{
		int			len = (int) Min(size - done, PGBL_IO_CHUNK);

		CHECK_FOR_INTERRUPTS();
		(void) storage_pwrite(buf, len, done, false);
		done += len;
		if (done % PGBL_IO_SYNC_EVERY == 0 && fdatasync(storage_file.fd) != 0)
			storage_file_error("fdatasync");
	} while (done < size && storage_elapsed(start) < share);
	if (fsync(storage_file.fd) != 0)
		storage_file_error("fsync");
	r->write_mbps = done / (1024.0 * 1024.0) / storage_elapsed(start);
	storage_close();
	return done;
}

/*
 * Open for reading with the OS cache out of the way: O_DIRECT where the
 * file system takes it, else drop the file's (clean, synced) pages.
 */
static void
io_open_uncached(IoResult *r, bool random)
{
	if (storage_open(O_RDONLY, true))
	{
		r->bypass = "O_DIRECT";
		return;
	}
	(void) storage_open(O_RDONLY, false);
	r->bypass = "none";
#if defined(POSIX_FADV_DONTNEED) && defined(POSIX_FADV_RANDOM)
	if (posix_fadvise(storage_file.fd, 0, 0, POSIX_FADV_DONTNEED) == 0)
		r->bypass = "posix_fadvise";
	if (random)
		(void) posix_fadvise(storage_file.fd, 0, 0, POSIX_FADV_RANDOM);
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
		n = storage_pread(buf, (int) Min(r->file_bytes - done, PGBL_IO_CHUNK), done);
		done += n;
	} while (n > 0 && done < r->file_bytes && storage_elapsed(start) < share);
	r->read_mbps = done / (1024.0 * 1024.0) / storage_elapsed(start);
	storage_close();
}

static void
io_read_random(IoResult *r, double share, char *buf)
{
	instr_time	start;
	int64		blocks = r->file_bytes / PGBL_BLOCK_SIZE;
	int64		reads = 0;
	double		elapsed;

	io_open_uncached(r, true);
	INSTR_TIME_SET_CURRENT(start);
	do
	{
		uint64		b = pg_prng_uint64_range(&pg_global_prng_state, 0, blocks - 1);

		CHECK_FOR_INTERRUPTS();
		if (storage_pread(buf, PGBL_BLOCK_SIZE, (off_t) b * PGBL_BLOCK_SIZE) != PGBL_BLOCK_SIZE)
			storage_file_error("read");
		reads++;
		elapsed = storage_elapsed(start);
	} while (elapsed < share);
	r->random_iops = reads / elapsed;
	r->random_usec = elapsed * 1e6 / reads;
	storage_close();
}

static char *
io_json(const IoResult *r)
{
	StringInfoData buf;

	initStringInfo(&buf);
	appendStringInfo(&buf, "{\"file_bytes\": " INT64_FORMAT, r->file_bytes);
	storage_json_number(&buf, "write_mb_per_second", r->write_mbps, 1, false);
	storage_json_number(&buf, "read_mb_per_second", r->read_mbps, 1, false);
	storage_json_number(&buf, "random_read_iops", r->random_iops, 1, false);
	storage_json_number(&buf, "random_read_usec", r->random_usec, 1, false);
	appendStringInfoString(&buf, ", \"read_cache_bypass\": ");
	escape_json(&buf, r->bypass);
	storage_json_number(&buf, "elapsed_seconds", r->elapsed, 3, false);
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
	values[1] = storage_numeric(r->write_mbps, 1);
	values[2] = storage_numeric(r->read_mbps, 1);
	values[3] = storage_numeric(r->random_iops, 1);
	values[4] = storage_numeric(r->random_usec, 1);
	values[5] = CStringGetTextDatum(r->bypass);
	values[6] = storage_numeric(r->elapsed, 3);
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

	storage_require_superuser("io_test");
	size = io_size_arg(fcinfo);
	seconds = storage_seconds_arg(fcinfo, 1);
	InitMaterializedSRF(fcinfo, 0);
	storage_prepare_path("io");
	io_check_space(size);
	buf = storage_buffer(PGBL_IO_CHUNK);

	INSTR_TIME_SET_CURRENT(start);
	PG_ENSURE_ERROR_CLEANUP(storage_cleanup, (Datum) 0);
	{
		r.file_bytes = io_write(&r, size, seconds / 3, buf);
		io_read_sequential(&r, seconds / 3, buf);
		io_read_random(&r, seconds / 3, buf);
		r.elapsed = storage_elapsed(start);
		storage_record("io", started, PG_GETARG_DATUM(1), r.file_bytes,
					   io_json(&r));
	}
	PG_END_ENSURE_ERROR_CLEANUP(storage_cleanup, (Datum) 0);
	storage_cleanup(0, (Datum) 0);

	io_emit(fcinfo, &r);
	return (Datum) 0;
}
