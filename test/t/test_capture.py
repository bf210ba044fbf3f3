"""capture(): the application's statements from pg_stat_statements, each
parameter mapped by the server's parse analysis to the column it meets.

capture_params() is the mapping: given a normalized statement as
pg_stat_statements keeps it, every $n with its type and, where found, the
table column it is compared with, stored into or set, or LIMIT/OFFSET.
"""
import json
from decimal import Decimal

import psycopg
import pytest

from conftest import Cluster, pgbench_cluster


PGSS = {"shared_preload_libraries": "'pg_stat_statements'"}


@pytest.fixture(scope="module")
def lab():
    for c in pgbench_cluster("capture", PGSS, scale=1):
        c.sql("CREATE EXTENSION pg_stat_statements")
        yield c


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
    # two constants in arithmetic (the TPC-C kit's `:cents / 100.0`):
    # numeric, where analysis would find the operator ambiguous
    ("UPDATE pgbench_branches SET bbalance = bbalance + ($1 / $2) WHERE bid = $3",
     [(1, "numeric", None, None, None, None), (2, "numeric", None, None, None, None),
      (3, "integer", "pgbench_branches", "bid", "eq", "=")]),
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


# -- capture(), the replay, capture_check() ---------------------------------

TPCB = {  # pgbench's tpcb-like, as pg_stat_statements normalizes it (-M simple)
    "UPDATE pgbench_accounts SET abalance = abalance + $1 WHERE aid = $2",
    "SELECT abalance FROM pgbench_accounts WHERE aid = $1",
    "UPDATE pgbench_tellers SET tbalance = tbalance + $1 WHERE tid = $2",
    "UPDATE pgbench_branches SET bbalance = bbalance + $1 WHERE bid = $2",
    "INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES ($1, $2, $3, $4, CURRENT_TIMESTAMP)",
}


def capture(c, **kw):
    names = ", ".join(f"{k} => %({k})s" for k in kw)
    return c.sql(f"SELECT * FROM pgbench_lab.capture({names})", kw)


def reset(c):
    c.sql("SELECT pg_stat_statements_reset()")


def run_scripts(c, scripts, **kw):
    names = "".join(f", {k} => %({k})s" for k in kw)
    with c.connect() as conn:
        row = conn.execute(f"CALL pgbench_lab.run(scripts => %(s)s{names})", dict(kw, s=scripts)).fetchone()
    assert row[1] == "done", (row, c.sql("SELECT count(*), min(message) FROM pgbench_lab.run_errors WHERE run_id = %s", (row[0],)))
    return row[0]


def mix(c, capture_id):
    return [f"{s}@{w}" for s, w in c.sql(
        "SELECT script, weight FROM pgbench_lab.capture_statements "
        "WHERE capture_id = %s AND script IS NOT NULL ORDER BY statement", (capture_id,))]


@pytest.fixture(scope="module")
def tpcb(lab):
    """pgbench's own tpcb-like run by the pgbench binary, captured."""
    reset(lab)
    lab.run_client("pgbench", "-n", "-t", "200", "-c", "2", "postgres")
    rows = capture(lab, include_writes=True, min_calls=100, prefix="tpcb")
    return rows[0][0], rows


def test_tpcb_like_captured_as_its_statements(lab, tpcb):
    cid, rows = tpcb
    kept = {r[8]: r for r in rows if r[2] is not None}
    assert set(kept) == TPCB, rows
    # BEGIN and END are named, not replayed
    assert any(r[2] is None and "utility" in r[7] for r in rows), rows
    # every statement was called 400 times: equal weights and shares
    assert {r[4] for r in kept.values()} == {400}
    assert {float(r[5]) for r in kept.values()} == {20.0}
    # the accounts' key drawn over the whole of aid, with no look-up
    draws = dict(lab.sql("SELECT s.query || ' $' || p.param, p.draw FROM pgbench_lab.capture_params p "
                         "JOIN pgbench_lab.capture_statements s USING (capture_id, statement) "
                         "WHERE p.capture_id = %s", (cid,)))
    assert draws["SELECT abalance FROM pgbench_accounts WHERE aid = $1 $1"] == r"\set p1 random(1, 100000)"
    assert draws["UPDATE pgbench_tellers SET tbalance = tbalance + $1 WHERE tid = $2 $2"] == r"\set p2 random(1, 10)"
    # the deltas meet no column they are compared with: guesses, named
    guesses = lab.sql("SELECT statement, param, about FROM pgbench_lab.capture_params "
                      "WHERE capture_id = %s AND guess", (cid,))
    assert len(guesses) == 3 and all("guess" in g[2] for g in guesses), guesses
    settings = lab.scalar("SELECT settings FROM pgbench_lab.captures WHERE capture_id = %s", (cid,))
    assert settings["include_writes"] is True and settings["min_calls"] == 100


