/*-------------------------------------------------------------------------
 *
 * script_values.c
 *		The values that pgbench's variables hold: their coercions, and
 *		their text.
 *
 * A value is NULL, a boolean, an int64 or a double.  The coercions are
 * pgbench's: an integer is a double where a double is wanted, a double
 * is rounded to the nearest integer (ties to even) where an integer is,
 * and a boolean is never a number nor a number a boolean.  A value given
 * as text (pgbench's -D, \gset) is read as pgbench reads it, and a value
 * is put in a query as the text pgbench substitutes for :name.  Nothing
 * here allocates or throws: a failure is false with a ScriptError, as in
 * the evaluation (script_expr_eval.c) and the random functions
 * (script_funcs.c) that coerce their arguments here.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <float.h>
#include <math.h>

#include "common/int.h"
#include "utils/elog.h"

#include "script_expr.h"

#define HINT_COERCE "Booleans and numbers do not mix, as in pgbench: compare a number " \
	"to get a boolean, or use CASE WHEN to get a number."

/* A value's type, with its article, for messages. */
static const char *
type_name(ScriptValueType type)
{
	switch (type)
	{
		case SCRIPT_NULL:
			return "a null";
		case SCRIPT_BOOL:
			return "a boolean";
		case SCRIPT_INT:
			return "an integer";
		case SCRIPT_DOUBLE:
			return "a double";
	}
	return "?";
}

/* "cannot use a boolean as an integer": false, with the error set */
bool
ScriptCoerceError(const ScriptValue *value, const char *to, ScriptError *error)
{
	ScriptErrorSet(error, ERRCODE_DATATYPE_MISMATCH, HINT_COERCE,
				   "cannot use %s as %s", type_name(value->type), to);
	return false;
}

/* A double is rounded to the nearest integer, and must fit. */
bool
ScriptToInt(const ScriptValue *value, int64 *result, ScriptError *error)
{
	if (value->type == SCRIPT_INT)
		*result = value->u.i;
	else if (value->type == SCRIPT_DOUBLE)
	{
		double		d = rint(value->u.d);

		if (isnan(d) || !FLOAT8_FITS_IN_INT64(d))
		{
			ScriptErrorSet(error, ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE, SCRIPT_HINT_OVERFLOW,
						   "double %.*g is out of range for an integer", DBL_DIG, d);
			return false;
		}
		*result = (int64) d;
	}
	else
		return ScriptCoerceError(value, "an integer", error);
	return true;
}

bool
ScriptToDouble(const ScriptValue *value, double *result, ScriptError *error)
{
	if (value->type == SCRIPT_DOUBLE)
		*result = value->u.d;
	else if (value->type == SCRIPT_INT)
		*result = (double) value->u.i;
	else
		return ScriptCoerceError(value, "a double", error);
	return true;
}

/* ---------------------------------------------------------------------
 * Values as text: variables given as text (pgbench's -D, \gset), and the
 * text pgbench puts in a query for :name
 * ---------------------------------------------------------------------
 */

/* pgbench's test: spaces, a sign, digits (maybe none), nothing more */
static bool
looks_integer(const char *s)
{
	while (*s && isspace((unsigned char) *s))
		s++;
	if (*s == '+' || *s == '-')
		s++;
	while (*s && isdigit((unsigned char) *s))
		s++;
	return *s == '\0';
}

static bool
text_to_int(const char *s, int64 *result)
{
	bool		neg = false;
	bool		digits = false;
	int64		v = 0;

	while (*s && isspace((unsigned char) *s))
		s++;
	if (*s == '+' || *s == '-')
		neg = (*s++ == '-');
	/* accumulated negative, so that INT64_MIN fits */
	for (; isdigit((unsigned char) *s); s++)
	{
		digits = true;
		if (pg_mul_s64_overflow(v, 10, &v) || pg_sub_s64_overflow(v, *s - '0', &v))
			return false;
	}
	if (!digits || (!neg && v == PG_INT64_MIN))
		return false;
	*result = neg ? v : -v;
	return true;
}

