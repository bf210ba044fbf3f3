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
SELECT (regexp_matches(pgbench_lab.plot(ARRAY[5024]), '<text x="118" y="414">([^<]*)</text>'))[1];
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
