/*-------------------------------------------------------------------------
 *
 * settings_live.c
 *		The live server's settings (pg_settings, not a run's session
 *		settings): current value, source, context and the server's own
 *		bounds, and the validation of every recommendation.
 *
 * Everything comes from pg_settings through one SPI query, so the values are
 * exactly what the DBA sees, including ALTER SYSTEM and per-database or
 * per-role overrides in effect for this session.  Values and bounds are
 * converted once into the recommender's base units (bytes for memory,
 * seconds for time) using the unit pg_settings reports, so that comparing
 * and clamping never parse strings twice.  A recommendation outside the
 * server's bounds is clamped to them and says so: a value the server would
 * refuse is never handed to the DBA.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/builtins.h"

#include "settings_live.h"

#define PGBL_SETTINGS_QUERY \
	"SELECT name, pg_catalog.current_setting(name), setting, source, context," \
	" vartype, unit, min_val, max_val, enumvals::pg_catalog.text" \
	" FROM pg_catalog.pg_settings"

/*
 * Base units (bytes or seconds) per unit of pg_settings.unit: "8kB" is
 * 8192, "min" 60.  NULL and unknown units count as plain numbers.
 */
static double
unit_multiplier(const char *unit)
{
	static const struct
	{
		const char *name;
		double		factor;
	}			units[] =
	{
		{"B", 1.0}, {"kB", 1024.0}, {"MB", 1024.0 * 1024},
		{"GB", 1024.0 * 1024 * 1024}, {"TB", 1024.0 * 1024 * 1024 * 1024},
		{"ms", 0.001}, {"s", 1.0}, {"min", 60.0}, {"h", 3600.0}, {"d", 86400.0}
	};
	double		count = 1.0;
	char	   *end;

	if (unit == NULL)
		return 1.0;
	if (isdigit((unsigned char) unit[0]))
	{
		count = strtod(unit, &end);
		unit = end;
	}
	for (int i = 0; i < lengthof(units); i++)
		if (strcmp(unit, units[i].name) == 0)
			return count * units[i].factor;
	return 1.0;
}

/* pg_settings.context, in the words a DBA acts on. */
static const char *
map_context(const char *context)
{
	if (strcmp(context, "postmaster") == 0)
		return "restart";
	if (strcmp(context, "sighup") == 0)
		return "reload";
	if (strcmp(context, "user") == 0 || strcmp(context, "superuser") == 0)
		return "session";
	if (strcmp(context, "internal") == 0)
		return "read-only";
	return "new session";		/* backend, superuser-backend */
}

static char *
copy_value(MemoryContext cxt, HeapTuple tuple, TupleDesc desc, int col)
{
	char	   *v = SPI_getvalue(tuple, desc, col);

	return v ? MemoryContextStrdup(cxt, v) : NULL;
}

/* Fill one SettingsLive from a row of PGBL_SETTINGS_QUERY. */
static void
fill_live(MemoryContext cxt, HeapTuple tuple, TupleDesc desc, SettingsLive *l)
{
	char	   *unit = SPI_getvalue(tuple, desc, 7);
	char	   *min = SPI_getvalue(tuple, desc, 8);
	char	   *max = SPI_getvalue(tuple, desc, 9);
	bool		numeric;

	l->found = true;
	l->current = copy_value(cxt, tuple, desc, 2);
	l->setting = copy_value(cxt, tuple, desc, 3);
	l->source = copy_value(cxt, tuple, desc, 4);
	l->context = map_context(SPI_getvalue(tuple, desc, 5));
	l->vartype = copy_value(cxt, tuple, desc, 6);
	l->enumvals = copy_value(cxt, tuple, desc, 10);
	l->multiplier = unit_multiplier(unit);

	numeric = strcmp(l->vartype, "integer") == 0 || strcmp(l->vartype, "real") == 0;
	l->value = numeric ? strtod(l->setting, NULL) * l->multiplier : NAN;
	l->has_bounds = numeric && min != NULL && max != NULL;
	if (l->has_bounds)
	{
		l->min = strtod(min, NULL) * l->multiplier;
		l->max = strtod(max, NULL) * l->multiplier;
	}
}

