/*-------------------------------------------------------------------------
 *
 * results.c
 *		What a run measured, written by its coordinator.
 *
 * The run row is inserted and committed before the clock starts; one
 * progress row per second is committed as the run goes; the final figures,
 * the latency histogram and the server's WAL and checkpoint deltas are
 * committed at the end (this server's when it is the run's, RunMeasuredHere;
 * else read on the targets: results_targets.c).  Checkpoints are those
 * completed: num_done from PostgreSQL 18, before as the coordinator counted
 * them (TelemetryCheckpoints).  So a run that is cancelled, fails or loses its
 * coordinator is still on record with what it had measured.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/latch.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"
#include "utils/wait_event.h"

#include "pgbench_lab.h"
#include "client_libpq.h"
#include "results.h"
#include "runner.h"
#include "script_area.h"

/* A run's merged histogram as run_latency holds it: its non-empty buckets. */
typedef struct RunHistogram
{
	int			n;
	int64		total;
	double	   *upper_us;
	int64	   *count;
} RunHistogram;

static void
exec(const char *sql, int n, Oid *types, Datum *values, const char *nulls, int expect)
{
	int			rc = SPI_execute_with_args(sql, n, types, values, nulls, false, 0);

	if (rc != expect)
		elog(ERROR, "pgbench_lab could not record results: %s (%s)",
			 SPI_result_code_string(rc), sql);
}

static Datum
text_or_null(const char *s, char *null)
{
	*null = (s == NULL || s[0] == '\0') ? 'n' : ' ';
	return *null == 'n' ? (Datum) 0 : CStringGetTextDatum(s);
}

/*
 * A cache snapshot (pgbench_lab.cache_snapshot) before and after each run:
 * residency in shared buffers and the OS cache, and the I/O counters.
 */
static void
cache_snapshot(int64 run_id, const char *column, const char *when)
{
	Oid			types[2] = {INT8OID, TEXTOID};
	Datum		v[2];
	char		sql[256];

	v[0] = Int64GetDatum(run_id);
	v[1] = CStringGetTextDatum(psprintf("run " INT64_FORMAT ": %s", run_id, when));
	snprintf(sql, sizeof(sql),
			 "UPDATE pgbench_lab.runs SET %s = pgbench_lab.cache_snapshot($2) "
			 "WHERE run_id OPERATOR(pg_catalog.=) $1", column);
	exec(sql, 2, types, v, NULL, SPI_OK_UPDATE);
}

/*
 * A rate and a latency limit go into columns that version 0.1's tables do
 * not have; only 0.2's declarations can ask for them, so a run of 0.1's
 * (callable until ALTER EXTENSION UPDATE) writes none of them.
 */
static inline bool
rate_or_limit(const RunShared *run)
{
	return run->rate > 0 || run->latency_limit_ns > 0;
}

/* The rate and latency limit asked, in the run's row. */
static void
record_rate_asked(RunShared *run)
{
	Oid			types[3] = {INT8OID, FLOAT8OID, INT8OID};
	Datum		v[3];
	char		nulls[4] = "   ";

	if (!rate_or_limit(run))
		return;
	v[0] = Int64GetDatum(run->run_id);
	v[1] = Float8GetDatum(run->rate);
	nulls[1] = run->rate > 0 ? ' ' : 'n';
	/* ns to whole microseconds, an interval's resolution */
	v[2] = Int64GetDatum(run->latency_limit_ns / 1000);
	nulls[2] = run->latency_limit_ns > 0 ? ' ' : 'n';
	exec("UPDATE pgbench_lab.runs SET rate = $2, "
		 "latency_limit = $3 OPERATOR(pg_catalog.*) '1 microsecond'::pg_catalog.interval "
		 "WHERE run_id OPERATOR(pg_catalog.=) $1", 3, types, v, nulls, SPI_OK_UPDATE);
}

/* Has pgbench_lab.runs this column?  (Not before ALTER EXTENSION UPDATE.) */
static bool
runs_has(const char *column)
{
	Oid			runs = get_relname_relid("runs", get_namespace_oid("pgbench_lab", false));

	return get_attnum(runs, column) != InvalidAttrNumber;
}

/*
 * The query_mode the run used, given or not (NULL is prepared); an install
 * script older than the option has no such column.
 */
static void
record_query_mode(RunShared *run)
{
	static const char *const names[] = {"prepared", "simple", "extended"};
	Oid			types[2] = {INT8OID, TEXTOID};
	Datum		v[2];

	if (!runs_has("query_mode"))
		return;
	v[0] = Int64GetDatum(run->run_id);
	v[1] = CStringGetTextDatum(names[run->query_mode]);
	exec("UPDATE pgbench_lab.runs SET query_mode = $2 WHERE run_id OPERATOR(pg_catalog.=) $1",
		 2, types, v, NULL, SPI_OK_UPDATE);
}

