"""Privileges on a real server, as unprivileged roles: nothing that starts
workers, changes data or touches shared buffers runs without a grant; a
granted role's workers run as that role; nobody but superusers may start,
cancel, read or change another role's runs (pg_monitor may read); nobody
writes the result tables directly; superuser-only functions refuse even
with EXECUTE granted; run settings cannot raise a role's powers."""
import psycopg
import pytest

from conftest import Cluster, PG_MAJOR

WORKER_TYPES = "('pgbench_lab coordinator', 'pgbench_lab client')"
START = "pgbench_lab.start"
TABLES = ["pgbench_accounts", "pgbench_branches", "pgbench_tellers", "pgbench_history"]
COLUMN = {"runs": "label", "run_progress": "failures", "run_latency": "count", "run_errors": "count",
          "cache_snapshots": "label", "cache_snapshot_relations": "kind", "storage_tests": "kind"}
RESULT_TABLES = list(COLUMN)

# A valid call of every function that starts workers, changes data or
# touches shared buffers: each must be refused for a role with no grants.
RESTRICTED = [
    "SELECT pgbench_lab.start('select-only', transactions => 1)",
    "CALL pgbench_lab.run('select-only', transactions => 1)",
    "SELECT * FROM pgbench_lab.init(1)",
    "SELECT pgbench_lab.cancel(1)",
    "SELECT * FROM pgbench_lab.make_cold('pgbench_branches')",
    "SELECT * FROM pgbench_lab.warm('pgbench_branches')",
    "SELECT * FROM pgbench_lab.cache_status('pgbench_branches')",
    "SELECT pgbench_lab.cache_snapshot('x')",
    "SELECT * FROM pgbench_lab.fsync_test(0.01)",
    "SELECT * FROM pgbench_lab.io_test('1MB', 0.01)",
    "SELECT * FROM pgbench_lab.system_info()",
    "SELECT * FROM pgbench_lab.recommend()",
]


@pytest.fixture(scope="module")
def lab():
    c = Cluster("privs", {"shared_buffers": "32MB", "max_worker_processes": "16"})
    try:		# a failed set-up must not leave a server running
        c.start()
        c.run_client("pgbench", "-i", "-s", "1", "-q", "postgres")
        c.sql("CREATE EXTENSION pgbench_lab CASCADE")
        for role in ("nobody", "alice", "bob", "dave", "mon"):
            c.sql(f"CREATE ROLE {role} LOGIN")
        c.sql("CREATE ROLE runners NOLOGIN")
        c.sql("GRANT runners TO dave")
        c.sql("GRANT pg_monitor TO mon")
        for role in ("alice", "bob", "runners"):
            c.sql(f"GRANT SELECT, INSERT, UPDATE ON {', '.join(TABLES)} TO {role}")
            c.sql(f"GRANT EXECUTE ON FUNCTION {START}, pgbench_lab.cancel(bigint) TO {role}")
            c.sql(f"GRANT EXECUTE ON PROCEDURE pgbench_lab.run TO {role}")
        c.sql("GRANT EXECUTE ON FUNCTION pgbench_lab.cancel(bigint) TO mon")
        yield c
    finally:
        c.destroy()


def state(c, sql, user, params=None):
    try:
        c.sql(sql, params, user=user)
        return "00000"
    except psycopg.Error as e:
        return e.sqlstate


def no_workers(c):
    c.poll(f"SELECT count(*) = 0 FROM pg_stat_activity WHERE backend_type IN {WORKER_TYPES}")


def test_nothing_restricted_runs_without_a_grant(lab):
    runs = lab.scalar("SELECT count(*) FROM pgbench_lab.runs")
    got = {sql: state(lab, sql, "nobody") for sql in RESTRICTED}
    assert all(s == "42501" for s in got.values()), got
    # pg_monitor reads, but starts, evicts, warms or measures nothing (its
    # cancel() grant is for the test below)
    mon = {sql: state(lab, sql, "mon") for sql in RESTRICTED[:3] + RESTRICTED[4:6] + RESTRICTED[8:10]}
    assert all(s == "42501" for s in mon.values()), mon
    assert lab.scalar("SELECT count(*) FROM pgbench_lab.runs") == runs
    assert lab.scalar(f"SELECT count(*) FROM pg_stat_activity WHERE backend_type IN {WORKER_TYPES}") == 0


