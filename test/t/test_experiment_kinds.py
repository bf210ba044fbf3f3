"""A new kind of experiment is one planner, one report function and one row
of pgbench_lab.experiment_kinds (its procedure declared as bound to the
driver): the one driver (src/experiment.c) plans, checks, runs, links,
judges and reports it like the built-in kinds."""
import psycopg
import pytest

from conftest import pgbench_cluster


@pytest.fixture(scope="module")
def lab():
    yield from pgbench_cluster("kinds", {"shared_buffers": "32MB", "max_worker_processes": "16"}, scale=1)


# The whole toy kind "twice": the same run twice, each run prepared by
# nothing, judged by no finding function (the procedure's experiment_id
# column is filled by the driver).
TOY = """
CREATE SCHEMA toy;
-- 1. the planner: the procedure's arguments (by name) and caller in, the plan out
CREATE FUNCTION toy.twice_plan(workload text, clients integer, caller jsonb)
RETURNS jsonb LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
    SELECT pg_catalog.jsonb_build_object('workload', workload, 'label', 'toy',
        'params', pg_catalog.jsonb_build_object('clients', clients, 'duration', '1 s'),
        'steps', pg_catalog.jsonb_build_array(
            pg_catalog.jsonb_build_object('variant', 1, 'name', 'first',
                'run', pg_catalog.jsonb_build_object('workload', workload, 'clients', clients, 'duration', '1 s')),
            pg_catalog.jsonb_build_object('variant', 2, 'name', 'second',
                'run', pg_catalog.jsonb_build_object('workload', workload, 'clients', clients, 'duration', '1 s'))))
$$;
-- 2. the report function: the body of report(experiment_id)
CREATE FUNCTION toy.twice_report(experiment_id bigint)
RETURNS SETOF text LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
    SELECT pg_catalog.format('toy run %s: %s tps', x.variant, pg_catalog.round(r.tps::pg_catalog.numeric))
      FROM pgbench_lab.experiment_runs x JOIN pgbench_lab.runs r ON r.run_id OPERATOR(pg_catalog.=) x.run_id
     WHERE x.experiment_id OPERATOR(pg_catalog.=) twice_report.experiment_id ORDER BY x.ordinal
$$;
-- the procedure users CALL, bound to the driver
CREATE PROCEDURE toy.twice(workload text DEFAULT 'select-only', clients integer DEFAULT 1,
                           INOUT experiment_id bigint DEFAULT NULL)
LANGUAGE c AS 'pgbench_lab', 'pgbench_lab_experiment';
-- 3. the row
INSERT INTO pgbench_lab.experiment_kinds (kind, procedure, planner, report, description)
VALUES ('twice', 'toy.twice(text, integer, bigint)', 'toy.twice_plan(text, integer, jsonb)',
        'toy.twice_report(bigint)', 'The same run twice');
"""


def test_a_toy_kind_is_a_planner_a_report_and_a_row(lab):
    lab.sql(TOY)
    with lab.connect() as conn:
        eid = conn.execute("CALL toy.twice(clients => 2)").fetchone()[0]
    exp = lab.sql("SELECT kind, workload, label, status FROM pgbench_lab.experiments "
                  "WHERE experiment_id = %s", (eid,))
    assert exp == [("twice", "select-only", "toy", "done")]
    runs = lab.sql("""SELECT x.variant, r.label, r.clients, r.status
                        FROM pgbench_lab.experiment_runs x JOIN pgbench_lab.runs r USING (run_id)
                       WHERE x.experiment_id = %s ORDER BY x.ordinal""", (eid,))
    # runs without a label of their own are labelled "<kind> <id>: <step name>"
    assert runs == [(1, f"twice {eid}: first", 2, "done"), (2, f"twice {eid}: second", 2, "done")]
    report = [r[0] for r in lab.sql("SELECT * FROM pgbench_lab.report(%s)", (eid,))]
    assert report[0].startswith(f"Experiment {eid}: twice of select-only")
    assert sum(line.startswith("toy run ") for line in report) == 2, report
    # the driver checks every step's run before anything is recorded
    before = lab.scalar("SELECT count(*) FROM pgbench_lab.experiments")
    with pytest.raises(psycopg.errors.InvalidParameterValue) as e:
        with lab.connect() as conn:
            conn.execute("CALL toy.twice(clients => 0)")
    assert "toy.twice(), checked before its first run" in (e.value.diag.context or "")
    assert lab.scalar("SELECT count(*) FROM pgbench_lab.experiments") == before


def test_a_procedure_without_a_row_is_refused(lab):
    lab.sql("CREATE PROCEDURE public.rowless(INOUT experiment_id bigint DEFAULT NULL) "
            "LANGUAGE c AS 'pgbench_lab', 'pgbench_lab_experiment'")
    with pytest.raises(psycopg.errors.UndefinedObject) as e:
        with lab.connect() as conn:
            conn.execute("CALL public.rowless()")
    assert "experiment_kinds" in (e.value.diag.message_hint or "")


