/*-------------------------------------------------------------------------
 *
 * recommender_math.c
 *		Settings for a described machine: pure arithmetic, explained.
 *
 * Every figure is derived from the inputs by continuous formulas (no tiers
 * that jump at a threshold), in doubles so that a petabyte of RAM or a
 * thousand CPUs cannot overflow, and rounded down only at the end so that
 * more RAM never gives less memory and more connections never give more
 * work_mem.  The memory plan is a budget: the RAM left after the OS reserve
 * pays for shared memory, maintenance and autovacuum, each backend's own
 * overhead, and only then for work_mem, which is shared by every connection
 * and parallel worker that may sort or hash at once.  Connections beyond
 * what the CPUs can run (about ten per CPU) are not bought with a smaller
 * work_mem: the recommendation keeps max_connections there and says to put
 * a pooler in front.  Parallel workers are backends too: they get one per
 * core only while the RAM can give each what a connection gets.
 *
 * Nothing here reads the catalog or the machine (settings_live.c and system.c
 * do); each setting carries its formula with the actual numbers and a
 * reason, and settings_live.c clamps it to the live server's bounds.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "lib/stringinfo.h"
#include "recommender.h"

#define KB 1024.0
#define MB (1024.0 * 1024.0)
#define GB (1024.0 * 1024.0 * 1024.0)
#define TB (1024.0 * GB)

/* Connections per CPU beyond which a pooler does better. */
#define PGBL_CONNS_PER_CPU 10.0
/* Active connections per core worth running at once. */
#define PGBL_ACTIVE_PER_CPU 2.0
/* Fewest connections planned, however little the memory. */
#define PGBL_MIN_CONNECTIONS 10
/* A connection's slot in shared memory (locks and process entries). */
#define PGBL_SHM_PER_CONNECTION (20.0 * KB)
/* Autovacuum workers assumed by the budget (PostgreSQL's default). */
#define PGBL_AUTOVACUUM_WORKERS 3
/* hash_mem_multiplier recommended (and PostgreSQL's default since 15). */
#define PGBL_HASH_MEM 2.0
/* Beyond this much WAL between checkpoints, recovery takes too long. */
#define PGBL_MAX_WAL_CAP (64.0 * GB)
/* One WAL segment, the ceiling of wal_buffers' automatic value. */
#define PGBL_WAL_SEGMENT (16.0 * MB)
/* PostgreSQL's defaults: the floors, unless the memory or disk forces less. */
#define PGBL_DEFAULT_SB (128.0 * MB)
#define PGBL_DEFAULT_WORK_MEM (4.0 * MB)
#define PGBL_DEFAULT_MAINT (64.0 * MB)
#define PGBL_DEFAULT_MAX_WAL (1.0 * GB)
#define PGBL_DEFAULT_MIN_WAL (80.0 * MB)
/* Room for a pgbench_lab in-server run of at least this many clients. */
#define PGBL_LAB_RUN_CLIENTS 8
/* PostgreSQL's defaults for the background worker slots. */
#define PGBL_DEFAULT_WORKER_PROCESSES 8
#define PGBL_DEFAULT_LOGICAL_WORKERS 4

const char *const RecoWorkloadNames[] = {"web", "oltp", "dw", "mixed", "desktop", NULL};
const char *const RecoStorageNames[] = {"hdd", "ssd", "nvme", "san", NULL};
const char *const RecoOsNames[] = {"linux", "windows", "macos", NULL};

/* per workload, indexed by RecoWorkload */
static const int default_connections[] = {200, 300, 40, 100, 20};
static const double work_mem_share[] = {1.0, 1.0, 1.0, 0.5, 1.0 / 6.0};
static const char *const work_mem_share_reason[] = {
	"all of it: short queries seldom sort at all, so the count of every connection sorting and hashing at once is margin enough",
	"all of it: short queries seldom sort at all, so the count of every connection sorting and hashing at once is margin enough",
	"all of it: an analytical query holds a sort and a hash at once, which the divisor already counts (x (1 + hash_mem_multiplier)) for every connection and parallel worker; halving again would count them twice",
	"half of it: the short queries come in bursts beyond the connections planned for, and the analytical ones need room beside them",
	"a sixth of it: a desktop's other programs need the rest"
};
static const double wal_base[] = {1.0 * GB, 2.0 * GB, 4.0 * GB, 1.0 * GB, 256.0 * MB};
static const double wal_per_sb[] = {1.0, 2.0, 2.0, 1.0, 0.5};

/* per storage, indexed by RecoStorage */
static const double storage_page_cost[] = {4.0, 1.1, 1.1, 2.0};
static const int storage_io_concurrency[] = {2, 200, 1000, 300};

/* Every intermediate figure, so that rows can quote each other. */
typedef struct RecoPlan
{
	double		ram;
	double		reserve;
	double		usable;
	double		cpus;
	int			cores;
	int			requested;		/* connections asked for (or default) */
	double		cpu_cap;		/* what the CPUs serve */
	double		conn_cap;		/* the smaller of cpu_cap and conn_mem_cap */
	double		fixed;			/* costs that do not grow with backends */
	double		per_backend;	/* a backend at the default work_mem */
	double		afford;			/* backends the memory affords at it */
	double		conn_mem_cap;	/* afford, at least PGBL_MIN_CONNECTIONS */
	int			connections;
	double		sb;
	double		shm;			/* whole shared segment, estimated */
	double		ecs;
	double		ecs_share;		/* the usual share of RAM */
	double		maint;
	double		av_mem;
	double		overhead;
	double		query_mem;		/* left for work_mem */
	double		work_mem_held;	/* what query_mem holds per backend */
	double		work_mem_share; /* the workload's share of it */
	double		work_mem;
	double		wal_buffers;
	double		max_wal;
	int			parallel;
	int			per_gather;
	int			maint_workers;
} RecoPlan;

/* Round down to a multiple of q: monotone, so no formula can turn back. */
static double
floor_to(double v, double q)
{
	return floor(v / q) * q;
}

