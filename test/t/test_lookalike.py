"""Look-alike functions, aggregates and operators planted in public (the
CVE-2018-1058 / CVE-2020-14350 attack): same names and argument types as
what the extension uses, and "better matching" cross-type overloads.  Each
look-alike writes a WARNING naming itself to the server log.  With public
put *before* pg_catalog in search_path (for the session, and for the
database, which every worker inherits), the extension is created and every
function is exercised; the log must show that no look-alike ran."""
import re
import time

import pytest

from conftest import Cluster, PG_MAJOR

# (name, argument types, return type); SETOF returns are marked with "*"
FUNCS = [
    ("now", [], "timestamptz"), ("clock_timestamp", [], "timestamptz"),
    ("current_database", [], "name"), ("current_setting", ["text"], "text"),
    ("current_setting", ["text", "bool"], "text"), ("set_config", ["text", "text", "bool"], "text"),
    ("pg_prewarm", ["regclass", "text", "text", "bigint", "bigint"], "bigint"),
    ("pg_prewarm", ["regclass", "text", "text"], "bigint"), ("pg_prewarm", ["regclass"], "bigint"),
    ("jsonb_typeof", ["jsonb"], "text"), ("jsonb_build_object", ["text", "text"], "jsonb"),
    ("to_jsonb", ["anyelement"], "jsonb"), ("jsonb_array_elements", ["jsonb"], "*jsonb"),
    ("pg_size_bytes", ["text"], "bigint"), ("pg_size_pretty", ["bigint"], "text"),
    ("pg_relation_size", ["regclass"], "bigint"), ("pg_relation_size", ["regclass", "text"], "bigint"),
    ("pg_database_size", ["oid"], "bigint"), ("pg_stat_clear_snapshot", [], "void"),
    ("nextval", ["regclass"], "bigint"), ("pg_has_role", ["oid", "text"], "bool"),
    ("pg_has_role", ["name", "text"], "bool"), ("has_database_privilege", ["oid", "text"], "bool"),
    ("has_table_privilege", ["oid", "text"], "bool"), ("lower", ["text"], "text"),
    ("round", ["numeric"], "numeric"), ("round", ["numeric", "int"], "numeric"),
    ("format", ["text", "text"], "text"), ("format", ["text", "text", "text"], "text"),
    ("pg_postmaster_start_time", [], "timestamptz"), ("pg_backend_pid", [], "int"),
    ("pg_current_wal_lsn", [], "pg_lsn"), ("pg_wal_lsn_diff", ["pg_lsn", "pg_lsn"], "numeric"),
    ("generate_series", ["int", "int"], "*int"), ("generate_series", ["bigint", "bigint"], "*bigint"),
    ("generate_series", ["int", "bigint"], "*bigint"), ("unnest", ["anyarray"], "*anyelement"),
    ("to_regprocedure", ["text"], "regprocedure"), ("to_regclass", ["text"], "regclass"),
    ("random", [], "float8"), ("pg_sleep", ["float8"], "void"), ("version", [], "text"),
    ("pg_reload_conf", [], "bool"), ("left", ["text", "int"], "text"), ("length", ["text"], "int"),
    ("quote_ident", ["text"], "text"), ("string_to_array", ["text", "text"], "text[]"),
    ("row_number", [], "bigint"), ("pg_stat_get_db_blocks_hit", ["oid"], "bigint"),
    ("int8", ["numeric"], "bigint"), ("float8", ["numeric"], "float8"), ("text", ["regclass"], "text"),
    # the TPC-C kit's
    ("floor", ["float8"], "float8"), ("btrim", ["text"], "text"), ("replace", ["text", "text", "text"], "text"),
    ("encode", ["bytea", "text"], "text"), ("substr", ["bytea", "int", "int"], "bytea"),
    ("lpad", ["text", "int", "text"], "text"), ("overlay", ["text", "text", "int", "int"], "text"),
]
OPS = [  # (operator, left, right, result)
    ("=", "int", "int", "bool"), ("=", "bigint", "bigint", "bool"), ("=", "text", "text", "bool"),
    ("=", "oid", "oid", "bool"), ("=", "name", "name", "bool"), ("=", "name", "text", "bool"),
    ("=", "bigint", "int", "bool"), ("=", "float8", "int", "bool"), ("=", "float8", "float8", "bool"),
    ("=", "numeric", "int", "bool"), ("=", "regclass", "regclass", "bool"), ("=", "char", "char", "bool"),
    ("=", "jsonb", "jsonb", "bool"), ("<>", "text", "text", "bool"), ("<>", "int", "int", "bool"),
    ("<", "numeric", "numeric", "bool"), ("<", "bigint", "bigint", "bool"), ("<", "float8", "int", "bool"),
    (">", "bigint", "bigint", "bool"), (">", "int", "int", "bool"), (">", "bigint", "int", "bool"),
    (">=", "numeric", "numeric", "bool"), (">=", "bigint", "int", "bool"), ("<=", "int", "int", "bool"),
    ("+", "int", "int", "int"), ("+", "bigint", "bigint", "bigint"), ("+", "bigint", "int", "bigint"),
    ("-", "int", "int", "int"), ("-", "bigint", "bigint", "bigint"), ("*", "numeric", "numeric", "numeric"),
    ("/", "int", "int", "int"), ("/", "bigint", "float8", "float8"), ("/", "float8", "float8", "float8"),
    ("/", "numeric", "numeric", "numeric"), ("||", "text", "text", "text"), ("~", "text", "text", "bool"),
    ("~~", "text", "text", "bool"), ("->>", "jsonb", "text", "text"), ("->", "jsonb", "text", "jsonb"),
    ("@>", "jsonb", "jsonb", "bool"), ("?", "jsonb", "text", "bool"),
    # the TPC-C kit's
    ("<", "int", "int", "bool"), (">=", "int", "int", "bool"),
    ("<>", "numeric", "numeric", "bool"), ("<>", "int", "bigint", "bool"), ("+", "numeric", "numeric", "numeric"),
    ("-", "numeric", "numeric", "numeric"), ("%", "int", "int", "int"), ("|", "int", "int", "int"),
    ("*", "float8", "int", "float8"), ("*", "int", "numeric", "numeric"),
]
AGGS = [  # (name, argument type, state type)
    ("count", "anyelement", "bigint"), ("sum", "bigint", "bigint"), ("sum", "int", "bigint"),
    ("sum", "float8", "float8"), ("sum", "numeric", "numeric"), ("max", "bigint", "bigint"),
    ("min", "bigint", "bigint"), ("max", "float8", "float8"), ("avg", "float8", "float8"),
    ("bool_and", "bool", "bool"), ("string_agg", "text", "text"), ("max", "int", "int"), ("min", "int", "int"),
]


