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
       (regexp_matches(pgbench_lab.plot(ARRAY[3011]), '<text class="note" x="90" y="\d+" fill="#555555">([^<]*)</text>', 'g'))[1]
       AS note;
SELECT (regexp_matches(pgbench_lab.plot(ARRAY[3012], 'latency'), '<text class="note" x="90" y="\d+" fill="#555555">([^<]*)</text>', 'g'))[1]
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
       (regexp_matches(pgbench_lab.plot(ARRAY[3026]), '<text class="legend" x="118" y="414"><title>([^<]*)</title>'))[1] AS legend;
SELECT pgbench_lab.printable(E'a\x01b\x1fc\x7fd\u0080e\u009ff\u00a0g\\x1bh') AS printable;
SELECT * FROM pgbench_lab.import(jsonb_set(:'fixture', '{format}', to_jsonb(E'pgbench_lab\x1b[2J'::text)));

-- 6. The largest values a document may hold, and the smallest figures:
-- figures just under 1e300 (every third run 5e-324, every other second
-- of its rows 0), counts up to the largest bigint in all (a run's
-- transactions, or its failures; each count summed over a run's rows),
-- the largest integers (clients, seconds, targets, errors, scripts),
-- latencies and durations of 100 years, 1970 to 9999, a machine's CPU
-- count of 401 digits; its scripts TPC-C's, for tpcc_figures().  Every
-- reader returns: they sum, multiply and average in numeric where double
-- precision or bigint would overflow.
SELECT pg_catalog.setval('pgbench_lab.runs_run_id_seq', 3100, false) AS next_id;
-- a run of the fixture with those values (failing: its failures the
-- largest, not its transactions; fig: its figures)
CREATE FUNCTION pg_temp.extreme(r jsonb, failing boolean, fig numeric) RETURNS jsonb LANGUAGE sql AS $$
    WITH m AS (SELECT CASE WHEN failing THEN 0 ELSE 9223372036854775807 END AS t,
                      CASE WHEN failing THEN 9223372036854775807 ELSE 0 END AS fl, 9223372036854775807 AS x,
                      least(fig, 3155760000000) AS ms),
    -- its seconds: the first and the last two of an int's, the longest and
    -- the shortest, then 127 more (the charts average them by 3), every
    -- other one 0
    s(n, s, secs, v) AS (VALUES (1, 1, 3155760000, fig), (2, 2147483646, 0.001, fig), (3, 2147483647, 1, fig)
                         UNION ALL SELECT g, 1000 + g, 1, CASE WHEN g % 2 = 0 THEN 0 ELSE fig END FROM generate_series(4, 130) AS g)
    SELECT r || jsonb_build_object(
        'scale', 2147483647, 'duration', '100 years', 'max_tries', 2147483647, 'random_seed', -9223372036854775808,
        'started_at', '1970-01-01T00:00:00+00:00', 'finished_at', '9999-12-31T23:59:59+00:00', 'measured_seconds', least(greatest(fig, 0.000000001), 3155760000),
        'transactions', m.t, 'failures', m.fl, 'retries', m.x, 'serialization_failures', m.fl, 'deadlock_failures', m.fl,
        'tps', fig, 'latency_avg_ms', m.ms, 'latency_stddev_ms', m.ms, 'latency_p50_ms', m.ms, 'latency_p90_ms', m.ms, 'latency_p95_ms', m.ms,
        'latency_p99_ms', m.ms, 'latency_max_ms', m.ms, 'blks_hit', m.x, 'blks_read', m.x, 'hit_ratio', least(fig, 1), 'wal_bytes', fig,
        'checkpoints', m.x, 'connections', m.x, 'connection_avg_ms', m.ms, 'tps_without_connections', fig, 'rate', fig,
        'latency_limit', '100 years', 'lag_avg_ms', m.ms, 'lag_max_ms', m.ms, 'late', m.t, 'skipped', m.x, 'scheduled', m.x,
        'rate_sustained', false, 'via', 'libpq', 'target_display', 'host=a',
        'system', jsonb_build_object('cpus_effective', '1' || repeat('0', 400), 'data_device', 'sda'),
        'progress', (SELECT jsonb_agg(jsonb_build_object('second', s.s, 'interval_seconds', s.secs,
                        'transactions', CASE WHEN s.n = 1 THEN m.t ELSE 0 END, 'tps', s.v, 'latency_avg_ms', least(s.v, m.ms), 'latency_max_ms', least(s.v, m.ms),
                        'failures', CASE WHEN s.n = 2 THEN m.fl ELSE 0 END, 'hit_ratio', least(s.v, 1), 'lag_avg_ms', least(s.v, m.ms), 'lag_max_ms', least(s.v, m.ms),
                        'late', CASE WHEN s.n = 1 THEN m.t ELSE 0 END, 'skipped', CASE WHEN s.n = 3 THEN m.x ELSE 0 END) ORDER BY s.n)
                       FROM s),
        'latency', jsonb_build_array(jsonb_build_object('bucket_upper_us', 1, 'count', 0),
                                     jsonb_build_object('bucket_upper_us', least(fig, 3155760000000000), 'count', m.x)),
        'telemetry', (SELECT jsonb_agg(jsonb_build_object('second', s.s, 'interval_seconds', s.secs,
                        'cpu_user_pct', least(s.v, 100), 'cpu_system_pct', least(s.v, 100), 'cpu_iowait_pct', least(s.v, 100),
                        'cpu_steal_pct', least(s.v, 100), 'cpu_idle_pct', least(s.v, 100), 'run_cpu_seconds', s.v,
                        'checkpoints', c, 'buffers_checkpoint', c, 'buffers_clean', c, 'buffers_backend', c,
                        'wal_records', c, 'wal_fpi', c, 'wal_bytes', s.v, 'wait_samples', 2147483647,
                        'waits', jsonb_build_object('CPU', 999999999, 'IO:DataFileRead', 999999999, 'LWLock:WALWrite', 999999999),
                        'temp_files', c, 'temp_bytes', c, 'disk_reads', c, 'disk_read_bytes', c, 'disk_writes', c,
                        'disk_write_bytes', c, 'disk_busy_pct', least(s.v, 100)) ORDER BY s.n)
                       FROM s, LATERAL (SELECT CASE WHEN s.n = 1 THEN m.x ELSE 0 END AS c) AS x),
        'replication', (SELECT jsonb_agg(jsonb_build_object('second', s.s, 'standby', 'b', 'sent_lag_bytes', -s.v,
                        'write_lag_bytes', s.v, 'flush_lag_bytes', s.v, 'replay_lag_bytes', s.v, 'write_lag_ms', least(s.v, m.ms), 'flush_lag_ms', least(s.v, m.ms),
                        'replay_lag_ms', least(s.v, m.ms), 'lag_samples', 2147483647, 'sent_lag_bytes_max', s.v, 'write_lag_bytes_max', s.v,
                        'flush_lag_bytes_max', s.v, 'replay_lag_bytes_max', s.v)) FROM s),
        'targets', (SELECT jsonb_agg(jsonb_build_object('target', t, 'target_display', 'host=' || t, 'in_recovery', t = 2,
                        'clients', 2147483647, 'first_client', 2147483647, 'clients_failed', 2147483647,
                        'transactions', CASE WHEN t = 1 THEN m.t ELSE 0 END, 'failures', CASE WHEN t = 2 THEN m.fl ELSE 0 END,
                        'tps', fig, 'latency_avg_ms', m.ms, 'conflicts', CASE WHEN t = 2 THEN m.x ELSE 0 END,
                        'conflicts_by_kind', jsonb_build_object('snapshot', m.x), 'wal_bytes', fig,
                        'checkpoints', CASE WHEN t = 1 THEN m.x ELSE 0 END,
                        'system', jsonb_build_object('cpus_effective', '999999999.999999', 'memory_limit', repeat('9', 30))))
                       FROM unnest(ARRAY[1, 2147483647]) AS t),
        'errors', (SELECT jsonb_agg(jsonb_build_object('error', e, 'sqlstate', '40001', 'message', 'e' || e,
                        'count', CASE WHEN e = 1 THEN m.x ELSE 0 END, 'first_ms', m.ms))
                       FROM unnest(ARRAY[1, 2147483647]) AS e),
        'variables', '{}'::jsonb,
        'scripts', (SELECT jsonb_agg(jsonb_build_object('script', k, 'name', CASE WHEN k = 1 THEN 'tpcc-new-order' ELSE 'tpcc-payment' END, 'weight', 2147483647, 'body', 'SELECT 1;',
                        'transactions', CASE WHEN k = 1 THEN m.t ELSE 0 END, 'latency_avg_ms', m.ms,
                        'failures', CASE WHEN k = 2 THEN m.fl ELSE 0 END, 'retries', CASE WHEN k = 1 THEN m.x ELSE 0 END,
                        'serialization_failures', CASE WHEN k = 2 THEN m.fl ELSE 0 END,
                        'deadlock_failures', CASE WHEN k = 2 THEN m.fl ELSE 0 END,
                        'commands', (SELECT jsonb_agg(jsonb_build_object('command', c, 'line', 2147483647, 'kind', 'sql',
                                         'command_text', CASE WHEN c = 1 THEN 'SELECT 1;' ELSE '\set rolled_back 1' END,
                                         'executions', CASE WHEN c = 2 THEN m.x ELSE 0 END, 'latency_avg_ms', m.ms, 'failures', CASE WHEN c = 2 THEN m.fl ELSE 0 END,
                                         'retries', CASE WHEN c = 1 THEN m.x ELSE 0 END,
                                         'serialization_failures', CASE WHEN c = 2 THEN m.fl ELSE 0 END,
                                         'deadlock_failures', CASE WHEN c = 2 THEN m.fl ELSE 0 END))
                                       FROM unnest(ARRAY[1, 2147483647]) AS c)))
                       FROM unnest(ARRAY[1, 128]) AS k))
      FROM m
$$;
-- the fixture's runs so (every third failing, every third with the
-- smallest figures), its sweep up to the largest client count, and an
-- experiment of each other kind on its runs
CREATE TEMP TABLE extremes AS
SELECT jsonb_build_object('format', 'pgbench_lab export', 'version', 1, 'server', '{"name": "extremes"}'::jsonb,
    'runs', (SELECT jsonb_agg(pg_temp.extreme(r || CASE WHEN r->>'run_id' = '904' THEN '{"clients": 2147483647}'::jsonb ELSE '{}' END::jsonb,
                                            n % 3 = 1, CASE WHEN n % 3 = 2 THEN 5e-324 ELSE 9.99e299 END) ORDER BY n)
               FROM jsonb_array_elements((:'fixture'::jsonb)->'runs') WITH ORDINALITY AS a(r, n)),
    'experiments', jsonb_set((:'fixture'::jsonb)->'experiments', '{0,params,clients,3}', '2147483647') || '[
        {"experiment_id": 930, "kind": "cold_vs_warm", "workload": "tpcb-like", "status": "done",
         "params": {"clients": 1, "duration": "100 years", "relations": ["public.pgbench_accounts"], "relids": [4294967295]},
         "started_at": "1970-01-01T00:00:00+00:00", "finished_at": "9999-12-31T23:59:59+00:00",
         "runs": [{"run_id": 911, "ordinal": 1, "variant": 1, "round": 1}, {"run_id": 913, "ordinal": 2, "variant": 2, "round": 1},
                  {"run_id": 915, "ordinal": 3, "variant": 3, "round": 1}]},
        {"experiment_id": 940, "kind": "connection_cost", "workload": "tpcb-like", "status": "done",
         "params": {"clients": 2147483647, "duration": "100 years", "rounds": 2147483647,
                    "settings": [{"via": "spi"}, {"via": "libpq"}, {"via": "libpq-connect"}]},
         "started_at": "1970-01-01T00:00:00+00:00", "finished_at": "9999-12-31T23:59:59+00:00",
         "runs": [{"run_id": 912, "ordinal": 1, "variant": 1, "round": 1}, {"run_id": 914, "ordinal": 2, "variant": 2, "round": 1},
                  {"run_id": 916, "ordinal": 3, "variant": 3, "round": 1}]},
        {"experiment_id": 950, "kind": "latency_curve", "workload": "select-only", "status": "done",
         "params": {"clients": 2147483647, "duration": "100 years", "target_ms": 9.99e299, "percentile": 0.99,
                    "rates": [5e-324, 9.99e299], "repeats": 9.99e299, "confidence": 0.999999},
         "started_at": "1970-01-01T00:00:00+00:00", "finished_at": "9999-12-31T23:59:59+00:00",
         "runs": [{"run_id": 901, "ordinal": 1, "variant": 1, "round": 1}, {"run_id": 902, "ordinal": 2, "variant": 2, "round": 1},
                  {"run_id": 903, "ordinal": 3, "variant": 3, "round": 1}, {"run_id": 904, "ordinal": 4, "variant": 3, "round": 2}]},
        {"experiment_id": 960, "kind": "validate_recommendation", "workload": "tpcb-like", "status": "done",
         "params": {"settings": [{}, {"work_mem": "8MB"}], "groups": ["current", "session"],
                    "changes": [{"name": "work_mem", "current": "4MB", "recommended": "8MB", "grp": "session",
                                 "measured": true, "two_phase": false}],
                    "clients": 2147483647, "duration": "100 years", "rounds": 2147483647, "smallest_effect": 9.99e299,
                    "confidence": 0.999999, "budget": "100 years"},
         "started_at": "1970-01-01T00:00:00+00:00", "finished_at": "9999-12-31T23:59:59+00:00",
         "runs": [{"run_id": 911, "ordinal": 1, "variant": 1, "round": 1}, {"run_id": 912, "ordinal": 2, "variant": 2, "round": 1},
                  {"run_id": 913, "ordinal": 3, "variant": 1, "round": 2}, {"run_id": 914, "ordinal": 4, "variant": 2, "round": 2},
                  {"run_id": 915, "ordinal": 5, "variant": 1, "round": 3}, {"run_id": 916, "ordinal": 6, "variant": 2, "round": 3}]}
    ]'::jsonb) AS doc;
