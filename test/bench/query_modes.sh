#!/usr/bin/env bash
# query_modes.sh: what planning costs per transaction.  select-only as a
# script (scripts => '{select-only}'), 1 client, in each query_mode
# (simple, extended, prepared), in the server and over libpq, in
# alternating rounds; prints per mode the median tps with its range and
# the time per transaction against prepared, in microseconds
# (test/bench/query_modes.py).  Builds and installs this checkout into the
# private PostgreSQL (default 18; PGBL_BENCH_PG=15 for 15).  A benchmark,
# not a test: it asserts nothing and no test runs it.
#
#   test/bench/query_modes.sh [--rounds 6] [--seconds 5] [--scale 1] [--settle 300]
set -euo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"
pgbl_setup
bindir=$(pgbl_bindir "${PGBL_BENCH_PG:-18}")
pgbl_build "$bindir"
PGBL_BINDIR="$bindir" exec "$PGBL_PY" "$PGBL_REPO/test/bench/query_modes.py" "$@"
