"""Restart-level settings in two phases: compare_settings(restart_settings
=> ...) measures the current settings (A), writes B with ALTER SYSTEM and
waits for a restart; resume() checks the restart and B's values, measures
B and writes A back, postgresql.auto.conf byte for byte as before phase 1.
Bad values, names the server needs to start, and non-superusers are
refused before anything changes."""

import psycopg
import pytest

from conftest import Background, pgbench_cluster
from test_settings_ab import auto_conf, prepare_auto_conf


@pytest.fixture(scope="module")
def lab():
    yield from pgbench_cluster("settings-restart", {"max_worker_processes": "16"}, scale=1)


def counts(c):
    return c.sql("SELECT (SELECT count(*) FROM pgbench_lab.runs), (SELECT count(*) FROM pgbench_lab.experiments), "
                 "(SELECT count(*) FROM pgbench_lab_internal.settings_saved)")


def phase_one(c, value="48MB", duration="1 s", rounds=2):
    with c.connect() as conn:
        notices = []
        conn.add_notice_handler(lambda d: notices.append(d.message_primary))
        eid, finding = conn.execute(
            "CALL pgbench_lab.compare_settings('select-only', restart_settings => %s, "
            "duration => %s, rounds => %s)", (f'{{"shared_buffers": "{value}"}}', duration, rounds)).fetchone()
    return eid, finding, notices


def test_two_phase_shared_buffers(lab):
    before = prepare_auto_conf(lab)
    old = lab.scalar("SHOW shared_buffers")
    eid, finding, notices = phase_one(lab)
    assert f"CALL pgbench_lab.resume({eid})" in finding, finding
    assert any(f"resume({eid})" in n for n in notices), notices
    assert any("pg_prewarm loaded" in n for n in notices), notices
    assert lab.scalar("SELECT status FROM pgbench_lab.experiments WHERE experiment_id = %s", (eid,)) \
        == "waiting for restart"
    assert b"shared_buffers = '48MB'" in auto_conf(lab)
    assert lab.scalar("SHOW shared_buffers") == old
    # before the restart: refused, with what to do
    with pytest.raises(psycopg.errors.ObjectNotInPrerequisiteState) as e:
        lab.sql("CALL pgbench_lab.resume(%s)", (eid,))
    assert "has not restarted" in e.value.diag.message_primary
    assert "pg_ctl restart" in e.value.diag.message_hint
    # another experiment's call leaves the waiting one alone
    lab.sql("CALL pgbench_lab.sweep('select-only', '{1}', '1 s')")
    assert b"shared_buffers = '48MB'" in auto_conf(lab)
    # another reload-level experiment may not change the file meanwhile
    with pytest.raises(psycopg.errors.ObjectInUse) as e:
        lab.sql("""CALL pgbench_lab.compare_settings('select-only',
                     ARRAY['{}', '{"max_wal_size": "2GB"}']::jsonb[], duration => '1 s', rounds => 1)""")
    assert f"resume({eid})" in e.value.diag.message_hint
    # nor a restart-level one: told of the waiting experiment, not of its
    # value in the file as a pending one
    with pytest.raises(psycopg.errors.ObjectInUse) as e:
        lab.sql("""CALL pgbench_lab.compare_settings('select-only',
                     restart_settings => '{"max_locks_per_transaction": "80"}', duration => '1 s', rounds => 1)""")
    assert f"resume({eid})" in e.value.diag.message_hint

    lab.restart()
    assert lab.scalar("SHOW shared_buffers") == "48MB"
    with lab.connect() as conn:
        notices = []
        conn.add_notice_handler(lambda d: notices.append(d.message_primary))
        rid, finding = conn.execute("CALL pgbench_lab.resume(%s)", (eid,)).fetchone()
    assert rid == eid
    assert "two phases" in finding and "next restart" in finding, finding
    assert any("restart the server to return" in n for n in notices), notices
    assert auto_conf(lab) == before
    # A's rounds ran before the restart, B's after it
    rows = lab.sql("""SELECT x.variant, x.round, r.status, r.started_at > pg_postmaster_start_time()
                        FROM pgbench_lab.experiment_runs x JOIN pgbench_lab.runs r USING (run_id)
                       WHERE x.experiment_id = %s ORDER BY x.ordinal""", (eid,))
    assert rows == [(1, 1, "done", False), (1, 2, "done", False), (2, 1, "done", True), (2, 2, "done", True)], rows
    assert lab.scalar("SELECT status FROM pgbench_lab.experiments WHERE experiment_id = %s", (eid,)) == "done"
    rec = lab.sql("SELECT restored_at IS NOT NULL, outcome, waiting FROM pgbench_lab_internal.settings_saved "
                  "WHERE experiment_id = %s", (eid,))[0]
    assert rec[0] and "byte for byte" in rec[1] and not rec[2], rec
    report = "\n".join(r[0] for r in lab.sql("SELECT pgbench_lab.report(%s)", (eid,)))
    assert "B's after it" in report, report
    # finished: refused
    with pytest.raises(psycopg.errors.ObjectNotInPrerequisiteState) as e:
        lab.sql("CALL pgbench_lab.resume(%s)", (eid,))
    assert "not waiting" in e.value.diag.message_primary
    lab.restart()
    assert lab.scalar("SHOW shared_buffers") == old


