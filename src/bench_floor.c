/*-------------------------------------------------------------------------
 *
 * bench_floor.c
 *		The floor of the in-server path, for the benchmark: background
 *		workers of the same shape as a run's clients that do nothing but
 *		the select-only transaction.
 *
 * pgbench_lab_internal.spi_floor(clients, seconds) starts one worker per
 * client.  Each logs in as the caller, prepares the select-only statement
 * once (the same saved plan a run's client uses), waits for the go and then
 * loops: start a transaction, SPI_execute_plan with a drawn aid, commit.
 * Nothing else: no per-transaction timing, counters, memory-context reset,
 * error catching or statistics report; the count is kept in a local
 * variable and published once at the end.  What a run's client does beyond
 * this loop is the price of its measurements, and the benchmark reports
 * pgbench_lab's select-only throughput as a share of this floor.
 *
 * It is a benchmark's tool, not part of the API: internal, and executable
 * by its owner only.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "common/pg_prng.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "port/atomics.h"
#include "postmaster/bgworker.h"
#include "storage/dsm.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"
#include "utils/wait_event.h"

#include "pgbench_lab.h"
#include "secure.h"
#include "worker.h"
#include "workload.h"

#define PGBL_FLOOR_MAGIC 0x50424C46 /* "PBLF" */
#define PGBL_FLOOR_MAX_CLIENTS 64
#define PGBL_FLOOR_MAX_SECONDS 3600

typedef struct FloorClient
{
	pg_atomic_uint32 state;		/* 0 new, 1 ready, 2 done, 3 failed */
	uint64		xacts;
	int64		start_ns;
	int64		end_ns;
	WorkerError error;
} FloorClient;

typedef struct FloorShared
{
	uint32		magic;
	Oid			dboid;
	Oid			login_role;
	Oid			run_role;
	int			clients;
	int64		transactions;	/* per client; 0: until told to stop */
	WorkloadParams wl;
	pg_atomic_uint32 go;
	pg_atomic_uint32 stop;
	FloorClient client[PGBL_FLOOR_MAX_CLIENTS];
} FloorShared;

enum
{
	FLOOR_NEW, FLOOR_READY, FLOOR_DONE, FLOOR_FAILED
};

PG_FUNCTION_INFO_V1(pgbench_lab_spi_floor);

/* The loop itself: as bare as a transaction through SPI can be. */
static uint64
floor_loop(FloorShared *fs, SPIPlanPtr plan, pg_prng_state *rng)
{
	uint64		n = 0;
	int64		accounts = (int64) fs->wl.scale * 100000;
	Datum		aid;

	while (pg_atomic_read_u32(&fs->stop) == 0 &&
		   (fs->transactions == 0 || n < (uint64) fs->transactions))
	{
		int64		v = 1 + (int64) pg_prng_uint64_range(rng, 0, (uint64) (accounts - 1));

		aid = fs->wl.aid_bigint ? Int64GetDatum(v) : Int32GetDatum((int32) v);
		StartTransactionCommand();
		SPI_connect();
		PushActiveSnapshot(GetTransactionSnapshot());
		if (SPI_execute_plan(plan, &aid, NULL, true, 0) != SPI_OK_SELECT)
			elog(ERROR, "select-only statement failed");
		SPI_finish();
		PopActiveSnapshot();
		CommitTransactionCommand();
		n++;
		CHECK_FOR_INTERRUPTS();
	}
	return n;
}

/* Background worker: bgw_main_arg is the DSM handle, bgw_extra the index. */
PGDLLEXPORT void pgbench_lab_floor_main(Datum arg);

