"""capture(): the application's statements from pg_stat_statements, each
parameter mapped by the server's parse analysis to the column it meets.

capture_params() is the mapping: given a normalized statement as
pg_stat_statements keeps it, every $n with its type and, where found, the
table column it is compared with, stored into or set, or LIMIT/OFFSET.
"""
import psycopg
import pytest

from conftest import pgbench_cluster


@pytest.fixture(scope="module")
def lab():
    yield from pgbench_cluster("capture", scale=1)


def places(c, query):
    return c.sql("SELECT param, type::text, relation::text, attnum, kind, operator "
                 "FROM pgbench_lab_internal.capture_params(%s)", (query,))


def col(c, rel, attnum):
    return c.scalar("SELECT attname FROM pg_attribute WHERE attrelid = %s::regclass AND attnum = %s",
                    (rel, attnum))


@pytest.mark.parametrize("query, expected", [
    # pgbench's own statements, as pg_stat_statements normalizes them
    ("SELECT abalance FROM pgbench_accounts WHERE aid = $1",
     [(1, "integer", "pgbench_accounts", "aid", "eq", "=")]),
    ("UPDATE pgbench_accounts SET abalance = abalance + $1 WHERE aid = $2",
     # beside a column in arithmetic: found, of kind other (a guess to draw)
     [(1, "integer", "pgbench_accounts", "abalance", "other", "+"),
      (2, "integer", "pgbench_accounts", "aid", "eq", "=")]),
    ("INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES ($1, $2, $3, $4, CURRENT_TIMESTAMP)",
     [(1, "integer", "pgbench_history", "tid", "insert", None),
      (2, "integer", "pgbench_history", "bid", "insert", None),
      (3, "integer", "pgbench_history", "aid", "insert", None),
      (4, "integer", "pgbench_history", "delta", "insert", None)]),
    # a range, BETWEEN (two comparisons), IN and ANY, LIMIT and OFFSET,
    # the column on the right, through a join and a subquery
    ("SELECT count(*) FROM pgbench_accounts WHERE aid BETWEEN $1 AND $2 AND bid < $3",
     [(1, "integer", "pgbench_accounts", "aid", "range", ">="),
      (2, "integer", "pgbench_accounts", "aid", "range", "<="),
      (3, "integer", "pgbench_accounts", "bid", "range", "<")]),
    ("SELECT aid FROM pgbench_accounts WHERE bid IN ($1, $2) ORDER BY aid LIMIT $3 OFFSET $4",
     [(1, "integer", "pgbench_accounts", "bid", "in", "="),
      (2, "integer", "pgbench_accounts", "bid", "in", "="),
      (3, "bigint", None, None, "limit", None), (4, "bigint", None, None, "offset", None)]),
    ("SELECT 1 FROM pgbench_tellers WHERE $1 = tid",
     [(1, "integer", "pgbench_tellers", "tid", "eq", "=")]),
    ("SELECT a.abalance FROM pgbench_accounts a JOIN pgbench_branches b USING (bid) WHERE bid = $1",
     [(1, "integer", "pgbench_accounts", "bid", "eq", "=")]),
    ("SELECT * FROM (SELECT aid AS k, abalance FROM pgbench_accounts) s WHERE s.k = $1",
     [(1, "integer", "pgbench_accounts", "aid", "eq", "=")]),
    ("SELECT filler FROM pgbench_accounts WHERE filler LIKE $1",
     [(1, "text", "pgbench_accounts", "filler", "like", "~~")]),
    ("SELECT $1::int + 1", [(1, "integer", None, None, None, None)]),
])
def test_each_parameter_meets_its_column(lab, query, expected):
    got = [(n, t, rel, col(lab, rel, att) if rel else None, kind, op)
           for n, t, rel, att, kind, op in places(lab, query)]
    assert got == expected, got


def test_a_statement_that_no_longer_parses_raises_the_servers_error(lab):
    with pytest.raises(psycopg.errors.UndefinedTable):
        places(lab, "SELECT * FROM dropped_table WHERE id = $1")
    with pytest.raises(psycopg.errors.InvalidParameterValue):
        places(lab, "SELECT 1; SELECT 2")
