/*-------------------------------------------------------------------------
 *
 * script_record.c
 *		A script run's record, written by the coordinator: at the start the
 *		scripts as run (run_scripts) with their commands (run_commands) and
 *		the variables given, and at the end what each script and each
 *		command did, every client's counters summed.  The set-up that laid
 *		the scripts out in the run's shared memory is script_setup.c's.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "utils/builtins.h"

#include "pgbench_lab.h"
#include "run_shared.h"
#include "script_area.h"

static void
exec(const char *sql, int n, Oid *types, Datum *values, const char *nulls, int expect)
{
	if (SPI_execute_with_args(sql, n, types, values, nulls, false, 0) != expect)
		elog(ERROR, "could not record a script run's figures: %s", sql);
}

/* At the start: the scripts and their commands, and the variables given. */
static void
record_scripts(RunShared *run, RunScriptArea *area)
{
	const char *json = RunScriptText(area, area->variables_json);

	for (int s = 0; s < area->nscripts; s++)
	{
		RunScript  *rs = &area->script[s];
		const char *body = RunScriptText(area, rs->body);
		ScriptProgram *prog = ScriptParse(RunScriptText(area, rs->name), body);
		Oid			types[6] = {INT8OID, INT4OID, TEXTOID, INT4OID, TEXTOID, TEXTOID};
		Datum		v[6];
		char		nulls[7] = "      ";

		v[0] = Int64GetDatum(run->run_id);
		v[1] = Int32GetDatum(s + 1);
		v[2] = CStringGetTextDatum(prog->name);
		v[3] = Int32GetDatum(rs->weight);
		v[4] = CStringGetTextDatum(body);
		v[5] = rs->owner ? CStringGetTextDatum(RunScriptText(area, rs->owner)) : (Datum) 0;
		nulls[5] = rs->owner ? ' ' : 'n';
		exec("INSERT INTO pgbench_lab.run_scripts (run_id, script, name, weight, body, owner) "
			 "VALUES ($1, $2, $3, $4, $5, $6::pg_catalog.name)", 6, types, v, nulls, SPI_OK_INSERT);
		for (int c = 0; c < prog->ncommands; c++)
		{
			ScriptCommand *cmd = &prog->commands[c];
			Oid			ctypes[6] = {INT8OID, INT4OID, INT4OID, INT4OID, TEXTOID, TEXTOID};
			Datum		cv[6];

			cv[0] = Int64GetDatum(run->run_id);
			cv[1] = Int32GetDatum(s + 1);
			cv[2] = Int32GetDatum(c + 1);
			cv[3] = Int32GetDatum(cmd->line);
			cv[4] = CStringGetTextDatum(ScriptCommandKindName(cmd));
			cv[5] = PointerGetDatum(cstring_to_text_with_len(body + cmd->offset, cmd->length));
			exec("INSERT INTO pgbench_lab.run_commands (run_id, script, command, line, kind, command_text) "
				 "VALUES ($1, $2, $3, $4, $5, pg_catalog.btrim($6, E' \\t\\r\\n'))",
				 6, ctypes, cv, NULL, SPI_OK_INSERT);
		}
	}
	if (json[0] != '\0')
	{
		Oid			types[2] = {INT8OID, TEXTOID};
		Datum		v[2] = {Int64GetDatum(run->run_id), CStringGetTextDatum(json)};

		exec("UPDATE pgbench_lab.runs SET variables = $2::pg_catalog.jsonb "
			 "WHERE run_id OPERATOR(pg_catalog.=) $1", 2, types, v, NULL, SPI_OK_UPDATE);
	}
}

