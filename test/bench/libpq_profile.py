"""Where the libpq path's client side spends a transaction, beside pgbench's:
CPU time (perf's task-clock), system calls and context switches per
transaction of pgbench_lab's libpq workers (via => 'libpq') and of the
pgbench process driving the same clients with the same threads, and with
--record the symbols' shares of each side's CPU samples.

Counts per transaction barely move with the machine's load (a loaded
machine stretches wall-clock time, not the work done per transaction), so
this runs where timings cannot be trusted; the CPU time per transaction
moves somewhat (caches, frequency) and is read beside the others.  The
server's backends do the same work for both sides and are not counted.
perf must be installed (apt-get install linux-perf) and the caller root;
hardware counters (instructions) are used when the machine has them.

Run by test/bench/libpq_profile.sh, which builds, installs and starts a
throwaway cluster:

    test/bench/libpq_profile.sh [--clients 1,64] [--threads 1,2] [--modes prepared,...]
                                [--seconds 5] [--record DIR]

A mode is `builtin` (the built-in select-only workload, always prepared,
against pgbench -S -M prepared) or `simple`, `extended`, `prepared`
(scripts => '{select-only}' with that query_mode, against pgbench -b
select-only -M that mode).  Nothing is asserted.
"""
import argparse
import os
import re
import signal
import subprocess
import sys
import threading
import time

from libpq_grid import lab_what, pgbench_mode  # the modes' run() and pgbench -M

EVENTS = ["task-clock", "context-switches", "raw_syscalls:sys_enter"]


def perf_events():
    """The hardware counters too, when the machine has them."""
    out = subprocess.run(["perf", "stat", "-x,", "-e", "instructions", "true"],
                         capture_output=True, text=True).stderr
    return (["instructions", "cycles"] if "not supported" not in out and "<not" not in out
            else []) + EVENTS


def parse_stat(path):
    """perf stat -x, output: {event: value}."""
    vals = {}
    for line in open(path):
        parts = line.strip().split(",")
        if len(parts) < 3 or not parts[0] or parts[0].startswith("<"):
            continue
        try:
            vals[parts[2]] = float(parts[0])
        except ValueError:
            pass
    return vals


class Lab:
    def __init__(self, a):
        self.a = a

    def psql(self, sql, check=True):
        return subprocess.run([os.path.join(self.a.bindir, "psql"), "-X", "-At", "-h", self.a.host,
                               "-p", str(self.a.port), "-U", "postgres", "-d", "postgres",
                               "-v", "ON_ERROR_STOP=1", "-c", sql],
                              capture_output=True, text=True, check=check).stdout.strip()

    def run_sql(self, clients, threads, mode, secs):
        what = lab_what(mode)
        return (f"CALL pgbench_lab.run({what}, clients => {clients}, threads => {threads}, "
                f"duration => '{secs} s', via => 'libpq', label => 'libpq_profile')")

    def measure(self, clients, threads, mode, secs, perf):
        """Runs the lab's contender under perf (attached to its workers);
        returns (perf output path, transactions)."""
        before = self.psql("SELECT coalesce(max(run_id), 0) FROM pgbench_lab.runs")
        call = threading.Thread(target=self.psql, args=(self.run_sql(clients, threads, mode, secs),))
        call.start()
        pids = []
        deadline = time.monotonic() + 60
        while len(pids) < threads and time.monotonic() < deadline:
            pids = self.psql("SELECT pid FROM pg_stat_activity WHERE backend_type "
                             "OPERATOR(pg_catalog.=) 'pgbench_lab client'").split()
            time.sleep(0.02)
        if len(pids) < threads:
            call.join()
            sys.exit("the libpq workers were not seen")
        p = subprocess.run(perf + ["-p", ",".join(pids)], capture_output=True, text=True)
        call.join()
        if p.returncode:
            sys.exit(p.stderr)
        n = int(self.psql(f"SELECT transactions FROM pgbench_lab.runs WHERE run_id > {before} "
                          "ORDER BY run_id DESC LIMIT 1"))
        return n


