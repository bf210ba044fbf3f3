"""Cache part on a real server: cache_status against pg_buffercache,
make_cold and warm, dirty pages across make_cold and restarts, privileges,
and make_cold waiting for a lock and being cancelled.

The cluster has small shared buffers (32MB) and a table of about 5MB, so the
whole table fits and every figure can be checked exactly.
"""
import threading

import psycopg
import pytest

from conftest import PG_MAJOR, Cluster

ROWS = 20000

# pg_buffercache's count of one relation's buffers (all forks), for checks
# made independently of pgbench_lab.
BUFFERCACHE_COUNT = """
SELECT count(*) FROM pg_buffercache b
 WHERE b.relfilenode = pg_relation_filenode(%s::regclass)
   AND b.reldatabase IN (0, (SELECT oid FROM pg_database WHERE datname = current_database()))
"""


@pytest.fixture(scope="module")
def pg():
    c = Cluster("cache", {"shared_buffers": "32MB", "autovacuum": "off"})
    try:  # a failed set-up must not leave a server running
        c.start()
        c.sql("CREATE EXTENSION pgbench_lab CASCADE")
        c.sql("CREATE EXTENSION pg_buffercache")
        c.sql("CREATE TABLE cache_t (id int PRIMARY KEY, v int NOT NULL, pad text)")
        c.sql(f"INSERT INTO cache_t SELECT g, 0, repeat('x', 200) FROM generate_series(1, {ROWS}) g")
        c.sql("VACUUM cache_t")     # makes the visibility map and FSM forks
        yield c
    finally:
        c.destroy()


def status(c, rel="cache_t"):
    """cache_status rows as dicts keyed by relation name."""
    with c.connect() as conn:
        cur = conn.execute(
            "SELECT relation::text, kind, blocks, buffers, buffers_dirty, usage_count_avg,"
            " buffers_pct, os_pages, os_pct FROM pgbench_lab.cache_status(%s)", (rel,))
        names = [d.name for d in cur.description]
        return {r[0]: dict(zip(names, r)) for r in cur.fetchall()}


def test_status_lists_table_indexes_and_toast(pg):
    rows = status(pg)
    kinds = sorted(r["kind"] for r in rows.values())
    assert kinds == ["index", "table", "toast index", "toast table"]
    t = rows["cache_t"]
    size = pg.scalar("SELECT (pg_relation_size('cache_t', 'main') + pg_relation_size('cache_t', 'fsm')"
                     " + pg_relation_size('cache_t', 'vm')) / 8192")
    assert t["blocks"] == size
    assert t["blocks"] > 500          # about 5MB


def test_status_matches_pg_buffercache(pg):
    pg.sql("SELECT pg_prewarm('cache_t'), pg_prewarm('cache_t_pkey')")
    rows = status(pg)
    for name, r in rows.items():
        assert r["buffers"] == pg.scalar(BUFFERCACHE_COUNT, (name,)), name
    t = rows["cache_t"]
    # pg_prewarm loaded the main fork; the FSM and VM may or may not be there
    assert t["buffers"] >= pg.scalar("SELECT pg_relation_size('cache_t') / 8192")
    avg = pg.scalar("SELECT avg(usagecount)::float8 FROM pg_buffercache"
                    " WHERE relfilenode = pg_relation_filenode('cache_t')")
    assert abs(t["usage_count_avg"] - avg) < 0.5
    dirty = pg.scalar("SELECT count(*) FROM pg_buffercache WHERE isdirty"
                      " AND relfilenode = pg_relation_filenode('cache_t')")
    assert t["buffers_dirty"] == dirty
    assert t["os_pages"] > 0          # it was read through the OS


def test_status_all_relations(pg):
    pg.sql("SET pgbench_lab.cache_min_size = '1MB'")
    rows = pg.sql("SELECT relation::text, blocks FROM pgbench_lab.cache_status()")
    names = {r[0] for r in rows}
    assert "cache_t" in names
    assert all(r[1] >= 128 for r in rows)
    # a small catalog stays out unless the threshold is lowered
    assert "pg_namespace" not in names
    with pg.connect() as conn:
        conn.execute("SET pgbench_lab.cache_min_size = 0")
        names = {r[0] for r in conn.execute("SELECT relation::text FROM pgbench_lab.cache_status()")}
    assert "pg_namespace" in names


