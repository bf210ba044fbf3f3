"""Experiments, reports, plots, export and import on real servers: a sweep
and a settings comparison with short runs, the export -> import round trip
between two clusters, and every kind of chart rendered by headless Chromium."""
import json
import os
import re
import shutil
import statistics
import threading
import time

import psycopg
import pytest

from conftest import PG_MAJOR, Background, ChromiumPage, Cluster, pgbench_cluster


@pytest.fixture(scope="module")
def lab():
    yield from pgbench_cluster("reports", {"shared_buffers": "32MB", "max_worker_processes": "16"}, scale=2)


def call(c, sql, params=None, user="postgres"):
    """CALL a procedure; return its result row as a dict."""
    with c.connect(user=user) as conn:
        cur = conn.execute(sql, params)
        return dict(zip([d.name for d in cur.description], cur.fetchone()))


def experiment_runs(c, eid):
    return c.sql("""SELECT x.ordinal, x.variant, x.round, r.run_id, r.clients, r.status, r.tps,
                           r.latency_avg_ms, r.settings->'session'
                      FROM pgbench_lab.experiment_runs x JOIN pgbench_lab.runs r USING (run_id)
                     WHERE x.experiment_id = %s ORDER BY x.ordinal""", (eid,))


def test_sweep_names_peak_and_knee(lab):
    res = call(lab, "CALL pgbench_lab.sweep('select-only', clients => '{2,1}', duration => '1 s')")
    eid = res["experiment_id"]
    assert lab.scalar("SELECT status FROM pgbench_lab.experiments WHERE experiment_id = %s", (eid,)) == "done"
    runs = experiment_runs(lab, eid)
    assert [r[4] for r in runs] == [1, 2], "one run per client count, in rising order"
    assert all(r[5] == "done" and r[6] > 0 for r in runs)
    # the peak is the highest TPS; the knee follows the rule in the README
    tps = {r[4]: r[6] for r in runs}
    assert res["peak_clients"] == max(tps, key=tps.get)
    assert res["peak_tps"] == pytest.approx(max(tps.values()))
    share = (tps[2] / tps[1] - 1) / (2 / 1 - 1)
    assert res["knee_clients"] == (1 if share < 0.5 else None)
    assert res["finding"].startswith(f"Peak: {res['peak_clients']} client")
    assert ("Knee: not reached" in res["finding"]) == (share >= 0.5)
    lines = [r[0] for r in lab.sql("SELECT * FROM pgbench_lab.report(%s)", (eid,))]
    assert lines[0].startswith(f"Experiment {eid}: sweep of select-only, 1 s per run, clients 1, 2")
    assert any(line.rstrip().endswith("peak") or "peak, knee" in line for line in lines)
    # every run of the sweep has its own report with a chart and notes
    run_lines = [r[0] for r in lab.sql("SELECT * FROM pgbench_lab.report(%s)", (runs[1][3],))]
    assert any("│" in line and "█" in line for line in run_lines)
    assert "Notes" in run_lines


def test_sweep_holds_no_snapshot_between_and_during_runs(lab):
    """The sweeping session commits around each run: while it waits on the
    clients (wait event type Extension) it holds no xmin and no xid.  The
    short transactions that record a run's start and result do hold them, and
    the run's row says 'running' during them, so they are not sampled here."""
    with lab.connect() as conn:
        pid = conn.info.backend_pid
        t = threading.Thread(target=conn.execute,
                             args=("CALL pgbench_lab.sweep('select-only', '{1,2}', '1 s')",))
        t.start()
        samples = []
        while t.is_alive():
            samples.append(lab.sql("""SELECT state, backend_xmin IS NULL, backend_xid IS NULL,
                                             (SELECT count(*) FROM pgbench_lab.runs WHERE status = 'running'),
                                             wait_event_type
                                        FROM pg_stat_activity WHERE pid = %s""", (pid,))[0])
            time.sleep(0.05)
        t.join()
    during = [i for i, s in enumerate(samples) if s[0] == "active" and s[3] > 0 and s[4] == "Extension"]
    assert len(during) >= 5, samples
    held = [i for i in during if not (samples[i][1] and samples[i][2])]
    # pg_stat_activity reads a backend's xmin and its wait event at two
    # moments: a sample can catch the commit that just precedes the wait.
    # A snapshot held while waiting shows in consecutive samples.
    lasting = [i for i in held if i + 1 in held]
    assert not lasting, f"{len(held)} of {len(during)} samples: {[samples[i] for i in held]}"


