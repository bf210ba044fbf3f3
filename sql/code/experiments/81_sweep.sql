
-- ---------------------------------------------------------------------------
-- sweep(): one run per client count, in one or more rounds; names the peak
-- and the knee.
--
-- Rounds: each round runs every count once, rising in odd rounds and
-- falling in even ones, so that a drift of the machine falls on every
-- count; a step's variant is the position of its count, its round the
-- round.  A count's TPS is the median of its rounds (with their min and
-- max), and each step from one count to the next is judged on its rounds
-- paired: the ratios TPS(next) / TPS(count) of the same round, with
-- pgbench_lab.paired_verdict() (71_verdict.sql: the median ratio and its
-- sign-test interval, which reaches 95 % from 6 rounds on).
--
-- The knee rule, on the medians: a step from count k to the next whose TPS
-- gain is below knee_threshold of linear scaling makes k a candidate; the
-- candidate is passed over when a later count j still gains at least that
-- share of linear scaling over k ((TPS_j/TPS_k - 1) / (c_j/c_k - 1) >=
-- knee_threshold): TPS went on growing, so the step was noise (a sweep
-- once named 1 client while TPS grew on to a peak at 4).  The knee is the
-- first candidate not passed over.  With two rounds or more the knee's
-- step is judged on its interval too: the knee holds when the interval
-- (at the sweep's confidence) lies below the ratio at the threshold, and is
-- uncertain when it reaches that ratio or has too few rounds for the
-- confidence; one round gives no interval.
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
                  HINT = 'Valid workloads are tpcb-like, simple-update, select-only and tpcc; or give pgbench scripts with scripts =>.';
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


-- The number of rounds: 1 (one run per count) to 100.
CREATE FUNCTION pgbench_lab_internal.check_sweep_rounds(rounds integer)
RETURNS integer LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF rounds IS NULL THEN
        RAISE EXCEPTION 'rounds must not be null'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Leave it out for one run per client count; 6 rounds or more give each step a 95 % interval.';
    END IF;
    IF rounds OPERATOR(pg_catalog.<) 1 OR rounds OPERATOR(pg_catalog.>) 100 THEN
        RAISE EXCEPTION 'rounds must be from 1 to 100, not %', rounds
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Each round runs every client count once; 1 (the default) gives no interval, 6 rounds or more give each step''s TPS ratio a 95 % interval.';
    END IF;
    RETURN rounds;
END
$$;

-- The parameters of a sweep, checked.
CREATE FUNCTION pgbench_lab_internal.sweep_params(workload text, clients integer[], duration interval, settings jsonb,
                                                  knee_threshold double precision, rounds integer,
                                                  smallest_effect double precision, confidence double precision)
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
                                         'knee_threshold', pgbench_lab_internal.check_knee_threshold(knee_threshold),
                                         'rounds', pgbench_lab_internal.check_sweep_rounds(rounds))
           OPERATOR(pg_catalog.||) pgbench_lab_internal.verdict_params(smallest_effect, confidence);
END
$$;

-- The smallest effect and the confidence a sweep's verdicts use: those
-- recorded with it, or 0.02 and 0.95 when there are none (a sweep of 0.2)
-- or they cannot be used (an imported document may hold anything there).
CREATE FUNCTION pgbench_lab_internal.sweep_verdict_params(params jsonb,
    OUT smallest_effect double precision, OUT confidence double precision)
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pgbench_lab_internal.params_smallest_effect(params), pgbench_lab_internal.params_confidence(params)
$$;

-- Each finished client count with the step from the one before it: its
-- TPS and latencies are the medians of its finished runs (its rounds;
-- runs of one count are its rounds in an imported document too), with
-- the rounds' TPS min and max; run_id is the run whose TPS is nearest the
-- median (the first of them on a tie), whose telemetry and waits the
-- reports show.  linear_share: the median TPS gained as a share of what
-- linear scaling with the added clients would give (1 = linear, 0 =
-- nothing, negative = a loss); computed in numeric, so that no figures
-- make it overflow.
CREATE FUNCTION pgbench_lab_internal.sweep_steps(experiment_id bigint)
RETURNS TABLE (clients integer, run_id bigint, tps double precision, latency_avg_ms double precision,
               latency_p99_ms double precision, prev_clients integer, prev_tps double precision,
               prev_latency_avg_ms double precision, linear_share double precision,
               rounds integer, tps_min double precision, tps_max double precision)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH d AS (
        SELECT r.clients, r.run_id, r.tps, r.latency_avg_ms, r.latency_p99_ms, x.ordinal
          FROM pgbench_lab.experiment_runs x
          JOIN pgbench_lab.runs r ON r.run_id OPERATOR(pg_catalog.=) x.run_id
         WHERE x.experiment_id OPERATOR(pg_catalog.=) sweep_steps.experiment_id
           AND r.status OPERATOR(pg_catalog.=) 'done' AND r.tps OPERATOR(pg_catalog.>) 0),
    g AS (
        SELECT d.clients, pg_catalog.count(*)::pg_catalog.int4 AS rounds,
               pg_catalog.percentile_cont(0.5) WITHIN GROUP (ORDER BY d.tps) AS tps,
               pg_catalog.min(d.tps) AS tps_min, pg_catalog.max(d.tps) AS tps_max,
               pg_catalog.percentile_cont(0.5) WITHIN GROUP (ORDER BY d.latency_avg_ms) AS latency_avg_ms,
               pg_catalog.percentile_cont(0.5) WITHIN GROUP (ORDER BY d.latency_p99_ms) AS latency_p99_ms
          FROM d
         GROUP BY d.clients),
    s AS (
        SELECT g.clients,
               (SELECT d.run_id FROM d WHERE d.clients OPERATOR(pg_catalog.=) g.clients
                 ORDER BY pg_catalog.abs(d.tps::pg_catalog.numeric OPERATOR(pg_catalog.-) g.tps::pg_catalog.numeric), d.ordinal
                 LIMIT 1) AS run_id,
               g.tps, g.latency_avg_ms, g.latency_p99_ms,
               pg_catalog.lag(g.clients) OVER w AS prev_clients, pg_catalog.lag(g.tps) OVER w AS prev_tps,
               pg_catalog.lag(g.latency_avg_ms) OVER w AS prev_latency_avg_ms,
               g.rounds, g.tps_min, g.tps_max
          FROM g
        WINDOW w AS (ORDER BY g.clients))
    SELECT s.clients, s.run_id, s.tps, s.latency_avg_ms, s.latency_p99_ms, s.prev_clients, s.prev_tps, s.prev_latency_avg_ms,
           CASE WHEN s.clients OPERATOR(pg_catalog.>) s.prev_clients
                THEN pgbench_lab_internal.to_float8((s.tps::numeric OPERATOR(pg_catalog./) s.prev_tps::numeric OPERATOR(pg_catalog.-) 1)
                                                    OPERATOR(pg_catalog./) (s.clients::numeric OPERATOR(pg_catalog./) s.prev_clients OPERATOR(pg_catalog.-) 1)) END,
           s.rounds, s.tps_min, s.tps_max
      FROM s
     ORDER BY s.clients