/* Memory settings: whole megabytes, or kilobytes below one megabyte. */
static double
round_memory(double bytes)
{
	if (bytes >= MB)
		return floor_to(bytes, MB);
	return Max(floor_to(bytes, 8 * KB), 64 * KB);
}

/*
 * "12GB", "1.75GB", "640kB": for formulas, two decimals at most.
 */
char *
RecommenderPrettyBytes(double bytes)
{
	static const char *const units[] = {"TB", "GB", "MB", "kB"};
	static const double sizes[] = {TB, GB, MB, KB};
	char		buf[64];
	int			len;

	for (int i = 0; i < 4; i++)
	{
		if (fabs(bytes) >= sizes[i])
		{
			snprintf(buf, sizeof(buf), "%.2f", bytes / sizes[i]);
			len = strlen(buf);
			while (buf[len - 1] == '0')
				buf[--len] = '\0';
			if (buf[len - 1] == '.')
				buf[--len] = '\0';
			return psprintf("%s%s", buf, units[i]);
		}
	}
	return psprintf("%.0fB", bytes);
}

/* A plain number as postgresql.conf takes it: "200", "1.1", "0.9". */
static char *
format_number(double v)
{
	if (v == floor(v) && fabs(v) < 1e15)
		return psprintf("%.0f", v);
	return psprintf("%g", rint(v * 100.0) / 100.0);
}

/*
 * A value as postgresql.conf takes it: sizes in the largest unit that
 * divides them exactly ("4GB", "1536MB"), times likewise ("15min").
 */
char *
RecommenderFormatValue(RecoUnit unit, double value, const char *text)
{
	static const char *const munits[] = {"TB", "GB", "MB", "kB"};
	static const double msizes[] = {TB, GB, MB, KB};

	switch (unit)
	{
		case RECO_UNIT_ENUM:
			return pstrdup(text);
		case RECO_UNIT_NUMBER:
			return format_number(value);
		case RECO_UNIT_SECONDS:
			if (value >= 3600 && fmod(value, 3600) == 0)
				return psprintf("%.0fh", value / 3600);
			if (value >= 60 && fmod(value, 60) == 0)
				return psprintf("%.0fmin", value / 60);
			return psprintf("%.0fs", value);
		case RECO_UNIT_BYTES:
			for (int i = 0; i < 4; i++)
				if (value >= msizes[i] && fmod(value, msizes[i]) == 0)
					return psprintf("%.0f%s", value / msizes[i], munits[i]);
			return psprintf("%.0fkB", ceil(value / KB));
	}
	return NULL;				/* keep compilers quiet */
}

static RecoSetting *
add_setting(RecommenderResult *out, const char *name, RecoUnit unit,
			double value, const char *text)
{
	RecoSetting *s;

	if (out->count >= PGBL_RECO_MAX_SETTINGS)
		elog(ERROR, "too many recommended settings");
	s = &out->settings[out->count++];
	s->name = name;
	s->unit = unit;
	s->value = value;
	s->text = text;
	s->formula = NULL;
	s->reason = NULL;
	return s;
}

/* Shorthand for formulas. */
#define PB(x) RecommenderPrettyBytes(x)

/*
 * The shared segment for a given shared_buffers: buffer descriptors and
 * the buffer table (about 2%), WAL buffers (< 0: what -1 picks), and lock
 * and process slots.
 */
double
RecommenderSharedMemory(double sb, double wal_buffers, int connections)
{
	if (wal_buffers < 0)
		wal_buffers = Min(sb / 32, PGBL_WAL_SEGMENT);
	return sb * 1.02 + wal_buffers + 32.0 * MB + connections * PGBL_SHM_PER_CONNECTION;
}

/* RAM, reserve and CPUs; connections are planned with the memory. */
static void
plan_machine(const RecommenderInput *in, RecoPlan *p)
{
	p->ram = in->ram;
	if (in->os_reserve >= 0)
		p->reserve = Min(in->os_reserve, in->ram / 2);
	else
		p->reserve = Min(in->ram / 4, 1.0 * GB) + in->ram / 16;
	p->usable = p->ram - p->reserve;
	p->cpus = in->cpus;
	p->cores = (int) Max(1.0, ceil(in->cpus));
	p->requested = in->max_connections > 0 ? in->max_connections :
		default_connections[in->workload];
	p->cpu_cap = floor(Max(20.0, PGBL_CONNS_PER_CPU * in->cpus));
}

/*
 * How many backends (connections and parallel workers) the memory affords
 * at PostgreSQL's default work_mem: what is left after the fixed costs
 * (shared memory, maintenance, the autovacuum workers and their processes)
 * divided by what one backend holds when it sorts and hashes at once, its
 * own process memory and work_mem x (1 + hash_mem_multiplier), plus its
 * slot in shared memory.  Then the connections: the asked count within
 * what the CPUs serve and the memory affords; the live count is kept past
 * the CPUs' cap (a pooler is advised) but not past what the memory
 * affords, since that count is what the memory budget must hold.
 */
static void
plan_connections(const RecommenderInput *in, RecoPlan *p)
{
	p->fixed = RecommenderSharedMemory(p->sb, p->wal_buffers, 0) + p->maint +
		PGBL_AUTOVACUUM_WORKERS * (p->av_mem + PGBL_BACKEND_OVERHEAD);
	p->per_backend = PGBL_BACKEND_OVERHEAD +
		PGBL_DEFAULT_WORK_MEM * (1.0 + PGBL_HASH_MEM) + PGBL_SHM_PER_CONNECTION;
	p->afford = floor(Max(0.0, p->usable - p->fixed) / p->per_backend);
	p->conn_mem_cap = Max((double) PGBL_MIN_CONNECTIONS, p->afford);
	p->conn_cap = Min(p->cpu_cap, p->conn_mem_cap);
	if (in->connections_asked)
		p->connections = (int) Min((double) p->requested, p->conn_cap);
	else
		p->connections = (int) Min((double) p->requested, p->conn_mem_cap);

	/* parallel workers are backends too: what the connections leave */
	p->parallel = (int) Min((double) p->cores,
							Max(0.0, p->afford - p->connections));
	p->per_gather = Min(p->cores / 2, p->parallel);
	if (in->workload != RECO_DW)
		p->per_gather = Min(p->per_gather, 4);
	p->maint_workers = Min(Min(p->cores / 2, 4), p->parallel);
}

