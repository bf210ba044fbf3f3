"""Runs in background workers: honest counts, no pinned xmin, cancel, limits,
privileges.  Every test here starts real workers on a real server."""
import threading
import time

import psycopg
import pytest

from conftest import Background, Cluster, pgbench_cluster

WORKER_TYPES = "('pgbench_lab coordinator', 'pgbench_lab client')"


@pytest.fixture(scope="module")
def lab():
    yield from pgbench_cluster("runner", {"shared_buffers": "32MB", "max_worker_processes": "16"}, scale=2)


def workers(c):
    return c.scalar(f"SELECT count(*) FROM pg_stat_activity WHERE backend_type IN {WORKER_TYPES}")


def run(c, *args, user="postgres", **kw):
    """CALL pgbench_lab.run(...) with named arguments; returns the result row as a dict."""
    names = ", ".join(f"{k} => %({k})s" for k in kw)
    sep = ", " if names else ""
    with c.connect(user=user) as conn:
        cur = conn.execute(f"CALL pgbench_lab.run(%(w)s{sep}{names})", dict(kw, w=args[0]))
        cols = [d.name for d in cur.description]
        return dict(zip(cols, cur.fetchone()))


def balances(c):
    return c.sql("""SELECT (SELECT sum(abalance) FROM pgbench_accounts),
                           (SELECT sum(tbalance) FROM pgbench_tellers),
                           (SELECT sum(bbalance) FROM pgbench_branches),
                           (SELECT coalesce(sum(delta), 0) FROM pgbench_history)""")[0]


def changes(c, before):
    """What a run changed: (accounts, tellers, branches, history) sums."""
    return tuple(x - y for x, y in zip(balances(c), before))


def test_tpcb_counts_are_honest(lab):
    before = lab.scalar("SELECT count(*) FROM pgbench_history")
    sums = balances(lab)
    r = run(lab, "tpcb-like", clients=2, duration="2 s")
    assert r["status"] == "done", r
    added = lab.scalar("SELECT count(*) FROM pgbench_history") - before
    assert r["transactions_done"] == added > 0
    a, t, b, h = changes(lab, sums)
    assert a == t == b == h
    total = lab.scalar("SELECT sum(transactions) FROM pgbench_lab.run_progress WHERE run_id = %s",
                       (r["run_id"],))
    assert total == r["transactions_done"]
    hist = lab.scalar("SELECT sum(count) FROM pgbench_lab.run_latency WHERE run_id = %s",
                      (r["run_id"],))
    assert hist == r["transactions_done"]
    row = lab.sql("""SELECT latency_p50_ms <= latency_p99_ms AND latency_p99_ms <= latency_max_ms * 1.01,
                            hit_ratio BETWEEN 0 AND 1, wal_bytes > 0, scale, settings ? 'server'
                       FROM pgbench_lab.runs WHERE run_id = %s""", (r["run_id"],))[0]
    assert row == (True, True, True, 2, True)


def test_simple_update_and_transaction_count(lab):
    before = lab.scalar("SELECT count(*) FROM pgbench_history")
    sums = balances(lab)
    r = run(lab, "simple-update", clients=2, transactions=25)
    assert r["status"] == "done" and r["transactions_done"] == 50
    assert lab.scalar("SELECT count(*) FROM pgbench_history") - before == 50
    a, t, b, h = changes(lab, sums)
    assert a == h and t == b == 0


def test_select_only_matches_xact_commit(lab):
    def commits():
        with lab.connect() as conn:
            conn.execute("SELECT pg_stat_clear_snapshot()")
            return conn.execute("SELECT xact_commit FROM pg_stat_database "
                                "WHERE datname = current_database()").fetchone()[0]

    before = commits()
    r = run(lab, "select-only", clients=2, transactions=500)
    assert r["transactions_done"] == 1000
    lab.poll("SELECT count(*) = 0 FROM pg_stat_activity WHERE backend_type IN " + WORKER_TYPES)
    # besides the workload: the run's own bookkeeping (row, progress, result,
    # each client's setup) and this test's few statements
    extra = commits() - before - 1000
    assert 0 <= extra <= 40, extra


