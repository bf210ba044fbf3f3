"""The sweep's knee threshold, its rounds and the sweep plot on a real
server: short sweeps (1 s a run) made with a threshold, thresholds out of
range refused before anything runs, a sweep of two rounds (0.2 s a run) in
alternating order with medians and paired ratios, and plot()'s SVG read
with an XML parser: clients on a log2 axis, the peak and the knee marked
where the verdict names them, and sweeps of very different throughput in
panels of their own."""
import copy
import json
import math
import os
import xml.etree.ElementTree as ET

import psycopg
import pytest

from conftest import pgbench_cluster

NS = "{http://www.w3.org/2000/svg}"
FIXTURE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "lab_a.json")


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
    of linear scaling is below the threshold, passing over a count when a
    later count still gains at least the threshold's share of linear
    scaling over it (None: not reached)."""
    def beaten(a, b):
        return any((tps[j] / tps[a] - 1) / (j / a - 1) >= threshold for j in tps if j > b)
    return next((a for a, b, share in steps(tps) if share < threshold and not beaten(a, b)), None)


def parse(svg):
    root = ET.fromstring(svg)
    assert root.tag == NS + "svg"
    return root


def panels(root):
    return [g for g in root.iter(NS + "g") if g.get("class") == "panel"]


def polyline_points(panel, dashed):
    """The points of the panel's curves: TPS (solid) or latency (dashed)."""
    return [[tuple(float(v) for v in p.split(",")) for p in line.get("points").split()]
            for line in panel.iter(NS + "polyline") if (line.get("stroke-dasharray") is not None) == dashed]


def x_ticks(panel):
    return [(int(t.text), float(t.get("x"))) for t in panel.iter(NS + "text") if t.get("class") == "xtick"]


def y_top(panel):
    """The highest tick of the panel's left (TPS) axis."""
    return max(float(t.text) for t in panel.iter(NS + "text") if t.get("text-anchor") == "end")


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


def test_rounds_alternate_and_give_medians(lab):
    """rounds => 2: every count once a round, rising then falling; each
    count's TPS is the median of its rounds (of two, their mean), each step
    paired by round with a 50 % interval (two rounds), and the report says
    so."""
    res = call(lab, "CALL pgbench_lab.sweep('select-only', '{1,2}', '0.2 s', rounds => 2)")
    eid = res["experiment_id"]
    runs = lab.sql("""SELECT x.variant, x.round, r.clients, r.status, r.tps FROM pgbench_lab.experiment_runs x
                        JOIN pgbench_lab.runs r USING (run_id) WHERE x.experiment_id = %s ORDER BY x.ordinal""", (eid,))
    assert [(v, r, c) for v, r, c, _, _ in runs] == [(1, 1, 1), (2, 1, 2), (2, 2, 2), (1, 2, 1)], runs
    assert all(status == "done" and tps > 0 for _, _, _, status, tps in runs), runs
    assert lab.scalar("""SELECT params - 'clients' - 'duration' - 'settings' - 'knee_threshold'
                           FROM pgbench_lab.experiments WHERE experiment_id = %s""", (eid,)) == \
        {"rounds": 2, "smallest_effect": 0.02, "confidence": 0.95}
    by = {c: sorted(t for _, _, cc, _, t in runs if cc == c) for c in (1, 2)}
    summary = {row[0]: row[1:] for row in lab.sql(
        """SELECT clients, rounds, tps, tps_min, tps_max, ratio, ratio_low, ratio_high, coverage
             FROM pgbench_lab.sweep_summary(%s)""", (eid,))}
    for c in (1, 2):
        assert summary[c][:4] == (2, pytest.approx(sum(by[c]) / 2), by[c][0], by[c][1]), summary
    # the ratios of the same round; of two, the median is their geometric
    # mean (paired_verdict() takes the median of the log-ratios)
    tps_of = {(r, c): t for _, r, c, _, t in runs}
    paired = sorted(tps_of[(r, 2)] / tps_of[(r, 1)] for r in (1, 2))
    ratio, low, high, coverage = summary[2][4:]
    assert (ratio, low, high, coverage) == (pytest.approx(math.sqrt(paired[0] * paired[1])), pytest.approx(paired[0]),
                                            pytest.approx(paired[1]), pytest.approx(0.5)), (summary, paired)
    v = lab.sql("SELECT rounds, peak_clients, knee_clients, knee_decided FROM pgbench_lab.sweep_verdict(%s)", (eid,))[0]
    assert v[0] == 2 and v[1] == max(summary, key=lambda c: summary[c][1]) == res["peak_clients"]
    assert v[2] == res["knee_clients"] == knee({c: summary[c][1] for c in (1, 2)}, 0.5)
    # two rounds give at most a 50 % interval: a named knee is uncertain
    assert v[3] is (None if v[2] is None else False)
    rows = lab.sql("SELECT comparison, measure, rounds, coverage FROM pgbench_lab.experiment_verdicts(%s)", (eid,))
    assert rows == [("2 clients against 1 client", "tps", 2, pytest.approx(0.5))]
    lines = [r[0] for r in lab.sql("SELECT * FROM pgbench_lab.report(%s)", (eid,))]
    text = "\n".join(lines)
    assert "median TPS" in text and "TPS per round" in text and "Steps paired by round" in text, text
    assert any(ln.startswith("  2 clients against 1 client: ×") and "50.0 % interval" in ln for ln in lines), text
    if v[2] is not None:
        assert "so the knee is uncertain" in res["finding"], res["finding"]


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


