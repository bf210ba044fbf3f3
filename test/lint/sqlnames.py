"""Every name in pgbench_lab's SQL is qualified with its schema.

The extension's SQL runs in sessions it does not control: the caller's,
whose search_path a database owner may have set (public first), and, for
its bookkeeping, with the rights of the extension's owner.  A name that is
looked up through search_path there can be captured by a look-alike: a
function, an operator, or a *type* (pg_temp is searched first for types and
relations unless named last, and a domain's CHECK runs code).  So:

- every SQL text in src/*.c (the string literals handed to SPI or libpq)
  names every type, function, operator, collation and relation with its
  schema: `::pg_catalog.float8`, `pg_catalog.now()`, `OPERATOR(pg_catalog.=)`,
  `pgbench_lab.runs` (the built-ins' statements, written so, go with bare
  operators only on a session whose search_path the lab pinned to
  pg_catalog, pg_temp: WorkloadAppendStmt derives that text from this one); constructs that look an operator up by name with no
  way to qualify it (IN, NULLIF, BETWEEN, LIKE, IS DISTINCT FROM, a simple
  CASE) are refused;
- so is every SQL command of the pgbench scripts written in src/*.c (the
  built-in scripts the interpreter runs by name: a string that opens with a
  meta-command such as `\\set`), its :variables taken as the parameters $n
  the interpreter binds them as;
- so is every SQL command of the TPC-C kit's scripts (sql/tpcc/*.sql, which
  run under the caller's search_path in the server, over libpq and under
  pgbench -f);
- every function of the install and upgrade scripts (sql/data/, sql/code/,
  sql/upgrade/) passes the same
  check over its whole body, and has `SET search_path = pg_catalog, pg_temp`
  unless it cannot (a procedure that commits): the path is a second
  defence, not the first;
- so does the SQL a PL/pgSQL body builds as text (the templates init_tpcc()
  formats, EXECUTEs and sends to a target, tpcc_check()'s): each string
  constant that opens like a statement is checked as one (format()'s %s, %I
  and %L as a name or a literal), the functions it creates as the install
  script's are, and a constant that names pg_catalog but is no statement
  (a piece spliced into a template) as an expression.

Run as a program it prints every violation and exits 1 if there is any;
`--types` prints the type names the extension's SQL uses (the real-server
look-alike test plants a domain of each name).  It parses SQL with pglast
(PostgreSQL's own parser), which pgspot already brings.
"""
import itertools
import os
import re
import subprocess
import sys

from pglast import ast, parse_plpgsql, parse_sql
from pglast.parser import ParseError

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCHEMAS = ("pg_catalog", "pgbench_lab")
SAFE_PATH = "pg_catalog, pg_temp"

# Statements begin with one of these (upper case, as the sources write SQL).
SQL_START = re.compile(r"^\s*\(?\s*(SELECT|INSERT|UPDATE|DELETE|WITH(?!\s*\()|CALL|CREATE|DROP|ALTER|"
                       r"TRUNCATE|VACUUM|ANALYZE|COPY|LOCK|SET|RESET|CHECKPOINT|GRANT|REVOKE|"
                       r"COMMENT|EXPLAIN|VALUES|TABLE|DO)\b")
# A cast to a type not named with its schema.
BARE_CAST = re.compile(r"::\s*(?!(?:pg_catalog|pgbench_lab|\"pg_catalog\")\s*\.)[A-Za-z_\"]")
# printf conversions, as they appear in the SQL texts built with psprintf.
PRINTF = re.compile(r"%(?:%|[-+ #0]*\d*(?:\.\d+)?(?:l|ll|z|h)?[sdiufgexc])")


# -- C sources --------------------------------------------------------------

