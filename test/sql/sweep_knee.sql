-- The sweep's knee threshold and the sweep plot (clients on a log2 axis,
-- the peak and the knee marked, sweeps of very different TPS in separate
-- panels), on the fixture's sweep (test/fixtures/lab_a.json): 1 -> 2
-- clients add 90% of linear scaling, 2 -> 4 clients 37%, 4 -> 8 clients
-- -4%.  Imported ids are known: the sequence is set first.
\encoding UTF8
SET client_min_messages = warning;
SELECT pg_catalog.setval('pgbench_lab.runs_run_id_seq', 5000, false) AS next_id;
\set fixture `cat test/fixtures/lab_a.json`
SELECT kind, source_id, id FROM pgbench_lab.import(:'fixture') WHERE kind = 'experiment';
SELECT clients, round(linear_share::numeric, 4) AS linear_share, mark FROM pgbench_lab.sweep_summary(5011);

-- The threshold decides which count is named: a step exactly at the
-- threshold (0.9) is not below it.  NULL: the sweep's own (0.5 here).
SELECT t AS knee_threshold, v.peak_clients, v.knee_clients
  FROM unnest(ARRAY[NULL, 0.95, 0.9, 0.5, 0.37, 0.3, 0.01]::float8[]) WITH ORDINALITY AS u(t, i),
       LATERAL pgbench_lab.sweep_verdict(5011, t) v
 ORDER BY u.i;
\pset format unaligned
\pset tuples_only on
SELECT finding FROM pgbench_lab.sweep_verdict(5011, 0.95);
SELECT finding FROM pgbench_lab.sweep_verdict(5011, 0.01);
\pset format aligned
\pset tuples_only off

-- A sweep recorded with its own threshold (0.3): the summary, the verdict,
-- the report's rule and the plot's legend use it.
SELECT kind, source_id, id FROM pgbench_lab.import(jsonb_set(:'fixture', '{experiments,0,params,knee_threshold}', '0.3'))
 WHERE kind = 'experiment';
SELECT clients, mark FROM pgbench_lab.sweep_summary(5024);
SELECT peak_clients, knee_clients FROM pgbench_lab.sweep_verdict(5024);
SELECT peak_clients, knee_clients FROM pgbench_lab.sweep_verdict(5024, 0.5);
\pset format unaligned
\pset tuples_only on
SELECT line FROM pgbench_lab.report(5024) AS line
 WHERE line ~ '(Knee|knee|clients:|threshold|linear)';
SELECT (regexp_matches(pgbench_lab.plot(ARRAY[5024]), '<text class="legend" x="118" y="414"><title>([^<]*)</title>'))[1];
\pset format aligned
\pset tuples_only off

-- An imported threshold that is not a share (0 < t < 1) is refused, as
-- every invalid field of an export document is; a document without one
-- (from 0.1) gets the rule's default.
\set VERBOSITY terse
SELECT * FROM pgbench_lab.import(jsonb_set(:'fixture', '{experiments,0,params,knee_threshold}', '"half"'));
SELECT * FROM pgbench_lab.import(jsonb_set(:'fixture', '{experiments,0,params,knee_threshold}', '1'));
SELECT * FROM pgbench_lab.import(jsonb_set(:'fixture', '{experiments,0,params,knee_threshold}', '0'));
\set VERBOSITY default

-- The plot: x ticks at the powers of two, log2-spaced (200 px a
-- doubling here), the points at log2 of their counts, one peak and one
-- knee mark on the TPS curve, one panel.
SELECT m[2]::int AS tick, m[1]::numeric AS x
  FROM regexp_matches(pgbench_lab.plot(ARRAY[5011]), '<text class="xtick" x="([0-9.]+)" y="358" text-anchor="middle">([0-9]+)</text>', 'g') AS m;
SELECT (regexp_match(pgbench_lab.plot(ARRAY[5011]), '<polyline fill="none" stroke="#1f77b4" stroke-width="2" points="([^"]*)"'))[1] AS tps_points;
SELECT (regexp_match(pgbench_lab.plot(ARRAY[5011]), '<polygon class="peak" points="([^"]*)"'))[1] AS peak,
       (regexp_match(pgbench_lab.plot(ARRAY[5011]), '<rect class="knee" x="([0-9.]+)" y="([0-9.]+)"'))::text AS knee,
       (SELECT count(*) FROM regexp_matches(pgbench_lab.plot(ARRAY[5011]), '<g class="panel"', 'g')) AS panels;