/*
 * The options given, as runs.options records them: without a conninfo (it
 * may hold a password: target_display shows the servers) or a script's
 * text (run_scripts keeps it).  An install script older than the column
 * (before ALTER EXTENSION UPDATE) has none to write.
 */
static void
record_options(RunShared *run)
{
	Oid			types[2] = {INT8OID, JSONBOID};
	Datum		v[2];

	if (run->options_area == 0 || !runs_has("options"))
		return;
	v[0] = Int64GetDatum(run->run_id);
	v[1] = PointerGetDatum((char *) run + run->options_area);
	exec("UPDATE pgbench_lab.runs SET options = $2 OPERATOR(pg_catalog.-) "
		 "'{target,targets,script}'::pg_catalog.text[] WHERE run_id OPERATOR(pg_catalog.=) $1",
		 2, types, v, NULL, SPI_OK_UPDATE);
}

/*
 * A libpq run whose clients' backends are this server's, in the run's
 * database (a run to this server's own socket, or every target this very
 * server and database): its clients count no buffers (their backends do,
 * for themselves), so its hits and reads are the database's
 * (pg_stat_database) over the run, every session's among them.
 */
static bool
buffers_from_database(const RunShared *run)
{
	if (run->via == RUN_VIA_SPI)
		return false;
	if (run->target_local)
		return true;
	for (int t = 0; t < run->ntargets; t++)
		if (!run->target[t].this_database)
			return false;
	return run->ntargets > 0;
}

/* The run's database's blocks hit and read, as pg_stat_database has them. */
static void
read_database_buffers(const RunShared *run, int64 *hit, int64 *read)
{
	Oid			types[1] = {OIDOID};
	Datum		v[1];
	bool		isnull;
	Datum		d;

	v[0] = ObjectIdGetDatum(run->dboid);
	pgstat_clear_snapshot();
	if (SPI_execute_with_args("SELECT d.blks_hit, d.blks_read FROM pg_catalog.pg_stat_database d "
							  "WHERE d.datid OPERATOR(pg_catalog.=) $1",
							  1, types, v, NULL, true, 1) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "could not read the statistics of the run's database");
	d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	*hit = isnull ? 0 : DatumGetInt64(d);
	d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull);
	*read = isnull ? 0 : DatumGetInt64(d);
}

/*
 * The run's backends give pg_stat_database their counts when they exit (a
 * busy one at most once a second before): at the end, wait up to 2 s, out
 * of any transaction between looks, until no client backend of the run's
 * database that started after this coordinator under the clients' name
 * (fallback_application_name pgbench_lab: a conninfo that names another
 * is not waited for) is left.  Other sessions are not waited for.
 */
