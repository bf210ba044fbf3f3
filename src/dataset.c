/*-------------------------------------------------------------------------
 *
 * dataset.c
 *		pgbench_lab.init(): pgbench's four tables and their rows, made in the
 *		server; pgbench_lab.init_sql(): the statements it runs.  With a
 *		target, init runs those statements on another server
 *		(dataset_remote.c).
 *
 * init() runs in the caller's transaction, but almost nothing of the work
 * can: VACUUM refuses to run inside a function, and the rows are written
 * fastest by a transaction that created the tables itself (the rows go in
 * frozen, as with pgbench's COPY FREEZE).  So the caller only validates,
 * resolves the schema the tables go in (the first existing schema of its
 * search_path, as CREATE TABLE would) and hands everything to one dynamic
 * background worker through a small dynamic shared memory segment.  The
 * worker connects as the caller's role and does, in pgbench -i's order:
 * drop, create and generate in one transaction (so a failure or a cancel
 * there changes nothing), then VACUUM (ANALYZE) as top-level commands, then
 * the primary keys and, if asked, the foreign keys in one more transaction.
 * The caller waits on its latch, interruptibly; if it errors out or is
 * cancelled, the segment's detach callback terminates the worker.
 *
 * One worker, not several: a second worker cannot write into tables created
 * by an uncommitted transaction, so parallel generation would lose the
 * frozen bulk path and leave VACUUM all the hint bits and visibility map to
 * set (README, "Why one worker", has the measurement).
 *
 * Launching, waiting and raising the worker's error again are the ones
 * every pgbench_lab worker uses (worker.c); only the segment and the
 * detach callback that ties the worker to this session are init's own.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_namespace.h"
#include "commands/tablespace.h"
#include "commands/comment.h"
#include "fmgr.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "postmaster/bgworker.h"
#include "storage/dsm.h"
#include "tcop/utility.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "pgbench_lab.h"
#include "dataset.h"
#include "progress.h"
#include "worker.h"

PG_FUNCTION_INFO_V1(pgbench_lab_init);
PG_FUNCTION_INFO_V1(pgbench_lab_init_sql);

static int	pgbl_max_scale = 5000;

void
DatasetInit(void)
{
	bool		pending = LimitsPending(PGBL_GUC_PREFIX ".max_scale");

	DefineCustomIntVariable(PGBL_GUC_PREFIX ".max_scale",
							"Largest scale pgbench_lab.init() accepts.",
							"Each scale unit is 100000 accounts, about 15 MB.",
							&pgbl_max_scale,
							5000, 1, INT_MAX,
							PGC_SUSET,
							0,
							NULL, NULL, NULL);
	LimitsDefined(PGBL_GUC_PREFIX ".max_scale", pending);
}


/* ---- arguments -------------------------------------------------------- */

static void
check_not_null(FunctionCallInfo fcinfo, int argno, const char *name)
{
	if (PG_ARGISNULL(argno))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s must not be null", name),
				 errhint("Give %s a value, or leave it out to use its default.", name)));
}

/* A text argument, or NULL when it is null or not declared (0.2). */
static char *
text_arg(FunctionCallInfo fcinfo, int argno)
{
	if (PG_NARGS() <= argno || PG_ARGISNULL(argno))
		return NULL;
	return text_to_cstring(PG_GETARG_TEXT_PP(argno));
}

/* tablespace or index_tablespace: a name, or "" for the default. */
static void
read_tablespace(char *dst, const char *name, const char *arg, bool local)
{
	dst[0] = '\0';
	if (name == NULL)
		return;
	if (name[0] == '\0')
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must not be empty", arg),
				 errhint("Name a tablespace, or leave %s out for the default one.", arg)));
	if (strlen(name) >= NAMEDATALEN)
		ereport(ERROR,
				(errcode(ERRCODE_NAME_TOO_LONG),
				 errmsg("%s \"%s\" is too long", arg, name),
				 errhint("Tablespace names have at most %d bytes.", NAMEDATALEN - 1)));
	/* on a target, the target's catalog decides */
	if (local && !OidIsValid(get_tablespace_oid(name, true)))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("tablespace \"%s\" does not exist", name),
				 errhint("Create it first (CREATE TABLESPACE), or leave %s out for the default one.", arg)));
	strlcpy(dst, name, NAMEDATALEN);
}

