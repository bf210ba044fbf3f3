"""pgbench script files run by the clients (run(script => ...), scripts =>
'{name@weight}', variables =>): pgbench's own scripts give the built-ins'
invariants, the meta-commands and transaction control do what pgbench's
do, per-script and per-command figures add up, bad scripts and bad
arguments are refused before anything starts, and a script can do no
more than the role that runs it."""

import re
import subprocess
from pathlib import Path

import psycopg
import pytest

from conftest import PG_MAJOR, pgbench_cluster
from test_runner import balances, changes


@pytest.fixture(scope="module")
def lab():
    yield from pgbench_cluster("scripts", {"shared_buffers": "32MB", "max_worker_processes": "16"},
                               scale=2)


def call(c, user="postgres", **kw):
    """CALL pgbench_lab.run(...) with named arguments; the result row as a dict."""
    names = ", ".join(f"{k} => %({k})s" for k in kw)
    with c.connect(user=user) as conn:
        cur = conn.execute(f"CALL pgbench_lab.run({names})", kw)
        return dict(zip([d.name for d in cur.description], cur.fetchone()))


def commands(c, run_id):
    return c.sql("SELECT script, command, kind, executions, failures, retries, latency_avg_ms "
                 "FROM pgbench_lab.run_commands WHERE run_id = %s ORDER BY script, command", (run_id,))


def pgbench_script(c, name):
    """The built-in script's text as the pgbench binary shows it."""
    return subprocess.run([c.bin("pgbench"), f"--show-script={name}"],
                          capture_output=True, text=True, check=True).stderr


VIAS = ["spi", "libpq", "libpq-connect"]


@pytest.mark.parametrize("via", VIAS)
def test_tpcb_like_script_keeps_the_invariants(lab, via):
    """pgbench's own tpcb-like script, run by the interpreter (in the
    server, or over libpq): one history row per transaction, and every
    balance moved by the same deltas."""
    body = pgbench_script(lab, "tpcb-like")
    hist = lab.scalar("SELECT count(*) FROM pgbench_history")
    sums = balances(lab)
    r = call(lab, script=body, clients=2, duration="2 s", via=via)
    assert r["status"] == "done" and r["transactions_done"] > 0, r
    assert lab.scalar("SELECT count(*) FROM pgbench_history") - hist == r["transactions_done"]
    a, t, b, h = changes(lab, sums)
    assert a == t == b == h
    cmds = commands(lab, r["run_id"])
    assert [k for _, _, k, *_ in cmds] == ["set"] * 4 + ["begin", "sql", "sql", "sql", "sql", "sql", "commit"]
    # every command ran once per committed transaction (none failed)
    assert {e for *_, e, f, rt, lat in cmds} == {r["transactions_done"]}, cmds
    x = lab.sql("SELECT name, weight, transactions, failures FROM pgbench_lab.run_scripts "
                "WHERE run_id = %s", (r["run_id"],))
    assert x == [("script", 1, r["transactions_done"], 0)]
    assert lab.scalar("SELECT workload FROM pgbench_lab.runs WHERE run_id = %s", (r["run_id"],)) == "script"


@pytest.mark.parametrize("name", ["select-only", "simple-update"])
def test_builtin_scripts_as_text(lab, name):
    body = pgbench_script(lab, name)
    hist = lab.scalar("SELECT count(*) FROM pgbench_history")
    r = call(lab, script=body, clients=2, transactions=50)
    assert r["status"] == "done" and r["transactions_done"] == 100, r
    added = lab.scalar("SELECT count(*) FROM pgbench_history") - hist
    assert added == (100 if name == "simple-update" else 0)


def test_weighted_mix_of_builtin_names(lab):
    """scripts => '{tpcb-like@3, select-only@1}': each transaction picks a
    script by weight, so about three in four write history."""
    hist = lab.scalar("SELECT count(*) FROM pgbench_history")
    r = call(lab, scripts=["tpcb-like@3", "select-only@1"], clients=2, transactions=400, random_seed=7)
    assert r["status"] == "done" and r["transactions_done"] == 800, r
    per = dict(lab.sql("SELECT name, transactions FROM pgbench_lab.run_scripts WHERE run_id = %s",
                       (r["run_id"],)))
    assert per["tpcb-like"] + per["select-only"] == 800
    assert lab.scalar("SELECT count(*) FROM pgbench_history") - hist == per["tpcb-like"]
    assert 0.65 < per["tpcb-like"] / 800 < 0.85, per
    assert lab.scalar("SELECT workload FROM pgbench_lab.runs WHERE run_id = %s",
                      (r["run_id"],)) == "tpcb-like@3 select-only@1"


