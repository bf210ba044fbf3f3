"""The run options are defined once (src/run_options.h): run_options() lists
them, and start()'s, run()'s and every experiment kind's declarations (the
build writes them: sql/run_options.awk), the options the driver gives a
kind's planner, the reference's table and an experiment step's keys follow
that one list."""
import json
import pathlib
import re
import subprocess

import psycopg
import pytest

from conftest import call_run, pgbench_cluster

ROOT = pathlib.Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "docs" / "reference.md"


@pytest.fixture(scope="module")
def lab():
    yield from pgbench_cluster("runspec", {"max_worker_processes": "16"}, scale=1)


def arguments(lab, signature):
    """(name, type, default as text or None) of a routine's IN arguments."""
    oid = lab.scalar("SELECT %s::regprocedure::oid", (signature,))
    rows = lab.sql("""SELECT a.name, a.type::regtype::text, a.mode
                        FROM pg_proc p,
                             unnest(p.proargnames, coalesce(p.proallargtypes, p.proargtypes::oid[]),
                                    coalesce(p.proargmodes, array_fill('i'::"char", ARRAY[p.pronargs])))
                             WITH ORDINALITY AS a(name, type, mode, n)
                       WHERE p.oid = %s ORDER BY a.n""", (oid,))
    out = []
    for n, (name, typ, mode) in enumerate(r for r in rows if r[2] in ("i", "b")):
        out.append((name, typ, mode, lab.scalar("SELECT pg_get_function_arg_default(%s, %s)", (oid, n + 1))))
    return out


def options(lab):
    return lab.sql('SELECT name, type::text, "default", since, description FROM pgbench_lab.run_options()')


def test_run_options_are_starts_arguments_in_order(lab):
    start = lab.scalar("SELECT 'pgbench_lab.start'::regproc::oid::regprocedure::text")
    declared = arguments(lab, start)
    listed = options(lab)
    assert [(d[0], d[1]) for d in declared] == [(o[0], o[1]) for o in listed]
    # the defaults too: each declared default evaluates to the listed one
    for (name, typ, _, expr), (_, _, default, _, _) in zip(declared, listed):
        got = lab.scalar(f"SELECT ({expr})::text") if expr else None
        want = lab.scalar(f"SELECT %s::{typ}::text", (default,)) if default is not None else None
        assert got == want, name
    # run() has the same options around its INOUT result columns
    run = lab.scalar("SELECT 'pgbench_lab.run'::regproc::oid::regprocedure::text")
    ins = [(a[0], a[1]) for a in arguments(lab, run) if a[2] == "i"]
    assert ins == [(o[0], o[1]) for o in listed]
    assert all(o[3] and o[4] for o in listed), "every option says its version and what it does"


def test_the_reference_lists_the_run_options(lab):
    text = REFERENCE.read_text()
    section = text[text.index("#### Run options: `run_options()`"):]
    section = section[:section.index("\n#### ", 1)]
    rows = re.findall(r"^\| `([a-z_]+)` \| `([a-z \[\]]+)` \| ([^|]*) \| ([0-9.]+) \| ([^|]*) \|$", section, re.M)
    listed = [(o[0], o[1], "NULL" if o[2] is None else f"`{o[2]}`", o[3], o[4]) for o in options(lab)]
    assert [(r[0], r[1], r[2].strip(), r[3], r[4].strip()) for r in rows] == listed


