
-- ---------------------------------------------------------------------------
-- Verdicts: one statistics core behind every comparison of paired rounds.
--
-- A round runs A and B back to back (interleaved, so that a drift of the
-- machine falls on both); its ratio B/A is one observation.  The centre of
-- the ratios is their median, and its interval is the sign-test interval
-- for a median: with the n log-ratios sorted, [d(k), d(n-k+1)] holds the
-- true median with probability at least 1 - 2 P(Bin(n, 1/2) <= k-1),
-- whatever the ratios' distribution (exact and distribution-free: it
-- assumes only that the rounds are independent).  k is the largest that
-- keeps that coverage at the confidence asked; with fewer than 6 rounds no
-- k reaches 95 % (5 rounds: 93.8 % at best), and no direction is called.
--
-- The verdict has three outcomes, against the smallest effect worth
-- reporting (delta, 2 % unless the DBA says otherwise):
--   faster / slower: the interval lies wholly above (below) 1; "beyond
--     the smallest effect" when it lies beyond 1+delta (1/(1+delta)) too;
--   no difference detectable: the interval holds 1; "none as large as the
--     smallest effect" when it lies within [1/(1+delta), 1+delta].
-- decided is true when the interval lies beyond the band or within it:
-- more rounds would not change the answer (adaptive rounds stop there).
-- "In every round" is said only from 6 rounds on, where all rounds agreeing
-- by chance (2 in 2^n) is below 5 %.
-- ---------------------------------------------------------------------------

-- The sign-test interval's rank k for n rounds at a confidence, and the
-- coverage it has; k = 1 with its coverage when none reaches the
-- confidence (then reached is false).
CREATE FUNCTION pgbench_lab_internal.sign_rank(n integer, confidence double precision,
                                               OUT k integer, OUT coverage double precision,
                                               OUT reached boolean)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    lc pg_catalog.float8 := 0;              -- ln C(n, k), from C(n, 0)
    cdf pg_catalog.float8;                  -- P(Bin(n, 1/2) <= k-1)
    ln2n pg_catalog.float8 := n::pg_catalog.float8 OPERATOR(pg_catalog.*) pg_catalog.ln(2::pg_catalog.float8);
    c pg_catalog.float8;
BEGIN
    IF n IS NULL OR n OPERATOR(pg_catalog.<) 1 THEN
        RETURN;
    END IF;
    -- coverage(k) = 1 - 2 P(Bin(n, 1/2) <= k-1), which falls as k grows
    k := 1;
    cdf := pg_catalog.exp(OPERATOR(pg_catalog.-) ln2n);
    coverage := 1::pg_catalog.float8 OPERATOR(pg_catalog.-) (2::pg_catalog.float8 OPERATOR(pg_catalog.*) cdf);
    LOOP
        EXIT WHEN (k OPERATOR(pg_catalog.+) 1) OPERATOR(pg_catalog.>) ((n OPERATOR(pg_catalog.+) 1) OPERATOR(pg_catalog./) 2);
        lc := lc OPERATOR(pg_catalog.+) pg_catalog.ln((n OPERATOR(pg_catalog.-) k OPERATOR(pg_catalog.+) 1)::pg_catalog.float8)
              OPERATOR(pg_catalog.-) pg_catalog.ln(k::pg_catalog.float8);
        c := 1::pg_catalog.float8 OPERATOR(pg_catalog.-) (2::pg_catalog.float8
             OPERATOR(pg_catalog.*) (cdf OPERATOR(pg_catalog.+) pg_catalog.exp(lc OPERATOR(pg_catalog.-) ln2n)));
        EXIT WHEN c OPERATOR(pg_catalog.<) confidence;
        cdf := cdf OPERATOR(pg_catalog.+) pg_catalog.exp(lc OPERATOR(pg_catalog.-) ln2n);
        k := k OPERATOR(pg_catalog.+) 1;
        coverage := c;
    END LOOP;
    reached := coverage OPERATOR(pg_catalog.>=) confidence;
END
$$;

-- e^x, Infinity or 0 where float8 cannot hold it (no error).
CREATE FUNCTION pgbench_lab_internal.exp_safe(x double precision)
RETURNS double precision LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN x OPERATOR(pg_catalog.>) 709::pg_catalog.float8 THEN 'Infinity'::pg_catalog.float8
                WHEN x OPERATOR(pg_catalog.<) (-745)::pg_catalog.float8 THEN 0::pg_catalog.float8
                ELSE pg_catalog.exp(x) END
$$;

