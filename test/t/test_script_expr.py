"""pgbench's \\set expression language in the server, held to real pgbench.

Every expression of the table below (and a few hundred generated ones) is
evaluated twice: by pgbench_lab_internal.script_eval() and by the pgbench
binary of the server under test (`pgbench -n -t 1 -M extended`, one run
for all the expressions both accept, each value sent as a bind parameter
into a table; one run per expression that either rejects).  The values
must be equal as text (doubles as pgbench prints them, 15 significant
digits), and an expression pgbench rejects must be rejected too, in the
same phase (parse or run time), with the same kind of message, the same
particulars (function, variable, types, character) and, for a parse
error, the column pgbench's caret points at.

The random functions are held to pgbench in two ways: with a seed,
script_eval() draws what `pgbench -c 1 --random-seed=N` draws first; and
over a million draws each, their mean and variance (zipfian: the share of
its most frequent value) are those of their closed forms.
"""
import math
import os
import random
import re
import tempfile

import psycopg
import pytest

from conftest import Cluster

PREFIX = "\\set x "
# pgbench's -D, and the same as script_eval()'s variables
VARS = {
    "i": "7", "n": "-3", "d": "2.5", "neg": "-0.5", "zero": "0",
    "maxint": "9223372036854775807", "minint": "-9223372036854775808",
    "t": "true", "f": "of", "y": "ye", "nul": "NULL", "bad": "bla", "sp": " 42",
    "dbl": "1e3", "nan": "nan", "inf": "-inf", "empty": "", "big": "99999999999999999999",
    "sign": "-", "badtrue": "trueXXX", "default_seed": "5432",
}

