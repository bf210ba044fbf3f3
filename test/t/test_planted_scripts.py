"""Planted look-alikes against pgbench's built-in scripts run by name
(scripts => '{select-only}', '{tpcb-like}', '{simple-update}'), which the
interpreter runs as text.

The database owner (not a superuser) plants public.= and public.+ for every
pair of integer types the scripts' comparisons and sums could resolve to,
each calling a function that logs a WARNING, tries to make the owner a
superuser and to write a server file only a superuser may write (and +
returns NULL, so a balance it touched would be NULL); then it puts public
first in the database's search_path.  A superuser runs the built-in names
in the server, over libpq, and split over a primary and its standby:
nothing planted runs on either server, the owner stays what it was, no
balance is NULL, every reported transaction committed (a history row
each), and run_scripts keeps the text as run: pgbench's script, with the
same \\set lines, every name qualified.
"""
import itertools
import os
import re
import subprocess

import psycopg
import pytest

from conftest import primary_and_standby, fired_dir

DB = "lab"
INTS = ["int2", "int4", "int8"]
WRITES = {"tpcb-like": True, "simple-update": True, "select-only": False}


def fire_function(outdir):
    return f"""
CREATE FUNCTION public.planted_fire(what pg_catalog.text) RETURNS pg_catalog.bool
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $f$
BEGIN
  -- once per session: a look-alike = runs for every row a scan reads
  IF pg_catalog.current_setting('planted.fired', true) OPERATOR(pg_catalog.=) 'yes' THEN
    RETURN true;
  END IF;
  PERFORM pg_catalog.set_config('planted.fired', 'yes', false);
  RAISE WARNING 'PLANTED % ran as %', what, current_user;
  IF current_user OPERATOR(pg_catalog.<>) 'dbo' THEN
    BEGIN
      EXECUTE 'ALTER ROLE dbo SUPERUSER';
    EXCEPTION WHEN OTHERS THEN NULL;
    END;
    BEGIN
      EXECUTE pg_catalog.format('COPY (SELECT %L) TO %L', what,
        {outdir!r} OPERATOR(pg_catalog.||) '/fired-'
        OPERATOR(pg_catalog.||) pg_catalog.md5(pg_catalog.random()::pg_catalog.text));
    EXCEPTION WHEN OTHERS THEN NULL;
    END;
  END IF;
  RETURN true;
END $f$"""


def operator_plants():
    """public.= (the right answer) and public.+ (NULL) for every pair of
    integer types, each firing first."""
    stmts = []
    for i, (op, left, right) in enumerate(itertools.product("=+", INTS, INTS)):
        wide = max(left, right, key=INTS.index)
        ret, value = ("bool", "a OPERATOR(pg_catalog.=) b") if op == "=" else (wide, "NULL")
        stmts.append(f"CREATE FUNCTION public.planted_{i}(a pg_catalog.{left}, b pg_catalog.{right}) "
                     f"RETURNS pg_catalog.{ret} LANGUAGE plpgsql AS $f$ BEGIN "
                     f"PERFORM public.planted_fire('operator {left} {op} {right}'); RETURN {value}; END $f$")
        stmts.append(f"CREATE OPERATOR public.{op} (LEFTARG = pg_catalog.{left}, "
                     f"RIGHTARG = pg_catalog.{right}, FUNCTION = public.planted_{i})")
    return stmts


def safe(c, query, params=None, dbname=DB):
    """The test's own reads: names in pg_catalog only."""
    with c.connect(dbname, options="-c search_path=pg_catalog") as conn:
        cur = conn.execute(query, params)
        return cur.fetchall() if cur.description else []


def conninfo(c, user="postgres"):
    return f"host=127.0.0.1 port={c.port} dbname={DB} user={user}"


