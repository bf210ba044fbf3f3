"""pgbench_lab.init() against the real pgbench: same DDL, same rows, same keys.

The reference is made by the server's own pgbench binary (`pgbench -i`) in
a second database of the same cluster, and every comparison is between the
two, so nothing here hard-codes what pgbench produces.
"""
import threading

import psycopg
import pytest

TABLES = ["pgbench_branches", "pgbench_tellers", "pgbench_accounts", "pgbench_history"]
IDS = {"pgbench_branches": "bid", "pgbench_tellers": "tid",
       "pgbench_accounts": "aid", "pgbench_history": "tid"}

COLUMNS = """
SELECT table_name, ordinal_position, column_name, data_type,
       character_maximum_length, is_nullable
  FROM information_schema.columns
 WHERE table_schema = %s AND table_name LIKE 'pgbench%%'
 ORDER BY 1, 2"""

RELATIONS = """
SELECT c.relname, c.relkind, c.relpersistence, c.reloptions
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE n.nspname = %s AND c.relname LIKE 'pgbench%%'
 ORDER BY 1"""

PAGES = """
SELECT relname, relpages, relallvisible, reltuples FROM pg_class
 WHERE relname LIKE 'pgbench%' AND relnamespace = 'public'::regnamespace ORDER BY 1"""

CONSTRAINTS = """
SELECT t.relname, c.conname, c.contype,
       regexp_replace(pg_get_constraintdef(c.oid), '\\m' || %s || '\\.', '')
  FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid
  JOIN pg_namespace n ON n.oid = t.relnamespace
 WHERE n.nspname = %s AND t.relname LIKE 'pgbench%%' AND c.contype IN ('p', 'f')
 ORDER BY 1, 2"""


BALANCE = {"pgbench_branches": "bbalance", "pgbench_tellers": "tbalance",
           "pgbench_accounts": "abalance", "pgbench_history": "delta"}


def table_facts(c, table, dbname, schema="public"):
    """Counts, ranges, sums, filler lengths and a digest of every row."""
    i = IDS[table]
    return c.sql(f"""
    SELECT count(*), min({i}), max({i}), sum({i}), sum(bid), sum({BALANCE[table]}),
           count(filler), min(octet_length(filler)), max(octet_length(filler)),
           md5(coalesce(string_agg(t::text, ',' ORDER BY {i}), ''))
      FROM {schema}.{table} t""", dbname=dbname)[0]


def shape(c, dbname, schema="public"):
    return (c.sql(COLUMNS, (schema,), dbname=dbname),
            c.sql(RELATIONS, (schema,), dbname=dbname),
            c.sql(CONSTRAINTS, (schema, schema), dbname=dbname))


@pytest.fixture(scope="module")
def lab(node):
    node.sql("CREATE DATABASE ref")
    return node


def pgbench_init(c, *args):
    c.run_client("pgbench", "-i", "-q", *args, "ref")


def init(c, sql="SELECT * FROM pgbench_lab.init(%s)", params=(1,), **kw):
    return c.sql(sql, params, **kw)


@pytest.mark.parametrize("scale", [1, 2])
def test_same_rows_and_keys_as_pgbench(lab, scale):
    pgbench_init(lab, "-s", str(scale))
    steps = init(lab, params=(scale,))
    assert [s[0] for s in steps] == ["drop tables", "create tables", "generate data",
                                     "vacuum", "primary keys"]
    gen = steps[2]
    assert gen[2] == scale * (1 + 10 + 100000) and gen[3] > 0
    for table in TABLES:
        ours = table_facts(lab, table, "postgres")
        theirs = table_facts(lab, table, "ref")
        assert ours == theirs, table
    # explicit expectations, independent of pgbench
    acc = table_facts(lab, "pgbench_accounts", "postgres")
    assert acc[0:3] == (100000 * scale, 1, 100000 * scale)
    assert acc[7] == acc[8] == 84
    assert lab.scalar("SELECT bool_and(bid = (aid - 1) / 100000 + 1) FROM pgbench_accounts")
    assert lab.scalar("SELECT bool_and(bid = (tid - 1) / 10 + 1 AND filler IS NULL) FROM pgbench_tellers")
    assert shape(lab, "postgres") == shape(lab, "ref")
    assert lab.scalar("SELECT count(*) FROM pg_stats WHERE tablename = 'pgbench_accounts'") == 4
    # same pages, all visible after VACUUM, as with pgbench's COPY FREEZE
    assert lab.sql(PAGES) == lab.sql(PAGES, dbname="ref")
    assert lab.scalar("SELECT relallvisible = relpages AND relpages > 0 FROM pg_class "
                      "WHERE relname = 'pgbench_accounts'")


