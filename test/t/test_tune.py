"""tune(): settings searched knob by knob and proven in fresh rounds, an
experiment kind of the one driver.  A knob that matters by construction
(work_mem against a sort that spills at 64kB) is found and decided with
its interval; a knob that cannot matter gives "no change recommended";
postgresql.auto.conf is back byte for byte after a reload-level search
that ends and one that is cancelled; bad input is refused before anything
runs; a tune experiment travels through export() and import() and
reports.  No speed is asserted: only decisions that a large effect (or
none) makes, with generous smallest effects."""
import time

import psycopg
import pytest
from psycopg.types.json import Jsonb

from conftest import pgbench_cluster
from test_settings_ab import auto_conf, prepare_auto_conf, fresh_setting

WORKERS = "('pgbench_lab client', 'pgbench_lab coordinator', 'pgbench_lab libpq client')"
# 30 000 integers: an external merge on disk at work_mem 64kB, a quicksort
# in memory (under 1 MB) at any candidate recommend() gives
SORT = "SELECT pg_catalog.count(*) FROM (SELECT v FROM public.tune_sort ORDER BY v OFFSET 0) x;"


@pytest.fixture(scope="module")
def lab():
    for c in pgbench_cluster("tune", {"max_worker_processes": "16"}, scale=1):
        c.sql("CREATE TABLE public.tune_sort AS SELECT (random() * 1e9)::int AS v FROM generate_series(1, 30000)")
        c.sql("VACUUM ANALYZE public.tune_sort")
        yield c


def call(c, query, params=None, timeout=None):
    """CALL with the NOTICEs it raised: (row, notices)."""
    got = []
    with c.connect() as conn:
        conn.add_notice_handler(lambda d: got.append(d.message_primary))
        if timeout:
            conn.execute(f"SET statement_timeout = '{timeout}'")
        row = conn.execute(query, params).fetchone()
    return row, got


@pytest.fixture(scope="module")
def tuned(lab):
    """work_mem searched from 64kB for the sort, in the runs' sessions.  The
    budget is sized by this machine's pace (a run timed first: ASan and a
    loaded CI are slower): 256 runs hold the first candidate's looks until
    one decides (a noisy round can leave the first look at 9 rounds open:
    64 runs, first tried, failed so under a loaded suite), the second
    candidate (the same sort in memory twice: whatever it gives, the winner
    is in memory) and the proof; the search stops planning when it is
    decided, so a quiet machine spends far less."""
    start = time.monotonic()
    lab.sql("CALL pgbench_lab.run(script => %s, duration => '0.3 s', via => 'libpq', "
            "settings => '{\"work_mem\": \"64kB\"}')", (SORT,))
    budget = max(256 * (time.monotonic() - start), 60)
    row, notices = call(lab, """CALL pgbench_lab.tune(script => %s, settings => '{"work_mem": "64kB"}',
                                  knobs => '{work_mem}', levels => '{session}', budget => %s,
                                  duration => '0.3 s', smallest_effect => 0.05, confidence => 0.9,
                                  apply => true)""", (SORT, f"{budget:.0f} s"))
    kept = auto_conf(lab)
    live = lab.scalar("SHOW work_mem")
    lab.sql("ALTER SYSTEM RESET ALL")
    lab.sql("SELECT pg_reload_conf()")
    return row[0], row[1], notices, kept, live


def verdicts(c, eid):
    return {r[0]: r[1:] for r in c.sql("SELECT comparison, verdict, decided, ratio, ratio_low, ratio_high, rounds "
                                       "FROM pgbench_lab.experiment_verdicts(%s)", (eid,))}


