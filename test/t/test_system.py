"""pgbench_lab.system_info() on this machine and on laid-out machines.

The first tests compare what the server reports with what Python sees of
the same machine (/proc/meminfo, the server process's CPU affinity, the data
directory's mount and block device).  The others lay out /proc and /sys
trees of cgroup v1 and v2 machines under a temporary directory, point
pgbench_lab.sysroot at it, and check the effective limits and their sources;
malformed files must give 'unavailable' facts, never an error.
"""
import os
import shutil
import stat
import tempfile

import psycopg
import pytest

GIB = 1024 ** 3
MEMINFO = """MemTotal:        8388608 kB
MemFree:         1234567 kB
HugePages_Total:      10
HugePages_Free:        4
Hugepagesize:       2048 kB
"""
# The laid-out machine: 8 GiB, 4 CPUs online and allowed.
BASE = {
    "proc/meminfo": MEMINFO,
    "sys/devices/system/cpu/online": "0-3\n",
    "proc/self/status": "Name:\tpostgres\nCpus_allowed_list:\t0-3\n",
}


def facts(node, sysroot=None, user="postgres"):
    """system_info() as {name: (value, unit, source)}, in one session."""
    with node.connect(user=user) as conn:
        if sysroot is not None:
            conn.execute("SELECT set_config('pgbench_lab.sysroot', %s, false)", [sysroot])
        rows = conn.execute("SELECT name, value, unit, source FROM pgbench_lab.system_info()").fetchall()
    assert len(rows) == len({r[0] for r in rows}), "duplicate fact names"
    return {r[0]: (r[1], r[2], r[3]) for r in rows}