-- A verdict's smallest effect and confidence, refused unless they are shares
-- it can use: paired_verdict()'s check and the kinds' (verdict_params()).
CREATE FUNCTION pgbench_lab_internal.verdict_check(smallest_effect double precision, confidence double precision)
RETURNS void LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF smallest_effect IS NULL OR smallest_effect OPERATOR(pg_catalog.<) 0::pg_catalog.float8
       OR smallest_effect OPERATOR(pg_catalog.>=) 1::pg_catalog.float8 THEN
        RAISE EXCEPTION 'smallest_effect must be from 0 to below 1, not %', smallest_effect
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'It is a share: 0.02 for 2 %.';
    END IF;
    IF confidence IS NULL OR confidence OPERATOR(pg_catalog.<=) 0.5::pg_catalog.float8
       OR confidence OPERATOR(pg_catalog.>=) 1::pg_catalog.float8 THEN
        RAISE EXCEPTION 'confidence must be above 0.5 and below 1, not %', confidence
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'It is a share: 0.95 for 95 %.';
    END IF;
END
$$;

-- The verdict of paired rounds: a[r] and b[r] are round r's figures (TPS:
-- higher is better) of A and B; a round where either is missing or not
-- positive is left out.  See the head of this file for the method.
CREATE FUNCTION pgbench_lab.paired_verdict(a double precision[], b double precision[],
                                           smallest_effect double precision DEFAULT 0.02,
                                           confidence double precision DEFAULT 0.95)
RETURNS TABLE (rounds integer, ratio double precision, ratio_low double precision,
               ratio_high double precision, coverage double precision, verdict text,
               decided boolean, every_round text, basis text)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    d pg_catalog.float8[];
    n pg_catalog.int4;
    s record;
    up pg_catalog.float8;
    down pg_catalog.float8;
    pct pg_catalog.text;