-- Over 12 doublings: a grid line at every power of two, a label at every
-- second one (a sweep of 1, 2, 4 and 1048576 clients, imported).
SELECT kind, source_id, id FROM pgbench_lab.import(jsonb_set(jsonb_set(:'fixture', '{runs,3,clients}', '1048576'),
                                                             '{experiments,0,params,clients}', '[1, 2, 4, 1048576]'))
 WHERE kind = 'experiment';
SELECT (SELECT count(*) FROM regexp_matches(pgbench_lab.plot(ARRAY[5037]), '<line x1="[0-9.]+" y1="50" x2="[0-9.]+" y2="340" stroke="#e0e0e0"/>', 'g')) AS grid_lines,
       ARRAY(SELECT m[1]::int FROM regexp_matches(pgbench_lab.plot(ARRAY[5037]), '<text class="xtick" x="[0-9.]+" y="358" text-anchor="middle">([0-9]+)</text>', 'g') AS m) AS labels,
       (regexp_match(pgbench_lab.plot(ARRAY[5037]), '<polygon class="peak" points="([0-9.]+),'))[1] AS peak_x;

-- Sweeps whose peak TPS are more than 5 times apart go to separate
-- panels, each with its own y axis; within 5 times they share one.  The
-- fixture again with every TPS times 20 (5050), and times 1.5 (5063).
SELECT kind, source_id, id FROM pgbench_lab.import(jsonb_set(:'fixture', '{runs}',
           (SELECT jsonb_agg(jsonb_set(r, '{tps}', to_jsonb((r->>'tps')::float8 * 20)) ORDER BY i)
              FROM jsonb_array_elements(:'fixture'::jsonb -> 'runs') WITH ORDINALITY AS x(r, i))))
 WHERE kind = 'experiment';
SELECT kind, source_id, id FROM pgbench_lab.import(jsonb_set(:'fixture', '{runs}',
           (SELECT jsonb_agg(jsonb_set(r, '{tps}', to_jsonb((r->>'tps')::float8 * 1.5)) ORDER BY i)
              FROM jsonb_array_elements(:'fixture'::jsonb -> 'runs') WITH ORDINALITY AS x(r, i))))
 WHERE kind = 'experiment';
SELECT ids, (SELECT count(*) FROM regexp_matches(pgbench_lab.plot(ids), '<g class="panel"', 'g')) AS panels,
       (SELECT count(*) FROM regexp_matches(pgbench_lab.plot(ids), '<polygon class="peak"', 'g')) AS peaks,
       (SELECT count(*) FROM regexp_matches(pgbench_lab.plot(ids), '<rect class="knee"', 'g')) AS knees,
       ARRAY(SELECT m[1] FROM regexp_matches(pgbench_lab.plot(ids), 'font-size="14">([^<]*)<', 'g') AS m) AS panel_titles
  FROM (VALUES (ARRAY[5011, 5063]::bigint[]), (ARRAY[5011, 5050]), (ARRAY[5050, 5011, 5063])) AS v(ids);
\pset format unaligned
\pset tuples_only on
SELECT pgbench_lab.plot(ARRAY[5011, 5050]);
\pset format aligned
\pset tuples_only off

-- Bad thresholds are refused before anything runs or is recorded.
SELECT (SELECT count(*) FROM pgbench_lab.experiments) AS experiments_before,
       (SELECT count(*) FROM pgbench_lab.runs) AS runs_before \gset