def test_superuser_only_functions_refuse_a_grant(lab):
    lab.sql("GRANT EXECUTE ON FUNCTION pgbench_lab.make_cold(regclass, boolean, boolean), "
            "pgbench_lab.fsync_test(numeric), pgbench_lab.io_test(text, numeric) TO alice")
    try:
        for sql in ("SELECT * FROM pgbench_lab.make_cold('pgbench_branches')",
                    "SELECT * FROM pgbench_lab.fsync_test(0.01)",
                    "SELECT * FROM pgbench_lab.io_test('1MB', 0.01)"):
            assert state(lab, sql, "alice") == "42501", sql
    finally:
        lab.sql("REVOKE EXECUTE ON FUNCTION pgbench_lab.make_cold(regclass, boolean, boolean), "
                "pgbench_lab.fsync_test(numeric), pgbench_lab.io_test(text, numeric) FROM alice")
    assert lab.scalar("SELECT count(*) FROM pgbench_lab.storage_tests") == 0


def test_workers_run_as_the_granted_role(lab):
    """dave logs in, SET ROLE runners, runs TPC-B: each history row the
    workers insert records current_user = runners; the session user is dave
    until PostgreSQL 16, runners from 17 (a worker may log in as a NOLOGIN
    role there), never a superuser."""
    lab.sql("""CREATE FUNCTION public.who_inserts() RETURNS trigger LANGUAGE plpgsql AS $$
               BEGIN NEW.filler := left(current_user || '/' || session_user, 22); RETURN NEW; END $$""")
    lab.sql("CREATE TRIGGER who BEFORE INSERT ON pgbench_history "
            "FOR EACH ROW EXECUTE FUNCTION public.who_inserts()")
    try:
        with lab.connect(user="dave") as conn:
            conn.execute("SET ROLE runners")
            r = conn.execute("CALL pgbench_lab.run('tpcb-like', clients => 2, "
                             "transactions => 10)").fetchone()
            assert r[1] == "done" and r[2] == 20, r
            owner = conn.execute("SELECT owner::text FROM pgbench_lab.runs WHERE run_id = %s",
                                 (r[0],)).fetchone()[0]
        assert owner == "runners"
        who = lab.sql("SELECT filler, count(*) FROM pgbench_history "
                      "WHERE filler LIKE '%/%' GROUP BY 1")
        login = "dave" if PG_MAJOR < 17 else "runners"
        assert who == [(f"runners/{login}".ljust(22), 20)], who
    finally:
        lab.sql("DROP TRIGGER who ON pgbench_history")
        lab.sql("DROP FUNCTION public.who_inserts()")
    no_workers(lab)


def test_a_workload_needs_every_privilege_it_uses(lab):
    """A role that may only read pgbench's tables runs select-only, and is
    refused the workloads that write before anything starts, by the first
    table it may not change: having one of the privileges asked is not
    having them all."""
    lab.sql("CREATE ROLE reader LOGIN")
    lab.sql(f"GRANT SELECT ON {', '.join(TABLES)} TO reader")
    lab.sql("GRANT EXECUTE ON PROCEDURE pgbench_lab.run TO reader")
    with lab.connect(user="reader") as conn:
        r = conn.execute("CALL pgbench_lab.run('select-only', clients => 1, transactions => 5)").fetchone()
        assert r[1] == "done" and r[2] == 5, r
        for workload in ("simple-update", "tpcb-like"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege) as e:
                conn.execute("CALL pgbench_lab.run(%s, clients => 1, transactions => 5)", (workload,))
            assert e.value.diag.message_primary == "permission denied for table pgbench_accounts", e.value
            assert e.value.diag.message_detail.startswith(f"The {workload} workload needs SELECT and UPDATE"), \
                e.value.diag.message_detail
    no_workers(lab)


