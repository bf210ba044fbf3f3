/*-------------------------------------------------------------------------
 *
 * recommender_sql.c
 *		The recommender's SQL-callable functions, recommend() and
 *		memory_budget(): inputs in, rows out.
 *
 * This file is the glue between the three other pieces: it validates the
 * caller's inputs (sizes through the server's own GUC unit parsing, choices
 * against fixed lists), fills every NULL input from what the server can see
 * (SystemCollect for RAM, CPUs, storage and OS; the databases' sizes from
 * the catalog), runs the pure arithmetic of recommender_math.c, and lets
 * settings_live.c compare each recommendation with the live value and clamp it
 * to the server's bounds.  Explicit inputs describe a machine that may not
 * be this one, so facts of this machine are used only for inputs left NULL,
 * and what holds worker slots here (the live max_worker_processes, the
 * workers running, pgbench_lab's own runs) only when none of ram, cpus,
 * storage and os is given; that keeps explicit calls deterministic.  Storage left NULL is the class
 * io_test() measured last (pgbench_lab.storage_latest) when there is one,
 * else the data directory's rotational flag; the reason column says which.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "catalog/namespace.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "storage/fd.h"
#include "utils/guc.h"

#include "pgbench_lab.h"
#include "recommender.h"
#include "settings_live.h"
#include "system.h"

/* Largest RAM or size accepted: 1 EB, far beyond any machine. */
#define PGBL_MAX_BYTES (1024.0 * 1024 * 1024 * 1024 * 1024 * 1024)
/* Largest CPU count accepted. */
#define PGBL_MAX_CPUS 65536.0
/* PostgreSQL's own ceiling for max_connections (MAX_BACKENDS). */
#define PGBL_MAX_CONNECTIONS 262143
#define PGBL_SIZE_HINT "Give a positive number with a unit, B, kB, MB, GB or TB, for example '12GB'."

PG_FUNCTION_INFO_V1(pgbench_lab_recommend);
PG_FUNCTION_INFO_V1(pgbench_lab_memory_budget);

/*
 * A size argument in bytes, parsed as the server parses memory settings.
 * A unit is required: '12' would mean twelve bytes, which nobody means.
 */
static double
parse_size(const char *arg, text *value)
{
	char	   *str = text_to_cstring(value);
	int			len = strlen(str);
	double		bytes;

	while (len > 0 && isspace((unsigned char) str[len - 1]))
		len--;
	if (len == 0 || !isalpha((unsigned char) str[len - 1]) ||
		!parse_real(str, &bytes, GUC_UNIT_BYTE, NULL) || isnan(bytes))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid size for %s: \"%s\"", arg, str),
				 errhint(PGBL_SIZE_HINT)));
	if (isinf(bytes) || bytes > PGBL_MAX_BYTES)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("%s is out of range: \"%s\"", arg, str),
				 errhint("Sizes up to 1024PB (1048576TB) are accepted.")));
	if (bytes <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must be positive: \"%s\"", arg, str),
				 errhint(PGBL_SIZE_HINT)));
	return bytes;
}

/* A choice among names (case-insensitive); its index. */
static int
parse_choice(const char *arg, text *value, const char *const *names,
			 const char *valid)
{
	char	   *str;

	if (value == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must not be null", arg),
				 errhint("Valid values are %s.", valid)));
	str = text_to_cstring(value);
	for (int i = 0; names[i] != NULL; i++)
		if (pg_strcasecmp(str, names[i]) == 0)
			return i;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unknown %s: \"%s\"", arg, str),
			 errhint("Valid values are %s.", valid)));
	return -1;					/* keep compilers quiet */
}

static double
check_cpus(Datum value)
{
	double		cpus = DatumGetFloat8(DirectFunctionCall1(numeric_float8, value));

	if (isnan(cpus) || cpus <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cpus must be a positive number"),
				 errhint("Give the CPUs PostgreSQL may use, for example 4 or 1.5 for a CPU quota.")));
	if (cpus > PGBL_MAX_CPUS)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("cpus is out of range: %g", cpus),
				 errhint("At most %.0f CPUs are accepted.", PGBL_MAX_CPUS)));
	return cpus;
}

