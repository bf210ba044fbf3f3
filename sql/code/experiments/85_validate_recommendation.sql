
-- ---------------------------------------------------------------------------
-- validate_recommendation(): recommend()'s changes for this server, measured.
-- They are split by how they take effect: session settings (given to the
-- runs), reload-level ones (ALTER SYSTEM and a reload, restored after:
-- src/settings_apply.c) and restart-level ones (listed, not measured: the
-- finding names the two-phase compare_settings() CALL that measures them).  The
-- current settings (A) and each group that has changes run in interleaved
-- rounds, as compare_settings() runs its sets; the finding gives, per
-- group, TPS, p99 latency and checkpoints per minute against A.
-- ---------------------------------------------------------------------------

-- The plan: variant 1 the current settings, then one variant per group
-- with changes to measure (session, reload), interleaved in each round.
CREATE FUNCTION pgbench_lab_internal.validate_plan(workload text, clients integer, duration interval,
                                                   rounds pgbench_lab.rounds, label text, options jsonb, caller jsonb,
                                                   smallest_effect double precision, confidence double precision,
                                                   budget interval, warmup interval)
RETURNS jsonb LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
SET intervalstyle = 'postgres'
AS $$
DECLARE
    path pg_catalog.record;
    warm pg_catalog.interval;
    steps pg_catalog.jsonb;
    name pg_catalog.text := pgbench_lab_internal.experiment_workload(workload, options);
    elsewhere pg_catalog.bool := pgbench_lab_internal.runs_elsewhere(options);
    changes pg_catalog.jsonb;
    sets pg_catalog.jsonb[] := ARRAY['{}'::pg_catalog.jsonb];
    groups pg_catalog.text[] := ARRAY['current'];
    g pg_catalog.text;
    s pg_catalog.jsonb;
    params pg_catalog.jsonb;
    counted pg_catalog.jsonb;
    n pg_catalog.int4;
