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
#include "mb/pg_wchar.h"
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

static const char *const dataset_step_names[DATASET_NKINDS] = {
	"drop tables", "create tables", "primary keys", "generate data",
	"generate data server-side", "vacuum", "foreign keys"
};

const char *
DatasetStepName(DatasetStep step)
{
	return dataset_step_names[step];
}

/* The kind of the plan's step pos (from 0). */
DatasetStep
DatasetStepKind(const DatasetParams *p, int pos)
{
	const char *c;

	Assert(pos >= 0 && pos < p->nsteps);
	c = strchr(PGBL_INIT_STEP_LETTERS, p->steps[pos]);
	if (c == NULL || *c == '\0')
		elog(ERROR, "unexpected init step \"%c\"", p->steps[pos]);
	return (DatasetStep) (c - PGBL_INIT_STEP_LETTERS);
}

const char *
DatasetPlanStepName(const DatasetParams *p, int pos)
{
	return DatasetStepName(DatasetStepKind(p, pos));
}

static void
refuse_steps(const char *msg, const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg_internal("%s", msg),
			 detail ? errdetail_internal("%s", detail) : 0,
			 errhint("init_steps takes pgbench -I's letters, run in the order given: "
					 "d (drop tables), t (create tables), g (generate data), "
					 "G (generate data server-side), v (vacuum), p (primary keys), "
					 "f (foreign keys); spaces are ignored. Leave it out for pgbench's \"%s\".",
					 PGBL_INIT_STEPS_DEFAULT)));
}

/*
 * The plan from init_steps (NULL: pgbench's default), checked as pgbench
 * checks -I: every letter known, at least one step.  foreign_keys adds "f"
 * when the steps have none, as pgbench --foreign-keys does.  The plain data
 * set (pgbench's default steps, with or without "f", and no partitions)
 * is the fast plan: primary keys on the empty tables, then the rows.  The
 * partitions must be set.
 */
void
DatasetPlan(DatasetParams *p, const char *init_steps)
{
	const char *given = init_steps != NULL ? init_steps : PGBL_INIT_STEPS_DEFAULT;
	int			n = 0;

	for (const char *c = given; *c != '\0'; c += pg_mblen(c))
	{
		if (*c == ' ')
			continue;
		if (IS_HIGHBIT_SET(*c) || strchr(PGBL_INIT_STEPS_ALLOWED, *c) == NULL)
			refuse_steps(psprintf("unrecognized init step \"%s\"", pnstrdup(c, pg_mblen(c))),
						 "Allowed step characters are \"" PGBL_INIT_STEPS_ALLOWED "\".");
		if (n >= PGBL_INIT_STEPS_MAX)
			refuse_steps(psprintf("init_steps has more than %d steps", PGBL_INIT_STEPS_MAX), NULL);
		p->steps[n++] = *c;
	}
	if (n == 0)
		refuse_steps("no init steps given",
					 init_steps[0] == '\0' ? NULL :
					 "pgbench accepts a string of spaces and does nothing; init refuses it.");
	if (p->foreign_keys && memchr(p->steps, 'f', n) == NULL)
	{
		if (n >= PGBL_INIT_STEPS_MAX)
			refuse_steps(psprintf("init_steps has more than %d steps", PGBL_INIT_STEPS_MAX), NULL);
		p->steps[n++] = 'f';
	}
	p->steps[n] = '\0';
	p->nsteps = n;
	p->fast = p->partitions == 0 &&
		(strcmp(p->steps, "dtgvp") == 0 || strcmp(p->steps, "dtgvpf") == 0);
	if (p->fast)
		strlcpy(p->steps, n == 6 ? "dtpgvf" : "dtpgv", sizeof(p->steps));
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

/* " TABLESPACE x" when ts is set */
static const char *
tablespace_clause(const char *prefix, const char *ts)
{
	return ts[0] ? psprintf(" %s %s", prefix, quote_identifier(ts)) : "";
}

/*
 * pgbench_accounts' partitions, as pgbench makes them: named
 * pgbench_accounts_1 to _n; by range, n slices of equal size (rounded up),
 * the first from MINVALUE and the last to MAXVALUE; by hash, remainders 0
 * to n - 1.  Each with the fillfactor; in the parent's tablespace.
 */
static List *
partition_statements(const DatasetParams *p)
{
	List	   *l = NIL;
	int64		naccounts = DatasetRows(p, "pgbench_accounts");
	int64		size = (naccounts + p->partitions - 1) / p->partitions;

	for (int i = 1; i <= p->partitions; i++)
	{
		StringInfoData s;

		initStringInfo(&s);
		appendStringInfo(&s, "CREATE %sTABLE %s.%s PARTITION OF %s.%s ",
						 p->unlogged ? "UNLOGGED " : "",
						 QUALIFIED(p, psprintf("pgbench_accounts_%d", i)),
						 QUALIFIED(p, "pgbench_accounts"));
		if (p->partition_method == DATASET_PART_RANGE)
			appendStringInfo(&s, "FOR VALUES FROM (%s) TO (%s)",
							 i == 1 ? "MINVALUE" : psprintf(INT64_FORMAT, (i - 1) * size + 1),
							 i == p->partitions ? "MAXVALUE" : psprintf(INT64_FORMAT, i * size + 1));
		else
			appendStringInfo(&s, "FOR VALUES WITH (MODULUS %d, REMAINDER %d)",
							 p->partitions, i - 1);
		appendStringInfo(&s, " WITH (fillfactor=%d)", p->fillfactor);
		l = lappend(l, s.data);
	}
	return l;
}

/*
 * The four tables, then pgbench_accounts' partitions.  A partitioned
 * pgbench_accounts has no fillfactor (its partitions do).  With partitions,
 * unlogged makes the partitions unlogged, and the four tables too only
 * before PostgreSQL 18, which refuses unlogged partitioned tables: from 18
 * on, pgbench creates all four permanent then (so that their foreign keys
 * stay possible), and so does init, by the version of the server the
 * tables go to.
 */
static List *
create_statements(const DatasetParams *p)
{
	List	   *l = NIL;

	for (int i = 0; i < PGBL_DATASET_NTABLES; i++)
	{
		const DatasetTable *t = &dataset_tables[i];
		bool		partitioned = p->partitions > 0 && strcmp(t->name, "pgbench_accounts") == 0;
		StringInfoData s;

		initStringInfo(&s);
		appendStringInfo(&s, "CREATE %sTABLE %s.%s (%s)",
						 p->unlogged && (p->partitions == 0 || p->server_version < 180000) ? "UNLOGGED " : "",
						 QUALIFIED(p, t->name),
						 p->scale >= PGBL_SCALE_BIGINT ? t->columns_big : t->columns);
		if (partitioned)
			appendStringInfo(&s, " PARTITION BY %s (aid)",
							 p->partition_method == DATASET_PART_HASH ? "HASH" : "RANGE");
		else if (t->fillfactor)
			appendStringInfo(&s, " WITH (fillfactor=%d)", p->fillfactor);
		appendStringInfoString(&s, tablespace_clause("TABLESPACE", p->tablespace));
		l = lappend(l, s.data);
	}
	if (p->partitions > 0)
		l = list_concat(l, partition_statements(p));
	return list_concat(l, mark_statements(p, PGBL_DATASET_MARK_INCOMPLETE));
}

/*
 * The rows as SQL (pgbench's server-side generation).  In the fast plan the
 * worker writes the same rows through a bulk path instead (the tests check
 * they are equal); otherwise, as pgbench's g and G steps, the tables are
 * emptied first, in the same transaction.
 */
static List *
generate_statements(const DatasetParams *p)
{
	List	   *l = NIL;

	if (!p->fast)
		l = lappend(l, psprintf("TRUNCATE TABLE %s.%s, %s.%s, %s.%s, %s.%s",
								QUALIFIED(p, "pgbench_accounts"),
								QUALIFIED(p, "pgbench_branches"),
								QUALIFIED(p, "pgbench_history"),
								QUALIFIED(p, "pgbench_tellers")));

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
			l = lappend(l, psprintf("ALTER TABLE %s.%s ADD PRIMARY KEY (%s)%s",
									QUALIFIED(p, dataset_pkeys[i][0]),
									dataset_pkeys[i][1],
									tablespace_clause("USING INDEX TABLESPACE", p->index_tablespace)));
	}
	else
	{
		for (int i = 0; i < lengthof(dataset_fkeys); i++)
			l = lappend(l, psprintf("ALTER TABLE %s.%s ADD CONSTRAINT %s FOREIGN KEY (%s) REFERENCES %s.%s",
									QUALIFIED(p, dataset_fkeys[i][0]),
									dataset_fkeys[i][1], dataset_fkeys[i][2],
									QUALIFIED(p, dataset_fkeys[i][3])));
	}
	return l;
}