/*
 * The arguments; max_scale is init's limit, init_sql shows any scale.
 * pgbench -i's data set options begin at argument opts (init: after
 * target; init_sql: after unlogged): partitions, partition_method,
 * init_steps, tablespace, index_tablespace.  0.2's declarations do not
 * have them.  local: the tables go to this server (a tablespace must
 * exist here).
 */
static void
read_params(FunctionCallInfo fcinfo, DatasetParams *p, int max_scale, int opts, bool local)
{
	char	   *method;

	check_not_null(fcinfo, 0, "scale");
	check_not_null(fcinfo, 1, "fillfactor");
	check_not_null(fcinfo, 2, "foreign_keys");
	check_not_null(fcinfo, 3, "unlogged");
	if (PG_NARGS() > opts)
		check_not_null(fcinfo, opts, "partitions");
	memset(p, 0, sizeof(*p));
	p->scale = PG_GETARG_INT32(0);
	p->fillfactor = PG_GETARG_INT32(1);
	p->foreign_keys = PG_GETARG_BOOL(2);
	p->unlogged = PG_GETARG_BOOL(3);
	p->partitions = PG_NARGS() > opts ? PG_GETARG_INT32(opts) : 0;
	p->server_version = PG_VERSION_NUM;

	if (p->scale <= 0 || p->scale > max_scale)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("scale %d is out of range", p->scale),
				 max_scale == pgbl_max_scale ?
				 errhint("Valid scales are 1 to %d (pgbench_lab.max_scale, which a superuser can raise).",
						 max_scale) :
				 errhint("Valid scales are 1 to %d.", max_scale)));
	if (p->fillfactor < 10 || p->fillfactor > 100)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("fillfactor %d is out of range", p->fillfactor),
				 errhint("Valid fillfactors are 10 to 100, as in pgbench.")));
	if (p->partitions < 0 || p->partitions > PGBL_MAX_PARTITIONS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("partitions %d is out of range", p->partitions),
				 errhint("Valid numbers of partitions are 0 (pgbench_accounts not partitioned) to %d.",
						 PGBL_MAX_PARTITIONS)));

	method = text_arg(fcinfo, opts + 1);
	if (method != NULL && p->partitions == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("partition_method requires partitions greater than zero"),
				 errhint("Give partitions too, or leave partition_method out (as pgbench refuses --partition-method without --partitions).")));
	if (p->partitions == 0)
		p->partition_method = DATASET_PART_NONE;
	/* in any case, as pgbench takes --partition-method */
	else if (method == NULL || pg_strcasecmp(method, "range") == 0)
		p->partition_method = DATASET_PART_RANGE;
	else if (pg_strcasecmp(method, "hash") == 0)
		p->partition_method = DATASET_PART_HASH;
	else
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid partition_method \"%s\"", method),
				 errhint("Valid partition methods are \"range\" (the default) and \"hash\", as in pgbench.")));

	DatasetPlan(p, text_arg(fcinfo, opts + 2));
	read_tablespace(p->tablespace, text_arg(fcinfo, opts + 3), "tablespace", local);
	read_tablespace(p->index_tablespace, text_arg(fcinfo, opts + 4), "index_tablespace", local);
}

/*
 * The schema CREATE TABLE without a schema would use: the first existing
 * schema of search_path.
 */
static Oid
first_schema(DatasetParams *p)
{
	List	   *path = fetch_search_path(false);
	Oid			nspoid;

	if (path == NIL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_SCHEMA),
				 errmsg("no schema has been selected to create in"),
				 errhint("Put an existing schema first in search_path.")));
	nspoid = linitial_oid(path);
	strlcpy(p->schema, get_namespace_name(nspoid), NAMEDATALEN);
	return nspoid;
}

/* The schema init uses, if the caller may create there. */
static Oid
resolve_schema(DatasetParams *p)
{
	Oid			nspoid = first_schema(p);

	/* the worker cannot see this session's temporary schema */
	if (isAnyTempNamespace(nspoid))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("pgbench_lab.init cannot create its tables in a temporary schema"),
				 errhint("Put a permanent schema first in search_path.")));
	if (PGBL_NAMESPACE_ACLCHECK(nspoid, GetUserId(), ACL_CREATE) != ACLCHECK_OK)
		aclcheck_error(ACLCHECK_NO_PRIV, OBJECT_SCHEMA, p->schema);
	return nspoid;
}

/* ---- the worker: segment, launch, error -------------------------------- */

/* on_dsm_detach callback: the caller is leaving, so must the worker */
static void
dataset_terminate(dsm_segment *seg, Datum arg)
{
	TerminateBackgroundWorker((BackgroundWorkerHandle *) DatumGetPointer(arg));
}

