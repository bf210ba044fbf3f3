
-- ---------------------------------------------------------------------------
-- compare_settings(): the same workload under each set of settings, the
-- sets interleaved within each round.  Session settings go to the runs;
-- reload-level ones (context sighup: max_wal_size, checkpoint_timeout...)
-- are written with ALTER SYSTEM before each run, the server reloads, and
-- postgresql.auto.conf is put back as it was afterwards, whatever happens
-- (superusers only; src/settings_apply.c).
-- ---------------------------------------------------------------------------

CREATE FUNCTION pgbench_lab_internal.compare_params(workload text, settings jsonb[], clients integer,
                                           duration interval, rounds integer)
RETURNS jsonb LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
SET intervalstyle = 'postgres'
AS $$
BEGIN
    IF workload IS NULL OR clients IS NULL OR duration IS NULL OR rounds IS NULL THEN
        RAISE EXCEPTION 'workload, clients, duration and rounds must not be null'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Pass values or leave them out for the defaults (1 client, 10 s, 3 rounds).';
    END IF;
    PERFORM pgbench_lab_internal.check_flat(pg_catalog.array_ndims(settings), 'settings',
                                   'ARRAY[''{}'', ''{"jit": "off"}'']::jsonb[]');
    IF settings IS NULL OR pg_catalog.cardinality(settings) OPERATOR(pg_catalog.<) 2
       OR pg_catalog.cardinality(settings) OPERATOR(pg_catalog.>) 26 THEN
        RAISE EXCEPTION 'settings must hold 2 to 26 sets of settings'
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Pass an array of jsonb objects, for example ARRAY[''{"synchronous_commit": "on"}'', ''{"synchronous_commit": "off"}'']::jsonb[].';
    END IF;
    IF EXISTS (SELECT FROM pg_catalog.unnest(settings) s
                WHERE (pg_catalog.jsonb_typeof(s) OPERATOR(pg_catalog.=) 'object') IS NOT TRUE) THEN
        RAISE EXCEPTION 'each set of settings must be a jsonb object'
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Use ''{}'' for the current settings and {"name": "value"} for others.';
    END IF;
    IF rounds OPERATOR(pg_catalog.<) 1 OR rounds OPERATOR(pg_catalog.>) 100 THEN
        RAISE EXCEPTION 'rounds must be from 1 to 100'
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Three rounds or more give a spread worth reading.';
    END IF;
    RETURN pg_catalog.jsonb_build_object('settings', pg_catalog.to_jsonb(settings), 'clients', clients,
                              'duration', duration::pg_catalog.text, 'rounds', rounds);
END
$$;

-- Per settings set: TPS and the ratio to set A, paired round by round (the
-- interleaving cancels drift), as a median with its min and max.
CREATE FUNCTION pgbench_lab.settings_ratios(experiment_id bigint)
RETURNS TABLE (variant integer, name text, settings jsonb, rounds integer,
               tps_median double precision, tps_min double precision, tps_max double precision,
               latency_avg_ms_median double precision, ratio_median double precision,
               ratio_min double precision, ratio_max double precision)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM pgbench_lab_internal.check_experiment(experiment_id, '{compare_settings,connection_cost}', 'settings_ratios()');
    RETURN QUERY
    WITH t AS (
        SELECT x.variant, x.round, r.tps, r.latency_avg_ms
          FROM pgbench_lab.experiment_runs x
          JOIN pgbench_lab.runs r ON r.run_id OPERATOR(pg_catalog.=) x.run_id
         WHERE x.experiment_id OPERATOR(pg_catalog.=) settings_ratios.experiment_id AND r.status OPERATOR(pg_catalog.=) 'done')
    SELECT t.variant, pg_catalog.chr(64 OPERATOR(pg_catalog.+) t.variant),
           (SELECT e.params OPERATOR(pg_catalog.->) 'settings' OPERATOR(pg_catalog.->) (t.variant OPERATOR(pg_catalog.-) 1) FROM pgbench_lab.experiments e
             WHERE e.experiment_id OPERATOR(pg_catalog.=) settings_ratios.experiment_id),
           pg_catalog.count(*)::integer,
           pg_catalog.percentile_cont(0.5) WITHIN GROUP (ORDER BY t.tps), pg_catalog.min(t.tps), pg_catalog.max(t.tps),
           pg_catalog.percentile_cont(0.5) WITHIN GROUP (ORDER BY t.latency_avg_ms),
           pg_catalog.percentile_cont(0.5) WITHIN GROUP (ORDER BY pgbench_lab_internal.ratio(t.tps, a.tps)),
           pg_catalog.min(pgbench_lab_internal.ratio(t.tps, a.tps)), pg_catalog.max(pgbench_lab_internal.ratio(t.tps, a.tps))
      FROM t LEFT JOIN t a ON a.variant OPERATOR(pg_catalog.=) 1 AND a.round OPERATOR(pg_catalog.=) t.round
     GROUP BY t.variant
     ORDER BY t.variant;
