"""Every experiment kind takes run()'s options: sweep, compare_settings,
validate_recommendation and latency_curve run over libpq (this server's own
socket) and over targets (a primary and its hot standby, read-only
scripts), and their runs record the path and the servers they went to;
cold_vs_warm runs over libpq to this server and is refused over a target
(this server makes only its own caches cold); each combination a kind
refuses is refused before anything runs or is recorded, with its SQLSTATE
and a hint.  Runs of 1 s; nothing asserts a speed."""
import psycopg
import psycopg.sql
import pytest

from conftest import primary_and_standby


@pytest.fixture(scope="module")
def pair():
    yield from primary_and_standby("kprimary", "kstandby", scale=1)


def conninfo(c):
    return f"host=127.0.0.1 port={c.port} dbname=postgres user=postgres"


def display(c):
    return f"user='postgres' dbname='postgres' host='127.0.0.1' port='{c.port}'"


def call(c, sql, params=None):
    """CALL a procedure; its result row as a dict."""
    with c.connect() as conn:
        cur = conn.execute(sql, params)
        return dict(zip([d.name for d in cur.description], cur.fetchone()))


def counts(c):
    return c.sql("SELECT (SELECT count(*) FROM pgbench_lab.runs), (SELECT count(*) FROM pgbench_lab.experiments)")[0]


def runs(c, eid):
    """The experiment's status and its runs: (status, via, random_seed,
    sample_rate, target_display) in the order they ran."""
    status = c.scalar("SELECT status FROM pgbench_lab.experiments WHERE experiment_id = %s", (eid,))
    rows = c.sql("SELECT r.status, r.via, r.random_seed, r.sample_rate, r.target_display, r.run_id "
                 "FROM pgbench_lab.experiment_runs x JOIN pgbench_lab.runs r USING (run_id) "
                 "WHERE x.experiment_id = %s ORDER BY x.ordinal", (eid,))
    return status, rows


def servers(c, rid):
    """The servers a run's clients went to, as run_targets has them."""
    return c.sql("SELECT target, target_display, in_recovery, transactions > 0 FROM pgbench_lab.run_targets "
                 "WHERE run_id = %s ORDER BY target", (rid,))


def assert_over_libpq(c, eid, nruns, seed=None):
    status, rows = runs(c, eid)
    assert status == "done" and len(rows) == nruns, (status, rows)
    for st, via, rs, _, shown, rid in rows:
        assert (st, via) == ("done", "libpq"), rows
        if seed is not None:
            assert rs == seed, rows
        # this server's own socket: one server, not in recovery
        assert [(t, rec) for t, _, rec, _ in servers(c, rid)] in ([], [(1, False)]), servers(c, rid)


def assert_over_targets(c, eid, nruns, primary, standby):
    status, rows = runs(c, eid)
    assert status == "done" and len(rows) == nruns, (status, rows)
    for st, via, _, _, shown, rid in rows:
        assert (st, via) == ("done", "libpq"), rows
        assert shown == f"{display(primary)}; {display(standby)}", shown
        assert servers(c, rid) == [(1, display(primary), False, True), (2, display(standby), True, True)], \
            servers(c, rid)
    params = c.scalar("SELECT params FROM pgbench_lab.experiments WHERE experiment_id = %s", (eid,))
    # the conninfos (which may hold passwords) stay out of the parameters
    assert params["targets"] == 2 and params["via"] == "libpq" and "port=" not in str(params), params


def refused(c, sql, params, sqlstate, *words):
    """The CALL fails with sqlstate, its message holds words, and nothing
    was run or recorded; the error."""
    before = counts(c)
    with c.connect() as conn:
        with pytest.raises(psycopg.Error) as e:
            conn.execute(sql, params)
    assert e.value.sqlstate == sqlstate, e.value
    for w in words:
        assert w in str(e.value), e.value
    assert e.value.diag.message_hint, e.value
    assert "seed" not in e.value.diag.message_hint.lower(), e.value.diag.message_hint
    assert counts(c) == before
    return e.value


