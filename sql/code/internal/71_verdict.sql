
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
-- The verdict has four outcomes, against the smallest effect worth
-- reporting (delta, 2 % unless the DBA says otherwise):
--   faster / slower: the interval lies wholly above (below) 1; "beyond
--     the smallest effect" when it lies beyond 1+delta (1/(1+delta)) too;
--   no difference detectable: the interval lies within [1/(1+delta),
--     1+delta]: none as large as the smallest effect;
--   undecided: nothing could be decided, and the verdict says why: the
--     rounds cannot reach the confidence (n paired rounds reach at best
--     1 - 2 (1/2)^n, the interval of the smallest and the largest ratio:
--     "2 rounds give at most 50.0 %; 6 needed for 95.0 %"), or the
--     interval holds both 1 and a change beyond delta.  It is never said
--     "no difference": an interval from 2 rounds can span x112 to x126.
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
        verdict := 'undecided';
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
        verdict := 'undecided';
        decided := false;
        basis := pgbench_lab_internal.rounds_short(n, confidence);
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
        verdict := 'undecided';
        decided := false;
        basis := pg_catalog.format('the interval holds both no change and a change of %s; more rounds would narrow it', pct);
    END IF;
    RETURN NEXT;
END
$$;
COMMENT ON FUNCTION pgbench_lab.paired_verdict(double precision[], double precision[], double precision, double precision) IS
    'Paired rounds of A and B: the median ratio B/A, its exact distribution-free interval (sign test), and faster, slower, no difference detectable or undecided against the smallest effect worth reporting';

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

-- Why n paired rounds decide nothing at a confidence: the most they can
-- reach (1 - 2 (1/2)^n, the interval from the smallest to the largest
-- ratio) and the rounds that reach it: "2 rounds give at most 50.0 %; 6
-- needed for 95.0 %".  One round gives no interval at all.
CREATE FUNCTION pgbench_lab_internal.rounds_short(n integer, confidence double precision)
RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN n OPERATOR(pg_catalog.<=) 1
                THEN pg_catalog.format('%s round gives no interval; %s needed for %s %%', GREATEST(n, 0),
                                       pgbench_lab_internal.rounds_needed(confidence),
                                       pgbench_lab_internal.fmt(confidence OPERATOR(pg_catalog.*) 100::pg_catalog.float8, 1))
                ELSE pg_catalog.format('%s rounds give at most %s %%; %s needed for %s %%', n,
                                       pgbench_lab_internal.fmt((1::pg_catalog.float8 OPERATOR(pg_catalog.-)
                                                                 pg_catalog.power(0.5::pg_catalog.float8, (n OPERATOR(pg_catalog.-) 1)::pg_catalog.float8))
                                                                OPERATOR(pg_catalog.*) 100::pg_catalog.float8, 1),
                                       pgbench_lab_internal.rounds_needed(confidence),
                                       pgbench_lab_internal.fmt(confidence OPERATOR(pg_catalog.*) 100::pg_catalog.float8, 1)) END
$$;

