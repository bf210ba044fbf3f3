"""TPC-C in the server: init_tpcc() makes the specification's nine tables
with their keys and population (clause 4.3), tpcc_check() finds its
consistency conditions holding (clause 3.3.2), and the kit's five scripts,
saved as the caller's tpcc-* scripts and shipped as files, keep them under
an in-server run of the mix and under the pgbench binary.  One warehouse,
one cluster; short runs."""
import re
import shutil
from decimal import Decimal
from pathlib import Path

import psycopg
import pytest

from conftest import Background, Cluster, call_run, frozen

KIT = Path(__file__).resolve().parent.parent.parent / "sql" / "tpcc"
MIX = {"tpcc-new-order": 10, "tpcc-payment": 10, "tpcc-order-status": 1,
       "tpcc-delivery": 1, "tpcc-stock-level": 1}
TABLES = ["warehouse", "district", "customer", "history", "new_order", "orders",
          "order_line", "item", "stock"]


@pytest.fixture(scope="module")
def lab():
    # autovacuum off: the database's commits and rollbacks are the kit's
    # alone while test_one_database_transaction_per_kit_transaction counts them
    c = Cluster("tpcc", {"shared_buffers": "64MB", "max_worker_processes": "16", "autovacuum": "off"})
    try:		# a failed set-up must not leave a server running
        c.start()
        c.sql("CREATE EXTENSION pgbench_lab CASCADE")
        c.steps = {r[0]: r[1:] for r in c.sql("SELECT * FROM pgbench_lab.init_tpcc(1)")}
        yield c
    finally:
        c.destroy()


def checks(c, schema="tpcc"):
    return c.sql("SELECT condition, ok, detail FROM pgbench_lab.tpcc_check(%s)", (schema,))


def assert_consistent(c):
    rows = checks(c)
    assert [r[0] for r in rows] == list(range(1, 13))
    assert all(r[1] for r in rows), rows


def test_init_tpcc_population_and_keys(lab):
    """Clause 4.3's row counts per warehouse, the steps' figures, the
    primary keys, the last names' rules and the delivered orders."""
    counts = {t: lab.scalar(f"SELECT count(*) FROM tpcc.{t}") for t in TABLES}
    assert counts == {"warehouse": 1, "district": 10, "customer": 30000, "history": 30000,
                      "new_order": 9000, "orders": 30000, "item": 100000, "stock": 100000,
                      "order_line": lab.scalar("SELECT sum(o_ol_cnt) FROM tpcc.orders")}
    assert 5 * 30000 <= counts["order_line"] <= 15 * 30000
    for t in TABLES:
        assert lab.steps[t][1] == counts[t], t		# rows as the step reports them
    assert list(lab.steps) == ["tables", "item", "warehouse", "district", "customer", "history",
                               "orders", "new_order", "order_line", "stock", "indexes",
                               "analyze", "scripts", "total"]
    assert lab.steps["scripts"][1] == 5
    assert lab.steps["tables"][1] is None and all(s[0] >= 0 for s in lab.steps.values())
    keys = dict(lab.sql("SELECT conrelid::regclass::text, pg_get_constraintdef(oid) FROM pg_constraint "
                        "WHERE contype = 'p' AND connamespace = 'tpcc'::regnamespace"))
    assert keys == {"tpcc.warehouse": "PRIMARY KEY (w_id)", "tpcc.district": "PRIMARY KEY (d_w_id, d_id)",
                    "tpcc.customer": "PRIMARY KEY (c_w_id, c_d_id, c_id)",
                    "tpcc.new_order": "PRIMARY KEY (no_w_id, no_d_id, no_o_id)",
                    "tpcc.orders": "PRIMARY KEY (o_w_id, o_d_id, o_id)",
                    "tpcc.order_line": "PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number)",
                    "tpcc.item": "PRIMARY KEY (i_id)", "tpcc.stock": "PRIMARY KEY (s_w_id, s_i_id)"}
    assert lab.scalar("SELECT tpcc.last_name(371)") == "PRICALLYOUGHT"
    # the first 1 000 customers of a district: the 1 000 names in turn
    assert lab.scalar("SELECT count(*) FROM tpcc.customer WHERE c_id <= 1000 "
                      "AND c_last <> tpcc.last_name(c_id - 1)") == 0
    assert lab.scalar("SELECT count(DISTINCT o_c_id) FROM tpcc.orders WHERE o_d_id = 1") == 3000
    assert lab.scalar("SELECT bool_and((o_carrier_id IS NULL) = (o_id > 2100)) FROM tpcc.orders")
    assert lab.scalar("SELECT min(no_o_id) = 2101 AND max(no_o_id) = 3000 FROM tpcc.new_order")
    assert lab.scalar("SELECT min(d_next_o_id) = 3001 AND max(d_next_o_id) = 3001 FROM tpcc.district")
    share = lab.scalar("SELECT avg((i_data LIKE '%ORIGINAL%')::int) FROM tpcc.item")
    assert 0.05 < share < 0.15


def test_kit_saved_as_the_files_hold_it(lab):
    """The caller's tpcc-* scripts are the shipped files' texts."""
    saved = dict(lab.sql("SELECT name, body FROM pgbench_lab.scripts WHERE name LIKE 'tpcc-%'"))
    assert saved == {n: (KIT / f"{n}.sql").read_text() for n in MIX}
    assert dict(lab.sql("SELECT name, weight FROM pgbench_lab_internal.tpcc_scripts()")) == MIX