/*
 * Create the segment, fill it and start the worker.  The handle lives in
 * TopTransactionContext, which outlasts the segment's detach at abort.
 */
static dsm_segment *
dataset_launch(const DatasetParams *p, BackgroundWorkerHandle **handle)
{
	dsm_segment *seg = dsm_create(sizeof(DatasetShared), 0);
	DatasetShared *sh = dsm_segment_address(seg);
	char		name[BGW_MAXLEN];
	MemoryContext old;

	memset(sh, 0, sizeof(*sh));
	sh->magic = PGBL_DATASET_MAGIC;
	sh->params = *p;
	sh->database = MyDatabaseId;
	sh->login_role = GetSessionUserId();
	sh->run_role = GetUserId();
	pg_atomic_init_u32(&sh->state, DATASET_STATE_NEW);
	pg_atomic_init_u32(&sh->step, PGBL_INIT_NO_STEP);

	snprintf(name, sizeof(name), "pgbench_lab init for PID %d", MyProcPid);
	old = MemoryContextSwitchTo(TopTransactionContext);
	*handle = WorkerLaunch("pgbench_lab_dataset_main", "pgbench_lab init", name,
						   UInt32GetDatum(dsm_segment_handle(seg)),
						   "the pgbench_lab init worker",
						   psprintf("Raise max_worker_processes (now %d; needs a restart) or wait for other background workers to finish.",
									max_worker_processes));
	MemoryContextSwitchTo(old);
	on_dsm_detach(seg, dataset_terminate, PointerGetDatum(*handle));
	return seg;
}

/*
 * Raise the worker's error here, with its SQLSTATE, naming the step under
 * way (none yet while it checks the tables and the disk).
 */
static void
dataset_raise(DatasetShared *sh)
{
	uint32		step = pg_atomic_read_u32(&sh->step);
	bool		begun = step < (uint32) sh->params.nsteps;
	const char *where = begun
		? psprintf("during step \"%s\"", DatasetPlanStepName(&sh->params, step)) : "before its first step";

	if (pg_atomic_read_u32(&sh->state) != DATASET_STATE_FAILED)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("pgbench_lab init worker exited %s without reporting", where),
				 errhint("The server log has the worker's messages.")));
	WorkerErrorRaise(&sh->error, begun
					 ? psprintf("pgbench_lab.init step \"%s\", in a background worker",
								DatasetPlanStepName(&sh->params, step))
					 : "pgbench_lab.init, in a background worker, before its first step");
}

/* ---- SQL-callable ------------------------------------------------------ */


/*
 * The progress of init's steps (progress.c), seen by the caller as it
 * waits: each step's share of the work, for the estimate of the time left,
 * is a rough one (writing the rows, then vacuuming and the keys, take most
 * of it at any scale).
 */
static const double init_share[DATASET_NKINDS] = {0.01, 0.01, 0.02, 0.66, 0.66, 0.25, 0.05};

typedef struct InitWatch
{
	DatasetShared *sh;
	int			next;			/* the next step to announce */
	int			nsteps;
	Progress	progress;
} InitWatch;

/*
 * Announce the steps up to "upto" (from 0) that have not been: each one's
 * start, and the end of the one before it, with its rows when it has
 * any.  The caller sees the worker's step only when it looks, so a fast
 * step is announced late, never left out.
 */
static void
init_announce(InitWatch *w, int upto)
{
	DatasetTimings *t = &w->sh->timings;

	for (; w->next <= upto && w->next <= w->nsteps; w->next++)
	{
		int			done = w->next - 1;

		const DatasetParams *p = &w->sh->params;

		if (done >= 0 && t->step_done[done] && t->rows[done] >= 0)
			ProgressStepDone(&w->progress, done + 1, "%s, " INT64_FORMAT " rows in %.1f s",
							 DatasetPlanStepName(p, done), t->rows[done], t->seconds[done]);
		else if (done >= 0)
			ProgressStepDone(&w->progress, done + 1, "%s", DatasetPlanStepName(p, done));
		if (w->next < w->nsteps)
			ProgressStep(&w->progress, w->next + 1, init_share[DatasetStepKind(p, w->next)], "%s",
						 DatasetPlanStepName(p, w->next));
	}
}

/* WorkerWait's check: the worker's step under way, and those before it. */
static bool
init_watch(void *arg)
{
	InitWatch  *w = arg;
	uint32		step = pg_atomic_read_u32(&w->sh->step);

	if (step < (uint32) w->nsteps)
		init_announce(w, (int) step);
	return false;
}