def test_finds_the_knob_that_matters(lab, tuned):
    eid, finding, notices, kept, live = tuned
    assert finding.startswith("Recommended: work_mem="), finding
    v = verdicts(lab, eid)
    proof = v["the winner against the starting configuration"]
    assert proof[0] == "faster" and proof[1], proof
    assert 1.05 < proof[3] <= proof[2] <= proof[4] and proof[5] >= 6, proof
    # the first candidate is decided faster in the search, with its interval
    first = next(r for k, r in v.items() if k.startswith("candidate 1 "))
    assert first[0] == "faster" and first[1] and first[3] > 1, first
    assert "interval" in finding and "ALTER SYSTEM SET work_mem = " in finding
    assert "Bonferroni" in finding and "Decided over libpq" in finding
    # progress: a NOTICE per candidate with the time left of the budget
    assert any(n.startswith("candidate 1 of") or "candidate 2 of" in n for n in notices), notices
    assert any("left of the budget" in n for n in notices), notices
    assert any(n.startswith("tune: ") and " planned (work_mem=" in n for n in notices), notices
    # the runs went over libpq, with the starting work_mem in the A runs
    assert lab.scalar("SELECT params->>'via' FROM pgbench_lab.experiments WHERE experiment_id = %s", (eid,)) == "libpq"


def test_apply_keeps_a_decided_winner(tuned):
    """apply => true: the winner, decided faster in its proof, is written
    with ALTER SYSTEM and live after the reload; the finding says so."""
    finding, kept, live = tuned[1], tuned[3], tuned[4]
    value = finding[len("Recommended: work_mem="):].split(" ")[0]
    assert "Applied (apply => true)" in finding, finding
    assert f"work_mem = '{value}'".encode() in kept, kept
    assert live == value


def test_a_knob_that_cannot_matter_changes_nothing(lab):
    """jit against select-only's cheap statements (below jit_above_cost):
    whatever the noise, nothing is decided faster by half."""
    row, _ = call(lab, """CALL pgbench_lab.tune('select-only', knobs => '{jit}', levels => '{session}',
                            budget => '14 s', duration => '0.2 s', smallest_effect => 0.5)""")
    eid, finding = row
    assert finding.startswith("No change recommended"), finding
    assert not any(k.startswith("the winner") for k in verdicts(lab, eid)), finding
    assert "Nothing was applied" in finding


def test_reload_level_search_restores_the_file(lab):
    before = prepare_auto_conf(lab)
    old = fresh_setting(lab, "checkpoint_completion_target")
    row, _ = call(lab, """CALL pgbench_lab.tune('select-only', knobs => '{checkpoint_completion_target}',
                            budget => '14 s', duration => '0.2 s', smallest_effect => 0.5)""")
    assert row[1].startswith("No change recommended"), row[1]
    assert auto_conf(lab) == before
    assert fresh_setting(lab, "checkpoint_completion_target") == old
    # one candidate (0.5 against the live 0.9), its first look's rounds
    assert lab.scalar("SELECT count(*) FROM pgbench_lab.experiment_runs WHERE experiment_id = %s", (row[0],)) >= 12


def test_cancel_restores_the_file_and_leaves_nothing_running(lab):
    before = prepare_auto_conf(lab)
    old = fresh_setting(lab, "bgwriter_lru_maxpages")
    with pytest.raises(psycopg.errors.QueryCanceled):
        call(lab, """CALL pgbench_lab.tune('select-only', knobs => '{bgwriter_lru_maxpages}',
                       budget => '5 min', duration => '1 s')""", timeout="4s")
    assert auto_conf(lab) == before
    lab.poll("SELECT setting = %s FROM pg_settings WHERE name = 'bgwriter_lru_maxpages'", (old,))
    lab.poll(f"SELECT count(*) = 0 FROM pg_stat_activity WHERE backend_type IN {WORKERS}")


@pytest.mark.parametrize("args, state, text", [
    ("knobs => '{nosuch}'", "22023", "tune cannot search nosuch"),
    ("knobs => '{fsync}'", "22023", "only with allow_unsafe => true"),
    ("knobs => '{shared_buffers}'", "0A000", "restart-level"),
    ("objective => 'p99'", "22023", "needs a fixed rate"),
    ("knobs => '{jit}', budget => '1 s'", "22023", "cannot hold one comparison"),
    ("knobs => '{jit}', levels => '{restart}'", "22023", "levels must hold"),
    ("knobs => '{max_wal_size}', levels => '{session}'", "22023", "are not at a level of levels"),
    ("objective => 'tps', p99_limit => '-1 ms'", "22023", "p99_limit is for objective 'tps'"),
])
def test_input_errors(lab, args, state, text):
    runs = lab.scalar("SELECT count(*) FROM pgbench_lab.runs")
    with pytest.raises(psycopg.Error) as e:
        lab.sql(f"CALL pgbench_lab.tune('select-only', {args})")
    assert e.value.sqlstate == state, e.value
    assert text in str(e.value), e.value
    if "shared_buffers" in args:
        assert "compare_settings(restart_settings => " in e.value.diag.message_hint
    assert lab.scalar("SELECT count(*) FROM pgbench_lab.runs") == runs


