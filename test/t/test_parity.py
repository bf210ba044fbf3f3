"""Where a script run and the pgbench binary meet or part, held to the binary.

Each behaviour below is run by the server's own pgbench and by run() on
one cluster (pgbench's tables at scale 2): where pgbench_lab matches
pgbench the two give the same rows or the same refusal; where it differs
by design (docs/reference.md, "Differences from pgbench") the test pins
what each does, so that a change on either side shows.

- variables are bind parameters in every query mode: a NULL variable is an
  SQL null, an undefined one an error, and ':x' in quotes a literal,
  where pgbench pastes text (simple) or sends the text 'NULL', a null,
  or a parameter the statement lacks (extended, prepared);
- \\gset and \\aset: a column that is no variable name fails the client,
  as pgbench does; a null column is an SQL null (pgbench: an empty text);
- \\sleep :v takes the integer its value begins with;
- a seeded weighted mix chooses, client by client, the scripts pgbench
  chooses (pgbench with one thread per client);
- a prefix of a built-in's name; sample_rate 0, transactions with a
  duration, a variable with an empty value: refused; 128 scripts;
- :scale in a custom script: the data set's, said by report().
"""
import os
import subprocess
from collections import defaultdict

import psycopg
import pytest

from conftest import pgbench_cluster

SCALE = 2
SEED = 20261126
MODES = ["simple", "extended", "prepared"]
# pgbench runs without the ASan runtime that scripts/asan.sh preloads
CLIENT_ENV = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "ASAN_OPTIONS")}


@pytest.fixture(scope="module")
def lab():
    for c in pgbench_cluster("parity", scale=SCALE):
        c.sql("CREATE TABLE public.got (n bigserial PRIMARY KEY, client int, v text)")
        yield c


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    return tmp_path_factory.mktemp("parity")


def theirs(lab, files, scripts, *args, mode="extended", xacts=1):
    """pgbench's run: (exit code, its error lines, the rows of public.got)."""
    lab.sql("TRUNCATE public.got RESTART IDENTITY")
    opts = []
    for i, (text, weight) in enumerate(scripts):
        path = files / f"s{i}.sql"
        path.write_text(text)
        opts += ["-f", f"{path}@{weight}"]
    r = subprocess.run([lab.bin("pgbench"), "-h", "127.0.0.1", "-p", str(lab.port), "-U", "postgres",
                        "-n", "-t", str(xacts), "-M", mode, *opts, *args, "postgres"],
                       capture_output=True, text=True, env=CLIENT_ENV)
    errors = [ln for ln in r.stderr.splitlines() if "error" in ln]
    return r.returncode, errors, rows(lab)


def rows(lab):
    return [r[0] for r in lab.sql("SELECT v FROM public.got ORDER BY n")]


def ours(lab, script=None, mode=None, **kw):
    """run()'s: (status, the run's error, the rows of public.got)."""
    lab.sql("TRUNCATE public.got RESTART IDENTITY")
    if script is not None:
        kw["script"] = script
    kw.setdefault("transactions", 1)
    if mode:
        kw["query_mode"] = mode
    names = ", ".join(f"{k} => %({k})s" for k in kw)
    with lab.connect() as conn:
        conn.execute("SET statement_timeout = '60 s'")
        run_id, status = conn.execute(f"CALL pgbench_lab.run({names})", kw).fetchone()[:2]
    error = lab.scalar("SELECT error FROM pgbench_lab.runs WHERE run_id = %s", (run_id,))
    ours.run_id = run_id
    return status, error, rows(lab)


def refused(lab, sql, params=None):
    with lab.connect() as conn:
        with pytest.raises(psycopg.Error) as e:
            conn.execute(sql, params)
    return e.value.sqlstate, e.value.diag.message_primary, e.value.diag.message_hint


# -- variables in SQL: bind parameters in every mode ------------------------

