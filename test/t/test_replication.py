"""A primary and a real hot standby (pg_basebackup -R, streaming): every
second of a run on the primary records each standby's lag behind it
(pgbench_lab.run_replication, from pg_stat_replication), cross-checked with
the standby's own replay position; with the standby's replay paused the
lag grows and report() says so, resumed it stays bounded.  Nothing here
asserts a speed."""
import pytest

from conftest import Background, call_run as run, primary_and_standby


@pytest.fixture(scope="module")
def pair():
    yield from primary_and_standby("primary", "standby1", scale=2)


def lags(c, run_id):
    return c.sql("""SELECT second, standby, client_addr, state, replay_lag_bytes, replay_lag_ms,
                           sent_lag_bytes, flush_lag_bytes
                      FROM pgbench_lab.run_replication WHERE run_id = %s ORDER BY second""", (run_id,))


def report(c, run_id):
    return [r[0] for r in c.sql("SELECT * FROM pgbench_lab.report(%s)", (run_id,))]


def test_each_second_records_the_standby(pair):
    primary, standby = pair
    rid = run(primary, "tpcb-like", clients=2, duration="3 s")
    rows = lags(primary, rid)
    seconds = [s for (s,) in primary.sql("SELECT second FROM pgbench_lab.run_telemetry WHERE run_id = %s "
                                         "ORDER BY second", (rid,))]
    assert [r[0] for r in rows] == seconds, rows
    pid = primary.scalar("SELECT pid FROM pg_stat_replication")
    assert all(r[1] == f"standby1 ({pid})" and r[2] == "127.0.0.1" and r[3] == "streaming" for r in rows), rows
    assert all(r[4] is not None and r[4] >= 0 and r[6] <= r[7] <= r[4] for r in rows), rows
    lines = report(primary, rid)
    i = next(i for i, x in enumerate(lines) if x.startswith("Standbys:"))
    assert lines[i + 1].startswith(f"  standby1 ({pid}) │")
    assert lines[i + 2].rstrip().endswith(": bounded"), lines[i + 2]
    # a run on a server without standbys records none
    assert standby.scalar("SELECT pg_is_in_recovery()") is True


def test_paused_replay_grows_the_lag_and_resumed_it_is_bounded(pair):
    primary, standby = pair
    standby.sql("SELECT pg_wal_replay_pause()")
    try:
        standby.poll("SELECT pg_get_wal_replay_pause_state() = 'paused'")
        rid = run(primary, "tpcb-like", clients=2, duration="4 s")
        rows = [r for r in lags(primary, rid) if r[4] is not None]
        assert len(rows) >= 3, rows
        growth = [r[4] for r in rows]
        assert growth == sorted(growth) and growth[-1] > growth[0] > 0, growth
        # the standby's own replay position: it has not moved, so the
        # primary's WAL beyond it is at least the last lag recorded
        behind = primary.scalar("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), %s::pg_lsn)",
                                (standby.scalar("SELECT pg_last_wal_replay_lsn()::text"),))
        assert growth[-1] <= behind and growth[-1] >= behind / 2, (growth, behind)
        text = "\n".join(report(primary, rid))
        assert "growing (it ended at its largest): the standby did not keep up" in text, text
    finally:
        standby.sql("SELECT pg_wal_replay_resume()")
    primary.poll("SELECT replay_lsn = pg_current_wal_lsn() FROM pg_stat_replication")
    rid = run(primary, "tpcb-like", clients=2, duration="3 s")
    rows = lags(primary, rid)
    assert max(r[4] for r in rows) < growth[-1], (rows, growth)
    assert any(x.rstrip().endswith(": bounded") for x in report(primary, rid))


def test_without_standbys_nothing_is_recorded(pair, new_cluster):
    primary, standby = pair
    # the standby itself has no standbys; a primary whose standby stopped neither
    rid = run(primary, "select-only", clients=1, duration="1 s", settings='{"pgbench_lab.telemetry": "off"}')
    assert lags(primary, rid) == [], "telemetry off records no lag either"


@pytest.mark.parametrize("stats", [False, True])
def test_a_role_records_what_pg_stat_replication_shows_it(pair, stats):
    """The coordinator reads pg_stat_replication as the extension's owner,
    but a run's rows hold only what the run's role sees there itself: the
    standby's name always; its WAL sender's state, positions and lags, and
    the client address of a WAL sender of another role, only with the
    privileges of pg_read_all_stats."""
    primary, _ = pair
    role = "lagstats" if stats else "lagnone"
    primary.sql(f"CREATE ROLE {role} LOGIN")
    primary.sql(f"GRANT SELECT, INSERT, UPDATE ON pgbench_accounts, pgbench_branches, pgbench_tellers, "
                f"pgbench_history TO {role}")
    primary.sql(f"GRANT EXECUTE ON PROCEDURE pgbench_lab.run TO {role}")
    if stats:
        primary.sql(f"GRANT pg_read_all_stats TO {role}")
    seen = primary.sql("SELECT state IS NOT NULL, replay_lsn IS NOT NULL, client_addr IS NOT NULL "
                       "FROM pg_stat_replication", user=role)
    assert seen == [(stats, stats, stats)], seen
    row = primary.sql("CALL pgbench_lab.run('tpcb-like', clients => 1, duration => '2 s')", user=role)[0]
    assert row[1] == "done", row
    rows = lags(primary, row[0])
    pid = primary.scalar("SELECT pid FROM pg_stat_replication")
    assert rows and all(r[1] == f"standby1 ({pid})" for r in rows), rows
    if stats:
        assert all(r[2] == "127.0.0.1" and r[3] == "streaming" and r[4] is not None for r in rows), rows
    else:
        assert all(r[2:] == (None,) * 6 for r in rows), rows
        nulls = primary.scalar("SELECT bool_and(num_nulls(sync_state, write_lag_bytes, write_lag_ms, "
                               "flush_lag_ms, replay_lag_ms) = 5) FROM pgbench_lab.run_replication "
                               "WHERE run_id = %s", (row[0],))
        assert nulls is True
    text = report(primary, row[0])
    i = text.index(next(x for x in text if x.startswith("Standbys:")))
    if stats:
        assert text[i + 2].startswith("    127.0.0.1: replay lag up to "), text[i:i + 3]
    else:
        assert text[i + 1:i + 3] == [f"  standby1 ({pid})",
                                     f"    address not shown: lag not recorded: the run's role {role} may not "
                                     "see the WAL senders' positions in pg_stat_replication (members of "
                                     "pg_read_all_stats do)"], text[i:i + 3]