static int
check_connections(const char *arg, int32 value)
{
	if (value <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must be positive: %d", arg, value),
				 errhint("Give the number of client connections, for example 100.")));
	if (value > PGBL_MAX_CONNECTIONS)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("%s is out of range: %d", arg, value),
				 errhint("PostgreSQL accepts at most %d connections.", PGBL_MAX_CONNECTIONS)));
	return value;
}

/* RAM: the argument, else the effective memory limit (cgroups first). */
static double
ram_or_detected(FunctionCallInfo fcinfo, int argno, const SystemFacts *facts)
{
	if (!PG_ARGISNULL(argno))
		return parse_size("ram", PG_GETARG_TEXT_PP(argno));
	if (facts->memory_limit <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("could not detect this machine's memory"),
				 errhint("Pass it explicitly, for example ram => '16GB'.")));
	return facts->memory_limit;
}

/* CPUs: the argument, else the effective count (quota, cpuset, affinity). */
static double
cpus_or_detected(FunctionCallInfo fcinfo, int argno, const SystemFacts *facts)
{
	if (!PG_ARGISNULL(argno))
		return check_cpus(PG_GETARG_DATUM(argno));
	if (facts->cpus_effective <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("could not detect this machine's CPUs"),
				 errhint("Pass them explicitly, for example cpus => 4.")));
	return facts->cpus_effective;
}

/* The OS as the recommender names it; other Unixes behave like Linux. */
static RecoOs
detected_os(const SystemFacts *facts)
{
	if (facts->os != NULL && strcmp(facts->os, "darwin") == 0)
		return RECO_MACOS;
	if (facts->os != NULL && strncmp(facts->os, "windows", 7) == 0)
		return RECO_WINDOWS;
	return RECO_LINUX;
}

/*
 * What io_test() and fsync_test() measured last, from
 * pgbench_lab.storage_latest (looked up now: the storage part installs it
 * after this one): the storage class and its settings into *in when io_test
 * ran (returns true), and the WAL sync method fsync_test's rounds support
 * (pgbench_lab_internal.wal_sync_decision()) into *in when fsync_test ran.  Nothing when this role may not read the results.
 */
