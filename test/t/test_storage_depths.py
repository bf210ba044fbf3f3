"""storage: io_test()'s random reads at queue depths 1, 4, 16 and 64, the
knee depth, and what storage_latest makes of them.

Figures are never compared with a speed: the tests check that each depth
was measured the way the documentation says (each random read reaches the
device, the OS cache dropped), and that the knee and effective_io_concurrency
follow the documented rule applied to the figures returned.
"""
from decimal import Decimal

import pytest

DEPTHS = [1, 4, 16, 64]
BLOCK = 8192


def fs_type(path):
    """The file system type of the mount that holds path (/proc/mounts)."""
    best, kind = "", None
    with open("/proc/mounts") as f:
        for line in f:
            _dev, mnt, typ = line.split()[:3]
            mnt = mnt.replace("\\040", " ")
            if (path == mnt or path.startswith(mnt.rstrip("/") + "/")) and len(mnt) > len(best):
                best, kind = mnt, typ
    return kind


def knee(depths):
    """The documented rule: the smallest depth whose reads per second are at
    least 90% of the best depth's, in the tenths io_test() returns."""
    tenths = {d["depth"]: int(Decimal(str(d["iops"])) * 10) for d in depths}
    best = max(tenths.values())
    return min(d for d, t in tenths.items() if t * 100 >= best * 90)


def proc_io(pid):
    """A backend's I/O counters: rchar (bytes its reads returned) and
    read_bytes (bytes fetched from the block device on its behalf)."""
    try:
        with open(f"/proc/{pid}/io") as f:
            return {k: int(v) for k, v in (line.split(":") for line in f)}
    except OSError as e:
        pytest.skip(f"/proc/{pid}/io is not readable here: {e}")


def test_depths_knee_and_latest(node):
    with node.connect() as conn:
        row = conn.execute(
            "SELECT random_read_iops, read_cache_bypass, iops_by_depth, knee_depth"
            " FROM pgbench_lab.io_test('16MB', 1)").fetchone()
        iops1, bypass, depths, knee_depth = row
        recorded = conn.execute(
            "SELECT results -> 'iops_by_depth', (results ->> 'knee_depth')::int,"
            " (results ->> 'random_read_iops')::numeric"
            " FROM pgbench_lab.storage_tests WHERE kind = 'io' ORDER BY id DESC LIMIT 1").fetchone()
        latest = conn.execute(
            "SELECT effective_io_concurrency, knee_depth, iops_by_depth, storage_class,"
            " storage_class_reason, random_read_iops FROM pgbench_lab.storage_latest").fetchone()

    assert [d["depth"] for d in depths] == DEPTHS, depths
    for d in depths:
        assert d["iops"] > 0 and d["reads"] > 0 and d["seconds"] > 0, depths
    # depth 1 is random_read_iops, measured as before depths were
    assert Decimal(str(depths[0]["iops"])) == iops1
    assert depths[0]["method"] == bypass
    assert bypass in ("O_DIRECT", "posix_fadvise"), depths
    # deeper reads go through a cache that was really dropped; on tmpfs
    # nothing can be dropped and the figures say so
    expected = "none" if fs_type(node.datadir) == "tmpfs" else "posix_fadvise"
    assert [d["method"] for d in depths[1:]] == [expected] * 3, depths

    assert knee_depth in DEPTHS
    assert knee_depth == knee(depths), depths

    # kept in storage_tests as returned
    assert recorded == (depths, knee_depth, iops1)
    # storage_latest's effective_io_concurrency is the measured knee
    eic, latest_knee, latest_depths, cls, reason, latest_iops = latest
    assert (eic, latest_knee, latest_depths) == (knee_depth, knee_depth, depths)
    assert latest_iops == iops1 and cls is not None
    assert f"effective_io_concurrency {knee_depth} measured: " in reason, reason


def test_each_random_read_reaches_the_device(node):
    """No random read is served by the OS cache: every byte the backend's
    reads returned was fetched from the device (the kernel's per-process
    counters), so the cache never served a repeat or a leftover."""
    with node.connect() as conn:
        pid = conn.info.backend_pid
        conn.execute("SELECT * FROM pgbench_lab.io_test('1MB', 0.05)").fetchall()	# warm the session
        before = proc_io(pid)
        file_size, depths = conn.execute(
            "SELECT file_size, iops_by_depth FROM pgbench_lab.io_test('16MB', 1)").fetchone()
        after = proc_io(pid)
    returned = after["rchar"] - before["rchar"]
    fetched = after["read_bytes"] - before["read_bytes"]
    random_bytes = sum(d["reads"] for d in depths) * BLOCK
    if fetched == 0:
        pytest.skip("the kernel accounts no block-device reads to processes here")
    # returned: the sequential read (at most the file), the random reads and
    # the blocks in flight read after each stretch's clock stopped
    assert returned >= random_bytes, (returned, random_bytes)
    # a cached read returns bytes without fetching them; allow a few pages
    # of the server's own files
    assert returned - fetched <= 64 * BLOCK, (returned, fetched, random_bytes, depths)
    assert returned <= file_size + random_bytes + 2 * sum(DEPTHS) * BLOCK + 64 * BLOCK


def test_old_result_without_depths(node):
    """A result recorded before depths were measured: effective_io_concurrency
    comes from the storage class, and the reason says so."""
    with node.connect() as conn, conn.transaction(force_rollback=True):
        conn.execute(
            "INSERT INTO pgbench_lab.storage_tests (kind, started_at, finished_at, seconds,"
            " size_bytes, results) VALUES ('io', now(), now(), 1, 67108864,"
            " '{\"random_read_iops\": 2000, \"read_cache_bypass\": \"O_DIRECT\"}')")
        eic, knee_depth, depths, cls, reason = conn.execute(
            "SELECT effective_io_concurrency, knee_depth, iops_by_depth, storage_class,"
            " storage_class_reason FROM pgbench_lab.storage_latest").fetchone()
        assert (eic, knee_depth, depths, cls) == (300, None, None, "san")
        assert "effective_io_concurrency 300 from the storage class" in reason, reason