@pytest.fixture(scope="module")
def pair():
    for primary, standby in primary_and_standby("psprimary", "psstandby", scale=1):
        primary.fired = standby.fired = fired_dir(primary)
        primary.sql("CREATE ROLE dbo LOGIN")
        primary.sql(f"CREATE DATABASE {DB} OWNER dbo")
        primary.run_client("pgbench", "-i", "-s", "1", "-q", DB)
        with primary.connect(DB) as conn:
            conn.execute("CREATE EXTENSION pgbench_lab CASCADE")
            # another role whose search_path finds another pgbench_branches
            conn.execute("CREATE SCHEMA lab2")
            conn.execute("CREATE TABLE lab2.pgbench_branches AS SELECT * FROM public.pgbench_branches")
            conn.execute("CREATE ROLE elsewhere LOGIN")
            conn.execute("GRANT USAGE ON SCHEMA lab2 TO elsewhere")
            conn.execute("GRANT SELECT ON lab2.pgbench_branches TO elsewhere")
            conn.execute(f"ALTER ROLE elsewhere IN DATABASE {DB} SET search_path = lab2, public")
            conn.execute("CREATE ROLE notables LOGIN")
            conn.execute(f"ALTER ROLE notables IN DATABASE {DB} SET search_path = pg_catalog")
        # the database owner's plants, public first in the database's search_path
        with primary.connect(DB, user="dbo") as conn:
            conn.execute(fire_function(primary.fired))
            for stmt in operator_plants():
                conn.execute(stmt)
            conn.execute(f"ALTER DATABASE {DB} SET search_path = public, pg_catalog")
        lsn = primary.scalar("SELECT pg_current_wal_lsn()::text")
        primary.poll("SELECT replay_lsn >= %s::pg_lsn FROM pg_stat_replication", (lsn,))
        # the plants work, on both servers: a session of the database finds them
        for c in (primary, standby):
            with c.connect(DB, user="dbo") as conn:
                assert conn.execute("SHOW search_path").fetchone()[0] == "public, pg_catalog"
                assert conn.execute("SELECT 1 = 1, 1 + 1").fetchone() == (True, None)
            assert any("PLANTED operator int4 = int4 ran as dbo" in r for r in fired(c, 0)[1]), c.log()
            c.mark = len(c.log())
        yield primary, standby


def fired(c, since=None):
    """What the planted objects did on c: server files written (as a
    superuser; both servers write into the primary's folder, on this
    machine) and WARNINGs logged."""
    lines = c.log()[c.mark if since is None else since:].splitlines()
    ran = sorted({" | ".join(lines[i:i + 3])[line.index("PLANTED"):]
                  for i, line in enumerate(lines) if "PLANTED" in line})
    return sorted(os.listdir(c.fired)), ran


def assert_nothing_fired(primary, standby):
    for c in (primary, standby):
        files, ran = fired(c)
        assert files == [] and ran == [], (c.name, files, ran)
    assert safe(primary, "SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname OPERATOR(pg_catalog.=) 'dbo'",
                dbname="postgres") == [(False,)]
    nulls = safe(primary, "SELECT (SELECT pg_catalog.count(*) FROM public.pgbench_accounts WHERE abalance IS NULL) "
                 "OPERATOR(pg_catalog.+) (SELECT pg_catalog.count(*) FROM public.pgbench_tellers "
                 "WHERE tbalance IS NULL) OPERATOR(pg_catalog.+) (SELECT pg_catalog.count(*) "
                 "FROM public.pgbench_branches WHERE bbalance IS NULL)")
    assert nulls == [(0,)], nulls


def history(c):
    return safe(c, "SELECT pg_catalog.count(*) FROM public.pgbench_history")[0][0]


def call(c, **kw):
    """CALL pgbench_lab.run(...) as the superuser, in a session of the
    database (public first in its search_path); the result row as a dict."""
    names = ", ".join(f"{k} => %({k})s" for k in kw)
    with c.connect(DB) as conn:
        assert conn.execute("SHOW search_path").fetchone()[0] == "public, pg_catalog"
        cur = conn.execute(f"CALL pgbench_lab.run({names})", kw)
        return dict(zip([d.name for d in cur.description], cur.fetchone()))


