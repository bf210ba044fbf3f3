/*-------------------------------------------------------------------------
 *
 * system_probe.c
 *		Memory and CPUs as the server sees them: /proc/meminfo, sysconf,
 *		sched_getaffinity, and cgroup v1 and v2 limits.
 *
 * The cgroup of this process comes from /proc/self/cgroup: a v1 line
 * "N:memory:/path" (or "N:cpu,cpuacct:/path") wins for its controller, else
 * the v2 line "0::/path".  Limits are read from that cgroup's directory and
 * every parent up to the hierarchy's root, and the smallest wins, because
 * a quota set on a parent applies to its children.  Inside a container the
 * path often names a directory that does not exist (the namespace's root
 * is the process's cgroup); then the hierarchy's root files are used.
 *
 * "max", -1 and the page-rounded 2^63 that cgroup v1 prints for "no limit"
 * all mean no limit, and so does an enabled v2 controller with no limit
 * file anywhere on the path (the v2 root cgroup has none).  Anything else
 * that is not a plain number is malformed: that file counts as unreadable,
 * and a fact whose only files are malformed is unavailable, not unlimited.
 *
 * CPUs are the smallest of those online, those in the affinity mask, those
 * of the cgroup's cpuset, and the CFS quota (quota / period, fractional).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/int.h"
#include "miscadmin.h"

#include "pgbench_lab.h"
#include "system_facts.h"

/* At or above this many bytes a cgroup limit means "no limit" (1 EiB). */
#define PGBL_SYSTEM_UNLIMITED ((uint64) 1 << 60)
/* Largest CPU number a CPU list may name. */
#define PGBL_SYSTEM_MAX_CPU 65535
/* Largest affinity mask asked for. */
#define PGBL_SYSTEM_AFFINITY_MAX 65536

/* What one cgroup file says about one level of the hierarchy. */
typedef enum CgroupLevel
{
	CGROUP_LEVEL_NONE,			/* missing or malformed */
	CGROUP_LEVEL_UNLIMITED,
	CGROUP_LEVEL_LIMIT
} CgroupLevel;

typedef CgroupLevel (*CgroupReader) (const char *dir, const char *file,
									 double *value);

/* Where this process's cgroup is for one controller. */
typedef struct CgroupPlace
{
	const char *controller;		/* "memory", "cpu", "cpuset" */
	int			version;		/* 1, 2, or 0 when none */
	char	   *root;			/* hierarchy's mount directory (sysroot'd) */
	char	   *path;			/* cgroup path inside it, "/..." */
} CgroupPlace;

/* /proc/self/cgroup scan state */
typedef struct CgroupScan
{
	const char *controller;
	char	   *v1_controllers;
	char	   *v1_path;
	char	   *v2_path;
} CgroupScan;

/* /proc/meminfo scan state: values in the file's units */
typedef struct MeminfoScan
{
	uint64		mem_total_kb;
	uint64		hugepage_size_kb;
	uint64		hugepages_total;
	uint64		hugepages_free;
	bool		have_total;
	bool		have_size;
	bool		have_htotal;
	bool		have_hfree;
} MeminfoScan;

/* Nothing but blanks and newlines from here on? */
static bool
blank_rest(const char *s)
{
	return s[strspn(s, " \t\n")] == '\0';
}

/* Read dir/file of one cgroup level into a small buffer. */
static bool
read_level_file(const char *dir, const char *file, char *buf, size_t size)
{
	return SystemReadFile(psprintf("%s/%s", dir, file), buf, size);
}

static bool
is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Does a list of names separated by any of seps hold name exactly? */
static bool
list_has(const char *list, const char *seps, const char *name)
{
	size_t		len = strlen(name);
	const char *p = list;

	for (;;)
	{
		size_t		n = strcspn(p, seps);

		if (n == len && strncmp(p, name, len) == 0)
			return true;
		if (p[n] == '\0')
			return false;
		p += n + 1;
	}
}

/* One /proc/self/cgroup line: "hierarchy-id:controllers:path". */
static bool
cgroup_line(char *line, void *arg)
{
	CgroupScan *scan = (CgroupScan *) arg;
	char	   *c1 = strchr(line, ':');
	char	   *c2 = c1 ? strchr(c1 + 1, ':') : NULL;

	if (!c2 || c2[1] != '/')
		return true;			/* malformed: ignore the line */
	*c1 = '\0';
	*c2 = '\0';
	if (strcmp(line, "0") == 0 && c1[1] == '\0')
		scan->v2_path = pstrdup(c2 + 1);
	else if (list_has(c1 + 1, ",", scan->controller))
	{
		scan->v1_controllers = pstrdup(c1 + 1);
		scan->v1_path = pstrdup(c2 + 1);
	}
	return true;
}