def test_options_match_pgbench(lab):
    pgbench_init(lab, "-s", "1", "-F", "80", "--foreign-keys", "--unlogged-tables")
    steps = init(lab, "SELECT * FROM pgbench_lab.init(1, fillfactor => 80, "
                 "foreign_keys => true, unlogged => true)", ())
    assert steps[-1][0] == "foreign keys"
    assert shape(lab, "postgres") == shape(lab, "ref")
    assert lab.scalar("SELECT count(*) FROM pg_constraint WHERE contype = 'f' "
                      "AND connamespace = 'public'::regnamespace "
                      "AND conrelid::regclass::text LIKE 'pgbench%'") == 5
    assert lab.scalar("SELECT relpersistence FROM pg_class WHERE relname = 'pgbench_accounts'") == "u"
    for table in TABLES:
        assert table_facts(lab, table, "postgres") == table_facts(lab, table, "ref")


def test_bigint_ddl_from_scale_20000(lab):
    """DDL only: pgbench -I dt makes the empty tables; init_sql's must match."""
    for scale in (19999, 20000):
        pgbench_init(lab, "-I", "dt", "-s", str(scale))
        lab.sql("DROP SCHEMA IF EXISTS big CASCADE")
        lab.sql("CREATE SCHEMA big")
        with lab.connect() as conn:
            conn.execute("SET search_path = big")
            stmts = conn.execute("SELECT statement FROM pgbench_lab.init_sql(%s) "
                                 "WHERE step IN ('drop tables', 'create tables')",
                                 (scale,)).fetchall()
            for (s,) in stmts:
                conn.execute(s)
        ours = lab.sql(COLUMNS, ("big",))
        assert ours == lab.sql(COLUMNS, ("public",), dbname="ref")
        aid = {(r[0], r[2]): r[3] for r in ours}
        want = "bigint" if scale >= 20000 else "integer"
        assert aid[("pgbench_accounts", "aid")] == aid[("pgbench_history", "aid")] == want


def test_pgbench_runs_on_it(lab):
    init(lab, params=(1,))
    r = lab.run_client("pgbench", "-S", "-t", "100", "postgres")
    assert "number of transactions actually processed: 100/100" in r.stdout


def test_rerun_replaces(lab):
    init(lab, params=(1,))
    before = lab.scalar("SELECT 'pgbench_accounts'::regclass::oid")
    init(lab, params=(2,))
    assert lab.scalar("SELECT 'pgbench_accounts'::regclass::oid") != before
    assert lab.scalar("SELECT count(*) FROM pgbench_branches") == 2
    assert lab.scalar("SELECT count(*) FROM pgbench_accounts") == 200000
    assert lab.scalar("SELECT obj_description('pgbench_accounts'::regclass)") == \
        "created by pgbench_lab.init"


def test_refuses_tables_it_did_not_create(lab):
    lab.sql("CREATE SCHEMA theirs")
    lab.sql("CREATE TABLE theirs.pgbench_tellers (x int)")
    with lab.connect() as conn:
        conn.execute("SET search_path = theirs")
        with pytest.raises(psycopg.errors.DuplicateTable, match="not created by pgbench_lab.init"):
            conn.execute("SELECT * FROM pgbench_lab.init(1)")
    assert lab.scalar("SELECT count(*) FROM pg_tables WHERE schemaname = 'theirs'") == 1


def test_worker_error_keeps_old_tables(lab):
    """An error in the worker comes back with its SQLSTATE; nothing changes."""
    init(lab, params=(1,))
    lab.sql("CREATE VIEW branch_view AS SELECT * FROM pgbench_branches")
    try:
        with pytest.raises(psycopg.errors.DependentObjectsStillExist) as e:
            init(lab, params=(2,))
        assert "background worker" in str(e.value.diag.context)
        assert lab.scalar("SELECT count(*) FROM pgbench_branches") == 1
        assert lab.scalar("SELECT count(*) FROM pg_stat_activity "
                          "WHERE backend_type = 'pgbench_lab init'") == 0
    finally:
        lab.sql("DROP VIEW branch_view")