END
$$;
COMMENT ON FUNCTION pgbench_lab.settings_ratios(bigint) IS
    'TPS per settings set of a compare_settings experiment, with ratios to set A (median, min, max over rounds)';

CREATE FUNCTION pgbench_lab_internal.settings_finding(experiment_id bigint)
RETURNS text LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT coalesce(pg_catalog.string_agg(pg_catalog.format('%s (%s) against A: TPS ×%s median over %s rounds (min ×%s, max ×%s); %s',
                    s.name, pgbench_lab_internal.settings_text(s.settings),
                    pgbench_lab_internal.fmt(s.ratio_median, 3), s.rounds,
                    pgbench_lab_internal.fmt(s.ratio_min, 3), pgbench_lab_internal.fmt(s.ratio_max, 3),
                    CASE WHEN s.ratio_median IS NULL THEN 'no round of A to compare with'
                         WHEN s.rounds OPERATOR(pg_catalog.<) 2 THEN 'one round only: no spread to judge by'
                         WHEN s.ratio_min OPERATOR(pg_catalog.<) 1 AND s.ratio_max OPERATOR(pg_catalog.>) 1
                         THEN 'the rounds disagree on the direction: within the noise'
                         WHEN s.ratio_min OPERATOR(pg_catalog.>=) 1 THEN 'faster in every round'
                         ELSE 'slower in every round' END), '. ' ORDER BY s.variant) OPERATOR(pg_catalog.||) '.',
                    'No finished runs to compare.')
      FROM pgbench_lab.settings_ratios(experiment_id) s
     WHERE s.variant OPERATOR(pg_catalog.>) 1
$$;

-- The plan: in each round, one run per set, in order (set A first).  run()
-- checks every session setting of every set before the first run, the
-- driver every reload-level one (each step's "system"; "system_names" lists
-- them all, so that a set without one of them runs with its saved value).
CREATE FUNCTION pgbench_lab_internal.settings_plan(workload text, settings jsonb[], clients integer,
                                          duration interval, rounds integer, label text,
                                          scripts text[], variables jsonb, caller jsonb)