/* Find the cgroup of this process for a controller ("memory", "cpu"). */
static CgroupPlace
cgroup_place(const char *controller)
{
	CgroupScan	scan = {controller, NULL, NULL, NULL};
	CgroupPlace place = {controller, 0, NULL, NULL};

	if (!SystemReadLines(SystemPath("/proc/self/cgroup"), cgroup_line, &scan))
		return place;
	if (scan.v1_path)
	{
		/* "cpu,cpuacct" is usually mounted as such, sometimes as "cpu" */
		place.root = SystemPath(psprintf("/sys/fs/cgroup/%s",
										 scan.v1_controllers));
		if (!is_dir(place.root))
			place.root = SystemPath(psprintf("/sys/fs/cgroup/%s", controller));
		place.version = 1;
		place.path = scan.v1_path;
	}
	else if (scan.v2_path)
	{
		/* hybrid systems mount the v2 hierarchy at /sys/fs/cgroup/unified */
		place.root = SystemPath("/sys/fs/cgroup");
		if (access(psprintf("%s/cgroup.controllers", place.root), F_OK) != 0 &&
			is_dir(SystemPath("/sys/fs/cgroup/unified")))
			place.root = SystemPath("/sys/fs/cgroup/unified");
		place.version = 2;
		place.path = scan.v2_path;
	}
	return place;
}

/*
 * cgroup v2 keeps no limit files in its root cgroup: when none exists on
 * the path but the controller is enabled, nothing limits us.
 */
static bool
v2_root_only(const CgroupPlace *place)
{
	char		buf[1024];

	return place->version == 2 &&
		read_level_file(place->root, "cgroup.controllers", buf, sizeof(buf)) &&
		list_has(buf, " \n", place->controller);
}

/*
 * Read one limit file in the cgroup's directory and every parent up to the
 * root; the smallest limit wins.  *source names the file that set it, or
 * says "no limit" when files exist but none limits, or "unavailable".
 */
static double
cgroup_walk(const CgroupPlace *place, const char *file, const char *label,
			CgroupReader reader, const char **source)
{
	size_t		rootlen;
	char	   *dir;
	double		best = -1;
	bool		unlimited = false;
	bool		malformed = false;

	*source = PGBL_SYSTEM_UNAVAILABLE;
	if (place->version == 0 || !is_dir(place->root))
		return -1;
	rootlen = strlen(place->root);
	dir = psprintf("%s%s", place->root, place->path);
	while (strlen(dir) > rootlen && dir[strlen(dir) - 1] == '/')
		dir[strlen(dir) - 1] = '\0';
	/* "/.." appears for a cgroup outside our namespace: use the root */
	if (strstr(place->path, "/..") != NULL || !is_dir(dir))
		dir[rootlen] = '\0';
	for (;;)
	{
		double		v;
		CgroupLevel level;
		char	   *slash;

		CHECK_FOR_INTERRUPTS();
		level = reader(dir, file, &v);
		if (level == CGROUP_LEVEL_NONE &&
			access(psprintf("%s/%s", dir, file), F_OK) == 0)
			malformed = true;
		else if (level == CGROUP_LEVEL_UNLIMITED)
			unlimited = true;
		else if (level == CGROUP_LEVEL_LIMIT && (best < 0 || v < best))
		{
			best = v;
			*source = psprintf("%s at %s/%s", label, dir, file);
		}
		if (strlen(dir) <= rootlen)
			break;
		slash = strrchr(dir, '/');
		if (slash == NULL || (size_t) (slash - dir) < rootlen)
			dir[rootlen] = '\0';
		else
			*slash = '\0';
	}
	/* a malformed file is not "no limit": we cannot tell */
	if (best < 0 && malformed)
		unlimited = false;
	else if (best < 0 && !unlimited)
		unlimited = v2_root_only(place);
	if (best < 0 && unlimited)
		*source = psprintf("%s (no limit)", label);
	return best;
}

