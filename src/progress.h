/*-------------------------------------------------------------------------
 *
 * progress.h
 *		Progress of a long call: a NOTICE as each step starts and ends, with
 *		an estimate of the time left, and the same line in the session's
 *		pg_stat_activity.query for other sessions (pgbench_lab.in_progress).
 *
 *-------------------------------------------------------------------------
 */
#ifndef PGBL_PROGRESS_H
#define PGBL_PROGRESS_H

typedef struct Progress
{
	const char *call;			/* "init()", "sweep()", ... */
	int			nsteps;
	double		planned_s;		/* the whole call's planned seconds; 0: unknown */
	double		done_weight;	/* of the steps ended (their planned seconds, or shares) */
	double		total_weight;	/* of all the steps */
	int64		start_ns;
	bool		notices;		/* NOTICEs given: the call is long enough */
} Progress;

extern int	pgbl_progress_after_ms;

extern void ProgressInit(void);
extern void ProgressBegin(Progress *p, const char *call, int nsteps, double total, bool seconds);
extern void ProgressStep(Progress *p, int step, double weight, const char *fmt,...) pg_attribute_printf(4, 5);
extern void ProgressStepDone(Progress *p, int step, const char *fmt,...) pg_attribute_printf(3, 4);
extern void ProgressEnd(Progress *p);

#endif							/* PGBL_PROGRESS_H */
