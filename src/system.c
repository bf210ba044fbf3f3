/*-------------------------------------------------------------------------
 *
 * system.c
 *		The machine as the server sees it: pgbench_lab.system_info() and the
 *		SystemCollect() that the recommender calls.
 *
 * Both are built on the same readers, so the rows a DBA sees and the
 * numbers the recommender uses never disagree.  The readers only ever read
 * small, bounded amounts from /proc and /sys (this file's SystemReadFile and
 * SystemReadLines: regular files only, a fixed buffer, a cap on lines), so
 * a malformed, huge or missing file turns into an "unavailable" fact rather
 * than an error that would hide every other fact.
 *
 * The superuser-only setting pgbench_lab.sysroot names a directory that
 * stands for / when reading /proc and /sys, so that tests can lay out cgroup
 * v1, v2, unlimited and nested-quota machines as real files.  Facts that do
 * not come from files (sysconf, sched_getaffinity, statvfs, uname) still
 * come from the real system; their source column says so.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <math.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "access/xlog.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/fd.h"
#include "utils/builtins.h"
#include "utils/formatting.h"
#include "utils/guc.h"

#include "pgbench_lab.h"
#include "system.h"

/* The build's optional compression libraries, as booleans. */
#ifdef USE_LZ4
#define PGBL_SYSTEM_HAVE_LZ4 true
#else
#define PGBL_SYSTEM_HAVE_LZ4 false
#endif
#ifdef USE_ZSTD
#define PGBL_SYSTEM_HAVE_ZSTD true
#else
#define PGBL_SYSTEM_HAVE_ZSTD false
#endif

/* Longest line SystemReadLines hands over; longer ones are skipped. */
#define PGBL_SYSTEM_LINE_MAX 4096
/* No file of interest is longer; stop reading there. */
#define PGBL_SYSTEM_FILE_MAX (4 * 1024 * 1024)

static char *pgbl_sysroot = NULL;

PG_FUNCTION_INFO_V1(pgbench_lab_system_info);

void
SystemInit(void)
{
	DefineCustomStringVariable(PGBL_GUC_PREFIX ".sysroot",
							   "Directory that stands for / when reading /proc and /sys.",
							   "For tests: lets them feed laid-out cgroup v1 and v2 trees.",
							   &pgbl_sysroot,
							   "",
							   PGC_SUSET,
							   0,
							   NULL, NULL, NULL);
}

/* Is pgbench_lab.sysroot pointing somewhere other than the real root? */
bool
SystemSysrootSet(void)
{
	return pgbl_sysroot != NULL && pgbl_sysroot[0] != '\0' &&
		strcmp(pgbl_sysroot, "/") != 0;
}

/* An absolute path under the sysroot, palloc'd. */
char *
SystemPath(const char *path)
{
	const char *root = SystemSysrootSet() ? pgbl_sysroot : "";
	size_t		len = strlen(root);

	/* "/x/" and "/x" both stand for /x */
	while (len > 0 && root[len - 1] == '/')
		len--;
	return psprintf("%.*s%s", (int) len, root, path);
}

/*
 * Open a regular file for reading, or return -1.  O_NONBLOCK and the
 * S_ISREG check keep a FIFO or a device (a laid-out /dev/zero) from
 * blocking or feeding us forever; /proc and /sys files are regular.
 */
static int
open_regular(const char *path)
{
	int			fd;
	struct stat st;

	fd = OpenTransientFile(path, O_RDONLY | O_NONBLOCK | PG_BINARY);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
	{
		CloseTransientFile(fd);
		return -1;
	}
	return fd;
}

/*
 * Read a whole small file into buf (NUL-terminated).  False when it cannot
 * be read or does not fit: a file bigger than a one-value file should be is
 * malformed, not something to truncate silently.
 */
bool
SystemReadFile(const char *path, char *buf, size_t size)
{
	int			fd = open_regular(path);
	size_t		len = 0;
	ssize_t		n = 0;

	if (fd < 0)
		return false;
	while (len < size - 1 &&
		   (n = read(fd, buf + len, size - 1 - len)) > 0)
		len += n;
	/* a read error, or one byte more than fits: not a one-value file */
	if (n < 0)
		len = 0;
	else if (len == size - 1)
	{
		char		extra;

		if (read(fd, &extra, 1) != 0)
			len = 0;
	}
	CloseTransientFile(fd);
	buf[len] = '\0';
	return len > 0;
}

/*
 * Call func for every line of a file (without its newline), until func
 * returns false.  Lines longer than PGBL_SYSTEM_LINE_MAX are skipped, and
 * reading stops after PGBL_SYSTEM_FILE_MAX bytes.  False when the file
 * cannot be opened.
 */
