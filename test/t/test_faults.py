"""Faults during runs, each on a real server: the run's owner session
terminated, the session waiting in CALL run() terminated, two runs on the
same tables, one client terminated, DROP EXTENSION and DROP TABLE pgbench_accounts mid-run, and
make_cold on the tables a run is using.  Each ends with the TPC-B sums
equal, the run recorded with the right status, no worker left behind and
no crash in the server log.  (Terminated workers, cancel, statement_timeout,
immediate shutdown and exhausted worker slots are in test_runner.py.)"""
import re

import psycopg
import pytest

from conftest import Background, pgbench_cluster
from test_runner import WORKER_TYPES, balances as sums

CRASH = re.compile(r"terminated by signal|PANIC|was terminated by exception|exited with exit code [2-9]")


@pytest.fixture(scope="module")
def lab():
    yield from pgbench_cluster("faults", {"shared_buffers": "32MB", "max_worker_processes": "16"},
                               scale=1)


def assert_clean(c, equal_sums=True):
    """No worker left, no crash in the log, and (if asked) the four sums equal."""
    c.poll(f"SELECT count(*) = 0 FROM pg_stat_activity WHERE backend_type IN {WORKER_TYPES}",
           timeout=20)
    crashes = [line for line in c.log().splitlines() if CRASH.search(line)]
    assert not crashes, crashes[:5]
    if equal_sums:
        a, t, b, h = sums(c)
        assert a == t == b == h, (a, t, b, h)


def status(c, run_id):
    return c.scalar("SELECT status FROM pgbench_lab.runs WHERE run_id = %s", (run_id,))


def wait_running(c, run_id, xacts=20):
    c.poll("SELECT transactions > %s FROM pgbench_lab.active_runs WHERE run_id = %s",
           (xacts, run_id))


def test_owner_session_terminated_run_goes_on(lab):
    """start() hands the run to its coordinator: the caller may go away."""
    owner = lab.connect()
    pid = owner.info.backend_pid
    run_id = owner.execute("SELECT pgbench_lab.start('tpcb-like', clients => 2, "
                           "duration => '2 s')").fetchone()[0]
    wait_running(lab, run_id)
    assert lab.scalar("SELECT pg_terminate_backend(%s)", (pid,)) is True
    lab.poll("SELECT count(*) = 0 FROM pg_stat_activity WHERE pid = %s", (pid,))
    owner.close()
    assert lab.scalar("SELECT count(*) FROM pgbench_lab.active_runs WHERE run_id = %s",
                      (run_id,)) in (0, 1)
    lab.poll("SELECT status <> 'running' FROM pgbench_lab.runs WHERE run_id = %s", (run_id,),
             timeout=30)
    row = lab.sql("SELECT status, transactions, measured_seconds FROM pgbench_lab.runs "
                  "WHERE run_id = %s", (run_id,))[0]
    assert row[0] == "done" and row[1] > 0 and row[2] >= 1.9, row
    assert_clean(lab)


def test_waiting_session_terminated_cancels_run(lab):
    """CALL run() stops its run when the waiting session is terminated."""
    waiter = lab.connect()
    pid = waiter.info.backend_pid
    call = Background(waiter, "CALL pgbench_lab.run('tpcb-like', clients => 2, duration => '60 s')")
    lab.poll("SELECT count(*) = 1 FROM pgbench_lab.active_runs WHERE transactions > 20")
    run_id = lab.scalar("SELECT run_id FROM pgbench_lab.active_runs")
    assert lab.scalar("SELECT pg_terminate_backend(%s)", (pid,)) is True
    error = call.join(timeout=30)
    waiter.close()
    assert isinstance(error, psycopg.OperationalError)
    lab.poll(f"SELECT count(*) = 0 FROM pg_stat_activity WHERE backend_type IN {WORKER_TYPES}",
             timeout=10)
    lab.poll("SELECT status <> 'running' FROM pgbench_lab.runs WHERE run_id = %s", (run_id,))
    row = lab.sql("SELECT status, transactions, measured_seconds FROM pgbench_lab.runs "
                  "WHERE run_id = %s", (run_id,))[0]
    assert row[0] == "cancelled" and row[1] > 20 and row[2] < 60, row
    assert_clean(lab)