def test_seed_reproduces_draws(lab):
    def aids(seed):
        r = run(lab, "tpcb-like", clients=1, transactions=30, random_seed=seed)
        return [x[0] for x in lab.sql(
            "SELECT aid FROM pgbench_history WHERE mtime >= (SELECT started_at FROM pgbench_lab.runs "
            "WHERE run_id = %s) ORDER BY mtime, aid", (r["run_id"],))]

    first, second = aids(42), aids(42)
    assert len(first) == 30 and first == second
    assert aids(43) != first
    assert all(1 <= a <= 200000 for a in first)


def test_waiting_session_holds_no_snapshot(lab):
    with lab.connect() as waiter:
        pid = waiter.info.backend_pid
        t = threading.Thread(target=lambda: waiter.execute(
            "CALL pgbench_lab.run('tpcb-like', clients => 2, duration => '3 s')"))
        t.start()
        lab.poll("SELECT count(*) > 0 FROM pgbench_lab.runs WHERE status = 'running'")
        samples = []
        deadline = time.monotonic() + 2
        while time.monotonic() < deadline:
            samples.append(lab.sql("SELECT state, backend_xmin IS NULL, backend_xid IS NULL, "
                                   "wait_event_type FROM pg_stat_activity WHERE pid = %s",
                                   (pid,))[0])
            time.sleep(0.05)
        t.join()
    # while it waits on the clients (wait event type Extension); the short
    # transactions recording the run's start and result hold an xid
    active = [s for s in samples if s[0] == "active" and s[3] == "Extension"]
    assert len(active) >= 10, samples
    held = [s for s in active if not (s[1] and s[2])]
    assert not held, f"{len(held)} of {len(active)} samples: {held}"


def test_workers_run_as_caller(lab):
    lab.sql("DROP ROLE IF EXISTS alice")
    lab.sql("CREATE ROLE alice LOGIN")
    lab.sql("GRANT SELECT ON pgbench_accounts, pgbench_branches TO alice")
    lab.sql("GRANT EXECUTE ON FUNCTION pgbench_lab.start TO alice")
    run_id = lab.scalar("SELECT pgbench_lab.start('select-only', clients => 2, duration => '3 s')",
                        user="alice")
    lab.poll("SELECT count(*) = 2 FROM pg_stat_activity WHERE backend_type = 'pgbench_lab client'")
    users = lab.sql("SELECT DISTINCT usename FROM pg_stat_activity "
                    "WHERE backend_type = 'pgbench_lab client'")
    assert users == [("alice",)]
    live = lab.sql("SELECT run_id, transactions >= 0 FROM pgbench_lab.active_runs", user="alice")
    assert live == [(run_id, True)]
    with lab.connect(user="alice") as conn:
        r = conn.execute("CALL pgbench_lab.wait(%s)", (run_id,)).fetchone()
    assert r[1] == "done"
    # alice sees her run; another role sees nothing and cannot cancel it
    lab.sql("DROP ROLE IF EXISTS bob")
    lab.sql("CREATE ROLE bob LOGIN")
    assert lab.scalar("SELECT count(*) FROM pgbench_lab.runs", user="bob") == 0
    assert lab.scalar("SELECT count(*) FROM pgbench_lab.runs WHERE run_id = %s",
                      (run_id,), user="alice") == 1


def test_missing_privilege_refused_before_start(lab):
    lab.sql("DROP ROLE IF EXISTS carol")
    lab.sql("CREATE ROLE carol LOGIN")
    lab.sql("GRANT SELECT ON pgbench_accounts, pgbench_branches TO carol")
    lab.sql("GRANT EXECUTE ON FUNCTION pgbench_lab.start TO carol")
    runs = lab.scalar("SELECT count(*) FROM pgbench_lab.runs")
    with pytest.raises(psycopg.errors.InsufficientPrivilege) as e:
        lab.sql("SELECT pgbench_lab.start('tpcb-like')", user="carol")
    assert "pgbench_accounts" in str(e.value) or "pgbench_tellers" in str(e.value)
    assert lab.scalar("SELECT count(*) FROM pgbench_lab.runs") == runs
    assert workers(lab) == 0
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        lab.sql("CALL pgbench_lab.run('select-only')", user="carol")


