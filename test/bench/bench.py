"""pgbench_lab against pgbench, a PL/pgSQL loop and the bare SPI loop (the
floor of the in-server path), side by side in one run.

Started by test/bench/run.sh, which builds and installs the extension into
a private server and passes its bin directory.  Makes its own throwaway
cluster and data, alternates the contenders A B C A B C ... and prints the
median of each, with ratios.  Nothing here asserts a speed: this measures.

    test/bench/run.sh [--rounds 3] [--seconds 10] [--memory-minutes 5] [--quick]
    test/bench/run.sh --telemetry     # only what telemetry costs
    test/bench/run.sh --many-clients  # 64 libpq clients on 2 workers against pgbench -c 64 -j 2
    test/bench/run.sh --runs 3 [--gap 20] [--rounds 6] [--seconds 10]
                                      # the README's headline: 3 independent runs, its table
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

import psycopg

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "t"))
from conftest import Cluster  # noqa: E402  (the tests' throwaway clusters)

PLPGSQL_LOOP = r"""
CREATE SCHEMA IF NOT EXISTS bench;
CREATE OR REPLACE PROCEDURE bench.loop(kind text, seconds float8, INOUT n bigint DEFAULT 0)
LANGUAGE plpgsql AS $$
DECLARE
    scale int := (SELECT count(*) FROM pgbench_branches);
    stop timestamptz := clock_timestamp() + seconds * interval '1 second';
    v_aid int; v_bid int; v_tid int; v_delta int; v_bal int;
BEGIN
    n := 0;
    WHILE clock_timestamp() < stop LOOP
        v_aid := 1 + floor(random() * 100000 * scale)::int;
        IF kind = 'select-only' THEN
            SELECT abalance INTO v_bal FROM pgbench_accounts WHERE aid = v_aid;
        ELSE
            v_bid := 1 + floor(random() * scale)::int;
            v_tid := 1 + floor(random() * 10 * scale)::int;
            v_delta := -5000 + floor(random() * 10001)::int;
            UPDATE pgbench_accounts SET abalance = abalance + v_delta WHERE aid = v_aid;
            SELECT abalance INTO v_bal FROM pgbench_accounts WHERE aid = v_aid;
            IF kind = 'tpcb-like' THEN
                UPDATE pgbench_tellers SET tbalance = tbalance + v_delta WHERE tid = v_tid;
                UPDATE pgbench_branches SET bbalance = bbalance + v_delta WHERE bid = v_bid;
            END IF;
            INSERT INTO pgbench_history (tid, bid, aid, delta, mtime)
                 VALUES (v_tid, v_bid, v_aid, v_delta, CURRENT_TIMESTAMP);
        END IF;
        COMMIT;
        n := n + 1;
    END LOOP;
