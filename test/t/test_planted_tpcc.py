"""Planted look-alikes against the TPC-C kit: init_tpcc(), here and on a
target, its five scripts and run('tpcc'), in the server and over libpq,
tpcc_check() and tpcc_figures().

The database owner (not a superuser) plants, in public, test_planted's
domains and views (named like every type and relation the extension's
SQL uses, the kit's included: test/lint/sqlnames.py finds them) and
test_lookalike's functions, operators and aggregates, then puts public
first in the database's search_path; the same on a second cluster, the
target of init_tpcc(target => ...), which has no pgbench_lab.  Each
planted object logs a WARNING naming itself, once a session, and tries
to write a server file, which only a superuser may.  A superuser makes
the kit and runs it: nothing planted runs on either server, and every
transaction commits (the look-alike operators answer NULL).
"""
import os

import pytest

from conftest import Cluster, fired_dir
from test_planted import fire_function, plan_types, plan_views, plant_names, plant_routines

DB = "lab"
KIT = ["tpcc-new-order", "tpcc-payment", "tpcc-order-status", "tpcc-delivery", "tpcc-stock-level"]


def plant(c, types, views):
    """The owner's plants in c's database, public first in its search_path;
    checked to work (a session of the database runs them)."""
    with c.connect(DB, user="dbo") as conn:
        conn.execute(fire_function("public", c.fired, once=True))
        plant_names(conn, "public", types, views)
        plant_routines(conn)
        conn.execute(f"ALTER DATABASE {DB} SET search_path = public, pg_catalog")
    with c.connect(DB, user="dbo") as conn:
        assert conn.execute("SHOW search_path").fetchone()[0] == "public, pg_catalog"
        assert conn.execute("SELECT 1 = 1").fetchone() == (None,)
    assert any("PLANTED operator int = int ran as dbo" in r for r in fired(c, 0)[1]), c.log()
    c.mark = len(c.log())


def new_cluster(name):
    c = Cluster(name, {"shared_buffers": "64MB", "max_worker_processes": "16",
                       "log_min_messages": "warning"})
    c.start()
    c.fired = fired_dir(c)
    c.sql("CREATE ROLE dbo LOGIN")
    c.sql(f"CREATE DATABASE {DB} OWNER dbo")
    return c


@pytest.fixture(scope="module")
def pair():
    made = []
    try:		# a failed set-up must not leave a server running
        lab = new_cluster("ptpcc")
        made.append(lab)
        target = new_cluster("ptpcc-target")
        made.append(target)
        with lab.connect(DB) as conn:
            conn.execute("CREATE SCHEMA prewarm")
            conn.execute("CREATE EXTENSION pg_prewarm SCHEMA prewarm")
            conn.execute("CREATE EXTENSION pgbench_lab")
            types, views = plan_types(conn), plan_views(conn)
        plant(lab, types, views)
        # the target has no pgbench_lab: what names its objects is left out
        plant(target, [t for t in types if t[1].startswith("pg_catalog.")],
              [v for v in views if v[1].startswith("pg_catalog.")])
        # the kit made here, so that every test can run alone; the first
        # test judges what the making called
        with hostile(lab) as conn:
            lab.steps = [r[0] for r in conn.execute("SELECT * FROM pgbench_lab.init_tpcc(1)")]
            lab.checked = conn.execute("SELECT ok FROM pgbench_lab.tpcc_check()").fetchall()
        lab.made = [fired(c) for c in (lab, target)]
        yield lab, target
    finally:
        for c in made:
            c.destroy()


@pytest.fixture(autouse=True)
def each_test_judged_alone(request):
    """What fired before a test is not the test's."""
    if "pair" in request.fixturenames:
        for c in request.getfixturevalue("pair"):
            c.mark, c.seen = len(c.log()), set(os.listdir(c.fired))


def fired(c, since=None):
    """What the planted objects did on c since its mark: server files
    written (as a superuser) and WARNINGs logged (as anyone)."""
    lines = c.log()[c.mark if since is None else since:].splitlines()
    ran = sorted({" | ".join(lines[i:i + 3])[line.index("PLANTED"):]
                  for i, line in enumerate(lines) if "PLANTED" in line})
    return sorted(set(os.listdir(c.fired)) - getattr(c, "seen", set())), ran


def assert_nothing_fired(*clusters):
    for c in clusters:
        files, ran = fired(c)
        assert files == [] and ran == [], (c.name, files, ran)


def conninfo(c):
    return f"host=127.0.0.1 port={c.port} dbname={DB} user=postgres"


def hostile(c):
    """A superuser's session of the database: public first."""
    conn = c.connect(DB)
    assert conn.execute("SHOW search_path").fetchone()[0] == "public, pg_catalog"
    return conn


def safe(c, query, params=None):
    """The test's own reads: names in pg_catalog only."""
    with c.connect(DB, options="-c search_path=pg_catalog") as conn:
        return conn.execute(query, params).fetchall()


