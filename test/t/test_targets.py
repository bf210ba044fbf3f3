"""Runs against a primary and its real hot standby (pg_basebackup -R): a
write workload is refused on a standby before anything starts (25006),
and with targets => a run's clients are spread over several servers,
measured together and per target.  Short runs; nothing asserts a speed."""
import psycopg
import pytest

from conftest import mute_server, primary_and_standby


@pytest.fixture(scope="module")
def pair():
    yield from primary_and_standby("tprimary", "tstandby", scale=1)


def conninfo(c, extra=""):
    return f"host=127.0.0.1 port={c.port} dbname=postgres user=postgres {extra}".strip()


def display(c):
    """A target as runs and run_targets show it: libpq's order, no password."""
    return f"user='postgres' dbname='postgres' host='127.0.0.1' port='{c.port}'"


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


def targets(*clusters):
    return [conninfo(c) for c in clusters]


def per_target(c, run_id):
    return c.sql("SELECT target, target_display, server_version, in_recovery, clients, clients_failed, "
                 "transactions, failures, tps, error FROM pgbench_lab.run_targets WHERE run_id = %s "
                 "ORDER BY target", (run_id,))


def test_split_run_over_a_primary_and_its_standby(pair):
    primary, standby = pair
    with primary.connect() as conn:
        row = conn.execute("CALL pgbench_lab.run('select-only', 4, '2 s', via => 'libpq', threads => 2, "
                           "targets => %s)", (targets(primary, standby),)).fetchone()
    assert row[1] == "done" and row[2] > 0, row
    rid = row[0]
    rows = per_target(primary, rid)
    assert [(r[0], r[1], r[3], r[4], r[5]) for r in rows] == [
        (1, display(primary), False, 2, 0), (2, display(standby), True, 2, 0)], rows
    # the facts come from each server itself, the figures add up to the run's
    assert rows[0][2] == primary.scalar("SHOW server_version") == standby.scalar("SHOW server_version")
    assert all(r[6] > 0 for r in rows) and sum(r[6] for r in rows) == row[2], (rows, row)
    secs, tps, shown = primary.sql("SELECT measured_seconds, tps, target_display FROM pgbench_lab.runs "
                                     "WHERE run_id = %s", (rid,))[0]
    assert abs(sum(r[8] for r in rows) - tps) < 1e-6 * tps, (rows, tps)
    assert shown == "; ".join(r[1] for r in rows)
    lines = [r[0] for r in primary.sql("SELECT * FROM pgbench_lab.report(%s)", (rid,))]
    assert "Targets (client i went to target (i - 1) % n + 1; the same measured interval for all)" in lines, "\n".join(lines)
    i = lines.index("Targets (client i went to target (i - 1) % n + 1; the same measured interval for all)")
    assert lines[i + 1] == f"  1  {rows[0][1]}" and "not in recovery; 2 clients" in lines[i + 2], lines[i:i + 5]
    assert lines[i + 3] == f"  2  {rows[1][1]}" and "a standby (in recovery); 2 clients" in lines[i + 4]


def test_split_run_writes_on_the_primary_and_reads_on_the_standby(pair):
    """Scripts that write and scripts that read, over a primary and its
    standby: the primary's clients run only tpcb-like, the standby's only
    select-only, each target's figures are its own scripts'."""
    primary, standby = pair
    primary.sql("TRUNCATE pgbench_history")
    with primary.connect() as conn:
        row = conn.execute("CALL pgbench_lab.run(scripts => ARRAY['tpcb-like', 'select-only@5'], clients => 4, "
                           "duration => '2 s', via => 'libpq', threads => 2, targets => %s)",
                           (targets(primary, standby),)).fetchone()
    assert row[1] == "done" and row[2] > 0, row
    rid = row[0]
    rows = primary.sql("SELECT target, in_recovery, scripts, transactions FROM pgbench_lab.run_targets "
                       "WHERE run_id = %s ORDER BY target", (rid,))
    assert [r[:3] for r in rows] == [(1, False, ["tpcb-like"]), (2, True, ["select-only"])], rows
    per_script = dict(primary.sql("SELECT name, transactions FROM pgbench_lab.run_scripts WHERE run_id = %s",
                                  (rid,)))
    # every tpcb-like transaction was the primary's, each one history row
    assert per_script["tpcb-like"] == rows[0][3] == primary.scalar("SELECT count(*) FROM pgbench_history") > 0
    assert per_script["select-only"] == rows[1][3] > 0, (per_script, rows)
    lines = [r[0] for r in primary.sql("SELECT * FROM pgbench_lab.report(%s)", (rid,))]
    assert "     split run: its clients ran only the scripts that write: tpcb-like" in lines, lines
    assert "     split run: its clients ran only the scripts that read: select-only" in lines, lines
    # nothing to split without a primary, or without a weight on one side
    e = refused(primary, "SELECT pgbench_lab.start(scripts => ARRAY['tpcb-like', 'select-only'], clients => 2, "
                "duration => '1 s', via => 'libpq', targets => %s)", (targets(standby, standby)[:1],), "25006")
    assert "the run's targets are all standbys (in recovery) and some of its scripts write" in str(e), e
    assert e.diag.message_hint.startswith("Add the primary to targets"), e.diag.message_hint
    e = refused(primary, "SELECT pgbench_lab.start(scripts => ARRAY['tpcb-like', 'select-only@0'], clients => 2, "
                "duration => '1 s', via => 'libpq', targets => %s)", (targets(primary, standby),), "22023")
    assert "the scripts that read have a weight of 0 in all" in str(e), e