# pgbench's transaction, in its order (the first words of each statement)
TPCB_ORDER = ["UPDATE pgbench_accounts", "SELECT abalance", "UPDATE pgbench_tellers", "UPDATE pgbench_branches",
              "INSERT INTO pgbench_history"]


@pytest.mark.parametrize("grouped", [False, True])
def test_tpcb_like_replayed_reproduces_the_capture(lab, tpcb, grouped):
    """One statement a transaction, pgbench's SELECT abalance reads fewer
    blocks than it did (measured: 3.0 against 3.9 a call): in pgbench it
    reads the account its transaction has just updated, whose index
    entries then lead to two versions of the row.  Grouped as pgbench's
    transaction, the update and the select sharing their aid, every
    statement's blocks per call match."""
    cid, rows = tpcb
    queries = dict(lab.sql("SELECT statement, query FROM pgbench_lab.capture_statements "
                           "WHERE capture_id = %s", (cid,)))
    if grouped:
        order = [next(st for st, q in queries.items() if q.startswith(w)) for w in TPCB_ORDER]
        got = lab.sql("SELECT * FROM pgbench_lab.capture_group(%s, %s)", (cid, order))
        assert got == [("tpcb-t1", 10000, order)], got
        body = lab.scalar("SELECT body FROM pgbench_lab.scripts WHERE name = 'tpcb-t1'")
        # one draw of aid for the update and the select of the account
        assert f"WHERE aid = :s{order[0]}p2;\nSELECT abalance FROM pgbench_accounts WHERE aid = :s{order[0]}p2;" \
            in body, body
        assert body.count("BEGIN;") == 1 and body.rstrip().endswith("END;"), body
        scripts = [s for s, w, _ in got]
    else:
        scripts = mix(lab, cid)
    # the replay starts from the state the captured run started from
    lab.run_client("pgbench", "-i", "-s", "1", "-q", "postgres")
    reset(lab)
    run_id = run_scripts(lab, scripts, clients=2, transactions=200 if grouped else 1000, random_seed=7,
                         via="libpq" if grouped else "spi", query_mode="simple")
    check = lab.sql("SELECT * FROM pgbench_lab.capture_check(%s, %s)", (cid, run_id))
    assert len(check) == 5, check
    for row in check:
        st, script, cs, rs, cb, rb, cr, rr, cm, rm, verdict, why = [float(x) if isinstance(x, Decimal) else x
                                                                    for x in row]
        assert abs(cs - rs) <= 2, check
        assert cr == rr == 1, check
        assert cm > 0 and rm > 0
        if queries[st].startswith("UPDATE pgbench_branches"):
            # the one branch row, held locked for the whole transaction:
            # an update that waits for it reads the row again, as often as
            # the run's timing has it
            assert verdict == "matches" or ("locks" in why and "transaction" in why), check
        elif queries[st].startswith("SELECT abalance") and not grouped:
            assert verdict == "diverges" and "its own transaction" in why and "capture_group()" in why, check
            assert rb < cb, check
        elif queries[st].startswith("UPDATE pgbench_tellers") and not grouped:
            # its row held locked for pgbench's whole transaction too
            assert verdict == "matches" or "its own transaction" in why, check
        else:
            assert abs(cb - rb) <= max(0.1 * cb, 0.25), check
            assert verdict == "matches", check
    # the accounts' keys drawn over the whole range of aid
    lo, hi = lab.sql("SELECT min(aid), max(aid) FROM pgbench_accounts WHERE abalance <> 0")[0]
    assert lo <= 2000 and hi >= 98001, (lo, hi)