RETURNS jsonb LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pg_catalog.jsonb_build_object('workload', pgbench_lab_internal.experiment_workload(workload, scripts),
               'label', label,
               'params', p.params OPERATOR(pg_catalog.||) pg_catalog.jsonb_strip_nulls(pg_catalog.jsonb_build_object(
                             'scripts', pg_catalog.to_jsonb(scripts), 'variables', variables)),
               'system_names', (SELECT COALESCE(pg_catalog.jsonb_agg(DISTINCT k.key ORDER BY k.key), '[]')
                                  FROM pg_catalog.unnest(settings) AS a(s),
                                       pg_catalog.jsonb_object_keys(pgbench_lab_internal.settings_part(a.s, true)) AS k(key)),
               'steps', (SELECT pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object(
                                    'variant', s.v, 'round', s.r,
                                    'about', 'settings set ' OPERATOR(pg_catalog.||) pg_catalog.chr(64 OPERATOR(pg_catalog.+) s.v),
                                    'system', pgbench_lab_internal.settings_part(settings[s.v], true),
                                    'run', pg_catalog.jsonb_build_object('clients', clients,
                                               'duration', p.params OPERATOR(pg_catalog.->) 'duration', 'label', label,
                                               'settings', pgbench_lab_internal.settings_part(settings[s.v], false))
                                           OPERATOR(pg_catalog.||) pgbench_lab_internal.step_workload(workload, scripts, variables))
                                ORDER BY s.r, s.v)
                           FROM pg_catalog.generate_series(1, rounds) AS r(r),
                                LATERAL (SELECT r.r, v.v FROM pg_catalog.generate_series(1, pg_catalog.cardinality(settings)) AS v(v)) s))
      FROM (SELECT pgbench_lab_internal.compare_params(pgbench_lab_internal.experiment_workload(workload, scripts),
                                                       settings, clients, duration, rounds) AS params) p
$$;

-- The procedure's INOUT columns.
CREATE FUNCTION pgbench_lab_internal.settings_result(id bigint)
RETURNS TABLE (experiment_id bigint, finding text)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT id, pgbench_lab_internal.settings_finding(id)
$$;

CREATE FUNCTION pgbench_lab_internal.report_settings(experiment_id bigint)
RETURNS SETOF text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    sets pg_catalog.jsonb;
BEGIN
    SELECT e.params OPERATOR(pg_catalog.->) 'settings' INTO sets FROM pgbench_lab.experiments e
     WHERE e.experiment_id OPERATOR(pg_catalog.=) report_settings.experiment_id;
    RETURN QUERY SELECT 'Settings sets';
    RETURN QUERY SELECT pg_catalog.format('  %s: %s', pg_catalog.chr(64 OPERATOR(pg_catalog.+) i::integer), pgbench_lab_internal.settings_text(s))
                   FROM pg_catalog.jsonb_array_elements(sets) WITH ORDINALITY AS a(s, i);
    RETURN QUERY SELECT '';
    RETURN QUERY SELECT 'TPS per round (the sets run interleaved within each round)';
    RETURN QUERY SELECT pg_catalog.format('  %5s', 'round') OPERATOR(pg_catalog.||) (SELECT pg_catalog.string_agg(pg_catalog.format('  %10s', pg_catalog.chr(64 OPERATOR(pg_catalog.+) i::integer)), '' ORDER BY i)
                                              FROM pg_catalog.jsonb_array_elements(sets) WITH ORDINALITY AS a(s, i));
    RETURN QUERY
        SELECT pg_catalog.format('  %5s', x.round) OPERATOR(pg_catalog.||) pg_catalog.string_agg(pg_catalog.format('  %10s', CASE WHEN r.status OPERATOR(pg_catalog.=) 'done'
                      THEN pgbench_lab_internal.fmt(r.tps) ELSE r.status END), '' ORDER BY x.variant)
          FROM pgbench_lab.experiment_runs x JOIN pgbench_lab.runs r ON r.run_id OPERATOR(pg_catalog.=) x.run_id
         WHERE x.experiment_id OPERATOR(pg_catalog.=) report_settings.experiment_id
         GROUP BY x.round ORDER BY x.round;
    RETURN QUERY SELECT '';
    RETURN QUERY SELECT pg_catalog.format('  %3s  %10s  %10s  %10s  %12s  %s', 'set', 'median TPS', 'min', 'max',
                       'lat avg ms', 'TPS ratio to A: median (min - max)');
    RETURN QUERY
        SELECT pg_catalog.format('  %3s  %10s  %10s  %10s  %12s  ×%s (×%s - ×%s)', s.name, pgbench_lab_internal.fmt(s.tps_median),
                      pgbench_lab_internal.fmt(s.tps_min), pgbench_lab_internal.fmt(s.tps_max),
                      pgbench_lab_internal.fmt(s.latency_avg_ms_median, 3), pgbench_lab_internal.fmt(s.ratio_median, 3),
                      pgbench_lab_internal.fmt(s.ratio_min, 3), pgbench_lab_internal.fmt(s.ratio_max, 3))
          FROM pgbench_lab.settings_ratios(experiment_id) s;
    RETURN QUERY SELECT '';
    RETURN QUERY SELECT pgbench_lab_internal.wrap(pgbench_lab_internal.settings_finding(experiment_id), '');
    -- a faster set may be faster because it gave up durability: say so
    RETURN QUERY
        SELECT x.w FROM (
            SELECT pg_catalog.string_agg(pg_catalog.format('%s = %s (set %s)', e.key, e.value,
                                         pg_catalog.chr(64 OPERATOR(pg_catalog.+) a.i::integer)), ', ' ORDER BY a.i, e.key) AS what
              FROM pg_catalog.jsonb_array_elements(sets) WITH ORDINALITY AS a(s, i),
                   pg_catalog.jsonb_each_text(CASE WHEN pg_catalog.jsonb_typeof(a.s) OPERATOR(pg_catalog.=) 'object' THEN a.s END) AS e(key, value)
             WHERE e.key OPERATOR(pg_catalog.=) ANY (ARRAY['synchronous_commit', 'fsync', 'full_page_writes'])
               AND pg_catalog.lower(e.value) OPERATOR(pg_catalog.=) ANY (ARRAY['off', 'false', 'no', '0'])) d,
             pgbench_lab_internal.wrap(pg_catalog.format('Durability: %s trades durability for speed. With synchronous_commit off a crash loses the last commits a client was told had succeeded; with fsync or full_page_writes off a crash can corrupt the data. Read its TPS as the price of that trade, not as a free gain.', d.what), '') WITH ORDINALITY AS x(w, j)
         WHERE d.what IS NOT NULL
         ORDER BY x.j;