void
pgbench_lab_floor_main(Datum arg)
{
	dsm_segment *seg;
	FloorShared *fs;
	FloorClient *me;
	int			index;
	WorkloadPlans plans;
	pg_prng_state rng;
	MemoryContext cxt;

	memcpy(&index, MyBgworkerEntry->bgw_extra, sizeof(int));
	WorkerSignals();
	seg = dsm_attach(DatumGetUInt32(arg));
	if (seg == NULL)
		proc_exit(0);
	fs = dsm_segment_address(seg);
	if (fs->magic != PGBL_FLOOR_MAGIC || index < 0 || index >= fs->clients)
		proc_exit(0);
	me = &fs->client[index];
	cxt = AllocSetContextCreate(TopMemoryContext, "pgbench_lab floor", ALLOCSET_DEFAULT_SIZES);
	MemoryContextSwitchTo(cxt);
	WorkerConnectAs(fs->dboid, fs->login_role, fs->run_role);
	/* the clients' session: the same search_path, so plans revalidate alike */
	SecureWorkerSession();
	if (!pg_prng_strong_seed(&rng))
		pg_prng_seed(&rng, (uint64) MyProcPid);

	PG_TRY();
	{
		StartTransactionCommand();
		SPI_connect();
		PushActiveSnapshot(GetTransactionSnapshot());
		WorkloadPrepare(&fs->wl, &plans);
		SPI_finish();
		PopActiveSnapshot();
		CommitTransactionCommand();
		pg_atomic_write_u32(&me->state, FLOOR_READY);
		WorkerSetLatchOf(MyBgworkerEntry->bgw_notify_pid);
		while (pg_atomic_read_u32(&fs->go) == 0 && pg_atomic_read_u32(&fs->stop) == 0)
		{
			(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
							 10L, PG_WAIT_EXTENSION);
			ResetLatch(MyLatch);
			CHECK_FOR_INTERRUPTS();
		}
		me->start_ns = WorkerNowNs();
		me->xacts = floor_loop(fs, plans.plan[0], &rng);	/* select-only: its one statement */
		me->end_ns = WorkerNowNs();
		pg_write_barrier();
		pg_atomic_write_u32(&me->state, FLOOR_DONE);
	}
	PG_CATCH();
	{
		WorkerErrorSave(&me->error, WorkerCatch(cxt, false));
		pg_write_barrier();
		pg_atomic_write_u32(&me->state, FLOOR_FAILED);
	}
	PG_END_TRY();
	WorkerSetLatchOf(MyBgworkerEntry->bgw_notify_pid);
	proc_exit(0);
}

/* Have all clients reached at least this state (or failed)?  Raises a failure. */
static bool
all_reached(FloorShared *fs, uint32 state)
{
	for (int i = 0; i < fs->clients; i++)
	{
		uint32		s = pg_atomic_read_u32(&fs->client[i].state);

		if (s == FLOOR_FAILED)
		{
			pg_atomic_write_u32(&fs->stop, 1);
			WorkerErrorRaise(&fs->client[i].error, "a floor client of the benchmark");
		}
		if (s < state)
			return false;
	}
	return true;
}

