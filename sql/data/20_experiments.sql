
-- ---------------------------------------------------------------------------
-- experiments: groups of runs made by one procedure (sweep, compare_settings,
-- cold_vs_warm, connection_cost).  Runs and experiments draw their ids from
-- one sequence, so an id names exactly one of them and report(id) / plot(ids)
-- / export(ids) accept both.
-- ---------------------------------------------------------------------------


CREATE TABLE pgbench_lab.experiments (
    experiment_id bigint PRIMARY KEY
        DEFAULT pg_catalog.nextval('pgbench_lab.runs_run_id_seq'::pg_catalog.regclass),
    kind text NOT NULL
        CHECK (kind OPERATOR(pg_catalog.=) ANY (ARRAY['sweep', 'compare_settings', 'cold_vs_warm', 'connection_cost'])),
    workload text NOT NULL,
    label text,
    params jsonb NOT NULL DEFAULT '{}',
    started_at timestamptz NOT NULL DEFAULT pg_catalog.now(),
    finished_at timestamptz,
    status text NOT NULL DEFAULT 'running'
        CHECK (status OPERATOR(pg_catalog.=) ANY (ARRAY['running', 'done', 'failed', 'aborted'])),
    owner regrole NOT NULL,
    source_server text,
    source_experiment_id bigint,
    imported_at timestamptz,
    backend_pid integer,
    backend_start timestamptz
);
COMMENT ON COLUMN pgbench_lab.experiments.backend_pid IS
    'The session whose procedure runs the experiment (with backend_start): gone or on to another statement, the experiment is aborted';
COMMENT ON TABLE pgbench_lab.experiments IS
    'Groups of runs made by sweep() or compare_settings(); ids shared with runs';

-- variant: position of the client count (sweep) or of the settings set
-- (compare_settings, 1 = A); round: the interleaved round (1 for a sweep).
CREATE TABLE pgbench_lab.experiment_runs (
    experiment_id bigint NOT NULL REFERENCES pgbench_lab.experiments ON DELETE CASCADE,
    ordinal integer NOT NULL,
    run_id bigint NOT NULL REFERENCES pgbench_lab.runs ON DELETE CASCADE,
    variant integer NOT NULL,
    round integer NOT NULL,
    PRIMARY KEY (experiment_id, ordinal),
    UNIQUE (experiment_id, run_id)
);
COMMENT ON TABLE pgbench_lab.experiment_runs IS 'The runs of each experiment, in the order they ran';

SELECT pg_catalog.pg_extension_config_dump('pgbench_lab.experiments', '');
SELECT pg_catalog.pg_extension_config_dump('pgbench_lab.experiment_runs', '');

ALTER TABLE pgbench_lab.experiments ENABLE ROW LEVEL SECURITY;
ALTER TABLE pgbench_lab.experiment_runs ENABLE ROW LEVEL SECURITY;
CREATE POLICY experiments_read ON pgbench_lab.experiments FOR SELECT
    USING (pgbench_lab.may_read_run(owner));
CREATE POLICY experiment_runs_read ON pgbench_lab.experiment_runs FOR SELECT
    USING (EXISTS (SELECT FROM pgbench_lab.experiments e
                   WHERE e.experiment_id OPERATOR(pg_catalog.=) experiment_runs.experiment_id));
GRANT SELECT ON pgbench_lab.experiments, pgbench_lab.experiment_runs TO PUBLIC;
