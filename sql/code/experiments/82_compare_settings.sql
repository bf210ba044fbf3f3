
-- ---------------------------------------------------------------------------
-- compare_settings(): the same workload under each set of settings, the
-- sets interleaved within each round.  Session settings go to the runs;
-- reload-level ones (context sighup: max_wal_size, checkpoint_timeout...)
-- are written with ALTER SYSTEM before each run, the server reloads, and
-- postgresql.auto.conf is put back as it was afterwards, whatever happens
-- (superusers only; src/settings_apply.c).
--
-- Restart-level settings (restart_settings: shared_buffers, max_connections
-- ...) take two phases with a restart between them (src/experiment_restart.c):
-- compare_settings() measures the current settings (A) in its rounds,
-- writes B with ALTER SYSTEM, and stops, waiting for a restart; resume()
-- checks that the server restarted and runs with B's values, measures B in
-- as many rounds, and writes A's entries back (a second restart returns
-- to them).  The sets cannot interleave across a restart.  So that the two
-- phases start alike, every run of either phase begins with pgbench's
-- tables and indexes loaded into shared buffers by pg_prewarm, as far as
-- they fit (pgbench_lab.warm()); the OS page cache is not emptied by a
-- restart of PostgreSQL, and is left as it is in both.
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
                  HINT = 'Pass values or leave them out for the defaults (1 client, 10 s, 6 rounds).';
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
                  HINT = 'Six rounds or more give a verdict at 95 % confidence.';
    END IF;
    RETURN pg_catalog.jsonb_build_object('settings', pg_catalog.to_jsonb(settings), 'clients', clients,
                              'duration', duration::pg_catalog.text, 'rounds', rounds);
END
$$;

-- Per settings set: TPS and the ratio to set A, paired round by round (the
-- interleaving cancels drift), as a median with its min and max, and the
-- verdict of paired_verdict() (71_verdict.sql): the median's interval and
-- faster, slower, no difference detectable or undecided, against the experiment's
-- smallest effect and confidence (2 % and 95 % unless it was given others;
-- with adaptive rounds, each look's share of it: look_confidence()).
CREATE FUNCTION pgbench_lab.settings_ratios(experiment_id bigint)
RETURNS TABLE (variant integer, name text, settings jsonb, rounds integer,
               tps_median double precision, tps_min double precision, tps_max double precision,
               latency_avg_ms_median double precision, ratio_median double precision,
               ratio_min double precision, ratio_max double precision,
               ratio_low double precision, ratio_high double precision, coverage double precision,
               verdict text, decided boolean, every_round text, basis text)
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
         WHERE x.experiment_id OPERATOR(pg_catalog.=) settings_ratios.experiment_id AND r.status OPERATOR(pg_catalog.=) 'done'),
    e AS (
        SELECT e.params,
               pgbench_lab_internal.params_smallest_effect(e.params) AS smallest_effect,
               pgbench_lab_internal.look_confidence(e.params) AS confidence
          FROM pgbench_lab.experiments e
         WHERE e.experiment_id OPERATOR(pg_catalog.=) settings_ratios.experiment_id),
    g AS (
        SELECT t.variant, pg_catalog.chr(64 OPERATOR(pg_catalog.+) t.variant) AS name,
               pg_catalog.count(*)::integer AS rounds,
               pg_catalog.percentile_cont(0.5) WITHIN GROUP (ORDER BY t.tps) AS tps_median,
               pg_catalog.min(t.tps) AS tps_min, pg_catalog.max(t.tps) AS tps_max,
               pg_catalog.percentile_cont(0.5) WITHIN GROUP (ORDER BY t.latency_avg_ms) AS latency_median,
               pg_catalog.percentile_cont(0.5) WITHIN GROUP (ORDER BY pgbench_lab_internal.ratio(t.tps, a.tps)) AS ratio_median,
               pg_catalog.min(pgbench_lab_internal.ratio(t.tps, a.tps)) AS ratio_min,
               pg_catalog.max(pgbench_lab_internal.ratio(t.tps, a.tps)) AS ratio_max,
               pg_catalog.array_agg(a.tps ORDER BY t.round) AS a_tps,
               pg_catalog.array_agg(t.tps ORDER BY t.round) AS b_tps
          FROM t LEFT JOIN t a ON a.variant OPERATOR(pg_catalog.=) 1 AND a.round OPERATOR(pg_catalog.=) t.round
         GROUP BY t.variant)
    SELECT g.variant, g.name, e.params OPERATOR(pg_catalog.->) 'settings' OPERATOR(pg_catalog.->) (g.variant OPERATOR(pg_catalog.-) 1),
           g.rounds, g.tps_median, g.tps_min, g.tps_max, g.latency_median, g.ratio_median, g.ratio_min, g.ratio_max,
           v.ratio_low, v.ratio_high, v.coverage, v.verdict, v.decided, v.every_round, v.basis
      FROM g CROSS JOIN e
      LEFT JOIN LATERAL pgbench_lab.paired_verdict(g.a_tps, g.b_tps, e.smallest_effect, e.confidence) v
             ON g.variant OPERATOR(pg_catalog.>) 1
     ORDER BY g.variant;
