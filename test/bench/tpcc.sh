#!/usr/bin/env bash
# tpcc.sh: TPC-C's mix (the kit's five scripts, 10/10/1/1/1) three ways on
# the same warehouses: in the server (via => 'spi'), over libpq
# (via => 'libpq') and the pgbench binary (-M prepared, Unix socket, the
# files of sql/tpcc/), NOPM measured on the server for all three
# as HammerDB does (sum(d_next_o_id) before and after each run), in paired
# alternating rounds; prints the conditions and the ratios to pgbench
# (test/bench/tpcc.py).  Builds and installs this checkout into the private
# PostgreSQL (default 18; PGBL_BENCH_PG=15 for 15).  A benchmark, not a
# test: it asserts nothing and no test runs it.
#
#   test/bench/tpcc.sh [--warehouses 2] [--clients 4] [--seconds 20] [--pairs 5] [--quick]
set -euo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"
pgbl_setup
bindir=$(pgbl_bindir "${PGBL_BENCH_PG:-18}")
pgbl_build "$bindir"
PGBL_BINDIR="$bindir" exec "$PGBL_PY" "$PGBL_REPO/test/bench/tpcc.py" "$@"
