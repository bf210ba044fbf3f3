
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

-- The settings whose effect is bound to the commit: how (and whether) a
-- commit waits for its WAL to reach the disk, and how much WAL a commit
-- writes.  In-server clients have no round trip between their statements,
-- so the commit's wait is most of a transaction's time and a change to
-- it shows several times larger than an application, which pays a round
-- trip per statement, would see (pgbench over a connection agrees with
-- the libpq path, not the in-server one): the settings kinds measure them
-- over libpq unless told otherwise (commit_bound_path()).
CREATE FUNCTION pgbench_lab_internal.commit_bound_settings()
RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT ARRAY['synchronous_commit', 'commit_delay', 'commit_siblings', 'wal_writer_delay',
                 'wal_writer_flush_after', 'wal_sync_method', 'fsync', 'full_page_writes',
                 'wal_compression', 'wal_buffers']::pg_catalog.text[]
$$;

-- The settings that act through checkpoints: a comparison of them whose
-- runs saw no checkpoint did not exercise them.
CREATE FUNCTION pgbench_lab_internal.checkpoint_settings()
RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT ARRAY['max_wal_size', 'min_wal_size', 'checkpoint_timeout', 'checkpoint_completion_target',
                 'checkpoint_flush_after']::pg_catalog.text[]
$$;

-- The names of a list that sets of settings (a jsonb array of objects,
-- or one object) hold, lowercased, each once, in order; an empty array
-- when none (or when sets is no array or object: an imported document's).
CREATE FUNCTION pgbench_lab_internal.sets_holding(sets jsonb, names text[])
RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT COALESCE(pg_catalog.array_agg(DISTINCT pg_catalog.lower(k.key) ORDER BY pg_catalog.lower(k.key)), '{}')
      FROM pg_catalog.jsonb_array_elements(CASE WHEN pg_catalog.jsonb_typeof(sets) OPERATOR(pg_catalog.=) 'array' THEN sets
                                                WHEN pg_catalog.jsonb_typeof(sets) OPERATOR(pg_catalog.=) 'object'
                                                THEN pg_catalog.jsonb_build_array(sets)
                                                ELSE '[]'::pg_catalog.jsonb END) AS a(s),
           pg_catalog.jsonb_object_keys(CASE WHEN pg_catalog.jsonb_typeof(a.s) OPERATOR(pg_catalog.=) 'object' THEN a.s END) AS k(key)
     WHERE pg_catalog.lower(k.key) OPERATOR(pg_catalog.=) ANY (names)
$$;

-- The commit-bound settings an experiment of a settings kind compares
-- (its sets, and restart_settings), from its params: a document imported
-- from an older version is read as one recorded now.
CREATE FUNCTION pgbench_lab_internal.commit_bound_compared(params jsonb)
RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pgbench_lab_internal.sets_holding(
               CASE WHEN pg_catalog.jsonb_typeof(params OPERATOR(pg_catalog.->) 'settings') OPERATOR(pg_catalog.=) 'array'
                    THEN params OPERATOR(pg_catalog.->) 'settings' ELSE '[]'::pg_catalog.jsonb END
               OPERATOR(pg_catalog.||)
               CASE WHEN pg_catalog.jsonb_typeof(params OPERATOR(pg_catalog.->) 'restart_settings') OPERATOR(pg_catalog.=) 'object'
                    THEN pg_catalog.jsonb_build_array(params OPERATOR(pg_catalog.->) 'restart_settings')
                    ELSE '[]'::pg_catalog.jsonb END,
               pgbench_lab_internal.commit_bound_settings())
$$;

-- The path of a settings kind's runs (compare_settings,
-- validate_recommendation): the options with "via": "libpq" added when a
-- set holds a commit-bound setting, no via was given, the runs stay on
-- this server and the caller is a superuser (a libpq run to this server's
-- own socket needs no password only for one); else the options as they
-- are.  params records the choice ("via_chosen"), for the finding.
CREATE FUNCTION pgbench_lab_internal.commit_bound_path(sets jsonb, options jsonb,
                                                       OUT options_out jsonb, OUT params jsonb)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    options_out := options;
    params := '{}';
    IF pg_catalog.cardinality(pgbench_lab_internal.sets_holding(sets, pgbench_lab_internal.commit_bound_settings()))
       OPERATOR(pg_catalog.>) 0
       AND NOT options OPERATOR(pg_catalog.?) 'via' AND NOT pgbench_lab_internal.runs_elsewhere(options)
       AND (SELECT r.rolsuper FROM pg_catalog.pg_roles r WHERE r.rolname OPERATOR(pg_catalog.=) current_user) THEN
        options_out := options OPERATOR(pg_catalog.||) '{"via": "libpq"}'::pg_catalog.jsonb;
        params := '{"via_chosen": "libpq"}'::pg_catalog.jsonb;
    END IF;