def test_capture_group_refusals(lab, tpcb):
    cid, _ = tpcb
    for bad, code in [(None, psycopg.errors.InvalidParameterValue), ([1], psycopg.errors.InvalidParameterValue),
                      ([1, 1], psycopg.errors.InvalidParameterValue), ([1, 99], psycopg.errors.InvalidParameterValue)]:
        with pytest.raises(code):
            lab.sql("SELECT * FROM pgbench_lab.capture_group(%s, %s)", (cid, bad))
    with pytest.raises(psycopg.errors.NoDataFound):
        lab.sql("SELECT * FROM pgbench_lab.capture_group(-1, '{1,2}')")
    # BEGIN and END are not replayed: not groupable
    skipped = lab.scalar("SELECT min(statement) FROM pgbench_lab.capture_statements "
                         "WHERE capture_id = %s AND script IS NULL", (cid,))
    with pytest.raises(psycopg.errors.InvalidParameterValue) as e:
        lab.sql("SELECT * FROM pgbench_lab.capture_group(%s, %s)", (cid, [1, skipped]))
    assert f"no statement {skipped}" in str(e.value)


def test_the_applications_own_statements_with_a_text_key_and_a_guess(lab):
    lab.sql("CREATE TABLE app_customers (name text PRIMARY KEY, city text)")
    lab.sql("INSERT INTO app_customers SELECT 'c' || i, 'city' || (i % 7) FROM generate_series(1, 3000) i")
    lab.sql("ANALYZE app_customers")
    reset(lab)
    with lab.connect() as conn:
        for i in range(1, 6):
            conn.execute(f"SELECT city FROM app_customers WHERE name = 'c{i}'")
            # 42 meets no column: drawn by type, a guess
            conn.execute(f"SELECT aid, 42 FROM pgbench_accounts WHERE aid = {i}")
            conn.execute(f"SELECT count(*) FROM app_customers WHERE city = 'city{i}' LIMIT 5")
    rows = capture(lab, min_calls=5, prefix="app")
    kept = {r[8]: r for r in rows if r[2] is not None}
    assert set(kept) == {"SELECT city FROM app_customers WHERE name = $1",
                         "SELECT aid, $1 FROM pgbench_accounts WHERE aid = $2",
                         "SELECT count(*) FROM app_customers WHERE city = $1 LIMIT $2"}, rows
    assert "$1 a guess" in kept["SELECT aid, $1 FROM pgbench_accounts WHERE aid = $2"][7]
    assert "LIMIT" in kept["SELECT count(*) FROM app_customers WHERE city = $1 LIMIT $2"][7]
    assert kept["SELECT city FROM app_customers WHERE name = $1"][7] is None
    # the text key: looked up among the sampled names, which are real ones
    cid = rows[0][0]
    body = lab.scalar("SELECT body FROM pgbench_lab.scripts WHERE name = %s",
                      (kept["SELECT city FROM app_customers WHERE name = $1"][2],))
    assert "\\gset" in body and ":p1" in body, body
    assert lab.scalar("SELECT count(*) FROM pgbench_lab.capture_values v, app_customers c "
                      "WHERE v.capture_id = %s AND c.name = v.vals[1]", (cid,)) >= 1000
    # the scripts run, with the right result sizes
    reset(lab)
    run_id = run_scripts(lab, mix(lab, cid), clients=1, transactions=100)
    check = lab.sql("SELECT script, replayed_rows_per_call, verdict FROM pgbench_lab.capture_check(%s, %s)",
                    (cid, run_id))
    assert {s: float(r) for s, r, v in check} == {kept[q][2]: 1.0 for q in kept}, check
    # a table over 10 000 pages is sampled by whole pages (SYSTEM): its
    # size in pg_class made so, for the test
    lab.sql("UPDATE pg_class SET relpages = 20000, reltuples = 3000 WHERE oid = 'app_customers'::regclass")
    big = capture(lab, min_calls=5, prefix="big")
    lab.sql("ANALYZE app_customers")
    about = lab.scalar("SELECT p.about FROM pgbench_lab.capture_params p JOIN pgbench_lab.capture_statements s "
                       "USING (capture_id, statement) WHERE p.capture_id = %s AND s.query LIKE 'SELECT city%%'",
                       (big[0][0],))
    assert "whole pages" in about, about
    # coverage: the statements taking that share of the total time
    # (the lab's own statements not counted), top as a cap
    cov = capture(lab, min_calls=5, prefix="cov", coverage=0.01, top=None)
    assert len([r for r in cov if r[2] is not None]) == 1, cov
    cov = capture(lab, min_calls=5, prefix="all", coverage=1.0, top=None)
    assert {r[8] for r in cov if r[2] is not None} == set(kept), cov
    cov = capture(lab, min_calls=5, prefix="two", coverage=1.0, top=2)
    assert len([r for r in cov if r[2] is not None]) == 2, cov
    # the same prefix again: refused, or replaced with replace => true
    with pytest.raises(psycopg.errors.DuplicateObject):
        capture(lab, min_calls=5, prefix="app")
    rows = capture(lab, min_calls=5, prefix="app", replace=True)
    assert lab.scalar("SELECT count(*) FROM pgbench_lab.scripts WHERE name LIKE 'app-%%'") == 3