def test_export_import_carry_the_standbys_lag(pair, new_cluster):
    import json
    primary, _ = pair
    rid = run(primary, "tpcb-like", clients=1, duration="2 s")
    doc = primary.scalar("SELECT pgbench_lab.export(ARRAY[%s::bigint])", (rid,))
    carried = doc["runs"][0]["replication"]
    assert len(carried) == len(lags(primary, rid)) > 0
    other = new_cluster("replica-import")
    other.sql("CREATE EXTENSION pgbench_lab CASCADE")
    new = other.scalar("SELECT id FROM pgbench_lab.import(%s) WHERE kind = 'run'", (json.dumps(doc),))
    assert lags(other, new) == lags(primary, rid)
    assert any(x.startswith("Standbys:") for x in report(other, new))
    # the same standby twice in one second is refused, with where
    doc["runs"][0]["replication"].append(dict(carried[0]))
    with other.connect() as conn:
        try:
            conn.execute("SELECT pgbench_lab.import(%s)", (json.dumps(doc),))
            raise AssertionError("imported a duplicate")
        except Exception as e:
            assert getattr(e, "sqlstate", None) == "22023", e
            assert "$.runs[0].replication[" in str(e) and '"second": ' in str(e) and "appears twice" in str(e), e


def test_sweep_names_the_count_where_lag_stops_being_bounded(pair):
    """A sweep of split runs (tpcb-like on the primary, select-only on the
    standby): bounded at 2 clients; the standby's replay is paused as the
    4-client run starts, and the finding names 4 as where the standby's lag
    stopped being bounded."""
    primary, standby = pair
    targets = [f"host=127.0.0.1 port={c.port} dbname=postgres user=postgres" for c in (primary, standby)]
    conn = primary.connect()
    try:
        call = Background(conn, "CALL pgbench_lab.sweep(clients => '{2,4}', duration => '3 s', "
                                "scripts => ARRAY['tpcb-like', 'select-only'], threads => 2, "
                                "targets => %s, label => 'lag sweep')", (targets,))
        primary.poll("SELECT count(*) = 1 FROM pgbench_lab.runs WHERE clients = 4 AND status = 'running' "
                     "AND via = 'libpq'")
        standby.sql("SELECT pg_wal_replay_pause()")
        assert call.join(90) is None, call.error
    finally:
        standby.sql("SELECT pg_wal_replay_resume()")
        conn.close()
    eid = primary.scalar("SELECT experiment_id FROM pgbench_lab.experiments WHERE label = 'lag sweep'")
    steps = primary.sql("SELECT clients, trend FROM pgbench_lab_internal.sweep_lag_steps(%s)", (eid,))
    assert steps == [(2, steps[0][1]), (4, "growing")] and steps[0][1] == "bounded", steps
    finding = primary.scalar("SELECT finding FROM pgbench_lab.sweep_verdict(%s)", (eid,))
    assert "Standby lag: bounded up to 2 clients, growing through the run from 4 clients on" in finding, finding
    text = [r[0] for r in primary.sql("SELECT * FROM pgbench_lab.report(%s)", (eid,))]
    assert "Figures are over libpq: each statement paid a round trip through the protocol." in text, text
    i = text.index("Standby lag by clients (replay lag behind this server: largest, at the end, and its trend)")
    assert text[i + 1].endswith(", bounded") and text[i + 2].endswith(", growing"), text[i:i + 3]
    # the runs were split: the primary's clients wrote, the standby's read
    scripts = primary.sql("SELECT t.target, t.scripts FROM pgbench_lab.run_targets t "
                          "JOIN pgbench_lab.experiment_runs x USING (run_id) WHERE x.experiment_id = %s "
                          "ORDER BY t.run_id, t.target", (eid,))
    assert scripts == [(1, ["tpcb-like"]), (2, ["select-only"])] * 2, scripts
    primary.poll("SELECT replay_lsn = pg_current_wal_lsn() FROM pg_stat_replication")


@pytest.mark.parametrize("lags, trend", [
    ([170e6, 180e6, 190e6, 195e6, 201e6], "growing"),   # replay paused: never caught up
    ([0.0, 5e6, 0.0, 10e6, 0.0, 20e6], "bounded"),      # bursts it caught up between
    ([1e3, 2e3, 3e3, 4e3], "bounded"),                  # growing, but by less than 64 kB
    ([5e6, 6e6, 1e6, 9e6], "bounded"),                  # fell back below half
    ([None, None], "unknown"),
])
def test_lag_trend_rule(pair, lags, trend):
    primary, _ = pair
    assert primary.scalar("SELECT pgbench_lab_internal.lag_trend(%s::numeric[])", (lags,)) == trend
