
-- ---------------------------------------------------------------------------
-- Experiments: the check the readers share and the helpers of the kinds'
-- planners.  The driver is src/experiment.c, which records experiments
-- through the functions of 72_record.sql; each kind is a file of its own
-- (81_sweep.sql, 82_compare_settings.sql, 83_cold_vs_warm.sql,
-- 84_connection_cost.sql, 85_latency_curve.sql,
-- 85_validate_recommendation.sql, 86_tune.sql) that ends with its row of
-- pgbench_lab.experiment_kinds.  A new kind is one planner, one report
-- function (and optionally a finding and a step preparation), its
-- procedure bound to the driver, and one row.  Its procedure declares
-- the run options it takes with a marker that the build expands from
-- src/run_options.h (@RUN_OPTIONS_EXCEPT <those it declares itself or does
-- not take>@, each DEFAULT NULL: sql/run_options.awk); the driver passes
-- those given to the planner as one jsonb object, options (src/experiment.c:
-- NULLs left out, intervals as text, via 'libpq' with a target or targets
-- and no via), which the planner merges into every step's "run"
-- (step_run()): no kind restates an option.  What an option means for a
-- kind, or why a kind refuses it, is the kind's planner's to say, before
-- anything runs.
-- ---------------------------------------------------------------------------

-- An experiment of one of the kinds a function reads, or an error naming
-- the kind it is (the functions would otherwise read another kind's runs
-- as their own: a cold_vs_warm experiment's three runs of one client count
-- as a sweep divides by zero).
CREATE FUNCTION pgbench_lab_internal.check_experiment(experiment_id bigint, kinds text[], fn text)
RETURNS void LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    k pg_catalog.text;
    wanted pg_catalog.text := pg_catalog.array_to_string(kinds, ' or ');
BEGIN
    IF experiment_id IS NULL THEN
        RAISE EXCEPTION 'experiment_id must not be null'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = pg_catalog.format('Pass the id of a %s experiment from pgbench_lab.experiments.', wanted);
    END IF;
    SELECT e.kind INTO k FROM pgbench_lab.experiments e WHERE e.experiment_id OPERATOR(pg_catalog.=) check_experiment.experiment_id;
    IF NOT FOUND THEN
        IF EXISTS (SELECT FROM pgbench_lab.runs r WHERE r.run_id OPERATOR(pg_catalog.=) check_experiment.experiment_id) THEN
            RAISE EXCEPTION '% needs a % experiment, and % is a run', fn, wanted, experiment_id
                USING ERRCODE = 'invalid_parameter_value',
                      HINT = 'Read a run with pgbench_lab.report(run_id).';
        END IF;
        RAISE EXCEPTION 'experiment % does not exist or is not visible to you', experiment_id
            USING ERRCODE = 'undefined_object',
                  HINT = 'pgbench_lab.experiments lists what you can read: your own, or all for members of pg_monitor.';
    END IF;
    IF NOT k OPERATOR(pg_catalog.=) ANY (kinds) THEN
        RAISE EXCEPTION '% needs a % experiment, and experiment % is a % experiment', fn, wanted, experiment_id, k
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'pgbench_lab.report(experiment_id) reads an experiment of any kind.';
    END IF;
END
$$;

