
-- ---------------------------------------------------------------------------
-- telemetry: where a run's time went, second by second, beside its
-- progress.  Written by the run's coordinator only; read as run_progress is.
-- ---------------------------------------------------------------------------

CREATE TABLE pgbench_lab.run_telemetry (
    run_id bigint NOT NULL REFERENCES pgbench_lab.runs ON DELETE CASCADE,
    second integer NOT NULL,
    interval_seconds double precision NOT NULL,
    cpu_user_pct double precision,
    cpu_system_pct double precision,
    cpu_iowait_pct double precision,
    cpu_steal_pct double precision,
    cpu_idle_pct double precision,
    run_cpu_seconds double precision,
    checkpoints bigint,
    buffers_checkpoint bigint,
    buffers_clean bigint,
    buffers_backend bigint,
    wal_records bigint,
    wal_fpi bigint,
    wal_bytes numeric,
    wait_samples integer NOT NULL DEFAULT 0,
    waits jsonb,
    temp_files bigint,
    temp_bytes bigint,
    disk_reads bigint,
    disk_read_bytes bigint,
    disk_writes bigint,
    disk_write_bytes bigint,
    disk_busy_pct double precision,
    PRIMARY KEY (run_id, second)
);
COMMENT ON TABLE pgbench_lab.run_telemetry IS
    'Per-second telemetry of each run: the machine''s CPU, the run''s own CPU time, checkpoints, buffers written, WAL and the clients'' sampled wait events';
COMMENT ON COLUMN pgbench_lab.run_telemetry.cpu_user_pct IS
    'Share of the machine''s CPU time in user mode (with nice) during the second (/proc/stat); the five shares sum to 100';
COMMENT ON COLUMN pgbench_lab.run_telemetry.cpu_system_pct IS
    'Share of the machine''s CPU time in the kernel (with interrupts)';
COMMENT ON COLUMN pgbench_lab.run_telemetry.run_cpu_seconds IS
    'CPU seconds (user and system) used by the run''s own processes, its coordinator and clients (/proc/<pid>/stat)';
COMMENT ON COLUMN pgbench_lab.run_telemetry.checkpoints IS
    'Checkpoints the server completed during the second: pg_stat_checkpointer.num_done from PostgreSQL 18; before, changes of the control file''s last checkpoint sampled every 50 ms.  The server, machine and disk columns are NULL for a run whose server is not this one (runs.figures_note)';
COMMENT ON COLUMN pgbench_lab.run_telemetry.buffers_checkpoint IS
    'Buffers the checkpointer wrote during the second';
COMMENT ON COLUMN pgbench_lab.run_telemetry.buffers_clean IS
    'Buffers the background writer wrote during the second';
COMMENT ON COLUMN pgbench_lab.run_telemetry.buffers_backend IS
    'Buffers other processes (backends, workers) wrote themselves during the second';
COMMENT ON COLUMN pgbench_lab.run_telemetry.wal_bytes IS
    'WAL bytes, records and full-page images the server counted during the second (pg_stat_wal, flushed by each process at most once a second)';
COMMENT ON COLUMN pgbench_lab.run_telemetry.waits IS
    'The clients'' wait events sampled about every 10 ms: counts per "type:event", "CPU" when a client waited on nothing; NULL for runs over libpq';
COMMENT ON COLUMN pgbench_lab.run_telemetry.temp_files IS
    'Temporary files (and their bytes) the run''s database counted during the second (pg_stat_database)';
COMMENT ON COLUMN pgbench_lab.run_telemetry.disk_busy_pct IS
    'Share of the second the data directory''s disk (system_info''s data_device) had I/O in flight, with its reads and writes completed and their bytes (/proc/diskstats); NULL when not found there';

SELECT pg_catalog.pg_extension_config_dump('pgbench_lab.run_telemetry', '');
ALTER TABLE pgbench_lab.run_telemetry ENABLE ROW LEVEL SECURITY;
CREATE POLICY run_telemetry_read ON pgbench_lab.run_telemetry FOR SELECT
    USING (EXISTS (SELECT FROM pgbench_lab.runs r
                   WHERE r.run_id OPERATOR(pg_catalog.=) run_telemetry.run_id));
GRANT SELECT ON pgbench_lab.run_telemetry TO PUBLIC;
