#!/usr/bin/env bash
# aa.sh: the A/A benchmark of the verdicts (test/bench/aa.py): many
# compare_settings() experiments of two identical settings sets, and how
# often a difference is called.  Builds and installs this checkout into the
# private PostgreSQL (default 18; PGBL_BENCH_PG=15 for 15).  Asserts nothing.
#
#   test/bench/aa.sh [--trials 40] [--rounds 6|auto] [--budget 60] [--duration 1] [--workload select-only]
#                    [--confidence 0.95] [--smallest-effect 0.02] [--settle 120]
set -euo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"
pgbl_setup
bindir=$(pgbl_bindir "${PGBL_BENCH_PG:-18}")
pgbl_build "$bindir"
PGBL_BINDIR="$bindir" exec "$PGBL_PY" "$PGBL_REPO/test/bench/aa.py" "$@"