END
$$;

-- The figure an application sees beside an in-server one: the latest
-- other experiment of the same kind, workload, clients and sets (as the
-- caller may read them) whose runs all went over libpq, and its verdicts;
-- NULL when there is none.
-- (PL/pgSQL: experiment_verdicts() is made further down.)
CREATE FUNCTION pgbench_lab_internal.libpq_counterpart(experiment_id bigint)
RETURNS text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN (SELECT pg_catalog.format('Over libpq, the figure an application sees, experiment %s (%s) measured the same sets: %s.',
                             o.experiment_id, pg_catalog.to_char(o.started_at, 'YYYY-MM-DD HH24:MI TZ'),
                             (SELECT pg_catalog.string_agg(pg_catalog.format('%s, %s %s%s (%s round%s): %s', v.comparison, v.measure,
                                         U&'\00D7', pgbench_lab_internal.fmt(v.ratio, 3),
                                         v.rounds, CASE WHEN v.rounds OPERATOR(pg_catalog.=) 1 THEN '' ELSE 's' END,
                                         v.verdict), '; ')
                                FROM pgbench_lab.experiment_verdicts(o.experiment_id) v))
      FROM pgbench_lab.experiments e
      JOIN pgbench_lab.experiments o
        ON o.kind OPERATOR(pg_catalog.=) e.kind AND o.workload OPERATOR(pg_catalog.=) e.workload
       AND o.experiment_id OPERATOR(pg_catalog.<>) e.experiment_id AND o.status OPERATOR(pg_catalog.=) 'done'
       AND (o.params OPERATOR(pg_catalog.->) 'settings') OPERATOR(pg_catalog.=) (e.params OPERATOR(pg_catalog.->) 'settings')
       AND (o.params OPERATOR(pg_catalog.->) 'clients') OPERATOR(pg_catalog.=) (e.params OPERATOR(pg_catalog.->) 'clients')
     WHERE e.experiment_id OPERATOR(pg_catalog.=) libpq_counterpart.experiment_id
       AND EXISTS (SELECT FROM pgbench_lab.experiment_runs x WHERE x.experiment_id OPERATOR(pg_catalog.=) o.experiment_id)
       AND NOT EXISTS (SELECT FROM pgbench_lab.experiment_runs x JOIN pgbench_lab.runs r ON r.run_id OPERATOR(pg_catalog.=) x.run_id
                        WHERE x.experiment_id OPERATOR(pg_catalog.=) o.experiment_id AND r.via OPERATOR(pg_catalog.<>) 'libpq')
     ORDER BY o.started_at DESC
     LIMIT 1);
END
$$;

