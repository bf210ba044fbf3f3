/*-------------------------------------------------------------------------
 *
 * runner.h
 *		The runner part: the functions of the files that launch, run and
 *		wait for a run (its shared state is in run_shared.h).
 *
 * The files: runner.c
 * validates and launches (start()), runner_wait.c waits, cancels and reads
 * live counters (run(), wait(), cancel(), run_live()), coordinator.c and
 * client.c are the workers, client_libpq.c is the clients' libpq path.
 * Launching, waiting and passing errors back go through worker.h.
 *
 *-------------------------------------------------------------------------
 */
#ifndef PGBL_RUNNER_H
#define PGBL_RUNNER_H

#include "fmgr.h"
#include "port/atomics.h"
#include "storage/dsm.h"
#include "utils/timestamp.h"

#include "run_shared.h"
#include "run_spec.h"

/*
 * The arguments of start() and run() are the run options (run_spec.h), in
 * the order of its table.  Both begin with the same eight, the head; run()
 * then has its eight INOUT result columns; both end with the tail.  A
 * version adds its new options at the end of the tail only, so that
 * positional calls keep working and an older declaration is a prefix of
 * today's: 0.1 ends after target, 0.2 after target_clients.  The tail
 * starts at RUNNER_TAIL_START in start() and at RUNNER_TAIL_RUN in run().
 * An install script older than the library (0.1's declarations, callable
 * until ALTER EXTENSION UPDATE) passes a shorter tail: RunSpecFromCall()
 * gives the options it lacks their defaults.
 */
#define RUNNER_TAIL_START	8	/* start(): after the head */
#define RUNNER_TAIL_RUN		16	/* run(): after the head and 8 INOUT columns */

/* runner.c: validating, launching, reaping */
extern RunShared *RunnerAttach(dsm_handle handle, int64 run_id, dsm_segment **seg);
extern void RunnerInit(void);
extern void RunnerCheckSetting(const char *name, const char *value);
extern RunShared *RunnerPrepare(const RunSpec *spec);
extern RunShared *RunnerLaunch(const RunSpec *spec, dsm_segment **segp);
extern void RunnerReapOrphans(void);
extern int	RunnerWorkers(const RunShared *p);
extern int	RunnerFirstClient(const RunShared *p, int worker);
extern int	RunnerSlotsNeeded(const RunShared *p);
extern void RunnerCheckSlots(const RunShared *p);
extern int	pgbl_max_clients;
extern int	pgbl_max_duration;
extern bool pgbl_instrument;

/*
 * ... and a script's SQL over it (script_run.c), sent on the connection of
 * the client whose step runs (client_mux_xact.c); its results come later, each
 * to fn, when the worker's event loop has them.
 */
typedef void (*LibpqResultFn) (void *arg, int ntuples, int ncols, char **names, char **values);
extern void LibpqScriptSend(RunShared *run, const char *sql, int *prepared, int id, int nparams,
							const char *const *values, LibpqResultFn fn, void *arg);

/* runner_wait.c: a run launched and waited for (run(), experiments' steps) */
extern int64 RunnerRun(const RunSpec *spec);
/* ... and a procedure's INOUT row, for run() and wait() */
extern Datum RunnerCallResult(FunctionCallInfo fcinfo, MemoryContext cxt);

/* coordinator.c, client.c: background worker entry points */
extern PGDLLEXPORT void pgbench_lab_coordinator_main(Datum arg);
extern PGDLLEXPORT void pgbench_lab_client_main(Datum arg);

#endif							/* PGBL_RUNNER_H */
