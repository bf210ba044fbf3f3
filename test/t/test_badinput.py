"""Bad input: every function refuses NULLs, zero, negatives, NaN, infinities,
overflow, bad units, unknown names and wrong relation kinds with the
expected SQLSTATE; then thousands of calls with arbitrary arguments leave
the server up (no restart, no crash in the log) and no worker behind."""
import os
import random
import re
import time

import psycopg
import pytest

from conftest import Cluster, PG_MAJOR
from test_runner import balances

WORKER_TYPES = "('pgbench_lab coordinator', 'pgbench_lab client', 'pgbench_lab dataset')"
CRASH = re.compile(r"terminated by signal|PANIC|was terminated by exception|server process .* exited with exit code [2-9]")

BAD = [
    # recommend / memory_budget / recommend_sql
    ("SELECT * FROM pgbench_lab.recommend(ram => '0')", "22023"),
    ("SELECT * FROM pgbench_lab.recommend(ram => '-4GB')", "22023"),
    ("SELECT * FROM pgbench_lab.recommend(ram => 'NaN')", "22023"),
    ("SELECT * FROM pgbench_lab.recommend(ram => 'Infinity')", "22003"),
    ("SELECT * FROM pgbench_lab.recommend(ram => '8 EB')", "22023"),
    ("SELECT * FROM pgbench_lab.recommend(ram => '9223372036854775807 kB')", "22003"),
    ("SELECT * FROM pgbench_lab.recommend(ram => '1 AB')", "22023"),
    ("SELECT * FROM pgbench_lab.recommend(ram => '')", "22023"),
    ("SELECT * FROM pgbench_lab.recommend(ram => 'kb')", "22023"),
    ("SELECT * FROM pgbench_lab.recommend(ram => '+912+ kB')", "22023"),
    ("SELECT * FROM pgbench_lab.recommend(cpus => 0)", "22023"),
    ("SELECT * FROM pgbench_lab.recommend(cpus => -2)", "22023"),
    ("SELECT * FROM pgbench_lab.recommend(cpus => 'NaN')", "22023"),
    ("SELECT * FROM pgbench_lab.recommend(cpus => 'Infinity')", "22003"),
    ("SELECT * FROM pgbench_lab.recommend(max_connections => 0)", "22023"),
    ("SELECT * FROM pgbench_lab.recommend(max_connections => -1)", "22023"),
    ("SELECT * FROM pgbench_lab.recommend(max_connections => 2147483647)", "22003"),
    ("SELECT * FROM pgbench_lab.recommend(workload => 'batch')", "22023"),
    ("SELECT * FROM pgbench_lab.recommend(workload => NULL)", "22023"),
    ("SELECT * FROM pgbench_lab.recommend(storage => 'tape')", "22023"),
    ("SELECT * FROM pgbench_lab.recommend(os => 'beos')", "22023"),
    ("SELECT * FROM pgbench_lab.recommend(data_size => '-1GB')", "22023"),
    ("SELECT * FROM pgbench_lab.recommend(os_reserve => 'lots')", "22023"),
    ("SELECT * FROM pgbench_lab.recommend(ram => '4GB', os_reserve => '8GB')", "22023"),
    ("SELECT * FROM pgbench_lab.memory_budget(ram => '0')", "22023"),
    ("SELECT * FROM pgbench_lab.memory_budget(max_connections => -5)", "22023"),
    ("SELECT * FROM pgbench_lab.memory_budget(work_mem => '-1MB')", "22023"),
    ("SELECT * FROM pgbench_lab.memory_budget(work_mem => '1 XB')", "22023"),
    ("SELECT * FROM pgbench_lab.memory_budget(shared_buffers => '8 EB')", "22023"),
    ("SELECT * FROM pgbench_lab.memory_budget(maintenance_work_mem => 'NaN')", "22023"),
    ("SELECT * FROM pgbench_lab.memory_budget(effective_cache_size => '')", "22023"),
    ("SELECT * FROM pgbench_lab.memory_budget(autovacuum_max_workers => 0)", "22023"),
    ("SELECT * FROM pgbench_lab.recommend_sql(ram => '-1')", "22023"),
    ("SELECT * FROM pgbench_lab.recommend_sql(workload => 'oltp2')", "22023"),
    # init / init_sql
    ("SELECT * FROM pgbench_lab.init_sql(NULL)", "22004"),
    ("SELECT * FROM pgbench_lab.init_sql(0)", "22023"),
    ("SELECT * FROM pgbench_lab.init_sql(-1)", "22023"),
    ("SELECT * FROM pgbench_lab.init_sql(1, fillfactor => 9)", "22023"),
    ("SELECT * FROM pgbench_lab.init_sql(1, fillfactor => 101)", "22023"),
    ("SELECT * FROM pgbench_lab.init_sql(1, fillfactor => NULL)", "22004"),
    ("SELECT * FROM pgbench_lab.init_sql(1, foreign_keys => NULL)", "22004"),
    ("SELECT * FROM pgbench_lab.init(NULL)", "22004"),
    ("SELECT * FROM pgbench_lab.init(0)", "22023"),
    ("SELECT * FROM pgbench_lab.init(-5)", "22023"),
    ("SELECT * FROM pgbench_lab.init(100000)", "22023"),
    ("SELECT * FROM pgbench_lab.init(1, unlogged => NULL)", "22004"),
    ("SELECT * FROM pgbench_lab.init(3000000000)", "42883"),
    # start / run / wait / cancel / run_live
    ("SELECT pgbench_lab.start(NULL)", "22004"),
    ("SELECT pgbench_lab.start('tpch')", "22023"),
    ("SELECT pgbench_lab.start('')", "22023"),
    ("SELECT pgbench_lab.start('select-only', clients => 0)", "22023"),
    ("SELECT pgbench_lab.start('select-only', clients => -1)", "22023"),
    ("SELECT pgbench_lab.start('select-only', clients => NULL)", "22023"),
    ("SELECT pgbench_lab.start('select-only', clients => 2147483647)", "22023"),
    ("SELECT pgbench_lab.start('select-only', duration => '0 s')", "22023"),
    ("SELECT pgbench_lab.start('select-only', duration => '-1 s')", "22023"),
    # infinite intervals exist from PostgreSQL 17; before, the cast refuses them
    ("SELECT pgbench_lab.start('select-only', duration => 'infinity')", "22023" if PG_MAJOR >= 17 else "22007"),
    # infinite intervals exist from PostgreSQL 17; before, the cast refuses them
    ("SELECT pgbench_lab.start('select-only', duration => '-infinity')", "22023" if PG_MAJOR >= 17 else "22007"),
    ("SELECT pgbench_lab.start('select-only', duration => '100 years')", "22023"),
    ("SELECT pgbench_lab.start('select-only', duration => NULL)", "22023"),
    ("SELECT pgbench_lab.start('select-only', transactions => 0)", "22023"),
    ("SELECT pgbench_lab.start('select-only', transactions => -9223372036854775808)", "22023"),
    ("SELECT pgbench_lab.start('select-only', max_tries => -1)", "22023"),
    ("SELECT pgbench_lab.start('select-only', transactions => 5, max_tries => 0)", "22023"),
    ("SELECT pgbench_lab.start('select-only', transactions => 1, label => repeat('x', 10000))", "22001"),
    ("SELECT pgbench_lab.start('select-only', transactions => 1, settings => '[]')", "22023"),
    ("SELECT pgbench_lab.start('select-only', transactions => 1, settings => '42')", "22023"),
    ("SELECT pgbench_lab.start('select-only', transactions => 1, settings => '{\"no_such_setting\": \"1\"}')", "42704"),
    ("SELECT pgbench_lab.start('select-only', transactions => 1, settings => '{\"work_mem\": \"lots\"}')", "22023"),
    ("SELECT pgbench_lab.start('select-only', transactions => 1, settings => '{\"work_mem\": null}')", "22023"),
    ("SELECT pgbench_lab.start('select-only', transactions => 1, settings => '{\"shared_buffers\": \"1GB\"}')", "55P02"),
    ("SELECT pgbench_lab.start('select-only', transactions => 1, settings => jsonb_build_object('work_mem', repeat('9', 100000)))", "22023"),
    # short enough as names and values, too long as the JSON the run records
    ("SELECT pgbench_lab.start('select-only', transactions => 1, settings => jsonb_build_object('application_name', repeat('\"', 3000)))", "22023"),
    ("SELECT pgbench_lab.start('select-only', transactions => 1, settings => '{\"work_mem\": [1]}')", "22023"),
    ("SELECT pgbench_lab.start('select-only', rate => 0)", "22023"),
    ("SELECT pgbench_lab.start('select-only', rate => -1)", "22023"),
    ("SELECT pgbench_lab.start('select-only', rate => 'NaN')", "22023"),
    ("SELECT pgbench_lab.start('select-only', rate => 'Infinity')", "22023"),
    ("SELECT pgbench_lab.start('select-only', rate => '-Infinity')", "22023"),
    ("SELECT pgbench_lab.start('select-only', rate => 1e300)", "22023"),
    ("SELECT pgbench_lab.start('select-only', latency_limit => '0')", "22023"),
    ("SELECT pgbench_lab.start('select-only', latency_limit => '-1 ms')", "22023"),
    ("SELECT pgbench_lab.start('select-only', latency_limit => '1 mon')", "22023"),
    ("SELECT pgbench_lab.start('select-only', latency_limit => 'infinity')", "22023" if PG_MAJOR >= 17 else "22007"),
    ("CALL pgbench_lab.run('select-only', rate => 'NaN')", "22023"),
    ("CALL pgbench_lab.run('select-only', latency_limit => '-infinity')", "22023" if PG_MAJOR >= 17 else "22007"),
    ("CALL pgbench_lab.run(NULL)", "22004"),
    ("CALL pgbench_lab.run('tpch')", "22023"),
    ("CALL pgbench_lab.run('select-only', clients => 0)", "22023"),
    # connection_cost checks its three runs before the first starts
    ("CALL pgbench_lab.connection_cost('select-only', 1, '1 s', target => 'no_such_option=1')", "22023"),
    ("CALL pgbench_lab.connection_cost('select-only', 1, '1 s', target => 'host=127.0.0.1 port=1')", "08001"),
    ("CALL pgbench_lab.connection_cost('select-only', 1, '0 s')", "22023"),
    ("CALL pgbench_lab.connection_cost('tpch', 1, '1 s')", "22023"),
    ("CALL pgbench_lab.wait(NULL)", "22004"),
    ("CALL pgbench_lab.wait(-1)", "42704"),
    ("CALL pgbench_lab.wait(9223372036854775807)", "42704"),
    ("SELECT pgbench_lab.cancel(-1)", "42704"),
    ("SELECT pgbench_lab.cancel(0)", "42704"),
    ("SELECT pgbench_lab.cancel(NULL)", "22004"),
    ("SELECT * FROM pgbench_lab_internal.run_live(-1)", "42704"),
    # cache
    ("SELECT * FROM pgbench_lab.cache_status('pg_class_oid_index_nope')", "42P01"),
    ("SELECT * FROM pgbench_lab.cache_status(0)", "42P01"),
    ("SELECT * FROM pgbench_lab.cache_status('pg_tables')", "42809"),
    ("SELECT * FROM pgbench_lab.make_cold(NULL)", "22004"),
    ("SELECT * FROM pgbench_lab.make_cold('pg_class')", "42501"),
    ("SELECT * FROM pgbench_lab.make_cold('pg_class_oid_index')", "42501"),
    ("SELECT * FROM pgbench_lab.make_cold('pg_tables')", "42501"),
    ("SELECT * FROM pgbench_lab.make_cold(12345678)", "42P01"),
    ("SELECT * FROM pgbench_lab.make_cold(0)", "42P01"),
    ("SELECT * FROM pgbench_lab.make_cold('pgbench_accounts', include_indexes => NULL)", "22004"),
    ("SELECT * FROM pgbench_lab.make_cold('pgbench_accounts', os_cache => NULL)", "22004"),
    ("SELECT * FROM pgbench_lab.warm(NULL)", "22004"),
    ("SELECT * FROM pgbench_lab.warm('pgbench_accounts', 'hot')", "22023"),
    ("SELECT * FROM pgbench_lab.warm('pgbench_accounts', NULL)", "22004"),
    ("SELECT * FROM pgbench_lab.warm('pgbench_accounts', '')", "22023"),
    ("SELECT * FROM pgbench_lab.warm('pg_tables')", "42809"),
    ("SELECT * FROM pgbench_lab.warm('pgbench_accounts', include_indexes => NULL)", "22004"),
    ("SELECT * FROM pgbench_lab.warm(0)", "42P01"),
    # storage
    ("SELECT * FROM pgbench_lab.fsync_test(NULL)", "22004"),
    ("SELECT * FROM pgbench_lab.fsync_test(0)", "22023"),
    ("SELECT * FROM pgbench_lab.fsync_test(-1)", "22023"),
    ("SELECT * FROM pgbench_lab.fsync_test('NaN')", "22023"),
    ("SELECT * FROM pgbench_lab.fsync_test('Infinity')", "22023"),
    ("SELECT * FROM pgbench_lab.fsync_test(1e100)", "22023"),
    ("SELECT * FROM pgbench_lab.io_test(NULL)", "22004"),
    ("SELECT * FROM pgbench_lab.io_test('0')", "22023"),
    ("SELECT * FROM pgbench_lab.io_test('-1GB')", "22023"),
    ("SELECT * FROM pgbench_lab.io_test('1 XB')", "22023"),
    ("SELECT * FROM pgbench_lab.io_test('8 EB')", "22023"),
    ("SELECT * FROM pgbench_lab.io_test('1MB', NULL)", "22004"),
    ("SELECT * FROM pgbench_lab.io_test('1MB', 0)", "22023"),
    ("SELECT * FROM pgbench_lab.io_test('1MB', 'NaN')", "22023"),
    ("SELECT * FROM pgbench_lab.io_test('1MB', '-Infinity')", "22023"),
]

