"""pgbench script files parsed in the server, held to real pgbench.

pgbench_lab_internal.script_parse() turns a script into the commands the
script interpreter will run.  Here it is held to the pgbench binary of the
server under test:

- pgbench's three built-in scripts (`pgbench --show-script=NAME`) parse to
  what they are: their commands, their variables, their transaction
  boundaries, and SQL texts with $n equal to the ones pgbench -M extended
  sends to the server for them;
- tricky scripts that pgbench runs (comments, strings with colons, casts,
  dollar quotes, \\; compounds, multi-line SQL, \\gset prefixes, nested \\if
  ...) are accepted, as the same list of commands pgbench -r reports;
- bad scripts are refused by both: those pgbench refuses when it reads
  the script (run against a closed port, so that no server is needed)
  with the same kind of message at the same line (and column, where
  pgbench's caret shows one, or command number, for \\if errors); those
  pgbench refuses only when it runs them (-M extended, a server) are
  refused here before anything runs;
- what is refused or accepted by design where pgbench differs, the limits,
  and who may call the functions.
"""
import os
import re
import subprocess
import tempfile

import psycopg
import pytest

from conftest import PG_MAJOR, pgbench_cluster

VARS = {"x": "1", "t": "pg_class"}


# pgbench itself is no part of what is tested: it runs without the ASan
# runtime that scripts/asan.sh preloads into every process (pgbench reads
# past the end of a script whose last command ends in a colon or a
# variable, which the generated scripts do).
CLIENT_ENV = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "ASAN_OPTIONS")}


class Pgbench:
    """The server's own pgbench."""

    def __init__(self, node, workdir):
        self.node = node
        self.workdir = workdir
        self.n = 0

    def write(self, script):
        self.n += 1
        path = os.path.join(self.workdir, f"s{self.n}.sql")
        with open(path, "w", newline="") as f:
            f.write(script)
        return path

    def parse(self, script):
        """None if pgbench reads the script without error, else (message,
        line, column or None, command number or None), against a port
        where no server listens: pgbench parses every script first."""
        path = self.write(script)
        r = subprocess.run([self.node.bin("pgbench"), "-n", "-t", "1", "-M", "extended",
                            "-h", "127.0.0.1", "-p", "1", "-f", path, "postgres"],
                           capture_output=True, text=True, env=CLIENT_ENV)
        lines = r.stderr.splitlines()
        errs = [i for i, line in enumerate(lines) if line.startswith("pgbench: error: ")]
        first = lines[errs[0]][len("pgbench: error: "):] if errs else ""
        if not errs or "connection to server" in first:
            return None
        m = re.match(r'^condition error in script ".*" command (\d+): (.*)$', first)
        if m:
            return m.group(2), None, None, int(m.group(1))
        m = re.match(r"^.*?\.sql:(\d+): (.*?)(?: in command \".*\")?$", first)
        if not m:
            return first, None, None, None
        line = int(m.group(1))
        column = None
        shown = lines[errs[0] + 1] if errs[0] + 1 < len(lines) else ""
        caret = [ln.index("^") for ln in lines if ln.endswith("^ error found here")]
        text_line = script.split("\n")[line - 1]
        if shown.startswith("\\") and text_line.count(shown) == 1:
            # pgbench's caret counts from the command's backslash; ours, and
            # this test's, from the start of the line the error is on
            start = sum(len(ln) + 1 for ln in script.split("\n")[:line - 1]) + text_line.index(shown)
            offset = start + (caret[0] if caret else 0)
            line = script.count("\n", 0, offset) + 1
            column = offset - (script.rfind("\n", 0, offset) + 1) + 1
        return m.group(2), line, column, None

    def run(self, script, mode="extended", report=False):
        """(succeeded, stderr, stdout) of one transaction on the server."""
        path = self.write(script)
        args = ["-n", "-t", "1", "-M", mode, "-f", path] + (["-r"] if report else [])
        for k, v in VARS.items():
            args += ["-D", f"{k}={v}"]
        r = subprocess.run([self.node.bin("pgbench"), "-h", "127.0.0.1", "-p", str(self.node.port),
                            "-U", "postgres", *args, "postgres"],
                           capture_output=True, text=True, env=CLIENT_ENV)
        ok = r.returncode == 0 and "error" not in r.stderr
        return ok, r.stderr, r.stdout

    def commands(self, script, mode="simple"):
        """The first line of each command, as pgbench -r lists them."""
        ok, err, out = self.run(script, mode, report=True)
        assert ok, f"pgbench failed on {script!r}: {err}"
        listed = []
        for ln in out.split("statement latencies in milliseconds and failures:\n")[1].splitlines():
            m = re.match(r"^\s*[\d.]+\s+\d+ (.*)$", ln)
            if m:
                listed.append(m.group(1).strip())
            elif ln.strip():
                listed[-1] += "\n" + ln		# the next line of a continued \set
        return [ln.split("\n")[0] for ln in listed]