bool
SystemReadLines(const char *path, SystemLineFunc func, void *arg)
{
	char		buf[PGBL_SYSTEM_LINE_MAX + 1];
	size_t		len = 0;
	size_t		total = 0;
	bool		skipping = false;
	bool		go_on = true;
	ssize_t		n = 0;
	int			fd = open_regular(path);

	if (fd < 0)
		return false;
	while (go_on && total < PGBL_SYSTEM_FILE_MAX &&
		   (n = read(fd, buf + len, PGBL_SYSTEM_LINE_MAX - len)) > 0)
	{
		char	   *start = buf;
		char	   *nl;

		CHECK_FOR_INTERRUPTS();
		total += n;
		len += n;
		buf[len] = '\0';
		while (go_on && (nl = memchr(start, '\n', len - (start - buf))) != NULL)
		{
			*nl = '\0';
			if (!skipping)
				go_on = func(start, arg);
			skipping = false;
			start = nl + 1;
		}
		len -= start - buf;
		memmove(buf, start, len);
		if (len == PGBL_SYSTEM_LINE_MAX)
		{
			/* a line longer than the buffer: drop it up to its newline */
			skipping = true;
			len = 0;
		}
	}
	/* the last line may lack its newline; after a read error, drop it */
	if (go_on && n == 0 && len > 0 && !skipping)
	{
		buf[len] = '\0';
		func(buf, arg);
	}
	CloseTransientFile(fd);
	return true;
}

/*
 * Parse an unsigned decimal after optional blanks; *end (if not NULL) gets
 * the first character after it.  No sign, no overflow.
 */
bool
SystemParseUint64(const char *str, uint64 *value, const char **end)
{
	uint64		v = 0;

	while (*str == ' ' || *str == '\t')
		str++;
	if (*str < '0' || *str > '9')
		return false;
	while (*str >= '0' && *str <= '9')
	{
		if (v > (PG_UINT64_MAX - (*str - '0')) / 10)
			return false;
		v = v * 10 + (*str - '0');
		str++;
	}
	*value = v;
	if (end)
		*end = str;
	return true;
}

/* OS name and kernel release, from uname() (never from the sysroot). */
static void
probe_os(SystemFacts *facts)
{
	struct utsname u;

	if (uname(&u) != 0)
	{
		facts->os = NULL;
		facts->os_source = PGBL_SYSTEM_UNAVAILABLE;
		facts->kernel_release = NULL;
		facts->kernel_release_source = PGBL_SYSTEM_UNAVAILABLE;
		return;
	}
	/* the contract spells it lower case: "linux" */
	facts->os = asc_tolower(u.sysname, strlen(u.sysname));
	facts->os_source = "uname() sysname";
	facts->kernel_release = pstrdup(u.release);
	facts->kernel_release_source = "uname() release";
}

/* The running server and its build. */
static void
probe_postgres(SystemFacts *facts)
{
	const char *num = GetConfigOption("server_version_num", false, false);

	facts->pg_version_num = num ? atoi(num) : PG_VERSION_NUM;
	facts->block_size = BLCKSZ;
	facts->wal_segment_size = wal_segment_size;
	facts->have_lz4 = PGBL_SYSTEM_HAVE_LZ4;
	facts->have_zstd = PGBL_SYSTEM_HAVE_ZSTD;
}

void
SystemCollect(SystemFacts *facts)
{
	memset(facts, 0, sizeof(*facts));
	SystemProbeMemory(facts);
	SystemProbeCpus(facts);
	probe_os(facts);
	SystemProbeStorage(facts);
	probe_postgres(facts);
}

/* ---- system_info(): the facts as rows ---- */