def test_target_clients_give_each_server_its_block(pair):
    """One writer on the primary, three readers on the standby: clients 1
    to 1 go to targets[1], 2 to 4 to targets[2]."""
    primary, standby = pair
    with primary.connect() as conn:
        row = conn.execute("CALL pgbench_lab.run(scripts => ARRAY['tpcb-like', 'select-only'], clients => 4, "
                           "duration => '1 s', via => 'libpq', threads => 2, targets => %s, "
                           "target_clients => '{1,3}')", (targets(primary, standby),)).fetchone()
    assert row[1] == "done" and row[2] > 0, row
    rows = primary.sql("SELECT target, clients, first_client, scripts, transactions > 0 FROM pgbench_lab.run_targets "
                       "WHERE run_id = %s ORDER BY target", (row[0],))
    assert rows == [(1, 1, 1, ["tpcb-like"], True), (2, 3, 2, ["select-only"], True)], rows
    lines = [r[0] for r in primary.sql("SELECT * FROM pgbench_lab.report(%s)", (row[0],))]
    i = lines.index("Targets (each took a block of clients, as target_clients gave; the same measured interval for all)")
    assert "; 1 client (1 to 1), " in lines[i + 2] and "; 3 clients (2 to 4), " in lines[i + 5], lines[i:i + 7]
    p, s = targets(primary, standby)
    start = ("SELECT pgbench_lab.start('select-only', %s, '1 s', via => 'libpq', targets => %s, "
             "target_clients => %s::int[])")
    for args, state, msg in [
            ((2, None, [1, 1]), "22023", "target_clients needs targets"),
            ((2, [p, s], [2]), "22023", "target_clients must have one element per target (2), not 1"),
            ((2, [p, s], [0, 2]), "22023", "target_clients[1] must be at least 1, not 0"),
            ((2, [p, s], [1, None]), "22004", "target_clients[2] must not be NULL"),
            ((2, [p, s], [1, 2]), "22023", "target_clients add up to 3, clients is 2")]:
        e = refused(primary, start, args, state)
        assert msg in str(e), (args, e)


def test_write_workload_with_a_standby_among_targets_is_refused(pair):
    primary, standby = pair
    e = refused(primary, "SELECT pgbench_lab.start('tpcb-like', 2, '1 s', via => 'libpq', targets => %s)",
                (targets(primary, standby),), "25006")
    assert "targets[2] is a standby (in recovery)" in str(e), e
    assert e.diag.context == f"targets[2]: {display(standby)}", e.diag.context


def test_bad_targets_are_refused_before_anything_starts(pair):
    import time
    primary, standby = pair
    p, s = conninfo(primary), conninfo(standby)
    start = "SELECT pgbench_lab.start('select-only', %s, '1 s', via => %s, target => %s, targets => %s)"
    cases = [
        ((2, "libpq", None, []), "22023", "targets must not be empty"),
        ((2, "libpq", None, [p, None]), "22004", "targets[2] must not be NULL"),
        ((3, "libpq", None, [p, s, p]), "22023", "targets[3] is the same as targets[1]"),
        ((2, "libpq", p, [p, s]), "22023", "give target or targets, not both"),
        ((2, "spi", None, [p, s]), "22023", "via spi cannot run against targets"),
        ((1, "libpq", None, [p, s]), "22023", "1 clients cannot cover 2 targets"),
        ((9, "libpq", None, [f"{p} application_name=x{i}" for i in range(9)]), "22023",
         "9 targets is above the limit of 8"),
        ((2, "libpq", None, [p, "host=127.0.0.1 connect_timeout=x"]), "22023", "invalid targets[2]"),
        ((2, "libpq", None, [p, "host=127.0.0.1 port=x"]), "08001", 'invalid integer value "x"'),
    ]
    for args, state, msg in cases:
        e = refused(primary, start, args, state)
        assert msg in str(e), (args, e)
    # a target that never answers: connect_timeout is honoured, the run never starts
    with mute_server() as dead:
        t0 = time.monotonic()
        e = refused(primary, start, (2, "libpq", None, [p, dead]), "08001")
        assert time.monotonic() - t0 < 15, "connect_timeout not honoured"
        assert "timeout expired after 2 s" in str(e) and "targets[2]" in e.diag.context, e
    # the same privilege rule as target, for every element: a role that is
    # not a superuser gives a password in each
    primary.sql("DO $$BEGIN CREATE ROLE tgt_alice LOGIN PASSWORD 'pw-alice-1'; "
                "EXCEPTION WHEN duplicate_object THEN NULL; END$$")
    primary.sql("GRANT EXECUTE ON FUNCTION pgbench_lab.start TO tgt_alice")
    before = runs(primary)
    with primary.connect() as conn:
        conn.execute("SET ROLE tgt_alice")
        with pytest.raises(psycopg.Error) as e:
            conn.execute("SELECT pgbench_lab.start('select-only', 2, '1 s', via => 'libpq', targets => %s)",
                         ([f"{p} password=pw-alice-1", s],))
    assert e.value.sqlstate == "2F003" and "password is required" in str(e.value), e.value
    assert runs(primary) == before


