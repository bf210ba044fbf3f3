-- latency_curve's decisions on given figures and fabricated experiments
-- (imported, no runs made): one method for a run's percentiles; each rate
-- judged across its runs (the median of the runs' percentiles and its
-- sign-test interval); holds, breaks or undecided; the answer as a range;
-- the rates the extend hook runs again, and why; the step down when the
-- lowest rate breaks.
\encoding UTF8
SET client_min_messages = warning;
SET extra_float_digits = 0;
\set fixture `cat test/fixtures/lab_a.json`
CREATE TEMP TABLE fixture AS SELECT :'fixture'::jsonb AS d;

-- ---------------------------------------------------------------------------
-- A run's percentiles: one method (histogram_values()), the upper bound of
-- the bucket that holds the rank, never above the run's largest latency
-- ---------------------------------------------------------------------------

-- ranks 1 to 6 of buckets up to 1, 2 and 4 ms holding 2, 3 and 1
-- latencies; rank 0 reads as 1 and rank 9 as the last; then the same with
-- the largest latency 3.1 ms, under the last bucket's bound
SELECT pgbench_lab_internal.histogram_values('{1000,2000,4000}', '{2,3,1}', '{0,1,2,3,5,6,9}', NULL) AS unbounded,
       pgbench_lab_internal.histogram_values('{1000,2000,4000}', '{2,3,1}', '{0,1,2,3,5,6,9}', 3.1) AS under_max,
       pgbench_lab_internal.histogram_values('{}', '{}', '{1}', 3.1) AS empty;
\set VERBOSITY terse
SELECT pgbench_lab_internal.histogram_values('{1000,2000}', '{2}', '{1}', NULL);
SELECT pgbench_lab_internal.histogram_values('{2000,1000}', '{2,3}', '{1}', NULL);
SELECT pgbench_lab_internal.histogram_values('{1000,2000}', '{2,-3}', '{1}', NULL);
SELECT pgbench_lab_internal.histogram_values('{1000,2000}', '{2,NULL}', '{1}', NULL);
SELECT pgbench_lab_internal.histogram_values('{{1000},{2000}}', '{{2},{3}}', '{1}', NULL);
\set VERBOSITY default

-- A run at a rate (NULL: the maximum) with its histogram as [ms, count]
-- pairs, its largest latency the last bucket's bound unless given; its
-- recorded percentiles are the run's row's (made elsewhere, by another
-- method: every reader reads them off the histogram).
CREATE FUNCTION pg_temp.run(id integer, rate double precision, hist jsonb, sustained boolean DEFAULT true,
                            status text DEFAULT 'done', max_ms double precision DEFAULT NULL)
RETURNS jsonb LANGUAGE sql AS $$
    WITH b AS (SELECT (x->>0)::float8 AS ms, (x->>1)::bigint AS n FROM jsonb_array_elements(hist) x)
    SELECT (SELECT d->'runs'->0 FROM fixture) || jsonb_build_object(
        'run_id', id, 'label', 'curve fixture', 'workload', 'select-only', 'rate', rate,
        'rate_sustained', CASE WHEN rate IS NOT NULL THEN sustained END, 'status', status,
        'transactions', (SELECT sum(n) FROM b), 'tps', coalesce(rate, (SELECT sum(n) FROM b) / 60.0),
        'latency_p50_ms', 0.5, 'latency_p90_ms', 0.9, 'latency_p95_ms', 0.95, 'latency_p99_ms', 0.99,
        'latency_max_ms', coalesce(max_ms, (SELECT max(ms) FROM b)),
        'progress', '[]'::jsonb,
        'latency', (SELECT jsonb_agg(jsonb_build_object('bucket_upper_us', b.ms * 1000, 'count', b.n) ORDER BY b.ms) FROM b))
$$;
-- A run of 1 000 transactions at a rate whose p99 is p ms.
CREATE FUNCTION pg_temp.r(id integer, rate double precision, p double precision, sustained boolean DEFAULT true)
RETURNS jsonb LANGUAGE sql AS $$
    SELECT pg_temp.run(id, rate, jsonb_build_array(jsonb_build_array(p / 2, 980), jsonb_build_array(p, 20)), sustained)
$$;

