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
 * Workers connect as a role.  From 17 a NOLOGIN role can be a worker's
 * login; before that the worker logs in as the session user and switches
 * to the current user.  (Use with postmaster/bgworker.h included.)
 */
#if PG_VERSION_NUM >= 170000
#define PGBL_BGW_CAN_LOGIN_NOLOGIN true
#define PGBL_BGW_CONNECT_FLAGS BGWORKER_BYPASS_ROLELOGINCHECK
#else
#define PGBL_BGW_CAN_LOGIN_NOLOGIN false
#define PGBL_BGW_CONNECT_FLAGS 0
#endif

/* Privilege check on a schema (utils/acl.h): generic from 16. */
#if PG_VERSION_NUM >= 160000
#define PGBL_NAMESPACE_ACLCHECK(nsp, role, mode) \
	object_aclcheck(NamespaceRelationId, (nsp), (role), (mode))
#else
#define PGBL_NAMESPACE_ACLCHECK(nsp, role, mode) \
	pg_namespace_aclcheck((nsp), (role), (mode))
#endif

#endif							/* PGBL_COMPAT_H */