BEGIN
    PERFORM pgbench_lab_internal.verdict_check(smallest_effect, confidence);
    -- ln(b) - ln(a): b / a may overflow (an imported document's figures)
    SELECT pg_catalog.array_agg(pg_catalog.ln(y.b) OPERATOR(pg_catalog.-) pg_catalog.ln(y.a)
                                ORDER BY pg_catalog.ln(y.b) OPERATOR(pg_catalog.-) pg_catalog.ln(y.a))
      INTO d
      FROM ROWS FROM (pg_catalog.unnest(a), pg_catalog.unnest(b)) AS y(a, b)
     WHERE y.a OPERATOR(pg_catalog.>) 0::pg_catalog.float8 AND y.b OPERATOR(pg_catalog.>) 0::pg_catalog.float8;
    n := COALESCE(pg_catalog.cardinality(d), 0);
    rounds := n;
    pct := pgbench_lab_internal.fmt(smallest_effect OPERATOR(pg_catalog.*) 100::pg_catalog.float8, 1) OPERATOR(pg_catalog.||) ' %';
    IF n OPERATOR(pg_catalog.=) 0 THEN
        verdict := 'no difference detectable';
        decided := false;
        basis := 'no round with both figures';
        RETURN NEXT;
        RETURN;
    END IF;
    ratio := pgbench_lab_internal.exp_safe(CASE WHEN n OPERATOR(pg_catalog.%) 2 OPERATOR(pg_catalog.=) 1
                                 THEN d[(n OPERATOR(pg_catalog.+) 1) OPERATOR(pg_catalog./) 2]
                                 ELSE (d[n OPERATOR(pg_catalog./) 2] OPERATOR(pg_catalog.+) d[n OPERATOR(pg_catalog./) 2 OPERATOR(pg_catalog.+) 1])
                                      OPERATOR(pg_catalog./) 2::pg_catalog.float8 END);
    s := pgbench_lab_internal.sign_rank(n, confidence);
    ratio_low := pgbench_lab_internal.exp_safe(d[s.k]);
    ratio_high := pgbench_lab_internal.exp_safe(d[n OPERATOR(pg_catalog.-) s.k OPERATOR(pg_catalog.+) 1]);
    coverage := s.coverage;
    up := 1::pg_catalog.float8 OPERATOR(pg_catalog.+) smallest_effect;
    down := 1::pg_catalog.float8 OPERATOR(pg_catalog./) up;
    every_round := CASE WHEN n OPERATOR(pg_catalog.<) 6 THEN NULL
                        WHEN d[1] OPERATOR(pg_catalog.>) 0::pg_catalog.float8 THEN 'faster in every round'
                        WHEN d[n] OPERATOR(pg_catalog.<) 0::pg_catalog.float8 THEN 'slower in every round' END;
    IF NOT s.reached THEN
        verdict := 'no difference detectable';
        decided := false;
        basis := pg_catalog.format('%s give%s at most a %s %% interval; a %s %% one needs %s rounds or more',
                                   CASE WHEN n OPERATOR(pg_catalog.=) 1 THEN 'one round' ELSE n::pg_catalog.text OPERATOR(pg_catalog.||) ' rounds' END,
                                   CASE WHEN n OPERATOR(pg_catalog.=) 1 THEN 's' ELSE '' END,
                                   pgbench_lab_internal.fmt(s.coverage OPERATOR(pg_catalog.*) 100::pg_catalog.float8, 1),
                                   pgbench_lab_internal.fmt(confidence OPERATOR(pg_catalog.*) 100::pg_catalog.float8, 1),
                                   pgbench_lab_internal.rounds_needed(confidence));
    ELSIF ratio_low OPERATOR(pg_catalog.>) up THEN
        verdict := 'faster';
        decided := true;
        basis := pg_catalog.format('beyond the smallest effect worth reporting (%s)', pct);
    ELSIF ratio_high OPERATOR(pg_catalog.<) down THEN
        verdict := 'slower';
        decided := true;
        basis := pg_catalog.format('beyond the smallest effect worth reporting (%s)', pct);
    ELSIF ratio_low OPERATOR(pg_catalog.>=) down AND ratio_high OPERATOR(pg_catalog.<=) up THEN
        verdict := 'no difference detectable';
        decided := true;
        basis := pg_catalog.format('none as large as the smallest effect worth reporting (%s): the interval lies within it', pct);
    ELSIF ratio_low OPERATOR(pg_catalog.>) 1::pg_catalog.float8 THEN
        verdict := 'faster';
        decided := false;
        basis := pg_catalog.format('by an amount the interval cannot tell from the smallest effect worth reporting (%s)', pct);
    ELSIF ratio_high OPERATOR(pg_catalog.<) 1::pg_catalog.float8 THEN
        verdict := 'slower';
        decided := false;
        basis := pg_catalog.format('by an amount the interval cannot tell from the smallest effect worth reporting (%s)', pct);
    ELSE
        verdict := 'no difference detectable';
        decided := false;
        basis := pg_catalog.format('the interval holds both no change and a change of %s: more rounds would narrow it', pct);
    END IF;
    RETURN NEXT;
END
$$;
COMMENT ON FUNCTION pgbench_lab.paired_verdict(double precision[], double precision[], double precision, double precision) IS
    'Paired rounds of A and B: the median ratio B/A, its exact distribution-free interval (sign test), and faster, slower or no difference detectable against the smallest effect worth reporting';

-- The fewest rounds whose sign-test interval reaches a confidence.
CREATE FUNCTION pgbench_lab_internal.rounds_needed(confidence double precision)
RETURNS integer LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    -- with k = 1 the coverage is 1 - 2^(1-n)
    SELECT pg_catalog.ceil(1::pg_catalog.float8 OPERATOR(pg_catalog.-)
                           (pg_catalog.ln(1::pg_catalog.float8 OPERATOR(pg_catalog.-) confidence)
                            OPERATOR(pg_catalog./) pg_catalog.ln(2::pg_catalog.float8)))::pg_catalog.int4
$$;

-- One verdict as a phrase: "×1.23 (95 % interval ×1.10 to ×1.35, 8 rounds):
-- faster, beyond the smallest effect worth reporting (2 %)".
CREATE FUNCTION pgbench_lab_internal.verdict_phrase(rounds integer, ratio double precision,
                                                    ratio_low double precision, ratio_high double precision,
                                                    coverage double precision, verdict text, basis text,
                                                    every_round text DEFAULT NULL)
RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN rounds IS NULL OR rounds OPERATOR(pg_catalog.=) 0 OR ratio IS NULL
                THEN pg_catalog.format('%s: %s', verdict, basis)
                WHEN rounds OPERATOR(pg_catalog.=) 1
                THEN pg_catalog.format('×%s (1 round, no interval): %s, %s', pgbench_lab_internal.fmt(ratio, 3), verdict, basis)
                ELSE pg_catalog.format('×%s (%s %% interval ×%s to ×%s, %s round%s): %s, %s%s',
                                       pgbench_lab_internal.fmt(ratio, 3),
                                       pgbench_lab_internal.fmt(coverage OPERATOR(pg_catalog.*) 100::pg_catalog.float8, 1),
                                       pgbench_lab_internal.fmt(ratio_low, 3), pgbench_lab_internal.fmt(ratio_high, 3),
                                       rounds, CASE WHEN rounds OPERATOR(pg_catalog.=) 1 THEN '' ELSE 's' END,
                                       verdict, basis,
                                       COALESCE('; ' OPERATOR(pg_catalog.||) every_round, '')) END
$$;

-- ---------------------------------------------------------------------------
-- Percentiles with their sample: a latency percentile p of n transactions
-- is the value at rank ceil(n p); its interval runs from the value at rank
-- floor(n p - z s) to the one at rank ceil(n p + z s), s = sqrt(n p (1-p))
-- (the order statistics' interval, with the normal approximation to the
-- binomial count of transactions below the true percentile).  A
-- percentile is "enough" to decide by when that interval lies inside the
-- sample and at least 10 transactions lie on its rarer side (n p and
-- n (1-p) both at least 10: a p99 needs 1 000 transactions).  Values come
-- from the run's histogram (run_latency: buckets within 1 %).
-- ---------------------------------------------------------------------------

-- The standard normal's quantile for a two-sided confidence (the
-- rational approximation of Abramowitz and Stegun 26.2.23, within 0.0005).
CREATE FUNCTION pgbench_lab_internal.normal_z(confidence double precision)
RETURNS double precision LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT t OPERATOR(pg_catalog.-) ((2.515517::pg_catalog.float8 OPERATOR(pg_catalog.+) (0.802853::pg_catalog.float8 OPERATOR(pg_catalog.*) t)
                                      OPERATOR(pg_catalog.+) (0.010328::pg_catalog.float8 OPERATOR(pg_catalog.*) t OPERATOR(pg_catalog.*) t))
                                     OPERATOR(pg_catalog./)
                                     (1::pg_catalog.float8 OPERATOR(pg_catalog.+) (1.432788::pg_catalog.float8 OPERATOR(pg_catalog.*) t)
                                      OPERATOR(pg_catalog.+) (0.189269::pg_catalog.float8 OPERATOR(pg_catalog.*) t OPERATOR(pg_catalog.*) t)
                                      OPERATOR(pg_catalog.+) (0.001308::pg_catalog.float8 OPERATOR(pg_catalog.*) t OPERATOR(pg_catalog.*) t OPERATOR(pg_catalog.*) t)))
      FROM (SELECT pg_catalog.sqrt(OPERATOR(pg_catalog.-) 2::pg_catalog.float8
                                   OPERATOR(pg_catalog.*) pg_catalog.ln((1::pg_catalog.float8 OPERATOR(pg_catalog.-) confidence)
                                                                        OPERATOR(pg_catalog./) 2::pg_catalog.float8)) AS t) z