def test_only_the_owner_and_superusers_control_a_run(lab):
    run_id = lab.scalar("SELECT pgbench_lab.start('select-only', clients => 2, duration => '60 s')",
                        user="alice")
    try:
        lab.poll("SELECT transactions > 0 FROM pgbench_lab.active_runs WHERE run_id = %s", (run_id,))
        # bob (granted start and cancel) cannot see, wait for, cancel or change it
        assert lab.scalar("SELECT count(*) FROM pgbench_lab.runs", user="bob") == 0
        assert lab.scalar("SELECT count(*) FROM pgbench_lab.active_runs", user="bob") == 0
        assert lab.scalar("SELECT count(*) FROM pgbench_lab.run_progress", user="bob") == 0
        assert state(lab, "SELECT pgbench_lab.cancel(%s)", "bob", (run_id,)) == "42704"
        assert state(lab, "SELECT * FROM pgbench_lab_internal.run_live(%s)", "bob", (run_id,)) == "42704"
        assert state(lab, "CALL pgbench_lab.wait(%s)", "bob", (run_id,)) == "42704"
        assert state(lab, "UPDATE pgbench_lab.runs SET status = 'done'", "bob") == "42501"
        assert state(lab, "DELETE FROM pgbench_lab.runs", "bob") == "42501"
        # nor signal alice's client workers
        pid = lab.scalar("SELECT pid FROM pg_stat_activity WHERE backend_type = 'pgbench_lab client' "
                         "LIMIT 1")
        assert state(lab, "SELECT pg_terminate_backend(%s)", "bob", (pid,)) == "42501"
        assert state(lab, "SELECT pg_cancel_backend(%s)", "bob", (pid,)) == "42501"
        # pg_monitor reads everything but cancels nothing, even granted cancel()
        assert lab.scalar("SELECT count(*) FROM pgbench_lab.active_runs WHERE run_id = %s",
                          (run_id,), user="mon") == 1
        lab.poll("SELECT count(*) > 0 FROM pgbench_lab.run_progress WHERE run_id = %s",
                 (run_id,), user="mon")
        assert state(lab, "SELECT pgbench_lab.cancel(%s)", "mon", (run_id,)) == "42501"
        assert state(lab, "UPDATE pgbench_lab.runs SET status = 'done'", "mon") == "42501"
        assert lab.scalar("SELECT status FROM pgbench_lab.runs WHERE run_id = %s",
                          (run_id,)) == "running"
    finally:
        # a superuser may cancel anyone's run
        assert lab.scalar("SELECT pgbench_lab.cancel(%s)", (run_id,)) is True
    no_workers(lab)
    assert lab.sql("SELECT status, owner::text FROM pgbench_lab.runs WHERE run_id = %s",
                   (run_id,)) == [("cancelled", "alice")]
    # the owner reads her run, bob still does not
    assert lab.scalar("SELECT count(*) FROM pgbench_lab.runs WHERE run_id = %s",
                      (run_id,), user="alice") == 1
    assert lab.scalar("SELECT count(*) FROM pgbench_lab.run_latency", user="bob") == 0


def test_owner_cancels_own_run(lab):
    run_id = lab.scalar("SELECT pgbench_lab.start('select-only', duration => '60 s')", user="alice")
    lab.poll("SELECT count(*) = 1 FROM pgbench_lab.active_runs WHERE run_id = %s", (run_id,))
    assert lab.scalar("SELECT pgbench_lab.cancel(%s)", (run_id,), user="alice") is True
    no_workers(lab)
    assert lab.scalar("SELECT status FROM pgbench_lab.runs WHERE run_id = %s", (run_id,)) == "cancelled"


@pytest.mark.parametrize("user", ["alice", "mon"])
def test_result_tables_take_no_direct_writes(lab, user):
    writes = []
    for t in RESULT_TABLES:
        writes += [f"INSERT INTO pgbench_lab.{t} DEFAULT VALUES",
                   f"UPDATE pgbench_lab.{t} SET {COLUMN[t]} = NULL",
                   f"DELETE FROM pgbench_lab.{t}",
                   f"TRUNCATE pgbench_lab.{t} CASCADE"]
    got = {sql: state(lab, sql, user) for sql in writes}
    assert all(s == "42501" for s in got.values()), {k: v for k, v in got.items() if v != "42501"}


