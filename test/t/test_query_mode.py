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
        kw.get("query_mode"), "the mode given is recorded (NULL: prepared, as before)"
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
    with pytest.raises(psycopg.errors.FeatureNotSupported) as e:
        with lab.connect() as conn:
            conn.execute("CALL pgbench_lab.run('select-only', transactions => 1, query_mode => 'simple')")
    assert "scripts => '{select-only}'" in e.value.diag.message_hint


def test_prepared_refuses_a_compound_command_with_variables(lab):
    script = "\\set v 1\nSELECT :v \\; SELECT 2;\n"
    with pytest.raises(psycopg.errors.FeatureNotSupported) as e:
        run(lab, script, query_mode="prepared")
    assert "compound" in e.value.diag.message_primary
    for kw in ({}, {"query_mode": "simple"}, {"query_mode": "extended"}):
        assert run(lab, script, **kw)[1] == "done", kw
