/*-------------------------------------------------------------------------
 *
 * runner.c
 *		Starting a run: start(), the checks that run() shares with it, the
 *		run's shared memory and its coordinator's launch; and the reaping of
 *		runs whose coordinator is gone.
 *
 * start() validates everything (workload, limits, settings, the caller's
 * privileges on the tables) before anything starts, creates the run's
 * dynamic shared memory, launches the coordinator worker and waits only
 * until the coordinator has every client ready and the run row committed.
 * Then the run belongs to the coordinator and goes on without the caller.
 *
 * run() and wait(), which then wait for the run without holding a
 * snapshot, cancel() and the live counters are in runner_wait.c.  Any
 * session may find a running run's shared memory again through the handle
 * kept in its row (RunnerAttach).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>
#include <unistd.h>
#include <sys/resource.h>

#include "access/htup_details.h"
#include "access/xact.h"
#include "catalog/pg_type.h"
#include "common/int.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "storage/proc.h"
#include "storage/procarray.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"
#include "utils/timestamp.h"

#include "client_libpq.h"
#include "pgbench_lab.h"
#include "pgstat.h"
#include "runner.h"
#include "script_area.h"
#include "secure.h"

PG_FUNCTION_INFO_V1(pgbench_lab_start);

int			pgbl_max_clients = PGBL_MAX_CLIENTS_DEFAULT;
int			pgbl_max_duration = 3600;
bool		pgbl_instrument = true;

void
RunnerInit(void)
{
	bool		clients_pending = LimitsPending(PGBL_GUC_PREFIX ".max_clients");
	bool		duration_pending = LimitsPending(PGBL_GUC_PREFIX ".max_duration");

	DefineCustomIntVariable(PGBL_GUC_PREFIX ".max_clients",
							"Most clients one run may have.",
							"An in-server client is a background worker (and the free worker "
							"slots bound a run too); libpq clients are connections that a run's "
							"threads share.  Only superusers may change this.",
							&pgbl_max_clients, PGBL_MAX_CLIENTS_DEFAULT, 1, PGBL_MAX_CLIENTS_MAX,
							PGC_SUSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable(PGBL_GUC_PREFIX ".max_duration",
							"Longest run allowed.",
							"Only superusers may raise this.",
							&pgbl_max_duration, 3600, 1, INT_MAX,
							PGC_SUSET, GUC_UNIT_S, NULL, NULL, NULL);
	LimitsDefined(PGBL_GUC_PREFIX ".max_clients", clients_pending);
	LimitsDefined(PGBL_GUC_PREFIX ".max_duration", duration_pending);
	DefineCustomBoolVariable(PGBL_GUC_PREFIX ".instrument",
							 "Whether run clients time each transaction and count its buffers.",
							 "Off leaves only transaction counts: for measuring what the "
							 "instrumentation costs (as a run setting).",
							 &pgbl_instrument, true,
							 PGC_USERSET, 0, NULL, NULL, NULL);
}

/*
 * Map a run's shared memory (or find this backend's mapping of it).  NULL if
 * the segment is gone or is not that run's: handles are reused.
 */
RunShared *
RunnerAttach(dsm_handle handle, int64 run_id, dsm_segment **segp)
{
	dsm_segment *seg = dsm_find_mapping(handle);
	bool		mine = (seg != NULL);
	RunShared  *run;

	if (seg == NULL)
		seg = dsm_attach(handle);
	if (seg == NULL)
		return NULL;
	run = (RunShared *) dsm_segment_address(seg);
	if (dsm_segment_map_length(seg) < offsetof(RunShared, client) ||
		run->magic != PGBL_RUN_MAGIC || run->handle != handle ||
		(run_id >= 0 && run->run_id != run_id))
	{
		if (!mine)
			dsm_detach(seg);
		return NULL;
	}
	*segp = seg;
	return run;
}

static void
refuse(const char *msg, const char *hint)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("%s", msg),
			 hint ? errhint("%s", hint) : 0));
}

/*
 * Interval to milliseconds, refusing what cannot be a run's length.  0 ms
 * means "no duration" to the coordinator, so a positive interval under 1 ms
 * (which would run until max_duration) is refused too.  The milliseconds
 * come from the interval's whole microseconds, not from doubles.
 */