/* A memory limit file: bytes, "max", or a huge value meaning no limit. */
static CgroupLevel
read_memory_limit(const char *dir, const char *file, double *value)
{
	char		buf[64];
	uint64		v;
	const char *end;

	if (!read_level_file(dir, file, buf, sizeof(buf)))
		return CGROUP_LEVEL_NONE;
	if (strncmp(buf, "max", 3) == 0 && blank_rest(buf + 3))
		return CGROUP_LEVEL_UNLIMITED;
	if (!SystemParseUint64(buf, &v, &end) || !blank_rest(end))
		return CGROUP_LEVEL_NONE;
	if (v >= PGBL_SYSTEM_UNLIMITED)
		return CGROUP_LEVEL_UNLIMITED;
	*value = (double) v;
	return CGROUP_LEVEL_LIMIT;
}

/* A signed decimal with nothing but blanks after it. */
static bool
parse_int64_all(const char *str, int64 *value)
{
	uint64		v;
	const char *end;
	bool		neg = false;

	while (*str == ' ' || *str == '\t')
		str++;
	if (*str == '-')
	{
		neg = true;
		str++;
	}
	if (!SystemParseUint64(str, &v, &end) || v > (uint64) PG_INT64_MAX ||
		!blank_rest(end))
		return false;
	*value = neg ? -(int64) v : (int64) v;
	return true;
}

/*
 * Count the CPUs of a kernel CPU list ("0-3,8,10-11"); -1 when malformed.
 */
static int
count_cpu_list(const char *list)
{
	int			count = 0;
	const char *p = list;

	for (;;)
	{
		uint64		lo,
					hi;

		if (!SystemParseUint64(p, &lo, &p) || lo > PGBL_SYSTEM_MAX_CPU)
			return -1;
		hi = lo;
		if (*p == '-' &&
			(!SystemParseUint64(p + 1, &hi, &p) || hi < lo ||
			 hi > PGBL_SYSTEM_MAX_CPU))
			return -1;
		count += (int) (hi - lo + 1);
		if (*p != ',')
			break;
		p++;
	}
	return blank_rest(p) ? count : -1;
}

/* cgroup v2 cpu.max: "max 100000" or "150000 100000" (quota period). */
static CgroupLevel
read_cpu_max(const char *dir, const char *file, double *value)
{
	char		buf[64];
	uint64		quota,
				period;
	const char *p;

	if (!read_level_file(dir, file, buf, sizeof(buf)))
		return CGROUP_LEVEL_NONE;
	if (strncmp(buf, "max ", 4) == 0)
		return SystemParseUint64(buf + 4, &period, &p) ?
			CGROUP_LEVEL_UNLIMITED : CGROUP_LEVEL_NONE;
	if (!SystemParseUint64(buf, &quota, &p) || *p != ' ' ||
		!SystemParseUint64(p, &period, &p) ||
		!blank_rest(p) || quota == 0 || period == 0)
		return CGROUP_LEVEL_NONE;
	*value = (double) quota / (double) period;
	return CGROUP_LEVEL_LIMIT;
}

/* cgroup v1 cpu.cfs_quota_us (-1: none) over cpu.cfs_period_us. */
static CgroupLevel
read_cfs_quota(const char *dir, const char *file, double *value)
{
	char		buf[64];
	int64		quota,
				period;

	if (!read_level_file(dir, file, buf, sizeof(buf)) ||
		!parse_int64_all(buf, &quota))
		return CGROUP_LEVEL_NONE;
	if (quota == -1)
		return CGROUP_LEVEL_UNLIMITED;
	if (!read_level_file(dir, "cpu.cfs_period_us", buf, sizeof(buf)) ||
		!parse_int64_all(buf, &period) || quota <= 0 || period <= 0)
		return CGROUP_LEVEL_NONE;
	*value = (double) quota / (double) period;
	return CGROUP_LEVEL_LIMIT;
}

/* A cpuset file: a CPU list such as "0-3,8"; empty means not set. */
static CgroupLevel
read_cpuset(const char *dir, const char *file, double *value)
{
	char		buf[1024];
	int			count;

	if (!read_level_file(dir, file, buf, sizeof(buf)) ||
		(count = count_cpu_list(buf)) <= 0)
		return CGROUP_LEVEL_NONE;
	*value = count;
	return CGROUP_LEVEL_LIMIT;
}

