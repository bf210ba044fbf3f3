"""The checker of qualified names (test/lint/sqlnames.py) catches what it
must: each construct below resolves a name through search_path, and the
checker says so; the qualified forms pass; and the sources are clean."""
import os
import sys
import textwrap

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lint"))
import sqlnames  # noqa: E402

BAD = [
    ("SELECT 0::float8", "type float8"),
    ("SELECT owner::oid FROM pgbench_lab.runs", "type oid"),
    ("SELECT CAST(1 AS int4)", "type int4"),
    ("SELECT now()", "function now()"),
    ("SELECT 1 + 1", "operator +"),
    ("SELECT 1 WHERE 1 IN (1, 2)", "IN (...)"),
    ("SELECT NULLIF(1, 0)", "NULLIF"),
    ("SELECT 1 WHERE 1 BETWEEN 0 AND 2", "BETWEEN"),
    ("SELECT 1 WHERE 'a' LIKE 'a%'", "LIKE"),
    ("SELECT 1 WHERE 1 IS DISTINCT FROM 2", "IS DISTINCT FROM"),
    ("SELECT CASE 1 WHEN 1 THEN 2 END", "CASE x WHEN"),
    ("SELECT 'a' COLLATE \"C\"", "collation C"),
    ("SELECT * FROM runs", "relation runs"),
    ("SELECT 1 WHERE 1 = ANY (SELECT 1)", "operator = of a subquery"),
    ("SELECT 1 WHERE 1 IN (SELECT 1)", "IN (SELECT ...)"),
]
GOOD = [
    "SELECT 0::pg_catalog.float8, 1::bigint, pg_catalog.now()",
    "SELECT 1 OPERATOR(pg_catalog.+) 1 FROM pgbench_lab.runs r",
    "WITH f AS (SELECT 1 AS x) SELECT x FROM f",
    "SELECT 1 WHERE 1 OPERATOR(pg_catalog.=) ANY (ARRAY[1, 2])",
    "SELECT CASE WHEN 1 OPERATOR(pg_catalog.=) 1 THEN 2 END",
]


@pytest.mark.parametrize("sql,problem", BAD)
def test_catches_names_resolved_through_search_path(sql, problem):
    found = sqlnames.check_sql(sql)
    assert any(problem in p for p in found), found


@pytest.mark.parametrize("sql", GOOD)
def test_passes_qualified_names(sql):
    assert sqlnames.check_sql(sql) == []


def test_reads_c_strings_and_install_bodies(tmp_path):
    """A whole tree: a cast in a C string split over lines and macros, and a
    PL/pgSQL procedure without SET search_path."""
    (tmp_path / "src").mkdir()
    (tmp_path / "sql" / "code").mkdir(parents=True)
    (tmp_path / "src" / "x.c").write_text(textwrap.dedent('''\
        #define FROM_RUNS " FROM pgbench_lab.runs"
        static void f(void)
        {
            elog(ERROR, "SELECT and UPDATE are prose here: 0::float8");
            SPI_execute("SELECT run_id, 0::float8"
                        FROM_RUNS " WHERE run_id = " INT64_FORMAT, true, 0);
        }
        '''))
    (tmp_path / "sql" / "code" / "00.sql").write_text(textwrap.dedent('''\
        CREATE PROCEDURE pgbench_lab.p() LANGUAGE plpgsql AS $$
        DECLARE t text;
        BEGIN PERFORM pg_catalog.now(); t := lower('X'); COMMIT; END $$;
        CREATE FUNCTION pgbench_lab.f() RETURNS int LANGUAGE sql
        SET search_path = pg_catalog, pg_temp AS $$ SELECT 1 + 1 $$;
        CREATE FUNCTION pgbench_lab.g() RETURNS int LANGUAGE sql
        SET search_path = public, pg_temp AS $$ SELECT 1 $$;
        '''))
    c = [(p, problem) for p, _, problem, _ in sqlnames.check_c(str(tmp_path))]
    assert ("src/x.c", "a cast to a type without its schema (::name)") in c, c
    assert ("src/x.c", "operator = without its schema (write OPERATOR(pg_catalog.=))") in c, c
    assert not any("prose" in p for p, _ in c)
    sql = sqlnames.check_install(str(tmp_path))
    assert ("pgbench_lab.p", "variable of type text without its schema") in sql, sql
    assert any(n == "pgbench_lab.p" and "function lower()" in p for n, p in sql), sql
    assert any(n == "pgbench_lab.g" and "must be exactly" in p for n, p in sql), sql
    # a SET search_path is a second defence: the body is checked all the same
    assert ("pgbench_lab.f", "operator + without its schema (write OPERATOR(pg_catalog.+))") in sql, sql


def test_reads_the_scripts_written_in_c(tmp_path):
    """A pgbench script in a C string (as the built-in scripts are): its SQL
    commands are checked, :variables as parameters, \\set lines left out;
    pgbench's own text fails, the qualified text passes."""
    (tmp_path / "src").mkdir()
    (tmp_path / "sql" / "code").mkdir(parents=True)
    (tmp_path / "src" / "x.c").write_text(textwrap.dedent('''\
        static const char *scripts[] = {
            "\\\\set aid random(1, 100000 * :scale)\\n"
            "\\\\set delta random(-5000, 5000)\\n"
            "BEGIN;\\n"
            "UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;\\n"
            "END;\\n",
            "\\\\set aid random(1, 100000 * :scale)\\n"
            "SELECT abalance, :aid::pg_catalog.int8 FROM %s.pgbench_accounts "
            "WHERE aid OPERATOR(pg_catalog.=) :aid;\\n",
        };
        '''))
    c = [(p, problem) for p, _, problem, _ in sqlnames.check_c(str(tmp_path))]
    assert sorted(c) == [("src/x.c", "operator + without its schema (write OPERATOR(pg_catalog.+))"),
                         ("src/x.c", "operator = without its schema (write OPERATOR(pg_catalog.=))"),
                         ("src/x.c", "relation pgbench_accounts without its schema")], c
    assert sqlnames.script_to_sql("\\set a 1\nSELECT :a, :'b', :a::pg_catalog.int4;\n") == \
        "SELECT $1, $2, $3::pg_catalog.int4;"