/* shared_buffers, the caches, maintenance, and what is left for queries. */
static void
plan_memory(const RecommenderInput *in, RecoPlan *p)
{
	double		sb_share = in->workload == RECO_DESKTOP ? 1.0 / 16 : 1.0 / 4;
	double		maint_cap = in->os == RECO_WINDOWS ? 2.0 * GB - MB : 8.0 * GB;
	double		share;
	double		floor_wm;

	if (in->os == RECO_WINDOWS)
		sb_share /= 2;
	/* the default, unless a quarter of usable RAM cannot hold it */
	p->sb = round_memory(Max(p->usable * sb_share,
							 Min(PGBL_DEFAULT_SB, p->usable / 4)));
	p->wal_buffers = Max(floor_to(Min(p->sb / 32, PGBL_WAL_SEGMENT), 8 * KB), 64 * KB);
	p->maint = round_memory(Max(Min(p->usable / (in->workload == RECO_DW ? 8 : 16),
									maint_cap),
								Min(PGBL_DEFAULT_MAINT, p->usable / 8)));
	p->av_mem = round_memory(Min(p->usable / 32, 1.0 * GB));

	plan_connections(in, p);
	p->shm = RecommenderSharedMemory(p->sb, p->wal_buffers, p->connections);
	p->overhead = (p->connections + p->parallel + PGBL_AUTOVACUUM_WORKERS) *
		PGBL_BACKEND_OVERHEAD;
	p->query_mem = p->usable - p->shm - p->maint -
		PGBL_AUTOVACUUM_WORKERS * p->av_mem - p->overhead;

	share = work_mem_share[in->workload];
	p->work_mem_share = share;
	p->work_mem_held = Max(0.0, p->query_mem) /
		((p->connections + p->parallel) * (1.0 + PGBL_HASH_MEM));
	/*
	 * The default, unless the memory left cannot hold it for every backend;
	 * the connections were planned so that it can (a byte of rounding
	 * aside), unless even the fewest connections cannot have it.
	 */
	floor_wm = p->work_mem_held >= PGBL_DEFAULT_WORK_MEM - 1.0 ?
		PGBL_DEFAULT_WORK_MEM : p->work_mem_held;
	p->work_mem = Max(share * p->work_mem_held, floor_wm);
	p->work_mem = round_memory(Max(p->work_mem, 64 * KB));
	if (in->os == RECO_WINDOWS)
		p->work_mem = Min(p->work_mem, 2.0 * GB - MB);

	/*
	 * effective_cache_size: the planner's assumption of what shared_buffers
	 * and the OS cache hold together.  It allocates nothing, so no memory
	 * budget limits it: the usual three quarters of RAM (a desktop's
	 * quarter), but never more than the RAM left after the OS reserve,
	 * which the kernel and other programs hold.
	 */
	p->ecs_share = round_memory(p->ram * (in->workload == RECO_DESKTOP ? 0.25 : 0.75));
	p->ecs = Min(p->ecs_share, round_memory(p->usable));

	p->max_wal = Min(wal_base[in->workload] + wal_per_sb[in->workload] * p->sb,
					 PGBL_MAX_WAL_CAP);
	p->max_wal = Max(p->max_wal, PGBL_DEFAULT_MAX_WAL);
	if (in->wal_disk_free >= 0)
		p->max_wal = Min(p->max_wal, in->wal_disk_free / 4);
	p->max_wal = Max(round_memory(p->max_wal), 32 * MB);
}

/*
 * The arithmetic of what the memory affords: "each connection needs ...,
 * so N need X, but only Y is left ...: it affords K."
 */
static char *
afford_arithmetic(const RecoPlan *p, int n)
{
	return psprintf("each connection needs %s when it sorts and hashes at PostgreSQL's default work_mem (5MB of its own + 4MB work_mem x (1 + %s hash_mem_multiplier) + %s of shared memory), so %d need %s, but only %s is left of the %s usable after shared memory (%s), maintenance_work_mem (%s) and the %d autovacuum workers (%d x (%s + 5MB)): it affords %.0f",
					PB(p->per_backend), format_number(PGBL_HASH_MEM),
					PB(PGBL_SHM_PER_CONNECTION), n, PB(n * p->per_backend),
					PB(Max(0.0, p->usable - p->fixed)), PB(p->usable),
					PB(RecommenderSharedMemory(p->sb, p->wal_buffers, 0)),
					PB(p->maint), PGBL_AUTOVACUUM_WORKERS,
					PGBL_AUTOVACUUM_WORKERS, PB(p->av_mem), p->afford);
}

/* "(704MB usable - 362MB fixed) / 17.02MB per connection = 20" */
static char *
afford_formula(const RecoPlan *p)
{
	return psprintf("(%s usable - %s fixed) / %s per connection = %.0f%s",
					PB(p->usable), PB(p->fixed), PB(p->per_backend), p->afford,
					p->afford < PGBL_MIN_CONNECTIONS ?
					psprintf(", at least %d", PGBL_MIN_CONNECTIONS) : "");
}

