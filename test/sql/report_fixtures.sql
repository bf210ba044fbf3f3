-- report(), compare(), plot() and the experiment summaries on a fixed
-- export document (test/fixtures/lab_a.json, from make_lab_a.py): the
-- output is deterministic.  Imported runs get new local ids; the sequence
-- is set first so that those ids are known.
\encoding UTF8
SET client_min_messages = warning;
SELECT pg_catalog.setval('pgbench_lab.runs_run_id_seq', 1000, false) AS next_id;
\set fixture `cat test/fixtures/lab_a.json`
SELECT * FROM pgbench_lab.import(:'fixture');

-- what the import recorded
SELECT run_id, workload, clients, status, source_server, source_run_id, tps
  FROM pgbench_lab.runs WHERE run_id BETWEEN 1000 AND 1012 ORDER BY run_id;
SELECT experiment_id, kind, status, source_server, source_experiment_id
  FROM pgbench_lab.experiments WHERE experiment_id BETWEEN 1000 AND 1012 ORDER BY experiment_id;

-- the sweep: peak at 4 clients, knee at 2 (4 clients add 37% of linear)
SELECT clients, run_id, tps, latency_avg_ms, latency_p99_ms, tps_change, latency_change,
       round(linear_share::numeric, 4) AS linear_share, mark
  FROM pgbench_lab.sweep_summary(1011);
SELECT * FROM pgbench_lab.sweep_verdict(1011);
-- settings A/B: ratios paired by round
SELECT variant, name, settings, rounds, tps_median, tps_min, tps_max,
       round(ratio_median::numeric, 4) AS ratio_median, round(ratio_min::numeric, 4) AS ratio_min,
       round(ratio_max::numeric, 4) AS ratio_max
  FROM pgbench_lab.settings_ratios(1012);

\pset format unaligned
\pset tuples_only on
-- reports: a sweep, a settings comparison, a cold run, a run with scale
-- below clients, a run with a checkpoint
SELECT * FROM pgbench_lab.report(1011);
SELECT * FROM pgbench_lab.report(1012);
SELECT * FROM pgbench_lab.report(1000);
SELECT * FROM pgbench_lab.report(1003);
SELECT * FROM pgbench_lab.report(1010);
\pset format aligned
\pset tuples_only off

SELECT * FROM pgbench_lab.compare(ARRAY[1001, 1000, 1002, 1010]);

\pset format unaligned
\pset tuples_only on
SELECT pgbench_lab.plot(ARRAY[1011]);
SELECT pgbench_lab.plot(ARRAY[1000, 1010], 'hit_ratio');
\pset format aligned
\pset tuples_only off
SELECT pgbench_lab.plot(ARRAY[1012], 'latency') LIKE '<svg%</svg>' || E'\n' AS settings_plot_is_svg,
       (SELECT count(*) FROM regexp_matches(pgbench_lab.plot(ARRAY[1012]), '<polyline', 'g')) AS curves;

-- errors
\set SHOW_CONTEXT never
SELECT * FROM pgbench_lab.report(NULL);
SELECT * FROM pgbench_lab.report(999999);
SELECT * FROM pgbench_lab.compare(NULL);
SELECT * FROM pgbench_lab.compare('{}');
SELECT * FROM pgbench_lab.compare(ARRAY[1000, NULL]);
SELECT * FROM pgbench_lab.compare(ARRAY[1011]);
SELECT pgbench_lab.plot(ARRAY[1000], 'bogus');
SELECT pgbench_lab.plot(ARRAY[1000], NULL);
SELECT pgbench_lab.plot(ARRAY[1011, 1000]);
SELECT pgbench_lab.plot(ARRAY[1011], 'hit_ratio');
