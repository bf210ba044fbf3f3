"""query_mode (pgbench -M simple | extended | prepared): how a script's
statements go to the server, in the server (SPI) and over libpq.  What
decides it: a function folded at plan time counts the plannings (prepared
plans once per client, the others at every execution), and over libpq the
server's log_statement shows the protocol (the text with literals, the
unnamed statement, a named prepared one)."""
import re

import psycopg
import pytest

from conftest import pgbench_cluster

CLIENTS, XACTS = 2, 5

PROBE = """
CREATE SEQUENCE public.plans;
-- IMMUTABLE with no arguments: the planner folds it, so it runs once per planning
CREATE FUNCTION public.planned() RETURNS bigint LANGUAGE plpgsql IMMUTABLE
AS $$ BEGIN RETURN pg_catalog.nextval('public.plans'); END $$;
SELECT pg_catalog.nextval('public.plans');  -- last_value counts from here
"""


@pytest.fixture(scope="module")
def lab():
    for c in pgbench_cluster("qmode", {"max_worker_processes": "16"}, scale=1):
        c.sql(PROBE)
        yield c


def run(lab, script, **kw):
    names = "".join(f", {k} => %({k})s" for k in kw)
    with lab.connect() as conn:
        return conn.execute(f"CALL pgbench_lab.run(script => %(s)s, clients => {CLIENTS}, "
                            f"transactions => {XACTS}{names})", dict(kw, s=script)).fetchone()


def plannings(lab, **kw):
    """How many times the statement was planned in a run of CLIENTS x XACTS."""
    before = lab.scalar("SELECT last_value FROM public.plans")
    row = run(lab, "SELECT public.planned();\n", **kw)
    assert row[1] == "done", row
    assert lab.scalar("SELECT query_mode FROM pgbench_lab.runs WHERE run_id = %s", (row[0],)) == \
        kw.get("query_mode", "prepared"), "the mode used is recorded (left out: prepared)"
    return lab.scalar("SELECT last_value FROM public.plans") - before


@pytest.mark.parametrize("via", ["spi", "libpq"])
def test_each_mode_plans_as_pgbench_sends(lab, via):
    assert plannings(lab, via=via) == CLIENTS, "NULL is today's: prepared once per client"
    assert plannings(lab, via=via, query_mode="prepared") == CLIENTS
    assert plannings(lab, via=via, query_mode="extended") == CLIENTS * XACTS
    assert plannings(lab, via=via, query_mode="simple") == CLIENTS * XACTS


@pytest.mark.parametrize("mode, logged", [
    ("simple", r"statement: SELECT '7'::int AS w, '\$1' AS s /\* m-simple \*/"),
    ("extended", r"execute <unnamed>: SELECT \$1::int AS w, '\$1' AS s /\* m-extended \*/"),
    ("prepared", r"execute S_\d+: SELECT \$1::int AS w, '\$1' AS s /\* m-prepared \*/"),
])
def test_over_libpq_the_server_sees_the_protocol_of_each_mode(lab, mode, logged):
    script = f"\\set v 7\nSELECT :v::int AS w, '$1' AS s /* m-{mode} */;\n"
    row = run(lab, script, via="libpq", query_mode=mode, settings='{"log_statement": "all"}')
    assert row[1] == "done", row
    assert re.search(logged, lab.log()), f"{mode}: {logged}"


def test_over_libpq_simple_quotes_each_value_as_quote_literal(lab):
    # the text is cut at its parameters once, then joined at every execution:
    # each execution's own values, quoted, NULL and a quote or backslash too
    script = ("\\set n NULL\n\\set i random(-3, -1)\n"
              "SELECT :i::int AS i, :n::int AS n, :q::text AS q, :i AS j /* m-quote */;\n")
    row = run(lab, script, via="libpq", query_mode="simple", variables='{"q": "it\'s a \\\\ path"}',
              settings='{"log_statement": "all"}')
    assert row[1] == "done", row
    seen = re.findall(r"statement: SELECT '(-\d)'::int AS i, NULL::int AS n, "
                      r"E'it''s a \\\\ path'::text AS q, '(-\d)' AS j /\* m-quote \*/", lab.log())
    assert len(seen) == CLIENTS * XACTS and all(i == j for i, j in seen), seen


