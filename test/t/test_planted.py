"""Planted look-alikes: no object that a role plants ever runs with rights
other than its planter's, whoever calls the extension.

Names in SQL are looked up through search_path, and for types and
relations the session's temporary schema comes *first* unless it is named
last.  A domain's CHECK runs code, and so does a view's expression.  So the
attacks are:

- a role with no grants (or a granted one) creates, in pg_temp, a domain
  named like every type the extension's SQL uses (float8, oid, int4, ...),
  and a view named like every relation it uses, each of whose CHECK or
  expression calls a function that tries to write a server file; then calls
  every function and procedure of the extension, with orphaned runs present
  (reaping them is done with the extension owner's rights);
- a database owner plants the same domains and views in public, plus the
  look-alike functions, operators and aggregates of test_lookalike, and
  puts public first in the database's search_path; then a superuser calls
  every function and procedure there.

The type and relation names come from the sources themselves
(test/lint/sqlnames.py), not from a list kept by hand.  A server file
written by a planted function means it ran as a superuser (or the
extension's owner); a WARNING in the log means it ran at all.  Both must be
absent.
"""
import os
import re
import sys
import time

import psycopg
import pytest

from conftest import Cluster, PG_MAJOR, fired_dir
from test_lookalike import AGGS, FUNCS, OPS, routine_statements

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lint"))
import sqlnames  # noqa: E402

DB = "lab"
# Keywords the grammar maps to pg_catalog types by itself.
KEYWORD_TYPES = {"bigint": "int8", "integer": "int4", "int": "int4", "smallint": "int2",
                 "boolean": "bool", "real": "float4", "double precision": "float8",
                 "numeric": "numeric", "decimal": "numeric", "interval": "interval"}


def fire_function(schema, outdir, once=False):
    """The function every planted object calls: a WARNING (kept in the log,
    whatever rolls back) and a server file that only a superuser can write;
    with once, once a session and object (a look-alike = runs for every row
    a scan reads)."""
    seen = """
DECLARE
  seen pg_catalog.text := 'planted.f' OPERATOR(pg_catalog.||) pg_catalog.md5(what);
BEGIN
  IF pg_catalog.current_setting(seen, true) OPERATOR(pg_catalog.=) 'yes' THEN
    RETURN true;
  END IF;
  PERFORM pg_catalog.set_config(seen, 'yes', false);""" if once else "\nBEGIN"
    return f"""
CREATE FUNCTION {schema}.planted_fire(what pg_catalog.text) RETURNS pg_catalog.bool
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $f${seen}
  RAISE WARNING 'PLANTED % ran as % (session user %)', what, current_user, session_user;
  BEGIN
    EXECUTE pg_catalog.format('COPY (SELECT %L) TO %L', what,
      {outdir!r} OPERATOR(pg_catalog.||) '/fired-'
      OPERATOR(pg_catalog.||) pg_catalog.md5(pg_catalog.random()::pg_catalog.text));
  EXCEPTION WHEN insufficient_privilege THEN NULL;
  END;
  RETURN true;
END $f$"""


def plan_types(conn):
    """(name, base type) for every type name the extension's SQL uses that a
    domain can stand in for."""
    out = []
    for name in sorted({t.strip() for t in sqlnames.type_names()}):
        base = KEYWORD_TYPES.get(name, name)
        row = conn.execute(
            "SELECT t.typtype, t.typnamespace::pg_catalog.regnamespace::pg_catalog.text "
            "FROM pg_catalog.pg_type t WHERE t.typname OPERATOR(pg_catalog.=) %s "
            "AND t.typnamespace OPERATOR(pg_catalog.=) ANY (ARRAY['pg_catalog'::pg_catalog.regnamespace, "
            "'pgbench_lab'::pg_catalog.regnamespace, 'pgbench_lab_internal'::pg_catalog.regnamespace])", (base,)).fetchone()
        if row is None or row[0] == "p":
            continue			# a pseudo-type cannot be a domain's base
        if row[0] == "c":
            continue			# a table's row type: planted as a view instead
        out.append((name, f'{row[1]}."{base}"'))	# the extension's own types are in its schema
    return out