END
$$;
COMMENT ON FUNCTION pgbench_lab.settings_ratios(bigint) IS
    'TPS per settings set of a compare_settings experiment, with ratios to set A (median, min, max over rounds), the median''s interval and the verdict';

-- The finding: per set, its verdict against A (paired_verdict()), the
-- range of its rounds, a word when the paired ratio and the two medians
-- point different ways (medians_disagree()), and when checkpoint settings
-- were compared by runs that saw no checkpoint; then a drift across the
-- rounds, the path when a commit-bound setting is compared, how adaptive
-- rounds stopped, and the two phases of a restart-level comparison.
CREATE FUNCTION pgbench_lab_internal.settings_finding(experiment_id bigint)
RETURNS text LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT coalesce(pg_catalog.string_agg(pg_catalog.format('%s (%s) against A: TPS %s (the rounds ranged ×%s to ×%s)%s%s',
                    s.name, pgbench_lab_internal.settings_text(s.settings),
                    CASE WHEN s.ratio_median IS NULL THEN 'no round of A to compare with'
                         ELSE pgbench_lab_internal.verdict_phrase(s.rounds, s.ratio_median, s.ratio_low, s.ratio_high,
                                                                  s.coverage, s.verdict, s.basis, s.every_round) END,
                    pgbench_lab_internal.fmt(s.ratio_min, 3), pgbench_lab_internal.fmt(s.ratio_max, 3),
                    CASE WHEN pgbench_lab_internal.medians_disagree(s.ratio_median, s.tps_median, a.tps_median)
                         THEN pg_catalog.format('; yet %s''s median TPS (%s) is %s A''s (%s): the paired ratio and the medians '
                                                'point different ways, so neither tells which set is faster',
                                                s.name, pgbench_lab_internal.fmt(s.tps_median),
                                                CASE WHEN s.tps_median OPERATOR(pg_catalog.<) a.tps_median THEN 'below' ELSE 'above' END,
                                                pgbench_lab_internal.fmt(a.tps_median))
                         ELSE '' END,
                    COALESCE('; ' OPERATOR(pg_catalog.||) pgbench_lab_internal.checkpoint_note(experiment_id, s.variant,
                                 pgbench_lab_internal.sets_holding(pg_catalog.jsonb_build_array(a.settings, s.settings),
                                                                   pgbench_lab_internal.checkpoint_settings()),
                                 pg_catalog.format('A''s or %s''s', s.name)), '')),
                    '. ' ORDER BY s.variant) OPERATOR(pg_catalog.||) '.',
                    'No finished runs to compare.')
           OPERATOR(pg_catalog.||) COALESCE(' ' OPERATOR(pg_catalog.||) pgbench_lab_internal.drift_words(experiment_id,
                                                'a warm-up before the first round (warmup) or longer runs'), '')
           OPERATOR(pg_catalog.||) COALESCE(' ' OPERATOR(pg_catalog.||) pgbench_lab_internal.commit_bound_note(experiment_id), '')
           OPERATOR(pg_catalog.||) COALESCE(' ' OPERATOR(pg_catalog.||) pgbench_lab_internal.rounds_stop(experiment_id), '')
           OPERATOR(pg_catalog.||)
           COALESCE((SELECT ' The sets ran in two phases, A''s rounds before a restart and B''s after it, not interleaved: '
                            'drift between the phases is not cancelled, and round r of B is paired with round r of A. '
                            'postgresql.auto.conf has A''s values again; they take effect at the next restart.'
                       FROM pgbench_lab.experiments e
                      WHERE e.experiment_id OPERATOR(pg_catalog.=) settings_finding.experiment_id
                        AND e.params OPERATOR(pg_catalog.?) 'restart_settings'), '')
      FROM pgbench_lab.settings_ratios(experiment_id) s
      LEFT JOIN pgbench_lab.settings_ratios(experiment_id) a ON a.variant OPERATOR(pg_catalog.=) 1
     WHERE s.variant OPERATOR(pg_catalog.>) 1