$$;

-- The percentiles of several runs pooled (latency_curve's repeats of a
-- rate): their histograms summed bucket by bucket, then the ranks,
-- intervals and test of enough above.  latency_percentiles() is the case
-- of one run.  The counts are summed and ranked in numeric (the runs of an
-- imported document may hold up to the largest bigint each); transactions
-- says at most the largest bigint.
CREATE FUNCTION pgbench_lab_internal.pooled_percentiles(run_ids bigint[], confidence double precision DEFAULT 0.95)
RETURNS TABLE (percentile double precision, transactions bigint, latency_ms double precision,
               low_ms double precision, high_ms double precision, enough boolean)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH b AS (
        SELECT l.bucket_upper_us, pg_catalog.sum(l.count) AS count
          FROM pgbench_lab.run_latency l
         WHERE l.run_id OPERATOR(pg_catalog.=) ANY (pooled_percentiles.run_ids) AND l.count OPERATOR(pg_catalog.>) 0
         GROUP BY l.bucket_upper_us),
    h AS (SELECT b.bucket_upper_us, pg_catalog.sum(b.count) OVER (ORDER BY b.bucket_upper_us) AS upto FROM b),
    n AS (SELECT pg_catalog.max(h.upto) AS n FROM h),
    z AS (SELECT pgbench_lab_internal.normal_z(pooled_percentiles.confidence) AS z),
    r AS (
        SELECT p.p, n.n,
               pg_catalog.ceil(n.n::pg_catalog.float8 OPERATOR(pg_catalog.*) p.p)::numeric AS at,
               pg_catalog.floor((n.n::pg_catalog.float8 OPERATOR(pg_catalog.*) p.p) OPERATOR(pg_catalog.-)
                                (z.z OPERATOR(pg_catalog.*)
                                 pg_catalog.sqrt(n.n::pg_catalog.float8 OPERATOR(pg_catalog.*) p.p
                                                 OPERATOR(pg_catalog.*) (1::pg_catalog.float8 OPERATOR(pg_catalog.-) p.p))))::numeric AS lo,
               pg_catalog.ceil((n.n::pg_catalog.float8 OPERATOR(pg_catalog.*) p.p) OPERATOR(pg_catalog.+)
                               (z.z OPERATOR(pg_catalog.*)
                                pg_catalog.sqrt(n.n::pg_catalog.float8 OPERATOR(pg_catalog.*) p.p
                                                OPERATOR(pg_catalog.*) (1::pg_catalog.float8 OPERATOR(pg_catalog.-) p.p))))::numeric AS hi
          FROM n, z, pg_catalog.unnest(ARRAY[0.5, 0.9, 0.95, 0.99]::pg_catalog.float8[]) AS p(p)
         WHERE n.n OPERATOR(pg_catalog.>) 0),
    -- each bucket's upper bound in milliseconds (below 1e-300 us, 0: a
    -- bound of 5e-324 us is below double precision in ms)
    ms AS (SELECT h.upto, h.bucket_upper_us,
                  CASE WHEN h.bucket_upper_us OPERATOR(pg_catalog.<) 1e-300::pg_catalog.float8 THEN 0::pg_catalog.float8
                       ELSE h.bucket_upper_us OPERATOR(pg_catalog./) 1000::pg_catalog.float8 END AS ms
             FROM h)
    SELECT r.p, LEAST(r.n, 9223372036854775807)::pg_catalog.int8,
           (SELECT ms.ms FROM ms WHERE ms.upto OPERATOR(pg_catalog.>=) GREATEST(r.at, 1) ORDER BY ms.bucket_upper_us LIMIT 1),
           (SELECT ms.ms FROM ms WHERE ms.upto OPERATOR(pg_catalog.>=) GREATEST(r.lo, 1) ORDER BY ms.bucket_upper_us LIMIT 1),
           (SELECT ms.ms FROM ms WHERE ms.upto OPERATOR(pg_catalog.>=) LEAST(r.hi, r.n) ORDER BY ms.bucket_upper_us LIMIT 1),
           r.lo OPERATOR(pg_catalog.>=) 1 AND r.hi OPERATOR(pg_catalog.<=) r.n
           AND (r.n::pg_catalog.float8 OPERATOR(pg_catalog.*) LEAST(r.p, 1::pg_catalog.float8 OPERATOR(pg_catalog.-) r.p))
               OPERATOR(pg_catalog.>=) 10::pg_catalog.float8
      FROM r
     ORDER BY r.p
