/*-------------------------------------------------------------------------
 *
 * results_targets.c
 *		A libpq run's figures per target: pgbench_lab.run_targets.
 *
 * A libpq run's clients go to one server or, with targets =>, are spread
 * over several (client i to targets[i % n + 1]), all measured over the
 * same interval.  The run row keeps the whole run's figures; run_targets
 * keeps one row per target: what the launching session read there before
 * anything started (its server_version, whether it is a standby, its
 * settings), inserted with the run row, and at the end its clients'
 * figures summed from their own counters (transactions, failures, the
 * average latency, TPS over the run's measured interval) with how many of
 * its clients ended failed and the first one's error.  So a target that
 * went away mid-run is named, with why, while the others' figures stand.
 *
 * Each target's system_info() (where it provably is pgbench_lab's and the
 * role may call it; else system_note says why not) goes in with its other
 * facts.  For a standby, the run's recovery conflicts there: its
 * pg_stat_database_conflicts counters for the target's database, read by
 * the launching session at the start and again at the end over a
 * connection of the coordinator's own, the difference by kind.  They are
 * the server's counters, so they count every session's conflicts in that
 * database over the run, not only the run's clients'.
 *
 * The server's own figures of a run that is not this server's
 * (RunMeasuredHere): each primary target's WAL written and checkpoints
 * completed, read there at the start and at the end, in its row; the run
 * row's wal_bytes and checkpoints are their sum over the distinct servers
 * (a server given twice counted once), NULL when one of them could not be
 * read, and figures_note says where they were read or why they are NULL.
 *
 * This file only writes the rows: what is read on the targets, at the
 * start and at the end (TargetsReadEnd), is read by client_targets.c, and
 * a standby that could not be reached or read in time at the end (or sent
 * something unreadable) leaves its conflicts NULL with why in
 * conflicts_error: the run's results stand.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/resowner.h"

#include "client_libpq.h"
#include "results.h"
#include "run_shared.h"
#include "script_area.h"

static void
exec(const char *sql, int n, Oid *types, Datum *values, const char *nulls, int expect)
{
	if (SPI_execute_with_args(sql, n, types, values, nulls, false, 0) != expect)
		elog(ERROR, "pgbench_lab could not record a run's targets: %s", sql);
}

/* The start: each target's facts and its share of the clients. */
static void
insert_targets(RunShared *run)
{
	int			first = 0;

	for (int t = 0; t < run->ntargets; t++)
	{
		RunTarget  *rt = &run->target[t];
		Oid			types[10] = {INT8OID, INT4OID, TEXTOID, TEXTOID, BOOLOID, TEXTOID, INT4OID, TEXTOID, INT4OID,
		TEXTOID};
		Datum		v[10];
		char		nulls[11] = "          ";
		int			clients = 0;

		for (int i = 0; i < run->clients; i++)
			clients += RunnerClientTarget(run, i) == t;
		v[0] = Int64GetDatum(run->run_id);
		v[1] = Int32GetDatum(t + 1);
		v[2] = CStringGetTextDatum(rt->display);
		v[3] = CStringGetTextDatum(rt->server_version);
		nulls[3] = rt->server_version[0] ? ' ' : 'n';
		v[4] = BoolGetDatum(rt->in_recovery);
		nulls[4] = rt->server_version[0] ? ' ' : 'n';
		v[5] = CStringGetTextDatum(rt->settings);
		nulls[5] = rt->settings[0] ? ' ' : 'n';
		v[6] = Int32GetDatum(clients);
		v[7] = CStringGetTextDatum(rt->system);
		nulls[7] = rt->system[0] ? ' ' : 'n';
		/* with target_clients: the first client (from 1) of the target's block */
		v[8] = Int32GetDatum(first + 1);
		nulls[8] = run->target_clients[0] > 0 ? ' ' : 'n';
		/* why system is NULL, when the target was reached */
		v[9] = CStringGetTextDatum(rt->system_note);
		nulls[9] = rt->system_note[0] ? ' ' : 'n';
		first += clients;
		exec("INSERT INTO pgbench_lab.run_targets (run_id, target, target_display, server_version, "
			 "in_recovery, settings, clients, system, first_client, system_note) "
			 "VALUES ($1, $2, $3, $4, $5, $6::pg_catalog.jsonb, $7, $8::pg_catalog.jsonb, $9, $10)",
			 10, types, v, nulls, SPI_OK_INSERT);
	}
}