CREATE TEMP TABLE ext AS SELECT * FROM pgbench_lab.import((SELECT doc FROM extremes));
SELECT kind, count(*) AS imported, bool_and(r.lines > 0) AS reported
  FROM ext CROSS JOIN LATERAL (SELECT count(*) AS lines FROM pgbench_lab.report(ext.id)) r
 GROUP BY kind ORDER BY kind;
SELECT percentile, transactions, latency_ms FROM pgbench_lab.latency_percentiles(3100) ORDER BY percentile;
SELECT count(*) AS percentiles FROM ext, pgbench_lab.latency_percentiles(ext.id) WHERE ext.kind = 'run';
SELECT count(*) AS progress_rows, max(transactions) AS transactions, max(tps) AS tps, min(latency_avg_ms) AS latency_avg_ms
  FROM ext, pgbench_lab.progress(ext.id, '10 s') WHERE ext.kind = 'run';
SELECT count(*) AS compared, max(checkpoints) AS checkpoints, to_char(max(tps_ratio), '9.9EEEE') AS tps_ratio
  FROM pgbench_lab.compare(ARRAY(SELECT id FROM ext WHERE kind = 'run' ORDER BY id DESC));
SELECT pgbench_lab.report_html(ARRAY(SELECT id FROM ext ORDER BY id)) LIKE '<!DOCTYPE html>%</html>' || E'\n' AS html;
SELECT m AS metric, pgbench_lab.plot(ARRAY(SELECT id FROM ext WHERE kind = 'run' ORDER BY id), m) LIKE '<svg%</svg>' || E'\n' AS plot
  FROM unnest(ARRAY['tps', 'latency', 'latency_max', 'lag', 'hit_ratio', 'cpu', 'waits']) AS m;