def _c_tokens(src):
    """Yield (kind, value, line) for string literals, identifiers and other
    punctuation of C source, with comments and preprocessor lines skipped
    (#define lines are yielded whole, as kind 'define')."""
    i, n, line = 0, len(src), 1
    while i < n:
        c = src[i]
        if c == "\n":
            line += 1
            i += 1
        elif c.isspace():
            i += 1
        elif src.startswith("//", i):
            i = src.find("\n", i)
            i = n if i < 0 else i
        elif src.startswith("/*", i):
            j = src.find("*/", i + 2)
            line += src.count("\n", i, j)
            i = j + 2
        elif c == "#" and (i == 0 or src[src.rfind("\n", 0, i) + 1:i].strip() == ""):
            j = i
            while True:
                k = src.find("\n", j)
                k = n if k < 0 else k
                if src[k - 1:k] == "\\":
                    j = k + 1
                    continue
                break
            text = src[i:k]
            yield ("define", text, line)
            line += text.count("\n")
            i = k
        elif c == '"':
            j, out = i + 1, []
            while src[j] != '"':
                if src[j] == "\\":
                    nxt = src[j + 1]
                    out.append({"n": "\n", "t": "\t", "\\": "\\", '"': '"', "'": "'", "0": "\0"}
                               .get(nxt, nxt))
                    j += 2
                else:
                    out.append(src[j])
                    j += 1
            yield ("string", "".join(out), line)
            i = j + 1
        elif c == "'":
            j = i + 1
            while src[j] != "'":
                j += 2 if src[j] == "\\" else 1
            i = j + 1
        elif c.isalnum() or c == "_":
            j = i
            while j < n and (src[j].isalnum() or src[j] == "_"):
                j += 1
            yield ("ident", src[i:j], line)
            i = j
        else:
            yield ("punct", c, line)
            i += 1


def _string_macros(paths):
    """#define NAME "..." "..." -> every definition's text (one per branch)."""
    macros = {}
    for path in paths:
        with open(path) as f:
            for kind, text, _ in _c_tokens(f.read()):
                if kind != "define":
                    continue
                m = re.match(r"#\s*define\s+(\w+)\s+(.*)", text.replace("\\\n", " "), re.S)
                if not m or '"' not in m.group(2):
                    continue
                parts = [v for k, v, _ in _c_tokens(m.group(2)) if k == "string"]
                idents = [v for k, v, _ in _c_tokens(m.group(2)) if k == "ident"]
                if parts and not idents:
                    macros.setdefault(m.group(1), []).append("".join(parts))
    return macros


# Calls whose string arguments are messages, not SQL.
MESSAGE_CALLS = {"errmsg", "errdetail", "errhint", "errcontext", "errmsg_internal",
                 "errdetail_log", "elog", "refuse"}

# Format macros of c.h that stand for a printf conversion.
FORMAT_MACROS = {"INT64_FORMAT": "%ld", "UINT64_FORMAT": "%lu"}


def c_strings(root=ROOT):
    """Every run of adjacent string literals (and string macros) in src/*.c
    and src/*.h, as (file, line, text); each definition of a string macro is
    also yielded on its own."""
    srcdir = os.path.join(root, "src")
    paths = sorted(os.path.join(srcdir, f) for f in os.listdir(srcdir) if f.endswith((".c", ".h")))
    macros = _string_macros(paths)
    for name, bodies in sorted(macros.items()):
        for body in bodies:
            yield (f"src/ (macro {name})", 0, body)
    for path in paths:
        with open(path) as f:
            tokens = list(_c_tokens(f.read()))
        rel = os.path.relpath(path, root)
        run, start, calls, last = [], 0, [], None
        for kind, value, line in tokens + [("end", "", 0)]:
            if kind == "string":
                run.append(value)
                start = start or line
                continue
            if kind == "ident" and run and (value in macros or value in FORMAT_MACROS):
                run.append(FORMAT_MACROS.get(value) or macros[value][0])
                continue
            if run and not MESSAGE_CALLS.intersection(calls):
                yield (rel, start, "".join(run))
            run, start = [], 0
            # which calls enclose the next string: messages are not SQL
            if value == "(" and kind == "punct":
                calls.append(last if last else "")
            elif value == ")" and kind == "punct" and calls:
                calls.pop()
            elif value in (";", "{", "}") and kind == "punct":
                calls = []
            last = value if kind == "ident" else None


# Sentences that begin like SQL (recommendations' reasons, hints).
PROSE = ("CREATE INDEX and VACUUM", "SELECT * FROM pgbench_lab.recommend() shows")


def looks_like_sql(text):
    return bool(SQL_START.match(text))


# A pgbench script among the C strings: lines, the first a meta-command.
SCRIPT_START = re.compile(r"^\s*\\(set|sleep|if|startpipeline)\b")
# A script's :variable, :'variable' or :"variable" (not a :: cast).
SCRIPT_VARIABLE = re.compile(r"(?<![:\w]):(?:'\w+'|\"\w+\"|[A-Za-z_]\w*)")


def looks_like_script(text):
    return bool(SCRIPT_START.match(text)) and "\n" in text.strip()