$$;

-- A run's p50, p90, p95 and p99 latencies with the transactions they come
-- from, their intervals at the confidence, and whether each is enough to
-- decide by.  No rows for a run without a histogram (not instrumented).
CREATE FUNCTION pgbench_lab.latency_percentiles(run_id bigint, confidence double precision DEFAULT 0.95)
RETURNS TABLE (percentile double precision, transactions bigint, latency_ms double precision,
               low_ms double precision, high_ms double precision, enough boolean)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT * FROM pgbench_lab_internal.pooled_percentiles(ARRAY[latency_percentiles.run_id], latency_percentiles.confidence)
$$;
COMMENT ON FUNCTION pgbench_lab.latency_percentiles(bigint, double precision) IS
    'A run''s p50-p99 latencies with the transactions behind them, their order-statistics intervals, and whether each is enough to decide by';

-- The transactions a percentile needs to be enough to decide by.
CREATE FUNCTION pgbench_lab_internal.transactions_needed(p double precision)
RETURNS bigint LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pg_catalog.ceil(10::pg_catalog.float8 OPERATOR(pg_catalog./)
                           LEAST(p, 1::pg_catalog.float8 OPERATOR(pg_catalog.-) p))::pg_catalog.int8
$$;

-- report()'s line under the percentiles: the transactions they come from,
-- their 95 % intervals, and those too few transactions back; none for a
-- run without a histogram.
CREATE FUNCTION pgbench_lab_internal.percentile_line(run_id bigint)
RETURNS SETOF text LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pg_catalog.format('                of %s transactions; 95 %% intervals: %s%s',
                             pg_catalog.max(q.transactions),
                             pg_catalog.string_agg(pg_catalog.format('p%s %s-%s', (q.percentile OPERATOR(pg_catalog.*) 100::pg_catalog.float8)::pg_catalog.int4,
                                                                     pgbench_lab_internal.fmt(q.low_ms, 3), pgbench_lab_internal.fmt(q.high_ms, 3)),
                                                   '   ' ORDER BY q.percentile),
                             COALESCE('; ' OPERATOR(pg_catalog.||) pg_catalog.string_agg(
                                 pg_catalog.format('p%s from too few transactions to decide by (%s needed)',
                                                   (q.percentile OPERATOR(pg_catalog.*) 100::pg_catalog.float8)::pg_catalog.int4,
                                                   pgbench_lab_internal.transactions_needed(q.percentile)),
                                 ', ' ORDER BY q.percentile) FILTER (WHERE NOT q.enough), ''))
      FROM pgbench_lab.latency_percentiles(run_id) q
    HAVING pg_catalog.count(*) OPERATOR(pg_catalog.>) 0
$$;

-- An experiment's verdict parameters, checked, for its params (the kinds
-- that compare rounds take smallest_effect and confidence).
CREATE FUNCTION pgbench_lab_internal.verdict_params(smallest_effect double precision, confidence double precision)
RETURNS jsonb LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM pgbench_lab_internal.verdict_check(COALESCE(smallest_effect, 0.02::pg_catalog.float8),
                                               COALESCE(confidence, 0.95::pg_catalog.float8));
    RETURN pg_catalog.jsonb_build_object('smallest_effect', COALESCE(smallest_effect, 0.02::pg_catalog.float8),
                                         'confidence', COALESCE(confidence, 0.95::pg_catalog.float8));
END
$$;

