-- A run's duration is counted in whole milliseconds: a positive interval
-- shorter than 1 ms is refused before anything starts (it would otherwise
-- mean "no duration" and run until pgbench_lab.max_duration), by start(),
-- run() and every experiment's check of its steps.
\set VERBOSITY default
SELECT count(*) AS runs_before FROM pgbench_lab.runs \gset
SELECT count(*) AS experiments_before FROM pgbench_lab.experiments \gset
SELECT pgbench_lab.start('select-only', duration => '1 microsecond');
SELECT pgbench_lab.start('select-only', duration => '999 microseconds');
CALL pgbench_lab.run('select-only', duration => '0.5 ms');
-- parts that nearly cancel out
SELECT pgbench_lab.start('select-only', duration => '1 day -86399.9995 s');
CALL pgbench_lab.sweep('select-only', '{1}', '1 microsecond');
CALL pgbench_lab.compare_settings('select-only', ARRAY['{}', '{"work_mem": "8MB"}']::jsonb[], clients => 1, duration => '1 microsecond');
-- zero and below, as before
SELECT pgbench_lab.start('select-only', duration => '0');
SELECT pgbench_lab.start('select-only', duration => '-1 ms');
-- nothing was recorded
SELECT count(*) = :runs_before AS no_run FROM pgbench_lab.runs;
SELECT count(*) = :experiments_before AS no_experiment FROM pgbench_lab.experiments;
