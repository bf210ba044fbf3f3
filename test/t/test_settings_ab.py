"""Reload-level A/B in compare_settings(): settings changed with ALTER SYSTEM
between runs, and postgresql.auto.conf back byte for byte afterwards,
whatever happens: success, error, cancel, the caller terminated, an
immediate shutdown mid-experiment (then the next experiment call or
restore_settings() puts it back).  Checks refuse before anything changes."""
import os

import psycopg
import pytest

from conftest import Background, pgbench_cluster

WORKERS = "('pgbench_lab client', 'pgbench_lab coordinator')"
HAND_LINE = b"# a line written by hand, which ALTER SYSTEM would drop\n"


@pytest.fixture(scope="module")
def lab():
    yield from pgbench_cluster("settings-ab", {"max_worker_processes": "16"}, scale=1)


def auto_conf(c):
    with open(os.path.join(c.datadir, "postgresql.auto.conf"), "rb") as f:
        return f.read()


def prepare_auto_conf(c):
    """An entry of its own, and a line no ALTER SYSTEM would write: only a
    byte-for-byte restore keeps it."""
    c.sql("ALTER SYSTEM RESET ALL")
    c.sql("ALTER SYSTEM SET work_mem = '5MB'")
    with open(os.path.join(c.datadir, "postgresql.auto.conf"), "ab") as f:
        f.write(HAND_LINE)
    c.sql("SELECT pg_reload_conf()")
    return auto_conf(c)


def fresh_setting(c, name):
    return c.scalar("SELECT setting FROM pg_settings WHERE name = %s", (name,))


def open_records(c):
    return c.scalar("SELECT count(*) FROM pgbench_lab_internal.settings_saved WHERE restored_at IS NULL")


def counts(c):
    return c.sql("SELECT (SELECT count(*) FROM pgbench_lab.runs), (SELECT count(*) FROM pgbench_lab.experiments)")


def test_reload_level_ab_changes_checkpoints_and_restores(lab):
    """max_wal_size at its smallest against a large one: the runs with the
    small one count checkpoints, the others none; afterwards the file is
    as it was, byte for byte, and the server has its old value again."""
    before = prepare_auto_conf(lab)
    old = fresh_setting(lab, "max_wal_size")
    row = lab.sql("""CALL pgbench_lab.compare_settings('tpcb-like',
                       ARRAY['{"max_wal_size": "4GB"}', '{"max_wal_size": "32MB"}']::jsonb[],
                       clients => 2, duration => '3 s', rounds => 2)""")[0]
    eid = row[0]
    assert auto_conf(lab) == before
    assert fresh_setting(lab, "max_wal_size") == old
    ck = dict(lab.sql("""SELECT x.variant, sum(r.checkpoints)::int FROM pgbench_lab.experiment_runs x
                           JOIN pgbench_lab.runs r USING (run_id)
                          WHERE x.experiment_id = %s AND r.status = 'done' GROUP BY x.variant""", (eid,)))
    assert ck[2] > ck[1], ck
    rec = lab.sql("SELECT names, entries, restored_at IS NOT NULL, outcome FROM pgbench_lab_internal.settings_saved "
                  "WHERE experiment_id = %s", (eid,))[0]
    assert rec[0] == ["max_wal_size"] and rec[1] == {"max_wal_size": None} and rec[2], rec
    assert "byte for byte" in rec[3], rec


def test_mixed_sets_and_own_entry_restored(lab):
    """A set may mix session and reload-level settings, and the setting may
    already have an entry in the file: set A runs with that entry."""
    prepare_auto_conf(lab)
    lab.sql("ALTER SYSTEM SET checkpoint_completion_target = 0.8")
    lab.sql("SELECT pg_reload_conf()")
    before = auto_conf(lab)
    assert b"checkpoint_completion_target" in before
    lab.sql("""CALL pgbench_lab.compare_settings('select-only',
                 ARRAY['{}', '{"checkpoint_completion_target": "0.5", "synchronous_commit": "off"}']::jsonb[],
                 duration => '1 s', rounds => 1)""")
    assert auto_conf(lab) == before
    assert fresh_setting(lab, "checkpoint_completion_target") == "0.8"
    lab.sql("ALTER SYSTEM RESET checkpoint_completion_target")