def cold(c, rel="cache_t", **kw):
    args = "".join(f", {k} => {v}" for k, v in kw.items())
    with c.connect() as conn:
        cur = conn.execute(
            f"SELECT relation::text, buffers_evicted, dirty_written, buffers_left,"
            f" os_pages_dropped, os_pages_left FROM pgbench_lab.make_cold('{rel}'{args})")
        return {r[0]: r[1:] for r in cur.fetchall()}


def test_make_cold_then_warm(pg):
    pg.sql("SELECT pg_prewarm('cache_t'), pg_prewarm('cache_t_pkey')")
    before = status(pg)
    assert before["cache_t"]["buffers"] > 0
    result = cold(pg)
    assert set(result) == set(before)
    after = status(pg)
    for name in before:
        assert after[name]["buffers"] == 0, name
        assert pg.scalar(BUFFERCACHE_COUNT, (name,)) == 0, name
        assert result[name][0] == before[name]["buffers"], name
        assert result[name][2] == 0, name
    os_before = sum(r["os_pages"] for r in before.values())
    os_left = sum(r["os_pages"] for r in after.values())
    dropped = sum(r[3] for r in result.values())
    print(f"\nOS pages: {os_before} before make_cold, {dropped} dropped, {os_left} left")
    assert os_before > 0
    assert os_left <= 0.1 * os_before

    warmed = pg.sql("SELECT relation::text, blocks_loaded, seconds FROM pgbench_lab.warm('cache_t')")
    now = status(pg)
    for name, loaded, seconds in warmed:
        assert loaded == now[name]["blocks"], name
        assert now[name]["buffers"] == now[name]["blocks"], name
        if loaded > 0:                 # the TOAST table is empty
            assert now[name]["buffers_pct"] == 100.0, name
        assert pg.scalar(BUFFERCACHE_COUNT, (name,)) == loaded, name
        assert seconds >= 0
    assert {r[0] for r in warmed} == set(now)


def test_make_cold_buffers_only(pg):
    pg.sql("SELECT pg_prewarm('cache_t')")
    result = cold(pg, include_indexes="false", os_cache="false")
    assert "cache_t_pkey" not in result
    assert result["cache_t"][3] == 0           # no OS page dropped
    assert status(pg)["cache_t"]["buffers"] == 0
    assert status(pg)["cache_t"]["os_pages"] > 0


def test_make_cold_keeps_dirty_pages(pg):
    pg.sql("SELECT pg_prewarm('cache_t')")
    start = pg.scalar("SELECT sum(v) FROM cache_t")
    pg.sql("UPDATE cache_t SET v = v + 1 WHERE id % 3 = 0")
    expected = pg.scalar("SELECT sum(v) FROM cache_t")
    assert expected == start + ROWS // 3
    dirty = status(pg)["cache_t"]["buffers_dirty"]
    assert dirty > 0
    result = cold(pg)
    assert result["cache_t"][1] > 0           # dirty pages were written
    assert status(pg)["cache_t"]["buffers"] == 0
    # read back from the files: nothing was lost
    assert pg.scalar("SELECT sum(v) FROM cache_t") == expected
    assert pg.scalar("SELECT count(*) FROM cache_t WHERE id % 3 = 0 AND v = 0") == 0
    assert pg.scalar(BUFFERCACHE_COUNT, ("cache_t",)) > 0   # read back in

    # again with dirty pages, then a crash (immediate stop) and recovery
    pg.sql("UPDATE cache_t SET v = v + 1 WHERE id % 5 = 0")
    expected = pg.scalar("SELECT sum(v) FROM cache_t")
    assert cold(pg)["cache_t"][1] > 0
    pg.sql("CHECKPOINT")   # recovery replays only what follows make_cold
    pg.stop("immediate")
    pg.start()
    assert pg.scalar("SELECT sum(v) FROM cache_t") == expected
    pg.restart()
    assert pg.scalar("SELECT sum(v) FROM cache_t") == expected


