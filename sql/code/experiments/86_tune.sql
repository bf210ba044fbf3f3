
-- ---------------------------------------------------------------------------
-- tune(): settings searched and proven on a workload, an experiment kind of
-- the one driver (src/experiment.c).  The incumbent starts as the live
-- configuration with the given session settings.  The plan holds the
-- moves of the search, fixed in advance: recommend()'s values for the
-- searched knobs, then each knob's candidates (derived from this machine:
-- recommend(), the live values), knob by knob, interacting pairs together
-- (max_wal_size with checkpoint_timeout, commit_delay with commit_siblings).
-- Every candidate passes memory_budget() before it is planned.
--
-- Each move is compared with the incumbent of its time in paired rounds
-- (A, B; B, A; ...) judged by paired_verdict(): its rounds grow at looks
-- fixed in advance (auto_looks()), each look's interval at its share of
-- the comparison's confidence, and the comparison's confidence is the
-- experiment's spread over the planned comparisons (Bonferroni: 1 - (1 -
-- confidence) / k).  A move decided faster becomes the incumbent; one
-- decided slower or the same stops at its look.  The extension
-- (tune_extend) adds one batch at a time: the current move's next look,
-- else the next move's first, while the budget holds them and the final
-- proof (at the pace of the runs so far).  The search is a replay of the
-- recorded runs (tune_search): which moves ran, their verdicts, and the
-- incumbent each was compared with follow from the runs alone.
--
-- The final proof: the winner against the starting configuration and
-- against recommend()'s values, in fresh rounds (the search's rounds
-- picked the winner, and would flatter it), each at the experiment's
-- confidence.  Variants: move m is 2m-1 (its incumbent) and 2m (the
-- move); the proof's after those: start, winner, recommend()'s, winner.
--
-- Reload-level knobs are written with ALTER SYSTEM per step and
-- postgresql.auto.conf put back byte for byte whatever happens, as the
-- settings experiments do (src/settings_apply.c).  Restart-level knobs are
-- not searched.  fsync, synchronous_commit and full_page_writes are
-- searched only when named with allow_unsafe => true.
-- ---------------------------------------------------------------------------

-- The knobs tune() searches: their group (a pair searched together), their
-- order, whether they give up durability, and whether they are in the
-- default set.
CREATE FUNCTION pgbench_lab_internal.tune_knobs()
RETURNS TABLE (knob text, grp text, ord integer, unsafe boolean, by_default boolean)
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT k.knob, k.grp, k.ord, k.unsafe, NOT k.unsafe
      FROM (VALUES ('work_mem', 'work_mem', 1, false),
                   ('random_page_cost', 'random_page_cost', 2, false),
                   ('effective_io_concurrency', 'effective_io_concurrency', 3, false),
                   ('jit', 'jit', 4, false),
                   ('max_wal_size', 'checkpoints', 5, false),
                   ('checkpoint_timeout', 'checkpoints', 6, false),
                   ('checkpoint_completion_target', 'checkpoint_completion_target', 7, false),
                   ('wal_compression', 'wal_compression', 8, false),
                   ('commit_delay', 'commit_delay', 9, false),
                   ('commit_siblings', 'commit_delay', 10, false),
                   ('bgwriter_lru_maxpages', 'bgwriter_lru_maxpages', 11, false),
                   ('wal_writer_delay', 'wal_writer_delay', 12, false),
                   ('synchronous_commit', 'synchronous_commit', 13, true),
                   ('fsync', 'fsync', 14, true),
                   ('full_page_writes', 'full_page_writes', 15, true)) AS k(knob, grp, ord, unsafe)
$$;

-- A setting's value as the runs' sessions start with it: the caller's
-- session's value unless the session changed it, then the value it started
-- with (in the setting's base unit).
CREATE FUNCTION pgbench_lab_internal.tune_live(setting_name text)
RETURNS text LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN s.setting OPERATOR(pg_catalog.=) s.reset_val THEN pg_catalog.current_setting(s.name)
                WHEN s.unit IS NULL OR s.unit OPERATOR(pg_catalog.~) '^[0-9]' THEN s.reset_val
                ELSE s.reset_val OPERATOR(pg_catalog.||) s.unit END
      FROM pg_catalog.pg_settings s WHERE s.name OPERATOR(pg_catalog.=) setting_name
$$;

-- A memory size times a factor, as 'NNMB' (or 'NNkB' below a megabyte).
CREATE FUNCTION pgbench_lab_internal.tune_mem_times(v text, f double precision)
RETURNS text LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN b OPERATOR(pg_catalog.>=) 1048576::pg_catalog.float8
                THEN pg_catalog.round(b OPERATOR(pg_catalog./) 1048576::pg_catalog.float8)::pg_catalog.int8::pg_catalog.text OPERATOR(pg_catalog.||) 'MB'
                ELSE GREATEST(pg_catalog.round(b OPERATOR(pg_catalog./) 1024::pg_catalog.float8), 64::pg_catalog.float8)::pg_catalog.int8::pg_catalog.text OPERATOR(pg_catalog.||) 'kB' END
      FROM (SELECT pg_catalog.pg_size_bytes(v)::pg_catalog.float8 OPERATOR(pg_catalog.*) f AS b) x
$$;

-- A knob group's candidate changes, from the incumbent's values (inc),
-- recommend()'s (rec) and the runs' clients; each a jsonb object of the
-- group's knobs, none equal to the incumbent's values.
CREATE FUNCTION pgbench_lab_internal.tune_candidates(grp text, inc jsonb, rec jsonb, clients integer)
RETURNS SETOF jsonb LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    c pg_catalog.jsonb[] := ARRAY[]::pg_catalog.jsonb[];
    v pg_catalog.text := inc OPERATOR(pg_catalog.->>) grp;
    r pg_catalog.text := rec OPERATOR(pg_catalog.->>) grp;
    x pg_catalog.jsonb;
BEGIN
    IF grp OPERATOR(pg_catalog.=) 'work_mem' THEN
        c := ARRAY[pg_catalog.jsonb_build_object('work_mem', COALESCE(r, pgbench_lab_internal.tune_mem_times(v, 4))),
                   pg_catalog.jsonb_build_object('work_mem', pgbench_lab_internal.tune_mem_times(COALESCE(r, v), 4))];
    ELSIF grp OPERATOR(pg_catalog.=) 'random_page_cost' THEN
        c := ARRAY[pg_catalog.jsonb_build_object(grp, COALESCE(r, '1.1')), pg_catalog.jsonb_build_object(grp, '2'),
                   pg_catalog.jsonb_build_object(grp, '4')];
    ELSIF grp OPERATOR(pg_catalog.=) 'effective_io_concurrency' THEN
        c := ARRAY[pg_catalog.jsonb_build_object(grp, COALESCE(r, '200')), pg_catalog.jsonb_build_object(grp, '1'),
                   pg_catalog.jsonb_build_object(grp, '200')];
    ELSIF grp OPERATOR(pg_catalog.=) 'jit' THEN
        c := ARRAY[pg_catalog.jsonb_build_object(grp, CASE WHEN v OPERATOR(pg_catalog.=) 'on' THEN 'off' ELSE 'on' END)];
    ELSIF grp OPERATOR(pg_catalog.=) 'checkpoints' THEN
        c := ARRAY[pg_catalog.jsonb_build_object('max_wal_size', COALESCE(rec OPERATOR(pg_catalog.->>) 'max_wal_size', inc OPERATOR(pg_catalog.->>) 'max_wal_size'),
                                                 'checkpoint_timeout', COALESCE(rec OPERATOR(pg_catalog.->>) 'checkpoint_timeout', inc OPERATOR(pg_catalog.->>) 'checkpoint_timeout')),
                   pg_catalog.jsonb_build_object('max_wal_size', pgbench_lab_internal.tune_mem_times(inc OPERATOR(pg_catalog.->>) 'max_wal_size', 4),
                                                 'checkpoint_timeout', '30min')];
    ELSIF grp OPERATOR(pg_catalog.=) 'checkpoint_completion_target' THEN
        c := ARRAY[pg_catalog.jsonb_build_object(grp, COALESCE(r, '0.9')), pg_catalog.jsonb_build_object(grp, '0.5')];
    ELSIF grp OPERATOR(pg_catalog.=) 'wal_compression' THEN
        c := ARRAY[pg_catalog.jsonb_build_object(grp, COALESCE(r, 'pglz'))];
        IF EXISTS (SELECT FROM pg_catalog.pg_settings s WHERE s.name OPERATOR(pg_catalog.=) 'wal_compression'
                      AND 'lz4' OPERATOR(pg_catalog.=) ANY (s.enumvals)) THEN
            c := c OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object(grp, 'lz4');
        END IF;
        c := c OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object(grp, 'off');
    ELSIF grp OPERATOR(pg_catalog.=) 'commit_delay' THEN
        -- a delay helps only with other transactions committing meanwhile
        IF clients OPERATOR(pg_catalog.>=) 2 THEN
            c := ARRAY[pg_catalog.jsonb_build_object('commit_delay', '1000', 'commit_siblings', LEAST(5, clients OPERATOR(pg_catalog.-) 1)::pg_catalog.text),
                       pg_catalog.jsonb_build_object('commit_delay', '100', 'commit_siblings', '2')];
        END IF;
    ELSIF grp OPERATOR(pg_catalog.=) 'bgwriter_lru_maxpages' THEN
        c := ARRAY[pg_catalog.jsonb_build_object(grp, '1000'), pg_catalog.jsonb_build_object(grp, '0')];
    ELSIF grp OPERATOR(pg_catalog.=) 'wal_writer_delay' THEN
        c := ARRAY[pg_catalog.jsonb_build_object(grp, '10ms'), pg_catalog.jsonb_build_object(grp, '1s')];
    ELSE
        -- the durability knobs: off
        c := ARRAY[pg_catalog.jsonb_build_object(grp, 'off')];
    END IF;
    FOREACH x IN ARRAY c LOOP
        -- a change that leaves every value as the incumbent has it is none
        CONTINUE WHEN (inc OPERATOR(pg_catalog.||) x) OPERATOR(pg_catalog.=) inc;
        RETURN NEXT x;
    END LOOP;
END
$$;

-- Whether a configuration's work_mem passes memory_budget(): no
-- out-of-memory risk in its verdict.
CREATE FUNCTION pgbench_lab_internal.tune_memory_ok(work_mem text)
RETURNS boolean LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT COALESCE((SELECT b.status OPERATOR(pg_catalog.<>) 'out-of-memory risk'
                       FROM pgbench_lab.memory_budget(work_mem => work_mem) b
                      WHERE b.component OPERATOR(pg_catalog.=) 'verdict'), true)
$$;

-- The runs of one variant and round order: odd rounds A then B, even
-- rounds B then A, from round first to last.
CREATE FUNCTION pgbench_lab_internal.tune_steps(base jsonb, va integer, a jsonb, vb integer, b jsonb,
                                                first integer, last integer, about text, name text)
RETURNS jsonb LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object(
               'variant', s.v, 'round', r.r, 'name', pg_catalog.format('%s %s', name, CASE WHEN s.i OPERATOR(pg_catalog.=) 1 THEN 'A' ELSE 'B' END),
               'about', pg_catalog.format('%s, round %s of %s, %s', about, r.r, last,
                                          CASE WHEN s.i OPERATOR(pg_catalog.=) 1 THEN 'A' ELSE 'B' END),
               'system', pgbench_lab_internal.settings_part(s.c, true),
               'run', base OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object('settings', pgbench_lab_internal.settings_part(s.c, false)))
           ORDER BY r.r, CASE WHEN r.r OPERATOR(pg_catalog.%) 2 OPERATOR(pg_catalog.=) 0 THEN OPERATOR(pg_catalog.-) s.i ELSE s.i END)
      FROM pg_catalog.generate_series(first, last) AS r(r),
           (VALUES (1, va, a), (2, vb, b)) AS s(i, v, c)
