"""storage: fsync_test() and io_test() leave no file behind, whatever happens.

The temporary file lives in the data directory; these tests list that
directory as root (the test runner) after success, error, cancel and
terminate, and check who may run the functions and read their results,
which row fsync_test() marks as the fastest safe one, and that its figures
agree with the server's own pg_test_fsync on the same directory.
"""
import math
import os
import re
import signal
import statistics
import subprocess
import threading
import time

import psycopg
import pytest

from conftest import BINDIR, PG_MAJOR, Background, _as_postgres


def leftovers(node):
    """Every file in the data directory that fsync_test or io_test made."""
    found = []
    for root, _dirs, files in os.walk(node.datadir):
        found += [os.path.join(root, f) for f in files if "pgbench_lab" in f]
    return found


def tmp_file_exists(node, kind):
    d = os.path.join(node.datadir, "base", "pgsql_tmp")
    try:
        return any(f.endswith(f".pgbench_lab_{kind}") for f in os.listdir(d))
    except FileNotFoundError:
        return False


def wait_running(node, bg, kind):
    """Until the statement is active and its file is in the data directory."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        state = node.scalar("SELECT state FROM pg_stat_activity WHERE pid = %s", (bg.pid,))
        if state == "active" and tmp_file_exists(node, kind):
            return
        assert bg.thread.is_alive(), f"statement ended early: {bg.error}"
        time.sleep(0.02)
    raise AssertionError("test never started")


def test_success_leaves_nothing_and_records(node):
    before = node.scalar("SELECT count(*) FROM pgbench_lab.storage_tests")
    rows = node.sql("SELECT method, supported, fastest_safe FROM pgbench_lab.fsync_test(0.5)")
    assert len(rows) == 19
    assert sum(1 for r in rows if r[2]) == 1
    io = node.sql("SELECT file_size, read_cache_bypass FROM pgbench_lab.io_test('8MB', 0.5)")
    assert len(io) == 1 and 0 < io[0][0] <= 8 * 1024 * 1024
    assert io[0][1] in ("O_DIRECT", "posix_fadvise")
    assert leftovers(node) == []
    assert node.scalar("SELECT count(*) FROM pgbench_lab.storage_tests") == before + 2
    kinds = node.sql("SELECT kind, jsonb_typeof(results) FROM pgbench_lab.storage_tests"
                     " ORDER BY id DESC LIMIT 2")
    assert kinds == [("io", "object"), ("fsync", "object")]


@pytest.mark.parametrize("kind,query", [
    ("fsync", "SELECT * FROM pgbench_lab.fsync_test(5)"),
    ("io", "SELECT * FROM pgbench_lab.io_test('256MB', 5)"),
])
def test_cancel_removes_file(node, kind, query):
    before = node.scalar("SELECT count(*) FROM pgbench_lab.storage_tests")
    bg = Background(node.connect(), query)
    wait_running(node, bg, kind)
    cancelled_at = time.monotonic()
    assert node.scalar("SELECT pg_cancel_backend(%s)", (bg.pid,)) is True
    bg.join()
    bg.conn.close()
    assert bg.error is not None and bg.error.sqlstate == "57014", bg.error
    # every loop checks for interrupts: the cancel is served at once
    assert bg.ended_at - cancelled_at < 3
    assert leftovers(node) == []
    assert node.scalar("SELECT count(*) FROM pgbench_lab.storage_tests") == before


def test_terminate_removes_file(node):
    bg = Background(node.connect(), "SELECT * FROM pgbench_lab.fsync_test(5)")
    wait_running(node, bg, "fsync")
    assert node.scalar("SELECT pg_terminate_backend(%s)", (bg.pid,)) is True
    bg.join()
    bg.conn.close()
    assert bg.error is not None
    # the FATAL reaches the client before the backend's exit callbacks run
    node.poll("SELECT NOT EXISTS (SELECT FROM pg_stat_activity WHERE pid = %s)", (bg.pid,))
    assert leftovers(node) == []


def test_error_removes_file(node):
    """An error raised while the file exists: recording in a read-only transaction."""
    with node.connect(autocommit=False) as conn:
        conn.execute("SET TRANSACTION READ ONLY")
        with pytest.raises(psycopg.Error) as e:
            conn.execute("SELECT * FROM pgbench_lab.fsync_test(0.5)")
        assert e.value.sqlstate == "25006"
    assert leftovers(node) == []


def test_superuser_only(node):
    node.sql("CREATE ROLE storage_user LOGIN IN ROLE pg_monitor")
    node.sql("GRANT EXECUTE ON FUNCTION pgbench_lab.fsync_test(numeric),"
             " pgbench_lab.io_test(text, numeric) TO storage_user")
    try:
        for q in ("SELECT * FROM pgbench_lab.fsync_test(0.5)",
                  "SELECT * FROM pgbench_lab.io_test('8MB', 0.5)",
                  "INSERT INTO pgbench_lab.storage_tests (kind, started_at, finished_at,"
                  " seconds, results) VALUES ('io', now(), now(), 1, '{}')"):
            with pytest.raises(psycopg.Error) as e:
                node.sql(q, user="storage_user")
            assert e.value.sqlstate == "42501", q
        # pg_monitor reads the figures
        assert node.scalar("SELECT count(*) FROM pgbench_lab.storage_latest",
                           user="storage_user") == 1
        assert leftovers(node) == []
    finally:
        node.sql("DROP OWNED BY storage_user")
        node.sql("DROP ROLE storage_user")


def test_size_beyond_free_space(node):
    st = os.statvfs(node.datadir)
    free = st.f_bavail * st.f_frsize
    if free > 1900 * 1024 ** 3:
        pytest.skip("more than 1900GB free: no size parse_int accepts exceeds it")
    with pytest.raises(psycopg.Error) as e:
        node.sql("SELECT * FROM pgbench_lab.io_test('2000GB', 1)")
    assert e.value.sqlstate == "53100"
    assert "free space" in str(e.value)
    assert leftovers(node) == []


def test_pg_dump_keeps_results(node):
    node.sql("SELECT * FROM pgbench_lab.io_test('4MB', 0.3)")
    n = node.scalar("SELECT count(*) FROM pgbench_lab.storage_tests")
    out = node.run_client("pg_dump", "--data-only", "--table=pgbench_lab.storage_tests",
                          "postgres").stdout
    assert "COPY pgbench_lab.storage_tests" in out
    copy = out.split("COPY pgbench_lab.storage_tests", 1)[1].split("\\.", 1)[0]
    assert len(copy.strip().splitlines()) - 1 == n


def o_direct_conf():
    """Settings under which the server writes WAL with O_DIRECT."""
    if PG_MAJOR >= 16:
        return {"debug_io_direct": "'wal'"}
    return {"wal_level": "minimal", "max_wal_senders": "0"}


def test_fastest_safe_as_the_server_writes(new_cluster):
    """fastest_safe is chosen among the rows the server would write like if
    wal_sync_method alone changed: with WAL under O_DIRECT, those opened with
    O_DIRECT as the server would (every method from 16 on, the open_* ones
    in 15), and the current row is one of them."""
    c = new_cluster("odirect", o_direct_conf())
    c.sql("CREATE EXTENSION pgbench_lab CASCADE")
    rows = c.sql("SELECT method, direct, ops_per_second, supported, is_current, fastest_safe"
                 " FROM pgbench_lab.fsync_test(0.5)"
                 " WHERE writes_per_sync = 1 AND write_size = 8192")

    def as_server(method):
        return True if PG_MAJOR >= 16 else method.startswith("open_")

    candidates = [r for r in rows if r[0] != "write" and r[1] == as_server(r[0]) and r[3]]
    if not candidates:
        pytest.skip("the file system refuses O_DIRECT")
    best = [r for r in rows if r[5]]
    assert len(best) == 1 and best[0] in candidates, rows
    assert best[0][2] == max(r[2] for r in candidates), rows
    current = [r for r in rows if r[4]]
    assert len(current) == 1 and current[0] in candidates, rows
    # storage_latest names it
    assert c.scalar("SELECT fastest_safe_method FROM pgbench_lab.storage_latest") == best[0][0]


def test_fastest_safe_default(node):
    """With WAL written through the page cache (the default), the fastest
    safe row is one without O_DIRECT, and the current row is a candidate."""
    rows = node.sql("SELECT method, direct, ops_per_second, supported, is_current, fastest_safe"
                    " FROM pgbench_lab.fsync_test(0.5)"
                    " WHERE writes_per_sync = 1 AND write_size = 8192")
    candidates = [r for r in rows if r[0] != "write" and not r[1] and r[3]]
    best = [r for r in rows if r[5]]
    assert len(best) == 1 and best[0] in candidates, rows
    assert best[0][2] == max(r[2] for r in candidates), rows
    assert all(not r[1] for r in rows if r[4]), rows


# pg_test_fsync's methods with one 8 kB write, and the fsync_test() rows
# written the same way (it opens the open_* methods with O_DIRECT).
PG_TEST_FSYNC_ROWS = {"open_datasync": True, "fdatasync": False,
                      "fsync": False, "open_sync": True}
AGREE_BAND = 4


def pg_test_fsync(node):
    """pg_test_fsync -s 1's ops/s for one 8 kB write per sync, in the data
    directory's base/pgsql_tmp (as fsync_test writes); stopped after that
    first section, 4 s, the rest is of no use here."""
    path = os.path.join(node.datadir, "base", "pgsql_tmp", "pgsql_tmp_pg_test_fsync")
    proc = subprocess.Popen(_as_postgres([os.path.join(BINDIR, "pg_test_fsync"), "-s", "1",
                                          "-f", path]),
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            start_new_session=True)
    stop = threading.Timer(60, os.killpg, (proc.pid, signal.SIGKILL))
    stop.start()
    found = {}
    try:
        for line in proc.stdout:
            m = re.match(r"\s+(\w+)\s+([\d.]+) ops/sec", line)
            if m:
                found[m[1]] = float(m[2])
            if line.split()[:1] == ["open_sync"]:
                break
    finally:
        stop.cancel()
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait()
        if os.path.exists(path):
            os.unlink(path)
    return found


def test_agrees_with_pg_test_fsync(node):
    """Each method's median round agrees with pg_test_fsync's figure for it
    on the same directory.  The two tools run one after the other, and the
    device's speed may change in between (a shared disk): each method's
    ratio, fsync_test over pg_test_fsync, is taken relative to the median
    ratio of the four, which cancels that out, and must lie within a factor
    of AGREE_BAND; a method gets three tries (a shared disk that changes
    speed within one tool's pass can put one method out).  fdatasync's rounds measured
    1-5 % of pg_test_fsync's figure when the plain write's dirty pages were
    flushed by its first sync (the other methods 95-120 %)."""
    best = {}
    for _ in range(3):
        lab = {m: med for m, direct, med in node.sql(
            "SELECT method, direct, median_round FROM pgbench_lab.fsync_test(0.5)"
            " WHERE writes_per_sync = 1 AND write_size = 8192 AND supported")
            if PG_TEST_FSYNC_ROWS.get(m) == direct}
        ptf = pg_test_fsync(node)
        ratios = {m: float(lab[m]) / ptf[m] for m in PG_TEST_FSYNC_ROWS
                  if m in lab and ptf.get(m)}
        if len(ratios) < 2:
            pytest.skip(f"too few methods measured by both: {lab}, {ptf}")
        centre = statistics.median(ratios.values())
        for m, r in ratios.items():
            off = abs(math.log(r / centre))
            if m not in best or off < best[m][0]:
                best[m] = (off, r / centre, lab[m], ptf[m])
        if all(off <= math.log(AGREE_BAND) for off, *_ in best.values()):
            break
    for m, (off, rel, lab_med, ptf_ops) in best.items():
        assert off <= math.log(AGREE_BAND), \
            f"{m}: fsync_test's median {lab_med} ops/s against pg_test_fsync's {ptf_ops}" \
            f" is {rel:.2f} times the methods' median ratio: {best}"
    assert leftovers(node) == []
