"""cold_vs_warm, warm() on what does not fit, autoprewarm_status and
make_cold beside a run, on real servers.

The lab cluster has shared_buffers = 16MB and pgbench's data at scale 2
(about 30MB with indexes), so the data set is larger than shared buffers,
as in a real cold-vs-warm question: the warm state cannot be reached, and
the warm step loads what fits.  The roomy cluster (64MB, scale 1: 19MB)
holds it all.  pg_buffercache, installed in both, checks what is resident
independently of pgbench_lab.  Runs are 1-3 s: these tests check what is
recorded and said, never which state is faster.
"""
import os
import re
import threading

import psycopg
import pytest
from psycopg.types.json import Jsonb

from conftest import PG_MAJOR, Cluster, pgbench_cluster


@pytest.fixture(scope="module")
def lab():
    for c in pgbench_cluster("coldwarm", {"shared_buffers": "16MB", "autovacuum": "off"}, scale=2):
        c.sql("CREATE EXTENSION pg_buffercache")
        yield c


@pytest.fixture(scope="module")
def roomy():
    for c in pgbench_cluster("roomy", {"shared_buffers": "64MB", "autovacuum": "off"}, scale=1):
        c.sql("CREATE EXTENSION pg_buffercache")
        yield c


def diag(d):
    """A notice's severity, message, detail and hint (read in the handler:
    the notice is gone after it)."""
    return (d.severity_nonlocalized, d.message_primary, d.message_detail, d.message_hint)


def call_cold_vs_warm(c, args, warnings=None):
    """CALL cold_vs_warm; return (experiment_id, finding, notices); the
    WARNINGs go into warnings as (message, detail, hint), if given."""
    notices = []

    def seen(d):
        if d.severity_nonlocalized == "WARNING":
            if warnings is not None:
                warnings.append((d.message_primary, d.message_detail, d.message_hint))
        else:
            notices.append(d.message_primary)
    with c.connect() as conn:
        conn.add_notice_handler(seen)
        row = conn.execute(f"CALL pgbench_lab.cold_vs_warm({args})").fetchone()
    return row[0], row[1], notices


def rows_as_dicts(c, query, params=None):
    with c.connect() as conn:
        cur = conn.execute(query, params)
        names = [d.name for d in cur.description]
        return [dict(zip(names, r)) for r in cur.fetchall()]


def snapshot(c, snapshot_id, rel):
    """A relation's row of a cache snapshot (buffers, os_pages, blocks)."""
    rows = rows_as_dicts(c, "SELECT buffers, os_pages, blocks FROM pgbench_lab.cache_snapshot_relations"
                            " WHERE snapshot_id = %s AND relid = %s::regclass", (snapshot_id, rel))
    return rows[0]


def first_reach(progress, target):
    """Seconds from the run's start to the end of the first second at or above target."""
    elapsed = 0.0
    for p in progress:
        elapsed += p["interval_seconds"]
        if p["tps"] >= target:
            return elapsed
    return None


def fork_blocks(c, rel):
    """A relation's blocks in the forks warm() loads, read with PostgreSQL's own functions."""
    return c.scalar("SELECT sum(pg_relation_size(%s::regclass, f) / current_setting('block_size')::int)::int"
                    " FROM unnest(ARRAY['main', 'fsm', 'vm']) f", (rel,))


def resident(c, rel):
    """pg_buffercache's count of a relation's buffers (all forks), and the
    highest main-fork block among them."""
    return c.sql("SELECT count(*), max(b.relblocknumber) FILTER (WHERE b.relforknumber = 0)"
                 " FROM pg_buffercache b"
                 " WHERE b.relfilenode = pg_relation_filenode(%s::regclass)"
                 "   AND b.reldatabase = (SELECT oid FROM pg_database WHERE datname = current_database())",
                 (rel,))[0]


def buffer_settings(c):
    """shared_buffers in blocks, and the margin and budget of a warm."""
    return c.sql("SELECT shared_buffers, margin, budget FROM pgbench_lab_internal.warm_budget()")[0]


def check_plan(c, warm, relids):
    """params->'warm' as recorded: the working set measured independently,
    hottest first, what fits given to each in turn."""
    nbuffers, margin, budget = buffer_settings(c)
    assert nbuffers == c.scalar("SELECT setting::int FROM pg_settings WHERE name = 'shared_buffers'")
    assert margin >= nbuffers / 10 and budget == nbuffers - margin
    assert (warm["shared_buffers"], warm["margin"], warm["budget"]) == (nbuffers, margin, budget)
    rels = warm["relations"]
    assert sorted(r["relid"] for r in rels) == sorted(relids)
    for r in rels:
        assert r["blocks"] == fork_blocks(c, r["relation"]), r
    assert warm["working_set"] == sum(r["blocks"] for r in rels)
    assert warm["warm_blocks"] == sum(r["warm_blocks"] for r in rels) == min(budget, warm["working_set"])
    assert warm["fits"] == (warm["working_set"] <= budget)
    # indexes first, then tables, smaller first
    order = [(r["kind"] != "index", r["blocks"]) for r in rels]
    assert order == sorted(order), rels
    left = budget
    for r in rels:
        assert r["warm_blocks"] == min(r["blocks"], left), rels
        left -= r["warm_blocks"]
    return rels


