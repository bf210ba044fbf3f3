#!/usr/bin/env bash
# fsync_compare.sh: pgbench_lab.fsync_test() beside the server's own
# pg_test_fsync, on one throwaway cluster, writing into the same directory
# (the cluster's base/pgsql_tmp).  Prints ops/s of each sync method with one
# 8 kB write per sync, from both, and their ratio; the fdatasync line is the
# one to watch (they should agree within a factor of two; README says why
# they may not).  A benchmark, not a test: it asserts nothing.
#
# On a shared disk one run of either tool can differ from the next by a
# factor of several, so the two take turns, PGBL_BENCH_RUNS times each, and
# the best figure of each is compared.
#
#   test/bench/fsync_compare.sh              PostgreSQL 18, 1 s per method, 2 turns
#   PGBL_BENCH_PG=15 PGBL_BENCH_SECS=2 PGBL_BENCH_RUNS=1 test/bench/fsync_compare.sh
set -euo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"
pgbl_setup

major=${PGBL_BENCH_PG:-18}
secs=${PGBL_BENCH_SECS:-1}
runs=${PGBL_BENCH_RUNS:-2}
pgbl_throwaway_cluster "$major" bench-fsync
psql() { "$bindir/psql" -X -q -h 127.0.0.1 -p "$port" -U postgres -d postgres -v ON_ERROR_STOP=1 "$@"; }
psql -c "CREATE EXTENSION pgbench_lab CASCADE"

# fsync_test divides its time among its 19 rows: give each $secs seconds.
nrows=$(psql -At -c "SELECT count(*) FROM pgbench_lab.fsync_test(0.01)")
tmpdir="$work/data/base/pgsql_tmp"
pgbl_as_pg mkdir -p "$tmpdir"
: >"$work/lab.txt"
: >"$work/ptf.txt"
for run in $(seq "$runs"); do
	pgbl_say "turn $run/$runs: fsync_test ($nrows methods, ${secs}s each)"
	psql -At -F ' ' -c "SELECT method, direct, coalesce(ops_per_second, 0)
	                      FROM pgbench_lab.fsync_test($secs * $nrows)
	                     WHERE writes_per_sync = 1 AND write_size = 8192" >>"$work/lab.txt"
	# pg_test_fsync's own file, in the same directory, named so that a
	# crash leaves nothing the next start-up would not remove.
	pgbl_say "turn $run/$runs: pg_test_fsync (${secs}s per test)"
	pgbl_as_pg "$bindir/pg_test_fsync" -s "$secs" -f "$tmpdir/pgsql_tmp_pg_test_fsync" >>"$work/ptf.txt"
	rm -f "$tmpdir/pgsql_tmp_pg_test_fsync"
done

# pg_test_fsync opens open_datasync and open_sync with O_DIRECT where it can
# and fdatasync and fsync without; compare with fsync_test's matching rows.
"$PGBL_PY" - "$work/lab.txt" "$work/ptf.txt" "$runs" <<'PY'
import re, sys
lab = {}
for line in open(sys.argv[1]):
    m, direct, ops = line.split()
    key = (m, direct == "t")
    lab[key] = max(lab.get(key, 0.0), float(ops))
ptf, section = {}, False
for line in open(sys.argv[2]):
    if line.startswith("Compare file sync methods using one"):
        section = True
    elif line.strip() == "" and ptf:
        section = False
    elif section:
        m = re.match(r"\s+(\S+)\s+([\d.]+) ops/sec", line)
        if m:
            ptf[m.group(1)] = max(ptf.get(m.group(1), 0.0), float(m.group(2)))
print(f"best of {sys.argv[3]} turns each")
print(f"{'method (1 x 8kB)':<22}{'fsync_test ops/s':>18}{'pg_test_fsync ops/s':>22}{'ratio':>8}")
for method, direct in (("open_datasync", True), ("fdatasync", False),
                       ("fsync", False), ("open_sync", True)):
    a, b = lab.get((method, direct)), ptf.get(method)
    name = method + (" (O_DIRECT)" if direct else "")
    if not a or not b:
        print(f"{name:<22}{a or 'n/a':>18}{b or 'n/a':>22}{'':>8}")
    else:
        print(f"{name:<22}{a:>18.1f}{b:>22.1f}{a / b:>8.2f}")
PY