def test_resume_refuses_unknown_and_one_phase(lab):
    with pytest.raises(psycopg.errors.UndefinedObject):
        lab.sql("CALL pgbench_lab.resume(987654321)")
    eid = lab.sql("CALL pgbench_lab.compare_settings('select-only', ARRAY['{}', '{\"jit\": \"off\"}']::jsonb[], "
                  "duration => '1 s', rounds => 1)")[0][0]
    with pytest.raises(psycopg.errors.InvalidParameterValue) as e:
        lab.sql("CALL pgbench_lab.resume(%s)", (eid,))
    assert "not a two-phase" in e.value.diag.message_primary


def test_restore_settings_abandons_a_waiting_experiment(lab):
    before = prepare_auto_conf(lab)
    eid, _, _ = phase_one(lab, "40MB")
    rows = lab.sql("SELECT experiment_id, outcome FROM pgbench_lab.restore_settings()")
    assert len(rows) == 1 and rows[0][0] == eid and "abandoned" in rows[0][1], rows
    assert "never ran with set B" in rows[0][1], rows
    assert auto_conf(lab) == before
    assert lab.scalar("SELECT status FROM pgbench_lab.experiments WHERE experiment_id = %s", (eid,)) == "aborted"
    with pytest.raises(psycopg.errors.ObjectNotInPrerequisiteState):
        lab.sql("CALL pgbench_lab.resume(%s)", (eid,))


def no_huge_pages():
    with open("/proc/meminfo") as f:
        return any(line.split()[:2] == ["HugePages_Total:", "0"] for line in f)


def test_refused_before_anything_changes(lab):
    before = prepare_auto_conf(lab)
    was = counts(lab)
    for restart, error in [
        ({"shared_buffers": "1kB"}, psycopg.errors.InvalidParameterValue),
        ({"shared_buffers": "banana"}, psycopg.errors.InvalidParameterValue),
        # within the parameter's range, beyond the machine's memory: no start
        ({"shared_buffers": "900GB"}, psycopg.errors.InvalidParameterValue),
    ] + ([({"huge_pages": "on"}, psycopg.errors.InvalidParameterValue)] if no_huge_pages() else []) + [
        ({"max_worker_processes": "-1"}, psycopg.errors.InvalidParameterValue),
        ({"no_such_setting": "1"}, psycopg.errors.UndefinedObject),
        ({"data_directory": "/tmp"}, psycopg.errors.InvalidParameterValue),
        ({"port": "5433"}, psycopg.errors.InvalidParameterValue),
        ({"listen_addresses": "*"}, psycopg.errors.InvalidParameterValue),
        ({"shared_preload_libraries": "pg_prewarm"}, psycopg.errors.InvalidParameterValue),
        ({"max_wal_size": "2GB"}, psycopg.errors.InvalidParameterValue),
        ({"shared_buffers": "64MB", "block_size": "4096"}, psycopg.errors.CantChangeRuntimeParam),
        ({}, psycopg.errors.InvalidParameterValue),
    ]:
        with pytest.raises(error) as e:
            lab.sql("CALL pgbench_lab.compare_settings('select-only', restart_settings => %s, duration => '1 s')",
                    (psycopg.types.json.Jsonb(restart),))
        assert e.value.diag.message_hint, restart
    with pytest.raises(psycopg.errors.InvalidParameterValue) as e:
        lab.sql("""CALL pgbench_lab.compare_settings('select-only', ARRAY['{}', '{"jit": "off"}']::jsonb[],
                     restart_settings => '{"shared_buffers": "64MB"}', duration => '1 s')""")
    assert "together" in e.value.diag.message_primary
    assert counts(lab) == was
    assert auto_conf(lab) == before