-- A run whose largest latency (3.1 ms) lies under its last bucket's bound:
-- no percentile above it, wherever it is read
CREATE TEMP TABLE one AS
SELECT id FROM pgbench_lab.import(jsonb_build_object('format', 'pgbench_lab export', 'version', 1,
    'server', jsonb_build_object('name', 'curve fixture'),
    'runs', jsonb_build_array(pg_temp.run(1, NULL, '[[1, 4000], [2, 950], [4, 50]]', max_ms => 3.1))))
 WHERE kind = 'run';
SELECT percentile, transactions, latency_ms, low_ms, high_ms, enough
  FROM pgbench_lab.latency_percentiles((SELECT id FROM one));
SELECT q.* FROM pgbench_lab.runs r, pgbench_lab_internal.run_percentiles(r) q WHERE r.run_id = (SELECT id FROM one);
SELECT line FROM pgbench_lab.report((SELECT id FROM one)) AS line WHERE line ~ 'p99';
SELECT latency_p99_ms FROM pgbench_lab.compare(ARRAY[(SELECT id FROM one)]);

-- ---------------------------------------------------------------------------
-- A rate judged across its runs, on given per-run figures (p99s, ms)
-- against a 5 ms target
-- ---------------------------------------------------------------------------
CREATE FUNCTION pg_temp.judge(figures double precision[], confidence double precision DEFAULT 0.95,
                              transactions bigint DEFAULT 1000, failed text DEFAULT NULL, lagged integer DEFAULT 0)
RETURNS TABLE (verdict text, cause text, usable integer, pct double precision, low_ms double precision,
               high_ms double precision, coverage double precision, above integer, basis text)
LANGUAGE sql AS $$
    SELECT j.verdict, j.cause, j.usable, j.pct, j.low_ms, j.high_ms, round(j.coverage::numeric, 4)::float8, j.above, j.basis
      FROM pgbench_lab_internal.latency_curve_judge(figures, array_fill(transactions, ARRAY[cardinality(figures)]),
                                                    failed, lagged, cardinality(figures), 5, 0.99, confidence) j
$$;
-- six runs under the target: holds, the interval being their lowest and
-- highest (96.9 %); six over: breaks; five under and one over: the
-- interval holds the target
SELECT 'holds' AS runs, * FROM pg_temp.judge('{4.1,4.3,3.9,4.6,4.2,4.0}')
UNION ALL SELECT 'breaks', * FROM pg_temp.judge('{6.1,5.3,7.9,5.6,6.2,8.0}')
UNION ALL SELECT 'one over', * FROM pg_temp.judge('{4.1,4.3,3.9,5.6,4.2,4.0}');
-- the issue's four identical 300 tps runs, their p99s apart from one run
-- to the next: no 95 % interval from 4 runs; at 80 % the lowest and
-- highest (87.5 %) hold the target
SELECT 'four at 95 %' AS runs, * FROM pg_temp.judge('{4.1,6.3,4.8,5.5}')
UNION ALL SELECT 'four at 80 %', * FROM pg_temp.judge('{4.1,6.3,4.8,5.5}', 0.8);
-- three runs under the target: undecided at 95 % (75 % at most), holds at
-- 75 %; nine runs give a narrower interval (the 2nd lowest and highest)
SELECT 'three at 95 %' AS runs, * FROM pg_temp.judge('{4.1,4.3,3.9}')
UNION ALL SELECT 'three at 75 %', * FROM pg_temp.judge('{4.1,4.3,3.9}', 0.75)
UNION ALL SELECT 'one run', * FROM pg_temp.judge('{4.1}')
UNION ALL SELECT 'nine', * FROM pg_temp.judge('{4.1,4.3,3.9,5.6,4.2,4.0,4.4,4.5,4.7}');
-- a run with too few transactions for its p99, a run not sustained, a
-- failed run, no histogram
SELECT 'too few' AS runs, * FROM pg_temp.judge('{4.1,4.3,3.9,4.6,4.2,4.0}', transactions => 540)
UNION ALL SELECT 'lagged', * FROM pg_temp.judge('{4.1,4.3,3.9,4.6,4.2,4.0}', lagged => 1)
UNION ALL SELECT 'failed', * FROM pg_temp.judge('{4.1,4.3,3.9,4.6,4.2}', failed => 'failed')
UNION ALL SELECT 'none', * FROM pg_temp.judge('{NULL,NULL,NULL}');