def test_make_cold_superuser_only(pg):
    pg.sql("CREATE ROLE cache_user LOGIN")
    pg.sql("GRANT SELECT ON cache_t TO cache_user")
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        pg.sql("SELECT * FROM pgbench_lab.make_cold('cache_t')", user="cache_user")
    pg.sql("GRANT EXECUTE ON FUNCTION pgbench_lab.make_cold(regclass, bool, bool) TO cache_user")
    with pytest.raises(psycopg.errors.InsufficientPrivilege) as e:
        pg.sql("SELECT * FROM pgbench_lab.make_cold('cache_t')", user="cache_user")
    assert "Only superusers" in str(e.value.diag.message_detail)
    pg.sql("SELECT pg_prewarm('cache_t')")
    assert status(pg)["cache_t"]["buffers"] > 0   # nothing was evicted


def test_make_cold_refuses_catalogs_and_views(pg):
    with pytest.raises(psycopg.errors.InsufficientPrivilege) as e:
        pg.sql("SELECT * FROM pgbench_lab.make_cold('pg_class')")
    assert "system catalog" in str(e.value)
    pg.sql("CREATE VIEW cache_v AS SELECT 1 AS one")
    with pytest.raises(psycopg.errors.WrongObjectType):
        pg.sql("SELECT * FROM pgbench_lab.make_cold('cache_v')")


def test_warm_bad_mode(pg):
    with pytest.raises(psycopg.errors.InvalidParameterValue) as e:
        pg.sql("SELECT * FROM pgbench_lab.warm('cache_t', 'everything')")
    hint = e.value.diag.message_hint
    assert all(m in hint for m in ('"buffer"', '"read"', '"prefetch"'))


def test_warm_as_reader(pg):
    """A role with SELECT (not the owner) warms the table, never an error."""
    pg.sql("CREATE ROLE cache_reader LOGIN")
    pg.sql("GRANT SELECT ON cache_t TO cache_reader")
    pg.sql("GRANT EXECUTE ON FUNCTION pgbench_lab.warm(regclass, text, bool) TO cache_reader")
    cold(pg)
    rows = pg.sql("SELECT relation::text, blocks_loaded FROM pgbench_lab.warm('cache_t')",
                  user="cache_reader")
    loaded = dict(rows)
    assert loaded["cache_t"] == status(pg)["cache_t"]["blocks"]
    assert status(pg)["cache_t"]["buffers"] == loaded["cache_t"]
    pg.sql("REVOKE SELECT ON cache_t FROM cache_reader")
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        pg.sql("SELECT * FROM pgbench_lab.warm('cache_t')", user="cache_reader")


def test_make_cold_beside_a_writer(pg):
    """A session updating the table while make_cold runs again and again
    neither fails nor loses an update."""
    start = pg.scalar("SELECT sum(v) FROM cache_t")
    updates = 300
    t, pid, outcome = run_in_thread(
        pg, f"DO $$ BEGIN FOR i IN 1..{updates} LOOP"
            f" UPDATE cache_t SET v = v + 1 WHERE id = 1 + (i * 7919) % {ROWS};"
            f" COMMIT; END LOOP; END $$")
    rounds = 0
    while t.is_alive() or rounds < 3:
        cold(pg)
        rounds += 1
    t.join(60)
    assert "error" not in outcome, outcome
    assert pg.scalar("SELECT sum(v) FROM cache_t") == start + updates
    cold(pg)
    assert pg.scalar("SELECT sum(v) FROM cache_t") == start + updates
    print(f"\nmake_cold ran {rounds} times beside {updates} committed updates")


