-- report(), compare(), plot() and the experiment readers on what an
-- imported document may hold: runs that all failed, figures at the ends
-- of double precision, control characters in stored text; and arguments
-- they must refuse before doing anything: arrays of arrays, an experiment
-- of another kind.
\encoding UTF8
SET client_min_messages = warning;
SET timezone = 'UTC';
SELECT pg_catalog.setval('pgbench_lab.runs_run_id_seq', 3000, false) AS next_id;
\set fixture `cat test/fixtures/lab_a.json`
\set SHOW_CONTEXT never

-- 1. A sweep whose runs all failed (3011), and a comparison whose runs all
-- failed at once, with no per-second progress (3012): drawn as an empty
-- chart that says why
SELECT count(*) AS imported FROM pgbench_lab.import((
    SELECT jsonb_set(:'fixture', '{runs}', jsonb_agg(r || '{"status": "failed", "error": "boom", "progress": []}'
                                                     ORDER BY n))
      FROM jsonb_array_elements((:'fixture'::jsonb)->'runs') WITH ORDINALITY AS a(r, n)));
SELECT kind, status FROM pgbench_lab.experiments WHERE experiment_id IN (3011, 3012) ORDER BY 1;
SELECT pgbench_lab.plot(ARRAY[3011]) LIKE '<svg%</svg>' || E'\n' AS sweep_plot_is_svg,
       (regexp_matches(pgbench_lab.plot(ARRAY[3011]), '<text x="90" y="\d+" fill="#555555">([^<]*)</text>', 'g'))[1]
       AS note;
SELECT (regexp_matches(pgbench_lab.plot(ARRAY[3012], 'latency'), '<text x="90" y="\d+" fill="#555555">([^<]*)</text>', 'g'))[1]
       AS note;
SELECT * FROM pgbench_lab.sweep_summary(3011);
SELECT * FROM pgbench_lab.sweep_verdict(3011);

-- 2. Arrays of arrays are refused before anything (SQLSTATE 22023)
SELECT pgbench_lab.plot('{{3000,3001},{3002,3003}}');
SELECT pgbench_lab.export('{{3000,3001},{3002,3003}}');
SELECT * FROM pgbench_lab.compare('{{3000,3001},{3002,3003}}');
CALL pgbench_lab.sweep('select-only', '{{1,2},{4,8}}', '1 s');
CALL pgbench_lab.compare_settings('select-only', '{{"{}","{}"},{"{}","{}"}}'::jsonb[], duration => '1 s');
SELECT count(*) AS experiments_begun FROM pgbench_lab.experiments WHERE experiment_id > 3012;

-- 3. The readers of one kind of experiment refuse the others
SELECT * FROM pgbench_lab.sweep_summary(3012);
SELECT * FROM pgbench_lab.sweep_verdict(3012);
SELECT * FROM pgbench_lab.settings_ratios(3011);
SELECT * FROM pgbench_lab.sweep_summary(3000);
SELECT * FROM pgbench_lab.sweep_summary(987654);
SELECT * FROM pgbench_lab.sweep_summary(NULL);

-- 4. Figures at the ends of double precision: the smallest denormal
-- (5e-324) and 1e299 (the document allows under 1e300), in a sweep
-- (3024, its runs 3013 to 3016), a comparison (3025: set A's TPS is the
-- denormal) and lone runs
SELECT count(*) AS imported FROM pgbench_lab.import((
    SELECT jsonb_set(:'fixture', '{runs}', jsonb_agg(
               CASE WHEN r->>'run_id' IN ('902', '911', '920')
                    THEN jsonb_set(jsonb_set(jsonb_set(r, '{tps}', '5e-324'), '{latency_avg_ms}', '5e-324'),
                                   '{progress}', (SELECT jsonb_agg(p || '{"tps": 5e-324, "latency_avg_ms": 5e-324, "hit_ratio": 5e-324}')
                                                    FROM jsonb_array_elements(r->'progress') p))
                    WHEN r->>'run_id' IN ('903', '912')
                    THEN jsonb_set(jsonb_set(r, '{tps}', '1e299'),
                                   '{progress}', (SELECT jsonb_agg(p || '{"tps": 1e299}')
                                                    FROM jsonb_array_elements(r->'progress') p))
                    ELSE r END ORDER BY n))
      FROM jsonb_array_elements((:'fixture'::jsonb)->'runs') WITH ORDINALITY AS a(r, n)));
