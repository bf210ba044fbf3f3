/*-------------------------------------------------------------------------
 *
 * system_facts.c
 *		Where the system part reads its facts: the sysroot setting, paths
 *		under it, bounded reads of small files and their numbers.
 *
 * The readers only ever read small, bounded amounts: regular files only
 * (a FIFO or a device laid out under the sysroot cannot block or feed a
 * reader forever), a fixed buffer, a cap on a line's length and on a
 * file's.  They never raise an error for a missing or malformed file:
 * they say false, and the fact is unavailable.  system.c, system_probe.c
 * and system_disk.c read through them and nothing here calls those.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "miscadmin.h"
#include "storage/fd.h"
#include "utils/guc.h"

#include "pgbench_lab.h"
#include "system_facts.h"

/* Longest line SystemReadLines hands over; longer ones are skipped. */
#define PGBL_SYSTEM_LINE_MAX 4096
/* No file of interest is longer; stop reading there. */
#define PGBL_SYSTEM_FILE_MAX (4 * 1024 * 1024)

static char *pgbl_sysroot = NULL;

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