def ours(conn, script, name="s.sql"):
    """('ok', rows) or ('error', sqlstate, line, column, message, hint, command)."""
    try:
        rows = conn.execute("SELECT command, line, kind, text, variables, detail "
                            "FROM pgbench_lab_internal.script_parse(%s, %s)", (script, name)).fetchall()
        return ("ok", rows)
    except psycopg.Error as e:
        msg = e.diag.message_primary or ""
        m = re.match(r'^script "(.*)", line (\d+), column (\d+): (.*)$', msg, re.S)
        assert m, f"error without a location: {e.sqlstate} {msg}"
        assert m.group(1) == name
        cmd = re.search(r"pgbench numbers it command (\d+)", e.diag.message_detail or "")
        return ("error", e.sqlstate, int(m.group(2)), int(m.group(3)), m.group(4),
                e.diag.message_hint, int(cmd.group(1)) if cmd else None)


@pytest.fixture(scope="module")
def lab():
    yield from pgbench_cluster("parse", {"log_statement": "'all'"}, scale=1)


@pytest.fixture(scope="module")
def pgbench(lab):
    with tempfile.TemporaryDirectory(prefix="pgbl-parse-") as d:
        os.chmod(d, 0o755)
        yield Pgbench(lab, d)


# -- pgbench's built-in scripts -----------------------------------------------

BUILTINS = {
    # name: (the commands' kinds, each SQL command's variables, \set's variables)
    "tpcb-like": (["set"] * 4 + ["begin", "sql", "sql", "sql", "sql", "sql", "commit"],
                  [["delta", "aid"], ["aid"], ["delta", "tid"], ["delta", "bid"],
                   ["tid", "bid", "aid", "delta"]],
                  ["aid", "bid", "tid", "delta"]),
    "simple-update": (["set"] * 4 + ["begin", "sql", "sql", "sql", "commit"],
                      [["delta", "aid"], ["aid"], ["tid", "bid", "aid", "delta"]],
                      ["aid", "bid", "tid", "delta"]),
    "select-only": (["set", "sql"], [["aid"]], ["aid"]),
}


def sent_statements(lab, since):
    """The texts pgbench -M extended sent, from the server's log."""
    return re.findall(r"LOG:  execute <unnamed>: (.*)", lab.log()[since:])


@pytest.mark.parametrize("name", sorted(BUILTINS))
def test_builtin_scripts(lab, name):
    kinds, sql_vars, set_vars = BUILTINS[name]
    script = subprocess.run([lab.bin("pgbench"), f"--show-script={name}"],
                            capture_output=True, text=True, check=True).stderr
    since = len(lab.log())
    lab.run_client("pgbench", "-n", "-t", "1", "-M", "extended", "-b", name, "postgres")
    sent = sent_statements(lab, since)
    with lab.connect() as conn:
        status, rows = ours(conn, script, name)
        check = conn.execute("SELECT pgbench_lab_internal.script_check(%s)", (script,)).fetchone()[0]
    assert [r[2] for r in rows] == kinds
    assert [r[4] for r in rows if r[2] == "sql"] == sql_vars
    assert [r[5]["variable"] for r in rows if r[2] == "set"] == set_vars
    assert all(r[4] == ["scale"] for r in rows if r[2] == "set" and r[5]["variable"] != "delta")
    assert [r[0] for r in rows] == list(range(1, len(kinds) + 1))
    # the SQL, with $n, is what pgbench -M extended sends for it
    sql = [r[3] for r in rows if r[2] not in ("set",)]
    assert sql == sent, f"ours:\n{sql}\npgbench sent:\n{sent}"
    assert all(r[5]["statements"] == 1 for r in rows if r[2] != "set")
    assert check["transactions"] == (name != "select-only")
    assert check["commands"] == len(kinds) and check["text_references"] == []
    # pgbench -r lists the same commands
    lines = [ln for ln in script.splitlines() if ln.strip() and not ln.startswith("--")]
    assert len(lines) == len(rows)
    assert [r[1] for r in rows] == [script.splitlines().index(ln) + 1 for ln in lines]


