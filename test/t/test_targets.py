"""Runs against a primary and its real hot standby (pg_basebackup -R): a
write workload is refused on a standby before anything starts (25006),
and with targets => a run's clients are spread over several servers,
measured together and per target.  Short runs; nothing asserts a speed."""
import psycopg
import pytest

from conftest import Standby, pgbench_cluster


@pytest.fixture(scope="module")
def pair():
    for primary in pgbench_cluster("tprimary", {"shared_buffers": "32MB"}, scale=1):
        standby = Standby(primary, "tstandby")
        try:
            standby.start()
            primary.poll("SELECT count(*) = 1 FROM pg_stat_replication WHERE state = 'streaming'")
            yield primary, standby
        finally:
            standby.destroy()


def conninfo(c, extra=""):
    return f"host=127.0.0.1 port={c.port} dbname=postgres user=postgres {extra}".strip()


def runs(c):
    return c.scalar("SELECT count(*) FROM pgbench_lab.runs")


def refused(c, query, params, sqlstate):
    """The statement fails with sqlstate and no run was recorded; the error."""
    before = runs(c)
    with c.connect() as conn:
        with pytest.raises(psycopg.Error) as e:
            conn.execute(query, params)
    assert e.value.sqlstate == sqlstate, e.value
    assert runs(c) == before
    return e.value


def test_write_workload_refused_on_a_standby(pair):
    primary, standby = pair
    for workload in ("tpcb-like", "simple-update"):
        e = refused(primary, "SELECT pgbench_lab.start(%s, 1, '1 s', via => 'libpq', target => %s)",
                    (workload, conninfo(standby)), "25006")
        assert "the target is a standby (in recovery) and the run's workload writes" in str(e), e
        assert e.diag.message_detail == f"the built-in workload {workload} writes.", e.diag.message_detail
        hint = e.diag.message_hint
        assert hint.startswith(f"Run it against the primary (this standby streams from host=127.0.0.1 "
                               f"port={primary.port})"), hint
    # a script that writes, even inside WITH, and one that locks rows
    for script, word in (("WITH x AS (UPDATE pgbench_branches SET bbalance = 0 RETURNING 1) SELECT * FROM x",
                          "UPDATE"),
                         ("SELECT abalance FROM pgbench_accounts WHERE aid = 1 FOR SHARE", "SHARE"),
                         ("\\set aid random(1, 100000)\nBEGIN;\nSELECT 1;\nCREATE TEMP TABLE t (a int);\nEND;",
                          "CREATE")):
        e = refused(primary, "SELECT pgbench_lab.start(script => %s, duration => '1 s', via => 'libpq', "
                    "target => %s)", (script, conninfo(standby)), "25006")
        assert f"script \"script\", line" in e.diag.message_detail and word in e.diag.message_detail, \
            e.diag.message_detail
    # nothing reached the standby: no run's client ever connected there
    assert standby.scalar("SELECT count(*) FROM pg_stat_activity WHERE application_name = 'pgbench_lab' "
                          "AND backend_type = 'client backend'") == 0


def test_reading_workloads_run_on_a_standby(pair):
    primary, standby = pair
    script = ("\\set aid random(1, 100000 * :scale)\n"
              "-- a comment that says update is not a statement\n"
              "SELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n"
              "WITH b AS (SELECT 'insert' AS word) SELECT * FROM b;\n")
    with primary.connect() as conn:
        for kw in ({"w": "select-only", "script": None}, {"w": None, "script": script}):
            row = conn.execute("CALL pgbench_lab.run(%(w)s, 2, '1 s', via => 'libpq', target => %(t)s, "
                               "script => %(script)s)", dict(kw, t=conninfo(standby))).fetchone()
            assert row[1] == "done" and row[2] > 0, row