# Expressions: values, errors at parse time, errors at run time.
TABLE = [
    # constants and lexing
    "0", "42", "007", "9223372036854775807", "-9223372036854775808", "- 9223372036854775808",
    "9223372036854775808", "09223372036854775808", "99999999999999999999", "1.5", "1.", ".5",
    "1e3", "1E-3", "2.5e+2", "1.e2", "1e", "1e400", "1e-310", "1.0e308", "0.1 + 0.2", "1/3.0",
    "TRUE", "false", "NULL", "nUlL", "(((1)))", "1 @ 2", "1 $", "abs(,-5)", "abs(1,,2)", "1 2",
    ":", "1 .x", "1_000", "1.5.5", "\u00e9(1)", ":\u00e9", "1 +\\\n 2", "", "   ",
    # arithmetic
    "1 + 2 * 3", "(1 + 2) * 3", "2 * 3 - 4 / 2", "7 / 2", "-7 / 2", "7 / -2", "7 % 3", "-7 % 3",
    "7 % -3", "-7 % -3", "mod(-7, 3)", "mod(7, -1)", "-9223372036854775808 % -1",
    "-9223372036854775808 / -1", "1 / 0", "1 % 0", "mod(5, 0)", "1.0 / 0", "-1.0 / 0", "0.0 / 0",
    "5.5 % 2", "2.5 % 2", "3.5 % 2", "7.9 / 2", "9223372036854775807 + 1",
    "-9223372036854775808 - 1", "9223372036854775807 * 2", "-(-9223372036854775808)", "-:minint",
    ":maxint + 1", "4611686018427387904 * 2", "4611686018427387904 * -2", "3037000500 * 3037000500",
    "3037000499 * 3037000499", "-:maxint - 1", "9223372036854775807 + 1.0", "1 + 2.5", "1.5 * 2",
    "2 - 0.5", "-0.0", "-1.0 * 0", "+5", "- - 5", "--5", "-2 * -3", "10 - 2 - 3", "100 / 10 / 5",
    "2 * 3 % 4", "0.1 * 3",
    # comparisons
    "1 < 2", "2 <= 2", "3 > 2", "3 >= 4", "1 = 1", "1 <> 1", "1 != 2", "1 = 1.0", "0.1 + 0.2 = 0.3",
    "1 < 2 < 3", "1 = 1 = 1", "true = true", "true <> false", "1 = true", "NULL = NULL", "NULL < 1",
    "(1 < 2) = (2 < 3)", "sqrt(-1) = sqrt(-1)", "1.0 / 0 > 9223372036854775807", "1 == 1", "1 => 1",
    "-1 < -2", "1 < 2 = true",
    # logic
    "true AND false", "true OR false", "NOT true", "NOT NOT false", "true AND NULL", "NULL AND true",
    "false AND NULL", "NULL OR true", "true OR NULL", "false OR NULL", "NOT NULL", "false AND 1/0",
    "true OR 1/0", "NULL AND 1/0", "1 AND true", "true AND 1", "NOT 0", "NOT 1 = 2", "NOT 1 IS NULL",
    "true OR false AND false", "(true OR false) AND false", "not true or true", "true aNd false", "1 ! 2",
    # IS
    "NULL IS NULL", "1 IS NULL", "1 IS NOT NULL", "NULL ISNULL", "1 NOTNULL", "true IS TRUE",
    "false IS TRUE", "1 IS TRUE", "NULL IS FALSE", "true IS NOT FALSE", "1 = 1 IS TRUE",
    "1 IS NULL IS NULL", "1 ISNULL ISNULL", "1 IS 1", "1 IS NOT", ":nul IS NULL", "NULL + 1 IS NULL",
    # CASE
    "CASE WHEN true THEN 1 ELSE 2 END", "CASE WHEN false THEN 1 END", "CASE WHEN 0 THEN 1 WHEN 2 THEN 3 ELSE 4 END",
    "CASE WHEN 0.0 THEN 1 ELSE 2 END", "CASE WHEN NULL THEN 1 ELSE 2 END",
    "CASE WHEN :i > 5 THEN :i * 2 ELSE 0 END", "CASE WHEN true THEN 1 ELSE 1/0 END",
    "CASE WHEN false THEN 1/0 ELSE 3 END", "CASE 1 WHEN 1 THEN 2 END", "CASE WHEN true THEN 1",
    "CASE END", "CASE ELSE 1 END", "1 + CASE WHEN true THEN 2 END * 3", "Case When TRUE Then 1 End",
    "CASE WHEN 1/0 THEN 1 END",
    # bitwise
    "5 & 3", "5 | 3", "5 # 3", "~5", "~0", "~-1", "1 << 10", "1 << 62", "1 << 63", "1 << 64",
    "1 << -1", "-8 >> 1", "-1 >> 63", "8 >> 65", "5.7 & 3", "true & 1", "~1 + 2", "~1 & 2",
    "1 | 2 + 3", "1 + 2 | 4", "1 << 2 + 1", "6 # 3 & 1", "1 < 2 | 1", "~ NULL", "2.5 << 1",
    # functions
    "abs(-5)", "abs(5)", "abs(-2.5)", "abs(-9223372036854775808)", "abs(NULL)", "ABS(-1)",
    "debug(42)", "debug(2.5)", "debug(NULL)", "debug(true)", "double(5)", "double(true)",
    "double(NULL)", "exp(0)", "exp(1)", "exp(1000)", "exp(-1000)", "ln(1)", "ln(0)", "ln(-1)",
    "Ln(Exp(1.0))", "sqrt(2)", "sqrt(-1)", "sqrt(16)", "greatest(1, 2, 3)", "greatest(1, 2.5)",
    "least(5, -2, 3)", "least(1, NULL)", "greatest(true, 1)", "least(1.0, true)",
    "least(sqrt(-1), 1)", "least(1, sqrt(-1))", "greatest(1)", "least()", "greatest()",
    "least(0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16)", "greatest(0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15)",
    "int(2.5)", "int(3.5)", "int(-2.5)", "int(7.9)", "int(1e19)", "int(-9.3e18)", "int(sqrt(-1))",
    "int(true)", "int(NULL)", "mod(10, 3)", "mod(10.5, 3)", "pi()", "pi(1)", "pi() * 4.9",
    "pow(2, 10)", "power(2.0, 0.5)", "pow(0, 0)", "pow(-2, -3)", "pow(-8, 1.0 / 3)",
    "pow(9223372036854775807, 2)", "pow(10, 400)", "pow(2)", "hash(10)", "hash(10, 5432)",
    "hash_murmur2(-1, 0)", "hash_fnv1a(10)", "hash_fnv1a(0, 0)", "hash_fnv1a(-9223372036854775808, 1)",
    "hash(1.5)", "hash(1, 2, 3)", "hash()", "hash(true)", "hash(NULL)", "hash(1, :default_seed)",
    "hash(1, -1)", "hash(1) = hash(1, :default_seed)", "permute(0, 10)", "permute(9, 10, 1)",
    "permute(-1, 10, 1)", "permute(15, 10, 1)", "permute(5, 1)", "permute(5, 0)", "permute(5, -3)",
    "permute(1, 2, 5431)", "permute(0, 2, 5433)", "permute(9223372036854775806, 9223372036854775807, 5432)",
    "permute(1, 2, 3, 4)", "permute(1)", "permute(3, 1000000007, -5)", "permute(2.6, 10, 7)",
    "permute(NULL, 10)", "noSuchFunction()", "foo", "Foo bar", "1 foo", "x", "a IS 3",
    # random functions: the deterministic cases and the refused ones
    "random(5, 5)", "random_zipfian(3, 3, 1.5)", "random_exponential(7, 7, 1.0)",
    "random_gaussian(7, 7, 3)", "random(NULL, 1)", "random_zipfian(1, 10, NULL)", "random(5, 3)",
    "random(-9223372036854775808, 9223372036854775807)", "random(:minint, :maxint)",
    "random(0, 9223372036854775807)", "random(1, 10, 3)", "random_gaussian(0, 10, 1.0)",
    "random_gaussian(0, 10, 1.999)", "random_exponential(0, 10, 0.0)", "random_exponential(0, 10, -1)",
    "random_zipfian(0, 10, 1)", "random_zipfian(0, 10, 1000000)", "random_zipfian(0, 10, 1.0009)",
    "random(true, 5)", "random_gaussian(1, 2)", "random(1.5e19, 2e19)",
    # variables
    ":i", ":i + :n", ":d * 2", ":maxint", ":minint", ":t", ":f", ":y", ":nul", ":bad + 1", ":sp",
    ":dbl", ":nan", ":inf", ":neg", ":empty", ":big", ":sign", ":badtrue OR true", ":undefined",
    ":default_seed", ":maxint + :minint", ":i:i", ":1", ":t AND :y", "NOT :f", ":zero / :zero",
    # errors after the error: pgbench reports the last bad token of the line
    "1 + @", "foo(1) @ $", "1 2 @ $", "abs(99999999999999999999", "1 2 3e999", "1 +", "(1", "1)",
    "abs", "abs 1", "1 =", "= 1", "[1]", "'a'", "\"a\"", "1;",
]