SELECT clients, run_id, tps, tps_change, latency_change, linear_share, mark FROM pgbench_lab.sweep_summary(3024);
SELECT * FROM pgbench_lab.sweep_verdict(3024);
SELECT name, tps_median, ratio_median, ratio_min, ratio_max FROM pgbench_lab.settings_ratios(3025);
SELECT run_id, to_char(tps, '9.9EEEE') AS tps, to_char(tps_ratio, '9.9EEEE') AS tps_ratio,
       latency_avg_ms, to_char(latency_avg_ratio, '9.9EEEE') AS latency_avg_ratio, hit_ratio_pct
  FROM pgbench_lab.compare(ARRAY[3014, 3013, 3015, 3023]);
SELECT run_id, to_char(tps, '9.9EEEE') AS tps, to_char(tps_ratio, '9.9EEEE') AS tps_ratio
  FROM pgbench_lab.compare(ARRAY[3013, 3014, 3015]);
\pset format unaligned
\pset tuples_only on
SELECT * FROM pgbench_lab.report(3024);
SELECT * FROM pgbench_lab.report(3014);
\pset format aligned
\pset tuples_only off
SELECT count(*) AS report_lines FROM pgbench_lab.report(3025);
SELECT count(*) AS report_lines FROM pgbench_lab.report(3023);
SELECT pgbench_lab.plot(ARRAY[3024]) LIKE '<svg%</svg>' || E'\n' AS sweep_plot,
       pgbench_lab.plot(ARRAY[3014, 3015, 3013]) LIKE '<svg%</svg>' || E'\n' AS runs_plot,
       pgbench_lab.plot(ARRAY[3025], 'latency') LIKE '<svg%</svg>' || E'\n' AS settings_plot,
       pgbench_lab.plot(ARRAY[3023], 'hit_ratio') LIKE '<svg%</svg>' || E'\n' AS hit_ratio_plot;

-- 5. Control characters in stored text (a label with a terminal escape
-- sequence, an error with a line break, settings, a workload, a server
-- name) are printed as \xNN by every reader; the tables keep them as they
-- were
SELECT count(*) AS imported FROM pgbench_lab.import((
    SELECT jsonb_set(jsonb_set(jsonb_set(jsonb_set(jsonb_set(jsonb_set(jsonb_set(:'fixture',
               '{server,name}', to_jsonb(E'lab\x1b]0;owned\x07'::text)),
               '{runs,0,label}', to_jsonb(E'red \x1b[31mALERT\x1b[0m'::text)),
               '{runs,0,error}', to_jsonb(E'line one\nStatus: all good\r'::text)),
               '{runs,0,settings,session}', jsonb_build_object(E'work_mem\x1b[2J', E'4MB\u009b1m')),
               '{runs,0,status}', '"failed"'),
               '{runs,0,workload}', to_jsonb(E'tpcb-like\x1bc'::text)),
               '{experiments,0,label}', to_jsonb(E'sweep\tlabel\x7f'::text))));
SELECT label = E'red \x1b[31mALERT\x1b[0m' AS stored_as_given FROM pgbench_lab.runs WHERE run_id = 3026;
\pset format unaligned
\pset tuples_only on
SELECT * FROM pgbench_lab.report(3026) AS line WHERE line ~ '(Run|label|imported|session|failed|ended)';
SELECT * FROM pgbench_lab.report(3037) AS line WHERE line ~ '(label|imported|did not finish)';
\pset format aligned
\pset tuples_only off
SELECT count(*) AS lines_with_control_characters
  FROM (SELECT pgbench_lab.report(3026) UNION ALL SELECT pgbench_lab.report(3037)) AS r(line)
 WHERE line ~ E'[\\x01-\\x1f\\x7f-\\x9f]';
SELECT run_id, label, server, workload, session_settings FROM pgbench_lab.compare(ARRAY[3026]);
SELECT pgbench_lab.plot(ARRAY[3026]) ~ E'[\\x01-\\x08\\x0b\\x0c\\x0e-\\x1f\\x7f-\\x9f]' AS svg_has_control_characters,
       (regexp_matches(pgbench_lab.plot(ARRAY[3026]), '<text x="118" y="414">([^<]*)</text>'))[1] AS legend;
SELECT pgbench_lab.printable(E'a\x01b\x1fc\x7fd\u0080e\u009ff\u00a0g\\x1bh') AS printable;
SELECT * FROM pgbench_lab.import(jsonb_set(:'fixture', '{format}', to_jsonb(E'pgbench_lab\x1b[2J'::text)));