END $$;
"""


def bench_conf(shared_buffers, workers=16):
    """The settings of a benchmark's cluster (beside the tests' own): fsync
    on, as a real server runs, and room for the WAL and the workers."""
    return {"shared_buffers": shared_buffers, "max_wal_size": "4GB",
            "max_worker_processes": str(workers), "fsync": "on"}


PGBENCH_FLAGS = {"select-only": ["-S"], "simple-update": ["-N"], "tpcb-like": []}


def lab_tps(c, workload, clients, seconds, settings="{}"):
    row = c.sql("CALL pgbench_lab.run(%s, clients => %s, duration => %s, settings => %s)",
                (workload, clients, f"{seconds} s", settings))[0]
    assert row[1] == "done", row
    return row[3]


def pgbench_tps(c, workload, clients, seconds, threads=None):
    # pgbench at its best: over the Unix socket, prepared, and the -j that
    # best_threads() found (by default no more threads than cores)
    threads = threads or BEST_J.get((workload, clients)) or min(clients, os.cpu_count() or 1)
    out = c.run_client("pgbench", "-n", "-M", "prepared", "-c", str(clients), "-j", str(threads),
                       "-T", str(seconds), *PGBENCH_FLAGS[workload], "postgres", socket=True).stdout
    return float(re.search(r"tps = ([0-9.]+) \(without initial connection time\)", out).group(1))


# (workload, clients) -> the -j that gave pgbench its best throughput
BEST_J = {}


def best_threads(c, workload, clients, seconds):
    """pgbench's best -j among 1, the cores and the clients (each a divisor
    of the clients, as pgbench requires), from alternating probes of a few
    seconds; remembered for the rounds that follow, and printed."""
    cores = os.cpu_count() or 1
    candidates = sorted({j for j in (1, min(cores, clients), clients) if clients % j == 0})
    if len(candidates) == 1:
        BEST_J[(workload, clients)] = candidates[0]
        return candidates[0]
    probe = max(2, min(seconds, 3))
    results = {j: [] for j in candidates}
    for _ in range(2):
        for j in candidates:
            results[j].append(pgbench_tps(c, workload, clients, probe, threads=j))
    best = max(candidates, key=lambda j: statistics.median(results[j]))
    BEST_J[(workload, clients)] = best
    print(f"  pgbench -c {clients} {workload}: best -j {best} ("
          + ", ".join(f"-j {j} {statistics.median(v):.0f} tps" for j, v in results.items())
          + f", {probe}-s probes)", flush=True)
    return best


def quiet_check(settle=0, own=None):
    """Warn when the machine is not quiet: figures from a busy machine are
    not figures.  Quiet is judged by what takes CPU (quiet_rules()), not by
    which processes exist: a DBA's machine always has its own idle server.
    settle gives the load left by the build (or by work that just ended) up
    to that many seconds to decay first.  At the end (own: this benchmark's
    cluster, still running), the load average is mostly the benchmark's own
    work, so only the CPU taken in the last seconds counts."""
    start = time.monotonic()
    deadline = start + settle
    failed = [r for r in quiet_rules(own) if not r[1]]
    if settle > 0 and failed:
        print(f"== waiting up to {settle:.0f} s for a quiet machine: " + "; ".join(quiet_rules_words(own)), flush=True)
        while failed and time.monotonic() < deadline:
            time.sleep(7)
            failed = [r for r in quiet_rules(own) if not r[1]]
            print(f"   after {time.monotonic() - start:.0f} s: "
                  + ("; ".join(f"{name}: {detail}" for name, _, detail in failed) or "quiet"), flush=True)
        if failed:
            print(f"== gave up waiting after {time.monotonic() - start:.0f} s", flush=True)
    return machine_quiet(own, report=True)


def quiet_rules_words(own=None):
    """The rules, in words, for the waiting line."""
    cores = os.cpu_count() or 1
    rules = [f"the CPUs at most {QUIET_BUSY:.0%} busy over {QUIET_WINDOW:.0f} s",
             f"PostgreSQL and pgbench processes other than this benchmark's taking at most "
             f"{QUIET_OTHERS:.0%} of a CPU over that time"]
    if own is None:
        rules.insert(0, f"load average at most {0.3 * cores:.2f} (1 min) and {0.5 * cores:.2f} (5 min) "
                        f"on {cores} CPUs")
    return rules


# What quiet means: the whole machine's CPUs at most QUIET_BUSY busy over the
# last QUIET_WINDOW seconds, and other PostgreSQL/pgbench processes (an idle
# server's checkpointer and walwriter wake now and then) at most QUIET_OTHERS
# of one CPU over that window.
QUIET_WINDOW = 3.0
QUIET_BUSY = 0.10
QUIET_OTHERS = 0.02


def _cpu_ticks():
    """(busy, total) jiffies of all CPUs, from /proc/stat's first line."""
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)	# idle + iowait
    total = sum(fields[:8])	# guest time is counted in user already
    return total - idle, total


def _postgres_ticks(own=None, among=None):
    """{pid: utime + stime jiffies} of PostgreSQL and pgbench processes that
    are not the cluster own's (and are among the pids given, if any)."""
    mine = own_processes(own)
    ticks = {}
    for pid in os.listdir("/proc"):
        if pid.isdigit() and int(pid) not in mine and (among is None or int(pid) in among):
            try:
                with open(f"/proc/{pid}/comm") as f:
                    if f.read().strip() not in ("postgres", "postmaster", "pgbench"):
                        continue
                with open(f"/proc/{pid}/stat") as f:
                    rest = f.read().rsplit(")", 1)[1].split()
                ticks[int(pid)] = int(rest[11]) + int(rest[12])
            except (OSError, ValueError, IndexError):
                pass
    return ticks


def cpu_taken(own=None, window=QUIET_WINDOW, among=None):
    """Over the next window seconds: the share of all CPUs that was busy, and
    the CPUs' worth (1.0 = one CPU) that PostgreSQL and pgbench processes
    other than own's took (among the pids given, if any), counting only
    processes alive at both ends."""
    hz = os.sysconf("SC_CLK_TCK")
    busy0, total0 = _cpu_ticks()
    pg0 = _postgres_ticks(own, among)
    t0 = time.monotonic()
    time.sleep(window)
    busy1, total1 = _cpu_ticks()
    pg1 = _postgres_ticks(own, among)
    elapsed = time.monotonic() - t0
    others = sum(pg1[p] - pg0[p] for p in pg1 if p in pg0) / hz / elapsed
    return (busy1 - busy0) / max(total1 - total0, 1), others


def judge_quiet(cores, load, busy, others, own=None):
    """The quiet rules on given measurements: [(rule, passed, detail)].
    load: (1 min, 5 min) load averages; busy: the share of all CPUs busy over
    the window; others: the CPUs' worth other PostgreSQL/pgbench processes
    took.  The load average counts only at the start (own is None): at the
    end it is the benchmark's own."""
    rules = []
    if own is None:
        ok = load[0] <= 0.3 * cores and load[1] <= 0.5 * cores
        rules.append(("load average", ok, f"{load[0]:.2f} (1 min) {load[1]:.2f} (5 min) on {cores} CPUs"))
    rules.append(("CPU busy", busy <= QUIET_BUSY, f"{busy:.1%} of {cores} CPUs over the last {QUIET_WINDOW:.0f} s"))
    rules.append(("other PostgreSQL/pgbench", others <= QUIET_OTHERS,
                  f"{others:.1%} of a CPU taken by {other_postgres(own)} processes not this benchmark's"))
    return rules


