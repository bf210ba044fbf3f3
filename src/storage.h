/*-------------------------------------------------------------------------
 *
 * storage.h
 *		Storage baseline of the data directory's device: fsync_test() and
 *		io_test(), whose results are kept in pgbench_lab.storage_tests.
 *
 * Other parts read the latest figures through the SQL view
 * pgbench_lab.storage_latest (one row, NULLs when nothing was measured);
 * nothing here is called from C by another part.
 *
 *-------------------------------------------------------------------------
 */
#ifndef PGBL_STORAGE_H
#define PGBL_STORAGE_H

/* Longest test either function accepts, seconds. */
#define PGBL_STORAGE_MAX_SECONDS 600

#endif							/* PGBL_STORAGE_H */