# pgbench refuses these at run time, script_eval() when parsing (before a
# script starts): more arguments than pgbench's evaluator takes.
PHASE_DIFFERS = {"least(0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16)"}

# Where pgbench has no defined result, script_eval() refuses (see
# test_deliberate_differences); a generated expression may meet them.
DELIBERATE = re.compile(r"^cannot use a boolean as a number$|^random parameter must be a finite number")

# Kinds of error: (pattern of pgbench's message, pattern of ours, SQLSTATE).
# The patterns' groups are the particulars, compared after TYPES/OPS.
KINDS = [
    ("syntax", r"^syntax error", r"^syntax error at column", "22023"),
    ("char", r"^unexpected character \((.*)\)$", r'^unexpected character "(.*)" at column', "22023"),
    ("function", r"^unexpected function name \((.*)\)$", r'^unknown function "(.*)" at column', "42704"),
    ("nargs", r"^(?:unexpected number of arguments|at least one argument expected) \((.*)\)$",
     r"^(?:wrong number of arguments for|too many arguments for) (\w+)|^(\w+) needs at least one", "22023"),
    ("constant", r"^(?:bigint|double) constant overflow \((.*)\)$",
     r'^(?:integer|double) constant out of range: "(.*)" at column', "22003"),
    ("overflow", r"^bigint (add|sub|mul|div) out of range", r"^bigint out of range in (\w+)", "22003"),
    ("overflow", r"^double to int overflow", r"out of range for an integer$", "22003"),
    ("zero", r"^division by zero", r"^division by zero$", "22012"),
    ("undefined", r'^undefined variable "(.*)"', r'^undefined variable "(.*)"$', "42704"),
    ("coerce", r"^cannot coerce (\w+) to (\w+)", r"^cannot use an? (\w+) as an? (\w+)$", "42804"),
    ("range", r"^empty range given to random", r"^empty range given to random", "22023"),
    ("range", r"^random range is too large", r"^random range is too large", "22003"),
    ("param", r"^(gaussian|zipfian|exponential) parameter must be", r"^(gaussian|zipfian|exponential) parameter must be", "22023"),
    ("param", r"^permute size parameter must be greater than zero", r"^permute size must be greater than 0", "22023"),
    ("malformed", r'^malformed variable "(\w+)"', r'^malformed value of variable "(\w+)"', "22P02"),
    ("malformed", r"^(?:invalid input syntax for type bigint|value .* is out of range for type bigint)",
     r"^malformed value of variable", "22P02"),
    ("malformed", r"^$", r"^malformed value of variable", "22P02"),   # pgbench says nothing for ""
    ("toomany", r"^too many function arguments", r"^too many arguments for", "54023"),
]
TYPES = {"int": "integer"}
OPS = {"add": "addition", "sub": "subtraction", "mul": "multiplication", "div": "division"}


