
-- ---------------------------------------------------------------------------
-- latency_curve(): one workload at a ladder of rates (pgbench -R), to find
-- the highest throughput at which a latency percentile stays under a
-- target.  The first run measures the maximum (no rate); then each rate
-- runs `runs` times, in rounds (every rate once, in increasing order, then
-- again), at the rates given or at shares of that maximum (the driver
-- turns a step's rate_share into a rate once the maximum is known).
--
-- A rate is judged across its runs, not from the transactions of one: the
-- percentile of each run (read off its histogram, 71_verdict.sql), and
-- the sign-test interval for the median of those percentiles (the order
-- statistics of the runs, as paired_verdict() reads rounds): whatever the
-- runs' spread, from one run to the next, it holds the median run's
-- percentile with the coverage sign_rank() gives.  A rate holds when the
-- interval reaches the confidence and lies at or under the target, breaks
-- when it lies above it (or a run was not sustained, or failed), and is
-- undecided otherwise: too few runs for the confidence (6 at 95 %), an
-- interval that holds the target, or runs with too few transactions each
-- for their own percentile.
-- The answer is a range: held up to between the highest rate that holds
-- and the lowest that breaks.  While that is in doubt (a rate below the
-- lowest that broke is undecided and more runs could decide it, or a rate
-- above it held), the driver's extend hook runs the rates at the boundary
-- again, each at most runs + repeats times; when the lowest rate breaks,
-- it steps down (half the rate, at most 4 times, not below the rate at
-- which a run still has the transactions its percentile needs).
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

-- The plan: the maximum first, then the rates in increasing order, runs
-- rounds of them.  Every run option goes to every run (options) but rate:
-- the curve sets each run's rate itself.  runs, repeats and confidence go
-- to params, for the extend hook and the verdicts.
CREATE FUNCTION pgbench_lab_internal.latency_curve_plan(workload text, clients integer, duration interval,
                                                target_ms double precision, percentile double precision,
                                                rates double precision[], shares double precision[],
                                                label text, runs integer, repeats integer, confidence double precision,
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
            'the curve sets each run''s rate itself: the first run at full speed, then runs at each rate',
            'Give the rates to try with rates => ''{500,1000,2000}'', or shares of the measured maximum with shares => ''{0.5,0.9}''; latency_limit may be given.');
    END IF;
    PERFORM pgbench_lab_internal.latency_curve_check(target_ms, percentile, rates, shares);
    IF runs IS NULL OR runs OPERATOR(pg_catalog.<) 1 OR runs OPERATOR(pg_catalog.>) 20 THEN
        RAISE EXCEPTION 'runs must be from 1 to 20, not %', coalesce(runs::pg_catalog.text, 'NULL')
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'The runs of each rate, whose percentiles its verdict is read from; at 95 % confidence a rate is decided from 6 runs.';
    END IF;
    IF repeats IS NULL OR repeats OPERATOR(pg_catalog.<) 0 OR repeats OPERATOR(pg_catalog.>) 20 THEN
        RAISE EXCEPTION 'repeats must be from 0 to 20, not %', coalesce(repeats::pg_catalog.text, 'NULL')
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'The most runs a rate at the boundary gets beyond its runs, to decide it (0: none).';
    END IF;
    PERFORM pgbench_lab_internal.verdict_check(0::pg_catalog.float8, confidence);
    ladder := ARRAY(SELECT DISTINCT x FROM pg_catalog.unnest(coalesce(rates, shares)) x ORDER BY x);
    RETURN pg_catalog.jsonb_build_object('workload', pgbench_lab_internal.experiment_workload(workload, options),
        'label', name, 'stop_on_failure', false,
        'params', pgbench_lab_internal.step_options_params(options)
                  OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object('clients', clients, 'duration', duration::pg_catalog.text,
                      'target_ms', target_ms, 'percentile', percentile, 'runs', runs, 'repeats', repeats,
                      'confidence', confidence,
                      CASE WHEN rates IS NULL THEN 'shares' ELSE 'rates' END, pg_catalog.to_jsonb(ladder)),
        'steps', pg_catalog.jsonb_build_array(pg_catalog.jsonb_build_object('variant', 1, 'round', 1,
                     'about', 'the run at full speed',
                     'run', pgbench_lab_internal.step_run(workload, options)
                            OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object('clients', clients,
                                'duration', duration::pg_catalog.text, 'label', name)))
            OPERATOR(pg_catalog.||) (SELECT pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object('variant', l.i OPERATOR(pg_catalog.+) 1, 'round', g.r,
                         'about', CASE WHEN rates IS NULL THEN pg_catalog.format('the run at %s %% of the maximum', l.x OPERATOR(pg_catalog.*) 100)
                                       ELSE pg_catalog.format('the run at %s tps', l.x) END
                                  OPERATOR(pg_catalog.||)
                                  CASE WHEN runs OPERATOR(pg_catalog.>) 1 THEN pg_catalog.format(', round %s of %s', g.r, runs) ELSE '' END,
                         'run', pgbench_lab_internal.step_run(workload, options)
                                OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object('clients', clients,
                                    'duration', duration::pg_catalog.text, 'label', name, 'rate', CASE WHEN rates IS NOT NULL THEN l.x END))
                         OPERATOR(pg_catalog.||) CASE WHEN rates IS NULL THEN pg_catalog.jsonb_build_object('rate_share', l.x, 'rate_of', 1)
                                                      ELSE '{}' END ORDER BY g.r, l.i)
                        FROM pg_catalog.generate_series(1, runs) AS g(r),
                             pg_catalog.unnest(ladder) WITH ORDINALITY AS l(x, i)));
END
$$;

-- An experiment's confidence, repeats and runs as its params record them,
-- read without error whatever an imported document holds there: a
-- confidence from 0.5 to 1 (else 0.95), repeats from 0 to 20 (else 0),
-- runs from 1 to 20 (else 1: a curve recorded before runs existed ran
-- each rate once).
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