static bool
measured_storage(RecommenderInput *in)
{
	MemoryContext caller = CurrentMemoryContext;
	RangeVar   *rv = makeRangeVar("pgbench_lab", "storage_latest", -1);
	Oid			view = RangeVarGetRelid(rv, NoLock, true);
	bool		found = false;

	if (!OidIsValid(view) ||
		pg_class_aclcheck(view, GetUserId(), ACL_SELECT) != ACLCHECK_OK)
		return false;
	SPI_connect();
	if (SPI_execute("SELECT storage_class, random_page_cost::pg_catalog.float8,"
					" effective_io_concurrency,"
					" pg_catalog.to_char(io_measured_at, 'YYYY-MM-DD'),"
					" pg_catalog.round(random_read_iops),"
					" wal_sync_recommended,"
					" pg_catalog.to_char(fsync_measured_at, 'YYYY-MM-DD'),"
					" wal_sync_rule, wal_sync_reason,"
					" knee_reason, knee_depth"
					" FROM pgbench_lab.storage_latest", true, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not read pgbench_lab.storage_latest");
	if (SPI_processed == 1)
	{
		HeapTuple	tup = SPI_tuptable->vals[0];
		TupleDesc	desc = SPI_tuptable->tupdesc;
		char	   *cls = SPI_getvalue(tup, desc, 1);
		char	   *rpc = SPI_getvalue(tup, desc, 2);
		char	   *eio = SPI_getvalue(tup, desc, 3);
		char	   *sync = SPI_getvalue(tup, desc, 6);
		char	   *note;

		for (int i = 0; cls != NULL && RecoStorageNames[i] != NULL && !found; i++)
		{
			if (strcmp(cls, RecoStorageNames[i]) != 0 || rpc == NULL || eio == NULL)
				continue;
			found = true;
			in->storage = (RecoStorage) i;
			in->measured_page_cost = strtod(rpc, NULL);
			in->measured_io_concurrency = atoi(eio);
			if (SPI_getvalue(tup, desc, 11) != NULL)
			{
				in->measured_knee_depth = atoi(SPI_getvalue(tup, desc, 11));
				in->measured_io_note = MemoryContextStrdup(caller, SPI_getvalue(tup, desc, 10));
				in->measured_io_date = MemoryContextStrdup(caller, SPI_getvalue(tup, desc, 4));
			}
			note = psprintf("measured by pgbench_lab.io_test() on %s: %s random 8 kB reads/s -> %s",
							SPI_getvalue(tup, desc, 4),
							SPI_getvalue(tup, desc, 5), cls);
			in->storage_note = MemoryContextStrdup(caller, note);
		}
		if (sync != NULL)
		{
			in->wal_sync_measured = MemoryContextStrdup(caller, sync);
			in->wal_sync_rule = MemoryContextStrdup(caller, SPI_getvalue(tup, desc, 8));
			note = psprintf("pgbench_lab.fsync_test() on %s: %s",
							SPI_getvalue(tup, desc, 7), SPI_getvalue(tup, desc, 9));
			in->wal_sync_note = MemoryContextStrdup(caller, note);
		}
	}
	SPI_finish();
	return found;
}

/*
 * Background workers running now that are neither parallel query's, logical
 * replication's nor pgbench_lab's own: other extensions' (a scheduler, a
 * prewarm leader) hold slots of max_worker_processes too.  Core processes
 * that are not background workers are left out by type.
 */
static int
other_running_workers(void)
{
	int			n = 0;

	SPI_connect();
	if (SPI_execute("SELECT pg_catalog.count(*)::pg_catalog.int4"
					" FROM pg_catalog.pg_stat_activity a"
					" WHERE a.backend_type OPERATOR(pg_catalog.<>) ALL (ARRAY["
					PGBL_NON_WORKER_TYPES ", 'parallel worker']::pg_catalog.text[])"
					" AND a.backend_type OPERATOR(pg_catalog.!~~) 'logical replication %worker'"
					" AND a.backend_type OPERATOR(pg_catalog.!~~) 'pgbench\\_lab %'",
					true, 1) == SPI_OK_SELECT && SPI_processed == 1)
		n = atoi(SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1));
	SPI_finish();
	return n;
}

/*
 * The most clients of an in-server run recorded here (that the caller can
 * see): each of them took a worker slot, so the lab's own need is at least
 * that plus its coordinator.  0 when there is none.
 */
static int
largest_lab_run(void)
{
	int			n = 0;

	SPI_connect();
	if (SPI_execute("SELECT pg_catalog.max(r.clients)::pg_catalog.int4 FROM pgbench_lab.runs r"
					" WHERE r.via OPERATOR(pg_catalog.=) 'spi'", true, 1) == SPI_OK_SELECT &&
		SPI_processed == 1)
	{
		char	   *v = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);

		n = v ? atoi(v) : 0;
	}
	SPI_finish();
	return n;
}

/* The live settings recommend()'s inputs read, in one pg_settings query. */
enum
{
	RL_CONNS, RL_SYNC, RL_WORKERS, RL_LOGICAL, RL_COUNT
};

/* A live setting as an integer, or dflt when it is not there. */
static int
live_int(const SettingsLive *live, int dflt)
{
	return live->found && !isnan(live->value) ? (int) live->value : dflt;
}

