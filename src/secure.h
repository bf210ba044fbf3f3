/*-------------------------------------------------------------------------
 *
 * secure.h
 *		Running SQL with rights other than the caller's, safely: as the
 *		extension's owner, or in a worker, always under a search_path that
 *		no caller, database owner or role setting chose.
 *
 *-------------------------------------------------------------------------
 */
#ifndef PGBL_SECURE_H
#define PGBL_SECURE_H

#include "postgres.h"

/*
 * pg_temp named last: otherwise it is searched first for relations and
 * types, and a temporary domain or view would capture a name.
 */
#define PGBL_SAFE_SEARCH_PATH	"pg_catalog, pg_temp"

typedef void (*SecureFn) (void *arg);

extern Oid	SecureExtensionOwner(void);
extern int	SecureSearchPathPush(void);
extern void SecureSearchPathPop(int level);
extern void SecureAsOwner(SecureFn fn, void *arg);
extern void SecureWorkerSession(void);
extern void SecureBecome(Oid role);

#endif							/* PGBL_SECURE_H */