# wrong relation kinds, on objects made by the fixture
BAD += [
    ("SELECT * FROM pgbench_lab.make_cold('bad_parted')", "42809"),
    ("SELECT * FROM pgbench_lab.warm('bad_parted')", "42809"),
    ("SELECT * FROM pgbench_lab.cache_status('bad_view')", "42809"),
    ("SELECT * FROM pgbench_lab.make_cold('bad_view')", "42809"),
    ("SELECT * FROM pgbench_lab.warm('bad_foreign')", "42809"),
    ("SELECT * FROM pgbench_lab.make_cold('pg_toast.pg_toast_1255')", "42501"),
    ("SELECT * FROM pgbench_lab.warm('bad_seq', 'read', include_indexes => NULL)", "22004"),
]


@pytest.fixture(scope="module")
def lab():
    c = Cluster("badinput", {"shared_buffers": "32MB", "max_worker_processes": "12",
                             "pgbench_lab.max_duration": "2", "pgbench_lab.cache_min_size": "0"})
    try:  # a failed set-up must not leave a server running
        c.start()
        c.run_client("pgbench", "-i", "-s", "1", "-q", "postgres")
        c.sql("CREATE EXTENSION pgbench_lab CASCADE")
        c.sql("CREATE TABLE bad_parted (id int) PARTITION BY RANGE (id)")
        c.sql("CREATE VIEW bad_view AS SELECT 1 AS one")
        c.sql("CREATE FOREIGN DATA WRAPPER bad_fdw")
        c.sql("CREATE SERVER bad_srv FOREIGN DATA WRAPPER bad_fdw")
        c.sql("CREATE FOREIGN TABLE bad_foreign (id int) SERVER bad_srv")
        c.sql("CREATE MATERIALIZED VIEW bad_matview AS SELECT g FROM generate_series(1, 100) g")
        c.sql("CREATE SEQUENCE bad_seq")
        yield c
    finally:
        c.destroy()


