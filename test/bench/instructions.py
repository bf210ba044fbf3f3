"""Instructions per transaction of a built-in workload (select-only unless
--workload says another), counted by callgrind: the in-server client
(pgbench_lab), the bare SPI loop (its floor; select-only only), and
pgbench's backend and pgbench itself.  Instruction counts do not depend on how busy
the machine is, so this can run where timings cannot be trusted.

Started by test/bench/run.sh --instructions (which builds and installs the
extension into a private server).  The whole server runs under
`valgrind --tool=callgrind --trace-children=yes`, collecting only inside
pgbench_lab's client and floor workers' main functions and the backends'
PostgresMain.  Of each measurement the worker counts (the process that ran
its main function, however few the transactions: with a few hundred the
session waiting for it was the busiest process), or the busiest backend,
the one serving pgbench; pgbench runs under callgrind too.  The tables are
prewarmed first, so no contender pays for another's cold pages.  Each
contender runs two transaction counts and the difference is divided by the
difference of the counts, so that start-up, connection and planning drop
out.  Nothing is asserted.

    test/bench/run.sh --instructions [--small 2000] [--large 6000] [--workload tpcb-like]
"""
import argparse
import glob
import os
import shutil
import subprocess
import sys
import tempfile
import time

import psycopg

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "t"))
from conftest import Cluster, _as_postgres  # noqa: E402

COLLECT = ["pgbench_lab_client_main", "pgbench_lab_floor_main", "PostgresMain"]


def callgrind_total(path):
    """The instructions a callgrind output file counted ("summary:" line)."""
    with open(path) as f:
        for line in f:
            if line.startswith("summary:") or line.startswith("totals:"):
                return int(line.split()[1])
    return 0


