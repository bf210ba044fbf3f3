/*-------------------------------------------------------------------------
 *
 * experiment_steps.h
 *		An experiment's kind, plan and steps, and what the driver
 *		(experiment.c) and the second phase of a two-phase experiment
 *		(experiment_restart.c) do with them (experiment_steps.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef PGBL_EXPERIMENT_STEPS_H
#define PGBL_EXPERIMENT_STEPS_H

#include "postgres.h"

#include "fmgr.h"
#include "utils/jsonb.h"

#include "runner.h"
#include "settings_apply.h"

/*
 * A function's name for the text of a call: its schema and its name, each
 * quoted, to be written "%s.%s" (a call resolved through no search_path).
 */
typedef struct FunctionName
{
	const char *schema;
	const char *name;
} FunctionName;

/* A row of pgbench_lab.experiment_kinds, with its functions' SQL names. */
typedef struct ExperimentKind
{
	char	   *kind;
	char	   *procedure;		/* for messages: pgbench_lab.sweep() */
	FunctionName planner;
	Oid			planner_oid;
	FunctionName preparation;	/* name NULL: none */
	FunctionName finding;		/* name NULL: the result is the experiment id */
	FunctionName extend;		/* name NULL: the plan's steps are all */
} ExperimentKind;

typedef struct ExperimentStep
{
	int32		variant;
	int32		round;
	char	   *name;			/* labels the run when the step gives none */
	char	   *about;			/* what the step is, for messages */
	Datum		step;			/* the step's jsonb, for the preparation */
	Jsonb	   *system;			/* reload-level settings, or NULL */
	int32		phase;			/* two-phase plans: 1 or 2; else 0 */
	bool		prepare;		/* has a "prepare": the kind's preparation runs */
	bool		counted;		/* linked to the experiment ("counted": false: a
								 * warm-up, run and recorded but not linked) */
	Jsonb	   *run;			/* its run's options (RunSpecFromJsonb), or NULL */
} ExperimentStep;

typedef struct ExperimentPlan
{
	Datum		plan;			/* the planner's jsonb */
	bool		stop_on_failure;
	Datum		system_names;	/* text[] of every step's reload-level settings */
	bool		has_system;
	Jsonb	   *restart;		/* restart-level settings of phase 2, or NULL */
	Datum		restart_names;	/* text[] of their names */
	int			nsteps;
	ExperimentStep *steps;
	const char *checked;		/* when its steps are checked, for messages */
} ExperimentPlan;


extern FunctionName ExperimentFunctionName(Oid fn);
extern ExperimentKind ExperimentReadKind(Oid fn, MemoryContext cxt);
extern ExperimentPlan ExperimentReadPlan(Datum plan, MemoryContext cxt);
extern void ExperimentCheckSteps(const ExperimentKind *kind, const ExperimentPlan *plan);
extern void ExperimentRunSteps(const ExperimentKind *kind, const ExperimentPlan *plan,
							   int64 experiment_id, AutoConfSaved *saved, int32 phase);
extern void ExperimentRunExtensions(const ExperimentKind *kind, const ExperimentPlan *plan,
									int64 experiment_id, AutoConfSaved *saved, MemoryContext cxt);
extern Datum ExperimentResultRow(FunctionCallInfo fcinfo, const ExperimentKind *kind,
								 int64 experiment_id, MemoryContext cxt);
extern void ExperimentRecoverSettings(void);
extern int64 ExperimentBegin(const ExperimentKind *kind, const ExperimentPlan *plan);
extern void ExperimentEnd(int64 experiment_id);

/* experiment_abort.c */
extern void ExperimentAbortInError(MemoryContext cxt, int64 experiment_id, AutoConfSaved *saved);


#endif							/* PGBL_EXPERIMENT_STEPS_H */
