"""Settings experiments touch only what they own: an experiment that will
reload (reload-level settings) or restart the server (restart_settings) is
refused before anything is recorded or changed while the configuration
files hold values the server has not applied, which its reload or restart
would make live.  Values are compared as the server reads them ('300s' is
the live 5min); experiments that neither reload nor restart are not
concerned."""

import psycopg
import pytest

from conftest import pgbench_cluster
from test_settings_ab import auto_conf
from test_settings_restart import counts

RELOAD_SETS = """ARRAY['{}', '{"bgwriter_delay": "100ms"}']::jsonb[]"""


@pytest.fixture(scope="module")
def lab():
    yield from pgbench_cluster("pending", {"max_worker_processes": "16"}, scale=1)


def live(c):
    return c.sql("SELECT name, setting FROM pg_settings ORDER BY name")



def refused(c, call):
    """The call refused with 55000, nothing recorded, nothing changed."""
    before, settings, was = auto_conf(c), live(c), counts(c)
    with pytest.raises(psycopg.errors.ObjectNotInPrerequisiteState) as e:
        c.sql(call)
    assert counts(c) == was
    assert auto_conf(c) == before
    assert live(c) == settings
    return e.value.diag


@pytest.fixture
def clean(lab):
    """Every test leaves the files as live as it found them."""
    yield
    lab.sql("ALTER SYSTEM RESET ALL")
    lab.sql("SELECT pg_reload_conf()")


def test_reload_refused_while_a_value_is_pending(lab, clean):
    lab.sql("ALTER SYSTEM SET checkpoint_timeout = '10min'")
    d = refused(lab, f"CALL pgbench_lab.compare_settings('select-only', {RELOAD_SETS}, "
                     "duration => '0.2 s', rounds => 1)")
    assert "checkpoint_timeout = '10min' (postgresql.auto.conf line" in d.message_primary, d.message_primary
    assert "live: 5min" in d.message_primary, d.message_primary
    assert "pg_reload_conf()" in d.message_hint and "ALTER SYSTEM RESET" in d.message_hint, d.message_hint
    assert lab.scalar("SHOW checkpoint_timeout") == "5min"
    # validate_recommendation's reload-level set is refused the same way
    # (its session-level one would need no reload; it has both here)
    if lab.scalar("SELECT count(*) > 0 FROM pgbench_lab.recommend() "
                  "WHERE changes AND within_limits AND context = 'reload'"):
        d = refused(lab, "CALL pgbench_lab.validate_recommendation('select-only', duration => '0.2 s', rounds => 1)")
        assert "checkpoint_timeout = '10min'" in d.message_primary, d.message_primary
    # an entry taken out and not reloaded: the reload would put the default back
    lab.sql("SELECT pg_reload_conf()")
    lab.poll("SELECT setting = '600' FROM pg_settings WHERE name = 'checkpoint_timeout'")
    lab.sql("ALTER SYSTEM RESET checkpoint_timeout")
    d = refused(lab, f"CALL pgbench_lab.compare_settings('select-only', {RELOAD_SETS}, "
                     "duration => '0.2 s', rounds => 1)")
    assert "checkpoint_timeout: no entry any more, its default 5min (live: 10min" in d.message_primary, \
        d.message_primary


def test_equal_when_normalized_runs(lab, clean):
    """'300s' is the live 5min, 'ON' the live on; a restart-level value
    pending is no reload's business; initdb's own lines ('iso, mdy' for
    ISO, MDY) are live."""
    lab.sql("ALTER SYSTEM SET checkpoint_timeout = '300s'")
    lab.sql("ALTER SYSTEM SET synchronous_commit = 'ON'")
    lab.sql("ALTER SYSTEM SET max_connections = 90")
    before, settings = auto_conf(lab), live(lab)
    eid = lab.sql(f"CALL pgbench_lab.compare_settings('select-only', {RELOAD_SETS}, "
                  "duration => '0.2 s', rounds => 1)")[0][0]
    assert lab.scalar("SELECT status FROM pgbench_lab.experiments WHERE experiment_id = %s", (eid,)) == "done"
    assert auto_conf(lab) == before
    assert live(lab) == settings


def test_restart_refused_while_a_restart_level_value_is_pending(lab, clean):
    lab.sql("ALTER SYSTEM SET max_connections = 90")
    d = refused(lab, "CALL pgbench_lab.compare_settings('select-only', restart_settings => "
                     "'{\"shared_buffers\": \"48MB\"}', duration => '0.2 s', rounds => 1)")
    assert "max_connections = '90'" in d.message_primary and "live: 100" in d.message_primary, d.message_primary
    assert "a restart for restart-level ones" in d.message_hint, d.message_hint
    # a pending value of the setting the experiment writes itself is its
    # own; values equal to the live ones when read as the server reads them
    lab.sql("ALTER SYSTEM SET max_connections = '1e2'")
    lab.sql("ALTER SYSTEM SET huge_pages = 'TRY'")
    lab.sql("ALTER SYSTEM SET shared_buffers = '40MB'")
    eid = lab.sql("CALL pgbench_lab.compare_settings('select-only', restart_settings => "
                  "'{\"shared_buffers\": \"48MB\"}', duration => '0.2 s', rounds => 1)")[0][0]
    rows = lab.sql("SELECT experiment_id, outcome FROM pgbench_lab.restore_settings()")
    assert [r[0] for r in rows] == [eid], rows
    assert b"shared_buffers = '40MB'" in auto_conf(lab)


def test_session_settings_only_not_concerned(lab, clean):
    lab.sql("ALTER SYSTEM SET checkpoint_timeout = '10min'")
    before = auto_conf(lab)
    eid = lab.sql("CALL pgbench_lab.compare_settings('select-only', ARRAY['{}', '{\"jit\": \"off\"}']::jsonb[], "
                  "duration => '0.2 s', rounds => 1)")[0][0]
    assert lab.scalar("SELECT status FROM pgbench_lab.experiments WHERE experiment_id = %s", (eid,)) == "done"
    assert auto_conf(lab) == before
    assert lab.scalar("SHOW checkpoint_timeout") == "5min"