$$;

-- The plan: in each round, one run per set, in order (set A first).  run()
-- checks every session setting of every set before the first run, the
-- driver every reload-level one (each step's "system"; "system_names" lists
-- them all, so that a set without one of them runs with its saved value).
-- With restart_settings: set A's rounds (phase 1), then set B's (phase 2),
-- each run prepared by warming pgbench's tables ("prepare"), and the values
-- to write between the phases ("restart"), checked by the driver.
CREATE FUNCTION pgbench_lab_internal.settings_plan(workload text, settings jsonb[], clients integer,
                                          duration interval, rounds pgbench_lab.rounds, label text,
                                          restart_settings jsonb, options jsonb, caller jsonb,
                                          smallest_effect double precision, confidence double precision,
                                          budget interval, warmup interval)
RETURNS jsonb LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
SET intervalstyle = 'postgres'
AS $$
DECLARE
    sets pg_catalog.jsonb[] := settings;
    path pg_catalog.record;
    warm pg_catalog.interval;
    steps pg_catalog.jsonb;
    name pg_catalog.text := pgbench_lab_internal.experiment_workload(workload, options);
    params pg_catalog.jsonb;
    run pg_catalog.jsonb;
    warm_rels pg_catalog.jsonb;
    here pg_catalog.text;
    counted pg_catalog.jsonb := pgbench_lab_internal.rounds_params(rounds, budget, confidence);
    n pg_catalog.int4 := (counted OPERATOR(pg_catalog.->>) 'rounds')::pg_catalog.int4;