def test_non_superuser_refused_even_with_execute(lab):
    before = prepare_auto_conf(lab)
    was = counts(lab)
    lab.sql("CREATE ROLE restart_tuner LOGIN")
    lab.sql("GRANT SELECT ON pgbench_accounts, pgbench_branches, pgbench_tellers TO restart_tuner")
    lab.sql("GRANT EXECUTE ON PROCEDURE pgbench_lab.compare_settings TO restart_tuner")
    lab.sql("GRANT EXECUTE ON PROCEDURE pgbench_lab.resume(bigint, text) TO restart_tuner")
    with pytest.raises(psycopg.errors.InsufficientPrivilege) as e:
        lab.sql("""CALL pgbench_lab.compare_settings('select-only', restart_settings => '{"shared_buffers": "64MB"}',
                     duration => '1 s')""", user="restart_tuner")
    assert "superusers" in e.value.diag.message_primary
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        lab.sql("CALL pgbench_lab.resume(1)", user="restart_tuner")
    assert counts(lab) == was
    assert auto_conf(lab) == before


def test_rate_and_latency_limit_reach_every_run(lab):
    eid = lab.sql("""CALL pgbench_lab.compare_settings('select-only', ARRAY['{}', '{"jit": "off"}']::jsonb[],
                       duration => '1 s', rounds => 1, rate => 50, latency_limit => '20 ms')""")[0][0]
    rows = lab.sql("""SELECT r.rate, r.latency_limit::text FROM pgbench_lab.experiment_runs x
                        JOIN pgbench_lab.runs r USING (run_id) WHERE x.experiment_id = %s""", (eid,))
    assert rows == [(50.0, "00:00:00.02")] * 2, rows
    params = lab.scalar("SELECT params FROM pgbench_lab.experiments WHERE experiment_id = %s", (eid,))
    assert params["rate"] == 50 and params["latency_limit"], params


@pytest.mark.parametrize("how", ["terminate", "immediate"])
def test_phase_two_stopped_puts_a_back(lab, how):
    """resume()'s session terminated during B's run, or the server stopped
    at once: A's postgresql.auto.conf comes back byte for byte (at once, or
    on the next call after the start), and the experiment ends aborted."""
    before = prepare_auto_conf(lab)
    eid, _, _ = phase_one(lab, "40MB", duration="3 s", rounds=1)
    lab.restart()
    conn = lab.connect()
    try:
        bg = Background(conn, "CALL pgbench_lab.resume(%s)", (eid,))
        # B's run under way (a run is linked to its experiment when it ends)
        lab.poll("SELECT count(*) = 1 FROM pgbench_lab.runs WHERE status = 'running'")
        if how == "terminate":
            assert lab.scalar("SELECT pg_terminate_backend(%s)", (bg.pid,)) is True
            assert bg.join(90) is not None
        else:
            lab.stop("immediate")
            bg.join(60)
            lab.start()
            lab.sql("SELECT * FROM pgbench_lab.restore_settings()")
    finally:
        conn.close()
    assert auto_conf(lab) == before
    # the row stays as its procedure left it; report() tells it stopped
    report = [r[0] for r in lab.sql("SELECT pgbench_lab.report(%s)", (eid,))]
    assert any(x.startswith("status aborted") for x in report), report[:4]
    assert lab.scalar("SELECT waiting FROM pgbench_lab_internal.settings_saved WHERE experiment_id = %s",
                      (eid,)) is False
    lab.restart()
    assert lab.scalar("SHOW shared_buffers") != "40MB"
