#!/usr/bin/env bash
# The source archive PGXN takes: checks META.json (scripts/check_meta.py),
# makes pgbench_lab-VERSION.zip with `make dist` (git archive of HEAD), and
# builds and installs the extension from an unpacked copy of it, as a user of
# `pgxn install` would, into a throwaway DESTDIR (nothing of the server's
# own folders is touched).  Run by scripts/test.sh; exits non-zero on any
# failure.
#
#   scripts/dist.sh PG_CONFIG
set -euo pipefail
. "$(dirname "$0")/lib.sh"
pgc=${1:?usage: scripts/dist.sh PG_CONFIG}
cd "$PGBL_REPO"

"${PGBL_PY:-python3}" scripts/check_meta.py

tmp=$(mktemp -d /tmp/pgbl-dist.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
version=$(sed -nE 's/^   "version": "([^"]+)",?$/\1/p' META.json)
dv=$(sed -nE "s/^default_version = '([^']+)'.*/\\1/p" pgbench_lab.control)
name=pgbench_lab-$version
make -s dist PG_CONFIG="$pgc"
mv "$name.zip" "$tmp/"
(cd "$tmp" && unzip -q "$name.zip")
src="$tmp/$name"

# What an install and `make installcheck` need is there; the project's own
# tools are not.
for f in Makefile pgbench_lab.control META.json README.md LICENSE \
	sql/pgbench_lab--0.1.sql test/sql/api.sql test/expected/api.out; do
	[ -f "$src/$f" ] || pgbl_die "$name.zip lacks $f"
done
for f in scripts test/t .ci debian; do
	[ ! -e "$src/$f" ] || pgbl_die "$name.zip carries $f, which an install does not need"
done
[ ! -e "$src/sql/pgbench_lab--$dv.sql" ] || pgbl_die "$name.zip carries the built install script"

# Built as a packager builds it: no -Werror, no flags from the project's scripts.
make -s -C "$src" -j2 PG_CONFIG="$pgc" >"$tmp/build.log" 2>&1 ||
	{ cat "$tmp/build.log"; pgbl_die "$name.zip does not build"; }
make -s -C "$src" install PG_CONFIG="$pgc" DESTDIR="$tmp/root" >/dev/null
libdir=$("$pgc" --pkglibdir)
sharedir=$("$pgc" --sharedir)
for f in "$libdir/pgbench_lab.so" "$sharedir/extension/pgbench_lab.control" \
	"$sharedir/extension/pgbench_lab--$dv.sql" \
	"$sharedir/extension/pgbench_lab--0.1.sql"; do
	[ -f "$tmp/root$f" ] || pgbl_die "the install from $name.zip lacks $f"
done
echo "$name.zip: $(unzip -Z1 "$tmp/$name.zip" | grep -vc '/$') files; built and installed from the unpacked copy"