def test_reads_the_kit_scripts(tmp_path):
    """The TPC-C kit's files (sql/tpcc/*.sql) are checked as pgbench
    scripts: an operator looked up by name fails, at its line; \\gset ends
    a command; the qualified text passes."""
    (tmp_path / "sql" / "tpcc").mkdir(parents=True)
    (tmp_path / "sql" / "tpcc" / "tpcc-x.sql").write_text(textwrap.dedent('''\
        -- a kit script
        SELECT pg_catalog.max(w_id) AS warehouses FROM tpcc.warehouse \\gset
        \\set w_id random(1, :warehouses)
        BEGIN;
        UPDATE tpcc.warehouse SET w_ytd = w_ytd OPERATOR(pg_catalog.+) 1 WHERE w_id OPERATOR(pg_catalog.=) :w_id;
        SELECT d_id FROM tpcc.district WHERE d_w_id = :w_id;
        END;
        '''))
    assert sqlnames.check_kit(str(tmp_path)) == [
        ("sql/tpcc/tpcc-x.sql", 6, "operator = without its schema (write OPERATOR(pg_catalog.=))")]
    assert sqlnames.check_kit() == []


def test_reads_the_sql_a_body_builds(tmp_path):
    """A PL/pgSQL body's SQL texts (format() templates it EXECUTEs or sends
    to a target, as init_tpcc()'s and tpcc_check()'s) are checked, with
    the functions they create (SET search_path and body) and the pieces
    spliced into them."""
    (tmp_path / "sql" / "code").mkdir(parents=True)
    (tmp_path / "sql" / "code" / "00.sql").write_text(textwrap.dedent('''\
        CREATE FUNCTION pgbench_lab.t(s text) RETURNS void LANGUAGE plpgsql
        SET search_path = pg_catalog, pg_temp AS $fn$
        DECLARE
            piece pg_catalog.text := 'pg_catalog.random() * 10';
        BEGIN
            IF pg_catalog.has_table_privilege('pgbench_lab.scripts', 'INSERT, UPDATE') THEN
                EXECUTE pg_catalog.format($q$
        CREATE TABLE %1$s.t (a pg_catalog.int4, b pg_catalog.int4);
        CREATE FUNCTION %1$s.f(n pg_catalog.int4) RETURNS pg_catalog.int4 LANGUAGE sql AS $b$
            SELECT n OPERATOR(pg_catalog.%%) 10 $b$;
        CREATE FUNCTION %1$s.g(n pg_catalog.int4) RETURNS pg_catalog.int4 LANGUAGE plpgsql
        SET search_path = pg_catalog, pg_temp AS $b$
        DECLARE m integer;
        BEGIN RETURN n - 1; END $b$;
        INSERT INTO %1$s.t SELECT i, %2$s FROM pg_catalog.generate_series(1, 10) AS i
          WHERE i IS DISTINCT FROM 5
        $q$, s, piece);
            END IF;
        END
        $fn$;
        '''))
    found = sorted(p.split(": in the SQL text")[0] for n, p in sqlnames.check_install(str(tmp_path)))
    assert found == ["IS DISTINCT FROM looks up = through search_path",
                     "operator * without its schema (write OPERATOR(pg_catalog.*))",
                     "x.f(): no SET search_path = pg_catalog, pg_temp",
                     "x.g(): operator - without its schema (write OPERATOR(pg_catalog.-)): n - 1",
                     "x.g(): variable of type integer without its schema"], found
    assert sqlnames.format_to_sql("SELECT %1$s.f(%2$s), %L, %I, 100 %% 7, %s($1)") == \
        "SELECT x.f(x), 'x', x, 100 % 7, x.x($1)"
    # format() numbers %L and %I among its conversions: the %s after them is the third
    assert sqlnames.format_to_sql("SELECT %L, %I FROM %s.t WHERE a OPERATOR(pg_catalog.=) 1") == \
        "SELECT 'x', x FROM x.t WHERE a OPERATOR(pg_catalog.=) 1"


def test_the_sources_are_clean():
    assert sqlnames.check_c() == [] and sqlnames.check_install() == [] and sqlnames.check_kit() == []


def test_reads_a_do_block_a_body_builds():
    """A DO block in a template (init_tpcc()'s check of the schema, here
    and on a target) is checked as a PL/pgSQL body."""
    assert sqlnames.check_dynamic("DO $d$ BEGIN IF 1 OPERATOR(pg_catalog.=) 1 THEN "
                                  "RAISE EXCEPTION USING MESSAGE = %1$L; END IF; END $d$;") == []
    found = sqlnames.check_dynamic("DO $d$ BEGIN IF EXISTS (SELECT FROM pg_catalog.pg_namespace n "
                                   "WHERE n.nspname = %1$L) THEN NULL; END IF; END $d$;")
    assert len(found) == 1 and found[0].startswith("DO block: operator = without its schema"), found
