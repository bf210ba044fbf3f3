"""The libpq path against pgbench at its best over a grid: 1, 2, 8 and 64
clients in each query mode, select-only, over this server's Unix socket.

pgbench_lab runs scripts => '{select-only}' with the query_mode (the mode
`builtin` runs the built-in workload, prepared, and `builtin-M` it in mode M) via => 'libpq' with
threads = min(clients, CPUs); pgbench runs -b select-only with the same -M,
-c and -j.  Each cell takes paired rounds, the two in turn and every other
round the other first, and prints the median of the rounds' ratios
(pgbench_lab / pgbench) with their range.  With --same-statements a third
contender runs pgbench -f with the statements pgbench_lab sends (its
tables and operator named with their schema, as every statement of the
lab's is), so that the client path is compared on the same statements as
well as against pgbench's own.  It first waits (up to --settle
seconds) for a quiet machine and, if the machine never became quiet, says
that its figures are not for publishing.  Nothing is asserted.

Started by test/bench/libpq_vs_pgbench.sh --grid, which builds and installs
the extension into the private server:

    test/bench/libpq_vs_pgbench.sh --grid [--rounds 5] [--seconds 10] [--scale 10]
        [--clients 1,2,8,64] [--modes simple,extended,prepared,builtin] [--same-statements]
        [--quick]
"""
import argparse
import os
import re
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "t"))
sys.path.insert(0, HERE)
from conftest import Cluster  # noqa: E402  (the tests' throwaway clusters)
from bench import machine_quiet, quiet_check  # noqa: E402  (the wait for a quiet machine)


def lab_what(mode):
    """run()'s workload for a mode: `builtin` is the built-in select-only
    workload (prepared), `builtin-M` the same in query_mode M; any other
    mode runs scripts => '{select-only}' in that query_mode."""
    if mode.startswith("builtin"):
        m = mode.partition("-")[2]
        return "'select-only'" + (f", query_mode => '{m}'" if m else "")
    return f"scripts => '{{select-only}}', query_mode => '{mode}'"


def pgbench_mode(mode):
    """pgbench's -M for a mode of lab_what()."""
    return (mode.partition("-")[2] or "prepared") if mode.startswith("builtin") else mode


def lab_run(c, clients, threads, mode, seconds):
    what = lab_what(mode)
    row = c.sql(f"CALL pgbench_lab.run({what}, clients => %s, threads => %s, duration => %s, "
                "via => 'libpq', label => 'libpq_grid')", (clients, threads, f"{seconds} s"))[0]
    assert row[1] == "done", row
    return row[0]


def lab_tps(c, clients, threads, mode, seconds):
    run_id = lab_run(c, clients, threads, mode, seconds)
    return float(c.scalar("SELECT tps FROM pgbench_lab.runs WHERE run_id = %s", (run_id,)))


def pgbench_tps(c, clients, threads, mode, seconds, script=None, scale=None):
    # with -f, :scale is 1 unless -s says otherwise (pgbench reads it from
    # pgbench_branches for its built-in scripts only)
    what = ["-f", script, "-s", str(scale)] if script else ["-b", "select-only"]
    out = c.run_client("pgbench", "-n", *what,
                       "-M", pgbench_mode(mode),
                       "-c", str(clients), "-j", str(threads), "-T", str(seconds), "postgres",
                       socket=True).stdout
    got = re.search(r"^tps = ([0-9.]+)", out, re.M)
    if not got:
        raise RuntimeError(f"no tps in pgbench's output:\n{out}")
    return float(got.group(1))


def script_file(c, run_id, where):
    """The script a run of c ran (run_scripts: its tables and operator
    named with their schema), written in the folder where, for pgbench
    (run as postgres) to read."""
    body = c.scalar("SELECT body FROM pgbench_lab.run_scripts WHERE run_id = %s", (run_id,))
    path = os.path.join(where, "lab_select_only.sql")
    with open(path, "w") as f:
        f.write(body + "\n")
    os.chmod(path, 0o644)
    return path