static void
emit_connections(const RecommenderInput *in, const RecoPlan *p,
				 RecommenderResult *out)
{
	RecoSetting *s = add_setting(out, "max_connections", RECO_UNIT_NUMBER,
								 p->connections, NULL);
	double		active = Max(1.0, rint(PGBL_ACTIVE_PER_CPU * p->cpus));
	char	   *pool = psprintf("put a pooler such as pgbouncer in front with a pool of about %s x %s = %.0f server connections",
								format_number(PGBL_ACTIVE_PER_CPU),
								format_number(p->cpus), active);
	const char *forced = p->afford < PGBL_MIN_CONNECTIONS ?
		psprintf(" Fewer than %d connections are not planned, so work_mem falls below its default: give the machine more memory (or a smaller os_reserve).",
				 PGBL_MIN_CONNECTIONS) : "";

	if (!in->connections_asked)
	{
		if (p->requested > p->conn_mem_cap)
		{
			s->formula = psprintf("min(%d live, %s) = %d", p->requested,
								  afford_formula(p), p->connections);
			s->reason = psprintf("The memory cannot afford the live %d connections: %s. Lower max_connections to %d and %s, so that clients beyond %d wait for a server connection instead of being refused; or give the machine more memory. Shrinking work_mem below its default instead would send more sorts and hashes to disk.%s",
								 p->requested, afford_arithmetic(p, p->requested),
								 p->connections, pool, p->connections, forced);
			return;
		}
		s->formula = psprintf("%d live (kept: max_connections not given; the memory affords %.0f)",
							  p->connections, p->afford);
		if (p->connections > p->cpu_cap)
			s->reason = psprintf("The live %d is kept, because lowering it without a pooler would refuse clients (\"too many clients\"). But %s CPUs run only about %.0f at once and up to %d are worth having (%s x %s CPUs), so %s; then pass max_connections => %d to size the rest for it.",
								 p->connections, format_number(p->cpus), active,
								 (int) p->cpu_cap,
								 format_number(PGBL_CONNS_PER_CPU),
								 format_number(p->cpus), pool, (int) p->conn_cap);
		else
			s->reason = psprintf("The live %d is kept (pass max_connections => to size for another count): about %.0f run at once on %s CPUs and up to %d fit these CPUs and this RAM; beyond that use a pooler.",
								 p->connections, active, format_number(p->cpus),
								 (int) p->conn_cap);
		return;
	}
	s->formula = psprintf("min(%d asked, max(20, %s x %s CPUs), %s) = %d",
						  p->requested,
						  format_number(PGBL_CONNS_PER_CPU),
						  format_number(p->cpus), afford_formula(p),
						  p->connections);
	if (p->requested > p->connections && p->conn_mem_cap <= p->cpu_cap)
		s->reason = psprintf("The memory cannot afford %d connections: %s. So %s and keep max_connections at %d%s",
							 p->requested, afford_arithmetic(p, p->requested),
							 pool, p->connections,
							 *forced ? psprintf(".%s", forced) :
							 " instead of shrinking work_mem below its default.");
	else if (p->requested > p->connections)
		s->reason = psprintf("%d clients are more than %s CPUs can serve (about %s each), so %s and keep max_connections at %d instead of shrinking work_mem.",
							 p->requested, format_number(p->cpus),
							 format_number(PGBL_CONNS_PER_CPU),
							 pool, p->connections);
	else
		s->reason = psprintf("Each connection costs memory and only about %s x %s = %.0f run at once, so more than %d would queue on the CPUs: beyond that use a pooler.%s",
							 format_number(PGBL_ACTIVE_PER_CPU),
							 format_number(p->cpus), active,
							 (int) p->conn_cap, forced);
}

/*
 * A formula's value against PostgreSQL's default as its floor: "" when the
 * formula gave at least the default, else the sentence for the reason.
 * held is how much of the default the budget holds (the floor applied).
 */
static char *
default_floor_note(const char *name, double formula, double dflt, double value,
				   const char *what_holds)
{
	if (formula >= dflt)
		return pstrdup("");
	if (value >= dflt)
		return psprintf(" The formula gives %s, below PostgreSQL's default %s, and %s holds the default, so the default stays.",
						PB(formula), PB(dflt), what_holds);
	return psprintf(" Below PostgreSQL's default %s of %s because the memory forces it: %s holds only %s.",
					PB(dflt), name, what_holds, PB(value));
}

static void
emit_shared(const RecommenderInput *in, const RecoPlan *p,
			RecommenderResult *out)
{
	RecoSetting *s;

	int			div = (in->workload == RECO_DESKTOP ? 16 : 4) *
		(in->os == RECO_WINDOWS ? 2 : 1);
	char	   *share = psprintf("1/%d", div);
	double		by_share = p->usable / div;
	const char *why;

	s = add_setting(out, "shared_buffers", RECO_UNIT_BYTES, p->sb, NULL);
	if (by_share < PGBL_DEFAULT_SB)
		s->formula = psprintf("max((%s RAM - %s reserve) x %s, min(128MB default, %s usable / 4)) = %s",
							  PB(p->ram), PB(p->reserve), share, PB(p->usable),
							  PB(p->sb));
	else
		s->formula = psprintf("(%s RAM - %s reserve) x %s = %s",
							  PB(p->ram), PB(p->reserve), share, PB(p->sb));
	if (in->os == RECO_WINDOWS)
		why = "Windows relies on its own file cache, so a smaller buffer pool than the usual quarter of usable RAM serves it better.";
	else if (in->workload == RECO_DESKTOP)
		why = "A desktop shares the machine with other programs, so PostgreSQL keeps a sixteenth of usable RAM.";
	else
		why = "A quarter of the RAM left after the OS reserve caches hot pages; PostgreSQL also reads through the OS cache, so more rarely helps.";
	s->reason = psprintf("%s%s", why,
						 default_floor_note("shared_buffers", by_share, PGBL_DEFAULT_SB, p->sb,
											psprintf("a quarter of the %s usable", PB(p->usable))));
}

