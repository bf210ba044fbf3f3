"""init()'s data set options against the real pgbench -i with the same ones.

partitions and partition_method (--partitions, --partition-method),
init_steps (-I), tablespace and index_tablespace (--tablespace,
--index-tablespace): the reference is made by the server's own pgbench
binary in database "ref" of the same cluster, init's data set in
"postgres", and every comparison is between the two: relations (kind,
persistence, options, tablespace, partition key and bounds), columns,
constraints, indexes, inheritance, and each table's rows (count, sums and
a digest of every row).  The one difference by design is init's comment on
the four tables, which pgbench does not write; it is checked apart.
"""
import os
import shutil
import tempfile

import psycopg
import pytest

from test_dataset import TABLES, table_facts

RELATIONS = """
SELECT c.relname, c.relkind, c.relpersistence, c.reloptions,
       coalesce(t.spcname, '-'), pg_get_expr(c.relpartbound, c.oid),
       CASE WHEN c.relkind = 'p' THEN pg_get_partkeydef(c.oid) END,
       (SELECT p.relname FROM pg_inherits i JOIN pg_class p ON p.oid = i.inhparent
         WHERE i.inhrelid = c.oid)
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  LEFT JOIN pg_tablespace t ON t.oid = c.reltablespace
 WHERE n.nspname = 'public' AND c.relname LIKE 'pgbench%'
 ORDER BY 1"""

COLUMNS = """
SELECT table_name, ordinal_position, column_name, data_type,
       character_maximum_length, is_nullable
  FROM information_schema.columns
 WHERE table_schema = 'public' AND table_name LIKE 'pgbench%'
 ORDER BY 1, 2"""

CONSTRAINTS = """
SELECT t.relname, c.conname, c.contype, pg_get_constraintdef(c.oid)
  FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid
 WHERE t.relnamespace = 'public'::regnamespace AND t.relname LIKE 'pgbench%'
 ORDER BY 1, 2"""

INDEXES = """
SELECT c.relname, pg_get_indexdef(i.indexrelid)
  FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
 WHERE c.relnamespace = 'public'::regnamespace AND c.relname LIKE 'pgbench%'
 ORDER BY 1"""

PARTITION_ROWS = """
SELECT tableoid::regclass::text, count(*), min(aid), max(aid), sum(aid)
  FROM pgbench_accounts GROUP BY 1 ORDER BY 1"""

MARKS = """
SELECT c.relname, obj_description(c.oid, 'pg_class')
  FROM pg_class c
 WHERE c.relnamespace = 'public'::regnamespace AND c.relname LIKE 'pgbench%'
   AND c.relkind IN ('r', 'p') AND NOT c.relispartition
 ORDER BY 1"""


@pytest.fixture(scope="module")
def lab(node):
    node.sql("CREATE DATABASE ref")
    return node


@pytest.fixture(scope="module")
def spaces(lab):
    """Two tablespaces, in temporary folders owned by postgres."""
    made = []
    for name in ("lab_ts", "lab_its"):
        d = tempfile.mkdtemp(prefix=f"pgbl-{name}-")
        if os.geteuid() == 0:
            shutil.chown(d, "postgres", "postgres")
        lab.sql(f"CREATE TABLESPACE {name} LOCATION '{d}'")
        made.append(d)
    yield
    for db in ("postgres", "ref"):
        lab.sql("DROP TABLE IF EXISTS pgbench_accounts, pgbench_branches, "
                "pgbench_history, pgbench_tellers", dbname=db)
    for name in ("lab_ts", "lab_its"):
        lab.sql(f"DROP TABLESPACE IF EXISTS {name}")
    for d in made:
        shutil.rmtree(d, ignore_errors=True)


def pgbench_init(c, *args):
    c.run_client("pgbench", "-i", "-q", *args, "ref")


def catalog(c, dbname):
    return [c.sql(q, dbname=dbname) for q in (RELATIONS, COLUMNS, CONSTRAINTS, INDEXES)]


def assert_same(c, partitioned=False):
    """init's data set in postgres is pgbench's in ref, catalog and rows."""
    ours, theirs = catalog(c, "postgres"), catalog(c, "ref")
    for name, a, b in zip(("relations", "columns", "constraints", "indexes"), ours, theirs):
        assert a == b, name
    for table in TABLES:
        assert table_facts(c, table, "postgres") == table_facts(c, table, "ref"), table
    if partitioned:
        assert c.sql(PARTITION_ROWS) == c.sql(PARTITION_ROWS, dbname="ref")
    # init's own mark, on the four tables only; pgbench writes no comment
    assert c.sql(MARKS) == [(t, "created by pgbench_lab.init") for t in sorted(TABLES)]
    assert all(m is None for _, m in c.sql(MARKS, dbname="ref"))


def init(c, **kw):
    args = ", ".join(f"{k} => %({k})s" for k in kw)
    return c.sql(f"SELECT step, rows FROM pgbench_lab.init({args})", kw)


