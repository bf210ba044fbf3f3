
-- ---------------------------------------------------------------------------
-- latency_curve(): one workload at a ladder of rates (pgbench -R), to find
-- the highest throughput at which a latency percentile stays under a
-- target.  The first run measures the maximum (no rate); the others run
-- at the rates given, or at shares of that maximum (the driver turns a
-- step's rate_share into a rate once the maximum is known).
--
-- Each rate's percentile is judged with its sample (71_verdict.sql's
-- method): the transactions it comes from and its order-statistics
-- interval, the runs of the same rate pooled (their histograms summed).
-- A rate holds when the interval lies at or under the target, breaks when
-- it lies above it (or the rate was not sustained, or a run failed), and
-- is undecided when it holds the target or too few transactions back it.
-- The answer is a range: held up to between the highest rate that holds
-- and the lowest that breaks.  While that is in doubt (a rate below the
-- lowest that broke is undecided, or a rate above it held), the driver's
-- extend hook runs the rates at the boundary again, each at most
-- 1 + repeats times.
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
-- run's rate itself.  repeats and confidence go to params, for the
-- extend hook and the verdicts.
CREATE FUNCTION pgbench_lab_internal.latency_curve_plan(workload text, clients integer, duration interval,
                                                target_ms double precision, percentile double precision,
                                                rates double precision[], shares double precision[],
                                                label text, repeats integer, confidence double precision,
                                                options jsonb, caller jsonb)
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
    IF repeats IS NULL OR repeats OPERATOR(pg_catalog.<) 0 OR repeats OPERATOR(pg_catalog.>) 20 THEN
        RAISE EXCEPTION 'repeats must be from 0 to 20, not %', coalesce(repeats::pg_catalog.text, 'NULL')
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'The most times a rate at the boundary is run again, to decide it (0: never).';
    END IF;
    PERFORM pgbench_lab_internal.verdict_check(0::pg_catalog.float8, confidence);
    ladder := ARRAY(SELECT DISTINCT x FROM pg_catalog.unnest(coalesce(rates, shares)) x ORDER BY x);
    RETURN pg_catalog.jsonb_build_object('workload', pgbench_lab_internal.experiment_workload(workload, options),
        'label', name, 'stop_on_failure', false,
        'params', pgbench_lab_internal.step_options_params(options)
                  OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object('clients', clients, 'duration', duration::pg_catalog.text,
                      'target_ms', target_ms, 'percentile', percentile, 'repeats', repeats, 'confidence', confidence,
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

-- An experiment's confidence and repeats as its params record them, read
-- without error whatever an imported document holds there: a confidence
-- from 0.5 to 1 (else 0.95), repeats from 0 to 20 (else 0).
CREATE FUNCTION pgbench_lab_internal.latency_curve_confidence(params jsonb)
RETURNS double precision LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN pg_catalog.jsonb_typeof(params OPERATOR(pg_catalog.->) 'confidence') OPERATOR(pg_catalog.=) 'number'
                THEN CASE WHEN (params OPERATOR(pg_catalog.->) 'confidence')::pg_catalog.numeric OPERATOR(pg_catalog.>) 0.5
                               AND (params OPERATOR(pg_catalog.->) 'confidence')::pg_catalog.numeric OPERATOR(pg_catalog.<) 1
                          THEN (params OPERATOR(pg_catalog.->) 'confidence')::pg_catalog.float8
                          ELSE 0.95::pg_catalog.float8 END
                ELSE 0.95::pg_catalog.float8 END
$$;

CREATE FUNCTION pgbench_lab_internal.latency_curve_repeats(params jsonb)
RETURNS integer LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN pg_catalog.jsonb_typeof(params OPERATOR(pg_catalog.->) 'repeats') OPERATOR(pg_catalog.=) 'number'
                THEN CASE WHEN (params OPERATOR(pg_catalog.->) 'repeats')::pg_catalog.numeric OPERATOR(pg_catalog.>=) 0
                               AND (params OPERATOR(pg_catalog.->) 'repeats')::pg_catalog.numeric OPERATOR(pg_catalog.<=) 20
                          THEN pg_catalog.floor((params OPERATOR(pg_catalog.->) 'repeats')::pg_catalog.numeric)::pg_catalog.int4
                          ELSE 0 END
                ELSE 0 END
$$;

-- A confidence as a percentage, as few digits as it needs: 95, 97.5.
CREATE FUNCTION pgbench_lab_internal.latency_curve_percent(share double precision)
RETURNS text LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pg_catalog.round((share OPERATOR(pg_catalog.*) 100::pg_catalog.float8)::pg_catalog.numeric, 1)::pg_catalog.float8::pg_catalog.text
$$;

-- The verdict of a rate from its runs (runs of them; failed: the status
-- of one that did not end done; lagged: how many did not sustain the
-- rate) and their pooled percentile: breaks when a run failed or lagged;
-- else undecided without a histogram or with too few transactions; else
-- holds when the interval lies at or under the target, breaks when it
-- lies above it, undecided when it holds it.  cause says which: failed,
-- lagged, no histogram, too few, interval.
CREATE FUNCTION pgbench_lab_internal.latency_curve_judge(runs integer, failed text, lagged integer,
                                                         transactions bigint, low_ms double precision,
                                                         high_ms double precision, enough boolean,
                                                         target double precision, p double precision,
                                                         confidence double precision,
                                                         OUT verdict text, OUT cause text, OUT basis text)
RETURNS record LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN c.cause OPERATOR(pg_catalog.=) ANY (ARRAY['failed', 'lagged']) THEN 'breaks'
                WHEN c.cause OPERATOR(pg_catalog.<>) 'interval' THEN 'undecided'
                WHEN high_ms OPERATOR(pg_catalog.<=) target THEN 'holds'
                WHEN low_ms OPERATOR(pg_catalog.>) target THEN 'breaks'
                ELSE 'undecided' END,
           c.cause,
           CASE WHEN c.cause OPERATOR(pg_catalog.=) 'failed'
                THEN pg_catalog.format('%s ended %s', CASE WHEN runs OPERATOR(pg_catalog.>) 1 THEN 'a run' ELSE 'the run' END, failed)
                WHEN c.cause OPERATOR(pg_catalog.=) 'lagged'
                THEN 'the rate was not sustained' OPERATOR(pg_catalog.||)
                     CASE WHEN runs OPERATOR(pg_catalog.>) 1 THEN pg_catalog.format(' in %s of %s runs', lagged, runs) ELSE '' END
                WHEN c.cause OPERATOR(pg_catalog.=) 'no histogram' THEN 'no latency histogram to decide by'
                ELSE pg_catalog.format('%s transactions in %s run%s: %s', transactions, runs,
                         CASE WHEN runs OPERATOR(pg_catalog.>) 1 THEN 's' ELSE '' END,
                         CASE WHEN c.cause OPERATOR(pg_catalog.=) 'too few'
                              THEN pg_catalog.format('too few to decide by, %s needed', pgbench_lab_internal.transactions_needed(p))
                              ELSE pg_catalog.format('the %s %% interval %s-%s ms %s the target',
                                       pgbench_lab_internal.latency_curve_percent(confidence),
                                       pgbench_lab_internal.fmt(low_ms, 3), pgbench_lab_internal.fmt(high_ms, 3),
                                       CASE WHEN high_ms OPERATOR(pg_catalog.<=) target THEN 'lies at or under'
                                            WHEN low_ms OPERATOR(pg_catalog.>) target THEN 'lies above'
                                            ELSE 'holds' END) END) END
      FROM (SELECT CASE WHEN failed IS NOT NULL THEN 'failed'
                        WHEN lagged OPERATOR(pg_catalog.>) 0 THEN 'lagged'
                        WHEN transactions IS NULL THEN 'no histogram'
                        WHEN NOT enough THEN 'too few'
                        ELSE 'interval' END AS cause) c
$$;

-- The runs of a latency curve with the asked percentile: the maximum
-- (variant 1, rate NULL) and each rate's runs, in increasing order of
-- rate; holds is each run's own verdict (NULL: undecided, or the
-- maximum), with its transactions and interval.
CREATE FUNCTION pgbench_lab_internal.latency_curve_steps(experiment_id bigint)
RETURNS TABLE (variant integer, run_id bigint, status text, rate double precision, tps double precision,
               sustained boolean, lag_avg_ms double precision, p50 double precision, p95 double precision,
               p99 double precision, pct double precision, holds boolean, round integer, transactions bigint,
               low_ms double precision, high_ms double precision, enough boolean)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT x.variant, r.run_id, r.status, r.rate, r.tps, r.rate_sustained, r.lag_avg_ms,
           r.latency_p50_ms, r.latency_p95_ms, r.latency_p99_ms, p.v,
           CASE WHEN r.rate IS NULL THEN NULL
                WHEN j.verdict OPERATOR(pg_catalog.=) 'holds' THEN true
                WHEN j.verdict OPERATOR(pg_catalog.=) 'breaks' THEN false END,
           x.round, q.transactions, q.low_ms, q.high_ms, q.enough
      FROM pgbench_lab.experiments e
      JOIN pgbench_lab.experiment_runs x ON x.experiment_id OPERATOR(pg_catalog.=) e.experiment_id
      JOIN pgbench_lab.runs r ON r.run_id OPERATOR(pg_catalog.=) x.run_id
     CROSS JOIN LATERAL (SELECT (e.params OPERATOR(pg_catalog.->>) 'percentile')::pg_catalog.float8 AS q,
                                (e.params OPERATOR(pg_catalog.->>) 'target_ms')::pg_catalog.float8 AS target,
                                pgbench_lab_internal.latency_curve_confidence(e.params) AS confidence) w
     CROSS JOIN LATERAL (SELECT CASE WHEN w.q OPERATOR(pg_catalog.=) 0.5 THEN r.latency_p50_ms
                                     WHEN w.q OPERATOR(pg_catalog.=) 0.9 THEN r.latency_p90_ms
                                     WHEN w.q OPERATOR(pg_catalog.=) 0.95 THEN r.latency_p95_ms
                                     ELSE r.latency_p99_ms END AS v) p
      LEFT JOIN LATERAL (SELECT y.* FROM pgbench_lab_internal.pooled_percentiles(ARRAY[r.run_id], w.confidence) y
                          WHERE y.percentile OPERATOR(pg_catalog.=) w.q) q ON true
     CROSS JOIN LATERAL pgbench_lab_internal.latency_curve_judge(1,
                            CASE WHEN r.status OPERATOR(pg_catalog.<>) 'done' THEN r.status END,
                            CASE WHEN coalesce(r.rate_sustained, false) THEN 0 ELSE 1 END,
                            q.transactions, q.low_ms, q.high_ms, q.enough, w.target, w.q, w.confidence) j
     WHERE e.experiment_id OPERATOR(pg_catalog.=) latency_curve_steps.experiment_id
     ORDER BY r.rate NULLS FIRST, x.variant, x.round
$$;

-- Each rate of a latency curve (the maximum left out), its runs pooled:
-- how many, their mean achieved TPS, the percentile of their summed
-- histograms with its transactions and interval, and the verdict
-- (latency_curve_judge()).
CREATE FUNCTION pgbench_lab_internal.latency_curve_rates(experiment_id bigint)
RETURNS TABLE (variant integer, rate double precision, rounds integer, tps double precision, transactions bigint,
               pct double precision, low_ms double precision, high_ms double precision, enough boolean,
               verdict text, cause text, basis text)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH e AS (
        SELECT (x.params OPERATOR(pg_catalog.->>) 'target_ms')::pg_catalog.float8 AS target,
               (x.params OPERATOR(pg_catalog.->>) 'percentile')::pg_catalog.float8 AS p,
               pgbench_lab_internal.latency_curve_confidence(x.params) AS confidence
          FROM pgbench_lab.experiments x
         WHERE x.experiment_id OPERATOR(pg_catalog.=) latency_curve_rates.experiment_id),
    s AS (
        SELECT x.variant, pg_catalog.count(*)::pg_catalog.int4 AS rounds, pg_catalog.min(r.rate) AS rate,
               pgbench_lab_internal.float8_of(pg_catalog.avg(r.tps::numeric)) AS tps,
               pg_catalog.array_agg(r.run_id) FILTER (WHERE r.status OPERATOR(pg_catalog.=) 'done') AS done,
               pg_catalog.min(r.status) FILTER (WHERE r.status OPERATOR(pg_catalog.<>) 'done') AS failed,
               (pg_catalog.count(*) FILTER (WHERE NOT coalesce(r.rate_sustained, false)))::pg_catalog.int4 AS lagged,
               pg_catalog.max(CASE WHEN e.p OPERATOR(pg_catalog.=) 0.5 THEN r.latency_p50_ms
                                   WHEN e.p OPERATOR(pg_catalog.=) 0.9 THEN r.latency_p90_ms
                                   WHEN e.p OPERATOR(pg_catalog.=) 0.95 THEN r.latency_p95_ms
                                   ELSE r.latency_p99_ms END) AS recorded
          FROM e, pgbench_lab.experiment_runs x
          JOIN pgbench_lab.runs r ON r.run_id OPERATOR(pg_catalog.=) x.run_id
         WHERE x.experiment_id OPERATOR(pg_catalog.=) latency_curve_rates.experiment_id AND r.rate IS NOT NULL
         GROUP BY x.variant, e.p)
    SELECT s.variant, s.rate, s.rounds, s.tps, q.transactions, coalesce(q.latency_ms, s.recorded), q.low_ms, q.high_ms,
           coalesce(q.enough, false), j.verdict, j.cause, j.basis
      FROM e CROSS JOIN s
      LEFT JOIN LATERAL (SELECT y.* FROM pgbench_lab_internal.pooled_percentiles(s.done, e.confidence) y
                          WHERE y.percentile OPERATOR(pg_catalog.=) e.p) q ON true
     CROSS JOIN LATERAL pgbench_lab_internal.latency_curve_judge(s.rounds, s.failed, s.lagged, q.transactions, q.low_ms,
                                                                q.high_ms, q.enough, e.target, e.p, e.confidence) j
     ORDER BY s.rate, s.variant
$$;

-- How the rates read, from the bottom: broke is the lowest rate that
-- breaks, held the highest below it that holds (role 'held', 'broke').
-- In doubt: a rate below broke that is undecided ('undecided'), a rate
-- above broke that holds ('held above': a curve that is not monotone).
-- repeat: the rates the extend hook runs again, while they have run fewer
-- than 1 + repeats times: an undecided rate that more runs could decide
-- (its interval holds the target, or 1 + repeats runs would give the
-- transactions it lacks), with the rate just above it if that holds; a
-- rate held above broke, with broke if its interval decided it.  reason:
-- why, for the rates that are the cause.
CREATE FUNCTION pgbench_lab_internal.latency_curve_reading(experiment_id bigint)
RETURNS TABLE (variant integer, rate double precision, rounds integer, tps double precision, transactions bigint,
               pct double precision, low_ms double precision, high_ms double precision, enough boolean,
               verdict text, cause text, basis text, role text, repeat boolean, reason text)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH e AS (
        SELECT (x.params OPERATOR(pg_catalog.->>) 'percentile')::pg_catalog.float8 AS p,
               'p' OPERATOR(pg_catalog.||) pg_catalog.round(100 OPERATOR(pg_catalog.*) (x.params OPERATOR(pg_catalog.->>) 'percentile')::pg_catalog.numeric) AS pname,
               pgbench_lab_internal.latency_curve_repeats(x.params) AS repeats
          FROM pgbench_lab.experiments x
         WHERE x.experiment_id OPERATOR(pg_catalog.=) latency_curve_reading.experiment_id),
    r AS (SELECT * FROM pgbench_lab_internal.latency_curve_rates(latency_curve_reading.experiment_id)),
    b AS (SELECT pg_catalog.min(r.rate) FILTER (WHERE r.verdict OPERATOR(pg_catalog.=) 'breaks') AS broke FROM r),
    h AS (SELECT pg_catalog.max(r.rate) FILTER (WHERE r.verdict OPERATOR(pg_catalog.=) 'holds'
                                                  AND r.rate OPERATOR(pg_catalog.<) coalesce(b.broke, 'Infinity'::pg_catalog.float8)) AS held
            FROM r, b),
    c AS (
        SELECT r.*,
               CASE WHEN r.rate OPERATOR(pg_catalog.=) h.held THEN 'held'
                    WHEN r.rate OPERATOR(pg_catalog.=) b.broke THEN 'broke'
                    WHEN r.verdict OPERATOR(pg_catalog.=) 'undecided'
                         AND r.rate OPERATOR(pg_catalog.<) coalesce(b.broke, 'Infinity'::pg_catalog.float8) THEN 'undecided'
                    WHEN r.verdict OPERATOR(pg_catalog.=) 'holds' AND r.rate OPERATOR(pg_catalog.>) b.broke THEN 'held above' END AS role,
               r.rounds OPERATOR(pg_catalog.<) (1 OPERATOR(pg_catalog.+) e.repeats) AS room,
               b.broke, e.pname,
               CASE WHEN r.cause OPERATOR(pg_catalog.=) 'interval' THEN true
                    WHEN r.cause OPERATOR(pg_catalog.=) 'too few'
                    THEN (r.transactions::pg_catalog.float8 OPERATOR(pg_catalog./) r.rounds::pg_catalog.float8
                          OPERATOR(pg_catalog.*) (1 OPERATOR(pg_catalog.+) e.repeats)::pg_catalog.float8)
                         OPERATOR(pg_catalog.>=) pgbench_lab_internal.transactions_needed(e.p)::pg_catalog.float8
                    ELSE false END AS decidable
          FROM r, b, h, e),
    d AS (
        SELECT c.*,
               coalesce(c.role OPERATOR(pg_catalog.=) 'undecided' AND c.decidable AND c.room, false) AS cause_undecided,
               coalesce(c.role OPERATOR(pg_catalog.=) 'held above' AND c.room, false) AS cause_above,
               EXISTS (SELECT FROM c o WHERE o.role OPERATOR(pg_catalog.=) 'held above') AS disorder
          FROM c),
    f AS (
        SELECT d.*, coalesce(pg_catalog.lag(d.cause_undecided) OVER (ORDER BY d.rate), false) AS above_undecided FROM d)
    SELECT f.variant, f.rate, f.rounds, f.tps, f.transactions, f.pct, f.low_ms, f.high_ms, f.enough,
           f.verdict, f.cause, f.basis, f.role,
           coalesce(f.cause_undecided OR f.cause_above
                    OR (f.room AND f.verdict OPERATOR(pg_catalog.=) 'holds' AND f.above_undecided)
                    OR (f.room AND f.role OPERATOR(pg_catalog.=) 'broke' AND f.cause OPERATOR(pg_catalog.=) 'interval' AND f.disorder),
                    false),
           CASE WHEN f.cause_undecided
                THEN pg_catalog.format('%s at %s tps undecided (%s transactions%s%s)', f.pname, pgbench_lab_internal.fmt(f.rate),
                         f.transactions,
                         CASE WHEN f.enough THEN '' ELSE pg_catalog.format(', too few: %s needed', pgbench_lab_internal.transactions_needed(
                             (SELECT e.p FROM e))) END,
                         CASE WHEN f.low_ms IS NULL THEN ''
                              ELSE pg_catalog.format(', interval %s-%s ms', pgbench_lab_internal.fmt(f.low_ms, 3),
                                                     pgbench_lab_internal.fmt(f.high_ms, 3)) END)
                WHEN f.cause_above
                THEN pg_catalog.format('%s held at %s tps, above %s tps where it broke', f.pname,
                                       pgbench_lab_internal.fmt(f.rate), pgbench_lab_internal.fmt(f.broke)) END
      FROM f
     ORDER BY f.rate, f.variant
$$;

-- The extend hook (experiment_kinds.extend): after the planned steps and
-- each batch it adds, the rates latency_curve_reading() marks to repeat,
-- each run once more as its plan's step with the next round; NULL when
-- none is left (settled, or each at 1 + repeats runs).
CREATE FUNCTION pgbench_lab_internal.latency_curve_extend(experiment_id bigint, plan jsonb)
RETURNS jsonb LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH n AS (
        SELECT d.rate, d.reason,
               (SELECT pg_catalog.max(x.round) FROM pgbench_lab.experiment_runs x
                 WHERE x.experiment_id OPERATOR(pg_catalog.=) latency_curve_extend.experiment_id
                   AND x.variant OPERATOR(pg_catalog.=) d.variant) OPERATOR(pg_catalog.+) 1 AS round,
               (SELECT s.step FROM pg_catalog.jsonb_array_elements(plan OPERATOR(pg_catalog.->) 'steps') AS s(step)
                 WHERE (s.step OPERATOR(pg_catalog.->>) 'variant')::pg_catalog.int4 OPERATOR(pg_catalog.=) d.variant
                 LIMIT 1) AS step
          FROM pgbench_lab_internal.latency_curve_reading(latency_curve_extend.experiment_id) d
         WHERE d.repeat),
    l AS (SELECT pg_catalog.array_agg(pgbench_lab_internal.fmt(n.rate) ORDER BY n.rate) AS a FROM n WHERE n.step IS NOT NULL)
    SELECT pg_catalog.jsonb_build_object(
               'steps', (SELECT pg_catalog.jsonb_agg(n.step OPERATOR(pg_catalog.||)
                                    pg_catalog.jsonb_build_object('round', n.round,
                                        'about', pg_catalog.format('the run at %s tps, round %s', pgbench_lab_internal.fmt(n.rate), n.round))
                                    ORDER BY n.rate)
                           FROM n WHERE n.step IS NOT NULL),
               'about', (SELECT pg_catalog.string_agg(n.reason, '; ' ORDER BY n.rate) FROM n)
                        OPERATOR(pg_catalog.||) ': repeating '
                        OPERATOR(pg_catalog.||) CASE WHEN pg_catalog.cardinality(l.a) OPERATOR(pg_catalog.=) 1 THEN l.a[1]
                                                     ELSE pg_catalog.array_to_string(l.a[1:pg_catalog.cardinality(l.a) OPERATOR(pg_catalog.-) 1], ', ')
                                                          OPERATOR(pg_catalog.||) ' and '
                                                          OPERATOR(pg_catalog.||) l.a[pg_catalog.cardinality(l.a)] END
                        OPERATOR(pg_catalog.||) ' tps')
      FROM l
     WHERE pg_catalog.cardinality(l.a) OPERATOR(pg_catalog.>) 0
$$;

-- A rate's percentile as the finding quotes it: "p99 8.120 ms, 95 %
-- interval 7.500-8.900 ms, of 4310 transactions in 2 runs".
CREATE FUNCTION pgbench_lab_internal.latency_curve_figures(pname text, pct double precision, low_ms double precision,
                                                           high_ms double precision, transactions bigint, rounds integer,
                                                           confidence double precision)
RETURNS text LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pg_catalog.format('%s %s ms', pname, pgbench_lab_internal.fmt(pct, 3))
           OPERATOR(pg_catalog.||)
           CASE WHEN transactions IS NULL THEN ''
                ELSE pg_catalog.format(', %s %% interval %s-%s ms, of %s transactions in %s run%s',
                         pgbench_lab_internal.latency_curve_percent(confidence),
                         pgbench_lab_internal.fmt(low_ms, 3), pgbench_lab_internal.fmt(high_ms, 3), transactions, rounds,
                         CASE WHEN rounds OPERATOR(pg_catalog.>) 1 THEN 's' ELSE '' END) END
$$;

-- The procedure's INOUT columns.  The answer is a range: held up to
-- between best_rate (the highest rate that holds below the lowest that
-- breaks) and broke_rate (that lowest one); a rate that held above one
-- that broke is not counted on (a curve is read from the bottom).
-- settled: every rate below broke_rate was decided, and none above it
-- held.  The finding says what is still undecided.
CREATE FUNCTION pgbench_lab_internal.latency_curve_result(id bigint)
RETURNS TABLE (label text, max_tps double precision, best_rate double precision, best_tps double precision,
               best_latency_ms double precision, finding text, broke_rate double precision,
               broke_latency_ms double precision, settled boolean)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    e pgbench_lab.experiments;
    r pg_catalog.record;
    pname pg_catalog.text;
    target pg_catalog.text;
    conf pg_catalog.float8;
    m_pct pg_catalog.float8;
    h_text pg_catalog.text;
    b_rate pg_catalog.text;
    b_text pg_catalog.text;
    lowest pg_catalog.float8;
    top pg_catalog.float8;
    undecided pg_catalog.text[] := '{}';
    above pg_catalog.text[] := '{}';
BEGIN
    SELECT * INTO e FROM pgbench_lab.experiments x WHERE x.experiment_id OPERATOR(pg_catalog.=) id;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    label := e.label;
    pname := 'p' OPERATOR(pg_catalog.||) pg_catalog.round(100 OPERATOR(pg_catalog.*) (e.params OPERATOR(pg_catalog.->>) 'percentile')::pg_catalog.numeric);
    target := pgbench_lab_internal.fmt((e.params OPERATOR(pg_catalog.->>) 'target_ms')::pg_catalog.float8, 3);
    conf := pgbench_lab_internal.latency_curve_confidence(e.params);
    SELECT s.tps, s.pct INTO max_tps, m_pct FROM pgbench_lab_internal.latency_curve_steps(id) s
     WHERE s.rate IS NULL ORDER BY s.variant LIMIT 1;
    FOR r IN SELECT * FROM pgbench_lab_internal.latency_curve_reading(id) LOOP
        lowest := coalesce(lowest, r.rate);
        top := r.rate;
        IF r.role OPERATOR(pg_catalog.=) 'held' THEN
            best_rate := r.rate;
            best_tps := r.tps;
            best_latency_ms := r.pct;
            h_text := pg_catalog.format('%s tps asked (%s achieved; %s)', pgbench_lab_internal.fmt(r.rate), pgbench_lab_internal.fmt(r.tps),
                          pgbench_lab_internal.latency_curve_figures(pname, r.pct, r.low_ms, r.high_ms, r.transactions, r.rounds, conf));
        ELSIF r.role OPERATOR(pg_catalog.=) 'broke' THEN
            broke_rate := r.rate;
            broke_latency_ms := r.pct;
            b_rate := pgbench_lab_internal.fmt(r.rate) OPERATOR(pg_catalog.||) ' tps asked';
            b_text := CASE WHEN r.cause OPERATOR(pg_catalog.=) 'failed' THEN r.basis
                               WHEN r.cause OPERATOR(pg_catalog.=) 'lagged'
                               THEN pg_catalog.format('%s (%s)', r.basis,
                                        pgbench_lab_internal.latency_curve_figures(pname, r.pct, NULL, NULL, NULL, r.rounds, conf))
                               ELSE pgbench_lab_internal.latency_curve_figures(pname, r.pct, r.low_ms, r.high_ms, r.transactions, r.rounds, conf) END;
        ELSIF r.role OPERATOR(pg_catalog.=) 'undecided' THEN
            undecided := pg_catalog.array_append(undecided, pg_catalog.format('%s tps (%s %s ms, %s)', pgbench_lab_internal.fmt(r.rate),
                                                                   pname, pgbench_lab_internal.fmt(r.pct, 3), r.basis));
        ELSIF r.role OPERATOR(pg_catalog.=) 'held above' THEN
            above := pg_catalog.array_append(above, pg_catalog.format('%s tps (%s)', pgbench_lab_internal.fmt(r.rate),
                         pgbench_lab_internal.latency_curve_figures(pname, r.pct, r.low_ms, r.high_ms, r.transactions, r.rounds, conf)));
        END IF;
    END LOOP;
    settled := top IS NOT NULL AND (best_rate IS NOT NULL OR broke_rate IS NOT NULL)
               AND pg_catalog.cardinality(undecided) OPERATOR(pg_catalog.=) 0 AND pg_catalog.cardinality(above) OPERATOR(pg_catalog.=) 0;
    IF top IS NULL THEN
        finding := 'no run at a rate was made: nothing to find';
        RETURN NEXT;
        RETURN;
    END IF;
    finding := pg_catalog.format('%s under %s ms ', pname, target) OPERATOR(pg_catalog.||)
        CASE WHEN h_text IS NOT NULL AND b_text IS NOT NULL
             THEN pg_catalog.format('held up to between %s and %s, where it broke: %s', h_text, b_rate, b_text)
             WHEN h_text IS NOT NULL
             THEN pg_catalog.format('held up to %s, %s', h_text,
                                    CASE WHEN best_rate OPERATOR(pg_catalog.=) top THEN 'the highest rate tried'
                                         ELSE 'and broke at none of the rates' END)
             WHEN b_text IS NOT NULL AND broke_rate OPERATOR(pg_catalog.=) lowest
             THEN pg_catalog.format('held at none of the rates: it broke at the lowest, %s: %s', b_rate, b_text)
             WHEN b_text IS NOT NULL
             THEN pg_catalog.format('held at none of the rates that were decided: it broke at %s: %s', b_rate, b_text)
             ELSE 'was decided at none of the rates' END
        OPERATOR(pg_catalog.||)
        CASE WHEN pg_catalog.cardinality(undecided) OPERATOR(pg_catalog.>) 0
             THEN pg_catalog.format('; undecided: %s', pg_catalog.array_to_string(undecided, ', ')) ELSE '' END
        OPERATOR(pg_catalog.||)
        CASE WHEN pg_catalog.cardinality(above) OPERATOR(pg_catalog.>) 0
             THEN pg_catalog.format('; it held again above that, at %s: not counted on, a curve is read from the bottom',
                                    pg_catalog.array_to_string(above, ' and ')) ELSE '' END
        OPERATOR(pg_catalog.||)
        pg_catalog.format('; the maximum was %s tps (%s %s ms)', coalesce(pgbench_lab_internal.fmt(max_tps), '-'), pname,
                          coalesce(pgbench_lab_internal.fmt(m_pct, 3), '-'));
    RETURN NEXT;
END
$$;

-- The verdicts function (experiment_kinds.verdicts): one row per rate,
-- its pooled percentile against the target.
CREATE FUNCTION pgbench_lab_internal.latency_curve_verdicts(experiment_id bigint)
RETURNS TABLE (comparison text, measure text, rounds integer, ratio double precision, ratio_low double precision,
               ratio_high double precision, coverage double precision, verdict text, decided boolean, basis text)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pg_catalog.format('%s at %s tps against %s ms', w.pname, pgbench_lab_internal.fmt(r.rate), w.target::pg_catalog.text),
           w.pname OPERATOR(pg_catalog.||) ' latency', r.rounds,
           r.pct OPERATOR(pg_catalog./) w.target, r.low_ms OPERATOR(pg_catalog./) w.target, r.high_ms OPERATOR(pg_catalog./) w.target,
           CASE WHEN r.low_ms IS NOT NULL THEN w.confidence END,
           r.verdict, r.verdict OPERATOR(pg_catalog.<>) 'undecided', r.basis
      FROM pgbench_lab.experiments x
     CROSS JOIN LATERAL (SELECT (x.params OPERATOR(pg_catalog.->>) 'target_ms')::pg_catalog.float8 AS target,
                                'p' OPERATOR(pg_catalog.||) pg_catalog.round(100 OPERATOR(pg_catalog.*)
                                    (x.params OPERATOR(pg_catalog.->>) 'percentile')::pg_catalog.numeric) AS pname,
                                pgbench_lab_internal.latency_curve_confidence(x.params) AS confidence) w
     CROSS JOIN LATERAL pgbench_lab_internal.latency_curve_rates(x.experiment_id) r
     WHERE x.experiment_id OPERATOR(pg_catalog.=) latency_curve_verdicts.experiment_id
     ORDER BY r.rate, r.variant
$$;

CREATE FUNCTION pgbench_lab_internal.report_latency_curve(experiment_id bigint)
RETURNS SETOF text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    e pgbench_lab.experiments;
    pname pg_catalog.text;
    repeats pg_catalog.int4;
BEGIN
    SELECT * INTO e FROM pgbench_lab.experiments x WHERE x.experiment_id OPERATOR(pg_catalog.=) report_latency_curve.experiment_id;
    pname := 'p' OPERATOR(pg_catalog.||) pg_catalog.round(100 OPERATOR(pg_catalog.*) (e.params OPERATOR(pg_catalog.->>) 'percentile')::pg_catalog.numeric);
    repeats := pgbench_lab_internal.latency_curve_repeats(e.params);
    RETURN QUERY SELECT pg_catalog.format('Target: %s under %s ms; %s', pname,
                       e.params OPERATOR(pg_catalog.->>) 'target_ms',
                       CASE WHEN e.params OPERATOR(pg_catalog.?) 'rates' THEN 'rates asked: ' OPERATOR(pg_catalog.||) (e.params OPERATOR(pg_catalog.->>) 'rates')
                            ELSE 'rates: shares of the maximum ' OPERATOR(pg_catalog.||) (e.params OPERATOR(pg_catalog.->>) 'shares') END)
                 OPERATOR(pg_catalog.||)
                 CASE WHEN repeats OPERATOR(pg_catalog.>) 0
                      THEN pg_catalog.format('; a rate in doubt run up to %s more time%s', repeats,
                                             CASE WHEN repeats OPERATOR(pg_catalog.>) 1 THEN 's' ELSE '' END)
                      ELSE '' END;
    RETURN QUERY SELECT '';
    RETURN QUERY SELECT pg_catalog.format('  %6s  %5s  %10s  %10s  %9s  %9s  %9s  %9s  %9s', 'run', 'round', 'rate asked', 'TPS', 'sustained',
                       'lag ms', 'p50 ms', 'p95 ms', 'p99 ms');
    RETURN QUERY
        SELECT pg_catalog.format('  %6s  %5s  %10s  %10s  %9s  %9s  %9s  %9s  %9s', s.run_id, s.round,
                      CASE WHEN s.rate IS NULL THEN 'max' ELSE pgbench_lab_internal.fmt(s.rate) END,
                      CASE WHEN s.status OPERATOR(pg_catalog.=) 'done' THEN pgbench_lab_internal.fmt(s.tps) ELSE s.status END,
                      CASE WHEN s.rate IS NULL THEN '-' WHEN s.sustained THEN 'yes' ELSE 'NO' END,
                      coalesce(pgbench_lab_internal.fmt(s.lag_avg_ms, 3), '-'), coalesce(pgbench_lab_internal.fmt(s.p50, 3), '-'),
                      coalesce(pgbench_lab_internal.fmt(s.p95, 3), '-'), coalesce(pgbench_lab_internal.fmt(s.p99, 3), '-'))
          FROM pgbench_lab_internal.latency_curve_steps(e.experiment_id) s;
    RETURN QUERY SELECT '';
    RETURN QUERY SELECT pg_catalog.format('Per rate, its runs pooled: %s with its %s %% interval, against %s ms', pname,
                                          pgbench_lab_internal.latency_curve_percent(pgbench_lab_internal.latency_curve_confidence(e.params)),
                                          e.params OPERATOR(pg_catalog.->>) 'target_ms');
    RETURN QUERY SELECT pg_catalog.format('  %10s  %4s  %12s  %9s  %19s  %s', 'rate asked', 'runs', 'transactions',
                                          pname OPERATOR(pg_catalog.||) ' ms', 'interval ms', 'verdict');
    RETURN QUERY
        SELECT pg_catalog.format('  %10s  %4s  %12s  %9s  %19s  %s', pgbench_lab_internal.fmt(r.rate), r.rounds,
                      coalesce(r.transactions::pg_catalog.text, '-'), coalesce(pgbench_lab_internal.fmt(r.pct, 3), '-'),
                      CASE WHEN r.low_ms IS NULL THEN '-'
                           ELSE pgbench_lab_internal.fmt(r.low_ms, 3) OPERATOR(pg_catalog.||) '-' OPERATOR(pg_catalog.||) pgbench_lab_internal.fmt(r.high_ms, 3) END,
                      r.verdict OPERATOR(pg_catalog.||)
                      CASE WHEN r.cause OPERATOR(pg_catalog.=) 'failed' THEN ' (a run did not end done)'
                           WHEN r.cause OPERATOR(pg_catalog.=) 'lagged' THEN ' (rate not sustained)'
                           WHEN r.cause OPERATOR(pg_catalog.=) 'too few' THEN ' (too few transactions)'
                           WHEN r.cause OPERATOR(pg_catalog.=) 'no histogram' THEN ' (no histogram)'
                           ELSE '' END)
          FROM pgbench_lab_internal.latency_curve_rates(e.experiment_id) r;
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
    INOUT broke_rate double precision DEFAULT NULL,
    INOUT broke_latency_ms double precision DEFAULT NULL,
    INOUT settled boolean DEFAULT NULL,
    repeats integer DEFAULT 3,
    confidence double precision DEFAULT 0.95,
    @RUN_OPTIONS_EXCEPT workload clients duration transactions label scripts variables@)