/*
 * The end, for a standby whose counters were read at the start and again
 * at the end (TargetsReadEnd, client_targets.c): store the difference, in a
 * subtransaction, so that counters that do not subtract leave conflicts
 * NULL, with a line in the server log, rather than failing the run's
 * results; or why they were not read.
 */
static void
finish_conflicts(RunShared *run, int t)
{
	MemoryContext cxt = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	const TargetEnd *te = TargetsEnd(t);

	if (!te->read)
		return;
	if (te->error != NULL)
	{
		Oid			types[3] = {INT8OID, INT4OID, TEXTOID};
		Datum		v[3];

		v[0] = Int64GetDatum(run->run_id);
		v[1] = Int32GetDatum(t + 1);
		v[2] = CStringGetTextDatum(te->error);
		exec("UPDATE pgbench_lab.run_targets SET conflicts_error = $3 "
			 "WHERE run_id OPERATOR(pg_catalog.=) $1 AND target OPERATOR(pg_catalog.=) $2",
			 3, types, v, NULL, SPI_OK_UPDATE);
		return;
	}
	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(cxt);
	PG_TRY();
	{
		Oid			types[4] = {INT8OID, INT4OID, TEXTOID, TEXTOID};
		Datum		v[4];
		const char *end = te->conflicts;

		if (end[0] != '\0')
		{
			v[0] = Int64GetDatum(run->run_id);
			v[1] = Int32GetDatum(t + 1);
			v[2] = CStringGetTextDatum(run->target[t].conflicts_start);
			v[3] = CStringGetTextDatum(end);
			/* the kinds of the end's counters that the start had too */
			exec("UPDATE pgbench_lab.run_targets t SET conflicts = d.total, conflicts_by_kind = d.by_kind "
				 "FROM (SELECT pg_catalog.sum(x.n)::pg_catalog.int8 AS total, "
				 "pg_catalog.jsonb_object_agg(x.kind, x.n) AS by_kind "
				 "FROM (SELECT e.key AS kind, e.value::pg_catalog.int8 OPERATOR(pg_catalog.-) "
				 "(($3::pg_catalog.jsonb) OPERATOR(pg_catalog.->) e.key)::pg_catalog.int8 AS n "
				 "FROM pg_catalog.jsonb_each($4::pg_catalog.jsonb) e "
				 "WHERE ($3::pg_catalog.jsonb) OPERATOR(pg_catalog.?) e.key) x "
				 "HAVING pg_catalog.count(*) OPERATOR(pg_catalog.>) 0) d "
				 "WHERE t.run_id OPERATOR(pg_catalog.=) $1 AND t.target OPERATOR(pg_catalog.=) $2",
				 4, types, v, NULL, SPI_OK_UPDATE);
		}
		ReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
		ereport(LOG,
				(errmsg("pgbench_lab run " INT64_FORMAT ": the recovery conflicts of target %d could not be recorded: %s",
						run->run_id, t + 1, edata->message)));
	}
	PG_END_TRY();
}

/*
 * A split run: the scripts each target's clients draw from (those that
 * read on a standby, those that write on a primary).
 */
static void
split_targets(RunShared *run)
{
	RunScriptArea *area = RunScriptAreaOf(run, run->script_area);

	for (int t = 0; t < run->ntargets; t++)
	{
		Oid			types[3] = {INT8OID, INT4OID, TEXTARRAYOID};
		Datum		v[3];
		Datum	   *names = palloc(sizeof(Datum) * area->nscripts);
		int			n = 0;

		for (int s = 0; s < area->nscripts; s++)
			if (area->script[s].reads_only == run->target[t].in_recovery)
				names[n++] = CStringGetTextDatum(RunScriptText(area, area->script[s].name));
		v[0] = Int64GetDatum(run->run_id);
		v[1] = Int32GetDatum(t + 1);
		v[2] = PointerGetDatum(construct_array(names, n, TEXTOID, -1, false, TYPALIGN_INT));
		exec("UPDATE pgbench_lab.run_targets SET scripts = $3 WHERE run_id OPERATOR(pg_catalog.=) $1 "
			 "AND target OPERATOR(pg_catalog.=) $2", 3, types, v, NULL, SPI_OK_UPDATE);
	}
}

/* An LSN's text (X/Y) as a byte position; false if it is none. */
static bool
parse_lsn(const char *text, uint64 *lsn)
{
	unsigned int hi;
	unsigned int lo;

	if (text == NULL || sscanf(text, "%X/%X", &hi, &lo) != 2)
		return false;
	*lsn = ((uint64) hi << 32) | lo;
	return true;
}

