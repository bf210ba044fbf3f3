#!/usr/bin/env bash
# Benchmark: pgbench_lab against pgbench and a PL/pgSQL loop, side by side.
#   test/bench/run.sh [--quick] [--rounds N] [--seconds S] [--memory-minutes M]
# PGBL_BENCH_PG=15 for PostgreSQL 15 (default 18).  Prints one table.
set -euo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"
pgbl_setup
bindir=$(pgbl_bindir "${PGBL_BENCH_PG:-18}")
pgbl_build "$bindir"
PGBL_BINDIR="$bindir" exec "$PGBL_PY" "$PGBL_REPO/test/bench/bench.py" "$@"