def test_mix_in_server_keeps_the_conditions(lab):
    """Two in-server clients run the 10/10/1/1/1 mix; the twelve conditions hold."""
    assert_consistent(lab)
    orders = lab.scalar("SELECT count(*) FROM tpcc.orders")
    with lab.connect() as conn:
        row = conn.execute("CALL pgbench_lab.run(scripts => %s, clients => 2, transactions => 60)",
                           ([f"{n}@{w}" for n, w in MIX.items()],)).fetchone()
    r = dict(zip(["run_id", "status"], row[:2]))
    assert r["status"] == "done", (row, lab.sql("SELECT error FROM pgbench_lab.runs WHERE run_id = %s", (r["run_id"],)), lab.sql("SELECT * FROM pgbench_lab.run_errors WHERE run_id = %s", (r["run_id"],)))
    done = lab.sql("SELECT name, transactions FROM pgbench_lab.run_scripts WHERE run_id = %s", (r["run_id"],))
    assert sum(t for _, t in done) == 120 and {n for n, _ in done} == set(MIX)
    assert lab.scalar("SELECT count(*) FROM tpcc.orders") > orders
    assert_consistent(lab)


def test_kit_files_under_pgbench(lab):
    """The same files, unchanged, under the pgbench binary; conditions hold."""
    orders = lab.scalar("SELECT count(*) FROM tpcc.orders")
    files = [a for n, w in MIX.items() for a in ("-f", f"{KIT / n}.sql@{w}")]
    # prepared: the statements' parameters must have types the server can
    # tell, as they must for the in-server interpreter's bind parameters
    out = lab.run_client("pgbench", "-n", "-M", "prepared", "-c", "2", "-t", "60", *files, "postgres",
                         check=False)
    assert out.returncode == 0, out.stderr
    assert "number of transactions actually processed: 120/120" in out.stdout, out.stdout
    assert lab.scalar("SELECT count(*) FROM tpcc.orders") > orders
    assert_consistent(lab)


def test_unknown_item_rolls_back(lab):
    """A new-order naming an unknown item leaves nothing behind."""
    before = lab.sql("SELECT d_next_o_id FROM tpcc.district WHERE d_w_id = 1 AND d_id = 3")
    assert lab.scalar("SELECT tpcc.new_order(1, 3, 7, 10, 1, 1)") == 0
    assert lab.sql("SELECT d_next_o_id FROM tpcc.district WHERE d_w_id = 1 AND d_id = 3") == before
    assert lab.scalar("SELECT tpcc.new_order(1, 3, 7, 10, 0, 1)") == before[0][0]
    assert lab.scalar("SELECT count(*) FROM tpcc.order_line WHERE ol_d_id = 3 AND ol_o_id = %s",
                      (before[0][0],)) == 10


def xacts(c):
    """The database postgres' commits and rollbacks, read from another
    database once no session is left in it (a session's counts are
    flushed when it ends)."""
    c.poll("SELECT count(*) = 0 FROM pg_stat_activity WHERE datname = 'postgres'", dbname="template1")
    return c.sql("SELECT xact_commit, xact_rollback FROM pg_stat_database WHERE datname = 'postgres'",
                 dbname="template1")[0]


def test_one_database_transaction_per_kit_transaction(lab):
    """The kit's files under pgbench: the database counts one commit or
    rollback per transaction of the mix (HammerDB's TPM equals the mix's),
    and a rollback for each new-order with an unknown item, besides a
    commit for each session's start.  Seed 2 draws one such new-order in
    100 transactions, on 15 and 18 alike."""
    placed = districts_next(lab)
    before = xacts(lab)
    # a session's start is a commit of its own: pgbench starts two (its
    # first connection and its client's)
    lab.connect().close()
    start = xacts(lab)
    assert (start[0] - before[0], start[1] - before[1]) == (1, 0)
    before = start
    files = [a for n, w in MIX.items() for a in ("-f", f"{KIT / n}.sql@{w}")]
    out = lab.run_client("pgbench", "-n", "-M", "simple", "-c", "1", "-t", "100", "--random-seed", "2",
                         *files, "postgres", check=False)
    assert out.returncode == 0, out.stderr
    commits, rollbacks = (a - b for a, b in zip(xacts(lab), before))
    new_orders = int(re.search(r"tpcc-new-order\.sql\n - weight: 10 .*\n - (\d+) transactions", out.stdout)[1])
    rolled_back = new_orders - (districts_next(lab) - placed)
    assert rolled_back >= 1, out.stdout		# the seed draws one
    assert (commits, rollbacks) == (2 + 100 - rolled_back, rolled_back)
    assert_consistent(lab)


def figures(c, run_id):
    with c.connect() as conn:
        cur = conn.execute("SELECT * FROM pgbench_lab.tpcc_figures(%s)", (run_id,))
        return {r[0]: dict(zip([d.name for d in cur.description], r)) for r in cur.fetchall()}


def test_mix_dealt_keeps_the_minimum_shares(lab):
    """run('tpcc') deals each client's transactions from a deck of 23 (10
    new-order, 10 payment, one each of the others): two decks a client are
    the mix exactly, and the figures say the run keeps clause 5.2.3's
    minimum shares.  The same scripts drawn by hand with order-status and
    delivery at weight 0: NOPM is marked invalid, and why."""
    run_id = call_run(lab, "tpcc", clients=2, transactions=46)
    f = figures(lab, run_id)
    # dealt: committed or failed (a deadlock between the two clients)
    assert {t: f[t]["transactions"] + f[t]["failures"] for t in f} == {
        "new-order": 40, "payment": 40, "order-status": 4, "delivery": 4, "stock-level": 4, "all": 92}
    assert [f[t]["minimum_share_pct"] for t in f] == [None, 43, 4, 4, 4, None]
    assert [f[t]["p90_limit_ms"] for t in f] == [5000, 5000, 5000, 5000, 20000, None]
    if f["all"]["failures"] == 0:
        assert all(r["valid"] for r in f.values()) and f["all"]["invalid_because"] is None, f
    assert f["delivery"]["skipped"] == 0 and f["all"]["skipped"] == 0
    bad = call_run(lab, None, scripts=["tpcc-new-order@1", "tpcc-payment@1", "tpcc-order-status@0",
                                       "tpcc-delivery@0", "tpcc-stock-level@1"], clients=1, transactions=10)
    g = figures(lab, bad)
    assert g["all"]["valid"] is False and g["delivery"]["valid"] is False, g
    assert "no order-status transaction; no delivery transaction" in g["all"]["invalid_because"], g["all"]
    assert g["payment"]["valid"] == (g["payment"]["share_pct"] >= 43)