BEGIN
    IF name IS NULL OR clients IS NULL OR duration IS NULL OR rounds IS NULL THEN
        RAISE EXCEPTION 'workload, clients, duration and rounds must not be null'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Pass values or leave them out for the defaults (1 client, 10 s, 6 rounds).';
    END IF;
    counted := pgbench_lab_internal.rounds_params(rounds, budget, confidence);
    n := (counted OPERATOR(pg_catalog.->>) 'rounds')::pg_catalog.int4;
    -- recommend()'s changes, each with its group (session, reload, restart,
    -- sysctl); those outside the server's limits are not measured, nor,
    -- when the runs go to another server (target or targets), the reload-
    -- level ones: ALTER SYSTEM here would not reach it (session settings
    -- travel with the runs' connections)
    SELECT COALESCE(pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object('name', r.name, 'current', r.current,
                        'recommended', r.recommended, 'grp', r.context,
                        'measured', r.within_limits AND (r.context OPERATOR(pg_catalog.=) 'session'
                                                         OR (r.context OPERATOR(pg_catalog.=) 'reload' AND NOT elsewhere)),
                        'two_phase', r.within_limits AND r.context OPERATOR(pg_catalog.=) 'restart' AND NOT elsewhere
                                     AND pgbench_lab_internal.restart_comparable(r.name))
                        OPERATOR(pg_catalog.||) CASE WHEN elsewhere AND r.within_limits AND r.context OPERATOR(pg_catalog.=) 'reload'
                                                     THEN '{"why": "reload-level, and the runs went to another server"}'::pg_catalog.jsonb
                                                     ELSE '{}'::pg_catalog.jsonb END
                        ORDER BY r.context, r.name), '[]')
      INTO changes FROM pgbench_lab.recommend() r
     WHERE r.changes;
    FOREACH g IN ARRAY ARRAY['session', 'reload'] LOOP
        SELECT pg_catalog.jsonb_object_agg(c OPERATOR(pg_catalog.->>) 'name', c OPERATOR(pg_catalog.->>) 'recommended')
          INTO s FROM pg_catalog.jsonb_array_elements(changes) c
         WHERE c OPERATOR(pg_catalog.->>) 'grp' OPERATOR(pg_catalog.=) g
           AND (c OPERATOR(pg_catalog.->>) 'measured')::pg_catalog.bool;
        IF s IS NOT NULL THEN
            sets := sets OPERATOR(pg_catalog.||) s;
            groups := groups OPERATOR(pg_catalog.||) g;
        END IF;
    END LOOP;
    IF pg_catalog.cardinality(sets) OPERATOR(pg_catalog.<) 2 AND elsewhere THEN
        RAISE EXCEPTION 'recommend() proposes no session-level change for this server, and only those can be measured over target or targets'
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  HINT = 'Reload- and restart-level settings change this server with ALTER SYSTEM, not the one the runs go to: run validate_recommendation on that server itself, or here with via => ''libpq'' and no target (this server''s own socket).';
    ELSIF pg_catalog.cardinality(sets) OPERATOR(pg_catalog.<) 2 THEN
        RAISE EXCEPTION 'recommend() proposes no session- or reload-level change for this server'
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  HINT = 'SELECT * FROM pgbench_lab.recommend() shows its recommendations; those it would change need a restart, or none differ from the live values.';
    END IF;
    -- a commit-bound change (wal_compression ...) is measured over libpq
    -- unless via says otherwise; a warm-up under the current settings first
    path := pgbench_lab_internal.commit_bound_path(pg_catalog.to_jsonb(sets), options);
    options := path.options_out;
    warm := pgbench_lab_internal.warmup_duration(warmup, duration);
    params := pgbench_lab_internal.step_options_params(options)
              OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object('settings', pg_catalog.to_jsonb(sets), 'groups', pg_catalog.to_jsonb(groups),
                  'changes', changes, 'clients', clients, 'duration', duration::pg_catalog.text)
              OPERATOR(pg_catalog.||) counted
              OPERATOR(pg_catalog.||) pgbench_lab_internal.verdict_params(smallest_effect, confidence)
              OPERATOR(pg_catalog.||) path.params
              OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object('warmup', COALESCE(warm, '0'::pg_catalog.interval)::pg_catalog.text);
    steps := (SELECT pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object(
                             'variant', v.v, 'round', r.r, 'name', groups[v.v],
                             'about', CASE WHEN v.v OPERATOR(pg_catalog.=) 1 THEN 'the current settings'
                                           ELSE pg_catalog.format('the recommended %s settings', groups[v.v]) END,
                             'system', pgbench_lab_internal.settings_part(sets[v.v], true),
                             'run', pgbench_lab_internal.step_run(workload, options)
                                    OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object('clients', clients,
                                        'duration', duration::pg_catalog.text, 'label', label,
                                        'settings', pgbench_lab_internal.settings_part(sets[v.v], false)))
                             ORDER BY r.r, CASE WHEN r.r OPERATOR(pg_catalog.%) 2 OPERATOR(pg_catalog.=) 0
                                                THEN OPERATOR(pg_catalog.-) v.v ELSE v.v END)
                    FROM pg_catalog.generate_series(1, n) AS r(r),
                         pg_catalog.generate_series(1, pg_catalog.cardinality(sets)) AS v(v));
    IF warm IS NOT NULL THEN
        steps := pg_catalog.jsonb_build_array(pgbench_lab_internal.warmup_step(steps OPERATOR(pg_catalog.->) 0, warm,
                     pg_catalog.format('the current settings (a warm-up run of %s, not counted)',
                                       pgbench_lab_internal.seconds_text(warm))))
                 OPERATOR(pg_catalog.||) steps;
    END IF;
    RETURN pg_catalog.jsonb_build_object('workload', name, 'label', label, 'params', params,
        'system_names', (SELECT COALESCE(pg_catalog.jsonb_agg(DISTINCT k.key ORDER BY k.key), '[]')
                           FROM pg_catalog.unnest(sets) AS a(s),
                                pg_catalog.jsonb_object_keys(pgbench_lab_internal.settings_part(a.s, true)) AS k(key)),
        'steps', steps);
END
$$;

