/*-------------------------------------------------------------------------
 *
 * experiment_rounds.c
 *		pgbench_lab.rounds, the type of an experiment's rounds argument: a
 *		count from 1 to 100, or 'auto' (rounds added until the verdict is
 *		settled or the budget ends; 71_verdict.sql).  An integer converts to
 *		it implicitly (of any width: a driver may bind 6 as a smallint or a
 *		bigint), so that rounds => 6 and rounds => 'auto' both call the
 *		procedure.  Stored as an int4, 0 for 'auto'.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/builtins.h"

#include "pgbench_lab.h"

PG_FUNCTION_INFO_V1(pgbench_lab_rounds_in);
PG_FUNCTION_INFO_V1(pgbench_lab_rounds_out);
PG_FUNCTION_INFO_V1(pgbench_lab_rounds_from_int4);
PG_FUNCTION_INFO_V1(pgbench_lab_rounds_from_int2);
PG_FUNCTION_INFO_V1(pgbench_lab_rounds_from_int8);

#define ROUNDS_AUTO 0
#define ROUNDS_MAX 100

static int32
rounds_checked(int64 n, const char *given)
{
	if (n < 1 || n > ROUNDS_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("rounds must be from 1 to %d, not %s", ROUNDS_MAX, given),
				 errhint("Six rounds or more give a verdict at 95 %% confidence; compare_settings() and "
						 "validate_recommendation() also take 'auto', rounds added until the verdict settles.")));
	return (int32) n;
}

Datum
pgbench_lab_rounds_in(PG_FUNCTION_ARGS)
{
	char	   *s = PG_GETARG_CSTRING(0);
	char	   *end;
	long		n;

	while (*s == ' ')
		s++;
	if (pg_strncasecmp(s, "auto", 4) == 0 && strspn(s + 4, " ") == strlen(s + 4))
		PG_RETURN_INT32(ROUNDS_AUTO);
	errno = 0;
	n = strtol(s, &end, 10);
	if (end == s || errno != 0 || strspn(end, " ") != strlen(end))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid rounds: \"%s\"", PG_GETARG_CSTRING(0)),
				 errhint("Give a count of rounds, such as 6, or 'auto'.")));
	PG_RETURN_INT32(rounds_checked(n, PG_GETARG_CSTRING(0)));
}

Datum
pgbench_lab_rounds_out(PG_FUNCTION_ARGS)
{
	int32		n = PG_GETARG_INT32(0);

	PG_RETURN_CSTRING(n == ROUNDS_AUTO ? pstrdup("auto") : psprintf("%d", n));
}

Datum
pgbench_lab_rounds_from_int4(PG_FUNCTION_ARGS)
{
	int32		n = PG_GETARG_INT32(0);

	PG_RETURN_INT32(rounds_checked(n, psprintf("%d", n)));
}

Datum
pgbench_lab_rounds_from_int2(PG_FUNCTION_ARGS)
{
	int16		n = PG_GETARG_INT16(0);

	PG_RETURN_INT32(rounds_checked(n, psprintf("%d", n)));
}

Datum
pgbench_lab_rounds_from_int8(PG_FUNCTION_ARGS)
{
	int64		n = PG_GETARG_INT64(0);

	PG_RETURN_INT32(rounds_checked(n, psprintf(INT64_FORMAT, n)));
}