-- ---------------------------------------------------------------------------
-- Curves: the reading, the repeats and the steps down
-- ---------------------------------------------------------------------------

-- An experiment of runs [[run_id, variant, round], ...], p99 against a
-- target, n runs per rate, 60 s per run unless given (the floor of a step
-- down: the 1000 transactions of a p99 and 4 standard deviations in 60
-- s, 18.8 tps).
CREATE FUNCTION pg_temp.curve(id integer, target double precision, rates double precision[], runs jsonb,
                              repeats integer DEFAULT 3, n integer DEFAULT 3, confidence double precision DEFAULT 0.95,
                              duration text DEFAULT '00:01:00')
RETURNS jsonb LANGUAGE sql AS $$
    SELECT jsonb_build_object('experiment_id', id, 'kind', 'latency_curve', 'workload', 'select-only',
        'label', 'curve ' || id, 'status', 'done',
        'started_at', '2026-11-26T10:00:00+00:00', 'finished_at', '2026-11-26T10:01:00+00:00',
        'params', jsonb_build_object('clients', 2, 'duration', duration, 'target_ms', target, 'percentile', 0.99,
                                     'rates', to_jsonb(rates), 'runs', n, 'repeats', repeats, 'confidence', confidence),
        'runs', (SELECT jsonb_agg(jsonb_build_object('run_id', r->0, 'ordinal', o, 'variant', r->1, 'round', r->2) ORDER BY o)
                   FROM jsonb_array_elements(runs) WITH ORDINALITY AS x(r, o)))
$$;

-- p99 under 10 ms at 100, 200 and 300 tps, 3 runs each: 100 tps under the
-- target in each run, 200 tps over it in one, 300 tps not sustained.
-- Experiment 1 is the plan's runs; 2 has 100 tps run three more times,
-- under the target each time; 3 is 1 with repeats 0.
CREATE TEMP TABLE ids AS
SELECT source_id, id FROM pgbench_lab.import(jsonb_build_object('format', 'pgbench_lab export', 'version', 1,
    'server', jsonb_build_object('name', 'curve fixture'),
    'runs', jsonb_build_array(
        pg_temp.run(10, NULL, '[[1, 60000], [3, 600]]'),
        pg_temp.r(11, 100, 2.2), pg_temp.r(12, 200, 6.0), pg_temp.r(13, 300, 40, false),
        pg_temp.r(14, 100, 2.6), pg_temp.r(15, 200, 12.5), pg_temp.r(16, 300, 35, false),
        pg_temp.r(17, 100, 2.4), pg_temp.r(18, 200, 7.0), pg_temp.r(19, 300, 38),
        pg_temp.r(20, 100, 2.8), pg_temp.r(21, 100, 2.1), pg_temp.r(22, 100, 3.0)),
    'experiments', jsonb_build_array(
        pg_temp.curve(1, 10, '{100,200,300}', '[[10,1,1],[11,2,1],[12,3,1],[13,4,1],[14,2,2],[15,3,2],[16,4,2],[17,2,3],[18,3,3],[19,4,3]]'),
        pg_temp.curve(2, 10, '{100,200,300}', '[[10,1,1],[11,2,1],[12,3,1],[13,4,1],[14,2,2],[15,3,2],[16,4,2],[17,2,3],[18,3,3],[19,4,3],
                                              [20,2,4],[21,2,5],[22,2,6]]'),
        pg_temp.curve(3, 10, '{100,200,300}', '[[10,1,1],[11,2,1],[12,3,1],[13,4,1],[14,2,2],[15,3,2],[16,4,2],[17,2,3],[18,3,3],[19,4,3]]', 0))))
 WHERE kind = 'experiment';
CREATE FUNCTION pg_temp.e(source integer) RETURNS bigint LANGUAGE sql AS $$ SELECT id FROM ids WHERE source_id = source $$;
CREATE TEMP TABLE plan AS
SELECT pgbench_lab_internal.latency_curve_plan('select-only', 2, '60 s', 10, 0.99, '{100,200,300}', NULL,
                                               'curve', 3, 3, 0.95, '{}', '{}') AS p;
