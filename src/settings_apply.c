/*-------------------------------------------------------------------------
 *
 * settings_apply.c
 *		Reload-level settings changed for an experiment with ALTER SYSTEM,
 *		recorded before they change and restored whatever happens.
 *
 * An experiment that compares reload-level settings (context sighup:
 * max_wal_size, checkpoint_timeout, bgwriter_*, ...) cannot give them to
 * its runs as session settings: the checkpointer and the other server
 * processes read them from the configuration files.  So, superusers only:
 *
 *	1. every value of every set is checked before anything changes: the
 *	   parameter exists and is reload-level, it is not one the server needs
 *	   to start or to be reached (files, libraries, commands, connections,
 *	   replication), nothing on the command line overrides it, and the
 *	   value is one the server accepts (SettingsCheckSystem);
 *	2. the whole of postgresql.auto.conf, and the entries it has for those
 *	   settings, are committed in pgbench_lab_internal.settings_saved before the
 *	   first change (SettingsSave);
 *	3. before each run the step's values are written with ALTER SYSTEM's
 *	   own code, the server reloads, and the run starts only when a newly
 *	   started process sees them (SettingsPut, settings_probe.c);
 *	4. at the end the file goes back byte for byte (SettingsRestore); on an
 *	   error or a cancel too, from memory and without a transaction
 *	   (SettingsRestoreInError); when the session is terminated, from its
 *	   exit callback (settings_autoconf.c);
 *	5. after a crash or an immediate shutdown, the next call of any
 *	   experiment, or restore_settings(), restores from the record what no
 *	   session put back (SettingsRecover).
 *
 * Restart-level settings (a two-phase compare_settings) are checked the
 * same way before anything changes (SettingsCheckRestart), written at the
 * end of phase 1 and left in the file across the restart
 * (SettingsWriteRestart), and the file put back at the end of phase 2
 * (SettingsWriteBackRestart); the record stays open in between.
 *
 * The record is the extension owner's, as the results are; it is read and
 * written as the owner (SecureAsOwner), and never granted to anyone: the
 * file may hold passwords.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>
#include <signal.h>

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/parsenodes.h"
#include "storage/lwlock.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/memutils.h"

#include "pgbench_lab.h"
#include "secure.h"
#include "settings_apply.h"
#include "system.h"

/*
 * pg_settings categories whose settings an experiment may not change: the
 * server needs them to start, to be reached or to keep its copies.
 */
static const char *const refused_categories[] = {
	"Connections and Authentication", "File Locations", "Replication",
	"Write-Ahead Log / Archiv", "Write-Ahead Log / Recovery", NULL
};
static const char *const refused_suffixes[] = {
	"_preload_libraries", "_library", "_library_path", "_command", "_file", NULL
};

static bool
refused(const char *name, const char *category)
{
	size_t		n = strlen(name);

	for (int i = 0; refused_categories[i] != NULL; i++)
		if (strncmp(category, refused_categories[i], strlen(refused_categories[i])) == 0)
			return true;
	for (int i = 0; refused_suffixes[i] != NULL; i++)
	{
		size_t		s = strlen(refused_suffixes[i]);

		if (n >= s && strcmp(name + n - s, refused_suffixes[i]) == 0)
			return true;
	}
	return false;
}

/* pg_settings' context and category of a setting; false if unknown. */
static bool
lookup(const char *name, char **context, char **source, char **category)
{
	Oid			type = TEXTOID;
	Datum		arg = CStringGetTextDatum(name);

	if (SPI_execute_with_args("SELECT s.context, s.source, s.category FROM pg_catalog.pg_settings s "
							  "WHERE s.name OPERATOR(pg_catalog.=) pg_catalog.lower($1)",
							  1, &type, &arg, NULL, true, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not read pg_settings");
	if (SPI_processed != 1)
		return false;
	*context = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
	*source = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2);
	*category = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 3);
	return true;
}

