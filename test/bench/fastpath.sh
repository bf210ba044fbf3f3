#!/usr/bin/env bash
# fastpath.sh: the in-server fast path of this checkout against a base
# revision, paired.  Builds this checkout into the private PostgreSQL tree
# (.deps) and the base revision (git archive, default 0db72cd: main before
# the run-contract restructuring) into a copy of that tree, so that both
# builds exist at once; then test/bench/fastpath.py runs select-only and
# tpcb-like in the server with each, in alternating rounds (A B B A ...) on
# one cluster and one data set, and prints each round's tps, the median
# and range of the paired ratios and whether the median is within 2 %.
# A benchmark, not a test: it asserts nothing and no test runs it.
#
#   test/bench/fastpath.sh [--base REV] [--rounds 6] [--seconds 10] [--clients 2]
#                          [--scale 1] [--settle 300]
#   PGBL_BENCH_PG=15 test/bench/fastpath.sh     (default PostgreSQL 18)
set -euo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"
pgbl_setup

major=${PGBL_BENCH_PG:-18}
base=0db72cd
args=()
while [ $# -gt 0 ]; do
	case "$1" in
		--base) base=$2; shift 2 ;;
		--base=*) base=${1#--base=}; shift ;;
		*) args+=("$1"); shift ;;
	esac
done
base_sha=$(git -C "$PGBL_REPO" rev-parse --verify "$base^{commit}") ||
	pgbl_die "no such revision: $base"
head_sha=$(git -C "$PGBL_REPO" rev-parse HEAD)
if [ -n "$(git -C "$PGBL_REPO" status --porcelain --untracked-files=no)" ]; then
	head_sha="$head_sha (with uncommitted changes)"
fi

bindir=$(pgbl_bindir "$major")
tree="$PGBL_DEPS_DIR/pg$major"
case "$bindir" in "$tree"/*) ;; *) pgbl_die "$bindir is not under $tree" ;; esac
pgbl_say "building this checkout for PostgreSQL $major into $tree"
pgbl_build "$bindir"

# The base: the same PostgreSQL, copied (the private trees are relocatable),
# with the base revision's extension installed over the copy's.
copy="$PGBL_DEPS_DIR/bench-base-pg$major"
base_bindir="$copy${bindir#"$tree"}"
src=$(mktemp -d /tmp/pgbl-fastpath-src.XXXXXX)
trap 'rm -rf "$src"' EXIT
pgbl_say "copying $tree to $copy for the base ${base_sha:0:12}"
rm -rf "$copy"
cp -a "$tree" "$copy"
git -C "$PGBL_REPO" archive "$base_sha" | tar -x -C "$src"
pgbl_say "building the base ${base_sha:0:12} into $copy"
make -C "$src" -s -j2 PG_CONFIG="$base_bindir/pg_config" >"$src/build.log" 2>&1 ||
	{ cat "$src/build.log" >&2; pgbl_die "the base does not build"; }
make -C "$src" -s install PG_CONFIG="$base_bindir/pg_config" >/dev/null

PGBL_BINDIR="$bindir" PGBL_BASE_BINDIR="$base_bindir" \
	PGBL_BENCH_HEAD="$head_sha" PGBL_BENCH_BASE="$base_sha ($base)" \
	"$PGBL_PY" "$PGBL_REPO/test/bench/fastpath.py" "${args[@]}"