/* One /proc/meminfo line: "Name:   1234 kB". */
static bool
meminfo_line(char *line, void *arg)
{
	MeminfoScan *scan = (MeminfoScan *) arg;
	char	   *colon = strchr(line, ':');
	uint64		v;
	const char *end;

	if (!colon)
		return true;
	*colon = '\0';
	if (!SystemParseUint64(colon + 1, &v, &end))
		return true;
	/* only "kB" or nothing may follow the number */
	end += strspn(end, " \t");
	if (*end != '\0' && strcmp(end, "kB") != 0)
		return true;
	if (strcmp(line, "MemTotal") == 0)
		scan->have_total = (scan->mem_total_kb = v, true);
	else if (strcmp(line, "Hugepagesize") == 0)
		scan->have_size = (scan->hugepage_size_kb = v, true);
	else if (strcmp(line, "HugePages_Total") == 0)
		scan->have_htotal = (scan->hugepages_total = v, true);
	else if (strcmp(line, "HugePages_Free") == 0)
		scan->have_hfree = (scan->hugepages_free = v, true);
	return true;
}

/* kB from meminfo to bytes, or -1 when absent or overflowing. */
static double
kb_to_bytes(bool have, uint64 kb, const char *what, const char **source)
{
	uint64		bytes;

	if (!have || pg_mul_u64_overflow(kb, 1024, &bytes))
	{
		*source = PGBL_SYSTEM_UNAVAILABLE;
		return -1;
	}
	*source = psprintf("/proc/meminfo %s", what);
	return (double) bytes;
}

static void
probe_meminfo(SystemFacts *facts)
{
	MeminfoScan scan;

	memset(&scan, 0, sizeof(scan));
	SystemReadLines(SystemPath("/proc/meminfo"), meminfo_line, &scan);
	facts->physical_ram = kb_to_bytes(scan.have_total, scan.mem_total_kb,
									  "MemTotal", &facts->physical_ram_source);
	facts->hugepage_size = kb_to_bytes(scan.have_size, scan.hugepage_size_kb,
									   "Hugepagesize",
									   &facts->hugepage_size_source);
	facts->hugepages_total = scan.have_htotal ? (double) scan.hugepages_total : -1;
	facts->hugepages_total_source = scan.have_htotal ?
		"/proc/meminfo HugePages_Total" : PGBL_SYSTEM_UNAVAILABLE;
	facts->hugepages_free = scan.have_hfree ? (double) scan.hugepages_free : -1;
	facts->hugepages_free_source = scan.have_hfree ?
		"/proc/meminfo HugePages_Free" : PGBL_SYSTEM_UNAVAILABLE;

	/* without meminfo, ask the C library (only of the real system) */
	if (facts->physical_ram < 0 && !SystemSysrootSet())
	{
		long		pages = sysconf(_SC_PHYS_PAGES);
		long		pagesize = sysconf(_SC_PAGESIZE);

		if (pages > 0 && pagesize > 0)
		{
			facts->physical_ram = (double) pages * (double) pagesize;
			facts->physical_ram_source = "sysconf(_SC_PHYS_PAGES)";
		}
	}
}

/* Keep the smaller of two candidate values (< 0: none) and its source. */
static void
take_min(double *best, const char **best_source, double v, const char *source)
{
	if (v >= 0 && (*best < 0 || v < *best))
	{
		*best = v;
		*best_source = source;
	}
}

void
SystemProbeMemory(SystemFacts *facts)
{
	CgroupPlace place = cgroup_place("memory");

	probe_meminfo(facts);
	if (place.version == 2)
	{
		facts->cgroup_memory_max =
			cgroup_walk(&place, "memory.max", "cgroup v2 memory.max",
						read_memory_limit, &facts->cgroup_memory_max_source);
		facts->cgroup_memory_high =
			cgroup_walk(&place, "memory.high", "cgroup v2 memory.high",
						read_memory_limit, &facts->cgroup_memory_high_source);
	}
	else
	{
		facts->cgroup_memory_max =
			cgroup_walk(&place, "memory.limit_in_bytes",
						"cgroup v1 memory.limit_in_bytes",
						read_memory_limit, &facts->cgroup_memory_max_source);
		/* v1 has no memory.high */
		facts->cgroup_memory_high = -1;
		facts->cgroup_memory_high_source = PGBL_SYSTEM_UNAVAILABLE;
	}

	/*
	 * memory.high is not a hard limit, but above it the kernel throttles and
	 * reclaims, so the server cannot usefully count on more.
	 */
	facts->memory_limit = -1;
	facts->memory_limit_source = PGBL_SYSTEM_UNAVAILABLE;
	take_min(&facts->memory_limit, &facts->memory_limit_source,
			 facts->physical_ram, facts->physical_ram_source);
	take_min(&facts->memory_limit, &facts->memory_limit_source,
			 facts->cgroup_memory_max, facts->cgroup_memory_max_source);
	take_min(&facts->memory_limit, &facts->memory_limit_source,
			 facts->cgroup_memory_high, facts->cgroup_memory_high_source);
}

