
-- ---------------------------------------------------------------------------
-- latency_curve(): one workload at a ladder of rates (pgbench -R), to find
-- the highest throughput at which a latency percentile stays under a
-- target.  The first run measures the maximum (no rate); the others run
-- at the rates given, or at shares of that maximum (the driver turns a
-- step's rate_share into a rate once the maximum is known).
-- ---------------------------------------------------------------------------

CREATE FUNCTION pgbench_lab_internal.latency_curve_check(target_ms double precision, percentile double precision,
                                                 rates double precision[], shares double precision[])
RETURNS void LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    -- NaN compares above every number: each test below fails it
    IF target_ms IS NULL OR NOT (target_ms OPERATOR(pg_catalog.>) 0 AND target_ms OPERATOR(pg_catalog.<=) 86400000) THEN
        RAISE EXCEPTION 'target_ms must be above 0 and at most a day, not %', coalesce(target_ms::pg_catalog.text, 'NULL')
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'The latency the percentile must stay under, in milliseconds, such as 5.';
    END IF;
    IF percentile IS NULL OR NOT percentile OPERATOR(pg_catalog.=) ANY (ARRAY[0.5, 0.9, 0.95, 0.99]::pg_catalog.float8[]) THEN
        RAISE EXCEPTION 'percentile must be 0.5, 0.9, 0.95 or 0.99, not %', coalesce(percentile::pg_catalog.text, 'NULL')
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Runs record p50, p90, p95 and p99 latencies.';
    END IF;
    IF rates IS NOT NULL THEN
        PERFORM pgbench_lab_internal.check_flat(pg_catalog.array_ndims(rates), 'rates', '''{500,1000,2000}''');
        IF pg_catalog.cardinality(rates) OPERATOR(pg_catalog.=) 0 OR pg_catalog.cardinality(rates) OPERATOR(pg_catalog.>) 50
           OR EXISTS (SELECT FROM pg_catalog.unnest(rates) r WHERE r IS NULL OR NOT (r OPERATOR(pg_catalog.>) 0 AND r OPERATOR(pg_catalog.<=) 1e9)) THEN
            RAISE EXCEPTION 'rates must hold 1 to 50 rates, each above 0 and at most 1e9 transactions per second'
                USING ERRCODE = 'invalid_parameter_value',
                      HINT = 'Give the rates to try, such as ''{500,1000,2000}'', or leave rates NULL to try shares of the measured maximum.';
        END IF;
    ELSE
        PERFORM pgbench_lab_internal.check_flat(pg_catalog.array_ndims(shares), 'shares', '''{0.25,0.5,0.75,0.9}''');
        IF shares IS NULL OR pg_catalog.cardinality(shares) OPERATOR(pg_catalog.=) 0 OR pg_catalog.cardinality(shares) OPERATOR(pg_catalog.>) 50
           OR EXISTS (SELECT FROM pg_catalog.unnest(shares) s WHERE s IS NULL OR NOT (s OPERATOR(pg_catalog.>) 0 AND s OPERATOR(pg_catalog.<=) 2)) THEN
            RAISE EXCEPTION 'shares must hold 1 to 50 shares of the maximum, each above 0 and at most 2'
                USING ERRCODE = 'invalid_parameter_value',
                      HINT = 'Give the shares of the measured maximum TPS to try, such as ''{0.25,0.5,0.75,0.9}''.';
        END IF;
    END IF;
END
$$;

-- The plan: the maximum first, then the rates in increasing order.  Every
-- run option goes to every run (options) but rate: the curve sets each
-- run's rate itself.
CREATE FUNCTION pgbench_lab_internal.latency_curve_plan(workload text, clients integer, duration interval,
                                                target_ms double precision, percentile double precision,
                                                rates double precision[], shares double precision[],
                                                label text, options jsonb, caller jsonb)
RETURNS jsonb LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
SET intervalstyle = 'postgres'
AS $$
DECLARE
    name pg_catalog.text := coalesce(label, 'latency_curve ' OPERATOR(pg_catalog.||) pg_catalog.now()::pg_catalog.text);
    ladder pg_catalog.float8[];
BEGIN
    IF (workload IS NULL AND NOT options OPERATOR(pg_catalog.?|) ARRAY['script', 'scripts']) OR clients IS NULL OR duration IS NULL THEN
        RAISE EXCEPTION '% must not be NULL',
                        CASE WHEN clients IS NULL THEN 'clients' WHEN duration IS NULL THEN 'duration' ELSE 'workload' END
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'latency_curve runs one workload (or scripts), by time, at each rate.';
    END IF;
    IF options OPERATOR(pg_catalog.?) 'rate' THEN
        PERFORM pgbench_lab_internal.refuse_option('latency_curve', 'rate',
            'the curve sets each run''s rate itself: the first run at full speed, then one run per rate',
            'Give the rates to try with rates => ''{500,1000,2000}'', or shares of the measured maximum with shares => ''{0.5,0.9}''; latency_limit may be given.');
    END IF;
    PERFORM pgbench_lab_internal.latency_curve_check(target_ms, percentile, rates, shares);
    ladder := ARRAY(SELECT DISTINCT x FROM pg_catalog.unnest(coalesce(rates, shares)) x ORDER BY x);
    RETURN pg_catalog.jsonb_build_object('workload', pgbench_lab_internal.experiment_workload(workload, options),
        'label', name, 'stop_on_failure', false,
        'params', pgbench_lab_internal.step_options_params(options)
                  OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object('clients', clients, 'duration', duration::pg_catalog.text,
                      'target_ms', target_ms, 'percentile', percentile,
                      CASE WHEN rates IS NULL THEN 'shares' ELSE 'rates' END, pg_catalog.to_jsonb(ladder)),
        'steps', pg_catalog.jsonb_build_array(pg_catalog.jsonb_build_object('variant', 1, 'round', 1,
                     'about', 'the run at full speed',
                     'run', pgbench_lab_internal.step_run(workload, options)
                            OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object('clients', clients,
                                'duration', duration::pg_catalog.text, 'label', name)))
            OPERATOR(pg_catalog.||) (SELECT pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object('variant', l.i OPERATOR(pg_catalog.+) 1, 'round', 1,
                         'about', CASE WHEN rates IS NULL THEN pg_catalog.format('the run at %s %% of the maximum', l.x OPERATOR(pg_catalog.*) 100)
                                       ELSE pg_catalog.format('the run at %s tps', l.x) END,
                         'run', pgbench_lab_internal.step_run(workload, options)
                                OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object('clients', clients,
                                    'duration', duration::pg_catalog.text, 'label', name, 'rate', CASE WHEN rates IS NOT NULL THEN l.x END))
                         OPERATOR(pg_catalog.||) CASE WHEN rates IS NULL THEN pg_catalog.jsonb_build_object('rate_share', l.x, 'rate_of', 1)
                                                      ELSE '{}' END ORDER BY l.i)
                        FROM pg_catalog.unnest(ladder) WITH ORDINALITY AS l(x, i)));
