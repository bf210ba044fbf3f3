"""The in-server fast path of this build against a base build, paired.

Started by test/bench/fastpath.sh, which installs this checkout into the
private PostgreSQL tree (PGBL_BINDIR) and the base revision into a copy of
it (PGBL_BASE_BINDIR).  One throwaway cluster and one pgbench data set
serve both: each turn restarts the server with one build's binaries,
creates the extension again (its functions are that build's), vacuums and
prewarms pgbench's tables, warms up, then runs select-only and tpcb-like
in the server (pgbench_lab.run(), no via) for the same duration and
clients.  Rounds alternate the builds A B, B A, A B, ... so that a drift of
the machine falls on both; each round gives a paired ratio this / base per
workload, and the verdict is the median of those ratios, within 2 % or not.
Nothing here asserts: this measures, and says how quiet the machine was.

    test/bench/fastpath.sh [--base REV] [--rounds 6] [--seconds 10] [--clients 2]
                           [--scale 1] [--settle 300]
"""
import argparse
import hashlib
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "t"))
from conftest import Cluster  # noqa: E402  (the tests' throwaway clusters)

WORKLOADS = ("select-only", "tpcb-like")
TABLES = ("pgbench_accounts", "pgbench_branches", "pgbench_tellers", "pgbench_history")
TOLERANCE = 0.02


def load():
    return os.getloadavg()


def others(exclude=()):
    """PostgreSQL and pgbench processes on the machine, but those of exclude."""
    n = 0
    for pid in os.listdir("/proc"):
        if pid.isdigit() and int(pid) not in exclude:
            try:
                with open(f"/proc/{pid}/comm") as f:
                    if f.read().strip() in ("postgres", "postmaster", "pgbench"):
                        n += 1
            except OSError:
                pass
    return n


def wait_quiet(settle):
    """Wait up to settle seconds for a quiet machine, saying for what."""
    cores = os.cpu_count() or 1
    want1, want5 = 0.3 * cores, 0.5 * cores

    def state():
        l1, l5, _ = load()
        return l1, l5, others()

    l1, l5, n = state()
    quiet = l1 <= want1 and l5 <= want5 and n == 0
    if not quiet:
        print(f"== waiting up to {settle} s for a quiet machine: 1-minute load average at most "
              f"{want1:.1f} and 5-minute at most {want5:.1f} ({cores} CPUs), and no PostgreSQL or "
              f"pgbench process running; now {l1:.2f} and {l5:.2f}, {n} such processes", flush=True)
        deadline = time.monotonic() + settle
        while not quiet and time.monotonic() < deadline:
            time.sleep(10)
            l1, l5, n = state()
            quiet = l1 <= want1 and l5 <= want5 and n == 0
    print(f"== machine: {cores} CPUs, load average {l1:.2f} (1 min) {l5:.2f} (5 min), "
          f"{n} other PostgreSQL/pgbench processes: "
          + ("quiet" if quiet else "NOT quiet, these figures are not for publishing"), flush=True)
    return quiet


def library(bindir):
    """The extension's library in a tree, and the start of its SHA-256."""
    pkglib = subprocess.run([os.path.join(bindir, "pg_config"), "--pkglibdir"],
                            capture_output=True, text=True, check=True).stdout.strip()
    path = os.path.join(pkglib, "pgbench_lab.so")
    with open(path, "rb") as f:
        return path, hashlib.sha256(f.read()).hexdigest()[:12]


def turn(c, bindir, args):
    """One build's turn: the server on its binaries, its extension, the
    tables vacuumed and prewarmed, a warm-up, then each workload; returns
    {workload: tps}."""
    c.stop()
    c.bindir = bindir
    c.start()
    c.sql("DROP EXTENSION IF EXISTS pgbench_lab CASCADE")
    c.sql("CREATE EXTENSION pgbench_lab CASCADE")
    for t in TABLES:
        c.sql(f"VACUUM {t}")
        c.sql("SELECT pg_prewarm(%s)", (t,))
    c.sql("CHECKPOINT")
    run(c, "select-only", args.clients, 1)
    return {w: run(c, w, args.clients, args.seconds) for w in WORKLOADS}