static void
wait_run_backends_gone(const RunShared *run)
{
	Oid			types[2] = {OIDOID, TIMESTAMPTZOID};
	Datum		v[2];
	bool		isnull;
	int64		left;
	TimestampTz deadline = GetCurrentTimestamp() + 2 * USECS_PER_SEC;

	v[0] = ObjectIdGetDatum(run->dboid);
	v[1] = TimestampTzGetDatum(MyStartTimestamp);
	for (;;)
	{
		WorkerXactBegin();
		pgstat_clear_snapshot();
		if (SPI_execute_with_args("SELECT pg_catalog.count(*) FROM pg_catalog.pg_stat_activity a "
								  "WHERE a.datid OPERATOR(pg_catalog.=) $1 "
								  "AND a.backend_type OPERATOR(pg_catalog.=) 'client backend' "
								  "AND a.backend_start OPERATOR(pg_catalog.>=) $2 "
								  "AND a.application_name OPERATOR(pg_catalog.=) 'pgbench_lab' "
								  "AND a.pid OPERATOR(pg_catalog.<>) pg_catalog.pg_backend_pid()",
								  2, types, v, NULL, true, 1) != SPI_OK_SELECT)
			elog(ERROR, "could not read the server's activity");
		left = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
		WorkerXactCommit();
		if (left == 0 || GetCurrentTimestamp() > deadline)
			return;
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 10L, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
}

/* Insert the run row (committed at once) and note the server's counters. */
void
ResultsBegin(RunShared *run, ResultsRun *res)
{
	Oid			types[13] = {TEXTOID, TEXTOID, INT4OID, INT4OID, INT8OID, INT8OID,
	INT4OID, INT8OID, INT4OID, TEXTOID, OIDOID, INT8OID, TEXTOID};
	Datum		v[13];
	char		nulls[14] = "             ";
	bool		isnull;

	WorkerXactBegin();
	v[0] = text_or_null(run->label, &nulls[0]);
	v[1] = CStringGetTextDatum(run->workload);
	v[2] = Int32GetDatum(run->clients);
	v[3] = Int32GetDatum(run->script_area ? (int32) RunScriptAreaOf(run, run->script_area)->scale
						 : run->wl.scale);
	v[4] = Int64GetDatum(run->duration_ms);
	nulls[4] = run->duration_ms > 0 ? ' ' : 'n';
	v[5] = Int64GetDatum(run->transactions);
	nulls[5] = run->transactions > 0 ? ' ' : 'n';
	v[6] = Int32GetDatum(run->max_tries);
	v[7] = Int64GetDatum((int64) run->seed);
	nulls[7] = run->seed_given ? ' ' : 'n';
	v[8] = Int32GetDatum(MyProcPid);
	v[9] = CStringGetTextDatum(run->settings_json);
	v[10] = ObjectIdGetDatum(run->run_role);
	v[11] = Int64GetDatum((int64) run->handle);
	/* a libpq run records its target's settings, read there at launch */
	v[12] = text_or_null(run->via != RUN_VIA_SPI ? run->target[0].settings : NULL, &nulls[12]);
	exec("INSERT INTO pgbench_lab.runs (label, workload, clients, scale, duration, "
		 "transactions_per_client, max_tries, random_seed, coordinator_pid, settings, "
		 "owner, dsm_handle) VALUES ($1, $2, $3, $4, "
		 "pg_catalog.make_interval(secs => $5 OPERATOR(pg_catalog./) 1000.0), $6, $7, $8, $9, "
		 "pg_catalog.jsonb_build_object('session', $10::pg_catalog.jsonb, 'server', "
		 "COALESCE($13::pg_catalog.jsonb, (SELECT pg_catalog.jsonb_object_agg(n, pg_catalog.current_setting(n)) "
		 "FROM pg_catalog.unnest(" PGBL_SERVER_SETTINGS ") AS n))), "
		 "$11::pg_catalog.regrole, $12) RETURNING run_id",
		 13, types, v, nulls, SPI_OK_INSERT_RETURNING);
	run->run_id = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0],
											  SPI_tuptable->tupdesc, 1, &isnull));
	record_rate_asked(run);
	record_query_mode(run);
	record_options(run);
	ScriptSetupRecord(run, false, false);
	SamplesRecord(run, false);

	if (SPI_execute("SELECT pg_catalog.pg_current_wal_lsn()::pg_catalog.text, (" PGBL_CHECKPOINTS_SQL ")",
					true, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not read the WAL position");
	strlcpy(res->wal_lsn_before,
			SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1),
			sizeof(res->wal_lsn_before));
	res->checkpoints_before = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0],
														  SPI_tuptable->tupdesc, 2, &isnull));
	res->checkpoints_done = -1;
	res->db_hit_before = res->db_read_before = -1;
	if (buffers_from_database(run))
		read_database_buffers(run, &res->db_hit_before, &res->db_read_before);
	cache_snapshot(run->run_id, "cache_before", "before");
	LibpqRecord(run, false);
	ResultsTargets(run, false);
	WorkerXactCommit();
}

/*
 * One progress row: the difference between two samples.  The lag columns
 * are NULL without a rate, late and skipped without a latency limit.
 */
