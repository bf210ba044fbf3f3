
-- ---------------------------------------------------------------------------
-- Experiments: the check the readers share and the helpers of the kinds'
-- planners.  The driver is src/experiment.c, which records experiments
-- through the functions of 72_record.sql; each kind is a file of its own (81_sweep.sql,
-- 82_compare_settings.sql, 83_cold_vs_warm.sql, 84_connection_cost.sql) that
-- ends with its row of pgbench_lab.experiment_kinds.  A new kind is one
-- planner, one report function (and optionally a finding and a step
-- preparation), its procedure bound to the driver, and one row.
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

-- What every run of an experiment runs, as run() takes it: a built-in
-- workload, or pgbench scripts (name@weight entries) with their variables
-- (with scripts, the workload is not used: an experiment's procedure may
-- default it).  run() checks them before the first run.  The experiment is
-- recorded under the workload's name, or the scripts'.
CREATE FUNCTION pgbench_lab_internal.step_workload(workload text, scripts text[], variables jsonb)
RETURNS jsonb LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pg_catalog.jsonb_strip_nulls(pg_catalog.jsonb_build_object(
               'workload', CASE WHEN scripts IS NULL THEN workload END,
               'scripts', pg_catalog.to_jsonb(scripts), 'variables', variables))
$$;

CREATE FUNCTION pgbench_lab_internal.experiment_workload(workload text, scripts text[])
RETURNS text LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT CASE WHEN scripts IS NULL THEN workload ELSE pg_catalog.array_to_string(scripts, ' ') END $$;
