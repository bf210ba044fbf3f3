/*-------------------------------------------------------------------------
 *
 * storage.c
 *		Storage baseline from SQL: what fsync_test() and io_test() share,
 *		and fsync_test() itself (io_test() is in storage_io.c).
 *
 * Both functions measure the device that holds the data directory by
 * writing one temporary file in base/pgsql_tmp, the server's own directory
 * for temporary files of the default tablespace.  The name starts with
 * "pgsql_tmp", so even a crash that skips every cleanup leaves nothing
 * behind for long: the postmaster empties that directory at start-up.
 * Otherwise the file is removed whatever happens: the work runs inside
 * PG_ENSURE_ERROR_CLEANUP, whose callback runs on ERROR (a cancel, a failed
 * write) and, as a before_shmem_exit callback, on FATAL (pg_terminate_backend)
 * as well.  The callback works from static state (StorageFile), not from
 * memory that error recovery may already have reset.  Syncs are real
 * fsync()/fdatasync() calls, not pg_fsync(), so the figures do not depend on
 * the fsync setting.
 *
 * fsync_test() follows pg_test_fsync: the file is 16 MB (a WAL segment) and
 * each method writes 8 kB blocks into it from offset 0, wrapping at the end,
 * and syncs the way one wal_sync_method value would; each method gets an
 * equal share of the time, in PGBL_FSYNC_REPEATS short rounds that run
 * every method once, alternately in the order of the methods and in the
 * reverse order, so that a device whose speed drifts during the test (a
 * shared disk whose other users come and go) favours neither the first
 * methods nor the last; the plain write syncs its pages after its share,
 * off the clock, so that no method pays for another's (fsync_run).  Each
 * round's rate is kept: their spread is the test's noise, against which
 * the view storage_latest (through pgbench_lab_internal.wal_sync_decision())
 * decides whether another wal_sync_method is faster beyond doubt.
 *
 * Results are inserted into pgbench_lab.storage_tests (as jsonb) in the
 * caller's transaction, before the file is removed, so that an error there
 * takes the same cleanup path; the SQL view pgbench_lab.storage_latest
 * turns the latest of each kind into figures the recommender can read.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <math.h>
#include <sys/stat.h>
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
#include "progress.h"
#include "storage.h"

#define PGBL_FSYNC_FILE_SIZE (16 * 1024 * 1024)
#define PGBL_FSYNC_MAX_METHODS 24
/* Interleaved rounds: every method runs once in each (see the header). */
#define PGBL_FSYNC_REPEATS 5
/*
 * A method's rounds are disturbed when its middle rounds (all but the
 * slowest and the fastest) are more than this many times apart: the factor
 * pgbench_lab_internal.wal_sync_decision() uses.
 */
#define PGBL_FSYNC_DISTURBED 3

PG_FUNCTION_INFO_V1(pgbench_lab_fsync_test);

/* The one temporary file of this backend, for the cleanup callback. */
StorageTempFile StorageFile = {-1, ""};

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
	bool		candidate;		/* written as the server would write WAL */
	int64		ops;			/* sync operations, every round */
	double		seconds;		/* and their time */
	double		rates[PGBL_FSYNC_REPEATS];	/* ops/s of each round */
	int			nrates;
	double		ops_per_second;
	double		usec_per_op;
	double		rate_min;		/* of the rounds' rates */
	double		rate_median;
	double		rate_max;
	double		rate_mid_lo;	/* the middle rounds' slowest and fastest */
	double		rate_mid_hi;
	bool		is_current;
	bool		fastest_safe;
} FsyncMethod;

/* ---------------------------------------------------------------------
 * Shared helpers: arguments, the temporary file, timing, recording
 * ---------------------------------------------------------------------
 */

void
StorageRequireSuperuser(const char *fname)
{
	if (!superuser())
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for function %s", fname),
				 errdetail("It writes and syncs files in the data directory."),
				 errhint("Run it as a superuser.")));
}

