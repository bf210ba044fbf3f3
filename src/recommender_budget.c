/*-------------------------------------------------------------------------
 *
 * recommender_budget.c
 *		The memory budget of given settings, term by term: what
 *		memory_budget() shows.
 *
 * Pure arithmetic like recommender_math.c, from which it was split: the
 * caller (recommender_sql.c) passes the settings, live or given, and a
 * backend's measured private memory.  Beside the server's real allocations
 * (the shared segment, work_mem once per connection, maintenance,
 * autovacuum, each backend's own memory) it shows the classic 5-parameter
 * budget, the worst case the manual warns of, and both readings of
 * effective_cache_size, a planner hint that allocates nothing: the
 * manual's is judged on its row (below shared_buffers, or above RAM), the
 * 5-parameter budget's, which counts it as allocated, only shown.  The
 * verdict judges what is allocated and names the terms that cause it.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "lib/stringinfo.h"
#include "recommender.h"

/* Shorthands for notes. */
#define PB(x) RecommenderPrettyBytes(x)
#define NUM(x) RecommenderFormatValue(RECO_UNIT_NUMBER, (x), NULL)

static RecoBudgetRow *
add_row(RecoBudgetRow *rows, int *n, const char *component, double bytes,
		char *note)
{
	RecoBudgetRow *r = &rows[(*n)++];

	Assert(*n <= PGBL_RECO_BUDGET_ROWS);
	r->component = component;
	r->bytes = bytes;
	r->status = NULL;
	r->note = note;
	return r;
}

/* The allocated terms, largest first is what the verdict names. */
typedef struct BudgetTerm
{
	const char *name;
	double		bytes;
	char	   *detail;
} BudgetTerm;

/* "the largest terms: A (x, 41%), B (y, 30%)", of those that make the total. */
static char *
largest_terms(BudgetTerm *terms, int n, double total)
{
	StringInfoData buf;

	/* a handful of terms: selection order is enough */
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++)
			if (terms[j].bytes > terms[i].bytes)
			{
				BudgetTerm	t = terms[i];

				terms[i] = terms[j];
				terms[j] = t;
			}
	initStringInfo(&buf);
	for (int i = 0; i < 2 && i < n; i++)
		appendStringInfo(&buf, "%s%s (%s = %s, %.0f%% of the total)",
						 i == 0 ? "" : ", then ", terms[i].name, terms[i].detail,
						 PB(terms[i].bytes), 100.0 * terms[i].bytes / total);
	return buf.data;
}

/* The verdict row: out-of-memory risk, warning, or ok, with its reason. */
static void
budget_verdict(const RecoBudgetInput *in, RecoBudgetRow *v, double five,
			   double total, BudgetTerm *terms, int nterms)
{
	if (five > in->ram || total > in->ram)
	{
		v->status = "out-of-memory risk";
		if (five > in->ram && five >= total)
			v->note = psprintf("The 5-parameter budget alone, %s, exceeds %s of RAM; the largest terms: %s. Lower the largest term first (a pooler lets you lower max_connections).",
							   PB(five), PB(in->ram), largest_terms(terms, nterms, total));
		else
			v->note = psprintf("%s allocated in all against %s of RAM; the largest terms: %s. Lower the largest term first (a pooler lets you lower max_connections) before the server runs out of memory under load.",
							   PB(total), PB(in->ram), largest_terms(terms, nterms, total));
	}
	else if (total > 0.9 * in->ram)
	{
		v->status = "warning";
		v->note = psprintf("%s allocated leaves %s, under a tenth of RAM, for the OS and its cache. The largest terms: %s.",
						   PB(total), PB(in->ram - total),
						   largest_terms(terms, nterms, total));
	}
	else
	{
		v->status = "ok";
		v->note = psprintf("%s allocated at most in normal use leaves %s of %s for the OS and its cache.",
						   PB(total), PB(in->ram - total), PB(in->ram));
	}
}

/*
 * RecommenderBudget: the memory budget, term by term.  Besides the server's
 * real allocations it shows the classic 5-parameter budget (max_connections
 * x work_mem + shared_buffers + maintenance_work_mem, with
 * effective_cache_size as what is left for the OS cache), the worst case the
 * manual warns of, and both readings of effective_cache_size.
 * Fills rows (PGBL_RECO_BUDGET_ROWS at most) and returns their number.
 */