def test_cancel_keeps_partial_figures(lab):
    run_id = lab.scalar("SELECT pgbench_lab.start('select-only', clients => 2, duration => '60 s')")
    lab.poll("SELECT transactions > 100 FROM pgbench_lab.active_runs WHERE run_id = %s", (run_id,))
    t0 = time.monotonic()
    assert lab.scalar("SELECT pgbench_lab.cancel(%s)", (run_id,)) is True
    lab.poll(f"SELECT count(*) = 0 FROM pg_stat_activity WHERE backend_type IN {WORKER_TYPES}",
             timeout=10)
    stopped = time.monotonic() - t0
    row = lab.sql("SELECT status, transactions, measured_seconds FROM pgbench_lab.runs "
                  "WHERE run_id = %s", (run_id,))[0]
    assert row[0] == "cancelled" and row[1] > 100 and row[2] < 60
    print(f"cancel to no workers: {stopped:.3f} s")
    assert lab.scalar("SELECT pgbench_lab.cancel(%s)", (run_id,)) is False


@pytest.mark.parametrize("how", ["pg_cancel_backend", "statement_timeout"])
def test_cancelling_the_waiting_call_stops_the_run(lab, how):
    with lab.connect() as waiter:
        pid = waiter.info.backend_pid
        if how == "statement_timeout":
            waiter.execute("SET statement_timeout = '1500ms'")
        call = Background(waiter, "CALL pgbench_lab.run('select-only', clients => 2, duration => '60 s')")
        lab.poll("SELECT count(*) > 0 FROM pgbench_lab.active_runs WHERE transactions > 0")
        if how == "pg_cancel_backend":
            lab.sql("SELECT pg_cancel_backend(%s)", (pid,))
        error = call.join(timeout=30)
    assert isinstance(error, psycopg.errors.QueryCanceled)
    lab.poll(f"SELECT count(*) = 0 FROM pg_stat_activity WHERE backend_type IN {WORKER_TYPES}",
             timeout=10)
    lab.poll("SELECT status = 'cancelled' FROM pgbench_lab.runs ORDER BY run_id DESC LIMIT 1")


def test_bad_settings_refused(lab):
    with pytest.raises(psycopg.errors.UndefinedObject):
        lab.sql("""SELECT pgbench_lab.start('select-only', settings => '{"no_such_setting": "1"}')""")
    with pytest.raises(psycopg.errors.CantChangeRuntimeParam):
        lab.sql("""SELECT pgbench_lab.start('select-only', settings => '{"shared_buffers": "1GB"}')""")
    with pytest.raises(psycopg.errors.InvalidParameterValue):
        lab.sql("""SELECT pgbench_lab.start('select-only', settings => '{"synchronous_commit": "maybe"}')""")
    with pytest.raises(psycopg.errors.InvalidParameterValue):
        lab.sql("""SELECT pgbench_lab.start('select-only', settings => '[1]')""")
    assert workers(lab) == 0


def test_settings_apply_in_clients(lab):
    r = run(lab, "tpcb-like", clients=1, transactions=20,
            settings='{"synchronous_commit": "off", "application_name": "lab-test"}')
    assert r["status"] == "done"
    s = lab.scalar("SELECT settings->'session'->>'synchronous_commit' FROM pgbench_lab.runs "
                   "WHERE run_id = %s", (r["run_id"],))
    assert s == "off"


def test_serialization_failures_are_retried(lab):
    sums = balances(lab)
    r = run(lab, "tpcb-like", clients=4, duration="2 s", max_tries=10,
            settings='{"default_transaction_isolation": "repeatable read"}')
    row = lab.sql("SELECT retries, failures, transactions FROM pgbench_lab.runs WHERE run_id = %s",
                  (r["run_id"],))[0]
    assert row[0] > 0, row          # scale 2 with 4 clients: branch rows collide
    a, t, b, h = changes(lab, sums)
    assert a == t == b == h


def test_other_errors_end_the_client(lab):
    sums = balances(lab)
    lab.sql("ALTER TABLE pgbench_history ADD CONSTRAINT lab_no_big CHECK (delta < 4000) NOT VALID")
    try:
        r = run(lab, "tpcb-like", clients=2, duration="3 s")
    finally:
        lab.sql("ALTER TABLE pgbench_history DROP CONSTRAINT lab_no_big")
    assert r["status"] == "failed"
    assert "lab_no_big" in r["error"] and "23514" in r["error"]
    a, t, b, h = changes(lab, sums)
    assert a == t == b == h


