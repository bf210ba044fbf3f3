/*-------------------------------------------------------------------------
 *
 * dataset_sql.c
 *		pgbench's data set as statements: its four tables, their keys and
 *		the SQL of each step of init, the same whether the server makes
 *		the data set itself (dataset.c, dataset_worker.c) or sends it to
 *		another server (dataset_remote.c); and init's result rows.
 *
 * Every statement names the schema the tables were resolved to, so no
 * search_path can redirect it.  A table init did not create (it carries
 * no init comment) is never replaced.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "commands/comment.h"
#include "fmgr.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "dataset.h"

/* The four tables, in the order pgbench creates them. */
typedef struct DatasetTable
{
	const char *name;
	const char *columns;		/* aid as int */
	const char *columns_big;	/* aid as bigint (scale >= 20000) */
	bool		fillfactor;		/* gets WITH (fillfactor=N) */
} DatasetTable;

static const DatasetTable dataset_tables[] = {
	{"pgbench_history",
		"tid int, bid int, aid int, delta int, mtime timestamp, filler char(22)",
		"tid int, bid int, aid bigint, delta int, mtime timestamp, filler char(22)",
	false},
	{"pgbench_tellers",
		"tid int not null, bid int, tbalance int, filler char(84)",
		"tid int not null, bid int, tbalance int, filler char(84)",
	true},
	{"pgbench_accounts",
		"aid int not null, bid int, abalance int, filler char(84)",
		"aid bigint not null, bid int, abalance int, filler char(84)",
	true},
	{"pgbench_branches",
		"bid int not null, bbalance int, filler char(88)",
		"bid int not null, bbalance int, filler char(88)",
	true},
};

#define PGBL_DATASET_NTABLES lengthof(dataset_tables)

/* primary keys and foreign keys, as pgbench -i adds them */
static const char *const dataset_pkeys[][2] = {
	{"pgbench_branches", "bid"},
	{"pgbench_tellers", "tid"},
	{"pgbench_accounts", "aid"},
};

static const char *const dataset_fkeys[][4] = {
	{"pgbench_tellers", "pgbench_tellers_bid_fkey", "bid", "pgbench_branches"},
	{"pgbench_accounts", "pgbench_accounts_bid_fkey", "bid", "pgbench_branches"},
	{"pgbench_history", "pgbench_history_bid_fkey", "bid", "pgbench_branches"},
	{"pgbench_history", "pgbench_history_tid_fkey", "tid", "pgbench_tellers"},
	{"pgbench_history", "pgbench_history_aid_fkey", "aid", "pgbench_accounts"},
};

static const char *const dataset_vacuum_order[] = {
	"pgbench_branches", "pgbench_tellers", "pgbench_accounts", "pgbench_history"
};

static const char *const dataset_step_names[DATASET_NSTEPS] = {
	"drop tables", "create tables", "primary keys", "generate data",
	"vacuum", "foreign keys"
};

const char *
DatasetStepName(DatasetStep step)
{
	return dataset_step_names[step];
}

/* Rows a table gets from init at this scale. */
int64
DatasetRows(const DatasetParams *p, const char *table)
{
	if (strcmp(table, "pgbench_branches") == 0)
		return (int64) p->scale * PGBL_BRANCHES_PER_SCALE;
	if (strcmp(table, "pgbench_tellers") == 0)
		return (int64) p->scale * PGBL_TELLERS_PER_SCALE;
	if (strcmp(table, "pgbench_accounts") == 0)
		return (int64) p->scale * PGBL_ACCOUNTS_PER_SCALE;
	return 0;
}

/*
 * A table of the data set, for a "%s.%s" in a statement: every statement
 * names the schema it was resolved to, so no search_path can redirect it.
 */
#define QUALIFIED(p, table)	quote_identifier((p)->schema), quote_identifier(table)