BEGIN
    IF restart_settings IS NOT NULL AND counted OPERATOR(pg_catalog.?) 'rounds_auto' THEN
        PERFORM pgbench_lab_internal.refuse_option('compare_settings', 'rounds => ''auto'' with restart_settings',
            'the two phases run on either side of a restart, and rounds cannot be added to the first after the restart',
            'Give a count of rounds, such as rounds => 9.', '0A000');
    END IF;
    -- ALTER SYSTEM and a restart change this server: runs that go to
    -- another one would not see them (session settings travel with the
    -- runs' connections, and are compared there)
    IF restart_settings IS NOT NULL AND pgbench_lab_internal.runs_elsewhere(options) THEN
        PERFORM pgbench_lab_internal.refuse_option('compare_settings', 'restart_settings over target or targets',
            'they are written to this server''s postgresql.auto.conf and take effect at its restart, and the runs go to another server',
            'Run compare_settings on that server itself, or here with via => ''libpq'' and no target (the clients then connect to this server''s own socket).',
            '0A000');
    END IF;
    IF restart_settings IS NULL AND pgbench_lab_internal.runs_elsewhere(options) THEN
        SELECT pg_catalog.string_agg(DISTINCT k.key, ', ') INTO here
          FROM pg_catalog.unnest(settings) AS a(s),
               pg_catalog.jsonb_object_keys(pgbench_lab_internal.settings_part(a.s, true)) AS k(key);
        IF here IS NOT NULL THEN
            PERFORM pgbench_lab_internal.refuse_option('compare_settings', 'reload-level settings over target or targets',
                pg_catalog.format('%s would be changed on this server with ALTER SYSTEM, and the runs go to another server', here),
                'Session settings travel with the runs'' connections and may be compared over targets; compare reload-level settings on that server itself, or here with via => ''libpq'' and no target (this server''s own socket).',
                '0A000');
        END IF;
    END IF;
    IF restart_settings IS NOT NULL THEN
        IF settings IS NOT NULL THEN
            RAISE EXCEPTION 'restart_settings and settings cannot be given together'
                USING ERRCODE = 'invalid_parameter_value',
                      HINT = 'A restart-level experiment compares the current settings (A) with restart_settings (B), in two phases with a restart between them; compare session- and reload-level settings in an experiment of their own.';
        END IF;
        IF (pg_catalog.jsonb_typeof(restart_settings) OPERATOR(pg_catalog.=) 'object') IS NOT TRUE
           OR restart_settings OPERATOR(pg_catalog.=) '{}'::pg_catalog.jsonb THEN
            RAISE EXCEPTION 'restart_settings must be a jsonb object with at least one setting'
                USING ERRCODE = 'invalid_parameter_value',
                      HINT = 'For example restart_settings => ''{"shared_buffers": "1GB"}''.';
        END IF;
        -- names as pg_settings spells them: ALTER SYSTEM writes the name it is given
        restart_settings := (SELECT pg_catalog.jsonb_object_agg(pg_catalog.lower(e.key), e.value)
                               FROM pg_catalog.jsonb_each(restart_settings) AS e(key, value));
        sets := ARRAY['{}'::pg_catalog.jsonb, restart_settings];
    END IF;
    -- a commit-bound setting is measured over libpq unless via says otherwise
    path := pgbench_lab_internal.commit_bound_path(pg_catalog.to_jsonb(sets), options);
    options := path.options_out;
    warm := pgbench_lab_internal.warmup_duration(warmup, duration);
    params := pgbench_lab_internal.step_options_params(options)
              OPERATOR(pg_catalog.||) pgbench_lab_internal.compare_params(name, sets, clients, duration, n)
              OPERATOR(pg_catalog.||) counted
              OPERATOR(pg_catalog.||) pg_catalog.jsonb_strip_nulls(pg_catalog.jsonb_build_object(
                  'restart_settings', restart_settings))
              OPERATOR(pg_catalog.||) pgbench_lab_internal.verdict_params(smallest_effect, confidence)
              OPERATOR(pg_catalog.||) path.params
              OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object('warmup', COALESCE(warm, '0'::pg_catalog.interval)::pg_catalog.text);
    run := pgbench_lab_internal.step_run(workload, options)
           OPERATOR(pg_catalog.||) pg_catalog.jsonb_strip_nulls(pg_catalog.jsonb_build_object('clients', clients,
               'duration', params OPERATOR(pg_catalog.->) 'duration', 'label', label));
    IF restart_settings IS NULL THEN
        steps := (SELECT pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object(
                             'variant', v.v, 'round', r.r,
                             'about', 'settings set ' OPERATOR(pg_catalog.||) pg_catalog.chr(64 OPERATOR(pg_catalog.+) v.v),
                             'system', pgbench_lab_internal.settings_part(sets[v.v], true),
                             'run', run OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object(
                                        'settings', pgbench_lab_internal.settings_part(sets[v.v], false)))
                         ORDER BY r.r, CASE WHEN r.r OPERATOR(pg_catalog.%) 2 OPERATOR(pg_catalog.=) 0
                                            THEN OPERATOR(pg_catalog.-) v.v ELSE v.v END)
                    FROM pg_catalog.generate_series(1, n) AS r(r),
                         pg_catalog.generate_series(1, pg_catalog.cardinality(sets)) AS v(v));
        -- the warm-up: set A's first run, shortened, before everything
        IF warm IS NOT NULL THEN
            steps := pg_catalog.jsonb_build_array(pgbench_lab_internal.warmup_step(steps OPERATOR(pg_catalog.->) 0, warm,
                         pg_catalog.format('settings set A (a warm-up run of %s, not counted)', pgbench_lab_internal.seconds_text(warm))))
                     OPERATOR(pg_catalog.||) steps;
        END IF;
        RETURN pg_catalog.jsonb_build_object('workload', name,
               'label', label, 'params', params,
               'system_names', (SELECT COALESCE(pg_catalog.jsonb_agg(DISTINCT k.key ORDER BY k.key), '[]')
                                  FROM pg_catalog.unnest(sets) AS a(s),
                                       pg_catalog.jsonb_object_keys(pgbench_lab_internal.settings_part(a.s, true)) AS k(key)),
               'steps', steps);
    END IF;
    -- pgbench's tables beside the pgbench_accounts the caller's search_path finds
    warm_rels := (SELECT COALESCE(pg_catalog.jsonb_agg(c.oid::pg_catalog.int8 ORDER BY t.i), '[]')
               FROM pg_catalog.unnest(ARRAY['pgbench_accounts', 'pgbench_branches', 'pgbench_tellers',
                                            'pgbench_history']) WITH ORDINALITY AS t(name, i)
               JOIN pg_catalog.pg_class c ON c.relname OPERATOR(pg_catalog.=) t.name
              WHERE c.relnamespace OPERATOR(pg_catalog.=) (SELECT a.relnamespace FROM pg_catalog.pg_class a
                                          WHERE a.oid OPERATOR(pg_catalog.=) (caller OPERATOR(pg_catalog.->>) 'accounts')::pg_catalog.oid));
    steps := (SELECT pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object(
                         'variant', v.v, 'round', r.r, 'phase', v.v,
                         'about', pg_catalog.format('settings set %s (%s the restart)', pg_catalog.chr(64 OPERATOR(pg_catalog.+) v.v),
                                                    CASE WHEN v.v OPERATOR(pg_catalog.=) 1 THEN 'before' ELSE 'after' END),
                         'prepare', pg_catalog.jsonb_build_object('warm', warm_rels),
                         'run', run)
                     ORDER BY v.v, r.r)
                FROM pg_catalog.generate_series(1, 2) AS v(v),
                     pg_catalog.generate_series(1, n) AS r(r));
    -- a warm-up before each phase's first run: after the restart, the
    -- server starts cold again
    IF warm IS NOT NULL THEN
        steps := (SELECT pg_catalog.jsonb_agg(q.v ORDER BY q.k)
                    FROM (SELECT x.v, x.i::pg_catalog.float8 AS k
                            FROM pg_catalog.jsonb_array_elements(steps) WITH ORDINALITY AS x(v, i)
                          UNION ALL
                          SELECT pgbench_lab_internal.warmup_step(x.v, warm,
                                     pg_catalog.format('%s (a warm-up run of %s, not counted)', x.v OPERATOR(pg_catalog.->>) 'about',
                                                       pgbench_lab_internal.seconds_text(warm))),
                                 x.i::pg_catalog.float8 OPERATOR(pg_catalog.-) 0.5::pg_catalog.float8
                            FROM pg_catalog.jsonb_array_elements(steps) WITH ORDINALITY AS x(v, i)
                           WHERE x.v OPERATOR(pg_catalog.->>) 'round' OPERATOR(pg_catalog.=) '1') q);
    END IF;
    RETURN pg_catalog.jsonb_build_object('workload', name,
           'label', label, 'params', params, 'system_names', '[]'::pg_catalog.jsonb, 'restart', restart_settings,
           'steps', steps);
