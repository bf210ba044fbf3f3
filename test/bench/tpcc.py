"""TPC-C's mix three ways on the same warehouses: in the server
(via => 'spi'), over libpq (via => 'libpq' to this server's own socket,
threads => min(clients, cores)) and the pgbench binary (-M prepared over
the Unix socket, -j min(clients, cores), the kit's files of
sql/tpcc/ with their weights).

Started by test/bench/tpcc.sh, which builds and installs this checkout into
the private PostgreSQL (PGBL_BINDIR).  One throwaway cluster, one
init_tpcc() load.  NOPM (new orders per minute) is measured the same way
for the three, on the server, as HammerDB measures it: sum(d_next_o_id) of
the district table before and after each run, times 60, divided by the
run's own measured seconds (pgbench_lab's measured_seconds; pgbench's
transactions over its tps, the time after its connections were made).
Paired alternating rounds (each pair runs the three, every other pair in
reverse order, each run after a CHECKPOINT); per pair the ratios
in-server/pgbench and libpq/pgbench; their median and min-max.  Nothing
here asserts: this measures, and says how quiet the machine was (a table
from a machine that was not quiet at the start is printed as not for
publishing).

    test/bench/tpcc.sh [--warehouses 2] [--clients 4] [--seconds 20] [--pairs 5]
                       [--shared-buffers 512MB] [--settle 600] [--quick]
"""
import argparse
import os
import re
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.normpath(os.path.join(HERE, "..", "..", "sql", "tpcc"))
sys.path.insert(0, os.path.join(HERE, "..", "t"))
from conftest import Cluster  # noqa: E402  (the tests' throwaway clusters)
from bench import bench_conf, other_postgres, quiet_check  # noqa: E402

# the kit's mix: script and weight (pgbench_lab_internal.tpcc_scripts())
MIX = (("tpcc-new-order", 10), ("tpcc-payment", 10), ("tpcc-order-status", 1),
       ("tpcc-delivery", 1), ("tpcc-stock-level", 1))
PATHS = ("in-server", "libpq", "pgbench")


def new_orders(c):
    """The orders the districts have taken so far: what HammerDB counts."""
    return int(c.scalar("SELECT sum(d_next_o_id) FROM tpcc.district"))


def lab_run(c, via, args, threads):
    """One pgbench_lab run of the mix; returns (new orders, seconds, note)."""
    before = new_orders(c)
    row = c.sql("CALL pgbench_lab.run(scripts => %s, clients => %s, duration => %s, via => %s, threads => %s,"
                " query_mode => 'prepared', label => %s)",
                ([f"{n}@{w}" for n, w in MIX], args.clients, f"{args.seconds} s", via,
                 threads if via == "libpq" else None, f"bench tpcc {via}"))[0]
    after = new_orders(c)
    seconds, status, failures, error = c.sql(
        "SELECT measured_seconds, status, failures, error FROM pgbench_lab.runs WHERE run_id = %s", (row[0],))[0]
    note = "" if status == "done" and not failures else f"run {row[0]} {status}, {failures} failures {error or ''}"
    return after - before, seconds, note


def pgbench_run(c, args, threads):
    """One pgbench run of the kit's files; returns (new orders, seconds, note)."""
    files = []
    for name, weight in MIX:
        files += ["-f", f"{os.path.join(FIXTURES, name + '.sql')}@{weight}"]
    before = new_orders(c)
    r = c.run_client("pgbench", "-n", "-M", "prepared", "-c", str(args.clients), "-j", str(threads),
                     "-T", str(args.seconds), *files, "postgres", socket=True, check=False)
    after = new_orders(c)
    processed = re.search(r"number of transactions actually processed: (\d+)", r.stdout)
    tps = re.search(r"tps = ([0-9.]+) \(without initial connection time\)", r.stdout)
    failed = re.search(r"number of failed transactions: (\d+)", r.stdout)
    if r.returncode != 0 or not processed or not tps or float(tps.group(1)) == 0:
        raise RuntimeError(f"pgbench failed ({r.returncode}):\n{r.stdout}\n{r.stderr}")
    note = f"{failed.group(1)} failed transactions" if failed and int(failed.group(1)) else ""
    if "aborted" in r.stderr:
        note += " " + " ".join(line for line in r.stderr.splitlines() if "aborted" in line)[:200]
    return after - before, int(processed.group(1)) / float(tps.group(1)), note