static void
refuse_restart_level(const char *name, const char *context)
{
	if (strcmp(context, "postmaster") == 0 || strcmp(context, "internal") == 0)
		ereport(ERROR,
				(errcode(ERRCODE_CANT_CHANGE_RUNTIME_PARAM),
				 errmsg("parameter \"%s\" cannot be changed without restarting the server", name),
				 errhint(strcmp(context, "internal") == 0
						 ? "It is fixed when the server is built or its cluster initialised."
						 : "Experiments compare session- and reload-level settings; a restart-level one "
						 "needs a restart between its values.")));
}

#define PGBL_RELOAD_EXAMPLES "Compare settings such as max_wal_size, checkpoint_timeout, checkpoint_completion_target, " \
	"wal_writer_delay or bgwriter_lru_maxpages; change this one by hand."
#define PGBL_RESTART_EXAMPLES "Compare settings such as shared_buffers, wal_buffers, max_worker_processes, " \
	"max_locks_per_transaction or huge_pages; change this one by hand."

static void
refuse_by_name(const char *name, const char *category, const char *hint)
{
	if (refused(name, category))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("parameter \"%s\" is not one an experiment may change", name),
				 errdetail("It belongs to \"%s\": the server may need it to start, to be reached or to keep its copies.",
						   category),
				 errhint("%s", hint)));
}

/* What pg_settings says a setting accepts, for a hint. */
static char *
valid_values(const char *name)
{
	Oid			type = TEXTOID;
	Datum		arg = CStringGetTextDatum(name);

	if (SPI_execute_with_args("SELECT CASE WHEN s.enumvals IS NOT NULL "
							  "THEN 'Valid values are ' OPERATOR(pg_catalog.||) "
							  "pg_catalog.array_to_string(s.enumvals, ', ') OPERATOR(pg_catalog.||) '.' "
							  "WHEN s.min_val IS NOT NULL THEN pg_catalog.format('Valid values are from %s to %s%s.', "
							  "s.min_val, s.max_val, COALESCE(' (in units of ' OPERATOR(pg_catalog.||) s.unit "
							  "OPERATOR(pg_catalog.||) ', or with a unit)', '')) "
							  "ELSE 'pg_settings shows its current value and type.' END "
							  "FROM pg_catalog.pg_settings s WHERE s.name OPERATOR(pg_catalog.=) pg_catalog.lower($1)",
							  1, &type, &arg, NULL, true, 1) != SPI_OK_SELECT || SPI_processed != 1)
		return "pg_settings shows its current value and type.";
	return SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
}

/*
 * A value as the server will read it from postgresql.auto.conf, in the
 * context it is read in (PGC_SIGHUP: a reload; PGC_POSTMASTER: a start):
 * the server's own parsing, range and check hook, changing nothing.
 */
static void
check_value(const char *name, const char *value, GucContext context)
{
	if (strchr(value, '\n') != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the value of \"%s\" must not contain a newline", name)));
	if (set_config_option(name, value, context, PGC_S_FILE, GUC_ACTION_SET,
						  false, DEBUG1, false) == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid value for parameter \"%s\": \"%s\"", name, value),
				 errhint("%s", valid_values(name))));
}

/*
 * What ALTER SYSTEM cannot change for an experiment: a parameter the
 * server needs (refuse_by_name), or one the command line or environment
 * sets, which overrides postgresql.auto.conf.
 */
static void
refuse_unchangeable(const char *name, const char *category, const char *source, const char *examples)
{
	refuse_by_name(name, category, examples);
	if (strcmp(source, "command line") == 0 || strcmp(source, "environment variable") == 0)
		ereport(ERROR,
				(errcode(ERRCODE_CANT_CHANGE_RUNTIME_PARAM),
				 errmsg("parameter \"%s\" is set on the server's %s, which ALTER SYSTEM cannot override",
						name, source),
				 errhint("Start the server without it to compare its values.")));
}

