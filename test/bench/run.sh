#!/usr/bin/env bash
# Benchmark: pgbench_lab against pgbench, a PL/pgSQL loop and the bare SPI
# loop, side by side.
#   test/bench/run.sh [--quick] [--rounds N] [--seconds S] [--memory-minutes M]
#   test/bench/run.sh --matrix [--matrix-clients 1,2,4] [--matrix-scales 1,10] [--matrix-init 10,50]
#   test/bench/run.sh --runs 3 [--gap 20]   (the README's headline table: independent runs)
#   test/bench/run.sh --instructions [--small N] [--large N]
#     (instructions per select-only transaction, counted by callgrind)
# PGBL_BENCH_PG=15 for PostgreSQL 15 (default 18).  Prints one table.
set -euo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"
pgbl_setup
bindir=$(pgbl_bindir "${PGBL_BENCH_PG:-18}")
pgbl_build "$bindir"
script=bench.py
if [ "${1:-}" = --instructions ]; then
	shift
	command -v valgrind >/dev/null || PGBL_APT_PACKAGES=valgrind pgbl_apt
	script=instructions.py
fi
PGBL_BINDIR="$bindir" exec "$PGBL_PY" "$PGBL_REPO/test/bench/$script" "$@"
