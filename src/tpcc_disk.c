/*-------------------------------------------------------------------------
 *
 * tpcc_disk.c
 *		Whether the disk can hold what init_tpcc() is about to write:
 *		checked before it creates anything.
 *
 * The limit of 1 000 warehouses is about 100 GB, more than many disks hold,
 * and a data directory that fills up stops the whole server.  As init()'s
 * worker does for pgbench's tables (dataset_disk.c), the estimate is
 * compared with the space statvfs() says is free to an unprivileged process
 * on the file system of the tablespace the tables go in (default_tablespace,
 * else the database's), with the WAL the rows go through added when it is
 * written to the same file system: as much as the data, at most
 * max_wal_size, beyond which checkpoints recycle it.
 *
 * The estimate is measured, not derived: the tables and their keys as
 * init_tpcc() makes them take 105 570 304 bytes per warehouse and 13 139 968
 * for item (PostgreSQL 18, 8 kB pages, 2 warehouses; the same on 15), with
 * 10 % more to spare.
 *
 * pgbench_lab_internal.tpcc_check_disk(warehouses int4, need_bytes int8
 * DEFAULT NULL) RETURNS int8: the bytes it counted (tables, keys and WAL),
 * or an error 53100.  need_bytes replaces the estimate of the tables and
 * keys (for tests: a need no disk here holds).  Only a role that may
 * execute init_tpcc() may ask (TpccCheckCaller), so that the free space it
 * tells is no more public than init_tpcc() is.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <sys/stat.h>
#include <sys/statvfs.h>

#include "access/xlog.h"
#include "catalog/pg_class.h"
#include "catalog/pg_tablespace_d.h"
#include "commands/tablespace.h"
#include "miscadmin.h"
#include "utils/builtins.h"

#include "pgbench_lab.h"
#include "tpcc.h"

PG_FUNCTION_INFO_V1(pgbench_lab_tpcc_check_disk);

/* measured: init_tpcc(2)'s tables and keys (see above) */
#define TPCC_BYTES_PER_WAREHOUSE	105570304.0
#define TPCC_BYTES_ITEM				13139968.0
#define TPCC_DISK_SPARE				0.10

/*
 * Refuse (42501) a caller who may not execute init_tpcc(): its helpers are
 * executable by PUBLIC so that a role granted init_tpcc() can run it, and
 * serve no one else.
 */
void
TpccCheckCaller(const char *what)
{
	if (!DatumGetBool(DirectFunctionCall2(has_function_privilege_name,
										  CStringGetTextDatum("pgbench_lab.init_tpcc(pg_catalog.int4, pg_catalog.text, pg_catalog.text)"),
										  CStringGetTextDatum("EXECUTE"))))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for %s", what),
				 errhint("A role granted EXECUTE on pgbench_lab.init_tpcc() may use it.")));
}

/* "97 GB", as pg_size_pretty() writes it */
static char *
size_text(double bytes)
{
	return text_to_cstring(DatumGetTextPP(DirectFunctionCall1(pg_size_pretty,
															  Int64GetDatum((int64) bytes))));
}

static bool
same_device(const char *a, const char *b)
{
	struct stat sa;
	struct stat sb;

	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev;
}

Datum
pgbench_lab_tpcc_check_disk(PG_FUNCTION_ARGS)
{
	int32		warehouses = PG_GETARG_INT32(0);
	Oid			spc = GetDefaultTablespace(RELPERSISTENCE_PERMANENT, false);
	const char *path;
	char	   *wal_dir = psprintf("%s/pg_wal", DataDir);
	struct statvfs vfs;
	double		need;
	double		wal = 0;
	double		free_bytes;

	TpccCheckCaller("the free disk space of init_tpcc()");
	if (warehouses < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%d warehouses is out of range", warehouses),
				 errhint("Give 1 warehouse or more.")));
	if (PG_ARGISNULL(1))
		need = (TPCC_BYTES_PER_WAREHOUSE * warehouses + TPCC_BYTES_ITEM) * (1.0 + TPCC_DISK_SPARE);
	else
		need = (double) PG_GETARG_INT64(1);

	if (!OidIsValid(spc))
		spc = MyDatabaseTableSpace;
	path = spc == DEFAULTTABLESPACE_OID ? DataDir : psprintf("%s/pg_tblspc/%u", DataDir, spc);
	if (XLogIsNeeded() && same_device(path, wal_dir))
		wal = Min(need, (double) max_wal_size_mb * 1024.0 * 1024.0);
	if (statvfs(path, &vfs) != 0)
	{
		/* the space is unknown: nothing to refuse on */
		elog(DEBUG1, "pgbench_lab.init_tpcc: no free space known for \"%s\": %m", path);
		PG_RETURN_INT64((int64) (need + wal));
	}
	free_bytes = (double) vfs.f_bavail * (double) vfs.f_frsize;
	if (need + wal > free_bytes)
		ereport(ERROR,
				(errcode(ERRCODE_DISK_FULL),
				 errmsg("init_tpcc(%d) needs about %s of disk, and the file system of tablespace \"%s\" has %s free",
						warehouses, size_text(need + wal), get_tablespace_name(spc), size_text(free_bytes)),
				 errdetail("The estimate is the tables and their keys, %d %% more to spare%s. Nothing was created.",
						   (int) (TPCC_DISK_SPARE * 100),
						   wal > 0 ? psprintf(", and %s of WAL on the same file system", size_text(wal)) : ""),
				 errhint("Give fewer warehouses, free space there, or create the tables in a tablespace "
						 "with room (default_tablespace).")));
	PG_RETURN_INT64((int64) (need + wal));
}