def test_cold_vs_warm_larger_than_shared_buffers(lab):
    """The data set (30MB) is larger than shared_buffers (16MB): the plan
    recorded says what fits, the warm step loads exactly that, the indexes
    whole, and the WARNING, the finding and the report say that the warm run
    is a partly warm one."""
    warnings = []
    eid, finding, notices = call_cold_vs_warm(lab, "duration => '2 s'", warnings)
    exp = rows_as_dicts(lab, "SELECT * FROM pgbench_lab.experiments WHERE experiment_id = %s", (eid,))[0]
    assert exp["kind"] == "cold_vs_warm" and exp["status"] == "done"
    assert exp["workload"] == "select-only"
    assert exp["params"]["relations"] == ["public.pgbench_accounts", "public.pgbench_branches",
                                          "public.pgbench_tellers", "public.pgbench_history"]
    accounts_pkey = lab.scalar("SELECT 'pgbench_accounts_pkey'::regclass::oid")
    assert accounts_pkey in exp["params"]["relids"]

    # the plan: the working set does not fit; the indexes and the small
    # tables whole, then the first blocks of pgbench_accounts
    warm = exp["params"]["warm"]
    rels = check_plan(lab, warm, exp["params"]["relids"])
    assert warm["fits"] is False and warm["block_size"] == 8192
    assert [r["relation"] for r in rels if r["warm_blocks"] < r["blocks"]] == ["public.pgbench_accounts"]
    accounts = [r for r in rels if r["relation"] == "public.pgbench_accounts"][0]
    assert 0 < accounts["warm_blocks"] < accounts["blocks"]
    fits_pct = 100 * warm["shared_buffers"] // warm["working_set"]
    warm_pct = round(100 * warm["warm_blocks"] / warm["working_set"])
    accounts_pct = 100 * accounts["warm_blocks"] // accounts["blocks"]
    size = lab.scalar("SELECT pg_size_pretty(%s::bigint * 8192)", (warm["working_set"],))

    # warned before the runs, with what to do about it
    assert len(warnings) == 1, warnings
    message, detail, hint = warnings[0]
    assert message == (f"the warm state cannot be reached: the working set ({size}) is larger than"
                       f" shared_buffers (16 MB), which holds {fits_pct}% of it")
    assert f"only {accounts_pct}% of public.pgbench_accounts, the rest whole ({warm_pct}% of the working set)" in detail
    assert "partly warm run" in detail
    assert "give shared_buffers at least" in hint

    linked = rows_as_dicts(lab, "SELECT x.variant, r.* FROM pgbench_lab.experiment_runs x"
                                " JOIN pgbench_lab.runs r USING (run_id)"
                                " WHERE x.experiment_id = %s ORDER BY x.ordinal", (eid,))
    assert [r["variant"] for r in linked] == [1, 2, 3]
    assert all(r["status"] == "done" and r["transactions"] > 0 for r in linked)
    assert [r["label"] for r in linked] == [f"cold_vs_warm {eid}: {s}" for s in ("cold", "os-warm", "warm")]

    runs = rows_as_dicts(lab, "SELECT * FROM pgbench_lab.cold_vs_warm_runs(%s)", (eid,))
    assert [r["state"] for r in runs] == ["cold", "os-warm", "warm"]
    warm_tps = runs[2]["tps"]
    for r, run in zip(runs, linked):
        assert r["run_id"] == run["run_id"] and r["tps"] == run["tps"]
        progress = rows_as_dicts(lab, "SELECT second, interval_seconds, tps, hit_ratio"
                                      " FROM pgbench_lab.run_progress WHERE run_id = %s ORDER BY second",
                                 (run["run_id"],))
        assert len(progress) >= 2
        assert r["tps_curve"] == [p["tps"] for p in progress]
        assert r["hit_ratio_curve"] == [p["hit_ratio"] for p in progress]
        expected = first_reach(progress, 0.9 * warm_tps)
        if expected is None:
            assert r["seconds_to_90pct"] is None
        else:
            assert r["seconds_to_90pct"] == pytest.approx(expected)

    # cache states, read from the snapshots each run took before it started:
    # the warm run began with what the plan loaded, the index whole
    cold, os_warm, warm_state = (snapshot(lab, run["cache_before"], "pgbench_accounts") for run in linked)
    pkey = snapshot(lab, linked[2]["cache_before"], "pgbench_accounts_pkey")
    page = os.sysconf("SC_PAGESIZE")
    assert cold["buffers"] == 0 and os_warm["buffers"] == 0
    assert cold["os_pages"] * page <= 0.1 * cold["blocks"] * 8192
    assert os_warm["os_pages"] > cold["os_pages"]         # the cold run read through the OS
    assert pkey["buffers"] == pkey["blocks"], pkey
    assert 0.9 * accounts["warm_blocks"] <= warm_state["buffers"] <= accounts["warm_blocks"], \
        (warm_state, accounts)
    assert runs[0]["buffers_pct"] < runs[2]["buffers_pct"] < 100
    assert linked[0]["blks_read"] > 0                      # a cold start reads

    # printed with the warning first, the ratio labelled partly warm, and
    # kept for report()
    assert notices[-1] == finding
    assert finding.startswith(f"Warning: the warm state cannot be reached: the working set ({size}) is larger"
                              f" than shared_buffers (16 MB), which holds {fits_pct}% of it, so the warm step"
                              f" loaded what fits, hottest first: only {accounts_pct}% of public.pgbench_accounts,"
                              f" the rest whole ({warm_pct}% of the working set). The \"warm\" run is a partly"
                              f" warm run"), finding
    # one round: each ratio with its verdict, no interval and no direction
    assert re.search(r"cold \d+ tps .*, OS-warm \d+ tps .*, partly warm \d+ tps .*\. TPS partly warm against cold ×[\d.]+ "
                     r"\(1 round\): undecided: 1 round gives no interval; 6 needed for 95\.0 %\. "
                     r"TPS OS-warm against cold ×[\d.]+ \(1 round\): "
                     r"undecided: .* 90% of the partly warm TPS reached: "
                     r"cold (after [\d.]+ s|never \(within the run\)), "
                     r"OS-warm (after [\d.]+ s|never \(within the run\))", finding), finding
    assert not re.search(r"(?<!partly )(?<!OS-)warm against cold", finding), finding
    assert any(n.startswith("cold: checkpoint, then make_cold evicted") for n in notices)
    assert any(n.startswith("warm: checkpoint, then make_cold evicted") and f"pg_prewarm loaded {warm['warm_blocks']} blocks" in n
               for n in notices), notices
    report = [r[0] for r in lab.sql("SELECT * FROM pgbench_lab.report(%s)", (eid,))]
    assert report[0].startswith(f"Experiment {eid}: cold vs warm of select-only, 2 s per run, 1 client")
    assert finding in report
    assert any(re.match(rf"partly warm +{linked[2]['run_id']} ", line) for line in report), report
    assert not any(re.match(r"warm +(\d|tps)", line) for line in report), report
    assert f"working set {size} ({warm['working_set']} blocks); shared_buffers 16 MB (2048 buffers):" \
           f" {fits_pct}% of the working set fits" in report, report
    plan_lines = [line.split() for line in report if line.startswith("  public.")]
    assert [(p[0], int(p[2]), int(p[3])) for p in plan_lines] == \
        [(r["relation"], r["blocks"], r["warm_blocks"]) for r in rels]
    print("\n" + "\n".join(report))