def test_repeatable_read_needs_max_tries(lab):
    """The kit runs at the server's isolation level, read committed by
    default; at repeatable read two clients' transactions fail on each
    other's updates (40001) and max_tries retries them: with 10 tries
    the run commits every transaction, and the conditions hold."""
    run_id = call_run(lab, "tpcc", clients=4, transactions=23, max_tries=10,
                      settings='{"default_transaction_isolation": "repeatable read"}')
    done, failures = lab.sql("SELECT sum(transactions), sum(failures) FROM pgbench_lab.run_scripts "
                             "WHERE run_id = %s", (run_id,))[0]
    assert (done, failures) == (92, 0)
    assert_consistent(lab)


def test_terminals_keep_a_home_warehouse(lab):
    """tpcc.terminals on: each client keeps the home warehouse client_id
    modulo the warehouses.  With a second warehouse that has no districts
    (made for the test, then dropped), where a new-order fails: one client
    (client 0, warehouse 1) commits its 20 new-orders, where drawing the
    warehouse would have sent about half there; two clients, and the
    second's first new-order fails the run there (23502)."""
    lab.sql("INSERT INTO tpcc.warehouse (w_id, w_tax, w_ytd) VALUES (2, 0, 0)")
    terminals = "settings => '{\"tpcc.terminals\": \"on\"}'"
    try:
        placed = lab.scalar("SELECT sum(d_next_o_id) FROM tpcc.district")
        with lab.connect() as conn:
            row = conn.execute("CALL pgbench_lab.run(scripts => '{tpcc-new-order}', clients => 1, "
                               f"transactions => 20, {terminals})").fetchone()
        assert row[1] == "done" and row[6] == 0, row
        rolled_back = lab.scalar("SELECT executions FROM pgbench_lab.run_commands WHERE run_id = %s "
                                 "AND command_text = '\\set rolled_back 1'", (row[0],))
        assert lab.scalar("SELECT sum(d_next_o_id) FROM tpcc.district WHERE d_w_id = 1") == placed + 20 - rolled_back
        with lab.connect() as conn:
            row = conn.execute("CALL pgbench_lab.run(scripts => '{tpcc-new-order}', clients => 2, "
                               f"transactions => 5, {terminals})").fetchone()
        assert row[1] == "failed", row
        assert lab.sql("SELECT sqlstate FROM pgbench_lab.run_errors WHERE run_id = %s", (row[0],)) == [("23502",)]
    finally:
        lab.sql("DELETE FROM tpcc.warehouse WHERE w_id = 2")
    assert_consistent(lab)


def test_racing_deliveries_skip_no_district(lab):
    """Two deliveries of one warehouse at once, as the issue raced them: the
    second passes the oldest new orders the first holds and delivers the
    next ones, so both deliver all ten districts, the two oldest orders of
    each."""
    oldest = lab.sql("SELECT no_d_id, no_o_id FROM (SELECT no_d_id, no_o_id, row_number() OVER "
                     "(PARTITION BY no_d_id ORDER BY no_o_id) AS n FROM tpcc.new_order WHERE no_w_id = 1) AS o "
                     "WHERE n <= 2 ORDER BY 1, 2")
    with lab.connect(autocommit=False) as a, lab.connect() as b:
        assert a.execute("SELECT tpcc.delivery(1, 1)").fetchone() == (10,)
        # b done, or waiting for a row a holds (a customer of both): then a commits
        bg = Background(b, "CREATE TEMPORARY TABLE delivered AS SELECT tpcc.delivery(1, 2) AS n")
        lab.poll("SELECT EXISTS (SELECT FROM pg_stat_activity WHERE pid = %s AND query LIKE '%%delivery(1, 2)%%' "
                 "AND (state = 'idle' OR wait_event_type = 'Lock'))", (bg.pid,))
        a.commit()
        assert bg.join() is None
        assert b.execute("SELECT n FROM delivered").fetchone() == (10,)
    carriers = lab.sql("SELECT o_d_id, o_id, o_carrier_id FROM tpcc.orders WHERE o_w_id = 1 "
                       "AND (o_d_id, o_id) IN (SELECT * FROM unnest(%s::int[], %s::int[])) ORDER BY 1, 2",
                       ([d for d, _ in oldest], [o for _, o in oldest]))
    assert [c[2] for c in carriers] == [1, 2] * 10, carriers
    assert lab.scalar("SELECT count(*) FROM tpcc.new_order WHERE no_w_id = 1 AND (no_d_id, no_o_id) IN "
                      "(SELECT * FROM unnest(%s::int[], %s::int[]))",
                      ([d for d, _ in oldest], [o for _, o in oldest])) == 0
    assert_consistent(lab)


