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
    if how == "terminate":
        # the record is closed by the next call, which finds the file as saved
        rows = lab.sql("SELECT * FROM pgbench_lab.restore_settings()")
        assert rows and "already as saved" in rows[0][3], rows
    else:
        # a cancel or an error closed it at once, and aborted the experiment
        assert lab.sql("SELECT e.status, s.outcome FROM pgbench_lab.experiments e "
                       "JOIN pgbench_lab_internal.settings_saved s USING (experiment_id) "
                       "WHERE e.backend_pid = %s", (bg.pid,)) == [
            ("aborted", "postgresql.auto.conf written back byte for byte when the experiment was stopped")]
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


def words(lines):
    """Report lines as one text, its wrapping undone."""
    return " ".join(" ".join(line.split()) for line in lines)


def test_commit_bound_set_runs_over_libpq_after_a_warm_up(lab):
    """A set that changes synchronous_commit, whose effect is bound to the
    commit, is measured over libpq (this server's own socket) when via is
    not given, after a warm-up run under set A that is recorded but not
    linked (no verdict reads it); the finding names the path and why.
    Asked in-server, the finding and report() say that the in-server ratio
    exaggerates the setting's effect, with the figure over libpq of the
    same sets beside it; and a role that is not a superuser, which libpq
    to this server would ask for a password, stays in-server and is told
    how to measure it over libpq."""
    sets = ['{}', '{"synchronous_commit": "off"}']
    eid, finding = lab.sql("CALL pgbench_lab.compare_settings('tpcb-like', %s::jsonb[], duration => '0.3 s', "
                           "rounds => 1)", (sets,))[0]
    linked = lab.sql("SELECT x.variant, r.via, r.settings->'session' FROM pgbench_lab.experiment_runs x "
                     "JOIN pgbench_lab.runs r USING (run_id) WHERE x.experiment_id = %s ORDER BY x.ordinal", (eid,))
    assert [(v, via) for v, via, _ in linked] == [(1, "libpq"), (2, "libpq")], linked
    warm = lab.sql("SELECT r.via, r.duration::text, r.settings->'session', r.status, "
                   "EXISTS (SELECT FROM pgbench_lab.experiment_runs x WHERE x.run_id = r.run_id) "
                   "FROM pgbench_lab.runs r WHERE r.label = %s", (f"compare_settings {eid}: warm-up",))
    assert warm == [("libpq", "00:00:00.3", linked[0][2], "done", False)], warm
    assert "Path: over libpq (this server's own socket), chosen because the effect of synchronous_commit is bound " \
           "to the commit" in finding, finding
    params = lab.scalar("SELECT params FROM pgbench_lab.experiments WHERE experiment_id = %s", (eid,))
    assert (params["via"], params["via_chosen"], params["warmup"]) == ("libpq", "libpq", "00:00:00.3"), params
    report = words(r[0] for r in lab.sql("SELECT * FROM pgbench_lab.report(%s)", (eid,)))
    assert "Figures are over libpq: each statement paid a round trip" in report, report
    assert "A warm-up run of 0.3 s under set A ran before the first round, not counted" in report, report

    # asked in-server, without a warm-up
    libpq_eid = eid
    eid, finding = lab.sql("CALL pgbench_lab.compare_settings('tpcb-like', %s::jsonb[], duration => '0.3 s', "
                           "rounds => 1, via => 'spi', warmup => '0')", (sets,))[0]
    assert lab.sql("SELECT DISTINCT r.via FROM pgbench_lab.experiment_runs x JOIN pgbench_lab.runs r USING (run_id) "
                   "WHERE x.experiment_id = %s", (eid,)) == [("spi",)]
    assert lab.scalar("SELECT count(*) FROM pgbench_lab.runs WHERE label = %s", (f"compare_settings {eid}: warm-up",)) == 0
    warning = ("Path: in-server, and the effect of synchronous_commit is bound to the commit: with no round trip "
               "between a client's statements, the commit's wait for its WAL is most of an in-server transaction, "
               "so this ratio exaggerates what the setting does for an application")
    assert warning in finding, finding
    # the figure over libpq beside it: the experiment above measured the same sets
    ratio, verdict = lab.sql("SELECT pgbench_lab_internal.fmt(ratio, 3), verdict "
                             "FROM pgbench_lab.experiment_verdicts(%s)", (libpq_eid,))[0]
    counterpart = f"B against A, tps \u00d7{ratio} (1 round): {verdict}"
    assert f"Over libpq, the figure an application sees, experiment {libpq_eid} (" in finding, finding
    assert f"measured the same sets: {counterpart}." in finding, (counterpart, finding)
    report = words(r[0] for r in lab.sql("SELECT * FROM pgbench_lab.report(%s)", (eid,)))
    assert warning in report and "Figures are in-server" in report and f"experiment {libpq_eid} (" in report, report

    # a role that is not a superuser: in-server, and told what libpq needs
    lab.sql("CREATE ROLE cb_tuner LOGIN")
    lab.sql("GRANT SELECT ON pgbench_accounts, pgbench_branches, pgbench_tellers TO cb_tuner")
    lab.sql("GRANT EXECUTE ON PROCEDURE pgbench_lab.compare_settings TO cb_tuner")
    eid, finding = lab.sql("CALL pgbench_lab.compare_settings('select-only', %s::jsonb[], duration => '0.2 s', "
                           "rounds => 1, warmup => '0')", (sets,), user="cb_tuner")[0]
    assert lab.sql("SELECT DISTINCT r.via FROM pgbench_lab.experiment_runs x JOIN pgbench_lab.runs r USING (run_id) "
                   "WHERE x.experiment_id = %s", (eid,)) == [("spi",)]
    assert "via => 'libpq' with a target whose conninfo holds a password" in finding, finding
    assert "Over libpq, the figure" not in finding, "another role's experiment is not its figure"


def test_warmup_refused_out_of_range(lab):
    was = counts(lab)
    for value in ("-1 s", "2 hours"):
        with pytest.raises(psycopg.errors.InvalidParameterValue) as e:
            lab.sql("CALL pgbench_lab.compare_settings('select-only', ARRAY['{}', '{\"jit\": \"off\"}']::jsonb[], "
                    "duration => '1 s', warmup => %s)", (value,))
        assert "warmup must be from 0 to 1 hour" in e.value.diag.message_primary, e.value
        assert e.value.diag.message_hint
    assert counts(lab) == was