END
$$;

-- The runs of a latency curve with the asked percentile: the maximum
-- (variant 1, rate NULL) and each rate, in increasing order of rate.
CREATE FUNCTION pgbench_lab_internal.latency_curve_steps(experiment_id bigint)
RETURNS TABLE (variant integer, run_id bigint, status text, rate double precision, tps double precision,
               sustained boolean, lag_avg_ms double precision, p50 double precision, p95 double precision,
               p99 double precision, pct double precision, holds boolean)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT x.variant, r.run_id, r.status, r.rate, r.tps, r.rate_sustained, r.lag_avg_ms,
           r.latency_p50_ms, r.latency_p95_ms, r.latency_p99_ms, p.v,
           r.rate IS NOT NULL AND r.status OPERATOR(pg_catalog.=) 'done' AND coalesce(r.rate_sustained, false)
               AND p.v OPERATOR(pg_catalog.<=) (e.params OPERATOR(pg_catalog.->>) 'target_ms')::pg_catalog.float8
      FROM pgbench_lab.experiments e
      JOIN pgbench_lab.experiment_runs x ON x.experiment_id OPERATOR(pg_catalog.=) e.experiment_id
      JOIN pgbench_lab.runs r ON r.run_id OPERATOR(pg_catalog.=) x.run_id
     CROSS JOIN LATERAL (SELECT (e.params OPERATOR(pg_catalog.->>) 'percentile')::pg_catalog.float8 AS q) w
     CROSS JOIN LATERAL (SELECT CASE WHEN w.q OPERATOR(pg_catalog.=) 0.5 THEN r.latency_p50_ms
                                     WHEN w.q OPERATOR(pg_catalog.=) 0.9 THEN r.latency_p90_ms
                                     WHEN w.q OPERATOR(pg_catalog.=) 0.95 THEN r.latency_p95_ms
                                     ELSE r.latency_p99_ms END AS v) p
     WHERE e.experiment_id OPERATOR(pg_catalog.=) latency_curve_steps.experiment_id
     ORDER BY r.rate NULLS FIRST, x.variant