/* One reload-level setting checked as ALTER SYSTEM and a reload would. */
static void
check_one(const char *name, const char *value)
{
	char	   *context;
	char	   *source;
	char	   *category;

	if (!lookup(name, &context, &source, &category))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("unrecognized configuration parameter \"%s\"", name),
				 errhint("pg_settings lists the parameters of this server.")));
	refuse_restart_level(name, context);
	if (strcmp(context, "sighup") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_CANT_CHANGE_RUNTIME_PARAM),
				 errmsg("parameter \"%s\" is not a reload-level setting", name),
				 errhint("Only settings of context sighup are changed with ALTER SYSTEM and a reload.")));
	refuse_unchangeable(name, category, source, PGBL_RELOAD_EXAMPLES);
	check_value(name, value, PGC_SIGHUP);
}

/*
 * A step's session settings, before run() checks them: restart-level ones
 * and libraries refused with a hint (run() checks the rest: names, values,
 * privileges).
 */
void
SettingsCheckSession(Jsonb *settings)
{
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;

	if (settings == NULL || !JB_ROOT_IS_OBJECT(settings))
		return;
	it = JsonbIteratorInit(&settings->root);
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		char	   *name;
		char	   *context;
		char	   *source;
		char	   *category;

		if (tok != WJB_KEY)
			continue;
		name = pnstrdup(v.val.string.val, v.val.string.len);
		if (!lookup(name, &context, &source, &category))
			continue;
		refuse_restart_level(name, context);
		if (strstr(name, "_librar") != NULL)
			refuse_by_name(name, category, PGBL_RELOAD_EXAMPLES);
	}
}

/*
 * Calls fn(name, value, arg) for each key of a jsonb object of settings,
 * in its order; value is NULL when the key's value is not a scalar.
 */
void
SettingsEach(Jsonb *settings, const char *what, SettingsEachFunc fn, void *arg)
{
	JsonbIterator *it = JsonbIteratorInit(&settings->root);
	JsonbValue	v;
	JsonbIteratorToken tok;

	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		char	   *name;

		if (tok != WJB_KEY)
			continue;
		name = pnstrdup(v.val.string.val, v.val.string.len);
		if (JsonbIteratorNext(&it, &v, true) != WJB_VALUE)
			elog(ERROR, "%s: a key without a value", what);
		fn(name, PgblJsonScalarText(&v), arg);
	}
}

/* Server-wide settings are a superuser's, and need ALTER SYSTEM. */
static void
require_alter_system(const char *level, const char *hint)
{
	const char *allow = GetConfigOption("allow_alter_system", true, false);

	if (!superuser())
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("only superusers may compare %s-level settings", level),
				 errhint("%s", hint)));
	if (allow != NULL && strcmp(allow, "off") == 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("%s-level settings cannot be compared while allow_alter_system is off", level)));
}

static void
check_system_one(const char *name, const char *value, void *arg)
{
	if (value == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("setting \"%s\" must be a string, number or boolean", name),
				 errhint("Leave a setting out of a set for its current value.")));
	check_one(name, value);
}

/*
 * Check a step's reload-level settings (a jsonb object of names and
 * values) before anything changes: superusers only, checked here and not
 * only by grants, for ALTER SYSTEM changes the whole server.
 */
void
SettingsCheckSystem(Jsonb *system, bool *any)
{
	if (system == NULL || !JB_ROOT_IS_OBJECT(system) || JB_ROOT_COUNT(system) == 0)
		return;
	*any = true;
	require_alter_system("reload",
						 "They are changed with ALTER SYSTEM and a reload, for every session of the server.");
	SettingsEach(system, "settings", check_system_one, NULL);
}

/* ALTER SYSTEM SET name = 'value', or ALTER SYSTEM RESET name (NULL). */
static void
alter_system(const char *name, const char *value)
{
	AlterSystemStmt *stmt = makeNode(AlterSystemStmt);
	VariableSetStmt *set = makeNode(VariableSetStmt);

	set->name = pstrdup(name);
	set->kind = value != NULL ? VAR_SET_VALUE : VAR_RESET;
	if (value != NULL)
	{
		A_Const    *c = makeNode(A_Const);

		c->val.sval.type = T_String;
		c->val.sval.sval = pstrdup(value);
		c->location = -1;
		set->args = list_make1(c);
	}
	stmt->setstmt = set;
	AlterSystemSetConfigFile(stmt);
}

