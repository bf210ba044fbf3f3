"""pgbench_lab.recommend(), memory_budget() and recommend_sql() on real servers.

Property tests run recommend() over a grid of several hundred machines and
check what must hold whatever the formulas are: every value inside the
server's own bounds, the memory budget inside the RAM left after the OS
reserve, monotone answers (more RAM never less shared_buffers, more
connections never more work_mem) and no cliffs between neighbouring
machines.  Detection tests lay out a cgroup-limited container on a large
host under pgbench_lab.sysroot.  The last tests apply recommend_sql()'s
script to a throwaway cluster, restart it, and revert it.
"""
import itertools
import math
import os
import pathlib
import re
import sys

import psycopg
import pytest
from psycopg.types.json import Jsonb

MB = 1024 ** 2
GB = 1024 ** 3
WORKLOADS = ["web", "oltp", "dw", "mixed", "desktop"]
MEMORY = ["shared_buffers", "effective_cache_size", "work_mem", "maintenance_work_mem",
          "autovacuum_work_mem", "wal_buffers", "min_wal_size", "max_wal_size"]


def recommend(conn, **kw):
    """{name: row dict} for one recommend() call; sizes also in bytes."""
    types = {"cpus": "numeric", "max_connections": "int"}
    args = ", ".join(f"{k} => %({k})s::{types.get(k, 'text')}" for k in kw)
    cur = conn.execute(
        f"""SELECT r.name, r.current, r.recommended, r.changes, r.context, r.formula,
                   r.reason, r.within_limits,
                   CASE WHEN r.recommended ~ '^[0-9]+(kB|MB|GB|TB)$'
                        THEN pg_size_bytes(r.recommended) END
              FROM pgbench_lab.recommend({args}) r""", kw)
    cols = ["name", "current", "recommended", "changes", "context", "formula",
            "reason", "within_limits", "bytes"]
    return {row[0]: dict(zip(cols, row)) for row in cur.fetchall()}


def grid_rows(conn, rams, cpus, conns, workloads, reserve_share=None):
    """recommend() over a grid in one statement: {(ram, cpus, conns, wl): {name: row}}."""
    cur = conn.execute(
        """SELECT g.ram, g.cpus, g.conns, g.wl, r.name, r.recommended, r.within_limits,
                  CASE WHEN r.recommended ~ '^[0-9]+(kB|MB|GB|TB)$'
                       THEN pg_size_bytes(r.recommended) END
             FROM unnest(%s::bigint[]) AS ram(ram)
            CROSS JOIN unnest(%s::numeric[]) AS c(cpus)
            CROSS JOIN unnest(%s::int[]) AS n(conns)
            CROSS JOIN unnest(%s::text[]) AS w(wl)
            CROSS JOIN LATERAL (SELECT ram.ram, c.cpus, n.conns, w.wl) AS g
            CROSS JOIN LATERAL pgbench_lab.recommend(
                  ram => (g.ram / 1048576) || 'MB', cpus => g.cpus, max_connections => g.conns,
                  workload => g.wl, storage => 'ssd', os => 'linux', data_size => '10GB',
                  os_reserve => CASE WHEN %s::float8 IS NULL THEN NULL
                                     ELSE ((g.ram * %s::float8)::bigint / 1048576) || 'MB' END) r""",
        [rams, cpus, conns, workloads, reserve_share, reserve_share])
    out = {}
    for ram, c, n, wl, name, rec, within, nbytes in cur.fetchall():
        key = (int(ram), float(c), int(n), wl)
        out.setdefault(key, {})[name] = (rec, within, nbytes)
    return out


def num(row):
    rec, _within, nbytes = row
    return float(nbytes) if nbytes is not None else float(rec)


# ---- properties over a grid of machines -----------------------------------

# 1 000 machines: enough neighbours for the monotony and cliff checks, and
# the 1 GB, 12 GB and 64 GB cases, in a few seconds (2 450 took 10-20 s)
RAMS = [gb * GB for gb in (1, 2, 4, 8, 12, 16, 32, 64, 256, 1024)]
CPUS = [1.0, 2.0, 4.0, 16.0, 64.0]
CONNS = [10, 50, 100, 2000]


@pytest.fixture(scope="module")
def grid(node):
    with node.connect() as conn:
        rows = grid_rows(conn, RAMS, CPUS, CONNS, WORKLOADS, reserve_share=0.125)
    assert len(rows) == len(RAMS) * len(CPUS) * len(CONNS) * len(WORKLOADS)
    return rows


def test_grid_within_bounds(grid):
    """Every one of the machines' recommendations is inside the GUC bounds."""
    bad = [(k, name) for k, settings in grid.items()
           for name, (_rec, within, _b) in settings.items() if not within]
    assert bad == []
    assert len(grid) >= 500