static void
emit_cache_size(const RecommenderInput *in, const RecoPlan *p,
				RecommenderResult *out)
{
	bool		desktop = in->workload == RECO_DESKTOP;
	const char *what = "The planner's assumption of how much of the data shared_buffers and the OS cache hold together, which makes repeated index reads cheaper in its estimates; it allocates nothing, so no memory budget limits it.";
	RecoSetting *s;

	s = add_setting(out, "effective_cache_size", RECO_UNIT_BYTES, p->ecs, NULL);
	if (p->ecs < p->ecs_share)
	{
		s->formula = psprintf("min(%s RAM x %s, %s usable) = %s", PB(p->ram),
							  desktop ? "1/4" : "3/4", PB(p->usable), PB(p->ecs));
		s->reason = psprintf("%s Less than the usual %s of RAM here: the %s reserved for the OS and other programs leaves %s, which no cache of PostgreSQL's data can exceed.",
							 what, desktop ? "quarter" : "three quarters",
							 PB(p->reserve), PB(p->usable));
		return;
	}
	s->formula = psprintf("%s RAM x %s = %s", PB(p->ram), desktop ? "1/4" : "3/4",
						  PB(p->ecs));
	s->reason = psprintf("%s %s", what, desktop ?
						 "A quarter of RAM: a desktop's other programs hold the rest." :
						 "The usual three quarters of RAM: the other quarter is the kernel's, the backends' own memory and their work_mem, which the OS cache gives way to.");
}

static void
emit_work_mem(const RecommenderInput *in, const RecoPlan *p,
			  RecommenderResult *out)
{
	RecoSetting *s;

	s = add_setting(out, "work_mem", RECO_UNIT_BYTES, p->work_mem, NULL);
	s->formula = psprintf("%s%s x (%s usable - %s shared - %s maintenance - %d x %s autovacuum - %d x 5MB per process) / ((%d connections + %d parallel workers) x (1 + %s hash_mem_multiplier))%s = %s",
						  p->work_mem_share * p->work_mem_held < PGBL_DEFAULT_WORK_MEM ? "max(" : "",
						  format_number(rint(p->work_mem_share * 1000) / 1000),
						  PB(p->usable), PB(p->shm), PB(p->maint),
						  PGBL_AUTOVACUUM_WORKERS, PB(p->av_mem),
						  p->connections + p->parallel + PGBL_AUTOVACUUM_WORKERS,
						  p->connections, p->parallel,
						  format_number(PGBL_HASH_MEM),
						  p->work_mem_share * p->work_mem_held < PGBL_DEFAULT_WORK_MEM ?
						  psprintf(", min(4MB default, %s held per backend))", PB(p->work_mem_held)) : "",
						  PB(p->work_mem));
	if (p->query_mem <= 0)
		s->reason = psprintf("Nothing is left after the fixed costs even for the fewest connections planned (%d), so work_mem stays at its floor: give the machine more memory (or a smaller os_reserve).",
							 p->connections);
	else
		s->reason = psprintf("Every connection and parallel worker may sort and hash at once, so the memory left after the fixed costs is shared out among them; %s queries get %s.%s%s",
							 RecoWorkloadNames[in->workload],
							 work_mem_share_reason[in->workload],
							 default_floor_note("work_mem", p->work_mem_share * p->work_mem_held,
												PGBL_DEFAULT_WORK_MEM, p->work_mem,
												psprintf("the memory left for queries, %s for %d backends,",
														 PB(p->query_mem), p->connections + p->parallel)),
							 p->work_mem < PGBL_DEFAULT_WORK_MEM ?
							 psprintf(" Even %d connections are more than the memory affords at the default (%.0f): give the machine more memory.",
									  p->connections, p->afford) :
							 p->connections < p->requested ?
							 psprintf(" The connections were lowered to %d (see max_connections) so that work_mem keeps at least its default.",
									  p->connections) : "");

	s = add_setting(out, "hash_mem_multiplier", RECO_UNIT_NUMBER, PGBL_HASH_MEM, NULL);
	s->formula = psprintf("%s (counted in work_mem's divisor)", format_number(PGBL_HASH_MEM));
	s->reason = pstrdup("Hash joins and aggregates that spill cost more than sorts, so they get twice work_mem, and the budget above counts it.");
}

static void
emit_maintenance(const RecommenderInput *in, const RecoPlan *p,
				 RecommenderResult *out)
{
	RecoSetting *s;

	int			div = in->workload == RECO_DW ? 8 : 16;
	double		by_share = Min(p->usable / div, in->os == RECO_WINDOWS ? 2.0 * GB - MB : 8.0 * GB);

	s = add_setting(out, "maintenance_work_mem", RECO_UNIT_BYTES, p->maint, NULL);
	if (by_share < PGBL_DEFAULT_MAINT)
		s->formula = psprintf("max(%s usable / %d, min(64MB default, %s usable / 8)) = %s",
							  PB(p->usable), div, PB(p->usable), PB(p->maint));
	else
		s->formula = psprintf("min(%s usable / %d, %s) = %s", PB(p->usable), div,
							  in->os == RECO_WINDOWS ? "2047MB" : "8GB", PB(p->maint));
	s->reason = psprintf("CREATE INDEX and VACUUM run one at a time per session and finish faster with more memory; beyond a few GB they gain little.%s",
						 default_floor_note("maintenance_work_mem", by_share, PGBL_DEFAULT_MAINT, p->maint,
											psprintf("an eighth of the %s usable", PB(p->usable))));

	s = add_setting(out, "autovacuum_work_mem", RECO_UNIT_BYTES, p->av_mem, NULL);
	s->formula = psprintf("min(%s usable / 32, 1GB) = %s", PB(p->usable), PB(p->av_mem));
	s->reason = psprintf("Each of the %d autovacuum workers may hold this much for dead tuples; before PostgreSQL 17 VACUUM could not use more than 1GB anyway.",
						 PGBL_AUTOVACUUM_WORKERS);
}