def test_warm_step_loads_the_plan(lab):
    """The warm step alone (the preparation the driver calls), checked with
    pg_buffercache: exactly the recorded plan is resident, every index
    whole, pgbench_accounts from its first block on."""
    eid = lab.scalar("SELECT max(experiment_id) FROM pgbench_lab.experiments"
                     " WHERE kind = 'cold_vs_warm' AND source_server IS NULL AND params ? 'warm'")
    if eid is None:
        eid, _, _ = call_cold_vs_warm(lab, "duration => '1 s'")
    params = lab.scalar("SELECT params FROM pgbench_lab.experiments WHERE experiment_id = %s", (eid,))
    relations = [lab.scalar("SELECT %s::regclass::oid", (r,)) for r in params["relations"]]
    step = {"prepare": {"state": "warm", "relations": relations, "warm": params["warm"]}}
    # something else in the buffers first: the whole table read by a scan
    lab.sql("SELECT pg_prewarm('pgbench_accounts')")
    said = lab.scalar("SELECT pgbench_lab_internal.cold_vs_warm_prepare(%s, %s)", (eid, Jsonb(step)))
    found = {r["relation"]: resident(lab, r["relation"]) for r in params["warm"]["relations"]}
    for r in params["warm"]["relations"]:
        count, top = found[r["relation"]]
        if r["relation"] == "public.pgbench_accounts":
            # loaded first (the coldest), its first blocks only; should other
            # relations hold more than the margin, some of it goes again
            assert 0.9 * r["warm_blocks"] <= count <= r["warm_blocks"], (r, found)
            assert top <= r["warm_blocks"] - 1, (r, found)
        else:
            assert count == r["warm_blocks"] == r["blocks"], (r, found)
    assert f"pg_prewarm loaded {params['warm']['warm_blocks']} blocks" in said, said