@pytest.mark.parametrize("method", ["HASH", "range"])  # pgbench takes either in any case
def test_partitions_as_pgbench(lab, method):
    pgbench_init(lab, "-s", "2", "--partitions=4", f"--partition-method={method}")
    steps = init(lab, scale=2, partitions=4, partition_method=method)
    # pgbench's default steps, in its order: the rows made by SQL, not pages
    assert [s for s, _ in steps] == ["drop tables", "create tables", "generate data",
                                     "vacuum", "primary keys"]
    assert steps[2][1] == 2 * (1 + 10 + 100000)
    assert_same(lab, partitioned=True)
    assert lab.scalar("SELECT count(*) FROM pg_inherits "
                      "WHERE inhparent = 'pgbench_accounts'::regclass") == 4
    if method == "range":
        # slices of 50000 (2 x 100000 / 4), open at both ends
        assert lab.sql("SELECT pg_get_expr(relpartbound, oid) FROM pg_class "
                       "WHERE relname = 'pgbench_accounts_1'") == \
            [("FOR VALUES FROM (MINVALUE) TO (50001)",)]
    # pgbench runs on it
    lab.run_client("pgbench", "-S", "-t", "20", "postgres")


def test_partitions_default_to_range_and_unlogged(lab):
    """--partitions alone is range; unlogged partitions as pgbench of this
    version makes them (before 18 the partitioned table is unlogged too)."""
    pgbench_init(lab, "-s", "1", "--partitions=3", "--unlogged-tables", "-F", "90",
                 "--foreign-keys")
    init(lab, scale=1, partitions=3, unlogged=True, fillfactor=90, foreign_keys=True)
    assert_same(lab, partitioned=True)
    assert lab.scalar("SELECT partstrat FROM pg_partitioned_table "
                      "WHERE partrelid = 'pgbench_accounts'::regclass") == "r"


@pytest.mark.parametrize("steps", ["dtgvp", "dtGvpf", "dtpGvf", "dt G v"])
def test_init_steps_as_pgbench(lab, steps):
    pgbench_init(lab, "-s", "1", "-I", steps)
    got = init(lab, scale=1, init_steps=steps)
    names = {"d": "drop tables", "t": "create tables", "g": "generate data",
             "G": "generate data server-side", "v": "vacuum", "p": "primary keys",
             "f": "foreign keys"}
    if steps == "dtgvp":
        # pgbench's default: the fast plan, keys on the empty tables first
        assert [s for s, _ in got] == ["drop tables", "create tables", "primary keys",
                                       "generate data", "vacuum"]
    else:
        assert [s for s, _ in got] == [names[x] for x in steps if x != " "]
    assert_same(lab)


def test_steps_without_create_keep_the_tables(lab):
    """-I gv regenerates the rows of init's tables in place, as pgbench's."""
    init(lab, scale=1, init_steps="dt")
    pgbench_init(lab, "-s", "1", "-I", "dt")
    assert lab.scalar("SELECT count(*) FROM pgbench_accounts") == 0
    before = lab.scalar("SELECT 'pgbench_accounts'::regclass::oid")
    got = init(lab, scale=1, init_steps="Gvp")
    pgbench_init(lab, "-s", "1", "-I", "Gvp")
    assert [s for s, _ in got] == ["generate data server-side", "vacuum", "primary keys"]
    assert lab.scalar("SELECT 'pgbench_accounts'::regclass::oid") == before
    assert_same(lab)


def test_tablespaces_as_pgbench(lab, spaces):
    pgbench_init(lab, "-s", "1", "--tablespace=lab_ts", "--index-tablespace=lab_its")
    init(lab, scale=1, tablespace="lab_ts", index_tablespace="lab_its")
    assert_same(lab)
    rels = {r[0]: r[4] for r in lab.sql(RELATIONS)}
    assert rels["pgbench_accounts"] == "lab_ts"
    assert rels["pgbench_accounts_pkey"] == "lab_its"
    # the fast plan still: pages as COPY FREEZE writes them, in the tablespace
    assert lab.scalar("SELECT relallvisible = relpages AND relpages > 0 FROM pg_class "
                      "WHERE relname = 'pgbench_accounts'")
    lab.sql("CREATE EXTENSION IF NOT EXISTS amcheck")
    lab.sql("SELECT bt_index_parent_check('pgbench_accounts_pkey', true, true)")
    # with partitions: the partitions in the partitioned table's tablespace
    pgbench_init(lab, "-s", "1", "--partitions=2", "--tablespace=lab_ts",
                 "--index-tablespace=lab_its")
    init(lab, scale=1, partitions=2, tablespace="lab_ts", index_tablespace="lab_its")
    assert_same(lab, partitioned=True)


def test_on_a_target_as_pgbench(lab):
    """init with a target takes the same options (here another database)."""
    lab.sql("CREATE DATABASE target")
    pgbench_init(lab, "-s", "1", "--partitions=3", "--partition-method=hash", "-I", "dtGvpf")
    got = init(lab, scale=1, partitions=3, partition_method="hash", init_steps="dtGvpf",
               target=f"host=127.0.0.1 port={lab.port} dbname=target user=postgres")
    assert [s for s, _ in got] == ["drop tables", "create tables", "generate data server-side",
                                   "vacuum", "primary keys", "foreign keys"]
    for q in (RELATIONS, COLUMNS, CONSTRAINTS, INDEXES, PARTITION_ROWS):
        assert lab.sql(q, dbname="target") == lab.sql(q, dbname="ref")
    for table in TABLES:
        assert table_facts(lab, table, "target") == table_facts(lab, table, "ref")


