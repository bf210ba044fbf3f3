-- One method for a run's percentiles, and latency_curve's decisions on
-- fabricated experiments (imported, no runs made): each rate's percentile
-- from its runs' pooled histograms with its
-- transactions and interval; holds, breaks or undecided; the answer as a
-- range; and the rates the extend hook runs again, and why.
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
-- recorded percentiles are read off the histogram.
CREATE FUNCTION pg_temp.run(id integer, rate double precision, hist jsonb, sustained boolean DEFAULT true,
                            status text DEFAULT 'done', max_ms double precision DEFAULT NULL)
RETURNS jsonb LANGUAGE sql AS $$
    WITH b AS (SELECT (x->>0)::float8 AS ms, (x->>1)::bigint AS n FROM jsonb_array_elements(hist) x),
    c AS (SELECT b.ms, sum(b.n) OVER (ORDER BY b.ms) AS upto, sum(b.n) OVER () AS total FROM b),
    p AS (SELECT q, (SELECT min(c.ms) FROM c WHERE c.upto >= ceil(c.total * q)) AS ms
            FROM unnest(ARRAY[0.5, 0.9, 0.95, 0.99]) AS q)
    SELECT (SELECT d->'runs'->0 FROM fixture) || jsonb_build_object(
        'run_id', id, 'label', 'curve fixture', 'workload', 'select-only', 'rate', rate,
        'rate_sustained', CASE WHEN rate IS NOT NULL THEN sustained END, 'status', status,
        'transactions', (SELECT max(total) FROM c), 'tps', coalesce(rate, (SELECT max(total) FROM c) / 5.0),
        'latency_p50_ms', (SELECT ms FROM p WHERE q = 0.5), 'latency_p90_ms', (SELECT ms FROM p WHERE q = 0.9),
        'latency_p95_ms', (SELECT ms FROM p WHERE q = 0.95), 'latency_p99_ms', (SELECT ms FROM p WHERE q = 0.99),
        'latency_max_ms', coalesce(max_ms, (SELECT max(ms) FROM b)), 'progress', '[]'::jsonb,
        'latency', (SELECT jsonb_agg(jsonb_build_object('bucket_upper_us', b.ms * 1000, 'count', b.n) ORDER BY b.ms) FROM b))
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

-- An experiment of runs [[run_id, variant, round], ...].
CREATE FUNCTION pg_temp.curve(id integer, target double precision, rates double precision[], runs jsonb,
                              repeats integer DEFAULT 3)
RETURNS jsonb LANGUAGE sql AS $$
    SELECT jsonb_build_object('experiment_id', id, 'kind', 'latency_curve', 'workload', 'select-only',
        'label', 'curve ' || id, 'status', 'done',
        'started_at', '2026-11-26T10:00:00+00:00', 'finished_at', '2026-11-26T10:01:00+00:00',
        'params', jsonb_build_object('clients', 2, 'duration', '00:00:05', 'target_ms', target, 'percentile', 0.99,
                                     'rates', to_jsonb(rates), 'repeats', repeats, 'confidence', 0.95),
        'runs', (SELECT jsonb_agg(jsonb_build_object('run_id', r->0, 'ordinal', o, 'variant', r->1, 'round', r->2) ORDER BY o)
                   FROM jsonb_array_elements(runs) WITH ORDINALITY AS x(r, o)))
$$;

-- The issue's curve (p99 under 20 ms): 43.4 tps from 217 transactions and
-- 108.6 tps from 540 (its p99 65.9 ms), too few for a p99; 217.2 tps
-- holds (16.7 ms), 304.1 tps breaks.  Experiment 1 is its first pass, 2
-- and 3 the same with 108.6 and 217.2 tps run a second and a third time;
-- 4 is 1 with repeats 0, 5 is 2 with repeats 1.
CREATE TEMP TABLE ids AS
SELECT source_id, id FROM pgbench_lab.import(jsonb_build_object('format', 'pgbench_lab export', 'version', 1,
    'server', jsonb_build_object('name', 'curve fixture'),
    'runs', jsonb_build_array(
        pg_temp.run(11, NULL, '[[1, 4000], [3, 300]]'),
        pg_temp.run(12, 43.4, '[[2, 215], [4, 2]]'),
        pg_temp.run(13, 108.6, '[[5, 534], [65.9, 6]]'),
        pg_temp.run(14, 217.2, '[[5, 1070], [16.7, 16]]'),
        pg_temp.run(15, 304.1, '[[5, 1400], [40, 60], [80, 60]]'),
        pg_temp.run(16, 108.6, '[[5, 539], [30, 1]]'),
        pg_temp.run(17, 217.2, '[[5, 1080], [12, 6]]'),
        pg_temp.run(18, 108.6, '[[5, 540]]'),
        pg_temp.run(19, 217.2, '[[5, 1082], [14, 4]]')),
    'experiments', jsonb_build_array(
        pg_temp.curve(1, 20, '{43.4,108.6,217.2,304.1}', '[[11,1,1],[12,2,1],[13,3,1],[14,4,1],[15,5,1]]'),
        pg_temp.curve(2, 20, '{43.4,108.6,217.2,304.1}', '[[11,1,1],[12,2,1],[13,3,1],[14,4,1],[15,5,1],[16,3,2],[17,4,2]]'),
        pg_temp.curve(3, 20, '{43.4,108.6,217.2,304.1}',
                      '[[11,1,1],[12,2,1],[13,3,1],[14,4,1],[15,5,1],[16,3,2],[17,4,2],[18,3,3],[19,4,3]]'),
        pg_temp.curve(4, 20, '{43.4,108.6,217.2,304.1}', '[[11,1,1],[12,2,1],[13,3,1],[14,4,1],[15,5,1]]', 0),
        pg_temp.curve(5, 20, '{43.4,108.6,217.2,304.1}', '[[11,1,1],[12,2,1],[13,3,1],[14,4,1],[15,5,1],[16,3,2],[17,4,2]]', 1))))
 WHERE kind = 'experiment';