@pytest.mark.parametrize("settings", ['{"role": "postgres"}',
                                      '{"session_authorization": "postgres"}',
                                      '{"pgbench_lab.max_duration": "100000"}',
                                      '{"log_statement": "all"}',
                                      '{"default_transaction_read_only": "off", "role": "bob"}'])
def test_run_settings_cannot_raise_privileges(lab, settings):
    runs = lab.scalar("SELECT count(*) FROM pgbench_lab.runs")
    s = state(lab, "SELECT pgbench_lab.start('select-only', transactions => 5, settings => %s)",
              "alice", (settings,))
    assert s == "42501", s
    assert lab.scalar("SELECT count(*) FROM pgbench_lab.runs") == runs
    no_workers(lab)



def test_system_facts_recorded_only_for_a_role_that_may_call_system_info(lab):
    """system_info() is pg_monitor's: a role granted run() but not
    system_info() (42501) finds no machine facts in its own run's row
    either (the coordinator records them as the extension's owner), and
    report() says why; granted EXECUTE, its next run has them."""
    assert state(lab, "SELECT * FROM pgbench_lab.system_info()", "alice") == "42501"
    rid = lab.sql("CALL pgbench_lab.run('select-only', transactions => 5)", user="alice")[0][0]
    assert lab.scalar("SELECT system IS NULL FROM pgbench_lab.runs WHERE run_id = %s", (rid,),
                      user="alice") is True
    text = " ".join(" ".join(r[0].split()) for r in lab.sql("SELECT * FROM pgbench_lab.report(%s)", (rid,),
                                                              user="alice"))
    assert "role alice may not call pgbench_lab.system_info()" in text, text
    # a superuser's run, and alice's once granted, record them
    lab.sql("GRANT EXECUTE ON FUNCTION pgbench_lab.system_info() TO alice")
    try:
        rid2 = lab.sql("CALL pgbench_lab.run('select-only', transactions => 5)", user="alice")[0][0]
        rid3 = lab.sql("CALL pgbench_lab.run('select-only', transactions => 5)")[0][0]
        assert lab.sql("SELECT run_id, system ? 'data_directory' FROM pgbench_lab.runs "
                       "WHERE run_id IN (%s, %s) ORDER BY 1", (rid2, rid3)) == [(rid2, True), (rid3, True)]
        text = " ".join(" ".join(r[0].split()) for r in lab.sql("SELECT * FROM pgbench_lab.report(%s)", (rid2,)))
        assert "may not call pgbench_lab.system_info()" not in text
    finally:
        lab.sql("REVOKE EXECUTE ON FUNCTION pgbench_lab.system_info() FROM alice")
    no_workers(lab)