# A kind that adds steps after its plan's (experiment_kinds.extend) and
# gives verdicts (experiment_kinds.verdicts): "grow" runs one step, then
# its extension adds a batch of two once, then stops.
GROW = """
CREATE FUNCTION toy.grow_plan(workload text, caller jsonb)
RETURNS jsonb LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
    SELECT pg_catalog.jsonb_build_object('workload', workload, 'label', 'grow', 'params', '{}'::pg_catalog.jsonb,
        'steps', pg_catalog.jsonb_build_array(pg_catalog.jsonb_build_object('variant', 1, 'round', 1, 'name', 'planned',
            'run', pg_catalog.jsonb_build_object('workload', workload, 'duration', '0.2 s'))))
$$;
CREATE FUNCTION toy.grow_more(experiment_id bigint, plan jsonb)
RETURNS jsonb LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
    SELECT CASE WHEN (SELECT pg_catalog.count(*) FROM pgbench_lab.experiment_runs x
                       WHERE x.experiment_id OPERATOR(pg_catalog.=) grow_more.experiment_id) OPERATOR(pg_catalog.=) 1
           THEN pg_catalog.jsonb_build_object('about', 'one run is not enough: two more',
                    'steps', (SELECT pg_catalog.jsonb_agg((plan OPERATOR(pg_catalog.->) 'steps' OPERATOR(pg_catalog.->) 0)
                                  OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object('round', r, 'name', 'added'))
                                FROM pg_catalog.generate_series(2, 3) AS r)) END
$$;
CREATE FUNCTION toy.grow_verdicts(experiment_id bigint)
RETURNS TABLE (comparison text, measure text, rounds integer, ratio double precision,
               ratio_low double precision, ratio_high double precision, coverage double precision,
               verdict text, decided boolean, basis text)
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
    SELECT 'added against planned', 'tps', pg_catalog.count(*)::integer, 1::float8, NULL::float8, NULL::float8,
           NULL::float8, 'no difference detectable', false, 'a toy'
      FROM pgbench_lab.experiment_runs x WHERE x.experiment_id OPERATOR(pg_catalog.=) grow_verdicts.experiment_id
$$;
CREATE PROCEDURE toy.grow(workload text DEFAULT 'select-only', INOUT experiment_id bigint DEFAULT NULL)
LANGUAGE c AS 'pgbench_lab', 'pgbench_lab_experiment';
INSERT INTO pgbench_lab.experiment_kinds (kind, procedure, planner, report, description, extend, verdicts)
VALUES ('grow', 'toy.grow(text, bigint)', 'toy.grow_plan(text, jsonb)', 'toy.twice_report(bigint)',
        'One run, then two more', 'toy.grow_more(bigint, jsonb)', 'toy.grow_verdicts(bigint)');
"""


def test_a_kind_adds_steps_after_its_plan_and_gives_verdicts(lab):
    if not lab.scalar("SELECT count(*) FROM pg_namespace WHERE nspname = 'toy'"):
        lab.sql(TOY)
    lab.sql(GROW)
    notices = []
    with lab.connect() as conn:
        conn.add_notice_handler(lambda d: notices.append(d.message_primary))
        eid = conn.execute("CALL toy.grow()").fetchone()[0]
    runs = lab.sql("""SELECT x.round, r.label, r.status FROM pgbench_lab.experiment_runs x
                        JOIN pgbench_lab.runs r USING (run_id)
                       WHERE x.experiment_id = %s ORDER BY x.ordinal""", (eid,))
    # the plan's step, then the batch the extension added, linked with their rounds
    assert runs == [(1, f"grow {eid}: planned", "done"), (2, f"grow {eid}: added", "done"),
                    (3, f"grow {eid}: added", "done")]
    assert "one run is not enough: two more" in notices
    assert lab.scalar("SELECT status FROM pgbench_lab.experiments WHERE experiment_id = %s", (eid,)) == "done"
    # its verdicts, read for any kind, and carried by export()
    assert lab.sql("SELECT comparison, rounds, verdict FROM pgbench_lab.experiment_verdicts(%s)", (eid,)) == \
        [("added against planned", 3, "no difference detectable")]
    doc = lab.scalar("SELECT pgbench_lab.export(ARRAY[%s]::bigint[])", (eid,))
    assert doc["experiments"][0]["verdicts"][0]["comparison"] == "added against planned"
    # an extension's steps are checked as the plan's are: a bad one fails the experiment
    lab.sql("""CREATE OR REPLACE FUNCTION toy.grow_more(experiment_id bigint, plan jsonb)
               RETURNS jsonb LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
                 SELECT CASE WHEN (SELECT pg_catalog.count(*) FROM pgbench_lab.experiment_runs x
                                    WHERE x.experiment_id OPERATOR(pg_catalog.=) grow_more.experiment_id) OPERATOR(pg_catalog.=) 1
                        THEN '{"steps": [{"variant": 1, "round": 2, "run": {"workload": "select-only", "clients": 0}}]}'::pg_catalog.jsonb END
               $$""")
    with pytest.raises(psycopg.errors.InvalidParameterValue) as e:
        with lab.connect() as conn:
            conn.execute("CALL toy.grow()")
    assert "checked before the runs its extension added" in (e.value.diag.context or "")


def test_a_kind_without_adaptive_rounds_refuses_auto(lab):
    """Every kind takes rounds of one type (pgbench_lab.rounds); a kind whose
    verdicts cannot call for more rounds refuses 'auto' before anything runs."""
    before = lab.scalar("SELECT count(*) FROM pgbench_lab.experiments")
    for call in ("CALL pgbench_lab.sweep('select-only', '{1,2}', '0.2 s', rounds => 'auto')",
                 "CALL pgbench_lab.cold_vs_warm('select-only', 1, '0.2 s', rounds => 'auto')",
                 "CALL pgbench_lab.connection_cost('select-only', 1, '0.2 s', rounds => 'auto')"):
        with pytest.raises(psycopg.errors.FeatureNotSupported) as e:
            with lab.connect() as conn:
                conn.execute(call)
        assert "takes a count of rounds, not 'auto'" in str(e.value), call
    assert lab.scalar("SELECT count(*) FROM pgbench_lab.experiments") == before