$$;

-- Each step judged on its rounds paired: the TPS of the count before it
-- (a) and of its count (b) in the same round (the median, should a round
-- hold two runs of one count), through paired_verdict() against the
-- sweep's smallest effect and confidence.  With fewer than two paired
-- rounds there is no interval: the ratio of the single runs, undecided
-- ("1 round gives no interval; 6 needed for 95.0 %").  step_clients:
-- that step only (the
-- one ending at that count).
CREATE FUNCTION pgbench_lab_internal.sweep_pairs(experiment_id bigint, step_clients integer DEFAULT NULL)
RETURNS TABLE (clients integer, prev_clients integer, rounds integer, ratio double precision,
               ratio_low double precision, ratio_high double precision, coverage double precision,
               verdict text, decided boolean, every_round text, basis text, confidence double precision)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH d AS (
        SELECT r.clients, x.round, pg_catalog.percentile_cont(0.5) WITHIN GROUP (ORDER BY r.tps) AS tps
          FROM pgbench_lab.experiment_runs x
          JOIN pgbench_lab.runs r ON r.run_id OPERATOR(pg_catalog.=) x.run_id
         WHERE x.experiment_id OPERATOR(pg_catalog.=) sweep_pairs.experiment_id
           AND r.status OPERATOR(pg_catalog.=) 'done' AND r.tps OPERATOR(pg_catalog.>) 0
         GROUP BY r.clients, x.round),
    e AS (
        SELECT v.smallest_effect, v.confidence
          FROM pgbench_lab.experiments x,
               pgbench_lab_internal.sweep_verdict_params(x.params) v
         WHERE x.experiment_id OPERATOR(pg_catalog.=) sweep_pairs.experiment_id),
    p AS (
        SELECT s.clients, s.prev_clients,
               pg_catalog.array_agg(a.tps ORDER BY a.round) FILTER (WHERE a.tps IS NOT NULL) AS a_tps,
               pg_catalog.array_agg(b.tps ORDER BY a.round) FILTER (WHERE a.tps IS NOT NULL) AS b_tps
          FROM pgbench_lab_internal.sweep_steps(sweep_pairs.experiment_id) s
          LEFT JOIN (d a JOIN d b ON b.round OPERATOR(pg_catalog.=) a.round)
                 ON a.clients OPERATOR(pg_catalog.=) s.prev_clients AND b.clients OPERATOR(pg_catalog.=) s.clients
         WHERE s.prev_clients IS NOT NULL
           AND (step_clients IS NULL OR s.clients OPERATOR(pg_catalog.=) step_clients)
         GROUP BY s.clients, s.prev_clients)
    SELECT p.clients, p.prev_clients, v.rounds,
           CASE WHEN v.rounds OPERATOR(pg_catalog.=) 1 THEN pgbench_lab_internal.ratio(p.b_tps[1], p.a_tps[1]) ELSE v.ratio END,
           CASE WHEN v.rounds OPERATOR(pg_catalog.>=) 2 THEN v.ratio_low END,
           CASE WHEN v.rounds OPERATOR(pg_catalog.>=) 2 THEN v.ratio_high END,
           CASE WHEN v.rounds OPERATOR(pg_catalog.>=) 2 THEN v.coverage END,
           v.verdict, v.decided, v.every_round, v.basis, e.confidence
      FROM p CROSS JOIN e
     CROSS JOIN LATERAL pgbench_lab.paired_verdict(p.a_tps, p.b_tps, e.smallest_effect, e.confidence) v
     ORDER BY p.clients
$$;

-- The kind's verdicts (experiment_kinds.verdicts, read through
-- pgbench_lab.experiment_verdicts()), one row per step: "4 clients against
-- 2 clients", the TPS ratio of the later count to the earlier one, paired
-- by round (sweep_pairs()).
CREATE FUNCTION pgbench_lab_internal.sweep_verdicts(experiment_id bigint)
RETURNS TABLE (comparison text, measure text, rounds integer, ratio double precision, ratio_low double precision,
               ratio_high double precision, coverage double precision, verdict text, decided boolean, basis text)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pg_catalog.format('%s against %s', pgbench_lab_internal.clients_text(p.clients),
                             pgbench_lab_internal.clients_text(p.prev_clients)),
           'tps', p.rounds, p.ratio, p.ratio_low, p.ratio_high, p.coverage, p.verdict, p.decided, p.basis
      FROM pgbench_lab_internal.sweep_pairs(experiment_id) p
     ORDER BY p.clients
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


