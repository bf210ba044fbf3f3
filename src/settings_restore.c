/*-------------------------------------------------------------------------
 *
 * settings_restore.c
 *		After a crash: the settings an experiment changed with ALTER SYSTEM
 *		and no session put back, restored from their record.
 *
 * A record of pgbench_lab_internal.settings_saved without restored_at belongs to an
 * experiment under way, or to one whose session could not put the file
 * back (the server crashed or was shut down immediately; or another
 * session had changed the file meanwhile).  Its session is alive when a
 * backend with its pid and start time exists.  Every call of an
 * experiment, and restore_settings() by hand, restores the others: the
 * saved bytes if the file differs from them only in the experiment's
 * settings, else those settings' entries one by one with ALTER SYSTEM;
 * then the server reloads, and the record says what was done.  This runs
 * as the extension's owner whoever calls the experiment: it only puts
 * back what a superuser's experiment recorded, from a table no one else
 * may write.  A two-phase experiment between its phases (waiting for a
 * restart, src/experiment_restart.c) is left alone by the experiments'
 * calls; restore_settings() by hand abandons it.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <signal.h>

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/timestamp.h"

#include "secure.h"
#include "settings_apply.h"

PG_FUNCTION_INFO_V1(pgbench_lab_restore_settings);

typedef struct RecoverCall
{
	MemoryContext cxt;
	bool		abandon_waiting;
	List	   *done;			/* of SettingsRecovered */
} RecoverCall;

/*
 * One record's saved state, from its row (copied into cxt): the columns
 * experiment_id, names, auto_conf, saved_at, the entries as a text[] in
 * the order of names, whether its session is alive, its pid, and whether
 * it waits for a restart (the columns of the query below).
 */
AutoConfSaved *
SettingsSavedFromRow(HeapTuple row, TupleDesc desc, MemoryContext cxt, SettingsRecovered *r)
{
	MemoryContext old = MemoryContextSwitchTo(cxt);
	AutoConfSaved *s = palloc0(sizeof(AutoConfSaved));
	bool		isnull;
	Datum	   *elems;
	bool	   *nulls;
	Datum		d;
	int			n;

	s->experiment_id = DatumGetInt64(SPI_getbinval(row, desc, 1, &isnull));
	r->experiment_id = s->experiment_id;
	r->names = datumCopy(SPI_getbinval(row, desc, 2, &isnull), false, -1);
	deconstruct_array(DatumGetArrayTypeP(r->names), TEXTOID, -1, false, TYPALIGN_INT, &elems, NULL, &n);
	s->nnames = n;
	s->names = palloc(sizeof(char *) * n);
	for (int i = 0; i < n; i++)
		s->names[i] = TextDatumGetCString(elems[i]);
	d = SPI_getbinval(row, desc, 3, &isnull);
	s->exists = !isnull;
	if (s->exists)
	{
		bytea	   *b = DatumGetByteaPP(d);

		s->len = VARSIZE_ANY_EXHDR(b);
		s->bytes = palloc(s->len + 1);
		memcpy(s->bytes, VARDATA_ANY(b), s->len);
		s->bytes[s->len] = '\0';
	}
	r->saved_at = DatumGetTimestampTz(SPI_getbinval(row, desc, 4, &isnull));
	deconstruct_array(DatumGetArrayTypeP(SPI_getbinval(row, desc, 5, &isnull)), TEXTOID, -1, false,
					  TYPALIGN_INT, &elems, &nulls, &n);
	s->orig = palloc0(sizeof(char *) * s->nnames);
	for (int i = 0; i < n && i < s->nnames; i++)
		s->orig[i] = nulls[i] ? NULL : TextDatumGetCString(elems[i]);
	r->live = DatumGetBool(SPI_getbinval(row, desc, 6, &isnull));
	r->pid = DatumGetInt32(SPI_getbinval(row, desc, 7, &isnull));
	r->waiting = DatumGetBool(SPI_getbinval(row, desc, 8, &isnull));
	MemoryContextSwitchTo(old);
	return s;
}

/*
 * A two-phase experiment abandoned between its phases: the file as it was
 * before phase 1, the record closed and the experiment aborted.  If the
 * server has restarted since set B's values were written, it runs with
 * them until it restarts again.
 */
static const char *
abandon(AutoConfSaved *saved, bool *changed)
{
	Oid			type = INT8OID;
	Datum		id = Int64GetDatum(saved->experiment_id);
	const char *how = SettingsPutBack(saved, changed);
	bool		restarted;
	bool		isnull;
	char	   *outcome;

	(void) kill(PostmasterPid, SIGHUP);
	if (SPI_execute_with_args("UPDATE pgbench_lab.experiments e SET status = 'aborted', "
							  "finished_at = pg_catalog.clock_timestamp() "
							  "WHERE e.experiment_id OPERATOR(pg_catalog.=) $1 "
							  "AND e.status OPERATOR(pg_catalog.=) 'waiting for restart'",
							  1, &type, &id, NULL, false, 0) != SPI_OK_UPDATE)
		elog(ERROR, "could not mark experiment " INT64_FORMAT " aborted", saved->experiment_id);
	if (SPI_execute_with_args("SELECT pg_catalog.pg_postmaster_start_time() OPERATOR(pg_catalog.>) s.written_at "
							  "FROM pgbench_lab_internal.settings_saved s "
							  "WHERE s.experiment_id OPERATOR(pg_catalog.=) $1",
							  1, &type, &id, NULL, false, 1) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "could not read pgbench_lab_internal.settings_saved");
	restarted = DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	outcome = psprintf("experiment abandoned while waiting for a restart: %s; %s", how,
					   restarted ? "the server runs with set B's values until it restarts again"
					   : "the server never ran with set B's values");
	SettingsMarkRestored(saved->experiment_id, outcome);
	return outcome;
}