/* What one target's figures came to: -1 where not known, with why. */
typedef struct TargetFigures
{
	int64		wal_bytes;
	int64		checkpoints;
	const char *note;
} TargetFigures;

static TargetFigures
target_figures(RunShared *run, int t)
{
	RunTarget  *rt = &run->target[t];
	const TargetEnd *te = TargetsEnd(t);
	TargetFigures f = {-1, -1, NULL};
	uint64		start;
	uint64		end;

	if (rt->in_recovery)
	{
		f.note = "a standby: it writes no WAL of its own, and its restartpoints are not counted";
		return f;
	}
	if (rt->wal_lsn_start[0] == '\0')
	{
		f.note = rt->figures_note[0] ? rt->figures_note : "not read there";
		return f;
	}
	if (!te->figures_read || te->wal_lsn == NULL)
	{
		f.note = te->figures_error ? te->figures_error : "not read there at the end";
		return f;
	}
	if (parse_lsn(rt->wal_lsn_start, &start) && parse_lsn(te->wal_lsn, &end) && end >= start)
		f.wal_bytes = (int64) (end - start);
	if (rt->ckpt_counted)
	{
		int64		a = strtoi64(rt->ckpt_start, NULL, 10);
		int64		b = strtoi64(te->ckpt, NULL, 10);

		f.checkpoints = b >= a ? b - a : -1;
	}
	else if (strcmp(rt->ckpt_start, te->ckpt) == 0)
		f.checkpoints = 0;		/* its last checkpoint unchanged: none completed */
	else
		f.note = psprintf("checkpoints not counted: at least one completed there (its last checkpoint "
						  "moved from %s to %s), and before PostgreSQL 18 a server counts them only "
						  "when they start", rt->ckpt_start, te->ckpt);
	return f;
}

/*
 * A run whose server is not this one: each primary target's WAL and
 * checkpoints in its row, and their sum over the distinct servers in the
 * run's row, with where they were read (figures_note).
 */
static void
finish_figures(RunShared *run)
{
	int64		wal = 0;
	int64		ckpts = 0;
	StringInfoData read;
	StringInfoData missing;
	int			nread = 0;

	initStringInfo(&read);
	initStringInfo(&missing);
	for (int t = 0; t < run->ntargets; t++)
	{
		TargetFigures f = target_figures(run, t);
		Oid			types[5] = {INT8OID, INT4OID, INT8OID, INT8OID, TEXTOID};
		Datum		v[5];
		char		nulls[6] = "     ";
		bool		again = false;
		char	   *which = run->targets_given ? psprintf("targets[%d]", t + 1) : "the target";

		v[0] = Int64GetDatum(run->run_id);
		v[1] = Int32GetDatum(t + 1);
		v[2] = Int64GetDatum(f.wal_bytes);
		nulls[2] = f.wal_bytes >= 0 ? ' ' : 'n';
		v[3] = Int64GetDatum(f.checkpoints);
		nulls[3] = f.checkpoints >= 0 ? ' ' : 'n';
		v[4] = f.note ? CStringGetTextDatum(f.note) : (Datum) 0;
		nulls[4] = f.note ? ' ' : 'n';
		exec("UPDATE pgbench_lab.run_targets SET wal_bytes = $3, checkpoints = $4, figures_note = $5 "
			 "WHERE run_id OPERATOR(pg_catalog.=) $1 AND target OPERATOR(pg_catalog.=) $2",
			 5, types, v, nulls, SPI_OK_UPDATE);
		if (run->target[t].in_recovery)
			continue;
		/* the same server given twice is counted once */
		for (int u = 0; u < t && !again; u++)
			again = !run->target[u].in_recovery && run->target[t].server_id[0] != '\0' &&
				strcmp(run->target[u].server_id, run->target[t].server_id) == 0;
		if (again)
			continue;
		if (f.wal_bytes >= 0 && wal >= 0)
			wal += f.wal_bytes;
		else
			wal = -1;
		if (f.checkpoints >= 0 && ckpts >= 0)
			ckpts += f.checkpoints;
		else
			ckpts = -1;
		if (f.wal_bytes >= 0)
			appendStringInfo(&read, "%s%s", nread++ ? ", " : "", which);
		if (f.wal_bytes < 0 || f.checkpoints < 0)
			appendStringInfo(&missing, "; %s: %s", which, f.note ? f.note : "not read");
	}
	{
		Oid			types[4] = {INT8OID, INT8OID, INT8OID, TEXTOID};
		Datum		v[4];
		char		nulls[5] = "    ";
		char	   *note;

		if (nread == 0 && missing.len == 0)
			note = "not measured: no primary among the targets (a standby writes no WAL of its own)";
		else if (nread == 0)
			note = psprintf("not measured: %s", missing.data + 2);
		else
			note = psprintf("read on %s (run_targets), not on this server%s", read.data, missing.data);
		v[0] = Int64GetDatum(run->run_id);
		v[1] = Int64GetDatum(wal);
		nulls[1] = wal >= 0 && nread > 0 ? ' ' : 'n';
		v[2] = Int64GetDatum(ckpts);
		nulls[2] = ckpts >= 0 && nread > 0 ? ' ' : 'n';
		v[3] = CStringGetTextDatum(note);
		exec("UPDATE pgbench_lab.runs SET wal_bytes = $2, checkpoints = $3, figures_note = $4 "
			 "WHERE run_id OPERATOR(pg_catalog.=) $1", 4, types, v, nulls, SPI_OK_UPDATE);
	}
}

