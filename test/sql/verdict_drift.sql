-- What may undo a verdict, said in the findings, from documents of given
-- figures (no runs): a drift across the rounds (drift(), rounds_drift(),
-- drift_words()); a paired ratio that the medians contradict; checkpoint
-- settings compared by runs that saw no checkpoint.
\encoding UTF8
SET client_min_messages = warning;
SET timezone = 'UTC';
SET extra_float_digits = 0;
\set SHOW_CONTEXT never
\set fixture `cat test/fixtures/lab_a.json`

-- the drift of (contender, round, TPS): a rise in every contender over 6
-- rounds is called; the same figures shuffled, or 2 rounds, are not; a
-- fall over 3 rounds of two contenders is (z = 2); ties give no drift
SELECT c, contenders, rounds, round(rho::numeric, 3) AS rho, round(z::numeric, 3) AS z,
       round(change::numeric, 3) AS change, drifted
  FROM (VALUES ('rise', ARRAY[1, 2, 2, 1, 1, 2, 2, 1, 1, 2, 2, 1], ARRAY[1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6],
                ARRAY[250, 260, 420, 400, 550, 580, 700, 690, 850, 900, 975, 1010]::float8[]),
               ('shuffled', ARRAY[1, 2, 2, 1, 1, 2, 2, 1, 1, 2, 2, 1], ARRAY[1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6],
                ARRAY[700, 690, 250, 260, 975, 1010, 420, 400, 850, 900, 550, 580]::float8[]),
               ('two rounds', ARRAY[1, 2, 2, 1], ARRAY[1, 1, 2, 2], ARRAY[250, 260, 975, 1010]::float8[]),
               ('fall', ARRAY[1, 2, 1, 2, 1, 2], ARRAY[1, 1, 2, 2, 3, 3], ARRAY[900, 910, 700, 720, 400, 420]::float8[]),
               ('ties', ARRAY[1, 2, 1, 2, 1, 2], ARRAY[1, 1, 2, 2, 3, 3], ARRAY[900, 900, 900, 900, 900, 900]::float8[]))
       AS x(c, v, r, t),
       pgbench_lab_internal.drift(x.v, x.r, x.t);
-- a ratio above 1 beside a median below, and the other way round
SELECT pgbench_lab_internal.medians_disagree(1.10, 500, 625) AS gain_medians_deny,
       pgbench_lab_internal.medians_disagree(0.90, 700, 625) AS loss_medians_deny,
       pgbench_lab_internal.medians_disagree(1.10, 700, 625) AS agree,
       pgbench_lab_internal.medians_disagree(NULL, 700, 625) AS no_ratio;

-- the checkpoint settings a set changes
SELECT pgbench_lab_internal.sets_holding('[{}, {"checkpoint_timeout": "15min", "work_mem": "8MB", "MAX_WAL_SIZE": "2GB"}]',
                                         pgbench_lab_internal.checkpoint_settings()) AS checkpoint;