def run(pair, **kw):
    """CALL pgbench_lab.run(...) as the superuser in a hostile session of
    the lab: nothing planted runs on either server, and the run ends done,
    every transaction committed; its run_id."""
    c = pair[0]
    names = ", ".join(f"{k} => %({k})s" for k in kw)
    with hostile(c) as conn:
        row = conn.execute(f"CALL pgbench_lab.run({names})", kw).fetchone()
    assert_nothing_fired(*pair)
    errors = safe(c, "SELECT * FROM pgbench_lab.run_errors WHERE run_id OPERATOR(pg_catalog.=) %s", (row[0],))
    assert row[1] == "done" and errors == [], (row, errors)
    failures = safe(c, "SELECT pg_catalog.sum(failures) FROM pgbench_lab.run_scripts "
                    "WHERE run_id OPERATOR(pg_catalog.=) %s", (row[0],))
    assert failures == [(0,)], failures
    return row[0]


def test_init_tpcc_here_runs_no_plant(pair):
    """init_tpcc() and tpcc_check() in a hostile session (in the fixture);
    the kit holds."""
    lab, target = pair
    assert lab.made == [([], []), ([], [])], lab.made
    assert lab.steps[-1] == "total" and lab.checked == [(True,)] * 12, (lab.steps, lab.checked)
    assert safe(lab, "SELECT pg_catalog.count(*) FROM pgbench_lab.scripts WHERE name "
                "OPERATOR(pg_catalog.~) '^tpcc-'") == [(5,)]


def test_init_tpcc_on_a_target_runs_no_plant(pair):
    """init_tpcc(target => ...): the tables, the population and the kit's
    functions made there by SQL; then the kit run there over libpq."""
    lab, target = pair
    with hostile(lab) as conn:
        steps = [r[0] for r in conn.execute("SELECT * FROM pgbench_lab.init_tpcc(1, 'tpcc', target => %s)",
                                            (conninfo(target),))]
    assert steps[-1] == "total", steps
    assert safe(target, "SELECT pg_catalog.count(*) FROM tpcc.customer") == [(30000,)]
    assert_nothing_fired(lab, target)
    run(pair, workload="tpcc", clients=2, transactions=10, via="libpq", target=conninfo(target),
        random_seed=7)


@pytest.mark.parametrize("via", ["spi", "libpq"])
def test_run_tpcc_runs_no_plant(pair, via):
    """run('tpcc') in the server and over libpq, its figures read in a
    hostile session; the consistency conditions hold."""
    lab, target = pair
    run_id = run(pair, workload="tpcc", clients=2, transactions=10, via=via, random_seed=7)
    with hostile(lab) as conn:
        figures = conn.execute("SELECT transaction_type, transactions FROM pgbench_lab.tpcc_figures(%s)",
                               (run_id,)).fetchall()
        checked = conn.execute("SELECT ok FROM pgbench_lab.tpcc_check()").fetchall()
    assert figures[-1] == ("all", 20) and checked == [(True,)] * 12, (figures, checked)
    assert_nothing_fired(lab, target)


@pytest.mark.parametrize("via", ["spi", "libpq"])
@pytest.mark.parametrize("script", KIT)
def test_kit_scripts_run_no_plant(pair, script, via):
    """Each script alone, every SQL command of it run at least once."""
    lab, target = pair
    run_id = run(pair, scripts=[script], clients=1, transactions=10, via=via, random_seed=7)
    idle = safe(lab, "SELECT command_text FROM pgbench_lab.run_commands WHERE run_id OPERATOR(pg_catalog.=) %s "
                "AND kind OPERATOR(pg_catalog.=) 'sql' AND executions OPERATOR(pg_catalog.=) 0", (run_id,))
    assert idle == [], idle


@pytest.mark.parametrize("squat", ["owned", "create-granted"])
@pytest.mark.parametrize("where", ["here", "target"])
def test_a_schema_another_role_could_fill_is_refused(pair, squat, where):
    """The database owner makes the kit's schema first (or a superuser's
    schema lets PUBLIC create in it): its functions would be the owner's
    to replace, and a superuser's run would call them.  init_tpcc()
    refuses such a schema, here and on a target, before making anything."""
    lab, target = pair
    c = lab if where == "here" else target
    schema = f"squat_{squat.replace('-', '_')}"
    if squat == "owned":
        with c.connect(DB, user="dbo") as conn:
            conn.execute(f"CREATE SCHEMA {schema}")
    else:
        with c.connect(DB) as conn:
            conn.execute(f"CREATE SCHEMA {schema}")
            conn.execute(f"GRANT CREATE ON SCHEMA {schema} TO PUBLIC")
    args = "" if where == "here" else ", target => %(t)s"
    with hostile(lab) as conn:
        with pytest.raises(Exception) as e:
            conn.execute(f"SELECT * FROM pgbench_lab.init_tpcc(1, %(s)s{args})",
                         {"s": schema, "t": conninfo(target)})
    assert e.value.sqlstate == "42501", e.value
    assert f'schema "{schema}" exists and another role owns it or may create in it' in str(e.value), e.value
    assert safe(c, "SELECT pg_catalog.count(*) FROM pg_catalog.pg_class k JOIN pg_catalog.pg_namespace n "
                "ON n.oid OPERATOR(pg_catalog.=) k.relnamespace WHERE n.nspname OPERATOR(pg_catalog.=) %s",
                (schema,)) == [(0,)]
    assert_nothing_fired(lab, target)