def test_compare_settings_interleaves_rounds(lab):
    res = call(lab, """CALL pgbench_lab.compare_settings('select-only',
                           ARRAY['{}', '{"work_mem": "8MB"}']::jsonb[], clients => 1,
                           duration => '0.3 s', rounds => 2)""")
    eid = res["experiment_id"]
    runs = experiment_runs(lab, eid)
    # each round in the other order than the one before (A B, B A), so that
    # going first or second falls on both sets alike
    assert [(r[1], r[2]) for r in runs] == [(1, 1), (2, 1), (2, 2), (1, 2)], "A B B A"
    assert [r[8] for r in runs] == [{}, {"work_mem": "8MB"}, {"work_mem": "8MB"}, {}]
    assert all(r[5] == "done" for r in runs)
    # ratios are paired by round: B / A in the same round
    ratios = [runs[1][6] / runs[0][6], runs[2][6] / runs[3][6]]
    row = lab.sql("""SELECT ratio_median, ratio_min, ratio_max, rounds
                       FROM pgbench_lab.settings_ratios(%s) WHERE name = 'B'""", (eid,))[0]
    assert row[0] == pytest.approx(statistics.median(ratios))
    assert row[1] == pytest.approx(min(ratios)) and row[2] == pytest.approx(max(ratios))
    assert row[3] == 2
    assert res["finding"].startswith("B (work_mem=8MB) against A: TPS ×")


def test_cancelled_sweep_is_aborted(lab):
    """A sweep stopped by a cancel says so in report() at once, and is marked
    aborted in the table by the next experiment."""
    conn = lab.connect()
    pid = conn.info.backend_pid
    sweep = Background(conn, "CALL pgbench_lab.sweep('select-only', '{1,2}', '5 s')")
    try:
        lab.poll("SELECT count(*) = 1 FROM pgbench_lab.experiments e WHERE e.backend_pid = %s "
                 "AND e.status = 'running' AND EXISTS (SELECT FROM pgbench_lab.runs r "
                 "WHERE r.status = 'running')", (pid,))
        eid = lab.scalar("SELECT experiment_id FROM pgbench_lab.experiments "
                         "WHERE backend_pid = %s AND status = 'running'", (pid,))
        status = "SELECT line FROM pgbench_lab.report(%s) AS line WHERE line LIKE 'status %%'"
        assert lab.scalar(status, (eid,)).endswith("(still going)")
        lab.sql("SELECT pg_cancel_backend(%s)", (pid,))
    finally:
        error = sweep.join()
    assert isinstance(error, psycopg.errors.QueryCanceled)
    line = lab.scalar(status, (eid,))
    assert line.startswith("status aborted") and "a cancel" in line
    conn.close()
    call(lab, "CALL pgbench_lab.sweep('select-only', '{1}', '1 s')")
    assert lab.sql("SELECT status, finished_at IS NOT NULL FROM pgbench_lab.experiments "
                   "WHERE experiment_id = %s", (eid,)) == [("aborted", True)]
    assert lab.scalar("SELECT count(*) FROM pgbench_lab.runs WHERE status = 'running'") == 0


def test_experiments_refuse_a_transaction_block_and_bad_input(lab):
    with lab.connect(autocommit=False) as conn:
        with pytest.raises(psycopg.errors.InvalidTransactionTermination):
            conn.execute("CALL pgbench_lab.sweep('select-only', '{1}', '1 s')")
    before = lab.scalar("SELECT count(*) FROM pgbench_lab.experiments")
    for sql, err in [
        ("CALL pgbench_lab.sweep('select-only', '{}', '1 s')", psycopg.errors.NullValueNotAllowed),
        ("CALL pgbench_lab.sweep('select-only', '{1,0}', '1 s')", psycopg.errors.InvalidParameterValue),
        ("CALL pgbench_lab.sweep('select-only', '{1,1}', '1 s')", psycopg.errors.InvalidParameterValue),
        ("CALL pgbench_lab.sweep('no-such-workload', '{1}', '1 s')", psycopg.errors.InvalidParameterValue),
        ("CALL pgbench_lab.sweep('select-only', '{1,100000}', '1 s')", psycopg.errors.InvalidParameterValue),
        ("CALL pgbench_lab.compare_settings('select-only', ARRAY['{}']::jsonb[])",
         psycopg.errors.InvalidParameterValue),
        ("CALL pgbench_lab.compare_settings('select-only', ARRAY['{}', '[]']::jsonb[])",
         psycopg.errors.InvalidParameterValue),
        ("CALL pgbench_lab.compare_settings('select-only', ARRAY['{}', '{}']::jsonb[], rounds => 0)",
         psycopg.errors.InvalidParameterValue),
    ]:
        with pytest.raises(err):
            lab.sql(sql)
    assert lab.scalar("SELECT count(*) FROM pgbench_lab.experiments") == before, \
        "a refused experiment leaves nothing behind"


def test_sweep_is_not_for_public(lab):
    lab.sql("CREATE ROLE rep_nobody LOGIN")
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        lab.sql("CALL pgbench_lab.sweep('select-only', '{1}', '1 s')", user="rep_nobody")
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        lab.sql("SELECT pgbench_lab_internal.experiment_begin_as('rep_nobody', 'sweep', NULL, NULL, '{}')",
                user="rep_nobody")


def portable(doc):
    """A document's runs without what import changes (ids, source)."""
    drop = {"run_id", "source_server", "source_run_id"}
    return sorted(({k: v for k, v in r.items() if k not in drop} for r in doc["runs"]),
                  key=lambda r: r["started_at"])