-- The knee rule on a sweep's steps (the medians of sweep_steps(), with
-- their columns): below, the step's share of linear scaling is below the
-- threshold (the count before it is a candidate); beaten_by, the first
-- later count whose median TPS still gains at least the threshold's share
-- of linear scaling over the candidate's, and beaten_share that share (the
-- candidate is then passed over: TPS went on growing past the step, so the
-- step was noise); is_knee, the first candidate not passed over.  Shares
-- are computed in numeric, as linear_share is, and compared as it is.
CREATE FUNCTION pgbench_lab_internal.sweep_knee_steps(experiment_id bigint, rule double precision)
RETURNS TABLE (clients integer, run_id bigint, tps double precision, latency_avg_ms double precision,
               latency_p99_ms double precision, prev_clients integer, prev_tps double precision,
               prev_latency_avg_ms double precision, linear_share double precision,
               rounds integer, tps_min double precision, tps_max double precision,
               below boolean, beaten_by integer, beaten_share double precision, is_knee boolean)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    counts pg_catalog.int4[];
    figures pg_catalog.float8[];
    s pg_catalog.record;
    g pg_catalog.float8;
    named pg_catalog.bool := false;
BEGIN
    -- a loop of PL/pgSQL, whose plans a session keeps, rather than one
    -- query of SQL planned again at every call (reports call this often)
    SELECT pg_catalog.array_agg(x.clients ORDER BY x.clients), pg_catalog.array_agg(x.tps ORDER BY x.clients)
      INTO counts, figures
      FROM pgbench_lab_internal.sweep_steps(experiment_id) x;
    FOR s IN SELECT * FROM pgbench_lab_internal.sweep_steps(experiment_id) x
              WHERE x.prev_clients IS NOT NULL ORDER BY x.clients LOOP
        clients := s.clients;
        run_id := s.run_id;
        tps := s.tps;
        latency_avg_ms := s.latency_avg_ms;
        latency_p99_ms := s.latency_p99_ms;
        prev_clients := s.prev_clients;
        prev_tps := s.prev_tps;
        prev_latency_avg_ms := s.prev_latency_avg_ms;
        linear_share := s.linear_share;
        rounds := s.rounds;
        tps_min := s.tps_min;
        tps_max := s.tps_max;
        below := s.linear_share OPERATOR(pg_catalog.<) rule;
        beaten_by := NULL;
        beaten_share := NULL;
        IF below THEN
            FOR j IN 1 .. pg_catalog.cardinality(counts) LOOP
                CONTINUE WHEN counts[j] OPERATOR(pg_catalog.<=) s.clients;
                g := pgbench_lab_internal.to_float8((figures[j]::pg_catalog.numeric OPERATOR(pg_catalog./) s.prev_tps::pg_catalog.numeric
                                                     OPERATOR(pg_catalog.-) 1)
                                                    OPERATOR(pg_catalog./) (counts[j]::pg_catalog.numeric OPERATOR(pg_catalog./) s.prev_clients
                                                                            OPERATOR(pg_catalog.-) 1));
                IF g OPERATOR(pg_catalog.>=) rule THEN
                    beaten_by := counts[j];
                    beaten_share := g;
                    EXIT;
                END IF;
            END LOOP;
        END IF;
        is_knee := coalesce(below, false) AND beaten_by IS NULL AND NOT named;
        named := named OR is_knee;
        RETURN NEXT;
    END LOOP;
END
$$;

-- The knee's step (prev_clients -> clients) judged on its paired rounds:
-- the ratio at the knee threshold (threshold_ratio, the TPS ratio whose
-- gain is exactly that share of linear scaling), the step's median ratio
-- and interval, and whether the interval decides the knee: it holds when
-- the interval, at the sweep's confidence, lies below threshold_ratio;
-- it is uncertain (decided false) when the interval reaches it, or has
-- too few rounds for the confidence.  One round: no interval (decided
-- NULL).  words: the judgement, a sentence for the finding.
CREATE FUNCTION pgbench_lab_internal.sweep_knee_check(experiment_id bigint, clients integer, prev_clients integer,
    rule double precision,
    OUT rounds integer, OUT ratio double precision, OUT ratio_low double precision, OUT ratio_high double precision,
    OUT coverage double precision, OUT threshold_ratio double precision, OUT decided boolean, OUT words text)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    p pg_catalog.record;
BEGIN
    threshold_ratio := 1::pg_catalog.float8 OPERATOR(pg_catalog.+)
                       rule OPERATOR(pg_catalog.*) (clients::pg_catalog.float8 OPERATOR(pg_catalog./) prev_clients::pg_catalog.float8
                                                    OPERATOR(pg_catalog.-) 1::pg_catalog.float8);
    SELECT * INTO p FROM pgbench_lab_internal.sweep_pairs(experiment_id, clients) s
     WHERE s.clients OPERATOR(pg_catalog.=) sweep_knee_check.clients;
    rounds := coalesce(p.rounds, 0);
    ratio := p.ratio;
    IF rounds OPERATOR(pg_catalog.=) 0 THEN
        words := 'no round ran both counts, so there is nothing to pair';
        RETURN;
    ELSIF rounds OPERATOR(pg_catalog.=) 1 THEN
        words := '1 round, no interval';
        RETURN;
    END IF;
    ratio_low := p.ratio_low;
    ratio_high := p.ratio_high;
    coverage := p.coverage;
    decided := coverage OPERATOR(pg_catalog.>=) p.confidence AND ratio_high OPERATOR(pg_catalog.<) threshold_ratio;
    words := pg_catalog.format('Paired by round, %s against %s gave ×%s (%s %% interval ×%s to ×%s, %s rounds), and the knee threshold is ×%s for this step: %s',
                 pgbench_lab_internal.clients_text(clients), pgbench_lab_internal.clients_text(prev_clients),
                 pgbench_lab_internal.fmt(ratio, 3), pgbench_lab_internal.fmt(coverage OPERATOR(pg_catalog.*) 100::pg_catalog.float8, 1),
                 pgbench_lab_internal.fmt(ratio_low, 3), pgbench_lab_internal.fmt(ratio_high, 3), rounds,
                 pgbench_lab_internal.fmt(threshold_ratio, 3),
                 CASE WHEN coverage OPERATOR(pg_catalog.<) p.confidence
                      THEN pg_catalog.format('%s rounds give at most a %s %% interval (a %s %% one needs %s rounds or more), so the knee is uncertain',
                                             rounds, pgbench_lab_internal.fmt(coverage OPERATOR(pg_catalog.*) 100::pg_catalog.float8, 1),
                                             pgbench_lab_internal.fmt(p.confidence OPERATOR(pg_catalog.*) 100::pg_catalog.float8, 1),
                                             pgbench_lab_internal.rounds_needed(p.confidence))
                      WHEN ratio_high OPERATOR(pg_catalog.<) threshold_ratio
                      THEN 'the interval lies below it, so the knee holds'
                      WHEN ratio_low OPERATOR(pg_catalog.>=) threshold_ratio
                      THEN 'the interval lies above it, so the paired rounds put the gain over the threshold and the knee is uncertain'
                      ELSE 'the interval holds it and cannot tell the gain from the threshold, so the knee is uncertain (more rounds would narrow it)' END);