static void
emit_huge_pages(const RecommenderInput *in, const RecoPlan *p,
				RecommenderResult *out)
{
	double		page = in->hugepage_size > 0 ? in->hugepage_size : 2.0 * MB;
	double		pages = ceil(p->shm / page);
	RecoSetting *s;

	s = add_setting(out, "huge_pages", RECO_UNIT_ENUM, 0,
					in->os == RECO_MACOS ? "off" : "try");
	s->formula = psprintf("%s shared memory / %s pages = %.0f pages",
						  PB(p->shm), PB(page), pages);
	if (in->os == RECO_MACOS)
		s->reason = pstrdup("macOS offers PostgreSQL no huge pages.");
	else
		s->reason = psprintf("Huge pages shrink every backend's page tables for the %s shared segment; try uses them when vm.nr_hugepages reserves %.0f pages and starts without them otherwise.",
							 PB(p->shm), pages);

	if (in->os != RECO_LINUX)
		return;
	s = add_setting(out, "vm.nr_hugepages", RECO_UNIT_NUMBER, pages, NULL);
	s->formula = psprintf("ceil(%s shared memory / %s) = %.0f",
						  PB(p->shm), PB(page), pages);
	s->reason = psprintf("A kernel setting (sysctl), not PostgreSQL's: reserve the pages before the restart; after it, SHOW shared_memory_size_in_huge_pages gives the exact count.");
}

static void
emit_wal(const RecommenderInput *in, const RecoPlan *p, RecommenderResult *out)
{
	RecoSetting *s;
	bool		desktop = in->workload == RECO_DESKTOP;

	s = add_setting(out, "wal_buffers", RECO_UNIT_BYTES, p->wal_buffers, NULL);
	s->formula = psprintf("min(%s shared_buffers / 32, 16MB) = %s",
						  PB(p->sb), PB(p->wal_buffers));
	s->reason = pstrdup("WAL is flushed at every commit, so one segment's worth is plenty; this is what -1 would pick.");

	s = add_setting(out, "min_wal_size", RECO_UNIT_BYTES,
					Min(Max(round_memory(p->max_wal / 4), PGBL_DEFAULT_MIN_WAL), p->max_wal),
					NULL);
	s->formula = psprintf("min(max(%s max_wal_size / 4, 80MB default), max_wal_size) = %s",
						  PB(p->max_wal), PB(s->value));
	s->reason = pstrdup("Keeps recycled segments for bursts instead of creating new files; never below PostgreSQL's default 80MB unless max_wal_size is.");

	s = add_setting(out, "max_wal_size", RECO_UNIT_BYTES, p->max_wal, NULL);
	s->formula = in->wal_disk_free >= 0 ?
		psprintf("min(max(%s + %s x %s shared_buffers, 1GB default), 64GB, %s free disk / 4) = %s",
				 PB(wal_base[in->workload]), format_number(wal_per_sb[in->workload]),
				 PB(p->sb), PB(in->wal_disk_free), PB(p->max_wal)) :
		psprintf("min(max(%s + %s x %s shared_buffers, 1GB default), 64GB) = %s",
				 PB(wal_base[in->workload]), format_number(wal_per_sb[in->workload]),
				 PB(p->sb), PB(p->max_wal));
	s->reason = psprintf("Checkpoints should come from checkpoint_timeout, not from WAL volume; a larger buffer pool dirties more pages between them, so the limit grows with it.%s",
						 p->max_wal < PGBL_DEFAULT_MAX_WAL ?
						 psprintf(" Below PostgreSQL's default 1GB because the disk forces it: a quarter of its %s free is %s.",
								  PB(in->wal_disk_free), PB(p->max_wal)) :
						 wal_base[in->workload] + wal_per_sb[in->workload] * p->sb < PGBL_DEFAULT_MAX_WAL ?
						 " PostgreSQL's default 1GB is the floor." : "");

	s = add_setting(out, "checkpoint_timeout", RECO_UNIT_SECONDS,
					desktop ? 300 : 900, NULL);
	s->formula = pstrdup(desktop ? "5min for desktop" : "15min");
	s->reason = desktop ? pstrdup("A desktop recovers fast after a crash with the default interval.") :
		pstrdup("Fewer checkpoints write fewer full-page images; crash recovery stays within minutes.");

	s = add_setting(out, "checkpoint_completion_target", RECO_UNIT_NUMBER, 0.9, NULL);
	s->formula = pstrdup("0.9");
	s->reason = pstrdup("Spreads checkpoint writes over most of the interval (the default since PostgreSQL 14).");

	s = add_setting(out, "wal_compression", RECO_UNIT_ENUM, 0,
					in->has_lz4 ? "lz4" : in->has_zstd ? "zstd" : "pglz");
	s->formula = psprintf("best built in: lz4 %s, zstd %s",
						  in->has_lz4 ? "yes" : "no", in->has_zstd ? "yes" : "no");
	s->reason = pstrdup("Full-page images compress well, which cuts WAL volume and checkpoint I/O for a little CPU; only methods this server was built with are offered.");
}

/* random_page_cost: the device's cost for the share of data not cached. */
static void
emit_page_cost(const RecommenderInput *in, const RecoPlan *p,
			   RecommenderResult *out)
{
	bool		measured = in->storage_note != NULL;
	double		base = measured ? in->measured_page_cost :
		storage_page_cost[in->storage];
	double		cached = in->data_size > 0 ? Min(1.0, p->ecs / in->data_size) :
		(in->data_size == 0 ? 1.0 : 0.0);
	double		rpc = rint((1.1 + (base - 1.1) * (1.0 - cached)) * 100) / 100;
	const char *device = psprintf("%s%s", measured ? "measured " : "",
								  RecoStorageNames[in->storage]);
	RecoSetting *s;

	s = add_setting(out, "random_page_cost", RECO_UNIT_NUMBER, rpc, NULL);
	s->formula = in->data_size >= 0 ?
		psprintf("1.1 + (%s %s - 1.1) x (1 - min(1, %s cache / %s data)) = %s",
				 format_number(base), device,
				 PB(p->ecs), PB(in->data_size), format_number(rpc)) :
		psprintf("%s for %s (data size unknown)", format_number(base), device);
	s->reason = measured ?
		psprintf("Storage %s (random_page_cost %s there), and random reads cost that for the share of data that is not cached, so the cost falls smoothly as the data fits in memory.",
				 in->storage_note, format_number(base)) :
		pstrdup("Random reads cost what the device charges for the share of data that is not cached, so the cost falls smoothly as the data fits in memory.");
}