def run_in_thread(c, query, options=""):
    """Run a query in its own connection and thread; return (thread, pid, outcome)."""
    conn = c.connect(options=options)
    pid = conn.info.backend_pid
    outcome = {}

    def target():
        try:
            cur = conn.execute(query)
            outcome["rows"] = cur.fetchall() if cur.description else []
        except psycopg.Error as e:
            outcome["error"] = e
        finally:
            conn.close()

    t = threading.Thread(target=target)
    t.start()
    return t, pid, outcome


@pytest.mark.parametrize("holder_mode", ["ACCESS SHARE", "ACCESS EXCLUSIVE"])
def test_make_cold_waits_for_lock_and_can_be_cancelled(pg, holder_mode):
    waits = holder_mode == "ACCESS EXCLUSIVE" or PG_MAJOR < 17
    with pg.connect(autocommit=False) as holder:
        holder.execute(f"LOCK TABLE cache_t IN {holder_mode} MODE")
        t, pid, outcome = run_in_thread(pg, "SELECT * FROM pgbench_lab.make_cold('cache_t')")
        if waits:
            pg.poll("SELECT wait_event_type = 'Lock' FROM pg_stat_activity WHERE pid = %s", (pid,))
            assert t.is_alive()
            assert pg.scalar("SELECT pg_cancel_backend(%s)", (pid,))
            t.join(60)
            assert isinstance(outcome.get("error"), psycopg.errors.QueryCanceled)
        else:
            # PostgreSQL 17+: eviction runs beside readers
            t.join(60)
            assert "error" not in outcome, outcome
        holder.rollback()

    if waits:
        # statement_timeout ends the wait too
        with pg.connect(autocommit=False) as holder:
            holder.execute(f"LOCK TABLE cache_t IN {holder_mode} MODE")
            with pytest.raises(psycopg.errors.QueryCanceled):
                pg.sql("SET statement_timeout = '300ms';"
                       " SELECT * FROM pgbench_lab.make_cold('cache_t')")
            holder.rollback()
    # and with the lock gone it works
    assert "cache_t" in cold(pg)


def test_snapshot(pg):
    pg.sql("SELECT pg_prewarm('cache_t')")
    with pg.connect() as conn:
        # one session: its own counters are flushed when it goes idle
        sid = conn.execute("SELECT pgbench_lab.cache_snapshot('before')").fetchone()[0]
        conn.execute("SELECT count(*) FROM cache_t")
        conn.execute("SELECT pg_stat_force_next_flush()")
        sid2 = conn.execute("SELECT pgbench_lab.cache_snapshot('after')").fetchone()[0]
    assert sid2 > sid
    rows = pg.sql("SELECT label, blks_hit FROM pgbench_lab.cache_snapshots"
                  " WHERE snapshot_id IN (%s, %s) ORDER BY snapshot_id", (sid, sid2))
    assert [r[0] for r in rows] == ["before", "after"]
    assert rows[1][1] > rows[0][1]
    buffers = pg.scalar("SELECT buffers FROM pgbench_lab.cache_snapshot_relations"
                        " WHERE snapshot_id = %s AND relid = 'cache_t'::regclass", (sid,))
    assert buffers == pg.scalar(BUFFERCACHE_COUNT, ("cache_t",))
    hits = pg.sql("SELECT s.heap_blks_hit FROM pgbench_lab.cache_snapshot_relations s"
                  " WHERE s.relid = 'cache_t'::regclass AND s.snapshot_id IN (%s, %s)"
                  " ORDER BY s.snapshot_id", (sid, sid2))
    assert hits[1][0] > hits[0][0]
    # a pg_monitor member may take snapshots but not write the tables
    pg.sql("CREATE ROLE cache_mon LOGIN IN ROLE pg_monitor")
    assert pg.scalar("SELECT pgbench_lab.cache_snapshot()", user="cache_mon") > sid2
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        pg.sql("INSERT INTO pgbench_lab.cache_snapshots (taken_at, datname)"
               " VALUES (now(), 'x')", user="cache_mon")
    # pg_dump keeps the snapshots
    dump = pg.run_client("pg_dump", "-d", "postgres", "--data-only", "-t",
                         "pgbench_lab.cache_snapshots").stdout
    assert "before" in dump and "after" in dump