/* recommend()'s arguments, each NULL one detected. */
static void
recommend_inputs(FunctionCallInfo fcinfo, const SystemFacts *facts,
				 RecommenderInput *in)
{
	static const char *const names[RL_COUNT] = {
		"max_connections", "wal_sync_method", "max_worker_processes",
		"max_logical_replication_workers"
	};
	SettingsLive live[RL_COUNT];

	SettingsLookup(names, RL_COUNT, live);
	memset(in, 0, sizeof(*in));
	in->ram = ram_or_detected(fcinfo, 0, facts);
	in->hugepage_size = PG_ARGISNULL(0) ? facts->hugepage_size : 0;
	in->cpus = cpus_or_detected(fcinfo, 1, facts);
	in->connections_asked = !PG_ARGISNULL(2);
	in->max_connections = PG_ARGISNULL(2) ? live_int(&live[RL_CONNS], 0) :
		check_connections("max_connections", PG_GETARG_INT32(2));
	in->workload = parse_choice("workload", PG_ARGISNULL(3) ? NULL : PG_GETARG_TEXT_PP(3),
								RecoWorkloadNames, "web, oltp, dw, mixed and desktop");
	if (!PG_ARGISNULL(4))
		in->storage = parse_choice("storage", PG_GETARG_TEXT_PP(4), RecoStorageNames,
								   "hdd, ssd, nvme and san");
	else if (!measured_storage(in))
	{
		in->storage = facts->data_rotational == 1 ? RECO_HDD : RECO_SSD;
		in->storage_from_flags = true;
	}
	in->wal_disk_free = PG_ARGISNULL(4) ? facts->data_free_bytes : -1;
	in->os = PG_ARGISNULL(5) ? detected_os(facts) :
		parse_choice("os", PG_GETARG_TEXT_PP(5), RecoOsNames, "linux, windows and macos");
	in->default_io_concurrency = PGBL_DEFAULT_IO_CONCURRENCY;
	in->default_maint_io_concurrency = PGBL_DEFAULT_MAINT_IO_CONCURRENCY;
	/* the WAL sync method only for this server's own disk and OS */
	if (PG_ARGISNULL(4) && PG_ARGISNULL(5))
		in->wal_sync_current = live[RL_SYNC].found ? live[RL_SYNC].setting : NULL;
	else
		in->wal_sync_measured = NULL;
	/*
	 * ram, cpus, storage or os given describe another machine, whose worker
	 * slots hold nothing of this server's
	 */
	in->this_server = PG_ARGISNULL(0) && PG_ARGISNULL(1) &&
		PG_ARGISNULL(4) && PG_ARGISNULL(5);
	if (in->this_server)
	{
		in->live_worker_processes = live_int(&live[RL_WORKERS], 0);
		in->logical_workers = live_int(&live[RL_LOGICAL], -1);
		in->other_workers = other_running_workers();
		in->lab_clients = largest_lab_run();
	}
	in->data_size = PG_ARGISNULL(6) ? SettingsDataSize() :
		parse_size("data_size", PG_GETARG_TEXT_PP(6));
	in->os_reserve = PG_ARGISNULL(7) ? -1 : parse_size("os_reserve", PG_GETARG_TEXT_PP(7));
	if (in->os_reserve >= in->ram)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("os_reserve must be less than ram"),
				 errhint("os_reserve is the memory kept for the OS and other programs, for example '2GB' of '12GB'.")));
	in->has_lz4 = facts->have_lz4;
	in->has_zstd = facts->have_zstd;
}