def test_one_client_terminated_fails_the_run(lab):
    """The other clients go on to the end; the run is failed, naming the client."""
    run_id = lab.scalar("SELECT pgbench_lab.start('tpcb-like', clients => 2, duration => '2 s')")
    wait_running(lab, run_id)
    lab.sql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE backend_type = 'pgbench_lab client' LIMIT 1")
    with lab.connect() as conn:
        row = conn.execute("CALL pgbench_lab.wait(%s)", (run_id,)).fetchone()
    assert row[1] == "failed" and row[2] > 20, row
    assert "exited before the end of the run" in row[7], row[7]
    assert lab.scalar("SELECT measured_seconds >= 1.9 FROM pgbench_lab.runs WHERE run_id = %s",
                      (run_id,)) is True
    assert_clean(lab)


def assert_cancelled_by_client(c, row, mark):
    """The run ended cancelled, with the client's cancel as its error, and
    the cancelled worker exited normally (an ERROR outside its error
    handling would have ended it with exit code 1)."""
    assert row[1] == "cancelled", row
    assert "57014" in row[7] and "canceling statement due to user request" in row[7], row[7]
    assert "terminated" not in row[7] and "exited" not in row[7], row[7]
    log = c.log()[mark:]
    assert "terminating any other active server processes" not in log
    assert not re.search(r'"pgbench_lab client" \(PID \d+\) exited with exit code 1', log), log


@pytest.mark.parametrize("via", ["spi", "libpq"])
def test_cancelled_client_cancels_the_run(lab, via):
    """pg_cancel_backend() on one client worker, mid-run: the run stops at
    once and is recorded cancelled with SQLSTATE 57014."""
    mark = len(lab.log())
    run_id = lab.scalar("SELECT pgbench_lab.start('tpcb-like', clients => 2, duration => '30 s', "
                        "via => %s)", (via,))
    wait_running(lab, run_id)
    pid = lab.scalar("SELECT pid FROM pg_stat_activity WHERE backend_type = 'pgbench_lab client' "
                     "ORDER BY pid LIMIT 1")
    assert lab.scalar("SELECT pg_cancel_backend(%s)", (pid,)) is True
    with lab.connect() as conn:
        row = conn.execute("CALL pgbench_lab.wait(%s)", (run_id,)).fetchone()
    assert_cancelled_by_client(lab, row, mark)
    assert row[2] > 20
    assert lab.scalar("SELECT measured_seconds < 30 FROM pgbench_lab.runs WHERE run_id = %s",
                      (run_id,)) is True
    assert_clean(lab)


@pytest.mark.parametrize("via", ["spi", "libpq"])
def test_client_cancelled_while_waiting_for_the_go(lab, via):
    """A client cancelled after it is ready, before the clock starts (the
    coordinator is held while it records the run): the run is cancelled."""
    mark = len(lab.log())
    with lab.connect() as holder:
        # SHARE blocks the coordinator's INSERT of the run row, not start()'s reads
        holder.execute("BEGIN")
        holder.execute("LOCK TABLE pgbench_lab.runs IN SHARE MODE")
        starter = lab.connect()
        call = Background(starter, "SELECT pgbench_lab.start('tpcb-like', clients => 2, "
                                   "duration => '30 s', via => %s)", (via,))
        lab.poll("SELECT count(*) = 1 FROM pg_stat_activity WHERE backend_type = "
                 "'pgbench_lab coordinator' AND wait_event_type = 'Lock'")
        # both clients are ready (they connected and prepared) and wait for the go
        lab.poll("SELECT count(*) = 2 FROM pg_stat_activity WHERE backend_type = "
                 "'pgbench_lab client' AND wait_event = 'Extension'")
        pid = lab.scalar("SELECT pid FROM pg_stat_activity WHERE backend_type = "
                         "'pgbench_lab client' ORDER BY pid LIMIT 1")
        assert lab.scalar("SELECT pg_cancel_backend(%s)", (pid,)) is True
        lab.poll("SELECT count(*) = 0 FROM pg_stat_activity WHERE pid = %s", (pid,))
        holder.execute("COMMIT")
    try:
        assert call.join(30) is None, call.error
    finally:
        starter.close()
    run_id = lab.scalar("SELECT max(run_id) FROM pgbench_lab.runs")
    with lab.connect() as conn:
        row = conn.execute("CALL pgbench_lab.wait(%s)", (run_id,)).fetchone()
    assert_cancelled_by_client(lab, row, mark)
    assert_clean(lab)