END
$$;

-- The steps passed over before the knee (all of them when there is no
-- knee), in words: "1 -> 2 clients added 20% of linear scaling, but 4
-- clients still added 53% of linear scaling over 1 client".
CREATE FUNCTION pgbench_lab_internal.sweep_passed_over(experiment_id bigint, rule double precision,
    OUT counts integer[], OUT words text)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH k AS MATERIALIZED (
        SELECT * FROM pgbench_lab_internal.sweep_knee_steps(sweep_passed_over.experiment_id, rule))
    SELECT pg_catalog.array_agg(k.prev_clients ORDER BY k.clients),
           pg_catalog.string_agg(pg_catalog.format('%s -> %s clients added %s of linear scaling, but %s still added %s of linear scaling over %s',
                                                   k.prev_clients, k.clients, pgbench_lab_internal.share_text(k.linear_share, rule),
                                                   pgbench_lab_internal.clients_text(k.beaten_by),
                                                   pgbench_lab_internal.share_text(k.beaten_share, rule),
                                                   pgbench_lab_internal.clients_text(k.prev_clients)), '; ' ORDER BY k.clients)
      FROM k
     WHERE k.below AND k.beaten_by IS NOT NULL
       AND NOT EXISTS (SELECT FROM k n WHERE n.is_knee AND n.clients OPERATOR(pg_catalog.<) k.clients)
$$;

-- The client-count sweep article's method, on the medians of the rounds:
-- the peak is the highest TPS; the knee is the last count before the
-- first step whose added clients bring less than knee_threshold (by
-- default half) of linear throughput, passing over a step after which a
-- later count still gains at least that share of linear scaling over the
-- count before the step (see the head of this file); past the knee,
-- clients mostly add latency.  With two rounds or more the knee's step is
-- judged on its paired rounds too (sweep_knee_check()).  knee_threshold
-- NULL: the one the sweep was made with.
CREATE FUNCTION pgbench_lab.sweep_verdict(experiment_id bigint, knee_threshold double precision DEFAULT NULL,
    OUT peak_clients integer, OUT peak_tps double precision,
    OUT knee_clients integer, OUT cpu_limit_clients integer, OUT finding text,
    OUT rounds integer, OUT knee_ratio double precision, OUT knee_ratio_low double precision,
    OUT knee_ratio_high double precision, OUT knee_coverage double precision, OUT knee_decided boolean,
    OUT passed_over integer[])
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    pk pg_catalog.record;
    cpu_text pg_catalog.text;
    kn pg_catalog.record;
    chk pg_catalog.record;
    skipped pg_catalog.record;
    n pg_catalog.int4;
    top pg_catalog.int4;
    tail pg_catalog.record;
    rule pg_catalog.float8;
    med pg_catalog.text;
    peak_text pg_catalog.text;
    notes pg_catalog.text;
    knee_text pg_catalog.text;