static int64
duration_ms(Interval *iv)
{
	double		secs = (double) iv->time / USECS_PER_SEC +
		(double) iv->day * SECS_PER_DAY + (double) iv->month * DAYS_PER_MONTH * SECS_PER_DAY;
	int64		days_us;
	int64		months_us;
	int64		us;

	if (!isfinite(secs) || secs <= 0)
		refuse("duration must be positive", "Give an interval such as '30 s' or '5 min'.");
	if (secs > pgbl_max_duration)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("duration %.0f s is above the limit of %d s", secs, pgbl_max_duration),
				 errhint("A superuser can raise pgbench_lab.max_duration.")));
	if (pg_mul_s64_overflow((int64) iv->day, USECS_PER_DAY, &days_us) ||
		pg_mul_s64_overflow((int64) iv->month, DAYS_PER_MONTH * USECS_PER_DAY, &months_us) ||
		pg_add_s64_overflow(iv->time, days_us, &us) ||
		pg_add_s64_overflow(us, months_us, &us))
		us = (int64) (secs * USECS_PER_SEC);	/* parts that cancel out: rounding is fine */
	if (us < 1000)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("duration %.3f ms is shorter than 1 ms", (double) us / 1000.0),
				 errhint("A run's duration is counted in whole milliseconds: give at least '1 ms', "
						 "or transactions => N for a run of a number of transactions.")));
	return us / 1000;
}

/* A setting's value as text: a JSON string, number or boolean. */
static char *
setting_value(const char *name, JsonbValue *v)
{
	char	   *text = PgblJsonScalarText(v);

	if (text != NULL)
		return text;
	if (v->type == jbvNull)
		refuse(psprintf("setting \"%s\" has no value", name),
			   "Give each setting a string, number or boolean value.");
	refuse(psprintf("setting \"%s\" must be a string, number or boolean", name), NULL);
	pg_unreachable();
}

/*
 * Check one setting as the clients will apply it (the parameter exists, the
 * value is valid, a session of the caller may set it); changes nothing.
 * The experiments check every set of theirs with it too.
 */
void
RunnerCheckSetting(const char *name, const char *value)
{
	/*
	 * TPC-C kit's scripts read tpcc.think_times and tpcc.terminals, settings
	 * no module defines: taken as SET takes them (placeholders); any other
	 * unknown name is refused, so that a misspelt setting does not go
	 * unapplied unnoticed.
	 */
	if (GetConfigOption(name, true, false) == NULL && strcmp(name, "tpcc.think_times") != 0 &&
		strcmp(name, "tpcc.terminals") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("unrecognized configuration parameter \"%s\"", name),
				 errhint("pg_settings lists the parameters a session can set.")));
	(void) set_config_option(name, value, superuser() ? PGC_SUSET : PGC_USERSET,
							 PGC_S_SESSION, GUC_ACTION_SET, false, ERROR, false);
}

/*
 * Check the worker settings (name and value, as the clients will apply them)
 * and serialise them as name\0value\0..., and as the JSON the run records.
 */
static void
parse_settings(Jsonb *settings, RunShared *run)
{
	char	   *out = run->settings;
	Size		used = 0;
	char	   *json;
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;

	if (!JB_ROOT_IS_OBJECT(settings))
		refuse("settings must be a JSON object of setting names and values",
			   "For example '{\"synchronous_commit\": \"off\"}'.");
	it = JsonbIteratorInit(&settings->root);
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		char	   *name;
		char	   *value;
		Size		nlen;
		Size		vlen;

		if (tok != WJB_KEY)
			continue;
		name = pnstrdup(v.val.string.val, v.val.string.len);
		if (JsonbIteratorNext(&it, &v, true) != WJB_VALUE)
			elog(ERROR, "settings: a key without a value");
		value = setting_value(name, &v);
		RunnerCheckSetting(name, value);
		nlen = strlen(name) + 1;
		vlen = strlen(value) + 1;
		if (used + nlen + vlen > PGBL_SETTINGS_MAX)
			refuse("settings are too long",
				   psprintf("Names and values together may take %d bytes.", PGBL_SETTINGS_MAX - 1));
		memcpy(out + used, name, nlen);
		used += nlen;
		memcpy(out + used, value, vlen);
		used += vlen;
		run->nsettings++;
	}
	/* what the run records: the JSON, whose escapes make it longer */
	json = JsonbToCString(NULL, &settings->root, VARSIZE(settings));
	if (strlen(json) >= PGBL_SETTINGS_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("settings are too long: %zu bytes as JSON, the limit is %d",
						strlen(json), PGBL_SETTINGS_MAX - 1),
				 errhint("Quotes, backslashes and control characters take two or more bytes each in JSON.")));
	strlcpy(run->settings_json, json, PGBL_SETTINGS_MAX);
}