def routine_statements(prefix, fire):
    """CREATE statements of the look-alike functions, operators and
    aggregates, in public; fire(what) is the PL/pgSQL statement each runs
    first, what naming it ("function now()", "operator int = int", ...)."""
    stmts = []
    for name, args, ret in FUNCS:
        setof = ret.startswith("*")
        ret = ret.lstrip("*")
        params = ", ".join(f"a{j} {t}" for j, t in enumerate(args))
        body = fire(f"function {name}({', '.join(args)})") + (
            " RETURN;" if setof or ret == "void" else " RETURN NULL;")
        stmts.append(f"CREATE FUNCTION public.{name}({params}) RETURNS {'SETOF ' if setof else ''}{ret} "
                     f"LANGUAGE plpgsql AS $t$ BEGIN {body} END $t$")
    for i, (op, left, right, ret) in enumerate(OPS):
        stmts.append(f"CREATE FUNCTION public.{prefix}_op_{i}(a {left}, b {right}) RETURNS {ret} "
                     f"LANGUAGE plpgsql AS $t$ BEGIN {fire(f'operator {left} {op} {right}')} "
                     f"RETURN NULL; END $t$")
        stmts.append(f"CREATE OPERATOR public.{op} (LEFTARG = {left}, RIGHTARG = {right}, "
                     f"FUNCTION = public.{prefix}_op_{i})")
    for i, (name, arg, state) in enumerate(AGGS):
        extra = ", sep text" if name == "string_agg" else ""
        stmts.append(f"CREATE FUNCTION public.{prefix}_agg_{i}(s {state}, v {arg}{extra}) RETURNS {state} "
                     f"LANGUAGE plpgsql AS $t$ BEGIN {fire(f'aggregate {name}({arg})')} RETURN s; END $t$")
        stmts.append(f"CREATE AGGREGATE public.{name}({arg}{', text' if extra else ''}) "
                     f"(SFUNC = public.{prefix}_agg_{i}, STYPE = {state})")
    return stmts