/*
 * effective_io_concurrency and maintenance_io_concurrency: the device's
 * depth when io_test() measured it or the caller named the storage; from
 * the rotational flag alone (a virtual disk's says little) the defaults stay.
 */
static void
emit_io(const RecommenderInput *in, const RecoPlan *p, RecommenderResult *out)
{
	bool		measured = in->storage_note != NULL;
	bool		keep = in->os == RECO_LINUX && in->storage_from_flags;
	int			eio = in->os != RECO_LINUX ? 0 : measured ?
		in->measured_io_concurrency : keep ? in->default_io_concurrency :
		storage_io_concurrency[in->storage];
	int			meio = keep ? in->default_maint_io_concurrency : eio;
	const char *decide = "io_test() would decide: it measures reads at several queue depths, and the setting follows the depth where throughput stops growing.";
	RecoSetting *s;

	emit_page_cost(in, p, out);
	s = add_setting(out, "effective_io_concurrency", RECO_UNIT_NUMBER, eio, NULL);
	if (in->os != RECO_LINUX)
		s->formula = psprintf("0 on %s", RecoOsNames[in->os]);
	else if (measured && in->measured_knee_depth > 0)
		s->formula = psprintf("%d, the measured knee depth", eio);
	else if (keep)
		s->formula = psprintf("%d, the default (not measured)", eio);
	else
		s->formula = psprintf("%d for %s%s", eio, measured ? "measured " : "",
							  RecoStorageNames[in->storage]);
	if (in->os != RECO_LINUX)
		s->reason = pstrdup("Prefetch advice needs posix_fadvise, which this OS lacks.");
	else if (measured && in->measured_io_note != NULL)
		s->reason = psprintf("Bitmap heap scans prefetch this many pages, as many reads in flight as the device serves faster: io_test() on %s found %s.",
							 in->measured_io_date, in->measured_io_note);
	else if (measured)
		s->reason = psprintf("Storage %s, so bitmap heap scans prefetch as many pages as such a device serves at once.",
							 in->storage_note);
	else if (keep)
		s->reason = psprintf("The default stays: the device's rotational flag alone (%s) does not tell how many reads it serves at once, and a virtual disk's flag often says rotating. %s",
							 RecoStorageNames[in->storage], decide);
	else
		s->reason = pstrdup("Devices that serve many requests at once should be given them: bitmap heap scans prefetch this many pages.");

	s = add_setting(out, "maintenance_io_concurrency", RECO_UNIT_NUMBER, meio, NULL);
	s->formula = keep ? psprintf("%d, the default (not measured)", meio) :
		pstrdup(out->settings[out->count - 2].formula);
	s->reason = keep ? psprintf("The default stays. %s", decide) :
		pstrdup("The same device depth for VACUUM and other maintenance prefetching.");

	s = add_setting(out, "default_statistics_target", RECO_UNIT_NUMBER,
					in->workload == RECO_DW ? 500 : 100, NULL);
	s->formula = pstrdup(in->workload == RECO_DW ? "500 for dw" : "100");
	s->reason = in->workload == RECO_DW ?
		pstrdup("Long analytical queries repay finer statistics with better plans.") :
		pstrdup("Short queries plan well with the default and ANALYZE stays cheap.");
}

/*
 * wal_sync_method, for this server only: what fsync_test()'s rounds support
 * (the live method unless another is faster beyond the rounds' noise,
 * decided in SQL by pgbench_lab_internal.wal_sync_decision()), else the
 * live value and what would decide.
 */
static void
emit_wal_sync(const RecommenderInput *in, RecommenderResult *out)
{
	RecoSetting *s;

	if (in->wal_sync_current == NULL)
		return;
	if (in->wal_sync_measured != NULL)
	{
		s = add_setting(out, "wal_sync_method", RECO_UNIT_ENUM, 0,
						in->wal_sync_measured);
		s->formula = pstrdup(in->wal_sync_rule);
		s->reason = pstrdup(in->wal_sync_note);
		return;
	}
	s = add_setting(out, "wal_sync_method", RECO_UNIT_ENUM, 0, in->wal_sync_current);
	s->formula = psprintf("%s, live (not measured)", in->wal_sync_current);
	s->reason = pstrdup("The live method stays: fsync_test() would decide, by timing each method's flushes on the data directory's device in interleaved rounds, as pg_test_fsync does, and changing it only when another method's median round is faster beyond the rounds' spread.");
}

/* "min(floor(K cores / 2), 4, P max_parallel_workers) = v", the terms that apply. */
static char *
half_cores_formula(const RecoPlan *p, bool cap4, int value)
{
	bool		capped = p->parallel < p->cores;
	char	   *terms = psprintf("floor(%d cores / 2)%s", p->cores, cap4 ? ", 4" : "");

	if (capped)
		terms = psprintf("%s, %d max_parallel_workers", terms, p->parallel);
	if (cap4 || capped)
		return psprintf("min(%s) = %d", terms, value);
	return psprintf("%s = %d", terms, value);
}

/*
 * What pgbench_lab's own runs would add to max_worker_processes on this
 * server, as a note: an in-server run takes a slot per client and one for
 * its coordinator.  Room for at least 8 clients and twice the cores, or
 * the largest in-server run recorded here.
 */
static char *
lab_note(const RecommenderInput *in, const RecoPlan *p, int need, int mwp)
{
	int			clients = Max(Max(PGBL_LAB_RUN_CLIENTS, 2 * p->cores), in->lab_clients);
	char	   *which = psprintf("the largest of %d, twice the %d cores%s",
								 PGBL_LAB_RUN_CLIENTS, p->cores,
								 in->lab_clients > 0 ?
								 psprintf(" and the largest in-server run recorded here, %d",
										  in->lab_clients) : "");

	if (mwp - need > clients)
		return psprintf(" Not counted: pgbench_lab's own runs, which take a slot per client plus one (a libpq run one per thread plus one); the %d leave room for an in-server run of %d clients (%s) beside all of these.",
						mwp, clients, which);
	return psprintf(" Not counted: pgbench_lab's own runs, which take a slot per client plus one (a libpq run one per thread plus one); to run %d clients in the server (%s) beside all of these, set it to %d + %d = %d.",
					clients, which, need, clients + 1, need + clients + 1);
}