/* ALTER SYSTEM's code for settings_restore.c's SettingsKeep(). */
void
SettingsAlterSystem(const char *name, const char *value)
{
	alter_system(name, value);
}

/* The value a step gives to a setting, or NULL. */
static char *
step_value(Jsonb *system, const char *name)
{
	JsonbValue	key;
	JsonbValue *v;

	if (system == NULL || !JB_ROOT_IS_OBJECT(system))
		return NULL;
	key.type = jbvString;
	key.val.string.val = (char *) name;
	key.val.string.len = strlen(name);
	v = findJsonbValueFromContainer(&system->root, JB_FOBJECT, &key);
	return v != NULL ? PgblJsonScalarText(v) : NULL;
}

/* Each setting back to its saved entry, one by one. */
static void
put_entries(const AutoConfSaved *saved)
{
	for (int i = 0; i < saved->nnames; i++)
		alter_system(saved->names[i], saved->orig[i]);
}

/*
 * The file as saved: byte for byte if it differs only in the experiment's
 * settings, else their entries one by one.  Returns how.
 */
const char *
SettingsPutBack(const AutoConfSaved *saved, bool *changed)
{
	if (AutoConfPutBack(saved, ERROR, changed))
		return *changed ? "postgresql.auto.conf written back byte for byte"
			: "postgresql.auto.conf was already as saved";
	put_entries(saved);
	*changed = true;
	return "the file had other changes since: only these settings' entries restored, with ALTER SYSTEM";
}

/*
 * A step's values in place: the step's own value for each setting it
 * names, the saved entry for the others; then a reload, waited for.
 */
void
SettingsPut(AutoConfSaved *saved, Jsonb *system)
{
	bool		changed;

	if (system == NULL || JB_ROOT_COUNT(system) == 0)
		(void) SettingsPutBack(saved, &changed);
	else
		for (int i = 0; i < saved->nnames; i++)
		{
			char	   *value = step_value(system, saved->names[i]);

			alter_system(saved->names[i], value != NULL ? value : saved->orig[i]);
		}
	SettingsReloadAndWait(saved->nnames, saved->names);
}

/*
 * Refuse when another experiment's saved settings are not restored yet:
 * one waiting for a restart, or one changing settings now.  This
 * session's own record is not one under way: a session runs one call at
 * a time, so an experiment of its own that left a record was stopped (a
 * cancel, statement_timeout, an error) and its file put back then; the
 * recovery that follows closes the record.  As the extension's owner (the
 * record is its own).
 */
static void
refuse_busy(bool live_only)
{
	if (SPI_execute(live_only
					? "SELECT s.experiment_id, s.backend_pid, s.waiting FROM pgbench_lab_internal.settings_saved s "
					"WHERE s.restored_at IS NULL AND (s.waiting OR EXISTS (SELECT FROM pg_catalog.pg_stat_activity a "
					"WHERE a.pid OPERATOR(pg_catalog.=) s.backend_pid "
					"AND a.pid OPERATOR(pg_catalog.<>) pg_catalog.pg_backend_pid() "
					"AND a.backend_start OPERATOR(pg_catalog.=) s.backend_start))"
					: "SELECT s.experiment_id, s.backend_pid, s.waiting FROM pgbench_lab_internal.settings_saved s "
					"WHERE s.restored_at IS NULL", true, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not read pgbench_lab_internal.settings_saved");
	if (SPI_processed > 0 && strcmp(SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 3), "t") == 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_IN_USE),
				 errmsg("experiment %s is waiting for a restart with its settings written by ALTER SYSTEM",
						SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1)),
				 errhint("Restart the server and CALL pgbench_lab.resume(%s), or abandon it with "
						 "SELECT * FROM pgbench_lab.restore_settings().",
						 SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1))));
	if (SPI_processed > 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_IN_USE),
				 errmsg("experiment %s of session %s is changing settings with ALTER SYSTEM",
						SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1),
						SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2)),
				 errhint("Wait for it to end; one experiment at a time may change reload-level settings.")));
}

