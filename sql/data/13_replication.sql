-- ---------------------------------------------------------------------------
-- replication: for a run on a primary with standbys, each standby's lag
-- second by second (pg_stat_replication, read by the run's coordinator
-- when it writes the second's telemetry).  Read as run_progress is.
-- ---------------------------------------------------------------------------

CREATE TABLE pgbench_lab.run_replication (
    run_id bigint NOT NULL REFERENCES pgbench_lab.runs ON DELETE CASCADE,
    second integer NOT NULL,
    standby text NOT NULL,
    client_addr text,
    state text,
    sync_state text,
    sent_lag_bytes numeric,
    write_lag_bytes numeric,
    flush_lag_bytes numeric,
    replay_lag_bytes numeric,
    write_lag_ms double precision,
    flush_lag_ms double precision,
    replay_lag_ms double precision,
    lag_samples integer,
    sent_lag_bytes_max numeric,
    write_lag_bytes_max numeric,
    flush_lag_bytes_max numeric,
    replay_lag_bytes_max numeric,
    PRIMARY KEY (run_id, second, standby)
);
COMMENT ON TABLE pgbench_lab.run_replication IS
    'Per second of each run on a primary: every standby''s lag behind it, in bytes of WAL and in time (pg_stat_replication)';
COMMENT ON COLUMN pgbench_lab.run_replication.standby IS
    'The standby''s application_name and its WAL sender''s process id, as "name (pid)": unique among the second''s standbys';
COMMENT ON COLUMN pgbench_lab.run_replication.sent_lag_bytes IS
    'WAL written on the primary but not yet sent to the standby, in bytes';
COMMENT ON COLUMN pgbench_lab.run_replication.replay_lag_bytes IS
    'WAL written on the primary but not yet replayed by the standby, in bytes, at the second''s end: what a read there does not see yet (replay_lag_bytes_max: the largest of the second''s samples)';
COMMENT ON COLUMN pgbench_lab.run_replication.replay_lag_ms IS
    'pg_stat_replication.replay_lag: the time between a commit on the primary and its replay on the standby, as the primary last measured it (NULL when the standby has caught up and is idle)';

COMMENT ON COLUMN pgbench_lab.run_replication.lag_samples IS
    'How many times the standby''s lag was sampled in the second (every 50 ms, and at the second''s end); NULL: a run from before 0.3, sampled once a second';
COMMENT ON COLUMN pgbench_lab.run_replication.replay_lag_bytes_max IS
    'The largest replay lag of the second''s samples, in bytes (so sent, write and flush): the lag is sampled, never exact, and may have peaked higher between two samples';

SELECT pg_catalog.pg_extension_config_dump('pgbench_lab.run_replication', '');
ALTER TABLE pgbench_lab.run_replication ENABLE ROW LEVEL SECURITY;
CREATE POLICY run_replication_read ON pgbench_lab.run_replication FOR SELECT
    USING (EXISTS (SELECT FROM pgbench_lab.runs r
                   WHERE r.run_id OPERATOR(pg_catalog.=) run_replication.run_id));
GRANT SELECT ON pgbench_lab.run_replication TO PUBLIC;
