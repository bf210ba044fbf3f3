
-- ---------------------------------------------------------------------------
-- settings_saved: postgresql.auto.conf as it was before an experiment
-- changed reload-level settings with ALTER SYSTEM, committed before the
-- first change (src/settings_apply.c).  The experiment puts the file back
-- at its end, on an error or a cancel, and when its session is terminated;
-- after a crash or an immediate shutdown, the next call of any experiment
-- or pgbench_lab.restore_settings() does, and sets restored_at.  Not
-- granted to anyone and not dumped: the file may hold passwords, and a
-- record means something only on the server it was taken on.
-- ---------------------------------------------------------------------------
CREATE TABLE pgbench_lab_internal.settings_saved (
    experiment_id bigint PRIMARY KEY,
    names text[] NOT NULL,
    entries jsonb NOT NULL,
    auto_conf bytea,
    saved_at timestamptz NOT NULL DEFAULT pg_catalog.now(),
    backend_pid integer NOT NULL,
    backend_start timestamptz NOT NULL,
    restored_at timestamptz,
    outcome text
);
COMMENT ON TABLE pgbench_lab_internal.settings_saved IS
    'postgresql.auto.conf (byte for byte; NULL: there was none) and its entries for the settings an experiment changes with ALTER SYSTEM, recorded before the first change';
REVOKE ALL ON pgbench_lab_internal.settings_saved FROM PUBLIC;
