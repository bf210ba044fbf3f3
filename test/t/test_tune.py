"""tune(): settings searched knob by knob and proven in fresh rounds, an
experiment kind of the one driver.  A knob that matters by construction
(work_mem under a NOT IN whose subquery is hashed only above 64kB) is found and decided with
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

from conftest import Background, pgbench_cluster
from test_settings_ab import auto_conf, prepare_auto_conf, fresh_setting

WORKERS = "('pgbench_lab client', 'pgbench_lab coordinator', 'pgbench_lab libpq client')"
# NOT IN over 5 000 integers: at work_mem 64kB the subquery's hash table
# does not fit, and each of the 100 outer rows scans the 5 000 inner ones
# (tens of milliseconds); at any candidate recommend() gives (256kB is
# enough) it is a hashed SubPlan (under a millisecond).  An effect of an
# order of magnitude by construction: the first look decides it.
QUERY = ("SELECT pg_catalog.count(*) FROM public.tune_outer o "
         "WHERE o.v NOT IN (SELECT i.v FROM public.tune_inner i);")


@pytest.fixture(scope="module")
def lab():
    for c in pgbench_cluster("tune", {"max_worker_processes": "16"}, scale=1):
        c.sql("CREATE TABLE public.tune_outer AS SELECT (random() * 1e9)::int AS v FROM generate_series(1, 100)")
        c.sql("CREATE TABLE public.tune_inner AS SELECT (random() * 1e9)::int AS v FROM generate_series(1, 5000)")
        c.sql("ANALYZE public.tune_outer, public.tune_inner")
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
    """work_mem searched from 64kB for the NOT IN, in the runs' sessions.
    The effect is an order of magnitude, so with a smallest effect of 90 %
    the first look decides the first candidate faster, and the second
    (hashed against hashed) no different, each in 8 rounds at 80 %; then
    the proof, 7 rounds.
    The budget is sized by this machine's pace (a run timed first: ASan
    and a loaded CI are slower) so that it never ends the search first;
    the search stops planning when it is decided, so the test costs what
    the decisions cost, not the budget."""
    start = time.monotonic()
    lab.sql("CALL pgbench_lab.run(script => %s, duration => '0.1 s', via => 'libpq', "
            "settings => '{\"work_mem\": \"64kB\"}')", (QUERY,))
    budget = max(256 * (time.monotonic() - start), 60)
    row, notices = call(lab, """CALL pgbench_lab.tune(script => %s, settings => '{"work_mem": "64kB"}',
                                  knobs => '{work_mem}', levels => '{session}', budget => %s,
                                  duration => '0.1 s', smallest_effect => 0.9, confidence => 0.8,
                                  apply => true)""", (QUERY, f"{budget:.0f} s"))
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
                            budget => '5 s', duration => '0.1 s', smallest_effect => 0.5, confidence => 0.8)""")
    eid, finding = row
    assert finding.startswith("No change recommended"), finding
    assert not any(k.startswith("the winner") for k in verdicts(lab, eid)), finding
    assert "Nothing was applied" in finding


def test_reload_level_search_restores_the_file(lab):
    before = prepare_auto_conf(lab)
    old = fresh_setting(lab, "checkpoint_completion_target")
    row, _ = call(lab, """CALL pgbench_lab.tune('select-only', knobs => '{checkpoint_completion_target}',
                            budget => '4 s', duration => '0.1 s', smallest_effect => 0.5, confidence => 0.8)""")
    assert row[1].startswith("No change recommended"), row[1]
    assert auto_conf(lab) == before
    assert fresh_setting(lab, "checkpoint_completion_target") == old
    # one candidate (0.5 against the live 0.9), its first look's 7 rounds
    assert lab.scalar("SELECT count(*) FROM pgbench_lab.experiment_runs WHERE experiment_id = %s", (row[0],)) >= 12


STOPPABLE = {
    "compare_settings": """CALL pgbench_lab.compare_settings('select-only',
                              ARRAY['{"bgwriter_lru_maxpages": "500"}', '{}']::jsonb[], clients => 1,
                              duration => '1 s', rounds => 2)""",
    "validate_recommendation": """CALL pgbench_lab.validate_recommendation('select-only', clients => 1,
                                     duration => '1 s', rounds => 2)""",
    "tune": """CALL pgbench_lab.tune('select-only', knobs => '{bgwriter_lru_maxpages}', budget => '5 min',
                  duration => '1 s')""",
}


