"""The in-server fast path of this build against a base build, paired.

Started by test/bench/fastpath.sh, which installs this checkout into the
private PostgreSQL tree (PGBL_BINDIR) and the base revision into a copy of
it (PGBL_BASE_BINDIR).  One throwaway cluster and one pgbench data set
serve both: each turn restarts the server with one build's binaries,
creates the extension again (its functions are that build's), vacuums and
prewarms pgbench's tables, warms up, then runs select-only and tpcb-like
in the server (pgbench_lab.start() and wait(), no via) for the same
duration and clients.  Each run gives its tps and its clients' CPU time per
transaction (read from /proc between the end of the first second and one
second before the end, against the live transaction count): on a machine
that other work shares, the CPU a transaction costs moves far less than
the tps.  Rounds alternate the builds A B, B A, A B, ... so that a drift of
the machine falls on both; each round gives a paired ratio this / base per
workload, and the verdict is the median of those ratios, within 2 % or not
(inconclusive when the pairs scatter much wider).  Nothing here asserts:
this measures, and says how quiet the machine was.

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
from bench import other_postgres, quiet_check  # noqa: E402  (the wait for a quiet machine)

WORKLOADS = ("select-only", "tpcb-like")
TABLES = ("pgbench_accounts", "pgbench_branches", "pgbench_tellers", "pgbench_history")
TOLERANCE = 0.02


def load():
    return os.getloadavg()


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


def client_ticks(c):
    """User + system clock ticks so far of each in-server client worker."""
    ticks = {}
    for (pid,) in c.sql("SELECT pid FROM pg_stat_activity WHERE backend_type = 'pgbench_lab client'"):
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            ticks[pid] = int(fields[11]) + int(fields[12])
        except (OSError, IndexError, ValueError):
            pass
    return ticks


def run(c, workload, clients, seconds):
    """One in-server run: its tps, and its clients' CPU per transaction (us)
    from the end of its first second to one second before its end (the
    clients execute each whole transaction, so this is the path's cost; it
    moves far less than tps when other work shares the CPUs)."""
    run_id = c.scalar("SELECT pgbench_lab.start(%s, clients => %s, duration => %s)",
                      (workload, clients, f"{seconds} s"))
    live = "SELECT transactions FROM pgbench_lab_internal.run_live(%s)"
    c.poll("SELECT count(*) = %s FROM pg_stat_activity WHERE backend_type = 'pgbench_lab client'",
           (clients,))
    cpu = None
    if seconds >= 3:
        time.sleep(1)
        t0, x0 = client_ticks(c), c.scalar(live, (run_id,))
        time.sleep(seconds - 2)
        t1, x1 = client_ticks(c), c.scalar(live, (run_id,))
        used = sum(t1[p] - t0[p] for p in t0.keys() & t1.keys())
        if x1 > x0 and len(t0.keys() & t1.keys()) == clients:
            cpu = used * 1e6 / os.sysconf("SC_CLK_TCK") / (x1 - x0)
    row = c.sql("CALL pgbench_lab.wait(%s)", (run_id,))[0]
    assert row[1] == "done", row
    return float(c.scalar("SELECT tps FROM pgbench_lab.runs WHERE run_id = %s", (run_id,))), cpu


def verdict(ratios, better):
    """The median of the paired ratios against the tolerance; better is 1
    when a higher ratio is better (tps), -1 when a lower one is (CPU)."""
    med = statistics.median(ratios)
    gain = (med - 1) * better
    text = (f"median {med:.3f}, range {ratios[0]:.3f}-{ratios[-1]:.3f} over {len(ratios)} rounds: "
            + (f"within {TOLERANCE:.0%}" if abs(med - 1) <= TOLERANCE else
               f"better by {abs(med - 1) * 100:.1f} %" if gain > 0 else
               f"NOT within {TOLERANCE:.0%}, worse by {abs(med - 1) * 100:.1f} %"))
    # a median is no verdict when the pairs scatter much wider than the tolerance
    spread = (ratios[-1] - ratios[0]) / 2
    if spread > 2 * TOLERANCE:
        text += (f" (the pairs scatter by +-{spread * 100:.0f} %: inconclusive; more rounds, "
                 "longer runs or a quieter machine)")
    return text


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=6, help="pairs of turns, A B then B A ...")
    ap.add_argument("--seconds", type=int, default=10,
                    help="each workload's run (CPU per transaction needs 3 or more)")
    ap.add_argument("--clients", type=int, default=2)
    ap.add_argument("--scale", type=int, default=1)
    ap.add_argument("--settle", type=int, default=300, help="seconds to wait for a quiet machine")
    args = ap.parse_args()
    this_bin, base_bin = os.environ["PGBL_BINDIR"], os.environ["PGBL_BASE_BINDIR"]
    builds = {"base": base_bin, "this": this_bin}

    quiet_start = quiet_check(settle=args.settle)
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

        got_all = {name: {w: [] for w in WORKLOADS} for name in builds}
        loads = []
        print("\n== rounds (tps, and the clients' CPU us per transaction; ratio = this / base)")
        for r in range(args.rounds):
            order = ("base", "this") if r % 2 == 0 else ("this", "base")
            got = {}
            for name in order:
                got[name] = turn(c, builds[name], args)
                for w in WORKLOADS:
                    got_all[name][w].append(got[name][w])
            loads.append(load()[0])
            print(f"  round {r + 1:>2} ({order[0]} first, load {loads[-1]:.2f}):", flush=True)
            for w in WORKLOADS:
                (bt, bc), (tt, tc) = got["base"][w], got["this"][w]
                cpu = (f"; CPU base {bc:.1f} this {tc:.1f} ratio {tc / bc:.3f}"
                       if bc and tc else "")
                print(f"    {w:<12} tps base {bt:.0f} this {tt:.0f} ratio {tt / bt:.3f}{cpu}", flush=True)

        print("\n== paired ratios, this / base (tps: higher is faster; CPU per transaction: lower is cheaper)")
        for w in WORKLOADS:
            for i, what, better in ((0, "tps", 1), (1, "CPU/xact", -1)):
                pairs = [(t[i], b[i]) for t, b in zip(got_all["this"][w], got_all["base"][w])
                         if t[i] and b[i]]
                if not pairs:
                    continue
                ratios = sorted(t / b for t, b in pairs)
                print(f"  {w:<12} {what:<8} {verdict(ratios, better)}; medians base "
                      f"{statistics.median(b for _, b in pairs):.{0 if i == 0 else 1}f}, this "
                      f"{statistics.median(t for t, _ in pairs):.{0 if i == 0 else 1}f}", flush=True)
        end = load()
        print(f"\n  load average during the rounds {min(loads):.2f}-{max(loads):.2f} (1 min, this "
              f"benchmark's own work included), {end[1]:.2f} (5 min) at the end; "
              f"{other_postgres(c)} other PostgreSQL/pgbench processes at the end")
    finally:
        c.destroy()


if __name__ == "__main__":
    main()
