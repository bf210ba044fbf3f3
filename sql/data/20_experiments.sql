
-- ---------------------------------------------------------------------------
-- experiments: groups of runs made by one procedure (sweep, compare_settings,
-- cold_vs_warm, connection_cost).  Runs and experiments draw their ids from
-- one sequence, so an id names exactly one of them and report(id) / plot(ids)
-- / export(ids) accept both.
-- ---------------------------------------------------------------------------


-- The kinds of experiment, one row each, written by the install script's
-- code part (sql/code/experiments/8x_*.sql: each kind's file ends with its row).  One
-- driver (src/experiment.c) runs every kind: the kind's procedure is a C
-- procedure bound to that driver, which finds its row here by the
-- procedure's oid, calls the planner with the procedure's IN arguments, runs
-- each planned step (the preparation, if any, then CALL run()), links the
-- runs, and returns the finding function's row as the procedure's INOUT
-- columns.  report(experiment_id) prints the report function's lines.
CREATE TABLE pgbench_lab.experiment_kinds (
    kind text PRIMARY KEY,
    procedure regprocedure NOT NULL UNIQUE,
    planner regprocedure NOT NULL,
    preparation regprocedure,
    finding regprocedure,
    report regprocedure NOT NULL,
    description text NOT NULL,
    extend regprocedure,
    verdicts regprocedure
);
COMMENT ON TABLE pgbench_lab.experiment_kinds IS
    'The kinds of experiment: the procedure that runs each, and the functions that plan its steps, prepare each, judge and report it';
COMMENT ON COLUMN pgbench_lab.experiment_kinds.planner IS
    'Checks the procedure''s IN arguments (then a jsonb of caller facts) and returns the plan: {workload, label, params, steps: [{variant, round, name, about, prepare, run: {run() arguments}}], stop_on_failure}';
COMMENT ON COLUMN pgbench_lab.experiment_kinds.preparation IS
    'Called with (experiment_id, step) in a transaction of its own before each step''s run; its text is shown as a NOTICE';
COMMENT ON COLUMN pgbench_lab.experiment_kinds.finding IS
    'Called with (experiment_id) after the last run: its columns fill the procedure''s INOUT columns of the same names';
COMMENT ON COLUMN pgbench_lab.experiment_kinds.extend IS
    'Called with (experiment_id, plan) after the planned steps, and again after each batch it adds, in a transaction of its own: {steps: [more steps, as the plan''s], about: why (a NOTICE)}, or NULL to stop';
COMMENT ON COLUMN pgbench_lab.experiment_kinds.verdicts IS
    'Called with (experiment_id): every verdict the experiment gives, one row each (comparison, measure, rounds, ratio, its interval and coverage, verdict, decided, basis); read through pgbench_lab.experiment_verdicts()';
REVOKE ALL ON pgbench_lab.experiment_kinds FROM PUBLIC;
GRANT SELECT ON pgbench_lab.experiment_kinds TO PUBLIC;

-- The type of an experiment's rounds: a count from 1 to 100, or 'auto'
-- (src/experiment_rounds.c).  An integer of any width converts to it
-- implicitly.
CREATE TYPE pgbench_lab.rounds;
CREATE FUNCTION pgbench_lab_internal.rounds_in(pg_catalog.cstring) RETURNS pgbench_lab.rounds
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'pgbench_lab_rounds_in';
CREATE FUNCTION pgbench_lab_internal.rounds_out(pgbench_lab.rounds) RETURNS pg_catalog.cstring
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'pgbench_lab_rounds_out';
CREATE TYPE pgbench_lab.rounds (
    INPUT = pgbench_lab_internal.rounds_in,
    OUTPUT = pgbench_lab_internal.rounds_out,
    LIKE = pg_catalog.int4
);
COMMENT ON TYPE pgbench_lab.rounds IS
    'An experiment''s rounds: a count from 1 to 100, or ''auto'' (added until the verdict is settled or the budget ends)';
CREATE FUNCTION pgbench_lab_internal.rounds(integer) RETURNS pgbench_lab.rounds
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'pgbench_lab_rounds_from_int4';
CREATE CAST (integer AS pgbench_lab.rounds) WITH FUNCTION pgbench_lab_internal.rounds(integer) AS IMPLICIT;
CREATE FUNCTION pgbench_lab_internal.rounds(smallint) RETURNS pgbench_lab.rounds
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'pgbench_lab_rounds_from_int2';
CREATE CAST (smallint AS pgbench_lab.rounds) WITH FUNCTION pgbench_lab_internal.rounds(smallint) AS IMPLICIT;
CREATE FUNCTION pgbench_lab_internal.rounds(bigint) RETURNS pgbench_lab.rounds
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'pgbench_lab_rounds_from_int8';
CREATE CAST (bigint AS pgbench_lab.rounds) WITH FUNCTION pgbench_lab_internal.rounds(bigint) AS IMPLICIT;

CREATE TABLE pgbench_lab.experiments (
    experiment_id bigint PRIMARY KEY
        DEFAULT pg_catalog.nextval('pgbench_lab.runs_run_id_seq'::pg_catalog.regclass),
    kind text NOT NULL,
    workload text NOT NULL,
    label text,
    params jsonb NOT NULL DEFAULT '{}',
    started_at timestamptz NOT NULL DEFAULT pg_catalog.now(),
    finished_at timestamptz,
    status text NOT NULL DEFAULT 'running'
        CHECK (status OPERATOR(pg_catalog.=) ANY (ARRAY['running', 'done', 'failed', 'aborted', 'waiting for restart'])),
    owner regrole NOT NULL,
    source_server text,
    source_experiment_id bigint,
    imported_at timestamptz,
    backend_pid integer,
    backend_start timestamptz,
    resumed_at timestamptz
);
COMMENT ON COLUMN pgbench_lab.experiments.backend_pid IS
    'The session whose procedure runs the experiment (with backend_start): gone or on to another statement, the experiment is aborted';
COMMENT ON COLUMN pgbench_lab.experiments.resumed_at IS
    'A two-phase experiment (compare_settings with restart_settings): when resume() took it up again after the restart';
COMMENT ON TABLE pgbench_lab.experiments IS
    'Groups of runs made by one experiment procedure (see experiment_kinds); ids shared with runs';

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
    USING (pgbench_lab_internal.may_read_run(owner));
CREATE POLICY experiment_runs_read ON pgbench_lab.experiment_runs FOR SELECT
    USING (EXISTS (SELECT FROM pgbench_lab.experiments e
                   WHERE e.experiment_id OPERATOR(pg_catalog.=) experiment_runs.experiment_id));
GRANT SELECT ON pgbench_lab.experiments, pgbench_lab.experiment_runs TO PUBLIC;