@pytest.mark.parametrize("how", ["statement_timeout", "pg_cancel_backend"])
@pytest.mark.parametrize("kind", list(STOPPABLE))
def test_a_cancel_marks_the_experiment_aborted_at_once(lab, kind, how):
    """A cancel of a settings experiment of any kind: when the error reaches
    the client, another session already sees the experiment aborted and its
    record of saved settings closed, without any other experiment starting;
    postgresql.auto.conf is back byte for byte, the runs end, and the same
    session starts its next settings experiment."""
    before = prepare_auto_conf(lab)
    old = fresh_setting(lab, "bgwriter_lru_maxpages")
    last = lab.scalar("SELECT coalesce(max(experiment_id), 0) FROM pgbench_lab.experiments")
    with lab.connect() as conn:
        if how == "statement_timeout":
            conn.execute("SET statement_timeout = '3s'")
        bg = Background(conn, STOPPABLE[kind])
        if how == "pg_cancel_backend":
            lab.poll("SELECT EXISTS (SELECT FROM pgbench_lab.experiments WHERE backend_pid = %s AND status = 'running') "
                     f"AND EXISTS (SELECT FROM pg_stat_activity WHERE backend_type IN {WORKERS})", (bg.pid,))
            assert lab.scalar("SELECT pg_cancel_backend(%s)", (bg.pid,)) is True
        assert isinstance(bg.join(60), psycopg.errors.QueryCanceled), bg.error
        rows = lab.sql("SELECT e.kind, e.status, s.restored_at IS NOT NULL, s.outcome FROM pgbench_lab.experiments e "
                       "LEFT JOIN pgbench_lab_internal.settings_saved s USING (experiment_id) "
                       "WHERE e.experiment_id > %s", (last,))
        assert len(rows) == 1 and rows[0][:3] == (kind, "aborted", True), rows
        assert "byte for byte when the experiment was stopped" in rows[0][3], rows
        assert auto_conf(lab) == before
        lab.poll("SELECT setting = %s FROM pg_settings WHERE name = 'bgwriter_lru_maxpages'", (old,))
        lab.poll(f"SELECT count(*) = 0 FROM pg_stat_activity WHERE backend_type IN {WORKERS}")
        lab.poll("SELECT count(*) = 0 FROM pgbench_lab.runs WHERE status = 'running'")
        if kind == "validate_recommendation":
            conn.execute("SET statement_timeout = 0")
            eid = conn.execute("""CALL pgbench_lab.compare_settings('select-only',
                                  ARRAY['{"bgwriter_lru_maxpages": "500"}', '{}']::jsonb[], duration => '0.2 s',
                                  rounds => 1)""").fetchone()[0]
            assert lab.scalar("SELECT status FROM pgbench_lab.experiments WHERE experiment_id = %s", (eid,)) == "done"
    assert auto_conf(lab) == before


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


def search(c, eid):
    return c.sql("SELECT move, verdict, decided, ratio, adopted, basis, rounds FROM pgbench_lab_internal.tune_search(%s) "
                 "ORDER BY move", (eid,))


def test_p99_objective_decides_on_p99(lab):
    """objective => 'p99' at a fixed rate: the objective is recorded, the
    runs keep the rate, and each verdict is paired_verdict() of the rounds'
    1/p99 (recomputed here from the runs), not of their TPS.  One candidate
    (jit), and a budget that holds its first look and not the proof."""
    row, _ = call(lab, """CALL pgbench_lab.tune('select-only', knobs => '{jit}', levels => '{session}',
                            objective => 'p99', rate => 40, budget => '7 s', duration => '0.15 s',
                            smallest_effect => 0.5, confidence => 0.8)""")
    eid = row[0]
    params = lab.scalar("SELECT params FROM pgbench_lab.experiments WHERE experiment_id = %s", (eid,))
    assert params["objective"] == "p99" and params["rate"] == 40, params
    assert lab.scalar("SELECT bool_and(r.rate = 40) "
                      "FROM pgbench_lab.experiment_runs x JOIN pgbench_lab.runs r USING (run_id) "
                      "WHERE x.experiment_id = %s", (eid,))
    first = search(lab, eid)[0]
    again = lab.sql("""SELECT v.ratio, v.verdict, v.rounds FROM pgbench_lab.paired_verdict(
                         (SELECT array_agg(1 / ra.latency_p99_ms ORDER BY xa.round) FROM pgbench_lab.experiment_runs xa
                            JOIN pgbench_lab.runs ra USING (run_id) WHERE xa.experiment_id = %(e)s AND xa.variant = 1),
                         (SELECT array_agg(1 / rb.latency_p99_ms ORDER BY xb.round) FROM pgbench_lab.experiment_runs xb
                            JOIN pgbench_lab.runs rb USING (run_id) WHERE xb.experiment_id = %(e)s AND xb.variant = 2),
                         0.5, pgbench_lab_internal.tune_look_confidence(%(p)s)) v""", {"e": eid, "p": Jsonb(params)})[0]
    assert (first[3], first[1], first[6]) == again, (first, again)
    report = "\n".join(r[0] for r in lab.sql("SELECT pgbench_lab.report(%s)", (eid,)))
    assert "Ratios are of 1/p99" in report, report


def test_tps_under_p99_limit_refuses_a_faster_candidate_over_it(lab):
    """objective 'tps' with a p99_limit no run can meet (1 microsecond): the
    first candidate, decided faster, is not adopted, and its basis says it
    is over the limit; nothing is recommended."""
    row, _ = call(lab, """CALL pgbench_lab.tune(script => %s, settings => '{"work_mem": "64kB"}',
                            knobs => '{work_mem}', levels => '{session}', p99_limit => '0.001 ms',
                            budget => '5 s', duration => '0.1 s', smallest_effect => 0.9, confidence => 0.8)""",
                  (QUERY,))
    eid, finding = row
    params = lab.scalar("SELECT params FROM pgbench_lab.experiments WHERE experiment_id = %s", (eid,))
    assert params["objective"] == "tps" and params["p99_limit_ms"] == 0.001, params
    first = search(lab, eid)[0]
    assert first[1] == "faster" and first[2] is True and first[4] is False, first
    assert "over p99_limit (0.001 ms)" in first[5], first
    assert not any(r[4] for r in search(lab, eid))
    assert finding.startswith("No change recommended"), finding
