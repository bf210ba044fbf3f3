-- The statistics core behind every verdict (sql/code/internal/71_verdict.sql):
-- the sign-test interval's rank and coverage, and the three outcomes.
SET extra_float_digits = 0;

-- the rank k of the interval [d(k), d(n-k+1)] and its exact coverage:
-- 5 rounds cannot reach 95 % (93.75 %), 6 can (96.875 %); 20 rounds take
-- the 6th from each end (95.86 %)
SELECT n, s.k, round(s.coverage::numeric, 4) AS coverage, s.reached
  FROM unnest(ARRAY[1, 5, 6, 10, 20, 50]) AS n, pgbench_lab_internal.sign_rank(n, 0.95) s;
SELECT pgbench_lab_internal.rounds_needed(0.95) AS for_95, pgbench_lab_internal.rounds_needed(0.99) AS for_99;

-- A/A: the same figures in A and B give no difference, and the interval lies within ±2 %
SELECT rounds, ratio, ratio_low, ratio_high, verdict, decided, every_round, basis
  FROM pgbench_lab.paired_verdict(ARRAY[100, 101, 99, 100, 102, 98, 100], ARRAY[100, 101, 99, 100, 102, 98, 100]);

-- B twice as fast in 6 rounds: faster, beyond the smallest effect, in every round
SELECT rounds, round(ratio::numeric, 3) AS ratio, round(ratio_low::numeric, 3) AS low,
       round(ratio_high::numeric, 3) AS high, round(coverage::numeric, 4) AS coverage, verdict, decided, every_round
  FROM pgbench_lab.paired_verdict(ARRAY[100, 90, 110, 95, 105, 100], ARRAY[210, 170, 230, 200, 200, 190]);

-- the same in 5 rounds: too few to call a direction at 95 %, and "every
-- round" is not said
SELECT rounds, verdict, decided, every_round, basis
  FROM pgbench_lab.paired_verdict(ARRAY[100, 90, 110, 95, 105], ARRAY[210, 170, 230, 200, 200]);

-- nothing decided is never "no difference": two rounds of a ×119 gap are
-- undecided, saying what they reach (1 - 2 (1/2)^n) and what is needed;
-- one round gives no interval
SELECT v.verdict, v.decided, pgbench_lab_internal.verdict_phrase(v.rounds, v.ratio, v.ratio_low, v.ratio_high,
                                                                 v.coverage, v.verdict, v.basis, v.every_round) AS phrase
  FROM (VALUES (ARRAY[10.0, 11.0], ARRAY[1126.0, 1387.1]), (ARRAY[10.0], ARRAY[1192.0]), (ARRAY[]::float8[], ARRAY[]::float8[])) AS x(a, b),
       pgbench_lab.paired_verdict(x.a, x.b) v;
SELECT n, pgbench_lab_internal.rounds_short(n, 0.95) AS at_95, pgbench_lab_internal.rounds_short(n, 0.99) AS at_99
  FROM unnest(ARRAY[1, 2, 3, 5]) AS n;

-- the rounds disagree: the interval holds 1 and ±2 %: undecided
SELECT rounds, verdict, decided, basis
  FROM pgbench_lab.paired_verdict(ARRAY[100, 100, 100, 100, 100, 100, 100, 100],
                                  ARRAY[ 80, 120,  90, 110, 100, 130,  70, 105]);

-- slower by about 1 %, consistently, with a 2 % smallest effect: no
-- difference as large as it; with 0.5 %: slower
SELECT smallest_effect, verdict, decided
  FROM unnest(ARRAY[0.02, 0.005]) AS smallest_effect,
       pgbench_lab.paired_verdict(ARRAY[100, 100, 100, 100, 100, 100, 100, 100],
                                  ARRAY[ 99, 98.9, 99.1, 99, 98.8, 99.2, 99, 98.9], smallest_effect);

-- missing or failed rounds are left out; a phrase for reports
SELECT rounds FROM pgbench_lab.paired_verdict(ARRAY[100, NULL, 0, 100], ARRAY[100, 100, 100, NULL]);
SELECT pgbench_lab_internal.verdict_phrase(v.rounds, v.ratio, v.ratio_low, v.ratio_high, v.coverage, v.verdict, v.basis, v.every_round)
  FROM pgbench_lab.paired_verdict(ARRAY[100, 90, 110, 95, 105, 100], ARRAY[210, 170, 230, 200, 200, 190]) v;

-- refused: a smallest effect or confidence that is not a share
SELECT * FROM pgbench_lab.paired_verdict(ARRAY[1.0], ARRAY[1.0], smallest_effect => 2);
SELECT * FROM pgbench_lab.paired_verdict(ARRAY[1.0], ARRAY[1.0], confidence => 95);

-- Adaptive rounds.  The looks fixed in advance (each interval at
-- 1 - (1 - confidence) / looks), the rounds type and its checks.
SELECT pgbench_lab_internal.auto_looks(0.95) AS looks_95, pgbench_lab_internal.auto_looks(0.99) AS looks_99;
SELECT 'auto'::pgbench_lab.rounds AS a, ' AUTO '::pgbench_lab.rounds AS b, '6'::pgbench_lab.rounds AS c, 7::pgbench_lab.rounds AS d;
SELECT '0'::pgbench_lab.rounds;
SELECT 101::pgbench_lab.rounds;
SELECT 'some'::pgbench_lab.rounds;
SELECT pgbench_lab_internal.rounds_params(6, NULL, 0.95) AS counted,
       pgbench_lab_internal.rounds_params('auto', NULL, 0.95) AS auto_default,
       pgbench_lab_internal.rounds_params('auto', '2 min', 0.95) AS auto_budget;
