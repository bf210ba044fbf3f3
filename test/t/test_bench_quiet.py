"""The benchmarks' quiet rule (test/bench/bench.py): a machine is quiet by
what takes its CPU, not by which processes exist.  A DBA's machine always
has its own idle PostgreSQL server; its processes must not stop a benchmark
from publishing, while a cluster at work, or a busy machine, still must.

The rules are judged on measurements (judge_quiet), so the decision is
tested on given figures; the one measurement that tells an idle cluster
from a working one (the CPU its processes took over the window) is taken
on real clusters, restricted to their own processes, so that whatever
else the machine runs does not enter it.
"""
import os
import subprocess
import sys

import pytest

from conftest import pgbench_cluster

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bench"))
import bench  # noqa: E402


@pytest.fixture(scope="module")
def idle():
    yield from pgbench_cluster("quiet-idle", scale=1)


def cluster_pids(c):
    return bench.own_processes(c)


def test_an_idle_cluster_beside_a_quiet_machine_is_quiet(idle):
    """The figures the issue's machine had: load 0.00 and 0.04-0.06, six
    processes of an idle cluster.  Measured: an idle cluster's processes
    take next to no CPU, so the rule about other servers passes."""
    _, others = bench.cpu_taken(among=cluster_pids(idle))
    assert others <= bench.QUIET_OTHERS, others
    rules = bench.judge_quiet(2, (0.00, 0.05), 0.01, others)
    assert all(ok for _, ok, _ in rules), rules


def test_a_working_cluster_is_not_quiet(idle):
    """The same cluster under pgbench: its processes take CPU, and the rule
    about other servers fails by name."""
    p = subprocess.Popen([idle.bin("pgbench"), "-n", "-S", "-T", "30", "-h", "127.0.0.1",
                          "-p", str(idle.port), "-U", "postgres", "postgres"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        idle.poll("SELECT count(*) > 0 FROM pg_stat_activity WHERE application_name = 'pgbench' "
                  "AND state = 'active'")
        pids = cluster_pids(idle) | {p.pid}
        _, others = bench.cpu_taken(among=pids)
    finally:
        p.kill()
        p.wait()
    assert others > bench.QUIET_OTHERS, others
    rules = bench.judge_quiet(2, (0.00, 0.05), 0.01, others)
    failed = [name for name, ok, _ in rules if not ok]
    assert failed == ["other PostgreSQL/pgbench"], rules


@pytest.mark.parametrize("load, busy, failed", [
    ((1.5, 0.2), 0.01, ["load average"]),
    ((0.1, 1.5), 0.01, ["load average"]),
    ((0.0, 0.0), 0.60, ["CPU busy"]),
    ((1.9, 1.8), 0.95, ["load average", "CPU busy"]),
])
def test_a_loaded_machine_is_not_quiet_and_says_which_rule(load, busy, failed):
    rules = bench.judge_quiet(2, load, busy, 0.0)
    assert [name for name, ok, _ in rules if not ok] == failed


def test_at_the_end_the_load_average_is_the_benchmarks_own(idle):
    """With the benchmark's own cluster named, the load average (its own
    work) is not judged; the CPU taken in the last seconds is."""
    rules = bench.judge_quiet(2, (1.9, 1.8), 0.02, 0.0, own=idle)
    assert [name for name, _, _ in rules] == ["CPU busy", "other PostgreSQL/pgbench"]
    assert all(ok for _, ok, _ in rules)