def qualified(c, name, schema="public"):
    """pgbench's built-in script as the pgbench binary shows it, with every
    name qualified: what a built-in name runs."""
    shown = subprocess.run([c.bin("pgbench"), f"--show-script={name}"],
                           capture_output=True, text=True, check=True).stderr
    lines = []
    for line in shown.splitlines():
        if line.startswith("--") or not line.strip():
            continue
        if not line.startswith("\\"):
            line = re.sub(r"\b(pgbench_\w+)", schema + r".\1", line)
            line = line.replace(" = :", " OPERATOR(pg_catalog.=) :").replace(" + :", " OPERATOR(pg_catalog.+) :")
        lines.append(line + "\n")
    return "".join(lines)


@pytest.mark.parametrize("via", ["spi", "libpq"])
@pytest.mark.parametrize("name", sorted(WRITES))
def test_builtin_names_run_no_plant(pair, name, via):
    primary, standby = pair
    before = history(primary)
    r = call(primary, scripts=[name], clients=2, transactions=10, via=via)
    assert r["status"] == "done" and r["transactions_done"] == 20 and r["failures"] == 0, r
    assert_nothing_fired(primary, standby)
    # every reported transaction committed: a history row each for those that write
    assert history(primary) - before == (20 if WRITES[name] else 0)
    body = safe(primary, "SELECT body FROM pgbench_lab.run_scripts WHERE run_id OPERATOR(pg_catalog.=) %s",
                (r["run_id"],))
    assert body == [(qualified(primary, name),)], body


def test_split_run_of_builtin_names_runs_no_plant(pair):
    """scripts => '{select-only, tpcb-like}' over the primary and its
    standby: the standby's clients read, the primary's write; nothing
    planted runs on either."""
    primary, standby = pair
    before = history(primary)
    r = call(primary, scripts=["select-only", "tpcb-like"], clients=2, transactions=10, via="libpq",
             targets=[conninfo(primary), conninfo(standby)])
    assert r["status"] == "done" and r["transactions_done"] == 20 and r["failures"] == 0, r
    assert_nothing_fired(primary, standby)
    rows = safe(primary, "SELECT target, in_recovery, scripts, transactions FROM pgbench_lab.run_targets "
                "WHERE run_id OPERATOR(pg_catalog.=) %s ORDER BY target", (r["run_id"],))
    assert rows == [(1, False, ["tpcb-like"], 10), (2, True, ["select-only"], 10)], rows
    assert history(primary) - before == 10


def test_targets_must_find_the_tables_in_one_schema(pair):
    """The built-in scripts' text names one schema for every client: a
    target whose role finds pgbench_branches elsewhere, or nowhere, is
    refused before anything starts, named."""
    primary, standby = pair
    runs = safe(primary, "SELECT pg_catalog.count(*) FROM pgbench_lab.runs")
    cases = [([conninfo(primary), conninfo(primary, "elsewhere")], "22023",
              "the pgbench tables of targets[2] are in schema lab2, those of targets[1] in public"),
             ([conninfo(standby), conninfo(primary, "notables")], "42P01",
              'relation "pgbench_branches" does not exist on targets[2], or its role may not read it'),
             ([conninfo(primary, "notables")], "42P01",
              'relation "pgbench_branches" does not exist on targets[1], or its role may not read it')]
    for targets, state, text in cases:
        with primary.connect(DB) as conn:
            with pytest.raises(psycopg.Error) as e:
                conn.execute("CALL pgbench_lab.run(scripts => '{select-only}', clients => 2, "
                             "transactions => 1, via => 'libpq', targets => %s)", (targets,))
        assert e.value.sqlstate == state and text in str(e.value), e.value
    # a user's own script needs no table, wherever its role looks
    r = call(primary, script="SELECT 1;", clients=2, transactions=1, via="libpq",
             targets=[conninfo(primary), conninfo(primary, "elsewhere")])
    assert r["status"] == "done", r
    assert safe(primary, "SELECT pg_catalog.count(*) FROM pgbench_lab.runs")[0][0] == runs[0][0] + 1
    assert_nothing_fired(primary, standby)