def classify(which, message):
    """(kind, particulars, sqlstate) of pgbench's message or ours."""
    for kind, theirs, ours, state in KINDS:
        m = re.search(theirs if which == "pgbench" else ours, message)
        if m:
            if kind == "nargs" and which == "ours" and message.startswith("too many"):
                kind, state = "toomany", "54023"
            groups = tuple(TYPES.get(g, OPS.get(g, g)) for g in m.groups() if g is not None)
            if kind in ("malformed", "toomany", "nargs", "syntax"):
                groups = groups[:1] if kind == "nargs" else ()
            return kind, groups, state
    return None, (message,), None


class Pgbench:
    """The server's own pgbench, run against the test cluster."""

    def __init__(self, node, workdir):
        self.node = node
        self.workdir = workdir
        self.runs = 0

    def run(self, script, variables=VARS, extra=()):
        path = os.path.join(self.workdir, f"s{self.runs}.sql")
        self.runs += 1
        with open(path, "w") as f:
            # -D refuses an empty value; \gset gives one
            f.write("".join(f"SELECT '' AS {k} \\gset\n" for k, v in variables.items() if v == ""))
            f.write(script)
        args = ["-n", "-t", "1", "-M", "extended", "-f", path]
        for k, v in variables.items():
            if v != "":
                args += ["-D", f"{k}={v}"]
        return self.node.run_client("pgbench", *args, *extra, "postgres", check=False)

    def values(self, exprs, variables=VARS, extra=()):
        """{expression: text} for expressions pgbench evaluates; None if the
        run failed (one of them was refused)."""
        self.node.sql("TRUNCATE expr_out")
        lines = []
        for k, e in enumerate(exprs):
            lines.append(f"{PREFIX}{e}\n")
            lines.append(f"INSERT INTO expr_out VALUES ({k}, :x);\n")
        r = self.run("".join(lines), variables, extra)
        if r.returncode != 0:
            return None
        got = dict(self.node.sql("SELECT id, v FROM expr_out"))
        return {e: got[k] for k, e in enumerate(exprs)}

    def error(self, expr, variables=VARS):
        """(phase, message, column) of pgbench's refusal, or None."""
        r = self.run(f"{PREFIX}{expr}\nSELECT 1;\n", variables)
        if r.returncode == 0:
            return None
        errs = [line[len("pgbench: error: "):] for line in r.stderr.splitlines()
                if line.startswith("pgbench: error: ")]
        parse = re.match(r"^.*?\.sql:\d+: (.*) in command \"set\"$", errs[0]) if errs else None
        if parse:
            lines = r.stderr.splitlines()
            caret = [line.index("^") for line in lines if line.endswith("^ error found here")]
            column = caret[0] - len(PREFIX) + 1 if caret and "\n" not in expr else None
            return "parse", parse.group(1), column
        msg = errs[0] if errs and "aborted in command" not in errs[0] else ""
        return "run", msg, None