END
$$;

-- A step's preparation, called by the driver for the steps with a
-- "prepare" (those of a two-phase experiment, a superuser's): pgbench's
-- tables and their indexes loaded into shared buffers through pg_prewarm
-- (as far as they fit), before every run of both phases, so that the runs
-- before and after the restart start alike (a restart empties shared
-- buffers).
CREATE FUNCTION pgbench_lab_internal.settings_prepare(experiment_id bigint, step jsonb)
RETURNS text LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    said pg_catalog.text;
BEGIN
    IF NOT step OPERATOR(pg_catalog.?) 'prepare' THEN
        RETURN NULL;
    END IF;
    SELECT pg_catalog.string_agg(pg_catalog.format('%s (%s blocks)', w.relation, w.blocks), ', ' ORDER BY x.i) INTO said
      FROM pg_catalog.jsonb_array_elements_text(step OPERATOR(pg_catalog.->) 'prepare' OPERATOR(pg_catalog.->) 'warm')
           WITH ORDINALITY AS x(o, i),
           LATERAL (SELECT x.o::pg_catalog.oid::pg_catalog.regclass AS relation, pg_catalog.sum(b.blocks_loaded) AS blocks
                      FROM pgbench_lab.warm(x.o::pg_catalog.oid::pg_catalog.regclass) b) w;
    RETURN pg_catalog.format('%s: pg_prewarm loaded %s into shared buffers', step OPERATOR(pg_catalog.->>) 'about',
                             COALESCE(said, 'nothing (no pgbench tables found)'));
END
$$;

-- The procedure's INOUT columns.
CREATE FUNCTION pgbench_lab_internal.settings_result(id bigint)
RETURNS TABLE (experiment_id bigint, finding text)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT id, CASE WHEN e.status OPERATOR(pg_catalog.=) 'waiting for restart'
                    THEN pg_catalog.format('Phase 1 of 2 done: set A (the current settings) ran %s round(s). Set B''s '
                                           'restart-level settings (%s) are written to postgresql.auto.conf with ALTER SYSTEM '
                                           'and take effect at the next restart. Restart the server, then CALL pgbench_lab.resume(%s).',
                                           e.params OPERATOR(pg_catalog.->>) 'rounds',
                                           pgbench_lab_internal.settings_text(e.params OPERATOR(pg_catalog.->) 'restart_settings'), id)
                    ELSE pgbench_lab_internal.settings_finding(id) END
      FROM pgbench_lab.experiments e WHERE e.experiment_id OPERATOR(pg_catalog.=) id
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
    RETURN QUERY SELECT CASE WHEN (SELECT e.params OPERATOR(pg_catalog.?) 'restart_settings' FROM pgbench_lab.experiments e
                                    WHERE e.experiment_id OPERATOR(pg_catalog.=) report_settings.experiment_id)
                             THEN 'TPS per round (two phases: A''s rounds before the restart, B''s after it; every run starts with pgbench''s tables loaded by pg_prewarm)'
                             ELSE 'TPS per round (the sets run interleaved within each round)' END;
    RETURN QUERY SELECT pg_catalog.format('  %5s', 'round') OPERATOR(pg_catalog.||) (SELECT pg_catalog.string_agg(pg_catalog.format('  %10s', pg_catalog.chr(64 OPERATOR(pg_catalog.+) i::integer)), '' ORDER BY i)
                                              FROM pg_catalog.jsonb_array_elements(sets) WITH ORDINALITY AS a(s, i));
    RETURN QUERY
        SELECT pg_catalog.format('  %5s', x.round) OPERATOR(pg_catalog.||) pg_catalog.string_agg(pg_catalog.format('  %10s', CASE WHEN r.status OPERATOR(pg_catalog.=) 'done'
                      THEN pgbench_lab_internal.fmt(r.tps) ELSE r.status END), '' ORDER BY x.variant)
          FROM pgbench_lab.experiment_runs x JOIN pgbench_lab.runs r ON r.run_id OPERATOR(pg_catalog.=) x.run_id
         WHERE x.experiment_id OPERATOR(pg_catalog.=) report_settings.experiment_id
         GROUP BY x.round ORDER BY x.round;
    RETURN QUERY SELECT '  ' OPERATOR(pg_catalog.||) w.w
                   FROM pgbench_lab.experiments e,
                        pgbench_lab_internal.warmup_words(e.params, CASE WHEN e.params OPERATOR(pg_catalog.?) 'restart_settings'
                                                                         THEN 'each phase''s set' ELSE 'set A' END) AS w(w)
                  WHERE e.experiment_id OPERATOR(pg_catalog.=) report_settings.experiment_id AND w.w IS NOT NULL;
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
    rounds pgbench_lab.rounds DEFAULT 6,
    label text DEFAULT NULL,
    scripts text[] DEFAULT NULL,
    variables jsonb DEFAULT NULL,
    rate double precision DEFAULT NULL,
    latency_limit interval DEFAULT NULL,
    restart_settings jsonb DEFAULT NULL,
    INOUT experiment_id bigint DEFAULT NULL,
    INOUT finding text DEFAULT NULL,
    smallest_effect double precision DEFAULT 0.02,
    confidence double precision DEFAULT 0.95,
    budget interval DEFAULT NULL,
    warmup interval DEFAULT NULL,
    @RUN_OPTIONS_EXCEPT workload clients duration transactions label settings scripts variables rate latency_limit@)