\set SHOW_CONTEXT never
SELECT * FROM pgbench_lab.sweep_verdict(5011, 0);
SELECT * FROM pgbench_lab.sweep_verdict(5011, 1);
SELECT * FROM pgbench_lab.sweep_verdict(5011, 'NaN');
CALL pgbench_lab.sweep('select-only', '{1,2}', '1 s', knee_threshold => 1.5);
CALL pgbench_lab.sweep('select-only', '{1,2}', '1 s', knee_threshold => NULL);
CREATE FUNCTION pg_temp.sqlstate_of(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE q;
    RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE;
END
$$;
SELECT q AS statement, pg_temp.sqlstate_of(q) AS sqlstate
  FROM unnest(ARRAY['SELECT pgbench_lab.sweep_verdict(5011, 0)',
                    'SELECT pgbench_lab.sweep_verdict(5011, -0.5)',
                    'SELECT pgbench_lab.sweep_verdict(5011, 1)',
                    'SELECT pgbench_lab.sweep_verdict(5011, ''NaN'')',
                    'SELECT pgbench_lab.sweep_verdict(5011, ''-Infinity'')',
                    'SELECT pgbench_lab.sweep_verdict(5011, NULL)',
                    'CALL pgbench_lab.sweep(''select-only'', ''{1,2}'', ''1 s'', knee_threshold => 0)',
                    'CALL pgbench_lab.sweep(''select-only'', ''{1,2}'', ''1 s'', knee_threshold => 1)',
                    'CALL pgbench_lab.sweep(''select-only'', ''{1,2}'', ''1 s'', knee_threshold => ''NaN'')',
                    'CALL pgbench_lab.sweep(''select-only'', ''{1,2}'', ''1 s'', knee_threshold => NULL)']) AS q;
SELECT (SELECT count(*) FROM pgbench_lab.experiments) = :experiments_before AS no_experiment,
       (SELECT count(*) FROM pgbench_lab.runs) = :runs_before AS no_run;

-- The one-round path of a sweep's verdicts (its kind's verdicts function,
-- read through experiment_verdicts()): each step's ratio of its single
-- runs, with no interval.
SELECT * FROM pgbench_lab.experiment_verdicts(5011);
SELECT clients, rounds, tps_min, tps_max, round(ratio::numeric, 4) AS ratio, ratio_low, coverage, verdict, decided
  FROM pgbench_lab.sweep_summary(5011);

-- Rounds, the smallest effect and the confidence are checked with the
-- other arguments, before anything runs or is recorded.
SELECT q AS statement, pg_temp.sqlstate_of(q) AS sqlstate
  FROM unnest(ARRAY['CALL pgbench_lab.sweep(''select-only'', ''{1,2}'', ''1 s'', rounds => 0)',
                    'CALL pgbench_lab.sweep(''select-only'', ''{1,2}'', ''1 s'', rounds => 101)',
                    'CALL pgbench_lab.sweep(''select-only'', ''{1,2}'', ''1 s'', rounds => NULL)',
                    'CALL pgbench_lab.sweep(''select-only'', ''{1,2}'', ''1 s'', rounds => 2, smallest_effect => 1)',
                    'CALL pgbench_lab.sweep(''select-only'', ''{1,2}'', ''1 s'', rounds => 2, confidence => 0.5)']) AS q;
CALL pgbench_lab.sweep('select-only', '{1,2}', '1 s', rounds => 0);
SELECT (SELECT count(*) FROM pgbench_lab.experiments) = :experiments_before AS no_experiment,
       (SELECT count(*) FROM pgbench_lab.runs) = :runs_before AS no_run;
\set SHOW_CONTEXT errors