def ours(conn, expr, variables=VARS, seed=None):
    """('ok', text or None) or ('error', phase, message, column, sqlstate, hint)."""
    try:
        v = conn.execute("SELECT pgbench_lab_internal.script_eval(%s, %s::jsonb, %s)",
                         (expr, psycopg.types.json.Jsonb(variables), seed)).fetchone()[0]
        return ("ok", v)
    except psycopg.Error as e:
        msg = e.diag.message_primary or ""
        m = re.search(r"at column (\d+)", msg)
        return ("error", "parse" if m else "run", msg, int(m.group(1)) if m else None,
                e.sqlstate, e.diag.message_hint)


def compare(pgbench, conn, exprs, variables=VARS):
    """Every disagreement between pgbench and script_eval(), as text."""
    mine = {e: ours(conn, e, variables) for e in exprs}
    accepted = [e for e in exprs if mine[e][0] == "ok"]
    theirs = pgbench.values(accepted, variables)
    problems = []
    if theirs is None:
        # some expression pgbench refuses: find which, one run each
        theirs = {}
        for e in accepted:
            one = pgbench.values([e], variables)
            if one is None:
                problems.append(f"{e!r}: pgbench refuses it ({pgbench.error(e, variables)}), "
                                f"script_eval gives {mine[e][1]!r}")
            else:
                theirs.update(one)
    for e in accepted:
        if e in theirs:
            want = theirs[e]
            got = "NULL" if mine[e][1] is None else mine[e][1]
            if want != got:
                problems.append(f"{e!r}: pgbench {want!r}, script_eval {got!r}")
    for e in exprs:
        if mine[e][0] == "ok":
            continue
        _, phase, msg, column, state, hint = mine[e]
        if DELIBERATE.search(msg):
            continue
        err = pgbench.error(e, variables)
        if err is None:
            problems.append(f"{e!r}: pgbench accepts it, script_eval says {state} {msg!r}")
            continue
        their_phase, their_msg, their_column = err
        tk, tp, _ = classify("pgbench", their_msg)
        mk, mp, want_state = classify("ours", msg)
        if (tk, tp) != (mk, mp):
            problems.append(f"{e!r}: pgbench {their_phase} {their_msg!r}, script_eval {msg!r}")
        elif state != want_state:
            problems.append(f"{e!r}: SQLSTATE {state} for {msg!r}, expected {want_state}")
        elif phase != their_phase and e not in PHASE_DIFFERS:
            problems.append(f"{e!r}: pgbench at {their_phase} time, script_eval at {phase} time")
        elif their_column is not None and phase == "parse" and column != their_column:
            problems.append(f"{e!r}: pgbench column {their_column}, script_eval {column} ({msg!r})")
        elif not hint:
            problems.append(f"{e!r}: no hint with {msg!r}")
    return problems, mine


@pytest.fixture(scope="module")
def lab():
    c = Cluster("expr")
    try:
        c.start()
        c.sql("CREATE EXTENSION pgbench_lab CASCADE")
        c.sql("CREATE TABLE expr_out (id int PRIMARY KEY, v text)")
        yield c
    finally:
        c.destroy()


@pytest.fixture(scope="module")
def pgbench(lab):
    with tempfile.TemporaryDirectory(prefix="pgbl-expr-") as d:
        yield Pgbench(lab, d)


def test_table_agrees_with_pgbench(lab, pgbench):
    assert len(TABLE) == len(set(TABLE)) and len(TABLE) >= 100
    with lab.connect() as conn:
        problems, mine = compare(pgbench, conn, TABLE)
    ok = sum(1 for v in mine.values() if v[0] == "ok")
    parse = sum(1 for v in mine.values() if v[0] == "error" and v[1] == "parse")
    print(f"{len(TABLE)} expressions: {ok} values, {parse} parse errors, "
          f"{len(TABLE) - ok - parse} run-time errors; pgbench runs: {pgbench.runs}")
    assert not problems, "\n".join(problems)
    # the table covers values and both kinds of error
    assert ok >= 150 and parse >= 40 and len(TABLE) - ok - parse >= 40


# -- generated expressions: precedence, associativity, types --------------

LEAVES = ["0", "1", "2", "3", "7", "-4", "0.5", "2.5", "TRUE", "FALSE", "NULL", ":i", ":d", ":t",
          ":nul", "4611686018427387904", "9223372036854775807"]