# \gset or \aset ending a command: the end of a statement.
SCRIPT_GSET = re.compile(r"\\[ga]set\b[^\n]*")


def script_to_sql(text, keep_lines=False):
    """A pgbench script's SQL commands as one SQL text, as the interpreter
    runs them: the meta-command lines (\\set ...) left out (blank with
    keep_lines, so that the SQL keeps the script's line numbers), a \\gset
    ending its command, each :variable a parameter $n (a \\; compound is
    one command of several statements)."""
    lines = []
    for ln in text.splitlines():
        if SCRIPT_GSET.match(ln.lstrip()):
            lines.append(";")		# on a line of its own, it ends the command above
        elif not ln.lstrip().startswith("\\"):
            lines.append(ln)
        elif keep_lines:
            lines.append("")
    sql = SCRIPT_GSET.sub(";", "\n".join(lines).replace("\\;", ";"))
    n = itertools.count(1)
    return SCRIPT_VARIABLE.sub(lambda m: f"${next(n)}", sql)


def c_sql_texts(root=ROOT):
    """(file, line, text, sql) for every SQL text of src/: the strings that
    look like SQL, and the SQL commands of the pgbench scripts there."""
    for path, line, text in c_strings(root):
        if any(text.startswith(p) for p in PROSE):
            continue
        if looks_like_sql(text):
            yield path, line, text, text
        elif looks_like_script(text):
            yield path, line, text, script_to_sql(text)


# What a %s of a template may stand for: a name, a literal, nothing (an
# optional keyword) or a column list.
PRINTF_STRINGS = ("x", "'x'", "", "x pg_catalog.int4")


def printf_to_sql(text):
    """A psprintf/appendStringInfo template as parseable SQL: numbers for
    numeric conversions, and for each %s the first of PRINTF_STRINGS that
    makes the whole text parse (so a relation written "%s.%s" is seen
    qualified, and one written "%s" is not)."""
    parts = PRINTF.split(text)
    convs = PRINTF.findall(text)
    slots = [i for i, c in enumerate(convs) if c.endswith("s")]

    def build(choice):
        fill = {i: choice[k] for k, i in enumerate(slots)}
        out = [parts[0]]
        for i, c in enumerate(convs):
            out.append("%" if c == "%%" else fill.get(i, "1"))
            out.append(parts[i + 1])
        return "".join(out)
    return first_parsing(build, len(slots))


# -- the check --------------------------------------------------------------

# A_Expr kinds that look an operator up by name, with no way to qualify it.
UNQUALIFIABLE = {
    "AEXPR_IN": "IN (...) looks up = through search_path: use OPERATOR(pg_catalog.=) ANY (ARRAY[...])",
    "AEXPR_NULLIF": "NULLIF looks up = through search_path: use CASE WHEN ... OPERATOR(pg_catalog.=) ...",
    "AEXPR_DISTINCT": "IS DISTINCT FROM looks up = through search_path",
    "AEXPR_NOT_DISTINCT": "IS NOT DISTINCT FROM looks up = through search_path",
    "AEXPR_LIKE": "LIKE looks up ~~ through search_path: use OPERATOR(pg_catalog.~~)",
    "AEXPR_ILIKE": "ILIKE looks up ~~* through search_path: use OPERATOR(pg_catalog.~~*)",
    "AEXPR_SIMILAR": "SIMILAR TO looks up ~ through search_path",
    "AEXPR_BETWEEN": "BETWEEN looks up >= and <= through search_path",
    "AEXPR_NOT_BETWEEN": "NOT BETWEEN looks up >= and <= through search_path",
    "AEXPR_BETWEEN_SYM": "BETWEEN SYMMETRIC looks up operators through search_path",
    "AEXPR_NOT_BETWEEN_SYM": "NOT BETWEEN SYMMETRIC looks up operators through search_path",
}


def _names(seq):
    return [s.sval for s in (seq or ()) if isinstance(s, ast.String)]