$$;

-- The runs of the proof's first look: against the start, and against
-- recommend()'s values when it proposed any (the first move).
CREATE FUNCTION pgbench_lab_internal.tune_proof_runs(moves jsonb, first_look integer)
RETURNS integer LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT 2 OPERATOR(pg_catalog.*) first_look OPERATOR(pg_catalog.*)
           CASE WHEN (moves OPERATOR(pg_catalog.->) 0 OPERATOR(pg_catalog.->>) 'source') OPERATOR(pg_catalog.=) 'recommend()' THEN 2 ELSE 1 END
$$;

-- The confidence of each look of the proof's comparisons.
CREATE FUNCTION pgbench_lab_internal.tune_proof_confidence(params jsonb)
RETURNS double precision LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pgbench_lab_internal.confidence_per_look(pgbench_lab_internal.params_confidence(params),
                                                    params OPERATOR(pg_catalog.->) 'proof_looks')
$$;

CREATE FUNCTION pgbench_lab_internal.tune_plan(workload text, settings jsonb, objective text, knobs text[],
                                               budget interval, smallest_effect double precision,
                                               confidence double precision, levels text[], apply boolean,
                                               allow_unsafe boolean, p99_limit interval, clients integer,
                                               duration interval, label text, options jsonb, caller jsonb)
RETURNS jsonb LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
SET intervalstyle = 'postgres'
AS $$
DECLARE
    name pg_catalog.text := pgbench_lab_internal.experiment_workload(workload, options);
    lv pg_catalog.text[] := COALESCE(levels, ARRAY['session', 'reload']);
    wanted pg_catalog.text[];
    bad pg_catalog.text;
    start pg_catalog.jsonb;
    rec pg_catalog.jsonb;
    rec_change pg_catalog.jsonb;
    moves pg_catalog.jsonb := '[]';
    refused pg_catalog.jsonb := '[]';
    ch pg_catalog.jsonb;
    g pg_catalog.text;
    n pg_catalog.int4;
    search_conf pg_catalog.float8;
    looks pg_catalog.int4[];
    proof_looks pg_catalog.int4[];
    nruns pg_catalog.int4;
    dur pg_catalog.float8;
    need pg_catalog.float8;
    opts pg_catalog.jsonb := options;
    base pg_catalog.jsonb;
    params pg_catalog.jsonb;
    inc pg_catalog.jsonb;
    searched pg_catalog.jsonb;
    su pg_catalog.bool := pg_catalog.current_setting('is_superuser') OPERATOR(pg_catalog.=) 'on';
