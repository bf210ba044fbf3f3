"""pgbench_lab.init() against the real pgbench: same DDL, same rows, same keys.

The reference is made by the server's own pgbench binary (`pgbench -i`) in
a second database of the same cluster, and every comparison is between the
two, so nothing here hard-codes what pgbench produces.
"""
import os
import re

import psycopg
import pytest

from conftest import Background

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
    assert [s[0] for s in steps] == ["drop tables", "create tables", "primary keys",
                                     "generate data", "vacuum"]
    gen = steps[3]
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
    assert_same_pages(lab)
    assert_sound(lab)


SIZES = """
SELECT c.relname, pg_relation_size(c.oid), pg_relation_size(c.oid, 'vm') > 0
  FROM pg_class c WHERE c.relname LIKE 'pgbench%%' AND c.relnamespace = %s::regnamespace
 ORDER BY 1"""

# The rows of a heap page as pageinspect shows them, xmin and its hint bits
# (768: committed, invalid; both: frozen) left out: pgbench 15 inserts the
# branches and tellers row by row, unfrozen (16 and later copy them frozen,
# as the accounts).  assert_sound checks that ours are frozen.
HEAP_PAGE = """
SELECT (SELECT flags FROM page_header(get_raw_page(%(rel)s, %(blk)s))),
       array_agg((lp, lp_off, lp_len, t_infomask & ~768, t_infomask2, t_hoff, t_ctid)::text
                 ORDER BY lp)
  FROM heap_page_items(get_raw_page(%(rel)s, %(blk)s))"""


def contrib(c, dbname="postgres"):
    for ext in ("amcheck", "pg_visibility", "pageinspect"):
        c.sql(f"CREATE EXTENSION IF NOT EXISTS {ext}", dbname=dbname)


