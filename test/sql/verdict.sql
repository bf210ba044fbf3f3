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
