
-- ---------------------------------------------------------------------------
-- Experiments: the check the readers share and the helpers of the kinds'
-- planners.  The driver is src/experiment.c, which records experiments
-- through the functions of 72_record.sql; each kind is a file of its own
-- (81_sweep.sql, 82_compare_settings.sql, 83_cold_vs_warm.sql,
-- 84_connection_cost.sql, 85_latency_curve.sql,
-- 85_validate_recommendation.sql) that ends with its row of
-- pgbench_lab.experiment_kinds.  A new kind is one planner, one report
-- function (and optionally a finding and a step preparation), its
-- procedure bound to the driver, and one row; its procedure and planner
-- take run()'s options (step_options() below).
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

-- run()'s options that every experiment kind takes, with the names, types
-- and order of run()'s arguments, as one jsonb object of those given (NULL
-- ones left out; values inside them are kept as given, for run()'s own
-- checks).  Each kind's procedure declares them (DEFAULT NULL), after its
-- INOUT columns, the driver passes them to the planner by name, and the
-- planner merges this object into every step's "run" (step_run()): no
-- kind restates an option.  With target or targets and no via, the runs go
-- over libpq.  What an option means for a kind, or why a kind refuses it,
-- is the kind's planner's to say, before anything runs.
CREATE FUNCTION pgbench_lab_internal.step_options(
    settings jsonb DEFAULT NULL, max_tries integer DEFAULT NULL, random_seed bigint DEFAULT NULL,
    via text DEFAULT NULL, target text DEFAULT NULL, rate double precision DEFAULT NULL,
    latency_limit interval DEFAULT NULL, script text DEFAULT NULL, scripts text[] DEFAULT NULL,
    variables jsonb DEFAULT NULL, sample_rate double precision DEFAULT NULL, threads integer DEFAULT NULL,
    targets text[] DEFAULT NULL, target_clients integer[] DEFAULT NULL, query_mode text DEFAULT NULL)
RETURNS jsonb LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
SET intervalstyle = 'postgres'
AS $$
    SELECT COALESCE(pg_catalog.jsonb_object_agg(o.k, o.v ORDER BY o.i) FILTER (WHERE o.v IS NOT NULL), '{}')
      FROM (VALUES (1, 'settings', settings), (2, 'max_tries', pg_catalog.to_jsonb(max_tries)),
                   (3, 'random_seed', pg_catalog.to_jsonb(random_seed)),
                   (4, 'via', pg_catalog.to_jsonb(COALESCE(via, CASE WHEN target IS NOT NULL OR targets IS NOT NULL
                                                                     THEN 'libpq' END))),
                   (5, 'target', pg_catalog.to_jsonb(target)), (6, 'rate', pg_catalog.to_jsonb(rate)),
                   (7, 'latency_limit', pg_catalog.to_jsonb(latency_limit::pg_catalog.text)),
                   (8, 'script', pg_catalog.to_jsonb(script)), (9, 'scripts', pg_catalog.to_jsonb(scripts)),
                   (10, 'variables', variables), (11, 'sample_rate', pg_catalog.to_jsonb(sample_rate)),
                   (12, 'threads', pg_catalog.to_jsonb(threads)), (13, 'targets', pg_catalog.to_jsonb(targets)),
                   (14, 'target_clients', pg_catalog.to_jsonb(target_clients)),
                   (15, 'query_mode', pg_catalog.to_jsonb(query_mode))) AS o(i, k, v)
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