@pytest.fixture(scope="module")
def role(lab):
    lab.sql("CREATE ROLE lab LOGIN")
    lab.sql("CREATE SCHEMA lab AUTHORIZATION lab")
    lab.sql("GRANT EXECUTE ON FUNCTION pgbench_lab.init(int, int, bool, bool) TO lab")
    return "lab"


def test_not_granted_by_default(lab):
    lab.sql("CREATE ROLE nobody LOGIN")
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        lab.sql("SELECT * FROM pgbench_lab.init(1)", user="nobody")


def test_non_superuser_in_own_schema(lab, role):
    init(lab, params=(1,), user=role)   # "$user" puts schema lab first
    owners = lab.sql("SELECT DISTINCT tableowner, schemaname FROM pg_tables "
                     "WHERE tablename LIKE 'pgbench%' AND schemaname = 'lab'")
    assert owners == [("lab", "lab")]
    assert lab.scalar("SELECT count(*) FROM lab.pgbench_accounts") == 100000
    assert "terminating any other active server processes" not in lab.log()


def test_nologin_role_through_set_role(lab):
    lab.sql("CREATE ROLE nolog NOLOGIN")
    lab.sql("CREATE SCHEMA nolog AUTHORIZATION nolog")
    lab.sql("GRANT EXECUTE ON FUNCTION pgbench_lab.init(int, int, bool, bool) TO nolog")
    with lab.connect() as conn:
        conn.execute("SET ROLE nolog")
        conn.execute("SELECT * FROM pgbench_lab.init(1)")
    assert lab.scalar("SELECT tableowner FROM pg_tables WHERE schemaname = 'nolog' "
                      "AND tablename = 'pgbench_accounts'") == "nolog"


@pytest.mark.parametrize("how", ["pg_cancel_backend", "pg_terminate_backend"])
def test_cancel_during_generation(lab, role, how):
    """Cancel or disconnect: the worker goes, the previous tables stay as they were."""
    init(lab, params=(1,), user=role)
    old = lab.scalar("SELECT 'lab.pgbench_accounts'::regclass::oid")
    conn = lab.connect(user=role)
    pid = conn.info.backend_pid
    failure = []

    def call():
        try:
            conn.execute("SELECT * FROM pgbench_lab.init(20)")
        except psycopg.Error as e:
            failure.append(e)

    t = threading.Thread(target=call)
    t.start()
    try:
        lab.poll("SELECT count(*) = 1 FROM pg_stat_activity WHERE backend_type = 'pgbench_lab init' "
                 "AND usename = 'lab' AND query = 'pgbench_lab init: generate data'")
        lab.sql(f"SELECT {how}(%s)", (pid,))
        t.join(60)
    finally:
        t.join(60)
        conn.close()
    want = psycopg.errors.QueryCanceled if how == "pg_cancel_backend" else psycopg.OperationalError
    assert isinstance(failure[0], want)
    lab.poll("SELECT count(*) = 0 FROM pg_stat_activity WHERE backend_type = 'pgbench_lab init'")
    assert lab.scalar("SELECT 'lab.pgbench_accounts'::regclass::oid") == old
    assert lab.scalar("SELECT count(*) FROM lab.pgbench_branches") == 1
    assert lab.scalar("SELECT count(*) FROM lab.pgbench_accounts") == 100000


def test_out_of_worker_slots(new_cluster):
    c = new_cluster("noslots", conf={"max_worker_processes": 0})
    c.sql("CREATE EXTENSION pgbench_lab CASCADE")
    with pytest.raises(psycopg.errors.InsufficientResources, match="background worker slot") as e:
        c.sql("SELECT * FROM pgbench_lab.init(1)")
    assert "max_worker_processes" in e.value.diag.message_hint
    assert c.scalar("SELECT count(*) FROM pg_tables WHERE tablename LIKE 'pgbench%'") == 0
