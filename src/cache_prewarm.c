/*-------------------------------------------------------------------------
 *
 * cache_prewarm.c
 *		autoprewarm_status: would a restart of this server come back warm?
 *
 * A "cold after restart" experiment is fooled when pg_prewarm's autoprewarm
 * is at work: with pg_prewarm in shared_preload_libraries and
 * pg_prewarm.autoprewarm on, its leader worker writes the list of cached
 * blocks to autoprewarm.blocks in the data directory (at shutdown, and every
 * pg_prewarm.autoprewarm_interval) and loads those blocks again right after
 * the next start.  This file answers from what the server itself knows: the
 * live settings (the list is split by the server's own list parser), the
 * values the configuration files hold for the next start (pg_file_settings,
 * which only superusers may read: it is read as the extension's owner, for
 * these two settings only, which pg_monitor may see anyway once applied),
 * pending_restart in pg_settings, and the dump file.  The leader worker
 * itself cannot be seen from SQL: it never connects to a database, so it is
 * not in pg_stat_activity, and its pid lives in pg_prewarm's own memory.
 *
 * The dump file is read here in C rather than with pg_read_file(), which
 * needs superuser or pg_read_server_files: the function is meant for
 * pg_monitor, and it returns only counts and a time, never file contents.
 * The file is one header line "<<n>>" with the number of blocks, then one
 * line "database,tablespace,filenumber,fork,block" per block; the lines are
 * counted to tell how many belong to the current database.  That reads the
 * whole file, at most one short line per shared buffer.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <sys/stat.h>
#include <unistd.h>

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/fd.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/timestamp.h"
#include "utils/varlena.h"

#include "pgbench_lab.h"
#include "cache.h"
#include "secure.h"

#define PGBL_AUTOPREWARM_FILE "autoprewarm.blocks"
#define PGBL_AUTOPREWARM_COLS 11

/* What autoprewarm.blocks says; exists is false when there is none. */
typedef struct PrewarmDump
{
	bool		exists;
	TimestampTz modified;
	int64		blocks;			/* from the header */
	int64		blocks_here;	/* lines of the current database */
} PrewarmDump;

/*
 * Whether a value of shared_preload_libraries names pg_prewarm: an entry
 * whose last path component is pg_prewarm, with or without a file suffix.
 */
static bool
prewarm_listed(const char *value)
{
	List	   *libs = NIL;
	ListCell   *lc;

	if (value == NULL || !SplitDirectoriesString(pstrdup(value), ',', &libs))
		return false;
	foreach(lc, libs)
	{
		const char *lib = lfirst(lc);
		const char *base = strrchr(lib, '/');
		size_t		len = strlen("pg_prewarm");

		base = base ? base + 1 : lib;
		if (strncmp(base, "pg_prewarm", len) == 0 &&
			(base[len] == '\0' || base[len] == '.'))
			return true;
	}
	return false;
}

/* What the configuration files say the next start will use. */
typedef struct NextStart
{
	MemoryContext cxt;
	char	   *preload;		/* NULL: not in the files */
	char	   *autoprewarm;	/* NULL: not in the files */
} NextStart;

/* Runs as the extension's owner (SecureAsOwner): pg_file_settings. */
static void
read_next_start(void *arg)
{
	NextStart  *next = (NextStart *) arg;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	/*
	 * A restart-level change carries the error "setting could not be
	 * applied" until the restart: it is exactly the value the next start
	 * takes, so lines with an error count too.
	 */
	if (SPI_execute("SELECT s.name, s.setting FROM pg_catalog.pg_file_settings s"
					" WHERE s.setting IS NOT NULL AND s.name OPERATOR(pg_catalog.=)"
					" ANY ('{shared_preload_libraries,pg_prewarm.autoprewarm}'::pg_catalog.text[])"
					" ORDER BY s.seqno", true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read pg_file_settings");
	/* the last line of a setting wins, as when the files are read */
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		char	   *name = SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1);
		char	   *value = SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 2);
		char	   *copy = value ? MemoryContextStrdup(next->cxt, value) : NULL;

		if (strcmp(name, "shared_preload_libraries") == 0)
			next->preload = copy;
		else
			next->autoprewarm = copy;
	}
	SPI_finish();
}

