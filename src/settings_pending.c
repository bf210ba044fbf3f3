/*-------------------------------------------------------------------------
 *
 * settings_pending.c
 *		An experiment that reloads or restarts the server touches only the
 *		settings it owns: values written in the configuration files and not
 *		yet applied refuse it before anything starts.
 *
 * An experiment with reload-level settings writes them with ALTER SYSTEM
 * and has the server reload (settings_apply.c); a two-phase one writes its
 * restart-level settings, signals a reload and asks for a restart.  Either
 * one would also make live whatever else the configuration files hold that
 * the server has not applied yet: an ALTER SYSTEM SET or RESET the DBA has
 * not reloaded, a line edited in postgresql.conf.  The experiment would
 * then measure those values as "the current settings", and leave them live
 * when it ends.  So before anything is recorded, SettingsCheckPending()
 * compares what the files say with what is live, and refuses (55000) when
 * a reload (or, for a two-phase experiment, a restart) would change any
 * setting but those the experiment itself writes at its restart.
 *
 * What the files say is pg_file_settings (postgresql.conf, the files it
 * includes, postgresql.auto.conf), the last entry of each setting, as the
 * server applies them.  A setting that was live from a file and no longer
 * has an entry there goes back to its default at a reload, and counts as
 * pending too.  What is live is the value this session took from the files
 * (the setting's reset value, so that a SET of the session's own is not
 * mistaken for the server's); a setting the command line, the role, the
 * database or the server itself (computed values) sets over the files is
 * left out: a reload does not change it.
 *
 * Values are compared as the server compares them, not as text: a file's
 * value is parsed as the server parses it (units, booleans, enum names and
 * their aliases in any case), checked against the setting's range and its
 * check hook (which also gives a string its canonical form: 'iso, mdy' is
 * DateStyle's 'ISO, MDY'), and compared with the live value.  A value the
 * server would refuse is left out: a reload keeps the old value and logs
 * the error.
 *
 * XXX: this session's values are those of the last reload it processed;
 * a reload the postmaster has signalled but this session not yet taken is
 * processed first, as between two commands.  A pg_reload_conf() that the
 * postmaster has not got round to when the experiment starts still counts
 * as pending: the caller calls again.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "postmaster/interrupt.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/guc_tables.h"

#include "compat.h"
#include "settings_apply.h"

/* one setting a reload or restart would change */
typedef struct PendingValue
{
	struct config_generic *gen;
	char	   *value;			/* as the file has it; NULL: no entry any more */
	char	   *file;
	int			line;
} PendingValue;

/* The setting of this name (case as the server ignores it), or NULL. */
static struct config_generic *
find_setting(struct config_generic **vars, int nvars, const char *name)
{
	for (int i = 0; i < nvars; i++)
		if (pg_strcasecmp(vars[i]->name, name) == 0)
			return vars[i];
	return NULL;
}

/*
 * Whether a reload (or, restart, a restart) applies a file's value of this
 * setting at all: not a read-only one, not one that no file may set, and
 * not one set over the files (command line, role, database, the server's
 * own computed value).
 */
static bool
applied_from_files(struct config_generic *g, bool restart)
{
	if (g->context == PGC_INTERNAL || (g->context == PGC_POSTMASTER && !restart))
		return false;
	if (g->flags & GUC_DISALLOW_IN_FILE)
		return false;
	return g->reset_source <= PGC_S_FILE;
}

/*
 * A check hook's verdict, its extra freed (the hook has run: arguments are
 * evaluated before the call); what it said for a message is not needed.
 */
static bool
hook_said(bool ok, void **extra)
{
	PgblGucFree(*extra);
	*extra = NULL;
	GUC_check_errmsg_string = NULL;
	GUC_check_errdetail_string = NULL;
	GUC_check_errhint_string = NULL;
	return ok;
}

static bool
same_real(double a, double b)
{
	return fabs(a - b) <= 1e-9 * Max(fabs(a), fabs(b));
}

/*
 * A value as the server would take it from a file, against the live one:
 * 1 when it differs, 0 when it is the same, -1 when the server would
 * refuse it (parse, range, check hook: parse_and_validate_value's steps).
 */
