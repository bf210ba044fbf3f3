/*-------------------------------------------------------------------------
 *
 * system_facts.h
 *		The facts of the machine that the files of the system part fill,
 *		and the readers they fill them with.
 *
 * system.c gathers them (SystemCollect(), system.h) by calling the probes
 * of system_probe.c and system_disk.c; all three read /proc and /sys only
 * through system_facts.c.
 *
 *-------------------------------------------------------------------------
 */
#ifndef PGBL_SYSTEM_FACTS_H
#define PGBL_SYSTEM_FACTS_H

/* The source of a fact that could not be read. */
#define PGBL_SYSTEM_UNAVAILABLE "unavailable"

typedef struct SystemFacts
{
	/* memory, bytes; < 0 when unknown */
	double		physical_ram;	/* /proc/meminfo MemTotal */
	double		memory_limit;	/* effective: min(physical, cgroup limits) */
	const char *memory_limit_source;	/* e.g. "cgroup v2 memory.max" */

	/* CPUs; < 0 when unknown */
	int			cpus_online;
	int			cpus_affinity;	/* CPUs in this process's affinity mask */
	double		cpu_quota;		/* cgroup quota/period, < 0 when none */
	double		cpus_effective; /* min of the above, fractional with a quota */
	const char *cpus_source;

	/* huge pages */
	double		hugepage_size;	/* bytes, < 0 unknown */
	double		hugepages_total;
	double		hugepages_free;

	/* OS */
	const char *os;				/* "linux", ... */
	const char *kernel_release;

	/* data directory */
	const char *data_filesystem;	/* e.g. "ext4" */
	const char *data_device;	/* e.g. "vda" */
	int			data_rotational;	/* 1 rotational, 0 not, -1 unknown */
	double		data_free_bytes;	/* < 0 unknown */

	/* ---- added by the system part: where each value above came from ---- */
	const char *physical_ram_source;
	const char *cpus_online_source;
	const char *cpus_affinity_source;
	const char *cpu_quota_source;
	const char *hugepage_size_source;
	const char *hugepages_total_source;
	const char *hugepages_free_source;
	const char *os_source;
	const char *kernel_release_source;
	const char *data_filesystem_source;
	const char *data_device_source;
	const char *data_rotational_source;
	const char *data_free_bytes_source;

	/* cgroup memory limits, bytes: smallest along the cgroup's path */
	double		cgroup_memory_max;	/* v2 memory.max or v1 limit_in_bytes */
	const char *cgroup_memory_max_source;
	double		cgroup_memory_high; /* v2 memory.high (reclaim starts) */
	const char *cgroup_memory_high_source;

	/* CPUs of the cgroup's cpuset (v2 cpuset.cpus.effective, v1 cpuset.cpus) */
	double		cgroup_cpuset;
	const char *cgroup_cpuset_source;

	/* data directory, more */
	const char *data_directory;
	const char *data_mount_point;	/* longest mountinfo prefix of it */
	const char *data_mount_point_source;
	const char *data_mount_source;	/* e.g. "/dev/vda1" */
	const char *data_mount_source_source;
	double		data_total_bytes;	/* statvfs f_blocks * f_frsize */

	/* the running PostgreSQL and its build */
	int			pg_version_num; /* server_version_num */
	int			block_size;		/* BLCKSZ, bytes */
	int			wal_segment_size;	/* bytes */
	bool		have_lz4;		/* built with lz4 (USE_LZ4) */
	bool		have_zstd;		/* built with zstd (USE_ZSTD) */
} SystemFacts;

/* system_facts.c: paths under the sysroot and bounded file reading */
typedef bool (*SystemLineFunc) (char *line, void *arg);

extern bool SystemSysrootSet(void);
extern char *SystemPath(const char *path);
extern bool SystemReadFile(const char *path, char *buf, size_t size);
extern bool SystemReadLines(const char *path, SystemLineFunc func, void *arg);
extern bool SystemParseUint64(const char *str, uint64 *value, const char **end);

/*
 * system_probe.c: memory, CPUs, cgroups; system_disk.c: the data
 * directory's storage.  Each fills its share of *facts and never raises an
 * error for a missing or malformed file.
 */
extern void SystemProbeMemory(SystemFacts *facts);
extern void SystemProbeCpus(SystemFacts *facts);
extern void SystemProbeStorage(SystemFacts *facts);

#endif							/* PGBL_SYSTEM_FACTS_H */
