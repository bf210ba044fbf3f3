
-- ---------------------------------------------------------------------------
-- sweep(): one run per client count; names the peak and the knee.
-- ---------------------------------------------------------------------------

-- The sweep's client counts, checked and in rising order.
CREATE FUNCTION pgbench_lab_internal.sweep_counts(workload text, clients integer[])
RETURNS integer[] LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF workload IS NULL THEN
        RAISE EXCEPTION 'workload must not be null'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Valid workloads are tpcb-like, simple-update and select-only; or give pgbench scripts with scripts =>.';
    END IF;
    PERFORM pgbench_lab_internal.check_flat(pg_catalog.array_ndims(clients), 'clients', '''{1,2,4,8}''');
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
    IF (SELECT pg_catalog.count(DISTINCT c) FROM pg_catalog.unnest(clients) c)
       OPERATOR(pg_catalog.<) pg_catalog.cardinality(clients) THEN
        RAISE EXCEPTION 'client counts must not repeat'
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Pass each client count once; run compare_settings for repeated rounds.';
    END IF;
    RETURN ARRAY(SELECT c FROM pg_catalog.unnest(clients) c ORDER BY c);
END
$$;

-- The knee threshold: the share of linear scaling below which a step to
-- more clients ends the useful range.  Above 0 and below 1: at 0 no gain
-- would ever fall short and at 1 every sublinear step would.
CREATE FUNCTION pgbench_lab_internal.check_knee_threshold(knee_threshold double precision)
RETURNS double precision LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF knee_threshold IS NULL THEN
        RAISE EXCEPTION 'knee_threshold must not be null'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Leave it out for the default, 0.5: the knee is then the last count before the first step that adds less than half of linear scaling.';
    END IF;
    -- NaN compares above every number, so it fails the second test
    IF NOT (knee_threshold OPERATOR(pg_catalog.>) 0 AND knee_threshold OPERATOR(pg_catalog.<) 1) THEN
        RAISE EXCEPTION 'knee_threshold must be above 0 and below 1, not %', knee_threshold
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'It is a share of linear scaling: 0.5 (the default) names the last count before the first step that adds less than half of the TPS linear scaling would add.';
    END IF;
    RETURN knee_threshold;
END
$$;