def test_skipped_statements_are_named(lab):
    lab.sql("CREATE TABLE app_gone (id int PRIMARY KEY)")
    reset(lab)
    with lab.connect() as conn:
        for i in range(3):
            conn.execute(f"SELECT id FROM app_gone WHERE id = {i}")
            conn.execute(f"UPDATE pgbench_branches SET bbalance = bbalance WHERE bid = {i}")
    lab.sql("DROP TABLE app_gone")
    rows = capture(lab, min_calls=3, prefix="gone")
    why = {r[8]: r[7] for r in rows}
    assert "no longer analyzes here (42P01" in why["SELECT id FROM app_gone WHERE id = $1"], rows
    assert "include_writes" in why["UPDATE pgbench_branches SET bbalance = bbalance WHERE bid = $1"], rows
    assert all(r[2] is None for r in rows)
    # an empty pg_stat_statements: nothing to replay, said so
    reset(lab)
    rows = capture(lab, prefix="empty")
    assert all(r[2] is None for r in rows), rows


def test_a_role_without_pg_read_all_stats(lab):
    lab.sql("CREATE ROLE capturer LOGIN")
    lab.sql("GRANT EXECUTE ON FUNCTION pgbench_lab.capture TO capturer")
    lab.sql("GRANT INSERT, DELETE ON pgbench_lab.scripts TO capturer")
    lab.sql("GRANT SELECT ON pgbench_tellers, pgbench_branches TO capturer")
    reset(lab)
    with lab.connect() as conn:
        for i in range(1, 5):
            conn.execute(f"SELECT bbalance FROM pgbench_branches WHERE bid = {i}")
    with lab.connect(user="capturer") as conn:
        for i in range(1, 5):
            conn.execute(f"SELECT tbalance FROM pgbench_tellers WHERE tid = {i}")
    with lab.connect(user="capturer") as conn:
        rows = conn.execute("SELECT * FROM pgbench_lab.capture(min_calls => 4, prefix => 'mine')").fetchall()
        # its own statement captured; another role's hidden text named
        kept = [r[8] for r in rows if r[2] is not None]
        assert kept == ["SELECT tbalance FROM pgbench_tellers WHERE tid = $1"], rows
        assert any("pg_read_all_stats" in (r[7] or "") for r in rows), rows
        # the capture is its own: postgres's are not visible
        assert conn.execute("SELECT count(DISTINCT owner) FROM pgbench_lab.captures").fetchone()[0] == 1