static void
refuse_busy_as_owner(void *arg)
{
	refuse_busy(true);
}

/*
 * Before an experiment that changes settings records anything: refused
 * while another's are not restored, with what that one is doing, before
 * its values in the configuration files are taken for pending ones.  The
 * record itself checks again under its lock (SettingsSave), after the
 * settings of sessions that are gone have been put back
 * (ExperimentRecoverSettings): those are not counted here.  In an SPI
 * connection.
 */
void
SettingsCheckBusy(void)
{
	SecureAsOwner(refuse_busy_as_owner, NULL);
}

typedef struct SaveCall
{
	int64		experiment_id;
	AutoConfSaved *saved;
	Datum		names;
} SaveCall;

/* Runs as the extension's owner (SecureAsOwner): the record. */
static void
save_as_owner(void *arg)
{
	SaveCall   *call = (SaveCall *) arg;
	AutoConfSaved *s = call->saved;
	Oid			types[4] = {INT8OID, TEXTARRAYOID, TEXTARRAYOID, BYTEAOID};
	Datum		values[4];
	char		nulls[4] = {' ', ' ', ' ', s->exists ? ' ' : 'n'};
	Datum	   *orig = palloc(sizeof(Datum) * s->nnames);
	bool	   *orig_null = palloc(sizeof(bool) * s->nnames);
	int			dims[1] = {s->nnames};
	int			lbs[1] = {1};
	bytea	   *bytes = palloc(VARHDRSZ + s->len);

	if (SPI_execute("LOCK TABLE pgbench_lab_internal.settings_saved IN EXCLUSIVE MODE", false, 0) != SPI_OK_UTILITY)
		elog(ERROR, "could not lock pgbench_lab_internal.settings_saved");
	refuse_busy(false);
	for (int i = 0; i < s->nnames; i++)
	{
		orig_null[i] = s->orig[i] == NULL;
		orig[i] = orig_null[i] ? (Datum) 0 : CStringGetTextDatum(s->orig[i]);
	}
	SET_VARSIZE(bytes, VARHDRSZ + s->len);
	if (s->len > 0)
		memcpy(VARDATA(bytes), s->bytes, s->len);
	values[0] = Int64GetDatum(call->experiment_id);
	values[1] = call->names;
	values[2] = PointerGetDatum(construct_md_array(orig, orig_null, 1, dims, lbs, TEXTOID, -1, false, TYPALIGN_INT));
	values[3] = PointerGetDatum(bytes);
	if (SPI_execute_with_args("INSERT INTO pgbench_lab_internal.settings_saved (experiment_id, names, entries, auto_conf, "
							  "backend_pid, backend_start) SELECT $1, $2, pg_catalog.jsonb_object($2, $3), $4, "
							  "pg_catalog.pg_backend_pid(), a.backend_start "
							  "FROM pg_catalog.pg_stat_get_activity(pg_catalog.pg_backend_pid()) a",
							  4, types, values, nulls, false, 0) != SPI_OK_INSERT || SPI_processed != 1)
		elog(ERROR, "could not record postgresql.auto.conf in pgbench_lab_internal.settings_saved");
}

/*
 * Record postgresql.auto.conf and the entries of names (a text[]) for the
 * experiment, as the owner; the caller commits before the first change.
 * From then on the session's exit puts the file back.
 */