SELECT bool_and(pgbench_lab.plot(ARRAY[id]) LIKE '<svg%</svg>' || E'\n') AS experiments_plotted FROM ext WHERE kind = 'experiment';
SELECT (SELECT count(*) FROM pgbench_lab.sweep_summary(3111)) AS sweep_rows,
       (SELECT count(*) FROM pgbench_lab.sweep_verdict(3111)) AS sweep_verdicts,
       (SELECT count(*) FROM pgbench_lab.settings_ratios(3112)) AS settings_rows,
       (SELECT count(*) FROM pgbench_lab.cold_vs_warm_runs(3113)) AS cold_vs_warm_rows,
       (SELECT count(*) FROM pgbench_lab.cold_vs_warm_finding(3113)) AS cold_vs_warm_findings,
       (SELECT count(*) FROM ext, pgbench_lab.experiment_verdicts(ext.id) WHERE ext.kind = 'experiment') AS verdicts;
SELECT count(*) AS tpcc_rows FROM ext, pgbench_lab.tpcc_figures(ext.id) WHERE ext.kind = 'run';
-- exported, they import again
SELECT count(*) AS imported_again FROM pgbench_lab.import(pgbench_lab.export(ARRAY(SELECT id FROM ext)));
-- (gone again: the tests after this one share the database)
DELETE FROM pgbench_lab.experiments WHERE experiment_id >= 3100;
DELETE FROM pgbench_lab.runs WHERE run_id >= 3100;
