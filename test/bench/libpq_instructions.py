"""Instructions per transaction of the libpq path's client side beside
pgbench's, counted by callgrind: pgbench_lab's libpq workers (via =>
'libpq', threads) and the pgbench process driving the same clients with
the same threads and query mode.  Instruction counts do not depend on how
busy the machine is, so this runs where timings cannot be trusted.  They
count user space only: system calls per transaction are in
libpq_profile.py (perf).

Two servers: the target, a plain server that both sides' connections go
to, and the lab's server, run under `valgrind --tool=callgrind
--trace-children=yes` collecting only inside the client workers' main
function, whose workers reach the target with target =>.  pgbench runs
under callgrind too.  Each contender runs two transaction counts and the
difference is divided by the difference of the counts, so that start-up
and connections drop out.  Nothing is asserted.

    PGBL_BINDIR=... libpq_instructions.py [--clients 1,64] [--threads ...]
        [--modes builtin,prepared,simple,extended] [--small 200] [--large 600]
        [--keep DIR]

--small and --large are transactions per client.  A mode is `builtin` (the
built-in select-only workload, prepared, against pgbench -S -M prepared)
or a query_mode with scripts => '{select-only}' against pgbench -b
select-only -M that mode.  Run by test/bench/libpq_profile.sh --instructions.

With --backends it counts the other side instead: the target server runs
under callgrind, collecting inside its backends (PostgresMain), and the
instructions per transaction of all its backends (work that does not grow
with the transactions, such as the lab's checks of the target, drops out
of the difference) are compared for three contenders: the lab's
workers, pgbench -b select-only, and pgbench -f running the statements the
lab sends (its tables and operator named with their schema), so that what
the text costs the server is told apart from what the client path costs it.

    PGBL_BINDIR=... libpq_instructions.py --backends [--clients 1,2]
        [--modes simple,extended,prepared,builtin]
"""
import argparse
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "t"))
sys.path.insert(0, HERE)
from conftest import Cluster  # noqa: E402
from instructions import Counted, callgrind_total, load, per_xact  # noqa: E402
from libpq_grid import lab_what, pgbench_mode, script_file  # noqa: E402


def clusters():
    """The target, that both sides' connections go to, and the lab's server."""
    return (Cluster("libpq-target", {"shared_buffers": "128MB", "max_connections": "200",
                                     "autovacuum": "off"}),
            Cluster("libpq-lab", {"max_worker_processes": "16", "autovacuum": "off"}))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--clients", default="1,64")
    ap.add_argument("--threads", default="", help="per client count (default: min(clients, 2))")
    ap.add_argument("--modes", default="builtin,prepared,simple,extended")
    ap.add_argument("--small", type=int, default=200, help="transactions per client")
    ap.add_argument("--large", type=int, default=600)
    ap.add_argument("--backends", action="store_true",
                    help="count the target's backends serving the clients, not the clients")
    ap.add_argument("--keep", metavar="DIR",
                    help="copy the workers' callgrind outputs here, for callgrind_annotate")
    args = ap.parse_args()
    if not shutil.which("valgrind"):
        sys.exit("valgrind is not installed (apt-get install valgrind)")
    if args.backends:
        return backends(args)
    clients = [int(c) for c in args.clients.split(",")]
    threads = ([int(t) for t in args.threads.split(",")] if args.threads else
               [min(c, 2) for c in clients])
    target, lab = clusters()
    counted = None
    try:
        load(target)
        target.sql("SELECT pg_prewarm(oid) FROM pg_class WHERE relname IN "
                   "('pgbench_accounts', 'pgbench_accounts_pkey', 'pgbench_branches')")
        lab.start()
        lab.sql("CREATE EXTENSION pgbench_lab CASCADE")
        lab.stop()
        if args.keep:
            os.makedirs(args.keep, exist_ok=True)
        counted = Counted(lab, args.keep, collect=["pgbench_lab_client_main"])
        conninfo = f"host={target.base} port={target.port} user=postgres dbname=postgres"
        version = target.scalar("SHOW server_version")

        def lab_run(c, j, mode, n):
            what = lab_what(mode)
            before = counted.files()
            row = lab.sql(f"CALL pgbench_lab.run({what}, clients => {c}, threads => {j}, "
                          f"transactions => {n}, via => 'libpq', target => %s)", (conninfo,))[0]
            assert row[1] == "done", row
            new = counted.since(before, f"lab-{c}c{j}j-{mode}-{n}")
            return sum(callgrind_total(p) for p in new), row[2]

        def pgbench_run(c, j, mode, n):
            out = os.path.join(counted.outdir, f"pgbench.{c}.{n}")
            subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                            os.path.join(target.bindir, "pgbench"), "-n", "-b", "select-only",
                            "-M", pgbench_mode(mode),
                            "-c", str(c), "-j", str(j), "-t", str(n), "-h", target.base,
                            "-p", str(target.port), "-U", "postgres", "postgres"],
                           check=True, capture_output=True)
            total = callgrind_total(out)
            if args.keep:
                shutil.copy(out, os.path.join(args.keep, f"pgbench-{c}c{j}j-{mode}-{n}"))
            os.unlink(out)
            return total, c * n

        print(f"== PostgreSQL {version}: client-side instructions per select-only transaction "
              f"(callgrind, user space; {args.small} and {args.large} transactions per client, "
              "the difference per transaction)", flush=True)
        print(f"  {'clients':>7} {'threads':>7} {'mode':9} {'pgbench_lab':>12} {'pgbench':>10} "
              f"{'ratio':>6}")
        for c, j in zip(clients, threads):
            for mode in args.modes.split(","):
                res = []
                for fn in (lab_run, pgbench_run):
                    res.append(per_xact(lambda n: fn(c, j, mode, n), args.small, args.large))
                print(f"  {c:>7} {j:>7} {mode:9} {res[0]:>12.0f} {res[1]:>10.0f} "
                      f"{res[0] / res[1]:>6.3f}", flush=True)
    finally:
        if counted:
            counted.stop()
        lab.destroy()
        target.destroy()