LANGUAGE c
AS 'MODULE_PATHNAME', 'pgbench_lab_experiment';
COMMENT ON PROCEDURE pgbench_lab.latency_curve IS
    'One workload at a ladder of rates: the highest throughput at which a latency percentile stays under a target';
REVOKE ALL ON PROCEDURE pgbench_lab.latency_curve FROM PUBLIC;

INSERT INTO pgbench_lab.experiment_kinds (kind, procedure, planner, preparation, finding, report, description,
                                          extend, verdicts)
VALUES ('latency_curve', 'pgbench_lab.latency_curve'::pg_catalog.regproc,
        'pgbench_lab_internal.latency_curve_plan'::pg_catalog.regproc, NULL,
        'pgbench_lab_internal.latency_curve_result(bigint)', 'pgbench_lab_internal.report_latency_curve(bigint)',
        'One workload at a ladder of rates: the highest throughput at which a latency percentile stays under a target',
        'pgbench_lab_internal.latency_curve_extend(bigint, jsonb)', 'pgbench_lab_internal.latency_curve_verdicts(bigint)')
ON CONFLICT (kind) DO UPDATE SET procedure = EXCLUDED.procedure, planner = EXCLUDED.planner,
    preparation = EXCLUDED.preparation, finding = EXCLUDED.finding, report = EXCLUDED.report,
    description = EXCLUDED.description, extend = EXCLUDED.extend, verdicts = EXCLUDED.verdicts;