BEGIN
    IF knee_threshold IS NOT NULL THEN
        PERFORM pgbench_lab_internal.check_knee_threshold(knee_threshold);
    END IF;
    PERFORM pgbench_lab_internal.check_experiment(experiment_id, '{sweep}', 'sweep_verdict()');
    rule := pgbench_lab_internal.sweep_rule(experiment_id, knee_threshold);
    SELECT pg_catalog.count(*), pg_catalog.max(s.clients), pg_catalog.max(s.rounds) INTO n, top, rounds
      FROM pgbench_lab_internal.sweep_steps(experiment_id) s;
    IF n OPERATOR(pg_catalog.=) 0 THEN
        finding := 'No finished runs: no peak and no knee.';
        RETURN;
    END IF;
    -- one round says TPS, as before rounds existed; more say median TPS
    med := CASE WHEN rounds OPERATOR(pg_catalog.>=) 2 THEN 'median ' ELSE '' END;
    SELECT * INTO pk FROM pgbench_lab_internal.sweep_steps(experiment_id) s ORDER BY s.tps DESC, s.clients LIMIT 1;
    peak_clients := pk.clients;
    peak_tps := pk.tps;
    SELECT * INTO tail FROM pgbench_lab_internal.sweep_steps(experiment_id) s WHERE s.clients OPERATOR(pg_catalog.>) pk.clients
     ORDER BY s.clients DESC LIMIT 1;
    peak_text := pg_catalog.format('Peak: %s at %s tps, the highest %sthroughput of the sweep',
                        pgbench_lab_internal.clients_text(pk.clients), pgbench_lab_internal.fmt(pk.tps), med);
    notes := pg_catalog.concat_ws('; ',
                 CASE WHEN pk.rounds OPERATOR(pg_catalog.>=) 2
                      THEN pg_catalog.format('its %s rounds: %s to %s tps', pk.rounds,
                                             pgbench_lab_internal.fmt(pk.tps_min), pgbench_lab_internal.fmt(pk.tps_max)) END,
                 CASE WHEN tail IS NULL AND n OPERATOR(pg_catalog.>) 1
                      THEN 'the largest count tried: more clients may go higher' END);
    IF notes OPERATOR(pg_catalog.<>) '' THEN
        peak_text := peak_text OPERATOR(pg_catalog.||) ' (' OPERATOR(pg_catalog.||) notes OPERATOR(pg_catalog.||) ')';
    END IF;
    IF NOT (tail IS NULL) THEN
        peak_text := peak_text OPERATOR(pg_catalog.||) pg_catalog.format('; at %s clients %sTPS was %s lower', tail.clients, med,
                                         pg_catalog.ltrim(pgbench_lab_internal.pct_change(tail.tps, pk.tps), '-'));
    END IF;
    SELECT * INTO kn FROM pgbench_lab_internal.sweep_knee_steps(experiment_id, rule) k WHERE k.is_knee;
    SELECT * INTO skipped FROM pgbench_lab_internal.sweep_passed_over(experiment_id, rule);
    passed_over := skipped.counts;
    IF n OPERATOR(pg_catalog.<) 2 THEN
        knee_text := 'Knee: not found: it needs at least two finished client counts';
    ELSIF kn IS NULL AND skipped.counts IS NULL THEN
        knee_text := pg_catalog.format('Knee: not reached: up to %s clients every step added at least %s of linear throughput (the knee threshold); sweep higher counts',
                                       top, pgbench_lab_internal.threshold_text(rule));
    ELSIF kn IS NULL THEN
        knee_text := pg_catalog.format('Knee: not reached: up to %s clients no step below the knee threshold of %s ended the growth (%s); sweep higher counts',
                                       top, pgbench_lab_internal.threshold_text(rule), skipped.words);
    ELSE
        knee_clients := kn.prev_clients;
        SELECT * INTO chk FROM pgbench_lab_internal.sweep_knee_check(experiment_id, kn.clients, kn.prev_clients, rule);
        knee_ratio := chk.ratio;
        knee_ratio_low := chk.ratio_low;
        knee_ratio_high := chk.ratio_high;
        knee_coverage := chk.coverage;
        knee_decided := chk.decided;
        knee_text := pg_catalog.format('Knee: %s: going from %s to %s clients (%s) changed %sTPS by %s, %s of linear scaling and below the knee threshold of %s%s, while average latency changed by %s, so more clients add latency rather than throughput',
                            pgbench_lab_internal.clients_text(kn.prev_clients), kn.prev_clients, kn.clients,
                            pgbench_lab_internal.pct_change(kn.clients, kn.prev_clients), med,
                            pgbench_lab_internal.pct_change(kn.tps, kn.prev_tps),
                            pgbench_lab_internal.share_text(kn.linear_share, rule),
                            pgbench_lab_internal.threshold_text(rule),
                            CASE WHEN chk.rounds OPERATOR(pg_catalog.<) 2 THEN ' (' OPERATOR(pg_catalog.||) chk.words OPERATOR(pg_catalog.||) ')' ELSE '' END,
                            CASE WHEN pgbench_lab_internal.pct_change(kn.latency_avg_ms, kn.prev_latency_avg_ms) OPERATOR(pg_catalog.<>) ''
                                 THEN pgbench_lab_internal.pct_change(kn.latency_avg_ms, kn.prev_latency_avg_ms)
                                 ELSE 'an unknown amount' END);
        IF chk.rounds OPERATOR(pg_catalog.>=) 2 THEN
            knee_text := knee_text OPERATOR(pg_catalog.||) '. ' OPERATOR(pg_catalog.||) chk.words;
        END IF;
        IF skipped.counts IS NOT NULL THEN
            knee_text := knee_text OPERATOR(pg_catalog.||) pg_catalog.format('. Passed over, as TPS went on growing: %s', skipped.words);
        END IF;
    END IF;
    finding := peak_text OPERATOR(pg_catalog.||) '. ' OPERATOR(pg_catalog.||) knee_text OPERATOR(pg_catalog.||) '.';
    SELECT c.limit_clients, c.words INTO cpu_limit_clients, cpu_text
      FROM pgbench_lab_internal.sweep_cpu(experiment_id, pk.run_id) c;
    finding := pg_catalog.concat_ws(' ', finding, cpu_text,
                                    (SELECT l.words FROM pgbench_lab_internal.sweep_lag(experiment_id) l));
END
$$;
COMMENT ON FUNCTION pgbench_lab.sweep_verdict(bigint, double precision) IS
    'The peak and the knee of a sweep (on the medians of its rounds, a step after which TPS still grows passed over), the knee step''s interval when it has rounds, the client count at which the machine''s CPU passed 85 %, and its finding; knee_threshold overrides the one the sweep was made with';

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
               linear_share double precision, mark text, cpu_busy_pct double precision, waits text,
               rounds integer, tps_min double precision, tps_max double precision,
               ratio double precision, ratio_low double precision, ratio_high double precision,
               coverage double precision, verdict text, decided boolean)
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
           pgbench_lab_internal.run_cpu_busy(s.run_id), pgbench_lab_internal.waits_text(s.run_id),
           s.rounds, s.tps_min, s.tps_max,
           p.ratio, p.ratio_low, p.ratio_high, p.coverage, p.verdict, p.decided
      FROM pgbench_lab_internal.sweep_steps(sweep_summary.experiment_id) s
     CROSS JOIN pgbench_lab.sweep_verdict(sweep_summary.experiment_id) v
      LEFT JOIN pgbench_lab_internal.sweep_pairs(sweep_summary.experiment_id) p ON p.clients OPERATOR(pg_catalog.=) s.clients
     ORDER BY s.clients;
END
$$;
COMMENT ON FUNCTION pgbench_lab.sweep_summary(bigint) IS
    'TPS and latency per client count of a sweep (medians of its rounds, with their range), with the peak and the knee marked, each step''s TPS ratio paired by round with its interval and verdict, the machine''s CPU busy and what the clients waited on';