/*
 * rate, latency_limit and sample_rate (pgbench -R, -L and
 * --sampling-rate): the rate is the whole run's, shared by its clients.
 */
static void
read_rate_args(const RunSpec *spec, RunShared *p)
{
	if (!RunSpecIsNull(spec, RUN_OPT_RATE))
	{
		p->rate = DatumGetFloat8(RunSpecDatum(spec, RUN_OPT_RATE));
		/* written so that NaN fails too */
		if (!(p->rate > 0 && p->rate <= PGBL_RATE_MAX))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("rate must be above 0 and at most %.0f transactions per second",
							PGBL_RATE_MAX),
					 errhint("Valid rates are above 0 and at most %.0f: the transactions per second "
							 "of the whole run, shared by its clients (as pgbench -R), or NULL for "
							 "no rate.", PGBL_RATE_MAX)));
	}
	if (!RunSpecIsNull(spec, RUN_OPT_LATENCY_LIMIT))
	{
		Interval   *iv = DatumGetIntervalP(RunSpecDatum(spec, RUN_OPT_LATENCY_LIMIT));
		double		secs = (double) iv->time / USECS_PER_SEC + (double) iv->day * SECS_PER_DAY +
			(double) iv->month * DAYS_PER_MONTH * SECS_PER_DAY;

		if (!(secs > 0 && secs <= PGBL_LATENCY_LIMIT_MAX_S))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("latency_limit must be above 0 and at most 1 day"),
					 errhint("Valid limits are intervals above 0 and at most 1 day, such as "
							 "'10 ms' (as pgbench -L), or NULL for no limit.")));
		p->latency_limit_ns = (int64) (secs * 1e9);
	}
	if (!RunSpecIsNull(spec, RUN_OPT_SAMPLE_RATE))
	{
		p->sample_rate = DatumGetFloat8(RunSpecDatum(spec, RUN_OPT_SAMPLE_RATE));
		if (!(p->sample_rate > 0 && p->sample_rate <= 1))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("sample_rate must be above 0 and at most 1"),
					 errhint("It is the share of transactions kept in pgbench_lab.run_samples "
							 "(pgbench --sampling-rate, which refuses 0 too): 0.01 keeps one in a "
							 "hundred, 1 every one; NULL keeps none.")));
	}
}

/*
 * threads (pgbench -j): the workers of a libpq run, each driving its share
 * of the clients' connections; by default as many as the machine's CPUs,
 * never more than the clients.
 */
static void
read_threads(const RunSpec *spec, RunShared *p)
{
	int			cpus = (int) sysconf(_SC_NPROCESSORS_ONLN);

	p->threads = Min(Max(cpus, 1), p->clients);
	if (RunSpecIsNull(spec, RUN_OPT_THREADS))
		return;
	if (p->via == RUN_VIA_SPI)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("threads needs via libpq or libpq-connect"),
				 errhint("In-server runs (via spi) have one worker per client; leave threads NULL.")));
	p->threads = DatumGetInt32(RunSpecDatum(spec, RUN_OPT_THREADS));
	if (p->threads < 1 || p->threads > p->clients)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("threads must be from 1 to the clients (%d), not %d", p->clients, p->threads),
				 errhint("Each thread is a worker driving its share of the clients' connections, "
						 "as pgbench -j; NULL gives as many as the CPUs, at most the clients.")));
}

/*
 * query_mode (pgbench -M): how a script's statements go to the server.
 * NULL is prepared, as runs were made before the option came.
 */
static void
read_query_mode(const RunSpec *spec, RunShared *p)
{
	static const char *const names[] = {"prepared", "simple", "extended"};
	char	   *mode;

	p->query_mode = RUN_QUERY_PREPARED;
	if (RunSpecIsNull(spec, RUN_OPT_QUERY_MODE))
		return;
	mode = TextDatumGetCString(RunSpecDatum(spec, RUN_OPT_QUERY_MODE));
	for (int m = 0; m < lengthof(names); m++)
		if (strcmp(mode, names[m]) == 0)
		{
			p->query_mode = (RunQueryMode) m;
			p->query_mode_given = true;
			return;
		}
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unknown query_mode \"%s\"", mode),
			 errhint("Valid values are simple, extended and prepared (pgbench -M), "
					 "or NULL for prepared statements.")));
}

/*
 * A libpq worker holds a socket per client of its range at once: refuse,
 * before anything starts, a run whose workers would run out of file
 * descriptors (the workers inherit this server's limit), keeping a margin
 * for what the process itself has open.
 */