AutoConfSaved *
SettingsSave(int64 experiment_id, Datum names)
{
	Datum	   *elems;
	int			n;
	MemoryContext old;
	AutoConfSaved *s;
	SaveCall	call = {experiment_id, NULL, names};

	deconstruct_array(DatumGetArrayTypeP(names), TEXTOID, -1, false, TYPALIGN_INT, &elems, NULL, &n);
	old = MemoryContextSwitchTo(TopMemoryContext);
	s = palloc0(sizeof(AutoConfSaved));
	call.saved = s;
	s->experiment_id = experiment_id;
	s->nnames = n;
	s->names = palloc(sizeof(char *) * n);
	s->orig = palloc(sizeof(char *) * n);
	s->exists = AutoConfRead(&s->bytes, &s->len);
	for (int i = 0; i < n; i++)
	{
		s->names[i] = TextDatumGetCString(elems[i]);
		s->orig[i] = AutoConfEntry(s->bytes, s->len, s->names[i]);
	}
	MemoryContextSwitchTo(old);
	SecureAsOwner(save_as_owner, &call);
	AutoConfArmExit(s);
	return s;
}

/* The saved state, once the experiment is over and the file restored. */
void
SettingsFree(AutoConfSaved *saved)
{
	for (int i = 0; i < saved->nnames; i++)
	{
		pfree(saved->names[i]);
		if (saved->orig[i] != NULL)
			pfree(saved->orig[i]);
	}
	pfree(saved->names);
	pfree(saved->orig);
	if (saved->bytes != NULL)
		pfree(saved->bytes);
	pfree(saved);
}

/* As the extension's owner: the record says how it was restored. */
void
SettingsMarkRestored(int64 experiment_id, const char *outcome)
{
	Oid			types[2] = {INT8OID, TEXTOID};
	Datum		values[2] = {Int64GetDatum(experiment_id), CStringGetTextDatum(outcome)};

	if (SPI_execute_with_args("UPDATE pgbench_lab_internal.settings_saved s SET restored_at = pg_catalog.now(), "
							  "outcome = $2 WHERE s.experiment_id OPERATOR(pg_catalog.=) $1",
							  2, types, values, NULL, false, 0) != SPI_OK_UPDATE)
		elog(ERROR, "could not update pgbench_lab_internal.settings_saved");
}

typedef struct MarkCall
{
	int64		experiment_id;
	const char *outcome;
} MarkCall;

static void
mark_as_owner(void *arg)
{
	MarkCall   *m = (MarkCall *) arg;

	SettingsMarkRestored(m->experiment_id, m->outcome);
}

/* The experiment's end: the file as saved, reloaded, and so recorded. */
void
SettingsRestore(AutoConfSaved *saved)
{
	bool		changed;
	MarkCall	m = {saved->experiment_id, NULL};

	m.outcome = SettingsPutBack(saved, &changed);
	AutoConfDisarmExit();
	SettingsReloadAndWait(saved->nnames, saved->names);
	SecureAsOwner(mark_as_owner, &m);
}

/*
 * In a PG_CATCH block, with the error copied and flushed: put the file
 * back from memory, have the server reload it, and throw nothing.  Returns
 * whether the file is as saved; the record stays open for the caller to
 * close (experiment_abort.c), or the next call, which finds the file as
 * saved.
 */