void
ResultsProgress(RunShared *run, int second, const RunSample *prev, const RunSample *cur,
				double interval_seconds)
{
	Oid			types[13] = {INT8OID, INT4OID, FLOAT8OID, INT8OID, FLOAT8OID, FLOAT8OID,
	FLOAT8OID, INT8OID, FLOAT8OID, FLOAT8OID, FLOAT8OID, INT8OID, INT8OID};
	Datum		v[13];
	char		nulls[14] = "             ";
	uint64		xacts = cur->xacts - prev->xacts;
	uint64		hit = cur->blks_hit - prev->blks_hit;
	uint64		read = cur->blks_read - prev->blks_read;
	bool		rate = run->rate > 0;
	bool		limit = run->latency_limit_ns > 0;

	interval_seconds = Max(interval_seconds, 0.001);
	v[0] = Int64GetDatum(run->run_id);
	v[1] = Int32GetDatum(second);
	v[2] = Float8GetDatum(interval_seconds);
	v[3] = Int64GetDatum((int64) xacts);
	v[4] = Float8GetDatum((double) xacts / interval_seconds);
	v[5] = Float8GetDatum(xacts ? (double) (cur->latency_sum_ns - prev->latency_sum_ns) / xacts / 1e6 : 0);
	nulls[5] = xacts ? ' ' : 'n';
	v[6] = Float8GetDatum((double) cur->latency_max_ns / 1e6);
	nulls[6] = xacts ? ' ' : 'n';
	v[7] = Int64GetDatum((int64) (cur->failures - prev->failures));
	v[8] = Float8GetDatum(hit + read ? (double) hit / (hit + read) : 0);
	nulls[8] = hit + read ? ' ' : 'n';
	v[9] = Float8GetDatum(xacts ? (double) (cur->lag_sum_ns - prev->lag_sum_ns) / xacts / 1e6 : 0);
	nulls[9] = rate && xacts ? ' ' : 'n';
	v[10] = Float8GetDatum((double) cur->lag_max_ns / 1e6);
	nulls[10] = rate && xacts ? ' ' : 'n';
	v[11] = Int64GetDatum((int64) (cur->late - prev->late));
	nulls[11] = limit ? ' ' : 'n';
	v[12] = Int64GetDatum((int64) (cur->skipped - prev->skipped));
	nulls[12] = limit && rate ? ' ' : 'n';

	WorkerXactBegin();
	if (rate_or_limit(run))
		exec("INSERT INTO pgbench_lab.run_progress (run_id, second, interval_seconds, transactions, "
			 "tps, latency_avg_ms, latency_max_ms, failures, hit_ratio, lag_avg_ms, lag_max_ms, "
			 "late, skipped) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)",
			 13, types, v, nulls, SPI_OK_INSERT);
	else
		exec("INSERT INTO pgbench_lab.run_progress (run_id, second, interval_seconds, transactions, "
			 "tps, latency_avg_ms, latency_max_ms, failures, hit_ratio) "
			 "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
			 9, types, v, nulls, SPI_OK_INSERT);
	SamplesFlush(run);
	WorkerXactCommit();
}

/*
 * "client 2: <message> (SQLSTATE 40001)", as the run records it, followed
 * by the error's detail if it has one (a script's error says where).
 */
static void
append_client_error(StringInfo error, int i, const RunClient *c, const RunShared *run)
{
	appendStringInfo(error, "client %d", i + 1);
	if (run->via != RUN_VIA_SPI && run->ntargets > 1)
		appendStringInfo(error, " (targets[%d]: %s)", RunnerClientTarget(run, i) + 1,
						 run->target[RunnerClientTarget(run, i)].display);
	appendStringInfo(error, ": %s (SQLSTATE %s)", c->error.message,
					 unpack_sql_state(c->error.sqlerrcode));
	if (c->error.detail[0] != '\0')
		appendStringInfo(error, " %s", c->error.detail);
}

/* The run's status and first error, from how its clients ended. */
static const char *
run_status(RunShared *run, StringInfo error)
{
	bool		failed = false;

	/* a client cancelled (pg_cancel_backend) is why a cancelled run ended */
	for (int i = 0; i < run->clients && pg_atomic_read_u32(&run->stop) == RUN_STOP_CANCEL; i++)
	{
		RunClient  *c = &run->client[i];

		if (WorkerErrorIsSet(&c->error) && c->error.sqlerrcode == ERRCODE_QUERY_CANCELED &&
			error->len == 0)
			append_client_error(error, i, c, run);
	}

	for (int i = 0; i < run->clients; i++)
	{
		RunClient  *c = &run->client[i];
		uint32		state = pg_atomic_read_u32(&c->state);

		if (state == CLIENT_DONE && !WorkerErrorIsSet(&c->error))
			continue;
		if (state == CLIENT_DONE)
		{
			/* failed transactions (serialisation, deadlock) only */
			if (error->len == 0)
				append_client_error(error, i, c, run);
			continue;
		}
		if (pg_atomic_read_u32(&run->stop) == RUN_STOP_CANCEL && state == CLIENT_READY)
			continue;			/* stopped by the cancel itself */
		failed = true;
		if (error->len > 0)
			continue;
		if (state == CLIENT_ABORTED)
			append_client_error(error, i, c, run);
		else
			appendStringInfo(error, "client %d exited before the end of the run (terminated?)", i + 1);
	}
	if (pg_atomic_read_u32(&run->stop) == RUN_STOP_CANCEL)
		return "cancelled";
	return failed ? "failed" : "done";
}