def test_a_new_option_is_one_line_of_run_options_h(tmp_path):
    """A line added to src/run_options.h is an argument of start(), of run()
    (at the end) and of every experiment kind's procedure (DEFAULT NULL
    there): the build writes it, no declaration names it."""
    h = tmp_path / "run_options.h"
    h.write_text((ROOT / "src" / "run_options.h").read_text()
                 + 'RUN_OPTION(NEW_ONE, new_one, TEXTOID, "text", "it\'s", "9.9", "a test")\n')
    files = [ROOT / "sql" / "code" / "api" / "40_runner.sql",
             *sorted((ROOT / "sql" / "code" / "experiments").glob("*.sql"))]
    out = subprocess.run(["awk", "-f", str(ROOT / "sql" / "run_options.awk"), str(ROOT / "src" / "run_spec.h"),
                          str(h), *map(str, files)], check=True, capture_output=True, text=True).stdout
    assert not re.search(r"(?m)^\s*@RUN_OPTIONS", out)
    decls = {}
    for stmt in out.split("\nCREATE ")[1:]:
        m = re.match(r"(?s)(?:PROCEDURE|FUNCTION) pgbench_lab\.(\w+)\((.*?)\n(?:RETURNS|LANGUAGE)", stmt)
        if m and re.search(r"'pgbench_lab_(experiment|start|run)';", stmt.split(";")[0] + ";"):
            decls[m.group(1)] = m.group(2)
    kinds = sorted(k for k in decls if k not in ("start", "run"))
    assert kinds == ["cold_vs_warm", "compare_settings", "connection_cost", "latency_curve", "sweep",
                     "tune", "validate_recommendation"]
    assert decls["start"].rstrip().endswith(",\n    new_one text DEFAULT 'it''s')")
    assert decls["run"].rstrip().endswith(",\n    new_one text DEFAULT 'it''s')")
    for k in kinds:
        assert decls[k].rstrip().endswith("new_one text DEFAULT NULL)"), k
    # a marker naming what is no option fails the build
    bad = tmp_path / "bad.sql"
    bad.write_text("CREATE PROCEDURE x(\n    @RUN_OPTIONS_EXCEPT workload bogus@)\n")
    r = subprocess.run(["awk", "-f", str(ROOT / "sql" / "run_options.awk"), str(ROOT / "src" / "run_spec.h"),
                        str(h), str(bad)], capture_output=True, text=True)
    assert r.returncode != 0 and "bogus is not a run option" in r.stderr


# A toy kind whose one step runs what it is given.
GIVEN = """
CREATE SCHEMA toy;
CREATE FUNCTION toy.given_plan(run jsonb, caller jsonb)
RETURNS jsonb LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
    SELECT pg_catalog.jsonb_build_object('workload', 'select-only', 'label', 'given', 'params', '{}'::pg_catalog.jsonb,
        'steps', pg_catalog.jsonb_build_array(pg_catalog.jsonb_build_object('variant', 1, 'name', 'it', 'run', run)))
$$;
CREATE FUNCTION toy.given_report(experiment_id bigint)
RETURNS SETOF text LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$ SELECT 'given'::pg_catalog.text $$;
CREATE PROCEDURE toy.given(run jsonb, INOUT experiment_id bigint DEFAULT NULL)
LANGUAGE c AS 'pgbench_lab', 'pgbench_lab_experiment';
INSERT INTO pgbench_lab.experiment_kinds (kind, procedure, planner, report, description)
VALUES ('given', 'toy.given(jsonb, bigint)', 'toy.given_plan(jsonb, jsonb)', 'toy.given_report(bigint)', 'One run as given');
"""


@pytest.fixture(scope="module")
def given(lab):
    lab.sql(GIVEN)
    return lab


def call_given(lab, run):
    with lab.connect() as conn:
        return conn.execute("CALL toy.given(%s)", (run,)).fetchone()[0]


def test_a_step_is_read_by_the_options_names(given):
    eid = call_given(given, '{"workload": "select-only", "clients": 2, "transactions": 3, '
                            '"settings": {"work_mem": "8MB"}, "targets": null, "random_seed": 7}')
    row = given.sql("""SELECT r.clients, r.transactions_per_client, r.settings->'session', r.random_seed,
                              r.via, r.label, r.status, e.status
                         FROM pgbench_lab.experiment_runs x JOIN pgbench_lab.runs r USING (run_id)
                         JOIN pgbench_lab.experiments e USING (experiment_id)
                        WHERE x.experiment_id = %s""", (eid,))
    assert row == [(2, 3, {"work_mem": "8MB"}, 7, "spi", f"given {eid}: it", "done", "done")]