def run_in_background(c, conn, sets="""ARRAY['{"max_wal_size": "48MB"}', '{}']::jsonb[]""", duration="30 s"):
    """A compare_settings whose first set changes max_wal_size, under way in
    its first run (the set first: the test need not wait a run for it)."""
    bg = Background(conn, f"CALL pgbench_lab.compare_settings('select-only', {sets}, "
                          f"duration => '{duration}', rounds => 1)")
    # set B's run under way: its value is in the file and live
    c.poll("SELECT setting = '48' FROM pg_settings WHERE name = 'max_wal_size'", timeout=90)
    c.poll(f"SELECT count(*) > 0 FROM pg_stat_activity WHERE backend_type IN {WORKERS}", timeout=60)
    return bg


@pytest.mark.parametrize("how", ["cancel", "error", "terminate"])
def test_restored_on_cancel_error_and_termination(lab, how):
    before = prepare_auto_conf(lab)
    old = fresh_setting(lab, "max_wal_size")
    conn = lab.connect()
    if how == "error":
        conn.execute("SET statement_timeout = '6s'")
        bg = Background(conn, """CALL pgbench_lab.compare_settings('select-only',
                                  ARRAY['{"max_wal_size": "48MB"}', '{}']::jsonb[], duration => '30 s', rounds => 1)""")
        lab.poll("SELECT setting = '48' FROM pg_settings WHERE name = 'max_wal_size'", timeout=60)
    else:
        bg = run_in_background(lab, conn)
    assert auto_conf(lab) != before
    if how == "cancel":
        assert lab.scalar("SELECT pg_cancel_backend(%s)", (bg.pid,)) is True
    elif how == "terminate":
        assert lab.scalar("SELECT pg_terminate_backend(%s)", (bg.pid,)) is True
    err = bg.join(90)
    assert err is not None
    conn.close()
    lab.poll("SELECT count(*) = 0 FROM pg_stat_activity WHERE pid = %s", (bg.pid,))
    assert auto_conf(lab) == before, how
    lab.poll("SELECT setting = %s FROM pg_settings WHERE name = 'max_wal_size'", (old,))
    # the record is closed by the next call, which finds the file as saved
    rows = lab.sql("SELECT * FROM pgbench_lab.restore_settings()")
    assert rows and "already as saved" in rows[0][3], rows
    assert open_records(lab) == 0
    assert auto_conf(lab) == before


def test_a_cancelled_session_starts_the_next_settings_experiment(lab):
    """statement_timeout stops a settings experiment; the same session's
    next one starts (its own record was not one under way), the stopped one
    is aborted, and the file is as it was throughout."""
    before = prepare_auto_conf(lab)
    with lab.connect() as conn:
        conn.execute("SET statement_timeout = '4s'")
        with pytest.raises(psycopg.errors.QueryCanceled):
            conn.execute("""CALL pgbench_lab.compare_settings('select-only',
                            ARRAY['{"max_wal_size": "48MB"}', '{}']::jsonb[], duration => '30 s', rounds => 1)""")
        assert auto_conf(lab) == before
        first = lab.scalar("SELECT max(experiment_id) FROM pgbench_lab.experiments")
        conn.execute("SET statement_timeout = 0")
        eid = conn.execute("""CALL pgbench_lab.compare_settings('select-only',
                              ARRAY['{"max_wal_size": "48MB"}', '{}']::jsonb[], duration => '0.3 s',
                              rounds => 1)""").fetchone()[0]
    assert eid > first
    assert lab.sql("SELECT experiment_id, status FROM pgbench_lab.experiments WHERE experiment_id IN (%s, %s) "
                   "ORDER BY 1", (first, eid)) == [(first, "aborted"), (eid, "done")]
    assert open_records(lab) == 0
    assert auto_conf(lab) == before