/* The seconds argument: a finite number in (0, PGBL_STORAGE_MAX_SECONDS]. */
double
StorageSecondsArg(FunctionCallInfo fcinfo, int argno)
{
	Numeric		n;
	Datum		zero = NumericGetDatum(int64_to_numeric(0));
	Datum		max = NumericGetDatum(int64_to_numeric(PGBL_STORAGE_MAX_SECONDS));

	if (PG_ARGISNULL(argno))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
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
void
StorageCleanup(int code, Datum arg)
{
	if (StorageFile.fd >= 0)
		close(StorageFile.fd);
	StorageFile.fd = -1;
	if (StorageFile.path[0] != '\0' &&
		unlink(StorageFile.path) != 0 && errno != ENOENT)
		ereport(WARNING,
				(errcode_for_file_access(),
				 errmsg("could not remove file \"%s\": %m", StorageFile.path)));
	StorageFile.path[0] = '\0';
}

/* Choose the temporary file's name, making base/pgsql_tmp if needed. */
void
StoragePreparePath(const char *kind)
{
	char		dir[MAXPGPATH];

	TempTablespacePath(dir, DEFAULTTABLESPACE_OID);
	if (MakePGDirectory(dir) != 0 && errno != EEXIST)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not create directory \"%s\": %m", dir)));
	snprintf(StorageFile.path, MAXPGPATH, "%s/%s%d.pgbench_lab_%s",
			 dir, PG_TEMP_FILE_PREFIX, MyProcPid, kind);
}

void
StorageFileError(const char *what)
{
	ereport(ERROR,
			(errcode_for_file_access(),
			 errmsg("could not %s file \"%s\": %m", what, StorageFile.path)));
}

/*
 * Open the temporary file into StorageFile.fd.  Returns false, with the
 * file closed, when O_DIRECT was asked for and the file system refuses it.
 */
bool
StorageOpen(int flags, bool direct)
{
	Assert(StorageFile.fd < 0);
	if (direct && PG_O_DIRECT == 0)
		return false;
	StorageFile.fd = BasicOpenFile(StorageFile.path,
								   flags | PG_BINARY | (direct ? PG_O_DIRECT : 0));
	if (StorageFile.fd >= 0)
		return true;
	if (direct && errno == EINVAL)
		return false;
	StorageFileError("open");
	return false;				/* keep the compiler quiet */
}

void
StorageClose(void)
{
	int			fd = StorageFile.fd;

	StorageFile.fd = -1;
	if (fd >= 0 && close(fd) != 0)
		StorageFileError("close");
}

/* Write len bytes at offset; false only for EINVAL under O_DIRECT. */
bool
StoragePwrite(const char *buf, int len, off_t offset, bool direct)
{
	ssize_t		n = pwrite(StorageFile.fd, buf, len, offset);

	if (n == len)
		return true;
	if (n < 0 && direct && errno == EINVAL)
		return false;
	if (n >= 0)
		errno = ENOSPC;			/* a short write means a full disk */
	StorageFileError("write");
	return false;
}

int
StoragePread(char *buf, int len, off_t offset)
{
	ssize_t		n = pread(StorageFile.fd, buf, len, offset);

	if (n < 0)
		StorageFileError("read");
	return (int) n;
}

/* Seconds since start, never 0 so that rates stay finite. */
double
StorageElapsed(instr_time start)
{
	instr_time	now;

	INSTR_TIME_SET_CURRENT(now);
	INSTR_TIME_SUBTRACT(now, start);
	return Max(INSTR_TIME_GET_DOUBLE(now), 1e-9);
}

/* A buffer aligned for O_DIRECT, filled with random bytes. */
char *
StorageBuffer(int size)
{
	char	   *buf = (char *) TYPEALIGN(PGBL_STORAGE_ALIGN,
										 palloc(size + PGBL_STORAGE_ALIGN));

	for (int i = 0; i < size; i += sizeof(uint32))
	{
		uint32		r = pg_prng_uint32(&pg_global_prng_state);

		memcpy(buf + i, &r, sizeof(r));
	}
	return buf;
}

Datum
StorageNumeric(double v, int scale)
{
	Datum		n = DirectFunctionCall1(float8_numeric, Float8GetDatum(v));

	return DirectFunctionCall2(numeric_round, n, Int32GetDatum(scale));
}

/*
 * Insert one row into pgbench_lab.storage_tests in the caller's
 * transaction.  On a standby nothing can be written, so the figures are
 * only returned.
 */
