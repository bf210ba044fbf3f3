#!/usr/bin/env bash
# fsync_compare.sh: pgbench_lab.fsync_test() beside the server's own
# pg_test_fsync, on one throwaway cluster, writing into the same directory
# (the cluster's base/pgsql_tmp).  For each sync method with one 8 kB write
# per sync it prints both tools' figures and their ratio: fsync_test's
# median round (what wal_sync_method is decided on) and its rate over all
# rounds, against pg_test_fsync's ops/s.  A benchmark, not a test: it
# asserts nothing (test_storage.py's test_agrees_with_pg_test_fsync does).
#
# On a shared disk one run of either tool can differ from the next by a
# factor of several, so the two take turns, PGBL_BENCH_RUNS times each, and
# each ratio is taken within a turn: the median over the turns is printed
# with the range.
#
#   test/bench/fsync_compare.sh              PostgreSQL 18, 1 s per method, 3 turns
#   PGBL_BENCH_PG=15 PGBL_BENCH_SECS=2 PGBL_BENCH_RUNS=1 test/bench/fsync_compare.sh
set -euo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"
pgbl_setup

major=${PGBL_BENCH_PG:-18}
secs=${PGBL_BENCH_SECS:-1}
runs=${PGBL_BENCH_RUNS:-3}
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
	psql -At -F ' ' -c "SELECT $run, method, direct, coalesce(median_round, 0),
	                           coalesce(ops_per_second, 0)
	                      FROM pgbench_lab.fsync_test($secs * $nrows)
	                     WHERE writes_per_sync = 1 AND write_size = 8192" >>"$work/lab.txt"
	# pg_test_fsync's own file, in the same directory, named so that a
	# crash leaves nothing the next start-up would not remove.
	pgbl_say "turn $run/$runs: pg_test_fsync (${secs}s per test)"
	echo "turn $run" >>"$work/ptf.txt"
	pgbl_as_pg "$bindir/pg_test_fsync" -s "$secs" -f "$tmpdir/pgsql_tmp_pg_test_fsync" >>"$work/ptf.txt"
	rm -f "$tmpdir/pgsql_tmp_pg_test_fsync"
done

# pg_test_fsync opens open_datasync and open_sync with O_DIRECT where it can
# and fdatasync and fsync without; compare with fsync_test's matching rows.
"$PGBL_PY" - "$work/lab.txt" "$work/ptf.txt" <<'PY'
import re, statistics, sys
lab = {}     # (turn, method, direct) -> (median round, all rounds)
for line in open(sys.argv[1]):
    turn, m, direct, med, ops = line.split()
    lab[(int(turn), m, direct == "t")] = (float(med), float(ops))
ptf, turn, section = {}, 0, False
for line in open(sys.argv[2]):
    if line.startswith("turn "):
        turn = int(line.split()[1])
    elif line.startswith("Compare file sync methods using one"):
        section = True
    elif line.strip() == "":
        section = section and not any(k[0] == turn for k in ptf)
    elif section:
        m = re.match(r"\s+(\S+)\s+([\d.]+) ops/sec", line)
        if m:
            ptf[(turn, m.group(1))] = float(m.group(2))
turns = sorted({k[0] for k in lab})

def show(xs, fmt):
    if not xs:
        return "n/a"
    return (fmt % statistics.median(xs)) + " (" + (fmt % min(xs)) + "-" + (fmt % max(xs)) + ")"

print(f"{len(turns)} turns; each figure: median over the turns (range)")
print(f"{'method (1 x 8kB)':<25}{'pg_test_fsync':>22}{'fsync_test median':>24}"
      f"{'ratio':>20}{'all rounds ratio':>20}")
for method, direct in (("open_datasync", True), ("fdatasync", False),
                       ("fsync", False), ("open_sync", True)):
    both = [t for t in turns if lab.get((t, method, direct), (0, 0))[0] and ptf.get((t, method))]
    p = [ptf[(t, method)] for t in both]
    med = [lab[(t, method, direct)][0] for t in both]
    ratio = [lab[(t, method, direct)][0] / ptf[(t, method)] for t in both]
    whole = [lab[(t, method, direct)][1] / ptf[(t, method)] for t in both]
    name = method + (" (O_DIRECT)" if direct else "")
    print(f"{name:<25}{show(p, '%.0f'):>22}{show(med, '%.0f'):>24}"
          f"{show(ratio, '%.2f'):>20}{show(whole, '%.2f'):>20}")
PY