class Counted:
    """The cluster's server started under callgrind, collecting only inside
    the functions in collect; outputs in outdir (libpq_instructions.py
    counts its client workers with it too)."""

    def __init__(self, c, keep=None, collect=COLLECT):
        self.c = c
        self.keep = keep
        self.outdir = tempfile.mkdtemp(prefix="pgbl-callgrind-")
        os.chmod(self.outdir, 0o777)
        cmd = ["valgrind", "--tool=callgrind", "--trace-children=yes", "--collect-atstart=no",
               *[f"--toggle-collect={f}" for f in collect],
               f"--callgrind-out-file={self.outdir}/cg.%p",
               os.path.join(c.bindir, "postgres"), "-D", c.datadir]
        self.log = open(os.path.join(self.outdir, "server.log"), "w")
        self.proc = subprocess.Popen(_as_postgres(cmd), stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 300
        while True:
            try:
                with c.connect():
                    break
            except psycopg.OperationalError:
                if time.monotonic() > deadline or self.proc.poll() is not None:
                    raise RuntimeError("the server did not start under callgrind")
                time.sleep(1)

    def since(self, before, tag=None):
        """The output files written since `before` (a set of paths), once
        their processes have exited; with --keep, those that counted
        anything are copied there as <tag>.<pid>."""
        time.sleep(2)
        new = self.files() - before
        if self.keep and tag:
            for p in new:
                if callgrind_total(p):
                    shutil.copy(p, os.path.join(self.keep, f"{tag}.{os.path.basename(p)[3:]}"))
        return new

    def settle(self, before, tag=None, fn=None):
        """The instructions of the busiest process since `before` that ran
        fn (any, without fn): the session that waits for it polls in
        proportion to the time, and does not count.  With few transactions
        that session can be the busiest: fn names the worker's main
        function so that the worker is counted whatever the count."""
        new = self.since(before, tag)
        return max((callgrind_total(p) for p in new if fn is None or ran(p, fn)), default=0), new

    def files(self):
        return set(glob.glob(os.path.join(self.outdir, "cg.*")))

    def stop(self):
        self.proc.terminate()
        self.proc.wait(120)
        self.log.close()
        shutil.rmtree(self.outdir, ignore_errors=True)


def ran(path, fn):
    """Did the process of a callgrind output run function fn?"""
    with open(path) as f:
        return any(line.startswith("fn=") and line.rstrip("\n").endswith(f" {fn}") for line in f)


def load(c):
    """c started, with pgbench_lab and pgbench's data set at scale 1,
    analyzed."""
    c.start()
    c.sql("CREATE EXTENSION pgbench_lab CASCADE")
    c.sql("SELECT * FROM pgbench_lab.init(1)")
    c.sql("VACUUM ANALYZE")


def per_xact(measure, small, large):
    """(instructions(large) - instructions(small)) / (n(large) - n(small))."""
    i1, n1 = measure(small)
    i2, n2 = measure(large)
    return (i2 - i1) / (n2 - n1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--small", type=int, default=2000)
    ap.add_argument("--large", type=int, default=6000)
    ap.add_argument("--workload", default="select-only",
                    choices=["select-only", "tpcb-like", "simple-update"])
    ap.add_argument("--keep", metavar="DIR",
                    help="copy the callgrind outputs here, for callgrind_annotate")
    args = ap.parse_args()
    if not shutil.which("valgrind"):
        sys.exit("valgrind is not installed (apt-get install valgrind)")
    c = Cluster("instr", {"shared_buffers": "128MB", "max_worker_processes": "16",
                          "autovacuum": "off"})
    counted = None
    try:
        load(c)
        c.stop()
        if args.keep:
            os.makedirs(args.keep, exist_ok=True)
        counted = Counted(c, args.keep)
        version = c.scalar("SHOW server_version")
        # every page in shared buffers first, so that no contender pays
        # for the reads (and checksums) of pages another left cold
        c.sql("SELECT pg_prewarm(oid) FROM pg_class WHERE relname IN "
              "('pgbench_accounts', 'pgbench_accounts_pkey', 'pgbench_branches')")

        def lab(n):
            before = counted.files()
            row = c.sql("CALL pgbench_lab.run(%s, clients => 1, transactions => %s)",
                        (args.workload, n))[0]
            assert row[1] == "done", row
            return counted.settle(before, f"lab{n}", "pgbench_lab_client_main")[0], row[2]

        def floor(n):
            before = counted.files()
            _tps, done = c.sql("SELECT * FROM pgbench_lab_internal.spi_floor(1, 3600, %s)",
                               (n,))[0]
            return counted.settle(before, f"floor{n}", "pgbench_lab_floor_main")[0], done

        pgbench_client = {}

        def pgbench(n):
            before = counted.files()
            out = os.path.join(counted.outdir, f"pgbench.{n}")
            subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                            os.path.join(c.bindir, "pgbench"), "-n", "-M", "prepared", "-b", args.workload,
                            "-c", "1", "-t", str(n), "-h", c.base, "-p", str(c.port),
                            "-U", "postgres", "postgres"],
                           check=True, capture_output=True)
            pgbench_client[n] = callgrind_total(out)
            os.unlink(out)
            return counted.settle(before)[0], n

        print(f"== PostgreSQL {version}: instructions per {args.workload} transaction (callgrind; "
              f"{args.small} and {args.large} transactions, the difference per transaction)",
              flush=True)
        rows = [("pgbench_lab client worker (client and server work, in-server)",
                 per_xact(lab, args.small, args.large))]
        if args.workload == "select-only":
            rows.append(("bare SPI loop (the floor)", per_xact(floor, args.small, args.large)))
        backend = per_xact(pgbench, args.small, args.large)
        client = (pgbench_client[args.large] - pgbench_client[args.small]) / (args.large - args.small)
        rows += [("pgbench's backend (server work only)", backend),
                 ("pgbench itself (client work only)", client),
                 ("pgbench's backend + pgbench", backend + client)]
        for what, v in rows:
            print(f"  {what:<64} {v:>10.0f}")
        floor_ratio = f"pgbench_lab / floor: {rows[0][1] / rows[1][1]:.3f}; " if len(rows) > 4 else ""
        print(f"  {floor_ratio}pgbench_lab / pgbench's backend: {rows[0][1] / backend:.3f}")
    finally:
        if counted:
            counted.stop()
        c.destroy()


if __name__ == "__main__":
    main()