def test_init_sql_shows_the_options(lab):
    rows = lab.sql("SELECT step, statement FROM pgbench_lab.init_sql(1, partitions => 2, "
                   "partition_method => 'hash', init_steps => 'dtGvpf', tablespace => 'ts', "
                   "index_tablespace => 'its')")
    steps = []
    for s, _ in rows:
        if not steps or steps[-1] != s:
            steps.append(s)
    assert steps == ["drop tables", "create tables", "generate data server-side", "vacuum",
                     "primary keys", "foreign keys"]
    text = "\n".join(st for _, st in rows)
    assert ("CREATE TABLE public.pgbench_accounts (aid int not null, bid int, abalance int, "
            "filler char(84)) PARTITION BY HASH (aid) TABLESPACE ts") in text
    assert ("CREATE TABLE public.pgbench_accounts_2 PARTITION OF public.pgbench_accounts "
            "FOR VALUES WITH (MODULUS 2, REMAINDER 1) WITH (fillfactor=100)") in text
    assert "ALTER TABLE public.pgbench_accounts ADD PRIMARY KEY (aid) USING INDEX TABLESPACE its" in text
    assert "TRUNCATE TABLE public.pgbench_accounts" in text
    # the statements make pgbench's tables: run them in a schema of their own
    pgbench_init(lab, "-s", "1", "--partitions=2", "--partition-method=range", "-I", "dtGvpf")
    lab.sql("DROP SCHEMA IF EXISTS shown CASCADE")
    lab.sql("CREATE SCHEMA shown")
    with lab.connect() as conn:
        conn.execute("SET search_path = shown")
        for (st,) in conn.execute("SELECT statement FROM pgbench_lab.init_sql(1, partitions => 2, "
                                  "init_steps => 'dtGvpf')").fetchall():
            conn.execute(st)
    bounds = ("SELECT c.relname, pg_get_expr(c.relpartbound, c.oid) FROM pg_class c "
              "WHERE c.relnamespace = %s::regnamespace AND c.relispartition ORDER BY 1")
    assert lab.sql(bounds, ("shown",)) == lab.sql(bounds, ("public",), dbname="ref")
    lab.sql("DROP SCHEMA shown CASCADE")


@pytest.mark.parametrize("args, state, text", [
    ("partitions => -1", "22023", "partitions -1 is out of range"),
    ("partitions => NULL", "22004", "partitions must not be null"),
    ("partition_method => 'hash'", "22023", "partition_method requires partitions greater than zero"),
    ("partitions => 2, partition_method => 'list'", "22023", 'invalid partition_method "list"'),
    ("init_steps => 'dtx'", "22023", 'unrecognized init step "x"'),
    ("init_steps => 'dté'", "22023", 'unrecognized init step "é"'),
    ("init_steps => ''", "22023", "no init steps given"),
    ("init_steps => '  '", "22023", "no init steps given"),
    ("init_steps => repeat('v', 65)", "22023", "init_steps has more than 64 steps"),
    ("tablespace => 'nowhere'", "42704", 'tablespace "nowhere" does not exist'),
    ("index_tablespace => 'nowhere'", "42704", 'tablespace "nowhere" does not exist'),
    ("tablespace => ''", "22023", "tablespace must not be empty"),
])
def test_refusals(lab, args, state, text):
    before = lab.scalar("SELECT count(*) FROM pg_class WHERE relname LIKE 'pgbench%'")
    with lab.connect() as conn:
        with pytest.raises(psycopg.Error) as e:
            conn.execute(f"SELECT * FROM pgbench_lab.init(1, {args})")
    assert e.value.sqlstate == state
    assert e.value.diag.message_primary == text
    assert e.value.diag.message_hint
    # init_sql checks the same, tablespaces aside (it shows; a target's may differ)
    if "tablespace" not in args:
        with lab.connect() as conn:
            with pytest.raises(psycopg.Error) as e:
                conn.execute(f"SELECT * FROM pgbench_lab.init_sql(1, {args})")
        assert e.value.sqlstate == state
    assert lab.scalar("SELECT count(*) FROM pg_class WHERE relname LIKE 'pgbench%'") == before


def test_pgbench_refuses_the_same(lab):
    """The binary refuses what init refuses (its texts, our SQLSTATEs)."""
    for args, text in ((["--partitions=-1"], "--partitions must be in range"),
                       (["--partition-method=hash"], "--partition-method requires greater than zero --partitions"),
                       (["--partitions=2", "--partition-method=list"], "invalid partition method"),
                       (["-I", "dtx"], 'unrecognized initialization step "x"'),
                       (["-I", ""], "no initialization steps specified")):
        r = lab.run_client("pgbench", "-i", *args, "ref", check=False)
        assert r.returncode != 0 and text in r.stderr, (args, r.stderr)