-- the plan: the maximum, then three rounds of the rates
SELECT s->>'variant' AS variant, s->>'round' AS round, s->'run'->>'rate' AS rate, s->>'about' AS about
  FROM plan, jsonb_array_elements(p->'steps') AS s;

-- The plan's runs: 100 tps is under the target in each of 3 runs, too few
-- for a 95 % interval, and 6 runs could decide it: it is repeated; 200
-- tps has a run over the target, so 6 runs could not decide it (their
-- interval at 95 % is the lowest to the highest): not repeated; 300 tps
-- breaks (not sustained in 2 of 3 runs)
SELECT rate, rounds, usable, fewest, pct, low_ms, high_ms, coverage, above, verdict, cause, role, repeat
  FROM pgbench_lab_internal.latency_curve_reading(pg_temp.e(1));
SELECT x->>'about' AS about, jsonb_path_query_array(x, '$.steps[*].variant') AS variants,
       jsonb_path_query_array(x, '$.steps[*].round') AS rounds
  FROM pgbench_lab_internal.latency_curve_extend(pg_temp.e(1), (SELECT p FROM plan)) AS x;
SELECT best_rate, broke_rate, settled FROM pgbench_lab_internal.latency_curve_result(pg_temp.e(1));
-- repeats 0: nothing more to run
SELECT pgbench_lab_internal.latency_curve_extend(pg_temp.e(3), (SELECT p FROM plan)) AS repeats_0;

-- Six runs of 100 tps, each under the target: holds; 200 tps stays
-- undecided, and nothing is left to run
SELECT rate, rounds, usable, pct, low_ms, high_ms, coverage, verdict, cause, role, repeat
  FROM pgbench_lab_internal.latency_curve_reading(pg_temp.e(2));
SELECT pgbench_lab_internal.latency_curve_extend(pg_temp.e(2), (SELECT p FROM plan)) AS extend;
SELECT best_rate, best_latency_ms, broke_rate, broke_latency_ms, settled FROM pgbench_lab_internal.latency_curve_result(pg_temp.e(2));
\pset format unaligned
\pset tuples_only on
SELECT line FROM pgbench_lab.report(pg_temp.e(2)) AS line WHERE line !~ '^(Experiment|label|status|imported)';
\pset format aligned
\pset tuples_only off
SELECT * FROM pgbench_lab.experiment_verdicts(pg_temp.e(2));

-- The lowest rate breaks (p99 under 1 ms, 3 runs at 75 %, every run over
-- it): the curve steps down to half the rate, 50 tps, as a new variant
-- with the plan's runs (experiment 4); with 10 min runs (a floor of 1.9
-- tps), after four steps (experiment 5: 50, 25, 12.5 and 6.25 tps, broken
-- at each) none is left.  With 10 s runs the floor is 112.6 tps (the 1000
-- transactions of a p99 and 4 standard deviations, 126.5, in 10 s): 200
-- tps steps down to the floor, not to half, and there it stops
-- (experiments 6, 7).
CREATE TEMP TABLE ids2 AS
SELECT source_id, id FROM pgbench_lab.import(jsonb_build_object('format', 'pgbench_lab export', 'version', 1,
    'server', jsonb_build_object('name', 'curve fixture'),
    'runs', jsonb_build_array(
        pg_temp.run(30, NULL, '[[1, 60000], [3, 600]]'),
        pg_temp.r(31, 100, 2.2), pg_temp.r(32, 100, 2.6), pg_temp.r(33, 100, 2.4),
        pg_temp.r(34, 50, 2.0), pg_temp.r(35, 50, 2.1), pg_temp.r(36, 50, 2.3),
        pg_temp.r(37, 25, 1.9), pg_temp.r(38, 25, 2.0), pg_temp.r(39, 25, 2.2),
        pg_temp.r(40, 12.5, 1.9), pg_temp.r(41, 12.5, 2.0), pg_temp.r(42, 12.5, 2.2),
        pg_temp.r(43, 6.25, 1.9), pg_temp.r(44, 6.25, 2.0), pg_temp.r(45, 6.25, 2.2),
        pg_temp.r(46, 200, 2.2), pg_temp.r(47, 200, 2.6), pg_temp.r(48, 200, 2.4),
        pg_temp.r(49, 112.649, 2.2), pg_temp.r(50, 112.649, 2.6), pg_temp.r(51, 112.649, 2.4)),
    'experiments', jsonb_build_array(
        pg_temp.curve(4, 1, '{100}', '[[30,1,1],[31,2,1],[32,2,2],[33,2,3]]', 0, 3, 0.75),
        pg_temp.curve(5, 1, '{100}', '[[30,1,1],[31,2,1],[32,2,2],[33,2,3],[34,3,1],[35,3,2],[36,3,3],[37,4,1],[38,4,2],[39,4,3],
                                       [40,5,1],[41,5,2],[42,5,3],[43,6,1],[44,6,2],[45,6,3]]', 0, 3, 0.75, '00:10:00'),
        pg_temp.curve(6, 1, '{200}', '[[30,1,1],[46,2,1],[47,2,2],[48,2,3]]', 0, 3, 0.75, '00:00:10'),
        pg_temp.curve(7, 1, '{200}', '[[30,1,1],[46,2,1],[47,2,2],[48,2,3],[49,3,1],[50,3,2],[51,3,3]]', 0, 3, 0.75, '00:00:10'))))
 WHERE kind = 'experiment';