/* One output row of recommend(). */
static void
recommend_row(ReturnSetInfo *rsinfo, RecoSetting *s, const SettingsLive *live,
			  const SystemFacts *facts)
{
	Datum		values[8];
	bool		nulls[8] = {0};
	bool		within = SettingsClamp(live, s);
	bool		changes = SettingsDiffers(live, s);
	const char *current = live->found ? live->current : NULL;
	const char *context = live->found ? live->context : NULL;

	if (!live->found && strcmp(s->name, "vm.nr_hugepages") == 0)
	{
		current = facts->hugepages_total >= 0 ?
			psprintf("%.0f", facts->hugepages_total) : NULL;
		changes = facts->hugepages_total < s->value;
		context = "sysctl";
	}
	values[0] = CStringGetTextDatum(s->name);
	nulls[1] = current == NULL;
	if (current)
		values[1] = CStringGetTextDatum(current);
	values[2] = CStringGetTextDatum(RecommenderFormatValue(s->unit, s->value, s->text));
	values[3] = BoolGetDatum(changes);
	nulls[4] = context == NULL;
	if (context)
		values[4] = CStringGetTextDatum(context);
	values[5] = CStringGetTextDatum(s->formula);
	values[6] = CStringGetTextDatum(s->reason);
	values[7] = BoolGetDatum(within);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

/*
 * pgbench_lab.recommend(ram text, cpus numeric, max_connections int,
 *		workload text, storage text, os text, data_size text, os_reserve text)
 * RETURNS TABLE (name, current, recommended, changes, context, formula,
 *		reason, within_limits)
 */
Datum
pgbench_lab_recommend(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	SystemFacts facts;
	RecommenderInput in;
	RecommenderResult *res = palloc0(sizeof(RecommenderResult));
	const char *names[PGBL_RECO_MAX_SETTINGS];
	SettingsLive live[PGBL_RECO_MAX_SETTINGS];

	InitMaterializedSRF(fcinfo, 0);
	SystemCollect(&facts);
	recommend_inputs(fcinfo, &facts, &in);
	RecommenderCompute(&in, res);

	for (int i = 0; i < res->count; i++)
		names[i] = res->settings[i].name;
	SettingsLookup(names, res->count, live);
	for (int i = 0; i < res->count; i++)
	{
		CHECK_FOR_INTERRUPTS();
		recommend_row(rsinfo, &res->settings[i], &live[i], &facts);
	}
	return (Datum) 0;
}

/* A live setting in base units, or the size argument when it is given. */
static double
size_or_live(FunctionCallInfo fcinfo, int argno, const char *arg,
			 const SettingsLive *live)
{
	if (!PG_ARGISNULL(argno))
		return parse_size(arg, PG_GETARG_TEXT_PP(argno));
	return live->value;
}

/*
 * Private memory of one process from /proc/<pid>/smaps: Private_Clean and
 * Private_Dirty of its private mappings (perms "...p"), so that the shared
 * memory segment and pages shared with other processes are left out even
 * where this process alone has touched them.  Negative when unreadable.
 */
static double
smaps_private(const char *path)
{
	FILE	   *f = AllocateFile(path, "r");
	char		line[512];
	bool		private_map = false;
	double		kb = 0;

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
	{
		char		range[128];
		char		perms[8];
		double		v;

		if (sscanf(line, "%127s %7s", range, perms) == 2 &&
			strchr(range, '-') != NULL && isxdigit((unsigned char) range[0]) &&
			strlen(perms) == 4)
			private_map = perms[3] == 'p';
		else if (private_map &&
				 (sscanf(line, "Private_Clean: %lf kB", &v) == 1 ||
				  sscanf(line, "Private_Dirty: %lf kB", &v) == 1))
			kb += v;
	}
	FreeFile(f);
	return kb * 1024.0;
}

/*
 * A backend's private memory on this server: an idle client backend's
 * (the newest), else this backend's own, else the planning estimate; the
 * source says which.
 */
static void
measure_backend_memory(RecoBudgetInput *in)
{
	MemoryContext caller = CurrentMemoryContext;
	char	   *pid = NULL;
	double		bytes = -1;

	SPI_connect();
	if (SPI_execute("SELECT a.pid FROM pg_catalog.pg_stat_activity a"
					" WHERE a.backend_type OPERATOR(pg_catalog.=) 'client backend'"
					" AND a.state OPERATOR(pg_catalog.=) 'idle'"
					" AND a.pid OPERATOR(pg_catalog.<>) pg_catalog.pg_backend_pid()"
					" ORDER BY a.backend_start DESC LIMIT 1", true, 1) == SPI_OK_SELECT &&
		SPI_processed == 1)
		pid = MemoryContextStrdup(caller,
								  SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1));
	SPI_finish();
	if (pid != NULL)
		bytes = smaps_private(psprintf("/proc/%s/smaps", pid));
	if (bytes > 0)
	{
		in->backend_memory = bytes;
		in->backend_memory_source = psprintf("measured on idle backend %s (private memory in /proc/%s/smaps)",
											 pid, pid);
		return;
	}
	bytes = smaps_private("/proc/self/smaps");
	if (bytes > 0)
	{
		in->backend_memory = bytes;
		in->backend_memory_source = pstrdup("measured on this backend (private memory in /proc/self/smaps; no idle backend to read)");
		return;
	}
	in->backend_memory = PGBL_BACKEND_OVERHEAD;
	in->backend_memory_source = pstrdup("estimated: /proc/<pid>/smaps could not be read here");
}

