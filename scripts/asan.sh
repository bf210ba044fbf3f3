#!/usr/bin/env bash
# Runs pgbench_lab's pg_regress and real-server (pytest) suites with the
# extension built under AddressSanitizer, on one PostgreSQL major.
#
#   scripts/asan.sh            PostgreSQL 18
#   scripts/asan.sh 18 -k runner
#                              extra arguments go to pytest
#   make asan                  the same as scripts/asan.sh
#
# The servers are not built with ASan, so an instrumented pgbench_lab.so
# needs the ASan runtime loaded first: every server (and client) process
# gets LD_PRELOAD=$(gcc -print-file-name=libasan.so).  ASAN_OPTIONS turns
# leak checks off (a server frees at exit what it pleases) and writes each
# report to a file under the work folder; any report fails the run.  The
# instrumented build goes into a private copy of the server (.deps/asanNN),
# so the ordinary build and scripts/test.sh are untouched.
#
# ASan sees the extension's own heap (malloc), stack and global accesses;
# memory from palloc is one big malloc'd block to it, so overruns inside a
# memory context are not seen (that would need a server built with
# USE_VALGRIND under valgrind, 20-30 times slower).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
pgbl_setup
cd "$PGBL_REPO"

v=${1:-18}
[ $# -gt 0 ] && shift
src=$(pgbl_bindir "$v")
case "$v" in	# the whole private install: it finds its libraries relatively
	15) root=$(cd "$src/../../../../.." && pwd) ;;
	*) root=$(cd "$src/../../.." && pwd) ;;
esac
copy="$PGBL_DEPS_DIR/asan$v"
if [ ! -f "$copy/.done" ]; then
	pgbl_say "copying PostgreSQL $v into $copy"
	rm -rf "$copy"
	cp -a "$root" "$copy"
	touch "$copy/.done"
fi
bindir="$copy${src#"$root"}"

libasan=$(gcc -print-file-name=libasan.so)
[ -e "$libasan" ] || pgbl_die "no libasan.so for gcc (install libasan8)"

# Debian's PostgreSQL 15 hangs in a futex at start when the ASan runtime is
# preloaded (before any extension code is loaded); say so instead of waiting.
if ! LD_PRELOAD="$libasan" ASAN_OPTIONS=detect_leaks=0 timeout 20 "$bindir/postgres" -V >/dev/null 2>&1; then
	pgbl_die "PostgreSQL $v's server does not start with the ASan runtime preloaded (Debian's 15 hangs); use 18"
fi

work=$(mktemp -d /tmp/pgbl-asan.XXXXXX)
chmod 777 "$work"
trap 'rm -rf "$work"' EXIT
t0=$(date +%s)

pgbl_say "PostgreSQL $v: ASan build into $copy"
# In a copy of the checkout, so that scripts/test.sh's other builds can run
# beside this one.
pgbl_tree_copy "$work/tree"
pgbl_build "$bindir" "$work/tree" COPT="-fsanitize=address -fno-omit-frame-pointer -g" ||
	pgbl_die "ASan build failed"

export LD_PRELOAD="$libasan"
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=0:log_path=$work/asan:halt_on_error=1"

fail=0
port=$(pgbl_free_port)
pgbl_say "PostgreSQL $v: pg_regress under ASan"
if pgbl_cluster_start "$bindir" "$work/pg" "$port"; then
	PGHOST=127.0.0.1 PGPORT=$port PGUSER=postgres PGDATABASE=postgres \
		make -C "$work/tree" -s installcheck PG_CONFIG="$bindir/pg_config" >"$work/regress.log" 2>&1 || fail=1
	grep -E '^(ok|not ok)|\.\.\. (ok|FAILED)|tests passed|failed' "$work/regress.log"
	pgbl_cluster_stop "$bindir" "$work/pg"
else
	fail=1
fi

pgbl_say "PostgreSQL $v: real-server tests under ASan"
PGBL_BINDIR="$bindir" PGBL_PG_MAJOR="$v" \
	"$PGBL_PY" -m pytest -q -p no:cacheprovider $(pgbl_pytest_workers) --durations=15 \
	${PGBL_JUNIT:+--junitxml="$PGBL_JUNIT"} test/t "$@" || fail=1

reports=$(ls "$work"/asan.* 2>/dev/null | wc -l)
if [ "$reports" -gt 0 ]; then
	pgbl_say "AddressSanitizer reports: $reports"
	head -60 "$work"/asan.*
	fail=1
fi
printf '== ASan, PostgreSQL %s: %s report(s), suites %s, %d s\n' "$v" "$reports" \
	"$([ $fail = 0 ] && echo passed || echo FAILED)" $(($(date +%s) - t0))
exit $fail
