/*-------------------------------------------------------------------------
 *
 * system_disk.c
 *		The data directory's storage: its mount, file system, block device,
 *		whether that device is rotational, and its free space.
 *
 * The mount is the longest mount point in /proc/self/mountinfo that is a
 * prefix of the data directory's real path (later mounts shadow earlier
 * ones with the same point), which gives the file system type and the
 * mount's source; statfs() names the type when mountinfo cannot be read.
 * The device comes from stat()'s st_dev through /sys/dev/block/MAJ:MIN;
 * for a partition the rotational flag belongs to its parent disk, so the
 * disk is reported.  File systems without a block device (tmpfs, overlay,
 * NFS) have no device and no rotational flag: those facts are unavailable.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "miscadmin.h"

#include "pgbench_lab.h"
#include "system_facts.h"

/* statfs() f_type values of common file systems (linux/magic.h) */
typedef struct FsMagic
{
	long		magic;
	const char *name;
} FsMagic;

static const FsMagic fs_magics[] = {
	{0xEF53, "ext4"},			/* ext2, ext3 and ext4 share it */
	{0x58465342, "xfs"},
	{0x9123683E, "btrfs"},
	{0x2FC12FC1, "zfs"},
	{0xF2F52010, "f2fs"},
	{0x01021994, "tmpfs"},
	{0x794C7630, "overlay"},
	{0x6969, "nfs"},
	{0xFF534D42, "cifs"},
	{0x65735546, "fuse"},
	{0x5346544E, "ntfs"},
	{0x4D44, "vfat"},
};

/* mountinfo scan state */
typedef struct MountScan
{
	const char *path;			/* data directory, real path */
	size_t		best_len;
	char	   *mount_point;
	char	   *fstype;
	char	   *source;
} MountScan;