$$;

-- Why a step does not hold: its run did not finish, the rate was not
-- sustained, or the percentile was over the target.
CREATE FUNCTION pgbench_lab_internal.latency_curve_why(status text, sustained boolean, pct double precision, pname text)
RETURNS text LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN status OPERATOR(pg_catalog.<>) 'done' THEN 'the run ended ' OPERATOR(pg_catalog.||) status
                WHEN NOT coalesce(sustained, false) THEN pg_catalog.format('the rate was not sustained (%s %s ms)', pname, pgbench_lab_internal.fmt(pct, 3))
                ELSE pg_catalog.format('%s was %s ms', pname, pgbench_lab_internal.fmt(pct, 3)) END
$$;

-- The procedure's INOUT columns.  The rate that holds is the highest one
-- below the first that does not (a curve is read from the bottom: a rate
-- that happened to hold above one that failed is not counted on).
CREATE FUNCTION pgbench_lab_internal.latency_curve_result(id bigint)
RETURNS TABLE (label text, max_tps double precision, best_rate double precision, best_tps double precision,
               best_latency_ms double precision, finding text)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH e AS (SELECT x.label, (x.params OPERATOR(pg_catalog.->>) 'target_ms')::pg_catalog.float8 AS target,
                      'p' OPERATOR(pg_catalog.||) pg_catalog.round(100 OPERATOR(pg_catalog.*) (x.params OPERATOR(pg_catalog.->>) 'percentile')::numeric) AS pname
                 FROM pgbench_lab.experiments x WHERE x.experiment_id OPERATOR(pg_catalog.=) id),
    s AS (SELECT * FROM pgbench_lab_internal.latency_curve_steps(id)),
    m AS (SELECT s.tps, s.pct FROM s WHERE s.rate IS NULL ORDER BY s.variant LIMIT 1),
    first_bad AS (SELECT s.* FROM s WHERE s.rate IS NOT NULL AND NOT s.holds ORDER BY s.rate LIMIT 1),
    best AS (SELECT s.* FROM s WHERE s.holds
                AND s.rate OPERATOR(pg_catalog.<) coalesce((SELECT b.rate FROM first_bad b), 'Infinity'::pg_catalog.float8)
              ORDER BY s.rate DESC LIMIT 1)
    SELECT e.label, (SELECT m.tps FROM m), b.rate, b.tps, b.pct,
           CASE WHEN NOT EXISTS (SELECT FROM s WHERE s.rate IS NOT NULL)
                THEN 'no run at a rate was made: nothing to find'
                WHEN b.rate IS NULL
                THEN pg_catalog.format('%s under %s ms held at none of the rates: at the lowest, %s tps asked, %s', e.pname,
                         pgbench_lab_internal.fmt(e.target, 3), pgbench_lab_internal.fmt(f.rate), pgbench_lab_internal.latency_curve_why(f.status, f.sustained, f.pct, e.pname))
                ELSE pg_catalog.format('%s under %s ms held up to %s tps asked (%s achieved, %s %s ms)%s; the maximum was %s tps (%s %s ms)',
                         e.pname, pgbench_lab_internal.fmt(e.target, 3), pgbench_lab_internal.fmt(b.rate),
                         pgbench_lab_internal.fmt(b.tps), e.pname, pgbench_lab_internal.fmt(b.pct, 3),
                         CASE WHEN f.rate IS NULL THEN ', the highest rate tried'
                              ELSE pg_catalog.format('; at %s tps asked it did not: %s', pgbench_lab_internal.fmt(f.rate),
                                        pgbench_lab_internal.latency_curve_why(f.status, f.sustained, f.pct, e.pname)) END,
                         coalesce(pgbench_lab_internal.fmt((SELECT m.tps FROM m)), '-'), e.pname,
                         coalesce(pgbench_lab_internal.fmt((SELECT m.pct FROM m), 3), '-')) END
      FROM e LEFT JOIN best b ON true LEFT JOIN first_bad f ON true