static void
record_counter(int64 run_id, int script, int command, const ScriptCounter *sum, bool by_kind)
{
	Oid			types[7] = {INT8OID, INT4OID, INT4OID, INT8OID, FLOAT8OID, INT8OID, INT8OID};
	Datum		v[7];
	char		nulls[8] = "       ";

	v[0] = Int64GetDatum(run_id);
	v[1] = Int32GetDatum(script);
	v[2] = Int32GetDatum(command);
	v[3] = Int64GetDatum((int64) sum->count);
	v[4] = Float8GetDatum(sum->count > 0 ? (double) sum->latency_ns / sum->count / 1e6 : 0);
	nulls[4] = sum->latency_ns > 0 ? ' ' : 'n';	/* none: not timed */
	v[5] = Int64GetDatum((int64) sum->failures);
	v[6] = Int64GetDatum((int64) sum->retries);
	if (command == 0)
		exec("UPDATE pgbench_lab.run_scripts SET transactions = $4, latency_avg_ms = $5, "
			 "failures = $6, retries = $7 WHERE run_id OPERATOR(pg_catalog.=) $1 "
			 "AND script OPERATOR(pg_catalog.=) $2 AND $3 OPERATOR(pg_catalog.=) 0",
			 7, types, v, nulls, SPI_OK_UPDATE);
	else
		exec("UPDATE pgbench_lab.run_commands SET executions = $4, latency_avg_ms = $5, "
			 "failures = $6, retries = $7 WHERE run_id OPERATOR(pg_catalog.=) $1 "
			 "AND script OPERATOR(pg_catalog.=) $2 AND command OPERATOR(pg_catalog.=) $3",
			 7, types, v, nulls, SPI_OK_UPDATE);
	if (!by_kind)
		return;
	/* failures by kind: columns an install script before 0.3 lacks */
	v[3] = Int64GetDatum((int64) sum->serialization_failures);
	v[4] = Int64GetDatum((int64) sum->deadlock_failures);
	types[4] = INT8OID;
	if (command == 0)
		exec("UPDATE pgbench_lab.run_scripts SET serialization_failures = $4, deadlock_failures = $5 "
			 "WHERE run_id OPERATOR(pg_catalog.=) $1 AND script OPERATOR(pg_catalog.=) $2 "
			 "AND $3 OPERATOR(pg_catalog.=) 0", 5, types, v, NULL, SPI_OK_UPDATE);
	else
		exec("UPDATE pgbench_lab.run_commands SET serialization_failures = $4, deadlock_failures = $5 "
			 "WHERE run_id OPERATOR(pg_catalog.=) $1 AND script OPERATOR(pg_catalog.=) $2 "
			 "AND command OPERATOR(pg_catalog.=) $3", 5, types, v, NULL, SPI_OK_UPDATE);
}

/* At the end: every client's counters summed, per script and command. */
static void
record_figures(RunShared *run, RunScriptArea *area, bool by_kind)
{

	for (int s = 0; s < area->nscripts; s++)
	{
		RunScript  *rs = &area->script[s];

		for (int c = 0; c <= rs->ncommands; c++)
		{
			ScriptCounter sum = {0};

			for (int i = 0; i < run->clients; i++)
			{
				ScriptCounter *x = &RunScriptCounters(area, i)[rs->counter + c];

				sum.count += x->count;
				sum.latency_ns += x->latency_ns;
				sum.failures += x->failures;
				sum.retries += x->retries;
				sum.serialization_failures += x->serialization_failures;
				sum.deadlock_failures += x->deadlock_failures;
			}
			record_counter(run->run_id, s + 1, c, &sum, by_kind);
		}
	}
}

/*
 * The coordinator's record of a script run, in the transaction of the run
 * row (at its start) or of its results (at its end, when every client has
 * ended and written its counters for good).  by_kind: whether the tables
 * have the failures' columns by kind (the caller, results.c, knows the
 * installed tables; an install script older than them has none).
 */
void
ScriptSetupRecord(RunShared *run, bool final, bool by_kind)
{
	RunScriptArea *area = RunScriptAreaOf(run, run->script_area);

	if (area == NULL)
		return;
	if (!final)
		record_scripts(run, area);
	else
	{
		pg_read_barrier();
		record_figures(run, area, by_kind);
	}
}