/* /proc/self/status "Cpus_allowed_list:" (sysroot tests only) */
static bool
status_line(char *line, void *arg)
{
	const char *key = "Cpus_allowed_list:";

	if (strncmp(line, key, strlen(key)) != 0)
		return true;
	*(int *) arg = count_cpu_list(line + strlen(key));
	return false;
}

static void
probe_cpus_online(SystemFacts *facts)
{
	long		n;

	/* a laid-out machine may say how many CPUs it has */
	if (SystemSysrootSet())
	{
		char		buf[256];
		char	   *path = SystemPath("/sys/devices/system/cpu/online");

		if (SystemReadFile(path, buf, sizeof(buf)) &&
			(facts->cpus_online = count_cpu_list(buf)) > 0)
		{
			facts->cpus_online_source = path;
			return;
		}
	}
	n = sysconf(_SC_NPROCESSORS_ONLN);
	facts->cpus_online = n > 0 && n <= PG_INT32_MAX ? (int) n : -1;
	facts->cpus_online_source = n <= 0 ? PGBL_SYSTEM_UNAVAILABLE :
		SystemSysrootSet() ? "sysconf(_SC_NPROCESSORS_ONLN) (real system)" :
		"sysconf(_SC_NPROCESSORS_ONLN)";
}

static void
probe_cpus_affinity(SystemFacts *facts)
{
	int			size;

	if (SystemSysrootSet())
	{
		int			count = -1;
		char	   *path = SystemPath("/proc/self/status");

		if (SystemReadLines(path, status_line, &count) && count > 0)
		{
			facts->cpus_affinity = count;
			facts->cpus_affinity_source = psprintf("%s Cpus_allowed_list", path);
			return;
		}
	}
	facts->cpus_affinity = -1;
	facts->cpus_affinity_source = PGBL_SYSTEM_UNAVAILABLE;
	/* the kernel's mask may be larger than ours: grow until it fits */
	for (size = 1024; size <= PGBL_SYSTEM_AFFINITY_MAX; size *= 2)
	{
		cpu_set_t  *set = CPU_ALLOC(size);
		size_t		bytes = CPU_ALLOC_SIZE(size);

		if (set == NULL)
			return;
		CPU_ZERO_S(bytes, set);
		if (sched_getaffinity(0, bytes, set) == 0)
		{
			facts->cpus_affinity = CPU_COUNT_S(bytes, set);
			facts->cpus_affinity_source = SystemSysrootSet() ?
				"sched_getaffinity() (real system)" : "sched_getaffinity()";
			CPU_FREE(set);
			return;
		}
		CPU_FREE(set);
	}
}

void
SystemProbeCpus(SystemFacts *facts)
{
	CgroupPlace place = cgroup_place("cpu");

	probe_cpus_online(facts);
	probe_cpus_affinity(facts);
	if (place.version == 2)
		facts->cpu_quota = cgroup_walk(&place, "cpu.max", "cgroup v2 cpu.max",
									   read_cpu_max, &facts->cpu_quota_source);
	else
		facts->cpu_quota = cgroup_walk(&place, "cpu.cfs_quota_us",
									   "cgroup v1 cpu.cfs_quota_us",
									   read_cfs_quota, &facts->cpu_quota_source);

	place = cgroup_place("cpuset");
	facts->cgroup_cpuset =
		place.version == 2 ?
		cgroup_walk(&place, "cpuset.cpus.effective",
					"cgroup v2 cpuset.cpus.effective", read_cpuset,
					&facts->cgroup_cpuset_source) :
		cgroup_walk(&place, "cpuset.cpus", "cgroup v1 cpuset.cpus",
					read_cpuset, &facts->cgroup_cpuset_source);

	facts->cpus_effective = -1;
	facts->cpus_source = PGBL_SYSTEM_UNAVAILABLE;
	take_min(&facts->cpus_effective, &facts->cpus_source,
			 facts->cpus_online, facts->cpus_online_source);
	take_min(&facts->cpus_effective, &facts->cpus_source,
			 facts->cpus_affinity, facts->cpus_affinity_source);
	take_min(&facts->cpus_effective, &facts->cpus_source,
			 facts->cgroup_cpuset, facts->cgroup_cpuset_source);
	take_min(&facts->cpus_effective, &facts->cpus_source,
			 facts->cpu_quota, facts->cpu_quota_source);
}