def plant(c):
    stmts = ["CREATE SCHEMA prewarm", "CREATE EXTENSION pg_prewarm SCHEMA prewarm"]
    stmts += routine_statements(
        "trojan", lambda what: f"RAISE WARNING 'TROJAN {what.replace('%', '%%')} called by %', current_user;")
    with c.connect() as conn:
        for s in stmts:
            conn.execute(s)
    return len(FUNCS) + len(OPS) + len(AGGS)


def trojans(c):
    return sorted(set(re.findall(r"TROJAN .*", c.log())))


@pytest.fixture(scope="module")
def lab():
    c = Cluster("lookalike", {"shared_buffers": "32MB", "max_worker_processes": "16",
                              "pgbench_lab.cache_min_size": "0"})
    try:  # a failed set-up must not leave a server running
        c.start()
        c.run_client("pgbench", "-i", "-s", "1", "-q", "postgres")
        planted = plant(c)
        assert planted >= 100
        # the look-alikes work: a session that resolves names through public first calls them
        with c.connect() as conn:
            conn.execute("SET search_path = public, pg_catalog")
            conn.execute("SELECT now(), 1 = 1")
        found = trojans(c)
        assert any("now()" in t for t in found) and any("int = int" in t for t in found), found
        c.mark = len(c.log())
        # made here, so that every test can run alone; the first test
        # judges what the creation called
        with c.connect() as conn:
            conn.execute("SET search_path = public, pg_catalog")
            conn.execute("CREATE EXTENSION pgbench_lab")
        c.created = new_trojans(c)
        c.sql("ALTER DATABASE postgres SET search_path = public, pg_catalog")
        yield c
    finally:
        c.destroy()


def safe(c, query, params=None):
    """The test's own checks resolve names in pg_catalog only."""
    with c.connect(options="-c search_path=pg_catalog") as conn:
        return conn.execute(query, params).fetchone()[0]