-- One verdict as a phrase: "×1.23 (95 % interval ×1.10 to ×1.35, 8 rounds):
-- faster, beyond the smallest effect worth reporting (2 %)", or "×1.19
-- (50.0 % interval ×1.13 to ×1.26, 2 rounds): undecided: 2 rounds give at
-- most 50.0 %; 6 needed for 95.0 %".
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
                THEN pg_catalog.format('×%s (1 round): %s%s%s', pgbench_lab_internal.fmt(ratio, 3), verdict,
                                       CASE WHEN verdict OPERATOR(pg_catalog.=) 'undecided' THEN ': ' ELSE ', ' END, basis)
                ELSE pg_catalog.format('×%s (%s %% interval ×%s to ×%s, %s round%s): %s%s%s%s',
                                       pgbench_lab_internal.fmt(ratio, 3),
                                       pgbench_lab_internal.fmt(coverage OPERATOR(pg_catalog.*) 100::pg_catalog.float8, 1),
                                       pgbench_lab_internal.fmt(ratio_low, 3), pgbench_lab_internal.fmt(ratio_high, 3),
                                       rounds, CASE WHEN rounds OPERATOR(pg_catalog.=) 1 THEN '' ELSE 's' END,
                                       verdict, CASE WHEN verdict OPERATOR(pg_catalog.=) 'undecided' THEN ': ' ELSE ', ' END, basis,
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
-- from the run's histogram (run_latency), each the upper bound of the
-- bucket its rank falls in (buckets under 1/128 wide), never above the
-- run's largest latency: the method of the run's row (histogram_values()).
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

-- The latency (ms) at each rank of a histogram, by the one method that
-- reads every run's percentiles (src/stats.c, which the coordinator uses
-- for the run's row): the upper bound of the bucket that holds the rank,
-- never above max_ms (the largest latency; NULL: unknown).  The buckets'
-- upper bounds in microseconds, ascending, and their counts, as
-- run_latency holds them.
CREATE FUNCTION pgbench_lab_internal.histogram_values(upper_us double precision[], counts bigint[], ranks bigint[],
                                                      max_ms double precision)
RETURNS double precision[]
LANGUAGE c IMMUTABLE PARALLEL SAFE
AS 'MODULE_PATHNAME', 'pgbench_lab_histogram_values';

-- The percentiles of several runs pooled (their histograms summed bucket
-- by bucket), then the ranks, intervals and test of enough above, each
-- value read by histogram_values() and never above the largest latency
-- of the runs.  latency_percentiles() is the case of one run.  Counts are
-- summed in numeric and held at the largest bigint (only an imported
-- document's runs pooled can reach it: import refuses a run whose own
-- counts add up past it).
CREATE FUNCTION pgbench_lab_internal.pooled_percentiles(run_ids bigint[], confidence double precision DEFAULT 0.95)
RETURNS TABLE (percentile double precision, transactions bigint, latency_ms double precision,
               low_ms double precision, high_ms double precision, enough boolean)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH b AS (
        SELECT l.bucket_upper_us, LEAST(pg_catalog.sum(l.count), 9223372036854775807)::pg_catalog.int8 AS count
          FROM pgbench_lab.run_latency l
         WHERE l.run_id OPERATOR(pg_catalog.=) ANY (pooled_percentiles.run_ids) AND l.count OPERATOR(pg_catalog.>) 0
         GROUP BY l.bucket_upper_us),
    h AS (
        SELECT pg_catalog.array_agg(b.bucket_upper_us ORDER BY b.bucket_upper_us) AS upper_us,
               pg_catalog.array_agg(b.count ORDER BY b.bucket_upper_us) AS counts,
               LEAST(pg_catalog.sum(b.count::pg_catalog.numeric), 9223372036854775807)::pg_catalog.int8 AS n,
               (SELECT pg_catalog.max(r.latency_max_ms) FROM pgbench_lab.runs r
                 WHERE r.run_id OPERATOR(pg_catalog.=) ANY (pooled_percentiles.run_ids)) AS max_ms
          FROM b),
    z AS (SELECT pgbench_lab_internal.normal_z(pooled_percentiles.confidence) AS z),
    r AS (
        SELECT p.p, h.n,
               pg_catalog.ceil(h.n::pg_catalog.float8 OPERATOR(pg_catalog.*) p.p)::pg_catalog.int8 AS at,
               pg_catalog.floor((h.n::pg_catalog.float8 OPERATOR(pg_catalog.*) p.p) OPERATOR(pg_catalog.-)
                                (z.z OPERATOR(pg_catalog.*)
                                 pg_catalog.sqrt(h.n::pg_catalog.float8 OPERATOR(pg_catalog.*) p.p
                                                 OPERATOR(pg_catalog.*) (1::pg_catalog.float8 OPERATOR(pg_catalog.-) p.p))))::pg_catalog.int8 AS lo,
               pg_catalog.ceil((h.n::pg_catalog.float8 OPERATOR(pg_catalog.*) p.p) OPERATOR(pg_catalog.+)
                               (z.z OPERATOR(pg_catalog.*)
                                pg_catalog.sqrt(h.n::pg_catalog.float8 OPERATOR(pg_catalog.*) p.p
                                                OPERATOR(pg_catalog.*) (1::pg_catalog.float8 OPERATOR(pg_catalog.-) p.p))))::pg_catalog.int8 AS hi
          FROM h, z, pg_catalog.unnest(ARRAY[0.5, 0.9, 0.95, 0.99]::pg_catalog.float8[]) AS p(p)
         WHERE h.n OPERATOR(pg_catalog.>) 0)
    SELECT r.p, r.n, v.v[1], v.v[2], v.v[3],
           r.lo OPERATOR(pg_catalog.>=) 1 AND r.hi OPERATOR(pg_catalog.<=) r.n
           AND (r.n::pg_catalog.float8 OPERATOR(pg_catalog.*) LEAST(r.p, 1::pg_catalog.float8 OPERATOR(pg_catalog.-) r.p))
               OPERATOR(pg_catalog.>=) 10::pg_catalog.float8
      FROM r CROSS JOIN h
     CROSS JOIN LATERAL (SELECT pgbench_lab_internal.histogram_values(h.upper_us, h.counts,
                                    ARRAY[GREATEST(r.at, 1::pg_catalog.int8), GREATEST(r.lo, 1::pg_catalog.int8),
                                          LEAST(GREATEST(r.hi, 1::pg_catalog.int8), r.n)], h.max_ms) AS v) v
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

-- A run's p50, p90, p95 and p99 as every report shows them: read off its
-- histogram by latency_percentiles(), or as its row records them when it
-- has none (a run imported without one).  For a run made here the two are
-- the same: the coordinator reads the histogram by the same method
-- (histogram_values()).
CREATE FUNCTION pgbench_lab_internal.run_percentiles(r pgbench_lab.runs, OUT p50 double precision,
                                                     OUT p90 double precision, OUT p95 double precision,
                                                     OUT p99 double precision)
RETURNS record LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT coalesce(pg_catalog.max(q.latency_ms) FILTER (WHERE q.percentile OPERATOR(pg_catalog.=) 0.5::pg_catalog.float8), (r).latency_p50_ms),
           coalesce(pg_catalog.max(q.latency_ms) FILTER (WHERE q.percentile OPERATOR(pg_catalog.=) 0.9::pg_catalog.float8), (r).latency_p90_ms),
           coalesce(pg_catalog.max(q.latency_ms) FILTER (WHERE q.percentile OPERATOR(pg_catalog.=) 0.95::pg_catalog.float8), (r).latency_p95_ms),
           coalesce(pg_catalog.max(q.latency_ms) FILTER (WHERE q.percentile OPERATOR(pg_catalog.=) 0.99::pg_catalog.float8), (r).latency_p99_ms)
      FROM pgbench_lab_internal.pooled_percentiles(ARRAY[(r).run_id]) q
$$;

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
-- Drift across the rounds.  Pairing A and B within a round cancels a drift
-- that falls on both runs of the round alike, not one that changes the
-- machine from run to run: a cache or a disk warming over an experiment
-- after a cold start favours whichever runs later in a round, and the
-- rounds' ratios swing with the order.  So each contender's figures are
-- set against the order of the rounds: Spearman's rank correlation rho of
-- its TPS with its round (ranks of ties averaged), over its rounds (3 or
-- more).  With no drift rho sqrt(n - 1) is roughly standard normal for
-- each contender, so their sum over k contenders divided by sqrt(k) is
-- too (z): the drift is called when |z| reaches the normal quantile of
-- the experiment's confidence, and TPS moved the same way from the first
-- round to the last by more than the smallest effect (change: the
-- contenders' geometric mean of last / first).  An approximation, and a
-- warning, not a verdict: 2 rounds never call it; 6 rounds of two
-- contenders need an average rho of about 0.62.
-- ---------------------------------------------------------------------------

-- The drift of figures given as (contender, round, TPS) triples; a
-- contender's repeats within a round are its median, and a TPS that is
-- missing or not positive is left out.
CREATE FUNCTION pgbench_lab_internal.drift(variant integer[], round integer[], tps double precision[],
                                           smallest_effect double precision DEFAULT 0.02,
                                           confidence double precision DEFAULT 0.95,
                                           OUT contenders integer, OUT rounds integer, OUT rho double precision,
                                           OUT z double precision, OUT change double precision, OUT drifted boolean)
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH d AS (
        SELECT x.v, x.r, pg_catalog.percentile_cont(0.5) WITHIN GROUP (ORDER BY x.t) AS t
          FROM ROWS FROM (pg_catalog.unnest(variant), pg_catalog.unnest(round), pg_catalog.unnest(tps)) AS x(v, r, t)
         WHERE x.v IS NOT NULL AND x.r IS NOT NULL AND x.t OPERATOR(pg_catalog.>) 0::pg_catalog.float8
         GROUP BY x.v, x.r),
    k AS (
        SELECT d.v,
               (pg_catalog.rank() OVER (PARTITION BY d.v ORDER BY d.t)::pg_catalog.float8
                OPERATOR(pg_catalog.+) ((pg_catalog.count(*) OVER (PARTITION BY d.v, d.t) OPERATOR(pg_catalog.-) 1)::pg_catalog.float8
                                        OPERATOR(pg_catalog./) 2::pg_catalog.float8)) AS tr,
               pg_catalog.rank() OVER (PARTITION BY d.v ORDER BY d.r)::pg_catalog.float8 AS rr,
               pg_catalog.first_value(d.t) OVER w AS first, pg_catalog.last_value(d.t) OVER w AS last
          FROM d
        WINDOW w AS (PARTITION BY d.v ORDER BY d.r ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)),
    c AS (
        SELECT k.v, pg_catalog.count(*) AS n, COALESCE(pg_catalog.corr(k.tr, k.rr), 0::pg_catalog.float8) AS rho,
               pg_catalog.ln(pg_catalog.min(k.last)) OPERATOR(pg_catalog.-) pg_catalog.ln(pg_catalog.min(k.first)) AS lchange
          FROM k
         GROUP BY k.v
        HAVING pg_catalog.count(*) OPERATOR(pg_catalog.>=) 3),
    s AS (
        SELECT pg_catalog.count(*)::pg_catalog.int4 AS k, pg_catalog.min(c.n)::pg_catalog.int4 AS n, pg_catalog.avg(c.rho) AS rho,
               pg_catalog.sum(c.rho OPERATOR(pg_catalog.*) pg_catalog.sqrt((c.n OPERATOR(pg_catalog.-) 1)::pg_catalog.float8))
               OPERATOR(pg_catalog./) pg_catalog.sqrt(GREATEST(pg_catalog.count(*), 1)::pg_catalog.float8) AS z,
               pg_catalog.avg(c.lchange) AS lchange
          FROM c)
    SELECT s.k, s.n, s.rho, s.z, pgbench_lab_internal.exp_safe(s.lchange),
           COALESCE(pg_catalog.abs(s.z) OPERATOR(pg_catalog.>=) pgbench_lab_internal.normal_z(confidence)
                    AND pg_catalog.abs(s.lchange) OPERATOR(pg_catalog.>)
                        pg_catalog.ln(1::pg_catalog.float8 OPERATOR(pg_catalog.+) smallest_effect)
                    AND (s.z OPERATOR(pg_catalog.>) 0::pg_catalog.float8) OPERATOR(pg_catalog.=)
                        (s.lchange OPERATOR(pg_catalog.>) 0::pg_catalog.float8), false)
      FROM s
$$;

-- The drift of an experiment's finished runs (their variant, round and
-- TPS), at its smallest effect and confidence.
CREATE FUNCTION pgbench_lab_internal.rounds_drift(experiment_id bigint,
                                                  OUT contenders integer, OUT rounds integer, OUT rho double precision,
                                                  OUT z double precision, OUT change double precision, OUT drifted boolean)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT f.contenders, f.rounds, f.rho, f.z, f.change, f.drifted
      FROM pgbench_lab.experiments e,
           LATERAL (SELECT pg_catalog.array_agg(x.variant ORDER BY x.ordinal) AS v, pg_catalog.array_agg(x.round ORDER BY x.ordinal) AS r,
                           pg_catalog.array_agg(r.tps ORDER BY x.ordinal) AS t
                      FROM pgbench_lab.experiment_runs x JOIN pgbench_lab.runs r ON r.run_id OPERATOR(pg_catalog.=) x.run_id
                     WHERE x.experiment_id OPERATOR(pg_catalog.=) e.experiment_id AND r.status OPERATOR(pg_catalog.=) 'done') a,
           LATERAL pgbench_lab_internal.drift(a.v, a.r, a.t, pgbench_lab_internal.params_smallest_effect(e.params),
                                              pgbench_lab_internal.params_confidence(e.params)) f
     WHERE e.experiment_id OPERATOR(pg_catalog.=) rounds_drift.experiment_id
$$;

-- The drift in words for a finding, or NULL when none was called: "Drift:
-- TPS rose ×3.90 from the first round to the last ...", with what steadies
-- it (steady: the kind's words, such as its warm-up option).
CREATE FUNCTION pgbench_lab_internal.drift_words(experiment_id bigint, steady text DEFAULT 'longer runs')
RETURNS text LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pg_catalog.format('Drift: TPS %s ×%s from the first round to the last (each contender''s TPS against the order of '
                             'its %s rounds: a rank correlation of %s on average), %s. A round''s paired ratio cancels what falls '
                             'on both of its runs alike, not what changes from one run to the next, so the rounds'' ratios '
                             'swing with the order the sets ran in; read the verdicts with that in mind. %s steady it.',
                             CASE WHEN d.change OPERATOR(pg_catalog.>) 1::pg_catalog.float8 THEN 'rose' ELSE 'fell to' END,
                             pgbench_lab_internal.fmt(d.change, 2), d.rounds, pgbench_lab_internal.fmt(d.rho, 2),
                             CASE WHEN d.change OPERATOR(pg_catalog.>) 1::pg_catalog.float8
                                  THEN 'so the machine or its caches were warming over the experiment'
                                  ELSE 'so something slowed the machine as the experiment went on (other load, a cache filling up, checkpoints, autovacuum)' END,
                             pg_catalog.upper(pg_catalog.left(steady, 1)) OPERATOR(pg_catalog.||) pg_catalog.substr(steady, 2))
      FROM pgbench_lab_internal.rounds_drift(experiment_id) d
     WHERE d.drifted
$$;

-- Whether a paired ratio and two medians point different ways: the
-- median of the rounds' ratios B/A above 1 while B's median TPS is below
-- A's, or the other way round.  They can: the median of ratios pairs each
-- round's runs, the medians do not, and when the rounds swing (a drift,
-- the order within a round) the two medians come from different rounds.
-- A finding that gives one must then say so, not a gain the medians deny.
CREATE FUNCTION pgbench_lab_internal.medians_disagree(ratio double precision, b_median double precision,
                                                      a_median double precision)
RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT COALESCE((ratio OPERATOR(pg_catalog.>) 1::pg_catalog.float8 AND b_median OPERATOR(pg_catalog.<) a_median)
                    OR (ratio OPERATOR(pg_catalog.<) 1::pg_catalog.float8 AND b_median OPERATOR(pg_catalog.>) a_median), false)
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

-- The confidence of each of a schedule's looks (a jsonb array of their
-- rounds; not an array: one look): 1 - (1 - confidence) / looks, so that
-- all its intervals hold together at the confidence (Bonferroni).  Every
-- kind's adaptive rounds, and tune()'s search and proof, divide it so.
CREATE FUNCTION pgbench_lab_internal.confidence_per_look(confidence double precision, looks jsonb)
RETURNS double precision LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT 1::pg_catalog.float8 OPERATOR(pg_catalog.-)
           ((1::pg_catalog.float8 OPERATOR(pg_catalog.-) confidence)
            OPERATOR(pg_catalog./)
            GREATEST(COALESCE(pg_catalog.jsonb_array_length(CASE WHEN pg_catalog.jsonb_typeof(looks)
                                                                     OPERATOR(pg_catalog.=) 'array'
                                                                THEN looks END), 1), 1)::pg_catalog.float8)