/* COMMENT statements that mark the tables, complete or not. */
static List *
mark_statements(const DatasetParams *p, const char *mark)
{
	List	   *l = NIL;

	for (int i = 0; i < PGBL_DATASET_NTABLES; i++)
		l = lappend(l, psprintf("COMMENT ON TABLE %s.%s IS %s",
								QUALIFIED(p, dataset_tables[i].name),
								quote_literal_cstr(mark)));
	return l;
}

static List *
create_statements(const DatasetParams *p)
{
	List	   *l = NIL;

	for (int i = 0; i < PGBL_DATASET_NTABLES; i++)
	{
		const DatasetTable *t = &dataset_tables[i];
		StringInfoData s;

		initStringInfo(&s);
		appendStringInfo(&s, "CREATE %sTABLE %s.%s (%s)%s",
						 p->unlogged ? "UNLOGGED " : "",
						 QUALIFIED(p, t->name),
						 p->scale >= PGBL_SCALE_BIGINT ? t->columns_big : t->columns,
						 t->fillfactor ? psprintf(" WITH (fillfactor=%d)", p->fillfactor) : "");
		l = lappend(l, s.data);
	}
	return list_concat(l, mark_statements(p, PGBL_DATASET_MARK_INCOMPLETE));
}

/*
 * The rows as SQL (pgbench's server-side generation).  The worker writes the
 * same rows through a bulk path instead; the tests check they are equal.
 */
static List *
generate_statements(const DatasetParams *p)
{
	List	   *l = NIL;

	l = lappend(l, psprintf("INSERT INTO %s.%s (bid, bbalance) "
							"SELECT bid, 0 FROM pg_catalog.generate_series(1, " INT64_FORMAT ") AS bid",
							QUALIFIED(p, "pgbench_branches"),
							DatasetRows(p, "pgbench_branches")));
	l = lappend(l, psprintf("INSERT INTO %s.%s (tid, bid, tbalance) "
							"SELECT tid, (tid OPERATOR(pg_catalog.-) 1) OPERATOR(pg_catalog./) %d "
							"OPERATOR(pg_catalog.+) 1, 0 "
							"FROM pg_catalog.generate_series(1, " INT64_FORMAT ") AS tid",
							QUALIFIED(p, "pgbench_tellers"),
							PGBL_TELLERS_PER_SCALE,
							DatasetRows(p, "pgbench_tellers")));
	l = lappend(l, psprintf("INSERT INTO %s.%s (aid, bid, abalance, filler) "
							"SELECT aid, (aid OPERATOR(pg_catalog.-) 1) OPERATOR(pg_catalog./) %d "
							"OPERATOR(pg_catalog.+) 1, 0, '' "
							"FROM pg_catalog.generate_series(1, " INT64_FORMAT ") AS aid",
							QUALIFIED(p, "pgbench_accounts"),
							PGBL_ACCOUNTS_PER_SCALE,
							DatasetRows(p, "pgbench_accounts")));
	return l;
}

static List *
key_statements(const DatasetParams *p, bool foreign)
{
	List	   *l = NIL;

	if (!foreign)
	{
		for (int i = 0; i < lengthof(dataset_pkeys); i++)
			l = lappend(l, psprintf("ALTER TABLE %s.%s ADD PRIMARY KEY (%s)",
									QUALIFIED(p, dataset_pkeys[i][0]),
									dataset_pkeys[i][1]));
	}
	else
	{
		for (int i = 0; i < lengthof(dataset_fkeys); i++)
			l = lappend(l, psprintf("ALTER TABLE %s.%s ADD CONSTRAINT %s FOREIGN KEY (%s) REFERENCES %s.%s",
									QUALIFIED(p, dataset_fkeys[i][0]),
									dataset_fkeys[i][1], dataset_fkeys[i][2],
									QUALIFIED(p, dataset_fkeys[i][3])));
	}
	/* the foreign keys are the last step when there are any */
	if (foreign)
		l = list_concat(l, mark_statements(p, PGBL_DATASET_MARK));
	return l;
}