def test_export_import_round_trip_between_servers(lab, new_cluster):
    call(lab, "CALL pgbench_lab.sweep('select-only', '{1}', '1 s', label => 'to export')")
    # every experiment (an aborted one among them), with the runs linked to them
    ids = [r[0] for r in lab.sql("SELECT DISTINCT run_id FROM pgbench_lab.experiment_runs ORDER BY 1")]
    eids = [r[0] for r in lab.sql("SELECT experiment_id FROM pgbench_lab.experiments ORDER BY 1")]
    doc = lab.scalar("SELECT pgbench_lab.export(%s)", (eids,))
    assert doc["format"] == "pgbench_lab export" and doc["version"] == 1
    assert {r["run_id"] for r in doc["runs"]} == set(ids)
    assert all(r["progress"] and r["latency"] for r in doc["runs"])
    name = lab.scalar("SELECT pgbench_lab_internal.server_name()")

    other = new_cluster("importer")
    other.sql("CREATE EXTENSION pgbench_lab CASCADE")
    mapping = other.sql("SELECT kind, source_id, id FROM pgbench_lab.import(%s)", (json.dumps(doc),))
    assert len(mapping) == len(doc["runs"]) + len(doc["experiments"])
    new_ids = [m[2] for m in mapping if m[0] == "run"]
    back = other.scalar("SELECT pgbench_lab.export(%s)", ([m[2] for m in mapping if m[0] == "experiment"],))
    assert portable(back) == portable(doc), "exported then imported, the runs read back the same"
    assert {r["source_server"] for r in back["runs"]} == {name}
    assert sorted(r["source_run_id"] for r in back["runs"]) == sorted(ids)
    assert other.scalar("SELECT count(*) FROM pgbench_lab.run_progress WHERE run_id = ANY(%s)", (new_ids,)) == \
        sum(len(r["progress"]) for r in doc["runs"])

    # importing into the server it came from keeps the local runs as they are
    before = lab.sql("SELECT run_id, tps FROM pgbench_lab.runs ORDER BY run_id")
    again = lab.sql("SELECT id FROM pgbench_lab.import(%s) WHERE kind = 'run'", (json.dumps(back),))
    assert min(r[0] for r in again) > max(ids)
    assert lab.sql("SELECT run_id, tps FROM pgbench_lab.runs WHERE run_id <= %s ORDER BY run_id",
                   (max(ids),)) == before


def experiment_kinds(c):
    """The kinds of experiment (pgbench_lab.experiment_kinds)."""
    return {r[0] for r in c.sql("SELECT kind FROM pgbench_lab.experiment_kinds")}


def mask_digits(lines):
    """Report lines with every number masked and spaces collapsed: the ids
    differ between servers (and so does the padding of their columns)."""
    return [re.sub(r"\s+", " ", re.sub(r"\d+", "#", line)) for line in lines
            if not line.startswith("imported from ")]


@pytest.fixture(scope="module")
def kinds(lab):
    """One experiment of each kind, with short runs: what the round trip
    and the charts' test read."""
    made = {
        "sweep": call(lab, "CALL pgbench_lab.sweep('select-only', '{1,2}', '0.3 s', label => 'trip')"),
        "compare_settings": call(lab, """CALL pgbench_lab.compare_settings('select-only',
                                             ARRAY['{}', '{"work_mem": "8MB"}']::jsonb[], duration => '0.3 s',
                                             rounds => 2, label => 'trip')"""),
        "cold_vs_warm": call(lab, "CALL pgbench_lab.cold_vs_warm('select-only', 1, '0.3 s')"),
        "latency_curve": call(lab, "CALL pgbench_lab.latency_curve('select-only', 1, '0.3 s', target_ms => 100, "
                                   "shares => '{0.1,0.3}', runs => 1, repeats => 0, label => 'trip')"),
        "validate_recommendation": call(lab, "CALL pgbench_lab.validate_recommendation('select-only', 1, '0.3 s', "
                                             "rounds => 1, label => 'trip')"),
        "tune": call(lab, "CALL pgbench_lab.tune('select-only', knobs => '{jit}', levels => '{session}', "
                          "budget => '12 s', duration => '0.2 s', confidence => 0.75, smallest_effect => 0.5, "
                          "label => 'trip')"),
    }
    label = call(lab, "CALL pgbench_lab.connection_cost('select-only', 1, '0.3 s', label => 'trip paths')")["label"]
    made["connection_cost"] = {"experiment_id": lab.scalar(
        "SELECT experiment_id FROM pgbench_lab.experiments WHERE kind = 'connection_cost' AND label = %s",
        (label,))}
    return made