bool
SettingsRestoreInError(AutoConfSaved *saved)
{
	MemoryContext cxt = AllocSetContextCreate(TopMemoryContext, "pgbench_lab restore",
											  ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(cxt);
	bool		changed = false;
	volatile bool back = false;

	AutoConfDisarmExit();
	/* an error thrown inside ALTER SYSTEM's own write may have left it held */
	if (LWLockHeldByMe(AutoFileLock))
		LWLockRelease(AutoFileLock);
	PG_TRY();
	{
		back = AutoConfPutBack(saved, WARNING, &changed);
		if (!back)
			ereport(WARNING,
					(errmsg("postgresql.auto.conf was changed by someone else during experiment " INT64_FORMAT,
							saved->experiment_id),
					 errhint("SELECT * FROM pgbench_lab.restore_settings() restores this experiment's settings one by one.")));
		if (changed)
			(void) kill(PostmasterPid, SIGHUP);
	}
	PG_CATCH();
	{
		EmitErrorReport();
		FlushErrorState();
	}
	PG_END_TRY();
	MemoryContextSwitchTo(old);
	MemoryContextDelete(cxt);
	return back;
}

/*
 * Restart-level settings (two-phase compare_settings, experiment_restart.c).
 * A value the server refuses at its start would keep it from starting at
 * all, so each one is checked as the server will check it: the parameter
 * exists and is restart-level, is not one the server needs to start or to
 * be reached (data_directory, port, listen_addresses, preload lists...),
 * nothing on the command line overrides it, and its value passes the
 * server's own parsing, range and check hook.  String parameters are
 * refused: their values are paths, lists and names that only the start
 * itself could check.
 *
 * A value within the parameter's range can still be more than the machine
 * gives: shared memory (shared_buffers, wal_buffers) is checked against the
 * memory the server may use (system_info()'s memory limit: the machine's,
 * or its cgroup's), and at most 90 % of it is accepted; huge_pages = on
 * needs huge pages reserved (HugePages_Total in /proc/meminfo).
 *
 * XXX: a shared memory size the kernel's other limits refuse, or huge
 * pages too few for it, still keep the server from starting; the value is
 * then taken out of postgresql.auto.conf by hand.
 */
static char *
setting_vartype(const char *name)
{
	Oid			type = TEXTOID;
	Datum		arg = CStringGetTextDatum(name);

	if (SPI_execute_with_args("SELECT s.vartype FROM pg_catalog.pg_settings s "
							  "WHERE s.name OPERATOR(pg_catalog.=) pg_catalog.lower($1)",
							  1, &type, &arg, NULL, true, 1) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "could not read pg_settings");
	return SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
}

/* A shared memory size within 90 % of the memory the server may use. */
static void
check_fits_memory(const char *name, const char *value)
{
	int			flags = GetConfigOptionFlags(name, true);
	int			units;
	double		bytes;
	SystemFacts facts;

	if (pg_strcasecmp(name, "huge_pages") == 0)
	{
		char		buf[8192];
		const char *at;
		bool		on;

		if (parse_bool(value, &on) && on && SystemReadFile(SystemPath("/proc/meminfo"), buf, sizeof(buf)) &&
			(at = strstr(buf, "HugePages_Total:")) != NULL &&
			strtol(at + strlen("HugePages_Total:"), NULL, 10) == 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("huge_pages = on needs huge pages reserved, and this machine has none"),
					 errdetail("The server would fail to allocate its shared memory at the restart and not start."),
					 errhint("Reserve them (vm.nr_hugepages; recommend() gives the count) or compare huge_pages = try.")));
		return;
	}
	if (pg_strcasecmp(name, "shared_buffers") != 0 && pg_strcasecmp(name, "wal_buffers") != 0)
		return;
	if (!parse_int(value, &units, flags, NULL) || units < 0)
		return;					/* -1 (wal_buffers: automatic) and the like */
	bytes = (double) units * ((flags & GUC_UNIT_XBLOCKS) ? XLOG_BLCKSZ :
							  (flags & GUC_UNIT_BLOCKS) ? BLCKSZ : 1024);
	memset(&facts, 0, sizeof(facts));
	SystemProbeMemory(&facts);
	if (facts.memory_limit > 0 && bytes > 0.9 * facts.memory_limit)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s = %s is more than 90%% of the memory the server may use (%.0f MB)",
						name, value, facts.memory_limit / (1024.0 * 1024.0)),
				 errdetail("The server would fail to allocate its shared memory at the restart and not start."),
				 errhint("system_info() shows the memory limit; recommend() sizes %s for it.", name)));
}

