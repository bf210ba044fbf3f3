
-- ---------------------------------------------------------------------------
-- results: what runs measured.  Written only by the extension (a run's
-- coordinator worker logs in as the extension's owner); each role reads its
-- own runs, pg_monitor reads all; pg_dump keeps the rows.
-- ---------------------------------------------------------------------------

CREATE TABLE pgbench_lab.runs (
    run_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    label text,
    workload text NOT NULL,
    via text NOT NULL DEFAULT 'spi',
    clients integer NOT NULL,
    scale integer,
    duration interval,
    transactions_per_client bigint,
    max_tries integer NOT NULL,
    random_seed bigint,
    started_at timestamptz NOT NULL DEFAULT pg_catalog.now(),
    finished_at timestamptz,
    status text NOT NULL DEFAULT 'running'
        CHECK (status OPERATOR(pg_catalog.=) ANY (ARRAY['running', 'done', 'cancelled', 'failed', 'aborted'])),
    measured_seconds double precision,
    transactions bigint,
    failures bigint,
    retries bigint,
    tps double precision,
    latency_avg_ms double precision,
    latency_stddev_ms double precision,
    latency_p50_ms double precision,
    latency_p90_ms double precision,
    latency_p95_ms double precision,
    latency_p99_ms double precision,
    latency_max_ms double precision,
    blks_hit bigint,
    blks_read bigint,
    hit_ratio double precision,
    wal_bytes numeric,
    checkpoints bigint,
    settings jsonb NOT NULL DEFAULT '{}',
    system jsonb,
    cache_before bigint,
    cache_after bigint,
    owner regrole NOT NULL,
    error text,
    coordinator_pid integer,
    dsm_handle bigint,
    target_display text,
    connections bigint,
    connection_avg_ms double precision,
    tps_without_connections double precision,
    source_server text,
    source_run_id bigint,
    imported_at timestamptz,
    rate double precision,
    latency_limit interval,
    lag_avg_ms double precision,
    lag_max_ms double precision,
    late bigint,
    skipped bigint,
    scheduled bigint,
    rate_sustained boolean,
    variables jsonb,
    sample_rate double precision,
    samples bigint,
    samples_dropped bigint,
    query_mode text CHECK (query_mode OPERATOR(pg_catalog.=) ANY (ARRAY['simple', 'extended', 'prepared'])),
    options jsonb CHECK (pg_catalog.jsonb_typeof(options) OPERATOR(pg_catalog.=) 'object'),
    figures_note text,
    serialization_failures bigint,
    deadlock_failures bigint,
    CONSTRAINT runs_via_check
        CHECK (via OPERATOR(pg_catalog.=) ANY (ARRAY['spi', 'libpq', 'libpq-connect']))
);
COMMENT ON TABLE pgbench_lab.runs IS
    'One row per run: parameters, status and headline figures (in-server: no network round trips)';
COMMENT ON COLUMN pgbench_lab.runs.via IS
    'How clients sent the workload: spi (in-server), libpq (one connection per client), libpq-connect (one per transaction)';
COMMENT ON COLUMN pgbench_lab.runs.target_display IS
    'The server a libpq run connected to, as a conninfo without its password';
COMMENT ON COLUMN pgbench_lab.runs.connections IS
    'Connections the clients made: the initial ones and those made during the run';
COMMENT ON COLUMN pgbench_lab.runs.connection_avg_ms IS
    'Average time to connect (and authenticate), over all connections';
COMMENT ON COLUMN pgbench_lab.runs.tps_without_connections IS
    'Committed transactions per second of the time not spent connecting (tps counts all of it)';
COMMENT ON COLUMN pgbench_lab.runs.source_server IS
    'Server an imported run was measured on (NULL: measured here)';
COMMENT ON COLUMN pgbench_lab.runs.source_run_id IS
    'The run''s id on the server it was measured on (NULL: measured here)';
COMMENT ON COLUMN pgbench_lab.runs.rate IS
    'Transactions per second asked of the whole run, shared by its clients, each on a Poisson schedule (pgbench -R); NULL: as fast as possible';
COMMENT ON COLUMN pgbench_lab.runs.latency_limit IS
    'Latency over which a committed transaction counts as late; with a rate, slots already later than it are skipped (pgbench -L)';
COMMENT ON COLUMN pgbench_lab.runs.lag_avg_ms IS
    'With a rate: average schedule lag of committed transactions (start minus scheduled start); latencies count from the scheduled start';
COMMENT ON COLUMN pgbench_lab.runs.lag_max_ms IS
    'With a rate: largest schedule lag of a committed transaction';
COMMENT ON COLUMN pgbench_lab.runs.late IS
    'With a latency limit: committed transactions whose latency was over it';
COMMENT ON COLUMN pgbench_lab.runs.skipped IS
    'With a rate and a latency limit: scheduled transactions skipped because they were already later than the limit';
COMMENT ON COLUMN pgbench_lab.runs.scheduled IS
    'With a rate: the slots its schedule set before the clients stopped (run, failed, skipped or still due at the end)';
COMMENT ON COLUMN pgbench_lab.runs.rate_sustained IS
    'With a rate: whether the clients ran (committed or failed) at least 98 % of the scheduled transactions';
COMMENT ON COLUMN pgbench_lab.runs.variables IS
    'A run of scripts: the variables given (pgbench -D); its scripts are in run_scripts';
COMMENT ON COLUMN pgbench_lab.runs.sample_rate IS
    'Share of transactions kept in run_samples (pgbench --sampling-rate); NULL: none';
COMMENT ON COLUMN pgbench_lab.runs.samples IS
    'Samples kept in run_samples';
COMMENT ON COLUMN pgbench_lab.runs.samples_dropped IS
    'Samples drawn but not kept: past pgbench_lab.max_samples, or while a client drew them faster than they could be written';
COMMENT ON COLUMN pgbench_lab.runs.query_mode IS
    'How the statements were sent: simple, extended or prepared (pgbench -M); NULL: a run from before 0.3, prepared';
COMMENT ON COLUMN pgbench_lab.runs.options IS
    'The run options it was called with (NULL ones left out), by name as pgbench_lab.run_options() lists them, without conninfos or script text; NULL: a run from before 0.3';
COMMENT ON COLUMN pgbench_lab.runs.wal_bytes IS
    'WAL the run''s server wrote over the run (its pg_current_wal_lsn() at the end minus at the start): this server''s for an in-server run or one to this server; for a libpq run to other servers, read on each primary target and summed over them (figures_note says where), NULL when one could not be read';
COMMENT ON COLUMN pgbench_lab.runs.checkpoints IS
    'Checkpoints the run''s server completed over the run, read as wal_bytes is: from PostgreSQL 18 pg_stat_checkpointer.num_done; before, changes of the control file''s last checkpoint seen by the run''s coordinator every 50 ms (two completing within 50 ms count as one); on another server before 18, 0 when its last checkpoint did not change, else NULL (figures_note says why)';
COMMENT ON COLUMN pgbench_lab.runs.figures_note IS
    'A libpq run to other servers: where wal_bytes and checkpoints were read (which targets) or why they are NULL (not measured there); its run_telemetry has no server, machine or disk figures (NULL): they would be this server''s.  NULL: measured on this server, the run''s';

COMMENT ON COLUMN pgbench_lab.runs.serialization_failures IS
    'Transactions that failed for good on a serialization failure (SQLSTATE 40001), after their tries (pgbench --failures-detailed); NULL: a run from before 0.3';
COMMENT ON COLUMN pgbench_lab.runs.deadlock_failures IS
    'Transactions that failed for good on a deadlock (SQLSTATE 40P01), after their tries; failures minus both: other errors, each of which ended its client; NULL: a run from before 0.3';

CREATE TABLE pgbench_lab.run_progress (
    run_id bigint NOT NULL REFERENCES pgbench_lab.runs ON DELETE CASCADE,
    second integer NOT NULL,
    interval_seconds double precision NOT NULL,
    transactions bigint NOT NULL,
    tps double precision NOT NULL,
    latency_avg_ms double precision,
    latency_max_ms double precision,
    failures bigint NOT NULL,
    hit_ratio double precision,
    lag_avg_ms double precision,
    lag_max_ms double precision,
    late bigint,
    skipped bigint,
    PRIMARY KEY (run_id, second)
);
COMMENT ON TABLE pgbench_lab.run_progress IS
    'Per-second progress of each run; transactions sum to the run''s total';
COMMENT ON COLUMN pgbench_lab.run_progress.lag_avg_ms IS
    'With a rate: average schedule lag of the second''s committed transactions';
COMMENT ON COLUMN pgbench_lab.run_progress.lag_max_ms IS
    'With a rate: largest schedule lag of the second''s committed transactions';
COMMENT ON COLUMN pgbench_lab.run_progress.late IS
    'With a latency limit: the second''s committed transactions over it';
COMMENT ON COLUMN pgbench_lab.run_progress.skipped IS
    'With a rate and a latency limit: the second''s skipped transactions';

CREATE TABLE pgbench_lab.run_latency (
    run_id bigint NOT NULL REFERENCES pgbench_lab.runs ON DELETE CASCADE,
    bucket_upper_us double precision NOT NULL,
    count bigint NOT NULL,
    PRIMARY KEY (run_id, bucket_upper_us)
);
COMMENT ON TABLE pgbench_lab.run_latency IS
    'Latency histogram of each run: buckets 1/128 of a power of two wide (percentiles within 1%)';

SELECT pg_catalog.pg_extension_config_dump('pgbench_lab.runs', '');
SELECT pg_catalog.pg_extension_config_dump('pgbench_lab.run_progress', '');
SELECT pg_catalog.pg_extension_config_dump('pgbench_lab.run_latency', '');
SELECT pg_catalog.pg_extension_config_dump('pgbench_lab.runs_run_id_seq', '');

-- Each role sees its own runs; members of pg_monitor see all.
ALTER TABLE pgbench_lab.runs ENABLE ROW LEVEL SECURITY;
ALTER TABLE pgbench_lab.run_progress ENABLE ROW LEVEL SECURITY;
ALTER TABLE pgbench_lab.run_latency ENABLE ROW LEVEL SECURITY;

CREATE FUNCTION pgbench_lab_internal.may_read_run(owner regrole) RETURNS boolean
    LANGUAGE sql STABLE PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT pg_catalog.pg_has_role(owner::pg_catalog.oid, 'USAGE')
              OR pg_catalog.pg_has_role('pg_monitor', 'USAGE') $$;

CREATE POLICY runs_read ON pgbench_lab.runs FOR SELECT
    USING (pgbench_lab_internal.may_read_run(owner));
CREATE POLICY run_progress_read ON pgbench_lab.run_progress FOR SELECT
    USING (EXISTS (SELECT FROM pgbench_lab.runs r
                   WHERE r.run_id OPERATOR(pg_catalog.=) run_progress.run_id));
CREATE POLICY run_latency_read ON pgbench_lab.run_latency FOR SELECT
    USING (EXISTS (SELECT FROM pgbench_lab.runs r
                   WHERE r.run_id OPERATOR(pg_catalog.=) run_latency.run_id));

GRANT SELECT ON pgbench_lab.runs, pgbench_lab.run_progress, pgbench_lab.run_latency TO PUBLIC;

