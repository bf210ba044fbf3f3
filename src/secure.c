/*-------------------------------------------------------------------------
 *
 * secure.c
 *		The one place where pgbench_lab runs anything with rights other
 *		than the caller's.
 *
 * Names in SQL are resolved through search_path when a statement is
 * parsed, and for relations and types the session's temporary schema comes
 * first unless it is named last.  A statement run with the extension
 * owner's rights in a caller's session would therefore find the caller's
 * temporary domains (whose CHECK runs code) and views; one run in a worker
 * would find what a database or role setting put first in search_path.
 * Every SQL text of the extension names its objects with their schema
 * (test/lint/sqlnames.py checks it), and every one run with other rights
 * also runs under PGBL_SAFE_SEARCH_PATH, set here:
 *
 * - SecureAsOwner() runs a function as the extension's owner, with the
 *   path forced for its length, in a security-restricted operation, and
 *   restores user and path whatever happens;
 * - SecureWorkerSession() forces the path for a worker's whole session;
 * - SecureBecome() is how a worker takes the role it works for.
 *
 * The owner is read from the catalog, not through SQL.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/indexing.h"
#include "catalog/pg_extension.h"
#include "commands/extension.h"
#include "miscadmin.h"
#include "utils/fmgroids.h"
#include "utils/guc.h"
#include "utils/rel.h"

#include "secure.h"

/*
 * The role that owns the extension, and so the result tables.  A clear
 * error when the extension is gone (dropped while a call was under way).
 */
Oid
SecureExtensionOwner(void)
{
	Oid			extoid = get_extension_oid("pgbench_lab", true);
	Oid			owner = InvalidOid;
	Relation	rel;
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tuple;

	if (OidIsValid(extoid))
	{
		rel = table_open(ExtensionRelationId, AccessShareLock);
		ScanKeyInit(&key, Anum_pg_extension_oid, BTEqualStrategyNumber, F_OIDEQ,
					ObjectIdGetDatum(extoid));
		scan = systable_beginscan(rel, ExtensionOidIndexId, true, NULL, 1, &key);
		tuple = systable_getnext(scan);
		if (HeapTupleIsValid(tuple))
			owner = ((Form_pg_extension) GETSTRUCT(tuple))->extowner;
		systable_endscan(scan);
		table_close(rel, AccessShareLock);
	}
	if (!OidIsValid(owner))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("extension \"pgbench_lab\" does not exist in this database"),
				 errhint("It was dropped, perhaps while this call was waiting; "
						 "CREATE EXTENSION pgbench_lab makes it again, without the old results.")));
	return owner;
}

/*
 * Force the safe search_path until SecureSearchPathPop(level), as a SET
 * clause of a function would (an error's abort also restores it).
 */
int
SecureSearchPathPush(void)
{
	int			level = NewGUCNestLevel();

	(void) set_config_option("search_path", PGBL_SAFE_SEARCH_PATH, PGC_USERSET,
							 PGC_S_SESSION, GUC_ACTION_SAVE, true, 0, false);
	return level;
}

void
SecureSearchPathPop(int level)
{
	AtEOXact_GUC(true, level);
}

/*
 * Run fn(arg) as the extension's owner: the result tables are the owner's,
 * and their writers must not be their readers.  The safe search_path is
 * forced, and the operation is security-restricted (no temporary objects,
 * no session state left behind for the caller).
 */
void
SecureAsOwner(SecureFn fn, void *arg)
{
	Oid			owner = SecureExtensionOwner();
	Oid			save_user;
	int			save_ctx;
	int			level;

	GetUserIdAndSecContext(&save_user, &save_ctx);
	SetUserIdAndSecContext(owner, save_ctx | SECURITY_LOCAL_USERID_CHANGE |
						   SECURITY_RESTRICTED_OPERATION);
	level = SecureSearchPathPush();
	PG_TRY();
	{
		fn(arg);
	}
	PG_FINALLY();
	{
		SecureSearchPathPop(level);
		SetUserIdAndSecContext(save_user, save_ctx);
	}
	PG_END_TRY();
}

/*
 * A worker's session: whatever the database's or the role's settings say,
 * its own statements resolve names in pg_catalog (and pg_temp, last).
 */
void
SecureWorkerSession(void)
{
	SetConfigOption("search_path", PGBL_SAFE_SEARCH_PATH, PGC_USERSET, PGC_S_SESSION);
}

/*
 * A worker logged in as the launching session's user becomes the role the
 * session ran as (SET ROLE, or a SECURITY DEFINER function's owner).
 */
void
SecureBecome(Oid role)
{
	if (GetUserId() != role)
		SetUserIdAndSecContext(role, 0);
}