static void
check_descriptors(const RunShared *p)
{
	struct rlimit rl;
	int			per_worker;

	if (p->via == RUN_VIA_SPI || getrlimit(RLIMIT_NOFILE, &rl) != 0 ||
		rl.rlim_cur == RLIM_INFINITY)
		return;
	per_worker = (p->clients + p->threads - 1) / p->threads;
	if ((rlim_t) per_worker + PGBL_FD_RESERVE > rl.rlim_cur)
		ereport(ERROR,
				(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
				 errmsg("%d connections per worker is above what its open-file limit allows",
						per_worker),
				 errdetail("Each libpq worker holds one socket per client of its share; the server's "
						   "processes may open %lu files, %d of them kept for the process itself.",
						   (unsigned long) rl.rlim_cur, PGBL_FD_RESERVE),
				 errhint("Give more threads (each drives clients / threads connections), or raise "
						 "the open-file limit of the server (ulimit -n) and restart it.")));
}

/*
 * A duration given beside transactions: not NULL, and not the default
 * that a call by SQL fills in (10 s, which stands for no duration when
 * transactions is given).
 */
static bool
duration_given(const RunSpec *spec)
{
	const char *dflt = RunOptions[RUN_OPT_DURATION].default_text;

	if (RunSpecIsNull(spec, RUN_OPT_DURATION) || !spec->given[RUN_OPT_DURATION])
		return false;
	return dflt == NULL ||
		!DatumGetBool(DirectFunctionCall2(interval_eq, RunSpecDatum(spec, RUN_OPT_DURATION),
										  DirectFunctionCall3(interval_in, CStringGetDatum(dflt),
															  ObjectIdGetDatum(InvalidOid),
															  Int32GetDatum(-1))));
}

static bool setting_given(const RunShared *p, const char *name);

/* Validate a run's options into *p. */
static void
read_args(const RunSpec *spec, RunShared *p)
{
	/* what runs comes first: a NULL workload with no scripts says nothing */
	if (RunSpecIsNull(spec, RUN_OPT_WORKLOAD) &&
		RunSpecIsNull(spec, RUN_OPT_SCRIPT) && RunSpecIsNull(spec, RUN_OPT_SCRIPTS))
		ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
						errmsg("workload must not be NULL"),
						errhint("Valid workloads are tpcb-like, simple-update, select-only and tpcc; "
								"or give pgbench scripts with script => or scripts =>.")));
	LimitsCheck();
	if (RunSpecIsNull(spec, RUN_OPT_CLIENTS) || DatumGetInt32(RunSpecDatum(spec, RUN_OPT_CLIENTS)) < 1)
		refuse("clients must be at least 1", NULL);
	p->clients = DatumGetInt32(RunSpecDatum(spec, RUN_OPT_CLIENTS));
	if (p->clients > pgbl_max_clients)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%d clients is above the limit of %d", p->clients, pgbl_max_clients),
				 errhint("A superuser can raise pgbench_lab.max_clients.")));
	if (!RunSpecIsNull(spec, RUN_OPT_TRANSACTIONS))
	{
		p->transactions = DatumGetInt64(RunSpecDatum(spec, RUN_OPT_TRANSACTIONS));
		if (p->transactions < 1)
			refuse("transactions must be at least 1",
				   "It counts transactions per client, as pgbench -t does.");
		if (duration_given(spec))
			refuse("give transactions or duration, not both",
				   "A run ends after a number of transactions per client (pgbench -t) or after a "
				   "duration (pgbench -T), as pgbench refuses both; leave duration out, or NULL, "
				   "with transactions.");
		p->duration_ms = 0;
	}
	else if (RunSpecIsNull(spec, RUN_OPT_DURATION))
		refuse("either duration or transactions must be given", NULL);
	else
		p->duration_ms = duration_ms(DatumGetIntervalP(RunSpecDatum(spec, RUN_OPT_DURATION)));
	if (!RunSpecIsNull(spec, RUN_OPT_LABEL))
	{
		char	   *label = TextDatumGetCString(RunSpecDatum(spec, RUN_OPT_LABEL));

		if (strlen(label) >= PGBL_LABEL_MAX)
			ereport(ERROR, (errcode(ERRCODE_STRING_DATA_RIGHT_TRUNCATION),
							errmsg("label is longer than %d bytes", PGBL_LABEL_MAX - 1)));
		strlcpy(p->label, label, PGBL_LABEL_MAX);
	}
	p->max_tries = RunSpecIsNull(spec, RUN_OPT_MAX_TRIES) ? -1
		: DatumGetInt32(RunSpecDatum(spec, RUN_OPT_MAX_TRIES));
	if (p->max_tries < 0 || (p->max_tries == 0 && p->transactions > 0))
		refuse("max_tries must be at least 1 (or 0, for unlimited, in a timed run)", NULL);
	p->seed_given = !RunSpecIsNull(spec, RUN_OPT_RANDOM_SEED);
	p->seed = p->seed_given ? (uint64) DatumGetInt64(RunSpecDatum(spec, RUN_OPT_RANDOM_SEED)) : 0;
	LibpqReadArgs(spec, p);		/* via and target */
	read_threads(spec, p);
	check_descriptors(p);
	read_rate_args(spec, p);
	read_query_mode(spec, p);
	p->script_area_size = ScriptSetupRead(spec, p, &p->script_local);
	if (p->script_area_size > 0)
		return;
	p->wl.kind = WorkloadParse(TextDatumGetCString(RunSpecDatum(spec, RUN_OPT_WORKLOAD)));
	strlcpy(p->workload, WorkloadName(p->wl.kind), PGBL_LABEL_MAX);
}