# -- tricky scripts that pgbench runs --------------------------------------

GOOD = [
    # (script, pgbench's query mode)
    ("-- lead comment\n/* block */ SELECT 1; -- trailing :x ; \\gset\n", "simple"),
    ("SELECT 'a:b', E'c\\':d', 'x'';y' AS q, U&'d\\0061t' AS u;\n", "simple"),
    ("\\set x 5\nSELECT :x::int + 1, '1'::text, (array[1,2,3]::int[])[1:2];\n", "extended"),
    ("SELECT $$ ; \\gset :x $$, $t$ a;b $t$ AS d, 1 AS \"a;b:c\";\n", "simple"),
    ("SELECT 1 AS a \\; SELECT 2 AS b \\aset\nSELECT :a + :b;\n", "simple"),
    ("SELECT\n  1\n  + 2\n;\nSELECT 3\n", "extended"),
    ("SELECT 1 AS a, 2 AS b \\gset p_\nSELECT :p_a::int + :p_b::int AS c \\aset\nSELECT :c;\n", "extended"),
    ("\\set x 3\n\\if :x > 1\n\\if :x > 2\nSELECT 3;\n\\else\nSELECT 2;\n\\endif\n\\elif :x = 1\n"
     "SELECT 1;\n\\else\nSELECT 0;\n\\endif\n", "extended"),
    ("SELECT 1", "extended"),
    ("SELECT (1\n);\nSELECT 1 /* ; \\set */ + 1; -- \\bad ;\n", "extended"),
    ("SELECT E'it\\'s; \\\\ fine', '$1', 'C:\\temp';\n", "simple"),
    ("SELECT 1; \\set y 2\nSELECT :y;\n", "extended"),
    ("\\sleep 0\n\\sleep 1 us\n\\sleep 0ms\n\\set t 1\n\\sleep :t us\n\\sleep +0 S\n", "extended"),
    ("\\set x 1 + \\\n 2\nSELECT :x;\n", "extended"),
    ("\\set x 1\r\nSELECT :x;\r\n", "extended"),
    ("BEGIN ISOLATION LEVEL REPEATABLE READ;\nSELECT 1;\nCOMMIT;\nSTART TRANSACTION;\n"
     "SAVEPOINT s;\nROLLBACK TO s;\nRELEASE s;\nEND;\n", "extended"),
    ("CREATE OR REPLACE FUNCTION pg_temp.f() RETURNS int LANGUAGE sql\nBEGIN ATOMIC\n"
     "  SELECT 1;\n  SELECT CASE WHEN true THEN 2 END;\nEND;\nSELECT pg_temp.f();\n", "simple"),
    ("\\startpipeline\nSELECT 1;\nSELECT :x;\n\\endpipeline\n", "extended"),
    ("SELECT 1 AS one\n\\gset\n\n\t  SELECT :one;\n\n", "extended"),
    ("SELECT 1;\n\\\nSELECT 2;\n\\ set z 3\n", "extended"),
    ("\\SET x 1\n\\IF :x\nSELECT 1;\n\\ENDIF\n", "extended"),
    ("\\set a 1\n\\set b 2\nSELECT :a||:b::text, :a+:b, -:a;\n", "simple"),
    ("SELECT 1;;\n;\n", "simple"),
    ("SELECT x.v FROM (VALUES (1)) AS x(v) WHERE x.v = :x AND :x::text = '1';\n", "extended"),
]