def assert_same_pages(c, schema="public"):
    """Sizes of every fork and index, and heap pages tuple by tuple, as pgbench -i's."""
    contrib(c)
    contrib(c, "ref")
    assert c.sql(SIZES, (schema,)) == c.sql(SIZES, ("public",), dbname="ref")
    for rel in ("pgbench_branches", "pgbench_tellers", "pgbench_accounts"):
        last = c.scalar(f"SELECT pg_relation_size('{schema}.{rel}') / 8192 - 1")
        for blk in {0, last // 2, last}:
            ours = c.sql(HEAP_PAGE, {"rel": f"{schema}.{rel}", "blk": blk})
            assert ours == c.sql(HEAP_PAGE, {"rel": rel, "blk": blk}, dbname="ref"), (rel, blk)
            assert ours[0][0] & 4, "PD_ALL_VISIBLE"
    for rel in ("pgbench_branches_pkey", "pgbench_tellers_pkey", "pgbench_accounts_pkey"):
        meta = "SELECT level, fastlevel, allequalimage FROM bt_metap(%s)"
        assert c.sql(meta, (f"{schema}.{rel}",)) == c.sql(meta, (rel,), dbname="ref")


def assert_sound(c, schema="public", dbname="postgres"):
    """amcheck finds nothing wrong; every page is all-visible and all-frozen."""
    contrib(c, dbname)
    for table, key in (("pgbench_branches", "bid"), ("pgbench_tellers", "tid"),
                       ("pgbench_accounts", "aid")):
        rel = f"{schema}.{table}"
        assert c.sql("SELECT * FROM verify_heapam(%s)", (rel,), dbname=dbname) == []
        # heapallindexed: every row is in the index; rootdescend: found from the root
        c.sql("SELECT bt_index_parent_check(%s, true, true)", (f"{rel}_pkey",), dbname=dbname)
        pages = c.scalar("SELECT pg_relation_size(%s) / 8192", (rel,), dbname=dbname)
        assert c.sql("SELECT all_visible, all_frozen FROM pg_visibility_map_summary(%s)",
                     (rel,), dbname=dbname) == [(pages, pages)]
        assert c.sql("SELECT * FROM pg_check_frozen(%s)", (rel,), dbname=dbname) == []
        n = c.scalar(f"SELECT count(*) FROM {rel}", dbname=dbname)
        with c.connect(dbname=dbname) as conn:
            conn.execute("SET enable_seqscan = off")
            conn.execute("SET enable_bitmapscan = off")
            assert conn.execute(f"SELECT count(*) FROM {rel} WHERE {key} BETWEEN 1 AND %s",
                                (n,)).fetchone()[0] == n


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
    assert_same_pages(lab)
    assert_sound(lab)


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


UNITS = {"bytes": 1, "kB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30, "TB": 1 << 40, "PB": 1 << 50}


def test_refuses_a_scale_the_disk_cannot_hold(lab):
    """init estimates what it will write and refuses (53100) before it
    drops or creates anything when the free space of its tablespace's file
    system cannot hold it.  The scale is chosen from the free space read
    here, so the test does not depend on the disk's size; the estimate per
    scale unit covers what a real init(1) wrote, with no more than 30 %
    to spare."""
    init(lab, params=(1,))
    written = float(lab.scalar("SELECT sum(pg_total_relation_size(c.oid)) FROM pg_class c "
                               "WHERE c.relname LIKE 'pgbench%' AND c.relkind = 'r' "
                               "AND c.relnamespace = 'public'::regnamespace"))
    before = lab.scalar("SELECT 'pgbench_accounts'::regclass::oid")
    st = os.statvfs(lab.datadir)
    scale = st.f_bavail * st.f_frsize // 10_000_000 + 1   # written is about 16 MB a unit
    with lab.connect() as conn:
        conn.execute("SET pgbench_lab.max_scale = 2147483647")
        for unlogged in (False, True):
            with pytest.raises(psycopg.errors.DiskFull) as e:
                conn.execute("SELECT * FROM pgbench_lab.init(%s, unlogged => %s)", (scale, unlogged))
            diag = e.value.diag
            assert "Nothing was dropped or created." in diag.message_detail, diag.message_detail
            assert diag.context == "pgbench_lab.init, in a background worker, before its first step"
            m = re.fullmatch(r"init\((\d+)\) needs about ([\d.]+) (\w+) of disk, and the file system of "
                             r"tablespace \"pg_default\" has ([\d.]+) (\w+) free", diag.message_primary)
            assert m and int(m[1]) == scale, diag.message_primary
            need, free = float(m[2]) * UNITS[m[3]], float(m[4]) * UNITS[m[5]]
            assert need > free, diag.message_primary
        # unlogged: no WAL counted, only the tables and their keys
        assert written <= need / scale <= 1.3 * written, (need / scale, written)
    assert lab.scalar("SELECT 'pgbench_accounts'::regclass::oid") == before
    assert lab.scalar("SELECT count(*) FROM pgbench_branches") == 1
    assert lab.scalar("SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'pgbench_lab init'") == 0


@pytest.fixture(scope="module")
def role(lab):
    lab.sql("CREATE ROLE lab LOGIN")
    lab.sql("CREATE SCHEMA lab AUTHORIZATION lab")
    lab.sql("GRANT EXECUTE ON FUNCTION pgbench_lab.init(int, int, bool, bool, text, int, text, text, text, text) TO lab")
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
    lab.sql("GRANT EXECUTE ON FUNCTION pgbench_lab.init(int, int, bool, bool, text, int, text, text, text, text) TO nolog")
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
    call = Background(conn, "SELECT * FROM pgbench_lab.init(60)")
    try:
        # the worker's activity line shows the rows written so far
        lab.poll("SELECT count(*) = 1 FROM pg_stat_activity WHERE backend_type = 'pgbench_lab init' "
                 "AND usename = 'lab' AND query ~ '^pgbench_lab init: generate data, "
                 "pgbench_accounts [1-9][0-9]* of 6000000 rows$'")
        lab.sql(f"SELECT {how}(%s)", (pid,))
    finally:
        error = call.join()
        conn.close()
    want = psycopg.errors.QueryCanceled if how == "pg_cancel_backend" else psycopg.OperationalError
    assert isinstance(error, want)
    lab.poll("SELECT count(*) = 0 FROM pg_stat_activity WHERE backend_type = 'pgbench_lab init'")
    assert lab.scalar("SELECT 'lab.pgbench_accounts'::regclass::oid") == old
    assert lab.scalar("SELECT count(*) FROM lab.pgbench_branches") == 1
    assert lab.scalar("SELECT count(*) FROM lab.pgbench_accounts") == 100000


def test_out_of_worker_slots(new_cluster):
    c = new_cluster("noslots", conf={"max_worker_processes": 0})
    c.sql("CREATE EXTENSION pgbench_lab CASCADE")
    with pytest.raises(psycopg.errors.ConfigurationLimitExceeded, match="background worker slot") as e:
        c.sql("SELECT * FROM pgbench_lab.init(1)")
    assert "max_worker_processes" in e.value.diag.message_hint
    assert c.scalar("SELECT count(*) FROM pg_tables WHERE tablename LIKE 'pgbench%'") == 0


@pytest.mark.parametrize("fork", ["main", "vm"])
def test_crash_recovery_rebuilds_the_pages_from_wal(new_cluster, fork):
    """The pages init writes past shared buffers are in the WAL, whole.

    After init the server stops without a checkpoint; the files of the new
    tables and keys are then emptied (fork "main": every table, index and
    visibility map; "vm": the visibility maps alone), so recovery must
    rebuild every page from the WAL, and the result must be sound.
    """
    c = new_cluster(f"crash_{fork}", conf={"checkpoint_timeout": "1h", "max_wal_size": "4GB"})
    c.sql("CREATE EXTENSION pgbench_lab CASCADE")
    init(c, params=(2,))
    before = {t: table_facts(c, t, "postgres") for t in TABLES}
    paths = c.sql("SELECT pg_relation_filepath(oid) FROM pg_class WHERE relname LIKE 'pgbench%' "
                  "AND relnamespace = 'public'::regnamespace AND relkind IN ('r', 'i')")
    c.stop("immediate")
    emptied = 0
    for (path,) in paths:
        for suffix in (("", "_vm") if fork == "main" else ("_vm",)):
            f = os.path.join(c.datadir, path + suffix)
            if os.path.exists(f) and os.path.getsize(f) > 0:
                os.truncate(f, 0)
                emptied += 1
    assert emptied >= (9 if fork == "main" else 3)
    c.start()
    assert {t: table_facts(c, t, "postgres") for t in TABLES} == before
    assert_sound(c)


def test_wal_level_minimal(new_cluster):
    """With wal_level = minimal the pages are not WAL-logged but synced:
    the tables are sound, and still there after a crash."""
    c = new_cluster("minimal", conf={"wal_level": "minimal", "max_wal_senders": 0})
    c.sql("CREATE EXTENSION pgbench_lab CASCADE")
    lsn = c.scalar("SELECT pg_current_wal_lsn()")
    init(c, "SELECT * FROM pgbench_lab.init(2, fillfactor => 10)", ())
    # far less WAL than the 2 x 15 MB of pages (catalog changes and the
    # commit's small-relation images only)
    assert c.scalar("SELECT pg_current_wal_lsn() - %s::pg_lsn", (lsn,)) < 8 * 1024 * 1024
    before = {t: table_facts(c, t, "postgres") for t in TABLES}
    assert_sound(c)
    c.stop("immediate")
    c.start()
    assert {t: table_facts(c, t, "postgres") for t in TABLES} == before
    assert_sound(c)