# A toy kind whose planner shows the options the driver built.
ECHO = """
CREATE FUNCTION toy.echo_plan(workload text, options jsonb, caller jsonb)
RETURNS jsonb LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    RAISE EXCEPTION USING MESSAGE = options::pg_catalog.text, DETAIL = coalesce(workload, '-');
END
$$;
CREATE PROCEDURE toy.echo(workload text DEFAULT NULL, target text DEFAULT NULL, INOUT experiment_id bigint DEFAULT NULL,
                          settings jsonb DEFAULT NULL, latency_limit interval DEFAULT NULL, rate float8 DEFAULT NULL,
                          scripts text[] DEFAULT NULL, via text DEFAULT NULL, rounds integer DEFAULT NULL)
LANGUAGE c AS 'pgbench_lab', 'pgbench_lab_experiment';
CREATE FUNCTION toy.wrong_plan(options jsonb, caller jsonb)
RETURNS jsonb LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$ SELECT NULL::pg_catalog.jsonb $$;
CREATE PROCEDURE toy.wrong(rate text, INOUT experiment_id bigint DEFAULT NULL)
LANGUAGE c AS 'pgbench_lab', 'pgbench_lab_experiment';
INSERT INTO pgbench_lab.experiment_kinds (kind, procedure, planner, report, description)
VALUES ('echo', 'toy.echo'::regproc, 'toy.echo_plan'::regproc, 'toy.given_report'::regproc, 'Shows its options'),
       ('wrong', 'toy.wrong'::regproc, 'toy.wrong_plan'::regproc, 'toy.given_report'::regproc, 'A rate of the wrong type');
"""


def echoed(lab, call):
    with lab.connect() as conn:
        conn.execute("SET intervalstyle = iso_8601")
        with pytest.raises(psycopg.errors.RaiseException) as e:
            conn.execute(call)
    return json.loads(e.value.diag.message_primary), e.value.diag.message_detail


def test_the_planner_gets_the_options_given_as_one_object(given):
    given.sql(ECHO)
    # the planner's own arguments by name; the run options given, NULLs left
    # out, an interval as the planners write it whatever the session's style,
    # jsonb as given; a target without via goes over libpq
    opts, workload = echoed(given, """CALL toy.echo('select-only', 'host=elsewhere', settings => '{"a": null}',
                                      latency_limit => '10 ms', scripts => ARRAY['x@2'], rounds => 3)""")
    assert workload == "select-only"
    assert opts == {"target": "host=elsewhere", "via": "libpq", "settings": {"a": None},
                    "latency_limit": "00:00:00.01", "scripts": ["x@2"]}
    opts, _ = echoed(given, "CALL toy.echo(target => 'host=elsewhere', via => 'spi', rate => 'NaN')")
    assert opts == {"target": "host=elsewhere", "via": "spi", "rate": "NaN"}
    assert echoed(given, "CALL toy.echo()") == ({}, "-")
    # an argument named as an option is of its type
    with given.connect() as conn, pytest.raises(psycopg.errors.InternalError) as e:
        conn.execute("CALL toy.wrong('fast')")
    assert "argument rate of toy.wrong() is of type text, and the run option of that name of type double precision" \
        in e.value.diag.message_primary


@pytest.mark.parametrize("run, err, words", [
    ('{"workload": "select-only", "clients": 1, "bogus": 1}', psycopg.errors.InvalidParameterValue,
     'unknown run option "bogus"'),
    ('{"workload": "select-only", "clients": "many"}', psycopg.errors.InvalidTextRepresentation,
     'run option "clients"'),
    ('{"workload": "select-only", "clients": [1]}', psycopg.errors.InvalidParameterValue,
     'run option "clients" must be of type integer, not a JSON array'),
    ('{"workload": "select-only", "targets": "x"}', psycopg.errors.InvalidTextRepresentation,
     'run option "targets"'),
    ('{"workload": "select-only", "clients": 0}', psycopg.errors.InvalidParameterValue,
     "clients must be at least 1"),
])
def test_a_steps_wrong_option_is_refused_before_anything_is_recorded(given, run, err, words):
    before = given.scalar("SELECT count(*) FROM pgbench_lab.experiments")
    with pytest.raises(err) as e:
        call_given(given, run)
    assert words in e.value.diag.message_primary
    assert "step 1 of toy.given(), checked before its first run" in (e.value.diag.context or "")
    if "unknown" in words:
        assert "workload, clients, duration" in e.value.diag.message_hint
        assert "target_clients" in e.value.diag.message_hint
    assert given.scalar("SELECT count(*) FROM pgbench_lab.experiments") == before