def test_hit_ratio_over_libpq_is_read_here_only_for_this_server(pair):
    """A libpq run's clients count no buffers (their backends do): to this
    server's database, by its own socket or by a target naming it, the
    run's hits and reads are the database's pg_stat_database over the run,
    read once the run's backends have gone; to another server (the
    standby) the hit ratio stays empty and report() says why."""
    primary, standby = pair
    for target in (None, conninfo(primary)):
        with primary.connect() as conn:
            rid, status = conn.execute("CALL pgbench_lab.run('select-only', clients => 2, transactions => 100, "
                                       "via => 'libpq', target => %s)", (target,)).fetchone()[:2]
        assert status == "done"
        hit, read, ratio, xacts = primary.sql("SELECT blks_hit, blks_read, hit_ratio, transactions "
                                              "FROM pgbench_lab.runs WHERE run_id = %s", (rid,))[0]
        # every select-only transaction reads an index and a heap page
        assert xacts == 200 and hit + read >= 2 * xacts and 0 < ratio <= 1, (target, hit, read, ratio)
        assert primary.scalar("SELECT hit_ratio_pct FROM pgbench_lab.compare(ARRAY[%s]::bigint[])", (rid,)) is not None
        lines = [r[0] for r in primary.sql("SELECT * FROM pgbench_lab.report(%s)", (rid,))]
        assert any("the database's over the run (pg_stat_database" in x for x in lines), lines
    with primary.connect() as conn:
        rid = conn.execute("CALL pgbench_lab.run('select-only', clients => 1, transactions => 20, "
                           "via => 'libpq', target => %s)", (conninfo(standby),)).fetchone()[0]
    assert primary.sql("SELECT blks_hit, blks_read, hit_ratio FROM pgbench_lab.runs WHERE run_id = %s",
                       (rid,))[0] == (0, 0, None)
    lines = [r[0] for r in primary.sql("SELECT * FROM pgbench_lab.report(%s)", (rid,))]
    assert any("hit ratio not measured: over libpq it is read here only when" in x for x in lines), lines


def test_a_standby_stopped_mid_run_fails_its_clients_only(pair):
    """Last in the module: it stops the standby."""
    primary, standby = pair
    rid = primary.scalar("SELECT pgbench_lab.start('select-only', 2, '3 s', via => 'libpq', targets => %s)",
                         (targets(primary, standby),))
    primary.poll("SELECT count(*) >= 1 FROM pgbench_lab.run_progress WHERE run_id = %s", (rid,))
    standby.stop("immediate")
    with primary.connect() as conn:
        row = conn.execute("CALL pgbench_lab.wait(%s)", (rid,)).fetchone()
    status, secs, error = primary.sql("SELECT status, measured_seconds, error FROM pgbench_lab.runs "
                                      "WHERE run_id = %s", (rid,))[0]
    assert status == "failed" and row[1] == "failed", (status, row)
    assert error.startswith(f"client 2 (targets[2]: {display(standby)}): "), error
    rows = per_target(primary, rid)
    assert rows[0][5] == 0 and rows[0][9] is None and rows[0][6] > 0, rows
    assert rows[1][5] == 1 and rows[1][9].startswith("client 2: "), rows
    # the primary's client went on to the end of the run
    assert secs >= 2.5, secs
    last = primary.scalar("SELECT transactions FROM pgbench_lab.run_progress WHERE run_id = %s "
                          "ORDER BY second DESC LIMIT 1 OFFSET 1", (rid,))
    assert last > 0