def test_every_experiment_kind_round_trips(lab, kinds, new_cluster):
    """One experiment of each kind, exported, imported into another cluster
    and exported again, reads back the same: the documents field by field,
    and what the readers of each kind compute from them."""
    made = kinds
    assert set(made) == experiment_kinds(lab), "a new kind of experiment needs its round trip here"
    eids = [made[k]["experiment_id"] for k in sorted(made)]
    assert lab.scalar("SELECT bool_and(status = 'done') FROM pgbench_lab.experiments "
                      "WHERE experiment_id = ANY(%s)", (eids,))
    doc = lab.scalar("SELECT pgbench_lab.export(%s)", (eids,))
    assert sorted(e["kind"] for e in doc["experiments"]) == sorted(made)

    other = new_cluster("kinds")
    other.sql("CREATE EXTENSION pgbench_lab CASCADE")
    mapping = other.sql("SELECT kind, source_id, id FROM pgbench_lab.import(%s)", (json.dumps(doc),))
    local = {source: new for kind, source, new in mapping if kind == "experiment"}
    assert set(local) == set(eids)
    back = other.scalar("SELECT pgbench_lab.export(%s)", (sorted(local.values()),))

    # the documents: runs, experiments and their runs, ids and sources aside
    assert portable(back) == portable(doc)
    drop = {"experiment_id", "source_server", "source_experiment_id", "runs"}

    def experiments(d):
        first_id = {r["run_id"]: r["source_run_id"] or r["run_id"] for r in d["runs"]}
        return sorted(({**{k: v for k, v in e.items() if k not in drop},
                        "runs": [(x["ordinal"], x["variant"], x["round"], first_id[x["run_id"]])
                                 for x in e["runs"]]} for e in d["experiments"]),
                      key=lambda e: e["started_at"])
    assert experiments(back) == experiments(doc)

    def report(c, i):
        return [r[0] for r in c.sql("SELECT * FROM pgbench_lab.report(%s)", (i,))]

    # what each kind's readers make of them
    for kind in sorted(made):
        eid = made[kind]["experiment_id"]
        there = local[eid]
        if kind == "sweep":
            q = ("SELECT clients, tps, latency_avg_ms, latency_p99_ms, tps_change, latency_change, "
                 "linear_share, mark FROM pgbench_lab.sweep_summary(%s)")
        elif kind == "validate_recommendation":
            q = "SELECT * FROM pgbench_lab_internal.validate_groups(%s)"
        elif kind == "latency_curve":
            q = ("SELECT s.rate, s.tps, s.sustained, s.p99, s.holds, r.best_rate, r.finding "
                 "FROM pgbench_lab_internal.latency_curve_steps(%s) s "
                 "CROSS JOIN pgbench_lab_internal.latency_curve_result(%s) r")
        elif kind == "tune":
            q = "SELECT * FROM pgbench_lab_internal.tune_search(%s)"
        elif kind == "cold_vs_warm":
            # the cache states come from local snapshots, which do not travel
            q = ("SELECT state, status, tps, latency_avg_ms, latency_p99_ms, hit_ratio, seconds_to_90pct, "
                 "tps_curve, hit_ratio_curve FROM pgbench_lab.cold_vs_warm_runs(%s)")
        else:
            q = "SELECT * FROM pgbench_lab.settings_ratios(%s)"
        args = (eid, eid) if kind == "latency_curve" else (eid,)
        rows = lab.sql(q, args)
        assert rows, kind
        assert other.sql(q, (there, there) if kind == "latency_curve" else (there,)) == rows, kind
        if kind != "cold_vs_warm":
            assert mask_digits(report(other, there)) == mask_digits(report(lab, eid)), kind
        assert any(line.startswith("imported from ") for line in report(other, there)), kind


def test_compare_settings_checks_every_set_before_the_first_run(lab):
    """A setting that run() would refuse, in any set, is refused before the
    first run: no run is made and no experiment recorded."""
    count = "SELECT (SELECT count(*) FROM pgbench_lab.runs), (SELECT count(*) FROM pgbench_lab.experiments)"
    before = lab.sql(count)
    for sets, error, where in [
        (['{}', '{"work_mem": "banana"}'], psycopg.errors.InvalidParameterValue, "settings set B"),
        (['{"work_mem": "8MB"}', '{}', '{"no_such_setting": "1"}'], psycopg.errors.UndefinedObject,
         "settings set C"),
        (['{}', '{"jit": "off"}', '{"shared_buffers": "1GB"}'], psycopg.errors.CantChangeRuntimeParam,
         "settings set C"),
        (['{}', '{"work_mem": null}'], psycopg.errors.InvalidParameterValue, "settings set B"),
    ]:
        with pytest.raises(error) as e:
            lab.sql("CALL pgbench_lab.compare_settings('select-only', %s::jsonb[], duration => '1 s', "
                    "rounds => 2)", (sets,))
        assert where in (e.value.diag.context or ""), e.value.diag.context
    with pytest.raises(psycopg.errors.InvalidParameterValue) as e:
        lab.sql("CALL pgbench_lab.sweep('select-only', '{1,2}', '1 s', settings => '{\"jit\": \"maybe\"}')")
    assert "settings of pgbench_lab.sweep()" in (e.value.diag.context or "")
    # a setting the caller may not set, though a superuser may
    lab.sql("CREATE ROLE rep_tuner LOGIN")
    lab.sql("GRANT EXECUTE ON PROCEDURE pgbench_lab.compare_settings TO rep_tuner")
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        lab.sql("""CALL pgbench_lab.compare_settings('select-only',
                       ARRAY['{}', '{"log_min_duration_statement": "0"}']::jsonb[], duration => '1 s')""",
                user="rep_tuner")
    assert lab.sql(count) == before, "nothing ran and nothing was recorded"
    assert lab.scalar("SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'pgbench_lab client'") == 0