/*
 * Merge the histograms and write the non-empty buckets; h gets them as
 * run_latency holds them (upper bounds in microseconds, counts), for the
 * run's percentiles.
 */
static void
write_latency(RunShared *run, RunHistogram *h)
{
	LatencyHistogram *all = palloc0(sizeof(LatencyHistogram));
	Datum	   *upper = palloc(sizeof(Datum) * PGBL_HIST_BUCKETS);
	Datum	   *count = palloc(sizeof(Datum) * PGBL_HIST_BUCKETS);
	Oid			types[3] = {INT8OID, FLOAT8ARRAYOID, INT8ARRAYOID};
	Datum		v[3];

	for (int i = 0; i < run->clients; i++)
		StatsMerge(all, &run->client[i].hist);
	h->n = 0;
	h->total = 0;
	h->upper_us = palloc(sizeof(double) * PGBL_HIST_BUCKETS);
	h->count = palloc(sizeof(int64) * PGBL_HIST_BUCKETS);
	for (int b = 0; b < PGBL_HIST_BUCKETS; b++)
	{
		if (all->count[b] == 0)
			continue;
		h->total += (int64) all->count[b];
		h->upper_us[h->n] = (double) StatsBucketUpper(b) / 1000.0;
		h->count[h->n] = (int64) all->count[b];
		upper[h->n] = Float8GetDatum(h->upper_us[h->n]);
		count[h->n] = Int64GetDatum(h->count[h->n]);
		h->n++;
	}
	v[0] = Int64GetDatum(run->run_id);
	v[1] = PointerGetDatum(construct_array(upper, h->n, FLOAT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
	v[2] = PointerGetDatum(construct_array(count, h->n, INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
	exec("INSERT INTO pgbench_lab.run_latency (run_id, bucket_upper_us, count) "
		 "SELECT $1, u, c FROM ROWS FROM (pg_catalog.unnest($2), pg_catalog.unnest($3)) AS t(u, c)",
		 3, types, v, NULL, SPI_OK_INSERT);
}

/*
 * The run's percentile fraction as every reader reads it (stats.c): the
 * histogram's value at its rank, no higher than the run's largest
 * latency; NULL without a histogram.
 */
static Datum
run_percentile(const RunHistogram *h, double fraction, double max_ms, char *null)
{
	*null = h->total > 0 ? ' ' : 'n';
	if (h->total == 0)
		return (Datum) 0;
	return Float8GetDatum(StatsValueAtRank(h->upper_us, h->count, h->n, StatsRank(h->total, fraction), max_ms));
}

/*
 * Last resort when recording the results failed: mark the run failed with
 * the error, so it does not stay "running" for ever.
 */
void
ResultsFailed(RunShared *run, const char *message)
{
	Oid			types[2] = {INT8OID, TEXTOID};
	Datum		v[2];

	v[0] = Int64GetDatum(run->run_id);
	v[1] = CStringGetTextDatum(message);
	WorkerXactBegin();
	exec("UPDATE pgbench_lab.runs SET status = 'failed', finished_at = pg_catalog.clock_timestamp(), "
		 "error = $2, coordinator_pid = NULL, dsm_handle = NULL "
		 "WHERE run_id OPERATOR(pg_catalog.=) $1",
		 2, types, v, NULL, SPI_OK_UPDATE);
	WorkerXactCommit();
}

/*
 * The machine the run ran on, as system_info() sees it (when present): for
 * a libpq run, its (first) target's, read there at launch (left NULL when the
 * target has no system_info() the role may call, rather than this
 * machine's facts under another server's run).  Here too only for a run
 * whose role may call system_info(): the coordinator reads it as the
 * extension's owner, and the run's row is its role's to read, so without
 * that check a role refused system_info() (42501) would find the data
 * directory, its device, the kernel and the free space in its own row.
 * report() says why the facts are missing.
 */
static void
record_system(RunShared *run)
{
	Oid			types[2] = {INT8OID, TEXTOID};
	Datum		v[2] = {Int64GetDatum(run->run_id), (Datum) 0};
	Oid			role_type = OIDOID;
	Datum		role = ObjectIdGetDatum(run->run_role);

	if (run->via != RUN_VIA_SPI && !run->target_local)
	{
		if (run->target[0].system[0] == '\0')
			return;
		v[1] = CStringGetTextDatum(run->target[0].system);
		exec("UPDATE pgbench_lab.runs SET system = $2::pg_catalog.jsonb "
			 "WHERE run_id OPERATOR(pg_catalog.=) $1", 2, types, v, NULL, SPI_OK_UPDATE);
		return;
	}
	if (SPI_execute_with_args("SELECT COALESCE(f.oid IS NOT NULL AND "
							  "pg_catalog.has_function_privilege($1, f.oid, 'EXECUTE'), false) "
							  "FROM (SELECT pg_catalog.to_regprocedure('pgbench_lab.system_info()')::pg_catalog.oid "
							  "AS oid) f", 1, &role_type, &role, NULL, true, 1) != SPI_OK_SELECT ||
		strcmp(SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1), "t") != 0)
		return;
	exec("UPDATE pgbench_lab.runs SET system = (SELECT pg_catalog.jsonb_object_agg(name, value) "
		 "FROM pgbench_lab.system_info()) WHERE run_id OPERATOR(pg_catalog.=) $1",
		 1, types, v, NULL, SPI_OK_UPDATE);
}

/*
 * What a rate or a latency limit adds to the run's row: the schedule lag,
 * late and skipped transactions, the slots that fell due and whether the
 * rate was sustained.  The rule: the clients ran (committed or failed) at
 * least PGBL_SUSTAINED of the slots their schedule set during the run;
 * skipped slots and slots still due when the run ended count against it.
 * The comparison is with the schedule's own draws, not with rate times
 * seconds, so that the Poisson process's own scatter (a few per cent over
 * seconds) never reads as falling behind.
 */
static void
record_rate(RunShared *run, const RunSample *s)
{
	Oid			types[7] = {INT8OID, FLOAT8OID, FLOAT8OID, INT8OID, INT8OID, INT8OID, BOOLOID};
	Datum		v[7];
	char		nulls[8] = "       ";
	bool		rate = run->rate > 0;
	bool		limit = run->latency_limit_ns > 0;
	int64		scheduled = 0;

	if (!rate_or_limit(run))
		return;
	for (int i = 0; i < run->clients; i++)
		scheduled += run->client[i].scheduled;
	v[0] = Int64GetDatum(run->run_id);
	v[1] = Float8GetDatum(s->xacts ? (double) s->lag_sum_ns / s->xacts / 1e6 : 0);
	nulls[1] = rate && s->xacts ? ' ' : 'n';
	v[2] = Float8GetDatum((double) s->lag_max_total_ns / 1e6);
	nulls[2] = rate && s->xacts ? ' ' : 'n';
	v[3] = Int64GetDatum((int64) s->late);
	nulls[3] = limit ? ' ' : 'n';
	v[4] = Int64GetDatum((int64) s->skipped);
	nulls[4] = limit && rate ? ' ' : 'n';
	v[5] = Int64GetDatum(scheduled);
	nulls[5] = rate ? ' ' : 'n';
	v[6] = BoolGetDatum((double) (s->xacts + s->failures) >= PGBL_SUSTAINED * (double) scheduled);
	nulls[6] = rate ? ' ' : 'n';
	exec("UPDATE pgbench_lab.runs SET lag_avg_ms = $2, lag_max_ms = $3, late = $4, skipped = $5, "
		 "scheduled = $6, rate_sustained = $7 WHERE run_id OPERATOR(pg_catalog.=) $1",
		 7, types, v, nulls, SPI_OK_UPDATE);
}

/* A float8 a client published as its bits in a 64-bit atomic. */
static double
float8_of(uint64 bits)
{
	double		d;

	StaticAssertStmt(sizeof(d) == sizeof(bits), "float8 is not 64 bits");
	memcpy(&d, &bits, sizeof(d));
	return d;
}

/*
 * Sum the clients' counters into *s.  With reset_interval_max the
 * per-interval maximum latencies start again from zero (the coordinator's
 * per-second sample does that; other readers must not).
 */
void
ResultsSample(RunShared *run, RunSample *s, bool reset_interval_max)
{
	memset(s, 0, sizeof(*s));
	for (int i = 0; i < run->clients; i++)
	{
		RunClient  *c = &run->client[i];
		uint64		imax;
		StatsMoments moments;

		moments.n = pg_atomic_read_u64(&c->xacts);
		s->xacts += moments.n;
		pg_read_barrier();		/* the sums were written before xacts */
		s->latency_sum_ns += pg_atomic_read_u64(&c->latency_sum_ns);
		moments.mean = float8_of(pg_atomic_read_u64(&c->latency_mean_us));
		moments.m2 = float8_of(pg_atomic_read_u64(&c->latency_m2_us2));
		StatsMomentsMerge(&s->latency_us, &moments);
		s->failures += pg_atomic_read_u64(&c->failures);
		s->retries += pg_atomic_read_u64(&c->retries);
		s->serialization_failures += pg_atomic_read_u64(&c->serialization_failures);
		s->deadlock_failures += pg_atomic_read_u64(&c->deadlock_failures);
		s->blks_hit += pg_atomic_read_u64(&c->blks_hit);
		s->blks_read += pg_atomic_read_u64(&c->blks_read);
		s->lag_sum_ns += pg_atomic_read_u64(&c->lag_sum_ns);
		s->late += pg_atomic_read_u64(&c->late);
		s->skipped += pg_atomic_read_u64(&c->skipped);
		imax = reset_interval_max ? pg_atomic_exchange_u64(&c->latency_max_interval, 0)
			: pg_atomic_read_u64(&c->latency_max_interval);
		s->latency_max_ns = Max(s->latency_max_ns, imax);
		imax = reset_interval_max ? pg_atomic_exchange_u64(&c->lag_max_interval, 0)
			: pg_atomic_read_u64(&c->lag_max_interval);
		s->lag_max_ns = Max(s->lag_max_ns, imax);
		s->lag_max_total_ns = Max(s->lag_max_total_ns, pg_atomic_read_u64(&c->lag_max_ns));
		s->latency_max_total_ns = Max(s->latency_max_total_ns,
									  pg_atomic_read_u64(&c->latency_max_ns));
		if (pg_atomic_read_u32(&c->state) == CLIENT_READY)
			s->running++;
	}
}

/*
 * Does pgbench_lab's table have this column?  An install script older than
 * it (callable until ALTER EXTENSION UPDATE) has no such column to write.
 */
bool
ResultsHaveColumn(const char *table, const char *column)
{
	Oid			rel = get_relname_relid(table, get_namespace_oid("pgbench_lab", false));

	return OidIsValid(rel) && (column == NULL || get_attnum(rel, column) != InvalidAttrNumber);
}

/*
 * The failures by kind, and every distinct error text met with its count
 * (pgbench_lab.run_errors: those kept, then a row of the others' count).
 */
static void
record_failures(RunShared *run, const RunSample *s)
{
	RunErrors  *e = &run->errors;
	Oid			types[6] = {INT8OID, INT4OID, TEXTOID, TEXTOID, INT8OID, FLOAT8OID};
	Datum		v[6];
	char		nulls[7] = "      ";

	if (!ResultsHaveColumn("runs", "serialization_failures"))
		return;
	v[0] = Int64GetDatum(run->run_id);
	v[1] = Int64GetDatum((int64) s->serialization_failures);
	v[2] = Int64GetDatum((int64) s->deadlock_failures);
	types[1] = types[2] = INT8OID;
	exec("UPDATE pgbench_lab.runs SET serialization_failures = $2, deadlock_failures = $3 "
		 "WHERE run_id OPERATOR(pg_catalog.=) $1", 3, types, v, NULL, SPI_OK_UPDATE);
	types[1] = INT4OID;
	types[2] = TEXTOID;
	/* every client has ended: nobody adds to the table any more */
	pg_read_barrier();
	for (int i = 0; i <= e->ntexts; i++)
	{
		const RunErrorText *t = &e->text[i];

		if (i == e->ntexts && e->others == 0)
			break;
		v[1] = Int32GetDatum(i + 1);
		nulls[2] = nulls[3] = i < e->ntexts ? ' ' : 'n';
		if (i < e->ntexts)
		{
			v[2] = CStringGetTextDatum(unpack_sql_state(t->sqlerrcode));
			v[3] = CStringGetTextDatum(t->message);
		}
		v[4] = Int64GetDatum((int64) (i < e->ntexts ? t->count : e->others));
		v[5] = Float8GetDatum((double) (i < e->ntexts ? t->first_ns : e->others_first_ns) / 1e6);
		exec("INSERT INTO pgbench_lab.run_errors (run_id, error, sqlstate, message, count, first_ms) "
			 "VALUES ($1, $2, $3, $4, $5, $6)", 6, types, v, nulls, SPI_OK_INSERT);
	}
}

/* Final figures, in their own committed transaction. */
void
ResultsFinish(RunShared *run, ResultsRun *res)
{
	RunHistogram hist;
	RunSample	s;
	StringInfoData error;
	double		max_ms;
	double		secs = (double) (res->end_ns - run->start_ns) / 1e9;
	double		avg_us;
	Oid			types[20];
	Datum		v[20];
	char		nulls[21];
	const char *status;

	ResultsSample(run, &s, false);
	initStringInfo(&error);
	status = run_status(run, &error);
	avg_us = s.xacts ? (double) s.latency_sum_ns / s.xacts / 1000.0 : 0;
	if (res->db_hit_before >= 0)
		wait_run_backends_gone(run);

	WorkerXactBegin();
	write_latency(run, &hist);
	pgstat_clear_snapshot();
	if (res->db_hit_before >= 0)
	{
		int64		hit;
		int64		read;

		read_database_buffers(run, &hit, &read);
		s.blks_hit = (uint64) Max(hit - res->db_hit_before, 0);
		s.blks_read = (uint64) Max(read - res->db_read_before, 0);
	}
	memset(nulls, ' ', sizeof(nulls));
	for (int i = 0; i < 20; i++)
		types[i] = FLOAT8OID;
	types[0] = INT8OID;
	types[1] = TEXTOID;
	types[3] = types[4] = types[5] = types[14] = types[15] = types[18] = types[19] = INT8OID;
	types[16] = TEXTOID;
	types[17] = TEXTOID;
	v[0] = Int64GetDatum(run->run_id);
	v[1] = CStringGetTextDatum(status);
	v[2] = Float8GetDatum(secs);
	v[3] = Int64GetDatum((int64) s.xacts);
	v[4] = Int64GetDatum((int64) s.failures);
	v[5] = Int64GetDatum((int64) s.retries);
	v[6] = Float8GetDatum(secs > 0 ? s.xacts / secs : 0);
	v[7] = Float8GetDatum(avg_us / 1000.0);
	v[8] = Float8GetDatum(StatsMomentsStddev(&s.latency_us) / 1000.0);
	max_ms = (double) s.latency_max_total_ns / 1e6;
	v[13] = Float8GetDatum(max_ms);
	for (int i = 7; i <= 13; i++)
		nulls[i] = s.xacts ? ' ' : 'n';
	v[9] = run_percentile(&hist, 0.50, max_ms, &nulls[9]);
	v[10] = run_percentile(&hist, 0.90, max_ms, &nulls[10]);
	v[11] = run_percentile(&hist, 0.95, max_ms, &nulls[11]);
	v[12] = run_percentile(&hist, 0.99, max_ms, &nulls[12]);
	v[14] = Int64GetDatum((int64) s.blks_hit);
	v[15] = Int64GetDatum((int64) s.blks_read);
	v[16] = text_or_null(error.data, &nulls[16]);
	v[17] = CStringGetTextDatum(res->wal_lsn_before);
	v[18] = Int64GetDatum(res->checkpoints_before);
	/* before 18, the completions the coordinator counted (-1: the counter's) */
	v[19] = Int64GetDatum(res->checkpoints_done);
	/* another server's run: its figures are read there (ResultsTargets) */
	if (!RunMeasuredHere(run))
		nulls[17] = nulls[18] = nulls[19] = 'n';
	exec("UPDATE pgbench_lab.runs SET finished_at = pg_catalog.clock_timestamp(), "
		 "status = $2, measured_seconds = $3, transactions = $4, failures = $5, retries = $6, "
		 "tps = $7, latency_avg_ms = $8, latency_stddev_ms = $9, latency_p50_ms = $10, "
		 "latency_p90_ms = $11, latency_p95_ms = $12, latency_p99_ms = $13, "
		 "latency_max_ms = $14, blks_hit = $15, blks_read = $16, "
		 "hit_ratio = CASE WHEN $15 OPERATOR(pg_catalog.+) $16 OPERATOR(pg_catalog.>) 0 "
		 "THEN $15::pg_catalog.float8 OPERATOR(pg_catalog./) ($15 OPERATOR(pg_catalog.+) $16) END, "
		 "error = $17, "
		 "wal_bytes = pg_catalog.pg_wal_lsn_diff(pg_catalog.pg_current_wal_lsn(), $18::pg_catalog.pg_lsn), "
		 "checkpoints = CASE WHEN $20 OPERATOR(pg_catalog.>=) 0 THEN $20 "
		 "ELSE (" PGBL_CHECKPOINTS_SQL ") OPERATOR(pg_catalog.-) $19 END, "
		 "coordinator_pid = NULL, dsm_handle = NULL WHERE run_id OPERATOR(pg_catalog.=) $1",
		 20, types, v, nulls, SPI_OK_UPDATE);
	record_rate(run, &s);
	record_failures(run, &s);
	ScriptSetupRecord(run, true, ResultsHaveColumn("run_scripts", "serialization_failures"));
	SamplesRecord(run, true);
	record_system(run);
	LibpqRecord(run, true);
	ResultsTargets(run, true);
	cache_snapshot(run->run_id, "cache_after", "after");
	WorkerXactCommit();
}