def quiet_rules(own=None):
    """The quiet rules measured now (it takes QUIET_WINDOW seconds)."""
    busy, others = cpu_taken(own)
    return judge_quiet(os.cpu_count() or 1, os.getloadavg()[:2], busy, others, own)


def own_processes(own):
    """The pids of the cluster own: its postmaster and the processes it forked."""
    if own is None:
        return set()
    try:
        with open(os.path.join(own.datadir, "postmaster.pid")) as f:
            pm = int(f.readline())
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


def other_postgres(own=None):
    """PostgreSQL and pgbench processes that are not the cluster own's."""
    mine = own_processes(own)
    others = 0
    for pid in os.listdir("/proc"):
        if pid.isdigit() and int(pid) not in mine:
            try:
                with open(f"/proc/{pid}/comm") as f:
                    if f.read().strip() in ("postgres", "postmaster", "pgbench"):
                        others += 1
            except OSError:
                pass
    return others


def machine_quiet(own=None, report=False):
    """Whether the machine is quiet now (see quiet_rules()); with report, a
    line that says so, naming each rule that failed."""
    rules = quiet_rules(own)
    failed = [(name, detail) for name, ok, detail in rules if not ok]
    if report:
        cores = os.cpu_count() or 1
        load1, load5, _ = os.getloadavg()
        print(f"== machine: {cores} CPUs, load average {load1:.2f} (1 min) {load5:.2f} (5 min)"
              + (", this benchmark's own work included" if own is not None else "") + ", "
              + ", ".join(detail for _, _, detail in rules[-2:])
              + (" -- WARNING: not quiet (" + "; ".join(f"{n}: {d}" for n, d in failed)
                 + "); these figures are not for publishing" if failed else ": quiet"),
              flush=True)
    return not failed


def plpgsql_tps(c, workload, clients, seconds):
    counts = []

    def one():
        with c.connect() as conn:
            counts.append(conn.execute("CALL bench.loop(%s, %s)", (workload, seconds)).fetchone()[0])

    threads = [threading.Thread(target=one) for _ in range(clients)]
    t0 = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sum(counts) / max(seconds, time.monotonic() - t0 - 0.05 * clients)


def floor_tps(c, clients, seconds):
    """The floor of the in-server path: workers of the clients' shape doing
    only the select-only transaction (src/bench_floor.c)."""
    return c.scalar("SELECT tps FROM pgbench_lab_internal.spi_floor(%s, %s)", (clients, float(seconds)))


def median_rounds(contenders, rounds):
    """Run the contenders alternately, `rounds` times; return their medians."""
    results = {name: [] for name, _ in contenders}
    for _ in range(rounds):
        for name, fn in contenders:
            results[name].append(fn())
    return {name: statistics.median(v) for name, v in results.items()}, results


def drop_tables(c):
    c.sql("DROP TABLE IF EXISTS pgbench_accounts, pgbench_branches, pgbench_tellers, pgbench_history")


def init_seconds(c, how, scale):
    """Seconds to load pgbench's data set one way.  Each contender starts
    from the same state: old tables dropped, a checkpoint, and the OS's dirty
    pages written out, so none is slowed by the writeback the previous one
    left behind (on this shared disk that alone moved timings by 2x)."""
    drop_tables(c)
    c.sql("CHECKPOINT")
    os.sync()
    t0 = time.monotonic()
    if how == "pgbench_lab.init":
        c.sql("SELECT * FROM pgbench_lab.init(%s)", (scale,))
    elif how == "pgbench -i":
        c.run_client("pgbench", "-i", "-q", "-s", str(scale), "postgres", socket=True)
    else:
        c.run_client("pgbench", "-i", "-q", "-I", "dtGvp", "-s", str(scale), "postgres", socket=True)
    return time.monotonic() - t0


def worker_memory(c, pid):
    """Grand total of a backend's memory contexts, from pg_log_backend_memory_contexts."""
    before = len(c.log())
    c.sql("SELECT pg_log_backend_memory_contexts(%s)", (pid,))
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        m = re.search(rf"\[{pid}\].*Grand total: (\d+) bytes", c.log()[before:])
        if m:
            return int(m.group(1))
        time.sleep(0.1)
    return None