def test_grid_budget(grid):
    """shared memory + connections x work_mem + maintenance + autovacuum
    + per-backend overhead fit in the RAM left after the OS reserve; and so
    do they when every connection and parallel worker sorts and hashes at
    once (work_mem x (1 + hash_mem_multiplier) each), background workers'
    process memory included."""
    for (ram, _c, _n, wl), s in grid.items():
        usable = ram - int(ram * 0.125) // MB * MB
        conns = num(s["max_connections"])
        fixed = (num(s["shared_buffers"]) + num(s["maintenance_work_mem"])
                 + 3 * num(s["autovacuum_work_mem"]))
        used = fixed + conns * num(s["work_mem"]) + conns * 5 * MB
        assert used <= usable, ((ram, _c, _n, wl), used, usable)
        backends = conns + num(s["max_parallel_workers"])
        busy = (fixed + backends * num(s["work_mem"]) * (1 + num(s["hash_mem_multiplier"]))
                + (backends + 3) * 5 * MB)
        assert busy <= usable, ((ram, _c, _n, wl), busy, usable)
        # the hash term counted in the divisor is what the server would use
        assert num(s["hash_mem_multiplier"]) == 2
        # effective_cache_size never below shared_buffers (the manual's
        # reading): three quarters of RAM (desktop a quarter) within the
        # usable RAM, whatever the budget above allocates
        assert num(s["effective_cache_size"]) >= num(s["shared_buffers"])
        share = ram // 4 if wl == "desktop" else ram * 3 // 4
        assert num(s["effective_cache_size"]) == min(share // MB * MB, usable), (ram, _c, _n, wl)


def afforded(s, usable):
    """Backends (connections and parallel workers) the memory affords at the
    default work_mem: what the fixed costs leave / (5MB + 4MB x 3 + 20kB)."""
    sb = num(s["shared_buffers"])
    shm = sb * 1.02 + num(s["wal_buffers"]) + 32 * MB
    fixed = shm + num(s["maintenance_work_mem"]) + 3 * (num(s["autovacuum_work_mem"]) + 5 * MB)
    return math.floor(max(0, usable - fixed) / (17 * MB + 20 * 1024))


def test_grid_parallel_workers_fit_memory(grid):
    """Parallel workers get one per core only while the memory affords each
    what a connection gets at the default work_mem: 64 cores with 1GB and 50
    asked connections (27 afforded) get none."""
    for (ram, c, n, wl), s in grid.items():
        usable = ram - int(ram * 0.125) // MB * MB
        conns = num(s["max_connections"])
        expected = min(math.ceil(c), max(0, afforded(s, usable) - conns))
        assert num(s["max_parallel_workers"]) == expected, ((ram, c, n, wl))
        assert num(s["max_parallel_workers_per_gather"]) <= expected
        assert num(s["max_parallel_maintenance_workers"]) <= expected
    assert num(grid[(GB, 64.0, 50, "web")]["max_parallel_workers"]) == 0
    assert num(grid[(4 * GB, 64.0, 50, "web")]["max_parallel_workers"]) == 64


def test_grid_monotone_in_ram(grid):
    """More RAM never gives less memory to any setting, nor fewer
    connections; work_mem never falls unless the connections rose with it."""
    for c, n, wl in itertools.product(CPUS, CONNS, WORKLOADS):
        prev = None
        for ram in RAMS:
            cur = grid[(ram, float(c), n, wl)]
            if prev is not None:
                for name in MEMORY:
                    if name == "work_mem" and num(cur["max_connections"]) > num(prev["max_connections"]):
                        continue
                    assert num(cur[name]) >= num(prev[name]), (name, ram, c, n, wl)
                assert num(cur["max_connections"]) >= num(prev["max_connections"])
            prev = cur


def test_grid_monotone_in_connections(grid):
    """More connections never give more work_mem, nor fewer max_connections."""
    for ram, c, wl in itertools.product(RAMS, CPUS, WORKLOADS):
        prev = None
        for n in CONNS:
            cur = grid[(ram, float(c), n, wl)]
            if prev is not None:
                assert num(cur["work_mem"]) <= num(prev["work_mem"]), (ram, c, n, wl)
                assert num(cur["max_connections"]) >= num(prev["max_connections"])
            prev = cur


def test_grid_pooler_instead_of_tiny_work_mem(grid):
    """Past about 10 connections per CPU, or what the memory affords at the
    default work_mem, the answer is a pooler: max_connections stays at the
    cap, work_mem stops shrinking and never falls below PostgreSQL's 4MB."""
    for (ram, c, n, wl), s in grid.items():
        usable = ram - int(ram * 0.125) // MB * MB
        cap = min(max(20, int(10 * c)), max(10, afforded(s, usable)))
        assert num(s["max_connections"]) == min(n, cap)
        assert num(s["work_mem"]) >= 4 * MB, (ram, c, n, wl)
        if n > cap:
            same = grid[(ram, c, CONNS[-1], wl)]
            assert num(same["work_mem"]) == num(s["work_mem"])


def test_no_cliffs(node):
    """Neighbouring machines (RAM 2% apart, CPUs 1.5 vs 1.6) get neighbouring
    answers: no tier that jumps at a threshold."""
    rams = [int(GB * 1.02 ** i) // MB * MB for i in range(0, 200, 7)]
    with node.connect() as conn:
        rows = grid_rows(conn, rams, [4.0], [100], ["mixed", "oltp"])
    for wl in ("mixed", "oltp"):
        for a, b in zip(rams, rams[1:]):
            sa, sb = rows[(a, 4.0, 100, wl)], rows[(b, 4.0, 100, wl)]
            for name in ("shared_buffers", "effective_cache_size", "work_mem",
                         "maintenance_work_mem", "max_wal_size"):
                ratio = num(sb[name]) / num(sa[name])
                assert ratio <= (b / a) * 1.05 + 2 * MB / num(sa[name]), (name, a, b, wl, ratio)


def test_huge_machines(node):
    """1 PB, 1024 CPUs, 100000 connections: sensible, clamped, explained."""
    with node.connect() as conn:
        r = recommend(conn, ram="1048576TB", cpus=1024, max_connections=100000,
                      storage="nvme", os="linux", data_size="1TB")
        maxima = dict(conn.execute(
            "SELECT name, max_val::float8 * CASE unit WHEN '8kB' THEN 8192 WHEN 'kB' THEN 1024"
            " WHEN 'MB' THEN 1048576 ELSE 1 END FROM pg_settings").fetchall())
    for name, row in r.items():
        if row["bytes"] is not None and name in maxima:
            assert row["bytes"] <= maxima[name], name
        if not row["within_limits"]:
            assert "clamped to its maximum" in row["reason"], name
    assert r["shared_buffers"]["bytes"] == maxima["shared_buffers"]
    assert int(r["max_connections"]["recommended"]) == 10240
    assert "pooler" in r["max_connections"]["reason"]


# ---- verdicts a DBA can act on: 1 GB, the 12 GB data warehouse, 64 GB ------

BUDGET_ARGS = {  # memory_budget()'s argument: recommend()'s setting
    "max_connections": "max_connections", "work_mem": "work_mem",
    "shared_buffers": "shared_buffers", "maintenance_work_mem": "maintenance_work_mem",
    "effective_cache_size": "effective_cache_size",
    "autovacuum_work_mem": "autovacuum_work_mem", "hash_mem_multiplier": "hash_mem_multiplier",
    "max_parallel_workers_per_gather": "max_parallel_workers_per_gather",
    "max_parallel_workers": "max_parallel_workers", "wal_buffers": "wal_buffers"}


def budget_of(conn, ram, rows):
    """memory_budget() of recommend()'s rows: {component: (status, note)}.
    backend_memory is the 5MB recommend() plans with, not this server's."""
    types = {"max_connections": "int", "hash_mem_multiplier": "numeric",
             "max_parallel_workers_per_gather": "int", "max_parallel_workers": "int"}
    args = {a: rows[name]["recommended"] for a, name in BUDGET_ARGS.items()}
    call = ", ".join(f"{a} => %({a})s::{types.get(a, 'text')}" for a in args)
    cur = conn.execute(
        f"SELECT component, status, note FROM pgbench_lab.memory_budget(ram => %(ram)s,"
        f" autovacuum_max_workers => 3, backend_memory => '5MB', {call})", {"ram": ram, **args})
    return {c: (st, note) for c, st, note in cur.fetchall()}


MACHINES = {
    "1GB, 100 asked": dict(ram="1GB", cpus=2, max_connections=100, workload="mixed",
                           storage="ssd", os="linux", data_size="1GB"),
    "12GB data warehouse": dict(ram="12GB", cpus=4, max_connections=16, workload="dw",
                                storage="hdd", os="linux", data_size="1200MB", os_reserve="2GB"),
    "64GB oltp": dict(ram="64GB", cpus=16, max_connections=300, workload="oltp",
                      storage="nvme", os="linux", data_size="100GB"),
    "64GB data warehouse": dict(ram="64GB", cpus=16, max_connections=40, workload="dw",
                                storage="nvme", os="linux", data_size="500GB"),
    "1GB, live connections": dict(ram="1GB", cpus=2, workload="mixed", storage="ssd",
                                  os="linux", data_size="1GB"),
}


@pytest.mark.parametrize("machine_name", list(MACHINES))
def test_verdicts_work_mem_and_budget(node, machine_name):
    """work_mem is at least PostgreSQL's 4MB where the inputs allow it, and
    memory_budget() of recommend()'s own output (every memory setting it
    sets) warns of nothing."""
    args = MACHINES[machine_name]
    with node.connect() as conn:
        rows = recommend(conn, **args)
        budget = budget_of(conn, args["ram"], rows)
    assert rows["work_mem"]["bytes"] >= 4 * MB, rows["work_mem"]
    bad = {c: v for c, v in budget.items() if v[0] not in (None, "ok")}
    assert bad == {}, (machine_name, bad)
    assert budget["verdict"][0] == "ok"


def test_the_issues_described_machine(node):
    """The issue's call: max_worker_processes without the 33 slots of a
    pgbench_lab run or anything of this server, and effective_cache_size
    three quarters of the RAM (PGTune's 48GB) though the 5-parameter budget
    leaves less: that reading of memory_budget() is shown, not judged, and
    nothing of recommend()'s output is a warning."""
    args = dict(ram="64GB", cpus=16, max_connections=40, workload="dw", storage="ssd",
                os="linux", data_size="500GB")
    with node.connect() as conn:
        rows = recommend(conn, **args)
        budget = budget_of(conn, args["ram"], rows)
    parallel = int(rows["max_parallel_workers"]["recommended"])
    assert int(rows["max_worker_processes"]["recommended"]) == max(parallel + 4 + 1, 8) == 21
    usable = 64 * GB - (1 * GB + 64 * GB // 16)
    ecs = rows["effective_cache_size"]
    assert ecs["bytes"] == min(64 * GB * 3 // 4, usable) == 48 * GB
    assert ecs["formula"] == "64GB RAM x 3/4 = 48GB", ecs["formula"]
    assert "allocates nothing, so no memory budget limits it" in ecs["reason"]
    five = sum(rows[n]["bytes"] for n in ("shared_buffers", "maintenance_work_mem")) \
        + 40 * rows["work_mem"]["bytes"]
    assert five + ecs["bytes"] > 64 * GB
    assert budget["effective_cache_size, 5-parameter reading"][0] is None
    assert "Not judged" in budget["effective_cache_size, 5-parameter reading"][1]
    assert budget["effective_cache_size, manual reading"][0] == "ok"
    assert {c: v for c, v in budget.items() if v[0] not in (None, "ok")} == {}


def test_connections_the_memory_cannot_afford(node):
    """On 1GB the live 100 connections cannot each have the default work_mem:
    recommend() says so, shows the arithmetic, and recommends the connections
    it affords behind a pooler instead of 64kB of work_mem; asked for 100, the
    same."""
    with node.connect() as conn:
        live = int(conn.execute("SHOW max_connections").fetchone()[0])
        kept = recommend(conn, **MACHINES["1GB, live connections"])
        asked = recommend(conn, **MACHINES["1GB, 100 asked"])
    assert live == 100
    for rows, word in ((kept, "live"), (asked, "asked")):
        mc = rows["max_connections"]
        assert int(mc["recommended"]) == 20, mc
        assert mc["formula"] == (f"min(100 {word}, " if word == "live" else "min(100 asked, max(20, 10 x 2 CPUs), ") \
            + "(704MB usable - 362.02MB fixed) / 17.02MB per connection = 20) = 20", mc["formula"]
        assert "cannot afford" in mc["reason"] and "pgbouncer" in mc["reason"], mc["reason"]
        assert "so 100 need 1.66GB, but only 341.98MB is left of the 704MB usable" in mc["reason"]
        assert rows["work_mem"]["recommended"] == "4MB"
    assert kept["max_connections"]["changes"] is True
    assert "Lower max_connections to 20" in kept["max_connections"]["reason"]


def test_work_mem_below_default_only_when_forced(node):
    """Where even the fewest connections planned (10) cannot each have 4MB,
    work_mem goes below it and both rows say the memory forces it."""
    with node.connect() as conn:
        rows = recommend(conn, ram="384MB", cpus=1, max_connections=50, workload="web",
                         storage="ssd", os="linux", data_size="1GB")
        budget = budget_of(conn, "384MB", rows)
    assert rows["work_mem"]["bytes"] < 4 * MB
    assert rows["max_connections"]["recommended"] == "10"
    assert "Fewer than 10 connections are not planned" in rows["max_connections"]["reason"]
    assert "give the machine more memory" in rows["work_mem"]["reason"]
    assert budget["verdict"][0] == "ok", budget["verdict"]


# ---- detection --------------------------------------------------------------

# the system part's factory: lays out {relative path: content} under a sysroot
from test_system import machine  # noqa: E402,F401  (a pytest fixture)


@pytest.fixture
def container(machine):
    """A 256 GB, 64-CPU host whose cgroup v2 allows 2 GB and 1.5 CPUs."""
    return machine({
        "proc/meminfo": "MemTotal:       268435456 kB\nHugepagesize:       2048 kB\n"
                        "HugePages_Total:       0\nHugePages_Free:        0\n",
        "sys/devices/system/cpu/online": "0-63\n",
        "proc/self/status": "Name:\tpostgres\nCpus_allowed_list:\t0-63\n",
        "proc/self/cgroup": "0::/kubepods/pod1/postgres\n",
        "sys/fs/cgroup/cgroup.controllers": "cpuset cpu io memory pids\n",
        "sys/fs/cgroup/kubepods/pod1/postgres/memory.max": f"{2 * GB}\n",
        "sys/fs/cgroup/kubepods/pod1/postgres/memory.high": "max\n",
        "sys/fs/cgroup/kubepods/pod1/postgres/cpu.max": "150000 100000\n",
    }, base=False)


def test_container_limits_detected(node, container):
    """In a 2 GB / 1.5 CPU container on a 256 GB / 64 CPU host, recommend()
    with detected inputs equals recommend() for 2 GB and 1.5 CPUs."""
    with node.connect() as conn:
        conn.execute("SELECT set_config('pgbench_lab.sysroot', %s, false)", [container])
        detected = recommend(conn)
        explicit = recommend(conn, ram="2GB", cpus=1.5)
        sized = recommend(conn, max_connections=20)
        conn.execute("RESET pgbench_lab.sysroot")
        host = recommend(conn, ram="256GB", cpus=64)
    # the same but for max_worker_processes: this server's keeps the live
    # value (conftest's 32), the described machine's holds nothing of it
    assert {k: v["recommended"] for k, v in detected.items() if k != "max_worker_processes"} == \
        {k: v["recommended"] for k, v in explicit.items() if k != "max_worker_processes"}
    assert detected["max_worker_processes"]["recommended"] == "32"
    assert explicit["max_worker_processes"]["recommended"] == "8"
    assert detected["shared_buffers"]["formula"].startswith("(2GB RAM - ")
    assert "pool of about 2 x 1.5 = 3 server connections" in detected["max_connections"]["reason"]
    # sized for 20 connections, the 1.5 CPUs get 2 parallel workers; the
    # live 100 connections are more than 2GB affords at the default work_mem
    assert sized["max_parallel_workers"]["recommended"] == "2"
    assert int(detected["max_connections"]["recommended"]) < 100
    assert detected["max_parallel_workers"]["recommended"] == "0"
    assert detected["shared_buffers"]["bytes"] < 1 * GB
    assert host["shared_buffers"]["bytes"] > 32 * GB


def test_data_size_and_storage_detected(node):
    """NULL data_size is the databases' total size; NULL storage follows the
    data directory's device (rotational -> hdd)."""
    with node.connect() as conn:
        conn.execute("DROP TABLE IF EXISTS reco_filler")
        conn.execute("CREATE TABLE reco_filler AS SELECT g, repeat('x', 200) AS pad"
                     " FROM generate_series(1, 50000) g")
        total = conn.execute("SELECT sum(pg_database_size(oid))::float8 FROM pg_database"
                             " WHERE datallowconn").fetchone()[0]
        rot = conn.execute("SELECT value FROM pgbench_lab.system_info()"
                           " WHERE name = 'data_rotational'").fetchone()
        r = recommend(conn, ram="1GB", cpus=2, os="linux")
        shown = conn.execute("SELECT pg_size_pretty(%s::bigint)", [total]).fetchone()[0]
        conn.execute("DROP TABLE reco_filler")
    formula = r["random_page_cost"]["formula"]
    expected_storage = "hdd" if rot and rot[0] in ("1", "true", "t") else "ssd"
    assert f" {expected_storage} - 1.1" in formula or f"for {expected_storage}" in formula, formula
    # the formula prints the size with two decimals
    m = re.search(r"/ ([0-9.]+)(kB|MB|GB) data\)", formula)
    assert m, formula
    size = float(m.group(1)) * {"kB": 1024, "MB": MB, "GB": GB}[m.group(2)]
    assert abs(size - total) <= 0.006 * {"kB": 1024, "MB": MB, "GB": GB}[m.group(2)], (shown, formula)


def test_os_detected(node):
    """NULL os is the server's own: on this Linux test machine the same as
    os => 'linux' (huge pages sized, prefetch advice given)."""
    assert sys.platform.startswith("linux")
    args = dict(ram="8GB", cpus=2, storage="ssd", data_size="1GB")
    with node.connect() as conn:
        detected = recommend(conn, **args)
        linux = recommend(conn, os="linux", **args)
        windows = recommend(conn, os="windows", **args)
    assert {k: v["recommended"] for k, v in detected.items()} == \
        {k: v["recommended"] for k, v in linux.items()}
    assert "vm.nr_hugepages" in detected and "vm.nr_hugepages" not in windows


def test_current_and_context(node):
    """current is SHOW's text; context is the DBA's word for pg_settings.context."""
    with node.connect() as conn:
        r = recommend(conn, ram="8GB", cpus=2)
        live = dict(conn.execute(
            "SELECT name, current_setting(name) FROM pg_settings").fetchall())
        ctx = dict(conn.execute("SELECT name, context FROM pg_settings").fetchall())
    words = {"postmaster": "restart", "sighup": "reload", "user": "session",
             "superuser": "session"}
    for name, row in r.items():
        if name == "vm.nr_hugepages":
            assert row["context"] == "sysctl"
            continue
        assert row["current"] == live[name], name
        assert row["context"] == words[ctx[name]], name


# ---- apply, restart, revert ------------------------------------------------

def run_and_restart(cluster, statements, args):
    """Run a script's statements, restart, and recommend() again."""
    with cluster.connect() as conn:
        for stmt in statements:
            conn.execute(stmt)
    cluster.restart()
    with cluster.connect() as conn:
        return recommend(conn, **args)


def test_apply_and_revert(new_cluster):
    """recommend_sql()'s script, applied and the server restarted, leaves
    nothing to change; its revert script restores every old value."""
    c = new_cluster("reco", conf={"shared_buffers": "'32MB'", "work_mem": "'3MB'"})
    c.sql("CREATE EXTENSION pgbench_lab CASCADE")
    args = dict(ram="1GB", cpus=2, max_connections=20, workload="oltp",
                storage="ssd", os="linux", data_size="100MB")
    with c.connect() as conn:
        before = recommend(conn, **args)
        script = conn.execute(
            "SELECT kind, statement FROM pgbench_lab.recommend_sql(%(ram)s, %(cpus)s,"
            " %(max_connections)s, %(workload)s, %(storage)s, %(os)s, %(data_size)s)",
            args).fetchall()
    assert before["shared_buffers"]["current"] == "32MB"
    assert before["shared_buffers"]["changes"]
    apply = [s for k, s in script if k == "apply" and not s.startswith("--")]
    revert = [s for k, s in script if k == "revert"]
    note = [s for k, s in script if k == "note"]
    assert "shared_buffers" in note[0]
    after = run_and_restart(c, apply, args)
    still = [n for n, row in after.items() if row["changes"] and n != "vm.nr_hugepages"]
    assert still == []
    assert after["shared_buffers"]["current"] == before["shared_buffers"]["recommended"]
    back = run_and_restart(c, revert, args)
    assert {n: r["current"] for n, r in back.items()} == \
        {n: r["current"] for n, r in before.items()}


def test_revert_restores_auto_conf_byte_for_byte(new_cluster):
    """A value written by ALTER SYSTEM and not yet applied survives apply
    then revert: the revert script is built from what postgresql.auto.conf
    holds, not from the live values."""
    c = new_cluster("revert", conf={"shared_buffers": "'32MB'"})
    c.sql("CREATE EXTENSION pgbench_lab CASCADE")
    c.sql("ALTER SYSTEM SET shared_buffers = '256MB'")      # pending: needs a restart
    c.sql("ALTER SYSTEM SET work_mem = '3MB'")
    c.sql("CREATE ROLE reco_mon LOGIN IN ROLE pg_monitor")
    auto = os.path.join(c.datadir, "postgresql.auto.conf")

    def read():
        with open(auto, "rb") as f:
            return f.read()
    before = read()
    args = dict(ram="2GB", cpus=2, max_connections=20, workload="oltp",
                storage="ssd", os="linux", data_size="100MB")
    with c.connect(user="reco_mon") as conn:		# what pg_monitor is given
        script = conn.execute(
            "SELECT kind, statement FROM pgbench_lab.recommend_sql(%(ram)s, %(cpus)s,"
            " %(max_connections)s, %(workload)s, %(storage)s, %(os)s, %(data_size)s)",
            args).fetchall()
    revert = [s for k, s in script if k == "revert" and s.startswith("ALTER SYSTEM")]
    assert "ALTER SYSTEM SET shared_buffers = '256MB';" in revert, revert
    assert "ALTER SYSTEM SET work_mem = '3MB';" in revert or \
        not any(re.search(r"SYSTEM (SET|RESET) work_mem\b", s) for s in revert)
    with c.connect() as conn:
        for k, stmt in script:
            if k == "apply" and stmt.startswith("ALTER SYSTEM"):
                conn.execute(stmt)
        assert read() != before
        for stmt in revert:
            conn.execute(stmt)
    assert read() == before


def test_budget_live_and_explicit(node):
    """memory_budget() reads the live values; explicit ones replace them."""
    with node.connect() as conn:
        live = {r[0]: r for r in conn.execute(
            "SELECT component, bytes, status FROM pgbench_lab.memory_budget(ram => '8GB')")}
        sb = conn.execute("SELECT pg_size_bytes(current_setting('shared_buffers'))").fetchone()[0]
        n = int(conn.execute("SHOW max_connections").fetchone()[0])
        wm = conn.execute("SELECT pg_size_bytes(current_setting('work_mem'))").fetchone()[0]
        example = {r[0]: r for r in conn.execute(
            "SELECT component, bytes, status FROM pgbench_lab.memory_budget("
            "'12GB', 16, '128MB', '4096MB', '512MB', '3072MB', 3)")}
        oom = {r[0]: r for r in conn.execute(
            "SELECT component, bytes, status FROM pgbench_lab.memory_budget("
            "'12GB', 1000, '128MB', '4096MB', '512MB', '3072MB', 3)")}
        with pytest.raises(psycopg.errors.InvalidParameterValue):
            conn.execute("SELECT * FROM pgbench_lab.memory_budget(ram => '12GB', work_mem => 'abc')")
    assert live["shared_buffers"][1] == sb
    assert live["connections x work_mem"][1] == n * wm
    assert example["5-parameter budget"][1] == int(6.5 * GB)
    assert example["left for OS cache"][1] >= 3 * GB
    assert example["verdict"][2] == "ok"
    assert oom["verdict"][2] == "out-of-memory risk"


def smaps_private_kb(pid):
    """Private_Clean + Private_Dirty of a process's private mappings, as the
    budget reads them, here read by the test (it runs as root)."""
    total, private = 0, False
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            head = line.split()
            if len(head) >= 2 and "-" in head[0] and len(head[1]) == 4 and \
                    all(c in "0123456789abcdef-" for c in head[0]):
                private = head[1][3] == "p"
            elif private and head and head[0] in ("Private_Clean:", "Private_Dirty:"):
                total += int(head[1])
    return total


def test_budget_measures_backend_memory(node):
    """The per-backend term is measured on an idle backend of this server
    (its private memory in /proc/<pid>/smaps), with the pid and source in the
    note; an explicit backend_memory replaces it."""
    with node.connect() as idle, node.connect() as conn:
        idle.execute("SELECT 1").fetchall()
        pid = idle.info.backend_pid
        row = conn.execute("""SELECT bytes, note FROM pgbench_lab.memory_budget(ram => '8GB')
                               WHERE component = 'per-backend overhead'""").fetchone()
        n = int(conn.execute("SHOW max_connections").fetchone()[0])
        av = int(conn.execute("SHOW autovacuum_max_workers").fetchone()[0])
        after = smaps_private_kb(pid) * 1024
        given = conn.execute("""SELECT bytes, note FROM pgbench_lab.memory_budget(ram => '8GB',
                                       backend_memory => '3MB')
                                 WHERE component = 'per-backend overhead'""").fetchone()
    assert f"measured on idle backend {pid} (private memory in /proc/{pid}/smaps)" in row[1], row[1]
    each = float(row[0]) / (n + av)
    # the figure is the idle backend's own: what the test reads there now,
    # within what an idle session may allocate between the two reads
    assert 256 * 1024 < each < 64 * MB, each
    assert abs(each - after) < 2 * MB, (each, after)
    assert float(given[0]) == (n + av) * 3 * MB and given[1].endswith("as given.")


def test_budget_verdict_names_its_cause(node):
    """An out-of-memory verdict names the largest terms with their shares."""
    with node.connect() as conn:
        verdict = conn.execute(
            """SELECT status, note FROM pgbench_lab.memory_budget('12GB', 1000, '1MB', '3GB',
                      '1GB', '8GB', 3, '8MB') WHERE component = 'verdict'""").fetchone()
    assert verdict[0] == "out-of-memory risk"
    assert "the largest terms: per-backend memory (1003 backends x 8MB" in verdict[1], verdict[1]


def test_max_connections_live_kept(node):
    """Without max_connections the live value is kept, with pooler advice
    past what the CPUs serve; asked for, it is sized."""
    with node.connect() as conn:
        n = int(conn.execute("SHOW max_connections").fetchone()[0])
        kept = recommend(conn, ram="8GB", cpus=1, os="linux", storage="ssd", data_size="1GB")
        asked = recommend(conn, ram="8GB", cpus=1, max_connections=n, os="linux",
                          storage="ssd", data_size="1GB")
    assert kept["max_connections"]["recommended"] == str(n)
    assert kept["max_connections"]["changes"] is False
    assert "pooler" in kept["max_connections"]["reason"] and "kept" in kept["max_connections"]["reason"]
    assert int(asked["max_connections"]["recommended"]) == min(n, 20)


def test_max_worker_processes_this_server(node, container):
    """For this server (none of ram, cpus, storage and os given)
    max_worker_processes counts parallel workers, logical replication and
    the background workers running now, and keeps a larger live value;
    pgbench_lab's own runs are a note of the reason, not a term of it."""
    with node.connect() as conn:
        live = int(conn.execute("SHOW max_worker_processes").fetchone()[0])
        conn.execute("SELECT set_config('pgbench_lab.sysroot', %s, false)", [container])
        row = recommend(conn, max_connections=20)["max_worker_processes"]
        conn.execute("RESET pgbench_lab.sysroot")
    m = re.fullmatch(r"max\(2 parallel \+ 4 logical replication \+ (\d+) other running,"
                     r" (\d+) live\) = (\d+)", row["formula"])
    assert m, row["formula"]
    other, shown_live, value = (int(g) for g in m.groups())
    assert other >= 1 and shown_live == live == 32  # the launcher runs; conftest's 32
    assert value == int(row["recommended"]) == max(2 + 4 + other, live)
    assert row["reason"].startswith(f"The live {live} is kept"), row["reason"]
    assert row["reason"].endswith(
        " Not counted: pgbench_lab's own runs, which take a slot per client plus one (a libpq"
        f" run one per thread plus one); the {live} leave room for an in-server run of 8 clients"
        " (the largest of 8, twice the 2 cores) beside all of these."), row["reason"]


def test_max_worker_processes_described(node):
    """A described machine's max_worker_processes counts its parallel
    workers, PostgreSQL's 4 logical replication workers and their launcher,
    at least PostgreSQL's 8: nothing of this server (its live 32, its
    running workers, pgbench_lab's runs)."""
    with node.connect() as conn:
        small = recommend(conn, ram="4GB", cpus=1, max_connections=20, os="linux",
                          storage="ssd", data_size="1GB")["max_worker_processes"]
        big = recommend(conn, ram="1TB", cpus=64, max_connections=200, os="linux",
                        storage="ssd", data_size="1GB")["max_worker_processes"]
        one_given = recommend(conn, storage="ssd")["max_worker_processes"]
    assert small["formula"] == "max(1 parallel + 4 logical replication + 1 launcher, 8 default) = 8"
    assert big["formula"] == "max(64 parallel + 4 logical replication + 1 launcher, 8 default) = 69"
    assert big["recommended"] == "69"
    for row in (small, big, one_given):
        assert "live" not in row["formula"] and "running" not in row["formula"], row["formula"]
        assert "pgbench_lab" not in row["reason"], row["reason"]


def test_wal_sync_method_from_fsync_test(node):
    """For this server's own disk, wal_sync_method is what fsync_test()'s
    rounds support (pgbench_lab_internal.wal_sync_decision(), tested with
    given timings below); unmeasured, the live method stays and the reason
    says what would decide; for a described machine there is no row.  One
    short real call: only the shape of what it gives is asserted."""
    with node.connect() as conn, conn.transaction(force_rollback=True):
        conn.execute("DELETE FROM pgbench_lab.storage_tests")
        live = conn.execute("SHOW wal_sync_method").fetchone()[0]
        unmeasured = recommend(conn, ram="4GB", cpus=2, data_size="1GB")
        rows = conn.execute(
            "SELECT method, supported, slowest_round, median_round, fastest_round"
            " FROM pgbench_lab.fsync_test(0.3)").fetchall()
        results, decided, rule, reason, day = conn.execute(
            "SELECT t.results, l.wal_sync_recommended, l.wal_sync_rule, l.wal_sync_reason,"
            " to_char(l.fsync_measured_at, 'YYYY-MM-DD')"
            " FROM pgbench_lab.storage_latest l JOIN pgbench_lab.storage_tests t"
            " ON t.id = l.fsync_test_id").fetchone()
        again = conn.execute(
            "SELECT method, rule, reason FROM pgbench_lab_internal.wal_sync_decision(%s, %s, 'fdatasync')",
            [Jsonb(results), live]).fetchone()
        measured = recommend(conn, ram="4GB", cpus=2, data_size="1GB")
        described = recommend(conn, ram="4GB", cpus=2, data_size="1GB", os="linux", storage="ssd")
    assert unmeasured["wal_sync_method"]["recommended"] == live
    assert unmeasured["wal_sync_method"]["changes"] is False
    assert "fsync_test() would decide" in unmeasured["wal_sync_method"]["reason"]
    # every supported row has its rounds' slowest <= median <= fastest
    for method, supported, lo, med, hi in rows:
        assert (lo is not None) == supported, method
        if supported:
            assert lo <= med <= hi, (method, lo, med, hi)
    assert results["repeats"] == 5
    candidates = [m for m in results["methods"] if m["candidate"] and m["supported"]]
    assert candidates and all(len(m["repeats"]) == 5 for m in candidates)
    assert any(m["is_current"] for m in candidates)
    assert (decided, rule, reason) == again
    row = measured["wal_sync_method"]
    assert row["recommended"] == decided and row["formula"] == rule
    assert row["reason"] == f"pgbench_lab.fsync_test() on {day}: {reason}"
    assert row["changes"] == (decided != live)
    assert "wal_sync_method" not in described


def sync_result(rounds, current="fdatasync", candidate=True):
    """An fsync_test() result with given rates per round for each method."""
    return {"wal_sync_method": current, "repeats": 5, "methods": [
        {"method": m, "direct": False, "writes_per_sync": 1, "write_size": 8192,
         "ops_per_second": sum(r) / len(r) if r else None, "repeats": r,
         "supported": bool(r), "candidate": candidate, "is_current": m == current,
         "fastest_safe": False} for m, r in rounds.items()]}


def decide(conn, rounds, live="fdatasync", fallback="fdatasync", **kw):
    return conn.execute(
        "SELECT method, reference, changes, rule, reason"
        " FROM pgbench_lab_internal.wal_sync_decision(%s, %s, %s)",
        [Jsonb(sync_result(rounds, **kw)), live, fallback]).fetchone()


def test_wal_sync_decision_rule(node):
    """The rule with given timings: another method replaces the live one
    when its median is faster beyond both methods' spreads (the product of
    their middle rounds' ratios, and at least 10 %) with no round below the
    live median; of several such, the best median wins; results without
    five rounds never change it; a method whose middle rounds are more than
    3 times apart is disturbed: it neither wins nor loses, and the reason
    says so and to measure again."""
    with node.connect() as conn:
        # the winner of one run flips between calls: within the noise
        flip = decide(conn, {"open_datasync": [950, 1010, 880, 990, 1020],
                             "fdatasync": [940, 990, 1000, 900, 960],
                             "fsync": [400, 420, 380, 410, 395]})
        # open_sync has the best median but a round below the live median
        clear = decide(conn, {"open_datasync": [1500, 1450, 1600, 1520, 1480],
                              "fdatasync": [940, 990, 1000, 900, 960],
                              "open_sync": [1700, 900, 1900, 1750, 1800]})
        # one slow round of the live method does not make it lose ...
        one_bad = decide(conn, {"open_datasync": [1000, 1010, 990, 1005, 995],
                                "fdatasync": [1000, 300, 1003, 998, 1001]})
        # ... nor does a 30 % lead within wide spreads (1.12 x 1.28), nor a
        # 5 % lead however steady
        wide = decide(conn, {"open_datasync": [1250, 1150, 1700, 1300, 1400],
                             "fdatasync": [800, 900, 1000, 1150, 1200]})
        small = decide(conn, {"open_datasync": [1050, 1051, 1052, 1053, 1054],
                              "fdatasync": [1000, 1000, 1001, 1001, 1002]})
        # ... nor a result with too few rounds, nor one from before rounds
        few = decide(conn, {"open_datasync": [5000, 5100, 5200, 5300],
                            "fdatasync": [100, 110, 105, 108]})
        legacy = decide(conn, {"open_datasync": [], "fdatasync": []})
        # one fast round does not hide a live method 100 times slower (the
        # old rule kept it: no other's slowest round beat its fastest)
        slow_live = decide(conn, {"open_datasync": [3600, 3500, 3700, 2000, 4200],
                                  "fdatasync": [22.8, 6574, 26.3, 28, 24],
                                  "fsync": [3600, 3400, 3800, 3900, 2900]})
        # two fast rounds of five: the live method's rounds are disturbed
        disturbed = decide(conn, {"open_datasync": [3600, 3500, 3700, 2000, 4200],
                                  "fdatasync": [22.8, 5365.8, 26.3, 5000, 24],
                                  "fsync": [3600, 3400, 3800, 3900, 2900]})
        # a disturbed method does not win, however high its median
        other_disturbed = decide(conn, {"open_datasync": [3600, 30, 3700, 20, 4200],
                                        "fdatasync": [1000, 1100, 1050, 990, 1020],
                                        "fsync": [1000, 1010, 1040, 1030, 1020]})
        # the live method not measured: the default is the reference
        other_live = decide(conn, {"open_datasync": [950, 1010, 880, 990, 1020],
                                   "fdatasync": [940, 990, 1000, 900, 960]},
                            live="fsync")
        none = decide(conn, {"open_datasync": [950, 1010, 880],
                             "fdatasync": [940, 990, 1000]}, live="fsync", fallback="fsync")
    assert flip[:3] == ("fdatasync", "fdatasync", False)
    assert flip[3] == "fdatasync kept: no other method's median beats its 960 ops/s beyond their spread"
    assert "open_datasync 990 (880-1020)" in flip[4] and "fdatasync 960 (900-1000)" in flip[4]
    assert flip[4].startswith("The live method stays") and "disturbed" not in flip[4]
    assert clear[:3] == ("open_datasync", "fdatasync", True)
    # medians 1500 and 960; middle rounds 1480/1450 and 990/940
    assert clear[3] == ("open_datasync: its median, 1500 ops/s, is 1.56 times fdatasync's 960,"
                        " beyond their spread (1.08) and with no round below it")
    assert "1.56 times that of fdatasync, the live method, more than" in clear[4]
    assert one_bad[:3] == ("fdatasync", "fdatasync", False)
    assert wide[:3] == ("fdatasync", "fdatasync", False)
    assert small[:3] == ("fdatasync", "fdatasync", False)
    assert few[:3] == ("fdatasync", "fdatasync", False) and "5 needed" in few[3]
    assert legacy is None
    assert slow_live[:3] == ("fsync", "fdatasync", True)
    assert slow_live[3].startswith("fsync: its median, 3600 ops/s, is 136.88 times fdatasync's 26,")
    assert disturbed[:3] == ("fdatasync", "fdatasync", False)
    assert disturbed[3] == "fdatasync kept: its rounds were disturbed, middle rounds 24-5000 ops/s; measure again"
    assert "fdatasync 26 (23-5366, disturbed)" in disturbed[4]
    assert "Run fsync_test() again" in disturbed[4]
    assert other_disturbed[:3] == ("fdatasync", "fdatasync", False)
    assert "open_datasync 3600 (20-4200, disturbed)" in other_disturbed[4]
    assert "The rounds of open_datasync (middle rounds 30-3700 flushes/s) were disturbed" in other_disturbed[4]
    assert other_live[:3] == ("fdatasync", "fdatasync", True)
    assert other_live[4].startswith("The default stays")
    assert none[0] == "fdatasync" and "fsync was not measured" in none[3]


# ---- storage measured by io_test() -----------------------------------------

DEVICE_EIO = {"hdd": "2", "ssd": "200", "nvme": "1000", "san": "300"}
MACHINE = dict(ram="4GB", cpus=2, os="linux", data_size="100GB")


def fake_io_result(conn, iops):
    """A result row as io_test() writes it, for a chosen random read rate."""
    conn.execute(
        "INSERT INTO pgbench_lab.storage_tests (kind, started_at, finished_at, seconds,"
        " size_bytes, results) VALUES ('io', now(), now(), 1, 67108864,"
        " jsonb_build_object('random_read_iops', %s::numeric))", [iops])


def latest_storage(conn):
    """storage_latest's class, random_page_cost, effective_io_concurrency, and
    the note recommend() must quote."""
    cls, rpc, eio, day, iops = conn.execute(
        "SELECT storage_class, random_page_cost::float8, effective_io_concurrency,"
        " to_char(io_measured_at, 'YYYY-MM-DD'), round(random_read_iops)"
        " FROM pgbench_lab.storage_latest").fetchone()
    note = f"measured by pgbench_lab.io_test() on {day}: {iops} random 8 kB reads/s -> {cls}"
    return cls, rpc, eio, note


def expected_page_cost(rows, device_cost):
    """recommend()'s random_page_cost for a device cost and 100GB of data."""
    cached = min(1.0, rows["effective_cache_size"]["bytes"] / (100 * GB))
    return round(1.1 + (device_cost - 1.1) * (1 - cached), 2)


def says_measured(rows):
    return any("measured by pgbench_lab.io_test()" in rows[n]["reason"]
               or "for measured " in rows[n]["formula"]
               for n in ("random_page_cost", "effective_io_concurrency",
                         "maintenance_io_concurrency"))


def boot_value(conn, name):
    """PostgreSQL's default for a setting on this server."""
    return conn.execute("SELECT boot_val FROM pg_settings WHERE name = %s", (name,)).fetchone()[0]


def test_measured_storage_from_io_test(node):
    """After a real io_test() run, recommend() with storage NULL takes the
    measured class, its random_page_cost and effective_io_concurrency, and
    its reason says where they come from; an explicit storage wins; without
    results the device's rotational flag decides."""
    with node.connect() as conn, conn.transaction(force_rollback=True):
        conn.execute("DELETE FROM pgbench_lab.storage_tests")
        rot = conn.execute("SELECT value FROM pgbench_lab.system_info()"
                           " WHERE name = 'data_rotational'").fetchone()
        unmeasured = recommend(conn, **MACHINE)
        defaults = {n: boot_value(conn, n) for n in ("effective_io_concurrency",
                                                      "maintenance_io_concurrency")}
        conn.execute("SELECT * FROM pgbench_lab.io_test('64MB', 1)").fetchall()
        cls, rpc, eio, note = latest_storage(conn)
        measured = recommend(conn, **MACHINE)
        other = "nvme" if cls != "nvme" else "hdd"
        explicit = recommend(conn, storage=other, **MACHINE)
    flagged = "hdd" if rot and rot[0] in ("1", "true", "t") else "ssd"
    assert not says_measured(unmeasured)
    # the rotational flag alone does not set the depths: the defaults stay,
    # and the reason says what would decide
    for name, value in defaults.items():
        assert unmeasured[name]["recommended"] == value, name
        assert "io_test() would decide" in unmeasured[name]["reason"], name
    assert f" {flagged} - 1.1" in unmeasured["random_page_cost"]["formula"]

    assert note in measured["random_page_cost"]["reason"]
    assert f"measured {cls} - 1.1" in measured["random_page_cost"]["formula"]
    assert measured["effective_io_concurrency"]["recommended"] == str(eio)
    assert measured["maintenance_io_concurrency"]["recommended"] == str(eio)
    # the depth is io_test()'s knee, and the reason quotes how it was found
    assert measured["effective_io_concurrency"]["formula"] == f"{eio}, the measured knee depth"
    assert f"found effective_io_concurrency {eio} measured: " in measured["effective_io_concurrency"]["reason"]
    assert float(measured["random_page_cost"]["recommended"]) == \
        expected_page_cost(measured, rpc)

    assert not says_measured(explicit)
    assert explicit["effective_io_concurrency"]["recommended"] == DEVICE_EIO[other]


def test_measured_storage_latest_wins(node):
    """The latest io_test() result decides, whatever the device's flag says:
    a slow result gives hdd's costs, a later fast one NVMe's."""
    with node.connect() as conn, conn.transaction(force_rollback=True):
        conn.execute("DELETE FROM pgbench_lab.storage_tests")
        fake_io_result(conn, 150)
        slow_note = latest_storage(conn)[3]
        slow = recommend(conn, **MACHINE)
        fake_io_result(conn, 25000)
        fast_note = latest_storage(conn)[3]
        fast = recommend(conn, **MACHINE)
        windows = recommend(conn, **{**MACHINE, "os": "windows"})
    assert slow_note.endswith(": 150 random 8 kB reads/s -> hdd")
    assert slow_note in slow["random_page_cost"]["reason"]
    assert slow["effective_io_concurrency"]["recommended"] == "2"
    assert float(slow["random_page_cost"]["recommended"]) == expected_page_cost(slow, 4.0)
    assert fast_note.endswith(": 25000 random 8 kB reads/s -> nvme")
    assert fast_note in fast["effective_io_concurrency"]["reason"]
    assert fast["effective_io_concurrency"]["recommended"] == "1000"
    assert fast["random_page_cost"]["recommended"] == "1.1"
    # the OS rule still holds: no prefetch advice without posix_fadvise
    assert windows["effective_io_concurrency"]["recommended"] == "0"
    assert fast_note in windows["random_page_cost"]["reason"]


def test_measured_storage_unreadable_falls_back(node):
    """A role that may run recommend() but not read the results gets the
    device's flag, not an error."""
    with node.connect() as conn, conn.transaction(force_rollback=True):
        fake_io_result(conn, 25000)
        conn.execute("CREATE ROLE reco_reader")
        conn.execute("GRANT USAGE ON SCHEMA pgbench_lab TO reco_reader")
        conn.execute("GRANT EXECUTE ON FUNCTION pgbench_lab.recommend(text, numeric, int,"
                     " text, text, text, text, text) TO reco_reader")
        conn.execute("SET LOCAL ROLE reco_reader")
        rows = recommend(conn, **MACHINE)
        default = boot_value(conn, "effective_io_concurrency")
    assert not says_measured(rows)
    assert rows["effective_io_concurrency"]["recommended"] == default


# ---- the reference's comparison table (docs/reference.md) can't drift ---------

README = pathlib.Path(__file__).resolve().parents[2] / "docs" / "reference.md"
UNITS = {"kB": 1024, "MB": MB, "GB": GB, "TB": 1024 * GB}
SHARE = {"web": 1.0, "oltp": 1.0, "dw": 0.5, "mixed": 0.5, "desktop": 1 / 6}


def readme_comparison():
    """[(machine dict, setting, {tool: cell})] from the README's table."""
    lines = README.read_text().splitlines()
    start = next(i for i, line in enumerate(lines)
                 if line.startswith("| machine | setting | pgbench_lab | PGTune |"))
    tools = [c.strip() for c in lines[start].strip("|").split("|")][2:]
    rows, machine = [], None
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip("|").split("|")]
        if cells[0]:
            m = re.fullmatch(r"(\w+), (\d+)GB, (\d+) CPUs, (\d+) conns, (\w+)", cells[0])
            assert m, cells[0]
            machine = dict(workload=m[1], ram=int(m[2]) * GB, cpus=int(m[3]),
                           max_connections=int(m[4]), storage=m[5])
        rows.append((machine, cells[1], dict(zip(tools, cells[2:]))))
    return rows


def pgtune(m, data=100 * GB):
    """PGTune (2026) per recommenders.md §1.1, Linux, PostgreSQL 18."""
    r, c, n, wl = m["ram"], m["cpus"], m["max_connections"], m["workload"]
    sb = r / 16 if wl == "desktop" else r / 4
    workers = c if c >= 4 else 8
    wm = (r - sb) / (3 * (n + workers)) * SHARE[wl]
    wm *= 1.3 if data < r else 0.9 if data > 3 * r else 1.0
    gather = math.ceil(c / 2) if wl == "dw" else min(math.ceil(c / 2), 4)
    return {"max_connections": n, "shared_buffers": sb,
            "effective_cache_size": r / 4 if wl == "desktop" else 3 * r / 4,
            "work_mem": max(wm, 4 * MB),
            "maintenance_work_mem": min(r / (8 if wl == "dw" else 16), 8 * GB),
            "max_wal_size": {"web": 4, "oltp": 8, "dw": 16, "mixed": 4, "desktop": 2}[wl] * GB,
            "max_parallel_workers_per_gather": gather}


def timescaledb_tune(m):
    """timescaledb-tune 0.19 per recommenders.md §1.3 (default profile)."""
    r, c, n = m["ram"], m["cpus"], m["max_connections"]
    return {"max_connections": n, "shared_buffers": r / 4, "effective_cache_size": 3 * r / 4,
            "work_mem": max(r / GB * 400 * MB / n / math.floor(c / 2 + 0.5), 64 * 1024),
            "maintenance_work_mem": min(r / 8, 2047 * MB), "max_wal_size": 1 * GB,
            "max_parallel_workers_per_gather": math.floor(c / 2 + 0.5)}


def pgconfig(m):
    """PGConfig per recommenders.md §1.4."""
    n, wl = m["max_connections"], m["workload"]
    r = m["ram"] * {"web": 1, "oltp": 1, "dw": 1, "mixed": 0.5, "desktop": 0.2}[wl]
    p = {"web": 0.25, "oltp": 0.35, "dw": 0.5, "mixed": 0.2, "desktop": 0.1}[wl]
    return {"max_connections": n,
            "shared_buffers": m["ram"] / 16 if wl == "desktop" else r / 4,
            "effective_cache_size": 3 * r / 4, "work_mem": r * p / n,
            "maintenance_work_mem": r * 0.05, "max_wal_size": 3 * GB,
            "max_parallel_workers_per_gather": 2}


def shows(cell, value):
    """Whether a README cell is value rounded to the precision it is printed
    with: '35MB' for 35.4MB, '3.2GB' for 3276.8MB, '100' for 100."""
    m = re.fullmatch(r"([0-9]+)(?:\.([0-9]+))?(kB|MB|GB|TB)?", cell)
    assert m, cell
    unit = UNITS[m[3]] if m[3] else 1
    shown = float(m[1] + "." + (m[2] or "0")) * unit
    return abs(shown - value) <= 0.5 * unit / 10 ** len(m[2] or "") + 1e-9 * unit


def test_readme_comparison_competitors():
    """The PGTune, timescaledb-tune and PGConfig columns are those tools'
    formulas (recommenders.md) applied to the machines in the first column."""
    rows = readme_comparison()
    assert len(rows) >= 18
    tools = {"PGTune": pgtune, "timescaledb-tune": timescaledb_tune, "PGConfig": pgconfig}
    wrong = [(m["workload"], setting, tool, cells[tool], f(m)[setting])
             for m, setting, cells in rows for tool, f in tools.items()
             if not shows(cells[tool], f(m)[setting])]
    assert wrong == []


def test_readme_comparison_pgbench_lab(node):
    """The pgbench_lab column is what recommend() answers today."""
    rows = readme_comparison()
    with node.connect() as conn:
        wrong = []
        for m, setting, cells in rows:
            got = recommend(conn, ram=f"{m['ram'] // GB}GB", cpus=m["cpus"],
                            max_connections=m["max_connections"], workload=m["workload"],
                            storage=m["storage"], os="linux", data_size="100GB")
            if got[setting]["recommended"] != cells["pgbench_lab"]:
                wrong.append((m["workload"], setting, cells["pgbench_lab"],
                              got[setting]["recommended"]))
    assert wrong == []


def test_max_worker_processes_counts_the_largest_lab_run(new_cluster, container):
    """The largest in-server run recorded here is named in this server's
    note, with what max_worker_processes would need for it, and is no term
    of the value; a described machine's row does not name it."""
    c = new_cluster("labneed", {"max_worker_processes": "16"})
    c.sql("CREATE EXTENSION pgbench_lab CASCADE")
    c.run_client("pgbench", "-i", "-s", "1", "-q", "postgres")
    c.sql("CALL pgbench_lab.run('select-only', clients => 12, transactions => 1)")
    with c.connect() as conn:
        conn.execute("SELECT set_config('pgbench_lab.sysroot', %s, false)", [container])
        row = recommend(conn, max_connections=20)["max_worker_processes"]
        conn.execute("RESET pgbench_lab.sysroot")
        described = recommend(conn, ram="4GB", cpus=1, max_connections=20, os="linux",
                              storage="ssd", data_size="1GB")["max_worker_processes"]
    m = re.fullmatch(r"max\(2 parallel \+ 4 logical replication \+ (\d+) other running,"
                     r" 16 live\) = 16", row["formula"])
    assert m, row["formula"]
    need = 2 + 4 + int(m.group(1))
    assert row["reason"].endswith(
        " Not counted: pgbench_lab's own runs, which take a slot per client plus one (a libpq"
        " run one per thread plus one); to run 12 clients in the server (the largest of 8,"
        " twice the 2 cores and the largest in-server run recorded here, 12) beside all of"
        f" these, set it to {need} + 13 = {need + 13}."), row["reason"]
    assert described["recommended"] == "8" and "pgbench_lab" not in described["reason"]
