-- How the settings kinds (compare_settings, validate_recommendation) run
-- their comparison: the path of a commit-bound setting (libpq chosen for a
-- superuser who gave no via and no target; said to exaggerate when the
-- runs stayed in-server), and the warm-up's checks and step; from
-- documents of given figures for the findings (no runs).
\encoding UTF8
SET client_min_messages = warning;
SET timezone = 'UTC';
\set SHOW_CONTEXT never
\set fixture `cat test/fixtures/lab_a.json`

-- A commit-bound setting goes over libpq for a superuser who gave no via
-- and no target; not when via is given, the runs go elsewhere, nothing
-- commit-bound is compared, or the caller is no superuser (a libpq run to
-- this server would need a password).
SELECT x.what, p.options_out, p.params
  FROM (VALUES ('commit-bound', '[{}, {"Synchronous_Commit": "off"}]'::jsonb, '{"clients": 1}'::jsonb),
               ('restart-level', '[{}, {"wal_buffers": "16MB"}]', '{}'),
               ('via given', '[{}, {"synchronous_commit": "off"}]', '{"via": "spi"}'),
               ('target', '[{}, {"synchronous_commit": "off"}]', '{"target": "host=elsewhere"}'),
               ('not commit-bound', '[{}, {"work_mem": "8MB"}]', '{}')) AS x(what, sets, options),
       pgbench_lab_internal.commit_bound_path(x.sets, x.options) p;
CREATE ROLE settings_path_tuner;
SET ROLE settings_path_tuner;
SELECT p.options_out, p.params FROM pgbench_lab_internal.commit_bound_path('[{}, {"synchronous_commit": "off"}]', '{}') p;
RESET ROLE;
DROP ROLE settings_path_tuner;
SELECT pgbench_lab_internal.sets_holding('[{"fsync": "off"}, {"max_wal_size": "1GB", "FSYNC": "on"}, 7]',
                                         pgbench_lab_internal.commit_bound_settings()) AS commit_bound,
       pgbench_lab_internal.commit_bound_compared('{"settings": [{}], "restart_settings": {"wal_buffers": "16MB"}}') AS restart_level,
       pgbench_lab_internal.commit_bound_compared('{"settings": "not an array"}') AS unreadable;

-- The warm-up: by default one run's duration up to 5 s, '0' none, and
-- refused out of 0 to 1 hour; its step is the first set's, not counted.
SELECT pgbench_lab_internal.warmup_duration(NULL, '2 s') AS short_runs,
       pgbench_lab_internal.warmup_duration(NULL, '30 s') AS long_runs,
       pgbench_lab_internal.warmup_duration('0', '30 s') AS none,
       pgbench_lab_internal.warmup_duration('10 s', '2 s') AS given;
SELECT pgbench_lab_internal.warmup_duration('-1 s', '2 s');
SELECT pgbench_lab_internal.warmup_duration('2 hours', '2 s');
SELECT pgbench_lab_internal.warmup_step('{"variant": 1, "round": 1, "system": {"max_wal_size": "1GB"},
                                          "run": {"duration": "00:00:10", "settings": {"work_mem": "8MB"}}}',
                                        '5 s', 'settings set A (a warm-up run of 5 s, not counted)') AS step;
SELECT pgbench_lab_internal.warmup_step('{"variant": 1}', NULL, 'none') IS NULL AS no_step,
       pgbench_lab_internal.warmup_words('{"warmup": "00:00:02"}', 'set A') AS said,
       pgbench_lab_internal.warmup_words('{"warmup": "00:00:00"}', 'set A') IS NULL AS none_said,
       pgbench_lab_internal.warmup_words('{}', 'set A') IS NULL AS older_document;

-- The findings: synchronous_commit over libpq, the path chosen for it;
-- fsync in-server (as asked, or as imported), said to exaggerate.
SELECT pg_catalog.setval('pgbench_lab.runs_run_id_seq', 8600, false) AS next_id;
CREATE TEMP TABLE plan (experiment int, source int, variant int, round int, ordinal int, tps float8, via text);
INSERT INTO plan
SELECT 9600, 9600 + 2 * (r - 1) + v, v, r, 2 * (r - 1) + CASE WHEN r % 2 = 0 THEN 3 - v ELSE v END,
       CASE v WHEN 1 THEN 1000 + r ELSE 4000 + 3 * r END, 'libpq'
  FROM generate_series(1, 6) r, generate_series(1, 2) v;
INSERT INTO plan
SELECT 9650, 9650 + 2 * (r - 1) + v, v, r, 2 * (r - 1) + CASE WHEN r % 2 = 0 THEN 3 - v ELSE v END,
       CASE v WHEN 1 THEN 1000 + r ELSE 9000 + 3 * r END, 'spi'
  FROM generate_series(1, 6) r, generate_series(1, 2) v;
CREATE TEMP TABLE ids AS
SELECT source_id, id FROM pgbench_lab.import((
    SELECT (:'fixture'::jsonb - ARRAY['runs', 'experiments']) || jsonb_build_object(
        'runs', (SELECT jsonb_agg(((:'fixture'::jsonb)->'runs'->4) || jsonb_build_object(
                     'run_id', p.source, 'tps', p.tps, 'via', p.via,
                     'connections', CASE WHEN p.via <> 'spi' THEN 1 END) ORDER BY p.source) FROM plan p),
        'experiments', (SELECT jsonb_agg(jsonb_build_object(
                            'experiment_id', x.id, 'kind', 'compare_settings', 'workload', 'tpcb-like', 'label', NULL,
                            'params', x.params, 'started_at', '2026-03-04T10:00:00+00:00', 'finished_at', '2026-03-04T10:10:00+00:00',
                            'status', 'done', 'source_server', NULL, 'source_experiment_id', NULL,
                            'runs', (SELECT jsonb_agg(jsonb_build_object('run_id', p.source, 'ordinal', p.ordinal,
                                                                         'variant', p.variant, 'round', p.round) ORDER BY p.ordinal)
                                       FROM plan p WHERE p.experiment = x.id)) ORDER BY x.id)
                          FROM (VALUES (9600, '{"settings": [{}, {"synchronous_commit": "off"}], "clients": 1,
                                                "duration": "00:00:02", "rounds": 6, "via": "libpq",
                                                "via_chosen": "libpq", "warmup": "00:00:02"}'::jsonb),
                                       (9650, '{"settings": [{}, {"fsync": "off"}], "clients": 1,
                                                "duration": "00:00:02", "rounds": 6}'))
                               AS x(id, params)))))
 WHERE kind = 'experiment';
\pset format unaligned
\pset tuples_only on
SELECT finding FROM pgbench_lab_internal.settings_result((SELECT id FROM ids WHERE source_id = 9600));
SELECT finding FROM pgbench_lab_internal.settings_result((SELECT id FROM ids WHERE source_id = 9650));
-- report() says it too, with the warm-up
SELECT * FROM pgbench_lab.report((SELECT id FROM ids WHERE source_id = 9600));
\pset format aligned
\pset tuples_only off

-- leave nothing behind for the tests after this one
DELETE FROM pgbench_lab.experiments WHERE experiment_id IN (SELECT id FROM ids);
DELETE FROM pgbench_lab.runs WHERE source_server = 'fixture-a' AND source_run_id BETWEEN 9600 AND 9699;