INFIX = ["+", "-", "*", "/", "%", "<", ">", "=", "<>", "<=", ">=", "&", "|", "#", "<<", ">>",
         "AND", "OR"]
PREFIX_OPS = ["-", "+", "~", "NOT"]
POSTFIX = ["IS NULL", "IS NOT NULL", "ISNULL", "NOTNULL", "IS TRUE", "IS NOT FALSE"]
FUNCS = [("abs", 1), ("greatest", 2), ("least", 3), ("int", 1), ("double", 1), ("mod", 2),
         ("hash", 1), ("hash_fnv1a", 2), ("permute", 2), ("pow", 2), ("sqrt", 1), ("exp", 1)]
NOISE = ["(", ")", ",", "@", "IS", "CASE", "END", "THEN", "abs", "=", "9223372036854775808", "1e999"]


def generate(rng, depth):
    """A token list: operators mostly without parentheses, so that the two
    parsers' precedence and associativity decide the value."""
    if depth <= 0 or rng.random() < 0.2:
        return [rng.choice(LEAVES)]
    r = rng.random()
    if r < 0.5:
        left, right = generate(rng, depth - 1), generate(rng, depth - 1)
        if rng.random() < 0.15:
            right = ["("] + right + [")"]
        return left + [rng.choice(INFIX)] + right
    if r < 0.65:
        return [rng.choice(PREFIX_OPS)] + generate(rng, depth - 1)
    if r < 0.75:
        return generate(rng, depth - 1) + rng.choice(POSTFIX).split()
    if r < 0.9:
        name, n = rng.choice(FUNCS)
        out = [name, "("]
        for k in range(n):
            out += ([","] if k else []) + generate(rng, depth - 2)
        return out + [")"]
    out = ["CASE"]
    for _ in range(rng.randint(1, 2)):
        out += ["WHEN"] + generate(rng, depth - 2) + ["THEN"] + generate(rng, depth - 2)
    if rng.random() < 0.5:
        out += ["ELSE"] + generate(rng, depth - 2)
    return out + ["END"]


def test_generated_expressions_agree_with_pgbench(lab, pgbench):
    n = int(os.environ.get("PGBL_EXPR_CASES", "400"))
    seed = int(os.environ.get("PGBL_RANDOM_SEED", str(random.randrange(1 << 30))))
    rng = random.Random(seed)
    print(f"random seed {seed} (PGBL_RANDOM_SEED reproduces it)")
    exprs = set()
    while len(exprs) < n:
        tokens = generate(rng, rng.randint(2, 5))
        if rng.random() < 0.2:		# a broken one: a token dropped or added
            k = rng.randrange(len(tokens) + 1)
            if rng.random() < 0.5 and k < len(tokens):
                del tokens[k]
            else:
                tokens.insert(k, rng.choice(NOISE))
        exprs.add(" ".join(tokens))
    exprs = sorted(exprs)
    with lab.connect() as conn:
        problems, mine = compare(pgbench, conn, exprs)
    ok = sum(1 for v in mine.values() if v[0] == "ok")
    print(f"{n} generated expressions: {ok} values, {n - ok} errors")
    assert not problems, "\n".join(problems[:30])
    assert ok >= n // 4


# -- random functions -----------------------------------------------------

SEEDED = ["random(1, 1000000)", "random(-5, 5)", "random(0, 9223372036854775806)", "random(-4611686018427387904, 4611686018427387902)",
          "random_exponential(1, 1000, 2.5)", "random_gaussian(1, 1000, 2.5)",
          "random_gaussian(-100, 100, 10)", "random_zipfian(1, 1000, 1.5)",
          "random_zipfian(1, 100, 1.01)", "random(2.5, 7.5)"]
# what pgbench derives from --random-seed without drawing
DERIVED = [":random_seed", ":default_seed", "hash(5)", "hash_fnv1a(5)", "permute(3, 10)", ":client_id",
           ":scale"]