# Every <svg> of the page, its box and every text in it with its box (page
# coordinates: transforms, rotations and the page's scaling of a chart
# included), the text without its tooltip; and every section's box.
LAYOUT = """(() => {
  const box = e => { const r = e.getBoundingClientRect();
                     return {l: r.left + scrollX, r: r.right + scrollX, t: r.top + scrollY, b: r.bottom + scrollY}; };
  const own = t => [...t.childNodes].filter(n => n.nodeType === 3).map(n => n.textContent).join('');
  return {svgs: [...document.querySelectorAll('svg')].map(svg => ({
            where: (svg.closest('[id]') || {}).id || '', box: box(svg),
            shapes: [...svg.querySelectorAll('polyline, circle, polygon')].filter(e => box(e).r > box(e).l).length,
            first_curve: (svg.querySelector('polyline') && getComputedStyle(svg.querySelector('polyline')).stroke) || '',
            texts: [...svg.querySelectorAll('text')].map(t => Object.assign(box(t), {text: own(t), cls: t.getAttribute('class') || ''}))
                                                   .filter(t => t.r > t.l)})),
          parts: [...document.querySelectorAll('[id]')].map(e => Object.assign(box(e), {id: e.id}))};
})()"""


def chart_problems(svg):
    """What is wrong with one drawn chart: a text outside the picture (cut)
    or two texts on top of each other."""
    b, out = svg["box"], []
    for t in svg["texts"]:
        if t["l"] < b["l"] - 0.5 or t["r"] > b["r"] + 0.5 or t["t"] < b["t"] - 0.5 or t["b"] > b["b"] + 0.5:
            out.append(f"cut: {t['text']!r}")
    ts = svg["texts"]
    for i, p in enumerate(ts):
        for q in ts[i + 1:]:
            w = min(p["r"], q["r"]) - max(p["l"], q["l"])
            h = min(p["b"], q["b"]) - max(p["t"], q["t"])
            if w > 1 and h > 1:
                out.append(f"overlap: {p['text']!r} and {q['text']!r}")
    return out


def path_words(vias):
    """The path words a chart's title must carry, from its runs' via."""
    words = [w for v, w in (("spi", "in-server"), ("libpq", "over libpq"),
                            ("libpq-connect", "over libpq with a connection per transaction")) if v in vias]
    return ", ".join(words[:-1]) + " and " + words[-1] if len(words) > 1 else words[0]