def _walk(node):
    """Every pglast node under node (depth first)."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, (list, tuple)):
            stack.extend(reversed(n))
        elif isinstance(n, ast.Node):
            yield n
            for attr in n:
                v = getattr(n, attr)
                if isinstance(v, (ast.Node, list, tuple)):
                    stack.append(v)


def check_tree(tree, ctes=()):
    """Violations in a parsed statement list, as sentences."""
    out = []
    local = set(ctes)
    for n in _walk(tree):
        if isinstance(n, ast.CommonTableExpr):
            local.add(n.ctename)
    for n in _walk(tree):
        if isinstance(n, ast.TypeName):
            names = _names(n.names)
            if len(names) == 1 and not n.pct_type:
                out.append(f"type {names[0]} without its schema")
        elif isinstance(n, ast.FuncCall):
            names = _names(n.funcname)
            if len(names) == 1:
                out.append(f"function {names[0]}() without its schema")
        elif isinstance(n, ast.A_Expr):
            kind = n.kind.name
            if kind in UNQUALIFIABLE:
                out.append(UNQUALIFIABLE[kind])
            elif len(_names(n.name)) == 1:
                out.append(f"operator {_names(n.name)[0]} without its schema "
                           f"(write OPERATOR(pg_catalog.{_names(n.name)[0]}))")
        elif isinstance(n, ast.SubLink) and n.subLinkType.name == "ANY_SUBLINK" and not n.operName:
            out.append("IN (SELECT ...) looks up = through search_path: "
                       "write OPERATOR(pg_catalog.=) ANY (SELECT ...)")
        elif isinstance(n, ast.SubLink) and n.operName and len(_names(n.operName)) == 1:
            out.append(f"operator {_names(n.operName)[0]} of a subquery without its schema "
                       "(IN (SELECT ...) too: write OPERATOR(pg_catalog.=) ANY (SELECT ...))")
        elif isinstance(n, ast.CaseExpr) and n.arg is not None:
            out.append("CASE x WHEN ... looks up = through search_path: write CASE WHEN x OPERATOR(pg_catalog.=) ...")
        elif isinstance(n, ast.CollateClause) and len(_names(n.collname)) == 1:
            out.append(f"collation {_names(n.collname)[0]} without its schema")
        elif isinstance(n, ast.SortBy) and n.useOp and len(_names(n.useOp)) == 1:
            out.append("ORDER BY ... USING an operator without its schema")
        elif isinstance(n, ast.RangeVar) and not n.schemaname and n.relname not in local:
            out.append(f"relation {n.relname} without its schema")
    return out


def check_sql(text):
    """Violations in one SQL text (a statement or several)."""
    try:
        tree = parse_sql(text)
    except ParseError as e:
        return [f"cannot be parsed, so cannot be checked ({e})"]
    return check_tree(tree)


def check_c(root=ROOT):
    """(file, line, problem, text) for every SQL text of src/ that fails."""
    bad = []
    for path, line, text in c_strings(root):
        if any(text.startswith(p) for p in PROSE):
            continue
        if BARE_CAST.search(text) and (looks_like_sql(text) or re.search(r"\$\d+::|\)::|'::", text)):
            bad.append((path, line, "a cast to a type without its schema (::name)", text))
    for path, line, text, sql in c_sql_texts(root):
        for problem in check_sql(printf_to_sql(sql)):
            bad.append((path, line, problem, text))
    return bad


# -- the install script -----------------------------------------------------

def _fragment(path, root):
    """A fragment of the scripts as the build joins it: its markers (run
    options, script files) written out by sql/run_options.awk, which reads
    the files from the tree's root, as the build does."""
    with open(path) as fh:
        text = fh.read()
    awk = os.path.join(root, "sql", "run_options.awk")
    if ("@RUN_OPTIONS" not in text and "@SCRIPT_FILE" not in text) or not os.path.exists(awk):
        return text
    return subprocess.run(["awk", "-f", awk, os.path.join(root, "src", "run_spec.h"),
                           os.path.join(root, "src", "run_options.h"), path],
                          check=True, capture_output=True, text=True, cwd=root).stdout


def install_script(root=ROOT):
    parts = []
    for sub in ("data", "code", "upgrade"):
        d = os.path.join(root, "sql", sub)
        if not os.path.isdir(d):
            continue
        files = sorted(os.path.join(top, f) for top, _, names in os.walk(d) for f in names)
        for f in files:
            if f.endswith(".sql"):
                # psql meta-commands (\echo ... \quit) are not SQL
                parts.append(re.sub(r"(?m)^\\.*$", "", _fragment(f, root)))
    return "\n".join(parts)


def _defelem(stmt, name):
    for opt in stmt.options or ():
        if isinstance(opt, ast.DefElem) and opt.defname == name:
            return opt.arg
    return None