@pytest.mark.parametrize("via", VIAS)
def test_meta_commands_and_variables(lab, via):
    """\\set, \\if/\\elif/\\else, \\gset with a prefix, \\aset, \\sleep,
    a compound, and variables given: what each command did is in the table
    the script writes."""
    lab.sql("CREATE TABLE IF NOT EXISTS seen (client int, k text, v text)")
    body = """
\\set n :base * 2
\\if :n > 100
INSERT INTO seen VALUES (:client_id, 'branch', 'big');
\\elif :n = 84
INSERT INTO seen VALUES (:client_id, 'branch', 'elif');
\\else
INSERT INTO seen VALUES (:client_id, 'branch', 'else');
\\endif
SELECT :n + 1 AS m, 'x' || :'word' AS w \\gset p_
INSERT INTO seen VALUES (:client_id, 'gset', :p_m || ' ' || :p_w);
SELECT 1 AS a \\; SELECT 2 AS b \\aset
INSERT INTO seen VALUES (:client_id, 'aset', :a || ' ' || :b);
\\sleep 1 ms
SELECT 5 AS five WHERE false \\aset
INSERT INTO seen VALUES (:client_id, 'scale', :scale::text);
"""
    lab.sql("TRUNCATE seen")
    r = call(lab, script=body, clients=1, transactions=1, variables='{"base": 42, "word": "yz"}', via=via)
    assert r["status"] == "done", r
    got = dict(lab.sql("SELECT k, v FROM seen"))
    assert got == {"branch": "elif", "gset": "85 xyz", "aset": "1 2", "scale": "2"}
    assert lab.scalar("SELECT variables FROM pgbench_lab.runs WHERE run_id = %s",
                      (r["run_id"],)) == {"base": 42, "word": "yz"}
    lab.sql("DROP TABLE seen")


def test_saved_script_by_name(lab):
    lab.sql("INSERT INTO pgbench_lab.scripts (name, body) VALUES "
            "('one_read', 'SELECT abalance FROM pgbench_accounts WHERE aid = 1;')")
    r = call(lab, scripts=["one_read@2"], clients=1, transactions=10)
    assert r["status"] == "done" and r["transactions_done"] == 10, r
    assert lab.sql("SELECT name, weight, body FROM pgbench_lab.run_scripts WHERE run_id = %s",
                   (r["run_id"],)) == [("one_read", 2, "SELECT abalance FROM pgbench_accounts WHERE aid = 1;")]


@pytest.mark.parametrize("via", VIAS)
def test_savepoints_and_isolation(lab, via):
    lab.sql("CREATE TABLE IF NOT EXISTS sp (v int)")
    body = """
BEGIN ISOLATION LEVEL REPEATABLE READ;
INSERT INTO sp VALUES (1);
SAVEPOINT a;
INSERT INTO sp VALUES (2);
SAVEPOINT b;
INSERT INTO sp VALUES (3);
ROLLBACK TO SAVEPOINT a;
INSERT INTO sp SELECT 10 WHERE current_setting('transaction_isolation') = 'repeatable read';
RELEASE a;
COMMIT;
BEGIN;
INSERT INTO sp VALUES (99);
ROLLBACK;
"""
    r = call(lab, script=body, clients=1, transactions=2, via=via)
    assert r["status"] == "done", r
    assert sorted(v for (v,) in lab.sql("SELECT v FROM sp")) == [1, 1, 10, 10]
    lab.sql("DROP TABLE sp")


@pytest.mark.parametrize("via", ["spi", "libpq"])
def test_serialization_failures_retried_per_command(lab, via):
    """Two clients updating one row under REPEATABLE READ: serialisation
    failures retried (max_tries), counted at the UPDATE that met them."""
    lab.sql("CREATE TABLE IF NOT EXISTS hot (id int PRIMARY KEY, v int)")
    lab.sql("INSERT INTO hot VALUES (1, 0) ON CONFLICT DO NOTHING")
    body = """
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT v FROM hot WHERE id = 1;
\\sleep 1 ms
UPDATE hot SET v = v + 1 WHERE id = 1;
COMMIT;
"""
    r = call(lab, script=body, clients=2, duration="2 s", max_tries=100, via=via)
    assert r["status"] == "done", r
    cmds = commands(lab, r["run_id"])
    retries = {c: rt for _, c, _, _, _, rt, _ in cmds}
    assert retries[4] > 0 and sum(retries.values()) == retries[4], cmds
    assert lab.scalar("SELECT v FROM hot") >= r["transactions_done"]
    lab.sql("DROP TABLE hot")