def test_without_pg_stat_statements(lab, node):
    lab.sql("CREATE DATABASE nopgss")
    lab.sql("CREATE EXTENSION pgbench_lab CASCADE", dbname="nopgss")
    with pytest.raises(psycopg.errors.ObjectNotInPrerequisiteState) as e:
        lab.sql("SELECT * FROM pgbench_lab.capture()", dbname="nopgss")
    assert "not installed" in str(e.value) and "shared_preload_libraries" in e.value.diag.message_hint
    # created, but its library not loaded
    node.sql("CREATE EXTENSION pg_stat_statements")
    with pytest.raises(psycopg.errors.ObjectNotInPrerequisiteState) as e:
        node.sql("SELECT * FROM pgbench_lab.capture()")
    assert "not loaded" in str(e.value) and "shared_preload_libraries" in e.value.diag.message_hint
    with pytest.raises(psycopg.errors.InvalidParameterValue):
        lab.sql("SELECT * FROM pgbench_lab.capture(coverage => 1.5)")


def test_capture_from_a_source_server(lab, new_cluster):
    src = new_cluster("source", PGSS)
    src.run_client("pgbench", "-i", "-s", "1", "-q", "postgres")
    conninfo = f"host=127.0.0.1 port={src.port} dbname=postgres user=postgres"
    # pg_stat_statements missing there: refused, naming the source
    with pytest.raises(psycopg.errors.ObjectNotInPrerequisiteState) as e:
        capture(lab, source=conninfo, prefix="src")
    assert "source" in str(e.value)
    src.sql("CREATE EXTENSION pg_stat_statements")
    src.sql("SELECT pg_stat_statements_reset()")
    src.run_client("pgbench", "-n", "-S", "-t", "100", "-c", "2", "postgres")
    rows = capture(lab, source=conninfo, prefix="src", min_calls=100)
    kept = [r for r in rows if r[2] is not None]
    assert [r[8] for r in kept] == ["SELECT abalance FROM pgbench_accounts WHERE aid = $1"], rows
    assert kept[0][4] == 200
    cid = rows[0][0]
    # recorded without its password
    recorded = capture(lab, source=conninfo + " password=secret", prefix="srcpw", min_calls=100)[0][0]
    shown = lab.scalar("SELECT source FROM pgbench_lab.captures WHERE capture_id = %s", (recorded,))
    assert f"port='{src.port}'" in shown and "secret" not in shown, shown
    # the scripts run here
    run_scripts(lab, mix(lab, cid), clients=1, transactions=10)
    # a source whose table differs from this server's: refused, nothing saved
    src.sql("ALTER TABLE pgbench_accounts ADD COLUMN extra int")
    with pytest.raises(psycopg.errors.ObjectNotInPrerequisiteState) as e:
        capture(lab, source=conninfo, prefix="src2", min_calls=100)
    assert "public.pgbench_accounts" in str(e.value)
    assert lab.scalar("SELECT count(*) FROM pgbench_lab.scripts WHERE name LIKE 'src2-%%'") == 0


def test_the_applications_search_path(lab):
    lab.sql("CREATE SCHEMA appx")
    lab.sql("CREATE TABLE appx.items (id int PRIMARY KEY, label text)")
    lab.sql("INSERT INTO appx.items SELECT i, 'item' || i FROM generate_series(1, 500) i")
    reset(lab)
    with lab.connect() as conn:
        conn.execute("SET search_path = appx")
        for i in range(1, 4):
            conn.execute(f"SELECT label FROM items WHERE id = {i}")
    # under this session's path the table is not found: skipped, named
    rows = capture(lab, min_calls=3, prefix="path1")
    why = {r[8]: r[7] for r in rows}
    assert "42P01" in why["SELECT label FROM items WHERE id = $1"], rows
    # under the application's: kept, its key drawn over 1..500
    rows = capture(lab, min_calls=3, prefix="path2", search_path="appx")
    kept = [r for r in rows if r[2] is not None]
    assert [r[8] for r in kept] == ["SELECT label FROM items WHERE id = $1"], rows
    body = lab.scalar("SELECT body FROM pgbench_lab.scripts WHERE name = 'path2-1'")
    assert r"\set p1 random(1, 500)" in body, body
    run_scripts(lab, ["path2-1"], clients=1, transactions=5, settings='{"search_path": "appx"}')


