#!/usr/bin/env bash
# libpq_vs_pgbench.sh: pgbench_lab's client path beside the real pgbench, on
# one throwaway cluster and the same data.  pgbench_lab runs with
# via => 'libpq' (persistent connections) against pgbench -M prepared, and
# with via => 'libpq-connect' against pgbench -C -M prepared; both go
# through the server's Unix socket.  The two take turns (A B A B ...) so
# that a noisy neighbour hits both, and the median TPS of each is compared.
# README.md ("The client path: libpq") explains the gap.  A benchmark, not
# a test: it asserts nothing.
#
#   test/bench/libpq_vs_pgbench.sh            PostgreSQL 18, select-only, 2 clients, 3 rounds of 3 s
#   PGBL_BENCH_PG=15 PGBL_BENCH_WORKLOAD=tpcb-like PGBL_BENCH_CLIENTS=4 \
#   PGBL_BENCH_SECS=5 PGBL_BENCH_ROUNDS=5 test/bench/libpq_vs_pgbench.sh
#   test/bench/libpq_vs_pgbench.sh --grid [--quick] [libpq_grid.py's options]
#       1, 2, 8 and 64 clients x simple, extended, prepared: paired rounds
#       against pgbench -j min(clients, CPUs) -M the same, ratios with
#       their median and range, refused for publishing from a busy machine
set -euo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"
pgbl_setup

major=${PGBL_BENCH_PG:-18}
if [ "${1:-}" = --grid ]; then
	shift
	bindir=$(pgbl_bindir "$major")
	pgbl_say "building for PostgreSQL $major"
	pgbl_build "$bindir"
	PGBL_BINDIR="$bindir" exec "$PGBL_PY" "$PGBL_REPO/test/bench/libpq_grid.py" "$@"
fi
workload=${PGBL_BENCH_WORKLOAD:-select-only}
clients=${PGBL_BENCH_CLIENTS:-2}
secs=${PGBL_BENCH_SECS:-3}
rounds=${PGBL_BENCH_ROUNDS:-3}
scale=${PGBL_BENCH_SCALE:-1}
pgbl_throwaway_cluster "$major" bench-libpq "max_connections = 100"
psql() { "$bindir/psql" -X -q -h "$work" -p "$port" -U postgres -d postgres -v ON_ERROR_STOP=1 "$@"; }
pgbench() { "$bindir/pgbench" -h "$work" -p "$port" -U postgres "$@" postgres; }
psql -c "CREATE EXTENSION pgbench_lab CASCADE"
pgbench -i -q -s "$scale" >/dev/null 2>&1

case "$workload" in
	select-only) pgb_script=(-S) ;;
	simple-update) pgb_script=(-N) ;;
	tpcb-like) pgb_script=() ;;
	*) pgbl_die "unknown workload $workload" ;;
esac

# One pgbench_lab run; prints its tps (connection set-up included, as
# pgbench -C reports it).
lab_tps() {
	psql -At -c "CALL pgbench_lab.run('$workload', clients => $clients, duration => '$secs s',
	             via => '$1', label => 'bench libpq_vs_pgbench')" >/dev/null
	psql -At -c "SELECT tps FROM pgbench_lab.runs ORDER BY run_id DESC LIMIT 1"
}

# One pgbench run; prints its tps.
pgbench_tps() {
	pgbench -n "${pgb_script[@]}" "$@" -c "$clients" -j "$clients" -T "$secs" 2>/dev/null |
		sed -nE 's/^tps = ([0-9.]+).*/\1/p'
}

: >"$work/results.txt"
for round in $(seq "$rounds"); do
	for mode in libpq libpq-connect; do
		if [ "$mode" = libpq ]; then flags=(-M prepared); else flags=(-C -M prepared); fi
		pgbl_say "round $round/$rounds: $mode: pgbench_lab, then pgbench ${flags[*]}"
		echo "$mode lab $(lab_tps "$mode")" >>"$work/results.txt"
		echo "$mode pgbench $(pgbench_tps "${flags[@]}")" >>"$work/results.txt"
	done
done

"$PGBL_PY" - "$work/results.txt" "$workload" "$clients" "$secs" "$rounds" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if len(l.split()) == 3]
print(f"\n{sys.argv[2]}, {sys.argv[3]} clients, {sys.argv[5]} rounds of {sys.argv[4]} s "
      "(median tps; pgbench_lab / pgbench)")
for mode, flags in (("libpq", "-M prepared"), ("libpq-connect", "-C -M prepared")):
    lab = [float(t) for m, who, t in rows if m == mode and who == "lab"]
    pgb = [float(t) for m, who, t in rows if m == mode and who == "pgbench"]
    if not lab or not pgb:
        print(f"{mode:14s} no figures")
        continue
    a, b = statistics.median(lab), statistics.median(pgb)
    print(f"{mode:14s} pgbench_lab {a:10.1f}   pgbench {flags:15s} {b:10.1f}   ratio {a / b:5.2f}")
PY