BAD_ARGS = [
    ("workload => 'tpcb-like', script => 'SELECT 1;'", "22023", "not both"),
    ("script => 'SELECT 1;', scripts => '{select-only}'", "22023", "not both"),
    ("scripts => '{nosuch}'", "42704", "no script named"),
    ("scripts => '{select-only@x}'", "22023", "invalid weight"),
    ("scripts => '{select-only@0}'", "22023", "add up to 0"),
    ("scripts => '{}'", "22023", "from 1 to"),
    ("workload => 'select-only', variables => '{\"a\": 1}'", "22023", "variables are for scripts"),
    ("script => 'SELECT 1;', variables => '[1]'", "22023", "JSON object"),
    ("script => 'SELECT 1;', variables => '{\"1a\": 1}'", "22023", "invalid variable name"),
    ("script => 'SELEC 1;'", "42601", "syntax error"),
    ("script => E'\\\\shell ls'", "0A000", "shell"),
    ("script => 'BEGIN;'", "25000", "transaction"),
    ("clients => 1", "22004", "workload must not be NULL"),
]


@pytest.mark.parametrize("args,state,text", BAD_ARGS)
def test_bad_scripts_refused_before_start(lab, args, state, text):
    before = lab.scalar("SELECT count(*) FROM pgbench_lab.runs")
    with lab.connect() as conn:
        with pytest.raises(psycopg.Error) as e:
            conn.execute(f"CALL pgbench_lab.run({args})")
    assert e.value.sqlstate == state, e.value
    assert text in str(e.value), e.value
    assert lab.scalar("SELECT count(*) FROM pgbench_lab.runs") == before


RUNTIME = [
    ("SELECT :nosuch;", "42704", 'undefined variable "nosuch"', "command 1"),
    ("SELECT 1 WHERE false \\gset", "21000", "expects one row", "command 1"),
    ("\\set x 1 / 0\nSELECT 1;", "22012", "division by zero", "command 1"),
    ("SELECT 1;\nSELECT * FROM no_such_table;", "42P01", "no_such_table", "command 2"),
    ("\\if false\nBEGIN;\n\\endif\nBEGIN;\nSELECT 1;\n\\if true\nSELECT 2;\n\\else\nCOMMIT;\n\\endif",
     "2D000", "ended inside a transaction", "command"),
    # a sleep whose nanoseconds, or whose end, would not fit in 64 bits: refused, not wrapped round
    ("\\set v 9223372036854775807\n\\sleep :v s", "22003", "sleep time 9223372036854775807 s is out of range",
     "command 2"),
    ("\\set v 9223372036854775\n\\sleep :v us", "22003", "sleep time 9223372036854775 us is out of range",
     "command 2"),
]


@pytest.mark.parametrize("via", VIAS)
@pytest.mark.parametrize("body,state,text,where", RUNTIME)
def test_runtime_errors_end_the_run_failed(lab, body, state, text, where, via):
    r = call(lab, script=body, clients=1, transactions=3, via=via)
    assert r["status"] == "failed", r
    assert text in r["error"] and where in r["error"] and f"(SQLSTATE {state})" in r["error"], r


def test_script_runs_as_its_caller(lab):
    """A role with EXECUTE on run() but no other grant: its script cannot
    become anyone else nor reach the server's shell or files."""
    lab.sql("DROP ROLE IF EXISTS nobody_s")
    lab.sql("CREATE ROLE nobody_s LOGIN")
    lab.sql("GRANT USAGE ON SCHEMA pgbench_lab TO nobody_s")
    lab.sql("GRANT EXECUTE ON PROCEDURE pgbench_lab.run TO nobody_s")
    for attempt in ["SET ROLE postgres;", "SET SESSION AUTHORIZATION postgres;",
                    "COPY (SELECT 1) TO PROGRAM 'true';",
                    "DO $$ BEGIN EXECUTE 'ALTER ROLE nobody_s SUPERUSER'; END $$;",
                    "ALTER ROLE nobody_s SUPERUSER;",
                    "SELECT pg_catalog.pg_read_file('postgresql.conf');"]:
        r = call(lab, user="nobody_s", script=attempt, clients=1, transactions=1)
        assert r["status"] == "failed" and "permission denied" in r["error"] or \
            "must be superuser" in r["error"] or "not permitted" in r["error"], (attempt, r)
    r = call(lab, user="nobody_s", script="RESET SESSION AUTHORIZATION;\n"
             "SELECT 1 AS ok WHERE current_user = 'nobody_s' AND NOT "
             "(SELECT rolsuper FROM pg_roles WHERE rolname = current_user) \\gset\n",
             clients=1, transactions=1)
    assert r["status"] == "done", r
    assert not lab.scalar("SELECT rolsuper FROM pg_roles WHERE rolname = 'nobody_s'")