def safe_poll(c, query, params=None, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if safe(c, query, params) is True:
            return
        time.sleep(0.05)
    raise AssertionError(f"condition not met: {query}")


def new_trojans(c):
    """Look-alike calls since the extension was created, each with the log
    lines that say where it came from (CONTEXT, STATEMENT)."""
    lines = c.log()[c.mark:].splitlines()
    return sorted(set(" | ".join(lines[i:i + 3])[lines[i].index("TROJAN"):]
                      for i, line in enumerate(lines) if "TROJAN" in line))


def test_create_extension_calls_no_lookalike(lab):
    """CREATE EXTENSION (in the fixture) with public first in search_path."""
    assert lab.created == []


CALLS = [
    "SELECT count(*) FROM pgbench_lab.system_info()",
    "SELECT count(*) FROM pgbench_lab.recommend(ram => '4GB', cpus => 2, storage => 'ssd')",
    "SELECT count(*) FROM pgbench_lab.recommend()",
    "SELECT count(*) FROM pgbench_lab.memory_budget()",
    "SELECT count(*) FROM pgbench_lab.recommend_sql(ram => '64GB', cpus => 16)",
    "SELECT count(*) FROM pgbench_lab.init_sql(1)",
    "SELECT count(*) FROM pgbench_lab.cache_status('pgbench_accounts')",
    "SELECT count(*) FROM pgbench_lab.cache_status()",
    "SELECT count(*) FROM pgbench_lab.warm('pgbench_accounts')",
    "SELECT count(*) FROM pgbench_lab.warm('pgbench_branches', 'read')",
    "SELECT pgbench_lab.cache_snapshot('lookalike')",
    "SELECT count(*) FROM pgbench_lab.fsync_test(0.05)",
    "SELECT count(*) FROM pgbench_lab.io_test('1MB', 0.05)",
    "SELECT count(*) FROM pgbench_lab.storage_class(5000)",
    "SELECT count(*) FROM pgbench_lab.storage_latest",
    "SELECT pgbench_lab.start('tpcb-like', clients => 2, transactions => 20, "
    "settings => '{\"work_mem\": \"8MB\"}', random_seed => 7)",
    "WAIT",
    "CALL pgbench_lab.run('select-only', transactions => 20, label => 'x')",
    "CALL pgbench_lab.run('simple-update', duration => '1 s', max_tries => 2)",
    # the built-ins' pgbench text, bare operators, where the lab pins search_path
    "CALL pgbench_lab.run('tpcb-like', transactions => 10, query_mode => 'simple')",
    "CALL pgbench_lab.run('tpcb-like', transactions => 10, query_mode => 'extended', via => 'libpq')",
    "CALL pgbench_lab.run('select-only', transactions => 10, query_mode => 'simple', via => 'libpq')",
    "SELECT pgbench_lab.cancel((SELECT pg_catalog.max(run_id) FROM pgbench_lab.runs))",
    "SELECT count(*) FROM pgbench_lab_internal.run_live((SELECT pg_catalog.max(run_id) FROM pgbench_lab.runs))",
    "SELECT count(*) FROM pgbench_lab.active_runs",
    "SELECT count(*) FROM pgbench_lab.runs",
]


def test_no_function_calls_a_lookalike(lab):
    """Every function, as a superuser whose search_path puts public first;
    the workers inherit the database's search_path (also public first)."""
    with lab.connect() as conn:
        assert conn.execute("SHOW search_path").fetchone()[0] == "public, pg_catalog"
        for sql in CALLS:
            if sql == "WAIT":
                last = conn.execute("SELECT pg_catalog.max(run_id) FROM pgbench_lab.runs").fetchone()[0]
                assert conn.execute("CALL pgbench_lab.wait(%s)", (last,)).fetchone()[1] == "done"
            else:
                conn.execute(sql)
        if PG_MAJOR >= 18:
            conn.execute("SELECT count(*) FROM pgbench_lab.make_cold('pgbench_accounts')")
        # init into its own schema, first in search_path
        conn.execute("CREATE SCHEMA lab2")
        conn.execute("SET search_path = lab2, public, pg_catalog")
        conn.execute("SELECT count(*) FROM pgbench_lab.init(1)")
        conn.execute("CALL pgbench_lab.run('tpcb-like', transactions => 10)")
        # init with a target: the target's session starts with public first too
        conn.execute("CREATE SCHEMA lab3")
        conn.execute("SELECT count(*) FROM pgbench_lab.init(1, target => %s)",
                     (f"host=127.0.0.1 port={lab.port} dbname=postgres user=postgres "
                      "options='-c search_path=lab3,public,pg_catalog'",))
    assert safe(lab, "SELECT count(*) FROM pgbench_lab.runs WHERE status = 'done'") >= 4
    assert new_trojans(lab) == []


def test_reaping_a_stale_run_calls_no_lookalike(lab):
    """A run cut by an immediate shutdown is marked aborted by the next call
    that looks at runs; that runs as the extension's owner, in the caller's
    session and search_path."""
    # the run of an unprivileged role, whose own wait() reaps it (as the
    # extension's owner) with public first in its search_path
    lab.sql("CREATE ROLE mallory LOGIN")
    lab.sql("GRANT SELECT ON pgbench_accounts, pgbench_branches TO mallory")
    lab.sql("GRANT EXECUTE ON FUNCTION pgbench_lab.start TO mallory")
    run_id = lab.scalar("SELECT pgbench_lab.start('select-only', duration => '60 s')", user="mallory")
    safe_poll(lab, "SELECT count(*) >= 1 FROM pgbench_lab.run_progress WHERE run_id = %s", (run_id,))
    lab.stop("immediate")
    lab.start()
    with lab.connect(user="mallory") as conn:
        assert conn.execute("SHOW search_path").fetchone()[0] == "public, pg_catalog"
        row = conn.execute("CALL pgbench_lab.wait(%s)", (run_id,)).fetchone()
    assert row[1] == "aborted" and row[2] > 0, row
    assert new_trojans(lab) == []
