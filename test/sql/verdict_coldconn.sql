-- cold_vs_warm and connection_cost in rounds, from documents (no runs):
-- connection_cost's refusals of rounds, smallest_effect and confidence
-- (cold_vs_warm's: coldwarm_errors), and what their readers make of
-- imported experiments of several rounds: the verdicts (one row per
-- comparison, the TPS of the runs of each round paired and judged by
-- paired_verdict()), the procedures' result columns, the findings and the
-- reports.
\encoding UTF8
SET client_min_messages = warning;
SET timezone = 'UTC';
\set SHOW_CONTEXT never
\set fixture `cat test/fixtures/lab_a.json`

-- refused before anything runs or is recorded
CALL pgbench_lab.connection_cost(rounds => 0);
CALL pgbench_lab.connection_cost(rounds => 101);
CALL pgbench_lab.connection_cost(rounds => NULL);
CALL pgbench_lab.connection_cost(smallest_effect => -0.1);
CALL pgbench_lab.connection_cost(confidence => 1);
SELECT count(*) AS connection_cost_experiments FROM pgbench_lab.experiments
 WHERE kind = 'connection_cost' AND source_server IS NULL;

SELECT pg_catalog.setval('pgbench_lab.runs_run_id_seq', 6000, false) AS next_id;
-- the runs: a cold_vs_warm of 6 rounds (cold, OS-warm, warm in every
-- round, the warm run about 10 % slower than the OS-warm one); a
-- connection_cost of 6 rounds (each in the other order than the one
-- before); a connection_cost of one round without the in-server run, whose
-- params hold a smallest effect and a confidence no verdict can use
CREATE TEMP TABLE plan (experiment int, source int, variant int, round int, ordinal int, tps float8, via text);
INSERT INTO plan
SELECT 9100, 9100 + 3 * (r - 1) + v, v, r, 3 * (r - 1) + v,
       CASE v WHEN 1 THEN 1000 + 10 * r WHEN 2 THEN 3000 + 20 * (r % 3) ELSE 0.9 * (3000 + 20 * (r % 3)) + r END, 'spi'
  FROM generate_series(1, 6) r, generate_series(1, 3) v;
INSERT INTO plan
SELECT 9200, 9200 + 3 * (r - 1) + v, v, r, 3 * (r - 1) + CASE WHEN r % 2 = 0 THEN 4 - v ELSE v END,
       CASE v WHEN 1 THEN 46000 + 500 * r WHEN 2 THEN 6500 - 50 * r ELSE 100 + r END,
       (ARRAY['spi', 'libpq', 'libpq-connect'])[v]
  FROM generate_series(1, 6) r, generate_series(1, 3) v;
INSERT INTO plan VALUES (9300, 9301, 1, 1, 1, 40000, 'libpq'), (9300, 9302, 2, 1, 2, 600, 'libpq-connect');
CREATE TEMP TABLE doc AS
SELECT (:'fixture'::jsonb - ARRAY['runs', 'experiments']) || jsonb_build_object(
    'runs', (SELECT jsonb_agg(((:'fixture'::jsonb)->'runs'->4) || jsonb_build_object(
                 'run_id', p.source, 'tps', p.tps, 'via', p.via,
                 'connections', CASE WHEN p.via <> 'spi' THEN 1 END,
                 'connection_avg_ms', CASE WHEN p.via = 'libpq-connect' THEN 11 + p.round / 10.0 END,
                 'tps_without_connections', CASE WHEN p.via = 'libpq-connect' THEN 2 * p.tps END)
               ORDER BY p.source) FROM plan p),
    'experiments', (SELECT jsonb_agg(jsonb_build_object(
                        'experiment_id', x.id, 'kind', x.kind, 'workload', 'select-only', 'label', x.label,
                        'params', x.params, 'started_at', '2026-03-04T10:00:00+00:00', 'finished_at', '2026-03-04T10:10:00+00:00',
                        'status', 'done', 'source_server', NULL, 'source_experiment_id', NULL,
                        'runs', (SELECT jsonb_agg(jsonb_build_object('run_id', p.source, 'ordinal', p.ordinal,
                                                                     'variant', p.variant, 'round', p.round) ORDER BY p.ordinal)
                                   FROM plan p WHERE p.experiment = x.id)) ORDER BY x.id)
                      FROM (VALUES (9100, 'cold_vs_warm', NULL,
                                    '{"clients": 1, "duration": "00:00:05", "relations": ["public.pgbench_accounts"],
                                      "relids": [16400], "rounds": 6, "smallest_effect": 0.02, "confidence": 0.95}'::jsonb),
                                   (9200, 'connection_cost', 'paths',
                                    '{"clients": 1, "duration": "00:00:05", "rounds": 6, "smallest_effect": 0.05, "confidence": 0.9,
                                      "settings": [{"via": "spi"}, {"via": "libpq"}, {"via": "libpq-connect"}]}'),
                                   (9300, 'connection_cost', 'storm',
                                    '{"clients": 500, "duration": "00:00:05", "rounds": 1,
                                      "settings": [{"via": "libpq"}, {"via": "libpq-connect"}],
                                      "in_server_left_out": "500 clients in-server need 501 background worker slots"}'))
                           AS x(id, kind, label, params))) AS d;
CREATE TEMP TABLE ids AS
SELECT source_id, id FROM pgbench_lab.import((SELECT d FROM doc)) WHERE kind = 'experiment';
-- (import() refuses such values: they are written after it)
UPDATE pgbench_lab.experiments SET params = params || '{"smallest_effect": "lots", "confidence": 7}'
 WHERE experiment_id = (SELECT id FROM ids WHERE source_id = 9300);

-- cold_vs_warm: the runs round by round, each against its round's warm run
SELECT state, round, tps, seconds_to_90pct FROM pgbench_lab.cold_vs_warm_runs((SELECT id FROM ids WHERE source_id = 9100))
 WHERE round <= 2;
SELECT * FROM pgbench_lab_internal.cold_vs_warm_states((SELECT id FROM ids WHERE source_id = 9100));
SELECT comparison, measure, rounds, round(ratio::numeric, 4) AS ratio, round(ratio_low::numeric, 4) AS low,
       round(ratio_high::numeric, 4) AS high, coverage, verdict, decided, basis
  FROM pgbench_lab_internal.cold_vs_warm_verdicts((SELECT id FROM ids WHERE source_id = 9100));
-- connection_cost: the paths over their rounds, the verdicts at the
-- experiment's own smallest effect (5 %) and confidence (90 %), the result
-- columns (the first round's runs, medians, the ratios' medians)
SELECT variant, via, runs, rounds, tps_median, tps_min, tps_max, tps_without_connections_median,
       round(connection_avg_ms_median::numeric, 4) AS connection_avg_ms_median,
       first_run_id - (SELECT min(run_id) FROM pgbench_lab.runs WHERE run_id >= 6000) AS first_run
  FROM pgbench_lab_internal.connection_cost_paths((SELECT id FROM ids WHERE source_id = 9200));
SELECT comparison, measure, rounds, round(ratio::numeric, 4) AS ratio, round(ratio_low::numeric, 4) AS low,
       round(ratio_high::numeric, 4) AS high, coverage, verdict, decided, basis
  FROM pgbench_lab_internal.connection_cost_verdicts((SELECT id FROM ids WHERE source_id = 9200));
SELECT spi_run_id - (SELECT min(run_id) FROM pgbench_lab.runs WHERE run_id >= 6000) AS spi_run, spi_tps, libpq_tps, connect_tps,
       connect_tps_without_connections, round(connection_avg_ms::numeric, 4) AS connection_avg_ms,
       round(spi_vs_libpq::numeric, 4) AS spi_vs_libpq, round(libpq_vs_connect::numeric, 4) AS libpq_vs_connect
  FROM pgbench_lab_internal.connection_cost_result((SELECT id FROM ids WHERE source_id = 9200));
-- one round, in-server left out, unusable verdict params: one verdict, at
-- 2 % and 95 %, no interval and no direction
SELECT comparison, measure, rounds, round(ratio::numeric, 4) AS ratio, round(ratio_low::numeric, 4) AS low,
       round(ratio_high::numeric, 4) AS high, coverage, verdict, decided, basis
  FROM pgbench_lab_internal.connection_cost_verdicts((SELECT id FROM ids WHERE source_id = 9300));
-- the kinds' verdicts are every kind's: experiment_verdicts() reads them
SELECT x.source_id, v.comparison, v.verdict, v.decided
  FROM ids x, pgbench_lab.experiment_verdicts(x.id) WITH ORDINALITY v ORDER BY x.source_id, v.ordinality;
-- another kind's experiment has no verdicts of these kinds
SELECT (SELECT count(*) FROM pgbench_lab_internal.cold_vs_warm_verdicts((SELECT id FROM ids WHERE source_id = 9200))) AS cold_vs_warm,
       (SELECT count(*) FROM pgbench_lab_internal.connection_cost_verdicts((SELECT id FROM ids WHERE source_id = 9100))) AS connection_cost;
\pset format unaligned
\pset tuples_only on
SELECT pgbench_lab.cold_vs_warm_finding((SELECT id FROM ids WHERE source_id = 9100));
SELECT finding FROM pgbench_lab_internal.connection_cost_result((SELECT id FROM ids WHERE source_id = 9300));
SELECT * FROM pgbench_lab.report((SELECT id FROM ids WHERE source_id = 9100));
SELECT * FROM pgbench_lab.report((SELECT id FROM ids WHERE source_id = 9200));
\pset format aligned
\pset tuples_only off

-- leave nothing behind for the tests after this one
DELETE FROM pgbench_lab.experiments WHERE experiment_id IN (SELECT id FROM ids);
DELETE FROM pgbench_lab.runs WHERE source_server = 'fixture-a' AND source_run_id BETWEEN 9100 AND 9399;