-- A whole count under key in params, from lo to hi (its floor), else
-- otherwise: what the planner checked reads back as given, and a document
-- imported with anything else as the default.
CREATE FUNCTION pgbench_lab_internal.latency_curve_count(params jsonb, key text, lo integer, hi integer,
                                                         otherwise integer)
RETURNS integer LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN pg_catalog.jsonb_typeof(params OPERATOR(pg_catalog.->) key) OPERATOR(pg_catalog.=) 'number'
                THEN CASE WHEN (params OPERATOR(pg_catalog.->) key)::pg_catalog.numeric OPERATOR(pg_catalog.>=) lo
                               AND (params OPERATOR(pg_catalog.->) key)::pg_catalog.numeric OPERATOR(pg_catalog.<=) hi
                          THEN pg_catalog.floor((params OPERATOR(pg_catalog.->) key)::pg_catalog.numeric)::pg_catalog.int4
                          ELSE otherwise END
                ELSE otherwise END
$$;

-- A rate in doubt is run up to this many times more (0 to 20, else 0).
CREATE FUNCTION pgbench_lab_internal.latency_curve_repeats(params jsonb)
RETURNS integer LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT pgbench_lab_internal.latency_curve_count(params, 'repeats', 0, 20, 0) $$;

-- Each rate's runs to start with (1 to 20, else 1).
CREATE FUNCTION pgbench_lab_internal.latency_curve_runs(params jsonb)
RETURNS integer LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT pgbench_lab_internal.latency_curve_count(params, 'runs', 1, 20, 1) $$;

-- The lowest rate the curve steps down to: the rate at which a run of
-- the experiment's duration still has the transactions its percentile
-- needs (transactions_needed(): a p99 needs 1 000), with 4 standard
-- deviations of a Poisson count to spare, so that a run falls short at
-- most about once in 2 000: (n + 4 sqrt(n)) / seconds, 225.3 tps for a
-- p99 over 5 s.  NULL when the duration does not read as one above 0.
CREATE FUNCTION pgbench_lab_internal.latency_curve_floor(params jsonb)
RETURNS double precision LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT (n.n OPERATOR(pg_catalog.+) (4::pg_catalog.float8 OPERATOR(pg_catalog.*) pg_catalog.sqrt(n.n))) OPERATOR(pg_catalog./) s.secs
      FROM (SELECT pgbench_lab_internal.transactions_needed((params OPERATOR(pg_catalog.->>) 'percentile')::pg_catalog.float8)::pg_catalog.float8 AS n) n,
           (SELECT CASE WHEN pgbench_lab_internal.reads_as(params OPERATOR(pg_catalog.->>) 'duration', 'interval')
                        THEN pg_catalog.date_part('epoch', (params OPERATOR(pg_catalog.->>) 'duration')::pg_catalog.interval) END AS secs) s
     WHERE s.secs OPERATOR(pg_catalog.>) 0
$$;

-- The variants of an experiment's plan: the maximum and each rate of its
-- ladder (the variants above are steps down).
CREATE FUNCTION pgbench_lab_internal.latency_curve_planned(params jsonb)
RETURNS integer LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT 1 OPERATOR(pg_catalog.+)
           coalesce(pg_catalog.jsonb_array_length(CASE WHEN pg_catalog.jsonb_typeof(l.v) OPERATOR(pg_catalog.=) 'array' THEN l.v END), 0)
      FROM (SELECT coalesce(params OPERATOR(pg_catalog.->) 'rates', params OPERATOR(pg_catalog.->) 'shares') AS v) l
$$;

-- The most times a curve steps down below its lowest rate.
CREATE FUNCTION pgbench_lab_internal.latency_curve_max_steps_down()
RETURNS integer LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT 4 $$;

-- A confidence as a percentage, as few digits as it needs: 95, 97.5.
CREATE FUNCTION pgbench_lab_internal.latency_curve_percent(share double precision)
RETURNS text LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pg_catalog.round((share OPERATOR(pg_catalog.*) 100::pg_catalog.float8)::pg_catalog.numeric, 1)::pg_catalog.float8::pg_catalog.text
$$;

-- The verdict of a rate from its runs: figures, the percentile p of each
-- run that has a histogram, with the transactions it comes from
-- (transactions, in the same order); failed, the status of a run that
-- did not end done; lagged, how many runs did not sustain the rate; runs,
-- how many there were.  Breaks when a run failed or lagged; else
-- undecided without a figure ('no histogram') or when a run has too few
-- transactions for its own percentile ('too few': more runs would not
-- give them, longer ones would); else the figures' median and its
-- sign-test interval at the confidence (sign_rank(): the k-th lowest and
-- k-th highest figure): undecided when no interval of these runs reaches
-- the confidence ('runs'), else holds when the interval lies at or under
-- the target, breaks when it lies above it, undecided when it holds it
-- ('interval').  low_ms and high_ms are that interval (the lowest and
-- highest figure when it does not reach the confidence), coverage its
-- coverage; above counts the figures over the target.
CREATE FUNCTION pgbench_lab_internal.latency_curve_judge(figures double precision[], transactions bigint[],
                                                         failed text, lagged integer, runs integer,
                                                         target double precision, p double precision,
                                                         confidence double precision,
                                                         OUT verdict text, OUT cause text, OUT basis text,
                                                         OUT usable integer, OUT pct double precision,
                                                         OUT low_ms double precision, OUT high_ms double precision,
                                                         OUT coverage double precision, OUT above integer,
                                                         OUT fewest bigint)
RETURNS record LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    x pg_catalog.float8[];
    s record;
    pname pg_catalog.text := 'p' OPERATOR(pg_catalog.||) pg_catalog.round(100::pg_catalog.numeric OPERATOR(pg_catalog.*) p::pg_catalog.numeric);
    needed pg_catalog.int8 := pgbench_lab_internal.transactions_needed(p);
