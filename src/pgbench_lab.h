/*-------------------------------------------------------------------------
 *
 * pgbench_lab.h
 *		Declarations shared by every part of pgbench_lab: each part's
 *		initialisation hook, called once from _PG_init.
 *
 *-------------------------------------------------------------------------
 */
#ifndef PGBENCH_LAB_H
#define PGBENCH_LAB_H

#include "compat.h"

/* Prefix of every setting this extension defines. */
#define PGBL_GUC_PREFIX "pgbench_lab"

/*
 * pg_stat_activity's backend types that are not background workers (nor
 * take a max_worker_processes slot), as an SQL list of literals: what is
 * left are the workers that count against max_worker_processes.
 */
#define PGBL_NON_WORKER_TYPES \
	"'client backend', 'autovacuum launcher', 'autovacuum worker'," \
	" 'background writer', 'checkpointer', 'walwriter', 'walsender'," \
	" 'walreceiver', 'startup', 'archiver', 'io worker'," \
	" 'slotsync worker', 'walsummarizer', 'logger', 'standalone backend'"

extern void _PG_init(void);

/* A JSON scalar as a setting's or a variable's text; NULL for others. */
struct JsonbValue;
extern char *PgblJsonScalarText(const struct JsonbValue *v);

/* one per part; each defines its GUCs */
extern void SystemInit(void);
extern void RunnerInit(void);
extern void CacheInit(void);
extern void DatasetInit(void);
extern void TelemetryInit(void);

/* runner_limits.c: the superuser-only limits, kept binding (LimitsCheck) */
extern bool LimitsPending(const char *name);
extern void LimitsDefined(const char *name, bool pending);
extern void LimitsCheck(void);

#endif							/* PGBENCH_LAB_H */
