
-- ---------------------------------------------------------------------------
-- Experiments: sweep() and compare_settings().  They commit between runs,
-- so they are C loops (src/report_experiment.c) around the SQL functions
-- here, which check, plan, link and judge.
-- ---------------------------------------------------------------------------

CREATE FUNCTION pgbench_lab.experiment_begin(kind text, workload text, label text, params jsonb)
RETURNS bigint LANGUAGE sql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT (pgbench_lab.record('experiment_begin', pg_catalog.jsonb_build_object('kind', kind,
            'workload', workload, 'label', label, 'params', params)) OPERATOR(pg_catalog.->>) 'experiment_id')::bigint
$$;

CREATE FUNCTION pgbench_lab.experiment_add(experiment_id bigint, run_id bigint, variant integer, round integer)
RETURNS void LANGUAGE sql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT FROM pgbench_lab.record('experiment_add', pg_catalog.jsonb_build_object('experiment_id', experiment_id,
            'run_id', run_id, 'variant', variant, 'round', round))
$$;

CREATE FUNCTION pgbench_lab.experiment_end(experiment_id bigint)
RETURNS void LANGUAGE sql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT FROM pgbench_lab.record('experiment_end', pg_catalog.jsonb_build_object('experiment_id', experiment_id))
$$;

-- The sweep's client counts, checked and in rising order.
CREATE FUNCTION pgbench_lab.sweep_counts(workload text, clients integer[])
RETURNS integer[] LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF workload IS NULL THEN
        RAISE EXCEPTION 'workload must not be null'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Valid workloads are tpcb-like, simple-update and select-only.';
    END IF;
    PERFORM pgbench_lab.check_flat(pg_catalog.array_ndims(clients), 'clients', '''{1,2,4,8}''');
    IF clients IS NULL OR pg_catalog.cardinality(clients) OPERATOR(pg_catalog.=) 0
       OR pg_catalog.array_position(clients, NULL) IS NOT NULL THEN
        RAISE EXCEPTION 'clients must be a non-empty array without nulls'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Pass the client counts to try, for example ''{1,2,4,8}''.';
    END IF;
    IF EXISTS (SELECT FROM pg_catalog.unnest(clients) c WHERE c OPERATOR(pg_catalog.<) 1) THEN
        RAISE EXCEPTION 'client counts must be 1 or more'
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Pass positive client counts, for example ''{1,2,4,8}''.';
    END IF;
    IF (SELECT pg_catalog.max(c) FROM pg_catalog.unnest(clients) c)
       OPERATOR(pg_catalog.>) pg_catalog.current_setting('pgbench_lab.max_clients')::integer THEN
        RAISE EXCEPTION 'client counts must not exceed pgbench_lab.max_clients (%)',
                        pg_catalog.current_setting('pgbench_lab.max_clients')
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Checked before the first run, so that a sweep does not stop halfway; a superuser can raise pgbench_lab.max_clients.';
    END IF;
    IF (SELECT pg_catalog.count(DISTINCT c) FROM pg_catalog.unnest(clients) c)
       OPERATOR(pg_catalog.<) pg_catalog.cardinality(clients) THEN
        RAISE EXCEPTION 'client counts must not repeat'
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Pass each client count once; run compare_settings for repeated rounds.';
    END IF;
    RETURN ARRAY(SELECT c FROM pg_catalog.unnest(clients) c ORDER BY c);
END
$$;