static int
differs_from_live(struct config_generic *g, const char *value)
{
	void	   *extra = NULL;

	switch (g->vartype)
	{
		case PGC_BOOL:
			{
				struct config_bool *conf = (struct config_bool *) g;
				bool		v;

				if (!parse_bool(value, &v) ||
					(conf->check_hook != NULL && !hook_said(conf->check_hook(&v, &extra, PGC_S_FILE), &extra)))
					return -1;
				return v != conf->reset_val;
			}
		case PGC_INT:
			{
				struct config_int *conf = (struct config_int *) g;
				int			v;

				if (!parse_int(value, &v, g->flags, NULL) || v < conf->min || v > conf->max ||
					(conf->check_hook != NULL && !hook_said(conf->check_hook(&v, &extra, PGC_S_FILE), &extra)))
					return -1;
				return v != conf->reset_val;
			}
		case PGC_REAL:
			{
				struct config_real *conf = (struct config_real *) g;
				double		v;

				if (!parse_real(value, &v, g->flags, NULL) || v < conf->min || v > conf->max ||
					(conf->check_hook != NULL && !hook_said(conf->check_hook(&v, &extra, PGC_S_FILE), &extra)))
					return -1;
				return !same_real(v, conf->reset_val);
			}
		case PGC_ENUM:
			{
				struct config_enum *conf = (struct config_enum *) g;
				int			v;

				if (!config_enum_lookup_by_name(conf, value, &v) ||
					(conf->check_hook != NULL && !hook_said(conf->check_hook(&v, &extra, PGC_S_FILE), &extra)))
					return -1;
				return v != conf->reset_val;
			}
		case PGC_STRING:
			{
				struct config_string *conf = (struct config_string *) g;
				char	   *v;
				int			result;

				/*
				 * The same text is the same value, whatever the hook would
				 * make of it now (default_text_search_config is qualified
				 * only inside a transaction, and a reload runs outside one)
				 */
				if (strcmp(value, conf->reset_val != NULL ? conf->reset_val : "") == 0)
					return 0;
				v = PgblGucStrdup(value);
				if (conf->check_hook != NULL && !hook_said(conf->check_hook(&v, &extra, PGC_S_FILE), &extra))
				{
					PgblGucFree(v);
					return -1;
				}
				result = strcmp(v != NULL ? v : "", conf->reset_val != NULL ? conf->reset_val : "") != 0;
				PgblGucFree(v);
				return result;
			}
	}
	return -1;
}

/*
 * Whether the setting's default (what a reload gives it once its entry is
 * gone) differs from its live value.
 */
static bool
default_differs(struct config_generic *g)
{
	switch (g->vartype)
	{
		case PGC_BOOL:
			return ((struct config_bool *) g)->boot_val != ((struct config_bool *) g)->reset_val;
		case PGC_INT:
			return ((struct config_int *) g)->boot_val != ((struct config_int *) g)->reset_val;
		case PGC_REAL:
			return !same_real(((struct config_real *) g)->boot_val, ((struct config_real *) g)->reset_val);
		case PGC_ENUM:
			return ((struct config_enum *) g)->boot_val != ((struct config_enum *) g)->reset_val;
		case PGC_STRING:
			{
				struct config_string *conf = (struct config_string *) g;

				return strcmp(conf->boot_val != NULL ? conf->boot_val : "",
							  conf->reset_val != NULL ? conf->reset_val : "") != 0;
			}
	}
	return false;
}

/*
 * A number with its unit as SHOW writes it: in the largest unit that
 * holds it whole (300 s is 5min, 16384 8kB-pages 128MB).
 */
typedef struct ShowUnit
{
	const char *name;
	double		size;			/* in bytes, or in microseconds */
} ShowUnit;

static const ShowUnit memory_units[] = {
	{"TB", 1099511627776.0}, {"GB", 1073741824.0}, {"MB", 1048576.0}, {"kB", 1024.0}, {"B", 1.0}, {NULL, 0}
};
static const ShowUnit time_units[] = {
	{"d", 86400e6}, {"h", 3600e6}, {"min", 60e6}, {"s", 1e6}, {"ms", 1e3}, {"us", 1.0}, {NULL, 0}
};