END
$$;

CREATE PROCEDURE pgbench_lab.compare_settings(
    workload text DEFAULT NULL,
    settings jsonb[] DEFAULT NULL,
    clients integer DEFAULT 1,
    duration interval DEFAULT '10 s',
    rounds integer DEFAULT 3,
    label text DEFAULT NULL,
    scripts text[] DEFAULT NULL,
    variables jsonb DEFAULT NULL,
    INOUT experiment_id bigint DEFAULT NULL,
    INOUT finding text DEFAULT NULL)
LANGUAGE c
AS 'MODULE_PATHNAME', 'pgbench_lab_experiment';
COMMENT ON PROCEDURE pgbench_lab.compare_settings(text, jsonb[], integer, interval, integer, text, text[], jsonb, bigint, text) IS
    'The same workload under each set of session or reload-level settings, rounds interleaved, restored after; TPS ratios with their spread';

REVOKE ALL ON PROCEDURE pgbench_lab.compare_settings(text, jsonb[], integer, interval, integer, text, text[], jsonb, bigint, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION pgbench_lab.settings_ratios(bigint) TO pg_monitor;

INSERT INTO pgbench_lab.experiment_kinds (kind, procedure, planner, preparation, finding, report, description)
VALUES ('compare_settings', 'pgbench_lab.compare_settings(text, jsonb[], integer, interval, integer, text, text[], jsonb, bigint, text)',
        'pgbench_lab_internal.settings_plan(text, jsonb[], integer, interval, integer, text, text[], jsonb, jsonb)', NULL,
        'pgbench_lab_internal.settings_result(bigint)', 'pgbench_lab_internal.report_settings(bigint)',
        'The same workload under each set of session or reload-level settings, rounds interleaved; TPS ratios to set A')
ON CONFLICT (kind) DO UPDATE SET procedure = EXCLUDED.procedure, planner = EXCLUDED.planner,
    preparation = EXCLUDED.preparation, finding = EXCLUDED.finding, report = EXCLUDED.report,
    description = EXCLUDED.description;
