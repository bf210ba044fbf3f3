/*-------------------------------------------------------------------------
 *
 * compat.h
 *		Every difference between the PostgreSQL majors pgbench_lab supports
 *		(15 to 18) lives here, so that function bodies carry no #if blocks.
 *
 *-------------------------------------------------------------------------
 */
#ifndef PGBL_COMPAT_H
#define PGBL_COMPAT_H

#include "postgres.h"

#if PG_VERSION_NUM < 150000
#error "pgbench_lab needs PostgreSQL 15 or later"
#endif

/* PG18 lets a module name itself and its version in the magic block. */
#if PG_VERSION_NUM >= 180000
#define PGBL_MODULE_MAGIC PG_MODULE_MAGIC_EXT(.name = "pgbench_lab", .version = "0.1")
#else
#define PGBL_MODULE_MAGIC PG_MODULE_MAGIC
#endif

/*
 * Whether the server opens WAL with O_DIRECT, given whether its
 * wal_sync_method is one of the open_* methods.  PG16+ does so only when
 * io_direct includes wal (any method); PG15 for the open_* methods when
 * wal_level is minimal.  Callers include access/xlog.h and storage/fd.h.
 */
#if PG_VERSION_NUM >= 160000
#define PGBL_WAL_USES_O_DIRECT(open_method) \
	((void) (open_method), (io_direct_flags & IO_DIRECT_WAL) != 0)
#else
#define PGBL_WAL_USES_O_DIRECT(open_method) \
	((open_method) && !XLogIsNeeded())
#endif

#endif							/* PGBL_COMPAT_H */