$$;

CREATE FUNCTION pgbench_lab_internal.report_latency_curve(experiment_id bigint)
RETURNS SETOF text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    e pgbench_lab.experiments;
BEGIN
    SELECT * INTO e FROM pgbench_lab.experiments x WHERE x.experiment_id OPERATOR(pg_catalog.=) report_latency_curve.experiment_id;
    RETURN QUERY SELECT pg_catalog.format('Target: p%s under %s ms; %s', pg_catalog.round(100 OPERATOR(pg_catalog.*) (e.params OPERATOR(pg_catalog.->>) 'percentile')::numeric),
                       e.params OPERATOR(pg_catalog.->>) 'target_ms',
                       CASE WHEN e.params OPERATOR(pg_catalog.?) 'rates' THEN 'rates asked: ' OPERATOR(pg_catalog.||) (e.params OPERATOR(pg_catalog.->>) 'rates')
                            ELSE 'rates: shares of the maximum ' OPERATOR(pg_catalog.||) (e.params OPERATOR(pg_catalog.->>) 'shares') END);
    RETURN QUERY SELECT '';
    RETURN QUERY SELECT pg_catalog.format('  %6s  %10s  %10s  %9s  %9s  %9s  %9s  %9s  %s', 'run', 'rate asked', 'TPS', 'sustained',
                       'lag ms', 'p50 ms', 'p95 ms', 'p99 ms', 'holds');
    RETURN QUERY
        SELECT pg_catalog.format('  %6s  %10s  %10s  %9s  %9s  %9s  %9s  %9s  %s', s.run_id,
                      CASE WHEN s.rate IS NULL THEN 'max' ELSE pgbench_lab_internal.fmt(s.rate) END,
                      CASE WHEN s.status OPERATOR(pg_catalog.=) 'done' THEN pgbench_lab_internal.fmt(s.tps) ELSE s.status END,
                      CASE WHEN s.rate IS NULL THEN '-' WHEN s.sustained THEN 'yes' ELSE 'NO' END,
                      coalesce(pgbench_lab_internal.fmt(s.lag_avg_ms, 3), '-'), coalesce(pgbench_lab_internal.fmt(s.p50, 3), '-'),
                      coalesce(pgbench_lab_internal.fmt(s.p95, 3), '-'), coalesce(pgbench_lab_internal.fmt(s.p99, 3), '-'),
                      CASE WHEN s.rate IS NULL THEN '' WHEN s.holds THEN 'yes' ELSE 'no' END)
          FROM pgbench_lab_internal.latency_curve_steps(e.experiment_id) s;
    RETURN QUERY SELECT '';
    RETURN QUERY SELECT 'Finding';
    RETURN QUERY SELECT x.w FROM pgbench_lab_internal.latency_curve_result(e.experiment_id) r,
                                 pgbench_lab_internal.wrap(r.finding, '  ') AS x(w);
END
$$;