def test_every_chart_kind_is_labelled_and_whole_in_chromium(lab, kinds):
    """Every kind of chart plot() and report_html() draw, on one page as a
    report lays them out (a run's charts in two columns, an experiment's
    across), rendered by headless Chromium: no text of a chart lies outside
    it or on another text; a chart's title names the path its runs took;
    the sets of a settings comparison are named by their settings; the
    axes have ticks; a latency curve's target lies inside its log axis and
    its finding is drawn whole; a target's connection is listed once.  The
    screenshot of each section is kept in test/artifacts/pgNN/charts/."""
    libpq_sweep = call(lab, "CALL pgbench_lab.sweep('select-only', '{1,2}', '0.3 s', via => 'libpq', label => 'charts')")["experiment_id"]
    # a run with a rate, long enough for per-second charts (two seconds' rows)
    paced = call(lab, "CALL pgbench_lab.run('select-only', clients => 1, duration => '1.6 s', rate => 300, label => 'charts')")["run_id"]
    remote = call(lab, "CALL pgbench_lab.run('select-only', clients => 2, transactions => 20, via => 'libpq', label => 'charts')")["run_id"]
    # a run with standbys: the paced run's document with two standbys' lag, imported
    doc = lab.scalar("SELECT pgbench_lab.export(ARRAY[%s]::bigint[])", (paced,))
    doc["runs"][0]["replication"] = [
        {"second": s, "standby": name, "client_addr": None, "state": "streaming", "sync_state": "async",
         "replay_lag_bytes": lag * s, "lag_samples": 20}
        for s in (1, 2) for name, lag in (("standby-a", 8192), ("standby-b", 65536))]
    lagged = lab.scalar("SELECT id FROM pgbench_lab.import(%s) WHERE kind = 'run'", (json.dumps(doc),))
    eid = {k: v["experiment_id"] for k, v in kinds.items()}
    ids = [eid[k] for k in sorted(eid)] + [libpq_sweep, paced, remote, lagged]
    html = lab.scalar("SELECT pgbench_lab.report_html(%s::bigint[])", (ids,))
    # plot()'s own pictures, as a document of their own each (760 wide)
    plots = {"plot-sweeps": ([eid["sweep"], libpq_sweep], "tps"), "plot-libpq-sweep": ([libpq_sweep], "tps"),
             "plot-latency-curve": ([eid["latency_curve"]], "tps")}
    plots.update({f"plot-{m}": ([paced], m) for m in ("tps", "latency", "latency_max", "lag", "hit_ratio", "cpu", "waits")})
    plots["plot-libpq-run"] = ([remote], "tps")
    plots["plot-compare-settings"] = ([eid["compare_settings"]], "tps")
    plots["plot-connection-cost"] = ([eid["connection_cost"]], "tps")
    run_plots = {n for n, (i, m) in plots.items() if i in ([paced], [remote])}
    svgs = {name: lab.scalar("SELECT pgbench_lab.plot(%s::bigint[], %s)", (i, m)) for name, (i, m) in plots.items()}
    # plot()'s pictures in two sections (runs, experiments), each 760 wide
    extra = "".join(f'<section id="{part}"><h2>plot(): {part[5:]}</h2>'
                    + "".join(f'<div id="{n}" style="width:760px">{svg}</div>' for n, svg in svgs.items()
                              if (n in run_plots) == (part == "plot-runs"))
                    + "</section>" for part in ("plot-experiments", "plot-runs"))
    page = html.replace("</body>", extra + "</body>")
    names = {f"e{i}": k for k, i in eid.items()}
    names.update({f"e{libpq_sweep}": "sweep_libpq", f"r{paced}": "run", f"r{remote}": "run_libpq",
                  f"r{lagged}": "run_standbys", "plot-experiments": "plot_experiments", "plot-runs": "plot_runs"})

    out = os.path.join(os.path.dirname(__file__), "..", "artifacts", f"pg{PG_MAJOR}", "charts")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    src = os.path.join(out, "charts.html")
    with open(src, "w") as f:
        f.write(page)
    with ChromiumPage("file://" + os.path.abspath(src), width=1200) as browser:
        layout = browser.evaluate(LAYOUT)
        for part in layout["parts"]:
            if part["id"] in names:
                browser.screenshot(os.path.join(out, names[part["id"]] + ".png"), part["l"], part["t"],
                                   part["r"] - part["l"], part["b"] - part["t"])
    drawn = layout["svgs"]
    # every section of the page has its charts: each experiment, each run, each plot
    where = {s["where"] for s in drawn}
    assert set(names) - {"plot-experiments", "plot-runs", f"r{remote}"} | set(plots) <= where, where
    # each is drawn: its texts and its curves or dots have boxes on the page
    # (but a chart of runs too short for a per-second row, which says so)
    empty = [s["where"] for s in drawn
             if not (s["texts"] and (s["shapes"] or any(t["text"] == "Nothing to plot." for t in s["texts"])))]
    assert not empty, empty
    assert {s["first_curve"] for s in drawn if s["where"] == "plot-sweeps"} == {"rgb(31, 119, 180)"}
    problems = [f"{s['where']} ({s['texts'][0]['text'] if s['texts'] else ''}): {p}" for s in drawn for p in chart_problems(s)]
    assert not problems, "\n".join(problems)

    def texts(svg_source):
        return [re.sub(r"<title>.*?</title>", "", t) for t in re.findall(r"<text[^>]*>(.*?)</text>", svg_source)]

    # the path in each title is the runs' own
    via = {}
    for i, v in lab.sql("SELECT u.id, r.via FROM unnest(%s::bigint[]) u(id) "
                        "LEFT JOIN pgbench_lab.experiment_runs x ON x.experiment_id = u.id "
                        "JOIN pgbench_lab.runs r ON r.run_id = coalesce(x.run_id, u.id)", (ids,)):
        via.setdefault(i, set()).add(v)
    for name, (i, metric) in plots.items():
        title = texts(svgs[name])[0]
        if metric in ("tps", "latency", "latency_max", "hit_ratio"):
            words = path_words(set().union(*(via[x] for x in i)))
            assert f"({words})" in title or f", {words})" in title, (name, title)
    assert "(in-server and over libpq)" in texts(svgs["plot-sweeps"])[0]
    assert "(in-server, over libpq and over libpq with a connection per transaction)" in \
        texts(svgs["plot-connection-cost"])[0]
    # connection_cost's sets are its paths: each legend line names its own
    legend = " ".join(texts(svgs["plot-connection-cost"]))
    assert all(f"{v} ({w}), round 1" in legend for v, w in
               (("A", "in-server"), ("B", "over libpq"), ("C", "over libpq, a connection per transaction"))), legend
    assert "TPS per second (over libpq)" in texts(svgs["plot-libpq-run"])[0]
    assert "in-server" not in svgs["plot-libpq-sweep"]
    # every chart has ticks on its axes
    for name, svg in svgs.items():
        if "Nothing to plot" not in svg:
            assert svg.count('class="xtick"') >= 2 and svg.count('class="ytick"') >= 2, name
    # the verdicts' charts: the sets named by their settings, ticks, the path
    sections = dict(re.findall(r'<section id="(e\d+)">(.*?)</section>', html, re.S))
    compare = sections[f"e{eid['compare_settings']}"]
    assert "B (work_mem=8MB) against A" in compare and "B: B" not in compare and "A: A" not in compare
    assert compare.count('class="xtick"') >= 2 and ">runs in-server</text>" in compare
    assert "The search, each candidate against the incumbent" in sections[f"e{eid['tune']}"]
    assert ">runs over libpq</text>" in sections[f"e{eid['tune']}"]
    for k in ("cold_vs_warm", "connection_cost", "validate_recommendation", "tune"):
        assert 'class="median"' in sections[f"e{eid[k]}"], k
    # the latency curve: the target inside its log axis, the finding whole
    curve = svgs["plot-latency-curve"]
    target = lab.scalar("SELECT (params->>'target_ms')::float8 FROM pgbench_lab.experiments WHERE experiment_id = %s",
                        (eid["latency_curve"],))
    line = re.search(r'<polyline[^>]*stroke="#7f7f7f"[^>]*points="([^"]*)"', curve).group(1)
    ys = {float(p.split(",")[1]) for p in line.split()}
    assert len(ys) == 1 and 60 < ys.pop() < 330, "the target lies inside the plot area, off its floor and ceiling"
    assert "log scale" in curve
    finding = lab.scalar("SELECT pgbench_lab.printable(finding) FROM pgbench_lab_internal.latency_curve_result(%s)",
                         (eid["latency_curve"],))
    caption = " ".join(t for t in re.findall(r'<text class="caption"[^>]*>(.*?)</text>', curve))
    assert caption.replace("&gt;", ">").replace("&lt;", "<").replace("&amp;", "&") == " ".join(finding.split()), \
        (caption, finding)
    assert f"{target:g}" in curve or f"target {target:.3f} ms" in curve
    # a libpq target's connection once per section, never a password
    tune_section = sections[f"e{eid['tune']}"]
    display = lab.scalar("SELECT target_display FROM pgbench_lab.runs WHERE run_id = %s", (remote,))
    escaped = display.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
    assert tune_section.count(escaped) == 1 and "libpq to target 1" in tune_section
    assert "password" not in html


