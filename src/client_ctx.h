/*-------------------------------------------------------------------------
 *
 * client_ctx.h
 *		One simulated client's own state and figures (client_ctx.c), shared
 *		by the in-server client worker (client.c) and the libpq worker that
 *		drives many clients' connections (client_mux.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef PGBL_CLIENT_CTX_H
#define PGBL_CLIENT_CTX_H

#include "common/pg_prng.h"

#include "run_shared.h"
#include "script_vars.h"
#include "stats.h"
#include "transport.h"
#include "workload.h"

typedef struct ClientCtx
{
	RunShared  *run;
	RunClient  *me;
	int			index;
	WorkloadClient builtin;		/* a built-in workload over its transport */
	ScriptClient *script;		/* a run of scripts: the interpreter */
	pg_prng_state rng;
	MemoryContext loopcxt;
	/* local copies of the shared counters (we are their only writer) */
	uint64		xacts;
	uint64		failures;
	uint64		retries;
	uint64		serialization_failures;
	uint64		deadlock_failures;
	uint64		lat_sum;
	StatsMoments lat_us;		/* for the standard deviation */
	uint64		lat_max;
	int64		hit_base;
	int64		read_base;
	bool		cancelled;		/* this client cancelled the run */
	bool		timed;			/* latencies measured (and lag, and late) */
	pg_prng_state sample_rng;	/* which transactions are sampled */
	/* the rate's schedule: times in ns after the go */
	pg_prng_state sched_rng;
	double		gap_ns;			/* mean gap between this client's slots */
	double		slot;			/* the slot drawn last */
	uint64		drawn;			/* slots drawn so far */
	uint64		skipped;
	uint64		late;
	uint64		lag_sum;
	uint64		lag_max;
} ClientCtx;

/* How the run's statements go (query_mode), for its clients' transports. */
static inline TransportMode
ClientTransportMode(const RunShared *run)
{
	switch (run->query_mode)
	{
		case RUN_QUERY_SIMPLE:
			return TRANSPORT_SIMPLE;
		case RUN_QUERY_EXTENDED:
			return TRANSPORT_EXTENDED;
		case RUN_QUERY_PREPARED:
			break;
	}
	return TRANSPORT_PREPARED;
}

extern void ClientCatchCancel(void);
extern void ClientApplySettings(RunShared *run);
extern void ClientSeed(ClientCtx *cx);
extern bool ClientStopRequested(ClientCtx *cx);
extern bool ClientIsOwnCancel(const ErrorData *edata);
extern void ClientRecordError(ClientCtx *cx, ErrorData *edata);
extern void ClientCountError(ClientCtx *cx, const ErrorData *edata, bool failed);
extern void ClientCancelRun(ClientCtx *cx, ErrorData *edata);
extern void ClientPublish(ClientCtx *cx, uint64 latency_ns, uint64 lag_ns, bool committed);
extern void ClientSample(ClientCtx *cx, int64 from, uint64 latency, uint64 lag, int script,
						 int tries, bool failed);
extern bool ClientNextSlot(ClientCtx *cx, int64 *slot);

/* What a rate-limited client at its slot does (ClientSlotStart). */
typedef enum ClientSlot
{
	CLIENT_SLOT_GO,				/* start the transaction */
	CLIENT_SLOT_WAIT,			/* skipped: wait for the next slot */
	CLIENT_SLOT_END				/* the client must end */
} ClientSlot;

extern ClientSlot ClientSlotStart(ClientCtx *cx, int64 *slot, int64 *start);
extern void ClientCountDueSlots(ClientCtx *cx);
extern bool ClientDoneCount(ClientCtx *cx);

#endif							/* PGBL_CLIENT_CTX_H */