/* Does the run set this setting? */
static bool
setting_given(const RunShared *p, const char *name)
{
	const char *s = p->settings;

	for (int i = 0; i < p->nsettings; i++)
	{
		const char *value = s + strlen(s) + 1;

		if (pg_strcasecmp(s, name) == 0)
			return true;
		s = value + strlen(value) + 1;
	}
	return false;
}

/*
 * Background workers running now: every one holds a slot of
 * max_worker_processes (parallel workers, logical replication, other
 * extensions' and pgbench_lab's own).  Core processes that are not
 * background workers are left out by type; a worker registered but not yet
 * started is missed, which the coordinator's own check still catches.
 */
static int
workers_in_use(int *lab)
{
	int			n = 0;

	pgstat_clear_snapshot();
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (SPI_execute("SELECT pg_catalog.count(*)::pg_catalog.int4, pg_catalog.count(*) FILTER ("
					"WHERE a.backend_type OPERATOR(pg_catalog.~~) 'pgbench\\_lab %')::pg_catalog.int4"
					" FROM pg_catalog.pg_stat_activity a"
					" WHERE a.backend_type OPERATOR(pg_catalog.<>) ALL (ARRAY["
					PGBL_NON_WORKER_TYPES "]::pg_catalog.text[])",
					true, 1) == SPI_OK_SELECT && SPI_processed == 1)
	{
		n = atoi(SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1));
		*lab = atoi(SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2));
	}
	SPI_finish();
	pgstat_clear_snapshot();
	return n;
}

/*
 * The workers that drive a run's clients: one per in-server client; a
 * libpq run's threads, each driving a contiguous range of clients.
 */
int
RunnerWorkers(const RunShared *p)
{
	return p->via == RUN_VIA_SPI ? p->clients : p->threads;
}

/* The first client of a worker (of worker n, with n the workers: the end). */
int
RunnerFirstClient(const RunShared *p, int worker)
{
	return (int) ((int64) worker * p->clients / RunnerWorkers(p));
}

/* Background worker slots a run needs: its workers and its coordinator. */
int
RunnerSlotsNeeded(const RunShared *p)
{
	return RunnerWorkers(p) + 1;
}

/*
 * The background worker slots free now for a run that needs "need" of
 * them; *used gets those in use.  pgbench_lab workers that are still
 * exiting (the run before, just ended) are given a moment to go.
 */
