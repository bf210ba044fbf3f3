/*-------------------------------------------------------------------------
 *
 * storage.h
 *		Storage baseline of the data directory's device: fsync_test() and
 *		io_test(), whose results are kept in pgbench_lab.storage_tests.
 *
 * The declarations below are shared by storage.c (the helpers and
 * fsync_test) and storage_io.c (io_test).  Other parts read the latest
 * figures through the SQL view pgbench_lab.storage_latest (one row, NULLs
 * when nothing was measured), not from C.
 *
 *-------------------------------------------------------------------------
 */
#ifndef PGBL_STORAGE_H
#define PGBL_STORAGE_H

#include "fmgr.h"
#include "lib/stringinfo.h"
#include "portability/instr_time.h"
#include "utils/timestamp.h"

/* Longest test either function accepts, seconds. */
#define PGBL_STORAGE_MAX_SECONDS 600
#define PGBL_STORAGE_BLOCK 8192		/* one WAL or heap block */
#define PGBL_STORAGE_ALIGN 4096		/* O_DIRECT buffer alignment */

/* The one temporary file of this backend, for the cleanup callback. */
typedef struct StorageTempFile
{
	int			fd;				/* -1 when closed */
	char		path[MAXPGPATH];	/* "" when there is no file */
} StorageTempFile;

extern StorageTempFile StorageFile;

/* arguments and privileges */
extern void StorageRequireSuperuser(const char *fname);
extern double StorageSecondsArg(FunctionCallInfo fcinfo, int argno);

/* the temporary file: every failure is an ERROR naming it */
extern void StoragePreparePath(const char *kind);
extern void StorageCleanup(int code, Datum arg);
extern bool StorageOpen(int flags, bool direct);
extern void StorageClose(void);
extern bool StoragePwrite(const char *buf, int len, off_t offset, bool direct);
extern int	StoragePread(char *buf, int len, off_t offset);
extern void StorageFileError(const char *what);
extern char *StorageBuffer(int size);
extern double StorageElapsed(instr_time start);

/* results */
extern Datum StorageNumeric(double v, int scale);
extern void StorageJsonNumber(StringInfo buf, const char *key, double v,
							  int scale, bool isnull);
extern void StorageRecord(const char *kind, TimestampTz started, Datum seconds,
						  int64 size_bytes, const char *json);

#endif							/* PGBL_STORAGE_H */