enum
{
	LB_CONNS, LB_WORK_MEM, LB_SB, LB_MAINT, LB_ECS, LB_AV_WORKERS,
	LB_AV_MEM, LB_HASH_MEM, LB_PER_GATHER, LB_SHM, LB_PARALLEL,
	LB_WAL_BUFFERS, LB_COUNT
};

/* An optional argument: false when absent (an older declaration) or NULL. */
#define ARG_GIVEN(n) (PG_NARGS() > (n) && !PG_ARGISNULL(n))

/* A count argument of memory_budget(), or the live value. */
static int
count_or_live(FunctionCallInfo fcinfo, int argno, const char *arg,
			  const SettingsLive *live)
{
	int32		v;

	if (!ARG_GIVEN(argno))
		return (int) live->value;
	v = PG_GETARG_INT32(argno);
	if (v < 0 || v > 262143)
		ereport(ERROR,
				(errcode(v < 0 ? ERRCODE_INVALID_PARAMETER_VALUE : ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("%s must be between 0 and 262143: %d", arg, v),
				 errhint("Give the setting as postgresql.conf would, for example 2.")));
	return v;
}

/* memory_budget()'s arguments, each NULL one taken from the live server. */
static void
budget_inputs(FunctionCallInfo fcinfo, const SystemFacts *facts,
			  RecoBudgetInput *in)
{
	static const char *const names[LB_COUNT] = {
		"max_connections", "work_mem", "shared_buffers", "maintenance_work_mem",
		"effective_cache_size", "autovacuum_max_workers", "autovacuum_work_mem",
		"hash_mem_multiplier", "max_parallel_workers_per_gather",
		"shared_memory_size", "max_parallel_workers", "wal_buffers"
	};
	SettingsLive live[LB_COUNT];

	SettingsLookup(names, LB_COUNT, live);
	in->ram = ram_or_detected(fcinfo, 0, facts);
	in->max_connections = PG_ARGISNULL(1) ? (int) live[LB_CONNS].value :
		check_connections("max_connections", PG_GETARG_INT32(1));
	in->work_mem = size_or_live(fcinfo, 2, "work_mem", &live[LB_WORK_MEM]);
	in->shared_buffers = size_or_live(fcinfo, 3, "shared_buffers", &live[LB_SB]);
	in->maintenance_work_mem = size_or_live(fcinfo, 4, "maintenance_work_mem",
											&live[LB_MAINT]);
	in->effective_cache_size = size_or_live(fcinfo, 5, "effective_cache_size",
											&live[LB_ECS]);
	in->autovacuum_max_workers = PG_ARGISNULL(6) ? (int) live[LB_AV_WORKERS].value :
		check_connections("autovacuum_max_workers", PG_GETARG_INT32(6));
	/* autovacuum_work_mem -1 means maintenance_work_mem; the budget knows */
	in->autovacuum_work_mem = ARG_GIVEN(8) ?
		parse_size("autovacuum_work_mem", PG_GETARG_TEXT_PP(8)) :
		live[LB_AV_MEM].value;
	if (ARG_GIVEN(9))
	{
		in->hash_mem_multiplier = DatumGetFloat8(DirectFunctionCall1(numeric_float8,
																	 PG_GETARG_DATUM(9)));
		if (isnan(in->hash_mem_multiplier) || in->hash_mem_multiplier < 1 ||
			in->hash_mem_multiplier > 1000)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("hash_mem_multiplier must be between 1 and 1000"),
					 errhint("Give the setting as postgresql.conf would, for example 2.")));
	}
	else
		in->hash_mem_multiplier = live[LB_HASH_MEM].value;
	in->parallel_per_gather = count_or_live(fcinfo, 10, "max_parallel_workers_per_gather",
											&live[LB_PER_GATHER]);
	in->max_parallel_workers = count_or_live(fcinfo, 11, "max_parallel_workers",
											 &live[LB_PARALLEL]);
	/* the live wal_buffers fits only the live shared_buffers; else -1's */
	in->wal_buffers = ARG_GIVEN(12) ?
		parse_size("wal_buffers", PG_GETARG_TEXT_PP(12)) :
		PG_ARGISNULL(3) ? live[LB_WAL_BUFFERS].value : -1;
	/* the live segment's size fits only the live shared_buffers */
	in->shared_memory = PG_ARGISNULL(1) && PG_ARGISNULL(3) && !ARG_GIVEN(12) ?
		live[LB_SHM].value : -1;
	/* 0.1's declaration, still callable until ALTER EXTENSION UPDATE, has 7 */
	if (PG_NARGS() <= 7 || PG_ARGISNULL(7))
		measure_backend_memory(in);
	else
	{
		in->backend_memory = parse_size("backend_memory", PG_GETARG_TEXT_PP(7));
		in->backend_memory_source = pstrdup("as given");
	}
}