def lab_statements(c, clients, threads):
    """The select-only script as pgbench_lab runs it."""
    return script_file(c, lab_run(c, clients, threads, "prepared", 1), c.base)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seconds", type=int, default=10, help="each run's seconds (pgbench -T takes whole seconds)")
    ap.add_argument("--scale", type=int, default=10)
    ap.add_argument("--clients", default="1,2,8,64")
    ap.add_argument("--modes", default="simple,extended,prepared,builtin",
                    help="query modes, and builtin (the built-in workload, prepared) or builtin-MODE")
    ap.add_argument("--settle", type=int, default=300, help="seconds to wait for a quiet machine")
    ap.add_argument("--same-statements", action="store_true",
                    help="a third contender: pgbench running pgbench_lab's own statements (-f)")
    ap.add_argument("--quick", action="store_true",
                    help="a smoke run: 2 rounds of 1 s, scale 1, no wait for a quiet machine")
    args = ap.parse_args()
    if args.quick:
        args.rounds, args.seconds, args.scale, args.settle = 2, 1, 1, 0
    cores = os.cpu_count() or 1
    quiet = quiet_check(settle=args.settle)
    c = Cluster("bench-libpq-grid", {"shared_buffers": "256MB", "max_connections": "200",
                                     "max_worker_processes": "16"})
    try:
        c.start()
        c.run_client("pgbench", "-i", "-q", "-s", str(args.scale), "postgres", socket=True)
        c.sql("CREATE EXTENSION pgbench_lab CASCADE")
        for t in ("pgbench_accounts", "pgbench_branches", "pgbench_tellers"):
            c.sql(f"VACUUM {t}")
            c.sql("SELECT pg_prewarm(%s)", (t,))
        print("== provenance")
        print(f"  server   {c.scalar('SELECT pg_catalog.version()')}")
        print(f"  runs     select-only, scale {args.scale}, {args.rounds} paired rounds of "
              f"{args.seconds:g} s per cell, the contenders in turn, each round starting one further "
              f"on; pgbench_lab via "
              f"libpq with threads = pgbench's -j = min(clients, {cores} CPUs), both over the "
              "Unix socket", flush=True)
        same = lab_statements(c, 1, 1) if args.same_statements else None
        if same:
            with open(same) as f:
                print("  same     pgbench -f with pgbench_lab's statements: "
                      + " / ".join(f.read().strip().splitlines()))
        cells = [(int(n), m) for n in args.clients.split(",") for m in args.modes.split(",")]
        rows = []
        for clients, mode in cells:
            threads = min(clients, cores)
            lab_tps(c, clients, threads, mode, 1)  # warm-up
            got = {"lab": [], "pgbench": [], "same": []}
            order = [("lab", lab_tps), ("pgbench", pgbench_tps)]
            if same:
                order.append(("same", lambda *a: pgbench_tps(*a, script=same, scale=args.scale)))
            for r in range(args.rounds):
                # every contender in turn, each round starting one further on
                k = r % len(order)
                for who, fn in order[k:] + order[:k]:
                    got[who].append(fn(c, clients, threads, mode, args.seconds))
            lab, pgb = got["lab"], got["pgbench"]
            ratios = sorted(a / b for a, b in zip(lab, pgb))
            same_ratios = sorted(a / b for a, b in zip(lab, got["same"])) if same else None
            rows.append((clients, threads, mode, lab, pgb, ratios, got["same"], same_ratios))
            extra = (f"  same statements {statistics.median(got['same']):>9.0f} ratio "
                     f"{statistics.median(same_ratios):.3f} ({same_ratios[0]:.3f}-{same_ratios[-1]:.3f})"
                     if same else "")
            print(f"  {clients:>3} clients, -j {threads}, {mode:<9} lab {statistics.median(lab):>9.0f} "
                  f"pgbench {statistics.median(pgb):>9.0f}  ratio {statistics.median(ratios):.3f} "
                  f"({ratios[0]:.3f}-{ratios[-1]:.3f}){extra}  load {os.getloadavg()[0]:.2f}", flush=True)
        quiet_end = machine_quiet(c, report=True)
        print("\n== results: tps medians, paired ratios pgbench_lab / pgbench: median (range)"
              if quiet and quiet_end else
              "\n== NOT FOR PUBLISHING: the machine was busy; these ratios are not figures")
        head = "| clients | -j | mode | pgbench_lab tps | pgbench tps | ratio (range) |"
        rule = "|---:|---:|---|---:|---:|---|"
        if same:
            head += " pgbench, the same statements, tps | ratio to it (range) |"
            rule += "---:|---|"
        print(head)
        print(rule)
        for clients, threads, mode, lab, pgb, ratios, same_tps, same_ratios in rows:
            line = (f"| {clients} | {threads} | {mode} | {statistics.median(lab):.0f} | "
                    f"{statistics.median(pgb):.0f} | {statistics.median(ratios):.3f} "
                    f"({ratios[0]:.3f}-{ratios[-1]:.3f}) |")
            if same:
                line += (f" {statistics.median(same_tps):.0f} | {statistics.median(same_ratios):.3f} "
                         f"({same_ratios[0]:.3f}-{same_ratios[-1]:.3f}) |")
            print(line)
    finally:
        c.destroy()


if __name__ == "__main__":
    main()