# -- each kind over libpq and over targets ---------------------------------------

def test_sweep_over_libpq_and_targets(pair):
    primary, standby = pair
    r = call(primary, "CALL pgbench_lab.sweep('select-only', clients => '{1,2}', duration => '1 s', "
                      "via => 'libpq', random_seed => 11, sample_rate => 0.5, max_tries => 2)")
    assert_over_libpq(primary, r["experiment_id"], 2, seed=11)
    _, rows = runs(primary, r["experiment_id"])
    assert all(row[3] == 0.5 for row in rows), rows
    assert primary.scalar("SELECT bool_and(max_tries = 2) FROM pgbench_lab.runs r JOIN pgbench_lab.experiment_runs x "
                          "USING (run_id) WHERE x.experiment_id = %s", (r["experiment_id"],))
    r = call(primary, "CALL pgbench_lab.sweep(clients => '{2,4}', duration => '1 s', threads => 2, "
                      "script => %s, targets => %s)",
             ("\\set aid random(1, 100000 * :scale)\nSELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n",
              [conninfo(primary), conninfo(standby)]))
    assert_over_targets(primary, r["experiment_id"], 2, primary, standby)
    assert primary.scalar("SELECT workload FROM pgbench_lab.experiments WHERE experiment_id = %s",
                          (r["experiment_id"],)) == "script"


def test_compare_settings_over_libpq_and_targets(pair):
    primary, standby = pair
    sets = ['{}', '{"jit": "off"}']
    r = call(primary, "CALL pgbench_lab.compare_settings('select-only', %s::jsonb[], clients => 2, "
                      "duration => '1 s', rounds => 1, via => 'libpq', threads => 2, random_seed => 5)", (sets,))
    assert_over_libpq(primary, r["experiment_id"], 2, seed=5)
    # each set's session settings went with its runs
    got = primary.sql("SELECT r.settings->'session'->>'jit' FROM pgbench_lab.experiment_runs x JOIN pgbench_lab.runs r "
                      "USING (run_id) WHERE x.experiment_id = %s ORDER BY x.ordinal", (r["experiment_id"],))
    assert got[1] == ("off",), got
    r = call(primary, "CALL pgbench_lab.compare_settings('select-only', %s::jsonb[], clients => 2, "
                      "duration => '1 s', rounds => 1, targets => %s)", (sets, [conninfo(primary), conninfo(standby)]))
    assert_over_targets(primary, r["experiment_id"], 2, primary, standby)
    assert "B (jit=off) against A" in r["finding"], r


def test_latency_curve_over_libpq_and_targets(pair):
    primary, standby = pair
    r = call(primary, "CALL pgbench_lab.latency_curve('select-only', clients => 1, duration => '1 s', "
                      "rates => '{20}', target_ms => 1000, runs => 1, repeats => 0, via => 'libpq', latency_limit => '1 s')")
    assert_over_libpq(primary, r["experiment_id"], 2)
    assert primary.sql("SELECT r.rate, r.latency_limit IS NOT NULL FROM pgbench_lab.experiment_runs x "
                       "JOIN pgbench_lab.runs r USING (run_id) WHERE x.experiment_id = %s ORDER BY x.ordinal",
                       (r["experiment_id"],)) == [(None, True), (20.0, True)]
    r = call(primary, "CALL pgbench_lab.latency_curve('select-only', clients => 2, duration => '1 s', "
                      "rates => '{20}', target_ms => 1000, runs => 1, repeats => 0, targets => %s, target_clients => '{1,1}')",
             ([conninfo(primary), conninfo(standby)],))
    assert_over_targets(primary, r["experiment_id"], 2, primary, standby)


def measurable_session_changes(c):
    return c.scalar("SELECT count(*) FROM pgbench_lab.recommend() "
                    "WHERE changes AND within_limits AND context = 'session'")


