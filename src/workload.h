/*-------------------------------------------------------------------------
 *
 * workload.h
 *		pgbench's built-in scripts, defined once (WorkloadDef): run one
 *		transaction at a time through saved SPI plans, sent over libpq
 *		(client_libpq.c) and written out as script text for the
 *		interpreter (script_setup.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef PGBL_WORKLOAD_H
#define PGBL_WORKLOAD_H

#include "common/pg_prng.h"
#include "executor/spi.h"
#include "nodes/parsenodes.h"
#include "lib/stringinfo.h"

#include "transport.h"

typedef enum WorkloadKind
{
	WORKLOAD_TPCB = 0,
	WORKLOAD_SIMPLE_UPDATE,
	WORKLOAD_SELECT_ONLY
} WorkloadKind;

#define WORKLOAD_COUNT		3

/* The variables the built-in scripts \set, as pgbench names them. */
typedef enum WorkloadVar
{
	WVAR_AID = 0,
	WVAR_BID,
	WVAR_TID,
	WVAR_DELTA
} WorkloadVar;

#define WORKLOAD_NVARS		4
#define WORKLOAD_MAX_ARGS	4	/* parameters of one statement */
#define WORKLOAD_MAX_STMTS	7	/* statements of one script, BEGIN and END included */

/*
 * \set var random(lo, hi * :scale) when per_scale, else random(lo, hi):
 * pgbench's uniform, inclusive draw.
 */
typedef struct WorkloadDrawDef
{
	WorkloadVar var;
	int64		lo;
	int64		hi;
	bool		per_scale;
} WorkloadDrawDef;

/*
 * One statement: pgbench's text without its ';', every name qualified, %s
 * for the tables' schema (quoted by the caller), $n for the variable
 * args[n - 1]; spi_ok is what SPI_execute_plan returns for it, and table
 * the table it uses, with the privileges it needs there (checked before
 * anything starts).  BEGIN and END are statements too (the script's
 * transaction boundaries), with spi_ok 0 and no table: the in-server path
 * owns the transaction and runs neither.
 */
typedef struct WorkloadStmt
{
	const char *sql;
	int			nargs;
	WorkloadVar args[WORKLOAD_MAX_ARGS];
	int			spi_ok;
	const char *table;
	AclMode		need;
} WorkloadStmt;

/* A built-in script: its draws in pgbench's order, then its statements. */
typedef struct WorkloadDef
{
	const char *name;
	bool		read_only;		/* it only reads (and has no BEGIN/END) */
	int			ndraws;
	WorkloadDrawDef draws[WORKLOAD_NVARS];
	int			nstmts;
	const WorkloadStmt *stmts[WORKLOAD_MAX_STMTS];
} WorkloadDef;

typedef struct WorkloadParams
{
	WorkloadKind kind;
	int			scale;			/* rows in pgbench_branches */
	bool		aid_bigint;		/* pgbench_accounts.aid is bigint */
	char		schema[NAMEDATALEN];	/* where the four tables are */
} WorkloadParams;

/* One transaction's draws, by WorkloadVar: a retry reuses them, as pgbench does. */
typedef struct WorkloadDraw
{
	int64		v[WORKLOAD_NVARS];
} WorkloadDraw;

/*
 * The saved plans of a workload's statements that SPI runs, in order: the
 * bare SPI loop (bench_floor.c), the floor a client is measured against.
 */
typedef struct WorkloadPlans
{
	int			n;
	SPIPlanPtr	plan[WORKLOAD_MAX_STMTS];
	const WorkloadStmt *stmt[WORKLOAD_MAX_STMTS];
} WorkloadPlans;

/*
 * A client's built-in workload over its transport: the statements
 * declared once (BEGIN and END are transaction control, no statement),
 * their parameters bound to the draws' values.
 */
typedef struct WorkloadClient
{
	const WorkloadDef *def;
	Transport  *t;
	TransportStmt stmt[WORKLOAD_MAX_STMTS];
	ScriptValue value[WORKLOAD_NVARS];
} WorkloadClient;

extern const WorkloadDef *WorkloadDefOf(WorkloadKind kind);
extern bool WorkloadFind(const char *name, WorkloadKind *kind);
extern int	WorkloadFindPrefix(const char *prefix, WorkloadKind *kind);
extern void WorkloadRefuseAmbiguous(const char *prefix);
extern WorkloadKind WorkloadParse(const char *name);
extern const char *WorkloadName(WorkloadKind kind);
extern const char *WorkloadVarName(WorkloadVar var);
extern void WorkloadAppendStmt(StringInfo buf, const WorkloadStmt *st, const char *quoted_schema,
							   bool vars, bool pinned);
extern char *WorkloadScriptText(WorkloadKind kind, const char *quoted_schema);
extern void WorkloadResolve(WorkloadParams *params);
extern void WorkloadPrepare(const WorkloadParams *params, WorkloadPlans *plans);
extern void WorkloadSeed(uint64 seed, int client, pg_prng_state *rng);
extern void WorkloadDrawNext(const WorkloadParams *params, pg_prng_state *rng,
							 WorkloadDraw *draw);
extern void WorkloadClientInit(WorkloadClient *wc, const WorkloadParams *params, Transport *t,
							   bool pinned, MemoryContext cxt);
extern void WorkloadClientXact(WorkloadClient *wc, const WorkloadDraw *draw);
extern void WorkloadExecute(const WorkloadParams *params, const WorkloadPlans *plans,
							const WorkloadDraw *draw);

#endif							/* PGBL_WORKLOAD_H */