def _function_path(stmt):
    """The SET search_path of a CREATE FUNCTION, as text, or None."""
    for opt in stmt.options or ():
        if isinstance(opt, ast.DefElem) and opt.defname == "set":
            vs = opt.arg
            if isinstance(vs, ast.VariableSetStmt) and vs.name == "search_path":
                vals = []
                for a in vs.args or ():
                    v = a.val
                    vals.append(v.sval if isinstance(v, ast.String) else str(v))
                return ", ".join(vals)
    return None


def _plpgsql_queries(fn):
    """The SQL texts of a PL/pgSQL function (as pglast's JSON gives them),
    and its variables' type names."""
    queries, types = [], []

    def visit(n):
        if isinstance(n, dict):
            for k, v in n.items():
                if k == "PLpgSQL_expr":
                    queries.append((v.get("query", ""), v.get("parseMode", 0)))
                elif k in ("PLpgSQL_var", "PLpgSQL_rec") and "lineno" not in v:
                    continue	# a parameter: its type was resolved by CREATE
                elif k == "PLpgSQL_type":
                    types.append(v.get("typname", ""))
                visit(v)
        elif isinstance(n, list):
            for v in n:
                visit(v)
    visit(fn)
    return queries, types


def _plpgsql_sql(query, mode):
    """A PL/pgSQL expression as a statement pglast can parse."""
    if mode in (2, 3, 4, 5):		# expression, assignment
        expr = query.split(":=", 1)[1] if mode >= 3 and ":=" in query else query
        return "SELECT " + expr
    return query


def check_install(root=ROOT):
    """(function, problem) for every function of the install script whose
    body could resolve a name through the caller's search_path."""
    bad = []
    for stmt, source in _statements(install_script(root)):
        if isinstance(stmt, ast.CreateFunctionStmt):
            name = ".".join(_names(stmt.funcname))
            bad += [(name, p) for p in check_function(stmt, source)]
    return bad


def check_function(stmt, source):
    """Problems of one CREATE FUNCTION (source: its whole text): its SET
    search_path (a function that can have one must), and its body."""
    lang = _defelem(stmt, "language")
    lang = lang.sval if isinstance(lang, ast.String) else "sql"
    if lang == "c" or lang == "internal":
        return []
    bad = []
    path = _function_path(stmt)
    if path is None and not stmt.is_procedure:
        bad.append(f"no SET search_path = {SAFE_PATH}")
    elif path is not None and path.replace(" ", "") != SAFE_PATH.replace(" ", ""):
        bad.append(f"SET search_path = {path}: must be exactly {SAFE_PATH}")
    body = _defelem(stmt, "as")
    text = _names(body)[0] if body else None
    if stmt.sql_body is not None:
        bad += check_tree(stmt.sql_body)
    elif lang == "sql":
        bad += check_sql(text)
    elif lang == "plpgsql":
        bad += check_plpgsql(source)
    else:
        bad.append(f"language {lang} cannot be checked")
    return bad


def _statements(script):
    """(statement node, its text) of every statement of a script."""
    for r in parse_sql(script):
        length = r.stmt_len or len(script) - r.stmt_location
        yield r.stmt, script[r.stmt_location:r.stmt_location + length]


def check_plpgsql(source):
    """source: the whole CREATE FUNCTION statement (parse_plpgsql needs it)."""
    bad = []
    # parameters and the return type were resolved when the script ran
    parsed = parse_plpgsql(source)
    queries, types = _plpgsql_queries(parsed)
    for t in types:
        if "." not in t and not t.startswith("pg_catalog"):
            bad.append(f"variable of type {t} without its schema")
    for q, mode in queries:
        for p in check_sql(_plpgsql_sql(q, mode)):
            bad.append(f"{p}: {' '.join(q.split())[:80]}")
        for text in _sql_constants(_plpgsql_sql(q, mode)):
            for p in check_dynamic(text):
                bad.append(f"{p}: in the SQL text {' '.join(text.split())[:60]}")
    return bad


# -- SQL built as text in a body, and the kit's scripts ---------------------

def first_parsing(build, nslots):
    """build(choice) for the first choice of PRINTF_STRINGS, one per slot,
    that makes parseable SQL (at most 4096 tried); else with "x" in each."""
    for choice in itertools.islice(itertools.product(PRINTF_STRINGS, repeat=nslots), 4096):
        sql = build(choice)
        try:
            parse_sql(sql)
            return sql
        except ParseError:
            continue
    return build(("x",) * nslots)