/*
 * One of pg_prewarm's settings, or NULL when the server does not know it
 * (pg_prewarm neither preloaded nor loaded in this session, and not set in
 * the configuration).
 */
static const char *
prewarm_setting(const char *name)
{
	return GetConfigOption(name, true, false);
}

/* Whether a change to a setting that decides it awaits a restart. */
static bool
prewarm_pending_restart(void)
{
	bool		isnull;
	bool		pending;

	SPI_connect();
	if (SPI_execute("SELECT pg_catalog.bool_or(s.pending_restart)"
					" FROM pg_catalog.pg_settings s WHERE s.name OPERATOR(pg_catalog.=)"
					" ANY ('{shared_preload_libraries,pg_prewarm.autoprewarm}')",
					true, 1) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "could not read pending_restart from pg_settings");
	pending = DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0],
										 SPI_tuptable->tupdesc, 1, &isnull));
	pending = !isnull && pending;
	SPI_finish();
	return pending;
}

/* Count the dump file's block lines, and those of the current database. */
static void
prewarm_count_lines(FILE *file, PrewarmDump *dump)
{
	char		line[128];
	int64		lines = 0;

	while (fgets(line, sizeof(line), file) != NULL)
	{
		unsigned int dbid;

		if ((lines & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		lines++;
		if (sscanf(line, "%u,", &dbid) == 1 && dbid == MyDatabaseId)
			dump->blocks_here++;
	}
	if (ferror(file))
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not read file \"%s\": %m", PGBL_AUTOPREWARM_FILE)));
}

static PrewarmDump
prewarm_read_dump(void)
{
	PrewarmDump dump = {0};
	struct stat st;
	FILE	   *file;
	char		header[64];
	long long	blocks;

	if (stat(PGBL_AUTOPREWARM_FILE, &st) != 0)
	{
		if (errno != ENOENT)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not stat file \"%s\": %m", PGBL_AUTOPREWARM_FILE)));
		return dump;
	}
	file = AllocateFile(PGBL_AUTOPREWARM_FILE, "r");
	if (file == NULL)
	{
		/* the leader renames a new dump over the old one: gone is fine */
		if (errno == ENOENT)
			return dump;
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not open file \"%s\": %m", PGBL_AUTOPREWARM_FILE)));
	}
	dump.exists = true;
	dump.modified = time_t_to_timestamptz(st.st_mtime);
	if (fgets(header, sizeof(header), file) == NULL ||
		sscanf(header, "<<%lld>>", &blocks) != 1 || blocks < 0)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("autoprewarm dump file \"%s\" has no valid header",
						PGBL_AUTOPREWARM_FILE),
				 errhint("pg_prewarm writes it again at shutdown and at its next interval.")));
	dump.blocks = blocks;
	prewarm_count_lines(file, &dump);
	FreeFile(file);
	return dump;
}

/*
 * The warning: a restart comes back warm when the leader will run at the
 * next start, which the next start's shared_preload_libraries and
 * pg_prewarm.autoprewarm decide (pending: they differ from the live ones).
 */
static char *
prewarm_warning(bool next_warm, bool pending, const PrewarmDump *dump)
{
	if (!next_warm)
		return pending
			? pstrdup("A change to shared_preload_libraries or pg_prewarm.autoprewarm is pending a restart: "
					  "with it, the next start comes back cold (no autoprewarm).")
			: NULL;
	return psprintf("%sA restart comes back warm, not cold: pg_prewarm's autoprewarm writes the cached blocks "
					"to %s at shutdown and loads them again at start%s. "
					"For a cold start set pg_prewarm.autoprewarm = off (a restart applies it), "
					"or use pgbench_lab.make_cold(), which needs no restart.",
					pending ? "A change to shared_preload_libraries or pg_prewarm.autoprewarm is pending a restart, and with it: " : "",
					PGBL_AUTOPREWARM_FILE,
					dump->exists ? psprintf(" (the last dump holds " INT64_FORMAT " blocks, "
											INT64_FORMAT " of this database)",
											dump->blocks, dump->blocks_here) : "");
}