def test_a_wrong_mode_is_refused(lab):
    with pytest.raises(psycopg.errors.InvalidParameterValue) as e:
        run(lab, "SELECT 1;\n", query_mode="fast")
    assert e.value.diag.message_primary == 'unknown query_mode "fast"'
    assert "simple, extended and prepared" in e.value.diag.message_hint


def test_prepared_refuses_a_compound_command_with_variables(lab):
    script = "\\set v 1\nSELECT :v \\; SELECT 2;\n"
    with pytest.raises(psycopg.errors.FeatureNotSupported) as e:
        run(lab, script, query_mode="prepared")
    assert "compound" in e.value.diag.message_primary
    for kw in ({}, {"query_mode": "simple"}, {"query_mode": "extended"}):
        assert run(lab, script, **kw)[1] == "done", kw


def test_simple_refuses_a_pipeline(lab):
    """As pgbench -M simple: the simple protocol has no pipeline."""
    script = "\\startpipeline\nSELECT 1;\n\\endpipeline\n"
    with pytest.raises(psycopg.errors.FeatureNotSupported) as e:
        run(lab, script, query_mode="simple")
    assert e.value.diag.message_primary == "script:1: a pipeline cannot be sent with query_mode simple"
    assert "'extended'" in e.value.diag.message_hint
    for kw in ({}, {"query_mode": "extended"}, {"query_mode": "prepared"}):
        assert run(lab, script, **kw)[1] == "done", kw


def builtin(lab, via, mode, settings):
    """select-only, CLIENTS x XACTS, in a mode (None: left out); its row."""
    with lab.connect() as conn:
        row = conn.execute("CALL pgbench_lab.run('select-only', clients => %s, transactions => %s, "
                           "via => %s, query_mode => %s, settings => %s)",
                           (CLIENTS, XACTS, via, mode, settings)).fetchone()
    assert row[1] == "done", row
    assert lab.scalar("SELECT query_mode FROM pgbench_lab.runs WHERE run_id = %s", (row[0],)) == \
        (mode or "prepared"), "the mode used is recorded, given or not"
    return row


@pytest.mark.parametrize("mode", [None, "prepared", "extended", "simple"])
def test_builtins_run_in_every_mode_in_the_server(lab, mode):
    """In the server, a generic plan is kept by prepared only: with
    plan_cache_mode forcing one, prepared plans once per client, the
    others at every execution (log_planner_stats logs each planning)."""
    before = lab.log().count("PLANNER STATISTICS")
    builtin(lab, "spi", mode, '{"plan_cache_mode": "force_generic_plan", "log_planner_stats": "on"}')
    plans = lab.log().count("PLANNER STATISTICS") - before
    assert plans == (CLIENTS if mode in (None, "prepared") else CLIENTS * XACTS), plans


@pytest.mark.parametrize("mode, logged", [
    ("simple", r'statement: SELECT abalance FROM "public"\.pgbench_accounts WHERE aid = (\d+);'),
    ("extended", r'execute <unnamed>: SELECT abalance FROM "public"\.pgbench_accounts WHERE aid = \$1;'),
    ("prepared", r'execute P_0: SELECT abalance FROM "public"\.pgbench_accounts WHERE aid = \$1;'),
])
def test_builtins_run_in_every_mode_over_libpq(lab, mode, logged):
    """Over libpq the server sees pgbench's protocol of each mode and
    pgbench's text (the lab pinned the connection's search_path, so the
    operators go bare); simple puts the drawn integer in the text bare, as
    pgbench -M simple does."""
    before = len(lab.log())
    builtin(lab, "libpq", mode, '{"log_statement": "all"}')
    seen = re.findall(logged, lab.log()[before:])
    assert len(seen) == CLIENTS * XACTS, lab.log()[before:][-3000:]


def test_a_run_that_sets_search_path_keeps_the_qualified_text(lab):
    """search_path among the settings: the lab does not own the path, so
    the operators stay named in pg_catalog."""
    before = len(lab.log())
    builtin(lab, "libpq", "simple", '{"log_statement": "all", "search_path": "public"}')
    seen = re.findall(r"WHERE aid OPERATOR\(pg_catalog\.=\) \d+;", lab.log()[before:])
    assert len(seen) == CLIENTS * XACTS, lab.log()[before:][-3000:]