static char *
show_number(double value, int flags)
{
	const ShowUnit *units = memory_units;
	double		base;
	double		n;

	switch (flags & GUC_UNIT_MEMORY)
	{
		case GUC_UNIT_BYTE:
			base = 1.0;
			break;
		case GUC_UNIT_KB:
			base = 1024.0;
			break;
		case GUC_UNIT_BLOCKS:
			base = BLCKSZ;
			break;
		case GUC_UNIT_XBLOCKS:
			base = XLOG_BLCKSZ;
			break;
		case GUC_UNIT_MB:
			base = 1048576.0;
			break;
		default:
			units = time_units;
			switch (flags & GUC_UNIT_TIME)
			{
				case GUC_UNIT_MS:
					base = 1e3;
					break;
				case GUC_UNIT_S:
					base = 1e6;
					break;
				case GUC_UNIT_MIN:
					base = 60e6;
					break;
				default:
					return psprintf("%g", value);
			}
	}
	if (value <= 0)
		return psprintf("%g", value);
	for (int i = 0; units[i].name != NULL; i++)
	{
		n = value * base / units[i].size;
		if (n == rint(n) || units[i + 1].name == NULL)
			return psprintf("%.15g%s", n, units[i].name);
	}
	return psprintf("%g", value);
}

/* A setting's live value (default: its default instead) as SHOW writes it. */
static char *
show_value(struct config_generic *g, bool boot)
{
	/* the common case: this session has not set it itself */
	if (!boot && g->source == g->reset_source && g->stack == NULL)
		return GetConfigOptionByName(g->name, NULL, false);
	switch (g->vartype)
	{
		case PGC_BOOL:
			return pstrdup((boot ? ((struct config_bool *) g)->boot_val : ((struct config_bool *) g)->reset_val)
						   ? "on" : "off");
		case PGC_INT:
			return show_number(boot ? ((struct config_int *) g)->boot_val : ((struct config_int *) g)->reset_val,
							   g->flags);
		case PGC_REAL:
			return show_number(boot ? ((struct config_real *) g)->boot_val : ((struct config_real *) g)->reset_val,
							   g->flags);
		case PGC_ENUM:
			return pstrdup(config_enum_lookup_by_value((struct config_enum *) g,
													   boot ? ((struct config_enum *) g)->boot_val
													   : ((struct config_enum *) g)->reset_val));
		case PGC_STRING:
			{
				const char *s = boot ? ((struct config_string *) g)->boot_val
					: ((struct config_string *) g)->reset_val;

				return pstrdup(s != NULL ? s : "");
			}
	}
	return pstrdup("?");
}

/* A file's name as a DBA reads it: within the data directory, relative to it. */
static const char *
short_file(const char *file)
{
	size_t		n = strlen(DataDir);

	if (file != NULL && strncmp(file, DataDir, n) == 0 && file[n] == '/')
		return file + n + 1;
	return file != NULL ? file : "?";
}

/*
 * The configuration files' last entry of each setting, in the files'
 * order, as pending values of those a reload or restart would change;
 * *unsure when a line of the files could not be read (a reload then
 * applies none of them) or names a setting by another name.
 */