def test_percentiles_carry_their_sample_and_interval(lab):
    """Every percentile comes with the transactions behind it and its
    order-statistics interval; a p99 from fewer than 1 000 transactions is
    flagged, not trusted."""
    rid = call(lab, "CALL pgbench_lab.run('select-only', clients => 1, transactions => 300)")["run_id"]
    rows = lab.sql("SELECT percentile, transactions, latency_ms, low_ms, high_ms, enough "
                   "FROM pgbench_lab.latency_percentiles(%s)", (rid,))
    assert [r[0] for r in rows] == [0.5, 0.9, 0.95, 0.99]
    assert all(r[1] == 300 for r in rows)
    for p, n, v, lo, hi, enough in rows:
        assert lo <= v <= hi, (p, lo, v, hi)
    assert [r[5] for r in rows] == [True, True, True, False]  # p95 needs 200, p99 1 000
    text = "\n".join(r[0] for r in lab.sql("SELECT * FROM pgbench_lab.report(%s)", (rid,)))
    assert "of 300 transactions; 95 % intervals: p50 " in text
    assert "p99 from too few transactions to decide by (1000 needed)" in text


def test_a_runs_percentiles_are_the_same_everywhere(lab):
    """One method reads a run's percentiles: the row the coordinator
    writes, latency_percentiles(), report() and compare() give the same
    p50 to p99, each at most the run's largest latency (a rate-limited run,
    whose p99 once came out above its max)."""
    rid = call(lab, "CALL pgbench_lab.run('select-only', clients => 1, duration => '0.5 s', rate => 400)")["run_id"]
    row = lab.sql("SELECT latency_p50_ms, latency_p90_ms, latency_p95_ms, latency_p99_ms, latency_max_ms "
                  "FROM pgbench_lab.runs WHERE run_id = %s", (rid,))[0]
    read = [r[0] for r in lab.sql("SELECT latency_ms FROM pgbench_lab.latency_percentiles(%s) ORDER BY percentile",
                                  (rid,))]
    assert list(row[:4]) == read, (row, read)
    assert all(p is not None and 0 < p <= row[4] for p in row[:4]) and row[0] <= row[1] <= row[2] <= row[3], row
    text = [r[0] for r in lab.sql("SELECT * FROM pgbench_lab.report(%s)", (rid,))]
    line = next(x for x in text if x.lstrip().startswith("p50 "))
    shown = lab.sql("SELECT pgbench_lab_internal.fmt(v, 3) FROM unnest(%s::float8[]) WITH ORDINALITY AS u(v, i) "
                    "ORDER BY i", (list(row),))
    assert line.split() == [w for pair in zip(["p50", "p90", "p95", "p99", "max"], [x[0] for x in shown])
                            for w in pair], (line, row)
    compared = lab.scalar("SELECT latency_p99_ms FROM pgbench_lab.compare(ARRAY[%s]::bigint[])", (rid,))
    assert str(compared) == shown[3][0], (compared, row)