static bool
malformed(ScriptError *error, const char *name, const char *text)
{
	ScriptErrorSet(error, ERRCODE_INVALID_TEXT_REPRESENTATION,
				   "A variable holds an integer, a double, a boolean (true, false, yes, no, on, off) or null.",
				   "malformed value of variable \"%s\": \"%.64s\"", name, text);
	return false;
}

/*
 * The value of a variable given as text, as pgbench reads one: null; a
 * boolean (a prefix of true, yes, false or no, or on, off, of); an integer
 * (leading spaces and a sign allowed); else a double as strtod() reads it.
 */
bool
ScriptValueFromText(const char *name, const char *text, ScriptValue *value,
					ScriptError *error)
{
	size_t		len = strlen(text);
	char	   *end;

	if (len == 0)
		return malformed(error, name, text);
	if (pg_strcasecmp(text, "null") == 0)
	{
		value->type = SCRIPT_NULL;
		value->u.i = 0;
	}
	else if (pg_strncasecmp(text, "true", len) == 0 ||
			 pg_strncasecmp(text, "yes", len) == 0 ||
			 pg_strcasecmp(text, "on") == 0)
	{
		value->type = SCRIPT_BOOL;
		value->u.i = 0;
		value->u.b = true;
	}
	else if (pg_strncasecmp(text, "false", len) == 0 ||
			 pg_strncasecmp(text, "no", len) == 0 ||
			 pg_strcasecmp(text, "off") == 0 ||
			 pg_strcasecmp(text, "of") == 0)
	{
		value->type = SCRIPT_BOOL;
		value->u.i = 0;
		value->u.b = false;
	}
	else if (looks_integer(text))
	{
		int64		i;

		if (!text_to_int(text, &i))
			return malformed(error, name, text);
		value->type = SCRIPT_INT;
		value->u.i = i;
	}
	else
	{
		double		d;

		errno = 0;
		d = strtod(text, &end);
		if (errno != 0 || end == text || *end != '\0')
			return malformed(error, name, text);
		value->type = SCRIPT_DOUBLE;
		value->u.d = d;
	}
	return true;
}

/*
 * A value as pgbench substitutes it for :name in a query: NULL, true or
 * false, the integer, or the double with 15 significant digits.  Returns
 * snprintf's length.
 */
int
ScriptValueFormat(const ScriptValue *value, char *buf, size_t size)
{
	switch (value->type)
	{
		case SCRIPT_NULL:
			return snprintf(buf, size, "NULL");
		case SCRIPT_BOOL:
			return snprintf(buf, size, "%s", value->u.b ? "true" : "false");
		case SCRIPT_INT:
			return snprintf(buf, size, INT64_FORMAT, value->u.i);
		case SCRIPT_DOUBLE:
			return snprintf(buf, size, "%.*g", DBL_DIG, value->u.d);
	}
	return 0;
}

/* \if's and CASE's truth: NULL and zero are false. */
bool
ScriptValueTruth(const ScriptValue *value)
{
	switch (value->type)
	{
		case SCRIPT_NULL:
			return false;
		case SCRIPT_BOOL:
			return value->u.b;
		case SCRIPT_INT:
			return value->u.i != 0;
		case SCRIPT_DOUBLE:
			return value->u.d != 0.0;
	}
	return false;
}

/* A name pgbench accepts for a variable: letters, digits (not first), _, non-ASCII. */
bool
ScriptVariableNameValid(const char *name)
{
	const char *c = name;

	if (*c == '\0' || isdigit((unsigned char) *c))
		return false;
	for (; *c; c++)
	{
		if (!IS_HIGHBIT_SET(*c) && !isalnum((unsigned char) *c) && *c != '_')
			return false;
	}
	return true;
}

void
ScriptErrorUndefined(ScriptError *error, const char *name)
{
	ScriptErrorSet(error, ERRCODE_UNDEFINED_OBJECT,
				   "Set it with \\set first, or give it among the variables (pgbench's -D).",
				   "undefined variable \"%.64s\"", name);
}