BEGIN
    SELECT pg_catalog.array_agg(f.v ORDER BY f.v), pg_catalog.min(f.t)
      INTO x, fewest
      FROM ROWS FROM (pg_catalog.unnest(figures), pg_catalog.unnest(transactions)) AS f(v, t)
     WHERE f.v IS NOT NULL;
    usable := coalesce(pg_catalog.cardinality(x), 0);
    IF usable OPERATOR(pg_catalog.>) 0 THEN
        pct := CASE WHEN usable OPERATOR(pg_catalog.%) 2 OPERATOR(pg_catalog.=) 1
                    THEN x[(usable OPERATOR(pg_catalog.+) 1) OPERATOR(pg_catalog./) 2]
                    ELSE (x[usable OPERATOR(pg_catalog./) 2] OPERATOR(pg_catalog.+) x[usable OPERATOR(pg_catalog./) 2 OPERATOR(pg_catalog.+) 1])
                         OPERATOR(pg_catalog./) 2::pg_catalog.float8 END;
        above := (SELECT pg_catalog.count(*) FROM pg_catalog.unnest(x) v WHERE v OPERATOR(pg_catalog.>) target)::pg_catalog.int4;
        s := pgbench_lab_internal.sign_rank(usable, confidence);
        low_ms := x[s.k];
        high_ms := x[usable OPERATOR(pg_catalog.-) s.k OPERATOR(pg_catalog.+) 1];
        coverage := s.coverage;
    END IF;
    IF failed IS NOT NULL THEN
        verdict := 'breaks';
        cause := 'failed';
        basis := pg_catalog.format('%s ended %s', CASE WHEN runs OPERATOR(pg_catalog.>) 1 THEN 'a run' ELSE 'the run' END, failed);
    ELSIF lagged OPERATOR(pg_catalog.>) 0 THEN
        verdict := 'breaks';
        cause := 'lagged';
        basis := 'the rate was not sustained' OPERATOR(pg_catalog.||)
                 CASE WHEN runs OPERATOR(pg_catalog.>) 1 THEN pg_catalog.format(' in %s of %s runs', lagged, runs) ELSE '' END;
    ELSIF usable OPERATOR(pg_catalog.=) 0 THEN
        verdict := 'undecided';
        cause := 'no histogram';
        basis := 'no latency histogram to decide by';
    ELSIF fewest OPERATOR(pg_catalog.<) needed THEN
        verdict := 'undecided';
        cause := 'too few';
        basis := pg_catalog.format('a run needs %s transactions for its %s, and %s had %s: longer runs would have them',
                                   needed, pname, CASE WHEN usable OPERATOR(pg_catalog.>) 1 THEN 'the fewest' ELSE 'the run' END, fewest);
    ELSIF NOT s.reached THEN
        verdict := 'undecided';
        cause := 'runs';
        basis := CASE WHEN usable OPERATOR(pg_catalog.=) 1
                      THEN pg_catalog.format('%s %s ms from one run', pname, pgbench_lab_internal.fmt(pct, 3))
                      ELSE pg_catalog.format('%s of %s runs %s-%s ms, at most a %s %% interval', pname, usable,
                                             pgbench_lab_internal.fmt(low_ms, 3), pgbench_lab_internal.fmt(high_ms, 3),
                                             pgbench_lab_internal.latency_curve_percent(coverage)) END
                 OPERATOR(pg_catalog.||)
                 pg_catalog.format(': a %s %% one needs %s runs', pgbench_lab_internal.latency_curve_percent(confidence),
                                   pgbench_lab_internal.rounds_needed(confidence))
                 OPERATOR(pg_catalog.||)
                 CASE WHEN above OPERATOR(pg_catalog.>) 0 AND above OPERATOR(pg_catalog.<) usable
                      THEN pg_catalog.format(', and %s of %s lie%s over the target', above, usable,
                                             CASE WHEN above OPERATOR(pg_catalog.=) 1 THEN 's' ELSE '' END)
                      ELSE '' END;
    ELSE
        verdict := CASE WHEN high_ms OPERATOR(pg_catalog.<=) target THEN 'holds'
                        WHEN low_ms OPERATOR(pg_catalog.>) target THEN 'breaks'
                        ELSE 'undecided' END;
        cause := 'interval';
        basis := pg_catalog.format('%s of %s runs: median %s ms, %s %% interval %s-%s ms %s the target', pname, usable,
                                   pgbench_lab_internal.fmt(pct, 3), pgbench_lab_internal.latency_curve_percent(coverage),
                                   pgbench_lab_internal.fmt(low_ms, 3), pgbench_lab_internal.fmt(high_ms, 3),
                                   CASE WHEN verdict OPERATOR(pg_catalog.=) 'holds' THEN 'lies at or under'
                                        WHEN verdict OPERATOR(pg_catalog.=) 'breaks' THEN 'lies above' ELSE 'holds' END);
    END IF;
END
$$;

