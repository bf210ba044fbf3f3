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