def test_in_server_the_tables_are_found_as_the_workloads_find_theirs(pair):
    """In the server the schema is the one the caller's search_path finds
    pgbench_accounts in, checked as a built-in workload checks its tables."""
    primary, standby = pair
    with primary.connect(DB, options="-c search_path=pg_catalog") as conn:
        with pytest.raises(psycopg.errors.UndefinedTable) as e:
            conn.execute("CALL pgbench_lab.run(scripts => '{select-only}', clients => 1, transactions => 1)")
    assert 'relation "pgbench_accounts" does not exist' in str(e.value), e.value
    primary.sql("DROP ROLE IF EXISTS reader")
    primary.sql("CREATE ROLE reader LOGIN")
    with primary.connect(DB) as conn:
        conn.execute("GRANT USAGE ON SCHEMA pgbench_lab TO reader")
        conn.execute("GRANT EXECUTE ON PROCEDURE pgbench_lab.run TO reader")
        conn.execute("GRANT SELECT ON public.pgbench_accounts, public.pgbench_branches TO reader")
    with primary.connect(DB, user="reader", options="-c search_path=public,pg_catalog") as conn:
        with pytest.raises(psycopg.errors.InsufficientPrivilege) as e:
            conn.execute("CALL pgbench_lab.run(scripts => '{select-only@1, simple-update@1}', clients => 1, "
                         "transactions => 1)")
        assert "permission denied for table pgbench_accounts" in str(e.value), e.value
        r = conn.execute("CALL pgbench_lab.run(scripts => '{select-only}', clients => 1, "
                         "transactions => 5)").fetchone()
        assert r[1] == "done" and r[2] == 5, r
    assert_nothing_fired(primary, standby)


def test_views_named_like_the_tables_are_not_read(pair):
    """dbo's schema holds a view named pgbench_branches (counting its rows,
    as the scale is found, would run what dbo put in it) beside a real
    pgbench_accounts: the workloads and the built-in names refuse it
    (42809) in the server, a libpq run finds no table there (42P01), and a
    user's script takes scale 1 rather than count it."""
    primary, standby = pair
    with primary.connect(DB, user="dbo") as conn:
        conn.execute("CREATE SCHEMA viewy")
        conn.execute("CREATE TABLE viewy.pgbench_accounts (aid int PRIMARY KEY, bid int, abalance int, "
                     "filler char(84))")
        conn.execute("CREATE VIEW viewy.pgbench_branches AS SELECT 1 AS bid, 0 AS bbalance, "
                     "NULL::char(88) AS filler WHERE public.planted_fire('view pgbench_branches')")
        conn.execute("GRANT USAGE ON SCHEMA viewy TO PUBLIC")
        conn.execute("GRANT SELECT ON ALL TABLES IN SCHEMA viewy TO PUBLIC")
    try:
        path = "-c search_path=viewy,public,pg_catalog"
        with primary.connect(DB, options=path) as conn:
            for args in ("'select-only', clients => 1, transactions => 1",
                         "scripts => '{select-only}', clients => 1, transactions => 1"):
                with pytest.raises(psycopg.errors.WrongObjectType) as e:
                    conn.execute(f"CALL pgbench_lab.run({args})")
                assert '"viewy.pgbench_branches" is not a table' in str(e.value), e.value
            r = conn.execute("CALL pgbench_lab.run(script => 'SELECT :scale;', clients => 1, "
                             "transactions => 1)").fetchone()
            assert r[1] == "done", r
        assert safe(primary, "SELECT scale FROM pgbench_lab.runs WHERE run_id OPERATOR(pg_catalog.=) %s",
                    (r[0],)) == [(1,)]
        primary.sql(f"ALTER ROLE elsewhere IN DATABASE {DB} SET search_path = viewy, public")
        with primary.connect(DB) as conn:
            with pytest.raises(psycopg.errors.UndefinedTable):
                conn.execute("CALL pgbench_lab.run('select-only', clients => 1, transactions => 1, "
                             "via => 'libpq', target => %s)", (conninfo(primary, "elsewhere"),))
        assert_nothing_fired(primary, standby)
    finally:
        primary.sql(f"ALTER ROLE elsewhere IN DATABASE {DB} SET search_path = lab2, public")
        with primary.connect(DB, user="dbo") as conn:
            conn.execute("DROP SCHEMA viewy CASCADE")