-- The plan: in each round one run per client count, rising in odd rounds
-- and falling in even ones (so that a drift of the machine falls on every
-- count alike); variant: the count's position, round: the round.  run()
-- checks the workload, each count against pgbench_lab.max_clients and the
-- settings; the knee threshold, the rounds, the smallest effect and the
-- confidence are checked here and recorded with the parameters, so that
-- the verdict, the report and the plot use the sweep's own.  Every run
-- option goes to every run (options, built by the driver), but two: a
-- rate (every count would commit the same throughput: no peak, no knee)
-- and target_clients, which fixes the clients a sweep varies (unless the
-- sweep has the one count they add up to).
CREATE FUNCTION pgbench_lab_internal.sweep_plan(workload text, clients integer[], duration interval,
                                       label text, settings jsonb, knee_threshold double precision,
                                       options jsonb, caller jsonb, rounds integer,
                                       smallest_effect double precision, confidence double precision)
RETURNS jsonb LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    name pg_catalog.text := pgbench_lab_internal.experiment_workload(workload, options);
    params pg_catalog.jsonb;
    total pg_catalog.int8;
BEGIN
    params := pgbench_lab_internal.sweep_params(name, clients, duration, settings, knee_threshold, rounds,
                                                smallest_effect, confidence);
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
                                    'variant', c.i, 'round', r.r, 'about', 'settings',
                                    'run', pgbench_lab_internal.step_run(workload, options)
                                           OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object('clients', c.n,
                                               'duration', params OPERATOR(pg_catalog.->) 'duration',
                                               'label', label, 'settings', params OPERATOR(pg_catalog.->) 'settings'))
                                ORDER BY r.r, CASE WHEN r.r OPERATOR(pg_catalog.%) 2 OPERATOR(pg_catalog.=) 0
                                                   THEN OPERATOR(pg_catalog.-) c.i ELSE c.i END)
                           FROM pg_catalog.generate_series(1, (params OPERATOR(pg_catalog.->>) 'rounds')::pg_catalog.int4) AS r(r),
                                pg_catalog.jsonb_array_elements(params OPERATOR(pg_catalog.->) 'clients')
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
-- linear scaling, so that a reader sees why a count was named (or none):
-- the knee's step, the steps passed over (a later count still gained at
-- least the threshold's share over the count before them), and with
-- rounds the knee step's interval against the threshold.
CREATE FUNCTION pgbench_lab_internal.report_knee_rule(experiment_id bigint)
RETURNS SETOF text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    rule pg_catalog.float8 := pgbench_lab_internal.sweep_rule(experiment_id, NULL);
    recorded pg_catalog.jsonb;
    many pg_catalog.bool;
    k pg_catalog.record;
    knee_rounds pg_catalog.int4;
    knee_words pg_catalog.text;
    pct pg_catalog.text := pgbench_lab_internal.threshold_text(rule);
BEGIN
    IF NOT EXISTS (SELECT FROM pgbench_lab_internal.sweep_steps(experiment_id) s
                    WHERE s.prev_clients IS NOT NULL) THEN
        RETURN;
    END IF;
    SELECT e.params OPERATOR(pg_catalog.->) 'knee_threshold' INTO recorded FROM pgbench_lab.experiments e
     WHERE e.experiment_id OPERATOR(pg_catalog.=) report_knee_rule.experiment_id;
    SELECT pg_catalog.max(s.rounds) OPERATOR(pg_catalog.>=) 2 INTO many FROM pgbench_lab_internal.sweep_steps(experiment_id) s;
    RETURN QUERY SELECT x.w FROM pgbench_lab_internal.wrap(pg_catalog.format(
        'Knee rule: the knee is the last client count before the first step whose TPS gain is below %s of linear scaling (linear: TPS in proportion to the clients, +100%% for twice the clients), passing over a step after which TPS still grows: when a later count gains at least %s of linear scaling over the count before the step, that count is no knee.%s The threshold is sweep()''s knee_threshold; sweep_verdict(%s, knee_threshold => %s) tries another.',
        pct, pct,
        CASE WHEN many THEN ' TPS is each count''s median over its rounds; the knee''s step is judged on its rounds paired, against the ratio at the threshold.' ELSE '' END,
        experiment_id, CASE WHEN rule OPERATOR(pg_catalog.=) 0.3 THEN '0.5' ELSE '0.3' END), '') WITH ORDINALITY AS x(w, j) ORDER BY x.j;
    IF NOT pgbench_lab_internal.threshold_usable(recorded) THEN
        RETURN QUERY SELECT pg_catalog.format('  (the recorded knee_threshold, %s, is not a number above 0 and below 1: the rule uses 50%%)',
                                              pgbench_lab.printable(pg_catalog.left(recorded::pg_catalog.text, 40)));
    END IF;
    SELECT c.rounds, c.words INTO knee_rounds, knee_words
      FROM pgbench_lab_internal.sweep_knee_steps(experiment_id, rule) s,
           pgbench_lab_internal.sweep_knee_check(report_knee_rule.experiment_id, s.clients, s.prev_clients, rule) c
     WHERE s.is_knee;
    FOR k IN SELECT * FROM pgbench_lab_internal.sweep_knee_steps(experiment_id, rule) s ORDER BY s.clients LOOP
        RETURN QUERY SELECT pg_catalog.format('  %s -> %s clients: %s TPS, %s of linear (threshold %s)%s', k.prev_clients, k.clients,
                                      pgbench_lab_internal.pct_change(k.tps, k.prev_tps),
                                      pgbench_lab_internal.share_text(k.linear_share, rule), pct,
                                      CASE WHEN k.is_knee
                                           THEN pg_catalog.format(': below it, so the knee is %s%s', pgbench_lab_internal.clients_text(k.prev_clients),
                                                                  CASE WHEN knee_rounds OPERATOR(pg_catalog.<) 2
                                                                       THEN ' (' OPERATOR(pg_catalog.||) knee_words OPERATOR(pg_catalog.||) ')' ELSE '' END)
                                           WHEN k.below AND k.beaten_by IS NOT NULL
                                           THEN pg_catalog.format(': below it, but %s gained %s of linear over %s, so it is passed over',
                                                                  pgbench_lab_internal.clients_text(k.beaten_by),
                                                                  pgbench_lab_internal.share_text(k.beaten_share, rule),
                                                                  pgbench_lab_internal.clients_text(k.prev_clients))
                                           ELSE '' END);
        IF k.is_knee AND knee_rounds OPERATOR(pg_catalog.>=) 2 THEN
            RETURN QUERY SELECT x.w FROM pgbench_lab_internal.wrap(knee_words, '    ') WITH ORDINALITY AS x(w, j) ORDER BY x.j;
        END IF;
    END LOOP;
    RETURN QUERY SELECT '';