void
StorageRecord(const char *kind, TimestampTz started, Datum seconds,
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
void
StorageJsonNumber(StringInfo buf, const char *key, double v, int scale,
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

	fsync_add(m, &n, "write", 0, FSYNC_NONE, false, 1, PGBL_STORAGE_BLOCK);
	for (int writes = 1; writes <= 2; writes++)
		for (int k = 0; k < lengthof(kinds); k++)
			for (int direct = 0; direct <= 1; direct++)
				fsync_add(m, &n, kinds[k].name, kinds[k].open_flags,
						  kinds[k].sync, direct, writes, PGBL_STORAGE_BLOCK);
	for (int direct = 0; direct <= 1; direct++)
		fsync_add(m, &n, "open_sync", O_SYNC, FSYNC_NONE, direct,
				  1, 2 * PGBL_STORAGE_BLOCK);
	return n;
}

/* Write the 16 MB file once and sync it, as WAL segments are preallocated. */
static void
fsync_create_file(const char *buf)
{
	(void) StorageOpen(O_RDWR | O_CREAT | O_EXCL, false);
	for (off_t off = 0; off < PGBL_FSYNC_FILE_SIZE; off += PGBL_STORAGE_BLOCK)
	{
		CHECK_FOR_INTERRUPTS();
		(void) StoragePwrite(buf, PGBL_STORAGE_BLOCK, off, false);
	}
	if (fsync(StorageFile.fd) != 0)
		StorageFileError("fsync");
	StorageClose();
}

/*
 * Whether a method's writes can still be in the page cache when its share
 * ends: the plain write, which never syncs.  Every other row syncs what it
 * writes (O_DSYNC, O_SYNC, fdatasync, fsync) or writes with O_DIRECT.
 */
static bool
fsync_leaves_dirty(const FsyncMethod *m)
{
	return m->sync == FSYNC_NONE && m->open_flags == 0 && !m->direct;
}

/*
 * Run one method for share seconds, adding to its operations and time;
 * unsupported if O_DIRECT is refused.
 *
 * A method that leaves dirty pages behind syncs them after its clock
 * stops, so that every method starts from a clean file, as each of
 * pg_test_fsync's does (it runs its unsynced writes last).  The plain
 * write runs first in rounds 1, 3 and 5 and fills the 16 MB file with
 * dirty pages within a few milliseconds; they were written back by the
 * first flush of the next method that syncs the whole file, fdatasync
 * without O_DIRECT, the server's default.  That one flush filled most of
 * its share in those rounds, and its median round came out at 26
 * flushes/s where pg_test_fsync measured 3800.
 */
static void
fsync_run(FsyncMethod *m, double share, const char *buf)
{
	instr_time	start;
	int64		ops = 0;
	off_t		offset = 0;
	double		elapsed;

	if (!StorageOpen(O_RDWR | m->open_flags, m->direct))
		return;
	INSTR_TIME_SET_CURRENT(start);
	do
	{
		CHECK_FOR_INTERRUPTS();
		for (int w = 0; w < m->writes; w++)
		{
			if (offset + m->size > PGBL_FSYNC_FILE_SIZE)
				offset = 0;
			if (!StoragePwrite(buf, m->size, offset, m->direct))
			{
				StorageClose();
				return;
			}
			offset += m->size;
		}
		if (m->sync == FSYNC_FDATASYNC && fdatasync(StorageFile.fd) != 0)
			StorageFileError("fdatasync");
		if (m->sync == FSYNC_FSYNC && fsync(StorageFile.fd) != 0)
			StorageFileError("fsync");
		ops++;
		elapsed = StorageElapsed(start);
	} while (elapsed < share);
	if (fsync_leaves_dirty(m) && fdatasync(StorageFile.fd) != 0)
		StorageFileError("fdatasync");
	StorageClose();

	m->supported = true;
	m->ops += ops;
	m->seconds += elapsed;
	if (m->nrates < PGBL_FSYNC_REPEATS)
		m->rates[m->nrates++] = ops / elapsed;
}

/*
 * Whether a row is written as the server would write WAL if wal_sync_method
 * alone changed: one 8 kB write per sync, with O_DIRECT exactly where the
 * rest of the configuration gives it to that method (PostgreSQL 16 and
 * later: io_direct including wal, for every method; 15: the open_* methods
 * under wal_level minimal).  The plain write does not sync at all.
 */
static bool
fsync_as_server(const FsyncMethod *m)
{
	return m->writes == 1 && m->size == PGBL_STORAGE_BLOCK &&
		strcmp(m->name, "write") != 0 &&
		m->direct == PGBL_WAL_USES_O_DIRECT(strncmp(m->name, "open_", 5) == 0);
}

static int
cmp_double(const void *a, const void *b)
{
	double		x = *(const double *) a;
	double		y = *(const double *) b;

	return x < y ? -1 : x > y ? 1 : 0;
}

/* The slowest, median and fastest of a method's rounds, and the middle ones. */
static void
fsync_spread(FsyncMethod *m)
{
	double		r[PGBL_FSYNC_REPEATS];
	int			n = m->nrates;

	if (n == 0)
		return;
	memcpy(r, m->rates, n * sizeof(double));
	qsort(r, n, sizeof(double), cmp_double);
	m->rate_min = r[0];
	m->rate_max = r[n - 1];
	m->rate_median = n % 2 ? r[n / 2] : (r[n / 2 - 1] + r[n / 2]) / 2;
	m->rate_mid_lo = n >= 3 ? r[1] : r[0];
	m->rate_mid_hi = n >= 3 ? r[n - 2] : r[n - 1];
}

/*
 * Every method in PGBL_FSYNC_REPEATS rounds of its share, each round a step
 * of the call's progress that ends with the candidates' rates in it.
 */
static void
fsync_run_all(FsyncMethod *m, int n, double seconds, const char *buf)
{
	Progress	progress;
	int			rounds = PGBL_FSYNC_REPEATS;
	double		slot = seconds / (rounds * n);

	for (int i = 0; i < n; i++)
		m[i].candidate = fsync_as_server(&m[i]);
	ProgressBegin(&progress, "fsync_test()", rounds, seconds, true);
	for (int r = 0; r < rounds; r++)
	{
		StringInfoData done;

		ProgressStep(&progress, r + 1, seconds / rounds,
					 "round %d of %d: %d ways to write and sync, %.0f ms each, %s",
					 r + 1, rounds, n, slot * 1000,
					 r % 2 == 0 ? "in order" : "in reverse order");
		for (int k = 0; k < n; k++)
			fsync_run(&m[r % 2 == 0 ? k : n - 1 - k], slot, buf);
		initStringInfo(&done);
		for (int i = 0; i < n; i++)
		{
			if (!m[i].candidate)
				continue;
			if (m[i].nrates > r)
				appendStringInfo(&done, "%s%s %.0f", done.len ? ", " : "",
								 m[i].name, m[i].rates[r]);
			else
				appendStringInfo(&done, "%s%s not supported", done.len ? ", " : "",
								 m[i].name);
		}
		ProgressStepDone(&progress, r + 1, "round %d: %s ops/s", r + 1, done.data);
	}
	ProgressEnd(&progress);
	for (int i = 0; i < n; i++)
	{
		if (!m[i].supported)
			continue;
		m[i].ops_per_second = m[i].ops / m[i].seconds;
		m[i].usec_per_op = m[i].seconds * 1e6 / m[i].ops;
		fsync_spread(&m[i]);
	}
}

/*
 * Mark the row the server's WAL writes look like (its wal_sync_method,
 * among the candidates, fsync_as_server()), and the candidate that
 * measured the most flushes per second over all its rounds.  The decision
 * what to recommend is not this one fastest row but the rounds' spread
 * (pgbench_lab_internal.wal_sync_decision()); the current row is always a
 * candidate.
 */
static void
fsync_mark(FsyncMethod *m, int n, const char *current)
{
	FsyncMethod *best = NULL;

	for (int i = 0; i < n; i++)
	{
		m[i].is_current = m[i].candidate && strcmp(m[i].name, current) == 0;
		if (m[i].candidate && m[i].supported &&
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
	appendStringInfo(&buf, ", \"repeats\": %d, \"methods\": [", PGBL_FSYNC_REPEATS);
	for (int i = 0; i < n; i++)
	{
		appendStringInfo(&buf, "%s{\"method\": ", i > 0 ? ", " : "");
		escape_json(&buf, m[i].name);
		appendStringInfo(&buf, ", \"direct\": %s, \"writes_per_sync\": %d, "
						 "\"write_size\": %d",
						 m[i].direct ? "true" : "false", m[i].writes, m[i].size);
		StorageJsonNumber(&buf, "ops_per_second", m[i].ops_per_second, 1,
						  !m[i].supported);
		StorageJsonNumber(&buf, "usec_per_op", m[i].usec_per_op, 1,
						  !m[i].supported);
		appendStringInfoString(&buf, ", \"repeats\": [");
		for (int r = 0; r < m[i].nrates; r++)
			appendStringInfo(&buf, "%s%.1f", r ? ", " : "", m[i].rates[r]);
		appendStringInfo(&buf, "], \"supported\": %s, \"candidate\": %s, "
						 "\"is_current\": %s, \"fastest_safe\": %s}",
						 m[i].supported ? "true" : "false",
						 m[i].candidate ? "true" : "false",
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
		Datum		values[12];
		bool		nulls[12] = {false};

		values[0] = CStringGetTextDatum(m[i].name);
		values[1] = BoolGetDatum(m[i].direct);
		values[2] = Int32GetDatum(m[i].writes);
		values[3] = Int32GetDatum(m[i].size);
		values[4] = StorageNumeric(m[i].ops_per_second, 1);
		values[5] = StorageNumeric(m[i].usec_per_op, 1);
		nulls[4] = nulls[5] = !m[i].supported;
		values[6] = BoolGetDatum(m[i].supported);
		values[7] = BoolGetDatum(m[i].is_current);
		values[8] = BoolGetDatum(m[i].fastest_safe);
		values[9] = StorageNumeric(m[i].rate_min, 1);
		values[10] = StorageNumeric(m[i].rate_median, 1);
		values[11] = StorageNumeric(m[i].rate_max, 1);
		nulls[9] = nulls[10] = nulls[11] = m[i].nrates == 0;
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
}

/*
 * Say which candidates' rounds were disturbed (see PGBL_FSYNC_DISTURBED):
 * their medians say little, and wal_sync_decision() changes nothing on
 * them.
 */
static void
fsync_warn_disturbed(const FsyncMethod *m, int n)
{
	StringInfoData names;
	StringInfoData rates;

	initStringInfo(&names);
	initStringInfo(&rates);
	for (int i = 0; i < n; i++)
	{
		if (!m[i].candidate || m[i].nrates < 3 ||
			m[i].rate_mid_hi <= PGBL_FSYNC_DISTURBED * m[i].rate_mid_lo)
			continue;
		appendStringInfo(&names, "%s%s", names.len ? ", " : "", m[i].name);
		appendStringInfo(&rates, "%s%s %.0f to %.0f", rates.len ? ", " : "",
						 m[i].name, m[i].rate_mid_lo, m[i].rate_mid_hi);
	}
	if (names.len == 0)
		return;
	ereport(WARNING,
			(errmsg("the rounds of %s were disturbed", names.data),
			 errdetail("Their middle rounds (all but the slowest and the fastest) were more than %d times apart, in flushes per second: %s.",
					   PGBL_FSYNC_DISTURBED, rates.data),
			 errhint("Something else used the device during the test: run fsync_test() again, on a quieter machine or with more seconds, before reading anything into these figures.")));
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
 *				   is_current boolean, fastest_safe boolean,
 *				   slowest_round numeric, median_round numeric,
 *				   fastest_round numeric)
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

	StorageRequireSuperuser("fsync_test");
	seconds = StorageSecondsArg(fcinfo, 0);
	InitMaterializedSRF(fcinfo, 0);

	current = pstrdup(GetConfigOption("wal_sync_method", false, false));
	fsync_notices(current);
	n = fsync_methods(methods);
	buf = StorageBuffer(2 * PGBL_STORAGE_BLOCK);
	StoragePreparePath("fsync");

	PG_ENSURE_ERROR_CLEANUP(StorageCleanup, (Datum) 0);
	{
		fsync_create_file(buf);
		fsync_run_all(methods, n, seconds, buf);
		fsync_mark(methods, n, current);
		StorageRecord("fsync", started, PG_GETARG_DATUM(0), -1,
					  fsync_json(methods, n, current));
	}
	PG_END_ENSURE_ERROR_CLEANUP(StorageCleanup, (Datum) 0);
	StorageCleanup(0, (Datum) 0);

	fsync_warn_disturbed(methods, n);
	fsync_emit(fcinfo, methods, n);
	return (Datum) 0;
}