def pgbench_measure(a, clients, threads, mode, secs, perf):
    m = pgbench_mode(mode)
    cmd = [os.path.join(a.bindir, "pgbench"), "-n", "-b", "select-only", "-M", m,
           "-c", str(clients), "-j", str(threads), "-T", str(secs),
           "-h", a.host, "-p", str(a.port), "-U", "postgres", "postgres"]
    p = subprocess.run(perf + ["--"] + cmd, capture_output=True, text=True)
    got = re.search(r"number of transactions actually processed: (\d+)", p.stdout)
    if not got:
        sys.exit(p.stdout + p.stderr)
    return int(got.group(1))


def report_symbols(data, top):
    out = subprocess.run(["perf", "report", "-i", data, "--no-children", "--sort", "dso,sym",
                          "--stdio", "--percent-limit", "0.7"],
                         capture_output=True, text=True).stdout
    rows = [l for l in out.splitlines() if l.strip() and not l.startswith("#")]
    return rows[:top]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bindir", required=True)
    ap.add_argument("--host", required=True)
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--datadir", required=True)
    ap.add_argument("--clients", default="1,64")
    ap.add_argument("--threads", default="",
                    help="threads for each client count (default: min(clients, 2))")
    ap.add_argument("--modes", default="builtin,prepared,simple,extended")
    ap.add_argument("--seconds", type=int, default=5)
    ap.add_argument("--record", metavar="DIR", help="also perf record each side into DIR")
    ap.add_argument("--top", type=int, default=25)
    a = ap.parse_args()
    lab = Lab(a)
    events = perf_events()
    clients = [int(c) for c in a.clients.split(",")]
    threads = ([int(t) for t in a.threads.split(",")] if a.threads else
               [min(c, 2) for c in clients])
    stat = "/tmp/pgbl-libpq-profile.stat"
    print(f"per transaction, client side only ({a.seconds} s each; "
          f"load average {os.getloadavg()[0]:.2f} at the start)")
    print(f"{'clients':>7} {'threads':>7} {'mode':9} {'side':8} {'xacts':>9} "
          + " ".join(f"{e.split(':')[-1][:10]:>10}" for e in events)
          + f" {'all: µs':>10} {'all: sysc':>10}")
    print("(client side: the lab's workers or pgbench; all: with the server's processes, "
          "task-clock in µs)")
    pm = open(os.path.join(a.datadir, "postmaster.pid")).readline().strip()
    for c, j in zip(clients, threads):
        for mode in a.modes.split(","):
            for side in ("lab", "pgbench"):
                perf = ["perf", "stat", "-x,", "-o", stat, "-e", ",".join(events)]
                fn = lab.measure if side == "lab" else (
                    lambda *x: pgbench_measure(a, *x))
                # the server's side too: every process the postmaster
                # forks meanwhile (backends, and the lab's workers)
                whole = subprocess.Popen(["perf", "stat", "-x,", "-o", stat + ".pm", "-e",
                                          ",".join(events), "-p", pm])
                time.sleep(0.3)
                n = fn(c, j, mode, a.seconds, perf)
                whole.send_signal(signal.SIGINT)
                whole.wait()
                v = parse_stat(stat)
                w = parse_stat(stat + ".pm")
                if side == "pgbench":
                    w = {e: w.get(e, 0) + v.get(e, 0) for e in events}
                cols = []
                for e in events:
                    x = v.get(e, float("nan")) / max(n, 1)
                    # task-clock is in ms: per transaction in µs
                    cols.append(f"{x * 1000:10.2f}" if e == "task-clock" else f"{x:10.2f}")
                tot = w.get("task-clock", float("nan")) / max(n, 1) * 1000
                sysc = w.get("raw_syscalls:sys_enter", float("nan")) / max(n, 1)
                print(f"{c:>7} {j:>7} {mode:9} {side:8} {n:>9} " + " ".join(cols)
                      + f" {tot:10.2f} {sysc:10.2f}", flush=True)
                if a.record:
                    os.makedirs(a.record, exist_ok=True)
                    data = os.path.join(a.record, f"{side}-{c}c{j}j-{mode}.data")
                    rec = ["perf", "record", "-q", "-F", "4999", "-o", data]
                    fn(c, j, mode, a.seconds, rec)
                    print(f"  {side}: top symbols ({data})")
                    for row in report_symbols(data, a.top):
                        print("   " + row)


if __name__ == "__main__":
    main()
