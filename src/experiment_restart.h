/*-------------------------------------------------------------------------
 *
 * experiment_restart.h
 *		The first phase's end of a two-phase experiment of restart-level
 *		settings: set B written, then the wait for a restart
 *		(experiment_restart.c; resume() runs the second phase).
 *
 *-------------------------------------------------------------------------
 */
#ifndef PGBL_EXPERIMENT_RESTART_H
#define PGBL_EXPERIMENT_RESTART_H

#include "experiment_steps.h"

extern void ExperimentWaitForRestart(const ExperimentPlan *plan, AutoConfSaved *saved);

#endif							/* PGBL_EXPERIMENT_RESTART_H */