def test_out_of_worker_slots(new_cluster):
    c = new_cluster("slots", {"max_worker_processes": "3"})
    c.run_client("pgbench", "-i", "-s", "1", "-q", "postgres")
    c.sql("CREATE EXTENSION pgbench_lab CASCADE")
    in_use = c.scalar("SELECT count(*) FROM pg_stat_activity WHERE backend_type "
                      "= 'logical replication launcher'")
    with pytest.raises(psycopg.errors.ConfigurationLimitExceeded) as e:
        c.sql("SELECT pgbench_lab.start('select-only', clients => 4)")
    # refused before anything starts, saying what it needs and what to set
    assert e.value.diag.message_primary == \
        f"this run needs 5 background worker slots, {3 - in_use} are free"
    assert f"Set max_worker_processes to at least {5 + in_use}" in e.value.diag.message_hint
    # a sweep is refused before its first run, for its largest client count
    with pytest.raises(psycopg.errors.ConfigurationLimitExceeded) as e:
        c.sql("CALL pgbench_lab.sweep('select-only', '{1,4}', '1 s')")
    assert "needs 5 background worker slots" in e.value.diag.message_primary
    assert c.scalar("SELECT count(*) FROM pgbench_lab.runs") == 0
    assert c.scalar("SELECT count(*) FROM pgbench_lab.experiments") == 0
    c.poll(f"SELECT count(*) = 0 FROM pg_stat_activity WHERE backend_type IN {WORKER_TYPES}")
    # and a run that fits still works
    assert c.scalar("SELECT pgbench_lab.start('select-only', clients => 1, transactions => 10)") > 0


def test_nologin_role_via_set_role(lab):
    lab.sql("DROP ROLE IF EXISTS lab_nologin")
    lab.sql("CREATE ROLE lab_nologin NOLOGIN")
    lab.sql("GRANT SELECT ON pgbench_accounts, pgbench_branches TO lab_nologin")
    lab.sql("GRANT EXECUTE ON PROCEDURE pgbench_lab.run TO lab_nologin")
    with lab.connect() as conn:
        conn.execute("SET ROLE lab_nologin")
        r = conn.execute("CALL pgbench_lab.run('select-only', transactions => 10)").fetchone()
        assert r[1] == "done" and r[2] == 10
        owner = conn.execute("SELECT owner::text FROM pgbench_lab.runs WHERE run_id = %s",
                             (r[0],)).fetchone()[0]
    assert owner == "lab_nologin"


def test_bad_inputs(lab):
    bad = [
        ("SELECT pgbench_lab.start(NULL)", psycopg.errors.NullValueNotAllowed),
        ("SELECT pgbench_lab.start('tpch')", psycopg.errors.InvalidParameterValue),
        ("SELECT pgbench_lab.start('select-only', clients => 0)", psycopg.errors.InvalidParameterValue),
        ("SELECT pgbench_lab.start('select-only', clients => 100000)", psycopg.errors.InvalidParameterValue),
        ("SELECT pgbench_lab.start('select-only', duration => '-1 s')", psycopg.errors.InvalidParameterValue),
        ("SELECT pgbench_lab.start('select-only', duration => '2 days')", psycopg.errors.InvalidParameterValue),
        ("SELECT pgbench_lab.start('select-only', duration => NULL)", psycopg.errors.InvalidParameterValue),
        ("SELECT pgbench_lab.start('select-only', transactions => 0)", psycopg.errors.InvalidParameterValue),
        ("SELECT pgbench_lab.start('select-only', max_tries => -1)", psycopg.errors.InvalidParameterValue),
        ("SELECT pgbench_lab.start('select-only', label => repeat('x', 300))", psycopg.errors.StringDataRightTruncation),
        ("SELECT pgbench_lab.cancel(NULL::bigint)", psycopg.errors.NullValueNotAllowed),
        ("SELECT pgbench_lab.cancel(-5)", psycopg.errors.UndefinedObject),
        ("CALL pgbench_lab.wait(123456)", psycopg.errors.UndefinedObject),
    ]
    for sql, err in bad:
        with pytest.raises(err):
            lab.sql(sql)
    with lab.connect(autocommit=False) as conn:
        with pytest.raises(psycopg.errors.InvalidTransactionTermination):
            conn.execute("CALL pgbench_lab.run('select-only', transactions => 1)")
    assert workers(lab) == 0