static int
free_slots(int need, int *used)
{
	int64		deadline = WorkerNowNs() + PGBL_SLOT_GRACE_MS * INT64CONST(1000000);

	for (;;)
	{
		int			lab = 0;
		int			free_now;

		*used = workers_in_use(&lab);
		free_now = Max(max_worker_processes - *used, 0);
		if (need <= free_now || lab == 0 || WorkerNowNs() >= deadline)
			return free_now;
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 20L, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
}

/*
 * Refuse a run that cannot get the worker slots it needs, before anything
 * starts, naming the max_worker_processes that would let it start now.
 */
void
RunnerCheckSlots(const RunShared *p)
{
	int			need = RunnerSlotsNeeded(p);
	int			used;
	int			free_now = free_slots(need, &used);

	if (need <= free_now)
		return;
	ereport(ERROR,
			(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
			 errmsg("this run needs %d background worker slots, %d are free",
					need, free_now),
			 errdetail("%s; max_worker_processes is %d and %d slots are in use.",
					   p->via == RUN_VIA_SPI ?
					   psprintf("An in-server run needs one worker per client (%d) plus its coordinator",
								p->clients) :
					   psprintf("A libpq run needs one worker per thread (%d) plus its coordinator",
								RunnerWorkers(p)),
					   max_worker_processes, used),
			 errhint("Set max_worker_processes to at least %d (changing it needs a restart)%s.",
					 used + need,
					 p->via == RUN_VIA_SPI ?
					 ", or use fewer clients, or via => 'libpq', whose workers each drive many clients" :
					 ", or use fewer threads")));
}

/*
 * pgbench_lab_internal.worker_slots_free(need integer) returns integer:
 * the background worker slots free for a run that needs "need" of them
 * (waiting, as a run's own check does, for the lab's exiting workers), so
 * that an experiment's plan can leave out a run that could not start.
 */
PG_FUNCTION_INFO_V1(pgbench_lab_worker_slots_free);

Datum
pgbench_lab_worker_slots_free(PG_FUNCTION_ARGS)
{
	int			used;

	PG_RETURN_INT32(free_slots(PG_ARGISNULL(0) ? 0 : PG_GETARG_INT32(0), &used));
}

/*
 * Everything start() and run() check before anything starts, of a run's
 * options.  Returns the filled parameters, in palloc'd memory, to copy into
 * shared memory.  The experiments call it to check all their runs before
 * the first.
 */
RunShared *
RunnerPrepare(const RunSpec *spec)
{
	RunShared  *p = palloc0(sizeof(RunShared));
	Jsonb	   *settings = RunSpecIsNull(spec, RUN_OPT_SETTINGS) ? NULL
		: DatumGetJsonbP(RunSpecDatum(spec, RUN_OPT_SETTINGS));

	read_args(spec, p);
	{
		Jsonb	   *given = RunSpecToJsonb(spec);

		p->options_local = (char *) given;
		p->options_area_size = VARSIZE(given);
	}
	RunnerReapOrphans();
	if (settings != NULL)
		parse_settings(settings, p);
	else
		strlcpy(p->settings_json, "{}", PGBL_SETTINGS_MAX);
	/*
	 * A built-in workload sends pgbench's text, its operators bare, on the
	 * sessions whose search_path the lab pins (not if the run sets one;
	 * over libpq, not through a pooler: LibpqResolve)
	 */
	p->pin_path = p->script_area_size == 0 && !setting_given(p, "search_path");
	p->owner_role = SecureExtensionOwner();
	p->dboid = MyDatabaseId;
	p->login_role = GetSessionUserId();
	p->run_role = GetUserId();
	/* libpq: the tables as the target sees them (scripts: its scale) */
	if (LibpqResolve(p))
		ScriptSetupTargetScale(p);
	else if (p->script_area_size == 0)
		WorkloadResolve(&p->wl);
	RunnerCheckSlots(p);
	return p;
}

static RunShared *
create_shared(RunShared *p, dsm_segment **segp)
{
	Size		size = RunSharedTotalSize(p);
	dsm_segment *seg = dsm_create(size, 0);
	RunShared  *run = (RunShared *) dsm_segment_address(seg);

	memset(run, 0, size);
	memcpy(run, p, offsetof(RunShared, phase));
	run->script_local = NULL;
	if (p->script_area_size > 0)
	{
		run->script_area = MAXALIGN(RunSharedSize(p->clients));
		memcpy((char *) run + run->script_area, p->script_local, p->script_area_size);
	}
	if (p->sample_rate > 0)
	{
		run->sample_area = add_size(MAXALIGN(RunSharedSize(p->clients)),
									MAXALIGN(p->script_area_size));
		SamplesAreaInit(run);
	}
	run->options_local = NULL;
	run->options_area = add_size(add_size(MAXALIGN(RunSharedSize(p->clients)),
										  MAXALIGN(p->script_area_size)),
								 MAXALIGN(p->sample_rate > 0 ? SamplesAreaSize(p->clients) : 0));
	memcpy((char *) run + run->options_area, p->options_local, p->options_area_size);
	run->magic = PGBL_RUN_MAGIC;
	run->handle = dsm_segment_handle(seg);
	run->run_id = -1;
	run->launcher_pid = MyProcPid;
	pg_atomic_init_u32(&run->phase, RUN_PHASE_STARTING);
	pg_atomic_init_u32(&run->stop, RUN_STOP_NONE);
	pg_atomic_init_u32(&run->go, 0);
	SpinLockInit(&run->errors.lock);
	for (int i = 0; i < run->clients; i++)
	{
		RunClient  *c = &run->client[i];

		pg_atomic_init_u32(&c->state, CLIENT_NEW);
		pg_atomic_init_u32(&c->pacing, 0);
		pg_atomic_init_u64(&c->xacts, 0);
		pg_atomic_init_u64(&c->failures, 0);
		pg_atomic_init_u64(&c->retries, 0);
		pg_atomic_init_u64(&c->serialization_failures, 0);
		pg_atomic_init_u64(&c->deadlock_failures, 0);
		pg_atomic_init_u64(&c->latency_sum_ns, 0);
		pg_atomic_init_u64(&c->latency_mean_us, 0);
		pg_atomic_init_u64(&c->latency_m2_us2, 0);
		pg_atomic_init_u64(&c->latency_max_ns, 0);
		pg_atomic_init_u64(&c->latency_max_interval, 0);
		pg_atomic_init_u64(&c->blks_hit, 0);
		pg_atomic_init_u64(&c->blks_read, 0);
		pg_atomic_init_u64(&c->connects, 0);
		pg_atomic_init_u64(&c->connect_ns, 0);
		pg_atomic_init_u64(&c->lag_sum_ns, 0);
		pg_atomic_init_u64(&c->lag_max_ns, 0);
		pg_atomic_init_u64(&c->lag_max_interval, 0);
		pg_atomic_init_u64(&c->late, 0);
		pg_atomic_init_u64(&c->skipped, 0);
	}
	*segp = seg;
	return run;
}

static void
request_cancel(RunShared *run)
{
	uint32		expected = RUN_STOP_NONE;

	if (!pg_atomic_compare_exchange_u32(&run->stop, &expected, RUN_STOP_CANCEL) &&
		expected == RUN_STOP_END)
		return;					/* already ending normally */
	WorkerSetLatchOf(run->coordinator_pid);
}

/* WorkerWait's condition: the coordinator has said how the start went. */
static bool
start_reported(void *arg)
{
	return pg_atomic_read_u32(&((RunShared *) arg)->phase) != RUN_PHASE_STARTING;
}

/* Wait until the coordinator reports the run started, or why it did not. */
static void
wait_started(RunShared *run, BackgroundWorkerHandle *coordinator)
{
	PG_TRY();
	{
		if (!WorkerWait(coordinator, start_reported, run, 10L, "the start of a run"))
			ereport(ERROR,
					(errcode(ERRCODE_INTERNAL_ERROR),
					 errmsg("the run's coordinator exited before the run started"),
					 errhint("The server log says why.")));
	}
	PG_CATCH();
	{
		request_cancel(run);
		PG_RE_THROW();
	}
	PG_END_TRY();

	if (pg_atomic_read_u32(&run->phase) == RUN_PHASE_START_FAILED)
		WorkerErrorRaise(&run->start_error, NULL);
}

/* Launch a run and return once its row is committed and clients are ready. */
RunShared *
RunnerLaunch(const RunSpec *spec, dsm_segment **segp)
{
	RunShared  *p = RunnerPrepare(spec);
	RunShared  *run = create_shared(p, segp);
	BackgroundWorkerHandle *coordinator;

	coordinator = WorkerLaunch("pgbench_lab_coordinator_main", "pgbench_lab coordinator",
							   "pgbench_lab coordinator", UInt32GetDatum(run->handle),
							   "the run's coordinator",
							   psprintf("A run needs one worker per client plus its coordinator, "
										"all counted against max_worker_processes (now %d; "
										"changing it needs a restart).",
										max_worker_processes));
	wait_started(run, coordinator);
	return run;
}

/*
 * pgbench_lab.start(workload text, clients int, duration interval,
 *                   transactions bigint, label text, settings jsonb,
 *                   max_tries int, random_seed bigint, via text,
 *                   target text, rate float8, latency_limit interval)
 *                   RETURNS bigint
 */
Datum
pgbench_lab_start(PG_FUNCTION_ARGS)
{
	dsm_segment *seg;
	RunSpec		spec;
	RunShared  *run;
	int64		run_id;

	RunSpecFromCall(fcinfo, RUNNER_TAIL_START, &spec);
	run = RunnerLaunch(&spec, &seg);
	run_id = run->run_id;

	dsm_detach(seg);
	PG_RETURN_INT64(run_id);
}

/*
 * Is the run with this row still owned by a live coordinator?  Its shared
 * memory must exist, be that run's, and its coordinator be alive.
 */
static bool
run_is_alive(int64 run_id, Datum handle, bool has_handle)
{
	dsm_segment *seg;
	RunShared  *run;
	bool		alive;

	if (!has_handle)
		return false;
	run = RunnerAttach((dsm_handle) DatumGetInt64(handle), run_id, &seg);
	if (run == NULL)
		return false;
	alive = pg_atomic_read_u32(&run->phase) == RUN_PHASE_FINISHED ||
		BackendPidGetProc(run->coordinator_pid) != NULL;
	dsm_detach(seg);
	return alive;
}

/* The aborted run's figures: what its progress rows measured. */
#define REAP_SQL \
	"UPDATE pgbench_lab.runs r SET status = 'aborted', " \
	"finished_at = pg_catalog.clock_timestamp(), dsm_handle = NULL, " \
	"coordinator_pid = NULL, transactions = p.xacts, failures = p.fails, " \
	"measured_seconds = p.secs, tps = CASE WHEN p.secs OPERATOR(pg_catalog.>) " \
	"0::pg_catalog.float8 THEN p.xacts OPERATOR(pg_catalog./) p.secs END, " \
	"error = COALESCE(r.error, 'the run ended without its coordinator recording it " \
	"(server restart, crash or terminated coordinator)') " \
	"FROM (SELECT pg_catalog.sum(transactions)::pg_catalog.int8 AS xacts, " \
	"pg_catalog.sum(failures)::pg_catalog.int8 AS fails, " \
	"pg_catalog.sum(interval_seconds) AS secs FROM pgbench_lab.run_progress " \
	"WHERE run_id OPERATOR(pg_catalog.=) $1) p " \
	"WHERE r.run_id OPERATOR(pg_catalog.=) $1 AND r.status OPERATOR(pg_catalog.=) 'running'"

/*
 * Experiments whose procedure stopped without ending them (an error, a
 * cancel, a lost session, a restart), aborted with the runs, so that the
 * row says what report() says; by experiment_stopped(), which 0.1's script
 * (served until ALTER EXTENSION UPDATE) lacks.
 */
static void
reap_experiments(void)
{
	if (SPI_execute("SELECT pg_catalog.to_regprocedure("
					"'pgbench_lab_internal.experiment_stopped(pgbench_lab.experiments)') IS NOT NULL",
					true, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not look up pgbench_lab_internal.experiment_stopped");
	if (strcmp(SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1), "t") != 0)
		return;
	if (SPI_execute("UPDATE pgbench_lab.experiments e SET status = 'aborted', "
					"finished_at = pg_catalog.clock_timestamp() "
					"WHERE e.status OPERATOR(pg_catalog.=) 'running' "
					"AND pgbench_lab_internal.experiment_stopped(e)", false, 0) != SPI_OK_UPDATE)
		elog(ERROR, "could not mark stopped experiments aborted");
}

/* Runs as the extension's owner, through SecureAsOwner(). */
static void
reap_orphans(void *arg)
{
	SPITupleTable *tt;
	uint64		nrows;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (SPI_execute("SELECT run_id, dsm_handle FROM pgbench_lab.runs "
					"WHERE status OPERATOR(pg_catalog.=) 'running'", false, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read pgbench_lab.runs");
	/* each UPDATE below replaces SPI_tuptable and SPI_processed */
	tt = SPI_tuptable;
	nrows = SPI_processed;
	for (uint64 i = 0; i < nrows; i++)
	{
		bool		isnull;
		int64		run_id = DatumGetInt64(SPI_getbinval(tt->vals[i], tt->tupdesc, 1, &isnull));
		Datum		handle = SPI_getbinval(tt->vals[i], tt->tupdesc, 2, &isnull);
		Oid			type = INT8OID;
		Datum		arg_id = Int64GetDatum(run_id);

		if (run_is_alive(run_id, handle, !isnull))
			continue;
		if (SPI_execute_with_args(REAP_SQL, 1, &type, &arg_id, NULL, false, 0) < 0)
			elog(ERROR, "could not mark run " INT64_FORMAT " aborted", run_id);
	}
	reap_experiments();
	SPI_finish();
}

/*
 * Mark as aborted the runs whose coordinator is gone without recording them
 * (an immediate shutdown, a crash, a terminated coordinator), keeping what
 * their progress rows measured, and the experiments whose procedure is
 * gone.  As the extension's owner: the tables are not writable by readers.
 */
void
RunnerReapOrphans(void)
{
	SecureAsOwner(reap_orphans, NULL);
}