def plan_views(conn):
    """(name, real relation) for every relation name the extension's SQL
    uses, other than pgbench's own tables (those are the caller's to
    choose)."""
    out = []
    for name in sorted(sqlnames.relation_names()):
        if name.startswith("pgbench_") and not name.startswith("pgbench_lab"):
            continue
        # the view has the real relation's columns (but pseudo-typed ones)
        real = conn.execute(
            "SELECT c.oid::pg_catalog.regclass::pg_catalog.text, pg_catalog.string_agg("
            "  pg_catalog.quote_ident(a.attname), ', ' ORDER BY a.attnum) "
            "FROM pg_catalog.pg_class c JOIN pg_catalog.pg_attribute a "
            "  ON a.attrelid OPERATOR(pg_catalog.=) c.oid AND a.attnum OPERATOR(pg_catalog.>) 0 "
            "  AND NOT a.attisdropped JOIN pg_catalog.pg_type t ON t.oid OPERATOR(pg_catalog.=) a.atttypid "
            "  AND t.typtype OPERATOR(pg_catalog.<>) 'p' "
            "WHERE c.relname OPERATOR(pg_catalog.=) %s AND c.relnamespace OPERATOR(pg_catalog.=) "
            "ANY (ARRAY['pg_catalog'::pg_catalog.regnamespace, 'pgbench_lab'::pg_catalog.regnamespace, "
            "'pgbench_lab_internal'::pg_catalog.regnamespace]) "
            "GROUP BY c.oid", (name,)).fetchone()
        if real:
            out.append((name, real[0], real[1]))
    return out


def plant_names(conn, schema, types, views):
    """Domains and views named like the extension's types and relations."""
    n = 0
    for name, base in types:
        conn.execute(f'CREATE DOMAIN {schema}."{name}" AS {base} '
                     f"CHECK ({schema}.planted_fire('domain {schema}.{name}'))")
        n += 1
    for name, real, columns in views:
        try:
            conn.execute(f'CREATE VIEW {schema}."{name}" AS SELECT {columns} FROM {real} '
                         f"WHERE {schema}.planted_fire('view {schema}.{name}')")
            n += 1
        except psycopg.errors.InsufficientPrivilege:
            pass				# the planter cannot even name the relation
    return n


def plant_routines(conn):
    """test_lookalike's functions, operators and aggregates, in public, each
    calling public.planted_fire."""
    for stmt in routine_statements("planted", lambda what: f"PERFORM public.planted_fire('{what}');"):
        conn.execute(stmt)
    return len(FUNCS) + len(OPS) + len(AGGS)


# -- calls ----------------------------------------------------------------

# A value for an argument of each type, when no call is given below.
ARG_BY_TYPE = {
    "text": "'x'", "integer": "1", "bigint": "{run}", "numeric": "0.05",
    "double precision": "1", "boolean": "false", "interval": "'1 s'",
    "jsonb": "'{{}}'", "regclass": "'pgbench_branches'", "regrole": "'postgres'",
    "jsonb[]": "ARRAY['{{}}']::pg_catalog.jsonb[]", "integer[]": "'{{1}}'", "bigint[]": "'{{{run}}}'",
    "double precision[]": "'{{1,2}}'", "regclass[]": "'{{pgbench_branches}}'",
    "pgbench_lab.runs": "(SELECT r FROM pgbench_lab.runs r WHERE r.run_id OPERATOR(pg_catalog.=) {run})",
    "pgbench_lab.experiments": "(SELECT e FROM pgbench_lab.experiments e LIMIT 1)",
}