def test_immediate_shutdown_marks_run_aborted(new_cluster):
    c = new_cluster("crash", {"shared_buffers": "32MB"})
    c.run_client("pgbench", "-i", "-s", "1", "-q", "postgres")
    c.sql("CREATE EXTENSION pgbench_lab CASCADE")
    run_id = c.scalar("SELECT pgbench_lab.start('tpcb-like', clients => 2, duration => '60 s')")
    c.poll("SELECT count(*) >= 2 FROM pgbench_lab.run_progress WHERE run_id = %s", (run_id,))
    c.stop("immediate")
    c.start()
    row = c.sql("CALL pgbench_lab.wait(%s)", (run_id,))[0]
    assert row[1] == "aborted" and row[2] > 0
    assert "restart" in row[7]
    a, t, b, h = balances(c)
    assert a == t == b == h


def test_immediate_shutdown_marks_experiment_aborted(new_cluster):
    """An experiment whose procedure the restart took: report() reads it as
    aborted at once, and its row says so from the first call that reaps
    runs (here wait()), with its run, not only when the next experiment
    begins."""
    c = new_cluster("crash-sweep", {"shared_buffers": "32MB"})
    c.run_client("pgbench", "-i", "-s", "1", "-q", "postgres")
    c.sql("CREATE EXTENSION pgbench_lab CASCADE")
    conn = c.connect()
    call = Background(conn, "CALL pgbench_lab.sweep('select-only', '{1}', '60 s', label => 'cut short')")
    c.poll("SELECT count(*) = 1 FROM pgbench_lab.run_progress p JOIN pgbench_lab.runs r USING (run_id) "
           "WHERE r.status = 'running'")
    eid, run_id = c.sql("SELECT e.experiment_id, r.run_id FROM pgbench_lab.experiments e, pgbench_lab.runs r "
                        "WHERE e.label = 'cut short' AND r.status = 'running'")[0]
    c.stop("immediate")
    assert isinstance(call.join(), psycopg.OperationalError), call.error
    conn.close()
    c.start()
    status = "SELECT status, finished_at IS NOT NULL FROM pgbench_lab.experiments WHERE experiment_id = %s"
    report = [r[0] for r in c.sql("SELECT * FROM pgbench_lab.report(%s)", (eid,))]
    assert any(x.startswith("status aborted, started ") for x in report), report
    row = c.sql("CALL pgbench_lab.wait(%s)", (run_id,))[0]
    assert row[1] == "aborted" and "restart" in row[7], row
    assert c.sql(status, (eid,)) == [("aborted", True)]


def test_drop_extension_while_waiting(new_cluster):
    """DROP EXTENSION while a session waits for a run: the run's workers
    end, and the waiting call ends with a clear error (42704 naming the
    extension), not an internal one."""
    c = new_cluster("dropext", {"shared_buffers": "32MB"})
    c.run_client("pgbench", "-i", "-s", "1", "-q", "postgres")
    c.sql("CREATE EXTENSION pgbench_lab CASCADE")
    run_id = c.scalar("SELECT pgbench_lab.start('select-only', clients => 1, duration => '60 s')")
    c.poll("SELECT count(*) >= 1 FROM pgbench_lab.run_progress WHERE run_id = %s", (run_id,))
    with c.connect() as conn:
        waiter = Background(conn, "CALL pgbench_lab.wait(%s)", (run_id,))
        c.poll("SELECT wait_event_type = 'Extension' FROM pg_stat_activity WHERE pid = %s", (waiter.pid,))
        c.sql("DROP EXTENSION pgbench_lab")
        err = waiter.join(60)
    assert err is not None and err.sqlstate == "42704", err
    assert "pgbench_lab" in str(err) and "dropped" in (err.diag.message_hint or "")
    c.poll(f"SELECT count(*) = 0 FROM pg_stat_activity WHERE backend_type IN {WORKER_TYPES}")
    assert "terminating any other active server processes" not in c.log()


