#!/usr/bin/env bash
# libpq_profile.sh: where the libpq path's client side spends a select-only
# transaction, beside pgbench's, in measures the machine's load barely
# moves (docs/performance.md, "libpq path: profile").  A benchmark, not a
# test: it asserts nothing.
#
#   test/bench/libpq_profile.sh [libpq_profile.py's options]
#       perf: CPU time, system calls and context switches per transaction
#       of the libpq workers and of pgbench (client side, and with the
#       server's processes), on a throwaway cluster of scale 10;
#       --record DIR adds each side's symbols (perf record)
#   test/bench/libpq_profile.sh --instructions [libpq_instructions.py's options]
#       callgrind: user-space instructions per transaction of each side
#
#   PGBL_BENCH_PG=15 test/bench/libpq_profile.sh --clients 1,2,8,64 --modes builtin,simple
set -euo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"
pgbl_setup

major=${PGBL_BENCH_PG:-18}
command -v perf >/dev/null || pgbl_die "perf is not installed (apt-get install linux-perf)"
if [ "${1:-}" = --instructions ]; then
	shift
	bindir=$(pgbl_bindir "$major")
	pgbl_build "$bindir"
	PGBL_BINDIR="$bindir" exec "$PGBL_PY" "$PGBL_REPO/test/bench/libpq_instructions.py" "$@"
fi
pgbl_throwaway_cluster "$major" libpq-profile "max_connections = 200" "shared_buffers = 256MB"
"$bindir/psql" -X -q -h "$work" -p "$port" -U postgres -d postgres -v ON_ERROR_STOP=1 \
	-c "CREATE EXTENSION pgbench_lab CASCADE" 2>/dev/null
"$bindir/pgbench" -i -q -s 10 -h "$work" -p "$port" -U postgres postgres >/dev/null 2>&1
"$PGBL_PY" "$PGBL_REPO/test/bench/libpq_profile.py" --bindir "$bindir" --host "$work" \
	--port "$port" --datadir "$work/data" "$@"
