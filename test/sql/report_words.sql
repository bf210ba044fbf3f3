-- The words of reports, from documents of given figures (no runs): an
-- experiment over libpq says "over libpq" (not "over libpq (libpq)"); a
-- run over libpq says its hit ratio is not measured, where it printed "0
-- hits, 0 reads"; a rate-limited run of one client speaks of "the
-- client", not of "each of the 1 client".
\encoding UTF8
SET client_min_messages = warning;
SET timezone = 'UTC';
\set SHOW_CONTEXT never
\set fixture `cat test/fixtures/lab_a.json`

SELECT pg_catalog.setval('pgbench_lab.runs_run_id_seq', 8500, false) AS next_id;
CREATE TEMP TABLE ids AS
SELECT kind, source_id, id FROM pgbench_lab.import((
    SELECT (:'fixture'::jsonb - ARRAY['runs', 'experiments']) || jsonb_build_object(
        'runs', jsonb_build_array(
            ((:'fixture'::jsonb)->'runs'->4) || '{"run_id": 9801, "via": "libpq", "clients": 1, "rate": 50,
                                                   "rate_sustained": true, "scheduled": 250, "lag_avg_ms": 0.1,
                                                   "lag_max_ms": 0.5, "blks_hit": 0, "blks_read": 0,
                                                   "hit_ratio": null, "connections": 1}'::jsonb,
            ((:'fixture'::jsonb)->'runs'->4) || '{"run_id": 9802, "via": "libpq", "tps": 1000, "connections": 1}'::jsonb,
            ((:'fixture'::jsonb)->'runs'->4) || '{"run_id": 9803, "via": "libpq", "tps": 990, "connections": 1}'::jsonb),
        'experiments', jsonb_build_array(jsonb_build_object(
            'experiment_id', 9800, 'kind', 'compare_settings', 'workload', 'tpcb-like', 'label', NULL,
            'params', '{"settings": [{}, {"jit": "off"}], "clients": 1, "duration": "00:00:05", "rounds": 1,
                        "via": "libpq"}'::jsonb,
            'started_at', '2026-03-04T10:00:00+00:00', 'finished_at', '2026-03-04T10:01:00+00:00',
            'status', 'done', 'source_server', NULL, 'source_experiment_id', NULL,
            'runs', '[{"run_id": 9802, "ordinal": 1, "variant": 1, "round": 1},
                      {"run_id": 9803, "ordinal": 2, "variant": 2, "round": 1}]'::jsonb)))));
\pset format unaligned
\pset tuples_only on
SELECT l FROM pgbench_lab.report((SELECT id FROM ids WHERE kind = 'experiment')) AS l WHERE l LIKE 'Figures%';
SELECT l FROM pgbench_lab.report((SELECT id FROM ids WHERE source_id = 9801)) AS l
 WHERE l LIKE '%Rate-limited%' OR l LIKE '  buffers%';
-- (a run that carries its counts, such as an imported one, shows them)
SELECT l FROM pgbench_lab.report((SELECT id FROM ids WHERE source_id = 9802)) AS l WHERE l LIKE '  buffers%';
\pset format aligned
\pset tuples_only off

-- leave nothing behind for the tests after this one
DELETE FROM pgbench_lab.experiments WHERE experiment_id IN (SELECT id FROM ids);
DELETE FROM pgbench_lab.runs WHERE run_id IN (SELECT id FROM ids);