def normalize(text):
    """A command's first line with its variables and parameters as '?'."""
    text = re.sub(r"(?<!:):(?:'\w+'|[A-Za-z_]\w*)|\$\d+(?!\w)", "?", text)
    return re.sub(r"\s+", " ", text).strip()


def test_tricky_scripts_are_pgbench_commands(lab, pgbench):
    problems = []
    with lab.connect() as conn:
        for script, mode in GOOD:
            theirs = pgbench.commands(script, mode)
            got = ours(conn, script)
            if got[0] != "ok":
                problems.append(f"{script!r}: pgbench runs it, we refuse: {got}")
                continue
            mine = [r[3].split("\n")[0] for r in got[1]]
            if [normalize(t) for t in mine] != [normalize(t) for t in theirs]:
                problems.append(f"{script!r}:\n  pgbench {theirs}\n  ours    {mine}")
    assert not problems, "\n".join(problems)


def test_what_the_commands_hold(lab):
    with lab.connect() as conn:
        def rows(script):
            status, r = ours(conn, script)
            assert status == "ok", r
            return r

        r = rows("SELECT 1 AS a \\; SELECT :x AS b \\gset p_\n")
        assert r[0][3] == "SELECT 1 AS a ; SELECT $1 AS b" and r[0][5]["statements"] == 2
        assert r[0][5]["gset"] == "p_" and r[0][4] == ["x"]
        r = rows("SELECT :x, :'x', :x::int, 'a:b', $$:c$$, \"d:e\" -- :f\n\\aset\n")
        assert r[0][3].startswith("SELECT $1, $2, $3::int, 'a:b', $$:c$$, \"d:e\" -- :f")
        assert [p["as"] for p in r[0][5]["parameters"]] == ["value", "literal", "value"]
        assert r[0][5]["aset"] == ""
        check = conn.execute("SELECT pgbench_lab_internal.script_check(%s)",
                             ("SELECT 'a:b', $$:c$$, \"d:e\" -- :f\n;",)).fetchone()[0]
        assert check["text_references"] == ["b", "c", "e", "f"]
        assert check["transactions"] is False
        r = rows("\\if :x\nSELECT 1;\n\\elif 2\n\\if 3\n\\endif\n\\else\nSELECT 2;\n\\endif\n")
        assert [(c[2], c[5].get("next"), c[5].get("endif"), c[5].get("if")) for c in r] == [
            ("if", 3, 8, None), ("sql", None, None, None), ("elif", 6, 8, None),
            ("if", 5, 5, None), ("endif", None, None, 4), ("else", None, 8, None),
            ("sql", None, None, None), ("endif", None, None, 1)]
        r = rows("BEGIN ISOLATION LEVEL SERIALIZABLE, READ ONLY;\nSAVEPOINT s;\nROLLBACK TO SAVEPOINT s;\n"
                 "RELEASE s;\nCOMMIT AND CHAIN;\nABORT;\n")
        assert [c[2] for c in r] == ["begin", "savepoint", "rollback to", "release", "commit", "rollback"]
        assert r[0][5]["isolation"] == "serializable" and r[0][5]["read_only"] is True
        assert r[1][5]["savepoint"] == "s" and r[4][5]["chain"] is True
        r = rows("\\sleep 10 ms\n\\sleep :x us\n\\sleep 2\n\\sleep -1\n")
        assert [c[5].get("usec", c[5].get("usec_per_unit")) for c in r] == [10000, 1, 2000000, -1000000]
        assert r[1][4] == ["x"]
        r = rows("\\startpipeline\nSELECT 1;\n\\syncpipeline\nSELECT 2;\n\\endpipeline\n")
        assert [c[5].get("pipeline") for c in r] == [None, True, None, True, None]


# -- bad scripts --------------------------------------------------------------