class Table:
    def __init__(self):
        self.rows = []

    def add(self, what, a_name, a, b_name, b, ratio=None):
        if ratio is None:
            ratio = a / b if b else float("nan")
        self.rows.append((what, a_name, a, b_name, b, ratio))
        print(f"  {what:<34} {a_name:>18} {a:>12.1f}   {b_name:<26} {b:>12.1f}   ratio {ratio:6.2f}",
              flush=True)

    def show(self, quiet=True):
        # a table from a machine that never became quiet is not the README's
        print("\n== results (medians; ratio = first / second)" if quiet else
              "\n== NOT FOR PUBLISHING: the machine was busy when the benchmark began; "
              "the figures, for reading only (medians; ratio = first / second)")
        print(f"  {'comparison':<34} {'A':>18} {'':>12}   {'B':<26} {'':>12}   ratio")
        for what, an, a, bn, b, r in self.rows:
            print(f"  {what:<34} {an:>18} {a:>12.1f}   {bn:<26} {b:>12.1f}   {r:6.2f}")


def throughput(c, table, args, workload, clients):
    s = args.seconds
    contenders = [
        ("pgbench_lab", lambda: lab_tps(c, workload, clients, s)),
        ("pgbench", lambda: pgbench_tps(c, workload, clients, s)),
        ("plpgsql", lambda: plpgsql_tps(c, workload, clients, s)),
    ]
    if workload == "select-only":
        contenders.append(("SPI floor", lambda: floor_tps(c, clients, s)))
    best_threads(c, workload, clients, s)
    med, runs = median_rounds(contenders, args.rounds)
    what = f"{workload}, {clients} client{'s' if clients > 1 else ''} (tps)"
    print(f"  {what} ranges: " + ", ".join(f"{n} {min(v):.0f}-{max(v):.0f}" for n, v in runs.items()),
          flush=True)
    table.add(what, "pgbench_lab", med["pgbench_lab"],
              f"pgbench -M prepared -j {BEST_J[(workload, clients)]}", med["pgbench"])
    table.add(what, "pgbench_lab", med["pgbench_lab"], "PL/pgSQL loop+COMMIT", med["plpgsql"])
    if "SPI floor" in med:
        # the share of the bare loop that the instrumented client keeps
        paired = statistics.median(a / b for a, b in zip(runs["pgbench_lab"], runs["SPI floor"]))
        table.add(what, "pgbench_lab", med["pgbench_lab"], "bare SPI loop (floor)",
                  med["SPI floor"], ratio=paired)


def script_tps(c, body, clients, seconds):
    row = c.sql("CALL pgbench_lab.run(script => %s, clients => %s, duration => %s)",
                (body, clients, f"{seconds} s"))[0]
    assert row[1] == "done", row
    return row[3]


def scripts_speed(c, table, args):
    """pgbench's own script text through the interpreter against the C
    built-in of the same workload, alternating; the ratio is the median of
    the rounds' paired ratios."""
    for workload, clients in (("select-only", 2), ("tpcb-like", 4)):
        body = subprocess.run([c.bin("pgbench"), f"--show-script={workload}"],
                              capture_output=True, text=True, check=True).stderr
        s = args.seconds
        med, runs = median_rounds([
            ("built-in", lambda: lab_tps(c, workload, clients, s)),
            ("script", lambda: script_tps(c, body, clients, s)),
        ], args.rounds)
        what = f"{workload} as a script, {clients} clients (tps)"
        print(f"  {what} ranges: " + ", ".join(f"{n} {min(v):.0f}-{max(v):.0f}" for n, v in runs.items()),
              flush=True)
        paired = statistics.median(a / b for a, b in zip(runs["script"], runs["built-in"]))
        table.add(what, "script (interpreter)", med["script"], f"built-in {workload}", med["built-in"],
                  ratio=paired)


def client_cpu_ticks(c):
    """User + system clock ticks of the client workers so far (the
    benchmark makes one run at a time: every client is that run's)."""
    pids = [p for (p,) in c.sql("SELECT pid FROM pg_stat_activity WHERE backend_type = 'pgbench_lab client'")]
    total = 0
    for pid in pids:
        try:
            fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
        except (OSError, IndexError, ValueError):
            pass
    return total, len(pids)


def cpu_per_1000(c, workload, clients, seconds, rate=None):
    """Client CPU (ms) per 1 000 committed transactions, between the end of
    the first second and one second before the end of a run."""
    run_id = c.scalar("SELECT pgbench_lab.start(%s, clients => %s, duration => %s, rate => %s)",
                      (workload, clients, f"{seconds} s", rate))
    time.sleep(1.2)
    t0, n0 = client_cpu_ticks(c)
    w0 = time.monotonic()
    x0 = c.scalar("SELECT coalesce(sum(transactions), 0)::bigint FROM pgbench_lab.run_progress WHERE run_id = %s", (run_id,))
    time.sleep(seconds - 2.4)
    t1, n1 = client_cpu_ticks(c)
    w1 = time.monotonic()
    x1 = c.scalar("SELECT coalesce(sum(transactions), 0)::bigint FROM pgbench_lab.run_progress WHERE run_id = %s", (run_id,))
    c.sql("CALL pgbench_lab.wait(%s)", (run_id,))
    assert n0 == n1 == clients, (n0, n1)
    tick_ms = 1000 / os.sysconf("SC_CLK_TCK")
    cpu_ms = (t1 - t0) * tick_ms
    return cpu_ms / max(x1 - x0, 1) * 1000, 100 * cpu_ms / 1000 / (w1 - w0) / clients