-- ---------------------------------------------------------------------------
-- Adaptive rounds (rounds => 'auto', a budget): rounds are added until
-- every verdict of the experiment is decided (its interval lies beyond the
-- smallest effect or within it), the budget ends, or 100 rounds have run.
-- Looking at the interval after each batch and stopping when it settles
-- would, unchecked, call a difference more often than the confidence says
-- (each look is one more chance of a chance extreme).  So the looks are
-- fixed in advance, at counts growing by half (9, 14, 21, 32, 48, 72, 100
-- at 95 %), and each look's interval is made at 1 - (1 - confidence) / L
-- for L looks: all L intervals hold the true median together with
-- probability at least the confidence (Bonferroni), so stopping at any of
-- them keeps the stated confidence.  The first look is the fewest rounds
-- whose interval reaches that stricter level.  A batch cut short by the
-- budget is the last look.
-- ---------------------------------------------------------------------------

-- The rounds at which an adaptive experiment looks, for a confidence.
CREATE FUNCTION pgbench_lab_internal.auto_looks(confidence double precision)
RETURNS integer[] LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    l pg_catalog.int4 := 1;
    looks pg_catalog.int4[];
    n pg_catalog.int4;
BEGIN
    -- the fewest looks L whose schedule, started at the rounds a 1 - (1 - c) / L
    -- interval needs, has at most L looks up to 100 rounds
    LOOP
        n := pgbench_lab_internal.rounds_needed(1::pg_catalog.float8 OPERATOR(pg_catalog.-)
                 ((1::pg_catalog.float8 OPERATOR(pg_catalog.-) confidence) OPERATOR(pg_catalog./) l::pg_catalog.float8));
        looks := ARRAY[]::pg_catalog.int4[];
        WHILE n OPERATOR(pg_catalog.<) 100 LOOP
            looks := looks OPERATOR(pg_catalog.||) n;
            n := pg_catalog.ceil(n::pg_catalog.float8 OPERATOR(pg_catalog.*) 1.5::pg_catalog.float8)::pg_catalog.int4;
        END LOOP;
        looks := looks OPERATOR(pg_catalog.||) 100;
        EXIT WHEN pg_catalog.cardinality(looks) OPERATOR(pg_catalog.<=) l OR l OPERATOR(pg_catalog.>=) 100;
        l := l OPERATOR(pg_catalog.+) 1;
    END LOOP;
    RETURN looks;
END
$$;

-- An experiment's rounds, checked, for its params: {"rounds": n} for a
-- count; for 'auto', the first look's count with the looks and the
-- budget ('10 min' unless given).  budget without 'auto' is refused.
CREATE FUNCTION pgbench_lab_internal.rounds_params(rounds pgbench_lab.rounds, budget interval,
                                                   confidence double precision)
RETURNS jsonb LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
SET intervalstyle = 'postgres'
AS $$
DECLARE
    looks pg_catalog.int4[];
BEGIN
    IF rounds IS NULL THEN
        RAISE EXCEPTION 'rounds must not be null'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Give a count of rounds, such as 6, or ''auto'' with a budget.';
    END IF;
    IF rounds::pg_catalog.text OPERATOR(pg_catalog.<>) 'auto' THEN
        IF budget IS NOT NULL THEN
            RAISE EXCEPTION 'budget is for rounds => ''auto'', and rounds is %', rounds::pg_catalog.text
                USING ERRCODE = 'invalid_parameter_value',
                      HINT = 'Pass rounds => ''auto'' to add rounds until the verdict settles or the budget ends, or leave budget out.';
        END IF;
        RETURN pg_catalog.jsonb_build_object('rounds', rounds::pg_catalog.text::pg_catalog.int4);
    END IF;
    IF budget IS NOT NULL AND (budget OPERATOR(pg_catalog.<=) '0'::pg_catalog.interval
                               OR budget OPERATOR(pg_catalog.>) '1 day'::pg_catalog.interval) THEN
        RAISE EXCEPTION 'budget must be above 0 and at most a day, not %', budget
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'The time the experiment may take, such as ''10 min''; it stops earlier when the verdict settles.';
    END IF;
    looks := pgbench_lab_internal.auto_looks(COALESCE(confidence, 0.95::pg_catalog.float8));
    RETURN pg_catalog.jsonb_build_object('rounds', looks[1], 'rounds_auto', true,
                                         'looks', pg_catalog.to_jsonb(looks),
                                         'budget', COALESCE(budget, '10 min'::pg_catalog.interval)::pg_catalog.text);
END
$$;