-- What a settings kind's finding says of its path when it compares a
-- commit-bound setting, or NULL when it compares none: the path its runs
-- took, and why; for runs in-server, that their figure exaggerates the
-- setting's effect, and the figure over libpq of the same sets when one
-- was measured (libpq_counterpart()), else how to measure it.
CREATE FUNCTION pgbench_lab_internal.commit_bound_note(experiment_id bigint)
RETURNS text LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN v.in_server
                THEN pg_catalog.format('Path: in-server, and the effect of %s is bound to the commit: with no round trip between '
                                       'a client''s statements, the commit''s wait for its WAL is most of an in-server transaction, '
                                       'so this ratio exaggerates what the setting does for an application, which pays a round '
                                       'trip per statement. %s',
                                       n.list,
                                       COALESCE(pgbench_lab_internal.libpq_counterpart(e.experiment_id),
                                                'Measure it over libpq for the figure an application sees: '
                                                OPERATOR(pg_catalog.||)
                                                CASE WHEN v.superuser
                                                     THEN 'leave via out (libpq is then the default for such a set) or pass via => ''libpq''.'
                                                     ELSE 'via => ''libpq'' with a target whose conninfo holds a password (a role that is not a superuser needs one).' END))
                WHEN e.params OPERATOR(pg_catalog.?) 'via_chosen'
                THEN pg_catalog.format('Path: over libpq (this server''s own socket), chosen because the effect of %s is bound '
                                       'to the commit: in-server, with no round trip between a client''s statements, the commit''s '
                                       'wait for its WAL is most of a transaction, and the ratio would exaggerate what the setting '
                                       'does for an application (via => ''spi'' measures it in-server all the same).', n.list)
                ELSE pg_catalog.format('Path: over libpq, as asked: the effect of %s is bound to the commit, which in-server '
                                       'figures would exaggerate.', n.list) END
      FROM pgbench_lab.experiments e,
           LATERAL (SELECT pg_catalog.array_to_string(pgbench_lab_internal.commit_bound_compared(e.params), ', ') AS list) n,
           LATERAL (SELECT COALESCE(pg_catalog.bool_or(r.via OPERATOR(pg_catalog.=) 'spi'), false) AS in_server,
                           COALESCE((SELECT o.rolsuper FROM pg_catalog.pg_roles o WHERE o.oid OPERATOR(pg_catalog.=) e.owner), false) AS superuser
                      FROM pgbench_lab.experiment_runs x JOIN pgbench_lab.runs r ON r.run_id OPERATOR(pg_catalog.=) x.run_id
                     WHERE x.experiment_id OPERATOR(pg_catalog.=) e.experiment_id) v
     WHERE e.experiment_id OPERATOR(pg_catalog.=) commit_bound_note.experiment_id
       AND n.list OPERATOR(pg_catalog.<>) ''
$$;

-- The warm-up of a settings kind (compare_settings,
-- validate_recommendation): one run under the first set (A, the current
-- settings) before the first round, recorded as a run but not linked to
-- the experiment, so that no verdict reads it ("counted": false in the
-- plan; src/experiment_steps.c).  After a cold start the first runs find
-- cold caches, unwritten WAL segments and an idle CPU, and the set that
-- runs first pays for them.  warmup NULL: as long as one of the rounds'
-- runs, at most 5 s; '0': none.  Returns NULL for none.
CREATE FUNCTION pgbench_lab_internal.warmup_duration(warmup interval, duration interval)
RETURNS interval LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF warmup IS NULL THEN
        RETURN LEAST(duration, '5 s'::pg_catalog.interval);
    END IF;
    IF warmup OPERATOR(pg_catalog.<) '0'::pg_catalog.interval OR warmup OPERATOR(pg_catalog.>) '1 hour'::pg_catalog.interval THEN
        RAISE EXCEPTION 'warmup must be from 0 to 1 hour, not %', warmup
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'It is how long a run under the first set runs before the first round, not counted: ''0'' for none, NULL for one run''s duration up to 5 s.';
    END IF;
    RETURN CASE WHEN warmup OPERATOR(pg_catalog.>) '0'::pg_catalog.interval THEN warmup END;
END
$$;