-- A step's "run": the options, and the workload unless a script or
-- scripts are given (run() takes one or the other; an experiment's
-- procedure may default the workload).  The planner merges its own keys
-- (clients, duration, the set's settings...) over it.
CREATE FUNCTION pgbench_lab_internal.step_run(workload text, options jsonb)
RETURNS jsonb LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT options OPERATOR(pg_catalog.||)
           CASE WHEN options OPERATOR(pg_catalog.?|) ARRAY['script', 'scripts'] OR workload IS NULL THEN '{}'::pg_catalog.jsonb
                ELSE pg_catalog.jsonb_build_object('workload', workload) END
$$;

-- The name an experiment is recorded under: the scripts' names, "script"
-- for a script's text (as run() records it), or the workload's.
CREATE FUNCTION pgbench_lab_internal.experiment_workload(workload text, options jsonb)
RETURNS text LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN options OPERATOR(pg_catalog.?) 'scripts' AND pg_catalog.jsonb_typeof(options OPERATOR(pg_catalog.->) 'scripts') OPERATOR(pg_catalog.=) 'array'
                THEN (SELECT pg_catalog.string_agg(s, ' ' ORDER BY i)
                        FROM pg_catalog.jsonb_array_elements_text(options OPERATOR(pg_catalog.->) 'scripts') WITH ORDINALITY AS x(s, i))
                WHEN options OPERATOR(pg_catalog.?) 'script' THEN 'script'
                ELSE workload END
$$;

-- The options as an experiment's params record them (under the kind's own
-- keys, which win): no conninfo (it may hold a password) but how many
-- servers the runs went to ("targets"), and no script text (the runs keep
-- it in run_scripts).
CREATE FUNCTION pgbench_lab_internal.step_options_params(options jsonb)
RETURNS jsonb LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT (options OPERATOR(pg_catalog.-) ARRAY['target', 'targets', 'script'])
           OPERATOR(pg_catalog.||)
           CASE WHEN pg_catalog.jsonb_typeof(options OPERATOR(pg_catalog.->) 'targets') OPERATOR(pg_catalog.=) 'array'
                THEN pg_catalog.jsonb_build_object('targets', pg_catalog.jsonb_array_length(options OPERATOR(pg_catalog.->) 'targets'))
                WHEN options OPERATOR(pg_catalog.?) 'target' THEN '{"targets": 1}'::pg_catalog.jsonb
                ELSE '{}'::pg_catalog.jsonb END
$$;

-- Whether the options send the runs to another server (target or
-- targets).  A conninfo may lead back to this server, but that cannot be
-- known before connecting: a kind whose premise is this server (its caches
-- made cold, its settings changed with ALTER SYSTEM) refuses any target.
-- via => 'libpq' without a target connects to this server's own socket.
CREATE FUNCTION pgbench_lab_internal.runs_elsewhere(options jsonb)
RETURNS boolean LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT options OPERATOR(pg_catalog.?|) ARRAY['target', 'targets'] $$;

-- A run option that a kind refuses, before anything runs: 22023 for an
-- option the kind sets itself or that its verdict cannot read, with the
-- kind, the option, why, and what would work.
CREATE FUNCTION pgbench_lab_internal.refuse_option(kind text, option text, why text, hint text,
                                                   state text DEFAULT '22023')
RETURNS void LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RAISE EXCEPTION '% cannot take %: %', kind, option, why
        USING ERRCODE = state, HINT = hint;
END
$$;

-- Every verdict an experiment gives, from its kind's verdicts function
-- (experiment_kinds.verdicts), one row each: what is compared, on which
-- measure, from how many rounds, the ratio with its interval and the
-- interval's coverage, and the verdict with its basis (71_verdict.sql).
-- No rows for a kind that gives none.
CREATE FUNCTION pgbench_lab.experiment_verdicts(experiment_id bigint)
RETURNS TABLE (comparison text, measure text, rounds integer, ratio double precision,
               ratio_low double precision, ratio_high double precision, coverage double precision,
               verdict text, decided boolean, basis text)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fn pg_catalog.text;
    k pg_catalog.text;
BEGIN
    SELECT e.kind INTO k FROM pgbench_lab.experiments e
     WHERE e.experiment_id OPERATOR(pg_catalog.=) experiment_verdicts.experiment_id;
    PERFORM pgbench_lab_internal.check_experiment(experiment_id, ARRAY[COALESCE(k, '')], 'experiment_verdicts()');
    SELECT pg_catalog.format('%I.%I', n.nspname, p.proname) INTO fn
      FROM pgbench_lab.experiment_kinds x
      JOIN pg_catalog.pg_proc p ON p.oid OPERATOR(pg_catalog.=) x.verdicts::pg_catalog.oid
      JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) p.pronamespace
     WHERE x.kind OPERATOR(pg_catalog.=) k;
    IF fn IS NULL THEN
        RETURN;
    END IF;
    RETURN QUERY EXECUTE pg_catalog.format('SELECT v.comparison, v.measure, v.rounds, v.ratio, v.ratio_low, v.ratio_high, '
                                           'v.coverage, v.verdict, v.decided, v.basis FROM %s($1) v', fn)
        USING experiment_id;
END
$$;
COMMENT ON FUNCTION pgbench_lab.experiment_verdicts(bigint) IS
    'Every verdict of an experiment of any kind: the comparison, the measure, the rounds, the ratio with its interval and coverage, the verdict and its basis';
GRANT EXECUTE ON FUNCTION pgbench_lab.experiment_verdicts(bigint) TO pg_monitor;