-- The runs of a latency curve with the asked percentile: the maximum
-- (variant 1, rate NULL) and each rate's runs, in increasing order of
-- rate; p50, p95, p99 and pct (the asked one) as every report reads them
-- (run_percentiles()); holds: whether the run's own percentile lies at or
-- under the target (NULL: the maximum, or no histogram); its transactions
-- and its own order-statistics interval (latency_percentiles()).
CREATE FUNCTION pgbench_lab_internal.latency_curve_steps(experiment_id bigint)
RETURNS TABLE (variant integer, run_id bigint, status text, rate double precision, tps double precision,
               sustained boolean, lag_avg_ms double precision, p50 double precision, p95 double precision,
               p99 double precision, pct double precision, holds boolean, round integer, transactions bigint,
               low_ms double precision, high_ms double precision, enough boolean)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT x.variant, r.run_id, r.status, r.rate, r.tps, r.rate_sustained, r.lag_avg_ms,
           a.p50, a.p95, a.p99, p.v,
           CASE WHEN r.rate IS NOT NULL AND q.latency_ms IS NOT NULL THEN q.latency_ms OPERATOR(pg_catalog.<=) w.target END,
           x.round, q.transactions, q.low_ms, q.high_ms, q.enough
      FROM pgbench_lab.experiments e
      JOIN pgbench_lab.experiment_runs x ON x.experiment_id OPERATOR(pg_catalog.=) e.experiment_id
      JOIN pgbench_lab.runs r ON r.run_id OPERATOR(pg_catalog.=) x.run_id
     CROSS JOIN LATERAL (SELECT (e.params OPERATOR(pg_catalog.->>) 'percentile')::pg_catalog.float8 AS q,
                                (e.params OPERATOR(pg_catalog.->>) 'target_ms')::pg_catalog.float8 AS target) w
     CROSS JOIN LATERAL pgbench_lab_internal.run_percentiles(r) a
     CROSS JOIN LATERAL (SELECT CASE WHEN w.q OPERATOR(pg_catalog.=) 0.5::pg_catalog.float8 THEN a.p50
                                     WHEN w.q OPERATOR(pg_catalog.=) 0.9::pg_catalog.float8 THEN a.p90
                                     WHEN w.q OPERATOR(pg_catalog.=) 0.95::pg_catalog.float8 THEN a.p95
                                     ELSE a.p99 END AS v) p
      LEFT JOIN LATERAL (SELECT y.* FROM pgbench_lab.latency_percentiles(r.run_id) y
                          WHERE y.percentile OPERATOR(pg_catalog.=) w.q) q ON true
     WHERE e.experiment_id OPERATOR(pg_catalog.=) latency_curve_steps.experiment_id
     ORDER BY r.rate NULLS FIRST, x.variant, x.round
$$;

-- Each rate of a latency curve (the maximum left out), judged across its
-- runs (latency_curve_judge()): how many runs, their mean achieved TPS,
-- how many have a figure (usable) and the fewest transactions behind one,
-- the median of their percentiles with its interval and coverage, how
-- many lie over the target, and the verdict.
CREATE FUNCTION pgbench_lab_internal.latency_curve_rates(experiment_id bigint)
RETURNS TABLE (variant integer, rate double precision, rounds integer, tps double precision, usable integer,
               fewest bigint, pct double precision, low_ms double precision, high_ms double precision,
               coverage double precision, above integer, verdict text, cause text, basis text)
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
        SELECT t.variant, pg_catalog.count(*)::pg_catalog.int4 AS rounds, pg_catalog.min(t.rate) AS rate,
               pg_catalog.avg(t.tps) AS tps,
               pg_catalog.array_agg(t.pct ORDER BY t.round)
                   FILTER (WHERE t.status OPERATOR(pg_catalog.=) 'done' AND t.transactions IS NOT NULL) AS figures,
               pg_catalog.array_agg(t.transactions ORDER BY t.round)
                   FILTER (WHERE t.status OPERATOR(pg_catalog.=) 'done' AND t.transactions IS NOT NULL) AS transactions,
               pg_catalog.min(t.status) FILTER (WHERE t.status OPERATOR(pg_catalog.<>) 'done') AS failed,
               (pg_catalog.count(*) FILTER (WHERE NOT coalesce(t.sustained, false)))::pg_catalog.int4 AS lagged
          FROM pgbench_lab_internal.latency_curve_steps(latency_curve_rates.experiment_id) t
         WHERE t.rate IS NOT NULL
         GROUP BY t.variant)
    SELECT s.variant, s.rate, s.rounds, s.tps, j.usable, j.fewest, j.pct, j.low_ms, j.high_ms,
           j.coverage, j.above, j.verdict, j.cause, j.basis
      FROM e CROSS JOIN s
     CROSS JOIN LATERAL pgbench_lab_internal.latency_curve_judge(s.figures, s.transactions, s.failed, s.lagged, s.rounds,
                                                                e.target, e.p, e.confidence) j
     ORDER BY s.rate, s.variant
$$;