# breaks of the tables, each with the conditions it breaks, in batches
# whose breaks touch different rows and break different conditions (one
# tpcc_check() a batch): every condition is broken by one of them
W1 = "WHERE w_id = 1"
D = "WHERE d_w_id = 1 AND d_id = %d"
C = "WHERE c_w_id = 1 AND c_d_id = 1 AND c_id = %d"
O = "WHERE o_w_id = 1 AND o_d_id = 1 AND o_id = %d"
L = "WHERE ol_w_id = 1 AND ol_d_id = 1 AND ol_o_id = %d AND ol_number = 1"
BREAKS = [
    [(f"UPDATE tpcc.district SET d_next_o_id = d_next_o_id + 1 {D % 1}", {2}),
     (f"UPDATE tpcc.warehouse SET w_ytd = w_ytd + 1 {W1}", {1, 8}),
     (f"UPDATE tpcc.orders SET o_carrier_id = NULL {O % 5}", {5, 7}),		# the issue's
     (f"UPDATE tpcc.customer SET c_delivery_cnt = c_delivery_cnt + 1 {C % 1}", {11}),
     (f"UPDATE tpcc.customer SET c_balance = c_balance + 1 {C % 2}", {10, 12})],	# the issue's
    [("DELETE FROM tpcc.new_order WHERE (no_w_id, no_d_id, no_o_id) = (SELECT no_w_id, no_d_id, min(no_o_id) + 1 "
      "FROM tpcc.new_order WHERE no_w_id = 1 AND no_d_id = 1 GROUP BY 1, 2)", {3, 5, 11}),
     (f"DELETE FROM tpcc.order_line {L % 5}", {4, 6}),
     (f"UPDATE tpcc.district SET d_ytd = d_ytd + 1 {D % 1}", {1, 9}),
     (f"UPDATE tpcc.customer SET c_ytd_payment = c_ytd_payment + 1 {C % 1}", {12})],
    [(f"UPDATE tpcc.orders SET o_ol_cnt = o_ol_cnt + 1 {O % 5}", {4, 6}),
     (f"UPDATE tpcc.order_line SET ol_delivery_d = NULL {L % 6}", {7}),
     (f"UPDATE tpcc.warehouse SET w_ytd = w_ytd + 1 {W1}", {8, 9}),
     (f"UPDATE tpcc.district SET d_ytd = d_ytd + 1 {D % 2}", set())],		# with the one above
]


def test_every_condition_broken_is_found(lab):
    """Each of clause 3.3.2's twelve conditions broken on purpose (the
    issue's two breaks among them) is found, with the places that differ
    and the first; nothing else is said to differ."""
    assert set().union(*(b for batch in BREAKS for _, b in batch)) == set(range(1, 13))
    with lab.connect(autocommit=False) as conn:
        for batch in BREAKS:
            broken = [b for _, b in batch]
            assert sum(map(len, broken)) == len(set().union(*broken)), batch	# each condition by one break
            for change, _ in batch:
                conn.execute(change)
            rows = conn.execute("SELECT condition, ok, differing, detail FROM pgbench_lab.tpcc_check()").fetchall()
            assert {r[0] for r in rows if not r[1]} == set().union(*broken), (batch, rows)
            for condition, ok, differing, detail in rows:
                assert ok or (differing >= 1 and "differ; the first, " in detail), detail
            conn.rollback()


@pytest.mark.parametrize("call, state, text", [
    ("init_tpcc(0, 'refused')", "22023", "0 warehouses is out of range"),
    ("init_tpcc(1001, 'refused')", "22023", "1001 warehouses is out of range"),
    ("init_tpcc(NULL, 'refused')", "22023", "NULL warehouses"),
    ("init_tpcc(1, '')", "22023", "schema must be a name"),
    ("init_tpcc(1)", "42P07", 'schema "tpcc" already holds TPC-C tables'),
    ("tpcc_check('refused')", "42P01", 'schema "refused" holds no TPC-C tables'),
])
def test_refusals(lab, call, state, text):
    """Bad input refused before anything is made."""
    with pytest.raises(psycopg.Error) as e:
        lab.sql(f"SELECT * FROM pgbench_lab.{call}")
    assert e.value.sqlstate == state and text in str(e.value), str(e.value)
    assert e.value.diag.message_hint
    assert lab.scalar("SELECT count(*) FROM pg_namespace WHERE nspname = 'refused'") == 0


def test_a_schema_of_any_name(lab):
    """A schema whose name needs quoting: the tables, the kit's functions
    and the saved scripts name it quoted, and the scripts run there."""
    lab.sql("""SELECT * FROM pgbench_lab.init_tpcc(1, 'Tpcc "two"')""")
    bodies = dict(lab.sql("SELECT name, body FROM pgbench_lab.scripts WHERE name LIKE 'tpcc-%'"))
    assert all('"Tpcc ""two""".' in b and "tpcc." not in b for b in bodies.values()), bodies
    with lab.connect() as conn:
        row = conn.execute("CALL pgbench_lab.run(scripts => %s, clients => 1, transactions => 20)",
                           ([f"{n}@{w}" for n, w in MIX.items()],)).fetchone()
    assert row[1] == "done", row
    rows = checks(lab, 'Tpcc "two"')
    assert len(rows) == 12 and all(r[1] for r in rows), rows
    assert lab.scalar('SELECT count(*) FROM "Tpcc ""two""".orders') >= 30000


# ---------------------------------------------------------------------------
# run('tpcc'): the workload name, its rollbacks and figures, think times
# (the run contract's part of the kit)
# ---------------------------------------------------------------------------