def test_a_step_takes_every_option_by_name_query_mode_too(given):
    eid = call_given(given, '{"script": "SELECT 1;", "clients": 1, "transactions": 2, '
                            '"query_mode": "extended", "via": "libpq", "threads": 1}')
    assert given.sql("""SELECT r.query_mode, r.via, r.status FROM pgbench_lab.experiment_runs x
                          JOIN pgbench_lab.runs r USING (run_id) WHERE x.experiment_id = %s""", (eid,)) == \
        [("extended", "libpq", "done")]
    with pytest.raises(psycopg.errors.InvalidParameterValue) as e:
        call_given(given, '{"script": "SELECT 1;", "transactions": 1, "query_mode": "fast"}')
    assert "simple, extended and prepared" in e.value.diag.message_hint


def test_a_run_records_its_options_by_name_without_conninfo_or_script_text(lab):
    """runs.options: every option the run was called with (NULLs left out),
    under run_options()'s names, typed as JSON; no conninfo (it may hold a
    password) and no script text."""
    rid = call_run(lab, "select-only", transactions=3, random_seed=5, rate=1000.0,
                   latency_limit="50 ms", label="opts")
    opts = lab.scalar("SELECT options FROM pgbench_lab.runs WHERE run_id = %s", (rid,))
    names = {r[0] for r in options(lab)}
    assert set(opts) <= names, opts
    assert {k: opts[k] for k in ("workload", "clients", "transactions", "random_seed", "rate", "label")} == \
        {"workload": "select-only", "clients": 1, "transactions": 3, "random_seed": 5, "rate": 1000,
         "label": "opts"}
    assert "via" not in opts, "left out, via is NULL: in the server, which runs.via says"
    assert lab.scalar("SELECT %s::interval = '50 ms'", (opts["latency_limit"],))
    target = f"host={lab.base} port={lab.port} dbname=postgres user=postgres password=sekrit"
    rid = call_run(lab, None, script="SELECT 1 AS secret_script;", transactions=2, via="libpq",
                   target=target)
    opts = lab.scalar("SELECT options FROM pgbench_lab.runs WHERE run_id = %s", (rid,))
    assert opts["via"] == "libpq" and opts["transactions"] == 2, opts
    assert "target" not in opts and "script" not in opts
    assert "sekrit" not in str(opts) and "secret_script" not in str(opts)
    # arrays as JSON arrays, as a step's "run" object takes them
    rid = call_run(lab, None, scripts=["select-only@2", "select-only@1"], transactions=2, via="libpq",
                   clients=2, targets=[target, target.replace(f"host={lab.base}", "host=127.0.0.1")],
                   target_clients=[1, 1])
    opts = lab.scalar("SELECT options FROM pgbench_lab.runs WHERE run_id = %s", (rid,))
    assert opts["scripts"] == ["select-only@2", "select-only@1"] and opts["target_clients"] == [1, 1], opts
    assert "targets" not in opts and "sekrit" not in str(opts)



def test_exit_on_abort_stops_the_whole_run_at_the_first_aborted_client(lab):
    """exit_on_abort (pgbench --exit-on-abort): client 1's division by zero
    ends the run of three clients at once, failed with its error, where
    without it the other two go on to the run's end (a long duration that
    the option cuts short, not a timing)."""
    script = "SELECT 1 / :client_id;"
    with lab.connect() as conn:
        row = conn.execute("CALL pgbench_lab.run(script => %s, clients => 3, duration => '10 min', "
                           "exit_on_abort => true)", (script,)).fetchone()
    rid, status, done = row[0], row[1], row[2]
    assert status == "failed", row
    err, measured, opts = lab.sql("SELECT error, measured_seconds, options FROM pgbench_lab.runs "
                                  "WHERE run_id = %s", (rid,))[0]
    assert "division by zero" in err and opts["exit_on_abort"] is True
    assert measured < 300, measured
    rid = call_run(lab, "select-only", transactions=5)
    assert lab.scalar("SELECT options->'exit_on_abort' FROM pgbench_lab.runs WHERE run_id = %s",
                      (rid,)) is False