def test_compare_settings_calls_a_forced_difference_and_not_an_a_a_one(lab):
    """One experiment, three sets: A, the same settings again (A/A), and a
    forced difference (no index scans: select-only reads the whole table).
    The forced one is called slower beyond the smallest effect, with its
    interval; the A/A one is not called a difference (no difference, or
    undecided when its interval reaches beyond the smallest effect).  At 99 % and 8 rounds
    an A/A is called one with probability 2 in 256 at most; a second
    experiment is run only then, so that this test fails by chance about
    once in 16 000 runs, not once in 128."""
    sets = ['{}', '{"work_mem": "4MB"}', '{"enable_indexscan": "off", "enable_bitmapscan": "off"}']
    for attempt in range(2):
        res = call(lab, "CALL pgbench_lab.compare_settings('select-only', %s::jsonb[], duration => '0.2 s', "
                        "rounds => 8, confidence => 0.99)", (sets,))
        rows = {r[0]: r[1:] for r in lab.sql(
            "SELECT name, verdict, decided, ratio_low, ratio_high, coverage, rounds "
            "FROM pgbench_lab.settings_ratios(%s) WHERE variant > 1", (res["experiment_id"],))}
        verdict, decided, low, high, coverage, rounds = rows["C"]
        assert (verdict, decided, rounds) == ("slower", True, 8), rows["C"]
        assert low <= high < 1 / 1.02 and coverage >= 0.99
        assert "C (enable_bitmapscan=off, enable_indexscan=off) against A: TPS ×" in res["finding"]
        assert "99.2 % interval" in res["finding"] and "slower, beyond the smallest effect" in res["finding"]
        if rows["B"][0] in ("no difference detectable", "undecided"):
            break
    assert rows["B"][0] in ("no difference detectable", "undecided"), rows["B"]


def test_adaptive_rounds_stop_at_the_first_look_that_settles(lab):
    """rounds => 'auto': a difference far beyond the smallest effect settles
    at the first look (9 rounds at 95 %: each look at 99.29 %, and 9 rounds
    give the interval of ranks 1 and 9, 99.6 %),
    and the finding says why it stopped; the verdicts are read for the kind
    and exported."""
    sets = ['{}', '{"enable_indexscan": "off", "enable_bitmapscan": "off"}']
    res = call(lab, "CALL pgbench_lab.compare_settings('select-only', %s::jsonb[], duration => '0.2 s', "
                    "rounds => 'auto', budget => '10 min')", (sets,))
    eid = res["experiment_id"]
    params = lab.scalar("SELECT params FROM pgbench_lab.experiments WHERE experiment_id = %s", (eid,))
    assert (params["rounds"], params["rounds_auto"], params["looks"][:2], params["budget"]) == \
        (9, True, [9, 14], "00:10:00")
    assert lab.scalar("SELECT max(round) FROM pgbench_lab.experiment_runs WHERE experiment_id = %s", (eid,)) == 9
    assert "99.6 % interval" in res["finding"] and "slower, beyond the smallest effect" in res["finding"]
    assert "Rounds were added until every verdict settled" in res["finding"], res["finding"]
    assert lab.sql("SELECT comparison, measure, rounds, verdict, decided "
                   "FROM pgbench_lab.experiment_verdicts(%s)", (eid,)) == [("B against A", "tps", 9, "slower", True)]
    doc = lab.scalar("SELECT pgbench_lab.export(ARRAY[%s]::bigint[])", (eid,))
    assert [v["verdict"] for v in doc["experiments"][0]["verdicts"]] == ["slower"]
    with pytest.raises(psycopg.errors.InvalidParameterValue) as e:
        call(lab, "CALL pgbench_lab.compare_settings('select-only', ARRAY['{}', '{}']::jsonb[], budget => '1 min')")
    assert "budget is for rounds => 'auto'" in str(e.value)


def test_a_verdict_needs_rounds_enough_for_its_confidence(lab):
    """Two rounds say nothing about the direction at 95 %, however far apart
    the sets are: undecided, never "no difference" nor "in every round"."""
    res = call(lab, "CALL pgbench_lab.compare_settings('select-only', ARRAY['{}', "
                    "'{\"enable_indexscan\": \"off\", \"enable_bitmapscan\": \"off\"}']::jsonb[], "
                    "duration => '0.5 s', rounds => 2)")
    assert "2 rounds): undecided: 2 rounds give at most 50.0 %; 6 needed for 95.0 %" in res["finding"], res["finding"]
    assert "no difference" not in res["finding"], res["finding"]
    assert "every round" not in res["finding"]
    with pytest.raises(psycopg.errors.InvalidParameterValue) as e:
        call(lab, "CALL pgbench_lab.compare_settings('select-only', ARRAY['{}', '{}']::jsonb[], "
                  "duration => '0.5 s', smallest_effect => 5)")
    assert "smallest_effect must be from 0 to below 1" in str(e.value)