static void
put_row(ReturnSetInfo *rsinfo, const char *name, const char *value,
		const char *unit, const char *source)
{
	Datum		values[4];
	bool		nulls[4] = {false, false, false, false};

	values[0] = CStringGetTextDatum(name);
	if (value)
		values[1] = CStringGetTextDatum(value);
	else
		nulls[1] = true;
	if (unit)
		values[2] = CStringGetTextDatum(unit);
	else
		nulls[2] = true;
	/* the probes set "unavailable" (or "... no limit") with no value */
	values[3] = CStringGetTextDatum(source ? source : PGBL_SYSTEM_UNAVAILABLE);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

/*
 * A number (bytes, counts, CPUs): whole numbers print as integers, others
 * with up to six significant digits ("1.5"); < 0 means no value.
 */
static void
put_number(ReturnSetInfo *rsinfo, const char *name, double value,
		   const char *unit, const char *source)
{
	char	   *text = NULL;

	if (value >= 0 && value == rint(value))
		text = psprintf("%.0f", value);
	else if (value >= 0)
		text = psprintf("%.6g", value);
	put_row(rsinfo, name, text, unit, source);
}

static void
put_memory_rows(ReturnSetInfo *rsinfo, const SystemFacts *f)
{
	put_number(rsinfo, "physical_ram", f->physical_ram, "bytes",
			   f->physical_ram_source);
	put_number(rsinfo, "cgroup_memory_max", f->cgroup_memory_max, "bytes",
			   f->cgroup_memory_max_source);
	put_number(rsinfo, "cgroup_memory_high", f->cgroup_memory_high, "bytes",
			   f->cgroup_memory_high_source);
	put_number(rsinfo, "memory_limit", f->memory_limit, "bytes",
			   f->memory_limit_source);
	put_number(rsinfo, "hugepage_size", f->hugepage_size, "bytes",
			   f->hugepage_size_source);
	put_number(rsinfo, "hugepages_total", f->hugepages_total, "pages",
			   f->hugepages_total_source);
	put_number(rsinfo, "hugepages_free", f->hugepages_free, "pages",
			   f->hugepages_free_source);
}

static void
put_cpu_rows(ReturnSetInfo *rsinfo, const SystemFacts *f)
{
	put_number(rsinfo, "cpus_online", f->cpus_online, "cpus",
			   f->cpus_online_source);
	put_number(rsinfo, "cpus_affinity", f->cpus_affinity, "cpus",
			   f->cpus_affinity_source);
	put_number(rsinfo, "cgroup_cpuset", f->cgroup_cpuset, "cpus",
			   f->cgroup_cpuset_source);
	put_number(rsinfo, "cgroup_cpu_quota", f->cpu_quota, "cpus",
			   f->cpu_quota_source);
	put_number(rsinfo, "cpus_effective", f->cpus_effective, "cpus",
			   f->cpus_source);
}

static void
put_storage_rows(ReturnSetInfo *rsinfo, const SystemFacts *f)
{
	put_row(rsinfo, "data_directory", f->data_directory, NULL,
			"data_directory setting (real path)");
	put_row(rsinfo, "data_mount_point", f->data_mount_point, NULL,
			f->data_mount_point_source);
	put_row(rsinfo, "data_filesystem", f->data_filesystem, NULL,
			f->data_filesystem_source);
	put_row(rsinfo, "data_mount_source", f->data_mount_source, NULL,
			f->data_mount_source_source);
	put_row(rsinfo, "data_device", f->data_device, NULL,
			f->data_device_source);
	put_row(rsinfo, "data_rotational",
			f->data_rotational < 0 ? NULL :
			(f->data_rotational ? "true" : "false"), NULL,
			f->data_rotational_source);
	put_number(rsinfo, "data_free_space", f->data_free_bytes, "bytes",
			   f->data_free_bytes_source);
	put_number(rsinfo, "data_total_space", f->data_total_bytes, "bytes",
			   f->data_free_bytes_source);
}

static void
put_server_rows(ReturnSetInfo *rsinfo, const SystemFacts *f)
{
	put_row(rsinfo, "os", f->os, NULL, f->os_source);
	put_row(rsinfo, "kernel_release", f->kernel_release, NULL,
			f->kernel_release_source);
	put_number(rsinfo, "server_version_num", f->pg_version_num, NULL,
			   "server_version_num setting");
	put_number(rsinfo, "block_size", f->block_size, "bytes",
			   "BLCKSZ (build)");
	put_number(rsinfo, "wal_segment_size", f->wal_segment_size, "bytes",
			   "wal_segment_size setting");
	put_row(rsinfo, "lz4", f->have_lz4 ? "true" : "false", NULL,
			"USE_LZ4 (pg_config.h)");
	put_row(rsinfo, "zstd", f->have_zstd ? "true" : "false", NULL,
			"USE_ZSTD (pg_config.h)");
}

/*
 * pgbench_lab.system_info()
 *		RETURNS TABLE (name text, value text, unit text, source text)
 *
 * One row per fact, in a fixed order; value is NULL when the fact could
 * not be read (source "unavailable") or when a cgroup sets no limit (the
 * source then says "no limit").
 */
Datum
pgbench_lab_system_info(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	SystemFacts facts;

	InitMaterializedSRF(fcinfo, 0);
	SystemCollect(&facts);
	put_memory_rows(rsinfo, &facts);
	put_cpu_rows(rsinfo, &facts);
	put_storage_rows(rsinfo, &facts);
	put_server_rows(rsinfo, &facts);
	return (Datum) 0;
}