# format()'s conversions: %% and %[n$][-][width]{s,I,L}.
FORMAT = re.compile(r"%(?:%|(\d+\$)?-?\d*([sIL]))")


def format_to_sql(text):
    """A format() (or replace() of '%1$s') template as parseable SQL: %I a
    name, %L a literal, and each argument of %s the first of PRINTF_STRINGS
    that makes the whole text parse (the same for every %n$s of one n); a
    %s called, %s(...), is a routine its caller names with its schema (a
    regprocedure's text)."""
    text = re.sub(r"%(\d+\$)?s\(", "x.x(", text)
    slots, auto = [], itertools.count(1)
    for m in FORMAT.finditer(text):
        if m.group(0) != "%%":
            # format() numbers every conversion, %I and %L too
            n = int(m.group(1)[:-1]) if m.group(1) else next(auto)
            if m.group(2) == "s" and n not in slots:
                slots.append(n)

    def build(choice):
        fill, auto = dict(zip(slots, choice)), itertools.count(1)

        def one(m):
            if m.group(0) == "%%":
                return "%"
            n = int(m.group(1)[:-1]) if m.group(1) else next(auto)
            return {"I": "x", "L": "'x'"}.get(m.group(2)) or fill[n]
        return FORMAT.sub(one, text)
    return first_parsing(build, len(slots))


# A list of privileges ('INSERT, UPDATE'), as has_table_privilege() takes it.
PRIVILEGES = re.compile(r"^\s*[A-Z]+(?:\s*,\s*[A-Z]+)*\s*$")


def _sql_constants(sql):
    """The string constants of a statement that are SQL: those that open
    like a statement, and those that name pg_catalog (pieces of one)."""
    try:
        tree = parse_sql(sql)
    except ParseError:
        return []
    return [n.val.sval for n in _walk(tree) if isinstance(n, ast.A_Const) and isinstance(n.val, ast.String)
            and (looks_like_sql(n.val.sval) or "pg_catalog." in n.val.sval)
            and not n.val.sval.startswith(PROSE) and not PRIVILEGES.match(n.val.sval)]


def check_dynamic(text):
    """Problems of a SQL text a body builds: a template of statements (the
    functions it creates checked as the install script's are), or a piece
    of one, checked as an expression."""
    if not looks_like_sql(text):
        return check_sql("SELECT " + format_to_sql(text))
    sql = format_to_sql(text)
    try:
        stmts = list(_statements(sql))
    except ParseError as e:
        return [f"cannot be parsed, so cannot be checked ({e})"]
    bad = []
    for stmt, source in stmts:
        bad += check_tree(stmt)
        if isinstance(stmt, ast.CreateFunctionStmt):
            name = ".".join(_names(stmt.funcname))
            bad += [f"{name}(): {p}" for p in check_function(stmt, source)]
        elif isinstance(stmt, ast.DoStmt):
            bad += [f"DO block: {p}" for p in check_do(stmt)]
    return bad


def check_do(stmt):
    """A DO block's body, checked as a PL/pgSQL function's (parse_plpgsql
    needs a CREATE FUNCTION around it)."""
    args = {a.defname: a.arg for a in stmt.args if isinstance(a, ast.DefElem)}
    body, lang = args.get("as"), args.get("language")
    if lang is not None and lang.sval != "plpgsql":
        return [f"language {lang.sval} cannot be checked"]
    text = body.sval
    q = "$lint$"
    return check_plpgsql(f"CREATE FUNCTION pg_temp.lint_do() RETURNS pg_catalog.void LANGUAGE plpgsql "
                         f"AS {q}{text}{q}")


# White space and comments before a statement's first word.
SQL_SPACE = re.compile(r"(?:\s+|--[^\n]*)*")


def kit_scripts(root=ROOT):
    """(file, text) of the TPC-C kit's scripts, sql/tpcc/*.sql."""
    d = os.path.join(root, "sql", "tpcc")
    for f in sorted(os.listdir(d)) if os.path.isdir(d) else ():
        if f.endswith(".sql"):
            with open(os.path.join(d, f)) as fh:
                yield os.path.join("sql", "tpcc", f), fh.read()


