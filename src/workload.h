/*-------------------------------------------------------------------------
 *
 * workload.h
 *		pgbench's built-in scripts, one transaction at a time, through
 *		saved SPI plans.
 *
 *-------------------------------------------------------------------------
 */
#ifndef PGBL_WORKLOAD_H
#define PGBL_WORKLOAD_H

#include "common/pg_prng.h"
#include "executor/spi.h"

typedef enum WorkloadKind
{
	WORKLOAD_TPCB = 0,
	WORKLOAD_SIMPLE_UPDATE,
	WORKLOAD_SELECT_ONLY
} WorkloadKind;

typedef struct WorkloadParams
{
	WorkloadKind kind;
	int			scale;			/* rows in pgbench_branches */
	bool		aid_bigint;		/* pgbench_accounts.aid is bigint */
	char		schema[NAMEDATALEN];	/* where the four tables are */
} WorkloadParams;

/* One transaction's draws: a retry reuses them, as pgbench does. */
typedef struct WorkloadDraw
{
	int64		aid;
	int32		bid;
	int32		tid;
	int32		delta;
} WorkloadDraw;

typedef struct WorkloadPlans
{
	SPIPlanPtr	update_account;
	SPIPlanPtr	select_account;
	SPIPlanPtr	update_teller;
	SPIPlanPtr	update_branch;
	SPIPlanPtr	insert_history;
} WorkloadPlans;

extern WorkloadKind WorkloadParse(const char *name);
extern const char *WorkloadName(WorkloadKind kind);
extern void WorkloadResolve(WorkloadParams *params);
extern void WorkloadPrepare(const WorkloadParams *params, WorkloadPlans *plans);
extern void WorkloadSeed(uint64 seed, int client, pg_prng_state *rng);
extern void WorkloadDrawNext(const WorkloadParams *params, pg_prng_state *rng,
							 WorkloadDraw *draw);
extern void WorkloadExecute(const WorkloadParams *params, const WorkloadPlans *plans,
							const WorkloadDraw *draw);

#endif							/* PGBL_WORKLOAD_H */