# Calls that do the function's real work; {run} is a finished run's id,
# {exp} an experiment's.
CALLS = {
    "start": ["SELECT pgbench_lab.start('select-only', clients => 1, transactions => 5)",
              "SELECT pgbench_lab.start('tpcb-like', clients => 1, transactions => 5, "
              "settings => '{{\"work_mem\": \"8MB\"}}', via => 'libpq')"],
    "run": ["CALL pgbench_lab.run('simple-update', clients => 1, transactions => 5)",
            # the built-in scripts by name, run by the interpreter as text
            "CALL pgbench_lab.run(scripts => '{{tpcb-like, select-only}}', clients => 1, transactions => 5)",
            "CALL pgbench_lab.run(scripts => '{{simple-update}}', clients => 1, transactions => 5, "
            "via => 'libpq')",
            # the built-ins in every query mode: pgbench's text on the sessions
            # whose search_path the lab pins, in the server and over libpq
            "CALL pgbench_lab.run('tpcb-like', clients => 1, transactions => 5, query_mode => 'simple')",
            "CALL pgbench_lab.run('simple-update', clients => 1, transactions => 5, "
            "query_mode => 'extended', via => 'libpq')",
            "CALL pgbench_lab.run('select-only', clients => 1, transactions => 5, "
            "query_mode => 'simple', target => '{target}')",
            "CALL pgbench_lab.run('tpcb-like', clients => 1, transactions => 5, "
            "query_mode => 'extended', target => '{target}')"],
    "wait": ["CALL pgbench_lab.wait(-1)", "CALL pgbench_lab.wait({run})"],
    "cancel": ["SELECT pgbench_lab.cancel({run})"],
    "run_live": ["SELECT * FROM pgbench_lab_internal.run_live({run})"],
    "connection_cost": ["CALL pgbench_lab.connection_cost('select-only', 1, '1 s')"],
    "sweep": ["CALL pgbench_lab.sweep('select-only', '{{1}}', '1 s')"],
    "compare_settings": ["CALL pgbench_lab.compare_settings('select-only', ARRAY['{{}}', "
                         "'{{\"work_mem\": \"8MB\"}}']::pg_catalog.jsonb[], 1, '1 s', 1)"],
    "cold_vs_warm": ["CALL pgbench_lab.cold_vs_warm('select-only', 1, '1 s')"],
    "latency_curve": ["CALL pgbench_lab.latency_curve('select-only', 1, '1 s', rates => '{{50}}', runs => 1, repeats => 0)"],
    "validate_recommendation": ["CALL pgbench_lab.validate_recommendation('select-only', 1, '1 s', 1)"],
    "tune": ["CALL pgbench_lab.tune('select-only', knobs => '{{jit}}', levels => '{{session}}', budget => '12 s', "
             "duration => '0.2 s', confidence => 0.75, smallest_effect => 0.5)"],
    # into a schema of its own (init replaces only tables it made), last
    "init": ["SET search_path = lab2, public, pg_catalog", "SELECT * FROM pgbench_lab.init(1)"],
    "init_sql": ["SELECT * FROM pgbench_lab.init_sql(1)"],
    "recommend": ["SELECT * FROM pgbench_lab.recommend()",
                  "SELECT * FROM pgbench_lab.recommend(ram => '4GB', cpus => 2, storage => 'ssd')"],
    "recommend_sql": ["SELECT * FROM pgbench_lab.recommend_sql(ram => '64GB', cpus => 16)"],
    "memory_budget": ["SELECT * FROM pgbench_lab.memory_budget()"],
    "cache_status": ["SELECT * FROM pgbench_lab.cache_status('pgbench_accounts')",
                     "SELECT * FROM pgbench_lab.cache_status()"],
    "make_cold": ["SELECT * FROM pgbench_lab.make_cold('pgbench_branches')"],
    "warm": ["SELECT * FROM pgbench_lab.warm('pgbench_branches')",
             "SELECT * FROM pgbench_lab.warm('pgbench_branches', 'read')"],
    "cache_snapshot": ["SELECT pgbench_lab.cache_snapshot('planted')"],
    "fsync_test": ["SELECT * FROM pgbench_lab.fsync_test(0.05)"],
    "io_test": ["SELECT * FROM pgbench_lab.io_test('1MB', 0.05)"],
    "storage_class": ["SELECT * FROM pgbench_lab.storage_class(5000)"],
    "import": ["SELECT pgbench_lab.import(pgbench_lab.export('{{{run}}}'))"],
    "export": ["SELECT pgbench_lab.export('{{{run}}}')"],
    "compare": ["SELECT * FROM pgbench_lab.compare('{{{run},{run}}}')"],
    "plot": ["SELECT pgbench_lab.plot('{{{run}}}')", "SELECT pgbench_lab.plot('{{{exp}}}')"],
    "report": ["SELECT pgbench_lab.report({run})", "SELECT pgbench_lab.report({exp})"],
    "record": ["SELECT pgbench_lab_internal.record('import', pgbench_lab.export('{{{run}}}'))"],
}

