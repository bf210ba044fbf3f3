
-- ---------------------------------------------------------------------------
-- run_errors: every distinct error text a run's transactions met, with its
-- count (src/client_ctx.c counts them, src/results.c writes them at the
-- run's end).  Bounded: the first 100 distinct texts of a run, then one
-- row (sqlstate and message NULL) counting all the others.  Read as the
-- other run_* tables are: each role its own runs, pg_monitor all.
-- ---------------------------------------------------------------------------

CREATE TABLE pgbench_lab.run_errors (
    run_id bigint NOT NULL REFERENCES pgbench_lab.runs ON DELETE CASCADE,
    error integer NOT NULL,
    sqlstate text,
    message text,
    count bigint NOT NULL,
    first_ms double precision,
    PRIMARY KEY (run_id, error)
);
COMMENT ON TABLE pgbench_lab.run_errors IS
    'Every distinct error a run''s transactions met (each error that ended a try, retried or not: their counts sum to failures plus retries), numbered in the order first met; past 100 distinct texts, one row with sqlstate and message NULL counts the others';
COMMENT ON COLUMN pgbench_lab.run_errors.message IS
    'The error''s message, its first 255 bytes; NULL: the row that counts the errors past the 100 texts kept';
COMMENT ON COLUMN pgbench_lab.run_errors.first_ms IS
    'When it was first met, in milliseconds after the run''s start';
SELECT pg_catalog.pg_extension_config_dump('pgbench_lab.run_errors', '');
ALTER TABLE pgbench_lab.run_errors ENABLE ROW LEVEL SECURITY;
CREATE POLICY run_errors_read ON pgbench_lab.run_errors FOR SELECT
    USING (EXISTS (SELECT FROM pgbench_lab.runs r
                   WHERE r.run_id OPERATOR(pg_catalog.=) run_errors.run_id));
GRANT SELECT ON pgbench_lab.run_errors TO PUBLIC;