def sqlstate_of(conn, sql):
    try:
        conn.execute(sql)
        return "00000"
    except psycopg.Error as e:
        return e.sqlstate


def test_bad_calls_refused(lab):
    assert len(BAD) >= 60
    runs = lab.scalar("SELECT count(*) FROM pgbench_lab.runs")
    got = []
    with lab.connect() as conn:
        for sql, want in BAD:
            got.append((sql, want, sqlstate_of(conn, sql)))
    wrong = [g for g in got if g[1] != g[2]]
    assert not wrong, "\n".join(f"{s}: expected {w}, got {g}" for s, w, g in wrong)
    print(f"bad calls refused with the expected SQLSTATE: {len(got)}")
    assert lab.scalar("SELECT count(*) FROM pgbench_lab.runs") == runs
    assert lab.scalar(f"SELECT count(*) FROM pg_stat_activity WHERE backend_type IN {WORKER_TYPES}") == 0


def test_transaction_count_runs_stop_at_max_duration(lab):
    """A run by transaction count cannot outlive pgbench_lab.max_duration (2 s here)."""
    t0 = time.monotonic()
    run_id = lab.scalar("SELECT pgbench_lab.start('select-only', transactions => 9223372036854775807)")
    with lab.connect() as conn:
        row = conn.execute("CALL pgbench_lab.wait(%s)", (run_id,)).fetchone()
    assert row[1] == "done" and 0 < row[2] < 9223372036854775807
    assert time.monotonic() - t0 < 15