def test_plot_of_real_sweeps(lab):
    """Clients on a log2 axis (ticks at the powers of two, evenly spaced; a
    count of 3 at log2(3)), the peak and the knee marked on the TPS curve
    where the verdict names them, text escaped; panels as the rule says."""
    a = call(lab, "CALL pgbench_lab.sweep('select-only', '{1,3,8}', '1 s', knee_threshold => 0.99)")
    b = call(lab, "CALL pgbench_lab.sweep('select-only', '{2,4}', '1 s', label => %s)",
             ('a<b & "c"\x01',))
    root = parse(lab.scalar("SELECT pgbench_lab.plot(ARRAY[%s, %s]::bigint[])",
                            (a["experiment_id"], b["experiment_id"])))
    ps = panels(root)
    peaks = sorted([a["peak_tps"], b["peak_tps"]])
    assert len(ps) == (2 if peaks[1] > 5 * peaks[0] else 1), peaks
    for panel in ps:
        ticks = x_ticks(panel)
        assert [t for t, _ in ticks] == [1, 2, 4, 8], ticks
        gaps = [x2 - x1 for (_, x1), (_, x2) in zip(ticks, ticks[1:])]
        assert max(gaps) - min(gaps) < 0.2 and min(gaps) > 0, ticks
    x0, x8 = ticks[0][1], ticks[-1][1]

    def x_of(clients):
        return x0 + math.log2(clients) / 3 * (x8 - x0)

    # sweep a's TPS curve: the first solid polyline of its panel
    # (a legend line cut to its width keeps its whole text in its <title>)
    panel_a = next(p for p in ps if any(f"(experiment {a['experiment_id']})" in "".join(t.itertext())
                                       for t in p.iter(NS + "text")))
    curve = polyline_points(panel_a, dashed=False)[0]
    assert len(curve) == 3 and all(abs(x - x_of(c)) < 0.11 for (x, _), c in zip(curve, (1, 3, 8))), (ticks, curve)
    point = dict(zip((1, 3, 8), curve))
    peak = [e for e in panel_a.iter(NS + "polygon") if e.get("class") == "peak"][0]
    xs = [float(p.split(",")[0]) for p in peak.get("points").split()]
    ys = [float(p.split(",")[1]) for p in peak.get("points").split()]
    assert (sum(xs) / 4, sum(ys) / 4) == (pytest.approx(point[a["peak_clients"]][0], abs=0.11),
                                          pytest.approx(point[a["peak_clients"]][1], abs=0.11))
    knees = [e for e in panel_a.iter(NS + "rect") if e.get("class") == "knee"]
    if a["knee_clients"] is None:
        assert not knees
    else:
        k = knees[0]
        assert (float(k.get("x")) + 7, float(k.get("y")) + 7) == (
            pytest.approx(point[a["knee_clients"]][0], abs=0.11), pytest.approx(point[a["knee_clients"]][1], abs=0.11))
        labels = [t.text for t in panel_a.iter(NS + "text") if t.get("class") == "knee-label"]
        assert f"knee {a['knee_clients']}" in labels
    assert f"peak {a['peak_clients']}" in [t.text for t in root.iter(NS + "text") if t.get("class") == "peak-label"]
    legend = [t.text for t in root.iter(NS + "text") if t.text and t.text.startswith("peak: ")]
    assert legend, "the marks are explained in the legend"
    # the label is XML-escaped and its control character shown as \x01
    # (its legend line, cut to its width or not, has its whole text)
    assert any("".join(t.itertext()).startswith('a<b & "c"\\x01 TPS') for t in root.iter(NS + "text"))


def scaled(doc, factor, label):
    """The fixture's sweep with every TPS times factor."""
    doc = copy.deepcopy(doc)
    for r in doc["runs"]:
        r["tps"] *= factor
    doc["experiments"] = [e for e in doc["experiments"] if e["kind"] == "sweep"]
    doc["experiments"][0]["label"] = label
    return json.dumps(doc)


def test_sweeps_of_different_scale_get_panels_of_their_own(lab):
    with open(FIXTURE) as f:
        doc = json.load(f)
    ids = {}
    for factor, label in ((1, "base"), (1.5, "near"), (20, "far")):
        ids[label] = next(i for kind, i in lab.sql("SELECT kind, id FROM pgbench_lab.import(%s)",
                                                   (scaled(doc, factor, label),)) if kind == "experiment")

    def plot(*names):
        return parse(lab.scalar("SELECT pgbench_lab.plot(%s::bigint[])", ([ids[n] for n in names],)))

    # within 5 times of each other: one panel, one axis up to 4000
    one = panels(plot("base", "near"))
    assert len(one) == 1 and y_top(one[0]) == 4000
    # 20 times apart: two panels in the order of the ids, each with its own
    # TPS axis (the small sweep's is not flattened under the large one's)
    root = plot("base", "far", "near")
    two = panels(root)
    assert len(two) == 2
    assert [y_top(p) for p in two] == [4000, 60000]
    assert [len(polyline_points(p, dashed=False)) for p in two] == [2, 1]
    assert any("5 times" in (t.text or "") for t in root if t.tag == NS + "text"), "the rule is stated"
    # stacked: the second panel starts below the first
    offsets = [float(p.get("transform").split()[1].rstrip(")")) for p in two]
    assert offsets[1] - offsets[0] >= 430
    assert float(root.get("height")) >= offsets[1] + 430
    for p in two:
        assert [t for t, _ in x_ticks(p)] == [1, 2, 4, 8]
        assert len([e for e in p.iter(NS + "polygon") if e.get("class") == "peak"]) == \
            len(polyline_points(p, dashed=False))
