/*-------------------------------------------------------------------------
 *
 * progress.c
 *		Progress of a long call: init(), io_test(), fsync_test() and the
 *		experiments say as each step starts and ends what it is, and about
 *		how long the call has left.
 *
 * Two ways to see it.  In the calling session, a NOTICE per step start and
 * end (psql prints notices as they come), once the call is long enough to
 * be worth it: planned to take pgbench_lab.progress_after or more, or
 * still running after that long (0: always; -1: never).  From any other
 * session, the same line replaces the session's query text in
 * pg_stat_activity for the length of the call, whatever its length, so
 * that the view pgbench_lab.in_progress lists it; pg_stat_activity shows
 * it to the session's own role and to pg_read_all_stats only, as any query
 * text.  The time left is an estimate: what is left of the plan at the pace
 * of the steps done so far (each step weighs its planned seconds, or a
 * share given by the caller), or the plan itself before the first step
 * ends.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "lib/stringinfo.h"
#include "pgstat.h"
#include "tcop/tcopprot.h"
#include "utils/backend_status.h"
#include "utils/guc.h"

#include "pgbench_lab.h"
#include "progress.h"
#include "worker.h"

int			pgbl_progress_after_ms = 5000;

/* the weight of the step under way (ProgressStep) until it ends */
static double step_weight;

void
ProgressInit(void)
{
	DefineCustomIntVariable(PGBL_GUC_PREFIX ".progress_after",
							"Calls planned or running this long give a NOTICE per step.",
							"0 gives them for every call, -1 for none; the view "
							"pgbench_lab.in_progress shows every call's progress.",
							&pgbl_progress_after_ms,
							5000, -1, INT_MAX,
							PGC_USERSET,
							GUC_UNIT_MS,
							NULL, NULL, NULL);
}

static double
elapsed_s(const Progress *p)
{
	return (double) (WorkerNowNs() - p->start_ns) / 1e9;
}

/* "45 s", "3 min 5 s", "2 h 10 min" */
static char *
duration_text(double s)
{
	int64		secs = (int64) (s + 0.5);

	if (secs < 60)
		return psprintf(INT64_FORMAT " s", secs);
	if (secs < 3600)
		return psprintf(INT64_FORMAT " min " INT64_FORMAT " s", secs / 60, secs % 60);
	return psprintf(INT64_FORMAT " h " INT64_FORMAT " min", secs / 3600, (secs % 3600) / 60);
}

/* Whether NOTICEs are given: the call is planned or running long enough. */
static bool
notices_due(Progress *p)
{
	if (!p->notices && pgbl_progress_after_ms >= 0 &&
		(p->planned_s * 1000.0 >= pgbl_progress_after_ms ||
		 elapsed_s(p) * 1000.0 >= pgbl_progress_after_ms))
		p->notices = true;
	return p->notices;
}

/* fmt and its arguments, appended to buf. */
static void append_va(StringInfo buf, const char *fmt, va_list args) pg_attribute_printf(2, 0);

static void
append_va(StringInfo buf, const char *fmt, va_list args)
{
	for (;;)
	{
		va_list		copy;
		int			needed;

		va_copy(copy, args);
		needed = appendStringInfoVA(buf, fmt, copy);
		va_end(copy);
		if (needed == 0)
			break;
		enlargeStringInfo(buf, needed);
	}
}

/* The line for a NOTICE and for pg_stat_activity. */
static void
say(Progress *p, const char *line)
{
	char	   *activity = psprintf("pgbench_lab %s: %s", p->call, line);

	pgstat_report_activity(STATE_RUNNING, activity);
	if (notices_due(p))
		ereport(NOTICE, (errmsg_internal("%s", line)));
	pfree(activity);
}

/*
 * A call of nsteps steps begins, its steps weighing "total" in all: its
 * plan in seconds when "seconds" (the steps then weigh their planned
 * seconds), or shares of the work when the time is not known beforehand.
 */
void
ProgressBegin(Progress *p, const char *call, int nsteps, double total, bool seconds)
{
	p->call = call;
	p->nsteps = nsteps;
	p->planned_s = seconds ? total : 0;
	p->done_weight = 0;
	p->total_weight = total;
	p->start_ns = WorkerNowNs();
	p->notices = false;
	step_weight = 0;
}

/*
 * Step "step" (from 1) starts, weighing "weight" (its planned seconds, or
 * its share of the call); the text says what it is.
 */
void
ProgressStep(Progress *p, int step, double weight, const char *fmt,...)
{
	StringInfoData line;
	va_list		args;
	double		left = -1;
	double		total = p->total_weight;

	initStringInfo(&line);
	appendStringInfo(&line, "step %d of %d: ", step, p->nsteps);
	va_start(args, fmt);
	append_va(&line, fmt, args);
	va_end(args);
	step_weight = weight;
	if (p->done_weight > 0 && total > 0)
		left = elapsed_s(p) / p->done_weight * Max(total - p->done_weight, 0);
	else if (p->planned_s > 0)
		left = p->planned_s;
	if (left >= 0)
		appendStringInfo(&line, "; about %s left", duration_text(left));
	say(p, line.data);
	pfree(line.data);
}

/* Step "step" ended; the text gives what it measured. */
void
ProgressStepDone(Progress *p, int step, const char *fmt,...)
{
	StringInfoData line;
	va_list		args;

	p->done_weight += step_weight;
	step_weight = 0;
	initStringInfo(&line);
	appendStringInfo(&line, "step %d of %d done: ", step, p->nsteps);
	va_start(args, fmt);
	append_va(&line, fmt, args);
	va_end(args);
	appendStringInfo(&line, " (%s so far)", duration_text(elapsed_s(p)));
	say(p, line.data);
	pfree(line.data);
}

/* The call ends: its session shows its own statement again. */
void
ProgressEnd(Progress *p)
{
	pgstat_report_activity(STATE_RUNNING, debug_query_string);
}