def assert_every_schema_consistent(c):
    """tpcc_check() holds in every schema with TPC-C tables (an earlier
    test may have saved the kit for another schema)."""
    for (schema,) in c.sql("SELECT n.nspname FROM pg_class r JOIN pg_namespace n ON n.oid = r.relnamespace "
                           "WHERE r.relname = 'warehouse' AND r.relkind = 'r'"):
        rows = checks(c, schema)
        assert len(rows) == 12 and all(r[1] for r in rows), (schema, rows)


def districts_next(c):
    """sum(d_next_o_id) over every schema's districts: the orders placed."""
    return sum(c.scalar(f"SELECT sum(d_next_o_id) FROM {s}.district") for (s,) in c.sql(
        "SELECT quote_ident(n.nspname) FROM pg_class r JOIN pg_namespace n ON n.oid = r.relnamespace "
        "WHERE r.relname = 'district' AND r.relkind = 'r'"))


def test_run_tpcc_and_its_figures(lab):
    """run('tpcc') runs the saved kit in its mix, recorded as workload tpcc;
    tpcc_figures() is what run_scripts and run_commands say, NOPM the orders
    the tables gained; report() and export() carry the figures."""
    placed = districts_next(lab)
    with lab.connect() as conn:
        row = conn.execute("CALL pgbench_lab.run('tpcc', clients => 4, transactions => 10, "
                           "sample_rate => 1)").fetchone()
    run_id = row[0]
    assert row[1] == "done", (row, lab.sql("SELECT * FROM pgbench_lab.run_errors WHERE run_id = %s", (run_id,)))
    secs, workload = lab.sql("SELECT measured_seconds, workload FROM pgbench_lab.runs WHERE run_id = %s",
                             (run_id,))[0]
    assert workload == "tpcc"
    assert_consistent(lab)		# the twelve conditions after a 4-client in-server run
    done = {n: (w, t, f, lat) for n, w, t, f, lat in lab.sql(
        "SELECT name, weight, transactions, failures, latency_avg_ms FROM pgbench_lab.run_scripts "
        "WHERE run_id = %s", (run_id,))}
    assert {n: v[0] for n, v in done.items()} == MIX
    assert sum(v[1] for v in done.values()) == 40
    rollbacks = lab.scalar("SELECT c.executions FROM pgbench_lab.run_commands c JOIN pgbench_lab.run_scripts s "
                           "USING (run_id, script) WHERE c.run_id = %s AND s.name = 'tpcc-new-order' "
                           "AND c.command_text = '\\set rolled_back 1'", (run_id,))
    assert rollbacks is not None
    new_orders = done["tpcc-new-order"][1]
    # every new-order committed its order but those rolled back
    assert districts_next(lab) - placed == new_orders - rollbacks
    with lab.connect() as conn:
        cur = conn.execute("SELECT * FROM pgbench_lab.tpcc_figures(%s)", (run_id,))
        figures = [dict(zip([d.name for d in cur.description], r)) for r in cur.fetchall()]
    assert [f["transaction_type"] for f in figures] == [n[5:] for n in MIX] + ["all"]
    nopm = (new_orders - rollbacks) * 60 / secs
    for f in figures:
        assert f["nopm"] == pytest.approx(nopm, rel=1e-12) and f["tpm"] == pytest.approx(40 * 60 / secs, rel=1e-12)
        assert f["measured_seconds"] == secs
        if f["transaction_type"] == "all":
            assert (f["transactions"], f["share_pct"], f["rollbacks"]) == (40, 100, rollbacks)
            assert f["failures"] == sum(v[2] for v in done.values())
            continue
        _, n, fails, lat = done["tpcc-" + f["transaction_type"]]
        assert (f["transactions"], f["failures"], f["latency_avg_ms"]) == (n, fails, lat)
        assert f["share_pct"] == pytest.approx(100 * n / 40, rel=1e-12)
        assert f["per_minute"] == pytest.approx(n * 60 / secs, rel=1e-12)
        assert f["rollbacks"] == (rollbacks if f["transaction_type"] == "new-order" else None)
        # sample_rate 1: each type's percentiles from its samples
        assert (f["latency_p50_ms"] is None) == (n == 0), f
    text = [r[0] for r in lab.sql("SELECT * FROM pgbench_lab.report(%s)", (run_id,))]
    assert any(line.startswith("  NOPM ") for line in text), text
    # the kit reads no :scale: the header does not give one
    assert any(line.startswith("max tries 1, random seed") for line in text), text[:6]
    flat = " ".join(" ".join(text).split())
    assert "each one database transaction, so that it equals HammerDB's count of the database's commits and rollbacks" \
        in flat, flat
    # the validity of its NOPM, said either way, and the response-time column
    assert "its NOPM stands" in flat or "NOPM NOT VALID: " in flat, flat
    assert any("resp. ms" in line for line in text), text
    doc = lab.scalar("SELECT pgbench_lab.export(%s)", ([run_id],))
    carried = doc["runs"][0]["tpcc"]
    assert [x["transaction_type"] for x in carried] == [f["transaction_type"] for f in figures]
    assert carried[-1]["nopm"] == pytest.approx(nopm, rel=1e-9)
    # import leaves the figures, and computes them again from the scripts
    import json
    again = lab.scalar("SELECT id FROM pgbench_lab.import(%s) WHERE kind = 'run'", (json.dumps(doc),))
    assert lab.scalar("SELECT nopm FROM pgbench_lab.tpcc_figures(%s) WHERE transaction_type = 'all'",
                      (again,)) == pytest.approx(nopm, rel=1e-9)
    assert_every_schema_consistent(lab)
    other = call_run(lab, None, script="SELECT 1;", transactions=1)
    with pytest.raises(psycopg.errors.InvalidParameterValue):	# not a run of the kit
        lab.sql("SELECT * FROM pgbench_lab.tpcc_figures(%s)", (other,))