/* Undo mountinfo's octal escapes (\040 for a space) in place. */
static void
unescape(char *s)
{
	char	   *out = s;

	for (; *s; s++)
	{
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
			s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7')
		{
			*out++ = (char) ((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		}
		else
			*out++ = *s;
	}
	*out = '\0';
}

/* Is the mount point a whole-component prefix of the path? */
static bool
mount_covers(const char *mount_point, const char *path)
{
	size_t		len = strlen(mount_point);

	if (strcmp(mount_point, "/") == 0)
		return path[0] == '/';
	return strncmp(mount_point, path, len) == 0 &&
		(path[len] == '\0' || path[len] == '/');
}

/*
 * One mountinfo line: "id parent maj:min root mount-point options
 * [optional fields] - fstype source super-options".
 */
static bool
mount_line(char *line, void *arg)
{
	MountScan  *scan = (MountScan *) arg;
	char	   *fields[6];
	char	   *sep;
	char	   *save = NULL;
	char	   *fstype;
	char	   *source;
	int			i;

	sep = strstr(line, " - ");
	if (sep == NULL)
		return true;
	*sep = '\0';
	for (i = 0; i < 6; i++)
		if ((fields[i] = strtok_r(i == 0 ? line : NULL, " ", &save)) == NULL)
			return true;		/* malformed: ignore the line */
	save = NULL;
	fstype = strtok_r(sep + 3, " ", &save);
	source = fstype ? strtok_r(NULL, " ", &save) : NULL;
	if (source == NULL)
		return true;
	unescape(fields[4]);
	if (mount_covers(fields[4], scan->path) && strlen(fields[4]) >= scan->best_len)
	{
		scan->best_len = strlen(fields[4]);
		scan->mount_point = pstrdup(fields[4]);
		scan->fstype = pstrdup(fstype);
		unescape(source);
		scan->source = pstrdup(source);
	}
	return true;
}

static void
probe_mount(SystemFacts *facts, const char *path)
{
	MountScan	scan = {path, 0, NULL, NULL, NULL};
	char	   *mountinfo = SystemPath("/proc/self/mountinfo");
	struct statfs sfs;

	SystemReadLines(mountinfo, mount_line, &scan);
	if (scan.fstype)
	{
		facts->data_mount_point = scan.mount_point;
		facts->data_mount_point_source = mountinfo;
		facts->data_filesystem = scan.fstype;
		facts->data_filesystem_source = mountinfo;
		facts->data_mount_source = scan.source;
		facts->data_mount_source_source = mountinfo;
		return;
	}
	facts->data_mount_point_source = PGBL_SYSTEM_UNAVAILABLE;
	facts->data_mount_source_source = PGBL_SYSTEM_UNAVAILABLE;
	facts->data_filesystem_source = PGBL_SYSTEM_UNAVAILABLE;
	if (statfs(path, &sfs) != 0)
		return;
	for (int i = 0; i < lengthof(fs_magics); i++)
	{
		if ((long) sfs.f_type == fs_magics[i].magic)
		{
			facts->data_filesystem = fs_magics[i].name;
			facts->data_filesystem_source = "statfs() f_type";
			break;
		}
	}
	if (facts->data_filesystem == NULL)
	{
		facts->data_filesystem = psprintf("0x%lx", (unsigned long) sfs.f_type);
		facts->data_filesystem_source = "statfs() f_type (unknown magic)";
	}
}

/* The last component of a path, palloc'd. */
static char *
last_component(const char *path)
{
	const char *slash = strrchr(path, '/');

	return pstrdup(slash ? slash + 1 : path);
}

/*
 * The block device holding the data directory: /sys/dev/block/MAJ:MIN is a
 * link into /sys/devices/.../<disk>[/<partition>].
 */
static void
probe_device(SystemFacts *facts, const char *path)
{
	struct stat st;
	char		target[MAXPGPATH];
	char		buf[16];
	char	   *link;
	ssize_t		n;

	facts->data_device_source = PGBL_SYSTEM_UNAVAILABLE;
	facts->data_rotational = -1;
	facts->data_rotational_source = PGBL_SYSTEM_UNAVAILABLE;
	if (stat(path, &st) != 0)
		return;
	link = SystemPath(psprintf("/sys/dev/block/%u:%u",
							   major(st.st_dev), minor(st.st_dev)));
	n = readlink(link, target, sizeof(target) - 1);
	if (n <= 0 || n >= (ssize_t) sizeof(target) - 1)
		return;
	target[n] = '\0';
	while (n > 1 && target[n - 1] == '/')
		target[--n] = '\0';

	/* a partition: its parent directory is the disk */
	if (access(psprintf("%s/partition", link), F_OK) == 0)
	{
		char	   *slash = strrchr(target, '/');

		if (slash == NULL)
			return;
		*slash = '\0';
	}
	facts->data_device = last_component(target);
	facts->data_device_source = link;
	if (facts->data_device[0] == '\0' || strcmp(facts->data_device, ".") == 0 ||
		strcmp(facts->data_device, "..") == 0)
	{
		facts->data_device = NULL;
		facts->data_device_source = PGBL_SYSTEM_UNAVAILABLE;
		return;
	}

	link = SystemPath(psprintf("/sys/block/%s/queue/rotational",
							   facts->data_device));
	if (SystemReadFile(link, buf, sizeof(buf)) &&
		(strcmp(buf, "0\n") == 0 || strcmp(buf, "1\n") == 0 ||
		 strcmp(buf, "0") == 0 || strcmp(buf, "1") == 0))
	{
		facts->data_rotational = buf[0] == '1';
		facts->data_rotational_source = link;
	}
}

void
SystemProbeStorage(SystemFacts *facts)
{
	char		real[PATH_MAX];
	const char *path = DataDir;
	struct statvfs vfs;

	facts->data_free_bytes = -1;
	facts->data_total_bytes = -1;
	facts->data_free_bytes_source = PGBL_SYSTEM_UNAVAILABLE;
	if (path == NULL)
	{
		facts->data_filesystem_source = PGBL_SYSTEM_UNAVAILABLE;
		facts->data_mount_point_source = PGBL_SYSTEM_UNAVAILABLE;
		facts->data_mount_source_source = PGBL_SYSTEM_UNAVAILABLE;
		facts->data_device_source = PGBL_SYSTEM_UNAVAILABLE;
		facts->data_rotational = -1;
		facts->data_rotational_source = PGBL_SYSTEM_UNAVAILABLE;
		return;
	}
	/* mountinfo lists real paths; the data directory may be a symlink */
	if (realpath(path, real) != NULL)
		path = real;
	facts->data_directory = pstrdup(path);
	probe_mount(facts, path);
	probe_device(facts, path);
	if (statvfs(path, &vfs) == 0)
	{
		facts->data_free_bytes = (double) vfs.f_bavail * (double) vfs.f_frsize;
		facts->data_total_bytes = (double) vfs.f_blocks * (double) vfs.f_frsize;
		facts->data_free_bytes_source = SystemSysrootSet() ?
			"statvfs() (real system)" : "statvfs()";
	}
}