CREATE FUNCTION pg_temp.e(source integer) RETURNS bigint LANGUAGE sql AS $$ SELECT id FROM ids WHERE source_id = source $$;
CREATE TEMP TABLE plan AS
SELECT pgbench_lab_internal.latency_curve_plan('select-only', 2, '5 s', 20, 0.99, '{43.4,108.6,217.2,304.1}', NULL,
                                               'curve', 3, 0.95, '{}', '{}') AS p;

-- One run pooled is latency_percentiles() itself
SELECT count(*) AS runs_differing
  FROM pgbench_lab.runs r
 WHERE r.label = 'curve fixture'
   AND EXISTS ((SELECT * FROM pgbench_lab.latency_percentiles(r.run_id)
                EXCEPT SELECT * FROM pgbench_lab_internal.pooled_percentiles(ARRAY[r.run_id]))
               UNION ALL
               (SELECT * FROM pgbench_lab_internal.pooled_percentiles(ARRAY[r.run_id])
                EXCEPT SELECT * FROM pgbench_lab.latency_percentiles(r.run_id)));

-- The first pass: 43.4 and 108.6 tps are undecided (too few
-- transactions); the answer lies between 217.2 and 304.1 tps
SELECT rate, rounds, transactions, pct, low_ms, high_ms, enough, verdict, role, repeat
  FROM pgbench_lab_internal.latency_curve_reading(pg_temp.e(1));
SELECT best_rate, best_latency_ms, broke_rate, broke_latency_ms, settled FROM pgbench_lab_internal.latency_curve_result(pg_temp.e(1));
\pset format unaligned
\pset tuples_only on
SELECT finding FROM pgbench_lab_internal.latency_curve_result(pg_temp.e(1));
\pset format aligned
\pset tuples_only off
-- 108.6 tps could be decided by 4 runs' transactions (43.4 tps could
-- not): it is repeated, with 217.2 tps, the rate just above it, which held
SELECT x->>'about' AS about FROM pgbench_lab_internal.latency_curve_extend(pg_temp.e(1), (SELECT p FROM plan)) AS x;
SELECT s->>'variant' AS variant, s->>'round' AS round, s->'run'->>'rate' AS rate, s->>'about' AS about
  FROM pgbench_lab_internal.latency_curve_extend(pg_temp.e(1), (SELECT p FROM plan)) AS x,
       jsonb_array_elements(x->'steps') AS s;

-- Two runs each: 108.6 tps has enough transactions, and its interval
-- holds the target: a third run
SELECT rate, rounds, transactions, pct, low_ms, high_ms, enough, verdict, role, repeat
  FROM pgbench_lab_internal.latency_curve_reading(pg_temp.e(2));
SELECT x->>'about' AS about, jsonb_path_query_array(x, '$.steps[*].round') AS rounds
  FROM pgbench_lab_internal.latency_curve_extend(pg_temp.e(2), (SELECT p FROM plan)) AS x;

-- Three runs each: 108.6 tps holds; 43.4 tps stays undecided, and no
-- repeat could give it the transactions: nothing more to run
SELECT rate, rounds, transactions, pct, low_ms, high_ms, enough, verdict, role, repeat
  FROM pgbench_lab_internal.latency_curve_reading(pg_temp.e(3));
SELECT pgbench_lab_internal.latency_curve_extend(pg_temp.e(3), (SELECT p FROM plan)) AS extend;
SELECT best_rate, broke_rate, settled FROM pgbench_lab_internal.latency_curve_result(pg_temp.e(3));
\pset format unaligned
\pset tuples_only on
SELECT finding FROM pgbench_lab_internal.latency_curve_result(pg_temp.e(3));
SELECT line FROM pgbench_lab.report(pg_temp.e(3)) AS line WHERE line !~ '^(Experiment|label|status|imported)';
\pset format aligned
\pset tuples_only off
SELECT * FROM pgbench_lab.experiment_verdicts(pg_temp.e(3));

-- repeats 0: never; repeats 1: a rate already run twice is not run again
SELECT pgbench_lab_internal.latency_curve_extend(pg_temp.e(4), (SELECT p FROM plan)) AS repeats_0,
       pgbench_lab_internal.latency_curve_extend(pg_temp.e(5), (SELECT p FROM plan)) AS repeats_1_after_2;

