
-- ---------------------------------------------------------------------------
-- runner: start, run, wait, cancel, active_runs.  Nothing that starts
-- workers is executable by PUBLIC.
-- ---------------------------------------------------------------------------

-- start()'s arguments are the run options, run()'s the same around its
-- INOUT result columns: the build writes them from src/run_options.h at the
-- markers (sql/run_options.awk), the head (before run()'s INOUT columns)
-- and the tail (after them, where new options go).  No signature is
-- written out: each routine has one declaration.
CREATE FUNCTION pgbench_lab.start(
    @RUN_OPTIONS_HEAD@,
    @RUN_OPTIONS_TAIL@)
RETURNS bigint
LANGUAGE c VOLATILE
AS 'MODULE_PATHNAME', 'pgbench_lab_start';
COMMENT ON FUNCTION pgbench_lab.start IS
    'Start a run in background workers and return its run_id at once';

-- The run options, in the order of start()'s arguments: the one table
-- (src/run_spec.c) that run(), start() and experiments' steps are read by.
CREATE FUNCTION pgbench_lab.run_options(
    OUT name text,
    OUT type regtype,
    OUT "default" text,
    OUT since text,
    OUT description text)
RETURNS SETOF record
LANGUAGE c IMMUTABLE PARALLEL SAFE
AS 'MODULE_PATHNAME', 'pgbench_lab_run_options';
COMMENT ON FUNCTION pgbench_lab.run_options() IS
    'The options of a run: name, type, default, the version that added it and what it does';

-- C procedures with no SET clause: a procedure with one cannot commit.
-- They run no SQL that resolves a name through search_path.
CREATE PROCEDURE pgbench_lab.run(
    @RUN_OPTIONS_HEAD@,
    INOUT run_id bigint DEFAULT NULL,
    INOUT status text DEFAULT NULL,
    INOUT transactions_done bigint DEFAULT NULL,
    INOUT tps double precision DEFAULT NULL,
    INOUT latency_avg_ms double precision DEFAULT NULL,
    INOUT latency_p99_ms double precision DEFAULT NULL,
    INOUT failures bigint DEFAULT NULL,
    INOUT error text DEFAULT NULL,
    @RUN_OPTIONS_TAIL@)
LANGUAGE c
AS 'MODULE_PATHNAME', 'pgbench_lab_run';
COMMENT ON PROCEDURE pgbench_lab.run IS
    'Run a workload in background workers and return its headline figures';

CREATE PROCEDURE pgbench_lab.wait(
    INOUT run_id bigint,
    INOUT status text DEFAULT NULL,
    INOUT transactions_done bigint DEFAULT NULL,
    INOUT tps double precision DEFAULT NULL,
    INOUT latency_avg_ms double precision DEFAULT NULL,
    INOUT latency_p99_ms double precision DEFAULT NULL,
    INOUT failures bigint DEFAULT NULL,
    INOUT error text DEFAULT NULL)
LANGUAGE c
AS 'MODULE_PATHNAME', 'pgbench_lab_wait';
COMMENT ON PROCEDURE pgbench_lab.wait(bigint, text, bigint, double precision, double precision, double precision, bigint, text) IS
    'Wait for a run to end (holding no snapshot) and return its headline figures';

CREATE FUNCTION pgbench_lab.cancel(run_id bigint) RETURNS boolean
LANGUAGE c VOLATILE
AS 'MODULE_PATHNAME', 'pgbench_lab_cancel';
COMMENT ON FUNCTION pgbench_lab.cancel(bigint) IS
    'Stop a running run; it is recorded as cancelled with what it measured';

-- The background worker slots free for a run needing "need" of them
-- (src/runner.c); experiments' plans leave out a run that could not start.
CREATE FUNCTION pgbench_lab_internal.worker_slots_free(need integer) RETURNS integer
LANGUAGE c VOLATILE
AS 'MODULE_PATHNAME', 'pgbench_lab_worker_slots_free';

CREATE FUNCTION pgbench_lab_internal.run_live(
    run_id bigint,
    OUT elapsed_seconds double precision,
    OUT transactions bigint,
    OUT tps double precision,
    OUT failures bigint,
    OUT clients_running integer)
RETURNS record
LANGUAGE c VOLATILE STRICT
AS 'MODULE_PATHNAME', 'pgbench_lab_run_live';

CREATE VIEW pgbench_lab.active_runs WITH (security_invoker = true) AS
    SELECT r.run_id, r.label, r.workload, r.clients, r.scale, r.duration,
           r.started_at, r.owner, l.elapsed_seconds, l.transactions, l.tps,
           l.failures, l.clients_running
      FROM pgbench_lab.runs r
     CROSS JOIN LATERAL pgbench_lab_internal.run_live(r.run_id) l
     WHERE r.status OPERATOR(pg_catalog.=) 'running';
COMMENT ON VIEW pgbench_lab.active_runs IS 'Runs in progress with their live counters';

REVOKE ALL ON FUNCTION pgbench_lab.start FROM PUBLIC;
REVOKE ALL ON PROCEDURE pgbench_lab.run FROM PUBLIC;
REVOKE ALL ON FUNCTION pgbench_lab.cancel(bigint) FROM PUBLIC;
GRANT SELECT ON pgbench_lab.active_runs TO PUBLIC;