def test_warm_larger_than_shared_buffers(lab):
    """warm() of a table that does not fit: a WARNING saying so and what it
    loaded instead, its index whole, the table's first blocks; none for a
    table that fits or for the OS page cache."""
    nbuffers, margin, budget = buffer_settings(lab)
    lab.sql("SELECT count(*) FROM pgbench_lab.make_cold('pgbench_accounts', os_cache => false)")
    warnings = []
    with lab.connect() as conn:
        conn.add_notice_handler(lambda d: warnings.append(diag(d)))
        rows = dict(conn.execute("SELECT relation::text, blocks_loaded FROM pgbench_lab.warm('pgbench_accounts')"))
    table, index = fork_blocks(lab, "pgbench_accounts"), fork_blocks(lab, "pgbench_accounts_pkey")
    assert table + index > budget
    assert rows == {"pgbench_accounts_pkey": index, "pgbench_accounts": budget - index}, rows
    assert resident(lab, "pgbench_accounts_pkey")[0] == index
    count, top = resident(lab, "pgbench_accounts")
    assert 0.9 * (budget - index) <= count <= budget - index and top <= budget - index - 1, \
        (count, top, budget, index)
    assert [w[0] for w in warnings] == ["WARNING"], warnings
    severity, message, detail, hint = warnings[0]
    size = lab.scalar("SELECT pg_size_pretty(%s::bigint * 8192)", (table + index,))
    assert message == (f'"pgbench_accounts" with its indexes ({table + index} blocks, {size})'
                                           f" does not fit in shared_buffers ({nbuffers} buffers, 16 MB)")
    pct = 100 * (budget - index) // table
    assert detail.endswith(
        f"({budget} blocks), hottest first (indexes, then tables, smaller first): only the first"
        f" {budget - index} blocks ({pct}%) of pgbench_accounts, the rest whole."), detail
    assert "only its last blocks would stay cached" in detail
    assert "mode => 'read'" in hint

    # what fits, and the OS page cache, take no warning
    for query, expected in [("SELECT relation::text, blocks_loaded FROM pgbench_lab.warm('pgbench_branches')",
                             {"pgbench_branches": fork_blocks(lab, "pgbench_branches"),
                              "pgbench_branches_pkey": fork_blocks(lab, "pgbench_branches_pkey")}),
                            ("SELECT relation::text, blocks_loaded FROM pgbench_lab.warm('pgbench_accounts', 'read')",
                             {"pgbench_accounts": table, "pgbench_accounts_pkey": index})]:
        warnings.clear()
        with lab.connect() as conn:
            conn.add_notice_handler(lambda d: warnings.append(diag(d)))
            assert dict(conn.execute(query)) == expected
        assert warnings == [], warnings


def test_cold_vs_warm_that_fits(roomy):
    """The data set (19MB) fits in shared_buffers (64MB): the whole working
    set is loaded, no warning, the ratio is a warm/cold ratio.  A label is
    the experiment's, and each run's with its state."""
    warnings = []
    eid, finding, notices = call_cold_vs_warm(roomy, "duration => '1 s', label => 'after restart'", warnings)
    assert warnings == []
    assert roomy.scalar("SELECT label FROM pgbench_lab.experiments WHERE experiment_id = %s", (eid,)) == "after restart"
    assert roomy.sql("SELECT r.label FROM pgbench_lab.experiment_runs x JOIN pgbench_lab.runs r USING (run_id) "
                     "WHERE x.experiment_id = %s ORDER BY x.ordinal", (eid,)) == \
        [("after restart: cold",), ("after restart: os-warm",), ("after restart: warm",)]
    params = roomy.scalar("SELECT params FROM pgbench_lab.experiments WHERE experiment_id = %s", (eid,))
    warm = params["warm"]
    rels = check_plan(roomy, warm, params["relids"])
    assert warm["fits"] is True and all(r["warm_blocks"] == r["blocks"] for r in rels)
    runs = rows_as_dicts(roomy, "SELECT * FROM pgbench_lab.cold_vs_warm_runs(%s)", (eid,))
    assert runs[2]["buffers_pct"] >= 99, runs[2]
    size = roomy.scalar("SELECT pg_size_pretty(%s::bigint * 8192)", (warm["working_set"],))
    assert "Warning" not in finding and "partly" not in finding, finding
    assert re.match(r"cold \d+ tps .*, OS-warm \d+ tps .*, warm \d+ tps .*\. TPS warm against cold ×[\d.]+ "
                    r"\(1 round\): undecided: .* 90% of the warm TPS reached: ", finding), finding
    assert f"The working set ({size}) fits in shared_buffers (64 MB). In-server figures" in finding, finding
    assert any(n.startswith("warm: checkpoint, then make_cold evicted") and n.endswith("s: the whole working set") for n in notices), notices
    report = [r[0] for r in roomy.sql("SELECT * FROM pgbench_lab.report(%s)", (eid,))]
    assert f"working set {size} ({warm['working_set']} blocks); shared_buffers 64 MB (8192 buffers):" \
           f" 100% of the working set fits" in report, report
    print("\n" + "\n".join(report))