# Refused by pgbench when it reads the script.
BAD_PARSE = [
    "SELECT 1;\n\\foo bar\n", "\\set\n", "\\set x\n", "\\set x 1 +\nSELECT 1;\n", "\\set x 1 @ 2\n",
    "\\set x foo(1)\n", "\\set x abs(1, 2)\n", "\\set x least()\n", "\\set x 99999999999999999999\n",
    "\\set x (1\n", "\\set x 1)\n", "\\if\n\\endif\n", "\\if 1\n\\elif\n\\endif\n", "\\sleep\n",
    "\\sleep 1 ms x\n", "\\sleep 1.5 s\n", "\\sleep x\n", "\\sleep 10 min\n", "\\sleep 10min\n",
    "\\sleep :x min\n", "\\sleep 5x ms\n", "\\gset\n", "\\set x 1\n\\gset\n",
    "SELECT 1 \\gset\n\\gset\n", "SELECT 1 \\gset a b\n", "SELECT 1 \\aset a b\n", "\\aset\n",
    "\\else x\n", "\\endif x\n", "\\startpipeline x\n", "\\endpipeline x\n", "\\shell\n",
    "\\setshell x\n", "\\if 1\nSELECT 1;\n", "SELECT 1;\n\\endif\n", "\\elif 1\n", "\\else\n",
    "\\if 1\n\\else\n\\else\n\\endif\n", "\\if 1\n\\else\n\\elif 1\n\\endif\n", "", "-- nothing\n",
    "\\\n", "\\SETX 1\n", "SELECT 1; \\set x 1 @\n", "\\set x 1 +\\\n 2 @\n", "\\if 1\n\\if 2\n\\endif\n",
    "SELECT 'a\nb\nc';\n\\bad\n", "SELECT $$ \\foo $$;\n\\bad\n", "\\set x 1 -- c\n", "\\set x :\n",
    "SELECT " + ", ".join(f":v{i}" for i in range(256)) + ";\n",
    "\\shell echo x\n\\endif\n", "SELECT (\\set x 1\n; SELECT 1;\n\\endif\n",
]

# Refused by pgbench only when it runs them (-M extended); here when read.
BAD_RUN = [
    ("SELEC 1;\n", r"^syntax error at or near"),
    ("SELECT :\"x\";\n", r"^identifier variable :\"x\" cannot be passed"),
    ("SELECT $1;\n", r"^a parameter symbol such as \$1"),
    ("SELECT * FROM :t;\n", r"^variable :t is where a bind parameter cannot go"),
    ("BEGIN;\nSELECT 1;\n", r"^the script ends inside the transaction block"),
    ("BEGIN;\nCOMMIT AND CHAIN;\n", r"^the script ends inside the transaction block"),
    ("\\endpipeline\n", r"^\\endpipeline outside a pipeline"),
    ("\\startpipeline\nSELECT 1;\n", r"^\\startpipeline without \\endpipeline"),
    ("\\startpipeline\n\\startpipeline\n\\endpipeline\n", r"^\\startpipeline inside a pipeline"),
    ("\\startpipeline\nSELECT 1 \\gset\n\\endpipeline\n", r"^\\gset inside a pipeline"),
    ("\\set 1x 5\n", r"^invalid variable name \"1x\" in \\set"),
    ("SELECT 1 AS a \\gset 1p\n", r"^invalid variable prefix \"1p\""),
    ("\\sleep :1x\n", r"^invalid variable name \"1x\" in \\sleep"),
    ("SELECT 'unterminated;\n", r"^unterminated quoted string"),
    ("SELECT (1;\n", r"^syntax error at or near"),
    ("SELECT 1 /* x\n", r"^unterminated /\* comment"),
    ("BEGIN;\nPREPARE TRANSACTION 'x';\n", r"^two-phase commit commands cannot run"),
    ("SELECT 1;\n\\syncpipeline\n", r"^\\syncpipeline outside a pipeline|^invalid command"),
    ("SELECT 1;\nSELECT 1 FROM pg_class WHERE relname = :x LIMIT\n", r"^syntax error at end of input"),
]

