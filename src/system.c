/*-------------------------------------------------------------------------
 *
 * system.c
 *		The machine as the server sees it: pgbench_lab.system_info() and the
 *		SystemCollect() that the recommender calls.
 *
 * Both are built on the same readers, so the rows a DBA sees and the
 * numbers the recommender uses never disagree.  The readers only ever read
 * small, bounded amounts from /proc and /sys (system_facts.c's
 * SystemReadFile and SystemReadLines: regular files only, a fixed buffer, a
 * cap on lines), so a malformed, huge or missing file turns into an
 * "unavailable" fact rather than an error that would hide every other fact.
 *
 * The superuser-only setting pgbench_lab.sysroot (system_facts.c) names a
 * directory that stands for / when reading /proc and /sys, so that tests
 * can lay out cgroup v1, v2, unlimited and nested-quota machines as real
 * files.  Facts that do not come from files (sysconf, sched_getaffinity,
 * statvfs, uname) still come from the real system; their source column
 * says so.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>
#include <sys/utsname.h>

#include "access/xlog.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
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

PG_FUNCTION_INFO_V1(pgbench_lab_system_info);

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
