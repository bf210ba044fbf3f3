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

#include "portability/instr_time.h"
#include "postmaster/bgworker.h"

/* Nanoseconds of an instr_time: a timespec in 15, int64 ns from 16. */
#if PG_VERSION_NUM >= 160000
#define PGBL_INSTR_NS(t) ((uint64) INSTR_TIME_GET_NANOSEC(t))
#else
#define PGBL_INSTR_NS(t) ((uint64) (t).tv_sec * UINT64CONST(1000000000) + (uint64) (t).tv_nsec)
#endif

/*
 * Workers connect as a role.  From 17 a NOLOGIN role can be a worker's
 * login; before that the worker logs in as the session user and switches
 * to the current user (see WorkerConnectAs).
 */
#if PG_VERSION_NUM >= 170000
#define PGBL_BGW_CAN_LOGIN_NOLOGIN true
#define PGBL_BGW_CONNECT_FLAGS BGWORKER_BYPASS_ROLELOGINCHECK
#else
#define PGBL_BGW_CAN_LOGIN_NOLOGIN false
#define PGBL_BGW_CONNECT_FLAGS 0
#endif

/* The view that counts checkpoints moved in 17. */
#if PG_VERSION_NUM >= 170000
#define PGBL_CHECKPOINTS_SQL \
	"SELECT (num_timed + num_requested)::bigint FROM pg_catalog.pg_stat_checkpointer"
#else
#define PGBL_CHECKPOINTS_SQL \
	"SELECT (checkpoints_timed + checkpoints_req)::bigint FROM pg_catalog.pg_stat_bgwriter"
#endif

#include "catalog/pg_namespace.h"
#include "miscadmin.h"
#include "utils/acl.h"

/* USAGE on a schema: per-object-kind functions until 16. */
static inline AclResult
pgbl_schema_usage_aclcheck(Oid nsp)
{
#if PG_VERSION_NUM >= 160000
	return object_aclcheck(NamespaceRelationId, nsp, GetUserId(), ACL_USAGE);
#else
	return pg_namespace_aclcheck(nsp, GetUserId(), ACL_USAGE);
#endif
}