def test_export_import_carry_the_scripts(lab):
    r = call(lab, scripts=["select-only@2", "simple-update@1"], clients=1, transactions=20,
             variables='{"note": "x"}')
    assert r["status"] == "done", r
    doc = lab.scalar("SELECT pgbench_lab.export(ARRAY[%s]::bigint[])", (r["run_id"],))
    run = doc["runs"][0]
    assert [s["name"] for s in run["scripts"]] == ["select-only", "simple-update"]
    assert run["variables"] == {"note": "x"}
    assert len(run["scripts"][0]["commands"]) == 2
    new = lab.scalar("SELECT id FROM pgbench_lab.import(%s::jsonb) WHERE kind = 'run'",
                     (psycopg.types.json.Jsonb(doc),))
    q = ("SELECT script, name, weight, body, transactions, failures FROM pgbench_lab.run_scripts "
         "WHERE run_id = %s ORDER BY script")
    assert lab.sql(q, (new,)) == lab.sql(q, (r["run_id"],))
    q = ("SELECT script, command, line, kind, command_text, executions FROM pgbench_lab.run_commands "
         "WHERE run_id = %s ORDER BY script, command")
    assert lab.sql(q, (new,)) == lab.sql(q, (r["run_id"],))
    assert lab.scalar("SELECT variables FROM pgbench_lab.runs WHERE run_id = %s", (new,)) == {"note": "x"}
    report = "\n".join(x for (x,) in lab.sql("SELECT * FROM pgbench_lab.report(%s)", (new,)))
    assert 'script 1 "select-only", weight 2' in report and "\\set aid random(1, 100000 * :scale)" in report, report
    # a bad script object is refused with its path
    run["scripts"][0]["weight"] = -1
    with lab.connect() as conn:
        with pytest.raises(psycopg.Error) as e:
            conn.execute("SELECT pgbench_lab.import(%s::jsonb)", (psycopg.types.json.Jsonb(doc),))
    assert "$.runs[0].scripts" in str(e.value), e.value


def test_readme_example_runs(lab):
    """The README's script example, as written there (1 s instead of 5)."""
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    block = re.search(r"```sql\n(INSERT INTO pgbench_lab.scripts.*?)```", readme, re.S).group(1)
    insert, rest = block.split("$$);\n", 1)
    call = rest.split(";", 1)[0].replace("'5 s'", "'1 s'")
    with lab.connect() as conn:
        conn.execute(insert + "$$);")
        r = conn.execute(call).fetchone()
        assert r[1] == "done", r
        report = "\n".join(x for (x,) in conn.execute("SELECT * FROM pgbench_lab.report(%s)", (r[0],)))
    assert 'script 1 "hot_accounts" saved by postgres, weight 3' in report, report
    rows = lab.sql("SELECT command, executions FROM pgbench_lab.run_commands WHERE run_id = %s "
                   "AND script = 1 ORDER BY command", (r[0],))
    by = dict(rows)
    # the branch taken: BEGIN..COMMIT on about one in ten, the SELECT on the rest
    assert by[3] == by[4] + by[9] and by[8] == 0 and 0 < by[4] < by[9], rows


@pytest.mark.parametrize("seed", [1, 20261123])
def test_seeded_draws_as_pgbench_draws(lab, seed):
    """With the same random_seed, each client draws what pgbench's client of
    the same number draws (pgbench --random-seed, one thread)."""
    lab.sql("CREATE TABLE IF NOT EXISTS draws (who text, client int, n int, r bigint, g double precision)")
    lab.sql("TRUNCATE draws")
    body = ("\\set r random(1, 1000000000)\n\\set g random_gaussian(0, 1000, 2.5)\n"
            "INSERT INTO draws SELECT :who, :client_id, count(*), :r, :g FROM draws "
            "WHERE who = :who AND client = :client_id;\n")
    r = call(lab, script=body, clients=2, transactions=5, random_seed=seed, variables='{"who": "lab"}')
    assert r["status"] == "done", r
    path = lab.base + "/draws.sql"
    with open(path, "w") as f:
        f.write(body)
    out = lab.run_client("pgbench", "-n", "-c", "2", "-j", "1", "-t", "5", f"--random-seed={seed}",
                         "-M", "prepared", "-D", "who=pgbench", "-f", path, "postgres", check=False)
    assert out.returncode == 0, out.stderr
    q = "SELECT client, n, r, g FROM draws WHERE who = %s ORDER BY client, n"
    ours, theirs = lab.sql(q, ("lab",)), lab.sql(q, ("pgbench",))
    assert len(ours) == 10 and ours == theirs, (ours, theirs)