/*
 * pgbench_lab.init(scale int, fillfactor int DEFAULT 100,
 *                  foreign_keys bool DEFAULT false, unlogged bool DEFAULT false,
 *                  target text DEFAULT NULL, partitions int DEFAULT 0,
 *                  partition_method text DEFAULT NULL, init_steps text DEFAULT NULL,
 *                  tablespace text DEFAULT NULL, index_tablespace text DEFAULT NULL)
 * RETURNS TABLE (step text, seconds numeric, rows bigint, rows_per_second numeric)
 *
 * With a target, the data set is made on that server (dataset_remote.c).
 * 0.1's declaration, callable until ALTER EXTENSION UPDATE, has no target;
 * 0.1's and 0.2's have none of the data set options after it.
 */
Datum
pgbench_lab_init(PG_FUNCTION_ARGS)
{
	DatasetParams p;
	Oid			nspoid;
	BackgroundWorkerHandle *handle;
	dsm_segment *seg;
	DatasetShared *sh;
	InitWatch	watch;
	bool		remote = PG_NARGS() > 4 && !PG_ARGISNULL(4);
	double		total = 0;

	LimitsCheck();				/* max_scale is the one configured */
	read_params(fcinfo, &p, pgbl_max_scale, 5, !remote);
	if (IsTransactionBlock())
		ereport(ERROR,
				(errcode(ERRCODE_ACTIVE_SQL_TRANSACTION),
				 errmsg("pgbench_lab.init cannot run inside a transaction block"),
				 remote ?
				 errdetail("The target server commits each step on its own; a rollback here would not undo it.") :
				 errdetail("Its worker commits on its own; a rollback here would not undo it."),
				 errhint("Call it outside BEGIN ... COMMIT.")));
	if (remote)
	{
		InitMaterializedSRF(fcinfo, 0);
		DatasetInitRemote(fcinfo, &p, text_to_cstring(PG_GETARG_TEXT_PP(4)));
		return (Datum) 0;
	}
	PreventCommandIfReadOnly("pgbench_lab.init()");
	PreventCommandDuringRecovery("pgbench_lab.init()");
	nspoid = resolve_schema(&p);
	DatasetCheckExisting(nspoid);

	InitMaterializedSRF(fcinfo, 0);
	seg = dataset_launch(&p, &handle);
	sh = dsm_segment_address(seg);
	watch.sh = sh;
	watch.next = 0;
	watch.nsteps = p.nsteps;
	for (int i = 0; i < p.nsteps; i++)
		total += init_share[DatasetStepKind(&p, i)];
	ProgressBegin(&watch.progress, "init()", watch.nsteps, total, false);
	(void) WorkerWait(handle, init_watch, &watch, 200L, "pgbench_lab.init");
	if (pg_atomic_read_u32(&sh->state) != DATASET_STATE_DONE)
		dataset_raise(sh);
	init_announce(&watch, watch.nsteps);	/* the last step's end */
	ProgressEnd(&watch.progress);
	DatasetEmitSteps(fcinfo, &sh->params, &sh->timings);
	cancel_on_dsm_detach(seg, dataset_terminate, PointerGetDatum(handle));
	dsm_detach(seg);
	return (Datum) 0;
}

/*
 * pgbench_lab.init_sql(scale int, fillfactor int DEFAULT 100,
 *                      foreign_keys bool DEFAULT false, unlogged bool DEFAULT false,
 *                      partitions int DEFAULT 0, partition_method text DEFAULT NULL,
 *                      init_steps text DEFAULT NULL, tablespace text DEFAULT NULL,
 *                      index_tablespace text DEFAULT NULL)
 * RETURNS TABLE (step text, statement text)
 *
 * What init() would run, in the current schema.  The generate step is
 * shown as the SQL that makes the same rows.
 */
Datum
pgbench_lab_init_sql(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	DatasetParams p;

	read_params(fcinfo, &p, INT_MAX, 4, false);
	(void) first_schema(&p);

	InitMaterializedSRF(fcinfo, 0);
	for (int s = 0; s < p.nsteps; s++)
	{
		ListCell   *lc;

		foreach(lc, DatasetStatements(&p, s))
		{
			Datum		values[2];
			bool		nulls[2] = {false, false};

			values[0] = CStringGetTextDatum(DatasetPlanStepName(&p, s));
			values[1] = CStringGetTextDatum((char *) lfirst(lc));
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		}
	}
	return (Datum) 0;
}