def test_cold_vs_warm_in_rounds(roomy):
    """Two rounds of 0.3-s runs: each round runs cold, OS-warm and warm in
    that order (the OS-warm state is what its round's cold run left in the
    OS page cache), each step prepared before its run; the ratios are paired
    by round and judged, and with two rounds no direction is called.  What
    is asserted is what the code decides, never which state is faster."""
    eid, finding, notices = call_cold_vs_warm(roomy, "duration => '0.3 s', rounds => 2")
    params = roomy.scalar("SELECT params FROM pgbench_lab.experiments WHERE experiment_id = %s", (eid,))
    assert (params["rounds"], params["smallest_effect"], params["confidence"]) == (2, 0.02, 0.95)
    linked = roomy.sql("SELECT x.variant, x.round, r.status FROM pgbench_lab.experiment_runs x"
                       " JOIN pgbench_lab.runs r USING (run_id) WHERE x.experiment_id = %s ORDER BY x.ordinal", (eid,))
    assert linked == [(v, n, "done") for n in (1, 2) for v in (1, 2, 3)], linked
    prepared = [n.split(":")[0] for n in notices if "make_cold evicted" in n]
    assert prepared == ["cold", "os-warm", "warm", "cold (round 2)", "os-warm (round 2)", "warm (round 2)"], notices
    runs = rows_as_dicts(roomy, "SELECT state, round FROM pgbench_lab.cold_vs_warm_runs(%s)", (eid,))
    assert [(r["state"], r["round"]) for r in runs] == [(s, n) for n in (1, 2) for s in ("cold", "os-warm", "warm")]
    verdicts = rows_as_dicts(roomy, "SELECT * FROM pgbench_lab.experiment_verdicts(%s)", (eid,))
    assert [v["comparison"] for v in verdicts] == ["warm against cold", "OS-warm against cold",
                                                   "warm against OS-warm"], verdicts
    for v in verdicts:
        assert v["measure"] == "tps" and v["rounds"] == 2 and v["coverage"] == 0.5, v
        assert v["ratio_low"] <= v["ratio"] <= v["ratio_high"], v
        assert (v["verdict"], v["decided"]) == ("undecided", False), v
        assert v["basis"] == "2 rounds give at most 50.0 %; 6 needed for 95.0 %", v
    assert finding.startswith("Medians of 2 rounds: cold "), finding
    assert re.search(r"\. TPS warm against cold ×[\d.]+ \(50\.0 % interval ×[\d.]+ to ×[\d.]+, 2 rounds\): "
                     r"undecided: 2 rounds give at most 50\.0 %; 6 needed for 95\.0 %", finding), finding
    assert "TPS OS-warm against cold ×" in finding and "90% of the warm TPS of its round reached: " in finding, finding
    report = [r[0] for r in roomy.sql("SELECT * FROM pgbench_lab.report(%s)", (eid,))]
    assert report[0].startswith(f"Experiment {eid}: cold vs warm of select-only, 0.3 s per run, 1 client")
    assert sum(1 for line in report if line.startswith("TPS ") and "50.0 % interval" in line) == 3, report
    assert any(re.match(r"os-warm +2 +[\d.]+ +[\d.]+ +[\d.]+$", line) for line in report), report
    assert any(line.startswith("cold (round 2)") and "tps per second" in line for line in report), report
    print("\n" + "\n".join(report))


def import_changed(c, eid, change):
    """Export an experiment, change its document, import it: the new id."""
    doc = c.scalar("SELECT pgbench_lab.export(ARRAY[%s])", (eid,))
    change(doc)
    rows = c.sql("SELECT kind, id FROM pgbench_lab.import(%s)", (Jsonb(doc),))
    return [i for k, i in rows if k == "experiment"][0]


def slower_warm(doc):
    """The warm run's TPS below the OS-warm run's."""
    tps = {r["label"].rsplit(": ", 1)[1]: r["tps"] for r in doc["runs"]}
    for r in doc["runs"]:
        if r["label"].endswith(": warm"):
            r["tps"] = tps["os-warm"] / 2


@pytest.mark.parametrize("cluster", ["lab", "roomy"])
def test_finding_when_warm_is_slower_than_os_warm(cluster, request):
    """A warm run slower than the OS-warm one is said to be, with why: the
    figures imported with the warm run's TPS halved (the plan travels in the
    parameters, so the imported finding knows what fitted)."""
    c = request.getfixturevalue(cluster)
    eid = c.scalar("SELECT max(experiment_id) FROM pgbench_lab.experiments"
                   " WHERE kind = 'cold_vs_warm' AND source_server IS NULL AND params ? 'warm'")
    if eid is None:
        eid, _, _ = call_cold_vs_warm(c, "duration => '1 s'")
    fits = c.scalar("SELECT (params->'warm'->>'fits')::bool FROM pgbench_lab.experiments WHERE experiment_id = %s",
                    (eid,))
    assert fits == (cluster == "roomy")
    finding = c.scalar("SELECT pgbench_lab.cold_vs_warm_finding(%s)",
                       (import_changed(c, eid, slower_warm),))
    if fits:
        assert re.search(r" The warm run was slower than the OS-warm run \(\d+ vs \d+ tps\) though it began with"
                         r" the working set in shared buffers: the cache does not explain that", finding), finding
        assert "Warning" not in finding
    else:
        assert finding.startswith("Warning: the warm state cannot be reached"), finding
        assert re.search(r" The partly warm run was slower than the OS-warm run \(\d+ vs \d+ tps\): with \d+% of"
                         r" the working set in shared buffers at its start, both runs read most pages from the OS page"
                         r" cache", finding), finding