/*
 * The statements of one step, schema-qualified.  What the worker runs and
 * what init_sql() shows come from here.
 */
List *
DatasetStatements(DatasetStep step, const DatasetParams *p)
{
	List	   *l = NIL;

	switch (step)
	{
		case DATASET_STEP_DROP:
			l = lappend(l, psprintf("DROP TABLE IF EXISTS %s.%s, %s.%s, %s.%s, %s.%s",
									QUALIFIED(p, "pgbench_accounts"),
									QUALIFIED(p, "pgbench_branches"),
									QUALIFIED(p, "pgbench_history"),
									QUALIFIED(p, "pgbench_tellers")));
			break;
		case DATASET_STEP_CREATE:
			l = create_statements(p);
			break;
		case DATASET_STEP_GENERATE:
			l = generate_statements(p);
			break;
		case DATASET_STEP_VACUUM:
			for (int i = 0; i < lengthof(dataset_vacuum_order); i++)
				l = lappend(l, psprintf("VACUUM (ANALYZE) %s.%s",
										QUALIFIED(p, dataset_vacuum_order[i])));
			/* the last step marks the tables complete */
			if (!p->foreign_keys)
				l = list_concat(l, mark_statements(p, PGBL_DATASET_MARK));
			break;
		case DATASET_STEP_PKEYS:
			l = key_statements(p, false);
			break;
		case DATASET_STEP_FKEYS:
			if (p->foreign_keys)
				l = key_statements(p, true);
			break;
		case DATASET_NSTEPS:
			elog(ERROR, "unexpected init step %d", (int) step);
	}
	return l;
}

/*
 * Refuse to replace a table init did not create: each of the four names
 * that exists in the schema must carry init's comment.
 */
void
DatasetCheckExisting(Oid nspoid)
{
	for (int i = 0; i < PGBL_DATASET_NTABLES; i++)
	{
		const char *name = dataset_tables[i].name;
		Oid			relid = get_relname_relid(name, nspoid);
		char	   *comment;

		if (!OidIsValid(relid))
			continue;
		comment = GetComment(relid, RelationRelationId, 0);
		if (get_rel_relkind(relid) != RELKIND_RELATION || comment == NULL ||
			strncmp(comment, PGBL_DATASET_MARK, strlen(PGBL_DATASET_MARK)) != 0)
			DatasetRefuseTable(get_namespace_name(nspoid), name);
	}
}

/* The error for a table of init's names that init did not create. */
void
DatasetRefuseTable(const char *schema, const char *name)
{
	ereport(ERROR,
			(errcode(ERRCODE_DUPLICATE_TABLE),
			 errmsg("relation %s was not created by pgbench_lab.init",
					quote_qualified_identifier(schema, name)),
			 errdetail("init replaces only tables that carry the comment \"%s\".",
					   PGBL_DATASET_MARK),
			 errhint("Drop the table by hand, or run init with another schema first in search_path.")));
}

static Datum
numeric_of(double v, int decimals)
{
	char		buf[64];

	snprintf(buf, sizeof(buf), "%.*f", decimals, v);
	return DirectFunctionCall3(numeric_in, CStringGetDatum(buf),
							   ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
}

/* init's result rows, one per step done (the SRF is set up). */
void
DatasetEmitSteps(FunctionCallInfo fcinfo, const DatasetTimings *t)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	for (int s = 0; s < DATASET_NSTEPS; s++)
	{
		Datum		values[4];
		bool		nulls[4] = {false, false, false, false};

		if (!t->step_done[s])
			continue;
		values[0] = CStringGetTextDatum(DatasetStepName(s));
		values[1] = numeric_of(t->seconds[s], 3);
		values[2] = Int64GetDatum(t->rows[s]);
		nulls[2] = t->rows[s] < 0;
		nulls[3] = nulls[2] || t->seconds[s] <= 0;
		values[3] = nulls[3] ? (Datum) 0 : numeric_of(t->rows[s] / t->seconds[s], 0);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
}