END
$$;

-- sweep_summary()'s rows read back from the jsonb array report_sweep()
-- makes of them once (the summary recomputes the verdict: one call for
-- the whole report).
CREATE FUNCTION pgbench_lab_internal.sweep_summary_rows(summary jsonb)
RETURNS TABLE (clients integer, run_id bigint, tps double precision, latency_avg_ms double precision,
               latency_p99_ms double precision, tps_change text, latency_change text,
               linear_share double precision, mark text, cpu_busy_pct double precision, waits text,
               rounds integer, tps_min double precision, tps_max double precision)
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT r.clients, r.run_id, r.tps, r.latency_avg_ms, r.latency_p99_ms, r.tps_change, r.latency_change,
           r.linear_share, r.mark, r.cpu_busy_pct, r.waits, r.rounds, r.tps_min, r.tps_max
      FROM pg_catalog.jsonb_to_recordset(summary) AS r(clients pg_catalog.int4, run_id pg_catalog.int8, tps pg_catalog.float8,
               latency_avg_ms pg_catalog.float8, latency_p99_ms pg_catalog.float8, tps_change pg_catalog.text,
               latency_change pg_catalog.text, linear_share pg_catalog.float8, mark pg_catalog.text,
               cpu_busy_pct pg_catalog.float8, waits pg_catalog.text, rounds pg_catalog.int4,
               tps_min pg_catalog.float8, tps_max pg_catalog.float8)
     ORDER BY r.clients
$$;

-- The report's table: per count its TPS and latencies, with one round
-- as before rounds existed; with more, the median TPS and its rounds'
-- range, the TPS of each round (in the order they ran), and each step's
-- ratio paired by round with its interval and verdict.
CREATE FUNCTION pgbench_lab_internal.report_sweep_table(experiment_id bigint, summary jsonb)
RETURNS SETOF text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    counts pg_catalog.int4[];
BEGIN
    IF (SELECT coalesce(pg_catalog.max(s.rounds), 1) FROM pgbench_lab_internal.sweep_summary_rows(summary) s) OPERATOR(pg_catalog.<) 2 THEN
        RETURN QUERY SELECT pg_catalog.format('  %7s  %8s  %10s  %7s  %12s  %7s  %10s  %5s', 'clients', 'run', 'TPS', 'change',
                           'lat avg ms', 'change', 'p99 ms', 'CPU %');
        RETURN QUERY
            SELECT pg_catalog.rtrim(pg_catalog.format('  %7s  %8s  %10s  %7s  %12s  %7s  %10s  %5s  %s', s.clients, s.run_id,
                                pgbench_lab_internal.fmt(s.tps), s.tps_change, pgbench_lab_internal.fmt(s.latency_avg_ms, 3),
                                s.latency_change, pgbench_lab_internal.fmt(s.latency_p99_ms, 3),
                                coalesce(pgbench_lab_internal.fmt(s.cpu_busy_pct, 0), '-'), coalesce(s.mark, '')))
              FROM pgbench_lab_internal.sweep_summary_rows(summary) s;
        RETURN;
    END IF;
    RETURN QUERY SELECT pg_catalog.format('  %7s  %6s  %10s  %23s  %7s  %12s  %7s  %10s  %5s  %8s', 'clients', 'rounds', 'median TPS',
                       'TPS min - max', 'change', 'lat avg ms', 'change', 'p99 ms', 'CPU %', 'run');
    RETURN QUERY
        SELECT pg_catalog.rtrim(pg_catalog.format('  %7s  %6s  %10s  %23s  %7s  %12s  %7s  %10s  %5s  %8s  %s', s.clients, s.rounds,
                            pgbench_lab_internal.fmt(s.tps),
                            pgbench_lab_internal.fmt(s.tps_min) OPERATOR(pg_catalog.||) ' - ' OPERATOR(pg_catalog.||) pgbench_lab_internal.fmt(s.tps_max),
                            s.tps_change, pgbench_lab_internal.fmt(s.latency_avg_ms, 3),
                            s.latency_change, pgbench_lab_internal.fmt(s.latency_p99_ms, 3),
                            coalesce(pgbench_lab_internal.fmt(s.cpu_busy_pct, 0), '-'), s.run_id, coalesce(s.mark, '')))
          FROM pgbench_lab_internal.sweep_summary_rows(summary) s;
    RETURN QUERY SELECT '  (medians of the rounds; run: the round whose TPS is nearest the median, whose CPU and waits are shown)';
    RETURN QUERY SELECT '';
    RETURN QUERY SELECT 'TPS per round (each round runs every count once, rising in odd rounds and falling in even ones)';
    SELECT pg_catalog.array_agg(DISTINCT r.clients ORDER BY r.clients) INTO counts
      FROM pgbench_lab.experiment_runs x JOIN pgbench_lab.runs r ON r.run_id OPERATOR(pg_catalog.=) x.run_id
     WHERE x.experiment_id OPERATOR(pg_catalog.=) report_sweep_table.experiment_id;
    RETURN QUERY SELECT pg_catalog.format('  %5s', 'round') OPERATOR(pg_catalog.||)
                        (SELECT pg_catalog.string_agg(pg_catalog.format('  %10s', c), '' ORDER BY c) FROM pg_catalog.unnest(counts) AS c);
    RETURN QUERY
        SELECT pg_catalog.format('  %5s', x.round) OPERATOR(pg_catalog.||)
               pg_catalog.string_agg(pg_catalog.format('  %10s', coalesce(t.tps, '-')), '' ORDER BY c.c)
          FROM (SELECT DISTINCT y.round FROM pgbench_lab.experiment_runs y
                 WHERE y.experiment_id OPERATOR(pg_catalog.=) report_sweep_table.experiment_id) x
         CROSS JOIN pg_catalog.unnest(counts) AS c(c)
          LEFT JOIN LATERAL (
               SELECT pg_catalog.string_agg(CASE WHEN r.status OPERATOR(pg_catalog.=) 'done' THEN pgbench_lab_internal.fmt(r.tps)
                                                 ELSE r.status END, '/' ORDER BY y.ordinal) AS tps
                 FROM pgbench_lab.experiment_runs y JOIN pgbench_lab.runs r ON r.run_id OPERATOR(pg_catalog.=) y.run_id
                WHERE y.experiment_id OPERATOR(pg_catalog.=) report_sweep_table.experiment_id
                  AND y.round OPERATOR(pg_catalog.=) x.round AND r.clients OPERATOR(pg_catalog.=) c.c) t ON true
         GROUP BY x.round
         ORDER BY x.round;
    RETURN QUERY SELECT '';
    RETURN QUERY SELECT 'Steps paired by round (TPS ratio to the count before: median over the rounds, its interval, the verdict)';
    RETURN QUERY
        SELECT x.w FROM pgbench_lab_internal.sweep_pairs(experiment_id) p,
                        pgbench_lab_internal.wrap(pg_catalog.format('%s against %s: %s', pgbench_lab_internal.clients_text(p.clients),
                                                                    pgbench_lab_internal.clients_text(p.prev_clients),
                                                      pgbench_lab_internal.verdict_phrase(p.rounds, p.ratio, p.ratio_low, p.ratio_high,
                                                                                          p.coverage, p.verdict, p.basis, p.every_round)),
                                                  '  ') WITH ORDINALITY AS x(w, j)
         ORDER BY p.clients, x.j;