def test_reload_level_needs_a_superuser(lab):
    lab.sql("DROP ROLE IF EXISTS tuner")
    lab.sql("CREATE ROLE tuner LOGIN IN ROLE pg_monitor")
    lab.sql("GRANT EXECUTE ON PROCEDURE pgbench_lab.tune TO tuner")
    with pytest.raises(psycopg.Error) as e:
        lab.sql("CALL pgbench_lab.tune('select-only', knobs => '{checkpoint_completion_target}')", user="tuner")
    assert e.value.sqlstate == "42501", e.value
    assert "levels => '{session}'" in e.value.diag.message_hint


def test_export_import_and_report(lab, tuned):
    eid = tuned[0]
    doc = lab.scalar("SELECT pgbench_lab.export(ARRAY[%s]::bigint[])", (eid,))
    rows = lab.sql("SELECT kind, id FROM pgbench_lab.import(%s)", (Jsonb(doc),))
    new = next(i for k, i in rows if k == "experiment")
    assert verdicts(lab, new) == verdicts(lab, eid)
    report = "\n".join(r[0] for r in lab.sql("SELECT pgbench_lab.report(%s)", (new,)))
    assert "Search: each candidate" in report and "Proof:" in report and "Recommended: work_mem=" in report, report
    html = lab.scalar("SELECT pgbench_lab.report_html(ARRAY[%s]::bigint[])", (new,))
    assert "tune" in html and "Recommended" in html


def test_durability_knobs_only_when_allowed_and_marked_unsafe(lab):
    """allow_unsafe => true lets synchronous_commit be searched (the plan,
    without running it); a winner that turns durability off is UNSAFE in
    plain words."""
    plan = lab.scalar("""SELECT pgbench_lab_internal.tune_plan(workload => 'tpcb-like', settings => NULL,
                             objective => 'tps', knobs => '{synchronous_commit}', budget => '30 min',
                             smallest_effect => 0.02, confidence => 0.95, levels => NULL, apply => false,
                             allow_unsafe => true, p99_limit => NULL, clients => 1, duration => '10 s',
                             label => NULL, options => '{}', caller => '{}')""")
    assert plan["params"]["knobs"] == ["synchronous_commit"], plan["params"]
    assert {"change": {"synchronous_commit": "off"}, "source": "candidate"} in plan["params"]["moves"]
    words = lab.scalar("""SELECT pgbench_lab_internal.tune_unsafe('{"synchronous_commit": "off", "work_mem": "8MB"}')""")
    assert words.startswith("UNSAFE: synchronous_commit = off") and "crash" in words, words
    assert lab.scalar("""SELECT pgbench_lab_internal.tune_unsafe('{"work_mem": "8MB"}')""") is None


def test_p99_plan_and_memory_budget(lab):
    """objective 'p99' plans with its rate; a work_mem that memory_budget()
    calls an out-of-memory risk is refused as a candidate."""
    plan = lab.scalar("""SELECT pgbench_lab_internal.tune_plan(workload => 'select-only', settings => NULL,
                             objective => 'p99', knobs => '{random_page_cost}', budget => '30 min',
                             smallest_effect => 0.02, confidence => 0.95, levels => NULL, apply => false,
                             allow_unsafe => false, p99_limit => NULL, clients => 1, duration => '10 s',
                             label => NULL, options => '{"rate": 100}', caller => '{}')""")
    assert plan["params"]["objective"] == "p99" and plan["base"]["rate"] == 100 and plan["base"]["via"] == "libpq"
    assert lab.scalar("SELECT pgbench_lab_internal.tune_memory_ok('64MB')") is True
    assert lab.scalar("SELECT pgbench_lab_internal.tune_memory_ok('1TB')") is False