KINDS = [
    (r"^invalid command$", r"^invalid command \\"),
    (r"^missing argument$", r"^missing argument in \\"),
    (r"^missing command$", r"^missing command in \\"),
    (r"^too many arguments$", r"^too many arguments in \\"),
    (r"^unexpected argument$", r"^unexpected argument in \\"),
    (r"^syntax error$", r"^syntax error in \\"),
    (r"^unexpected character \((.*)\)$", r'^unexpected character "(.*)" in \\'),
    (r"^unexpected function name \((.*)\)$", r'^unknown function "(.*)" in \\'),
    (r"^(?:unexpected number of arguments|at least one argument expected) \((.*)\)$",
     r"^(?:wrong number of arguments for (\w+)|(\w+) needs at least one argument) in \\"),
    (r"^bigint constant overflow \((.*)\)$", r'^integer constant out of range: "(.*)" in \\'),
    (r"^invalid sleep time, must be an integer \((.*)\)$", r'^invalid sleep time "(.*)", must be an integer$'),
    (r"^unrecognized time unit, must be us, ms or s \((.*)\)$", r'^unrecognized time unit "(.*)"'),
    (r"^\\gset must follow an SQL command", r"^\\[ga]set must follow an SQL command$"),
    (r"^\\(\w+) without matching \\(\w+)$", r"^\\(\w+) without matching \\(\w+)$"),
    (r"^\\(\w+) after \\else$", r"^\\(\w+) after \\else$"),
    (r"^empty command list", r"^the script has no command$"),
    (r"^statement has too many arguments", r"^too many variables in one SQL command"),
]


def same_line(their_message, their_line, our_line):
    """pgbench 15 gives "\\gset must follow an SQL command" the line of a
    neighbouring command, not the \\gset's or \\aset's: where the next
    command starts, or, after a blank line, where the SQL before it ended
    (pgbench 18 gives the meta-command's own line, as we do)."""
    if PG_MAJOR < 18 and re.match(r"\\[ga]set must follow", their_message):
        return True
    return their_line == our_line


def kind_of(which, message):
    for k, (theirs, mine) in enumerate(KINDS):
        m = re.search(theirs if which == "pgbench" else mine, message)
        if m:
            return k, tuple(g for g in m.groups() if g is not None)
    return None, (message,)


def test_bad_scripts_pgbench_refuses_when_reading(lab, pgbench):
    assert len(BAD_PARSE) + len(BAD_RUN) >= 40
    problems = []
    compared = {"line": 0, "column": 0, "command": 0}
    with lab.connect() as conn:
        for script in BAD_PARSE:
            theirs = pgbench.parse(script)
            mine = ours(conn, script)
            if theirs is None:
                problems.append(f"{script[:60]!r}: pgbench reads it without error")
                continue
            if mine[0] == "ok":
                problems.append(f"{script[:60]!r}: pgbench refuses it ({theirs[0]}), we accept it")
                continue
            _, state, line, column, msg, hint, command = mine
            for k, what in enumerate(("line", "column", "command")):
                compared[what] += theirs[k + 1] is not None
            if kind_of("pgbench", theirs[0]) != kind_of("ours", msg):
                problems.append(f"{script[:60]!r}: pgbench {theirs[0]!r}, ours {msg!r}")
            elif theirs[1] is not None and not same_line(theirs[0], theirs[1], line):
                problems.append(f"{script[:60]!r}: pgbench line {theirs[1]}, ours {line}")
            elif theirs[2] is not None and column != theirs[2]:
                problems.append(f"{script[:60]!r}: pgbench column {theirs[2]}, ours {column} ({msg})")
            elif theirs[3] is not None and command != theirs[3]:
                problems.append(f"{script[:60]!r}: pgbench command {theirs[3]}, ours {command}")
            elif state not in ("42601", "42704", "22003", "54023") or not hint:
                problems.append(f"{script[:60]!r}: SQLSTATE {state}, hint {hint!r}")
    print(f"{len(BAD_PARSE)} scripts pgbench refuses when reading them; compared: {compared}")
    assert not problems, "\n".join(problems)
    assert compared["line"] >= 35 and compared["column"] >= 15 and compared["command"] >= 6


def test_bad_scripts_pgbench_refuses_when_running(lab, pgbench):
    problems = []
    with lab.connect() as conn:
        for script, want in BAD_RUN:
            if pgbench.parse(script) is None:
                ok, err, _ = pgbench.run(script)
                if ok:
                    problems.append(f"{script!r}: pgbench runs it")
            mine = ours(conn, script)
            if mine[0] == "ok":
                problems.append(f"{script!r}: we accept it")
            elif not re.search(want, mine[4]) or not mine[5]:
                problems.append(f"{script!r}: ours {mine}")
    assert not problems, "\n".join(problems)