def test_finding_without_a_recorded_plan(lab):
    """An experiment recorded before the plan was (version 0.1, or such an
    import): the warning comes from the cache state the warm run began
    with, its cache_before snapshot."""
    eid, _, _ = call_cold_vs_warm(lab, "duration => '1 s'")
    started = lab.scalar("SELECT buffers_pct FROM pgbench_lab.cold_vs_warm_runs(%s) WHERE state = 'warm'", (eid,))
    assert started < 90
    # what 0.1 recorded: the parameters without the plan (written directly,
    # as the superuser a test runs as may)
    lab.sql("UPDATE pgbench_lab.experiments SET params = params - 'warm' WHERE experiment_id = %s", (eid,))
    finding = lab.scalar("SELECT pgbench_lab.cold_vs_warm_finding(%s)", (eid,))
    assert finding.startswith(f"Warning: the warm run began with only {round(started)}% of the working set in"
                              " shared buffers, so it is a partly warm run"), finding
    assert "TPS partly warm against cold ×" in finding and not re.search(r"(?<!partly )(?<!OS-)warm against cold", finding)
    report = [r[0] for r in lab.sql("SELECT * FROM pgbench_lab.report(%s)", (eid,))]
    assert not any(line.startswith("warm step") for line in report)
    assert finding in report


def test_imported_tiny_figures_report_and_plot(lab):
    """An imported cold_vs_warm experiment whose cold run's TPS and
    latencies are the smallest double (5e-324) still reports and plots (no
    22003 from the warm/cold ratio or the per-second figures)."""
    eid = lab.scalar("SELECT max(experiment_id) FROM pgbench_lab.experiments "
                     "WHERE kind = 'cold_vs_warm' AND source_server IS NULL")
    if eid is None:
        eid, _, _ = call_cold_vs_warm(lab, "duration => '1 s'")
    doc = lab.scalar("SELECT pgbench_lab.export(ARRAY[%s])", (eid,))

    def tiny(x):
        if isinstance(x, dict):
            return {k: 5e-324 if k in ("tps", "latency_avg_ms", "latency_max_ms") and v
                    else tiny(v) for k, v in x.items()}
        return [tiny(v) for v in x] if isinstance(x, list) else x
    # the cold run's figures tiny, the others as measured: warm/cold is huge
    doc["runs"] = [tiny(r) if r["label"].endswith(": cold") else r for r in doc["runs"]]
    rows = lab.sql("SELECT kind, id FROM pgbench_lab.import(%s)", (Jsonb(doc),))
    new = [i for k, i in rows if k == "experiment"][0]
    report = "\n".join(r[0] for r in lab.sql("SELECT pgbench_lab.report(%s)", (new,)))
    # the ratio of TPS to 5e-324 is beyond any float: no error, whatever it prints
    assert re.search(r"TPS (partly )?warm against cold ×\S+ \(1 round\): undecided", report), report
    assert lab.scalar("SELECT pgbench_lab.plot(ARRAY[%s]) LIKE '<svg%%'", (new,))


def test_cold_vs_warm_given_relations_outside_a_transaction_only(lab):
    before = lab.scalar("SELECT count(*) FROM pgbench_lab.experiments")
    with lab.connect(autocommit=False) as conn:
        with pytest.raises(psycopg.errors.InvalidTransactionTermination):
            conn.execute("CALL pgbench_lab.cold_vs_warm(relations => ARRAY['pgbench_accounts'::regclass])")
    assert lab.scalar("SELECT count(*) FROM pgbench_lab.experiments") == before
    # the tables are found through search_path, like the runner finds them
    with lab.connect() as conn:
        conn.execute("SET search_path = pg_catalog")
        with pytest.raises(psycopg.errors.UndefinedTable):
            conn.execute("CALL pgbench_lab.cold_vs_warm(duration => '1 s')")
    assert lab.scalar("SELECT count(*) FROM pgbench_lab.experiments") == before


def test_cold_vs_warm_superuser_only(lab):
    lab.sql("CREATE ROLE cw_user LOGIN")
    lab.sql("GRANT EXECUTE ON PROCEDURE pgbench_lab.cold_vs_warm TO cw_user")
    lab.sql("GRANT SELECT ON ALL TABLES IN SCHEMA public TO cw_user")
    with pytest.raises(psycopg.errors.InsufficientPrivilege) as e:
        lab.sql("CALL pgbench_lab.cold_vs_warm(duration => '1 s')", user="cw_user")
    assert "make_cold" in e.value.diag.message_detail


def prewarm_status(conn):
    cur = conn.execute("SELECT * FROM pgbench_lab.autoprewarm_status()")
    return dict(zip([d.name for d in cur.description], cur.fetchone()))