LANGUAGE c
AS 'MODULE_PATHNAME', 'pgbench_lab_experiment';
COMMENT ON PROCEDURE pgbench_lab.compare_settings IS
    'The same workload under each set of session or reload-level settings, rounds interleaved, restored after; or restart-level settings in two phases (resume()); TPS ratios with their spread';

-- Its verdicts (experiment_kinds.verdicts): each set against A, on TPS.
CREATE FUNCTION pgbench_lab_internal.settings_verdicts(experiment_id bigint)
RETURNS TABLE (comparison text, measure text, rounds integer, ratio double precision,
               ratio_low double precision, ratio_high double precision, coverage double precision,
               verdict text, decided boolean, basis text)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT s.name OPERATOR(pg_catalog.||) ' against A', 'tps', s.rounds, s.ratio_median, s.ratio_low, s.ratio_high,
           s.coverage, COALESCE(s.verdict, 'undecided'), COALESCE(s.decided, false),
           COALESCE(s.basis, 'no round of A to compare with')
      FROM pgbench_lab.settings_ratios(experiment_id) s
     WHERE s.variant OPERATOR(pg_catalog.>) 1
     ORDER BY s.variant
$$;

-- The second phase of a two-phase compare_settings (src/experiment_restart.c).
CREATE PROCEDURE pgbench_lab.resume(
    INOUT experiment_id bigint,
    INOUT finding text DEFAULT NULL)