static List *
pending_entries(struct config_generic **vars, int nvars, bool restart, struct config_generic **seen,
				int *nseen, bool *unsure)
{
	List	   *last = NIL;
	List	   *pending = NIL;
	ListCell   *lc;

	if (SPI_execute("SELECT f.name, f.setting, f.sourcefile, f.sourceline FROM pg_catalog.pg_file_settings f "
					"ORDER BY f.seqno", true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read pg_file_settings");
	*nseen = 0;
	*unsure = false;
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		HeapTuple	row = SPI_tuptable->vals[i];
		TupleDesc	desc = SPI_tuptable->tupdesc;
		char	   *name = SPI_getvalue(row, desc, 1);
		char	   *line = SPI_getvalue(row, desc, 4);
		struct config_generic *g;
		PendingValue *p = NULL;

		if (name == NULL)
		{
			*unsure = true;		/* a line the parser could not read */
			continue;
		}
		g = find_setting(vars, nvars, name);
		if (g == NULL)
		{
			/* an old name the server maps (sort_mem ...), or unknown: aside */
			if (GetConfigOption(name, true, false) != NULL)
				*unsure = true;
			continue;
		}
		/* a later entry of a setting replaces an earlier one */
		foreach(lc, last)
			if (((PendingValue *) lfirst(lc))->gen == g)
				p = lfirst(lc);
		if (p == NULL)
		{
			p = palloc0(sizeof(PendingValue));
			p->gen = g;
			last = lappend(last, p);
			seen[(*nseen)++] = g;
		}
		p->value = SPI_getvalue(row, desc, 2);
		p->file = SPI_getvalue(row, desc, 3);
		p->line = line != NULL ? atoi(line) : 0;
	}
	foreach(lc, last)
	{
		PendingValue *p = lfirst(lc);

		if (p->value != NULL && applied_from_files(p->gen, restart) && differs_from_live(p->gen, p->value) == 1)
			pending = lappend(pending, p);
	}
	return pending;
}

/*
 * Before an experiment that reloads (reloads: it has reload-level
 * settings) or restarts the server (restart: its restart-level settings,
 * or NULL) records anything: refuse it when the configuration files hold
 * values a reload or the restart would make live, other than those of the
 * restart-level settings it writes itself.
 */
void
SettingsCheckPending(bool reloads, Jsonb *restart)
{
	int			nvars;
	struct config_generic **vars;
	struct config_generic **seen;
	struct config_generic **own = NULL;
	int			nseen;
	int			nown = 0;
	bool		unsure;
	bool		restart_level = false;
	List	   *pending;
	ListCell   *lc;
	StringInfoData list;

	if (!reloads && restart == NULL)
		return;
	/* those who may not change settings are refused by the checks that follow */
	if (!superuser())
		return;
	/* a reload the postmaster has signalled: taken, as between two commands */
	if (ConfigReloadPending)
	{
		ConfigReloadPending = false;
		ProcessConfigFile(PGC_SIGHUP);
	}
	vars = PGBL_GUC_VARIABLES(&nvars);
	seen = palloc(sizeof(struct config_generic *) * Max(nvars, 1));
	pending = pending_entries(vars, nvars, restart != NULL, seen, &nseen, &unsure);
	/* live from a file, no entry there any more: its default at a reload */
	for (int i = 0; i < nvars && !unsure; i++)
	{
		struct config_generic *g = vars[i];
		PendingValue *p;
		bool		found = false;

		if (g->reset_source != PGC_S_FILE || !applied_from_files(g, restart != NULL) ||
			(g->flags & GUC_CUSTOM_PLACEHOLDER))
			continue;
		for (int j = 0; j < nseen && !found; j++)
			found = seen[j] == g;
		if (found || !default_differs(g))
			continue;
		p = palloc0(sizeof(PendingValue));
		p->gen = g;
		p->file = g->source == g->reset_source ? g->sourcefile : NULL;
		p->line = g->sourceline;
		pending = lappend(pending, p);
	}
	/* the restart-level settings the experiment writes are its own */
	if (restart != NULL)
	{
		JsonbIterator *it = JsonbIteratorInit(&restart->root);
		JsonbValue	v;
		JsonbIteratorToken tok;

		own = palloc(sizeof(struct config_generic *) * Max(JB_ROOT_COUNT(restart), 1));
		while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
			if (tok == WJB_KEY)
				own[nown++] = find_setting(vars, nvars, pnstrdup(v.val.string.val, v.val.string.len));
	}
	initStringInfo(&list);
	foreach(lc, pending)
	{
		PendingValue *p = lfirst(lc);
		bool		mine = false;

		for (int j = 0; j < nown && !mine; j++)
			mine = own[j] == p->gen;
		if (mine)
			continue;
		if (p->gen->context == PGC_POSTMASTER)
			restart_level = true;
		if (list.len > 0)
			appendStringInfoString(&list, "; ");
		if (p->value != NULL)
			appendStringInfo(&list, "%s = '%s' (%s line %d; live: %s)", p->gen->name, p->value,
							 short_file(p->file), p->line, show_value(p->gen, false));
		else if (p->file != NULL)
			appendStringInfo(&list, "%s: no entry any more, its default %s (live: %s, from %s line %d)",
							 p->gen->name, show_value(p->gen, true), show_value(p->gen, false),
							 short_file(p->file), p->line);
		else
			appendStringInfo(&list, "%s: no entry any more, its default %s (live: %s)",
							 p->gen->name, show_value(p->gen, true), show_value(p->gen, false));
	}
	if (list.len == 0)
		return;
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("the configuration files hold values not yet live, which this experiment's %s would apply: %s",
					restart != NULL ? "reload and restart" : "reload", list.data),
			 errdetail("The experiment would measure them as the current settings and leave them live when it ends."),
			 restart_level
			 ? errhint("Make them live first (SELECT pg_reload_conf(); a restart for restart-level ones) and call again, "
					   "or undo them: ALTER SYSTEM RESET name for postgresql.auto.conf, an edit of the file named for the others.")
			 : errhint("Make them live first with SELECT pg_reload_conf() and call again, "
					   "or undo them: ALTER SYSTEM RESET name for postgresql.auto.conf, an edit of the file named for the others.")));
}
