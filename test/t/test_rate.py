"""Rate-limited runs and latency limits (pgbench -R and -L), on a real
server: the schedule kept below capacity, flagged above it, Poisson in
shape, slots skipped and transactions counted late, the same over libpq,
bad input refused before anything starts, and a cancel that ends a run
waiting between two transactions at once.

Nothing here asserts a speed: a rate far below what any machine does is
kept or not by the schedule's own count (runs.scheduled, the slots its
draws set), and a rate far above it cannot be kept by any.  Where a figure
is random (a Poisson process's count), the bounds are many standard
deviations wide and the samples are printed when they fail."""
import math
import statistics
import time

import psycopg
import pytest

from conftest import PG_MAJOR, pgbench_cluster
from test_runner import balances, run

WORKER_TYPES = "('pgbench_lab coordinator', 'pgbench_lab client')"
NO_WORKERS = f"SELECT count(*) = 0 FROM pg_stat_activity WHERE backend_type IN {WORKER_TYPES}"


@pytest.fixture(scope="module")
def lab():
    yield from pgbench_cluster("rate", {"shared_buffers": "32MB", "max_worker_processes": "16"}, scale=2)


def row(c, run_id):
    cur_cols = ("status, rate, latency_limit, measured_seconds, transactions, failures, tps, "
                "lag_avg_ms, lag_max_ms, late, skipped, scheduled, rate_sustained")
    with c.connect() as conn:
        cur = conn.execute(f"SELECT {cur_cols} FROM pgbench_lab.runs WHERE run_id = %s", (run_id,))
        return dict(zip([d.name for d in cur.description], cur.fetchone()))


def progress(c, run_id):
    with c.connect() as conn:
        cur = conn.execute("SELECT second, interval_seconds, transactions, lag_avg_ms, lag_max_ms, "
                           "late, skipped FROM pgbench_lab.run_progress WHERE run_id = %s "
                           "ORDER BY second", (run_id,))
        cols = [d.name for d in cur.description]
        return [dict(zip(cols, r)) for r in cur.fetchall()]


def report(c, run_id):
    return "\n".join(r[0] for r in c.sql("SELECT * FROM pgbench_lab.report(%s)", (run_id,)))