def test_autoprewarm_status_not_preloaded(lab):
    with lab.connect() as conn:
        s = prewarm_status(conn)
        assert s["preloaded"] is False and s["restart_warm"] is False
        assert s["warning"] is None and s["autoprewarm"] is None
        assert s["dump_file"] == "autoprewarm.blocks" and s["dump_blocks"] is None
        # loading pg_prewarm in a session defines its interval, not
        # pg_prewarm.autoprewarm, which exists only when preloaded
        conn.execute("SELECT pg_prewarm('pgbench_branches')")
        s = prewarm_status(conn)
        assert s["autoprewarm"] is None and s["autoprewarm_interval"].total_seconds() == 300
        assert s["restart_warm"] is False and s["warning"] is None
    lab.sql("CREATE ROLE cw_mon LOGIN IN ROLE pg_monitor")
    lab.sql("CREATE ROLE cw_nobody LOGIN")
    assert lab.scalar("SELECT preloaded FROM pgbench_lab.autoprewarm_status()", user="cw_mon") is False
    # a preload written by ALTER SYSTEM, not yet applied: the next start
    # will load pg_prewarm with autoprewarm on (its default), so it comes
    # back warm; a pg_monitor member is told so too
    lab.sql("ALTER SYSTEM SET shared_preload_libraries = 'pg_prewarm'")
    try:
        for user in ("postgres", "cw_mon"):
            with lab.connect(user=user) as conn:
                s = prewarm_status(conn)
            assert s["preloaded"] is False and s["pending_restart"] is True, s
            assert s["restart_warm"] is True, s
            assert "pending a restart" in s["warning"] and "comes back warm" in s["warning"], s
    finally:
        lab.sql("ALTER SYSTEM RESET shared_preload_libraries")
    with lab.connect() as conn:
        s = prewarm_status(conn)
    assert s["pending_restart"] is False and s["restart_warm"] is False and s["warning"] is None
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        lab.sql("SELECT * FROM pgbench_lab.autoprewarm_status()", user="cw_nobody")


def dump_file_counts(c):
    """The dump file's header and its lines of database postgres, read directly."""
    with open(os.path.join(c.datadir, "autoprewarm.blocks")) as f:
        header = int(re.match(r"<<(\d+)>>", f.readline()).group(1))
        lines = [l.split(",") for l in f]
    db = str(c.scalar("SELECT oid FROM pg_database WHERE datname = 'postgres'"))
    return header, sum(1 for l in lines if l[0] == db)


def buffers_of(c, rel):
    return c.scalar("SELECT buffers FROM pgbench_lab.cache_status(%s) WHERE relation = %s::regclass",
                    (rel, rel))


def test_autoprewarm_status_preloaded(new_cluster):
    c = new_cluster("apw", {"shared_preload_libraries": "'pg_prewarm'",
                            "pg_prewarm.autoprewarm": "on",
                            "pg_prewarm.autoprewarm_interval": "'1h'",
                            "shared_buffers": "16MB"})
    c.sql("CREATE EXTENSION pgbench_lab CASCADE")
    c.sql("CREATE TABLE apw_t AS SELECT g AS id, repeat('x', 100) AS pad FROM generate_series(1, 20000) g")
    c.sql("SELECT pg_prewarm('apw_t')")
    dumped = c.scalar("SELECT autoprewarm_dump_now()")
    with c.connect() as conn:
        s = prewarm_status(conn)
    assert s["preloaded"] is True and s["autoprewarm"] is True
    assert s["autoprewarm_interval"].total_seconds() == 3600
    header, here = dump_file_counts(c)
    assert s["dump_blocks"] == header == dumped
    assert s["dump_blocks_this_database"] == here
    assert here >= c.scalar("SELECT pg_relation_size('apw_t') / 8192")
    assert 0 <= s["dump_age"].total_seconds() < 600
    assert s["pending_restart"] is False and s["restart_warm"] is True
    assert "A restart comes back warm, not cold" in s["warning"]
    assert f"holds {dumped} blocks" in s["warning"]

    # the warning is right: after a restart the table is back in shared buffers
    c.restart()
    c.poll("SELECT buffers >= pg_relation_size('apw_t') / 8192 FROM pgbench_lab.cache_status('apw_t')"
           " WHERE relation = 'apw_t'::regclass")

    # a change waiting for a restart decides what the next start does
    c.sql("ALTER SYSTEM SET pg_prewarm.autoprewarm = off")
    with c.connect() as conn:
        s = prewarm_status(conn)
    assert s["pending_restart"] is True and s["restart_warm"] is False, s
    assert "pending a restart" in s["warning"] and "comes back cold" in s["warning"]
    c.restart()
    with c.connect() as conn:
        s = prewarm_status(conn)
    assert s["autoprewarm"] is False and s["restart_warm"] is False and s["warning"] is None
    assert buffers_of(c, "apw_t") == 0        # and it did come back cold