/*
 * Whether the plan ends with the tables it created: its last "t" comes
 * after its last "d".  Then its last step marks them complete.
 */
static bool
marks_at_end(const DatasetParams *p)
{
	const char *t = strrchr(p->steps, 't');
	const char *d = strrchr(p->steps, 'd');

	return t != NULL && (d == NULL || d < t);
}

/*
 * The statements of the plan's step pos, schema-qualified.  What the worker
 * runs, what a target is sent and what init_sql() shows come from here.
 */
List *
DatasetStatements(const DatasetParams *p, int pos)
{
	List	   *l = NIL;

	switch (DatasetStepKind(p, pos))
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
		case DATASET_STEP_GENERATE_SERVER:
			l = generate_statements(p);
			break;
		case DATASET_STEP_VACUUM:
			for (int i = 0; i < lengthof(dataset_vacuum_order); i++)
				l = lappend(l, psprintf("VACUUM (ANALYZE) %s.%s",
										QUALIFIED(p, dataset_vacuum_order[i])));
			break;
		case DATASET_STEP_PKEYS:
			l = key_statements(p, false);
			break;
		case DATASET_STEP_FKEYS:
			l = key_statements(p, true);
			break;
		case DATASET_NKINDS:
			elog(ERROR, "unexpected init step %d", pos);
	}
	/* the last step marks the tables complete */
	if (pos == p->nsteps - 1 && marks_at_end(p))
		l = list_concat(l, mark_statements(p, PGBL_DATASET_MARK));
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
		if ((get_rel_relkind(relid) != RELKIND_RELATION &&
			 get_rel_relkind(relid) != RELKIND_PARTITIONED_TABLE) || comment == NULL ||
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
DatasetEmitSteps(FunctionCallInfo fcinfo, const DatasetParams *p, const DatasetTimings *t)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	for (int s = 0; s < p->nsteps; s++)
	{
		Datum		values[4];
		bool		nulls[4] = {false, false, false, false};

		if (!t->step_done[s])
			continue;
		values[0] = CStringGetTextDatum(DatasetPlanStepName(p, s));
		values[1] = numeric_of(t->seconds[s], 3);
		values[2] = Int64GetDatum(t->rows[s]);
		nulls[2] = t->rows[s] < 0;
		nulls[3] = nulls[2] || t->seconds[s] <= 0;
		values[3] = nulls[3] ? (Datum) 0 : numeric_of(t->rows[s] / t->seconds[s], 0);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
}