@pytest.mark.parametrize("seed", [0, 1, 5432, 18446744073709551615])
def test_seeded_draws_are_pgbench_first_draws(lab, pgbench, seed):
    """script_eval(expr, '{}', seed) draws what pgbench's only client draws
    first with --random-seed=seed, and derives the same default_seed."""
    signed = seed - (1 << 64) if seed >= 1 << 63 else seed
    extra = ("-c", "1", f"--random-seed={seed}")
    problems = []
    with lab.connect() as conn:
        for e in SEEDED:
            theirs = pgbench.values([e] + DERIVED, {}, extra)
            assert theirs is not None, f"pgbench refused {e}"
            for x in [e] + DERIVED:
                got = ours(conn, x, {}, signed)
                if got != ("ok", theirs[x]):
                    problems.append(f"seed {seed}, {x}: pgbench {theirs[x]!r}, script_eval {got}")
    assert not problems, "\n".join(problems)


def moments(pmf):
    """mean, variance and fourth central moment of {value: probability}."""
    mean = sum(v * p for v, p in pmf.items())
    var = sum((v - mean) ** 2 * p for v, p in pmf.items())
    m4 = sum((v - mean) ** 4 * p for v, p in pmf.items())
    return mean, var, m4


def phi(x):
    return 0.5 * (1 + math.erf(x / math.sqrt(2)))


def pmf_uniform(lo, hi):
    return {k: 1 / (hi - lo + 1) for k in range(lo, hi + 1)}


def pmf_exponential(lo, hi, p):
    # lo + floor(N * X), X of density p e^(-px) / (1 - e^(-p)) on [0, 1)
    n = hi - lo + 1
    return {lo + j: (math.exp(-p * j / n) - math.exp(-p * (j + 1) / n)) / (1 - math.exp(-p))
            for j in range(n)}


def pmf_gaussian(lo, hi, p):
    # lo + floor(N * (Z + p) / 2p), Z standard normal cut to [-p, p)
    n = hi - lo + 1
    total = phi(p) - phi(-p)
    return {lo + j: (phi(-p + 2 * p * (j + 1) / n) - phi(-p + 2 * p * j / n)) / total
            for j in range(n)}


def pmf_zipfian(lo, hi, s):
    h = sum(k ** -s for k in range(1, hi - lo + 2))
    return {lo - 1 + k: k ** -s / h for k in range(1, hi - lo + 2)}


DRAWS = 1_000_000
DISTRIBUTIONS = [
    ("random(1, 100)", pmf_uniform(1, 100)),
    ("random_exponential(1, 100, 3.0)", pmf_exponential(1, 100, 3.0)),
    ("random_gaussian(1, 100, 2.5)", pmf_gaussian(1, 100, 2.5)),
    ("random_zipfian(1, 100, 1.5)", pmf_zipfian(1, 100, 1.5)),
]


@pytest.mark.parametrize("expr,pmf", DISTRIBUTIONS, ids=[d[0] for d in DISTRIBUTIONS])
def test_distribution(lab, expr, pmf):
    """A million draws (each the first of a client seeded at random): mean,
    variance and the share of the most frequent value within five standard
    errors of the closed form's."""
    mean, var, m4 = moments(pmf)
    top = max(pmf, key=pmf.get)
    share = pmf[top]
    got_mean, got_var, got_share, lo, hi = lab.sql(
        "SELECT avg(v), var_pop(v), avg((v = %s)::int::float8), min(v), max(v) FROM ("
        " SELECT pgbench_lab_internal.script_eval(%s)::float8 AS v"
        "   FROM generate_series(1, %s)) s", (top, expr, DRAWS))[0]
    tol_mean = 5 * math.sqrt(var / DRAWS)
    tol_var = 5 * math.sqrt((m4 - var ** 2) / DRAWS)
    tol_share = 5 * math.sqrt(share * (1 - share) / DRAWS)
    report = (f"{expr}: mean {got_mean:.4f} (closed form {mean:.4f} +- {tol_mean:.4f}), "
              f"variance {got_var:.3f} ({var:.3f} +- {tol_var:.3f}), "
              f"share of {top} {got_share:.5f} ({share:.5f} +- {tol_share:.5f}), range {lo}..{hi}")
    print(report)
    assert min(pmf) <= lo and hi <= max(pmf), report
    assert abs(got_mean - mean) <= tol_mean, report
    assert abs(got_var - var) <= tol_var, report
    assert abs(got_share - share) <= tol_share, report


