-- What scripts/demo.sh shows on a fresh cluster: the main features, in the
-- order a DBA meets them.  About a minute.
\pset pager off
\set ON_ERROR_STOP 1
\echo '== CREATE EXTENSION (no restart, no shared_preload_libraries)'
CREATE EXTENSION pgbench_lab CASCADE;

\echo '== system_info(): the machine as the server sees it'
SELECT * FROM pgbench_lab.system_info();

\echo '== recommend(): settings for this machine, with the arithmetic (detected inputs)'
SELECT name, current, recommended, changes, context, formula
  FROM pgbench_lab.recommend();
\echo '== recommend() for a 12GB data-warehouse server with 16 clients'
SELECT name, recommended, reason
  FROM pgbench_lab.recommend(ram => '12GB', cpus => 4, max_connections => 16, workload => 'dw',
                             storage => 'hdd', os => 'linux', data_size => '1200MB', os_reserve => '2GB')
 WHERE name IN ('shared_buffers', 'effective_cache_size', 'work_mem', 'maintenance_work_mem', 'max_connections');
\echo '== memory_budget(): that server''s budget, then the classic mistake (1000 connections)'
SELECT component, size, ram_share, status
  FROM pgbench_lab.memory_budget('12GB', 16, '128MB', '4096MB', '512MB', '3072MB', 3);
SELECT status, note FROM pgbench_lab.memory_budget('12GB', 1000, '128MB', '4096MB', '512MB', '3072MB', 3)
 WHERE component = 'verdict';
\echo '== recommend_sql(): the ALTER SYSTEM script and its revert (nothing is applied)'
SELECT kind, statement FROM pgbench_lab.recommend_sql() LIMIT 8;

\echo '== init(): pgbench''s tables and data, generated in the server'
SELECT * FROM pgbench_lab.init(scale => 2);

\echo '== run(): tpcb-like, 2 clients, 3 s, in background workers'
CALL pgbench_lab.run('tpcb-like', clients => 2, duration => '3 s', label => 'demo');
SELECT second, transactions, round(tps) AS tps, round(latency_avg_ms::numeric, 3) AS latency_avg_ms,
       round(hit_ratio::numeric, 4) AS hit_ratio
  FROM pgbench_lab.run_progress WHERE run_id = (SELECT max(run_id) FROM pgbench_lab.runs) ORDER BY second;
\echo '== start(), active_runs, wait(): a run that goes on without the caller'
SELECT pgbench_lab.start('select-only', clients => 2, duration => '2 s') AS run_id \gset
SELECT run_id, workload, clients, transactions >= 0 AS counting FROM pgbench_lab.active_runs;
CALL pgbench_lab.wait(:run_id);
\echo '== report(): the run in words and a chart'
\pset format unaligned
\pset tuples_only on
SELECT * FROM pgbench_lab.report(:run_id);
\pset format aligned
\pset tuples_only off

\echo '== the client path: select-only in-server, over libpq, and with a new connection per transaction (3 x 1 s)'
\x on
CALL pgbench_lab.connection_cost('select-only', clients => 1, duration => '1 s');
\x off

\echo '== cache: residency, make_cold, warm on pgbench_accounts'
SELECT relation, kind, blocks, buffers, buffers_pct, os_pages, os_pct
  FROM pgbench_lab.cache_status('pgbench_accounts');
SELECT * FROM pgbench_lab.make_cold('pgbench_accounts');
SELECT relation, blocks, buffers, os_pages FROM pgbench_lab.cache_status('pgbench_accounts');
SELECT relation, kind, blocks_loaded FROM pgbench_lab.warm('pgbench_accounts');
SELECT relation, blocks, buffers, buffers_pct FROM pgbench_lab.cache_status('pgbench_accounts');
\echo '== autoprewarm_status(), then cold_vs_warm(): cold, OS-warm and warm runs of 1 s'
SELECT preloaded, autoprewarm, restart_warm, warning FROM pgbench_lab.autoprewarm_status();
CALL pgbench_lab.cold_vs_warm(duration => '1 s');
SELECT state, run_id, round(tps) AS tps, round(buffers_pct) AS buffers_pct, round(os_pct) AS os_pct,
       seconds_to_90pct
  FROM pgbench_lab.cold_vs_warm_runs((SELECT max(experiment_id) FROM pgbench_lab.experiments
                                       WHERE kind = 'cold_vs_warm'));

\echo '== sweep(), report(), plot(): two 1 s runs, the peak and the knee'
CALL pgbench_lab.sweep('select-only', clients => '{1,2}', duration => '1 s', label => 'demo sweep');
\pset format unaligned
\pset tuples_only on
SELECT * FROM pgbench_lab.report((SELECT max(experiment_id) FROM pgbench_lab.experiments));
SELECT length(pgbench_lab.plot(ARRAY[(SELECT max(experiment_id) FROM pgbench_lab.experiments)]))
       || ' characters of SVG from pgbench_lab.plot()';
\pset format aligned
\pset tuples_only off

\echo '== storage: the WAL sync methods on the data directory''s device (1 s), then 64MB of I/O (1 s)'
SELECT method, direct, ops_per_second, is_current, fastest_safe
  FROM pgbench_lab.fsync_test(1)
 WHERE writes_per_sync = 1 AND write_size = 8192;
SELECT * FROM pgbench_lab.io_test('64MB', 1);
SELECT fastest_safe_method, fdatasync_ops_per_second, random_read_iops,
       storage_class, random_page_cost, effective_io_concurrency
  FROM pgbench_lab.storage_latest;
