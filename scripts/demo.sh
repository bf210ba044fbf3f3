#!/usr/bin/env bash
# The pgbench_lab demo: installs what is missing, builds and installs the
# extension into a private PostgreSQL (15 by default; PGBL_DEMO_PG=18 for
# 18), starts a throwaway cluster, runs scripts/demo.sql on it and leaves the
# cluster running, printing how to connect to it and how to stop it.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
pgbl_setup
v=${PGBL_DEMO_PG:-15}
bindir=$(pgbl_bindir "$v")
pgbl_say "building pgbench_lab for PostgreSQL $v"
pgbl_build "$bindir"

dir=${PGBL_DEMO_DIR:-/tmp/pgbench_lab-demo}
if [ -f "$dir/data/postmaster.pid" ]; then
	pgbl_cluster_stop "$bindir" "$dir"
fi
rm -rf "$dir"
port=${PGBL_DEMO_PORT:-$(pgbl_free_port)}
pgbl_say "starting a throwaway cluster in $dir on port $port"
pgbl_cluster_start "$bindir" "$dir" "$port" "shared_buffers = 256MB"

"$bindir/psql" -X -h 127.0.0.1 -p "$port" -U postgres -d postgres \
	-v ON_ERROR_STOP=1 -f "$PGBL_REPO/scripts/demo.sql"

cat <<MSG

== the demo cluster is still running. Connect with:
   $bindir/psql -h 127.0.0.1 -p $port -U postgres postgres
== stop and remove it with:
   runuser -u postgres -- $bindir/pg_ctl -D $dir/data stop && rm -rf $dir
MSG