def run(c, workload, clients, seconds):
    row = c.sql("CALL pgbench_lab.run(%s, clients => %s, duration => %s)",
                (workload, clients, f"{seconds} s"))[0]
    assert row[1] == "done", row
    return float(c.scalar("SELECT tps FROM pgbench_lab.runs WHERE run_id = %s", (row[0],)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=6, help="pairs of turns, A B then B A ...")
    ap.add_argument("--seconds", type=int, default=10, help="each workload's run")
    ap.add_argument("--clients", type=int, default=2)
    ap.add_argument("--scale", type=int, default=1)
    ap.add_argument("--settle", type=int, default=300, help="seconds to wait for a quiet machine")
    args = ap.parse_args()
    this_bin, base_bin = os.environ["PGBL_BINDIR"], os.environ["PGBL_BASE_BINDIR"]
    builds = {"base": base_bin, "this": this_bin}

    quiet_start = wait_quiet(args.settle)
    load_start = load()
    # fsync on, commits not waited for: the path's CPU cost, not the disk's
    c = Cluster("bench-fastpath", {"shared_buffers": "256MB", "max_wal_size": "4GB",
                                   "fsync": "on", "synchronous_commit": "off"})
    try:
        c.start()
        c.run_client("pgbench", "-i", "-q", "-s", str(args.scale), "postgres", socket=True)
        c.sql("CREATE EXTENSION pg_prewarm")
        version = c.scalar("SELECT pg_catalog.version()")
        print("== provenance")
        print(f"  server       {version}")
        for name, b in builds.items():
            lib, digest = library(b)
            rev = os.environ.get("PGBL_BENCH_HEAD" if name == "this" else "PGBL_BENCH_BASE", "?")
            print(f"  {name:<5} build {rev}\n               {b}\n               {lib} (sha256 {digest})")
        print(f"  runs         in-server, {args.clients} clients, {args.seconds} s each, scale "
              f"{args.scale}; {args.rounds} rounds, each a turn of both builds (order A B, B A, ...); "
              f"every turn restarts the server with its build, a 1-s warm-up first")
        print("  settings     fsync on, synchronous_commit off, shared_buffers 256MB")
        print(f"  load         {load_start[0]:.2f} {load_start[1]:.2f} {load_start[2]:.2f} at the start "
              f"({'quiet' if quiet_start else 'not quiet'})", flush=True)

        tps = {name: {w: [] for w in WORKLOADS} for name in builds}
        loads = []
        print("\n== rounds (tps; ratio = this / base)")
        for r in range(args.rounds):
            order = ("base", "this") if r % 2 == 0 else ("this", "base")
            got = {}
            for name in order:
                got[name] = turn(c, builds[name], args)
                for w in WORKLOADS:
                    tps[name][w].append(got[name][w])
            loads.append(load()[0])
            print(f"  round {r + 1:>2} ({order[0]} first, load {loads[-1]:.2f}): " + "; ".join(
                f"{w} base {got['base'][w]:.0f} this {got['this'][w]:.0f} ratio "
                f"{got['this'][w] / got['base'][w]:.3f}" for w in WORKLOADS), flush=True)

        print("\n== paired ratios (this / base)")
        for w in WORKLOADS:
            ratios = sorted(a / b for a, b in zip(tps["this"][w], tps["base"][w]))
            med = statistics.median(ratios)
            within = abs(med - 1) <= TOLERANCE
            # the rounds' spread: a median is no verdict if the pairs scatter wider
            spread = (ratios[-1] - ratios[0]) / 2
            print(f"  {w:<12} median {med:.3f}, range {ratios[0]:.3f}-{ratios[-1]:.3f} over "
                  f"{len(ratios)} rounds; base {statistics.median(tps['base'][w]):.0f} tps, this "
                  f"{statistics.median(tps['this'][w]):.0f} tps (medians): "
                  + (f"within {TOLERANCE:.0%}" if within else
                     f"NOT within {TOLERANCE:.0%} ({(med - 1) * 100:+.1f} %)")
                  + (f"; the pairs scatter by +-{spread * 100:.0f} %, wider than that: inconclusive "
                     "(more rounds, longer runs or a quieter machine)" if spread > TOLERANCE else ""),
                  flush=True)
        end = load()
        print(f"\n  load average during the rounds {min(loads):.2f}-{max(loads):.2f} (1 min, this "
              f"benchmark's own work included), {end[1]:.2f} (5 min) at the end; "
              f"{others(own_pids(c))} other PostgreSQL/pgbench processes at the end")
    finally:
        c.destroy()


def own_pids(c):
    """The benchmark cluster's postmaster and its children."""
    try:
        pm = c.postmaster_pid()
    except (OSError, ValueError):
        return set()
    pids = {pm}
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open(f"/proc/{pid}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pm:
                        pids.add(int(pid))
            except (OSError, ValueError, IndexError):
                pass
    return pids


if __name__ == "__main__":
    main()