int
RecommenderBudget(const RecoBudgetInput *in, RecoBudgetRow *rows)
{
	int			n = 0;
	int			av = in->autovacuum_max_workers;
	double		av_mem = in->autovacuum_work_mem >= 0 ?
		in->autovacuum_work_mem : in->maintenance_work_mem;
	double		shm = in->shared_memory >= 0 ? in->shared_memory :
		RecommenderSharedMemory(in->shared_buffers, in->wal_buffers,
								in->max_connections);
	double		conns = in->max_connections * in->work_mem;
	/* parallel workers come from one pool of max_parallel_workers */
	double		workers = Min((double) in->max_connections * in->parallel_per_gather,
							  (double) in->max_parallel_workers);
	double		worst = (in->max_connections + workers) * in->work_mem *
		(1.0 + in->hash_mem_multiplier);
	double		overhead = (in->max_connections + av) * in->backend_memory;
	double		five = conns + in->shared_buffers + in->maintenance_work_mem;
	double		total = shm + conns + in->maintenance_work_mem + av * av_mem + overhead;
	BudgetTerm	terms[] = {
		{"shared memory", shm, psprintf("%s shared_buffers and the rest", PB(in->shared_buffers))},
		{"connections x work_mem", conns,
		psprintf("%d x %s", in->max_connections, PB(in->work_mem))},
		{"per-backend memory", overhead,
		psprintf("%d backends x %s", in->max_connections + av, PB(in->backend_memory))},
		{"maintenance_work_mem", in->maintenance_work_mem, pstrdup("one at a time")},
		{"autovacuum workers", av * av_mem, psprintf("%d x %s", av, PB(av_mem))},
	};
	RecoBudgetRow *r;

	add_row(rows, &n, "shared_buffers", in->shared_buffers,
			pstrdup("The buffer pool, allocated at start."));
	add_row(rows, &n, "other shared memory", shm - in->shared_buffers,
			psprintf("Buffer descriptors, WAL buffers, locks and process slots: %s shared in all%s.",
					 PB(shm), in->shared_memory >= 0 ? " (shared_memory_size)" : ", estimated"));
	add_row(rows, &n, "connections x work_mem", conns,
			psprintf("%d connections x %s, one sort or hash each (a term of the 5-parameter budget).",
					 in->max_connections, PB(in->work_mem)));
	r = add_row(rows, &n, "connections x work_mem, worst case", worst,
				psprintf("Every connection running a sort and a hash (x %s hash_mem_multiplier) at once, with as many parallel workers as they may have together (%d per query, %d in all, max_parallel_workers): (%d + %.0f) x %s x %s; not counted in the total.",
						 NUM(in->hash_mem_multiplier), in->parallel_per_gather,
						 in->max_parallel_workers, in->max_connections, workers,
						 PB(in->work_mem),
						 NUM(1.0 + in->hash_mem_multiplier)));
	r->status = worst > in->ram ? "warning" : "ok";
	add_row(rows, &n, "maintenance_work_mem", in->maintenance_work_mem,
			pstrdup("One CREATE INDEX or manual VACUUM at a time."));
	add_row(rows, &n, "autovacuum workers", av * av_mem,
			psprintf("%d workers x %s autovacuum_work_mem.", av, PB(av_mem)));
	add_row(rows, &n, "per-backend overhead", overhead,
			psprintf("(%d connections + %d autovacuum workers) x %s of private memory each (process, catalog and plan caches): %s.",
					 in->max_connections, av, PB(in->backend_memory),
					 in->backend_memory_source));
	r = add_row(rows, &n, "5-parameter budget", five,
				pstrdup("connections x work_mem + shared_buffers + maintenance_work_mem, as the classic 5-parameter budget counts it."));
	r->status = five > in->ram ? "out-of-memory risk" : "ok";
	add_row(rows, &n, "effective_cache_size, 5-parameter reading", in->effective_cache_size,
			psprintf("The 5-parameter budget counts it as the OS cache's slice: budget + effective_cache_size = %s of %s RAM. Not judged: it allocates nothing, and the manual counts shared_buffers in it (next row).",
					 PB(five + in->effective_cache_size), PB(in->ram)));
	r = add_row(rows, &n, "effective_cache_size, manual reading", in->effective_cache_size,
				psprintf("The manual counts it as shared_buffers + OS cache: it expects %s of OS cache%s.",
						 PB(Max(0.0, in->effective_cache_size - in->shared_buffers)),
						 in->effective_cache_size > in->ram ?
						 ", more than the RAM holds" : ""));
	r->status = in->effective_cache_size < in->shared_buffers ||
		in->effective_cache_size > in->ram ? "warning" : "ok";
	add_row(rows, &n, "total allocated", total,
			pstrdup("Shared memory + connections x work_mem + maintenance + autovacuum + per-backend overhead."));
	add_row(rows, &n, "left for OS cache", in->ram - total,
			pstrdup("RAM minus the total: the OS, other programs and the page cache share it."));
	r = add_row(rows, &n, "verdict", in->ram, NULL);
	budget_verdict(in, r, five, total, terms, lengthof(terms));
	return n;
}