# What the tables and views of the extension are read with.
READS = ["runs", "run_progress", "run_latency", "active_runs", "experiments",
         "storage_latest", "cache_snapshots"]

# Calls a superuser must get through (the real work happened).
MUST_SUCCEED = ["start", "run", "wait", "sweep", "compare_settings", "connection_cost",
                "cold_vs_warm", "latency_curve", "validate_recommendation", "tune", "import", "export", "report", "plot", "compare", "init",
                "cache_status", "warm", "recommend", "fsync_test", "io_test"]


def routines(conn):
    """(name, kind, argument types, number of defaults) of every function
    and procedure of the extension."""
    return conn.execute(
        "SELECT n.nspname OPERATOR(pg_catalog.||) '.' OPERATOR(pg_catalog.||) p.proname, p.prokind, "
        "  pg_catalog.array_to_string(ARRAY("
        "  SELECT pg_catalog.format_type(t, NULL) FROM pg_catalog.unnest(p.proargtypes) "
        "  WITH ORDINALITY AS a(t, n) ORDER BY n), ','), p.pronargs, p.pronargdefaults "
        "FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) p.pronamespace "
        "WHERE n.nspname OPERATOR(pg_catalog.=) ANY (ARRAY['pgbench_lab', 'pgbench_lab_internal']) "
        "ORDER BY 1").fetchall()


def generic_call(name, kind, argtypes, nargs, ndefaults):
    need = [t for t in argtypes.split(",") if t][:nargs - ndefaults]
    args = ", ".join(ARG_BY_TYPE.get(t, "NULL") for t in need)
    if kind == "p":
        return f"CALL {name}({args})"
    return f"SELECT * FROM {name}({args})"


def all_calls(conn):
    """Every routine's calls, destructive ones (init) last."""
    calls, seen = [], set()
    for qualified, kind, argtypes, nargs, ndefaults in routines(conn):
        name = qualified.split(".")[1]		# unique across the two schemas
        if name in seen:
            continue
        seen.add(name)
        for sql in CALLS.get(name, [generic_call(qualified, kind, argtypes, nargs, ndefaults)]):
            calls.append((name, sql))
    calls += [(f"read {v}", f"SELECT * FROM pgbench_lab.{v}") for v in READS]
    return sorted(calls, key=lambda c: c[0] == "init")


def call_everything(lab, conn):
    """Call every function and procedure; returns {name: set of SQLSTATEs}
    ('00000' when a call succeeded)."""
    outcome = {}
    conn.execute("SET statement_timeout = '120s'")
    ids = ids_now(lab)
    for name, sql in all_calls(conn):
        try:
            cur = conn.execute(sql.format(**ids))
            if cur.description:
                cur.fetchall()
            state = "00000"
        except psycopg.Error as e:
            state = e.sqlstate or "?"
        if not sql.startswith("SET "):
            outcome.setdefault(name, set()).add(state)
    return outcome


def ids_now(lab):
    """A finished run and an experiment, read safely (as the superuser, names
    in pg_catalog only)."""
    with lab.connect(DB, options="-c search_path=pg_catalog") as conn:
        run = conn.execute("SELECT pg_catalog.max(run_id) FROM pgbench_lab.runs "
                           "WHERE status OPERATOR(pg_catalog.=) 'done'").fetchone()[0]
        exp = conn.execute("SELECT pg_catalog.max(experiment_id) FROM pgbench_lab.experiments").fetchone()[0]
    return {"run": run or 1, "exp": exp or 1,
            "target": f"host=127.0.0.1 port={lab.port} dbname={DB} user=postgres"}


def safe(lab, query, params=None):
    """The test's own reads: as the superuser, names in pg_catalog only."""
    with lab.connect(DB, options="-c search_path=pg_catalog") as conn:
        cur = conn.execute(query, params)
        return cur.fetchall() if cur.description else []