def rate_cpu(c, table, args):
    """With a rate, waiting clients sleep on their latch: their CPU per
    1 000 transactions at a low rate stays that of full speed (a client that
    spun would burn a core per client whatever the rate)."""
    s = max(args.seconds, 6)
    rounds = {"at 200 tps": [], "full speed": []}
    for _ in range(args.rounds):
        rounds["at 200 tps"].append(cpu_per_1000(c, "select-only", 2, s, rate=200))
        rounds["full speed"].append(cpu_per_1000(c, "select-only", 2, s))
    for i, what in ((0, "client CPU ms / 1000 xacts"), (1, "client CPU, % of a core each")):
        v = {n: [x[i] for x in r] for n, r in rounds.items()}
        print(f"  {what} ranges: " + ", ".join(f"{n} {min(x):.1f}-{max(x):.1f}" for n, x in v.items()),
              flush=True)
        table.add(what, "rate 200 tps", statistics.median(v["at 200 tps"]), "full speed",
                  statistics.median(v["full speed"]))


def instrumentation(c, table, args):
    """With and without instrumentation, alternating in rounds of at most
    5 s (at least 9 rounds, as long as the other comparisons together); the
    ratio is the median of each round's pair, which cancels the machine's
    drift between rounds."""
    s = min(args.seconds, 5)
    rounds = max(9, args.rounds * args.seconds // s)
    contenders = [
        ("on", lambda: lab_tps(c, "select-only", 2, s)),
        ("off", lambda: lab_tps(c, "select-only", 2, s, '{"pgbench_lab.instrument": "off"}')),
    ]
    med, runs = median_rounds(contenders, rounds)
    paired = statistics.median(a / b for a, b in zip(runs["on"], runs["off"]))
    print(f"  instrumentation: {rounds} rounds of {s} s, median of paired ratios {paired:.3f}")
    table.add("instrumentation, select-only 2 (tps)", "with", med["on"], "without", med["off"],
              ratio=paired)


def telemetry_cost(c, table, args):
    """What telemetry costs (the coordinator's per-second rows and its
    sampling of the clients' wait events every 10 ms): select-only with 2
    clients, with and without it, alternating in rounds as instrumentation()
    does; the design allows it 1 %, a paired ratio of 0.99 or more."""
    s = min(args.seconds, 5)
    rounds = max(9, args.rounds * args.seconds // s)
    contenders = [
        ("on", lambda: lab_tps(c, "select-only", 2, s)),
        ("off", lambda: lab_tps(c, "select-only", 2, s, '{"pgbench_lab.telemetry": "off"}')),
    ]
    med, runs = median_rounds(contenders, rounds)
    ratios = sorted(a / b for a, b in zip(runs["on"], runs["off"]))
    paired = statistics.median(ratios)
    print(f"  telemetry: {rounds} rounds of {s} s, median of paired ratios {paired:.3f} "
          f"(range {ratios[0]:.3f}-{ratios[-1]:.3f}); with {min(runs['on']):.0f}-{max(runs['on']):.0f} tps, "
          f"without {min(runs['off']):.0f}-{max(runs['off']):.0f}")
    table.add("telemetry, select-only 2 (tps)", "with", med["on"], "without", med["off"],
              ratio=paired)


def libpq_many(c, clients, threads, seconds):
    """pgbench_lab's libpq path, `clients` connections on `threads`
    workers (pgbench's -c and -j), over this server's Unix socket (a NULL
    target); its TPS and the median memory per connection of its workers
    (their unique memory over their connections, sampled halfway)."""
    run_id = c.scalar("SELECT pgbench_lab.start('select-only', clients => %s, duration => %s, "
                      "via => 'libpq', threads => %s)", (clients, f"{seconds} s", threads))
    c.poll("SELECT count(*) = %s FROM pg_stat_activity WHERE backend_type = 'pgbench_lab client'",
           (threads,))
    time.sleep(seconds / 2)
    pids = [r[0] for r in c.sql("SELECT pid FROM pg_stat_activity WHERE backend_type = 'pgbench_lab client'")]
    mem = [worker_memory(c, pid) or 0 for pid in pids]
    row = c.sql("CALL pgbench_lab.wait(%s)", (run_id,))[0]
    assert row[1] == "done", row
    per_conn = statistics.median(mem) / max(1, clients // threads) if mem else 0
    return row[3], per_conn


def many_clients(c, table, args):
    """Many libpq clients from few workers: 64 connections on 2 workers
    against pgbench -S -M prepared -c 64 -j 2 over the same Unix socket,
    alternating; the goal is a ratio of 0.9 or more."""
    clients, threads = 64, 2
    mems = []

    def lab():
        tps, mem = libpq_many(c, clients, threads, args.seconds)
        mems.append(mem)
        return tps
    contenders = [("lab", lab),
                  ("pgbench", lambda: pgbench_tps(c, "select-only", clients, args.seconds, threads=threads))]
    med, runs = median_rounds(contenders, args.rounds)
    ratios = sorted(a / b for a, b in zip(runs["lab"], runs["pgbench"]))
    print(f"  paired ratios: median {statistics.median(ratios):.3f} (range {ratios[0]:.3f}-{ratios[-1]:.3f})")
    print(f"  libpq select-only, {clients} clients on {threads} workers: {med['lab']:.0f} tps "
          f"({min(runs['lab']):.0f}-{max(runs['lab']):.0f}); pgbench -c {clients} -j {threads}: "
          f"{med['pgbench']:.0f} tps ({min(runs['pgbench']):.0f}-{max(runs['pgbench']):.0f}); "
          f"worker memory per connection {statistics.median(mems):.0f} bytes (median)", flush=True)
    table.add(f"libpq select-only, {clients} clients, {threads} workers vs pgbench -j {threads} (tps)",
              "pgbench_lab libpq", med["lab"], "pgbench", med["pgbench"])


def init_speed(c, table, args, scale):
    contenders = [(h, lambda h=h: init_seconds(c, h, scale))
                  for h in ("pgbench_lab.init", "pgbench -i", "pgbench -i -I dtGvp")]
    med, _ = median_rounds(contenders, args.rounds)
    best = min(med["pgbench -i"], med["pgbench -i -I dtGvp"])
    rows = 100000 * scale
    print(f"  init scale {scale}: pgbench_lab.init {med['pgbench_lab.init']:.2f} s, "
          f"pgbench -i {med['pgbench -i']:.2f} s, -I dtGvp {med['pgbench -i -I dtGvp']:.2f} s")
    table.add(f"init scale {scale} (rows/s)", "pgbench_lab.init", rows / med["pgbench_lab.init"],
              "faster pgbench -i mode", rows / best)


def memory_median(c, pid, n=5):
    """A sample catches whatever the transaction in flight holds: the
    median of n, a second apart."""
    samples = []
    for _ in range(n):
        samples.append(worker_memory(c, pid) or 0)
        time.sleep(1)
    return statistics.median(samples)


def memory(c, table, args):
    minutes = args.memory_minutes
    if minutes <= 0:
        return
    run_id = c.scalar("SELECT pgbench_lab.start('tpcb-like', clients => 1, duration => %s)",
                      (f"{minutes} min",))
    c.poll("SELECT count(*) = 1 FROM pg_stat_activity WHERE backend_type = 'pgbench_lab client'")
    pid = c.scalar("SELECT pid FROM pg_stat_activity WHERE backend_type = 'pgbench_lab client'")
    time.sleep(5)
    start = memory_median(c, pid)
    time.sleep(max(0, minutes * 60 - 30))
    end = memory_median(c, pid)
    c.sql("CALL pgbench_lab.wait(%s)", (run_id,))
    print(f"  client worker memory (median of 5 samples): {start:.0f} bytes after 10 s, "
          f"{end:.0f} bytes after {minutes * 60 - 10:.0f} s")
    table.add(f"worker memory, {minutes} min tpcb (bytes)", "end", end or 0, "start", start or 1)


def lab_worker_memory(c, workload, clients, seconds):
    """pgbench_lab's TPS and the median memory of its client workers, taken
    during a run of its own (start(), sampled halfway)."""
    run_id = c.scalar("SELECT pgbench_lab.start(%s, clients => %s, duration => %s)",
                      (workload, clients, f"{seconds} s"))
    c.poll("SELECT count(*) = %s FROM pg_stat_activity WHERE backend_type = 'pgbench_lab client'",
           (clients,))
    time.sleep(seconds / 2)
    pids = [r[0] for r in c.sql("SELECT pid FROM pg_stat_activity "
                                "WHERE backend_type = 'pgbench_lab client' LIMIT 3")]
    mem = statistics.median([worker_memory(c, pid) or 0 for pid in pids]) if pids else 0
    row = c.sql("CALL pgbench_lab.wait(%s)", (run_id,))[0]
    return row[3], mem


def matrix(c, args):
    """How the cost grows: for each scale the disk allows and each client
    count, pgbench_lab's and pgbench's TPS (medians of alternating rounds),
    the ratio and a client worker's memory; then init's rows per second at
    scale 10, 50 and 100."""
    free = shutil.disk_usage(c.base).free
    def ints(text):
        return [int(x) for x in text.split(",") if x.strip()]

    scales = [s for s in ints(args.matrix_scales) if s * 16 * 2**20 * 3 < free]
    print("  scale  clients  pgbench_lab tps  pgbench tps (-j)  ratio  worker memory", flush=True)
    for scale in scales:
        drop_tables(c)
        c.sql("SELECT * FROM pgbench_lab.init(%s)", (scale,))
        c.sql("VACUUM ANALYZE")
        for clients in ints(args.matrix_clients):
            s = args.seconds
            best_threads(c, "select-only", clients, s)
            mems = []

            def lab():
                tps, mem = lab_worker_memory(c, "select-only", clients, s)
                mems.append(mem)
                return tps

            med, runs = median_rounds([("pgbench_lab", lab),
                                       ("pgbench", lambda: pgbench_tps(c, "select-only", clients, s))],
                                      args.rounds)
            print(f"  {scale:>5}  {clients:>7}  {med['pgbench_lab']:>15.0f}  "
                  f"{med['pgbench']:>11.0f} ({BEST_J[('select-only', clients)]})  "
                  f"{med['pgbench_lab'] / med['pgbench']:>5.2f}  "
                  f"{statistics.median(mems):>10.0f} B   ranges: "
                  + ", ".join(f"{n} {min(v):.0f}-{max(v):.0f}" for n, v in runs.items()), flush=True)
    for scale in ints(args.matrix_init):
        if scale * 16 * 2**20 * 3 >= free:
            break
        secs = statistics.median(init_seconds(c, "pgbench_lab.init", scale) for _ in range(args.rounds))
        print(f"  init scale {scale}: {100000 * scale / secs:,.0f} rows/s ({secs:.2f} s)", flush=True)


# The README's headline: the comparisons a skeptic reruns.
HEADLINE = (("select-only", 2), ("tpcb-like", 4))


def headline_run(args, n):
    """One independent run of the headline, on a fresh cluster: for each
    comparison, paired alternating rounds of pgbench_lab and pgbench at its
    best, and the run's ratio = the median of the rounds' ratios; for
    select-only, the share of the bare SPI loop too.  Returns the ratios,
    the conditions, and whether the machine was quiet at its start."""
    c = Cluster(f"bench-runs-{n}", bench_conf(args.shared_buffers))
    try:
        quiet = quiet_check(settle=args.settle)
        load_start = os.getloadavg()
        c.start()
        c.sql("CREATE EXTENSION pgbench_lab CASCADE")
        c.sql("SELECT * FROM pgbench_lab.init(%s)", (args.scale,))
        out = {"quiet": quiet, "load_start": load_start, "version": c.scalar("SHOW server_version"),
               "started": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
        for workload, clients in HEADLINE:
            s = args.seconds
            j = best_threads(c, workload, clients, s)
            contenders = [("pgbench_lab", lambda: lab_tps(c, workload, clients, s)),
                          ("pgbench", lambda: pgbench_tps(c, workload, clients, s))]
            if workload == "select-only":
                contenders.append(("SPI floor", lambda: floor_tps(c, clients, s)))
            rounds = {name: [] for name, _ in contenders}
            for r in range(args.rounds):
                # A B, B A, ...: going first falls on both
                for name, fn in (contenders if r % 2 == 0 else contenders[::-1]):
                    rounds[name].append(fn())
            ratio = statistics.median(a / b for a, b in zip(rounds["pgbench_lab"], rounds["pgbench"]))
            out[(workload, clients)] = {
                "ratio": ratio, "j": j,
                "lab": statistics.median(rounds["pgbench_lab"]), "pgbench": statistics.median(rounds["pgbench"]),
                "floor": (statistics.median(a / b for a, b in zip(rounds["pgbench_lab"], rounds["SPI floor"]))
                          if "SPI floor" in rounds else None)}
            print(f"  run {n}: {workload} c={clients}: ×{ratio:.2f} "
                  f"({out[(workload, clients)]['lab']:.0f} vs {out[(workload, clients)]['pgbench']:.0f} tps, "
                  f"pgbench -j {j}, {args.rounds} paired rounds of {s} s)", flush=True)
        out["load_end"] = os.getloadavg()
        out["quiet_end"] = quiet_check(own=c)
        return out
    finally:
        c.destroy()


def headline_runs(args):
    """--runs N: N independent runs of the headline, args.gap minutes apart,
    and the table the README shows: per comparison the median of the runs'
    ratios and their min-max, with the conditions.  A run that began on a
    busy machine makes the table not for publishing: it is then printed
    under that heading, never as the README's."""
    results = []
    for n in range(1, args.runs + 1):
        if n > 1 and args.gap > 0:
            print(f"== waiting {args.gap:g} min before run {n} of {args.runs}, so that the runs meet the machine "
                  f"at different times", flush=True)
            time.sleep(args.gap * 60)
        print(f"== run {n} of {args.runs}", flush=True)
        results.append(headline_run(args, n))
    busy = [n for n, r in enumerate(results, 1) if not r["quiet"]]
    print()
    if busy:
        print(f"== NOT FOR PUBLISHING: run(s) {', '.join(map(str, busy))} began on a busy machine "
              f"(see their lines above); rerun on a quiet one.  The figures, for reading only:")
    else:
        print(f"== for publishing: {args.runs} independent runs, each on a fresh cluster, each quiet at its start")
    print(f"PostgreSQL {results[0]['version']}, {os.cpu_count()} CPUs; scale {args.scale}, "
          f"shared_buffers {args.shared_buffers}, fsync on; pgbench -M prepared over the Unix socket with its best -j; "
          f"{args.rounds} paired alternating rounds of {args.seconds} s per run")
    print()
    print("| comparison | pgbench_lab / pgbench: median of the runs (min-max) | runs' tps, pgbench_lab vs pgbench | pgbench -j |")
    print("|---|---|---|---|")
    for workload, clients in HEADLINE:
        ratios = [r[(workload, clients)]["ratio"] for r in results]
        tps = "; ".join(f"{r[(workload, clients)]['lab']:.0f} vs {r[(workload, clients)]['pgbench']:.0f}" for r in results)
        js = sorted({r[(workload, clients)]["j"] for r in results})
        print(f"| {workload}, {clients} clients | **{statistics.median(ratios):.2f}×** ({min(ratios):.2f}-{max(ratios):.2f}) "
              f"| {tps} | {', '.join(map(str, js))} |")
    floors = [r[("select-only", 2)]["floor"] for r in results]
    print(f"| select-only, 2 clients, share of the bare SPI loop | {statistics.median(floors):.3f} "
          f"({min(floors):.3f}-{max(floors):.3f}) | | |")
    print()
    for n, r in enumerate(results, 1):
        print(f"run {n}: started {r['started']}, load average {r['load_start'][0]:.2f} (1 min) "
              f"{r['load_start'][1]:.2f} (5 min) at its start, {r['load_end'][0]:.2f} at its end "
              f"(its own work included){'' if r['quiet'] else ' -- NOT QUIET'}")
    return 1 if busy else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seconds", type=int, default=10)
    ap.add_argument("--scale", type=int, default=10)
    ap.add_argument("--memory-minutes", type=float, default=5)
    ap.add_argument("--quick", action="store_true", help="2-s runs, 3 rounds, no init 50, 1 min memory")
    ap.add_argument("--matrix", action="store_true",
                    help="the cost curve: clients x scales for pgbench_lab and pgbench")
    ap.add_argument("--scripts", action="store_true",
                    help="only pgbench's script texts through the interpreter against the built-ins")
    ap.add_argument("--telemetry", action="store_true",
                    help="only what telemetry costs: select-only 2, with and without it")
    ap.add_argument("--many-clients", action="store_true",
                    help="only 64 libpq clients on 2 workers against pgbench -c 64 -j 2")
    ap.add_argument("--matrix-clients", default="1,2,4,8,16,32,64")
    ap.add_argument("--matrix-scales", default="1,10,100", help="those the disk allows")
    ap.add_argument("--matrix-init", default="10,50,100", help="init's rows/s at these scales")
    ap.add_argument("--runs", type=int, default=0,
                    help="only the README's headline, in N independent runs on fresh clusters, and its table")
    ap.add_argument("--gap", type=float, default=20, help="minutes between the runs of --runs")
    ap.add_argument("--settle", type=float, default=600,
                    help="seconds to wait for a quiet machine before each run of --runs")
    ap.add_argument("--shared-buffers", default="512MB")
    args = ap.parse_args()
    if args.runs:
        if args.quick:
            args.seconds, args.rounds = 2, 3
        sys.exit(headline_runs(args))
    if args.quick:
        args.seconds, args.memory_minutes, args.rounds = 2, 1, 3
    c = Cluster("bench", bench_conf(args.shared_buffers, 80 if args.matrix else 16))
    try:
        quiet = quiet_check(settle=600)
        c.start()
        print(f"== PostgreSQL {c.scalar('SHOW server_version')}, {os.cpu_count()} CPUs; "
              f"{args.rounds} rounds of {args.seconds} s, alternating; medians", flush=True)
        c.sql("CREATE EXTENSION pgbench_lab CASCADE")
        if args.matrix:
            matrix(c, args)
            quiet_check(own=c)
            return
        table = Table()
        # the modes that run only some comparisons, on scale args.scale
        only = [fns for flag, fns in ((args.scripts, (scripts_speed, rate_cpu)),
                                      (args.many_clients, (many_clients,)),
                                      (args.telemetry, (telemetry_cost,))) if flag]
        if only:
            c.sql("SELECT * FROM pgbench_lab.init(%s)", (args.scale,))
            for fn in only[0]:
                fn(c, table, args)
            table.show(quiet)
            quiet_check(own=c)
            return
        init_speed(c, table, args, 10)
        if not args.quick:
            init_speed(c, table, args, 50)
        drop_tables(c)
        c.sql("SELECT * FROM pgbench_lab.init(%s)", (args.scale,))
        c.sql(PLPGSQL_LOOP)
        for workload, clients in (("select-only", 1), ("select-only", 2), ("tpcb-like", 1),
                                  ("tpcb-like", 4), ("simple-update", 2)):
            throughput(c, table, args, workload, clients)
        scripts_speed(c, table, args)
        rate_cpu(c, table, args)
        instrumentation(c, table, args)
        telemetry_cost(c, table, args)
        memory(c, table, args)
        table.show(quiet)
        quiet_check(own=c)
    finally:
        c.destroy()


if __name__ == "__main__":
    main()