-- Not monotone (p99 under 10 ms): 100 tps holds, 200 tps breaks, 300 tps
-- holds again, 400 tps breaks.  The answer is read from the bottom (held
-- up to between 100 and 200 tps), not settled: 200 and 300 tps are run
-- again.  When 200 tps broke by lagging (the rate not sustained), more
-- runs cannot change that: only 300 tps is run again.  A monotone curve
-- (experiment 8) is settled: nothing to repeat.
CREATE TEMP TABLE ids2 AS
SELECT source_id, id FROM pgbench_lab.import(jsonb_build_object('format', 'pgbench_lab export', 'version', 1,
    'server', jsonb_build_object('name', 'curve fixture'),
    'runs', jsonb_build_array(
        pg_temp.run(21, NULL, '[[1, 20000]]'),
        pg_temp.run(22, 100, '[[2, 1500]]'),
        pg_temp.run(23, 200, '[[20, 3000]]'),
        pg_temp.run(24, 300, '[[3, 4500]]'),
        pg_temp.run(25, 400, '[[50, 6000]]'),
        pg_temp.run(26, 200, '[[9, 2980], [30, 20]]', false),
        pg_temp.run(27, 200, '[[4, 3000]]'),
        pg_temp.run(28, 300, '[[30, 4500]]')),
    'experiments', jsonb_build_array(
        pg_temp.curve(6, 10, '{100,200,300,400}', '[[21,1,1],[22,2,1],[23,3,1],[24,4,1],[25,5,1]]'),
        pg_temp.curve(7, 10, '{100,200,300,400}', '[[21,1,1],[22,2,1],[26,3,1],[24,4,1],[25,5,1]]'),
        pg_temp.curve(8, 10, '{100,200,300}', '[[21,1,1],[22,2,1],[27,3,1],[28,4,1]]'))))
 WHERE kind = 'experiment';
INSERT INTO ids SELECT * FROM ids2;
CREATE TEMP TABLE plan2 AS
SELECT pgbench_lab_internal.latency_curve_plan('select-only', 2, '5 s', 10, 0.99, '{100,200,300,400}', NULL,
                                               'curve', 3, 0.95, '{}', '{}') AS p;
SELECT rate, verdict, role, repeat, reason FROM pgbench_lab_internal.latency_curve_reading(pg_temp.e(6));
SELECT x->>'about' AS about, jsonb_path_query_array(x, '$.steps[*].variant') AS variants
  FROM pgbench_lab_internal.latency_curve_extend(pg_temp.e(6), (SELECT p FROM plan2)) AS x;
SELECT best_rate, broke_rate, settled FROM pgbench_lab_internal.latency_curve_result(pg_temp.e(6));
\pset format unaligned
\pset tuples_only on
SELECT finding FROM pgbench_lab_internal.latency_curve_result(pg_temp.e(6));
\pset format aligned
\pset tuples_only off
SELECT rate, verdict, basis, role, repeat FROM pgbench_lab_internal.latency_curve_reading(pg_temp.e(7));
SELECT x->>'about' AS about, jsonb_path_query_array(x, '$.steps[*].variant') AS variants
  FROM pgbench_lab_internal.latency_curve_extend(pg_temp.e(7), (SELECT p FROM plan2)) AS x;
SELECT best_rate, best_tps, broke_rate, settled FROM pgbench_lab_internal.latency_curve_result(pg_temp.e(8));
\pset format unaligned
\pset tuples_only on
SELECT finding FROM pgbench_lab_internal.latency_curve_result(pg_temp.e(8));
\pset format aligned
\pset tuples_only off
SELECT pgbench_lab_internal.latency_curve_extend(pg_temp.e(8), (SELECT p FROM plan2)) AS extend;

-- The planner records repeats and confidence, and refuses them out of range
SELECT p->'params'->'repeats' AS repeats, p->'params'->'confidence' AS confidence FROM plan;
\set VERBOSITY terse
SELECT pgbench_lab_internal.latency_curve_plan('select-only', 1, '1 s', 5, 0.99, NULL, '{0.5}', 'x', 21, 0.95, '{}', '{}');
SELECT pgbench_lab_internal.latency_curve_plan('select-only', 1, '1 s', 5, 0.99, NULL, '{0.5}', 'x', -1, 0.95, '{}', '{}');
SELECT pgbench_lab_internal.latency_curve_plan('select-only', 1, '1 s', 5, 0.99, NULL, '{0.5}', 'x', NULL, 0.95, '{}', '{}');
SELECT pgbench_lab_internal.latency_curve_plan('select-only', 1, '1 s', 5, 0.99, NULL, '{0.5}', 'x', 3, 1, '{}', '{}');
\set VERBOSITY default

-- the fixture's experiments and runs go, for the tests that count them
DELETE FROM pgbench_lab.experiments WHERE experiment_id IN (SELECT id FROM ids);
DELETE FROM pgbench_lab.runs WHERE label = 'curve fixture';