def poll_safe(lab, query, params=None, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if safe(lab, query, params)[0][0] is True:
            return
        time.sleep(0.05)
    raise AssertionError(f"condition not met in {timeout}s: {query}")


def statuses(lab, ids):
    return [s for (s,) in safe(lab, "SELECT status FROM pgbench_lab.runs WHERE run_id "
                               "OPERATOR(pg_catalog.=) ANY (%s) ORDER BY run_id", (ids,))]


# -- orphans --------------------------------------------------------------

def make_orphans(lab, n):
    """n runs whose coordinator was terminated mid-run: their rows stay
    'running' until something reaps them (as the extension's owner)."""
    ids, pids = [], []
    # pgbench's tables are in public; pg_catalog stays first
    with lab.connect(DB, options="-c search_path=pg_catalog,public") as conn:
        for _ in range(n):
            ids.append(conn.execute("SELECT pgbench_lab.start('select-only', clients => 1, "
                                    "duration => '5 min')").fetchone()[0])
        for run_id in ids:
            poll_safe(lab, "SELECT pg_catalog.count(*) OPERATOR(pg_catalog.>=) 1 FROM pgbench_lab.run_progress "
                      "WHERE run_id OPERATOR(pg_catalog.=) %s", (run_id,))
            pids.append(conn.execute("SELECT coordinator_pid FROM pgbench_lab.runs WHERE run_id "
                                     "OPERATOR(pg_catalog.=) %s", (run_id,)).fetchone()[0])
            conn.execute("SELECT pg_catalog.pg_terminate_backend(%s)", (pids[-1],))
    poll_safe(lab, "SELECT pg_catalog.count(*) OPERATOR(pg_catalog.=) 0 FROM pg_catalog.pg_stat_activity "
              "WHERE pid OPERATOR(pg_catalog.=) ANY (%s)", (pids,))
    assert statuses(lab, ids) == ["running"] * n
    return ids


# -- the cluster ----------------------------------------------------------

@pytest.fixture(scope="module")
def lab():
    c = Cluster("planted", {"shared_buffers": "32MB", "max_worker_processes": "24",
                            "pgbench_lab.cache_min_size": "0", "log_min_messages": "warning"})
    try:  # a failed set-up must not leave a server running
        c.start()
        c.fired = fired_dir(c)
        for role in ("nobody", "granted", "dbo"):
            c.sql(f"CREATE ROLE {role} LOGIN")
        c.sql(f"CREATE DATABASE {DB} OWNER dbo")
        c.run_client("pgbench", "-i", "-s", "1", "-q", DB)
        with c.connect(DB) as conn:
            conn.execute("CREATE SCHEMA prewarm")
            conn.execute("CREATE EXTENSION pg_prewarm SCHEMA prewarm")
            conn.execute("CREATE EXTENSION pgbench_lab")
            conn.execute("CREATE SCHEMA lab2")
            conn.execute("GRANT SELECT, INSERT, UPDATE ON pgbench_accounts, pgbench_branches, "
                         "pgbench_tellers, pgbench_history TO granted")
            for fn in ("start",
                       "cancel(bigint)", "cache_status(regclass)", "warm(regclass, text, boolean)",
                       "cache_snapshot(text)", "import(jsonb)"):
                conn.execute(f"GRANT EXECUTE ON FUNCTION pgbench_lab.{fn} TO granted")
            for proc in ("run", "sweep", "compare_settings", "cold_vs_warm", "connection_cost"):
                conn.execute(f"GRANT EXECUTE ON PROCEDURE pgbench_lab.{proc} TO granted")
            conn.execute("GRANT pg_monitor TO granted")
            conn.execute("GRANT USAGE ON SCHEMA prewarm TO granted")
            # a finished run and experiment for the calls that need one
            conn.execute("CALL pgbench_lab.sweep('select-only', '{1}', '1 s')")
            c.types = plan_types(conn)
            c.views = plan_views(conn)
        # the database owner's plants, public first in the database's search_path
        with c.connect(DB, user="dbo") as conn:
            conn.execute(fire_function("public", c.fired))
            c.public_plants = plant_names(conn, "public", c.types, c.views) + plant_routines(conn)
            conn.execute(f"ALTER DATABASE {DB} SET search_path = public, pg_catalog")
        c.mark = len(c.log())
        yield c
    finally:
        c.destroy()


def fired(lab):
    """What the planted objects did: files written (as a superuser) and
    WARNINGs logged (as anyone)."""
    files = sorted(os.listdir(lab.fired))
    lines = lab.log()[lab.mark:].splitlines()
    ran = sorted({" | ".join(lines[i:i + 3])[line.index("PLANTED"):]
                  for i, line in enumerate(lines) if "PLANTED" in line})
    contents = set()
    for f in files:
        with open(os.path.join(lab.fired, f)) as fh:
            contents.add(fh.read().strip())
    return sorted(contents), ran


def test_the_plants_cover_what_the_sources_use(lab):
    """The names are found in the sources, and the plants work: a session
    that resolves names through public first runs them."""
    names = {n for n, _ in lab.types}
    assert {"float8", "int4", "oid", "text", "jsonb", "regclass", "numeric"} <= names, names
    assert len(lab.types) >= 15 and lab.public_plants >= 100, (lab.types, lab.public_plants)
    with lab.connect(DB, options="-c search_path=pg_catalog") as conn:
        n_routines = len({r[0] for r in routines(conn)})
        n_calls = len(all_calls(conn))
    print(f"planted: {len(lab.types)} domains ({', '.join(n for n, _ in lab.types)}), "
          f"{len(lab.views)} views, {lab.public_plants} objects in public in all; "
          f"{n_routines} routines, {n_calls} calls per role, 4 roles")
    with lab.connect(DB, user="dbo") as conn:
        assert conn.execute("SHOW search_path").fetchone()[0] == "public, pg_catalog"
        conn.execute("SELECT 1::float8")
    contents, ran = fired(lab)
    assert contents == [] and any("domain public.float8 ran as dbo" in r for r in ran), (contents, ran)
    lab.mark = len(lab.log())


@pytest.mark.parametrize("role", ["nobody", "granted"])
def test_temp_plants_never_run_with_other_rights(lab, role):
    """A role plants domains and views in its pg_temp, then calls every
    function and procedure, with orphaned runs waiting to be reaped."""
    orphans = make_orphans(lab, 2)
    with lab.connect(DB, user=role) as conn:
        conn.execute(fire_function("pg_temp", lab.fired))
        assert plant_names(conn, "pg_temp", lab.types, lab.views) >= len(lab.types)
        # the plants work: this session's own unqualified names find them
        conn.execute("SELECT 1::float8")
        contents, ran = fired(lab)
        assert contents == [] and any(f"domain pg_temp.float8 ran as {role}" in r for r in ran), ran
        lab.mark = len(lab.log())
        outcome = call_everything(lab, conn)
    contents, ran = fired(lab)
    assert contents == [], f"planted objects ran as a superuser: {contents}"
    assert ran == [], f"planted objects ran: {ran}"
    # the calls reached the reaper, which ran as the owner, and all worked
    assert statuses(lab, orphans) == ["aborted", "aborted"]
    if role == "granted":
        for name in ("start", "run", "wait", "sweep", "cache_status", "warm"):
            assert "00000" in outcome[name], (name, outcome[name])
    else:
        assert outcome["start"] == {"42501"} and outcome["run"] == {"42501"}, outcome


@pytest.mark.parametrize("role", ["dbo", "postgres"])
def test_public_plants_never_run_as_a_superuser(lab, role):
    """The database owner's plants in public (types, relations, functions,
    operators, aggregates; public first in the database's search_path),
    with a superuser, and the owner itself, calling everything."""
    orphans = make_orphans(lab, 2)
    with lab.connect(DB, user=role) as conn:
        assert conn.execute("SHOW search_path").fetchone()[0] == "public, pg_catalog"
        outcome = call_everything(lab, conn)
    contents, ran = fired(lab)
    assert contents == [], f"planted objects ran as a superuser: {contents}"
    if role == "postgres":
        assert ran == [], f"planted objects ran: {ran}"
        failed = {n: outcome[n] for n in MUST_SUCCEED if "00000" not in outcome[n]}
        assert failed == {}, failed
    else:
        # the owner's own calls may run its own plants, as itself only
        assert all(" ran as dbo " in r for r in ran), ran
    assert statuses(lab, orphans) == ["aborted", "aborted"]
    lab.mark = len(lab.log())


def test_one_call_reaps_every_orphan(lab):
    """Every orphan is marked aborted by one call, not one per call."""
    orphans = make_orphans(lab, 3)
    with lab.connect(DB, options="-c search_path=pg_catalog") as conn:
        with pytest.raises(psycopg.errors.UndefinedObject):
            conn.execute("CALL pgbench_lab.wait(-1)")
    assert statuses(lab, orphans) == ["aborted"] * 3