-- Latency percentiles against the achieved TPS, one point per run at a
-- rate, with the target drawn across.
CREATE FUNCTION pgbench_lab_internal.plot_latency_curve(experiment_id bigint)
RETURNS text LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH s AS (SELECT * FROM pgbench_lab_internal.latency_curve_steps(experiment_id) s
                WHERE s.rate IS NOT NULL AND s.status OPERATOR(pg_catalog.=) 'done' AND s.tps OPERATOR(pg_catalog.>) 0),
    e AS (SELECT x.label, x.workload, (x.params OPERATOR(pg_catalog.->>) 'target_ms')::pg_catalog.float8 AS target
            FROM pgbench_lab.experiments x WHERE x.experiment_id OPERATOR(pg_catalog.=) plot_latency_curve.experiment_id),
    r AS (SELECT * FROM pgbench_lab_internal.latency_curve_result(experiment_id))
    SELECT pgbench_lab_internal.svg_chart(
        pg_catalog.format('Latency against throughput: %s (experiment %s)', coalesce(e.label, e.workload), experiment_id),
        'achieved TPS (transactions per second)', 'latency (ms)', NULL,
        (SELECT pg_catalog.jsonb_agg(c.series ORDER BY c.k) FROM (
            SELECT k, pg_catalog.jsonb_build_object('label', l, 'color', k OPERATOR(pg_catalog.-) 1, 'points', true,
                       'x', (SELECT coalesce(pg_catalog.jsonb_agg(s.tps ORDER BY s.tps), '[]') FROM s),
                       'y', (SELECT coalesce(pg_catalog.jsonb_agg(CASE WHEN k OPERATOR(pg_catalog.=) 1 THEN s.p50
                                                                                   WHEN k OPERATOR(pg_catalog.=) 2 THEN s.p95
                                                                                   ELSE s.p99 END ORDER BY s.tps), '[]') FROM s)) AS series
              FROM (VALUES (1, 'p50'), (2, 'p95'), (3, 'p99')) AS v(k, l)
            UNION ALL
            SELECT 4, pg_catalog.jsonb_build_object('label', pg_catalog.format('target %s ms', pgbench_lab_internal.fmt(e.target, 3)),
                       'color', 7, 'x', pg_catalog.jsonb_build_array(0, coalesce((SELECT pg_catalog.max(s.tps) FROM s), 1)),
                       'y', pg_catalog.jsonb_build_array(e.target, e.target))) c),
        ARRAY[CASE WHEN NOT EXISTS (SELECT FROM s) THEN 'Nothing to plot: no run at a rate ended done.'
                   ELSE r.finding END])
      FROM e, r
$$;

-- Bound to the experiments driver (src/experiment.c), with no SET clause:
-- it commits between its runs.
CREATE PROCEDURE pgbench_lab.latency_curve(
    workload text DEFAULT 'select-only',
    clients integer DEFAULT 4,
    duration interval DEFAULT '10 s',
    target_ms double precision DEFAULT 5,
    percentile double precision DEFAULT 0.99,
    rates double precision[] DEFAULT NULL,
    shares double precision[] DEFAULT '{0.1,0.25,0.5,0.7,0.8,0.9,1.0}',
    label text DEFAULT NULL,
    scripts text[] DEFAULT NULL,
    variables jsonb DEFAULT NULL,
    INOUT experiment_id bigint DEFAULT NULL,
    INOUT max_tps double precision DEFAULT NULL,
    INOUT best_rate double precision DEFAULT NULL,
    INOUT best_tps double precision DEFAULT NULL,
    INOUT best_latency_ms double precision DEFAULT NULL,
    INOUT finding text DEFAULT NULL,
    @RUN_OPTIONS_EXCEPT workload clients duration transactions label scripts variables@)
LANGUAGE c
AS 'MODULE_PATHNAME', 'pgbench_lab_experiment';
COMMENT ON PROCEDURE pgbench_lab.latency_curve IS
    'One workload at a ladder of rates: the highest throughput at which a latency percentile stays under a target';
REVOKE ALL ON PROCEDURE pgbench_lab.latency_curve FROM PUBLIC;

INSERT INTO pgbench_lab.experiment_kinds (kind, procedure, planner, preparation, finding, report, description)
VALUES ('latency_curve', 'pgbench_lab.latency_curve'::pg_catalog.regproc,
        'pgbench_lab_internal.latency_curve_plan'::pg_catalog.regproc, NULL,
        'pgbench_lab_internal.latency_curve_result(bigint)', 'pgbench_lab_internal.report_latency_curve(bigint)',
        'One workload at a ladder of rates: the highest throughput at which a latency percentile stays under a target')
ON CONFLICT (kind) DO UPDATE SET procedure = EXCLUDED.procedure, planner = EXCLUDED.planner,
    preparation = EXCLUDED.preparation, finding = EXCLUDED.finding, report = EXCLUDED.report,
    description = EXCLUDED.description;