# (script, ours in every mode, pgbench's per mode: rows, or an error's words)
BIND = {
    "null": ("\\set v NULL\nINSERT INTO public.got (v) VALUES (:v);\n", [None],
             {"simple": [None], "extended": ["NULL"], "prepared": ["NULL"]}),
    "gset null": ("SELECT NULL AS n \\gset\nINSERT INTO public.got (v) VALUES (:n);\n", [None],
                  {"simple": "syntax error", "extended": [""], "prepared": [""]}),
    "undefined": ("INSERT INTO public.got (v) VALUES (:undef);\n", 'undefined variable "undef"',
                  {"simple": "syntax error", "extended": [None], "prepared": [None]}),
    "quoted": ("\\set x 5\nINSERT INTO public.got (v) VALUES (':x');\n", [":x"],
               {"simple": ["5"], "extended": "bind message supplies 1 parameters",
                "prepared": "bind message supplies 1 parameters"}),
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case", list(BIND))
def test_variables_are_bind_parameters_in_every_mode(lab, files, case, mode):
    script, want_ours, want_theirs = BIND[case]
    code, errors, got = theirs(lab, files, [(script, 1)], mode=mode)
    want = want_theirs[mode]
    if isinstance(want, str):
        assert code != 0 and any(want in e for e in errors), (code, errors)
    else:
        assert code == 0 and got == want, (code, errors, got)
    status, error, got = ours(lab, script, mode)
    if isinstance(want_ours, str):
        assert status == "failed" and want_ours in error and "42704" in error, (status, error)
    else:
        assert status == "done" and got == want_ours, (status, error, got)


# -- \gset and \aset --------------------------------------------------------

@pytest.mark.parametrize("script, name", [
    ("SELECT 1 \\gset\n", "?column?"),
    ('SELECT 1 AS "bad name!" \\gset\n', "bad name!"),
    ("SELECT 1 AS ok, 2 \\aset\n", "?column?"),
])
def test_gset_of_a_column_that_is_no_variable_name_fails_the_client(lab, files, script, name):
    script += "INSERT INTO public.got (v) VALUES ('after');\n"
    code, errors, got = theirs(lab, files, [(script, 1)])
    assert code != 0 and any(f"error storing into variable {name}" in e for e in errors), errors
    assert got == []
    status, error, got = ours(lab, script)
    assert status == "failed" and got == [], (status, got)
    assert f'"{name}" is not a valid variable name' in error and "42602" in error, error


# -- \sleep :v --------------------------------------------------------------

def test_sleep_takes_the_integer_a_value_begins_with(lab, files):
    # "1e9" us is 1 us to pgbench (as to us now), not 1000 s
    script = "\\sleep :v us\nINSERT INTO public.got (v) VALUES (:v);\n"
    code, errors, got = theirs(lab, files, [(script, 1)], "-D", "v=1e9")
    assert code == 0 and got == ["1e9"], (code, errors)
    assert ours(lab, script, variables='{"v": "1e9"}')[::2] == ("done", ["1e9"])
    script = "\\set v 2.9\n\\sleep :v us\nINSERT INTO public.got (v) VALUES ('slept');\n"
    assert theirs(lab, files, [(script, 1)])[::2] == (0, ["slept"])
    assert ours(lab, script)[::2] == ("done", ["slept"])
    # a value that begins with no integer is refused by both
    script = "\\sleep :v ms\n"
    code, errors, _ = theirs(lab, files, [(script, 1)], "-D", "v=abc")
    assert code != 0 and any('invalid sleep time "abc"' in e for e in errors), errors
    status, error, _ = ours(lab, script, variables='{"v": "abc"}')
    assert status == "failed" and 'invalid sleep time "abc" in variable "v"' in error, error


# -- the choice among weighted scripts --------------------------------------

MIX = [("a", 1), ("b", 2), ("c", 5)]


def picks(lab):
    """Each client's scripts, in the order it ran them."""
    seq = defaultdict(list)
    for client, v in lab.sql("SELECT client, v FROM public.got ORDER BY n"):
        seq[client].append(v)
    return dict(seq)


@pytest.mark.parametrize("via, variables", [("spi", None), ("libpq", '{"default_seed": 7}')])
def test_a_seeded_weighted_mix_chooses_what_pgbench_chooses(lab, files, via, variables):
    clients, xacts = 3, 30
    bodies = {name: f"INSERT INTO public.got (client, v) VALUES (:client_id, '{name}');\n"
              for name, _ in MIX}
    for name, body in bodies.items():
        lab.sql("INSERT INTO pgbench_lab.scripts (name, body) VALUES (%s, %s) "
                "ON CONFLICT DO NOTHING", (f"mix_{name}", body))
    extra = ["-D", "default_seed=7"] if variables else []
    code, errors, _ = theirs(lab, files, [(bodies[n], w) for n, w in MIX], "-c", str(clients),
                             "-j", str(clients), f"--random-seed={SEED}", *extra, xacts=xacts)
    assert code == 0, errors
    want = picks(lab)
    assert sorted(want) == list(range(clients))
    assert all(set(s) == {"a", "b", "c"} for s in want.values()), want
    kw = dict(scripts=[f"mix_{n}@{w}" for n, w in MIX], clients=clients, transactions=xacts,
              random_seed=SEED, via=via)
    if variables:
        kw["variables"] = variables
    assert ours(lab, **kw)[0] == "done"
    assert picks(lab) == want
    kw["random_seed"] = SEED + 1
    ours(lab, **kw)
    assert picks(lab) != want, "another seed chooses otherwise"


# -- built-ins by prefix; refusals; 128 scripts -----------------------------

def test_a_builtin_by_a_prefix_of_its_name(lab, files):
    code, errors, _ = theirs(lab, files, [], "-b", "se")
    assert code == 0, errors
    code, errors, _ = theirs(lab, files, [], "-b", "s")
    assert code != 0 and any('ambiguous builtin name' in e for e in errors), errors
    for kw, workload in ((dict(scripts=["se@2"]), "select-only"), (dict(workload="sel"), "select-only")):
        assert ours(lab, **kw)[0] == "done"
        assert lab.scalar("SELECT workload FROM pgbench_lab.runs WHERE run_id = %s", (ours.run_id,)) == workload
    for sql in ("CALL pgbench_lab.run(scripts => '{s}', transactions => 1)",
                "CALL pgbench_lab.run('s', transactions => 1)"):
        state, msg, hint = refused(lab, sql)
        assert state == "22023" and msg == 'ambiguous built-in name "s": it begins simple-update, select-only'
        assert "tpcb-like, simple-update or select-only" in hint
    # a script the role saved under that very name is that script
    lab.sql("INSERT INTO pgbench_lab.scripts (name, body) VALUES ('sel', 'SELECT 1;')")
    assert ours(lab, scripts=["sel"])[0] == "done"
    assert lab.scalar("SELECT body FROM pgbench_lab.run_scripts WHERE run_id = %s", (ours.run_id,)) == "SELECT 1;"


@pytest.mark.parametrize("theirs_args, kw, message", [
    (["--sampling-rate=0", "-l"], "sample_rate => 0", "sample_rate must be above 0 and at most 1"),
    (["-T", "1"], "duration => '1 s'", "give transactions or duration, not both"),
    (["-D", "x="], "variables => '{\"x\": \"\"}'", 'variable "x" has an empty value'),
])
def test_refused_as_pgbench_refuses(lab, files, theirs_args, kw, message):
    code, errors, _ = theirs(lab, files, [("SELECT 1;\n", 1)], *theirs_args)
    assert code == 1 and errors, errors
    state, msg, hint = refused(lab, f"CALL pgbench_lab.run(script => 'SELECT 1;', transactions => 1, {kw})")
    assert (state, msg) == ("22023", message) and "pgbench" in hint, hint


def test_up_to_128_scripts(lab, files):
    code, errors, _ = theirs(lab, files, [], *(["-b", "select-only"] * 128))
    assert code == 0, errors
    code, errors, _ = theirs(lab, files, [], *(["-b", "select-only"] * 129))
    assert code != 0 and any("at most 128" in e for e in errors), errors
    assert ours(lab, scripts=["select-only"] * 128)[0] == "done"
    state, msg, _ = refused(lab, "CALL pgbench_lab.run(scripts => %s, transactions => 1)",
                            (["select-only"] * 129,))
    assert (state, msg) == ("22023", "scripts must name from 1 to 128 scripts")


# -- :scale -----------------------------------------------------------------

def test_scale_in_a_custom_script_is_the_data_sets_and_report_says_so(lab, files):
    script = "INSERT INTO public.got (v) VALUES (:scale);\n"
    assert theirs(lab, files, [(script, 1)])[2] == ["1"], "pgbench: -s, 1 when not given"
    assert theirs(lab, files, [(script, 1)], "-s", str(SCALE))[2] == [str(SCALE)]
    assert theirs(lab, files, [(script, 1)], "-b", "select-only@0")[2] == [str(SCALE)], \
        "pgbench reads the tables when a built-in is among the scripts"
    assert ours(lab, script)[2] == [str(SCALE)]
    said = [r[0] for r in lab.sql("SELECT * FROM pgbench_lab.report(%s)", (ours.run_id,))]
    assert any(f":scale was {SCALE}, read from pgbench_branches; pgbench would give these scripts 1"
               in line for line in said), said
    # given as a variable, or beside a built-in (pgbench reads the tables then): nothing to say
    lab.sql("INSERT INTO pgbench_lab.scripts (name, body) VALUES ('scale_probe', %s)", (script,))
    for kw in (dict(script=script, variables='{"scale": 2}'), dict(scripts=["scale_probe", "select-only@0"])):
        assert ours(lab, **kw)[0] == "done"
        said = [r[0] for r in lab.sql("SELECT * FROM pgbench_lab.report(%s)", (ours.run_id,))]
        assert not any(":scale was" in line for line in said), (kw, said)