-- A validate_recommendation after a cold start, as a DBA met it: TPS rose
-- ×3.9 over 6 rounds of 2 s; the reload group's paired ratio says +10 %
-- while its median TPS (500) is below the current settings' (625); its
-- checkpoint settings ran without a checkpoint; and a commit-bound change
-- (wal_compression) ran in-server (the path's words: settings_path.sql).
SELECT pg_catalog.setval('pgbench_lab.runs_run_id_seq', 8000, false) AS next_id;
CREATE TEMP TABLE plan (experiment int, source int, variant int, round int, ordinal int, tps float8, via text);
INSERT INTO plan
SELECT 9500, 9500 + 3 * (r - 1) + v, v, r, 3 * (r - 1) + CASE WHEN r % 2 = 0 THEN 4 - v ELSE v END,
       (ARRAY[ARRAY[250, 400, 550, 700, 850, 975],
              ARRAY[255, 410, 560, 715, 860, 990],
              ARRAY[275, 440, 440, 560, 935, 1072.5]])[v][r], 'spi'
  FROM generate_series(1, 6) r, generate_series(1, 3) v;
-- a compare_settings of max_wal_size whose runs saw no checkpoint
INSERT INTO plan
SELECT 9700, 9700 + 2 * (r - 1) + v, v, r, 2 * (r - 1) + CASE WHEN r % 2 = 0 THEN 3 - v ELSE v END,
       CASE v WHEN 1 THEN 1000 + (r % 3) ELSE 1010 - (r % 2) END, 'spi'
  FROM generate_series(1, 6) r, generate_series(1, 2) v;
CREATE TEMP TABLE doc AS
SELECT (:'fixture'::jsonb - ARRAY['runs', 'experiments']) || jsonb_build_object(
    'runs', (SELECT jsonb_agg(((:'fixture'::jsonb)->'runs'->4) || jsonb_build_object(
                 'run_id', p.source, 'tps', p.tps, 'via', p.via, 'checkpoints', 0,
                 'connections', CASE WHEN p.via <> 'spi' THEN 1 END)
               ORDER BY p.source) FROM plan p),
    'experiments', (SELECT jsonb_agg(jsonb_build_object(
                        'experiment_id', x.id, 'kind', x.kind, 'workload', 'tpcb-like', 'label', NULL,
                        'params', x.params, 'started_at', '2026-03-04T10:00:00+00:00', 'finished_at', '2026-03-04T10:10:00+00:00',
                        'status', 'done', 'source_server', NULL, 'source_experiment_id', NULL,
                        'runs', (SELECT jsonb_agg(jsonb_build_object('run_id', p.source, 'ordinal', p.ordinal,
                                                                     'variant', p.variant, 'round', p.round) ORDER BY p.ordinal)
                                   FROM plan p WHERE p.experiment = x.id)) ORDER BY x.id)
                      FROM (VALUES (9500, 'validate_recommendation',
                                    '{"settings": [{}, {"wal_compression": "pglz", "work_mem": "19MB"},
                                                   {"checkpoint_timeout": "15min", "max_wal_size": "6417MB"}],
                                      "groups": ["current", "session", "reload"],
                                      "changes": [{"name": "checkpoint_timeout", "current": "5min", "recommended": "15min",
                                                   "grp": "reload", "measured": true, "two_phase": false},
                                                  {"name": "max_wal_size", "current": "1GB", "recommended": "6417MB",
                                                   "grp": "reload", "measured": true, "two_phase": false},
                                                  {"name": "wal_compression", "current": "off", "recommended": "pglz",
                                                   "grp": "session", "measured": true, "two_phase": false},
                                                  {"name": "work_mem", "current": "4MB", "recommended": "19MB",
                                                   "grp": "session", "measured": true, "two_phase": false}],
                                      "clients": 1, "duration": "00:00:02", "rounds": 6, "smallest_effect": 0.02,
                                      "confidence": 0.95, "warmup": "00:00:02"}'::jsonb),
                                   (9700, 'compare_settings',
                                    '{"settings": [{}, {"max_wal_size": "32MB"}], "clients": 1, "duration": "00:00:02",
                                      "rounds": 6, "warmup": "00:00:00"}'))
                           AS x(id, kind, params))) AS d;
CREATE TEMP TABLE ids AS
SELECT source_id, id FROM pgbench_lab.import((SELECT d FROM doc)) WHERE kind = 'experiment';

-- the reload group's verdict and the figures it comes from: the paired
-- ratio ×1.10, its median TPS below the current settings'
SELECT grp, rounds, tps_median, round(ratio_median::numeric, 3) AS ratio_median, verdict, decided, checkpoints_per_min
  FROM pgbench_lab_internal.validate_groups((SELECT id FROM ids WHERE source_id = 9500));
SELECT * FROM pgbench_lab_internal.rounds_drift((SELECT id FROM ids WHERE source_id = 9500));
SELECT comparison, verdict, decided FROM pgbench_lab.experiment_verdicts((SELECT id FROM ids WHERE source_id = 9500));
\pset format unaligned
\pset tuples_only on
-- the finding: the medians lead, the contradiction is said, the
-- checkpoint settings were not exercised, the drift and the path follow
SELECT finding FROM pgbench_lab_internal.validate_result((SELECT id FROM ids WHERE source_id = 9500));
-- report() says them too, and the warm-up
SELECT * FROM pgbench_lab.report((SELECT id FROM ids WHERE source_id = 9500));
-- max_wal_size without a checkpoint; with one, nothing is said of it
SELECT finding FROM pgbench_lab_internal.settings_result((SELECT id FROM ids WHERE source_id = 9700));
UPDATE pgbench_lab.runs SET checkpoints = 1
 WHERE run_id = (SELECT min(x.run_id) FROM pgbench_lab.experiment_runs x
                  WHERE x.experiment_id = (SELECT id FROM ids WHERE source_id = 9700) AND x.variant = 2);
SELECT finding FROM pgbench_lab_internal.settings_result((SELECT id FROM ids WHERE source_id = 9700));
\pset format aligned
\pset tuples_only off

-- leave nothing behind for the tests after this one
DELETE FROM pgbench_lab.experiments WHERE experiment_id IN (SELECT id FROM ids);
DELETE FROM pgbench_lab.runs WHERE source_server = 'fixture-a' AND source_run_id BETWEEN 9500 AND 9799;
