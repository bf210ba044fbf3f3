/*-------------------------------------------------------------------------
 *
 * system.h
 *		What the server can see of the machine it runs on.
 *
 * SystemCollect() gathers every fact once; system_info() shows them as rows
 * and the recommender reads the struct.  A fact that cannot be read is
 * marked unavailable (its *_source says "unavailable"), never an error.
 *
 *-------------------------------------------------------------------------
 */
#ifndef PGBL_SYSTEM_H
#define PGBL_SYSTEM_H

typedef struct SystemFacts
{
	/* memory, bytes; < 0 when unknown */
	double		physical_ram;		/* /proc/meminfo MemTotal */
	double		memory_limit;		/* effective: min(physical, cgroup limits) */
	const char *memory_limit_source;	/* e.g. "cgroup v2 memory.max" */

	/* CPUs; < 0 when unknown */
	int			cpus_online;
	int			cpus_affinity;		/* CPUs in this process's affinity mask */
	double		cpu_quota;			/* cgroup quota/period, < 0 when none */
	double		cpus_effective;		/* min of the above, fractional with a quota */
	const char *cpus_source;

	/* huge pages */
	double		hugepage_size;		/* bytes, < 0 unknown */
	double		hugepages_total;
	double		hugepages_free;

	/* OS */
	const char *os;					/* "linux", ... */
	const char *kernel_release;

	/* data directory */
	const char *data_filesystem;	/* e.g. "ext4" */
	const char *data_device;		/* e.g. "vda" */
	int			data_rotational;	/* 1 rotational, 0 not, -1 unknown */
	double		data_free_bytes;	/* < 0 unknown */
} SystemFacts;

/* Fill *facts (allocated in the current memory context). */
extern void SystemCollect(SystemFacts *facts);

#endif							/* PGBL_SYSTEM_H */