# -- randomized calls -------------------------------------------------------

TEXT = [None, "", "x", "0", "-1", "1", "1GB", "4 gb", "1.5 GB", "1e6 MB", "-4GB", "NaN", "Infinity",
        "-Infinity", "8 EB", "9223372036854775807 kB", "1e308 MB", "+912+ kB", "..", "kb", "1 AB",
        "x" * 5000, "\x01", "é", "%s%n%d", "'; DROP TABLE pgbench_accounts; --",
        "tpcb-like", "select-only", "simple-update", "oltp", "web", "dw", "mixed", "desktop",
        "ssd", "hdd", "nvme", "san", "linux", "windows", "macos", "buffer", "read", "prefetch",
        "16MB", "1MB", "0.5MB", "1 TB"]
INT = [None, 0, 1, -1, 2, 9, 10, 100, 101, 64, 65, 5000, 2147483647, -2147483648]
BIGINT = [None, 0, 1, -1, 2, 9223372036854775807, -9223372036854775808]
NUMERIC = [None, "0", "-1", "0.001", "0.5", "1", "4", "1000000", "NaN", "Infinity", "-Infinity",
           "1e100", "1e-100", "-0"]
FLOAT8 = [None, None, None, "0", "-1", "1e-300", "0.001", "1", "1000", "1e9", "1e10", "NaN",
          "Infinity", "-Infinity"]