@pytest.mark.parametrize("workload", ["select-only", "tpcb-like"])
def test_latency_stddev_agrees_with_the_histogram(lab, workload):
    """The standard deviation a run reports (Welford's moments, merged over
    clients) agrees with the one its latency histogram gives: a sum of
    squares of whole microseconds lost it to truncation for in-server
    transactions of a few microseconds, and overflowed for long ones."""
    r = run(lab, workload, clients=2, transactions=3000)
    assert r["status"] == "done"
    buckets = lab.sql("SELECT bucket_upper_us, count FROM pgbench_lab.run_latency "
                      "WHERE run_id = %s", (r["run_id"],))
    n = sum(c for _, c in buckets)
    # a bucket is 1/128 of its power of two wide: its middle is within 0.4%
    mid = [(u * (1 - 1 / 256), c) for u, c in buckets]
    mean = sum(u * c for u, c in mid) / n
    sd = (sum(c * (u - mean) ** 2 for u, c in mid) / n) ** 0.5
    got_mean, got_sd = lab.sql("SELECT latency_avg_ms * 1000, latency_stddev_ms * 1000 "
                               "FROM pgbench_lab.runs WHERE run_id = %s", (r["run_id"],))[0]
    assert n == 6000
    assert abs(got_mean - mean) <= 0.01 * mean + 0.05, (got_mean, mean)
    assert abs(got_sd - sd) <= 0.05 * sd + 0.05, (got_sd, sd, mean)


def test_terminated_coordinator_and_client(lab):
    sums = balances(lab)
    run_id = lab.scalar("SELECT pgbench_lab.start('tpcb-like', clients => 2, duration => '60 s')")
    lab.poll("SELECT transactions > 10 FROM pgbench_lab.active_runs WHERE run_id = %s", (run_id,))
    lab.sql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE backend_type = 'pgbench_lab client' LIMIT 1")
    lab.poll("SELECT count(*) = 1 FROM pg_stat_activity WHERE backend_type = 'pgbench_lab client'")
    lab.sql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE backend_type = 'pgbench_lab coordinator'")
    lab.poll(f"SELECT count(*) = 0 FROM pg_stat_activity WHERE backend_type IN {WORKER_TYPES}")
    row = lab.sql("CALL pgbench_lab.wait(%s)", (run_id,))[0]
    assert row[1] == "aborted", row
    a, t, b, h = changes(lab, sums)
    assert a == t == b == h


def test_cache_snapshots_around_runs(lab):
    r = run(lab, "select-only", clients=1, transactions=200)
    row = lab.sql("""SELECT b.label, a.label,
                            (SELECT count(*) FROM pgbench_lab.cache_snapshot_relations s
                              WHERE s.snapshot_id = a.snapshot_id
                                AND s.relid = 'pgbench_accounts'::regclass)
                       FROM pgbench_lab.runs r
                       JOIN pgbench_lab.cache_snapshots b ON b.snapshot_id = r.cache_before
                       JOIN pgbench_lab.cache_snapshots a ON a.snapshot_id = r.cache_after
                      WHERE r.run_id = %s""", (r["run_id"],))
    assert row == [(f"run {r['run_id']}: before", f"run {r['run_id']}: after", 1)]


def test_spi_floor(lab):
    """The benchmark's floor (test/bench/): bare select-only workers that
    return their throughput and leave no worker behind; superuser-only by
    default; bad arguments refused."""
    tps, n = lab.sql("SELECT * FROM pgbench_lab_internal.spi_floor(2, 0.5)")[0]
    assert tps > 0 and n > 0
    lab.poll("SELECT count(*) = 0 FROM pg_stat_activity WHERE backend_type = 'pgbench_lab floor'")
    with lab.connect() as conn:
        for args, state in (("0, 1", "22023"), ("2, 0", "22023"), ("2, 'NaN'", "22023")):
            with pytest.raises(psycopg.Error) as e:
                conn.execute(f"SELECT pgbench_lab_internal.spi_floor({args})")
            assert e.value.sqlstate == state, args
        conn.execute("SET search_path = pg_catalog")
        with pytest.raises(psycopg.errors.UndefinedTable):
            conn.execute("SELECT pgbench_lab_internal.spi_floor(1, 0.1)")
    lab.sql("CREATE ROLE floor_nobody LOGIN")
    try:
        with lab.connect(user="floor_nobody") as conn:
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute("SELECT pgbench_lab_internal.spi_floor(1, 0.1)")
    finally:
        lab.sql("DROP ROLE floor_nobody")