def test_per_role_limits_bind_the_role(lab):
    """The limits are superuser settings, so a superuser can set them per
    role (ALTER ROLE ... SET) and the role cannot raise them: not with SET
    (42501), not with ALTER ROLE on itself (42501), not with a SET made
    before the library was loaded (a placeholder, dropped with a WARNING when
    the library loads), nor back to the default with a connection option."""
    lab.sql("GRANT EXECUTE ON FUNCTION pgbench_lab.init(int, int, bool, bool, text, int, text, text, text, text) TO bob")
    for name, value in (("max_clients", "1"), ("max_duration", "2s"), ("max_scale", "1")):
        lab.sql(f"ALTER ROLE bob SET pgbench_lab.{name} = '{value}'")
    try:
        refused = {
            "SELECT pgbench_lab.start('select-only', clients => 2, transactions => 1)": "2 clients is above the limit of 1",
            "SELECT pgbench_lab.start('select-only', duration => '3 s')": "duration 3 s is above the limit of 2 s",
            "SELECT * FROM pgbench_lab.init(2)": "scale 2 is out of range",
        }
        with lab.connect(user="bob") as conn:
            for sql, message in refused.items():
                with pytest.raises(psycopg.errors.InvalidParameterValue, match=message):
                    conn.execute(sql)
            # the library is loaded now
            for name in ("max_clients", "max_duration", "max_scale"):
                assert state_on(conn, f"SET pgbench_lab.{name} = 1000") == "42501", name
                assert state_on(conn, f"ALTER ROLE bob SET pgbench_lab.{name} = 1000") == "42501", name
        # a SET before anything loads the library is dropped as it loads,
        # and the role's value stays
        with lab.connect(user="bob") as conn:
            conn.execute("SET pgbench_lab.max_clients = 1000")
            with pytest.raises(psycopg.errors.InvalidParameterValue, match="above the limit of 1"):
                conn.execute("SELECT pgbench_lab.start('select-only', clients => 2, transactions => 1)")
            assert conn.execute("SHOW pgbench_lab.max_clients").fetchone()[0] == "1"
        # a value given at connection replaces the role's; dropped as the
        # library loads, it would leave the default (even one equal to it):
        # everything the limits bound is refused in that session instead
        for value in ("1000", "5000"):
            with lab.connect(user="bob", options=f"-c pgbench_lab.max_clients={value}") as conn:
                for sql in ("SELECT pgbench_lab.start('select-only', clients => 2, transactions => 1)",
                            "CALL pgbench_lab.run('select-only', transactions => 1)",
                            "SELECT * FROM pgbench_lab.init(1)"):
                    with pytest.raises(psycopg.errors.InsufficientPrivilege,
                                       match="pgbench_lab.max_clients does not have the value configured "
                                             "for this session"):
                        conn.execute(sql)
        # the same for the samples' limit, which bounds what a run keeps
        with lab.connect(user="bob", options="-c pgbench_lab.max_samples=1") as conn:
            with pytest.raises(psycopg.errors.InsufficientPrivilege,
                               match="pgbench_lab.max_samples does not have the value configured"):
                conn.execute("SELECT pgbench_lab.start('select-only', transactions => 1)")
        # within the limits bob runs, and other roles keep the defaults
        row = lab.sql("CALL pgbench_lab.run('select-only', clients => 1, duration => '1 s')", user="bob")[0]
        assert row[1] == "done", row
        row = lab.sql("CALL pgbench_lab.run('select-only', clients => 2, transactions => 1)", user="alice")[0]
        assert row[1] == "done", row
    finally:
        for name in ("max_clients", "max_duration", "max_scale"):
            lab.sql(f"ALTER ROLE bob RESET pgbench_lab.{name}")
        lab.sql("REVOKE EXECUTE ON FUNCTION pgbench_lab.init(int, int, bool, bool, text, int, text, text, text, text) FROM bob")
    no_workers(lab)


def test_cache_status_locks_nothing_it_may_not_read(lab):
    """A pg_monitor member without SELECT on a table gets 42501 from
    cache_status(table) at once: it queues no lock behind a session that
    holds one (where it would hold up every reader after it)."""
    lab.sql("CREATE TABLE secret (id int)")
    try:
        with lab.connect() as holder:
            holder.execute("BEGIN")
            holder.execute("LOCK TABLE secret IN ACCESS EXCLUSIVE MODE")
            with lab.connect(user="mon") as conn:
                conn.execute("SET lock_timeout = '20s'")
                assert state_on(conn, "SELECT * FROM pgbench_lab.cache_status('secret')") == "42501"
                # its own database-wide view skips what is locked, and waits for nothing
                conn.execute("SELECT * FROM pgbench_lab.cache_status()").fetchall()
            waiting = lab.scalar("SELECT count(*) FROM pg_locks WHERE NOT granted")
            holder.execute("ROLLBACK")
        assert waiting == 0
        lab.sql("GRANT SELECT ON secret TO mon")
        assert state(lab, "SELECT * FROM pgbench_lab.cache_status('secret')", "mon") == "00000"
    finally:
        lab.sql("DROP TABLE secret")


def state_on(conn, sql):
    try:
        conn.execute(sql).fetchall()
        return "00000"
    except psycopg.Error as e:
        return e.sqlstate