def check_kit(root=ROOT):
    """(file, line, problem) for every SQL command of the kit's scripts that
    resolves a name through search_path."""
    bad = []
    for path, text in kit_scripts(root):
        sql = script_to_sql(text, keep_lines=True)
        try:
            parsed = parse_sql(sql)
        except ParseError as e:
            bad.append((path, 0, f"cannot be parsed, so cannot be checked ({e})"))
            continue
        for r in parsed:
            start = SQL_SPACE.match(sql, r.stmt_location).end()	# its first word
            bad += [(path, sql.count("\n", 0, start) + 1, p) for p in check_tree(r.stmt)]
    return bad


# -- names, for the look-alike test -----------------------------------------

def _names_in(tree, kind):
    """Type names (kind 'type', schema stripped) or relation names (kind
    'relation', CTE names left out) in a parsed tree."""
    out, ctes = set(), set()
    for n in _walk(tree):
        if isinstance(n, ast.CommonTableExpr):
            ctes.add(n.ctename)
    for n in _walk(tree):
        if kind == "type" and isinstance(n, ast.TypeName) and _names(n.names):
            out.add(_names(n.names)[-1])
        elif kind == "relation" and isinstance(n, ast.RangeVar) and n.relname not in ctes:
            out.add(n.relname)
    return out


def _sql_texts(root=ROOT):
    """Every parseable SQL text of the extension: src/ strings, the kit's
    scripts, the install script's statements, and the bodies of its SQL
    and PL/pgSQL functions with the SQL they build as text."""
    for _, _, _, sql in c_sql_texts(root):
        yield printf_to_sql(sql), None
    for _, text in kit_scripts(root):
        yield script_to_sql(text), None
    for stmt, source in _statements(install_script(root)):
        yield None, stmt
        if isinstance(stmt, ast.CreateFunctionStmt):
            yield from _body_texts(stmt, source)


def _body_texts(stmt, source):
    """(text, None) for the SQL of a function's body, the statements it
    builds as text and the bodies of the functions those create."""
    body = _defelem(stmt, "as")
    lang = _defelem(stmt, "language")
    lang = lang.sval if isinstance(lang, ast.String) else "sql"
    if body is None or lang not in ("sql", "plpgsql"):
        return
    if lang == "sql":
        yield _names(body)[0], None
        return
    queries, types = _plpgsql_queries(parse_plpgsql(source))
    for t in types:
        yield f"SELECT NULL::{t}", None
    for q, mode in queries:
        yield _plpgsql_sql(q, mode), None
        for text in _sql_constants(_plpgsql_sql(q, mode)):
            if not looks_like_sql(text):
                yield "SELECT " + format_to_sql(text), None
                continue
            try:
                made = list(_statements(format_to_sql(text)))
            except ParseError:
                continue
            for inner, inner_source in made:
                yield None, inner
                if isinstance(inner, ast.CreateFunctionStmt):
                    yield from _body_texts(inner, inner_source)


def _collect(kind, root=ROOT):
    found = set()
    for text, tree in _sql_texts(root):
        if tree is None:
            try:
                tree = parse_sql(text)
            except ParseError:
                continue
        found |= _names_in(tree, kind)
    return found


def type_names(root=ROOT):
    """Every type name that the extension's SQL texts and install script
    use, schema stripped: what a look-alike domain could try to capture."""
    found = _collect("type", root)
    for _, _, text in c_strings(root):
        found |= {m.group(1) for m in re.finditer(r"::\s*(?:\w+\s*\.\s*)?\"?(\w+)", text)}
    return sorted(t for t in found if t)


def relation_names(root=ROOT):
    """Every relation name that the extension's SQL uses, schema stripped."""
    return sorted(r for r in _collect("relation", root) if r and r != "x")


def main(argv):
    if "--types" in argv:
        print("\n".join(type_names()))
        return 0
    if "--relations" in argv:
        print("\n".join(relation_names()))
        return 0
    bad_c = check_c()
    bad_sql = check_install()
    bad_kit = check_kit()
    for path, line, problem, text in bad_c:
        print(f"{path}:{line}: {problem}\n    {' '.join(text.split())[:160]}")
    for name, problem in bad_sql:
        print(f"sql/: {name}: {problem}")
    for path, line, problem in bad_kit:
        print(f"{path}:{line}: {problem}")
    n = len(bad_c) + len(bad_sql) + len(bad_kit)
    print(f"{n} name(s) resolved through search_path" if n else
          "every name in the extension's SQL is qualified with its schema")
    return 1 if n else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
