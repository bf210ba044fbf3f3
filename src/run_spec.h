/*-------------------------------------------------------------------------
 *
 * run_spec.h
 *		A run's options, defined once: the table of options (run_spec.c)
 *		and a RunSpec, the value of each, built from a call of run() or
 *		start() or from an experiment step's jsonb.
 *
 * The list is run_options.h, in the order of start()'s arguments (RunnerArg
 * in runner.h):
 * the head of eight, then the tail, to which each version adds its new
 * options at the end only.  The runner's checks (runner.c,
 * client_libpq.c, script_setup.c) read a RunSpec, never a call's
 * arguments; pgbench_lab.run_options() shows the table to SQL.
 *
 *-------------------------------------------------------------------------
 */
#ifndef PGBL_RUN_SPEC_H
#define PGBL_RUN_SPEC_H

#include "fmgr.h"
#include "utils/jsonb.h"

/* The options, in start()'s argument order. */
typedef enum RunOpt
{
#define RUN_OPTION(e, name, type, sqltype, dflt, since, doc) RUN_OPT_##e,
#include "run_options.h"
#undef RUN_OPTION
	RUN_NOPTS
} RunOpt;

#define RUN_OPT_HEAD	RUN_OPT_VIA /* options before the tail */

/* One option: what run_options() lists. */
typedef struct RunOption
{
	const char *name;			/* the argument's name, and the step's key */
	Oid			type;			/* its SQL type */
	const char *default_text;	/* its default as text; NULL: NULL */
	const char *since;			/* the version that added it */
	const char *doc;			/* one line */
} RunOption;

extern const RunOption RunOptions[RUN_NOPTS];

/*
 * A run's options: each value (NULL or not) and whether the caller gave
 * it (an argument of the declaration called, or a key of the step); an
 * option not given holds its default.
 */
typedef struct RunSpec
{
	NullableDatum value[RUN_NOPTS];
	bool		given[RUN_NOPTS];
} RunSpec;

static inline bool
RunSpecIsNull(const RunSpec *s, RunOpt o)
{
	return s->value[o].isnull;
}

static inline Datum
RunSpecDatum(const RunSpec *s, RunOpt o)
{
	return s->value[o].value;
}

static inline void
RunSpecSet(RunSpec *s, RunOpt o, Datum value, bool isnull)
{
	s->value[o].value = value;
	s->value[o].isnull = isnull;
	s->given[o] = true;
}

extern int	RunOptionNamed(const char *name);
extern void RunSpecFromCall(FunctionCallInfo fcinfo, int tail, RunSpec *spec);
extern void RunSpecFromJsonb(Jsonb *run, RunSpec *spec);
extern Jsonb *RunSpecToJsonb(const RunSpec *spec);

struct RunShared;
extern void RunSpecOfRun(const struct RunShared *run, RunSpec *spec);

#endif							/* PGBL_RUN_SPEC_H */