def test_experiments_run_scripts(lab):
    """sweep() and latency_curve() take scripts and variables like run():
    every step runs them, and the experiment is recorded under their names."""
    with lab.connect() as conn:
        sw = conn.execute("CALL pgbench_lab.sweep(clients => '{1,2}', duration => '1 s', "
                          "scripts => '{select-only@3, simple-update@1}', variables => '{\"k\": 1}')").fetchone()
        lc = conn.execute("CALL pgbench_lab.latency_curve(clients => 1, duration => '1 s', shares => '{0.2}', "
                          "target_ms => 1000, runs => 1, repeats => 0, scripts => '{select-only}')").fetchone()
    for eid in (sw[0], lc[0]):
        runs = lab.sql("SELECT r.workload, r.variables, r.status FROM pgbench_lab.experiment_runs x "
                       "JOIN pgbench_lab.runs r USING (run_id) WHERE x.experiment_id = %s", (eid,))
        assert runs and all(s == "done" for _, _, s in runs), runs
        names = lab.sql("SELECT DISTINCT s.name FROM pgbench_lab.experiment_runs x "
                        "JOIN pgbench_lab.run_scripts s USING (run_id) WHERE x.experiment_id = %s ORDER BY 1", (eid,))
        assert names == ([("select-only",), ("simple-update",)] if eid == sw[0] else [("select-only",)]), names
    assert lab.scalar("SELECT workload FROM pgbench_lab.experiments WHERE experiment_id = %s", (sw[0],)) == \
        "select-only@3 simple-update@1"
    assert lab.sql("SELECT DISTINCT r.variables FROM pgbench_lab.experiment_runs x JOIN pgbench_lab.runs r "
                   "USING (run_id) WHERE x.experiment_id = %s", (sw[0],)) == [({"k": 1},)]
    # a bad script is refused before the first run of an experiment
    before = lab.scalar("SELECT count(*) FROM pgbench_lab.runs")
    with lab.connect() as conn:
        with pytest.raises(psycopg.errors.UndefinedObject):
            conn.execute("CALL pgbench_lab.sweep(clients => '{1,2}', duration => '1 s', scripts => '{nosuch}')")
    assert lab.scalar("SELECT count(*) FROM pgbench_lab.runs") == before


def test_connection_cost_runs_scripts(lab):
    with lab.connect() as conn:
        r = conn.execute("CALL pgbench_lab.connection_cost(clients => 1, duration => '1 s', "
                         "scripts => '{select-only}')").fetchone()
    ids = r[1:4]
    rows = lab.sql("SELECT r.via, r.workload, s.name FROM pgbench_lab.runs r JOIN pgbench_lab.run_scripts s "
                   "USING (run_id) WHERE r.run_id = ANY(%s) ORDER BY r.run_id", (list(ids),))
    assert rows == [("spi", "select-only", "select-only"), ("libpq", "select-only", "select-only"),
                    ("libpq-connect", "select-only", "select-only")], rows


def test_compare_settings_runs_scripts(lab):
    with lab.connect() as conn:
        r = conn.execute("""CALL pgbench_lab.compare_settings(settings => ARRAY['{}', '{"work_mem": "8MB"}']::jsonb[],
                                duration => '1 s', rounds => 1, scripts => '{select-only}')""").fetchone()
    rows = lab.sql("SELECT x.variant, r.workload, r.settings -> 'session' FROM pgbench_lab.experiment_runs x "
                   "JOIN pgbench_lab.runs r USING (run_id) WHERE x.experiment_id = %s ORDER BY x.ordinal", (r[0],))
    assert rows == [(1, "select-only", {}), (2, "select-only", {"work_mem": "8MB"})], rows
    assert lab.scalar("SELECT count(*) FROM pgbench_lab.experiment_runs x JOIN pgbench_lab.run_scripts s "
                      "USING (run_id) WHERE x.experiment_id = %s", (r[0],)) == 2