def test_run_tpcc_without_the_kit_refused(lab):
    """A role that saved no kit is told how to make it, before anything runs."""
    lab.sql("CREATE ROLE tpcc_nokit LOGIN")
    lab.sql("GRANT USAGE ON SCHEMA pgbench_lab TO tpcc_nokit")
    lab.sql("GRANT EXECUTE ON ALL ROUTINES IN SCHEMA pgbench_lab TO tpcc_nokit")
    runs = lab.scalar("SELECT count(*) FROM pgbench_lab.runs")
    with pytest.raises(psycopg.Error) as e:
        lab.sql("CALL pgbench_lab.run('tpcc', clients => 1, transactions => 1)", user="tpcc_nokit")
    assert e.value.sqlstate == "42704", str(e.value)
    assert 'role "tpcc_nokit" has no TPC-C kit' in str(e.value)
    assert e.value.diag.message_hint == ("Make the TPC-C tables and the kit first: "
                                         "SELECT * FROM pgbench_lab.init_tpcc(warehouses => 1);")
    assert lab.scalar("SELECT count(*) FROM pgbench_lab.runs") == runs


def test_cancelled_tpcc_run_keeps_the_conditions(lab):
    """A timed run('tpcc') cancelled while its clients work leaves the tables
    consistent (each transaction committed whole or not at all)."""
    run_id = lab.scalar("SELECT pgbench_lab.start('tpcc', clients => 2, duration => '1 min')")
    lab.poll("SELECT transactions > 10 FROM pgbench_lab.active_runs WHERE run_id = %s", (run_id,))
    assert lab.scalar("SELECT pgbench_lab.cancel(%s)", (run_id,)) is True
    lab.poll("SELECT status <> 'running' FROM pgbench_lab.runs WHERE run_id = %s", (run_id,))
    status, workload, done = lab.sql("SELECT status, workload, transactions FROM pgbench_lab.runs "
                                     "WHERE run_id = %s", (run_id,))[0]
    assert (status, workload) == ("cancelled", "tpcc") and done > 10
    assert_every_schema_consistent(lab)


def test_compare_settings_takes_tpcc_and_think_times(lab):
    """An experiment takes the workload tpcc with no change of its own; the
    think times are off by default, and a factor scales them: each sleep
    asked lasts at least its keying time."""
    with lab.connect() as conn:
        eid = conn.execute("""CALL pgbench_lab.compare_settings('tpcc',
                                  ARRAY['{}', '{"tpcc.think_times": "0.0001"}']::jsonb[],
                                  clients => 2, duration => '0.3 s', rounds => 1)""").fetchone()[0]
    assert lab.scalar("SELECT status FROM pgbench_lab.experiments WHERE experiment_id = %s", (eid,)) == "done"
    runs = [r[0] for r in lab.sql("SELECT run_id FROM pgbench_lab.experiment_runs WHERE experiment_id = %s "
                                  "ORDER BY ordinal", (eid,))]
    assert len(runs) == 2
    assert lab.scalar("SELECT count(*) FILTER (WHERE workload = 'tpcc' AND status = 'done') FROM pgbench_lab.runs "
                      "WHERE run_id = ANY(%s)", (runs,)) == 2
    sleeps = "SELECT s.name, c.command_text, c.executions, c.latency_avg_ms FROM pgbench_lab.run_commands c " \
             "JOIN pgbench_lab.run_scripts s USING (run_id, script) WHERE c.run_id = %s AND c.kind = 'sleep'"
    off, on = (lab.sql(sleeps, (r,)) for r in runs)
    assert len(off) == 10 and all(n == 0 for _, _, n, _ in off), off	# off by default
    keying = {"tpcc-new-order": 18, "tpcc-payment": 3, "tpcc-order-status": 2,
              "tpcc-delivery": 2, "tpcc-stock-level": 2}
    slept = 0
    for name, text, n, ms in on:
        slept += n
        if text == "\\sleep :keying_us us" and n > 0:
            assert ms >= keying[name] * 1000 * 0.0001, (name, ms)	# a sleep is never shorter
    assert slept > 0, on
    # the response times: the latency less the keying and think sleeps
    off_f, on_f = (figures(lab, r) for r in runs)
    assert all(x["response_avg_ms"] == x["latency_avg_ms"] for x in off_f.values() if x["transactions"])
    assert on_f["all"]["response_avg_ms"] < on_f["all"]["latency_avg_ms"], on_f["all"]
    with pytest.raises(psycopg.errors.UndefinedObject):	# a misspelt name is no placeholder
        lab.sql("""SELECT pgbench_lab.start('tpcc', settings => '{"tpcc.think_time": "on"}')""")


def test_run_tpcc_over_libpq_in_simple_mode(lab):
    """The workload tpcc over libpq, in any query_mode: they are scripts."""
    run_id = call_run(lab, "tpcc", via="libpq", clients=2, transactions=5, query_mode="simple")
    assert lab.sql("SELECT workload, via, transactions FROM pgbench_lab.runs WHERE run_id = %s",
                   (run_id,)) == [("tpcc", "libpq", 10)]
    assert_every_schema_consistent(lab)


# -- the load (init_tpcc()'s speed, bytes, disk check and generator) ---------