@pytest.fixture
def machine():
    """Factory: lay out {relative path: content} under a fresh sysroot."""
    roots = []

    def make(files, base=True):
        root = tempfile.mkdtemp(prefix="pgbl-sysroot-")
        roots.append(root)
        for rel, content in {**(BASE if base else {}), **files}.items():
            path = os.path.join(root, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            if content is None:
                os.makedirs(path, exist_ok=True)
                continue
            with open(path, "w") as f:
                f.write(content)
        # readable by the server's user: 755 directories, 644 files
        for d, dirs, files_ in os.walk(root):
            os.chmod(d, 0o755)
            for name in files_:
                os.chmod(os.path.join(d, name), 0o644)
        return root

    yield make
    for r in roots:
        shutil.rmtree(r, ignore_errors=True)


def value(f, name):
    return f[name][0]


def source(f, name):
    return f[name][2]


def assert_consistent(f):
    """A NULL value always says why; a value never claims 'unavailable'."""
    for name, (v, _unit, src) in f.items():
        if v is None:
            assert src == "unavailable" or src.endswith("(no limit)"), (name, src)
        else:
            assert src != "unavailable", (name, v)


# ---- this machine ---------------------------------------------------------

def test_real_memory_and_cpus(node):
    f = facts(node)
    assert_consistent(f)
    with open("/proc/meminfo") as fh:
        total_kb = next(int(l.split()[1]) for l in fh if l.startswith("MemTotal:"))
    assert int(value(f, "physical_ram")) == total_kb * 1024
    assert source(f, "physical_ram") == "/proc/meminfo MemTotal"
    assert int(value(f, "memory_limit")) <= total_kb * 1024
    assert int(value(f, "cpus_online")) == os.cpu_count()
    with node.connect() as conn:
        f2 = {r[0]: r[1] for r in conn.execute("SELECT name, value FROM pgbench_lab.system_info()")}
        # the backend's own view: the test may run in another PID namespace
        status = conn.execute("SELECT pg_read_file('/proc/self/status')").fetchone()[0]
    allowed = next(l.split(":", 1)[1].strip() for l in status.splitlines()
                   if l.startswith("Cpus_allowed_list:"))
    count = 0
    for part in allowed.split(","):
        lo, _, hi = part.partition("-")
        count += int(hi or lo) - int(lo) + 1
    assert int(f2["cpus_affinity"]) == count
    assert 0 < float(value(f, "cpus_effective")) <= os.cpu_count()
    assert value(f, "os") == os.uname().sysname.lower()
    assert value(f, "kernel_release") == os.uname().release


def test_real_cgroup_version(node):
    """The cgroup version of the memory limit is the one the backend is in.

    The backend's cgroup file and the cgroup mount are read by the server
    itself (pg_read_file, pg_stat_file): the test process may live in another
    PID namespace, where /proc/<backend pid> does not exist.
    """
    with node.connect() as conn:
        src = conn.execute("SELECT source FROM pgbench_lab.system_info()"
                           " WHERE name = 'cgroup_memory_max'").fetchone()[0]
        text = conn.execute("SELECT pg_read_file('/proc/self/cgroup')").fetchone()[0]

        def exists(path):
            return conn.execute("SELECT pg_stat_file(%s, true) IS NOT NULL",
                                (path,)).fetchone()[0]

        v1_file = exists("/sys/fs/cgroup/memory/memory.limit_in_bytes")
        v2_root = exists("/sys/fs/cgroup/cgroup.controllers")
        controllers = (conn.execute("SELECT pg_read_file('/sys/fs/cgroup/cgroup.controllers')")
                       .fetchone()[0].split() if v2_root else [])
    lines = [l.split(":", 2) for l in text.splitlines() if l.count(":") >= 2]
    v1 = [path for _id, ctl, path in lines if "memory" in ctl.split(",")]
    if v1 and v1_file:
        assert src.startswith("cgroup v1 memory.limit_in_bytes"), src
    elif not v1 and v2_root:
        if "memory" in controllers:
            assert src.startswith("cgroup v2 memory.max"), src
    else:
        assert src == "unavailable" or src.startswith("cgroup v"), src


def _mount_of(path):
    """Longest mountinfo mount point covering path: (point, fstype, source)."""
    best = None
    with open("/proc/self/mountinfo") as fh:
        for line in fh:
            pre, post = line.rstrip("\n").split(" - ", 1)
            point = pre.split(" ")[4].replace("\\040", " ")
            covers = point == "/" or path == point or path.startswith(point + "/")
            if covers and (best is None or len(point) >= len(best[0])):
                best = (point, post.split(" ")[0], post.split(" ")[1])
    return best


def test_real_data_directory(node):
    f = facts(node)
    datadir = os.path.realpath(node.datadir)
    assert value(f, "data_directory") == datadir
    point, fstype, src = _mount_of(datadir)
    assert value(f, "data_mount_point") == point
    assert value(f, "data_filesystem") == fstype
    assert value(f, "data_mount_source") == src
    st = os.stat(datadir)
    link = f"/sys/dev/block/{os.major(st.st_dev)}:{os.minor(st.st_dev)}"
    if os.path.exists(link):
        target = os.path.realpath(link)
        if os.path.exists(os.path.join(target, "partition")):
            target = os.path.dirname(target)
        dev = os.path.basename(target)
        assert value(f, "data_device") == dev
        with open(f"/sys/block/{dev}/queue/rotational") as fh:
            rot = fh.read().strip() == "1"
        assert value(f, "data_rotational") == ("true" if rot else "false")
    else:
        assert value(f, "data_device") is None
        assert source(f, "data_device") == "unavailable"
    vfs = os.statvfs(datadir)
    total = vfs.f_blocks * vfs.f_frsize
    assert int(value(f, "data_total_space")) == total
    free = vfs.f_bavail * vfs.f_frsize
    # other processes write meanwhile: allow 1 % of the disk
    assert abs(int(value(f, "data_free_space")) - free) <= total // 100


def test_build_facts(node):
    f = facts(node)
    assert int(value(f, "server_version_num")) == int(node.scalar("SHOW server_version_num"))
    assert int(value(f, "block_size")) == int(node.scalar("SELECT current_setting('block_size')"))
    wal = node.scalar("SELECT setting::bigint * 1 FROM pg_settings WHERE name = 'wal_segment_size'")
    unit = node.scalar("SELECT unit FROM pg_settings WHERE name = 'wal_segment_size'")
    factor = {"B": 1, "8kB": 8192, "MB": 1024 * 1024}[unit]
    assert int(value(f, "wal_segment_size")) == wal * factor
    assert value(f, "lz4") in ("true", "false")
    # default_toast_compression accepts lz4 exactly when the build has it
    with node.connect() as conn:
        try:
            conn.execute("SET default_toast_compression = lz4")
            has_lz4 = "true"
        except psycopg.Error:
            has_lz4 = "false"
    assert value(f, "lz4") == has_lz4


# ---- laid-out machines ----------------------------------------------------

def test_cgroup_v2_limited(node, machine):
    root = machine({
        "proc/self/cgroup": "0::/system.slice/postgresql.service\n",
        "sys/fs/cgroup/cgroup.controllers": "cpuset cpu io memory pids\n",
        "sys/fs/cgroup/system.slice/postgresql.service/memory.max": f"{2 * GIB}\n",
        "sys/fs/cgroup/system.slice/postgresql.service/memory.high": "max\n",
        "sys/fs/cgroup/system.slice/postgresql.service/cpu.max": "150000 100000\n",
        "sys/fs/cgroup/system.slice/postgresql.service/cpuset.cpus.effective": "0-1\n",
    })
    f = facts(node, root)
    assert_consistent(f)
    assert value(f, "physical_ram") == str(8 * GIB)
    assert value(f, "cgroup_memory_max") == str(2 * GIB)
    assert value(f, "memory_limit") == str(2 * GIB)
    assert source(f, "memory_limit") == (
        f"cgroup v2 memory.max at {root}/sys/fs/cgroup/system.slice/postgresql.service/memory.max")
    assert value(f, "cgroup_memory_high") is None
    assert source(f, "cgroup_memory_high") == "cgroup v2 memory.high (no limit)"
    assert value(f, "cpus_online") == "4"
    assert value(f, "cpus_affinity") == "4"
    assert value(f, "cgroup_cpuset") == "2"
    assert value(f, "cgroup_cpu_quota") == "1.5"
    assert value(f, "cpus_effective") == "1.5"
    assert source(f, "cpus_effective").startswith("cgroup v2 cpu.max at ")
    assert value(f, "hugepage_size") == str(2 * 1024 * 1024)
    assert value(f, "hugepages_total") == "10"
    assert value(f, "hugepages_free") == "4"


def test_cgroup_v2_memory_high_below_max(node, machine):
    root = machine({
        "proc/self/cgroup": "0::/db\n",
        "sys/fs/cgroup/cgroup.controllers": "cpu memory\n",
        "sys/fs/cgroup/db/memory.max": f"{4 * GIB}\n",
        "sys/fs/cgroup/db/memory.high": f"{3 * GIB}\n",
    })
    f = facts(node, root)
    assert value(f, "memory_limit") == str(3 * GIB)
    assert source(f, "memory_limit").startswith("cgroup v2 memory.high at ")


def test_cgroup_v2_cpuset_smallest(node, machine):
    root = machine({
        "proc/self/cgroup": "0::/pinned\n",
        "sys/fs/cgroup/cgroup.controllers": "cpuset cpu memory\n",
        "sys/fs/cgroup/cpuset.cpus.effective": "0-3\n",
        "sys/fs/cgroup/pinned/cpuset.cpus.effective": "2\n",
        "sys/fs/cgroup/pinned/cpu.max": "max 100000\n",
    })
    f = facts(node, root)
    assert value(f, "cgroup_cpuset") == "1"
    assert value(f, "cpus_effective") == "1"
    assert source(f, "cpus_effective") == (
        f"cgroup v2 cpuset.cpus.effective at {root}/sys/fs/cgroup/pinned/cpuset.cpus.effective")


def test_cgroup_v2_unlimited(node, machine):
    root = machine({
        "proc/self/cgroup": "0::/user.slice\n",
        "sys/fs/cgroup/cgroup.controllers": "cpu memory\n",
        "sys/fs/cgroup/user.slice/memory.max": "max\n",
        "sys/fs/cgroup/user.slice/memory.high": "max\n",
        "sys/fs/cgroup/user.slice/cpu.max": "max 100000\n",
    })
    f = facts(node, root)
    assert_consistent(f)
    assert value(f, "cgroup_memory_max") is None
    assert source(f, "cgroup_memory_max") == "cgroup v2 memory.max (no limit)"
    assert value(f, "memory_limit") == str(8 * GIB)
    assert source(f, "memory_limit") == "/proc/meminfo MemTotal"
    assert value(f, "cgroup_cpu_quota") is None
    assert source(f, "cgroup_cpu_quota") == "cgroup v2 cpu.max (no limit)"
    assert value(f, "cpus_effective") == "4"
    assert source(f, "cpus_effective") == f"{root}/sys/devices/system/cpu/online"


def test_cgroup_v1_limited(node, machine):
    root = machine({
        "proc/self/cgroup": ("12:pids:/docker/abc\n11:memory:/docker/abc\n"
                             "4:cpu,cpuacct:/docker/abc\n3:cpuset:/docker/abc\n"
                             "1:name=systemd:/docker/abc\n0::/\n"),
        "sys/fs/cgroup/cpuset/cpuset.cpus": "0-3\n",
        "sys/fs/cgroup/cpuset/docker/abc/cpuset.cpus": "0-2\n",
        "sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes": f"{GIB}\n",
        "sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_quota_us": "250000\n",
        "sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_period_us": "100000\n",
    })
    f = facts(node, root)
    assert_consistent(f)
    assert value(f, "cgroup_memory_max") == str(GIB)
    assert value(f, "memory_limit") == str(GIB)
    assert source(f, "memory_limit") == (
        f"cgroup v1 memory.limit_in_bytes at {root}/sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes")
    assert value(f, "cgroup_memory_high") is None
    assert source(f, "cgroup_memory_high") == "unavailable"
    assert value(f, "cgroup_cpuset") == "3"
    assert source(f, "cgroup_cpuset") == (
        f"cgroup v1 cpuset.cpus at {root}/sys/fs/cgroup/cpuset/docker/abc/cpuset.cpus")
    assert value(f, "cgroup_cpu_quota") == "2.5"
    assert value(f, "cpus_effective") == "2.5"
    assert source(f, "cpus_effective").startswith("cgroup v1 cpu.cfs_quota_us at ")


def test_cgroup_v1_unlimited(node, machine):
    root = machine({
        "proc/self/cgroup": "5:memory:/\n3:cpu,cpuacct:/\n",
        "sys/fs/cgroup/memory/memory.limit_in_bytes": "9223372036854771712\n",
        "sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us": "-1\n",
        "sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us": "100000\n",
    })
    f = facts(node, root)
    assert_consistent(f)
    assert value(f, "cgroup_memory_max") is None
    assert source(f, "cgroup_memory_max") == "cgroup v1 memory.limit_in_bytes (no limit)"
    assert value(f, "memory_limit") == str(8 * GIB)
    assert value(f, "cgroup_cpu_quota") is None
    assert source(f, "cgroup_cpu_quota") == "cgroup v1 cpu.cfs_quota_us (no limit)"
    assert value(f, "cpus_effective") == "4"


@pytest.mark.parametrize("version", [1, 2])
def test_nested_quota(node, machine, version):
    """A parent's limit, smaller than the child's, is the one that applies."""
    if version == 2:
        d = "sys/fs/cgroup"
        files = {
            "proc/self/cgroup": "0::/parent/child\n",
            f"{d}/cgroup.controllers": "cpu memory\n",
            f"{d}/parent/memory.max": f"{GIB}\n",
            f"{d}/parent/child/memory.max": f"{4 * GIB}\n",
            f"{d}/parent/cpu.max": "50000 100000\n",
            f"{d}/parent/child/cpu.max": "max 100000\n",
        }
        mem_file = f"{d}/parent/memory.max"
    else:
        files = {
            "proc/self/cgroup": "7:memory:/parent/child\n6:cpu,cpuacct:/parent/child\n",
            "sys/fs/cgroup/memory/parent/memory.limit_in_bytes": f"{GIB}\n",
            "sys/fs/cgroup/memory/parent/child/memory.limit_in_bytes": f"{4 * GIB}\n",
            "sys/fs/cgroup/cpu,cpuacct/parent/cpu.cfs_quota_us": "50000\n",
            "sys/fs/cgroup/cpu,cpuacct/parent/cpu.cfs_period_us": "100000\n",
            "sys/fs/cgroup/cpu,cpuacct/parent/child/cpu.cfs_quota_us": "-1\n",
            "sys/fs/cgroup/cpu,cpuacct/parent/child/cpu.cfs_period_us": "100000\n",
        }
        mem_file = "sys/fs/cgroup/memory/parent/memory.limit_in_bytes"
    root = machine(files)
    f = facts(node, root)
    assert_consistent(f)
    assert value(f, "memory_limit") == str(GIB)
    assert source(f, "memory_limit").endswith(f" at {root}/{mem_file}")
    assert value(f, "cgroup_cpu_quota") == "0.5"
    assert value(f, "cpus_effective") == "0.5"


def test_cgroup_dir_missing_uses_root(node, machine):
    """In a container the listed path may not exist: the root files apply."""
    root = machine({
        "proc/self/cgroup": "0::/kubepods/pod1/ctr\n",
        "sys/fs/cgroup/cgroup.controllers": "cpu memory\n",
        "sys/fs/cgroup/memory.max": f"{GIB // 2}\n",
        "sys/fs/cgroup/cpu.max": "300000 100000\n",
    })
    f = facts(node, root)
    assert value(f, "memory_limit") == str(GIB // 2)
    assert source(f, "memory_limit") == f"cgroup v2 memory.max at {root}/sys/fs/cgroup/memory.max"
    assert value(f, "cpus_effective") == "3"


def test_cgroup_v2_root_cgroup(node, machine):
    """The v2 root cgroup has no limit files: enabled controllers set no limit."""
    root = machine({
        "proc/self/cgroup": "0::/\n",
        "sys/fs/cgroup/cgroup.controllers": "cpuset cpu memory\n",
    })
    f = facts(node, root)
    assert_consistent(f)
    assert source(f, "cgroup_memory_max") == "cgroup v2 memory.max (no limit)"
    assert source(f, "cgroup_memory_high") == "cgroup v2 memory.high (no limit)"
    assert source(f, "cgroup_cpu_quota") == "cgroup v2 cpu.max (no limit)"
    assert value(f, "memory_limit") == str(8 * GIB)


def test_missing_controller(node, machine):
    root = machine({
        "proc/self/cgroup": "0::/app\n",
        "sys/fs/cgroup/cgroup.controllers": "cpu pids\n",
        "sys/fs/cgroup/app/cpu.max": "100000 100000\n",
    })
    f = facts(node, root)
    assert_consistent(f)
    assert value(f, "cgroup_memory_max") is None
    assert source(f, "cgroup_memory_max") == "unavailable"
    assert source(f, "cgroup_memory_high") == "unavailable"
    assert value(f, "memory_limit") == str(8 * GIB)
    assert source(f, "memory_limit") == "/proc/meminfo MemTotal"
    assert value(f, "cpus_effective") == "1"

    # no cgroup file at all
    f = facts(node, machine({}))
    assert source(f, "cgroup_memory_max") == "unavailable"
    assert source(f, "cgroup_cpu_quota") == "unavailable"
    assert value(f, "memory_limit") == str(8 * GIB)


def test_garbage_files_are_unavailable(node, machine):
    root = machine({
        "proc/meminfo": "MemTotal: many kB\nHugepagesize: -2048 kB\nHugePages_Total: 1e3\n"
                        "HugePages_Free: 99999999999999999999999\n",
        "proc/self/cgroup": "garbage\n::::\n0::/g\n",
        "proc/self/status": "Cpus_allowed_list:\t3-1\n",
        "sys/devices/system/cpu/online": "zero\n",
        "sys/fs/cgroup/cgroup.controllers": "cpu memory\n",
        "sys/fs/cgroup/g/memory.max": "lots\n",
        "sys/fs/cgroup/g/memory.high": "-5\n",
        "sys/fs/cgroup/g/cpu.max": "150000\n",
        "sys/fs/cgroup/memory.max": "99999999999999999999999\n",
        "sys/fs/cgroup/memory.high": "12 34\n",
        "sys/fs/cgroup/cpu.max": "0 100000\n",
        "sys/fs/cgroup/g/cpuset.cpus.effective": "x-y\n",
        "sys/fs/cgroup/cpuset.cpus.effective": "\n",
    }, base=False)
    f = facts(node, root)
    assert_consistent(f)
    for name in ("physical_ram", "hugepage_size", "hugepages_total", "hugepages_free",
                 "cgroup_memory_max", "cgroup_memory_high", "memory_limit",
                 "cgroup_cpuset", "cgroup_cpu_quota"):
        assert value(f, name) is None, name
        assert source(f, name) == "unavailable", name
    # CPU counts fall back to the real system, and say so
    assert value(f, "cpus_online") == str(os.cpu_count())
    assert source(f, "cpus_online") == "sysconf(_SC_NPROCESSORS_ONLN) (real system)"
    assert source(f, "cpus_affinity") == "sched_getaffinity() (real system)"


def test_huge_and_overflowing_values(node, machine):
    root = machine({
        # 2^60 kB overflows bytes: unavailable, not a wrapped number
        "proc/meminfo": "MemTotal: 1152921504606846976 kB\n",
        "proc/self/cgroup": "3:memory:/\n",
        "sys/fs/cgroup/memory/memory.limit_in_bytes": "18446744073709551615\n",
    }, base=False)
    f = facts(node, root)
    assert source(f, "physical_ram") == "unavailable"
    assert source(f, "cgroup_memory_max") == "cgroup v1 memory.limit_in_bytes (no limit)"
    assert source(f, "memory_limit") == "unavailable"


def test_odd_files_neither_hang_nor_fail(node, machine):
    """A FIFO, a directory and an endless line where files should be."""
    long_line = "X" * 20000 + "\n"
    root = machine({
        "proc/meminfo": long_line + MEMINFO,
        "proc/self/cgroup": "0::/odd\n",
        "sys/fs/cgroup/cgroup.controllers": "cpu memory\n",
        "sys/fs/cgroup/odd/memory.high": None,      # a directory
        "sys/fs/cgroup/odd/cpu.max": "1" * 10000,    # too big for a one-value file
    })
    os.mkfifo(os.path.join(root, "sys/fs/cgroup/odd/memory.max"), 0o644)
    f = facts(node, root)
    assert_consistent(f)
    # the long line is skipped, the lines after it still count
    assert value(f, "physical_ram") == str(8 * GIB)
    assert source(f, "cgroup_memory_max") == "unavailable"
    assert source(f, "cgroup_memory_high") == "unavailable"
    assert source(f, "cgroup_cpu_quota") == "unavailable"


def test_sysroot_device_and_partition(node, machine):
    """The data directory's device through a laid-out /sys/dev/block."""
    st = os.stat(node.datadir)
    mm = f"{os.major(st.st_dev)}:{os.minor(st.st_dev)}"
    root = machine({
        "sys/devices/virtual/block/fakedisk/fakedisk7/partition": "7\n",
        "sys/block/fakedisk/queue/rotational": "1\n",
        "proc/self/mountinfo": (f"27 1 {mm} / / rw - ext4 /dev/root rw\n"
                                f"30 27 {mm} / {os.path.realpath(node.base)} rw - xfs /dev/fake\\040disk7 rw\n"),
    })
    os.makedirs(os.path.join(root, "sys/dev/block"), exist_ok=True)
    os.symlink("../../devices/virtual/block/fakedisk/fakedisk7",
               os.path.join(root, "sys/dev/block", mm))
    f = facts(node, root)
    assert value(f, "data_mount_point") == os.path.realpath(node.base)
    assert value(f, "data_filesystem") == "xfs"
    assert value(f, "data_mount_source") == "/dev/fake disk7"
    assert value(f, "data_device") == "fakedisk"
    assert source(f, "data_device") == f"{root}/sys/dev/block/{mm}"
    assert value(f, "data_rotational") == "true"


def test_empty_sysroot(node, machine):
    f = facts(node, machine({}, base=False))
    assert_consistent(f)
    assert source(f, "physical_ram") == "unavailable"
    assert source(f, "data_device") == "unavailable"
    assert source(f, "data_rotational") == "unavailable"
    # mountinfo is missing: statfs() still names the file system
    assert source(f, "data_filesystem").startswith("statfs() f_type")


# ---- privileges -----------------------------------------------------------

def test_privileges_and_sysroot_setting(node):
    node.sql("CREATE ROLE sys_nobody LOGIN")
    node.sql("CREATE ROLE sys_monitor LOGIN IN ROLE pg_monitor")
    try:
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            facts(node, user="sys_nobody")
        f = facts(node, user="sys_monitor")
        assert value(f, "physical_ram") is not None
        with node.connect(user="sys_monitor") as conn:
            conn.execute("SELECT count(*) FROM pgbench_lab.system_info()")
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute("SET pgbench_lab.sysroot = '/tmp'")
        # set before the library is loaded: ignored when it loads
        with node.connect(user="sys_monitor") as conn:
            conn.execute("SET pgbench_lab.sysroot = '/nonexistent'")
            rows = dict((r[0], r[3]) for r in conn.execute("SELECT * FROM pgbench_lab.system_info()"))
            assert rows["physical_ram"] == "/proc/meminfo MemTotal"
            assert conn.execute("SHOW pgbench_lab.sysroot").fetchone()[0] == ""
    finally:
        node.sql("DROP ROLE sys_nobody")
        node.sql("DROP ROLE sys_monitor")