def test_validate_recommendation_over_libpq_and_targets(pair):
    primary, standby = pair
    if not measurable_session_changes(primary) and not primary.scalar(
            "SELECT count(*) FROM pgbench_lab.recommend() WHERE changes AND within_limits AND context = 'reload'"):
        pytest.skip("recommend() proposes no session- or reload-level change on this machine")
    before = primary.sql("SELECT pg_read_file('postgresql.auto.conf')")[0][0]
    r = call(primary, "CALL pgbench_lab.validate_recommendation('select-only', clients => 1, duration => '1 s', "
                      "rounds => 1, via => 'libpq')")
    status, rows = runs(primary, r["experiment_id"])
    assert_over_libpq(primary, r["experiment_id"], len(rows))
    assert len(rows) >= 2 and primary.sql("SELECT pg_read_file('postgresql.auto.conf')")[0][0] == before
    if not measurable_session_changes(primary):
        pytest.skip("recommend() proposes no session-level change on this machine")
    r = call(primary, "CALL pgbench_lab.validate_recommendation('select-only', clients => 2, duration => '1 s', "
                      "rounds => 1, targets => %s)", ([conninfo(primary), conninfo(standby)],))
    assert_over_targets(primary, r["experiment_id"], 2, primary, standby)
    # the reload-level ones were listed, not measured: ALTER SYSTEM here would not reach the targets
    if primary.scalar("SELECT count(*) FROM pgbench_lab.recommend() WHERE changes AND within_limits "
                      "AND context = 'reload'"):
        assert "reload-level, and the runs went to another server" in r["finding"], r["finding"]
    assert "CALL pgbench_lab.compare_settings(" not in r["finding"], r["finding"]


def test_cold_vs_warm_over_libpq_runs_and_over_a_target_is_refused(pair):
    primary, standby = pair
    r = call(primary, "CALL pgbench_lab.cold_vs_warm('select-only', duration => '1 s', via => 'libpq', "
                      "random_seed => 3)")
    assert_over_libpq(primary, r["experiment_id"], 3, seed=3)
    for arg, value in (("target", conninfo(standby)), ("targets", [conninfo(primary), conninfo(standby)]),
                       ("target", conninfo(primary))):
        e = refused(primary, f"CALL pgbench_lab.cold_vs_warm('select-only', duration => '1 s', {arg} => %s)",
                    (value,), "0A000", "cold_vs_warm cannot take target or targets")
        assert "via => 'libpq' and no target" in e.diag.message_hint, e.diag.message_hint


def test_connection_cost_over_targets(pair):
    primary, standby = pair
    r = call(primary, "CALL pgbench_lab.connection_cost('select-only', clients => 2, duration => '1 s', "
                      "threads => 2, targets => %s)", ([conninfo(primary), conninfo(standby)],))
    rows = primary.sql("SELECT r.via, r.status, (SELECT count(*) FROM pgbench_lab.run_targets t WHERE t.run_id = r.run_id) "
                       "FROM pgbench_lab.runs r WHERE r.run_id IN (%s, %s, %s) ORDER BY r.run_id",
                       (r["spi_run_id"], r["libpq_run_id"], r["connect_run_id"]))
    assert rows == [("spi", "done", 0), ("libpq", "done", 2), ("libpq-connect", "done", 2)], rows


# -- refusals ---------------------------------------------------------------------

