#!/usr/bin/env bash
# The source archive PGXN takes: checks META.json (scripts/check_meta.py),
# makes pgbench_lab-VERSION.zip with `make dist` (git archive of HEAD, less
# what .gitattributes marks export-ignore), unpacks it into DIR and checks
# that it holds what an install and `make installcheck` need and none of the
# project's own tools.  scripts/deb.sh then builds the Debian package from
# that unpacked copy, as Debian builds from an upstream archive: the proof
# that the archive builds and installs.  Run by scripts/test.sh.
#
#   scripts/dist.sh DIR      leaves DIR/pgbench_lab-VERSION/ and its .zip
set -euo pipefail
. "$(dirname "$0")/lib.sh"
out=${1:?usage: scripts/dist.sh DIR}
cd "$PGBL_REPO"

"${PGBL_PY:-python3}" scripts/check_meta.py

version=$(sed -nE 's/^   "version": "([^"]+)",?$/\1/p' META.json)
dv=$(sed -nE "s/^default_version = '([^']+)'.*/\\1/p" pgbench_lab.control)
name=pgbench_lab-$version
mkdir -p "$out"
rm -rf "${out:?}/$name" "$out/$name.zip"
# The Makefile includes PGXS, so make needs a pg_config even for dist.
make -s dist PG_CONFIG="${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}"
mv "$name.zip" "$out/"
(cd "$out" && unzip -q "$name.zip")
src="$out/$name"

for f in Makefile pgbench_lab.control META.json README.md LICENSE CHANGELOG.md \
	docs/reference.md test/sql/api.sql test/expected/api.out test/fixtures/lab_a.json \
	sql/run_options.awk src/run_options.h sql/tpcc/tpcc-new-order.sql; do
	[ -f "$src/$f" ] || pgbl_die "$name.zip lacks $f"
done
ls "$src"/src/*.c "$src"/sql/pgbench_lab--*.sql >/dev/null 2>&1 || pgbl_die "$name.zip lacks src/ or the released install scripts"
for f in scripts test/t test/pgtap test/bench .ci debian .gitattributes; do
	[ ! -e "$src/$f" ] || pgbl_die "$name.zip carries $f, which an install does not need"
done
# Built files are made by the build, never shipped.
[ ! -e "$src/sql/pgbench_lab--$dv.sql" ] || pgbl_die "$name.zip carries the built install script"
if unzip -Z1 "$out/$name.zip" | grep -qE '\.(o|so|bc)$'; then pgbl_die "$name.zip carries built objects"; fi
echo "$name.zip: $(unzip -Z1 "$out/$name.zip" | grep -vc '/$') files, META.json valid; unpacked in $src"