def test_line_and_column_of_sql_errors(lab):
    with lab.connect() as conn:
        got = ours(conn, "\\set x 1\nSELECT 1,\n  2 FROM WHERE;\n", "checkout.sql")
        assert got[1:5] == ("42601", 3, 10, 'syntax error at or near "WHERE"')
        got = ours(conn, "SELECT 1;\n\tSELECT :x FROM :t;\n")
        assert got[1:4] == ("42601", 2, 17)
        # a \shell before a bad \set: pgbench refuses the \set when reading,
        # before it would run the \shell
        got = ours(conn, "\\shell echo\n\\set x (\n")
        assert got[1:3] == ("42601", 2)


# -- what differs from pgbench by design ------------------------------------

def test_refused_by_design(lab, pgbench):
    """pgbench runs these; the server cannot, or must not."""
    cases = [
        ("\\shell echo x\n", "0A000", r"^\\shell cannot run in the server"),
        ("\\setshell v echo 1\n", "0A000", r"^\\setshell cannot run in the server"),
        ("BEGIN \\; SELECT 1;\nCOMMIT;\n", "0A000", r"^transaction control cannot be part of a \\; compound"),
        ("\\sleep 3000000000 us\n", "22003", r"^sleep time \"3000000000\" is out of range"),
    ]
    with lab.connect() as conn:
        for script, state, want in cases:
            assert pgbench.parse(script) is None
            got = ours(conn, script)
            assert got[0] == "error" and got[1] == state and re.search(want, got[4]), got
            assert got[5], got


def test_accepted_by_design(lab, pgbench):
    """:'name' is psql's quoted literal, a parameter of unknown type here;
    pgbench sends it to the server as it is.  \\syncpipeline is accepted
    as pgbench 17 and later accept it."""
    with lab.connect() as conn:
        got = ours(conn, "SELECT :'x' AS v;\n")
        assert got[0] == "ok" and got[1][0][3] == "SELECT $1 AS v;"
        ok, err, _ = pgbench.run("SELECT :'x' AS v;\n")
        assert not ok and "syntax error" in err
        got = ours(conn, "\\startpipeline\n\\syncpipeline\n\\endpipeline\n")
        assert got[0] == "ok"
        theirs = pgbench.parse("\\startpipeline\n\\syncpipeline\n\\endpipeline\n")
        assert (theirs is None) == (PG_MAJOR >= 17), theirs


# -- limits -------------------------------------------------------------------

def test_limits(lab):
    with lab.connect() as conn:
        def error(script):
            try:
                conn.execute("SELECT count(*) FROM pgbench_lab_internal.script_parse(%s)", (script,))
            except psycopg.Error as e:
                return e.sqlstate, e.diag.message_primary, e.diag.message_hint
            return None

        big = "SELECT 1;\n" + "-" * (1024 * 1024) + "\n"
        assert error(big)[:2] == ("54000", f'script "script" is too long ({len(big)} bytes, at most 1048576)')
        assert error("SELECT 1;\n" + "-" * (1024 * 1024 - 12) + "\n") is None
        many = "SELECT 1;\n" * 10000
        assert error(many) is None
        got = error(many + "\\set x 1\n")
        assert got[0] == "54000" and got[1].startswith('script "script", line 10001, column 1: too many commands')
        deep = "\\if 1\n" * 64 + "\\endif\n" * 64
        assert error(deep) is None
        got = error("SELECT 1;\n" + "\\if 1\n" * 65 + "\\endif\n" * 65)
        assert got[0] == "54000" and "line 66, column 1: \\if nested too deeply" in got[1], got
        params = "SELECT " + ", ".join([":x"] * 255) + ";"
        assert error(params) is None
        got = error(params[:-1] + ", :y;")
        assert got[0] == "54023" and "too many variables in one SQL command (256, at most 255)" in got[1]
        try:
            conn.execute("SELECT * FROM pgbench_lab_internal.script_parse(NULL)")
            raise AssertionError("a null script was accepted")
        except psycopg.Error as e:
            assert e.sqlstate == "22004"


# -- privileges ---------------------------------------------------------------