@pytest.mark.parametrize("workload", ["select-only", "tpcb-like"])
def test_make_cold_during_a_run(lab, workload):
    """make_cold of pgbench_accounts while a run's clients use it.

    PostgreSQL 15: make_cold waits for AccessExclusiveLock; the clients'
    next transactions queue behind it and carry on once it commits: the
    run slows for a moment, nothing fails.  PostgreSQL 18: it evicts beside
    the clients (buffers they have pinned stay).  Either way no transaction
    fails and no update is lost.
    """
    run_id = lab.scalar("SELECT pgbench_lab.start(%s, clients => 2, duration => '3 s')", (workload,))
    lab.poll("SELECT transactions > 0 FROM pgbench_lab_internal.run_live(%s)", (run_id,))
    with lab.connect() as conn:
        rows = conn.execute("SELECT relation::text, buffers_evicted, buffers_left"
                            " FROM pgbench_lab.make_cold('pgbench_accounts')").fetchall()
    assert {r[0] for r in rows} == {"pgbench_accounts", "pgbench_accounts_pkey"}
    if PG_MAJOR < 17:
        assert all(r[2] == 0 for r in rows)
    with lab.connect() as conn:
        status, done, failures, error = conn.execute(
            "CALL pgbench_lab.wait(%s, NULL, NULL, NULL, NULL, NULL, NULL, NULL)",
            (run_id,)).fetchone()[1:3] + conn.execute(
            "SELECT failures, error FROM pgbench_lab.runs WHERE run_id = %s", (run_id,)).fetchone()
    assert status == "done" and error is None and failures == 0
    assert done == lab.scalar("SELECT sum(transactions) FROM pgbench_lab.run_progress WHERE run_id = %s",
                              (run_id,))
    # nothing lost: every delta is in both the balances and the history
    assert lab.scalar("SELECT (SELECT sum(abalance) FROM pgbench_accounts)"
                      " = (SELECT coalesce(sum(delta), 0) FROM pgbench_history)")
    assert lab.scalar("SELECT (SELECT sum(bbalance) FROM pgbench_branches)"
                      " = (SELECT coalesce(sum(delta), 0) FROM pgbench_history)")
    if workload == "tpcb-like":
        assert lab.scalar("SELECT count(*) FROM pgbench_history") >= done
    curve = [r[0] for r in lab.sql("SELECT transactions FROM pgbench_lab.run_progress"
                                   " WHERE run_id = %s ORDER BY second", (run_id,))]
    print(f"\nPG{PG_MAJOR} {workload}: make_cold left {[r[2] for r in rows]} buffers;"
          f" transactions per second {curve}")


TPCC_TABLES = ("warehouse", "district", "customer", "history", "new_order", "orders", "order_line", "item", "stock")
TPCC_MIX = ["tpcc-new-order@45", "tpcc-payment@43", "tpcc-order-status@4", "tpcc-delivery@4", "tpcc-stock-level@4"]


def test_cold_vs_warm_tpcc_relations(roomy):
    """relations NULL on a run of the kit's TPC-C scripts: the nine tables
    of the schema the caller's saved scripts name (read from their
    statement that reads the warehouses, a quoted name here), not
    pgbench's; relations given still
    win; a mix with other scripts keeps pgbench's.  One experiment of
    0.3-s runs on 1 warehouse (about 100 MB, more than shared_buffers: the
    warm is partly warm, and warned of); the other cases ask the planner."""
    roomy.sql("""SELECT * FROM pgbench_lab.init_tpcc(1, 'Tp "cc"')""")
    q = '"Tp ""cc"""'
    nine = [f"{q}.{t}" for t in TPCC_TABLES]
    try:
        warnings = []
        eid, finding, notices = call_cold_vs_warm(
            roomy, f"scripts => ARRAY{TPCC_MIX!r}, duration => '0.3 s'", warnings)
        params = roomy.scalar("SELECT params FROM pgbench_lab.experiments WHERE experiment_id = %s", (eid,))
        assert params["relations"] == nine, params["relations"]
        assert {r["relation"] for r in params["warm"]["relations"] if r["kind"] == "table"} == set(nine)
        assert len(warnings) == 1 and warnings[0][0].startswith("the warm state cannot be reached"), warnings
        runs = roomy.sql("SELECT r.status FROM pgbench_lab.experiment_runs x JOIN pgbench_lab.runs r USING (run_id)"
                         " WHERE x.experiment_id = %s", (eid,))
        assert runs == [("done",)] * 3, runs

        def planned(relations, options, workload="select-only"):
            plan = roomy.scalar(
                "SELECT pgbench_lab_internal.cold_vs_warm_plan(workload => %s, clients => 1, duration => '1 s',"
                " relations => %s::regclass[], rounds => 1, options => %s,"
                " caller => jsonb_build_object('accounts', to_regclass('pgbench_accounts')::oid),"
                " smallest_effect => 0.02, confidence => 0.95)", (workload, relations, Jsonb(options)))
            return plan["params"]["relations"]
        with_owner = [f"postgres/{s}" for s in TPCC_MIX[:2]]
        assert planned(None, {"scripts": with_owner}) == nine
        assert planned([f"{q}.stock"], {"scripts": TPCC_MIX}) == [f"{q}.stock"]
        assert planned(None, {"scripts": TPCC_MIX[:1] + ["select-only@10"]})[0] == "public.pgbench_accounts"
        assert planned(None, {}, workload="tpcc") == nine
        # another role's saved script naming a schema without the tables
        roomy.sql("INSERT INTO pgbench_lab.scripts (name, body, created_by) VALUES ('tpcc-new-order',"
                  " 'SELECT pg_catalog.max(w_id) AS warehouses FROM nowhere.warehouse \\gset', 'someone')")
        with pytest.raises(psycopg.errors.UndefinedTable, match='relation "nowhere.warehouse" does not exist'):
            planned(None, {"scripts": ["someone/tpcc-new-order@1"]})
    finally:
        roomy.sql(f"DROP SCHEMA {q} CASCADE")
        roomy.sql("DELETE FROM pgbench_lab.scripts WHERE name LIKE 'tpcc-%'")