/* An interval of so many seconds. */
static Datum
seconds_interval(int seconds)
{
	return DirectFunctionCall7(make_interval, Int32GetDatum(0), Int32GetDatum(0),
							   Int32GetDatum(0), Int32GetDatum(0), Int32GetDatum(0),
							   Int32GetDatum(0), Float8GetDatum((double) seconds));
}

/*
 * pgbench_lab.autoprewarm_status()
 *	RETURNS TABLE (preloaded bool, autoprewarm bool,
 *				   autoprewarm_interval interval,
 *				   dump_file text, dump_modified timestamptz,
 *				   dump_age interval, dump_blocks bigint,
 *				   dump_blocks_this_database bigint, pending_restart bool,
 *				   restart_warm bool, warning text)
 */
PG_FUNCTION_INFO_V1(pgbench_lab_autoprewarm_status);
Datum
pgbench_lab_autoprewarm_status(PG_FUNCTION_ARGS)
{
	TupleDesc	tupdesc;
	Datum		values[PGBL_AUTOPREWARM_COLS] = {0};
	bool		nulls[PGBL_AUTOPREWARM_COLS] = {0};
	bool		preloaded = prewarm_listed(GetConfigOption("shared_preload_libraries", true, false));
	const char *on = prewarm_setting("pg_prewarm.autoprewarm");
	const char *every = prewarm_setting("pg_prewarm.autoprewarm_interval");
	bool		autoprewarm = false;
	int			interval;
	bool		pending = prewarm_pending_restart();
	PrewarmDump dump = prewarm_read_dump();
	NextStart	next = {CurrentMemoryContext, NULL, NULL};
	bool		next_auto = true;	/* pg_prewarm's default */
	bool		next_warm;
	char	   *warning;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");

	values[0] = BoolGetDatum(preloaded);
	/* the server refuses bad values of both, so a failed parse means unset */
	nulls[1] = on == NULL || !parse_bool(on, &autoprewarm);
	values[1] = BoolGetDatum(autoprewarm);
	nulls[2] = every == NULL || !parse_int(every, &interval, GUC_UNIT_S, NULL);
	if (!nulls[2])
		values[2] = seconds_interval(interval);
	values[3] = CStringGetTextDatum(PGBL_AUTOPREWARM_FILE);
	values[4] = TimestampTzGetDatum(dump.modified);
	values[5] = DirectFunctionCall2(timestamp_mi,
									TimestampTzGetDatum(GetCurrentTimestamp()),
									TimestampTzGetDatum(dump.modified));
	values[6] = Int64GetDatum(dump.blocks);
	values[7] = Int64GetDatum(dump.blocks_here);
	for (int i = 4; i <= 7; i++)
		nulls[i] = !dump.exists;
	/* the next start: the files' values, else the live ones, else defaults */
	SecureAsOwner(read_next_start, &next);
	if (next.autoprewarm != NULL)
		(void) parse_bool(next.autoprewarm, &next_auto);
	else if (!nulls[1])
		next_auto = autoprewarm;
	next_warm = (next.preload != NULL ? prewarm_listed(next.preload) : preloaded) && next_auto;
	pending = pending || next_warm != (preloaded && autoprewarm);
	values[8] = BoolGetDatum(pending);
	values[9] = BoolGetDatum(next_warm);
	warning = prewarm_warning(next_warm, pending, &dump);
	values[10] = warning ? CStringGetTextDatum(warning) : (Datum) 0;
	nulls[10] = warning == NULL;

	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/*
 * pgbench_lab_internal.os_page_size() RETURNS int
 *	The kernel's page size: cache snapshots count OS pages, and this turns
 *	them into a share of a relation's blocks.
 */
PG_FUNCTION_INFO_V1(pgbench_lab_os_page_size);
Datum
pgbench_lab_os_page_size(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT32((int32) sysconf(_SC_PAGESIZE));
}