/* Runs as the extension's owner (SecureAsOwner). */
static void
recover_as_owner(void *arg)
{
	RecoverCall *call = (RecoverCall *) arg;
	int			n;
	AutoConfSaved **saved;
	SettingsRecovered *rec;

	if (SPI_execute("SELECT s.experiment_id, s.names, s.auto_conf, s.saved_at, "
					"ARRAY(SELECT s.entries OPERATOR(pg_catalog.->>) u.n "
					"FROM pg_catalog.unnest(s.names) WITH ORDINALITY AS u(n, i) ORDER BY u.i), "
					"s.backend_pid OPERATOR(pg_catalog.<>) pg_catalog.pg_backend_pid() AND EXISTS ("
					"SELECT FROM pg_catalog.pg_stat_get_activity(s.backend_pid) a "
					"WHERE a.backend_start OPERATOR(pg_catalog.=) s.backend_start), s.backend_pid, s.waiting "
					"FROM pgbench_lab_internal.settings_saved s WHERE s.restored_at IS NULL "
					"ORDER BY s.experiment_id DESC", false, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read pgbench_lab_internal.settings_saved");
	n = (int) SPI_processed;
	saved = palloc(sizeof(AutoConfSaved *) * Max(n, 1));
	rec = MemoryContextAllocZero(call->cxt, sizeof(SettingsRecovered) * Max(n, 1));
	for (int i = 0; i < n; i++)
		saved[i] = SettingsSavedFromRow(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, call->cxt, &rec[i]);
	for (int i = 0; i < n; i++)
	{
		CHECK_FOR_INTERRUPTS();
		if (rec[i].waiting && call->abandon_waiting)
			rec[i].outcome = MemoryContextStrdup(call->cxt, abandon(saved[i], &rec[i].changed));
		else if (rec[i].waiting)
			rec[i].outcome = MemoryContextStrdup(call->cxt,
												 psprintf("waiting for a restart: left as it is (CALL pgbench_lab.resume("
														  INT64_FORMAT ") after the restart, or "
														  "SELECT * FROM pgbench_lab.restore_settings() to abandon it)",
														  rec[i].experiment_id));
		else if (rec[i].live)
			rec[i].outcome = MemoryContextStrdup(call->cxt,
												 psprintf("experiment under way in session %d: left as it is",
														  rec[i].pid));
		else
		{
			rec[i].outcome = MemoryContextStrdup(call->cxt, SettingsPutBack(saved[i], &rec[i].changed));
			if (rec[i].changed)
				SettingsReloadAndWait(saved[i]->nnames, saved[i]->names);
			SettingsMarkRestored(rec[i].experiment_id, rec[i].outcome);
		}
		call->done = lappend(call->done, &rec[i]);
	}
}

/*
 * Restore what experiments whose session is gone left changed; a list of
 * SettingsRecovered, allocated in the current memory context.  The caller
 * commits.
 */
List *
SettingsRecover(bool abandon_waiting)
{
	RecoverCall call = {CurrentMemoryContext, abandon_waiting, NIL};

	SecureAsOwner(recover_as_owner, &call);
	return call.done;
}

/*
 * pgbench_lab.restore_settings()
 *	RETURNS TABLE (experiment_id bigint, settings text[], saved_at timestamptz, outcome text)
 *
 * By hand, after a crash or an immediate shutdown mid-experiment: what
 * was restored, and the experiments still under way.  A two-phase
 * experiment waiting for its restart is abandoned: the file goes back as
 * it was before its first phase.  Superusers only.
 */
Datum
pgbench_lab_restore_settings(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	List	   *done;
	ListCell   *lc;

	if (!superuser())
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("only superusers may restore settings"),
				 errhint("It writes postgresql.auto.conf, as ALTER SYSTEM does.")));
	InitMaterializedSRF(fcinfo, 0);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	done = SettingsRecover(true);
	foreach(lc, done)
	{
		SettingsRecovered *r = (SettingsRecovered *) lfirst(lc);
		Datum		values[4] = {Int64GetDatum(r->experiment_id), r->names,
		TimestampTzGetDatum(r->saved_at), CStringGetTextDatum(r->outcome)};
		bool		nulls[4] = {false, false, false, false};

		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	SPI_finish();
	return (Datum) 0;
}

/*
 * Values kept for good after an experiment ended and put the file back
 * (tune(apply => true) with a winner decided faster): each written with
 * ALTER SYSTEM's code, then a reload, waited for.  Superusers only,
 * checked here as the experiments check reload-level settings.
 */
static void
keep_one(const char *name, const char *value, void *arg)
{
	List	  **names = (List **) arg;

	if (value == NULL)
		elog(ERROR, "setting \"%s\" to keep is not a scalar", name);
	SettingsAlterSystem(name, value);
	*names = lappend(*names, pstrdup(name));
}

void
SettingsKeep(Jsonb *values)
{
	List	   *names = NIL;
	char	  **array;
	int			i = 0;
	ListCell   *lc;

	if (values == NULL || !JB_ROOT_IS_OBJECT(values) || JB_ROOT_COUNT(values) == 0)
		return;
	if (!superuser())
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("only superusers may apply settings with ALTER SYSTEM"),
				 errhint("Run it as a superuser, or leave apply out and run the ALTER SYSTEM lines of the finding.")));
	SettingsEach(values, "settings", keep_one, &names);
	array = palloc(sizeof(char *) * list_length(names));
	foreach(lc, names)
		array[i++] = lfirst(lc);
	SettingsReloadAndWait(i, array);
}