/*
 * SettingsLookup: the live state of each named setting, allocated in the
 * caller's memory context.  Names pg_settings lacks (kernel settings such
 * as vm.nr_hugepages) come back with found = false.
 */
void
SettingsLookup(const char *const *names, int count, SettingsLive *out)
{
	MemoryContext cxt = CurrentMemoryContext;

	memset(out, 0, sizeof(SettingsLive) * count);
	SPI_connect();
	if (SPI_execute(PGBL_SETTINGS_QUERY, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read pg_settings");

	for (uint64 row = 0; row < SPI_processed; row++)
	{
		HeapTuple	tuple = SPI_tuptable->vals[row];
		char	   *name = SPI_getvalue(tuple, SPI_tuptable->tupdesc, 1);

		CHECK_FOR_INTERRUPTS();
		for (int i = 0; i < count; i++)
			if (strcmp(names[i], name) == 0)
				fill_live(cxt, tuple, SPI_tuptable->tupdesc, &out[i]);
	}
	SPI_finish();
}

/* Is word one of the values in enumvals, "{off,pglz,lz4}"? */
static bool
enum_accepts(const char *enumvals, const char *word)
{
	char	   *list = pstrdup(enumvals + 1);	/* skip "{" */
	char	   *save = NULL;

	for (char *tok = strtok_r(list, ",}", &save); tok != NULL;
		 tok = strtok_r(NULL, ",}", &save))
		if (pg_strcasecmp(tok, word) == 0)
			return true;
	return false;
}

/*
 * SettingsClamp: bring a recommendation inside the server's bounds.
 * Returns true when it already was; otherwise clamps it (numbers) and adds
 * a sentence to its reason, and returns false.  Settings the server does not
 * know are left alone.
 */
bool
SettingsClamp(const SettingsLive *live, RecoSetting *s)
{
	double		bound;

	if (!live->found)
		return true;
	if (s->unit == RECO_UNIT_ENUM)
	{
		if (live->enumvals == NULL || enum_accepts(live->enumvals, s->text))
			return true;
		s->reason = psprintf("%s This server does not accept %s (valid: %s).",
							 s->reason, s->text, live->enumvals);
		return false;
	}
	if (!live->has_bounds)
		return true;
	if (s->value < live->min)
		bound = live->min;
	else if (s->value > live->max)
		bound = live->max;
	else
		return true;

	s->reason = psprintf("%s %s is outside this server's range, so it is clamped to its %s, %s.",
						 s->reason,
						 RecommenderFormatValue(s->unit, s->value, s->text),
						 bound == live->min ? "minimum" : "maximum",
						 RecommenderFormatValue(s->unit, bound, s->text));
	s->formula = psprintf("%s, clamped to %s", s->formula,
						  RecommenderFormatValue(s->unit, bound, s->text));
	s->value = bound;
	return false;
}

/* SettingsDiffers: would applying the recommendation change the setting? */
bool
SettingsDiffers(const SettingsLive *live, const RecoSetting *s)
{
	if (!live->found)
		return true;
	if (s->unit == RECO_UNIT_ENUM || isnan(live->value))
		return s->text == NULL || pg_strcasecmp(s->text, live->setting) != 0;
	return fabs(s->value - live->value) > 1e-9 * Max(1.0, fabs(s->value));
}

/*
 * SettingsDataSize: bytes in every database this role may connect to (all
 * of them for superusers and pg_read_all_stats, hence pg_monitor).
 */
double
SettingsDataSize(void)
{
	double		size = 0;
	bool		isnull;
	Datum		d;

	SPI_connect();
	if (SPI_execute("SELECT pg_catalog.sum(pg_catalog.pg_database_size(oid))::pg_catalog.float8"
					" FROM pg_catalog.pg_database"
					" WHERE datallowconn AND pg_catalog.has_database_privilege(oid, 'CONNECT')",
					true, 1) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "could not read the size of the databases");
	d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	if (!isnull)
		size = DatumGetFloat8(d);
	SPI_finish();
	return size;
}
