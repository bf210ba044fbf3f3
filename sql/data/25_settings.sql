
-- ---------------------------------------------------------------------------
-- settings_saved: postgresql.auto.conf as it was before an experiment
-- changed reload-level settings with ALTER SYSTEM, committed before the
-- first change (src/settings_apply.c).  The experiment puts the file back
-- at its end, on an error or a cancel, and when its session is terminated;
-- after a crash or an immediate shutdown, the next call of any experiment
-- or pgbench_lab.restore_settings() does, and sets restored_at.  A
-- two-phase experiment of restart-level settings (compare_settings with
-- restart_settings) keeps its record open between its phases: restart
-- holds the values written for phase 2, plan the experiment's plan,
-- written_at when they were written (the restart must come after), and
-- waiting is true until resume() takes it up; no automatic restore touches
-- a waiting record, restore_settings() by hand abandons it.  Not
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
    outcome text,
    restart jsonb,
    plan jsonb,
    written_at timestamptz,
    waiting boolean NOT NULL DEFAULT false
);
COMMENT ON TABLE pgbench_lab_internal.settings_saved IS
    'postgresql.auto.conf (byte for byte; NULL: there was none) and its entries for the settings an experiment changes with ALTER SYSTEM, recorded before the first change';
REVOKE ALL ON pgbench_lab_internal.settings_saved FROM PUBLIC;