INSERT INTO ids SELECT * FROM ids2;
CREATE TEMP TABLE plan2 AS
SELECT pgbench_lab_internal.latency_curve_plan('select-only', 2, '60 s', 1, 0.99, '{100}', NULL,
                                               'curve', 3, 0, 0.75, '{}', '{}') AS p;
SELECT e, s.* FROM unnest(ARRAY[4, 5, 6, 7]) AS e, pgbench_lab_internal.latency_curve_step_down(pg_temp.e(e)) s;
SELECT x->>'about' AS about, s->>'variant' AS variant, s->>'round' AS round, s->'run'->>'rate' AS rate, s->>'about' AS step
  FROM pgbench_lab_internal.latency_curve_extend(pg_temp.e(4), (SELECT p FROM plan2)) AS x,
       jsonb_array_elements(x->'steps') AS s;
SELECT pgbench_lab_internal.latency_curve_extend(pg_temp.e(5), (SELECT p FROM plan2)) AS after_four_steps;
SELECT x->>'about' AS about, jsonb_path_query_array(x, '$.steps[*].run.rate') AS rates
  FROM pgbench_lab_internal.latency_curve_extend(pg_temp.e(6), (SELECT p FROM plan2)) AS x;
SELECT pgbench_lab_internal.latency_curve_extend(pg_temp.e(7), (SELECT p FROM plan2)) AS at_the_floor;
SELECT e, r.best_rate, r.broke_rate, r.settled FROM unnest(ARRAY[5, 7]) AS e, pgbench_lab_internal.latency_curve_result(pg_temp.e(e)) r;
\pset format unaligned
\pset tuples_only on
SELECT finding FROM pgbench_lab_internal.latency_curve_result(pg_temp.e(5));
SELECT finding FROM pgbench_lab_internal.latency_curve_result(pg_temp.e(7));
\pset format aligned
\pset tuples_only off

