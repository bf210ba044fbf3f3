"""The sweep's knee threshold on a real server: short sweeps (1 s a run)
made with a threshold, and thresholds out of range refused before anything
runs."""
import psycopg
import pytest

from conftest import pgbench_cluster


@pytest.fixture(scope="module")
def lab():
    yield from pgbench_cluster("sweeps", {"max_worker_processes": "16"}, scale=2)


def call(c, sql, params=None):
    """CALL a procedure; return its result row as a dict."""
    with c.connect() as conn:
        cur = conn.execute(sql, params)
        return dict(zip([d.name for d in cur.description], cur.fetchone()))


def sweep_tps(c, eid):
    """{clients: tps} of a sweep's runs, which must all have finished."""
    rows = c.sql("""SELECT r.clients, r.status, r.tps FROM pgbench_lab.experiment_runs x
                      JOIN pgbench_lab.runs r USING (run_id) WHERE x.experiment_id = %s""", (eid,))
    assert all(status == "done" and tps > 0 for _, status, tps in rows), rows
    return {clients: tps for clients, _, tps in rows}


def steps(tps):
    """(previous count, count, share of linear scaling) of each step."""
    counts = sorted(tps)
    return [(a, b, (tps[b] / tps[a] - 1) / (b / a - 1)) for a, b in zip(counts, counts[1:])]


def knee(tps, threshold):
    """The README's rule: the last count before the first step whose share
    of linear scaling is below the threshold (None: not reached)."""
    return next((a for a, _, share in steps(tps) if share < threshold), None)


def test_threshold_is_recorded_and_names_the_knee(lab):
    res = call(lab, "CALL pgbench_lab.sweep('select-only', '{1,3,8}', '1 s', knee_threshold => 0.99)")
    eid = res["experiment_id"]
    tps = sweep_tps(lab, eid)
    assert sorted(tps) == [1, 3, 8]
    shares = steps(tps)
    assert lab.scalar("SELECT params->'knee_threshold' FROM pgbench_lab.experiments WHERE experiment_id = %s",
                      (eid,)) == 0.99
    # the procedure, the summary and the report use the sweep's own threshold
    assert res["knee_clients"] == knee(tps, 0.99), shares
    marks = dict(lab.sql("SELECT clients, mark FROM pgbench_lab.sweep_summary(%s)", (eid,)))
    if res["knee_clients"] is not None:
        assert "knee" in marks[res["knee_clients"]]
    lines = [r[0] for r in lab.sql("SELECT * FROM pgbench_lab.report(%s)", (eid,))]
    text = " ".join(lines)
    assert "Knee rule: the knee is the last client count before the first step whose TPS gain is below 99%" in text
    for a, b, share in shares:
        line = next(ln for ln in lines if ln.startswith(f"  {a} -> {b} clients: "))
        assert "of linear (threshold 99%)" in line, line
        assert ("below it, so the knee is" in line) == (res["knee_clients"] == a and share < 0.99), (line, shares)
    # an override on either side of each measured share names what the rule says
    thresholds = {0.01, 0.5, 0.99} | {s * f for _, _, s in shares if 0 < s < 1 for f in (0.5, 1.01) if s * f < 1}
    named = {}
    for t in sorted(thresholds):
        v = lab.sql("SELECT knee_clients, finding FROM pgbench_lab.sweep_verdict(%s, %s)", (eid, t))[0]
        assert v[0] == knee(tps, t), (t, shares, v)
        assert ("Knee: not reached" in v[1]) == (v[0] is None), v
        named[t] = v[0]
    print("shares of linear:", shares, "knee by threshold:", named)
    if any(0 < s < 1 for _, _, s in shares):
        assert len(set(named.values())) > 1, ("a threshold on each side of a share names different counts",
                                              shares, named)


def test_bad_thresholds_are_refused_before_anything_runs(lab):
    count = """SELECT (SELECT count(*) FROM pgbench_lab.experiments), (SELECT count(*) FROM pgbench_lab.runs)"""
    before = lab.sql(count)
    for value, error in ((0, psycopg.errors.InvalidParameterValue), (1, psycopg.errors.InvalidParameterValue),
                         (-0.5, psycopg.errors.InvalidParameterValue), (1.5, psycopg.errors.InvalidParameterValue),
                         (float("nan"), psycopg.errors.InvalidParameterValue),
                         (float("inf"), psycopg.errors.InvalidParameterValue),
                         (None, psycopg.errors.NullValueNotAllowed)):
        with pytest.raises(error) as e:
            lab.sql("CALL pgbench_lab.sweep('select-only', '{1,2}', '1 s', knee_threshold => %s::float8)", (value,))
        assert "knee_threshold" in str(e.value) and e.value.diag.message_hint, (value, e.value)
        if value is not None:
            with pytest.raises(error):
                lab.sql("SELECT * FROM pgbench_lab.sweep_verdict(1, %s::float8)", (value,))
    assert lab.sql(count) == before, "nothing ran and nothing was recorded"
    assert lab.scalar("SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'pgbench_lab client'") == 0