/*
 * max_worker_processes: a slot for every background worker, parallel
 * query's, logical replication's and other extensions'.  A described
 * machine counts PostgreSQL's defaults (4 logical replication workers and
 * their launcher) and keeps its default 8 as the floor: nothing of this
 * server belongs in it.  This server counts its own logical replication
 * setting and the workers running now, and keeps a larger live value.
 * Neither counts pgbench_lab's runs, which are the lab's need and not the
 * machine's: for this server the reason adds them as a note.
 */
static void
emit_worker_processes(const RecommenderInput *in, const RecoPlan *p,
					  RecommenderResult *out)
{
	RecoSetting *s;
	int			logical = in->this_server && in->logical_workers >= 0 ?
		in->logical_workers : PGBL_DEFAULT_LOGICAL_WORKERS;
	int			need;
	int			mwp;

	if (!in->this_server)
	{
		need = p->parallel + logical + 1;
		mwp = Max(need, PGBL_DEFAULT_WORKER_PROCESSES);
		s = add_setting(out, "max_worker_processes", RECO_UNIT_NUMBER, mwp, NULL);
		s->formula = psprintf("max(%d parallel + %d logical replication + 1 launcher, %d default) = %d",
							  p->parallel, logical, PGBL_DEFAULT_WORKER_PROCESSES, mwp);
		s->reason = psprintf("Background workers share these slots: parallel workers, logical replication workers (PostgreSQL's default max_logical_replication_workers) and their launcher, never fewer than PostgreSQL's default %d. Only what the described machine needs is counted: add a slot for each background worker of the extensions it will run.",
							 PGBL_DEFAULT_WORKER_PROCESSES);
		return;
	}
	need = p->parallel + logical + in->other_workers;
	mwp = Max(need, in->live_worker_processes);
	s = add_setting(out, "max_worker_processes", RECO_UNIT_NUMBER, mwp, NULL);
	s->formula = psprintf("%s%d parallel + %d logical replication + %d other running%s = %d",
						  in->live_worker_processes > 0 ? "max(" : "",
						  p->parallel, logical, in->other_workers,
						  in->live_worker_processes > 0 ?
						  psprintf(", %d live)", in->live_worker_processes) : "",
						  mwp);
	if (in->live_worker_processes > need)
		s->reason = psprintf("The live %d is kept: it is more than the %d counted, and lowering it would leave fewer slots for parallel query, logical replication and other extensions' workers; lower it only knowing what else uses them.%s",
							 in->live_worker_processes, need, lab_note(in, p, need, mwp));
	else
		s->reason = psprintf("Background workers share these slots: parallel workers, logical replication workers (max_logical_replication_workers) and other extensions' workers running now.%s",
							 lab_note(in, p, need, mwp));
}

static void
emit_parallel(const RecommenderInput *in, const RecoPlan *p,
			  RecommenderResult *out)
{
	RecoSetting *s;

	s = add_setting(out, "max_parallel_workers", RECO_UNIT_NUMBER, p->parallel, NULL);
	if (p->parallel < p->cores)
	{
		s->formula = psprintf("min(ceil(%s CPUs), %.0f backends afforded - %d connections) = %d",
							  format_number(p->cpus), p->afford,
							  p->connections, p->parallel);
		s->reason = psprintf("Each parallel worker is a backend that needs memory like a connection (%s at the default work_mem, see max_connections), and this RAM cannot give one per core.",
							 PB(p->per_backend));
	}
	else
	{
		s->formula = psprintf("ceil(%s CPUs) = %d", format_number(p->cpus), p->parallel);
		s->reason = pstrdup("More parallel workers than cores only queue for CPU.");
	}

	s = add_setting(out, "max_parallel_workers_per_gather", RECO_UNIT_NUMBER,
					p->per_gather, NULL);
	s->formula = half_cores_formula(p, in->workload != RECO_DW, p->per_gather);
	s->reason = pstrdup("Half the cores for one query leaves the other half to the rest; work_mem's divisor counts these workers.");

	s = add_setting(out, "max_parallel_maintenance_workers", RECO_UNIT_NUMBER,
					p->maint_workers, NULL);
	s->formula = half_cores_formula(p, true, p->maint_workers);
	s->reason = pstrdup("Parallel CREATE INDEX shares maintenance_work_mem among its workers, so a few are enough.");

	s = add_setting(out, "jit", RECO_UNIT_ENUM, 0,
					in->workload == RECO_DW ? "on" : "off");
	s->formula = psprintf("%s for %s", s->text, RecoWorkloadNames[in->workload]);
	s->reason = in->workload == RECO_DW ?
		pstrdup("Long analytical queries win back the compile time.") :
		pstrdup("Short queries lose more to compiling than they gain, and cost estimates often trigger it wrongly.");
}

/*
 * RecommenderCompute: every setting for the machine described by *in.
 * The caller validated the inputs (positive, finite RAM and CPUs).
 */
void
RecommenderCompute(const RecommenderInput *in, RecommenderResult *out)
{
	RecoPlan	p;

	memset(&p, 0, sizeof(p));
	out->count = 0;
	plan_machine(in, &p);
	plan_memory(in, &p);

	emit_connections(in, &p, out);
	emit_shared(in, &p, out);
	emit_cache_size(in, &p, out);
	emit_work_mem(in, &p, out);
	emit_maintenance(in, &p, out);
	emit_huge_pages(in, &p, out);
	emit_wal(in, &p, out);
	emit_io(in, &p, out);
	emit_wal_sync(in, out);
	emit_worker_processes(in, &p, out);
	emit_parallel(in, &p, out);
}