INTERVAL = [None, "0", "-1 s", "1 ms", "100 ms", "infinity", "-infinity", "100 years", "1 mon",
            "-1 mon 40 days"]
JSONB = [None, "{}", "[]", "1", "null", '"x"', '{"work_mem": "4MB"}', '{"x.y": 1}',
         '{"work_mem": {"a": 1}}', '{"shared_buffers": "1GB"}', '{"role": "postgres"}',
         '{"statement_timeout": "1"}', '{"work_mem": null}', '{"": ""}',
         '{"default_transaction_read_only": "on"}']
REL = [None, "pgbench_accounts", "pgbench_accounts_pkey", "pgbench_history", "pg_class",
       "pg_class_oid_index", "pg_tables", "bad_parted", "bad_view", "bad_foreign", "bad_matview",
       "bad_seq", "pgbench_lab.runs", "pg_toast.pg_toast_1255", "information_schema.tables",
       "no_such_relation", "0", "1", "4294967295"]
BOOL = [None, True, False]

# name: (SQL template, argument pools).  Worker-starting calls are bounded:
# start() by the cluster's pgbench_lab.max_duration (2 s) and rarely drawn;
# init() and run() are left out (their checks are the same as init_sql's
# and start()'s and they are covered above).
CALLS = {
    "recommend": ("SELECT count(*) FROM pgbench_lab.recommend(%s::text, %s::numeric, %s::int, %s::text, "
                  "%s::text, %s::text, %s::text, %s::text)",
                  [TEXT, NUMERIC, INT, TEXT, TEXT, TEXT, TEXT, TEXT]),
    "memory_budget": ("SELECT count(*) FROM pgbench_lab.memory_budget(%s::text, %s::int, %s::text, "
                      "%s::text, %s::text, %s::text, %s::int)",
                      [TEXT, INT, TEXT, TEXT, TEXT, TEXT, INT]),
    "recommend_sql": ("SELECT count(*) FROM pgbench_lab.recommend_sql(%s::text, %s::numeric, %s::int, "
                      "%s::text, %s::text, %s::text, %s::text, %s::text)",
                      [TEXT, NUMERIC, INT, TEXT, TEXT, TEXT, TEXT, TEXT]),
    "init_sql": ("SELECT count(*) FROM pgbench_lab.init_sql(%s::int, %s::int, %s::bool, %s::bool, "
                 "%s::int, %s::text, %s::text, %s::text, %s::text)",
                 [INT, INT, BOOL, BOOL, [None, -1, 0, 1, 4, 10000, 10001, 2147483647],
                  [None, "range", "hash", "list", ""],
                  [None, "", " ", "dtgvp", "dtGvpf", "x", "ddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd"],
                  TEXT, TEXT]),
    "cache_status": ("SELECT count(*) FROM pgbench_lab.cache_status(%s::regclass)", [REL]),
    "make_cold": ("SELECT count(*) FROM pgbench_lab.make_cold(%s::regclass, %s::bool, %s::bool)",
                  [REL, BOOL, BOOL]),
    "warm": ("SELECT count(*) FROM pgbench_lab.warm(%s::regclass, %s::text, %s::bool)",
             [REL, TEXT, BOOL]),
    "cache_snapshot": ("SELECT pgbench_lab.cache_snapshot(%s::text)", [TEXT]),
    "storage_class": ("SELECT count(*) FROM pgbench_lab.storage_class(%s::numeric)", [NUMERIC]),
    "fsync_test": ("SELECT count(*) FROM pgbench_lab.fsync_test(%s::numeric)",
                   [[None, "0", "-1", "0.001", "NaN", "Infinity", "-Infinity", "1e100", "601"]]),
    "io_test": ("SELECT count(*) FROM pgbench_lab.io_test(%s::text, %s::numeric)",
                [[None, "", "0", "-1GB", "1MB", "1 XB", "8 EB", "0.5MB", "1e308 MB", "x"],
                 [None, "0", "-1", "0.001", "NaN", "Infinity", "601"]]),
    "cancel": ("SELECT pgbench_lab.cancel(%s::bigint)", [BIGINT + ["RUN"]]),
    "run_live": ("SELECT * FROM pgbench_lab_internal.run_live(%s::bigint)", [BIGINT + ["RUN"]]),
    "wait": ("CALL pgbench_lab.wait(%s::bigint)", [BIGINT + ["RUN"]]),
    "system_info": ("SELECT count(*) FROM pgbench_lab.system_info()", []),
    "start": ("SELECT pgbench_lab.start(%s::text, %s::int, %s::interval, %s::bigint, %s::text, "
              "%s::jsonb, %s::int, %s::bigint, rate => %s::float8, latency_limit => %s::interval)",
              [TEXT, [None, -1, 0, 1, 2, 2147483647], INTERVAL, [None, 0, -1, 1, 3],
               TEXT, JSONB, INT, BIGINT, FLOAT8, INTERVAL]),
}
WEIGHTS = {"start": 0.2, "fsync_test": 0.3, "io_test": 0.3, "cache_snapshot": 0.2}


