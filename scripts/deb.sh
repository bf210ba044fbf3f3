#!/usr/bin/env bash
# The Debian package, proved end to end against Debian's own PostgreSQL 15
# (/usr/lib/postgresql/15, not the private copies in .deps/):
#   1. and 2. runs the README's package commands as it prints them (its
#      ```sh block with dpkg-buildpackage: apt-get install of the build
#      dependencies, dpkg-buildpackage with pg_buildext (debian/), dpkg -i),
#      in an unpacked copy of the PGXN archive with debian/ added;
#   3. makes a stock cluster of that server (initdb's defaults; only its port
#      and socket folder are set) and runs `make installcheck` against it;
#   4. removes the package with dpkg -r and checks that its files are gone.
# Installs the server (postgresql-15) if it lacks it; the README's commands
# install the build dependencies.
# Run by scripts/test.sh; exits non-zero on any failure.
#
#   scripts/deb.sh [DIST_DIR]   DIST_DIR: where scripts/dist.sh unpacked the
#                               archive (else it runs it itself)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$PGBL_REPO"
PGBL_PY=${PGBL_PY:-python3}
[ "$(id -u)" = 0 ] || pgbl_die "scripts/deb.sh installs a package: run it as root"

# The existing server the README's commands install into, and what this
# script itself uses (dpkg-parsechangelog); nothing the build needs.
PGBL_APT_PACKAGES="dpkg-dev postgresql-15" pgbl_apt
bindir=/usr/lib/postgresql/15/bin
pkg=postgresql-15-pgbench-lab
t0=$(date +%s)

tmp=$(mktemp -d /tmp/pgbl-deb.XXXXXX)
chmod 755 "$tmp"
cleanup() {
	if [ -f "$tmp/data/postmaster.pid" ]; then
		runuser -u postgres -- "$bindir/pg_ctl" -D "$tmp/data" -m immediate -w stop >/dev/null 2>&1 || true
	fi
	if dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'ok installed'; then
		dpkg -r "$pkg" >/dev/null 2>&1 || true
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

# 1. Build, from an unpacked copy of the PGXN archive (scripts/dist.sh;
# make dist archives HEAD) with debian/ added, as Debian builds from an
# upstream archive: the proof that the archive builds and installs.
version=$(dpkg-parsechangelog -S Version)
meta_version=$(sed -nE 's/^   "version": "([^"]+)",?$/\1/p' META.json)
[ "${version%-*}" = "$meta_version" ] ||
	pgbl_die "debian/changelog's version $version does not follow META.json's $meta_version"
dist=${1:-}
if [ -z "$dist" ]; then
	dist="$tmp/dist"
	bash scripts/dist.sh "$dist" >/dev/null
fi
src="$tmp/pgbench-lab-$meta_version"
cp -a "$dist/pgbench_lab-$meta_version" "$src" ||
	pgbl_die "no unpacked pgbench_lab-$meta_version in $dist (scripts/dist.sh makes it)"
cp -a debian "$src/"
# The README's ```sh block that builds the package, line for line as a DBA
# types them: nothing added here (no environment, no option), so that what
# the README prints is what is proved.
readme_sh=$(awk '/^```sh$/ { inb = 1; b = ""; next }
	inb && /^```$/ { inb = 0; if (b ~ /dpkg-buildpackage/) printf "%s", b; next }
	inb { b = b $0 "\n" }' "$src/README.md")
[ -n "$readme_sh" ] || pgbl_die "README.md has no \`\`\`sh block with dpkg-buildpackage"
pgbl_say "building and installing $pkg $version: the README's commands, in $src"
printf '%s\n' "$readme_sh" | sed 's/^/    /' >&2
if ! (cd "$src" && bash -euo pipefail -c "$readme_sh" </dev/null >"$tmp/build.log" 2>&1); then
	tail -60 "$tmp/build.log"
	pgbl_die "the README's package commands failed"
fi
deb=$(ls "$tmp"/${pkg}_"$version"_*.deb)
[ -f "$deb" ] || pgbl_die "no $pkg .deb was built"
if grep -qE -- "-Werror( |$)" "$tmp/build.log"; then pgbl_die "the package build uses -Werror"; fi
dpkg-query -W -f='${Status} ${Version}' "$pkg" 2>/dev/null | grep -qx "install ok installed $version" ||
	pgbl_die "the README's commands did not install $pkg $version"
t1=$(date +%s)

# 2. What the package installed into Debian's PostgreSQL 15.
mapfile -t files < <(dpkg -L "$pkg" | while read -r f; do [ -f "$f" ] && echo "$f"; done)
for f in "$bindir/../lib/pgbench_lab.so" /usr/share/postgresql/15/extension/pgbench_lab.control; do
	[ -f "$f" ] || pgbl_die "the package did not install $f"
done

# 3. A stock cluster of that server, and the pg_regress suite against it.
port=$(pgbl_free_port)
chown postgres: "$tmp"
runuser -u postgres -- "$bindir/initdb" -D "$tmp/data" -U postgres --auth=trust -E UTF8 \
	--locale=C --no-sync >"$tmp/initdb.log" 2>&1 || { cat "$tmp/initdb.log"; exit 1; }
runuser -u postgres -- "$bindir/pg_ctl" -D "$tmp/data" -l "$tmp/server.log" -w -t 60 \
	-o "-p $port -c listen_addresses=127.0.0.1 -c unix_socket_directories=$tmp" start >/dev/null ||
	{ cat "$tmp/server.log"; exit 1; }
pgbl_say "make installcheck against the package, on a stock PostgreSQL 15 cluster (port $port)"
rc=0
PGHOST=127.0.0.1 PGPORT=$port PGUSER=postgres \
	make -C "$src" -s installcheck PG_CONFIG="$bindir/pg_config" >"$tmp/regress.log" 2>&1 || rc=$?
grep -E '^(ok|not ok) |\.\.\. |tests passed|failed' "$tmp/regress.log" | tail -40
if [ "$rc" != 0 ]; then
	[ -f "$src/regression.diffs" ] && head -150 "$src/regression.diffs"
	pgbl_die "installcheck failed against the installed package"
fi
runuser -u postgres -- "$bindir/pg_ctl" -D "$tmp/data" -m fast -w stop >/dev/null
t2=$(date +%s)

# 4. Remove it: every file it installed is gone.
dpkg -r "$pkg" >"$tmp/dpkg.log" 2>&1 || { cat "$tmp/dpkg.log"; exit 1; }
left=0
for f in "${files[@]}"; do
	if [ -e "$f" ]; then echo "left behind by dpkg -r: $f"; left=1; fi
done
[ "$left" = 0 ] || pgbl_die "dpkg -r left files behind"
echo "$pkg $version: the README's commands built and installed it in $((t1 - t0)) s; installed ${#files[@]} files; installcheck passed on a stock cluster in $((t2 - t1)) s; removed, no file left"