def test_load_reports_bytes_and_megabytes_per_second(lab):
    """Each table's step (with its primary key, written with the rows) and
    the indexes' step report their bytes and MB/s
    after the first four columns; a last line totals the call."""
    steps = lab.steps		# step -> (seconds, rows, rows/s, bytes, MB/s)
    assert all(steps[t][3] > 0 for t in TABLES + ["indexes"])
    assert all(steps[s][3] is None for s in ("tables", "analyze", "scripts"))
    for name, (seconds, _, _, size, mbps) in steps.items():
        if size is not None and seconds > 0:
            assert abs(mbps - Decimal(size) / 1048576 / seconds) <= Decimal("0.05"), name
    total = steps["total"]
    parts = [s for n, s in steps.items() if n != "total"]
    assert total[1] == sum(s[1] or 0 for s in parts)
    assert total[3] == sum(s[3] or 0 for s in parts)
    # one warehouse: about 100 MB of tables and keys
    assert 90e6 < total[3] < 160e6
    assert total[0] >= max(s[0] for s in parts)
    # the tables' text columns sort by bytes (ANALYZE's and the index's sorts)
    assert lab.scalar("SELECT bool_and(attcollation = 'pg_catalog.\"C\"'::regcollation) FROM pg_attribute "
                      "WHERE attrelid = 'tpcc.customer'::regclass AND atttypid IN ('varchar'::regtype, 'bpchar'::regtype)")


def test_load_refused_beyond_the_free_disk(lab):
    """More than the default tablespace's file system holds is refused
    (53100) with what it needs and has; an estimate that fits is returned."""
    with pytest.raises(psycopg.Error) as e:
        lab.sql("SELECT pgbench_lab_internal.tpcc_check_disk(1, %s)", (2 ** 62,))
    assert e.value.sqlstate == "53100" and "needs about" in str(e.value) and "free" in str(e.value)
    assert e.value.diag.message_hint
    one = lab.scalar("SELECT pgbench_lab_internal.tpcc_check_disk(1)")
    assert 100e6 < one < 100e6 + 2 ** 31		# with at most max_wal_size (1GB) of WAL
    # init_tpcc() itself, at the limit of 1 000 warehouses (about 116 GB with
    # the spare and WAL), only where the disk cannot hold it: never filled
    if shutil.disk_usage(lab.datadir).free > 1000 * 106e6 * 1.1 + 14e6 + 2 ** 31:
        pytest.skip("this disk could hold init_tpcc(1000): its refusal is tested through the estimate above")
    with pytest.raises(psycopg.Error) as e:
        lab.sql("SELECT * FROM pgbench_lab.init_tpcc(1000, 'refused')")
    assert e.value.sqlstate == "53100" and "init_tpcc(1000) needs about" in str(e.value), str(e.value)
    assert lab.scalar("SELECT count(*) FROM pg_namespace WHERE nspname = 'refused'") == 0


@pytest.mark.parametrize("call, state, text", [
    ("tpcc_load('tpcc.stock', 1, 1)", "55000", 'table "stock" is not a bare empty table made in this transaction'),
    ("tpcc_load('pg_catalog.pg_class', 1, 1)", "22023", 'table "pg_class" is not one of'),
    ("tpcc_check_disk(0)", "22023", "0 warehouses is out of range"),
])
def test_load_helpers_refuse(lab, call, state, text):
    """The generator fills only a bare table new in the transaction."""
    with pytest.raises(psycopg.Error) as e:
        lab.sql(f"SELECT pgbench_lab_internal.{call}")
    assert e.value.sqlstate == state and text in str(e.value), str(e.value)


def test_load_helpers_only_for_init_tpcc_grantees(lab):
    """PUBLIC may execute the helpers, but they refuse a role that may not
    execute init_tpcc()."""
    lab.sql("CREATE ROLE tpcc_nobody")
    stock = lab.scalar("SELECT 'tpcc.stock'::regclass::oid")
    with lab.connect() as conn:
        conn.execute("SET ROLE tpcc_nobody")
        for call in ("tpcc_check_disk(1)", f"tpcc_load({stock}, 1, 1)",
                     "tpcc_progress(1, '{1}', 'x', false)"):
            with pytest.raises(psycopg.Error) as e:
                conn.execute(f"SELECT pgbench_lab_internal.{call}")
            assert e.value.sqlstate == "42501" and "init_tpcc()" in e.value.diag.message_hint, call


def test_load_progress_as_init_gives_it(lab):
    """Each step shows in pgbench_lab.in_progress while it runs, and as a
    NOTICE with progress_after = 0.  Held at its first step (another
    session is creating the same schema), then cancelled: nothing is left."""
    notices = []
    with lab.connect(autocommit=False) as holder, lab.connect() as conn:
        holder.execute("CREATE SCHEMA progress")
        conn.add_notice_handler(lambda d: notices.append(d.message_primary))
        conn.execute("SET pgbench_lab.progress_after = 0")
        bg = Background(conn, "SELECT * FROM pgbench_lab.init_tpcc(1, 'progress')")
        lab.poll("SELECT EXISTS (SELECT FROM pgbench_lab.in_progress WHERE pid = %s)", (bg.pid,))
        row = lab.sql("SELECT call, progress FROM pgbench_lab.in_progress WHERE pid = %s", (bg.pid,))[0]
        assert row[0] == "init_tpcc()" and row[1].startswith("step 1 of 13: tables"), row
        lab.sql("SELECT pg_cancel_backend(%s)", (bg.pid,))
        assert bg.join().sqlstate == "57014"
        holder.rollback()
    assert any(n.startswith("step 1 of 13: tables") for n in notices), notices
    assert lab.scalar("SELECT count(*) FROM pg_namespace WHERE nspname = 'progress'") == 0