def test_privileges(lab):
    lab.sql("CREATE ROLE parse_nobody LOGIN")
    lab.sql("CREATE ROLE parse_granted LOGIN")
    for f in ("script_parse(text, text)", "script_check(text, text)"):
        lab.sql(f"GRANT EXECUTE ON FUNCTION pgbench_lab_internal.{f} TO parse_granted")
        assert lab.scalar("SELECT proconfig FROM pg_proc WHERE oid = %s::regprocedure",
                          (f"pgbench_lab_internal.{f}",)) == ["search_path=pg_catalog, pg_temp"]
    lab.sql("GRANT USAGE ON SCHEMA pgbench_lab_internal TO parse_nobody, parse_granted")
    with lab.connect(user="parse_nobody") as conn:
        for call in ("SELECT * FROM pgbench_lab_internal.script_parse('SELECT 1')",
                     "SELECT pgbench_lab_internal.script_check('SELECT 1')"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(call)
    with lab.connect(user="parse_granted") as conn:
        assert conn.execute("SELECT count(*) FROM pgbench_lab_internal.script_parse("
                            "'\\set x 1\nSELECT :x')").fetchone()[0] == 2
        assert conn.execute("SELECT pgbench_lab_internal.script_check('SELECT 1')"
                            "->>'commands'").fetchone()[0] == "1"


# -- generated scripts --------------------------------------------------------

PIECES = ["SELECT 1", ";", "\n", "\n", "'", "\"", "$$", "$a$", "--", "/*", "*/", " ", "(", ")",
          "\\set x 1", "\\set y (", "\\gset", "\\aset p", "\\if 1", "\\elif 0", "\\else", "\\endif",
          "\\sleep 1", "\\sleep 2 hours", "\\;", "\\:", ":x", "::int", "\\\n", "\\foo", "E'\\''",
          "\\startpipeline", "\\endpipeline", "BEGIN", "COMMIT", "\\shell x", ":'x'", "x", "\\"]


def test_generated_scripts(lab, pgbench):
    """Scripts made of pieces that upset lexers: every one is a program or
    an error at a line and column (never a crash), and every one pgbench
    refuses when reading it is refused with the same kind of error at the
    same line."""
    import random
    n = int(os.environ.get("PGBL_SCRIPT_CASES", "300"))
    seed = int(os.environ.get("PGBL_RANDOM_SEED", str(random.randrange(1 << 30))))
    rng = random.Random(seed)
    print(f"random seed {seed} (PGBL_RANDOM_SEED reproduces it)")
    problems = []
    refused = accepted = 0
    tried = 0
    with lab.connect() as conn:
        # n scripts, and more (up to 3 n) until the floors below are met: a
        # seed that draws few scripts both accept must not fail the test
        while tried < n or ((refused < n // 4 or accepted < n // 100) and tried < 3 * n):
            tried += 1
            script = "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 14)))
            mine = ours(conn, script)
            theirs = pgbench.parse(script)
            if theirs is None:
                accepted += mine[0] == "ok"
                continue
            refused += 1
            if mine[0] == "ok":
                problems.append(f"{script!r}: pgbench refuses it ({theirs[0]}), we accept it")
            elif kind_of("pgbench", theirs[0]) != kind_of("ours", mine[4]):
                problems.append(f"{script!r}: pgbench {theirs[0]!r}, ours {mine[4]!r}")
            elif theirs[1] is not None and not same_line(theirs[0], theirs[1], mine[2]):
                problems.append(f"{script!r}: pgbench line {theirs[1]}, ours {mine[2]} ({mine[4]})")
            elif theirs[2] is not None and theirs[2] != mine[3] and "\\\n" not in script:
                # (pgbench's offset of a word that a continuation ends counts
                # the backslash and the newline: its caret is 2 bytes off)
                problems.append(f"{script!r}: pgbench column {theirs[2]}, ours {mine[3]} ({mine[4]})")
            elif theirs[3] is not None and theirs[3] != mine[6]:
                problems.append(f"{script!r}: pgbench command {theirs[3]}, ours {mine[6]}")
    print(f"{tried} generated scripts: {refused} refused by pgbench when reading, "
          f"{accepted} accepted by both")
    assert not problems, "\n".join(problems[:20])
    assert refused >= n // 4 and accepted >= n // 100