-- Sweeps made of fixtures, imported as one export document: counts[i]
-- clients, tps[r][i] the TPS of count i in round r, the rounds run as
-- sweep() runs them (rising in odd rounds, falling in even ones); the
-- average latency of each run is clients / TPS (Little's law).
CREATE TEMP TABLE fixtures (n integer, name text, counts integer[], tps float8[], extra jsonb DEFAULT '{}');
INSERT INTO fixtures (n, name, counts, tps, extra) VALUES
    (1, 'grows', '{1,2,4,8}', '{{1000,1200,2600,2500}}', '{}'),
    (2, 'noisy', '{1,2,4,8,16}', '{{1000,1900,2000,5000,5100}}', '{}'),
    (3, 'smooth', '{1,2,4,8,16}', '{{1000,1900,3400,5000,5100}}', '{}'),
    (4, 'rising', '{1,2,4}', '{{1000,1100,2600}}', '{}'),
    (5, 'six', '{1,2,4,8}', '{{1000,1600,2600,2500},{1010,1580,2620,2520},{990,1620,2580,2480},
                              {1005,1590,2610,2505},{995,1610,2590,2495},{1000,1600,2600,2500}}', '{}'),
    (6, 'wide', '{1,2,4,8}', '{{1000,1900,3600,4300},{1000,1900,3600,4700},{1000,1900,3600,5000},
                               {1000,1900,3600,5200},{1000,1900,3600,5600},{1000,1900,3600,6100}}', '{}'),
    (7, 'two', '{1,2,4,8}', '{{1000,1900,2600,2500},{1100,1800,2500,2450}}', '{}'),
    (8, 'own', '{1,2}', '{{1000,1900},{1000,1950},{1000,1850},{1000,1900},{1000,1920}}',
        '{"smallest_effect": 0.2, "confidence": 0.9}'),
    (9, 'odd', '{1,2}', '{{1000,1900},{1000,1950},{1000,1850},{1000,1900},{1000,1920}}',
        '{}');
CREATE TEMP TABLE made AS
    WITH s AS (
        SELECT f.n, f.counts, f.extra, array_length(f.tps, 1) AS rounds, r, i, f.counts[i] AS c, f.tps[r][i] AS t,
               row_number() OVER (PARTITION BY f.n ORDER BY r, CASE WHEN r % 2 = 0 THEN -i ELSE i END) AS ordinal
          FROM fixtures f, generate_series(1, array_length(f.tps, 1)) AS r, generate_series(1, array_length(f.counts, 1)) AS i),
    e AS (
        SELECT s.n, (:'fixture'::jsonb -> 'experiments' -> 0) || jsonb_build_object(
                   'experiment_id', s.n, 'label', 'fixture',
                   'params', jsonb_build_object('clients', s.counts, 'duration', '00:00:10', 'settings', '{}'::jsonb,
                                                'rounds', s.rounds) || s.extra,
                   'runs', jsonb_agg(jsonb_build_object('run_id', 100 * s.n + s.ordinal, 'ordinal', s.ordinal,
                                                        'variant', s.i, 'round', s.r) ORDER BY s.ordinal)) AS e
          FROM s GROUP BY s.n, s.counts, s.extra, s.rounds)
    SELECT f.name, i.id
      FROM pgbench_lab.import(:'fixture'::jsonb || jsonb_build_object(
               'runs', (SELECT jsonb_agg((:'fixture'::jsonb -> 'runs' -> 0) || jsonb_build_object(
                                             'run_id', 100 * s.n + s.ordinal, 'clients', s.c, 'tps', s.t,
                                             'latency_avg_ms', s.c * 1000 / s.t) ORDER BY s.n, s.ordinal) FROM s),
               'experiments', (SELECT jsonb_agg(e.e ORDER BY e.n) FROM e))) AS i
      JOIN fixtures f ON f.n = i.source_id
     WHERE i.kind = 'experiment';
SELECT max(id) FILTER (WHERE name = 'grows') AS grows, max(id) FILTER (WHERE name = 'noisy') AS noisy,
       max(id) FILTER (WHERE name = 'smooth') AS smooth, max(id) FILTER (WHERE name = 'rising') AS rising,
       max(id) FILTER (WHERE name = 'six') AS six, max(id) FILTER (WHERE name = 'wide') AS wide,
       max(id) FILTER (WHERE name = 'two') AS two, max(id) FILTER (WHERE name = 'own') AS own,
       max(id) FILTER (WHERE name = 'odd') AS odd
  FROM made \gset
-- 'odd' holds a smallest effect and a confidence no verdict can use
-- (import() refuses them: they are written after it)
UPDATE pgbench_lab.experiments SET params = params || '{"smallest_effect": "big", "confidence": 1}'
 WHERE experiment_id = :odd;

-- 1. A step that gains little followed by one that gains much: 1 -> 2
-- clients add 20% of linear scaling (below 50%), but 4 clients add 53%
-- over 1 client, so 1 client is no knee (a sweep once named it while TPS
-- grew on to its peak at 4); the knee is 4, before the loss to 8.
SELECT peak_clients, knee_clients, passed_over, rounds, knee_ratio, knee_ratio_low, knee_decided
  FROM pgbench_lab.sweep_verdict(:grows);
SELECT clients, tps, round(linear_share::numeric, 4) AS linear_share, mark FROM pgbench_lab.sweep_summary(:grows);
\pset format unaligned
\pset tuples_only on
SELECT finding FROM pgbench_lab.sweep_verdict(:grows);
SELECT line FROM pgbench_lab.report(:grows) AS line WHERE line ~ '(Knee|knee|clients:|linear|round)';
\pset format aligned
\pset tuples_only off
-- a lower threshold (0.2) needs no passing over: 1 -> 2 clients add 20%,
-- not below it
SELECT peak_clients, knee_clients, passed_over FROM pgbench_lab.sweep_verdict(:grows, 0.2);

-- 2. One noisy step: TPS at 4 clients fell short (2000 where 2 gave 1900
-- and 8 give 5000), so 2 -> 4 clients look like the knee; 8 clients gain
-- 54% of linear scaling over 2, so the search goes on to the step from 8
-- to 16.  Without that noisy step nothing is passed over.
SELECT v.peak_clients, v.knee_clients, v.passed_over
  FROM unnest(ARRAY[:noisy, :smooth]) AS id, pgbench_lab.sweep_verdict(id) v;
\pset format unaligned
\pset tuples_only on
SELECT line FROM pgbench_lab.report(:noisy) AS line WHERE line ~ '(clients:|Passed over)';
\pset format aligned
\pset tuples_only off
-- every step below the threshold passed over: no knee, and the sweep
-- should go higher
\pset format unaligned
\pset tuples_only on
SELECT knee_clients, passed_over, finding FROM pgbench_lab.sweep_verdict(:rising);
\pset format aligned
\pset tuples_only off

-- 3. Six rounds: each count's TPS is the median of its rounds, with their
-- min and max; each step's ratio is paired by round and judged with
-- paired_verdict() (95 % interval from 6 rounds).  4 -> 8 clients lose
-- 4% in every round: the interval (×0.96) lies below the ×1.5 the knee
-- threshold asks of that step, so the knee at 4 holds.
SELECT peak_clients, peak_tps, knee_clients, rounds, round(knee_ratio::numeric, 4) AS knee_ratio,
       round(knee_ratio_low::numeric, 4) AS low, round(knee_ratio_high::numeric, 4) AS high,
       round(knee_coverage::numeric, 4) AS coverage, knee_decided, passed_over
  FROM pgbench_lab.sweep_verdict(:six);
SELECT clients, rounds, tps, tps_min, tps_max, tps_change, round(ratio::numeric, 4) AS ratio,
       round(ratio_low::numeric, 4) AS low, round(ratio_high::numeric, 4) AS high, verdict, decided, mark
  FROM pgbench_lab.sweep_summary(:six);
SELECT comparison, measure, rounds, round(ratio::numeric, 4) AS ratio, round(ratio_low::numeric, 4) AS low,
       round(ratio_high::numeric, 4) AS high, round(coverage::numeric, 4) AS coverage, verdict, decided, basis
  FROM pgbench_lab.experiment_verdicts(:six);
\pset format unaligned
\pset tuples_only on
SELECT line FROM pgbench_lab.report(:six) AS line
 WHERE line !~ '^(Experiment|status|imported|label|session settings|Figures|Each run)';
\pset format aligned
\pset tuples_only off

-- The same knee with an interval that cannot tell the gain from the
-- threshold: 4 -> 8 clients gain from ×1.19 to ×1.69 over the rounds
-- (median 5100 tps against 3600, 42% of linear scaling, below 50%); the
-- interval holds ×1.5, so the knee is named but uncertain.  With two
-- rounds only, the interval covers 50 %: uncertain too.
SELECT id, v.knee_clients, v.rounds, round(v.knee_ratio::numeric, 4) AS knee_ratio,
       round(v.knee_ratio_low::numeric, 4) AS low, round(v.knee_ratio_high::numeric, 4) AS high,
       round(v.knee_coverage::numeric, 4) AS coverage, v.knee_decided
  FROM unnest(ARRAY[:wide, :two]) AS id, pgbench_lab.sweep_verdict(id) v;
\pset format unaligned
\pset tuples_only on
SELECT finding FROM pgbench_lab.sweep_verdict(:wide);
SELECT finding FROM pgbench_lab.sweep_verdict(:two);
SELECT line FROM pgbench_lab.report(:two) AS line WHERE line ~ '(clients:|interval|round|against)' AND line !~ '^Figures';
\pset format aligned
\pset tuples_only off

-- A recorded smallest effect and confidence are the verdicts' (0.2 and
-- 0.9 here: 5 rounds reach 90 %); ones that cannot be used fall back to
-- 0.02 and 0.95.
SELECT id, comparison, rounds, round(coverage::numeric, 4) AS coverage, verdict, decided, basis
  FROM unnest(ARRAY[:own, :odd]) AS id, pgbench_lab_internal.sweep_verdicts(id);