def test_randomized_calls(lab):
    n = int(os.environ.get("PGBL_RANDOM_CALLS", "5000"))
    seed = int(os.environ.get("PGBL_RANDOM_SEED", str(random.randrange(1 << 30))))
    rng = random.Random(seed)
    print(f"random seed {seed} (PGBL_RANDOM_SEED reproduces it)")
    started = lab.scalar("SELECT pg_postmaster_start_time()")
    names = list(CALLS)
    weights = [WEIGHTS.get(k, 1.0) for k in names]
    outcome = {}
    spent = {}
    with lab.connect() as conn:
        conn.execute("SET statement_timeout = '20s'")
        for i in range(n):
            name = rng.choices(names, weights)[0]
            sql, pools = CALLS[name]
            args = [rng.choice(p) for p in pools]
            if "RUN" in args:
                last = conn.execute("SELECT max(run_id) FROM pgbench_lab.runs").fetchone()[0]
                args = [last if a == "RUN" else a for a in args]
            t0 = time.monotonic()
            try:
                conn.execute(sql, args)
                state = "00000"
            except psycopg.Error as e:
                # psycopg files some server errors (class 55, 57, 58) under
                # OperationalError too: only a closed connection or an error
                # without a SQLSTATE means the server went away
                if conn.closed or e.sqlstate is None:
                    pytest.fail(f"call {i} ({name}{tuple(args)!r:.300}) lost the connection: {e}")
                state = e.sqlstate
            # class XX (internal error) means an input reached a code path that
            # did not expect it: each must have a proper SQLSTATE
            assert state is not None and not state.startswith("XX"), \
                f"call {i}: {name}{tuple(args)!r:.300} -> {state}"
            outcome.setdefault(name, {}).setdefault(state, 0)
            outcome[name][state] += 1
            spent[name] = spent.get(name, 0) + time.monotonic() - t0
    assert sum(sum(v.values()) for v in outcome.values()) == n
    lab.poll(f"SELECT count(*) = 0 FROM pg_stat_activity WHERE backend_type IN {WORKER_TYPES}",
             timeout=30)
    lab.poll("SELECT count(*) = 0 FROM pgbench_lab.runs WHERE status = 'running'", timeout=30)
    assert lab.scalar("SELECT pg_postmaster_start_time()") == started
    crashes = [line for line in lab.log().splitlines() if CRASH.search(line)]
    assert not crashes, crashes[:5]
    # tpcb-like changes all four sums alike, simple-update only accounts and
    # history: together they keep these two equalities
    a, t, b, h = balances(lab)
    assert a == h and t == b, (a, t, b, h)
    ok = sum(v.get("00000", 0) for v in outcome.values())
    print(f"randomized calls: {n}, accepted {ok}, refused {n - ok}, server restarts 0")
    for name in sorted(outcome):
        print(f"  {name}: {dict(sorted(outcome[name].items()))}, {spent[name]:.1f} s")