/* Wait, interruptibly, until every client reached the state. */
static void
wait_for(FloorShared *fs, uint32 state, BackgroundWorkerHandle **handles)
{
	while (!all_reached(fs, state))
	{
		for (int i = 0; i < fs->clients; i++)
		{
			pid_t		pid;

			if (GetBackgroundWorkerPid(handles[i], &pid) == BGWH_STOPPED &&
				pg_atomic_read_u32(&fs->client[i].state) < state)
			{
				pg_atomic_write_u32(&fs->stop, 1);
				if (pg_atomic_read_u32(&fs->client[i].state) != FLOOR_FAILED)
					ereport(ERROR,
							(errcode(ERRCODE_INTERNAL_ERROR),
							 errmsg("a floor client exited early (see the server log)")));
			}
		}
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 10L, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
}

/* Tell the clients to stop when the session leaves with an error. */
static void
floor_stop_on_exit(int code, Datum arg)
{
	FloorShared *fs = (FloorShared *) DatumGetPointer(arg);

	pg_atomic_write_u32(&fs->stop, 1);
}

/*
 * pgbench_lab_internal.spi_floor(clients integer, seconds double precision,
 *		transactions bigint, OUT tps double precision, OUT transactions bigint):
 * for seconds, or until each client made that many transactions (if > 0 and
 * sooner), select-only
 * transactions per second of the bare loop, summed over the clients (each
 * over its own time in the loop), and how many they made.
 */
Datum
pgbench_lab_spi_floor(PG_FUNCTION_ARGS)
{
	int			clients = PG_GETARG_INT32(0);
	double		seconds = PG_GETARG_FLOAT8(1);
	int64		transactions = PG_GETARG_INT64(2);
	dsm_segment *seg;
	FloorShared *fs;
	BackgroundWorkerHandle *handles[PGBL_FLOOR_MAX_CLIENTS];
	TimestampTz until;
	double		tps = 0;
	uint64		xacts = 0;
	TupleDesc	desc;
	Datum		values[2];
	bool		nulls[2] = {false, false};

	if (clients < 1 || clients > PGBL_FLOOR_MAX_CLIENTS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("clients must be between 1 and %d", PGBL_FLOOR_MAX_CLIENTS)));
	if (!(seconds > 0 && seconds <= PGBL_FLOOR_MAX_SECONDS))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("seconds must be above 0 and at most %d", PGBL_FLOOR_MAX_SECONDS)));

	seg = dsm_create(sizeof(FloorShared), 0);
	fs = dsm_segment_address(seg);
	memset(fs, 0, sizeof(FloorShared));
	fs->magic = PGBL_FLOOR_MAGIC;
	fs->dboid = MyDatabaseId;
	fs->login_role = GetSessionUserId();
	fs->run_role = GetUserId();
	fs->clients = clients;
	fs->transactions = Max(transactions, 0);
	fs->wl.kind = WORKLOAD_SELECT_ONLY;
	WorkloadResolve(&fs->wl);
	pg_atomic_init_u32(&fs->go, 0);
	pg_atomic_init_u32(&fs->stop, 0);
	for (int i = 0; i < clients; i++)
		pg_atomic_init_u32(&fs->client[i].state, FLOOR_NEW);

	PG_ENSURE_ERROR_CLEANUP(floor_stop_on_exit, PointerGetDatum(fs));
	{
		for (int i = 0; i < clients; i++)
			if (!WorkerRegister("pgbench_lab_floor_main", "pgbench_lab floor",
								"pgbench_lab floor client", UInt32GetDatum(dsm_segment_handle(seg)),
								i, &handles[i]))
				ereport(ERROR,
						(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
						 errmsg("could not start floor client %d: no free background worker slot", i + 1),
						 errhint("Raise max_worker_processes.")));
		wait_for(fs, FLOOR_READY, handles);
		pg_atomic_write_u32(&fs->go, 1);
		for (int i = 0; i < clients; i++)
		{
			pid_t		pid;

			if (GetBackgroundWorkerPid(handles[i], &pid) == BGWH_STARTED)
				WorkerSetLatchOf(pid);
		}
		until = TimestampTzPlusMilliseconds(GetCurrentTimestamp(), (int64) (seconds * 1000));
		while (GetCurrentTimestamp() < until && !(transactions > 0 && all_reached(fs, FLOOR_DONE)))
		{
			long		ms = TimestampDifferenceMilliseconds(GetCurrentTimestamp(), until);

			(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
							 Max(1L, ms), PG_WAIT_EXTENSION);
			ResetLatch(MyLatch);
			CHECK_FOR_INTERRUPTS();
			(void) all_reached(fs, FLOOR_READY);	/* raises a client's failure */
		}
		pg_atomic_write_u32(&fs->stop, 1);
		wait_for(fs, FLOOR_DONE, handles);
	}
	PG_END_ENSURE_ERROR_CLEANUP(floor_stop_on_exit, PointerGetDatum(fs));

	pg_read_barrier();
	for (int i = 0; i < clients; i++)
	{
		FloorClient *c = &fs->client[i];

		if (c->end_ns > c->start_ns)
			tps += c->xacts / ((c->end_ns - c->start_ns) / 1e9);
		xacts += c->xacts;
	}
	dsm_detach(seg);
	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "spi_floor must return a record");
	values[0] = Float8GetDatum(tps);
	values[1] = Int64GetDatum((int64) xacts);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(desc), values, nulls)));
}