-- The warm-up step before a plan's steps: a copy of the given step (the
-- first set's first run: its settings, reload-level ones and preparation)
-- that runs for warm and is not counted.  NULL when warm is.
CREATE FUNCTION pgbench_lab_internal.warmup_step(step jsonb, warm interval, about text)
RETURNS jsonb LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
SET intervalstyle = 'postgres'
AS $$
    SELECT CASE WHEN warm IS NOT NULL
                THEN step OPERATOR(pg_catalog.||)
                     pg_catalog.jsonb_build_object('round', 0, 'counted', false, 'name', 'warm-up', 'about', about,
                         'run', (step OPERATOR(pg_catalog.->) 'run') OPERATOR(pg_catalog.||)
                                pg_catalog.jsonb_build_object('duration', warm::pg_catalog.text)) END
$$;

-- The warm-up an experiment recorded, in words for its report: "A
-- warm-up run of 2 s under A ran first, not counted (warmup)", or NULL.
CREATE FUNCTION pgbench_lab_internal.warmup_words(params jsonb, under text)
RETURNS text LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pg_catalog.format('A warm-up run of %s under %s ran before the first round, not counted (warmup => ''0'' leaves it out).',
                             pgbench_lab_internal.seconds_text((params OPERATOR(pg_catalog.->>) 'warmup')::pg_catalog.interval), under)
     WHERE pgbench_lab_internal.reads_as(params OPERATOR(pg_catalog.->>) 'warmup', 'interval')
       AND (params OPERATOR(pg_catalog.->>) 'warmup')::pg_catalog.interval OPERATOR(pg_catalog.>) '0'::pg_catalog.interval
$$;

-- What a settings kind's finding says of a comparison of checkpoint
-- settings (names: those among checkpoint_settings() that the two sets
-- change) whose runs saw no checkpoint: the runs of variants 1 and
-- variant, every one done with its checkpoints counted (runs.checkpoints,
-- from the run's telemetry; NULL when they went to another server), and
-- none.  NULL when names is empty, a checkpoint happened, or the count
-- is not known.  who names the runs ("A's or B's").
CREATE FUNCTION pgbench_lab_internal.checkpoint_note(experiment_id bigint, variant integer, names text[], who text)
RETURNS text LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pg_catalog.format('no checkpoint in %s runs, so %s, which act%s through checkpoints, %s not exercised: %s effect '
                             'is not in this verdict (runs that span checkpoints, longer than checkpoint_timeout or '
                             'writing more WAL than max_wal_size, would exercise %s)',
                             who, pg_catalog.array_to_string(names, ', '),
                             CASE WHEN pg_catalog.cardinality(names) OPERATOR(pg_catalog.=) 1 THEN 's' ELSE '' END,
                             CASE WHEN pg_catalog.cardinality(names) OPERATOR(pg_catalog.=) 1 THEN 'was' ELSE 'were' END,
                             CASE WHEN pg_catalog.cardinality(names) OPERATOR(pg_catalog.=) 1 THEN 'its' ELSE 'their' END,
                             CASE WHEN pg_catalog.cardinality(names) OPERATOR(pg_catalog.=) 1 THEN 'it' ELSE 'them' END)
      FROM pgbench_lab.experiment_runs x JOIN pgbench_lab.runs r ON r.run_id OPERATOR(pg_catalog.=) x.run_id
     WHERE x.experiment_id OPERATOR(pg_catalog.=) checkpoint_note.experiment_id
       AND x.variant OPERATOR(pg_catalog.=) ANY (ARRAY[1, checkpoint_note.variant])
       AND r.status OPERATOR(pg_catalog.=) 'done'
    HAVING pg_catalog.cardinality(names) OPERATOR(pg_catalog.>) 0
       AND pg_catalog.count(*) OPERATOR(pg_catalog.>) 0
       AND pg_catalog.count(r.checkpoints) OPERATOR(pg_catalog.=) pg_catalog.count(*)
       AND pg_catalog.sum(r.checkpoints) OPERATOR(pg_catalog.=) 0
$$;

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
