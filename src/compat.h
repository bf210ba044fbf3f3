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

#endif							/* PGBL_COMPAT_H */
