"""What planning costs per transaction: select-only in each query_mode.

Started by test/bench/query_modes.sh, which installs this checkout into the
private PostgreSQL (PGBL_BINDIR).  One throwaway cluster and one pgbench
data set; pgbench's select-only script (scripts => '{select-only}', which
runs in every query_mode, as the built-in workload does since 0.3) with 1
client, in the server (SPI) and over libpq to this server's socket, in
each mode: simple (the values in the text, parsed and planned every
time), extended (the text with its parameters, planned every time) and
prepared (planned once per client).  Rounds alternate the six contenders,
each round in the other order than the one before, so that a drift of the
machine falls on all.  Prints per path and mode the median tps with its
range, the time per transaction, and its difference from prepared in
microseconds (the median of each round's paired difference, with its
range): what parsing and planning add to a transaction.  Nothing here
asserts: this measures, and says how quiet the machine was.

    test/bench/query_modes.sh [--rounds 6] [--seconds 5] [--scale 1] [--settle 300]
"""
import argparse
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "t"))
from conftest import Cluster  # noqa: E402  (the tests' throwaway clusters)
from bench import other_postgres, quiet_check  # noqa: E402  (the wait for a quiet machine)

MODES = ("simple", "extended", "prepared")
VIAS = ("spi", "libpq")
TABLES = ("pgbench_accounts", "pgbench_branches", "pgbench_tellers", "pgbench_history")


def tps(c, via, mode, seconds):
    row = c.sql("CALL pgbench_lab.run(scripts => '{select-only}', clients => 1, duration => %s, "
                "query_mode => %s, via => %s)", (f"{seconds} s", mode, via))[0]
    assert row[1] == "done", row
    return float(c.scalar("SELECT tps FROM pgbench_lab.runs WHERE run_id = %s", (row[0],)))


def spread(values, digits=0, sign=""):
    v = sorted(values)
    return f"{statistics.median(v):{sign}.{digits}f} ({v[0]:{sign}.{digits}f} to {v[-1]:{sign}.{digits}f})"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=6, help="rounds of the six contenders")
    ap.add_argument("--seconds", type=float, default=5, help="each run's duration")
    ap.add_argument("--scale", type=int, default=1)
    ap.add_argument("--settle", type=int, default=300, help="seconds to wait for a quiet machine")
    args = ap.parse_args()

    quiet_start = quiet_check(settle=args.settle)
    c = Cluster("bench-query-modes", {"shared_buffers": "256MB", "max_worker_processes": "16"})
    try:
        c.start()
        c.run_client("pgbench", "-i", "-q", "-s", str(args.scale), "postgres", socket=True)
        c.sql("CREATE EXTENSION pgbench_lab CASCADE")
        for t in TABLES:
            c.sql(f"VACUUM {t}")
            c.sql("SELECT pg_prewarm(%s)", (t,))
        contenders = [(via, mode) for via in VIAS for mode in MODES]
        print("== provenance")
        print(f"  server       {c.scalar('SELECT pg_catalog.version()')}")
        print(f"  runs         scripts => '{{select-only}}', 1 client, {args.seconds:g} s each, scale "
              f"{args.scale}; {args.rounds} rounds of the six contenders (in the server and over "
              "libpq to this server's socket, each query_mode), every other round in reverse order, "
              "after a 1-s warm-up of each", flush=True)
        for via, mode in contenders:
            tps(c, via, mode, 1)

        got = {k: [] for k in contenders}
        print("\n== rounds (tps)")
        for r in range(args.rounds):
            order = contenders if r % 2 == 0 else contenders[::-1]
            for k in order:
                got[k].append(tps(c, *k, args.seconds))
            print(f"  round {r + 1:>2} (load {os.getloadavg()[0]:.2f}): "
                  + ", ".join(f"{via} {mode} {got[(via, mode)][-1]:.0f}" for via, mode in contenders),
                  flush=True)

        print("\n== per mode: median tps (range), us per transaction, and the difference per "
              "transaction against prepared (median of the rounds' paired differences, range):")
        for via in VIAS:
            prepared = got[(via, "prepared")]
            for mode in MODES:
                t = got[(via, mode)]
                us = [1e6 / x for x in t]
                line = f"  {via:<6} {mode:<9} tps {spread(t)}   {statistics.median(us):.2f} us/xact"
                if mode != "prepared":
                    diff = [1e6 / x - 1e6 / p for x, p in zip(t, prepared)]
                    line += f"   {spread(diff, 2, '+')} us against prepared"
                print(line, flush=True)
        load = os.getloadavg()
        print(f"\n  load average {load[0]:.2f} (1 min) {load[1]:.2f} (5 min) at the end, this "
              f"benchmark's own work included; {other_postgres(c)} other PostgreSQL/pgbench "
              f"processes; the machine was {'quiet' if quiet_start else 'NOT quiet'} at the start")
    finally:
        c.destroy()


if __name__ == "__main__":
    main()