-- How the rates read, from the bottom: broke is the lowest rate that
-- breaks, held the highest below it that holds (role 'held', 'broke').
-- In doubt: a rate below broke that is undecided ('undecided'), a rate
-- above broke that holds ('held above': a curve that is not monotone).
-- repeat: the rates the extend hook runs again, while they have run fewer
-- than runs + repeats times: an undecided rate that more runs could
-- decide (that many runs give an interval at the confidence, and with
-- every further run on the side most of its runs are on, the interval
-- would lie on that side: fewer runs on the other side than the
-- interval's rank k, sign_rank()); a rate held above broke, with broke if
-- its interval decided it.  reason: why, for the rates that are the
-- cause.
CREATE FUNCTION pgbench_lab_internal.latency_curve_reading(experiment_id bigint)
RETURNS TABLE (variant integer, rate double precision, rounds integer, tps double precision, usable integer,
               fewest bigint, pct double precision, low_ms double precision, high_ms double precision,
               coverage double precision, above integer, verdict text, cause text, basis text, role text,
               repeat boolean, reason text)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH e AS (
        SELECT 'p' OPERATOR(pg_catalog.||) pg_catalog.round(100 OPERATOR(pg_catalog.*) (x.params OPERATOR(pg_catalog.->>) 'percentile')::pg_catalog.numeric) AS pname,
               pgbench_lab_internal.latency_curve_runs(x.params) OPERATOR(pg_catalog.+) pgbench_lab_internal.latency_curve_repeats(x.params) AS most,
               pgbench_lab_internal.sign_rank(pgbench_lab_internal.latency_curve_runs(x.params)
                                              OPERATOR(pg_catalog.+) pgbench_lab_internal.latency_curve_repeats(x.params),
                                              pgbench_lab_internal.latency_curve_confidence(x.params)) AS k
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
               r.rounds OPERATOR(pg_catalog.<) e.most AS room,
               b.broke, e.pname,
               coalesce(r.cause OPERATOR(pg_catalog.=) ANY (ARRAY['runs', 'interval'])
                        AND (e.k).reached
                        AND LEAST(r.above, r.usable OPERATOR(pg_catalog.-) r.above) OPERATOR(pg_catalog.<) (e.k).k, false) AS decidable
          FROM r, b, h, e),
    d AS (
        SELECT c.*,
               coalesce(c.role OPERATOR(pg_catalog.=) 'undecided' AND c.decidable AND c.room, false) AS cause_undecided,
               coalesce(c.role OPERATOR(pg_catalog.=) 'held above' AND c.room, false) AS cause_above,
               EXISTS (SELECT FROM c o WHERE o.role OPERATOR(pg_catalog.=) 'held above') AS disorder
          FROM c)
    SELECT d.variant, d.rate, d.rounds, d.tps, d.usable, d.fewest, d.pct, d.low_ms, d.high_ms, d.coverage, d.above,
           d.verdict, d.cause, d.basis, d.role,
           coalesce(d.cause_undecided OR d.cause_above
                    OR (d.room AND d.role OPERATOR(pg_catalog.=) 'broke' AND d.cause OPERATOR(pg_catalog.=) 'interval' AND d.disorder),
                    false),
           CASE WHEN d.cause_undecided
                THEN pg_catalog.format('%s at %s tps undecided (%s)', d.pname, pgbench_lab_internal.fmt(d.rate), d.basis)
                WHEN d.cause_above
                THEN pg_catalog.format('%s held at %s tps, above %s tps where it broke', d.pname,
                                       pgbench_lab_internal.fmt(d.rate), pgbench_lab_internal.fmt(d.broke)) END
      FROM d
     ORDER BY d.rate, d.variant
$$;

-- The step down below the lowest rate: lowest, the lowest rate tried so
-- far; made, the steps down made (the rates tried beyond the plan's
-- ladder); next, the rate to step down to now, when the lowest rate
-- broke by its interval or by lagging (a failed run says nothing of the
-- rate): half of it, or the floor (latency_curve_floor()) when half is
-- below it, unless that is no lower or the steps down are at the most
-- (latency_curve_max_steps_down());
-- held_back says why not when the lowest broke and no step is due.
CREATE FUNCTION pgbench_lab_internal.latency_curve_step_down(experiment_id bigint,
                                                             OUT lowest double precision, OUT made integer,
                                                             OUT next double precision, OUT held_back text)
RETURNS record LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH e AS (
        SELECT pgbench_lab_internal.latency_curve_floor(x.params) AS floor, x.params,
               pgbench_lab_internal.latency_curve_planned(x.params) AS planned
          FROM pgbench_lab.experiments x
         WHERE x.experiment_id OPERATOR(pg_catalog.=) latency_curve_step_down.experiment_id),
    l AS (SELECT r.rate, r.verdict, r.cause FROM pgbench_lab_internal.latency_curve_rates(latency_curve_step_down.experiment_id) r
           ORDER BY r.rate LIMIT 1),
    m AS (SELECT (SELECT pg_catalog.count(DISTINCT x.variant) FROM pgbench_lab.experiment_runs x
                   WHERE x.experiment_id OPERATOR(pg_catalog.=) latency_curve_step_down.experiment_id
                     AND x.variant OPERATOR(pg_catalog.>) e.planned)::pg_catalog.int4 AS made,
                 -- (a rate too small to halve, from an imported document: the floor)
                 CASE WHEN l.rate OPERATOR(pg_catalog.<) 1e-300::pg_catalog.float8 THEN e.floor
                      ELSE GREATEST(l.rate OPERATOR(pg_catalog./) 2::pg_catalog.float8, e.floor) END AS half,
                 l.verdict OPERATOR(pg_catalog.=) 'breaks' AND l.cause OPERATOR(pg_catalog.=) ANY (ARRAY['interval', 'lagged']) AS broke,
                 e.floor
            FROM e, l)
    SELECT l.rate, m.made,
           CASE WHEN m.broke AND m.made OPERATOR(pg_catalog.<) pgbench_lab_internal.latency_curve_max_steps_down()
                     AND m.half OPERATOR(pg_catalog.<) l.rate THEN m.half END,
           CASE WHEN NOT m.broke THEN NULL
                WHEN m.made OPERATOR(pg_catalog.>=) pgbench_lab_internal.latency_curve_max_steps_down()
                THEN pg_catalog.format('it stepped down %s times, the most', m.made)
                WHEN NOT m.half OPERATOR(pg_catalog.<) l.rate
                THEN pg_catalog.format('no lower rate was tried: below %s tps a run of %s may have fewer than the %s transactions a %s needs',
                                       pgbench_lab_internal.fmt(m.floor),
                                       pgbench_lab_internal.seconds_text((e.params OPERATOR(pg_catalog.->>) 'duration')::pg_catalog.interval),
                                       pgbench_lab_internal.transactions_needed((e.params OPERATOR(pg_catalog.->>) 'percentile')::pg_catalog.float8),
                                       'p' OPERATOR(pg_catalog.||) pg_catalog.round(100 OPERATOR(pg_catalog.*) (e.params OPERATOR(pg_catalog.->>) 'percentile')::pg_catalog.numeric)) END
      FROM e, l, m
$$;

-- A rate's step, made from the plan's step of its first rate: the same
-- run at another rate (a step down), as variant.
CREATE FUNCTION pgbench_lab_internal.latency_curve_rate_step(step jsonb, variant integer, rate double precision)
RETURNS jsonb LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT (step OPERATOR(pg_catalog.-) 'rate_share'::pg_catalog.text OPERATOR(pg_catalog.-) 'rate_of'::pg_catalog.text)
           OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object('variant', variant,
               'run', (step OPERATOR(pg_catalog.->) 'run') OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object('rate', rate))
$$;

-- The extend hook (experiment_kinds.extend): after the planned steps and
-- each batch it adds, the rates latency_curve_reading() marks to repeat,
-- each run once more with the next round, and the step down
-- (latency_curve_step_down()): runs runs of a new variant at the lower
-- rate; NULL when nothing is left (settled, each at runs + repeats runs,
-- or no step down due).  A rate's step is the plan's for that variant, or
-- for a rate of a step down, the plan's first rate's with that rate.
CREATE FUNCTION pgbench_lab_internal.latency_curve_extend(experiment_id bigint, plan jsonb)
RETURNS jsonb LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH x AS (
        SELECT pgbench_lab_internal.latency_curve_runs(e.params) AS runs,
               'p' OPERATOR(pg_catalog.||) pg_catalog.round(100 OPERATOR(pg_catalog.*) (e.params OPERATOR(pg_catalog.->>) 'percentile')::pg_catalog.numeric) AS pname,
               (SELECT pg_catalog.max(y.variant) FROM pgbench_lab.experiment_runs y
                 WHERE y.experiment_id OPERATOR(pg_catalog.=) latency_curve_extend.experiment_id) AS top_variant,
               (SELECT s.step FROM pg_catalog.jsonb_array_elements(plan OPERATOR(pg_catalog.->) 'steps') AS s(step)
                 WHERE (s.step OPERATOR(pg_catalog.->>) 'variant')::pg_catalog.int4 OPERATOR(pg_catalog.=) 2 LIMIT 1) AS first_rate
          FROM pgbench_lab.experiments e
         WHERE e.experiment_id OPERATOR(pg_catalog.=) latency_curve_extend.experiment_id),
    n AS (
        SELECT d.variant, d.rate, d.reason,
               (SELECT pg_catalog.max(y.round) FROM pgbench_lab.experiment_runs y
                 WHERE y.experiment_id OPERATOR(pg_catalog.=) latency_curve_extend.experiment_id
                   AND y.variant OPERATOR(pg_catalog.=) d.variant) OPERATOR(pg_catalog.+) 1 AS round,
               coalesce((SELECT s.step FROM pg_catalog.jsonb_array_elements(plan OPERATOR(pg_catalog.->) 'steps') AS s(step)
                          WHERE (s.step OPERATOR(pg_catalog.->>) 'variant')::pg_catalog.int4 OPERATOR(pg_catalog.=) d.variant
                          LIMIT 1),
                        pgbench_lab_internal.latency_curve_rate_step(x.first_rate, d.variant, d.rate)) AS step
          FROM pgbench_lab_internal.latency_curve_reading(latency_curve_extend.experiment_id) d, x
         WHERE d.repeat),
    down AS (
        SELECT s.lowest, s.next, x.top_variant OPERATOR(pg_catalog.+) 1 AS variant
          FROM pgbench_lab_internal.latency_curve_step_down(latency_curve_extend.experiment_id) s, x
         WHERE s.next IS NOT NULL),
    steps AS (
        SELECT n.rate, n.round, n.step OPERATOR(pg_catalog.||)
                   pg_catalog.jsonb_build_object('round', n.round,
                       'about', pg_catalog.format('the run at %s tps, round %s', pgbench_lab_internal.fmt(n.rate), n.round)) AS step
          FROM n WHERE n.step IS NOT NULL
        UNION ALL
        SELECT down.next, g.r, pgbench_lab_internal.latency_curve_rate_step(x.first_rate, down.variant, down.next)
                   OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object('round', g.r,
                       'about', pg_catalog.format('the run at %s tps, a step down, round %s of %s', pgbench_lab_internal.fmt(down.next), g.r, x.runs))
          FROM down, x, pg_catalog.generate_series(1, x.runs) AS g(r)
         WHERE x.first_rate IS NOT NULL),
    l AS (SELECT pg_catalog.array_agg(pgbench_lab_internal.fmt(n.rate) ORDER BY n.rate) AS a FROM n WHERE n.step IS NOT NULL)
    SELECT pg_catalog.jsonb_build_object(
               'steps', (SELECT pg_catalog.jsonb_agg(s.step ORDER BY s.rate, s.round) FROM steps s),
               'about', pg_catalog.concat_ws('; ',
                   (SELECT pg_catalog.string_agg(n.reason, '; ' ORDER BY n.rate) FROM n)
                   OPERATOR(pg_catalog.||) ': repeating '
                   OPERATOR(pg_catalog.||) CASE WHEN pg_catalog.cardinality(l.a) OPERATOR(pg_catalog.=) 1 THEN l.a[1]
                                                ELSE pg_catalog.array_to_string(l.a[1:pg_catalog.cardinality(l.a) OPERATOR(pg_catalog.-) 1], ', ')
                                                     OPERATOR(pg_catalog.||) ' and '
                                                     OPERATOR(pg_catalog.||) l.a[pg_catalog.cardinality(l.a)] END
                   OPERATOR(pg_catalog.||) ' tps',
                   (SELECT pg_catalog.format('%s broke at the lowest rate, %s tps: stepping down to %s tps', x.pname,
                                             pgbench_lab_internal.fmt(down.lowest), pgbench_lab_internal.fmt(down.next))
                      FROM down, x WHERE x.first_rate IS NOT NULL)))
      FROM l
     WHERE EXISTS (SELECT FROM steps)
$$;

-- A rate's percentile as the finding quotes it: "p99 8.120 ms, the
-- median of 6 runs, 96.9 % interval 7.500-8.900 ms".
CREATE FUNCTION pgbench_lab_internal.latency_curve_figures(pname text, pct double precision, low_ms double precision,
                                                           high_ms double precision, usable integer,
                                                           coverage double precision)
RETURNS text LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN pct IS NULL THEN pname OPERATOR(pg_catalog.||) ' not measured'
                WHEN usable OPERATOR(pg_catalog.=) 1 THEN pg_catalog.format('%s %s ms, from 1 run', pname, pgbench_lab_internal.fmt(pct, 3))
                ELSE pg_catalog.format('%s %s ms, the median of %s runs, %s %% interval %s-%s ms', pname,
                                       pgbench_lab_internal.fmt(pct, 3), usable, pgbench_lab_internal.latency_curve_percent(coverage),
                                       pgbench_lab_internal.fmt(low_ms, 3), pgbench_lab_internal.fmt(high_ms, 3)) END
$$;

-- The procedure's INOUT columns.  The answer is a range: held up to
-- between best_rate (the highest rate that holds below the lowest that
-- breaks) and broke_rate (that lowest one); a rate that held above one
-- that broke is not counted on (a curve is read from the bottom).
-- settled: every rate below broke_rate was decided, and none above it
-- held.  The finding quotes each rate's runs and the interval that
-- decided it, what is still undecided, and the steps down.
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
    d pg_catalog.record;
    pname pg_catalog.text;
    target pg_catalog.text;
    m_pct pg_catalog.float8;
    h_text pg_catalog.text;
    b_rate pg_catalog.text;
    b_text pg_catalog.text;
    lowest pg_catalog.float8;
    top pg_catalog.float8;
    undecided pg_catalog.text[] := '{}';
    above pg_catalog.text[] := '{}';
    down pg_catalog.text[] := '{}';
    planned pg_catalog.int4;
BEGIN
    SELECT * INTO e FROM pgbench_lab.experiments x WHERE x.experiment_id OPERATOR(pg_catalog.=) id;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    label := e.label;
    pname := 'p' OPERATOR(pg_catalog.||) pg_catalog.round(100 OPERATOR(pg_catalog.*) (e.params OPERATOR(pg_catalog.->>) 'percentile')::pg_catalog.numeric);
    target := pgbench_lab_internal.fmt((e.params OPERATOR(pg_catalog.->>) 'target_ms')::pg_catalog.float8, 3);
    SELECT s.tps, s.pct INTO max_tps, m_pct FROM pgbench_lab_internal.latency_curve_steps(id) s
     WHERE s.rate IS NULL ORDER BY s.variant LIMIT 1;
    d := pgbench_lab_internal.latency_curve_step_down(id);
    planned := pgbench_lab_internal.latency_curve_planned(e.params);
    FOR r IN SELECT * FROM pgbench_lab_internal.latency_curve_reading(id) LOOP
        lowest := coalesce(lowest, r.rate);
        top := r.rate;
        IF r.variant OPERATOR(pg_catalog.>) planned THEN
            down := pg_catalog.array_prepend(pgbench_lab_internal.fmt(r.rate), down);
        END IF;
        IF r.role OPERATOR(pg_catalog.=) 'held' THEN
            best_rate := r.rate;
            best_tps := r.tps;
            best_latency_ms := r.pct;
            h_text := pg_catalog.format('%s tps asked (%s achieved; %s)', pgbench_lab_internal.fmt(r.rate), pgbench_lab_internal.fmt(r.tps),
                          pgbench_lab_internal.latency_curve_figures(pname, r.pct, r.low_ms, r.high_ms, r.usable, r.coverage));
        ELSIF r.role OPERATOR(pg_catalog.=) 'broke' THEN
            broke_rate := r.rate;
            broke_latency_ms := r.pct;
            b_rate := pgbench_lab_internal.fmt(r.rate) OPERATOR(pg_catalog.||) ' tps asked';
            b_text := CASE WHEN r.cause OPERATOR(pg_catalog.=) 'failed' THEN r.basis
                           WHEN r.cause OPERATOR(pg_catalog.=) 'lagged'
                           THEN pg_catalog.format('%s (%s)', r.basis,
                                    pgbench_lab_internal.latency_curve_figures(pname, r.pct, r.low_ms, r.high_ms, r.usable, r.coverage))
                           ELSE pgbench_lab_internal.latency_curve_figures(pname, r.pct, r.low_ms, r.high_ms, r.usable, r.coverage) END;
        ELSIF r.role OPERATOR(pg_catalog.=) 'undecided' THEN
            undecided := pg_catalog.array_append(undecided, pg_catalog.format('%s tps (%s)', pgbench_lab_internal.fmt(r.rate), r.basis));
        ELSIF r.role OPERATOR(pg_catalog.=) 'held above' THEN
            above := pg_catalog.array_append(above, pg_catalog.format('%s tps (%s)', pgbench_lab_internal.fmt(r.rate),
                         pgbench_lab_internal.latency_curve_figures(pname, r.pct, r.low_ms, r.high_ms, r.usable, r.coverage)));
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
             THEN pg_catalog.format('held at none of the rates: it broke at the lowest, %s: %s%s', b_rate, b_text,
                                    coalesce(' (' OPERATOR(pg_catalog.||) d.held_back OPERATOR(pg_catalog.||) ')', ''))
             WHEN b_text IS NOT NULL
             THEN pg_catalog.format('held at none of the rates that were decided: it broke at %s: %s', b_rate, b_text)
             ELSE 'was decided at none of the rates' END
        OPERATOR(pg_catalog.||)
        CASE WHEN pg_catalog.cardinality(down) OPERATOR(pg_catalog.>) 0
             THEN pg_catalog.format('; the lowest rate of the plan broke, so the curve stepped down to %s tps',
                                    CASE WHEN pg_catalog.cardinality(down) OPERATOR(pg_catalog.=) 1 THEN down[1]
                                         ELSE pg_catalog.array_to_string(down[1:pg_catalog.cardinality(down) OPERATOR(pg_catalog.-) 1], ', ')
                                              OPERATOR(pg_catalog.||) ' and ' OPERATOR(pg_catalog.||) down[pg_catalog.cardinality(down)] END)
             ELSE '' END
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
-- the median of its runs' percentiles against the target, with the
-- interval over the runs and its coverage.
CREATE FUNCTION pgbench_lab_internal.latency_curve_verdicts(experiment_id bigint)
RETURNS TABLE (comparison text, measure text, rounds integer, ratio double precision, ratio_low double precision,
               ratio_high double precision, coverage double precision, verdict text, decided boolean, basis text)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pg_catalog.format('%s at %s tps against %s ms', w.pname, pgbench_lab_internal.fmt(r.rate), w.target::pg_catalog.text),
           w.pname OPERATOR(pg_catalog.||) ' latency', r.rounds,
           r.pct OPERATOR(pg_catalog./) w.target, r.low_ms OPERATOR(pg_catalog./) w.target, r.high_ms OPERATOR(pg_catalog./) w.target,
           r.coverage, r.verdict, r.verdict OPERATOR(pg_catalog.<>) 'undecided', r.basis
      FROM pgbench_lab.experiments x
     CROSS JOIN LATERAL (SELECT (x.params OPERATOR(pg_catalog.->>) 'target_ms')::pg_catalog.float8 AS target,
                                'p' OPERATOR(pg_catalog.||) pg_catalog.round(100 OPERATOR(pg_catalog.*)
                                    (x.params OPERATOR(pg_catalog.->>) 'percentile')::pg_catalog.numeric) AS pname) w
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
    runs pg_catalog.int4;
    repeats pg_catalog.int4;
BEGIN
    SELECT * INTO e FROM pgbench_lab.experiments x WHERE x.experiment_id OPERATOR(pg_catalog.=) report_latency_curve.experiment_id;
    pname := 'p' OPERATOR(pg_catalog.||) pg_catalog.round(100 OPERATOR(pg_catalog.*) (e.params OPERATOR(pg_catalog.->>) 'percentile')::pg_catalog.numeric);
    runs := pgbench_lab_internal.latency_curve_runs(e.params);
    repeats := pgbench_lab_internal.latency_curve_repeats(e.params);
    RETURN QUERY SELECT pg_catalog.format('Target: %s under %s ms; %s', pname,
                       e.params OPERATOR(pg_catalog.->>) 'target_ms',
                       CASE WHEN e.params OPERATOR(pg_catalog.?) 'rates' THEN 'rates asked: ' OPERATOR(pg_catalog.||) (e.params OPERATOR(pg_catalog.->>) 'rates')
                            ELSE 'rates: shares of the maximum ' OPERATOR(pg_catalog.||) (e.params OPERATOR(pg_catalog.->>) 'shares') END)
                 OPERATOR(pg_catalog.||)
                 pg_catalog.format('; %s run%s per rate', runs, CASE WHEN runs OPERATOR(pg_catalog.>) 1 THEN 's' ELSE '' END)
                 OPERATOR(pg_catalog.||)
                 CASE WHEN repeats OPERATOR(pg_catalog.>) 0
                      THEN pg_catalog.format(', a rate in doubt up to %s more', repeats)
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
    RETURN QUERY SELECT pg_catalog.format('Per rate, across its runs: the median of their %s, its interval over the runs (sign test) and coverage, against %s ms',
                                          pname, e.params OPERATOR(pg_catalog.->>) 'target_ms');
    RETURN QUERY SELECT pg_catalog.format('  %10s  %4s  %12s  %9s  %19s  %8s  %s', 'rate asked', 'runs', 'fewest xacts',
                                          'median ms', 'interval ms', 'coverage', 'verdict');
    RETURN QUERY
        SELECT pg_catalog.format('  %10s  %4s  %12s  %9s  %19s  %8s  %s', pgbench_lab_internal.fmt(r.rate), r.rounds,
                      coalesce(r.fewest::pg_catalog.text, '-'), coalesce(pgbench_lab_internal.fmt(r.pct, 3), '-'),
                      CASE WHEN r.low_ms IS NULL THEN '-'
                           ELSE pgbench_lab_internal.fmt(r.low_ms, 3) OPERATOR(pg_catalog.||) '-' OPERATOR(pg_catalog.||) pgbench_lab_internal.fmt(r.high_ms, 3) END,
                      CASE WHEN r.coverage IS NULL THEN '-' ELSE pgbench_lab_internal.latency_curve_percent(r.coverage) OPERATOR(pg_catalog.||) ' %' END,
                      r.verdict OPERATOR(pg_catalog.||)
                      CASE WHEN r.cause OPERATOR(pg_catalog.=) 'failed' THEN ' (a run did not end done)'
                           WHEN r.cause OPERATOR(pg_catalog.=) 'lagged' THEN ' (rate not sustained)'
                           WHEN r.cause OPERATOR(pg_catalog.=) 'too few' THEN ' (too few transactions in a run)'
                           WHEN r.cause OPERATOR(pg_catalog.=) 'runs' AND r.above OPERATOR(pg_catalog.>) 0
                                AND r.above OPERATOR(pg_catalog.<) r.usable THEN ' (runs on both sides of the target)'
                           WHEN r.cause OPERATOR(pg_catalog.=) 'runs' THEN ' (too few runs for the confidence)'
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
-- rate, with the target drawn across, on a log axis of latency: a target
-- of a few ms stays readable beside a run that broke at a second; the
-- finding under the legend.
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
        pg_catalog.format('Latency against throughput: %s (experiment %s, %s)', coalesce(e.label, e.workload), experiment_id,
                          pgbench_lab_internal.plot_path(ARRAY[experiment_id])),
        'achieved TPS (transactions per second)', 'latency (ms, log scale)', NULL,
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
        CASE WHEN NOT EXISTS (SELECT FROM s) THEN ARRAY['Nothing to plot: no run at a rate ended done.'] END,
        true, r.finding)
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
    runs integer DEFAULT 3,
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