# -- the rest of script_eval()'s contract ----------------------------------

def test_deliberate_differences(lab):
    """Where pgbench has no defined result, script_eval() refuses: abs() of
    a boolean (pgbench reads the boolean's bytes as a double) and a
    non-finite random parameter (random_zipfian loops forever on NaN)."""
    with lab.connect() as conn:
        for expr, state in [("abs(true)", "42804"), ("random_zipfian(1, 10, sqrt(-1))", "22023"),
                            ("random_gaussian(1, 10, 1.0 / 0)", "22023"),
                            ("random_exponential(1, 10, sqrt(-1))", "22023")]:
            got = ours(conn, expr, {})
            assert got[0] == "error" and got[4] == state, (expr, got)


def test_debug_writes_the_server_log(lab):
    before = len(lab.log())
    assert lab.scalar("SELECT pgbench_lab_internal.script_eval('debug(6 * 7) + debug(0.5)')") == "42.5"
    assert lab.scalar("SELECT pgbench_lab_internal.script_eval('debug(NULL)')") is None
    log = lab.log()[before:]
    assert "debug(script_eval): int 42" in log, log
    assert "debug(script_eval): double 0.5" in log, log
    assert "debug(script_eval): null" in log, log


def test_limits_and_bad_arguments(lab):
    with lab.connect() as conn:
        deep = "(" * 1500 + "1" + ")" * 1500
        assert ours(conn, deep)[4] == "54001"
        chain = " + ".join(["1"] * 1500)
        assert ours(conn, chain)[4] == "54001"
        assert ours(conn, " + ".join(["1"] * 900)) == ("ok", "900")
        assert ours(conn, "1" + " " * 70000)[4] == "54000"
        assert ours(conn, "1\n+ 2")[4] == "22023"
        assert ours(conn, "1 \\\n+ 2") == ("ok", "3")
        for variables, state in [({"1x": "1"}, "22023"), ({"": "1"}, "22023"),
                                 ({"a-b": "1"}, "22023"), ({"x": [1]}, "22023"),
                                 ({"x": {"a": 1}}, "22023")]:
            got = ours(conn, "1", variables)
            assert got[0] == "error" and got[4] == state, (variables, got)
        for value, want in [(5, "5"), (2.50, "2.5"), (True, "true"), (None, None), ("on", "true")]:
            assert ours(conn, ":v", {"v": value}) == ("ok", want), value
        with pytest.raises(psycopg.errors.NullValueNotAllowed):
            conn.execute("SELECT pgbench_lab_internal.script_eval(NULL)")
        with pytest.raises(psycopg.errors.InvalidParameterValue):
            conn.execute("SELECT pgbench_lab_internal.script_eval('1', '[1]')")
        # NULL variables are none, a NULL seed a random one
        assert conn.execute("SELECT pgbench_lab_internal.script_eval(':scale + :client_id', NULL, NULL)"
                            ).fetchone()[0] == "1"


def test_not_for_public(lab):
    lab.sql("CREATE ROLE expr_nobody LOGIN")
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        lab.sql("SELECT pgbench_lab_internal.script_eval('1')", user="expr_nobody")


def test_garbage_never_crashes(lab):
    """Random bytes and token soup: every call answers with a value or a
    proper SQLSTATE (never XX000), and the server never restarts."""
    rng = random.Random(7)
    started = lab.scalar("SELECT pg_postmaster_start_time()")
    pieces = ["(", ")", "-", "~", "NOT", "9223372036854775808", "1e308", "CASE", "WHEN", "END",
              ":i", "\\", "\n", "\\\n", "\u00e9", "\x01", "permute(", "least(", ",", "IS", "'"]
    with lab.connect() as conn:
        for k in range(3000):
            if k % 2:
                expr = "".join(chr(rng.randrange(1, 256)) for _ in range(rng.randrange(30)))
            else:
                expr = " ".join(rng.choice(pieces) for _ in range(rng.randrange(1, 25)))
            got = ours(conn, expr, VARS)
            assert got[0] == "ok" or (got[4] and not got[4].startswith("XX")), (expr, got)
    assert lab.scalar("SELECT pg_postmaster_start_time()") == started
