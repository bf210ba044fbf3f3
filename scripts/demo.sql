-- What scripts/demo.sh shows on a fresh cluster: each feature as it lands.
\pset pager off
\echo '== CREATE EXTENSION (no restart, no shared_preload_libraries)'
CREATE EXTENSION pgbench_lab CASCADE;
\dx pgbench_lab

\echo '== system_info(): the machine as the server sees it'
SELECT * FROM pgbench_lab.system_info();
\echo '== cache: residency, make_cold, warm (a 4MB table of its own)'
DROP TABLE IF EXISTS cache_demo;
CREATE TABLE cache_demo (id int PRIMARY KEY, pad text);
INSERT INTO cache_demo SELECT g, repeat('x', 150) FROM generate_series(1, 20000) g;
VACUUM cache_demo;
SELECT relation, kind, blocks, buffers, buffers_dirty, usage_count_avg, buffers_pct, os_pages, os_pct
  FROM pgbench_lab.cache_status('cache_demo') WHERE blocks > 0;
SELECT * FROM pgbench_lab.make_cold('cache_demo');
SELECT relation, blocks, buffers, os_pages FROM pgbench_lab.cache_status('cache_demo') WHERE blocks > 0;
SELECT relation, kind, blocks_loaded FROM pgbench_lab.warm('cache_demo') WHERE blocks_loaded > 0;
SELECT relation, blocks, buffers, buffers_pct, os_pct FROM pgbench_lab.cache_status('cache_demo') WHERE blocks > 0;
SET pgbench_lab.cache_min_size = 0;          -- snapshot small relations too
SELECT pg_stat_force_next_flush();            -- this session's I/O counters, now
SELECT pgbench_lab.cache_snapshot('demo') AS snapshot_id \gset
SELECT relation, kind, blocks, buffers, heap_blks_read, heap_blks_hit
  FROM pgbench_lab.cache_snapshot_relations
 WHERE snapshot_id = :snapshot_id AND relation LIKE '%cache_demo%';
SELECT * FROM pgbench_lab.init(scale => 2);

\echo '== recommend(): settings for this machine, with the arithmetic (detected inputs)'
SELECT name, current, recommended, changes, context, formula
  FROM pgbench_lab.recommend();
\echo '== recommend() for seed 000''s 12GB server with 16 clients'
SELECT name, recommended, reason
  FROM pgbench_lab.recommend(ram => '12GB', cpus => 4, max_connections => 16, workload => 'dw',
                             storage => 'hdd', os => 'linux', data_size => '1200MB', os_reserve => '2GB')
 WHERE name IN ('shared_buffers', 'effective_cache_size', 'work_mem', 'maintenance_work_mem', 'max_connections');
\echo '== memory_budget(): seed 000''s example, then its classic mistake (1000 connections)'
SELECT component, size, ram_share, status
  FROM pgbench_lab.memory_budget('12GB', 16, '128MB', '4096MB', '512MB', '3072MB', 3);
SELECT status, note FROM pgbench_lab.memory_budget('12GB', 1000, '128MB', '4096MB', '512MB', '3072MB', 3)
 WHERE component = 'verdict';
\echo '== recommend_sql(): the ALTER SYSTEM script and its revert (nothing is applied)'
SELECT kind, statement FROM pgbench_lab.recommend_sql() LIMIT 8;
\echo '== storage: the WAL sync methods on the data directory''s device (1 s), then 64MB of I/O (1 s)'
SELECT method, direct, ops_per_second, is_current, fastest_safe
  FROM pgbench_lab.fsync_test(1)
 WHERE writes_per_sync = 1 AND write_size = 8192;
SELECT * FROM pgbench_lab.io_test('64MB', 1);
SELECT fastest_safe_method, fdatasync_ops_per_second, random_read_iops,
       storage_class, random_page_cost, effective_io_concurrency
  FROM pgbench_lab.storage_latest;
\echo '== the client path: select-only in-server, over libpq, and with a new connection per transaction (3 x 1 s)'
\x on
CALL pgbench_lab.connection_cost('select-only', clients => 1, duration => '1 s');
\x off

\echo '== sweep(), report(), plot(): two 1 s runs, the peak and the knee'
SELECT to_regclass('public.pgbench_accounts') IS NULL
   AND to_regproc('pgbench_lab.init') IS NOT NULL AS reports_need_init \gset
\if :reports_need_init
SELECT * FROM pgbench_lab.init(scale => 1);
\endif
SELECT to_regclass('public.pgbench_accounts') IS NOT NULL AS reports_have_tables \gset
\if :reports_have_tables
CALL pgbench_lab.sweep('select-only', clients => '{1,2}', duration => '1 s', label => 'demo sweep');
\set QUIET 1
\pset format unaligned
\pset tuples_only on
SELECT * FROM pgbench_lab.report((SELECT max(experiment_id) FROM pgbench_lab.experiments));
SELECT length(pgbench_lab.plot(ARRAY[(SELECT max(experiment_id) FROM pgbench_lab.experiments)]))
       || ' characters of SVG from pgbench_lab.plot()';
\pset format aligned
\pset tuples_only off
\set QUIET 0
\else
\echo '(skipped: no pgbench tables; run pgbench -i or pgbench_lab.init() first)'
\endif

\echo '== autoprewarm_status(), then cold_vs_warm(): cold, OS-warm and warm runs of 1 s'
SELECT preloaded, autoprewarm, restart_warm, warning FROM pgbench_lab.autoprewarm_status();
SELECT to_regclass('public.pgbench_accounts') IS NOT NULL AS coldwarm_has_tables \gset
\if :coldwarm_has_tables
CALL pgbench_lab.cold_vs_warm(duration => '1 s');
SELECT state, run_id, round(tps) AS tps, round(buffers_pct) AS buffers_pct, round(os_pct) AS os_pct,
       seconds_to_90pct
  FROM pgbench_lab.cold_vs_warm_runs((SELECT max(experiment_id) FROM pgbench_lab.experiments
                                       WHERE kind = 'cold_vs_warm'));
\else
\echo '(skipped: no pgbench tables; run pgbench -i or pgbench_lab.init() first)'
\endif