/* The end: each target's clients' figures, and the first error there. */
static void
finish_targets(RunShared *run)
{
	for (int t = 0; t < run->ntargets; t++)
	{
		Oid			types[7] = {INT8OID, INT4OID, INT8OID, INT8OID, FLOAT8OID, INT4OID, TEXTOID};
		Datum		v[7];
		char		nulls[8] = "       ";
		uint64		xacts = 0;
		uint64		failures = 0;
		uint64		lat_ns = 0;
		int			failed = 0;
		const char *error = NULL;

		for (int i = 0; i < run->clients; i++)
		{
			RunClient  *c = &run->client[i];

			if (RunnerClientTarget(run, i) != t)
				continue;
			xacts += pg_atomic_read_u64(&c->xacts);
			pg_read_barrier();	/* the sums were written before xacts */
			lat_ns += pg_atomic_read_u64(&c->latency_sum_ns);
			failures += pg_atomic_read_u64(&c->failures);
			if (pg_atomic_read_u32(&c->state) == CLIENT_ABORTED)
			{
				failed++;
				if (error == NULL && WorkerErrorIsSet(&c->error))
					error = psprintf("client %d: %s (SQLSTATE %s)", i + 1, c->error.message,
									 unpack_sql_state(c->error.sqlerrcode));
			}
		}
		v[0] = Int64GetDatum(run->run_id);
		v[1] = Int32GetDatum(t + 1);
		v[2] = Int64GetDatum((int64) xacts);
		v[3] = Int64GetDatum((int64) failures);
		v[4] = Float8GetDatum(xacts ? (double) lat_ns / xacts / 1e6 : 0);
		nulls[4] = xacts ? ' ' : 'n';
		v[5] = Int32GetDatum(failed);
		v[6] = error ? CStringGetTextDatum(error) : (Datum) 0;
		nulls[6] = error ? ' ' : 'n';
		exec("UPDATE pgbench_lab.run_targets t SET transactions = $3, failures = $4, "
			 "latency_avg_ms = $5, clients_failed = $6, error = $7, "
			 "tps = CASE WHEN r.measured_seconds OPERATOR(pg_catalog.>) 0::pg_catalog.float8 "
			 "THEN $3 OPERATOR(pg_catalog./) r.measured_seconds END "
			 "FROM pgbench_lab.runs r WHERE r.run_id OPERATOR(pg_catalog.=) t.run_id "
			 "AND t.run_id OPERATOR(pg_catalog.=) $1 AND t.target OPERATOR(pg_catalog.=) $2",
			 7, types, v, nulls, SPI_OK_UPDATE);
		if (run->target[t].in_recovery && run->target[t].conflicts_start[0] != '\0')
			finish_conflicts(run, t);
	}
}

/*
 * Called with the run's other results (SPI connected, in the coordinator's
 * transaction): the rows at the start, their figures at the end.
 */
void
ResultsTargets(RunShared *run, bool final)
{
	if (run->via == RUN_VIA_SPI)
		return;
	if (final)
	{
		finish_targets(run);
		/* an install script before 0.3 has no columns for them */
		if (!RunMeasuredHere(run) &&
			get_attnum(get_relname_relid("runs", get_namespace_oid("pgbench_lab", false)),
					   "figures_note") != InvalidAttrNumber)
			finish_figures(run);
	}
	else
	{
		insert_targets(run);
		if (run->split)
			split_targets(run);
	}
}