@pytest.mark.parametrize("end", ["deadline", "cancel"])
def test_a_source_that_never_answers_ends_at_the_deadline(lab, end):
    """The source completes the login, then answers nothing (the proxy of
    test_target_safety.py holds the connection from the first read on):
    capture() fails at the reads' deadline (10 s) with 08006, or at once
    when cancelled; it saves nothing, leaves no session there, and the
    caller's session is free."""
    from test_target_safety import StallProxy
    from conftest import Background

    proxy = StallProxy(lab.port, "BEGIN READ ONLY")
    proxy.armed.set()
    with lab.connect() as conn:
        try:
            bg = Background(conn, "SELECT * FROM pgbench_lab.capture(source => %s, prefix => 'stalled')",
                            (proxy.conninfo,))
            assert proxy.stalled.wait(60), "the capture's first read never reached the proxy"
            if end == "cancel":
                lab.sql("SELECT pg_cancel_backend(%s)", (bg.pid,))
            e = bg.join(timeout=120)
        finally:
            proxy.close()
        if end == "cancel":
            assert e is not None and e.sqlstate == "57014", e
        else:
            assert e is not None and e.sqlstate == "08006", e
            assert "no answer within 10 s" in e.diag.message_primary, e.diag.message_primary
            assert "reading the source server" in e.diag.context, e.diag.context
        assert conn.execute("SELECT 1").fetchone() == (1,)
    assert lab.scalar("SELECT count(*) FROM pgbench_lab.captures WHERE prefix = 'stalled'") == 0
    lab.poll("SELECT count(*) = 0 FROM pg_stat_activity WHERE application_name = 'pgbench_lab' "
             "AND backend_type = 'client backend'", timeout=60)


