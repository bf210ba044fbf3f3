-- The sweep's knee threshold, on the fixture's sweep
-- (test/fixtures/lab_a.json): 1 -> 2
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

-- A sweep recorded with its own threshold (0.3): the summary, the verdict
-- and the report's rule use it.
SELECT kind, source_id, id FROM pgbench_lab.import(jsonb_set(:'fixture', '{experiments,0,params,knee_threshold}', '0.3'))
 WHERE kind = 'experiment';
SELECT clients, mark FROM pgbench_lab.sweep_summary(5024);
SELECT peak_clients, knee_clients FROM pgbench_lab.sweep_verdict(5024);
SELECT peak_clients, knee_clients FROM pgbench_lab.sweep_verdict(5024, 0.5);
\pset format unaligned
\pset tuples_only on
SELECT line FROM pgbench_lab.report(5024) AS line
 WHERE line ~ '(Knee|knee|clients:|threshold|linear)';
\pset format aligned
\pset tuples_only off

-- An imported threshold that cannot be used: the rule's default, and the
-- report says so.
SELECT kind, source_id, id FROM pgbench_lab.import(jsonb_set(:'fixture', '{experiments,0,params,knee_threshold}', '"half"'))
 WHERE kind = 'experiment';
SELECT peak_clients, knee_clients FROM pgbench_lab.sweep_verdict(5037);
\pset format unaligned
\pset tuples_only on
SELECT line FROM pgbench_lab.report(5037) AS line WHERE line ~ 'recorded';
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