def all_backends(paths):
    """The instructions of every backend whose output is in paths: the
    clients' and any other (the lab's checks of the target), whose work
    does not grow with the transactions and so drops out of the
    difference."""
    return sum(callgrind_total(p) for p in paths)


def backends(args):
    """--backends: the target's backends under callgrind, three contenders."""
    clients = [int(c) for c in args.clients.split(",")]
    target, lab = clusters()
    counted = None
    try:
        load(target)
        version = target.scalar("SHOW server_version")
        target.stop()
        lab.start()
        lab.sql("CREATE EXTENSION pgbench_lab CASCADE")
        if args.keep:
            os.makedirs(args.keep, exist_ok=True)
        counted = Counted(target, args.keep, collect=["PostgresMain"])
        target.sql("SELECT pg_prewarm(oid) FROM pg_class WHERE relname IN "
                   "('pgbench_accounts', 'pgbench_accounts_pkey', 'pgbench_branches')")
        conninfo = f"host={target.base} port={target.port} user=postgres dbname=postgres"

        def run(c, mode, n):
            what = lab_what(mode)
            row = lab.sql(f"CALL pgbench_lab.run({what}, clients => {c}, threads => {min(c, 2)}, "
                          f"transactions => {n}, via => 'libpq', target => %s)", (conninfo,))[0]
            assert row[1] == "done", row
            return row

        def lab_run(c, mode, n):
            before = counted.files()
            row = run(c, mode, n)
            return all_backends(counted.since(before, f"lab-{c}c-{mode}-{n}")), row[2]

        def pgbench_run(c, mode, n, script=None):
            before = counted.files()
            what = ["-f", script, "-s", "1"] if script else ["-b", "select-only"]
            target.run_client("pgbench", "-n", *what, "-M", pgbench_mode(mode),
                              "-c", str(c), "-j", str(min(c, 2)), "-t", str(n), "postgres", socket=True)
            return all_backends(counted.since(before, f"pgbench-{c}c-{mode}-{n}")), c * n

        print(f"== PostgreSQL {version}: the target's backend instructions per select-only "
              f"transaction (callgrind, PostgresMain of every backend; {args.small} and {args.large} transactions per client, the difference "
              "per transaction)", flush=True)
        print(f"  {'clients':>7} {'mode':9} {'pgbench_lab':>12} {'pgbench':>10} {'pgbench -f lab':>15} "
              f"{'lab/pgbench':>12} {'lab/-f lab':>11}")
        script = script_file(lab, run(1, "prepared", 1)[0], target.base)  # for pgbench -f
        for c in clients:
            for mode in args.modes.split(","):
                res = []
                for fn in (lab_run, pgbench_run,
                           lambda c, mode, n: pgbench_run(c, mode, n, script)):
                    res.append(per_xact(lambda n: fn(c, mode, n), args.small, args.large))
                print(f"  {c:>7} {mode:9} {res[0]:>12.0f} {res[1]:>10.0f} {res[2]:>15.0f} "
                      f"{res[0] / res[1]:>12.3f} {res[0] / res[2]:>11.3f}", flush=True)
    finally:
        if counted:
            counted.stop()
        lab.destroy()
        target.destroy()


if __name__ == "__main__":
    main()
