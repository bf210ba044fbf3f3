-- ---------------------------------------------------------------------------
-- targets: a libpq run's figures per server its clients went to (its
-- target, or each element of targets =>), measured over the run's
-- interval; the server's facts as read there before the run started, and
-- for a standby the recovery conflicts there over the run.
-- Read as run_progress is.
-- ---------------------------------------------------------------------------

CREATE TABLE pgbench_lab.run_targets (
    run_id bigint NOT NULL REFERENCES pgbench_lab.runs ON DELETE CASCADE,
    target integer NOT NULL,
    target_display text NOT NULL,
    server_version text,
    in_recovery boolean,
    settings jsonb,
    clients integer NOT NULL,
    first_client integer,
    clients_failed integer,
    transactions bigint,
    failures bigint,
    tps double precision,
    latency_avg_ms double precision,
    error text,
    scripts text[],
    system jsonb,
    system_note text,
    conflicts bigint,
    conflicts_by_kind jsonb,
    conflicts_error text,
    wal_bytes numeric,
    checkpoints bigint,
    figures_note text,
    PRIMARY KEY (run_id, target)
);
COMMENT ON TABLE pgbench_lab.run_targets IS
    'Per server of each libpq run (its target, or each of its targets): the server''s facts read there, and its clients'' figures over the run''s measured interval';
COMMENT ON COLUMN pgbench_lab.run_targets.target IS
    'The position in targets => (1 for a run with one target); client i (from 1) went to target (i - 1) % n + 1';
COMMENT ON COLUMN pgbench_lab.run_targets.target_display IS
    'The conninfo as given, without passwords';
COMMENT ON COLUMN pgbench_lab.run_targets.first_client IS
    'A run with target_clients: the first of this target''s block of clients (clients first_client to first_client + clients - 1, from 1); NULL when they were spread round-robin';
COMMENT ON COLUMN pgbench_lab.run_targets.in_recovery IS
    'pg_is_in_recovery() on the target when the run started: a standby, which only reading workloads may run on';
COMMENT ON COLUMN pgbench_lab.run_targets.clients_failed IS
    'Clients of this target that ended failed (a connection lost, an error that is not retried, no answer within 3 s of the run''s end to a command under way); error says why for the first';
COMMENT ON COLUMN pgbench_lab.run_targets.scripts IS
    'A split run (scripts that read and scripts that write, standbys among the targets): the scripts this target''s clients drew from, those that read on a standby, those that write on a primary; NULL otherwise';
COMMENT ON COLUMN pgbench_lab.run_targets.tps IS
    'Transactions committed on this target per second of the run''s measured interval (the same interval for every target)';
COMMENT ON COLUMN pgbench_lab.run_targets.system IS
    'The target''s pgbench_lab.system_info() (name: value) read there before the run started; NULL where it was not read (system_note says why)';
COMMENT ON COLUMN pgbench_lab.run_targets.system_note IS
    'Why system is NULL: pgbench_lab is not installed there, its system_info() is not proven to be the extension''s (nothing of a target is called unless it is), or the run''s role may not execute it';
COMMENT ON COLUMN pgbench_lab.run_targets.conflicts IS
    'A standby''s recovery conflicts during the run: the increase of its cumulative pg_stat_database_conflicts counters for the target''s database from the start to the end (every session''s there, not only the run''s clients''); NULL for a primary, or when the standby could not be read at the end';
COMMENT ON COLUMN pgbench_lab.run_targets.conflicts_error IS
    'Why a standby''s conflicts are NULL: its read at the end of the run failed (no connection within 3 s, no answer within 5 s, the run cancelled during it), with the reason';
COMMENT ON COLUMN pgbench_lab.run_targets.conflicts_by_kind IS
    'conflicts by kind: tablespace, lock, snapshot, bufferpin, deadlock and, from PostgreSQL 16, active_logicalslot (the confl_ columns of pg_stat_database_conflicts)';

COMMENT ON COLUMN pgbench_lab.run_targets.wal_bytes IS
    'A run whose server is not this one: WAL this primary wrote over the run, its pg_current_wal_lsn() read there at the start and at the end (every session''s, not only the run''s clients''); NULL for a standby, or when not read (figures_note)';
COMMENT ON COLUMN pgbench_lab.run_targets.checkpoints IS
    'Checkpoints this primary completed over the run, read there: pg_stat_checkpointer.num_done from PostgreSQL 18; before, 0 when its pg_control_checkpoint() did not change, else NULL (figures_note)';
COMMENT ON COLUMN pgbench_lab.run_targets.figures_note IS
    'Why wal_bytes or checkpoints are NULL: a standby, not read there (the error), or checkpoints that a server before 18 does not count by completion';

SELECT pg_catalog.pg_extension_config_dump('pgbench_lab.run_targets', '');
ALTER TABLE pgbench_lab.run_targets ENABLE ROW LEVEL SECURITY;
CREATE POLICY run_targets_read ON pgbench_lab.run_targets FOR SELECT
    USING (EXISTS (SELECT FROM pgbench_lab.runs r
                   WHERE r.run_id OPERATOR(pg_catalog.=) run_targets.run_id));
GRANT SELECT ON pgbench_lab.run_targets TO PUBLIC;