def test_rate_below_capacity_is_kept(lab):
    """200 tps for 8 s over 2 clients: the clients run at least 98 % of
    the slots their schedule set, the schedule's count is the asked rate's
    within a Poisson process's scatter, and the lag stays small and does
    not grow."""
    r = run(lab, "select-only", clients=2, duration="8 s", rate=200)
    assert r["status"] == "done", r
    x = row(lab, r["run_id"])
    p = progress(lab, r["run_id"])
    info = f"{x}\n{p}"
    assert x["rate"] == 200 and x["rate_sustained"] is True, info
    # every committed transaction had its slot: the achieved rate is the
    # schedule's, within 2 %
    assert x["transactions"] + x["failures"] <= x["scheduled"], info
    assert x["transactions"] >= 0.98 * x["scheduled"], info
    # the schedule's own count: Poisson, mean rate * seconds; 5 sigma
    expect = 200 * x["measured_seconds"]
    assert abs(x["scheduled"] - expect) <= 5 * math.sqrt(expect), info
    # lag: small on average, and the second half no worse than a stall
    assert x["lag_avg_ms"] is not None and x["lag_avg_ms"] < 100, info
    assert x["late"] is None and x["skipped"] is None, info
    assert sum(s["transactions"] for s in p) == x["transactions"], info
    half = [s["lag_avg_ms"] for s in p[len(p) // 2:] if s["lag_avg_ms"] is not None]
    assert half and max(half) < 250, info
    text = report(lab, r["run_id"])
    assert "Rate not sustained" not in text, text
    assert "rate          200 tps asked" in text, text


def test_rate_above_capacity_is_flagged(lab):
    """10 million tps: the clients fall behind at once, the lag grows second
    by second, the run is flagged not sustained and the report says so."""
    r = run(lab, "select-only", clients=2, duration="4 s", rate=1e7)
    assert r["status"] == "done", r
    x = row(lab, r["run_id"])
    p = progress(lab, r["run_id"])
    info = f"{x}\n{p}"
    assert x["rate_sustained"] is False, info
    assert x["transactions"] < 0.5 * x["scheduled"], info
    full = [s for s in p if s["interval_seconds"] >= 0.99 and s["lag_avg_ms"] is not None]
    assert len(full) >= 3, info
    # behind by about a second more each second: at least half of that
    assert full[-1]["lag_avg_ms"] - full[0]["lag_avg_ms"] > 500 * (full[-1]["second"] - full[0]["second"]), info
    assert x["lag_max_ms"] >= full[-1]["lag_avg_ms"], info
    text = report(lab, r["run_id"])
    assert "Rate not sustained" in text and "of 10000000 tps asked" in text, text
    assert "lag growing" in text, text


def test_latency_limit_with_rate_skips(lab):
    """The test holds both pgbench_branches rows for a few seconds of a
    tpcb-like run at 50 tps with a 50 ms limit: the transactions waiting
    for them end late, and the slots that fell due meanwhile are skipped
    and counted (as pgbench -L does), not run late."""
    hist0 = lab.scalar("SELECT count(*) FROM pgbench_history")
    run_id = lab.scalar("SELECT pgbench_lab.start('tpcb-like', clients => 2, duration => '8 s', "
                        "rate => 50, latency_limit => '50 ms')")
    lab.poll("SELECT count(*) >= 1 FROM pgbench_lab.run_progress WHERE run_id = %s", (run_id,))
    with lab.connect(autocommit=False) as locker:
        locker.execute("SELECT * FROM pgbench_branches FOR UPDATE")
        # both clients blocked on the rows, then over two more seconds of slots
        lab.poll("SELECT count(*) = 2 FROM pg_stat_activity WHERE backend_type = 'pgbench_lab client' "
                 "AND wait_event_type = 'Lock'")
        seen = lab.scalar("SELECT max(second) FROM pgbench_lab.run_progress WHERE run_id = %s", (run_id,))
        lab.poll("SELECT max(second) >= %s FROM pgbench_lab.run_progress WHERE run_id = %s",
                 (seen + 3, run_id))
        locker.rollback()
    with lab.connect() as conn:
        conn.execute("CALL pgbench_lab.wait(%s)", (run_id,))
    x = row(lab, run_id)
    p = progress(lab, run_id)
    info = f"{x}\n{p}"
    assert x["status"] == "done", info
    assert x["skipped"] >= 40, info		# over two seconds at 50 tps: about 100
    assert x["late"] >= 2, info			# each client's blocked transaction
    assert x["transactions"] + x["failures"] + x["skipped"] <= x["scheduled"], info
    assert x["rate_sustained"] is False, info
    assert sum(s["skipped"] for s in p) == x["skipped"], info
    assert sum(s["late"] for s in p) == x["late"], info
    # skipped slots run nothing: committed transactions are history rows
    assert lab.scalar("SELECT count(*) FROM pgbench_history") - hist0 == x["transactions"], info
    text = report(lab, run_id)
    assert "skipped" in text and "late" in text, text
    check_progress_intervals(lab, run_id, 3)


def check_progress_intervals(c, run_id, n):
    """progress(run_id, 'n s') against the per-second rows aggregated
    here: sums and maxima exact, latency and lag weighted by transactions."""
    with c.connect() as conn:
        cur = conn.execute("SELECT * FROM pgbench_lab.progress(%s, %s)", (run_id, f"{n} s"))
        cols = [d.name for d in cur.description]
        got = [dict(zip(cols, r)) for r in cur.fetchall()]
        cur = conn.execute("SELECT * FROM pgbench_lab.run_progress WHERE run_id = %s ORDER BY second", (run_id,))
        cols = [d.name for d in cur.description]
        secs = [dict(zip(cols, r)) for r in cur.fetchall()]
    groups = {}
    for r in secs:
        groups.setdefault((r["second"] - 1) // n, []).append(r)
    assert [g["from_second"] for g in got] == [k * n + 1 for k in sorted(groups)], got
    for g, k in zip(got, sorted(groups)):
        rows = groups[k]
        tx = sum(r["transactions"] for r in rows)
        assert g["to_second"] == rows[-1]["second"]
        assert g["transactions"] == tx and g["failures"] == sum(r["failures"] for r in rows)
        assert g["seconds"] == pytest.approx(sum(r["interval_seconds"] for r in rows))
        assert g["tps"] == pytest.approx(tx / g["seconds"])
        for col in ("latency_max_ms", "lag_max_ms"):
            vals = [r[col] for r in rows if r[col] is not None]
            assert g[col] == (max(vals) if vals else None)
        for col in ("late", "skipped"):
            vals = [r[col] for r in rows if r[col] is not None]
            assert g[col] == (sum(vals) if vals else None)
        for col in ("latency_avg_ms", "lag_avg_ms"):
            w = [(r[col], r["transactions"]) for r in rows if r[col] is not None]
            if sum(t for _, t in w):
                assert g[col] == pytest.approx(sum(v * t for v, t in w) / sum(t for _, t in w))
    assert sum(g["transactions"] for g in got) == row(c, run_id)["transactions"]


@pytest.mark.parametrize("every, code", [("0 s", "22023"), ("1.5 s", "22023"), ("-2 s", "22023"),
                                         ("11 days", "22023"), (None, "22004")])
def test_progress_intervals_refused(lab, every, code):
    # any run of this server's (one of its own when the test runs alone)
    rid = lab.scalar("SELECT max(run_id) FROM pgbench_lab.runs") or \
        run(lab, "select-only", transactions=10)["run_id"]
    with lab.connect() as conn, pytest.raises(psycopg.Error) as e:
        conn.execute("SELECT * FROM pgbench_lab.progress(%s, %s::interval)", (rid, every))
    assert e.value.sqlstate == code, e.value
    with lab.connect() as conn, pytest.raises(psycopg.Error) as e:
        conn.execute("SELECT * FROM pgbench_lab.progress(-5)")
    assert e.value.sqlstate == "42704"


def test_latency_limit_without_rate_counts_late(lab):
    """No transaction commits within a microsecond: with that limit and no
    rate every one is late, none is skipped (there are no slots)."""
    r = run(lab, "tpcb-like", clients=2, duration="2 s", latency_limit="1 us")
    assert r["status"] == "done", r
    x = row(lab, r["run_id"])
    assert x["late"] == x["transactions"] > 0, x
    assert x["skipped"] is None and x["rate"] is None and x["scheduled"] is None, x
    assert x["lag_avg_ms"] is None and x["rate_sustained"] is None, x
    # and a limit no transaction reaches counts none
    r = run(lab, "select-only", clients=1, transactions=200, latency_limit="1 min")
    assert row(lab, r["run_id"])["late"] == 0


def test_rate_with_transaction_count(lab):
    """With transactions => N each client runs N slots, skipped ones
    included, and stops.  (Whether the rate was sustained is not asked
    here: a client a few slots behind at its end is 2 % of a run this
    short.)"""
    r = run(lab, "select-only", clients=2, transactions=100, rate=400)
    x = row(lab, r["run_id"])
    assert r["status"] == "done" and x["transactions"] == 200, x
    assert x["scheduled"] >= 200 and x["rate_sustained"] is not None, x
    # about half a second: 100 slots at 200 tps per client
    assert 0.2 < x["measured_seconds"] < 30, x


@pytest.mark.parametrize("via", ["libpq", "libpq-connect"])
def test_rate_via_libpq(lab, via):
    """The same schedule over libpq: kept at a low rate, with a small lag;
    without a rate, late counted against a limit no round trip meets, and
    with both, slots skipped once a transaction (a connection, with
    libpq-connect) outlasts the gap to the next slot."""
    # a new connection per transaction costs tens of ms under ASan on a
    # loaded machine: its slots are 125 ms apart per client, not 50
    rate, secs = (40, "3 s") if via == "libpq" else (16, "5 s")
    r = run(lab, "select-only", clients=2, duration=secs, rate=rate, via=via)
    assert r["status"] == "done", r
    x = row(lab, r["run_id"])
    assert x["rate_sustained"] is True, repr(x)
    assert x["transactions"] >= 0.98 * x["scheduled"] > 0, x
    assert x["lag_avg_ms"] < 100, x
    assert lab.scalar("SELECT via FROM pgbench_lab.runs WHERE run_id = %s", (r["run_id"],)) == via
    r = run(lab, "select-only", clients=2, duration="2 s", via=via, latency_limit="1 us")
    x = row(lab, r["run_id"])
    assert r["status"] == "done" and x["late"] == x["transactions"] > 0 and x["skipped"] is None, x
    # at 2000 tps a slot is due every ms per client, more often than a round trip ends
    r = run(lab, "select-only", clients=2, duration="2 s", via=via, rate=4000, latency_limit="1 us")
    x = row(lab, r["run_id"])
    assert r["status"] == "done" and x["skipped"] > 0, x
    assert x["transactions"] + x["failures"] + x["skipped"] <= x["scheduled"], x


BAD = [
    ("rate => 0", "rate"), ("rate => -1", "rate"), ("rate => 'NaN'", "rate"),
    ("rate => 'Infinity'", "rate"), ("rate => '-Infinity'", "rate"), ("rate => 1e10", "rate"),
    ("latency_limit => '0'", "latency_limit"), ("latency_limit => '-1 ms'", "latency_limit"),
    ("latency_limit => '2 days'", "latency_limit"), ("latency_limit => '1 mon'", "latency_limit"),
] + ([("latency_limit => 'infinity'", "latency_limit"),
      ("latency_limit => '-infinity'", "latency_limit")] if PG_MAJOR >= 17 else [])


@pytest.mark.parametrize("arg,name", BAD)
def test_bad_rate_and_limit_refused(lab, arg, name):
    runs = lab.scalar("SELECT count(*) FROM pgbench_lab.runs")
    for sql in (f"SELECT pgbench_lab.start('select-only', {arg})",
                f"CALL pgbench_lab.run('select-only', {arg})",
                f"SELECT pgbench_lab.start('select-only', {arg}, via => 'libpq')"):
        with pytest.raises(psycopg.errors.InvalidParameterValue) as e:
            lab.sql(sql)
        assert e.value.diag.message_primary.startswith(f"{name} must be above 0"), sql
        hint = e.value.diag.message_hint or ""
        assert "above 0 and at most" in hint, (sql, hint)
    assert lab.scalar("SELECT count(*) FROM pgbench_lab.runs") == runs
    assert lab.scalar(NO_WORKERS)


def test_bad_rate_refused_in_an_experiment_step(lab):
    """A kind that passes a rate in its steps gets run()'s checks before
    anything is recorded."""
    lab.sql("""
        CREATE SCHEMA IF NOT EXISTS toy;
        CREATE FUNCTION toy.paced_plan(rate float8, caller jsonb)
        RETURNS jsonb LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
            SELECT pg_catalog.jsonb_build_object('workload', 'select-only', 'params', '{}'::pg_catalog.jsonb,
                'steps', pg_catalog.jsonb_build_array(pg_catalog.jsonb_build_object('variant', 1, 'name', 'paced',
                    'run', pg_catalog.jsonb_build_object('workload', 'select-only', 'clients', 1, 'duration', '1 s',
                                                         'rate', rate, 'latency_limit', '1 s'))))
        $$;
        CREATE FUNCTION toy.paced_report(experiment_id bigint)
        RETURNS SETOF text LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$ SELECT 'paced' $$;
        CREATE PROCEDURE toy.paced(rate float8, INOUT experiment_id bigint DEFAULT NULL)
        LANGUAGE c AS 'pgbench_lab', 'pgbench_lab_experiment';
        INSERT INTO pgbench_lab.experiment_kinds (kind, procedure, planner, report, description)
        VALUES ('paced', 'toy.paced(float8, bigint)', 'toy.paced_plan(float8, jsonb)',
                'toy.paced_report(bigint)', 'One run at a rate');
    """)
    before = lab.scalar("SELECT count(*) FROM pgbench_lab.experiments")
    for bad in ("-5", "'NaN'"):
        with pytest.raises(psycopg.errors.InvalidParameterValue) as e:
            with lab.connect() as conn:
                conn.execute(f"CALL toy.paced({bad})")
        assert "checked before its first run" in (e.value.diag.context or "")
    assert lab.scalar("SELECT count(*) FROM pgbench_lab.experiments") == before
    # and a good rate reaches the run
    with lab.connect() as conn:
        eid = conn.execute("CALL toy.paced(30)").fetchone()[0]
    x = lab.sql("SELECT r.rate, r.latency_limit::text, r.rate_sustained FROM pgbench_lab.experiment_runs e "
                "JOIN pgbench_lab.runs r USING (run_id) WHERE e.experiment_id = %s", (eid,))
    # (whether 30 tps was sustained over 1 s depends on the machine: one
    # slot still due at the end is 3 % of them; the verdict is recorded)
    assert len(x) == 1 and x[0][:2] == (30.0, "00:00:01") and x[0][2] is not None, x


def test_cancel_during_a_long_wait_is_prompt(lab):
    """At 0.05 tps each client sleeps tens of seconds between slots:
    cancel() and pg_cancel_backend() of a client both end the run at once."""
    for how in ("cancel", "pg_cancel_backend"):
        run_id = lab.scalar("SELECT pgbench_lab.start('select-only', clients => 2, duration => '60 s', "
                            "rate => 0.05)")
        lab.poll("SELECT count(*) >= 1 FROM pgbench_lab.run_progress WHERE run_id = %s", (run_id,))
        t0 = time.monotonic()
        if how == "cancel":
            assert lab.scalar("SELECT pgbench_lab.cancel(%s)", (run_id,)) is True
        else:
            assert lab.scalar("SELECT pg_cancel_backend(pid) FROM pg_stat_activity "
                              "WHERE backend_type = 'pgbench_lab client' LIMIT 1") is True
        lab.poll("SELECT status <> 'running' FROM pgbench_lab.runs WHERE run_id = %s", (run_id,),
                 timeout=30)
        took = time.monotonic() - t0
        x = lab.sql("SELECT status, error, measured_seconds FROM pgbench_lab.runs WHERE run_id = %s",
                    (run_id,))[0]
        assert x[0] == "cancelled", (how, x)
        assert x[2] < 30, (how, x)
        # a wait between slots is at most a second long, then the stop is seen
        assert took < 5, (how, took)
        if how == "pg_cancel_backend":
            assert "57014" in x[1], x
        lab.poll(NO_WORKERS)


def test_counts_stay_honest_under_a_rate(lab):
    """tpcb-like at a rate: committed transactions are history rows and the
    four balances move together."""
    before = balances(lab)
    hist0 = lab.scalar("SELECT count(*) FROM pgbench_history")
    r = run(lab, "tpcb-like", clients=2, duration="2 s", rate=300)
    assert r["status"] == "done", r
    assert lab.scalar("SELECT count(*) FROM pgbench_history") - hist0 == r["transactions_done"]
    a, t, b, h = (x - y for x, y in zip(balances(lab), before))
    assert a == t == b == h


def test_export_import_compare_carry_the_rate(lab, new_cluster):
    """A rate-limited run travels: export writes its rate fields (and only
    for such runs), import into another server reads them back the same,
    checks them as it checks every field, and compare() and report() show
    them there."""
    from psycopg.types.json import Jsonb

    paced = run(lab, "tpcb-like", clients=2, duration="2 s", rate=100, latency_limit="20 ms")["run_id"]
    plain = run(lab, "select-only", clients=1, transactions=50)["run_id"]
    doc = lab.scalar("SELECT pgbench_lab.export(ARRAY[%s, %s]::bigint[])", (paced, plain))
    runs = {r["run_id"]: r for r in doc["runs"]}
    fields = ("rate", "latency_limit", "lag_avg_ms", "lag_max_ms", "late", "skipped", "scheduled",
              "rate_sustained")
    assert all(f in runs[paced] for f in fields), runs[paced]
    assert not any(f in runs[plain] for f in fields), runs[plain]
    assert all("lag_avg_ms" in p and "skipped" in p for p in runs[paced]["progress"])
    assert not any("lag_avg_ms" in p for p in runs[plain]["progress"])
    other = new_cluster("rate-import")
    other.sql("CREATE EXTENSION pgbench_lab CASCADE")
    for field, bad, problem in (("rate_sustained", "yes", "is not true or false"),
                                ("late", -1, "is not a whole number of 0 or more"),
                                ("latency_limit", "soon", "is not an interval"),
                                ("rate", "fast", "is not a number")):
        broken = dict(doc, runs=[dict(runs[paced], **{field: bad})])
        with pytest.raises(psycopg.errors.InvalidParameterValue) as e:
            other.sql("SELECT * FROM pgbench_lab.import(%s)", (Jsonb(broken),))
        assert f"$.runs[0].{field} {problem}" in e.value.diag.message_primary, e.value.diag.message_primary
    ids = dict((s, i) for k, s, i in other.sql("SELECT kind, source_id, id FROM pgbench_lab.import(%s)",
                                                 (Jsonb(doc),)))
    again = other.scalar("SELECT pgbench_lab.export(ARRAY[%s, %s]::bigint[])", (ids[paced], ids[plain]))
    strip = ("run_id", "source_server", "source_run_id")
    assert ([{k: v for k, v in r.items() if k not in strip} for r in again["runs"]]
            == [{k: v for k, v in r.items() if k not in strip} for r in doc["runs"]])
    cmp = other.sql("SELECT run_id, rate, rate_sustained, lag_avg_ms IS NOT NULL "
                    "FROM pgbench_lab.compare(ARRAY[%s, %s]::bigint[])", (ids[paced], ids[plain]))
    assert cmp == [(ids[paced], 100, runs[paced]["rate_sustained"], True), (ids[plain], None, None, False)], cmp
    text = report(other, ids[paced])
    assert "rate 100 tps asked, latency limit 20 ms" in text and "schedule lag  avg" in text, text


# ---------------------------------------------------------------------------
# Per-transaction samples (sample_rate, pgbench --log --sampling-rate)
# ---------------------------------------------------------------------------

def samples(c, run_id):
    return c.sql("SELECT client, sample, t_ms, latency_ms, lag_ms, script, retries, failed "
                 "FROM pgbench_lab.run_samples WHERE run_id = %s ORDER BY client, sample", (run_id,))


@pytest.mark.parametrize("via", ["spi", "libpq"])
def test_samples_show_a_poisson_schedule(lab, via):
    """Every transaction sampled at a rate well below capacity: one sample
    per committed transaction, and each client's scheduled starts are a
    Poisson process (exponential gaps: mean 1/rate, as much spread as mean)."""
    r = run(lab, "select-only", clients=2, duration="4 s", rate=200, sample_rate=1, via=via)
    assert r["status"] == "done", r
    x = lab.sql("SELECT transactions, samples, samples_dropped, sample_rate FROM pgbench_lab.runs "
                "WHERE run_id = %s", (r["run_id"],))[0]
    assert x[1] == x[0] > 0 and x[2] == 0 and x[3] == 1.0, x
    rows = samples(lab, r["run_id"])
    for client in (1, 2):
        t = [row[2] for row in rows if row[0] == client]
        gaps = [b - a for a, b in zip(t, t[1:])]
        mean = statistics.fmean(gaps)
        cv = statistics.pstdev(gaps) / mean
        # 100 tps per client: 10 ms apart on average; ~400 gaps give a few % of noise
        assert 8.0 < mean < 12.5 and 0.75 < cv < 1.25, (client, mean, cv, len(gaps))
    assert all(row[3] is not None and row[3] >= 0 and row[4] is not None and not row[7] for row in rows)


def test_samples_are_a_share_and_bounded(lab):
    r = run(lab, "select-only", clients=1, transactions=4000, sample_rate=0.1)
    x = lab.sql("SELECT samples, samples_dropped FROM pgbench_lab.runs WHERE run_id = %s", (r["run_id"],))[0]
    # binomial(4000, 0.1): 400 +- 19 (sd); nothing dropped at this pace... unless a
    # ring filled, which the dropped count would then say
    assert 300 <= x[0] + x[1] <= 500, x
    assert all(row[4] is None for row in samples(lab, r["run_id"])), "no lag without a rate"
    # a run keeps at most pgbench_lab.max_samples rows; the rest are counted
    with lab.connect() as conn:     # the library loaded: 15 knows its settings only then
        conn.execute("LOAD 'pgbench_lab'")
        conn.execute("ALTER SYSTEM SET pgbench_lab.max_samples = 50")
        conn.execute("SELECT pg_reload_conf()")
    try:
        r = run(lab, "select-only", clients=2, transactions=200, sample_rate=1)
        x = lab.sql("SELECT samples, samples_dropped FROM pgbench_lab.runs WHERE run_id = %s",
                    (r["run_id"],))[0]
        assert x == (50, 350), x
        assert len(samples(lab, r["run_id"])) == 50
    finally:
        lab.sql("ALTER SYSTEM RESET pgbench_lab.max_samples")
        lab.sql("SELECT pg_reload_conf()")
    lab.sql("DROP ROLE IF EXISTS sampler")
    lab.sql("CREATE ROLE sampler LOGIN")
    with lab.connect(user="sampler") as conn:
        conn.execute("SELECT * FROM pgbench_lab.active_runs")  # run_live(): loads the library
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("SET pgbench_lab.max_samples = 100000000")


@pytest.mark.parametrize("value", ["-0.1", "0", "1.5", "'NaN'", "'Infinity'", "'-Infinity'"])
def test_bad_sample_rate_refused(lab, value):
    with lab.connect() as conn:
        with pytest.raises(psycopg.Error) as e:
            conn.execute(f"CALL pgbench_lab.run('select-only', transactions => 1, sample_rate => {value})")
    assert e.value.sqlstate == "22023" and "above 0 and at most 1" in str(e.value), e.value


# ---------------------------------------------------------------------------
# latency_curve: the highest rate that holds a latency target
# ---------------------------------------------------------------------------

def curve(c, notices=None, **kw):
    names = ", ".join(f"{k} => %({k})s" for k in kw)
    with c.connect() as conn:
        if notices is not None:
            conn.add_notice_handler(lambda d: notices.append(d.message_primary))
        cur = conn.execute(f"CALL pgbench_lab.latency_curve({names})", kw)
        return dict(zip([d.name for d in cur.description], cur.fetchone()))


def curve_runs(c, eid):
    """Each run at a rate: (variant, rate asked, round, status, sustained,
    the run's p50, the p50 its row records, its transactions)."""
    return c.sql("SELECT s.variant, s.rate, s.round, s.status, s.sustained, s.pct, r.latency_p50_ms, s.transactions "
                 "FROM pgbench_lab_internal.latency_curve_steps(%s) s JOIN pgbench_lab.runs r USING (run_id) "
                 "WHERE s.rate IS NOT NULL ORDER BY s.variant, s.round", (eid,))


def expected_verdict(runs, target):
    """The rule, on a rate's runs at 75 % (3 runs: their lowest and highest
    p50): breaks when one was not sustained (or did not end done);
    undecided when a run has fewer than the 20 transactions a p50 needs;
    with 3 runs, holds when each is at or under the target, breaks when
    each is over it; with fewer, undecided."""
    if any(r[3] != "done" or not r[4] for r in runs):
        return "breaks"
    if len(runs) < 3 or any(r[7] < 20 for r in runs):
        return "undecided"
    if all(r[5] <= target for r in runs):
        return "holds"
    return "breaks" if all(r[5] > target for r in runs) else "undecided"


def test_latency_curve_judges_each_rate_across_its_runs(lab):
    """Shares of the measured maximum, 2 runs each, repeats 1, at 75 %: a
    rate is decided from 3 runs (their lowest and highest p50, a 75 %
    interval), so a rate whose 2 runs lie on one side of the target is run
    a third time; twice the maximum cannot be sustained (it breaks at once,
    and is not repeated).  What the curve decided is the rule applied to
    the recorded runs, whatever this machine's speed; every run's p50 is
    the one its row records."""
    notices = []
    r = curve(lab, notices, workload="select-only", clients=1, duration="0.3 s", shares=[0.1, 2.0],
              target_ms=1000, percentile=0.5, runs=2, repeats=1, confidence=0.75, label="curve")
    eid = r["experiment_id"]
    runs = curve_runs(lab, eid)
    info = f"{r}\n{runs}\n{notices}"
    top = lab.scalar("SELECT tps FROM pgbench_lab_internal.latency_curve_steps(%s) WHERE rate IS NULL", (eid,))
    assert r["max_tps"] == top, info
    assert all(x[5] == x[6] for x in runs if x[3] == "done"), info
    by_variant = {}
    for x in runs:
        by_variant.setdefault(x[0], []).append(x)
    assert [round(v[0][1] / top, 6) for k, v in sorted(by_variant.items()) if k <= 3] == [0.1, 2.0], info
    verdicts = {v[0]: (v[1], v[2]) for v in lab.sql(
        "SELECT variant, verdict, rounds FROM pgbench_lab_internal.latency_curve_rates(%s)", (eid,))}
    for variant, xs in by_variant.items():
        assert [x[2] for x in xs] == list(range(1, len(xs) + 1)) and len(xs) <= 3, info
        assert verdicts[variant] == (expected_verdict(xs, 1000), len(xs)), info
        # a third run exactly when two runs left the rate undecided, with
        # transactions enough, and on one side of the target
        two = xs[:2]
        assert (len(xs) == 3) == (expected_verdict(two, 1000) == "undecided" and all(x[7] >= 20 for x in two)
                                  and len({x[5] <= 1000 for x in two}) == 1), info
    assert any("repeating" in m for m in notices) == any(len(xs) == 3 for xs in by_variant.values()), info
    low = by_variant[2]
    if verdicts[2][0] == "holds":
        assert r["best_rate"] == low[0][1] and "held up to" in r["finding"], info
        assert "the median of 3 runs, 75 % interval" in r["finding"], info
    if verdicts[3][0] == "breaks" and verdicts[2][0] == "holds":
        assert r["broke_rate"] == by_variant[3][0][1] and "held up to between" in r["finding"], info
    report = "\n".join(x for (x,) in lab.sql("SELECT * FROM pgbench_lab.report(%s)", (eid,)))
    assert "Target: p50 under 1000 ms" in report and "2 runs per rate, a rate in doubt up to 1 more" in report, report
    assert "Per rate, across its runs: the median of their p50" in report, report
    svg = lab.scalar("SELECT pgbench_lab.plot(ARRAY[%s]::bigint[])", (eid,))
    assert svg.startswith("<svg") and svg.count("<polyline") >= 3 and "target 1000" in svg, svg[:500]
    # export and import keep the experiment
    doc = lab.scalar("SELECT pgbench_lab.export(ARRAY[%s]::bigint[])", (eid,))
    new = lab.scalar("SELECT id FROM pgbench_lab.import(%s::jsonb) WHERE kind = 'experiment'",
                     (psycopg.types.json.Jsonb(doc),))
    again = lab.sql("SELECT best_rate, finding FROM pgbench_lab_internal.latency_curve_result(%s)", (new,))[0]
    assert again == (r["best_rate"], r["finding"]), again


def test_latency_curve_steps_down_when_the_lowest_rate_breaks(lab):
    """A target no run can hold: 200 tps breaks in each of its 3 runs, so
    the curve steps down, as a new variant of 3 runs, to half the rate or
    the floor when half is below it: the rate at which a 0.3 s run still
    has the 20 transactions a p50 needs, with 4 standard deviations to
    spare (37.9, 126.3 tps).  There it breaks too, and stops."""
    notices = []
    r = curve(lab, notices, workload="select-only", clients=1, duration="0.3 s", rates=[200], target_ms=0.000001,
              percentile=0.5, runs=3, repeats=0, confidence=0.75)
    eid = r["experiment_id"]
    runs = curve_runs(lab, eid)
    info = f"{r}\n{runs}\n{notices}"
    floor = (20 + 4 * math.sqrt(20)) / 0.3
    assert [(x[0], x[2]) for x in runs] == [(2, 1), (2, 2), (2, 3), (3, 1), (3, 2), (3, 3)], info
    assert [x[1] for x in runs] == [200] * 3 + [pytest.approx(floor)] * 3, info
    assert notices == ["p50 broke at the lowest rate, 200.0 tps: stepping down to 126.3 tps"], info
    assert "the lowest rate of the plan broke, so the curve stepped down to 126.3 tps" in r["finding"], r
    if any(x[7] < 20 for x in runs[3:]):
        # a Poisson count short of 20 at a mean of 37.9 (once in 2 000 runs)
        assert r["broke_rate"] == 200 and "undecided: 126.3 tps (a run needs 20 transactions" in r["finding"], r
        return
    assert r["best_rate"] is None and r["broke_rate"] == pytest.approx(floor) and r["settled"] is True, r
    assert "held at none of the rates: it broke at the lowest, 126.3 tps asked: " in r["finding"], r
    assert "(no lower rate was tried: below 126.3 tps a run of 0.3 s may have fewer than the 20 transactions " \
        "a p50 needs)" in r["finding"], r


@pytest.mark.parametrize("arg,text", [
    ("target_ms => 0", "target_ms must be above 0"), ("target_ms => 'NaN'", "target_ms must be above 0"),
    ("percentile => 0.97", "percentile must be 0.5, 0.9, 0.95 or 0.99"),
    ("rates => '{}'", "rates must hold 1 to 50"), ("rates => '{10, -1}'", "rates must hold 1 to 50"),
    ("shares => '{0.5, 3}'", "shares must hold 1 to 50"), ("shares => NULL", "shares must hold 1 to 50"),
    ("repeats => 21", "repeats must be from 0 to 20"), ("confidence => 1", "confidence must be above 0.5"),
    ("runs => 0", "runs must be from 1 to 20"),
])
def test_latency_curve_bad_arguments(lab, arg, text):
    before = lab.scalar("SELECT count(*) FROM pgbench_lab.runs")
    with lab.connect() as conn:
        with pytest.raises(psycopg.Error) as e:
            conn.execute(f"CALL pgbench_lab.latency_curve('select-only', {arg})")
    assert e.value.sqlstate == "22023" and text in str(e.value), e.value
    assert lab.scalar("SELECT count(*) FROM pgbench_lab.runs") == before


def test_plot_lag_per_second(lab):
    r = run(lab, "select-only", clients=1, duration="2 s", rate=100)
    svg = lab.scalar("SELECT pgbench_lab.plot(ARRAY[%s]::bigint[], 'lag')", (r["run_id"],))
    assert "Average schedule lag per second" in svg and "<polyline" in svg, svg[:400]
