
-- ---------------------------------------------------------------------------
-- samples: per-transaction samples of runs with a sample_rate (pgbench
-- --log --sampling-rate), written by the coordinator from the clients'
-- rings (src/samples.c); read as run_progress is.
-- ---------------------------------------------------------------------------

CREATE TABLE pgbench_lab.run_samples (
    run_id bigint NOT NULL REFERENCES pgbench_lab.runs ON DELETE CASCADE,
    client integer NOT NULL,
    sample bigint NOT NULL,
    t_ms double precision NOT NULL,
    latency_ms double precision,
    lag_ms double precision,
    script integer,
    retries integer NOT NULL,
    failed boolean NOT NULL,
    PRIMARY KEY (run_id, client, sample)
);
COMMENT ON TABLE pgbench_lab.run_samples IS
    'Sampled transactions of runs with a sample_rate (pgbench --log --sampling-rate): start (scheduled, with a rate) in ms after the run''s start, latency, lag, script, retries, failed';
SELECT pg_catalog.pg_extension_config_dump('pgbench_lab.run_samples', '');
ALTER TABLE pgbench_lab.run_samples ENABLE ROW LEVEL SECURITY;
CREATE POLICY run_samples_read ON pgbench_lab.run_samples FOR SELECT
    USING (EXISTS (SELECT FROM pgbench_lab.runs r
                   WHERE r.run_id OPERATOR(pg_catalog.=) run_samples.run_id));
GRANT SELECT ON pgbench_lab.run_samples TO PUBLIC;