def test_the_tpcc_kit_under_pgbench_round_trip(lab, tmp_path):
    """The TPC-C kit's five scripts, run by the pgbench binary, captured:
    every statement analyzes (the payment's `:cents / 100.0` too), the
    function calls' arguments are guesses until given, and then the
    scripts run and reproduce each statement's share of calls."""
    lab.sql("SELECT * FROM pgbench_lab.init_tpcc(1)")
    tmp_path.chmod(0o755)
    args = []
    for name, body in lab.sql("SELECT name, body FROM pgbench_lab.scripts WHERE name LIKE 'tpcc-%%'"):
        f = tmp_path / f"{name}.sql"
        f.write_text(body)
        f.chmod(0o644)
        args += ["-f", f"{f}@{ {'tpcc-new-order': 45, 'tpcc-payment': 43}.get(name, 4) }"]
    reset(lab)
    # seeded, as the replay is: the shares compared are the same each time
    lab.run_client("pgbench", "-n", "-t", "300", "-c", "2", "--random-seed=5", *args, "postgres")
    rows = capture(lab, include_writes=True, min_calls=5, prefix="tpcc-app")
    cid = rows[0][0]
    kept = {r[8]: r for r in rows if r[2] is not None}
    # skipped: BEGIN, END and the unknown item's ROLLBACK; on PostgreSQL 15 also the body of the kit's
    # SQL function last_name(), which names its argument (pg_stat_statements
    # 15 keeps it as a top-level statement): outside the function it does
    # not analyze, and is named so
    for r in rows:
        if r[2] is None:
            assert r[8] in ("BEGIN", "END", "ROLLBACK") or ("no longer analyzes here (42703" in r[7]
                                               and r[8].startswith("SELECT (ARRAY[")), (r[7], r[8])
    assert len(kept) == 11, rows

    def statement(prefix):
        return next(r[1] for q, r in kept.items() if q.startswith(prefix))
    # what only the DBA knows: the kit's functions' arguments
    given = {"SELECT tpcc.new_order(": ["1", "random(1, 10)", "random(1, 3000)", "random(5, 15)", "random(1, 100)", "1"],
             "SELECT tpcc.delivery(": ["1", "random(1, 10)"]}
    for prefix, exprs in given.items():
        for n, e in enumerate(exprs, 1):
            lab.sql("SELECT * FROM pgbench_lab.capture_set_draw(%s, %s, %s, %s)", (cid, statement(prefix), n, e))
    # a string that goes into a varchar(24) with the names beside it, and
    # the length c_data is cut to (its column's, 500)
    lab.sql("SELECT * FROM pgbench_lab.capture_set_draw(%s, %s, 8, '0')", (cid, statement("INSERT INTO tpcc.history")))
    lab.sql("SELECT * FROM pgbench_lab.capture_set_draw(%s, %s, 12, '500')", (cid, statement("UPDATE tpcc.customer")))
    # the think-times setting read with missing_ok: a guessed false fails
    # (its number differs between PostgreSQL 15 and 18: found by its type)
    # (the kit reads two settings so, think_times and terminals)
    think = statement("SELECT pg_catalog.max(w_id) AS warehouses")
    flags = [n for (n,) in lab.sql("SELECT param FROM pgbench_lab.capture_params WHERE capture_id = %s "
                                   "AND statement = %s AND type = 'boolean' ORDER BY param", (cid, think))]
    assert len(flags) == 2, flags
    for n in flags:
        got = lab.sql("SELECT * FROM pgbench_lab.capture_set_draw(%s, %s, %s, 'true')", (cid, think, n))
        assert len(got) == 1 and f"\\set p{n} true" in got[0][1], got
        assert not lab.scalar("SELECT guess FROM pgbench_lab.capture_params WHERE capture_id = %s "
                              "AND statement = %s AND param = %s", (cid, think, n))
    # the kit's five transactions, each beginning with the same select
    # (in every group while it has calls left); the select of a customer
    # by name, in 60 % of payments and order-status, stays a script of its
    # own.  Grouped, each pick runs a whole transaction, and the shares
    # vary from replay to replay about four times less than with one
    # statement a pick (a share's spread about 0.4 point over 1000)
    think = statement("SELECT pg_catalog.max(w_id) AS warehouses")
    kit = [["SELECT tpcc.new_order("],
           ["UPDATE tpcc.warehouse", "UPDATE tpcc.district", "UPDATE tpcc.customer", "INSERT INTO tpcc.history"],
           ["SELECT tpcc.delivery("], ["SELECT pg_catalog.count(DISTINCT s_i_id)"],
           ["SELECT c_balance, c_first", "SELECT o_id, o_entry_d"]]
    for words in kit:
        got = lab.sql("SELECT * FROM pgbench_lab.capture_group(%s, %s)", (cid, [think] + [statement(w) for w in words]))
    scripts = [f"{s}@{w}" for s, w, _ in got]
    assert len(scripts) == 6, got       # the five groups and the select by name
    with pytest.raises(psycopg.errors.DuplicateObject):     # its calls all taken
        lab.sql("SELECT * FROM pgbench_lab.capture_group(%s, %s)", (cid, [think, statement("SELECT tpcc.delivery(")]))
    reset(lab)
    run_id = run_scripts(lab, scripts, clients=2, transactions=1000, random_seed=11, query_mode="simple", via="libpq")
    check = lab.sql("SELECT statement, captured_share, replayed_share FROM pgbench_lab.capture_check(%s, %s)",
                    (cid, run_id))
    assert len(check) == 11, check
    for st, cs, rs in check:
        assert abs(cs - rs) <= 2, check
    with pytest.raises(psycopg.errors.NoDataFound):
        lab.sql("SELECT * FROM pgbench_lab.capture_set_draw(%s, %s, 99, '1')", (cid, think))
    with pytest.raises(psycopg.errors.InvalidParameterValue):
        lab.sql("SELECT * FROM pgbench_lab.capture_set_draw(%s, %s, %s, ' ')", (cid, think, n))