@pytest.mark.parametrize("then", ["restore_settings", "next_experiment"])
def test_immediate_shutdown_mid_experiment(lab, then):
    """The server stops at once during set B's run: the file still has B's
    value when it starts again; restore_settings(), or the next experiment
    of any kind, puts it back byte for byte and says so."""
    before = prepare_auto_conf(lab)
    conn = lab.connect()
    bg = run_in_background(lab, conn)
    lab.stop("immediate")
    bg.join(60)
    conn.close()
    lab.start()
    assert auto_conf(lab) != before
    assert b"max_wal_size" in auto_conf(lab)
    assert open_records(lab) == 1
    if then == "restore_settings":
        rows = lab.sql("SELECT experiment_id, settings, outcome FROM pgbench_lab.restore_settings()")
        assert len(rows) == 1 and rows[0][1] == ["max_wal_size"] and "byte for byte" in rows[0][2], rows
    else:
        with lab.connect() as c:
            notices = []
            c.add_notice_handler(lambda d: notices.append(d.message_primary))
            c.execute("CALL pgbench_lab.sweep('select-only', '{1}', '1 s')")
        assert any("restored" in n for n in notices), notices
    assert auto_conf(lab) == before
    assert open_records(lab) == 0
    lab.poll("SELECT setting <> '48' FROM pg_settings WHERE name = 'max_wal_size'")


def test_refused_before_anything_changes(lab):
    before = prepare_auto_conf(lab)
    was = counts(lab)
    for sets, error in [
        (['{}', '{"max_wal_size": "1kB"}'], psycopg.errors.InvalidParameterValue),
        (['{}', '{"max_wal_size": "banana"}'], psycopg.errors.InvalidParameterValue),
        (['{}', '{"no_such.setting": "1"}'], psycopg.errors.UndefinedObject),
        (['{}', '{"no_such_setting": "1"}'], psycopg.errors.UndefinedObject),
        (['{}', '{"ssl": "on"}'], psycopg.errors.InvalidParameterValue),
        (['{}', '{"archive_command": "true"}'], psycopg.errors.InvalidParameterValue),
        (['{}', '{"primary_conninfo": "host=x"}'], psycopg.errors.InvalidParameterValue),
        (['{}', '{"port": "5433"}'], psycopg.errors.CantChangeRuntimeParam),
        (['{}', '{"listen_addresses": "*"}'], psycopg.errors.CantChangeRuntimeParam),
        (['{}', '{"data_directory": "/tmp"}'], psycopg.errors.CantChangeRuntimeParam),
        (['{}', '{"shared_preload_libraries": "x"}'], psycopg.errors.CantChangeRuntimeParam),
        (['{}', '{"session_preload_libraries": "x"}'], psycopg.errors.InvalidParameterValue),
        (['{}', '{"shared_buffers": "1GB"}'], psycopg.errors.CantChangeRuntimeParam),
        (['{"max_wal_size": "2GB"}', '{"max_wal_size": null}'], psycopg.errors.InvalidParameterValue),
    ]:
        with pytest.raises(error) as e:
            lab.sql("CALL pgbench_lab.compare_settings('select-only', %s::jsonb[], duration => '1 s')", (sets,))
        assert "settings set" in (e.value.diag.context or ""), (sets, e.value.diag.context)
        assert e.value.diag.message_hint, sets
    assert counts(lab) == was
    assert auto_conf(lab) == before
    assert open_records(lab) == 0


def test_non_superuser_refused_even_with_execute(lab):
    before = prepare_auto_conf(lab)
    was = counts(lab)
    lab.sql("CREATE ROLE ab_tuner LOGIN")
    lab.sql("GRANT SELECT ON pgbench_accounts, pgbench_branches, pgbench_tellers TO ab_tuner")
    lab.sql("GRANT EXECUTE ON PROCEDURE pgbench_lab.compare_settings TO ab_tuner")
    lab.sql("GRANT EXECUTE ON FUNCTION pgbench_lab.restore_settings() TO ab_tuner")
    with pytest.raises(psycopg.errors.InsufficientPrivilege) as e:
        lab.sql("""CALL pgbench_lab.compare_settings('select-only',
                       ARRAY['{}', '{"max_wal_size": "2GB"}']::jsonb[], duration => '1 s')""", user="ab_tuner")
    assert "superusers" in e.value.diag.message_primary
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        lab.sql("SELECT * FROM pgbench_lab.restore_settings()", user="ab_tuner")
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        lab.sql("SELECT * FROM pgbench_lab_internal.settings_saved", user="ab_tuner")
    assert counts(lab) == was
    assert auto_conf(lab) == before