def spread(values, digits=2):
    v = sorted(values)
    return f"{statistics.median(v):.{digits}f} ({v[0]:.{digits}f}-{v[-1]:.{digits}f})"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--warehouses", type=int, default=2)
    ap.add_argument("--clients", type=int, default=4)
    ap.add_argument("--seconds", type=int, default=20, help="each run's duration")
    ap.add_argument("--pairs", type=int, default=5, help="rounds of the three paths")
    ap.add_argument("--shared-buffers", default="512MB")
    ap.add_argument("--settle", type=float, default=None,
                    help="seconds to wait for a quiet machine (default 600; 0 with --quick)")
    ap.add_argument("--quick", action="store_true", help="a smoke run: 1 warehouse, 2 pairs of 3-s runs")
    args = ap.parse_args()
    if args.quick:
        args.warehouses, args.seconds, args.pairs = 1, 3, 2
    if args.settle is None:
        args.settle = 0 if args.quick else 600
    cores = os.cpu_count() or 1
    threads = min(args.clients, cores)

    quiet = quiet_check(settle=args.settle)
    load_start = os.getloadavg()
    c = Cluster("bench-tpcc", dict(bench_conf(args.shared_buffers, max(16, args.clients + 8)),
                                   checkpoint_timeout="30min"))
    try:
        c.start()
        c.sql("CREATE EXTENSION pgbench_lab CASCADE")
        t0 = time.monotonic()
        c.sql("SELECT * FROM pgbench_lab.init_tpcc(%s)", (args.warehouses,))
        loaded = time.monotonic() - t0
        size = c.scalar("SELECT pg_size_pretty(sum(pg_total_relation_size(c.oid))) FROM pg_class c"
                        " WHERE c.relnamespace = 'tpcc'::regnamespace AND c.relkind = 'r'")
        c.sql("SELECT pg_prewarm(c.oid) FROM pg_class c WHERE c.relnamespace = 'tpcc'::regnamespace"
              " AND c.relkind IN ('r', 'i')")
        print("== conditions")
        print(f"  server       {c.scalar('SELECT version()')}")
        print(f"  machine      {cores} CPUs; load average {load_start[0]:.2f} (1 min) {load_start[1]:.2f} (5 min) "
              f"at the start; {'quiet' if quiet else 'NOT quiet'}")
        print(f"  data         init_tpcc({args.warehouses}): {size} in {loaded:.1f} s, prewarmed; shared_buffers "
              f"{c.scalar('SHOW shared_buffers')}, fsync {c.scalar('SHOW fsync')}, synchronous_commit "
              f"{c.scalar('SHOW synchronous_commit')}, checkpoint_timeout {c.scalar('SHOW checkpoint_timeout')}, "
              f"max_wal_size {c.scalar('SHOW max_wal_size')}")
        print(f"  mix          " + ", ".join(f"{n}@{w}" for n, w in MIX) + f"; {args.clients} clients, "
              f"{args.seconds} s per run, {args.pairs} pairs (every other one in reverse order), a CHECKPOINT "
              "before each run")
        print(f"  in-server    CALL pgbench_lab.run(scripts => the caller's tpcc-* scripts, via => 'spi', "
              "query_mode => 'prepared')")
        print(f"  libpq        the same with via => 'libpq', threads => {threads}: this server's Unix socket "
              f"({c.base})")
        print(f"  pgbench      pgbench -n -M prepared -c {args.clients} -j {threads} -T {args.seconds} "
              f"-f sql/tpcc/<name>.sql@<weight> ..., over the Unix socket ({c.base})")
        print(f"  NOPM         (sum(d_next_o_id) of tpcc.district after - before) * 60 / the run's own seconds "
              "(pgbench_lab: measured_seconds; pgbench: transactions / tps without initial connection time)",
              flush=True)

        run = {"in-server": lambda: lab_run(c, "spi", args, threads),
               "libpq": lambda: lab_run(c, "libpq", args, threads),
               "pgbench": lambda: pgbench_run(c, args, threads)}
        nopm = {p: [] for p in PATHS}
        print("\n== pairs (NOPM; the run's seconds)")
        for n in range(args.pairs):
            line = []
            for p in (PATHS if n % 2 == 0 else PATHS[::-1]):
                c.sql("CHECKPOINT")
                orders, seconds, note = run[p]()
                nopm[p].append(orders * 60 / seconds)
                line.append(f"{p} {nopm[p][-1]:.0f} ({seconds:.2f} s{'; ' + note if note else ''})")
            print(f"  pair {n + 1:>2} (load {os.getloadavg()[0]:.2f}): " + ", ".join(line), flush=True)

        ratios = {p: [a / b for a, b in zip(nopm[p], nopm["pgbench"])] for p in ("in-server", "libpq")}
        load_end = os.getloadavg()
        others = other_postgres(c)
        print()
        if quiet:
            print("== for publishing: the machine was quiet at the start")
        else:
            print("== NOT FOR PUBLISHING: the machine was busy when the benchmark began; the figures, for reading only")
        print(f"PostgreSQL {c.scalar('SHOW server_version')}, {cores} CPUs; TPC-C {args.warehouses} warehouse{'s' if args.warehouses > 1 else ''}, "
              f"{args.clients} clients, shared_buffers {c.scalar('SHOW shared_buffers')}, fsync "
              f"{c.scalar('SHOW fsync')}; threads/-j {threads}, Unix socket; {args.pairs} paired alternating "
              f"rounds of {args.seconds} s; load average {load_start[0]:.2f} at the start, {load_end[0]:.2f} at the "
              f"end (its own work included), {others} other PostgreSQL/pgbench processes")
        print()
        print("| path | NOPM: median (min-max) | against pgbench: median of the paired ratios (min-max) |")
        print("|---|---|---|")
        for p in PATHS:
            print(f"| {p} | {spread(nopm[p], 0)} | "
                  + ("1" if p == "pgbench" else f"**{spread(ratios[p])}**") + " |")
        bad = c.sql("SELECT condition, detail FROM pgbench_lab.tpcc_check() WHERE NOT ok")
        print(f"\ntpcc_check() after the runs: " + ("conditions 1-4 hold" if not bad else f"FAILED {bad}"))
        quiet_check(own=c)
    finally:
        c.destroy()


if __name__ == "__main__":
    main()