-- Not monotone (p99 under 10 ms, 3 runs at 75 %): 100 tps holds, 200 tps
-- breaks, 300 tps holds again, 400 tps breaks.  The answer is read from
-- the bottom (held up to between 100 and 200 tps), not settled: 200 and
-- 300 tps are run again.  When 200 tps broke by lagging (the rate not
-- sustained), more runs cannot change that: only 300 tps is run again.
CREATE TEMP TABLE ids3 AS
SELECT source_id, id FROM pgbench_lab.import(jsonb_build_object('format', 'pgbench_lab export', 'version', 1,
    'server', jsonb_build_object('name', 'curve fixture'),
    'runs', jsonb_build_array(
        pg_temp.run(60, NULL, '[[1, 60000]]'),
        pg_temp.r(61, 100, 2), pg_temp.r(62, 100, 2), pg_temp.r(63, 100, 2),
        pg_temp.r(64, 200, 20), pg_temp.r(65, 200, 20), pg_temp.r(66, 200, 20),
        pg_temp.r(67, 300, 3), pg_temp.r(68, 300, 3), pg_temp.r(69, 300, 3),
        pg_temp.r(70, 400, 50), pg_temp.r(71, 400, 50), pg_temp.r(72, 400, 50),
        pg_temp.r(73, 200, 9, false)),
    'experiments', jsonb_build_array(
        pg_temp.curve(8, 10, '{100,200,300,400}', '[[60,1,1],[61,2,1],[64,3,1],[67,4,1],[70,5,1],[62,2,2],[65,3,2],[68,4,2],[71,5,2],
                                                   [63,2,3],[66,3,3],[69,4,3],[72,5,3]]', 3, 3, 0.75),
        pg_temp.curve(9, 10, '{100,200,300,400}', '[[60,1,1],[61,2,1],[64,3,1],[67,4,1],[70,5,1],[62,2,2],[73,3,2],[68,4,2],[71,5,2],
                                                   [63,2,3],[66,3,3],[69,4,3],[72,5,3]]', 3, 3, 0.75))))
 WHERE kind = 'experiment';
INSERT INTO ids SELECT * FROM ids3;
CREATE TEMP TABLE plan3 AS
SELECT pgbench_lab_internal.latency_curve_plan('select-only', 2, '60 s', 10, 0.99, '{100,200,300,400}', NULL,
                                               'curve', 3, 3, 0.75, '{}', '{}') AS p;
SELECT rate, verdict, role, repeat, reason FROM pgbench_lab_internal.latency_curve_reading(pg_temp.e(8));
SELECT x->>'about' AS about, jsonb_path_query_array(x, '$.steps[*].variant') AS variants
  FROM pgbench_lab_internal.latency_curve_extend(pg_temp.e(8), (SELECT p FROM plan3)) AS x;
SELECT best_rate, broke_rate, settled FROM pgbench_lab_internal.latency_curve_result(pg_temp.e(8));
\pset format unaligned
\pset tuples_only on
SELECT finding FROM pgbench_lab_internal.latency_curve_result(pg_temp.e(8));
\pset format aligned
\pset tuples_only off
SELECT rate, verdict, basis, role, repeat FROM pgbench_lab_internal.latency_curve_reading(pg_temp.e(9));
SELECT x->>'about' AS about, jsonb_path_query_array(x, '$.steps[*].variant') AS variants
  FROM pgbench_lab_internal.latency_curve_extend(pg_temp.e(9), (SELECT p FROM plan3)) AS x;

-- The planner records runs, repeats and confidence, and refuses them out
-- of range
SELECT p->'params'->'runs' AS runs, p->'params'->'repeats' AS repeats, p->'params'->'confidence' AS confidence FROM plan;
\set VERBOSITY terse
SELECT pgbench_lab_internal.latency_curve_plan('select-only', 1, '1 s', 5, 0.99, NULL, '{0.5}', 'x', 3, 21, 0.95, '{}', '{}');
SELECT pgbench_lab_internal.latency_curve_plan('select-only', 1, '1 s', 5, 0.99, NULL, '{0.5}', 'x', 3, -1, 0.95, '{}', '{}');
SELECT pgbench_lab_internal.latency_curve_plan('select-only', 1, '1 s', 5, 0.99, NULL, '{0.5}', 'x', 3, NULL, 0.95, '{}', '{}');
SELECT pgbench_lab_internal.latency_curve_plan('select-only', 1, '1 s', 5, 0.99, NULL, '{0.5}', 'x', 0, 3, 0.95, '{}', '{}');
SELECT pgbench_lab_internal.latency_curve_plan('select-only', 1, '1 s', 5, 0.99, NULL, '{0.5}', 'x', 21, 3, 0.95, '{}', '{}');
SELECT pgbench_lab_internal.latency_curve_plan('select-only', 1, '1 s', 5, 0.99, NULL, '{0.5}', 'x', 3, 3, 1, '{}', '{}');
\set VERBOSITY default

-- the fixture's experiments and runs go, for the tests that count them
DELETE FROM pgbench_lab.experiments WHERE experiment_id IN (SELECT id FROM ids);
DELETE FROM pgbench_lab.runs WHERE label = 'curve fixture';