LANGUAGE c
AS 'MODULE_PATHNAME', 'pgbench_lab_resume';
COMMENT ON PROCEDURE pgbench_lab.resume(bigint, text) IS
    'Second phase of a restart-level compare_settings: checks the restart, measures set B, writes A''s values back (a second restart returns to them); superusers only';

REVOKE ALL ON PROCEDURE pgbench_lab.compare_settings FROM PUBLIC;
REVOKE ALL ON PROCEDURE pgbench_lab.resume(bigint, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION pgbench_lab_internal.settings_prepare(bigint, jsonb) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION pgbench_lab.settings_ratios(bigint) TO pg_monitor;

INSERT INTO pgbench_lab.experiment_kinds (kind, procedure, planner, preparation, finding, report, description,
                                          extend, verdicts)
VALUES ('compare_settings', 'pgbench_lab.compare_settings'::pg_catalog.regproc,
        'pgbench_lab_internal.settings_plan'::pg_catalog.regproc,
        'pgbench_lab_internal.settings_prepare(bigint, jsonb)',
        'pgbench_lab_internal.settings_result(bigint)', 'pgbench_lab_internal.report_settings(bigint)',
        'The same workload under each set of session or reload-level settings, rounds interleaved (restart-level: two phases); TPS ratios to set A',
        'pgbench_lab_internal.rounds_extend(bigint, jsonb)', 'pgbench_lab_internal.settings_verdicts(bigint)')
ON CONFLICT (kind) DO UPDATE SET procedure = EXCLUDED.procedure, planner = EXCLUDED.planner,
    preparation = EXCLUDED.preparation, finding = EXCLUDED.finding, report = EXCLUDED.report,
    description = EXCLUDED.description, extend = EXCLUDED.extend, verdicts = EXCLUDED.verdicts;