CAPTURE_TABLES = ["capture_statements", "capture_params", "capture_values", "capture_groups"]


def capture_rows(c, cid):
    """A capture's rows in every table but its id, in order."""
    return {t: c.sql(f"SELECT to_jsonb(x) - 'capture_id' FROM pgbench_lab.{t} x WHERE capture_id = %s "
                     "ORDER BY to_jsonb(x) - 'capture_id'", (cid,)) for t in CAPTURE_TABLES}


def test_a_capture_travels_by_export_and_import(lab, tpcb, new_cluster):
    """A capture (tpcb-like's, grouped) exported, imported into another
    server: its statements and figures, parameters, values and groups the
    same, the importer's, marked with their source; only what was asked
    for travels; bad documents refused with the path of the bad value."""
    cid, _ = tpcb
    if not lab.scalar("SELECT count(*) FROM pgbench_lab.capture_groups WHERE capture_id = %s", (cid,)):
        lab.sql("SELECT * FROM pgbench_lab.capture_group(%s, '{1,2}')", (cid,))
    doc = lab.scalar("SELECT pgbench_lab.export(capture_ids => %s)", ([cid],))
    assert doc["runs"] == [] and [c["capture_id"] for c in doc["captures"]] == [cid], doc.keys()
    # a document of runs holds no captures, as before captures existed
    rid = run_scripts(lab, ["select-only"], clients=1, transactions=1)
    assert "captures" not in lab.scalar("SELECT pgbench_lab.export(ARRAY[%s]::bigint[])", (rid,))
    with pytest.raises(psycopg.errors.NoDataFound):
        lab.sql("SELECT pgbench_lab.export(capture_ids => '{-5}')")

    other = new_cluster("capture-import")
    other.sql("CREATE EXTENSION pgbench_lab CASCADE")
    other.sql("CREATE ROLE importer LOGIN")
    other.sql("GRANT EXECUTE ON FUNCTION pgbench_lab.import(jsonb) TO importer")
    got = other.sql("SELECT * FROM pgbench_lab.import(%s)", (psycopg.types.json.Jsonb(doc),), user="importer")
    assert [(k, s) for k, s, _ in got] == [("capture", cid)], got
    new = got[0][2]
    assert capture_rows(other, new) == capture_rows(lab, cid)
    owner, source_id, source_server, prefix = other.sql(
        "SELECT owner, source_capture_id, source_server, prefix FROM pgbench_lab.captures WHERE capture_id = %s", (new,))[0]
    assert (owner, source_id, prefix) == ("importer", cid, "tpcb") and source_server, source_server
    # the importer's own: another role does not see it
    other.sql("CREATE ROLE someone LOGIN")
    assert other.scalar("SELECT count(*) FROM pgbench_lab.captures", user="someone") == 0

    def refused(change, path):
        bad = json.loads(json.dumps(doc))
        change(bad["captures"][0])
        with pytest.raises(psycopg.errors.InvalidParameterValue) as e:
            other.sql("SELECT * FROM pgbench_lab.import(%s)", (psycopg.types.json.Jsonb(bad),))
        assert path in str(e.value), str(e.value)

    refused(lambda c: c["capture_statements"][0].update(calls=-1), "$.captures[0].capture_statements[0].calls")
    refused(lambda c: c["capture_params"][0].update(statement=99),
            "$.captures[0].capture_params[0].statement names a statement that is not in $.captures[0].capture_statements")
    refused(lambda c: c["capture_groups"][0].update(statements=[1, 99]), "$.captures[0].capture_groups[0].statements")
    refused(lambda c: c.pop("prefix"), "$.captures[0].prefix is missing")
    refused(lambda c: c.update(captured_at="yesterday at noon"), "$.captures[0].captured_at")
    refused(lambda c: c["capture_values"].append(c["capture_values"][0]), "$.captures[0].capture_values[")
    refused(lambda c: c.pop("capture_params"), "$.captures[0].capture_params")
    assert other.scalar("SELECT count(*) FROM pgbench_lab.captures") == 1