-- Whether a recorded knee threshold (params->'knee_threshold') can be
-- used: absent (a sweep of 0.1), or a number above 0 and below 1.  An
-- imported document may hold anything there.
CREATE FUNCTION pgbench_lab_internal.threshold_usable(recorded jsonb)
RETURNS boolean LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF recorded IS NULL THEN
        RETURN true;
    ELSIF pg_catalog.jsonb_typeof(recorded) OPERATOR(pg_catalog.<>) 'number' THEN
        RETURN false;
    END IF;
    RETURN (recorded OPERATOR(pg_catalog.#>>) '{}')::pg_catalog.numeric OPERATOR(pg_catalog.>) 0
           AND (recorded OPERATOR(pg_catalog.#>>) '{}')::pg_catalog.numeric OPERATOR(pg_catalog.<) 1;
END
$$;

-- The knee threshold recorded with a sweep, or 0.5 (the rule's default)
-- when there is none or it cannot be used.  A value under 1e-300 reads as
-- 1e-300: it names the same counts (only a loss falls below either) and
-- double precision holds it.
CREATE FUNCTION pgbench_lab_internal.sweep_threshold(params jsonb)
RETURNS double precision LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    recorded pg_catalog.jsonb := params OPERATOR(pg_catalog.->) 'knee_threshold';
BEGIN
    IF recorded IS NULL OR NOT pgbench_lab_internal.threshold_usable(recorded) THEN
        RETURN 0.5;
    END IF;
    RETURN greatest((recorded OPERATOR(pg_catalog.#>>) '{}')::pg_catalog.numeric, 1e-300)::pg_catalog.float8;
END
$$;

-- The parameters of a sweep, checked.
CREATE FUNCTION pgbench_lab_internal.sweep_params(workload text, clients integer[], duration interval, settings jsonb,
                                                  knee_threshold double precision)
RETURNS jsonb LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
SET intervalstyle = 'postgres'
AS $$
DECLARE
    counts pg_catalog.int4[] := pgbench_lab_internal.sweep_counts(workload, clients);
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
    RETURN pg_catalog.jsonb_build_object('clients', counts, 'duration', duration::pg_catalog.text, 'settings', settings,
                                         'knee_threshold', pgbench_lab_internal.check_knee_threshold(knee_threshold));
END
$$;

-- Each finished client count with the step from the one before it.
-- linear_share: the TPS gained as a share of what linear scaling with the
-- added clients would give (1 = linear, 0 = nothing, negative = a loss);
-- computed in numeric, so that no figures make it overflow, and NULL when
-- two runs share a client count (an imported document may hold that).
CREATE FUNCTION pgbench_lab_internal.sweep_steps(experiment_id bigint)
RETURNS TABLE (clients integer, run_id bigint, tps double precision, latency_avg_ms double precision,
               latency_p99_ms double precision, prev_clients integer, prev_tps double precision,
               prev_latency_avg_ms double precision, linear_share double precision)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT s.*, CASE WHEN s.clients OPERATOR(pg_catalog.>) s.prev_clients
                     THEN pgbench_lab_internal.to_float8((s.tps::numeric OPERATOR(pg_catalog./) s.prev_tps::numeric OPERATOR(pg_catalog.-) 1)
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

-- A share of linear scaling in percent ('37%'): whole percents, or as
-- many decimals as it takes (up to 6) to tell it from the threshold it is
-- compared with, so that a share just below 50% never reads as '50%'.
CREATE FUNCTION pgbench_lab_internal.share_text(share double precision, threshold double precision DEFAULT NULL)
RETURNS text LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    p pg_catalog.numeric := share::pg_catalog.numeric OPERATOR(pg_catalog.*) 100;
    t pg_catalog.numeric := threshold::pg_catalog.numeric OPERATOR(pg_catalog.*) 100;
    d pg_catalog.int4 := 0;
BEGIN
    IF p IS NULL THEN
        RETURN '';
    ELSIF p OPERATOR(pg_catalog.>) 999999 THEN
        RETURN '>999999%';
    ELSIF p OPERATOR(pg_catalog.<) -999999 THEN
        RETURN '<-999999%';
    END IF;
    WHILE t IS NOT NULL AND d OPERATOR(pg_catalog.<) 6 AND p OPERATOR(pg_catalog.<>) t
          AND pg_catalog.round(p, d) OPERATOR(pg_catalog.=) pg_catalog.round(t, d) LOOP
        d := d OPERATOR(pg_catalog.+) 1;
    END LOOP;
    RETURN pg_catalog.trim_scale(pg_catalog.round(p, d))::pg_catalog.text OPERATOR(pg_catalog.||) '%';
END
$$;

-- A knee threshold in percent: '50%', '33.3333%'.
CREATE FUNCTION pgbench_lab_internal.threshold_text(threshold double precision)
RETURNS text LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN threshold OPERATOR(pg_catalog.>=) 1e-6
                THEN pg_catalog.trim_scale(pg_catalog.round(threshold::pg_catalog.numeric OPERATOR(pg_catalog.*) 100, 4))::pg_catalog.text
                ELSE (threshold OPERATOR(pg_catalog.*) 100)::pg_catalog.text END OPERATOR(pg_catalog.||) '%'
$$;

-- The knee threshold a sweep's verdict uses: the override when given
-- (checked), else the one recorded with the experiment.
CREATE FUNCTION pgbench_lab_internal.sweep_rule(experiment_id bigint, knee_threshold double precision)
RETURNS double precision LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    params pg_catalog.jsonb;
BEGIN
    IF knee_threshold IS NOT NULL THEN
        RETURN pgbench_lab_internal.check_knee_threshold(knee_threshold);
    END IF;
    SELECT e.params INTO params FROM pgbench_lab.experiments e
     WHERE e.experiment_id OPERATOR(pg_catalog.=) sweep_rule.experiment_id;
    RETURN pgbench_lab_internal.sweep_threshold(params);
END
$$;

-- The client-count sweep article's method: the peak is the highest TPS;
-- the knee is the last count before the first step whose added clients
-- bring less than knee_threshold (by default half) of linear throughput;
-- past it, clients mostly add latency.  knee_threshold NULL: the one the
-- sweep was made with.
CREATE FUNCTION pgbench_lab.sweep_verdict(experiment_id bigint, knee_threshold double precision DEFAULT NULL,
    OUT peak_clients integer, OUT peak_tps double precision,
    OUT knee_clients integer, OUT cpu_limit_clients integer, OUT finding text)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    pk pg_catalog.record;
    cpu_text pg_catalog.text;
    kn pg_catalog.record;
    n pg_catalog.int4;
    top pg_catalog.int4;
    tail pg_catalog.record;
    rule pg_catalog.float8;
    peak_text pg_catalog.text;
    knee_text pg_catalog.text;
BEGIN
    IF knee_threshold IS NOT NULL THEN
        PERFORM pgbench_lab_internal.check_knee_threshold(knee_threshold);
    END IF;
    PERFORM pgbench_lab_internal.check_experiment(experiment_id, '{sweep}', 'sweep_verdict()');
    rule := pgbench_lab_internal.sweep_rule(experiment_id, knee_threshold);
    SELECT pg_catalog.count(*), pg_catalog.max(s.clients) INTO n, top FROM pgbench_lab_internal.sweep_steps(experiment_id) s;
    IF n OPERATOR(pg_catalog.=) 0 THEN
        finding := 'No finished runs: no peak and no knee.';
        RETURN;
    END IF;
    SELECT * INTO pk FROM pgbench_lab_internal.sweep_steps(experiment_id) s ORDER BY s.tps DESC, s.clients LIMIT 1;
    peak_clients := pk.clients;
    peak_tps := pk.tps;
    peak_text := pg_catalog.format('Peak: %s at %s tps, the highest throughput of the sweep',
                        pgbench_lab_internal.clients_text(pk.clients), pgbench_lab_internal.fmt(pk.tps));
    SELECT * INTO tail FROM pgbench_lab_internal.sweep_steps(experiment_id) s WHERE s.clients OPERATOR(pg_catalog.>) pk.clients
     ORDER BY s.clients DESC LIMIT 1;
    IF tail IS NULL THEN
        IF n OPERATOR(pg_catalog.>) 1 THEN
            peak_text := peak_text OPERATOR(pg_catalog.||) ' (the largest count tried: more clients may go higher)';
        END IF;
    ELSE
        peak_text := peak_text OPERATOR(pg_catalog.||) pg_catalog.format('; at %s clients TPS was %s lower', tail.clients,
                                         pg_catalog.ltrim(pgbench_lab_internal.pct_change(tail.tps, pk.tps), '-'));
    END IF;
    SELECT * INTO kn FROM pgbench_lab_internal.sweep_steps(experiment_id) s
     WHERE s.linear_share OPERATOR(pg_catalog.<) rule ORDER BY s.clients LIMIT 1;
    IF n OPERATOR(pg_catalog.<) 2 THEN
        knee_text := 'Knee: not found: it needs at least two finished client counts';
    ELSIF kn IS NULL THEN
        knee_text := pg_catalog.format('Knee: not reached: up to %s clients every step added at least %s of linear throughput (the knee threshold); sweep higher counts',
                                       top, pgbench_lab_internal.threshold_text(rule));
    ELSE
        knee_clients := kn.prev_clients;
        knee_text := pg_catalog.format('Knee: %s: going from %s to %s clients (%s) changed TPS by %s, %s of linear scaling and below the knee threshold of %s, while average latency changed by %s, so more clients add latency rather than throughput',
                            pgbench_lab_internal.clients_text(kn.prev_clients), kn.prev_clients, kn.clients,
                            pgbench_lab_internal.pct_change(kn.clients, kn.prev_clients),
                            pgbench_lab_internal.pct_change(kn.tps, kn.prev_tps),
                            pgbench_lab_internal.share_text(kn.linear_share, rule),
                            pgbench_lab_internal.threshold_text(rule),
                            CASE WHEN pgbench_lab_internal.pct_change(kn.latency_avg_ms, kn.prev_latency_avg_ms) OPERATOR(pg_catalog.<>) ''
                                 THEN pgbench_lab_internal.pct_change(kn.latency_avg_ms, kn.prev_latency_avg_ms)
                                 ELSE 'an unknown amount' END);
    END IF;
    finding := peak_text OPERATOR(pg_catalog.||) '. ' OPERATOR(pg_catalog.||) knee_text OPERATOR(pg_catalog.||) '.';
    SELECT c.limit_clients, c.words INTO cpu_limit_clients, cpu_text
      FROM pgbench_lab_internal.sweep_cpu(experiment_id, pk.run_id) c;
    finding := pg_catalog.concat_ws(' ', finding, cpu_text,
                                    (SELECT l.words FROM pgbench_lab_internal.sweep_lag(experiment_id) l));
END
$$;
COMMENT ON FUNCTION pgbench_lab.sweep_verdict(bigint, double precision) IS
    'The peak and the knee of a sweep, the client count at which the machine''s CPU passed 85 %, and its finding; knee_threshold overrides the one the sweep was made with';

-- The 85 % rule of the client-count sweep article, read from the runs'
-- telemetry: the first client count whose run kept the machine's CPU
-- at least 85 % busy (beyond it the machine, not the server, is the
-- limit), and what the clients waited on at the peak.  No words for a
-- sweep whose runs have no telemetry.
CREATE FUNCTION pgbench_lab_internal.sweep_cpu(experiment_id bigint, peak_run_id bigint,
    OUT limit_clients integer, OUT words text)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    hit pg_catalog.record;
    top pg_catalog.record;
    waits pg_catalog.text := pgbench_lab_internal.waits_text(peak_run_id);
BEGIN
    -- each count's busy CPU, read once: the first past 85 %, and the busiest
    SELECT (pg_catalog.array_agg(b.clients ORDER BY b.clients) FILTER (WHERE b.busy OPERATOR(pg_catalog.>=) 85))[1] AS clients,
           (pg_catalog.array_agg(b.busy ORDER BY b.clients) FILTER (WHERE b.busy OPERATOR(pg_catalog.>=) 85))[1] AS busy
      INTO hit
      FROM (SELECT s.clients, pgbench_lab_internal.run_cpu_busy(s.run_id) AS busy
              FROM pgbench_lab_internal.sweep_steps(experiment_id) s) b;
    IF hit.clients IS NOT NULL THEN
        limit_clients := hit.clients;
        words := pg_catalog.format('CPU: the machine''s CPU was %s %% busy at %s, past the 85 %% beyond which the machine, not the server, is the limit.',
                                   pgbench_lab_internal.fmt(hit.busy, 0), pgbench_lab_internal.clients_text(hit.clients));
    ELSE
        SELECT b.clients, b.busy INTO top
          FROM (SELECT s.clients, pgbench_lab_internal.run_cpu_busy(s.run_id) AS busy
                  FROM pgbench_lab_internal.sweep_steps(experiment_id) s) b
         WHERE b.busy IS NOT NULL
         ORDER BY 2 DESC, 1 LIMIT 1;
        IF top IS NOT NULL THEN
            words := pg_catalog.format('CPU: below 85 %% busy at every count (at most %s %%, at %s): the machine had CPU to spare.',
                                       pgbench_lab_internal.fmt(top.busy, 0), pgbench_lab_internal.clients_text(top.clients));
        END IF;
    END IF;
    IF waits IS NOT NULL THEN
        words := pg_catalog.concat_ws(' ', words, pg_catalog.format('At the peak the clients'' time went to: %s.', waits));
    END IF;
END
$$;

CREATE FUNCTION pgbench_lab.sweep_summary(experiment_id bigint)
RETURNS TABLE (clients integer, run_id bigint, tps double precision, latency_avg_ms double precision,
               latency_p99_ms double precision, tps_change text, latency_change text,
               linear_share double precision, mark text, cpu_busy_pct double precision, waits text)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM pgbench_lab_internal.check_experiment(experiment_id, '{sweep}', 'sweep_summary()');
    RETURN QUERY
    SELECT s.clients, s.run_id, s.tps, s.latency_avg_ms, s.latency_p99_ms,
           pgbench_lab_internal.pct_change(s.tps, s.prev_tps),
           pgbench_lab_internal.pct_change(s.latency_avg_ms, s.prev_latency_avg_ms),
           s.linear_share,
           CASE WHEN s.clients OPERATOR(pg_catalog.=) v.peak_clients
                     OR s.clients OPERATOR(pg_catalog.=) v.knee_clients
                THEN pg_catalog.concat_ws(', ', CASE WHEN s.clients OPERATOR(pg_catalog.=) v.peak_clients THEN 'peak' END,
                                          CASE WHEN s.clients OPERATOR(pg_catalog.=) v.knee_clients THEN 'knee' END) END,
           pgbench_lab_internal.run_cpu_busy(s.run_id), pgbench_lab_internal.waits_text(s.run_id)
      FROM pgbench_lab_internal.sweep_steps(sweep_summary.experiment_id) s,
           pgbench_lab.sweep_verdict(sweep_summary.experiment_id) v
     ORDER BY s.clients;
END
$$;
COMMENT ON FUNCTION pgbench_lab.sweep_summary(bigint) IS
    'TPS and latency per client count of a sweep, with the peak and the knee marked, the machine''s CPU busy and what the clients waited on';

-- The plan: one run per client count, in rising order.  run() checks the
-- workload, each count against pgbench_lab.max_clients and the settings;
-- the knee threshold is checked here and recorded with the parameters, so
-- that the verdict, the report and the plot use the sweep's own.  Every
-- run option goes to every run (options, built by the driver), but two: a
-- rate (every count would commit the same throughput: no peak, no knee)
-- and target_clients, which fixes the clients a sweep varies (unless the
-- sweep has the one count they add up to).
CREATE FUNCTION pgbench_lab_internal.sweep_plan(workload text, clients integer[], duration interval,
                                       label text, settings jsonb, knee_threshold double precision,
                                       options jsonb, caller jsonb)
RETURNS jsonb LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    name pg_catalog.text := pgbench_lab_internal.experiment_workload(workload, options);
    params pg_catalog.jsonb;
    total pg_catalog.int8;
BEGIN
    params := pgbench_lab_internal.sweep_params(name, clients, duration, settings, knee_threshold);
    IF options OPERATOR(pg_catalog.?) 'rate' THEN
        PERFORM pgbench_lab_internal.refuse_option('sweep', 'rate',
            'at a fixed rate every client count commits the same throughput, so there is no peak and no knee to find',
            'latency_curve() measures latency at a ladder of rates; a sweep may take latency_limit alone, which counts the late transactions of each count.');
    END IF;
    IF options OPERATOR(pg_catalog.?) 'target_clients' THEN
        -- every count of the array, as unnest() would give them
        SELECT pg_catalog.sum((c OPERATOR(pg_catalog.#>>) '{}')::pg_catalog.int8) INTO total
          FROM pg_catalog.jsonb_path_query(options, 'strict $.target_clients.** ? (@.type() == "number")') c;
        IF EXISTS (SELECT FROM pg_catalog.jsonb_array_elements_text(params OPERATOR(pg_catalog.->) 'clients') c
                    WHERE total IS NULL OR total OPERATOR(pg_catalog.<>) c::pg_catalog.int8) THEN
            PERFORM pgbench_lab_internal.refuse_option('sweep', 'target_clients',
                pg_catalog.format('it fixes each target''s clients (%s in all), and the sweep varies them', coalesce(total::pg_catalog.text, 'none')),
                'Leave target_clients out: each run then spreads its clients over the targets in turn (client i to target (i - 1) % n + 1).');
        END IF;
    END IF;
    RETURN pg_catalog.jsonb_build_object('workload', name, 'label', label,
               'params', pgbench_lab_internal.step_options_params(options) OPERATOR(pg_catalog.||) params,
               'steps', (SELECT pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object(
                                    'variant', c.i, 'round', 1, 'about', 'settings',
                                    'run', pgbench_lab_internal.step_run(workload, options)
                                           OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object('clients', c.n,
                                               'duration', params OPERATOR(pg_catalog.->) 'duration',
                                               'label', label, 'settings', params OPERATOR(pg_catalog.->) 'settings'))
                                ORDER BY c.i)
                           FROM pg_catalog.jsonb_array_elements(params OPERATOR(pg_catalog.->) 'clients')
                                WITH ORDINALITY AS c(n, i)));
END
$$;

-- The procedure's INOUT columns.
CREATE FUNCTION pgbench_lab_internal.sweep_result(id bigint)
RETURNS TABLE (experiment_id bigint, peak_clients integer, peak_tps double precision,
               knee_clients integer, finding text)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT id, v.peak_clients, v.peak_tps, v.knee_clients, v.finding FROM pgbench_lab.sweep_verdict(id) v
$$;

-- The knee rule in words, with the threshold and each step's share of
-- linear scaling, so that a reader sees why a count was named (or none).
CREATE FUNCTION pgbench_lab_internal.report_knee_rule(experiment_id bigint)
RETURNS SETOF text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    rule pg_catalog.float8 := pgbench_lab_internal.sweep_rule(experiment_id, NULL);
    recorded pg_catalog.jsonb;
    knee pg_catalog.int4;
    pct pg_catalog.text := pgbench_lab_internal.threshold_text(rule);
BEGIN
    IF NOT EXISTS (SELECT FROM pgbench_lab_internal.sweep_steps(experiment_id) s
                    WHERE s.prev_clients IS NOT NULL) THEN
        RETURN;
    END IF;
    SELECT e.params OPERATOR(pg_catalog.->) 'knee_threshold' INTO recorded FROM pgbench_lab.experiments e
     WHERE e.experiment_id OPERATOR(pg_catalog.=) report_knee_rule.experiment_id;
    SELECT v.knee_clients INTO knee FROM pgbench_lab.sweep_verdict(experiment_id) v;
    RETURN QUERY SELECT x.w FROM pgbench_lab_internal.wrap(pg_catalog.format(
        'Knee rule: the knee is the last client count before the first step whose TPS gain is below %s of linear scaling (linear: TPS in proportion to the clients, +100%% for twice the clients). The threshold is sweep()''s knee_threshold; sweep_verdict(%s, knee_threshold => %s) tries another.',
        pct, experiment_id, CASE WHEN rule OPERATOR(pg_catalog.=) 0.3 THEN '0.5' ELSE '0.3' END), '') WITH ORDINALITY AS x(w, j) ORDER BY x.j;
    IF NOT pgbench_lab_internal.threshold_usable(recorded) THEN
        RETURN QUERY SELECT pg_catalog.format('  (the recorded knee_threshold, %s, is not a number above 0 and below 1: the rule uses 50%%)',
                                              pgbench_lab.printable(pg_catalog.left(recorded::pg_catalog.text, 40)));
    END IF;
    RETURN QUERY
        SELECT CASE WHEN s.linear_share IS NULL
                    THEN pg_catalog.format('  %s -> %s clients: two runs of the same count, no share of linear', s.prev_clients, s.clients)
                    ELSE pg_catalog.format('  %s -> %s clients: %s TPS, %s of linear (threshold %s)%s', s.prev_clients, s.clients,
                                           pgbench_lab_internal.pct_change(s.tps, s.prev_tps),
                                           pgbench_lab_internal.share_text(s.linear_share, rule), pct,
                                           CASE WHEN s.prev_clients OPERATOR(pg_catalog.=) knee
                                                     AND s.linear_share OPERATOR(pg_catalog.<) rule
                                                     AND NOT EXISTS (SELECT FROM pgbench_lab_internal.sweep_steps(report_knee_rule.experiment_id) o
                                                                      WHERE o.clients OPERATOR(pg_catalog.<) s.clients
                                                                        AND o.linear_share OPERATOR(pg_catalog.<) rule)
                                                THEN pg_catalog.format(': below it, so the knee is %s', pgbench_lab_internal.clients_text(knee))
                                                ELSE '' END) END
          FROM pgbench_lab_internal.sweep_steps(experiment_id) s
         WHERE s.prev_clients IS NOT NULL
         ORDER BY s.clients;
    RETURN QUERY SELECT '';
END
$$;

CREATE FUNCTION pgbench_lab_internal.report_sweep(experiment_id bigint)
RETURNS SETOF text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    top pg_catalog.float8;
    v pg_catalog.record;
BEGIN
    RETURN QUERY SELECT pg_catalog.format('  %7s  %8s  %10s  %7s  %12s  %7s  %10s  %5s', 'clients', 'run', 'TPS', 'change',
                       'lat avg ms', 'change', 'p99 ms', 'CPU %');
    RETURN QUERY
        SELECT pg_catalog.rtrim(pg_catalog.format('  %7s  %8s  %10s  %7s  %12s  %7s  %10s  %5s  %s', s.clients, s.run_id,
                            pgbench_lab_internal.fmt(s.tps), s.tps_change, pgbench_lab_internal.fmt(s.latency_avg_ms, 3),
                            s.latency_change, pgbench_lab_internal.fmt(s.latency_p99_ms, 3),
                            coalesce(pgbench_lab_internal.fmt(s.cpu_busy_pct, 0), '-'), coalesce(s.mark, '')))
          FROM pgbench_lab.sweep_summary(experiment_id) s;
    IF EXISTS (SELECT FROM pgbench_lab.sweep_summary(experiment_id) s WHERE s.waits IS NOT NULL) THEN
        RETURN QUERY SELECT '';
        RETURN QUERY SELECT 'Where the clients'' time went (CPU: waiting on nothing)';
        RETURN QUERY
            SELECT pg_catalog.format('  %7s  %s', s.clients, coalesce(s.waits, '-'))
              FROM pgbench_lab.sweep_summary(experiment_id) s;
    END IF;
    IF EXISTS (SELECT FROM pgbench_lab_internal.sweep_lag_steps(experiment_id)) THEN
        RETURN QUERY SELECT '';
        RETURN QUERY SELECT 'Standby lag by clients (replay lag behind this server: largest, at the end, and its trend)';
        RETURN QUERY
            SELECT pg_catalog.format('  %7s  %s: %s, %s at the end, %s', l.clients, l.standby,
                                     pg_catalog.pg_size_pretty(coalesce(l.top_bytes, 0)),
                                     pg_catalog.pg_size_pretty(coalesce(l.last_bytes, 0)), l.trend)
              FROM pgbench_lab_internal.sweep_lag_steps(experiment_id) l;
    END IF;
    SELECT pg_catalog.max(s.tps) INTO top FROM pgbench_lab.sweep_summary(experiment_id) s;
    RETURN QUERY SELECT '';
    RETURN QUERY SELECT 'TPS by clients';
    RETURN QUERY
        SELECT pg_catalog.format('  %7s │%s %s', s.clients, pg_catalog.rpad(pgbench_lab_internal.hbar(s.tps, top, 40), 40), pgbench_lab_internal.fmt(s.tps))
          FROM pgbench_lab.sweep_summary(experiment_id) s;
    RETURN QUERY SELECT '';
    RETURN QUERY
        SELECT x.w FROM (SELECT pg_catalog.min(r.scale) AS scale, pg_catalog.min(r.clients) FILTER (WHERE r.clients OPERATOR(pg_catalog.>) r.scale) AS c
                           FROM pgbench_lab.experiment_runs e JOIN pgbench_lab.runs r ON r.run_id OPERATOR(pg_catalog.=) e.run_id
                          WHERE e.experiment_id OPERATOR(pg_catalog.=) report_sweep.experiment_id AND r.workload OPERATOR(pg_catalog.=) 'tpcb-like') s,
                        pgbench_lab_internal.wrap(pg_catalog.format('Note: from %s clients on, the clients outnumber the %s pgbench_branches rows (scale %s): branch-row lock contention caps tpcb-like TPS there, so the peak and the knee may be the lock''s rather than the server''s. Initialise with a scale of at least the largest client count.',
                                                s.c, s.scale, s.scale), '') WITH ORDINALITY AS x(w, j)
         WHERE s.c IS NOT NULL
         ORDER BY x.j;
    RETURN QUERY SELECT l FROM pgbench_lab_internal.report_knee_rule(experiment_id) AS l;
    SELECT * INTO v FROM pgbench_lab.sweep_verdict(experiment_id);
    RETURN QUERY SELECT x.w FROM pg_catalog.regexp_split_to_table(v.finding, '(?<=\.) (?=Knee|CPU:|At the peak|Standby lag:)') WITH ORDINALITY AS f(t, i),
                                 pgbench_lab_internal.wrap(f.t, '') WITH ORDINALITY AS x(w, j)
                        ORDER BY f.i, x.j;
END
$$;

-- Bound to the experiments driver (src/experiment.c), with no SET clause:
-- it commits between runs.
CREATE PROCEDURE pgbench_lab.sweep(
    workload text DEFAULT NULL,
    clients integer[] DEFAULT '{1,2,4,8}',
    duration interval DEFAULT '10 s',
    label text DEFAULT NULL,
    settings jsonb DEFAULT '{}',
    knee_threshold double precision DEFAULT 0.5,
    scripts text[] DEFAULT NULL,
    variables jsonb DEFAULT NULL,
    via text DEFAULT NULL,
    threads integer DEFAULT NULL,
    targets text[] DEFAULT NULL,
    INOUT experiment_id bigint DEFAULT NULL,
    INOUT peak_clients integer DEFAULT NULL,
    INOUT peak_tps double precision DEFAULT NULL,
    INOUT knee_clients integer DEFAULT NULL,
    INOUT finding text DEFAULT NULL,
    @RUN_OPTIONS_EXCEPT workload clients duration transactions label settings scripts variables via threads targets@)
LANGUAGE c
AS 'MODULE_PATHNAME', 'pgbench_lab_experiment';
COMMENT ON PROCEDURE pgbench_lab.sweep IS
    'One run per client count, recorded as an experiment; names the peak and the knee';

REVOKE ALL ON PROCEDURE pgbench_lab.sweep FROM PUBLIC;
GRANT EXECUTE ON FUNCTION pgbench_lab.sweep_summary(bigint) TO pg_monitor;

INSERT INTO pgbench_lab.experiment_kinds (kind, procedure, planner, preparation, finding, report, description)
VALUES ('sweep', 'pgbench_lab.sweep'::pg_catalog.regproc, 'pgbench_lab_internal.sweep_plan'::pg_catalog.regproc, NULL,
        'pgbench_lab_internal.sweep_result(bigint)', 'pgbench_lab_internal.report_sweep(bigint)',
        'One run per client count; the peak and the knee')
ON CONFLICT (kind) DO UPDATE SET procedure = EXCLUDED.procedure, planner = EXCLUDED.planner,
    preparation = EXCLUDED.preparation, finding = EXCLUDED.finding, report = EXCLUDED.report,
    description = EXCLUDED.description;