SELECT pgbench_lab_internal.rounds_params(6, '2 min', 0.95);
SELECT pgbench_lab_internal.rounds_params('auto', '0 s', 0.95);
SELECT round(pgbench_lab_internal.look_confidence('{"confidence": 0.95, "looks": [9, 14, 21, 32, 48, 72, 100]}')::numeric, 5) AS each_look,
       round(pgbench_lab_internal.look_confidence('{"confidence": 0.95}')::numeric, 5) AS counted;

-- An adaptive compare_settings after its first look (9 rounds, B's
-- ratios scattered around 1), imported, and what its extension adds:
-- rounds 10 to 14 (the next look), each a copy of the plan's round 1 (A
-- B) or round 2 (B A).
SELECT pg_catalog.setval('pgbench_lab.runs_run_id_seq', 7000, false) AS next_id;
\set fixture `cat test/fixtures/lab_a.json`
SELECT kind, source_id, id FROM pgbench_lab.import((
    SELECT jsonb_build_object('format', 'pgbench_lab export', 'version', 1, 'server', d->'server',
               'runs', (SELECT jsonb_agg(d->'runs'->0 || jsonb_build_object('run_id', 100 + 2 * r + v, 'tps', t.tps, 'progress', '[]'::jsonb)
                                         ORDER BY r, v)
                          FROM generate_series(1, 9) AS r, generate_series(0, 1) AS v,
                               LATERAL (SELECT CASE WHEN v = 0 THEN 100
                                                    ELSE (ARRAY[90, 110, 95, 105, 100, 120, 80, 104, 98])[r] END AS tps) t),
               'experiments', jsonb_build_array(jsonb_build_object('experiment_id', 99, 'kind', 'compare_settings',
                   'workload', 'select-only', 'started_at', now(), 'status', 'done',
                   'params', jsonb_build_object('settings', '[{}, {"work_mem": "4MB"}]'::jsonb, 'clients', 1, 'duration', '00:00:01')
                             || pgbench_lab_internal.rounds_params('auto', '10 min', 0.95)
                             || pgbench_lab_internal.verdict_params(0.02, 0.95),
                   'runs', (SELECT jsonb_agg(jsonb_build_object('run_id', 100 + 2 * r + v, 'ordinal', 2 * r + v - 1,
                                                                'variant', v + 1, 'round', r) ORDER BY r, v)
                              FROM generate_series(1, 9) AS r, generate_series(0, 1) AS v))))
      FROM (SELECT :'fixture'::jsonb AS d) f)) WHERE kind = 'experiment';
SELECT comparison, measure, rounds, round(ratio::numeric, 3) AS ratio, round(ratio_low::numeric, 3) AS low,
       round(ratio_high::numeric, 3) AS high, round(coverage::numeric, 4) AS coverage, verdict, decided
  FROM pgbench_lab.experiment_verdicts(7018);
SELECT m->>'about' AS about,
       (SELECT string_agg(format('%s%s', s->>'round', chr(64 + (s->>'variant')::int)), ' ' ORDER BY i)
          FROM jsonb_array_elements(m->'steps') WITH ORDINALITY AS x(s, i)) AS steps
  FROM pgbench_lab_internal.rounds_extend(7018, '{"steps": [{"variant": 1, "round": 1}, {"variant": 2, "round": 1},
                                                            {"variant": 2, "round": 2}, {"variant": 1, "round": 2}]}') AS m;
-- nothing added once the budget is spent, after a batch the budget cut
-- short (11 rounds is no look), or once every verdict is decided
UPDATE pgbench_lab.experiments SET started_at = now() - interval '1 hour' WHERE experiment_id = 7018;
SELECT pgbench_lab_internal.rounds_extend(7018, '{"steps": []}') IS NULL AS budget_spent;
SELECT pgbench_lab_internal.rounds_stop(7018);
UPDATE pgbench_lab.experiments SET started_at = now() WHERE experiment_id = 7018;
UPDATE pgbench_lab.experiment_runs SET round = 11 WHERE experiment_id = 7018 AND round = 9;
SELECT pgbench_lab_internal.rounds_extend(7018, '{"steps": []}') IS NULL AS cut_short;
-- the verdicts are those of the last look, the batch cut short (11
-- rounds), not of a planned look before it
SELECT pgbench_lab_internal.rounds_stop(7018);
UPDATE pgbench_lab.experiment_runs SET round = 9 WHERE experiment_id = 7018 AND round = 11;
UPDATE pgbench_lab.runs r SET tps = 100.5 FROM pgbench_lab.experiment_runs x
 WHERE x.run_id = r.run_id AND x.experiment_id = 7018 AND x.variant = 2;
SELECT verdict, decided FROM pgbench_lab.experiment_verdicts(7018);
SELECT pgbench_lab_internal.rounds_extend(7018, '{"steps": []}') IS NULL AS settled;
SELECT pgbench_lab_internal.rounds_stop(7018);