BEGIN
    IF clients IS NULL OR duration IS NULL OR budget IS NULL OR objective IS NULL OR apply IS NULL
       OR allow_unsafe IS NULL THEN
        RAISE EXCEPTION 'clients, duration, budget, objective, apply and allow_unsafe must not be null'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Leave them out for the defaults (1 client, 10 s runs, a 30 min budget, objective ''tps'').';
    END IF;
    IF duration OPERATOR(pg_catalog.<=) '0'::pg_catalog.interval THEN
        RAISE EXCEPTION 'duration must be above 0, not %', duration
            USING ERRCODE = 'invalid_parameter_value', HINT = 'Each run lasts this long, such as ''10 s''.';
    END IF;
    IF budget OPERATOR(pg_catalog.<=) '0'::pg_catalog.interval OR budget OPERATOR(pg_catalog.>) '1 day'::pg_catalog.interval THEN
        RAISE EXCEPTION 'budget must be above 0 and at most a day, not %', budget
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'The wall time the search and its proof may take, such as ''30 min''.';
    END IF;
    IF NOT objective OPERATOR(pg_catalog.=) ANY (ARRAY['tps', 'p99']) THEN
        RAISE EXCEPTION 'objective must be ''tps'' or ''p99'', not %', pg_catalog.quote_literal(objective)
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = '''tps'' finds the most throughput (under p99_limit if given); ''p99'' the lowest 99th percentile latency at a fixed rate.';
    END IF;
    IF objective OPERATOR(pg_catalog.=) 'p99' AND NOT opts OPERATOR(pg_catalog.?) 'rate' THEN
        RAISE EXCEPTION 'objective ''p99'' needs a fixed rate'
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Give rate => transactions per second: latency compared at different throughputs says nothing.';
    END IF;
    IF p99_limit IS NOT NULL AND (objective OPERATOR(pg_catalog.<>) 'tps' OR p99_limit OPERATOR(pg_catalog.<=) '0'::pg_catalog.interval) THEN
        RAISE EXCEPTION 'p99_limit is for objective ''tps'' and must be above 0'
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'For example objective => ''tps'', p99_limit => ''20 ms'': the most throughput whose p99 stays under 20 ms.';
    END IF;
    PERFORM pgbench_lab_internal.check_flat(pg_catalog.array_ndims(knobs), 'knobs', '''{work_mem,random_page_cost}''');
    PERFORM pgbench_lab_internal.check_flat(pg_catalog.array_ndims(levels), 'levels', '''{session,reload}''');
    IF pg_catalog.cardinality(lv) OPERATOR(pg_catalog.=) 0
       OR EXISTS (SELECT FROM pg_catalog.unnest(lv) l WHERE (l OPERATOR(pg_catalog.=) ANY (ARRAY['session', 'reload'])) IS NOT TRUE) THEN
        RAISE EXCEPTION 'levels must hold ''session'', ''reload'' or both'
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Session settings go to the runs'' sessions; reload-level ones are written with ALTER SYSTEM and restored after. Restart-level settings are compared with compare_settings(restart_settings => ...).';
    END IF;
    IF apply AND NOT su THEN
        RAISE EXCEPTION 'apply => true writes the winner with ALTER SYSTEM, which needs a superuser'
            USING ERRCODE = 'insufficient_privilege',
                  HINT = 'Leave apply out: the finding gives the ALTER SYSTEM lines to run.';
    END IF;
    IF settings IS NOT NULL AND (pg_catalog.jsonb_typeof(settings) OPERATOR(pg_catalog.=) 'object') IS NOT TRUE THEN
        RAISE EXCEPTION 'settings must be a jsonb object'
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'The starting point: session settings over the live configuration, such as ''{"work_mem": "1MB"}''.';
    END IF;
    IF opts OPERATOR(pg_catalog.?) 'transactions' THEN
        PERFORM pgbench_lab_internal.refuse_option('tune', 'transactions',
            'the budget is planned from the runs'' duration', 'Give duration => ''10 s'' instead.');
    END IF;
    -- the application's view: over libpq unless told otherwise
    IF NOT opts OPERATOR(pg_catalog.?) 'via' THEN
        opts := opts OPERATOR(pg_catalog.||) '{"via": "libpq"}'::pg_catalog.jsonb;
    END IF;
    -- the knobs asked for, each known, at a level asked for, and allowed
    wanted := ARRAY(SELECT pg_catalog.lower(x) FROM pg_catalog.unnest(knobs) x);
    SELECT pg_catalog.string_agg(x, ', ') INTO bad FROM pg_catalog.unnest(wanted) x
     WHERE x OPERATOR(pg_catalog.=) ANY (ARRAY['shared_buffers', 'wal_buffers'])
        OR EXISTS (SELECT FROM pg_catalog.pg_settings s WHERE s.name OPERATOR(pg_catalog.=) x
                      AND s.context OPERATOR(pg_catalog.=) 'postmaster');
    IF bad IS NOT NULL THEN
        RAISE EXCEPTION 'tune cannot search restart-level settings: %', bad
            USING ERRCODE = 'feature_not_supported',
                  HINT = pg_catalog.format('A restart-level value takes a restart for each candidate; measure it with CALL pgbench_lab.compare_settings(restart_settings => ''{"%s": "..."}'') and resume().', pg_catalog.split_part(bad, ',', 1));
    END IF;
    SELECT pg_catalog.string_agg(x, ', ') INTO bad FROM pg_catalog.unnest(wanted) x
     WHERE NOT EXISTS (SELECT FROM pgbench_lab_internal.tune_knobs() t WHERE t.knob OPERATOR(pg_catalog.=) x);
    IF bad IS NOT NULL OR pg_catalog.cardinality(wanted) OPERATOR(pg_catalog.=) 0 THEN
        RAISE EXCEPTION 'tune cannot search %', COALESCE(bad, 'an empty list of knobs')
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'The knobs it searches: ' OPERATOR(pg_catalog.||)
                         (SELECT pg_catalog.string_agg(t.knob, ', ' ORDER BY t.ord) FROM pgbench_lab_internal.tune_knobs() t)
                         OPERATOR(pg_catalog.||) ' (the last three with allow_unsafe => true); leave knobs out for the default set.';
    END IF;
    SELECT pg_catalog.string_agg(x, ', ') INTO bad FROM pg_catalog.unnest(wanted) x
      JOIN pgbench_lab_internal.tune_knobs() t ON t.knob OPERATOR(pg_catalog.=) x WHERE t.unsafe;
    IF bad IS NOT NULL AND NOT allow_unsafe THEN
        RAISE EXCEPTION 'tune searches % only with allow_unsafe => true', bad
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'They buy speed with durability: with them off a crash loses committed transactions or corrupts data. Pass allow_unsafe => true only where that loss is acceptable.';
    END IF;
    -- the knobs searched, in order, with their level
    searched := (SELECT COALESCE(pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object('knob', t.knob, 'grp', t.grp, 'ord', t.ord,
                            'lvl', CASE WHEN s.context OPERATOR(pg_catalog.=) 'sighup' THEN 'reload' ELSE 'session' END,
                            'su', s.context OPERATOR(pg_catalog.=) 'superuser') ORDER BY t.ord), '[]')
                   FROM pgbench_lab_internal.tune_knobs() t JOIN pg_catalog.pg_settings s ON s.name OPERATOR(pg_catalog.=) t.knob
                  WHERE CASE WHEN knobs IS NULL THEN t.by_default ELSE t.knob OPERATOR(pg_catalog.=) ANY (wanted) END
                     -- a pair is searched whole
                     OR t.grp OPERATOR(pg_catalog.=) ANY (SELECT u.grp FROM pgbench_lab_internal.tune_knobs() u
                                                          WHERE u.knob OPERATOR(pg_catalog.=) ANY (wanted)));
    IF knobs IS NOT NULL THEN
        SELECT pg_catalog.string_agg(z.knob, ', ') INTO bad
          FROM pg_catalog.jsonb_to_recordset(searched) AS z(knob pg_catalog.text, lvl pg_catalog.text)
         WHERE NOT z.lvl OPERATOR(pg_catalog.=) ANY (lv);
        IF bad IS NOT NULL THEN
            RAISE EXCEPTION 'knobs % are not at a level of levels (%)', bad, pg_catalog.array_to_string(lv, ', ')
                USING ERRCODE = 'invalid_parameter_value',
                      HINT = 'Add their level to levels (''{session,reload}''), or leave them out of knobs.';
        END IF;
    END IF;
    -- at the levels asked for; for a role that is not a superuser, by
    -- default none that only superusers may set (a pair loses both halves)
    searched := (SELECT COALESCE(pg_catalog.jsonb_agg(z.o ORDER BY (z.o OPERATOR(pg_catalog.->>) 'ord')::pg_catalog.int4), '[]')
                   FROM pg_catalog.jsonb_array_elements(searched) AS z(o)
                  WHERE (z.o OPERATOR(pg_catalog.->>) 'lvl') OPERATOR(pg_catalog.=) ANY (lv)
                    AND (su OR knobs IS NOT NULL
                         OR NOT (z.o OPERATOR(pg_catalog.->>) 'grp') OPERATOR(pg_catalog.=) ANY (
                             SELECT y.o OPERATOR(pg_catalog.->>) 'grp' FROM pg_catalog.jsonb_array_elements(searched) AS y(o)
                              WHERE (y.o OPERATOR(pg_catalog.->>) 'su')::pg_catalog.bool)));
    IF NOT su AND EXISTS (SELECT FROM pg_catalog.jsonb_array_elements(searched) AS z(o)
                           WHERE (z.o OPERATOR(pg_catalog.->>) 'lvl') OPERATOR(pg_catalog.=) 'reload'
                              OR (z.o OPERATOR(pg_catalog.->>) 'su')::pg_catalog.bool) THEN
        RAISE EXCEPTION 'tune changes % with ALTER SYSTEM or as a superuser''s session setting, which needs a superuser',
              (SELECT pg_catalog.string_agg(z.o OPERATOR(pg_catalog.->>) 'knob', ', ') FROM pg_catalog.jsonb_array_elements(searched) AS z(o)
                WHERE (z.o OPERATOR(pg_catalog.->>) 'lvl') OPERATOR(pg_catalog.=) 'reload' OR (z.o OPERATOR(pg_catalog.->>) 'su')::pg_catalog.bool)
            USING ERRCODE = 'insufficient_privilege',
                  HINT = 'Pass levels => ''{session}'' (and knobs any role may set in its session), or run it as a superuser.';
    END IF;
    IF pg_catalog.jsonb_array_length(searched) OPERATOR(pg_catalog.=) 0 THEN
        RAISE EXCEPTION 'no knob to search at the levels asked for'
            USING ERRCODE = 'invalid_parameter_value', HINT = 'Pass knobs and levels that meet.';
    END IF;
    -- ALTER SYSTEM changes this server, not another
    IF pgbench_lab_internal.runs_elsewhere(opts)
       AND EXISTS (SELECT FROM pg_catalog.jsonb_array_elements(searched) AS z(o)
                    WHERE (z.o OPERATOR(pg_catalog.->>) 'lvl') OPERATOR(pg_catalog.=) 'reload') THEN
        PERFORM pgbench_lab_internal.refuse_option('tune', 'reload-level knobs over target or targets',
            'they would be changed on this server with ALTER SYSTEM, and the runs go to another server',
            'Pass levels => ''{session}'' (session settings travel with the runs'' connections), or tune on that server itself.', '0A000');
    END IF;
    -- the starting point: the live values of the searched knobs, then settings
    start := COALESCE(settings, '{}'::pg_catalog.jsonb);
    SELECT pg_catalog.jsonb_object_agg(z.o OPERATOR(pg_catalog.->>) 'knob', pgbench_lab_internal.tune_live(z.o OPERATOR(pg_catalog.->>) 'knob'))
           OPERATOR(pg_catalog.||) start
      INTO inc FROM pg_catalog.jsonb_array_elements(searched) AS z(o);
    -- recommend()'s values for the searched knobs
    SELECT COALESCE(pg_catalog.jsonb_object_agg(r.name, r.recommended), '{}') INTO rec
      FROM pgbench_lab.recommend() r
     WHERE r.within_limits AND r.name OPERATOR(pg_catalog.=) ANY (SELECT z.o OPERATOR(pg_catalog.->>) 'knob'
                                                                    FROM pg_catalog.jsonb_array_elements(searched) AS z(o));
    rec_change := (SELECT COALESCE(pg_catalog.jsonb_object_agg(e.key, e.value), '{}')
                     FROM pg_catalog.jsonb_each(rec) e
                    WHERE (inc OPERATOR(pg_catalog.->) e.key) OPERATOR(pg_catalog.<>) e.value);
    IF rec_change OPERATOR(pg_catalog.?) 'work_mem'
       AND NOT pgbench_lab_internal.tune_memory_ok(rec_change OPERATOR(pg_catalog.->>) 'work_mem') THEN
        refused := refused OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_array(rec_change);
        rec_change := rec_change OPERATOR(pg_catalog.-) 'work_mem';
    END IF;
    IF rec_change OPERATOR(pg_catalog.<>) '{}'::pg_catalog.jsonb THEN
        moves := moves OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_array(pg_catalog.jsonb_build_object(
                     'change', rec_change, 'source', 'recommend()'));
    END IF;
    FOR g IN SELECT z.o OPERATOR(pg_catalog.->>) 'grp' FROM pg_catalog.jsonb_array_elements(searched) WITH ORDINALITY AS z(o, i)
              GROUP BY z.o OPERATOR(pg_catalog.->>) 'grp' ORDER BY pg_catalog.min(z.i) LOOP
        FOR ch IN SELECT c FROM pgbench_lab_internal.tune_candidates(g, inc, rec,
                                   COALESCE((opts OPERATOR(pg_catalog.->>) 'clients')::pg_catalog.int4, clients)) c LOOP
            CONTINUE WHEN moves OPERATOR(pg_catalog.@>) pg_catalog.jsonb_build_array(pg_catalog.jsonb_build_object('change', ch));
            IF ch OPERATOR(pg_catalog.?) 'work_mem' AND NOT pgbench_lab_internal.tune_memory_ok(ch OPERATOR(pg_catalog.->>) 'work_mem') THEN
                refused := refused OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_array(ch);
                CONTINUE;
            END IF;
            moves := moves OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_array(pg_catalog.jsonb_build_object(
                         'change', ch, 'source', 'candidate'));
        END LOOP;
    END LOOP;
    n := pg_catalog.jsonb_array_length(moves);
    IF n OPERATOR(pg_catalog.=) 0 THEN
        RAISE EXCEPTION 'no candidate differs from the starting configuration for %',
              (SELECT pg_catalog.string_agg(z.o OPERATOR(pg_catalog.->>) 'knob', ', ') FROM pg_catalog.jsonb_array_elements(searched) AS z(o))
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  HINT = 'Search other knobs, or start elsewhere with settings.';
    END IF;
    PERFORM pgbench_lab_internal.verdict_params(smallest_effect, confidence);
    search_conf := 1::pg_catalog.float8 OPERATOR(pg_catalog.-)
                   ((1::pg_catalog.float8 OPERATOR(pg_catalog.-) confidence) OPERATOR(pg_catalog./) n::pg_catalog.float8);
    looks := pgbench_lab_internal.auto_looks(search_conf);
    proof_looks := pgbench_lab_internal.auto_looks(confidence);
    -- the first comparison's first look and the proof's must fit the budget
    dur := pg_catalog.date_part('epoch', duration);
    nruns := (2 OPERATOR(pg_catalog.*) looks[1]) OPERATOR(pg_catalog.+)
             pgbench_lab_internal.tune_proof_runs(moves, proof_looks[1]);
    need := nruns::pg_catalog.float8 OPERATOR(pg_catalog.*) dur;
    IF need OPERATOR(pg_catalog.>) pg_catalog.date_part('epoch', budget) THEN
        RAISE EXCEPTION 'a budget of % cannot hold one comparison and the proof: % runs of %',
              budget, nruns, duration
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = pg_catalog.format('Give a budget of %s s or more, or shorter runs (duration).', pg_catalog.ceil(need));
    END IF;
    base := pgbench_lab_internal.step_run(workload, opts)
            OPERATOR(pg_catalog.||) pg_catalog.jsonb_strip_nulls(pg_catalog.jsonb_build_object(
                'clients', clients, 'duration', duration::pg_catalog.text, 'label', label));
    params := pgbench_lab_internal.step_options_params(opts)
              OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object(
                  'clients', clients, 'duration', duration::pg_catalog.text, 'objective', objective,
                  'knobs', (SELECT pg_catalog.jsonb_agg(z.o OPERATOR(pg_catalog.->) 'knob') FROM pg_catalog.jsonb_array_elements(searched) AS z(o)),
                  'levels', pg_catalog.to_jsonb(lv), 'budget', budget::pg_catalog.text,
                  'apply', apply, 'allow_unsafe', allow_unsafe,
                  'start', inc, 'settings', start, 'recommended', rec, 'moves', moves, 'refused', refused,
                  'search_confidence', search_conf, 'search_looks', pg_catalog.to_jsonb(looks),
                  'proof_looks', pg_catalog.to_jsonb(proof_looks))
              OPERATOR(pg_catalog.||) pg_catalog.jsonb_strip_nulls(pg_catalog.jsonb_build_object(
                  'p99_limit_ms', pg_catalog.date_part('epoch', p99_limit) OPERATOR(pg_catalog.*) 1000::pg_catalog.float8))
              OPERATOR(pg_catalog.||) pgbench_lab_internal.verdict_params(smallest_effect, confidence);
    RAISE NOTICE 'tune: % candidate% planned (%), each at % %% (Bonferroni); candidate 1 of %: % against the incumbent (%): rounds 1 to %; a budget of %',
        n, CASE WHEN n OPERATOR(pg_catalog.=) 1 THEN '' ELSE 's' END,
        (SELECT pg_catalog.string_agg(pgbench_lab_internal.settings_text(m OPERATOR(pg_catalog.->) 'change'), '; ')
           FROM pg_catalog.jsonb_array_elements(moves) m),
        pgbench_lab_internal.fmt(search_conf OPERATOR(pg_catalog.*) 100::pg_catalog.float8, 2), n,
        pgbench_lab_internal.settings_text(moves OPERATOR(pg_catalog.->) 0 OPERATOR(pg_catalog.->) 'change'),
        pgbench_lab_internal.settings_text(pgbench_lab_internal.tune_diff(inc, inc OPERATOR(pg_catalog.||) (moves OPERATOR(pg_catalog.->) 0 OPERATOR(pg_catalog.->) 'change'))),
        looks[1], budget;
    RETURN pg_catalog.jsonb_build_object('workload', name, 'label', label, 'params', params, 'base', base)
           OPERATOR(pg_catalog.||)
           -- apply: the driver keeps what tune_apply() says, once the file is back
           CASE WHEN apply THEN '{"keep": "pgbench_lab_internal.tune_apply(bigint)"}'::pg_catalog.jsonb
                ELSE '{}'::pg_catalog.jsonb END
           OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object(
        'system_names', (SELECT COALESCE(pg_catalog.jsonb_agg(DISTINCT k.key ORDER BY k.key), '[]')
                           FROM (SELECT pg_catalog.jsonb_object_keys(pgbench_lab_internal.settings_part(inc, true))
                                 UNION
                                 SELECT pg_catalog.jsonb_object_keys(pgbench_lab_internal.settings_part(m OPERATOR(pg_catalog.->) 'change', true))
                                   FROM pg_catalog.jsonb_array_elements(moves) m) AS k(key)),
        'steps', pgbench_lab_internal.tune_steps(base, 1, inc, 2, inc OPERATOR(pg_catalog.||) (moves OPERATOR(pg_catalog.->) 0 OPERATOR(pg_catalog.->) 'change'),
                                                 1, looks[1],
                                                 pg_catalog.format('candidate 1 of %s: %s', n,
                                                     pgbench_lab_internal.settings_text(moves OPERATOR(pg_catalog.->) 0 OPERATOR(pg_catalog.->) 'change')),
                                                 'candidate 1'));
END
$$;

-- The search replayed from the recorded runs: per planned move, the
-- incumbent it met, the verdict at the rounds it ran (each look's interval
-- at its share of the comparison's share of the confidence), and whether
-- it was adopted (decided faster, and under p99_limit when one is given).
-- A move equal to its incumbent did not run; nor did those after the
-- budget ended.
CREATE FUNCTION pgbench_lab_internal.tune_search(experiment_id bigint)
RETURNS TABLE (move integer, source text, change jsonb, incumbent jsonb, candidate jsonb, rounds integer,
               ratio double precision, ratio_low double precision, ratio_high double precision,
               coverage double precision, verdict text, decided boolean, basis text, every_round text,
               p99_ms double precision, adopted boolean)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    params pg_catalog.jsonb;
    inc pg_catalog.jsonb;
    m pg_catalog.jsonb;
    i pg_catalog.int8;
    se pg_catalog.float8;
    conf pg_catalog.float8;
    obj pg_catalog.text;
    lim pg_catalog.float8;
    a pg_catalog.float8[];
    b pg_catalog.float8[];
    v record;
BEGIN
    SELECT e.params INTO params FROM pgbench_lab.experiments e
     WHERE e.experiment_id OPERATOR(pg_catalog.=) tune_search.experiment_id;
    inc := COALESCE(params OPERATOR(pg_catalog.->) 'start', '{}');
    se := pgbench_lab_internal.params_smallest_effect(params);
    conf := pgbench_lab_internal.tune_look_confidence(params);
    obj := COALESCE(params OPERATOR(pg_catalog.->>) 'objective', 'tps');
    lim := (params OPERATOR(pg_catalog.->>) 'p99_limit_ms')::pg_catalog.float8;
    FOR m, i IN SELECT x.m, x.i FROM pg_catalog.jsonb_array_elements(params OPERATOR(pg_catalog.->) 'moves') WITH ORDINALITY AS x(m, i) LOOP
        move := i::pg_catalog.int4;
        source := m OPERATOR(pg_catalog.->>) 'source';
        change := m OPERATOR(pg_catalog.->) 'change';
        incumbent := inc;
        candidate := inc OPERATOR(pg_catalog.||) change;
        rounds := 0; ratio := NULL; ratio_low := NULL; ratio_high := NULL; coverage := NULL;
        verdict := NULL; decided := NULL; every_round := NULL; p99_ms := NULL; adopted := false;
        IF candidate OPERATOR(pg_catalog.=) inc THEN
            basis := 'not run: the incumbent has these values already';
            RETURN NEXT;
            CONTINUE;
        END IF;
        SELECT pg_catalog.array_agg(pgbench_lab_internal.tune_measure(obj, ra.tps, ra.latency_p99_ms) ORDER BY xa.round),
               pg_catalog.array_agg(pgbench_lab_internal.tune_measure(obj, rb.tps, rb.latency_p99_ms) ORDER BY xa.round),
               pg_catalog.percentile_cont(0.5) WITHIN GROUP (ORDER BY rb.latency_p99_ms)
          INTO a, b, p99_ms
          FROM pgbench_lab.experiment_runs xa
          JOIN pgbench_lab.runs ra ON ra.run_id OPERATOR(pg_catalog.=) xa.run_id
          JOIN pgbench_lab.experiment_runs xb ON xb.experiment_id OPERATOR(pg_catalog.=) xa.experiment_id
                                             AND xb.round OPERATOR(pg_catalog.=) xa.round
                                             AND xb.variant OPERATOR(pg_catalog.=) (2 OPERATOR(pg_catalog.*) move)
          JOIN pgbench_lab.runs rb ON rb.run_id OPERATOR(pg_catalog.=) xb.run_id
         WHERE xa.experiment_id OPERATOR(pg_catalog.=) tune_search.experiment_id
           AND xa.variant OPERATOR(pg_catalog.=) (2 OPERATOR(pg_catalog.*) move OPERATOR(pg_catalog.-) 1)
           AND ra.status OPERATOR(pg_catalog.=) 'done' AND rb.status OPERATOR(pg_catalog.=) 'done';
        IF a IS NULL THEN
            basis := CASE WHEN pgbench_lab_internal.tune_last_round(tune_search.experiment_id, (2 OPERATOR(pg_catalog.*) move OPERATOR(pg_catalog.-) 1)::pg_catalog.int4)
                               OPERATOR(pg_catalog.>) 0
                          THEN 'no round with both runs finished (see the runs'' errors)'
                          ELSE 'not run: the budget ended before it' END;
            RETURN NEXT;
            CONTINUE;
        END IF;
        SELECT * INTO v FROM pgbench_lab.paired_verdict(a, b, se, conf);
        rounds := v.rounds; ratio := v.ratio; ratio_low := v.ratio_low; ratio_high := v.ratio_high;
        coverage := v.coverage; verdict := v.verdict; decided := v.decided; basis := v.basis; every_round := v.every_round;
        adopted := v.decided AND v.verdict OPERATOR(pg_catalog.=) 'faster'
                   AND (lim IS NULL OR COALESCE(p99_ms OPERATOR(pg_catalog.<=) lim, false));
        IF v.decided AND v.verdict OPERATOR(pg_catalog.=) 'faster' AND NOT adopted THEN
            basis := basis OPERATOR(pg_catalog.||) pg_catalog.format('; not adopted: its median p99 (%s ms) is over p99_limit (%s ms)',
                                                                      pgbench_lab_internal.fmt(p99_ms, 3), pgbench_lab_internal.fmt(lim, 3));
        END IF;
        IF adopted THEN
            inc := candidate;
        END IF;
        RETURN NEXT;
    END LOOP;
END
$$;

-- A run's figure for the objective, higher is better: TPS, or 1 / p99.
CREATE FUNCTION pgbench_lab_internal.tune_measure(objective text, tps double precision, p99_ms double precision)
RETURNS double precision LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN objective OPERATOR(pg_catalog.=) 'p99'
                THEN CASE WHEN p99_ms OPERATOR(pg_catalog.>) 0::pg_catalog.float8 THEN 1::pg_catalog.float8 OPERATOR(pg_catalog./) p99_ms END
                ELSE tps END
$$;

-- The confidence of each look of a search comparison: the experiment's
-- spread over the planned comparisons (search_confidence), then over the
-- comparison's looks.
CREATE FUNCTION pgbench_lab_internal.tune_look_confidence(params jsonb)
RETURNS double precision LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pgbench_lab_internal.confidence_per_look(
               COALESCE((params OPERATOR(pg_catalog.->>) 'search_confidence')::pg_catalog.float8, 0.95::pg_catalog.float8),
               params OPERATOR(pg_catalog.->) 'search_looks')
$$;

-- The search's winner: the last move adopted, else the starting point.
CREATE FUNCTION pgbench_lab_internal.tune_winner(experiment_id bigint)
RETURNS jsonb LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT COALESCE((SELECT s.candidate FROM pgbench_lab_internal.tune_search(experiment_id) s
                      WHERE s.adopted ORDER BY s.move DESC LIMIT 1),
                    (SELECT e.params OPERATOR(pg_catalog.->) 'start' FROM pgbench_lab.experiments e
                      WHERE e.experiment_id OPERATOR(pg_catalog.=) tune_winner.experiment_id))
$$;

-- recommend()'s values over the starting point (its move's change, as
-- memory_budget() let it through), or NULL when it proposed none.
CREATE FUNCTION pgbench_lab_internal.tune_recommended(params jsonb)
RETURNS jsonb LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT (params OPERATOR(pg_catalog.->) 'start') OPERATOR(pg_catalog.||) (m OPERATOR(pg_catalog.->) 'change')
      FROM pg_catalog.jsonb_array_elements(params OPERATOR(pg_catalog.->) 'moves') WITH ORDINALITY AS x(m, i)
     WHERE x.i OPERATOR(pg_catalog.=) 1 AND (m OPERATOR(pg_catalog.->>) 'source') OPERATOR(pg_catalog.=) 'recommend()'
$$;

-- What a configuration changes against another: "name=value, ...".
CREATE FUNCTION pgbench_lab_internal.tune_diff(c jsonb, base jsonb)
RETURNS jsonb LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT COALESCE(pg_catalog.jsonb_object_agg(e.key, e.value), '{}')
      FROM pg_catalog.jsonb_each(c) e
     WHERE (base OPERATOR(pg_catalog.->) e.key) IS NULL OR (base OPERATOR(pg_catalog.->) e.key) OPERATOR(pg_catalog.<>) e.value
$$;

-- The final proof: the winner (B) against the starting configuration and
-- against recommend()'s values (A), in fresh rounds, each verdict at the
-- experiment's confidence.
CREATE FUNCTION pgbench_lab_internal.tune_proof(experiment_id bigint)
RETURNS TABLE (variant integer, against text, a_config jsonb, b_config jsonb, rounds integer, ratio double precision,
               ratio_low double precision, ratio_high double precision, coverage double precision,
               verdict text, decided boolean, basis text, every_round text,
               a_p99_ms double precision, b_p99_ms double precision)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH e AS (
        SELECT e.params, 2 OPERATOR(pg_catalog.*) pg_catalog.jsonb_array_length(e.params OPERATOR(pg_catalog.->) 'moves') AS p,
               COALESCE(e.params OPERATOR(pg_catalog.->>) 'objective', 'tps') AS obj
          FROM pgbench_lab.experiments e WHERE e.experiment_id OPERATOR(pg_catalog.=) tune_proof.experiment_id),
    c AS (
        SELECT 1 AS i, 'the starting configuration'::pg_catalog.text AS against, e.params OPERATOR(pg_catalog.->) 'start' AS a_config,
               e.p OPERATOR(pg_catalog.+) 1 AS va
          FROM e
        UNION ALL
        SELECT 2, 'recommend()''s values', pgbench_lab_internal.tune_recommended(e.params), e.p OPERATOR(pg_catalog.+) 3 FROM e),
    g AS (
        SELECT c.i, c.va, c.against, c.a_config, e.obj, e.params,
               pg_catalog.array_agg(pgbench_lab_internal.tune_measure(e.obj, ra.tps, ra.latency_p99_ms) ORDER BY xa.round) AS a,
               pg_catalog.array_agg(pgbench_lab_internal.tune_measure(e.obj, rb.tps, rb.latency_p99_ms) ORDER BY xa.round) AS b,
               pg_catalog.percentile_cont(0.5) WITHIN GROUP (ORDER BY ra.latency_p99_ms) AS a_p99,
               pg_catalog.percentile_cont(0.5) WITHIN GROUP (ORDER BY rb.latency_p99_ms) AS b_p99
          FROM c CROSS JOIN e
          JOIN pgbench_lab.experiment_runs xa ON xa.experiment_id OPERATOR(pg_catalog.=) tune_proof.experiment_id
                                             AND xa.variant OPERATOR(pg_catalog.=) c.va
          JOIN pgbench_lab.runs ra ON ra.run_id OPERATOR(pg_catalog.=) xa.run_id
          JOIN pgbench_lab.experiment_runs xb ON xb.experiment_id OPERATOR(pg_catalog.=) xa.experiment_id
                                             AND xb.round OPERATOR(pg_catalog.=) xa.round
                                             AND xb.variant OPERATOR(pg_catalog.=) (c.va OPERATOR(pg_catalog.+) 1)
          JOIN pgbench_lab.runs rb ON rb.run_id OPERATOR(pg_catalog.=) xb.run_id
         WHERE ra.status OPERATOR(pg_catalog.=) 'done' AND rb.status OPERATOR(pg_catalog.=) 'done'
         GROUP BY c.i, c.va, c.against, c.a_config, e.obj, e.params)
    SELECT g.va, g.against, g.a_config, pgbench_lab_internal.tune_winner(tune_proof.experiment_id), v.rounds, v.ratio,
           v.ratio_low, v.ratio_high, v.coverage, v.verdict, v.decided, v.basis, v.every_round, g.a_p99, g.b_p99
      FROM g CROSS JOIN LATERAL pgbench_lab.paired_verdict(g.a, g.b, pgbench_lab_internal.params_smallest_effect(g.params),
                                                           pgbench_lab_internal.tune_proof_confidence(g.params)) v
     ORDER BY g.i
$$;

-- The time left of an experiment's budget, as text.
CREATE FUNCTION pgbench_lab_internal.tune_left(params jsonb, started timestamp with time zone)
RETURNS text LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pg_catalog.format('%s s left of the budget (%s)',
                             pgbench_lab_internal.fmt(GREATEST(pg_catalog.date_part('epoch', (params OPERATOR(pg_catalog.->>) 'budget')::pg_catalog.interval)
                                                      OPERATOR(pg_catalog.-) pg_catalog.date_part('epoch', pg_catalog.clock_timestamp() OPERATOR(pg_catalog.-) started),
                                                      0::pg_catalog.float8), 0),
                             params OPERATOR(pg_catalog.->>) 'budget')
$$;

-- A search comparison's verdict as a phrase, with what became of it.
CREATE FUNCTION pgbench_lab_internal.tune_move_phrase(s record)
RETURNS text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF s.rounds OPERATOR(pg_catalog.=) 0 THEN
        RETURN pg_catalog.format('%s: %s', pgbench_lab_internal.settings_text(s.change), s.basis);
    END IF;
    RETURN pg_catalog.format('%s against %s: %s%s', pgbench_lab_internal.settings_text(s.change),
                             pgbench_lab_internal.settings_text(pgbench_lab_internal.tune_diff(s.incumbent, s.candidate)),
                             pgbench_lab_internal.verdict_phrase(s.rounds, s.ratio, s.ratio_low, s.ratio_high, s.coverage,
                                                                 s.verdict, s.basis, s.every_round),
                             CASE WHEN s.adopted THEN ' (adopted: the new incumbent)'
                                  WHEN NOT s.decided THEN ' (not settled)' ELSE '' END);
END
$$;

-- The highest round recorded of a comparison (its variant va and va + 1):
-- added rounds follow it, so that a run that failed (and so pairs with
-- nothing) leaves no round number taken twice.
CREATE FUNCTION pgbench_lab_internal.tune_last_round(experiment_id bigint, va integer)
RETURNS integer LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT COALESCE(pg_catalog.max(x.round), 0) FROM pgbench_lab.experiment_runs x
     WHERE x.experiment_id OPERATOR(pg_catalog.=) tune_last_round.experiment_id
       AND (x.variant OPERATOR(pg_catalog.=) va OR x.variant OPERATOR(pg_catalog.=) (va OPERATOR(pg_catalog.+) 1))
$$;

-- The extension: the current move's next look, or the next move's first,
-- while the budget holds them and the proof after them at the pace of the
-- runs so far; then the proof; then NULL.
CREATE FUNCTION pgbench_lab_internal.tune_extend(experiment_id bigint, plan jsonb)
RETURNS jsonb LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    params pg_catalog.jsonb;
    started pg_catalog.timestamptz;
    base pg_catalog.jsonb := plan OPERATOR(pg_catalog.->) 'base';
    moves pg_catalog.jsonb;
    n pg_catalog.int4;
    p pg_catalog.int4;
    looks pg_catalog.int4[];
    runs_done pg_catalog.int8;
    spent pg_catalog.float8;
    pace pg_catalog.float8;
    budget pg_catalog.float8;
    reserve pg_catalog.float8;
    cur pg_catalog.int4;
    r record;
    next_look pg_catalog.int4;
    said pg_catalog.text := '';
    inc pg_catalog.jsonb;
    cand pg_catalog.jsonb;
    m pg_catalog.jsonb;
    i pg_catalog.int8;
    start pg_catalog.jsonb;
    winner pg_catalog.jsonb;
    recc pg_catalog.jsonb;
    about pg_catalog.text;
    steps pg_catalog.jsonb;
    proof_rounds pg_catalog.int4;
    proof_looks pg_catalog.int4[];
    q record;
    last pg_catalog.int4;
BEGIN
    SELECT e.params, e.started_at INTO params, started FROM pgbench_lab.experiments e
     WHERE e.experiment_id OPERATOR(pg_catalog.=) tune_extend.experiment_id;
    moves := params OPERATOR(pg_catalog.->) 'moves';
    n := pg_catalog.jsonb_array_length(moves);
    p := 2 OPERATOR(pg_catalog.*) n;
    proof_looks := ARRAY(SELECT l::pg_catalog.int4 FROM pg_catalog.jsonb_array_elements_text(params OPERATOR(pg_catalog.->) 'proof_looks') l);
    proof_rounds := proof_looks[1];
    looks := ARRAY(SELECT l::pg_catalog.int4 FROM pg_catalog.jsonb_array_elements_text(params OPERATOR(pg_catalog.->) 'search_looks') l);
    SELECT pg_catalog.count(*), pg_catalog.max((x.variant OPERATOR(pg_catalog.+) 1) OPERATOR(pg_catalog./) 2)
                                FILTER (WHERE x.variant OPERATOR(pg_catalog.<=) p)
      INTO runs_done, cur
      FROM pgbench_lab.experiment_runs x WHERE x.experiment_id OPERATOR(pg_catalog.=) tune_extend.experiment_id;
    spent := pg_catalog.date_part('epoch', pg_catalog.clock_timestamp() OPERATOR(pg_catalog.-) started);
    pace := CASE WHEN runs_done OPERATOR(pg_catalog.>) 0 THEN spent OPERATOR(pg_catalog./) runs_done::pg_catalog.float8
                 ELSE pg_catalog.date_part('epoch', (params OPERATOR(pg_catalog.->>) 'duration')::pg_catalog.interval) END;
    budget := pg_catalog.date_part('epoch', (params OPERATOR(pg_catalog.->>) 'budget')::pg_catalog.interval);
    reserve := pgbench_lab_internal.tune_proof_runs(moves, proof_rounds)::pg_catalog.float8 OPERATOR(pg_catalog.*) pace;
    -- the proof under way: its undecided comparisons' next look, while the budget holds it
    IF EXISTS (SELECT FROM pgbench_lab.experiment_runs x WHERE x.experiment_id OPERATOR(pg_catalog.=) tune_extend.experiment_id
                  AND x.variant OPERATOR(pg_catalog.>) p) THEN
        steps := '[]';
        said := '';
        FOR q IN SELECT * FROM pgbench_lab_internal.tune_proof(experiment_id) z WHERE NOT z.decided LOOP
            SELECT pg_catalog.min(l) INTO next_look FROM pg_catalog.unnest(proof_looks) l WHERE l OPERATOR(pg_catalog.>) q.rounds;
            CONTINUE WHEN next_look IS NULL;
            last := pgbench_lab_internal.tune_last_round(experiment_id, q.variant);
            steps := steps OPERATOR(pg_catalog.||)
                     pgbench_lab_internal.tune_steps(base, q.variant, q.a_config, q.variant OPERATOR(pg_catalog.+) 1, q.b_config,
                                                     last OPERATOR(pg_catalog.+) 1, last OPERATOR(pg_catalog.+) (next_look OPERATOR(pg_catalog.-) q.rounds),
                                                     'proof: the winner against ' OPERATOR(pg_catalog.||) q.against, 'proof');
            said := said OPERATOR(pg_catalog.||) pg_catalog.format('the winner against %s, not settled after %s rounds (%s): rounds %s to %s; ',
                                                                 q.against, q.rounds,
                                                                 pgbench_lab_internal.verdict_phrase(q.rounds, q.ratio, q.ratio_low, q.ratio_high,
                                                                                                     q.coverage, q.verdict, q.basis, q.every_round),
                                                                 q.rounds OPERATOR(pg_catalog.+) 1, next_look);
        END LOOP;
        IF pg_catalog.jsonb_array_length(steps) OPERATOR(pg_catalog.=) 0
           OR (spent OPERATOR(pg_catalog.+) (pg_catalog.jsonb_array_length(steps)::pg_catalog.float8 OPERATOR(pg_catalog.*) pace))
              OPERATOR(pg_catalog.>) budget THEN
            RETURN NULL;
        END IF;
        RETURN pg_catalog.jsonb_build_object('about', 'proof: ' OPERATOR(pg_catalog.||) said OPERATOR(pg_catalog.||)
                                                      pgbench_lab_internal.tune_left(params, started),
                                             'steps', steps);
    END IF;
    IF cur IS NOT NULL THEN
        SELECT * INTO r FROM pgbench_lab_internal.tune_search(experiment_id) s WHERE s.move OPERATOR(pg_catalog.=) cur;
        IF r.rounds OPERATOR(pg_catalog.>) 0 AND NOT r.decided THEN
            SELECT pg_catalog.min(l) INTO next_look FROM pg_catalog.unnest(looks) l WHERE l OPERATOR(pg_catalog.>) r.rounds;
            IF next_look IS NOT NULL
               AND (spent OPERATOR(pg_catalog.+) ((2 OPERATOR(pg_catalog.*) (next_look OPERATOR(pg_catalog.-) r.rounds))::pg_catalog.float8 OPERATOR(pg_catalog.*) pace)
                    OPERATOR(pg_catalog.+) reserve) OPERATOR(pg_catalog.<=) budget THEN
                about := pg_catalog.format('candidate %s of %s: %s', cur, n, pgbench_lab_internal.settings_text(r.change));
                last := pgbench_lab_internal.tune_last_round(experiment_id, 2 OPERATOR(pg_catalog.*) cur OPERATOR(pg_catalog.-) 1);
                RETURN pg_catalog.jsonb_build_object(
                    'about', pg_catalog.format('%s, not settled after %s rounds (so far %s): rounds %s to %s; %s',
                                               about, r.rounds, pgbench_lab_internal.tune_move_phrase(r),
                                               r.rounds OPERATOR(pg_catalog.+) 1, next_look,
                                               pgbench_lab_internal.tune_left(params, started)),
                    'steps', pgbench_lab_internal.tune_steps(base, 2 OPERATOR(pg_catalog.*) cur OPERATOR(pg_catalog.-) 1, r.incumbent,
                                                             2 OPERATOR(pg_catalog.*) cur, r.candidate,
                                                             last OPERATOR(pg_catalog.+) 1,
                                                             last OPERATOR(pg_catalog.+) (next_look OPERATOR(pg_catalog.-) r.rounds), about,
                                                             'candidate ' OPERATOR(pg_catalog.||) cur));
            END IF;
            -- the budget (or the last look) ends the search here
            said := pg_catalog.format('candidate %s of %s ends not settled (%s); the search ends: %s. ', cur, n,
                                      pgbench_lab_internal.tune_move_phrase(r),
                                      CASE WHEN next_look IS NULL THEN 'its last look came'
                                           ELSE 'the budget holds no more rounds and the proof' END);
            cur := n;
        ELSE
            said := pg_catalog.format('candidate %s of %s: %s. ', cur, n, pgbench_lab_internal.tune_move_phrase(r));
        END IF;
    END IF;
    inc := pgbench_lab_internal.tune_winner(experiment_id);
    FOR m, i IN SELECT x.m, x.i FROM pg_catalog.jsonb_array_elements(moves) WITH ORDINALITY AS x(m, i)
                 WHERE x.i OPERATOR(pg_catalog.>) COALESCE(cur, 0) LOOP
        cand := inc OPERATOR(pg_catalog.||) (m OPERATOR(pg_catalog.->) 'change');
        CONTINUE WHEN cand OPERATOR(pg_catalog.=) inc;
        IF (spent OPERATOR(pg_catalog.+) ((2 OPERATOR(pg_catalog.*) looks[1])::pg_catalog.float8 OPERATOR(pg_catalog.*) pace)
            OPERATOR(pg_catalog.+) reserve) OPERATOR(pg_catalog.>) budget THEN
            said := said OPERATOR(pg_catalog.||) pg_catalog.format('The budget holds no more candidates (%s to %s not run). ', i, n);
            EXIT;
        END IF;
        about := pg_catalog.format('candidate %s of %s: %s', i, n, pgbench_lab_internal.settings_text(m OPERATOR(pg_catalog.->) 'change'));
        RETURN pg_catalog.jsonb_build_object(
            'about', pg_catalog.format('%s%s against the incumbent (%s): rounds 1 to %s; %s', said, about,
                                       pgbench_lab_internal.settings_text(pgbench_lab_internal.tune_diff(inc, cand)), looks[1],
                                       pgbench_lab_internal.tune_left(params, started)),
            'steps', pgbench_lab_internal.tune_steps(base, (2 OPERATOR(pg_catalog.*) i OPERATOR(pg_catalog.-) 1)::pg_catalog.int4, inc,
                                                     (2 OPERATOR(pg_catalog.*) i)::pg_catalog.int4, cand, 1, looks[1], about,
                                                     'candidate ' OPERATOR(pg_catalog.||) i));
    END LOOP;
    -- the proof, when the search moved from the start
    start := params OPERATOR(pg_catalog.->) 'start';
    winner := inc;
    IF winner OPERATOR(pg_catalog.=) start THEN
        IF said OPERATOR(pg_catalog.<>) '' THEN
            RAISE NOTICE '%no candidate was decided faster: no change recommended', said;
        END IF;
        RETURN NULL;
    END IF;
    steps := pgbench_lab_internal.tune_steps(base, p OPERATOR(pg_catalog.+) 1, start, p OPERATOR(pg_catalog.+) 2, winner, 1, proof_rounds,
                                             'proof: the winner against the starting configuration', 'proof start');
    recc := pgbench_lab_internal.tune_recommended(params);
    IF recc IS NOT NULL AND recc OPERATOR(pg_catalog.<>) winner THEN
        steps := steps OPERATOR(pg_catalog.||)
                 pgbench_lab_internal.tune_steps(base, p OPERATOR(pg_catalog.+) 3, recc, p OPERATOR(pg_catalog.+) 4, winner, 1, proof_rounds,
                                                 'proof: the winner against recommend()''s values', 'proof recommend');
    END IF;
    RETURN pg_catalog.jsonb_build_object(
        'about', pg_catalog.format('%sThe search ends with %s; the proof: the winner against the starting configuration%s, %s fresh rounds each to start with; %s',
                                   said, pgbench_lab_internal.settings_text(pgbench_lab_internal.tune_diff(winner, start)),
                                   CASE WHEN recc IS NOT NULL AND recc OPERATOR(pg_catalog.<>) winner THEN ' and against recommend()''s values' ELSE '' END,
                                   proof_rounds, pgbench_lab_internal.tune_left(params, started)),
        'steps', steps);
END
$$;

-- Its verdicts (experiment_kinds.verdicts): each search comparison that
-- ran, then the proof's.
CREATE FUNCTION pgbench_lab_internal.tune_verdicts(experiment_id bigint)
RETURNS TABLE (comparison text, measure text, rounds integer, ratio double precision,
               ratio_low double precision, ratio_high double precision, coverage double precision,
               verdict text, decided boolean, basis text)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH e AS (SELECT CASE WHEN (e.params OPERATOR(pg_catalog.->>) 'objective') OPERATOR(pg_catalog.=) 'p99'
                           THEN '1/p99' ELSE 'tps' END AS measure
                 FROM pgbench_lab.experiments e WHERE e.experiment_id OPERATOR(pg_catalog.=) tune_verdicts.experiment_id)
    SELECT x.comparison, e.measure, x.rounds, x.ratio, x.ratio_low, x.ratio_high, x.coverage, x.verdict, x.decided, x.basis
      FROM e, (SELECT s.move AS o, pg_catalog.format('candidate %s (%s) against the incumbent', s.move,
                                                     pgbench_lab_internal.settings_text(s.change)) AS comparison,
                      s.rounds, s.ratio, s.ratio_low, s.ratio_high, s.coverage, s.verdict, s.decided, s.basis
                 FROM pgbench_lab_internal.tune_search(experiment_id) s WHERE s.rounds OPERATOR(pg_catalog.>) 0
               UNION ALL
               SELECT 1000 OPERATOR(pg_catalog.+) pg_catalog.row_number() OVER (),
                      'the winner against ' OPERATOR(pg_catalog.||) q.against, q.rounds, q.ratio, q.ratio_low, q.ratio_high,
                      q.coverage, q.verdict, q.decided, q.basis
                 FROM pgbench_lab_internal.tune_proof(experiment_id) q) x
     ORDER BY x.o
$$;

-- The ALTER SYSTEM lines of a configuration's changes over another, as
-- recommend_sql() writes them (with its comment of the level when
-- commented), and the reload.
CREATE FUNCTION pgbench_lab_internal.tune_sql(winner jsonb, start jsonb, commented boolean)
RETURNS SETOF text LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT x.line FROM (
        SELECT 1 AS part, d.key, pg_catalog.format('ALTER SYSTEM SET %I = %L;', d.key, d.value)
                                 OPERATOR(pg_catalog.||)
                                 CASE WHEN commented THEN '  -- ' OPERATOR(pg_catalog.||)
                                                          CASE WHEN s.context OPERATOR(pg_catalog.=) 'sighup' THEN 'reload' ELSE 'session' END
                                      ELSE '' END AS line
          FROM pg_catalog.jsonb_each_text(pgbench_lab_internal.tune_diff(winner, start)) d
          LEFT JOIN pg_catalog.pg_settings s ON s.name OPERATOR(pg_catalog.=) d.key
        UNION ALL
        SELECT 2, '', 'SELECT pg_catalog.pg_reload_conf();') x
     ORDER BY x.part, x.key
$$;

-- The durability a configuration gives up, in words, or NULL.
CREATE FUNCTION pgbench_lab_internal.tune_unsafe(c jsonb)
RETURNS text LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT 'UNSAFE: ' OPERATOR(pg_catalog.||) pg_catalog.string_agg(pg_catalog.format('%s = %s', e.key, e.value), ', ' ORDER BY e.key)
           OPERATOR(pg_catalog.||) ' gives up durability. With synchronous_commit off a crash loses the last commits a client was told had succeeded; with fsync or full_page_writes off a crash can corrupt the database beyond repair. Its speed is the price of that loss, not a free gain: do not apply it to data you cannot lose.'
      FROM pg_catalog.jsonb_each_text(c) e
     WHERE e.key OPERATOR(pg_catalog.=) ANY (ARRAY['synchronous_commit', 'fsync', 'full_page_writes'])
       AND pg_catalog.lower(e.value) OPERATOR(pg_catalog.=) ANY (ARRAY['off', 'false', 'no', '0', 'local'])
    HAVING pg_catalog.count(*) OPERATOR(pg_catalog.>) 0
$$;

CREATE FUNCTION pgbench_lab_internal.tune_finding(experiment_id bigint)
RETURNS text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    params pg_catalog.jsonb;
    start pg_catalog.jsonb;
    winner pg_catalog.jsonb := pgbench_lab_internal.tune_winner(experiment_id);
    out pg_catalog.text[] := ARRAY[]::pg_catalog.text[];
    q record;
    t pg_catalog.text;
    n pg_catalog.int4;
BEGIN
    SELECT e.params INTO params FROM pgbench_lab.experiments e
     WHERE e.experiment_id OPERATOR(pg_catalog.=) tune_finding.experiment_id;
    start := params OPERATOR(pg_catalog.->) 'start';
    n := pg_catalog.jsonb_array_length(params OPERATOR(pg_catalog.->) 'moves');
    IF winner OPERATOR(pg_catalog.=) start THEN
        out := out OPERATOR(pg_catalog.||) pg_catalog.format('No change recommended: no candidate was decided %s than the starting configuration (%s).',
                   CASE WHEN (params OPERATOR(pg_catalog.->>) 'objective') OPERATOR(pg_catalog.=) 'p99' THEN 'better' ELSE 'faster' END,
                   pgbench_lab_internal.settings_text(start));
    ELSE
        out := out OPERATOR(pg_catalog.||) pg_catalog.format('Recommended: %s (from %s).',
                   pgbench_lab_internal.settings_text(pgbench_lab_internal.tune_diff(winner, start)),
                   pgbench_lab_internal.settings_text(pgbench_lab_internal.tune_diff(start, winner)));
        FOR q IN SELECT * FROM pgbench_lab_internal.tune_proof(experiment_id) LOOP
            out := out OPERATOR(pg_catalog.||) pg_catalog.format('The winner against %s (%s%s), in fresh rounds: %s%s.', q.against,
                       CASE WHEN (params OPERATOR(pg_catalog.->>) 'objective') OPERATOR(pg_catalog.=) 'p99' THEN 'on 1/p99, faster meaning a lower p99' ELSE 'TPS' END,
                       CASE WHEN q.against OPERATOR(pg_catalog.<>) 'the starting configuration'
                            THEN ': ' OPERATOR(pg_catalog.||) pgbench_lab_internal.settings_text(pgbench_lab_internal.tune_diff(q.a_config, winner)) ELSE '' END,
                       pgbench_lab_internal.verdict_phrase(q.rounds, q.ratio, q.ratio_low, q.ratio_high, q.coverage, q.verdict, q.basis, q.every_round),
                       CASE WHEN q.a_p99_ms IS NOT NULL
                            THEN pg_catalog.format(' (median p99 %s ms against %s ms)', pgbench_lab_internal.fmt(q.b_p99_ms, 3), pgbench_lab_internal.fmt(q.a_p99_ms, 3))
                            ELSE '' END);
        END LOOP;
        IF NOT FOUND THEN
            out := out OPERATOR(pg_catalog.||) 'The proof did not run: the winner has no verdict against the starting configuration.'::pg_catalog.text;
        END IF;
        IF pgbench_lab_internal.tune_recommended(params) OPERATOR(pg_catalog.=) winner THEN
            out := out OPERATOR(pg_catalog.||) 'The winner is recommend()''s values for the knobs searched.'::pg_catalog.text;
        END IF;
        SELECT pg_catalog.string_agg(pg_catalog.format('%s: %s', pgbench_lab_internal.settings_text(s.change),
                   pgbench_lab_internal.verdict_phrase(s.rounds, s.ratio, s.ratio_low, s.ratio_high, s.coverage, s.verdict, s.basis, s.every_round)),
                   '; ' ORDER BY s.move) INTO t
          FROM pgbench_lab_internal.tune_search(experiment_id) s WHERE s.adopted;
        out := out OPERATOR(pg_catalog.||) pg_catalog.format('Each change''s own contribution, measured alone against the incumbent of its time in the search (its interval flattered by the selection; the proof''s is the one to quote): %s.', t);
        out := out OPERATOR(pg_catalog.||) pg_catalog.format('To apply it: %s',
                   (SELECT pg_catalog.string_agg(l, ' ') FROM pgbench_lab_internal.tune_sql(winner, start, false) l));
        t := pgbench_lab_internal.tune_unsafe(pgbench_lab_internal.tune_diff(winner, start));
        IF t IS NOT NULL THEN
            out := out OPERATOR(pg_catalog.||) t;
        END IF;
    END IF;
    -- which knobs were settled
    SELECT pg_catalog.string_agg(pgbench_lab_internal.tune_move_phrase(s), '; ' ORDER BY s.move) FILTER (WHERE s.rounds OPERATOR(pg_catalog.>) 0 AND s.decided) AS settled,
           pg_catalog.string_agg(pgbench_lab_internal.tune_move_phrase(s), '; ' ORDER BY s.move) FILTER (WHERE s.rounds OPERATOR(pg_catalog.>) 0 AND NOT s.decided) AS open
      INTO q FROM pgbench_lab_internal.tune_search(experiment_id) s;
    out := out OPERATOR(pg_catalog.||) pg_catalog.format('Settled: %s.', COALESCE(q.settled, 'none'));
    IF q.open IS NOT NULL THEN
        out := out OPERATOR(pg_catalog.||) pg_catalog.format('Not settled: %s.', q.open);
    END IF;
    SELECT pg_catalog.string_agg(pgbench_lab_internal.settings_text(s.change), '; ' ORDER BY s.move) INTO t
      FROM pgbench_lab_internal.tune_search(experiment_id) s WHERE s.basis OPERATOR(pg_catalog.~) '^not run: the budget';
    IF t IS NOT NULL THEN
        out := out OPERATOR(pg_catalog.||) pg_catalog.format('Not tried (the budget, %s, ended first): %s.', params OPERATOR(pg_catalog.->>) 'budget', t);
    END IF;
    IF pg_catalog.jsonb_array_length(params OPERATOR(pg_catalog.->) 'refused') OPERATOR(pg_catalog.>) 0 THEN
        out := out OPERATOR(pg_catalog.||) pg_catalog.format('Not tried, refused by memory_budget() (an out-of-memory risk): %s.',
                   (SELECT pg_catalog.string_agg(pgbench_lab_internal.settings_text(r), '; ')
                      FROM pg_catalog.jsonb_array_elements(params OPERATOR(pg_catalog.->) 'refused') r));
    END IF;
    out := out OPERATOR(pg_catalog.||) pg_catalog.format('The search planned %s comparison%s, each at %s %% (%s %% spread over them: Bonferroni), its intervals looked at after %s rounds each at %s %%; the proof''s verdicts are each at %s %% (their looks after %s rounds each at %s %%).',
               n, CASE WHEN n OPERATOR(pg_catalog.=) 1 THEN '' ELSE 's' END,
               pgbench_lab_internal.fmt((params OPERATOR(pg_catalog.->>) 'search_confidence')::pg_catalog.float8 OPERATOR(pg_catalog.*) 100::pg_catalog.float8, 2),
               pgbench_lab_internal.fmt(pgbench_lab_internal.params_confidence(params) OPERATOR(pg_catalog.*) 100::pg_catalog.float8, 1),
               (SELECT pg_catalog.string_agg(l, ', ') FROM pg_catalog.jsonb_array_elements_text(params OPERATOR(pg_catalog.->) 'search_looks') l),
               pgbench_lab_internal.fmt(pgbench_lab_internal.tune_look_confidence(params) OPERATOR(pg_catalog.*) 100::pg_catalog.float8, 2),
               pgbench_lab_internal.fmt(pgbench_lab_internal.params_confidence(params) OPERATOR(pg_catalog.*) 100::pg_catalog.float8, 1),
               (SELECT pg_catalog.string_agg(l, ', ') FROM pg_catalog.jsonb_array_elements_text(params OPERATOR(pg_catalog.->) 'proof_looks') l),
               pgbench_lab_internal.fmt(pgbench_lab_internal.tune_proof_confidence(params) OPERATOR(pg_catalog.*) 100::pg_catalog.float8, 2));
    out := out OPERATOR(pg_catalog.||) CASE WHEN (params OPERATOR(pg_catalog.->>) 'via') OPERATOR(pg_catalog.=) 'libpq'
                                            THEN 'Decided over libpq: the application''s view, each statement crossing a connection.'
                                            ELSE 'Decided in the server (in-server clients, no network round trips): commit-bound gains look larger here than an application sees.' END;
    IF (params OPERATOR(pg_catalog.->>) 'allow_unsafe')::pg_catalog.bool THEN
        out := out OPERATOR(pg_catalog.||) 'Durability settings were searched (allow_unsafe => true).'::pg_catalog.text;
    END IF;
    IF params OPERATOR(pg_catalog.?) 'applied' OR (params OPERATOR(pg_catalog.->>) 'apply')::pg_catalog.bool THEN
        out := out OPERATOR(pg_catalog.||) pgbench_lab_internal.tune_apply_said(experiment_id);
    ELSE
        out := out OPERATOR(pg_catalog.||) 'Nothing was applied: postgresql.auto.conf is as it was.'::pg_catalog.text;
    END IF;
    RETURN pg_catalog.array_to_string(out, ' ');
END
$$;

-- The settings apply => true writes: the winner's changes over the start,
-- when the proof against the start is decided faster (better), else NULL.
CREATE FUNCTION pgbench_lab_internal.tune_apply(experiment_id bigint)
RETURNS jsonb LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pgbench_lab_internal.tune_diff(q.b_config, q.a_config)
      FROM pgbench_lab.experiments e, pgbench_lab_internal.tune_proof(e.experiment_id) q
     WHERE e.experiment_id OPERATOR(pg_catalog.=) tune_apply.experiment_id
       AND COALESCE((e.params OPERATOR(pg_catalog.->>) 'apply')::pg_catalog.bool, false)
       AND q.against OPERATOR(pg_catalog.=) 'the starting configuration'
       AND q.decided AND q.verdict OPERATOR(pg_catalog.=) 'faster'
$$;

-- What apply => true did, from the proof's verdict (the driver applies
-- the winner only when it is decided faster against the starting
-- configuration: tune_apply()).
CREATE FUNCTION pgbench_lab_internal.tune_apply_said(experiment_id bigint)
RETURNS text LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN pgbench_lab_internal.tune_apply(experiment_id) IS NOT NULL
                THEN 'Applied (apply => true): the winner''s values were written with ALTER SYSTEM and the server reloaded, because its proof against the starting configuration was decided faster.'
                ELSE 'Not applied (apply => true asks for a proof decided faster against the starting configuration, and there is none): postgresql.auto.conf is as it was.' END
$$;

-- The procedure's INOUT columns.
CREATE FUNCTION pgbench_lab_internal.tune_result(id bigint)
RETURNS TABLE (experiment_id bigint, finding text)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT id, pgbench_lab_internal.tune_finding(id)
$$;

CREATE FUNCTION pgbench_lab_internal.report_tune(experiment_id bigint)
RETURNS SETOF text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    params pg_catalog.jsonb;
BEGIN
    SELECT e.params INTO params FROM pgbench_lab.experiments e
     WHERE e.experiment_id OPERATOR(pg_catalog.=) report_tune.experiment_id;
    RETURN QUERY SELECT pg_catalog.format('Objective: %s%s; knobs searched: %s; levels: %s; budget %s; runs %s over %s',
                       CASE WHEN (params OPERATOR(pg_catalog.->>) 'objective') OPERATOR(pg_catalog.=) 'p99'
                            THEN pg_catalog.format('the lowest p99 at %s TPS', params OPERATOR(pg_catalog.->>) 'rate') ELSE 'the most TPS' END,
                       CASE WHEN params OPERATOR(pg_catalog.?) 'p99_limit_ms'
                            THEN pg_catalog.format(' with p99 under %s ms', params OPERATOR(pg_catalog.->>) 'p99_limit_ms') ELSE '' END,
                       (SELECT pg_catalog.string_agg(k, ', ') FROM pg_catalog.jsonb_array_elements_text(params OPERATOR(pg_catalog.->) 'knobs') k),
                       (SELECT pg_catalog.string_agg(k, ', ') FROM pg_catalog.jsonb_array_elements_text(params OPERATOR(pg_catalog.->) 'levels') k),
                       params OPERATOR(pg_catalog.->>) 'budget', params OPERATOR(pg_catalog.->>) 'duration',
                       CASE WHEN (params OPERATOR(pg_catalog.->>) 'via') OPERATOR(pg_catalog.=) 'libpq' THEN 'libpq (the application''s view)'
                            ELSE 'in-server clients' END);
    RETURN QUERY SELECT 'Starting configuration: ' OPERATOR(pg_catalog.||) pgbench_lab_internal.settings_text(params OPERATOR(pg_catalog.->) 'start');
    IF (params OPERATOR(pg_catalog.->>) 'objective') OPERATOR(pg_catalog.=) 'p99' THEN
        RETURN QUERY SELECT 'Ratios are of 1/p99, B over A: above 1 is a lower p99 (a p99 needs 1 000 transactions a run to be read with care)';
    END IF;
    RETURN QUERY SELECT '';
    RETURN QUERY SELECT 'Search: each candidate against the incumbent of its time, in paired rounds (A, B; B, A; ...)';
    RETURN QUERY SELECT pg_catalog.format('  %3s  %-40s  %6s  %s', '#', 'candidate', 'rounds', 'verdict');
    RETURN QUERY
        SELECT pg_catalog.format('  %3s  %-40s  %6s  %s', s.move, pgbench_lab_internal.settings_text(s.change), s.rounds,
                                 CASE WHEN s.rounds OPERATOR(pg_catalog.=) 0 THEN s.basis
                                      ELSE pgbench_lab_internal.verdict_phrase(s.rounds, s.ratio, s.ratio_low, s.ratio_high, s.coverage,
                                                                               s.verdict, s.basis, s.every_round)
                                           OPERATOR(pg_catalog.||) CASE WHEN s.adopted THEN ' [adopted]' ELSE '' END END)
          FROM pgbench_lab_internal.tune_search(experiment_id) s ORDER BY s.move;
    RETURN QUERY SELECT '';
    RETURN QUERY SELECT 'Proof: the winner against the starting configuration and recommend()''s values, in fresh rounds';
    RETURN QUERY
        SELECT pg_catalog.format('  against %s: %s', q.against,
                                 pgbench_lab_internal.verdict_phrase(q.rounds, q.ratio, q.ratio_low, q.ratio_high, q.coverage,
                                                                     q.verdict, q.basis, q.every_round))
          FROM pgbench_lab_internal.tune_proof(experiment_id) q;
    IF NOT FOUND THEN
        RETURN QUERY SELECT '  none: the search did not move from the starting configuration';
    END IF;
    RETURN QUERY SELECT '';
    RETURN QUERY SELECT pgbench_lab_internal.wrap(pgbench_lab_internal.tune_finding(experiment_id), '');
    -- the winner's lines, one a line, as recommend_sql() writes them
    IF pgbench_lab_internal.tune_winner(experiment_id) OPERATOR(pg_catalog.<>) (params OPERATOR(pg_catalog.->) 'start') THEN
        RETURN QUERY SELECT '';
        RETURN QUERY SELECT 'To apply the winner:';
        RETURN QUERY SELECT '  ' OPERATOR(pg_catalog.||) l
                       FROM pgbench_lab_internal.tune_sql(pgbench_lab_internal.tune_winner(experiment_id),
                                                          params OPERATOR(pg_catalog.->) 'start', true) l;
    END IF;
END
$$;

CREATE PROCEDURE pgbench_lab.tune(
    workload text DEFAULT NULL,
    settings jsonb DEFAULT NULL,
    objective text DEFAULT 'tps',
    knobs text[] DEFAULT NULL,
    budget interval DEFAULT '30 min',
    smallest_effect double precision DEFAULT 0.02,
    confidence double precision DEFAULT 0.95,
    levels text[] DEFAULT NULL,
    apply boolean DEFAULT false,
    allow_unsafe boolean DEFAULT false,
    p99_limit interval DEFAULT NULL,
    clients integer DEFAULT 1,
    duration interval DEFAULT '10 s',
    label text DEFAULT NULL,
    scripts text[] DEFAULT NULL,
    variables jsonb DEFAULT NULL,
    INOUT experiment_id bigint DEFAULT NULL,
    INOUT finding text DEFAULT NULL,
    @RUN_OPTIONS_EXCEPT workload clients duration transactions label settings scripts variables@)
LANGUAGE c
AS 'MODULE_PATHNAME', 'pgbench_lab_experiment';
COMMENT ON PROCEDURE pgbench_lab.tune IS
    'Settings searched knob by knob on a workload (session and reload level, restored after), each candidate judged against the incumbent in paired rounds, the winner proven in fresh rounds; over libpq by default';

REVOKE ALL ON PROCEDURE pgbench_lab.tune FROM PUBLIC;

INSERT INTO pgbench_lab.experiment_kinds (kind, procedure, planner, preparation, finding, report, description,
                                          extend, verdicts)
VALUES ('tune', 'pgbench_lab.tune'::pg_catalog.regproc,
        'pgbench_lab_internal.tune_plan'::pg_catalog.regproc, NULL,
        'pgbench_lab_internal.tune_result(bigint)', 'pgbench_lab_internal.report_tune(bigint)',
        'Settings searched knob by knob, each candidate against the incumbent in paired rounds, the winner proven against the start and recommend()''s values',
        'pgbench_lab_internal.tune_extend(bigint, jsonb)', 'pgbench_lab_internal.tune_verdicts(bigint)')
ON CONFLICT (kind) DO UPDATE SET procedure = EXCLUDED.procedure, planner = EXCLUDED.planner,
    preparation = EXCLUDED.preparation, finding = EXCLUDED.finding, report = EXCLUDED.report,
    description = EXCLUDED.description, extend = EXCLUDED.extend, verdicts = EXCLUDED.verdicts;