-- A verdict's smallest effect and confidence as an experiment's params
-- record them, or the defaults (2 %, 95 %) where they are missing or not
-- shares a verdict can use (a document's written by hand, imported).
CREATE FUNCTION pgbench_lab_internal.params_smallest_effect(params jsonb)
RETURNS double precision LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    -- a number from 0 to below 1, as verdict_check() takes it: 1e-300 and
    -- below read as 0, and one just under 1 that double precision would
    -- read as 1 is not taken (nested CASEs: no cast before its test)
    SELECT CASE WHEN pg_catalog.jsonb_typeof(params OPERATOR(pg_catalog.->) 'smallest_effect') OPERATOR(pg_catalog.<>) 'number'
                THEN 0.02::pg_catalog.float8
                ELSE (SELECT CASE WHEN NOT (n OPERATOR(pg_catalog.>=) 0 AND n OPERATOR(pg_catalog.<) 1) THEN 0.02::pg_catalog.float8
                                  WHEN n OPERATOR(pg_catalog.<) 1e-300 THEN 0::pg_catalog.float8
                                  WHEN n::pg_catalog.float8 OPERATOR(pg_catalog.<) 1::pg_catalog.float8 THEN n::pg_catalog.float8
                                  ELSE 0.02::pg_catalog.float8 END
                        FROM (SELECT (params OPERATOR(pg_catalog.->) 'smallest_effect')::pg_catalog.numeric AS n) v) END
$$;

CREATE FUNCTION pgbench_lab_internal.params_confidence(params jsonb)
RETURNS double precision LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    -- a number above 0.5 to below 1 (and below 1 in double precision)
    SELECT CASE WHEN pg_catalog.jsonb_typeof(params OPERATOR(pg_catalog.->) 'confidence') OPERATOR(pg_catalog.<>) 'number'
                THEN 0.95::pg_catalog.float8
                ELSE (SELECT CASE WHEN NOT (n OPERATOR(pg_catalog.>) 0.5 AND n OPERATOR(pg_catalog.<) 1) THEN 0.95::pg_catalog.float8
                                  WHEN n::pg_catalog.float8 OPERATOR(pg_catalog.<) 1::pg_catalog.float8 THEN n::pg_catalog.float8
                                  ELSE 0.95::pg_catalog.float8 END
                        FROM (SELECT (params OPERATOR(pg_catalog.->) 'confidence')::pg_catalog.numeric AS n) v) END
$$;

-- The confidence of each look's interval: the experiment's, divided among
-- its looks when its rounds were adaptive.
CREATE FUNCTION pgbench_lab_internal.look_confidence(params jsonb)
RETURNS double precision LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT 1::pg_catalog.float8 OPERATOR(pg_catalog.-)
           ((1::pg_catalog.float8 OPERATOR(pg_catalog.-)
             pgbench_lab_internal.params_confidence(params))
            OPERATOR(pg_catalog./)
            GREATEST(COALESCE(pg_catalog.jsonb_array_length(CASE WHEN pg_catalog.jsonb_typeof(params OPERATOR(pg_catalog.->) 'looks')
                                                                     OPERATOR(pg_catalog.=) 'array'
                                                                THEN params OPERATOR(pg_catalog.->) 'looks' END), 1), 1)::pg_catalog.float8)
$$;

-- Rounds done by an experiment: the highest round of a linked run.
CREATE FUNCTION pgbench_lab_internal.rounds_done(experiment_id bigint)
RETURNS integer LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT COALESCE(pg_catalog.max(x.round), 0) FROM pgbench_lab.experiment_runs x
     WHERE x.experiment_id OPERATOR(pg_catalog.=) rounds_done.experiment_id
$$;

-- How an adaptive experiment stopped, or NULL for a count of rounds: its
-- verdicts settled, the budget ended, or the last look (100 rounds) came.
CREATE FUNCTION pgbench_lab_internal.rounds_stop(experiment_id bigint)
RETURNS text LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN NOT COALESCE((e.params OPERATOR(pg_catalog.->>) 'rounds_auto')::pg_catalog.bool, false) THEN NULL
                WHEN NOT EXISTS (SELECT FROM pgbench_lab.experiment_verdicts(e.experiment_id) v WHERE NOT v.decided)
                THEN pg_catalog.format('Rounds were added until every verdict settled (its interval beyond the smallest effect or within it): %s rounds', d.n)
                WHEN d.n OPERATOR(pg_catalog.>=) 100
                THEN 'Rounds were added up to the limit of 100 without every verdict settling'
                ELSE pg_catalog.format('Rounds were added until the budget (%s) left no time for more, after %s rounds, before every verdict settled',
                                       e.params OPERATOR(pg_catalog.->>) 'budget', d.n) END
           OPERATOR(pg_catalog.||)
           pg_catalog.format('; the intervals looked at after %s rounds are each at %s %%, so that all of them hold together at %s %%.',
                             (SELECT pg_catalog.string_agg(l.v, ', ' ORDER BY l.i)
                                FROM pg_catalog.jsonb_array_elements_text(e.params OPERATOR(pg_catalog.->) 'looks') WITH ORDINALITY AS l(v, i)
                               WHERE l.v::pg_catalog.int4 OPERATOR(pg_catalog.<=) d.n),
                             pgbench_lab_internal.fmt(pgbench_lab_internal.look_confidence(e.params) OPERATOR(pg_catalog.*) 100::pg_catalog.float8, 2),
                             pgbench_lab_internal.fmt(pgbench_lab_internal.params_confidence(e.params)
                                                      OPERATOR(pg_catalog.*) 100::pg_catalog.float8, 1))
      FROM pgbench_lab.experiments e, LATERAL (SELECT pgbench_lab_internal.rounds_done(e.experiment_id) AS n) d
     WHERE e.experiment_id OPERATOR(pg_catalog.=) rounds_stop.experiment_id
$$;

-- The extension of a kind of paired rounds (experiment_kinds.extend):
-- with rounds => 'auto', the rounds up to the next look, as far as the
-- budget allows at the pace of the rounds so far, each a copy of the
-- plan's round 1 (odd rounds) or round 2 (even ones: the order reversed);
-- NULL when every verdict is decided, at 100 rounds, or when the budget
-- leaves no room for a round.
CREATE FUNCTION pgbench_lab_internal.rounds_extend(experiment_id bigint, plan jsonb)
RETURNS jsonb LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    params pg_catalog.jsonb;
    started pg_catalog.timestamptz;
    done pg_catalog.int4 := pgbench_lab_internal.rounds_done(experiment_id);
    next_look pg_catalog.int4;
    budget pg_catalog.float8;
    spent pg_catalog.float8;
    upto pg_catalog.int4;
    open_verdicts pg_catalog.text;
BEGIN
    SELECT e.params, e.started_at INTO params, started FROM pgbench_lab.experiments e
     WHERE e.experiment_id OPERATOR(pg_catalog.=) rounds_extend.experiment_id;
    -- a batch the budget cut short (its count is no look) was the last
    IF NOT COALESCE((params OPERATOR(pg_catalog.->>) 'rounds_auto')::pg_catalog.bool, false) OR done OPERATOR(pg_catalog.<) 1
       OR NOT (params OPERATOR(pg_catalog.->) 'looks') OPERATOR(pg_catalog.@>) pg_catalog.to_jsonb(done) THEN
        RETURN NULL;
    END IF;
    SELECT pg_catalog.string_agg(pg_catalog.format('%s %s', v.comparison, v.verdict), '; ' ORDER BY v.comparison) INTO open_verdicts
      FROM pgbench_lab.experiment_verdicts(experiment_id) v WHERE NOT v.decided;
    IF open_verdicts IS NULL THEN
        RETURN NULL;
    END IF;
    SELECT pg_catalog.min(l.v::pg_catalog.int4) INTO next_look
      FROM pg_catalog.jsonb_array_elements_text(params OPERATOR(pg_catalog.->) 'looks') AS l(v)
     WHERE l.v::pg_catalog.int4 OPERATOR(pg_catalog.>) done;
    IF next_look IS NULL THEN
        RETURN NULL;
    END IF;
    budget := pg_catalog.date_part('epoch', (params OPERATOR(pg_catalog.->>) 'budget')::pg_catalog.interval);
    spent := pg_catalog.date_part('epoch', pg_catalog.clock_timestamp() OPERATOR(pg_catalog.-) started);
    -- the rounds the rest of the budget holds at the pace so far
    upto := LEAST(next_look::pg_catalog.float8,
                  done::pg_catalog.float8 OPERATOR(pg_catalog.+)
                  GREATEST(pg_catalog.floor((budget OPERATOR(pg_catalog.-) spent)
                                            OPERATOR(pg_catalog./) GREATEST(spent OPERATOR(pg_catalog./) done::pg_catalog.float8,
                                                                            0.001::pg_catalog.float8)), 0::pg_catalog.float8))::pg_catalog.int4;
    IF upto OPERATOR(pg_catalog.<=) done THEN
        RETURN NULL;
    END IF;
    RETURN pg_catalog.jsonb_build_object(
        'about', pg_catalog.format('%s rounds leave verdicts open (%s): adding rounds %s to %s%s',
                                   done, open_verdicts, done OPERATOR(pg_catalog.+) 1, upto,
                                   CASE WHEN upto OPERATOR(pg_catalog.<) next_look
                                        THEN pg_catalog.format(' (the budget leaves no time for the next look at %s), the last', next_look)
                                        ELSE '' END),
        'steps', (SELECT pg_catalog.jsonb_agg(s.v OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object('round', r.r) ORDER BY r.r, s.i)
                    FROM pg_catalog.generate_series(done OPERATOR(pg_catalog.+) 1, upto) AS r(r),
                         pg_catalog.jsonb_array_elements(plan OPERATOR(pg_catalog.->) 'steps') WITH ORDINALITY AS s(v, i)
                   WHERE (s.v OPERATOR(pg_catalog.->>) 'round')::pg_catalog.int4
                         OPERATOR(pg_catalog.=) CASE WHEN r.r OPERATOR(pg_catalog.%) 2 OPERATOR(pg_catalog.=) 1 THEN 1 ELSE 2 END));
END
$$;