END
$$;

CREATE FUNCTION pgbench_lab_internal.report_sweep(experiment_id bigint)
RETURNS SETOF text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    top pg_catalog.float8;
    v pg_catalog.record;
    summary pg_catalog.jsonb;
BEGIN
    SELECT pg_catalog.jsonb_agg(pg_catalog.to_jsonb(s) ORDER BY s.clients) INTO summary
      FROM pgbench_lab.sweep_summary(experiment_id) s;
    RETURN QUERY SELECT l FROM pgbench_lab_internal.report_sweep_table(experiment_id, summary) AS l;
    IF EXISTS (SELECT FROM pgbench_lab_internal.sweep_summary_rows(summary) s WHERE s.waits IS NOT NULL) THEN
        RETURN QUERY SELECT '';
        RETURN QUERY SELECT 'Where the clients'' time went (CPU: waiting on nothing)';
        RETURN QUERY
            SELECT pg_catalog.format('  %7s  %s', s.clients, coalesce(s.waits, '-'))
              FROM pgbench_lab_internal.sweep_summary_rows(summary) s;
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
    SELECT pg_catalog.max(s.tps) INTO top FROM pgbench_lab_internal.sweep_summary_rows(summary) s;
    RETURN QUERY SELECT '';
    RETURN QUERY SELECT CASE WHEN (SELECT pg_catalog.max(s.rounds) FROM pgbench_lab_internal.sweep_summary_rows(summary) s) OPERATOR(pg_catalog.>=) 2
                             THEN 'Median TPS by clients' ELSE 'TPS by clients' END;
    RETURN QUERY
        SELECT pg_catalog.format('  %7s │%s %s', s.clients, pg_catalog.rpad(pgbench_lab_internal.hbar(s.tps, top, 40), 40), pgbench_lab_internal.fmt(s.tps))
          FROM pgbench_lab_internal.sweep_summary_rows(summary) s;
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
    rounds pgbench_lab.rounds DEFAULT 1,
    smallest_effect double precision DEFAULT 0.02,
    confidence double precision DEFAULT 0.95,
    @RUN_OPTIONS_EXCEPT workload clients duration transactions label settings scripts variables via threads targets@)
LANGUAGE c
AS 'MODULE_PATHNAME', 'pgbench_lab_experiment';
COMMENT ON PROCEDURE pgbench_lab.sweep IS
    'One run per client count in each of its rounds (alternating order), recorded as an experiment; names the peak and the knee on the medians, with intervals from two rounds on';

REVOKE ALL ON PROCEDURE pgbench_lab.sweep FROM PUBLIC;
GRANT EXECUTE ON FUNCTION pgbench_lab.sweep_summary(bigint) TO pg_monitor;

INSERT INTO pgbench_lab.experiment_kinds (kind, procedure, planner, preparation, finding, report, description,
                                          verdicts)
VALUES ('sweep', 'pgbench_lab.sweep'::pg_catalog.regproc, 'pgbench_lab_internal.sweep_plan'::pg_catalog.regproc, NULL,
        'pgbench_lab_internal.sweep_result(bigint)', 'pgbench_lab_internal.report_sweep(bigint)',
        'One run per client count, in one or more rounds; the peak and the knee',
        'pgbench_lab_internal.sweep_verdicts(bigint)')
ON CONFLICT (kind) DO UPDATE SET procedure = EXCLUDED.procedure, planner = EXCLUDED.planner,
    preparation = EXCLUDED.preparation, finding = EXCLUDED.finding, report = EXCLUDED.report,
    description = EXCLUDED.description, verdicts = EXCLUDED.verdicts;