def test_refusals(pair):
    primary, standby = pair
    both = [conninfo(primary), conninfo(standby)]
    e = refused(primary, "CALL pgbench_lab.sweep('select-only', clients => '{1,2}', duration => '1 s', rate => 100)",
                None, "22023", "sweep cannot take rate")
    assert "latency_curve()" in e.diag.message_hint
    e = refused(primary, "CALL pgbench_lab.sweep('select-only', clients => '{2,4}', duration => '1 s', "
                         "targets => %s, target_clients => '{1,1}')", (both,), "22023", "sweep cannot take target_clients")
    assert e.diag.message_hint.startswith("Leave target_clients out"), e.diag.message_hint
    refused(primary, "CALL pgbench_lab.latency_curve('select-only', duration => '1 s', rate => 100)",
            None, "22023", "latency_curve cannot take rate")
    refused(primary, "CALL pgbench_lab.connection_cost('select-only', duration => '1 s', via => 'libpq')",
            None, "22023", "connection_cost cannot take via")
    refused(primary, "CALL pgbench_lab.connection_cost('select-only', duration => '1 s', rate => 100)",
            None, "22023", "connection_cost cannot take rate")
    # ALTER SYSTEM and restarts change this server, not the targets
    e = refused(primary, "CALL pgbench_lab.compare_settings('select-only', "
                         "ARRAY['{}', '{\"checkpoint_timeout\": \"10min\"}']::jsonb[], duration => '1 s', "
                         "targets => %s)", (both,), "0A000", "reload-level settings over target or targets",
                "checkpoint_timeout")
    assert e.diag.message_hint.startswith("Session settings travel with the runs' connections"), e.diag.message_hint
    refused(primary, "CALL pgbench_lab.compare_settings('select-only', "
                     "ARRAY['{}', '{\"checkpoint_timeout\": \"10min\"}']::jsonb[], duration => '1 s', "
                     "target => %s)", (conninfo(standby),), "0A000", "reload-level settings over target or targets")
    refused(primary, "CALL pgbench_lab.compare_settings('select-only', restart_settings => '{\"shared_buffers\": \"64MB\"}', "
                     "duration => '1 s', target => %s)", (conninfo(standby),), "0A000",
            "restart_settings over target or targets")
    # what run() refuses, a step refuses before anything runs
    refused(primary, "CALL pgbench_lab.compare_settings('select-only', ARRAY['{}', '{\"jit\": \"off\"}']::jsonb[], "
                     "duration => '1 s', threads => 2)", None, "22023")


def test_sweep_target_clients_that_fit(pair):
    """A sweep whose one count is what target_clients add up to runs."""
    primary, standby = pair
    r = call(primary, "CALL pgbench_lab.sweep('select-only', clients => '{3}', duration => '1 s', "
                      "targets => %s, target_clients => '{1,2}')", ([conninfo(primary), conninfo(standby)],))
    _, rows = runs(primary, r["experiment_id"])
    assert rows[0][0] == "done", rows
    assert primary.sql("SELECT target, clients FROM pgbench_lab.run_targets WHERE run_id = %s ORDER BY target",
                       (rows[0][5],)) == [(1, 1), (2, 2)]


def test_validate_recommendation_over_targets_needs_a_session_level_change(pair):
    """With recommend()'s session-level values live, nothing is left that
    travels to the targets: refused (55000), with a hint naming what works.
    Run last: it changes the primary's settings, and puts them back."""
    primary, standby = pair
    names = primary.sql("SELECT name, recommended FROM pgbench_lab.recommend() "
                        "WHERE changes AND within_limits AND context = 'session'")
    try:
        for name, value in names:
            primary.sql(psycopg.sql.SQL("ALTER SYSTEM SET {} = {}").format(
                psycopg.sql.Identifier(name), psycopg.sql.Literal(value)))
        primary.sql("SELECT pg_reload_conf()")
        primary.poll("SELECT count(*) = 0 FROM pgbench_lab.recommend() "
                     "WHERE changes AND within_limits AND context = 'session'")
        e = refused(primary, "CALL pgbench_lab.validate_recommendation('select-only', clients => 2, "
                             "duration => '1 s', rounds => 1, targets => %s)",
                    ([conninfo(primary), conninfo(standby)],), "55000",
                    "only those can be measured over target or targets")
        assert "via => 'libpq' and no target" in e.diag.message_hint, e.diag.message_hint
    finally:
        for name, _ in names:
            primary.sql(psycopg.sql.SQL("ALTER SYSTEM RESET {}").format(psycopg.sql.Identifier(name)))
        primary.sql("SELECT pg_reload_conf()")