-- Per variant: median TPS, its ratio to the current settings paired by
-- round (median, min, max) with its verdict (paired_verdict(), against the
-- experiment's smallest effect and confidence), median p99 latency and the
-- transactions the fewest-transaction run's p99 came from, checkpoints per
-- minute.
CREATE FUNCTION pgbench_lab_internal.validate_groups(id bigint)
RETURNS TABLE (variant integer, grp text, rounds integer, tps_median double precision,
               ratio_median double precision, ratio_min double precision, ratio_max double precision,
               p99_ms_median double precision, checkpoints_per_min double precision,
               ratio_low double precision, ratio_high double precision, coverage double precision,
               verdict text, basis text, every_round text, p99_transactions bigint, decided boolean)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH t AS (
        SELECT x.variant, x.round, r.tps, r.latency_p99_ms, r.checkpoints, r.measured_seconds, r.transactions
          FROM pgbench_lab.experiment_runs x
          JOIN pgbench_lab.runs r ON r.run_id OPERATOR(pg_catalog.=) x.run_id
         WHERE x.experiment_id OPERATOR(pg_catalog.=) id AND r.status OPERATOR(pg_catalog.=) 'done'),
    e AS (
        SELECT e.params,
               pgbench_lab_internal.params_smallest_effect(e.params) AS smallest_effect,
               pgbench_lab_internal.look_confidence(e.params) AS confidence
          FROM pgbench_lab.experiments e WHERE e.experiment_id OPERATOR(pg_catalog.=) id),
    g AS (
        SELECT t.variant,
               pg_catalog.count(*)::integer AS rounds,
               pg_catalog.percentile_cont(0.5) WITHIN GROUP (ORDER BY t.tps) AS tps_median,
               pg_catalog.percentile_cont(0.5) WITHIN GROUP (ORDER BY pgbench_lab_internal.ratio(t.tps, a.tps)) AS ratio_median,
               pg_catalog.min(pgbench_lab_internal.ratio(t.tps, a.tps)) AS ratio_min,
               pg_catalog.max(pgbench_lab_internal.ratio(t.tps, a.tps)) AS ratio_max,
               pg_catalog.percentile_cont(0.5) WITHIN GROUP (ORDER BY t.latency_p99_ms) AS p99,
               CASE WHEN pg_catalog.sum(t.measured_seconds) OPERATOR(pg_catalog.>) 0::pg_catalog.float8
                    THEN pg_catalog.sum(t.checkpoints)::pg_catalog.float8 OPERATOR(pg_catalog.*) 60::pg_catalog.float8
                         OPERATOR(pg_catalog./) pg_catalog.sum(t.measured_seconds) END AS cpm,
               pg_catalog.array_agg(a.tps ORDER BY t.round) AS a_tps,
               pg_catalog.array_agg(t.tps ORDER BY t.round) AS b_tps,
               pg_catalog.min(t.transactions) AS p99_n
          FROM t LEFT JOIN t a ON a.variant OPERATOR(pg_catalog.=) 1 AND a.round OPERATOR(pg_catalog.=) t.round
         GROUP BY t.variant)
    SELECT g.variant, e.params OPERATOR(pg_catalog.->) 'groups' OPERATOR(pg_catalog.->>) (g.variant OPERATOR(pg_catalog.-) 1),
           g.rounds, g.tps_median, g.ratio_median, g.ratio_min, g.ratio_max, g.p99, g.cpm,
           v.ratio_low, v.ratio_high, v.coverage, v.verdict, v.basis, v.every_round, g.p99_n, v.decided
      FROM g CROSS JOIN e
      LEFT JOIN LATERAL pgbench_lab.paired_verdict(g.a_tps, g.b_tps, e.smallest_effect, e.confidence) v
             ON g.variant OPERATOR(pg_catalog.>) 1
     ORDER BY g.variant
$$;

-- Whether compare_settings() takes a restart-level setting in restart_settings
-- (src/settings_apply.c refuses the rest: what the server needs to start,
-- to be reached or to keep its copies, and string values).
CREATE FUNCTION pgbench_lab_internal.restart_comparable(setting_name text)
RETURNS boolean LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT COALESCE((SELECT s.context OPERATOR(pg_catalog.=) 'postmaster' AND s.vartype OPERATOR(pg_catalog.<>) 'string'
                            AND s.source OPERATOR(pg_catalog.<>) ALL (ARRAY['command line', 'environment variable'])
                            AND NOT s.category OPERATOR(pg_catalog.~) '^(Connections and Authentication|File Locations|Replication|Write-Ahead Log / Archiv|Write-Ahead Log / Recovery)'
                            AND NOT s.name OPERATOR(pg_catalog.~) '(_preload_libraries|_library|_library_path|_command|_file)$'
                       FROM pg_catalog.pg_settings s WHERE s.name OPERATOR(pg_catalog.=) setting_name), false)
$$;

-- The restart-level changes compare_settings() can measure, as the CALL
-- that does it in two phases, with this experiment's workload and sizes.
CREATE FUNCTION pgbench_lab_internal.validate_two_phase(id bigint)
RETURNS text LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pg_catalog.format('CALL pgbench_lab.compare_settings(%s, restart_settings => %s, clients => %s, '
                             'duration => %s, rounds => %s%s)',
                             CASE WHEN e.params OPERATOR(pg_catalog.?) 'scripts' THEN 'NULL'
                                  ELSE pg_catalog.quote_literal(e.workload) END,
                             pg_catalog.quote_literal(pg_catalog.jsonb_object_agg(c OPERATOR(pg_catalog.->>) 'name',
                                                                                  c OPERATOR(pg_catalog.->>) 'recommended')::pg_catalog.text),
                             e.params OPERATOR(pg_catalog.->>) 'clients',
                             pg_catalog.quote_literal(e.params OPERATOR(pg_catalog.->>) 'duration'),
                             e.params OPERATOR(pg_catalog.->>) 'rounds',
                             -- the run options the experiment was made with (a script's
                             -- text is not recorded: it is in the runs' run_scripts)
                             (SELECT pg_catalog.string_agg(pg_catalog.format(', %s => %s', o.k,
                                         pg_catalog.quote_literal(CASE WHEN o.k OPERATOR(pg_catalog.=) 'scripts'
                                                                       THEN ARRAY(SELECT pg_catalog.jsonb_array_elements_text(e.params OPERATOR(pg_catalog.->) 'scripts'))::pg_catalog.text
                                                                       WHEN o.k OPERATOR(pg_catalog.=) 'variables'
                                                                       THEN (e.params OPERATOR(pg_catalog.->) o.k)::pg_catalog.text
                                                                       ELSE e.params OPERATOR(pg_catalog.->>) o.k END)), '' ORDER BY o.i)
                                FROM pg_catalog.unnest(ARRAY['max_tries', 'random_seed', 'via', 'rate', 'latency_limit', 'scripts',
                                                             'variables', 'sample_rate', 'threads']) WITH ORDINALITY AS o(k, i)
                               WHERE e.params OPERATOR(pg_catalog.?) o.k
                                 -- a path the experiment chose for its own sets is the CALL's to choose
                                 AND NOT (o.k OPERATOR(pg_catalog.=) 'via' AND e.params OPERATOR(pg_catalog.?) 'via_chosen')))
      FROM pgbench_lab.experiments e, pg_catalog.jsonb_array_elements(e.params OPERATOR(pg_catalog.->) 'changes') c
     WHERE e.experiment_id OPERATOR(pg_catalog.=) id
       AND (c OPERATOR(pg_catalog.->>) 'two_phase')::pg_catalog.bool
     GROUP BY e.workload, e.params
$$;

-- The changes a group measured, by name (its objects of the experiment's
-- params.changes), in order.
CREATE FUNCTION pgbench_lab_internal.validate_group_names(id bigint, grp text, OUT names text[])
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT COALESCE(pg_catalog.array_agg(c OPERATOR(pg_catalog.->>) 'name' ORDER BY c OPERATOR(pg_catalog.->>) 'name'), '{}')
      FROM pgbench_lab.experiments e,
           pg_catalog.jsonb_array_elements(CASE WHEN pg_catalog.jsonb_typeof(e.params OPERATOR(pg_catalog.->) 'changes') OPERATOR(pg_catalog.=) 'array'
                                                THEN e.params OPERATOR(pg_catalog.->) 'changes' ELSE '[]' END) c
     WHERE e.experiment_id OPERATOR(pg_catalog.=) validate_group_names.id
       AND c OPERATOR(pg_catalog.->>) 'grp' OPERATOR(pg_catalog.=) validate_group_names.grp
       AND (c OPERATOR(pg_catalog.->>) 'measured')::pg_catalog.bool
$$;

-- The verdict per measured group, and the restart-level rest.  Each
-- group's sentence leads with the medians of its TPS and the current
-- settings' (what the report's table shows), then the verdict of the
-- ratios paired by round; when the two point different ways, it says so
-- rather than a gain the medians deny (a "+10 %" of the paired ratios
-- beside a median TPS below the current settings' read as a gain).
-- Checkpoint settings measured by runs that saw no checkpoint are named
-- as not exercised; a drift across the rounds and the path of a
-- commit-bound change follow the groups.
CREATE FUNCTION pgbench_lab_internal.validate_finding(id bigint)
RETURNS text LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT COALESCE((SELECT pg_catalog.string_agg(pg_catalog.format(
                'The recommended %s settings (%s): median %s TPS %s against %s with the current ones (%s); '
                'paired round by round, %s (the rounds ranged ×%s to ×%s)%s%s; '
                'p99 latency %s → %s ms%s; checkpoints per minute %s → %s.',
                g.grp, pg_catalog.array_to_string(c.names, ', '),
                (SELECT e.workload FROM pgbench_lab.experiments e WHERE e.experiment_id OPERATOR(pg_catalog.=) id),
                pgbench_lab_internal.fmt(g.tps_median), pgbench_lab_internal.fmt(a.tps_median),
                CASE WHEN pgbench_lab_internal.pct_change(g.tps_median, a.tps_median) OPERATOR(pg_catalog.=) ''
                     THEN 'no comparable figure' ELSE pgbench_lab_internal.pct_change(g.tps_median, a.tps_median) END,
                CASE WHEN g.ratio_median IS NULL THEN 'no round of the current settings to compare with'
                     ELSE pgbench_lab_internal.verdict_phrase(g.rounds, g.ratio_median, g.ratio_low, g.ratio_high,
                                                              g.coverage, g.verdict, g.basis, g.every_round) END,
                pgbench_lab_internal.fmt(g.ratio_min, 3), pgbench_lab_internal.fmt(g.ratio_max, 3),
                CASE WHEN pgbench_lab_internal.medians_disagree(g.ratio_median, g.tps_median, a.tps_median)
                     THEN '; the paired ratio and the medians point different ways, so neither tells which is faster'
                     ELSE '' END,
                COALESCE('; ' OPERATOR(pg_catalog.||) pgbench_lab_internal.checkpoint_note(id, g.variant,
                             ARRAY(SELECT x FROM pg_catalog.unnest(c.names) AS x
                                     WHERE x OPERATOR(pg_catalog.=) ANY (pgbench_lab_internal.checkpoint_settings())),
                             'its or the current settings'''), ''),
                pgbench_lab_internal.fmt(a.p99_ms_median, 2), pgbench_lab_internal.fmt(g.p99_ms_median, 2),
                CASE WHEN LEAST(a.p99_transactions, g.p99_transactions) OPERATOR(pg_catalog.<) pgbench_lab_internal.transactions_needed(0.99::pg_catalog.float8)
                     THEN pg_catalog.format(' (from runs of as few as %s transactions: too few for a p99 to decide by)',
                                            LEAST(a.p99_transactions, g.p99_transactions))
                     ELSE '' END,
                pgbench_lab_internal.fmt(a.checkpoints_per_min, 1), pgbench_lab_internal.fmt(g.checkpoints_per_min, 1)),
                ' ' ORDER BY g.variant)
              FROM pgbench_lab_internal.validate_groups(id) g
              LEFT JOIN pgbench_lab_internal.validate_groups(id) a ON a.variant OPERATOR(pg_catalog.=) 1
              LEFT JOIN LATERAL pgbench_lab_internal.validate_group_names(id, g.grp) c ON true
             WHERE g.variant OPERATOR(pg_catalog.>) 1), 'No finished runs to compare.')
           OPERATOR(pg_catalog.||) COALESCE(' ' OPERATOR(pg_catalog.||) pgbench_lab_internal.drift_words(id,
                                                'a warm-up before the first round (warmup) or longer runs'), '')
           OPERATOR(pg_catalog.||) COALESCE(' ' OPERATOR(pg_catalog.||) pgbench_lab_internal.commit_bound_note(id), '')
           OPERATOR(pg_catalog.||) COALESCE(' ' OPERATOR(pg_catalog.||) pgbench_lab_internal.rounds_stop(id), '')
           OPERATOR(pg_catalog.||)
           COALESCE((SELECT pg_catalog.format(' Not measured: %s. A restart-level setting takes ALTER SYSTEM and a '
                                              'restart, an OS one (sysctl) the kernel''s setting; then run the same workload again.',
                                              pg_catalog.string_agg(pg_catalog.format('%s %s → %s (%s)', c OPERATOR(pg_catalog.->>) 'name',
                                                  c OPERATOR(pg_catalog.->>) 'current', c OPERATOR(pg_catalog.->>) 'recommended',
                                                  COALESCE(c OPERATOR(pg_catalog.->>) 'why',
                                                  CASE WHEN c OPERATOR(pg_catalog.->>) 'grp' OPERATOR(pg_catalog.=) ANY (ARRAY['session', 'reload'])
                                                       THEN 'outside the server''s limits' ELSE c OPERATOR(pg_catalog.->>) 'grp' END)),
                                                  ', ' ORDER BY c OPERATOR(pg_catalog.->>) 'name'))
                       FROM pgbench_lab.experiments e, pg_catalog.jsonb_array_elements(e.params OPERATOR(pg_catalog.->) 'changes') c
                      WHERE e.experiment_id OPERATOR(pg_catalog.=) id
                        AND NOT (c OPERATOR(pg_catalog.->>) 'measured')::pg_catalog.bool
                     HAVING pg_catalog.count(*) OPERATOR(pg_catalog.>) 0), '')
           OPERATOR(pg_catalog.||)
           COALESCE(' To measure the restart-level ones, in two phases with a restart between them: '
                    OPERATOR(pg_catalog.||) pgbench_lab_internal.validate_two_phase(id)
                    OPERATOR(pg_catalog.||) '; then restart the server when it asks, and CALL pgbench_lab.resume(experiment_id).', '')
$$;

-- Its verdicts (experiment_kinds.verdicts): each measured group against
-- the current settings, on TPS.
CREATE FUNCTION pgbench_lab_internal.validate_verdicts(experiment_id bigint)
RETURNS TABLE (comparison text, measure text, rounds integer, ratio double precision,
               ratio_low double precision, ratio_high double precision, coverage double precision,
               verdict text, decided boolean, basis text)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pg_catalog.format('recommended %s settings against the current ones', g.grp), 'tps', g.rounds,
           g.ratio_median, g.ratio_low, g.ratio_high, g.coverage, COALESCE(g.verdict, 'undecided'),
           COALESCE(g.decided, false), COALESCE(g.basis, 'no round of the current settings to compare with')
      FROM pgbench_lab_internal.validate_groups(experiment_id) g
     WHERE g.variant OPERATOR(pg_catalog.>) 1
     ORDER BY g.variant
$$;

-- The procedure's INOUT columns.
CREATE FUNCTION pgbench_lab_internal.validate_result(id bigint)
RETURNS TABLE (experiment_id bigint, finding text)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT id, pgbench_lab.printable(pgbench_lab_internal.validate_finding(id))
$$;

CREATE FUNCTION pgbench_lab_internal.report_validate(experiment_id bigint)
RETURNS SETOF text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    p pg_catalog.jsonb;
BEGIN
    SELECT e.params INTO p FROM pgbench_lab.experiments e
     WHERE e.experiment_id OPERATOR(pg_catalog.=) report_validate.experiment_id;
    RETURN QUERY SELECT 'Recommendations (current → recommended)';
    RETURN QUERY
        SELECT pg_catalog.format('  %-32s %12s → %-12s %s', pgbench_lab.printable(c OPERATOR(pg_catalog.->>) 'name'),
                      pgbench_lab.printable(c OPERATOR(pg_catalog.->>) 'current'),
                      pgbench_lab.printable(c OPERATOR(pg_catalog.->>) 'recommended'),
                      CASE WHEN (c OPERATOR(pg_catalog.->>) 'measured')::pg_catalog.bool
                           THEN pg_catalog.format('%s, measured', pgbench_lab.printable(c OPERATOR(pg_catalog.->>) 'grp'))
                           ELSE pg_catalog.format('%s, not measured', pgbench_lab.printable(c OPERATOR(pg_catalog.->>) 'grp')) END)
          FROM pg_catalog.jsonb_array_elements(p OPERATOR(pg_catalog.->) 'changes') WITH ORDINALITY AS a(c, i)
         ORDER BY a.i;
    RETURN QUERY SELECT '';
    RETURN QUERY SELECT 'Per group: median over rounds; TPS ratio to the current settings, paired round by round';
    RETURN QUERY SELECT pg_catalog.format('  %-8s  %6s  %10s  %22s  %8s  %14s', 'group', 'rounds', 'median TPS',
                       'ratio: median (min-max)', 'p99 ms', 'checkpoints/min');
    RETURN QUERY
        SELECT pg_catalog.format('  %-8s  %6s  %10s  %22s  %8s  %14s', pgbench_lab.printable(g.grp), g.rounds, pgbench_lab_internal.fmt(g.tps_median),
                      pg_catalog.format('×%s (×%s-×%s)', pgbench_lab_internal.fmt(g.ratio_median, 3),
                                        pgbench_lab_internal.fmt(g.ratio_min, 3), pgbench_lab_internal.fmt(g.ratio_max, 3)),
                      pgbench_lab_internal.fmt(g.p99_ms_median, 2), pgbench_lab_internal.fmt(g.checkpoints_per_min, 1))
          FROM pgbench_lab_internal.validate_groups(experiment_id) g;
    RETURN QUERY SELECT '  ' OPERATOR(pg_catalog.||) w.w
                   FROM pgbench_lab_internal.warmup_words(p, 'the current settings') AS w(w) WHERE w.w IS NOT NULL;
    RETURN QUERY SELECT '';
    RETURN QUERY SELECT pgbench_lab_internal.wrap(pgbench_lab.printable(pgbench_lab_internal.validate_finding(experiment_id)), '');
END
$$;

CREATE PROCEDURE pgbench_lab.validate_recommendation(
    workload text,
    clients integer DEFAULT 1,
    duration interval DEFAULT '10 s',
    rounds pgbench_lab.rounds DEFAULT 6,
    label text DEFAULT NULL,
    INOUT experiment_id bigint DEFAULT NULL,
    INOUT finding text DEFAULT NULL,
    smallest_effect double precision DEFAULT 0.02,
    confidence double precision DEFAULT 0.95,
    budget interval DEFAULT NULL,
    warmup interval DEFAULT NULL,
    @RUN_OPTIONS_EXCEPT workload clients duration transactions label settings@)
LANGUAGE c
AS 'MODULE_PATHNAME', 'pgbench_lab_experiment';
COMMENT ON PROCEDURE pgbench_lab.validate_recommendation IS
    'recommend()''s session- and reload-level changes measured against the current settings, rounds interleaved, restored after; the restart-level rest listed';

REVOKE ALL ON PROCEDURE pgbench_lab.validate_recommendation FROM PUBLIC;

INSERT INTO pgbench_lab.experiment_kinds (kind, procedure, planner, preparation, finding, report, description,
                                          extend, verdicts)
VALUES ('validate_recommendation', 'pgbench_lab.validate_recommendation'::pg_catalog.regproc,
        'pgbench_lab_internal.validate_plan'::pg_catalog.regproc, NULL,
        'pgbench_lab_internal.validate_result(bigint)', 'pgbench_lab_internal.report_validate(bigint)',
        'recommend()''s session- and reload-level changes against the current settings, rounds interleaved; TPS, p99 and checkpoints per group',
        'pgbench_lab_internal.rounds_extend(bigint, jsonb)', 'pgbench_lab_internal.validate_verdicts(bigint)')
ON CONFLICT (kind) DO UPDATE SET procedure = EXCLUDED.procedure, planner = EXCLUDED.planner,
    preparation = EXCLUDED.preparation, finding = EXCLUDED.finding, report = EXCLUDED.report,
    description = EXCLUDED.description, extend = EXCLUDED.extend, verdicts = EXCLUDED.verdicts;