static void
check_restart_one(const char *name, const char *value, void *arg)
{
	char	   *context;
	char	   *source;
	char	   *category;

	if (value == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("setting \"%s\" must be a string, number or boolean", name),
				 errhint("Give each restart-level setting the value set B is to have.")));
	if (!lookup(name, &context, &source, &category))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("unrecognized configuration parameter \"%s\"", name),
				 errhint("pg_settings lists the parameters of this server; restart-level ones have context postmaster.")));
	if (strcmp(context, "internal") == 0)
		refuse_restart_level(name, context);
	if (strcmp(context, "postmaster") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("parameter \"%s\" is not a restart-level setting", name),
				 errhint("Compare it with settings => ARRAY['{}', '{\"%s\": \"...\"}']::pg_catalog.jsonb[]: it needs no restart.", name)));
	refuse_unchangeable(name, category, source, PGBL_RESTART_EXAMPLES);
	if (strcmp(setting_vartype(name), "string") == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("parameter \"%s\" takes a string, which cannot be checked before the restart", name),
				 errhint("%s", PGBL_RESTART_EXAMPLES)));
	check_value(name, value, PGC_POSTMASTER);
	check_fits_memory(name, value);
}

/*
 * Check the restart-level settings of a two-phase experiment (a jsonb
 * object of names and values) before anything changes; superusers only.
 */
void
SettingsCheckRestart(Jsonb *restart)
{
	require_alter_system("restart",
						 "They are written with ALTER SYSTEM and take effect for the whole server when it restarts.");
	SettingsEach(restart, "restart_settings", check_restart_one, NULL);
}

/*
 * Phase 1's end: set B's values written with ALTER SYSTEM, and the server
 * told to reread its files (it takes none of them before a restart, but
 * pg_settings then shows them as pending_restart).
 */
void
SettingsWriteRestart(AutoConfSaved *saved, Jsonb *restart)
{
	for (int i = 0; i < saved->nnames; i++)
		alter_system(saved->names[i], step_value(restart, saved->names[i]));
	if (kill(PostmasterPid, SIGHUP) != 0)
		ereport(WARNING,
				(errmsg("could not signal the postmaster to reload its configuration: %m")));
}

/*
 * Phase 2's end: postgresql.auto.conf as it was before phase 1, and so
 * recorded; the outcome.  The server keeps B's values until it restarts.
 */
const char *
SettingsWriteBackRestart(AutoConfSaved *saved)
{
	bool		changed;
	MarkCall	m = {saved->experiment_id, NULL};

	m.outcome = psprintf("%s; the server runs with set B's values until it restarts again",
						 SettingsPutBack(saved, &changed));
	AutoConfDisarmExit();
	(void) kill(PostmasterPid, SIGHUP);
	SecureAsOwner(mark_as_owner, &m);
	return m.outcome;
}

/*
 * Whether a restart-level setting has the value an experiment wrote, as
 * the server took it: numbers compared in the parameter's unit (256MB and
 * 32768 8kB-pages are the same), booleans and enums by meaning; *shown is
 * the live value as SHOW prints it.
 */
bool
SettingsValueIsLive(const char *name, const char *value, char **shown)
{
	char	   *vartype = setting_vartype(name);
	const char *live = GetConfigOption(name, false, false);
	int			flags = GetConfigOptionFlags(name, false);

	*shown = GetConfigOptionByName(name, NULL, false);
	if (strcmp(vartype, "integer") == 0)
	{
		int			want;
		int			have;

		return parse_int(value, &want, flags, NULL) && parse_int(live, &have, flags, NULL) && want == have;
	}
	if (strcmp(vartype, "real") == 0)
	{
		double		want;
		double		have;

		return parse_real(value, &want, flags, NULL) && parse_real(live, &have, flags, NULL) &&
			fabs(want - have) <= 1e-9 * Max(fabs(want), fabs(have));
	}
	if (strcmp(vartype, "bool") == 0)
	{
		bool		want;
		bool		have;

		return parse_bool(value, &want) && parse_bool(live, &have) && want == have;
	}
	if (strcmp(vartype, "enum") == 0)
		return pg_strcasecmp(value, live) == 0;
	return strcmp(value, live) == 0;
}