def test_load_keys_written_with_the_rows_check(lab):
    """The primary keys, written with the rows in key order (composite keys
    through dataset_btree.c), and the two indexes pass amcheck's parent
    check with every row found in them."""
    lab.sql("CREATE EXTENSION IF NOT EXISTS amcheck")
    indexes = [r[0] for r in lab.sql("SELECT indexrelid::regclass::text FROM pg_index "
                                     "WHERE indrelid::regclass::text LIKE 'tpcc.%'")]
    assert len(indexes) == 10, indexes
    for index in indexes:		# an ERROR says what is wrong
        lab.sql("SELECT bt_index_parent_check(%s::regclass, true, true)", (index,))


def test_load_on_a_target(lab):
    """target => conninfo: the tables, keys and kit functions made on that
    server by set-based SQL in one transaction (here this very server over
    libpq: no second cluster), the conditions holding there, the scripts
    saved here for that schema; a bad conninfo and a schema that holds the
    tables there refused, nothing made."""
    target = f"host=127.0.0.1 port={lab.port} dbname=postgres user=postgres"
    steps = {r[0]: r[1:] for r in lab.sql("SELECT * FROM pgbench_lab.init_tpcc(1, 'remote', target => %s)",
                                          (target,))}
    assert list(steps) == ["tables", "item", "warehouse", "district", "customer", "history", "orders",
                           "new_order", "order_line", "stock", "indexes", "analyze", "scripts", "total"]
    for t in TABLES:
        assert steps[t][1] == lab.scalar(f"SELECT count(*) FROM remote.{t}"), t
        assert steps[t][3] > 0, t
    rows = checks(lab, "remote")
    assert len(rows) == 12 and all(r[1] for r in rows), rows
    assert lab.scalar("SELECT count(*) FROM pg_constraint WHERE contype = 'p' "
                      "AND connamespace = 'remote'::regnamespace") == 8
    assert lab.scalar("SELECT count(*) FROM pgbench_lab.scripts WHERE name LIKE 'tpcc-%' "
                      "AND body LIKE '%remote.%'") == 5
    for call, state, text in [
            (f"init_tpcc(1, 'remote', target => '{target}')", "42P07", 'schema "remote" already holds TPC-C tables'),
            ("init_tpcc(1, 'refused', target => 'nonsense=1')", "22023", "invalid target")]:
        with pytest.raises(psycopg.Error) as e:
            lab.sql(f"SELECT * FROM pgbench_lab.{call}")
        assert e.value.sqlstate == state and text in str(e.value), str(e.value)
        assert e.value.diag.message_hint
    assert lab.scalar("SELECT count(*) FROM pg_namespace WHERE nspname = 'refused'") == 0
    # nothing later reads them
    lab.sql("DROP SCHEMA remote CASCADE")


def loading_order_lines(conn, target, schema):
    """init_tpcc(2, schema, target => target's conninfo) started on conn in
    the background and seen loading order_line there: the call, and the pid
    of its session on the target."""
    bg = Background(conn, "SELECT * FROM pgbench_lab.init_tpcc(2, %s, target => %s)",
                    (schema, f"host=127.0.0.1 port={target.port} dbname=postgres user=postgres"))
    active = ("FROM pg_stat_activity WHERE application_name = 'pgbench_lab' "
              f"AND state = 'active' AND query LIKE '%%{schema}.order_line%%'")
    target.poll(f"SELECT count(*) = 1 {active}", timeout=300)
    return bg, target.scalar(f"SELECT pid {active}")


def test_load_on_a_target_cancelled(lab):
    """A cancel of init_tpcc(target => ...) while a step runs there: the
    statement under way is cancelled on the target (its log says so),
    the session there ends, and its one transaction rolls back: no schema
    is left.  Asserts what happened, never how long it took."""
    log_from = len(lab.log())
    with lab.connect() as conn:
        bg, there = loading_order_lines(conn, lab, "tc_cancel")
        lab.sql("SELECT pg_cancel_backend(%s)", (bg.pid,))
        e = bg.join(timeout=300)
    assert e is not None and e.sqlstate == "57014", e
    lab.poll("SELECT count(*) = 0 FROM pg_stat_activity WHERE application_name = 'pgbench_lab' "
             "AND backend_type = 'client backend'", timeout=30)
    assert re.search(rf"\[{there}\] [^\n]*ERROR:  canceling statement due to user request\n"
                     r"[^\n]*STATEMENT:\s+INSERT INTO tc_cancel\.", lab.log()[log_from:]), "not cancelled there"
    assert lab.scalar("SELECT count(*) FROM pg_namespace WHERE nspname = 'tc_cancel'") == 0


def test_load_on_a_frozen_target_cancelled(lab, new_cluster):
    """The target hangs (every process of it stopped) while a step runs
    there, and the caller cancels: the cancel request to the target gives
    up at its limit rather than wait for an answer that cannot come, the
    call ends (57014), and once the target runs again its session ends and
    its transaction rolls back.  Before PostgreSQL 17 libpq has no cancel
    that can give up, so the call would wait for the target."""
    if int(lab.scalar("SHOW server_version_num")) < 170000:
        pytest.skip("libpq's cancel request blocks before PostgreSQL 17")
    other = new_cluster("tpcc-frozen")
    with lab.connect() as conn:
        bg, _ = loading_order_lines(conn, other, "tc_frozen")
        with frozen(other):
            lab.sql("SELECT pg_cancel_backend(%s)", (bg.pid,))
            e = bg.join(timeout=120)
    assert e is not None and e.sqlstate == "57014", e
    other.poll("SELECT count(*) = 0 FROM pg_stat_activity WHERE application_name = 'pgbench_lab' "
               "AND backend_type = 'client backend'", timeout=120)
    assert other.scalar("SELECT count(*) FROM pg_namespace WHERE nspname = 'tc_frozen'") == 0