static Datum
bytes_numeric(double v)
{
	return DirectFunctionCall1(float8_numeric, Float8GetDatum(rint(v)));
}

/*
 * pgbench_lab.memory_budget(ram text, max_connections int, work_mem text,
 *		shared_buffers text, maintenance_work_mem text,
 *		effective_cache_size text, autovacuum_max_workers int,
 *		backend_memory text, autovacuum_work_mem text,
 *		hash_mem_multiplier numeric, max_parallel_workers_per_gather int,
 *		max_parallel_workers int, wal_buffers text)
 * (0.1's declaration has the first seven, 0.2's the first eight)
 * RETURNS TABLE (component, bytes, size, ram_share, status, note)
 */
Datum
pgbench_lab_memory_budget(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	SystemFacts facts;
	RecoBudgetInput in;
	RecoBudgetRow rows[PGBL_RECO_BUDGET_ROWS];
	int			n;

	InitMaterializedSRF(fcinfo, 0);
	SystemCollect(&facts);
	budget_inputs(fcinfo, &facts, &in);
	n = RecommenderBudget(&in, rows);
	for (int i = 0; i < n; i++)
	{
		Datum		values[6];
		bool		nulls[6] = {0};

		values[0] = CStringGetTextDatum(rows[i].component);
		values[1] = bytes_numeric(rows[i].bytes);
		values[2] = CStringGetTextDatum(RecommenderPrettyBytes(rows[i].bytes));
		values[3] = DirectFunctionCall1(float8_numeric,
										Float8GetDatum(rint(rows[i].bytes / in.ram * 1000) / 10));
		nulls[4] = rows[i].status == NULL;
		if (rows[i].status)
			values[4] = CStringGetTextDatum(rows[i].status);
		values[5] = CStringGetTextDatum(rows[i].note);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