CREATE FUNCTION pgbench_lab.compare_params(workload text, settings jsonb[], clients integer,
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
    PERFORM pgbench_lab.check_flat(pg_catalog.array_ndims(settings), 'settings',
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

-- An experiment of one of the kinds a function reads, or an error naming
-- the kind it is (the functions would otherwise read another kind's runs
-- as their own: a cold_vs_warm experiment's three runs of one client count
-- as a sweep divides by zero).
CREATE FUNCTION pgbench_lab.check_experiment(experiment_id bigint, kinds text[], fn text)
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

-- Each finished client count with the step from the one before it.
-- linear_share: the TPS gained as a share of what linear scaling with the
-- added clients would give (1 = linear, 0 = nothing, negative = a loss);
-- computed in numeric, so that no figures make it overflow, and NULL when
-- two runs share a client count (an imported document may hold that).
CREATE FUNCTION pgbench_lab.sweep_steps(experiment_id bigint)
RETURNS TABLE (clients integer, run_id bigint, tps double precision, latency_avg_ms double precision,
               latency_p99_ms double precision, prev_clients integer, prev_tps double precision,
               prev_latency_avg_ms double precision, linear_share double precision)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT s.*, CASE WHEN s.clients OPERATOR(pg_catalog.>) s.prev_clients
                     THEN pgbench_lab.to_float8((s.tps::numeric OPERATOR(pg_catalog./) s.prev_tps::numeric OPERATOR(pg_catalog.-) 1)
                                                OPERATOR(pg_catalog./) (s.clients::numeric OPERATOR(pg_catalog./) s.prev_clients OPERATOR(pg_catalog.-) 1)) END
      FROM (SELECT r.clients, r.run_id, r.tps, r.latency_avg_ms, r.latency_p99_ms,
                   pg_catalog.lag(r.clients) OVER w AS prev_clients, pg_catalog.lag(r.tps) OVER w AS prev_tps,
                   pg_catalog.lag(r.latency_avg_ms) OVER w AS prev_latency_avg_ms
              FROM pgbench_lab.experiment_runs x
              JOIN pgbench_lab.runs r ON r.run_id OPERATOR(pg_catalog.=) x.run_id
             WHERE x.experiment_id OPERATOR(pg_catalog.=) sweep_steps.experiment_id
               AND r.status OPERATOR(pg_catalog.=) 'done' AND r.tps OPERATOR(pg_catalog.>) 0
            WINDOW w AS (ORDER BY r.clients, x.ordinal)) s
     ORDER BY s.clients
$$;

-- Seed 004's method: the peak is the highest TPS; the knee is the last
-- count before the first step whose added clients bring less than half of
-- linear throughput; past it, clients mostly add latency.
CREATE FUNCTION pgbench_lab.sweep_verdict(experiment_id bigint,
    OUT peak_clients integer, OUT peak_tps double precision,
    OUT knee_clients integer, OUT finding text)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    pk pg_catalog.record;
    kn pg_catalog.record;
    n pg_catalog.int4;
    top pg_catalog.int4;
    tail pg_catalog.record;
    peak_text pg_catalog.text;
    knee_text pg_catalog.text;
BEGIN
    PERFORM pgbench_lab.check_experiment(experiment_id, '{sweep}', 'sweep_verdict()');
    SELECT pg_catalog.count(*), pg_catalog.max(s.clients) INTO n, top FROM pgbench_lab.sweep_steps(experiment_id) s;
    IF n OPERATOR(pg_catalog.=) 0 THEN
        finding := 'No finished runs: no peak and no knee.';
        RETURN;
    END IF;
    SELECT * INTO pk FROM pgbench_lab.sweep_steps(experiment_id) s ORDER BY s.tps DESC, s.clients LIMIT 1;
    peak_clients := pk.clients;
    peak_tps := pk.tps;
    peak_text := pg_catalog.format('Peak: %s at %s tps, the highest throughput of the sweep',
                        pgbench_lab.clients_text(pk.clients), pgbench_lab.fmt(pk.tps));
    SELECT * INTO tail FROM pgbench_lab.sweep_steps(experiment_id) s WHERE s.clients OPERATOR(pg_catalog.>) pk.clients
     ORDER BY s.clients DESC LIMIT 1;
    IF tail IS NULL THEN
        IF n OPERATOR(pg_catalog.>) 1 THEN
            peak_text := peak_text OPERATOR(pg_catalog.||) ' (the largest count tried: more clients may go higher)';
        END IF;
    ELSE
        peak_text := peak_text OPERATOR(pg_catalog.||) pg_catalog.format('; at %s clients TPS was %s lower', tail.clients,
                                         pg_catalog.ltrim(pgbench_lab.pct_change(tail.tps, pk.tps), '-'));
    END IF;
    SELECT * INTO kn FROM pgbench_lab.sweep_steps(experiment_id) s
     WHERE s.linear_share OPERATOR(pg_catalog.<) 0.5 ORDER BY s.clients LIMIT 1;
    IF n OPERATOR(pg_catalog.<) 2 THEN
        knee_text := 'Knee: not found: it needs at least two finished client counts';
    ELSIF kn IS NULL THEN
        knee_text := pg_catalog.format('Knee: not reached: up to %s clients every step added at least half of linear throughput; sweep higher counts', top);
    ELSE
        knee_clients := kn.prev_clients;
        knee_text := pg_catalog.format('Knee: %s: going from %s to %s clients (%s) changed TPS by %s (%s%% of linear scaling) while average latency changed by %s, so more clients add latency rather than throughput',
                            pgbench_lab.clients_text(kn.prev_clients), kn.prev_clients, kn.clients,
                            pgbench_lab.pct_change(kn.clients, kn.prev_clients),
                            pgbench_lab.pct_change(kn.tps, kn.prev_tps),
                            pg_catalog.round((kn.linear_share OPERATOR(pg_catalog.*) 100)::numeric),
                            CASE WHEN pgbench_lab.pct_change(kn.latency_avg_ms, kn.prev_latency_avg_ms) OPERATOR(pg_catalog.<>) ''
                                 THEN pgbench_lab.pct_change(kn.latency_avg_ms, kn.prev_latency_avg_ms)
                                 ELSE 'an unknown amount' END);
    END IF;
    finding := peak_text OPERATOR(pg_catalog.||) '. ' OPERATOR(pg_catalog.||) knee_text OPERATOR(pg_catalog.||) '.';
END
$$;

CREATE FUNCTION pgbench_lab.sweep_summary(experiment_id bigint)
RETURNS TABLE (clients integer, run_id bigint, tps double precision, latency_avg_ms double precision,
               latency_p99_ms double precision, tps_change text, latency_change text,
               linear_share double precision, mark text)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM pgbench_lab.check_experiment(experiment_id, '{sweep}', 'sweep_summary()');
    RETURN QUERY
    SELECT s.clients, s.run_id, s.tps, s.latency_avg_ms, s.latency_p99_ms,
           pgbench_lab.pct_change(s.tps, s.prev_tps),
           pgbench_lab.pct_change(s.latency_avg_ms, s.prev_latency_avg_ms),
           s.linear_share,
           CASE WHEN s.clients OPERATOR(pg_catalog.=) v.peak_clients
                     OR s.clients OPERATOR(pg_catalog.=) v.knee_clients
                THEN pg_catalog.concat_ws(', ', CASE WHEN s.clients OPERATOR(pg_catalog.=) v.peak_clients THEN 'peak' END,
                                          CASE WHEN s.clients OPERATOR(pg_catalog.=) v.knee_clients THEN 'knee' END) END
      FROM pgbench_lab.sweep_steps(sweep_summary.experiment_id) s,
           pgbench_lab.sweep_verdict(sweep_summary.experiment_id) v
     ORDER BY s.clients;
END
$$;
COMMENT ON FUNCTION pgbench_lab.sweep_summary(bigint) IS
    'TPS and latency per client count of a sweep, with the peak and the knee marked';

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
    PERFORM pgbench_lab.check_experiment(experiment_id, '{compare_settings,connection_cost}', 'settings_ratios()');
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
           pg_catalog.percentile_cont(0.5) WITHIN GROUP (ORDER BY pgbench_lab.ratio(t.tps, a.tps)),
           pg_catalog.min(pgbench_lab.ratio(t.tps, a.tps)), pg_catalog.max(pgbench_lab.ratio(t.tps, a.tps))
      FROM t LEFT JOIN t a ON a.variant OPERATOR(pg_catalog.=) 1 AND a.round OPERATOR(pg_catalog.=) t.round
     GROUP BY t.variant
     ORDER BY t.variant;
END
$$;
COMMENT ON FUNCTION pgbench_lab.settings_ratios(bigint) IS
    'TPS per settings set of a compare_settings experiment, with ratios to set A (median, min, max over rounds)';

CREATE FUNCTION pgbench_lab.settings_finding(experiment_id bigint)
RETURNS text LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT coalesce(pg_catalog.string_agg(pg_catalog.format('%s (%s) against A: TPS ×%s median over %s rounds (min ×%s, max ×%s); %s',
                    s.name, pgbench_lab.settings_text(s.settings),
                    pgbench_lab.fmt(s.ratio_median, 3), s.rounds,
                    pgbench_lab.fmt(s.ratio_min, 3), pgbench_lab.fmt(s.ratio_max, 3),
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

-- The parameters of a sweep, checked.
CREATE FUNCTION pgbench_lab.sweep_params(workload text, clients integer[], duration interval, settings jsonb)
RETURNS jsonb LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
SET intervalstyle = 'postgres'
AS $$
DECLARE
    counts pg_catalog.int4[] := pgbench_lab.sweep_counts(workload, clients);
BEGIN
    IF duration IS NULL OR settings IS NULL THEN
        RAISE EXCEPTION 'duration and settings must not be null'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Leave them out for the defaults: 10 s and no session settings (''{}'').';
    END IF;
    IF pg_catalog.jsonb_typeof(settings) OPERATOR(pg_catalog.<>) 'object' THEN
        RAISE EXCEPTION 'settings must be a jsonb object'
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Use ''{}'' for the current settings and {"name": "value"} for others.';
    END IF;
    RETURN pg_catalog.jsonb_build_object('clients', counts, 'duration', duration::pg_catalog.text, 'settings', settings);
END
$$;

-- Every setting of every set an experiment's runs will apply: (set, for
-- more than one set its name A, B...; name; value), for the procedures to
-- check as run() does (the name exists, the value is valid, the caller may
-- set it) before the experiment begins, so that a bad setting in the last
-- set is not found after the first sets have run.
CREATE FUNCTION pgbench_lab.experiment_settings(sets jsonb)
RETURNS TABLE (set_name text, name text, value text) LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN pg_catalog.jsonb_array_length(sets) OPERATOR(pg_catalog.>) 1 THEN pg_catalog.chr(64 OPERATOR(pg_catalog.+) a.i::integer) END, s.key, s.value
      FROM pg_catalog.jsonb_array_elements(sets) WITH ORDINALITY AS a(one, i),
           pg_catalog.jsonb_each_text(CASE WHEN pg_catalog.jsonb_typeof(a.one) OPERATOR(pg_catalog.=) 'object' THEN a.one END) AS s(key, value)
     ORDER BY a.i, s.key
$$;

-- The arguments of sweep() and compare_settings() checked, with the
-- settings their runs will apply (see experiment_settings()).  Nothing is
-- recorded yet.
CREATE FUNCTION pgbench_lab.experiment_check_sweep(workload text, clients integer[], duration interval,
                                                   label text, settings jsonb)
RETURNS TABLE (set_name text, name text, value text) LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT s.* FROM pgbench_lab.experiment_settings(
        pg_catalog.jsonb_build_array(pgbench_lab.sweep_params(workload, clients, duration, settings) OPERATOR(pg_catalog.->) 'settings')) s
$$;

CREATE FUNCTION pgbench_lab.experiment_check_settings(workload text, settings jsonb[], clients integer,
                                                      duration interval, rounds integer, label text)
RETURNS TABLE (set_name text, name text, value text) LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT s.* FROM pgbench_lab.experiment_settings(
        pgbench_lab.compare_params(workload, settings, clients, duration, rounds) OPERATOR(pg_catalog.->) 'settings') s
$$;

-- Check the arguments and begin the experiment; returns its id and how
-- many runs it will make.  The procedures below (C) then run each step.
CREATE FUNCTION pgbench_lab.experiment_plan_sweep(workload text, clients integer[], duration interval,
                                                  label text, settings jsonb,
                                                  OUT experiment_id bigint, OUT steps integer)
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    params pg_catalog.jsonb := pgbench_lab.sweep_params(workload, clients, duration, settings);
BEGIN
    experiment_id := pgbench_lab.experiment_begin('sweep', workload, label, params);
    steps := pg_catalog.jsonb_array_length(params OPERATOR(pg_catalog.->) 'clients');
END
$$;

CREATE FUNCTION pgbench_lab.experiment_plan_settings(workload text, settings jsonb[], clients integer,
                                                     duration interval, rounds integer, label text,
                                                     OUT experiment_id bigint, OUT steps integer)
LANGUAGE sql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pgbench_lab.experiment_begin('compare_settings', workload, label,
               pgbench_lab.compare_params(workload, settings, clients, duration, rounds)),
           pg_catalog.cardinality(settings) OPERATOR(pg_catalog.*) rounds
$$;

-- Step n (from 1) of an experiment: the CALL that makes its run, spelled
-- with quoted literals, and where the run goes (variant, round).  A
-- compare_settings experiment runs its sets in order within each round.
CREATE FUNCTION pgbench_lab.experiment_step(experiment_id bigint, step integer,
                                            OUT step_call text, OUT variant integer, OUT round integer)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    e pgbench_lab.experiments;
    n pg_catalog.int4;
BEGIN
    SELECT * INTO STRICT e FROM pgbench_lab.experiments x
     WHERE x.experiment_id OPERATOR(pg_catalog.=) experiment_step.experiment_id;
    IF e.kind OPERATOR(pg_catalog.=) 'sweep' THEN
        variant := step;
        round := 1;
        step_call := pg_catalog.format('CALL pgbench_lab.run(%L, %L::pg_catalog.int4, %L::pg_catalog.interval, NULL, %L, %L::pg_catalog.jsonb)',
                       e.workload, e.params OPERATOR(pg_catalog.->) 'clients' OPERATOR(pg_catalog.->>) (step OPERATOR(pg_catalog.-) 1), e.params OPERATOR(pg_catalog.->>) 'duration', e.label,
                       e.params OPERATOR(pg_catalog.->) 'settings');
    ELSE
        n := pg_catalog.jsonb_array_length(e.params OPERATOR(pg_catalog.->) 'settings');
        variant := (step OPERATOR(pg_catalog.-) 1) OPERATOR(pg_catalog.%) n OPERATOR(pg_catalog.+) 1;
        round := (step OPERATOR(pg_catalog.-) 1) OPERATOR(pg_catalog./) n OPERATOR(pg_catalog.+) 1;
        step_call := pg_catalog.format('CALL pgbench_lab.run(%L, %L::pg_catalog.int4, %L::pg_catalog.interval, NULL, %L, %L::pg_catalog.jsonb)',
                       e.workload, e.params OPERATOR(pg_catalog.->>) 'clients', e.params OPERATOR(pg_catalog.->>) 'duration', e.label,
                       e.params OPERATOR(pg_catalog.->) 'settings' OPERATOR(pg_catalog.->) (variant OPERATOR(pg_catalog.-) 1));
    END IF;
END
$$;

-- C procedures with no SET clause: they commit between runs.
CREATE PROCEDURE pgbench_lab.sweep(
    workload text,
    clients integer[] DEFAULT '{1,2,4,8}',
    duration interval DEFAULT '10 s',
    label text DEFAULT NULL,
    settings jsonb DEFAULT '{}',
    INOUT experiment_id bigint DEFAULT NULL,
    INOUT peak_clients integer DEFAULT NULL,
    INOUT peak_tps double precision DEFAULT NULL,
    INOUT knee_clients integer DEFAULT NULL,
    INOUT finding text DEFAULT NULL)
LANGUAGE c
AS 'MODULE_PATHNAME', 'pgbench_lab_sweep';
COMMENT ON PROCEDURE pgbench_lab.sweep(text, integer[], interval, text, jsonb, bigint, integer, double precision, integer, text) IS
    'One run per client count, recorded as an experiment; names the peak and the knee';

CREATE PROCEDURE pgbench_lab.compare_settings(
    workload text,
    settings jsonb[],
    clients integer DEFAULT 1,
    duration interval DEFAULT '10 s',
    rounds integer DEFAULT 3,
    label text DEFAULT NULL,
    INOUT experiment_id bigint DEFAULT NULL,
    INOUT finding text DEFAULT NULL)
LANGUAGE c
AS 'MODULE_PATHNAME', 'pgbench_lab_compare_settings';
COMMENT ON PROCEDURE pgbench_lab.compare_settings(text, jsonb[], integer, interval, integer, text, bigint, text) IS
    'The same workload under each set of session settings, rounds interleaved; TPS ratios with their spread';


REVOKE ALL ON PROCEDURE pgbench_lab.sweep(text, integer[], interval, text, jsonb, bigint, integer, double precision, integer, text) FROM PUBLIC;
REVOKE ALL ON PROCEDURE pgbench_lab.compare_settings(text, jsonb[], integer, interval, integer, text, bigint, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION pgbench_lab.sweep_summary(bigint), pgbench_lab.settings_ratios(bigint) TO pg_monitor;