def test_two_runs_on_the_same_tables(lab):
    before = sums(lab)
    hist = lab.scalar("SELECT count(*) FROM pgbench_history")
    a = lab.scalar("SELECT pgbench_lab.start('tpcb-like', clients => 2, duration => '2 s')")
    b = lab.scalar("SELECT pgbench_lab.start('tpcb-like', clients => 2, transactions => 200)")
    lab.poll("SELECT count(*) = 2 FROM pgbench_lab.active_runs")
    rows = []
    for run_id in (a, b):
        with lab.connect() as conn:
            rows.append(conn.execute("CALL pgbench_lab.wait(%s)", (run_id,)).fetchone())
    assert [r[1] for r in rows] == ["done", "done"], rows
    assert rows[1][2] == 400
    added = lab.scalar("SELECT count(*) FROM pgbench_history") - hist
    assert added == rows[0][2] + rows[1][2]
    after = sums(lab)
    delta = [x - y for x, y in zip(after, before)]
    assert delta[0] == delta[1] == delta[2] == delta[3]
    assert_clean(lab)


def test_make_cold_while_a_run_uses_the_table(lab):
    """18 evicts under the run's feet; 15 and 16 take AccessExclusiveLock, so
    the clients wait for it.  Either way no write is lost."""
    before = lab.scalar("SELECT count(*) FROM pgbench_history")
    run_id = lab.scalar("SELECT pgbench_lab.start('tpcb-like', clients => 2, duration => '2 s')")
    wait_running(lab, run_id)
    evicted = 0
    for _ in range(3):
        done = lab.scalar("SELECT transactions FROM pgbench_lab.active_runs WHERE run_id = %s",
                          (run_id,))
        with lab.connect() as conn:
            rows = conn.execute("SELECT buffers_evicted FROM "
                                "pgbench_lab.make_cold('pgbench_accounts')").fetchall()
        evicted += sum(r[0] for r in rows)
        # the run goes on after each eviction
        lab.poll("SELECT coalesce(bool_or(transactions > %s), true) FROM pgbench_lab.active_runs "
                 "WHERE run_id = %s", (done, run_id))
    with lab.connect() as conn:
        row = conn.execute("CALL pgbench_lab.wait(%s)", (run_id,)).fetchone()
    assert row[1] == "done" and row[6] == 0, row
    assert lab.scalar("SELECT count(*) FROM pgbench_history") - before == row[2]
    assert evicted > 0
    assert_clean(lab)


def test_drop_table_during_run_fails_the_run(lab):
    run_id = lab.scalar("SELECT pgbench_lab.start('tpcb-like', clients => 2, duration => '60 s')")
    wait_running(lab, run_id)
    lab.sql("DROP TABLE pgbench_accounts")
    with lab.connect() as conn:
        row = conn.execute("CALL pgbench_lab.wait(%s)", (run_id,)).fetchone()
    assert row[1] == "failed", row
    assert "pgbench_accounts" in row[7] and "42P01" in row[7], row[7]
    assert_clean(lab, equal_sums=False)
    t, b, h = lab.sql("""SELECT (SELECT sum(tbalance) FROM pgbench_tellers),
                                (SELECT sum(bbalance) FROM pgbench_branches),
                                (SELECT coalesce(sum(delta), 0) FROM pgbench_history)""")[0]
    assert t == b == h
    # a new run is refused with a clear error before any worker starts
    with pytest.raises(psycopg.errors.UndefinedTable):
        lab.sql("SELECT pgbench_lab.start('tpcb-like')")
    assert_clean(lab, equal_sums=False)
    lab.run_client("pgbench", "-i", "-s", "1", "-q", "postgres")


def test_drop_extension_during_run(lab):
    """DROP EXTENSION stops the runs: their coordinator logs why and exits
    (no crash), the waiting session gets an error, the data stays consistent,
    and the extension can be created again."""
    run_id = lab.scalar("SELECT pgbench_lab.start('tpcb-like', clients => 2, duration => '60 s')")
    wait_running(lab, run_id)
    waiter = lab.connect()
    call = Background(waiter, "CALL pgbench_lab.wait(%s)", (run_id,))
    lab.poll("SELECT count(*) = 1 FROM pg_stat_activity WHERE query LIKE 'CALL pgbench_lab.wait%%' "
             "AND state = 'active'")
    lab.sql("DROP EXTENSION pgbench_lab")
    error = call.join(timeout=30)
    waiter.close()
    assert not call.is_alive()
    assert error is not None and not isinstance(error, psycopg.OperationalError), error
    assert_clean(lab)
    assert re.search(r'"pgbench_lab coordinator" \(PID \d+\) exited with exit code 1', lab.log())
    lab.sql("CREATE EXTENSION pgbench_lab")
    with lab.connect() as conn:
        row = conn.execute("CALL pgbench_lab.run('tpcb-like', transactions => 20)").fetchone()
    assert row[1] == "done" and row[2] == 20
    assert_clean(lab)