$$;

-- The confidence of each look's interval: the experiment's, divided among
-- its looks when its rounds were adaptive.
CREATE FUNCTION pgbench_lab_internal.look_confidence(params jsonb)
RETURNS double precision LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pgbench_lab_internal.confidence_per_look(pgbench_lab_internal.params_confidence(params),
                                                    params OPERATOR(pg_catalog.->) 'looks')
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
-- verdicts settled, the budget ended, or the last look (100 rounds) came;
-- and the look its verdicts come from, the last: the rounds done, which
-- is a planned look unless the budget cut the batch before it short (then
-- the planned look it fell short of is named), and the looks before it,
-- which left a verdict open.
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
           pg_catalog.format('; the verdicts are those of the look after %s rounds%s%s, each look''s interval at %s %%, so that all of them hold together at %s %%.',
                             d.n,
                             CASE WHEN l.planned IS NOT NULL AND NOT l.taken
                                  THEN pg_catalog.format(' (the budget cut its batch short of the look planned at %s)', l.planned)
                                  ELSE '' END,
                             COALESCE(', the looks after ' OPERATOR(pg_catalog.||) l.before OPERATOR(pg_catalog.||) ' rounds having left a verdict open', ''),
                             pgbench_lab_internal.fmt(pgbench_lab_internal.look_confidence(e.params) OPERATOR(pg_catalog.*) 100::pg_catalog.float8, 2),
                             pgbench_lab_internal.fmt(pgbench_lab_internal.params_confidence(e.params)
                                                      OPERATOR(pg_catalog.*) 100::pg_catalog.float8, 1))
      FROM pgbench_lab.experiments e, LATERAL (SELECT pgbench_lab_internal.rounds_done(e.experiment_id) AS n) d,
           LATERAL (SELECT pg_catalog.string_agg(x.v, ', ' ORDER BY x.i) FILTER (WHERE x.v::pg_catalog.int4 OPERATOR(pg_catalog.<) d.n) AS before,
                           pg_catalog.bool_or(x.v::pg_catalog.int4 OPERATOR(pg_catalog.=) d.n) AS taken,
                           pg_catalog.min(x.v::pg_catalog.int4) FILTER (WHERE x.v::pg_catalog.int4 OPERATOR(pg_catalog.>) d.n) AS planned
                      FROM pg_catalog.jsonb_array_elements_text(e.params OPERATOR(pg_catalog.->) 'looks') WITH ORDINALITY AS x(v, i)) l
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
