-- recommend() and memory_budget() with explicit inputs: deterministic on
-- every server (live values such as "current" and "changes" are left out).
\pset null '(null)'

-- A 12 GB data-warehouse server: 2 GB kept for the OS, 16 clients with complex
-- queries on four 7200 rpm disks, 1.2 GB of data.
SELECT name, recommended, context, within_limits, formula
  FROM pgbench_lab.recommend(ram => '12GB', cpus => 4, max_connections => 16,
                             workload => 'dw', storage => 'hdd', os => 'linux',
                             data_size => '1200MB', os_reserve => '2GB')
 WHERE name <> 'wal_compression';

-- wal_compression names only a method this server was built with
SELECT recommended IN ('lz4', 'zstd', 'pglz') AS built_in, within_limits
  FROM pgbench_lab.recommend(ram => '12GB', cpus => 4, os => 'linux',
                             storage => 'ssd', data_size => '1GB')
 WHERE name = 'wal_compression';

-- Its 5-parameter budget: 6.5 GB allocated, at least 3 GB left for the OS
-- cache; effective_cache_size, which allocates nothing, judged by the
-- manual's reading only
SELECT component, size, ram_share, status, note
  FROM pgbench_lab.memory_budget(ram => '12GB', max_connections => 16,
                                 work_mem => '128MB', shared_buffers => '4096MB',
                                 maintenance_work_mem => '512MB',
                                 effective_cache_size => '3072MB',
                                 autovacuum_max_workers => 3, backend_memory => '5MB');

-- the classic mistake: 1000 connections with the same work_mem
SELECT component, size, status, note
  FROM pgbench_lab.memory_budget('12GB', 1000, '128MB', '4096MB', '512MB', '3072MB', 3, '5MB')
 WHERE status IS NOT NULL AND status <> 'ok';

-- 1000 connections x 1MB work_mem: the verdict names the term that causes it,
-- here each backend's own memory, not work_mem
SELECT component, size, status, note
  FROM pgbench_lab.memory_budget('12GB', 1000, '1MB', '3GB', '1GB', '8GB', 3, '8MB')
 WHERE component IN ('connections x work_mem', 'per-backend overhead', 'verdict');

-- Three example machines (the README's comparison table)
SELECT m.machine, r.name, r.recommended
  FROM (VALUES ('web 16GB/4cpu/100 ssd', '16GB', 4, 100, 'web', 'ssd'),
               ('oltp 64GB/16cpu/300 nvme', '64GB', 16, 300, 'oltp', 'nvme'),
               ('dw 256GB/32cpu/40 san', '256GB', 32, 40, 'dw', 'san')) AS m(machine, ram, cpus, conns, workload, storage),
       LATERAL pgbench_lab.recommend(ram => m.ram, cpus => m.cpus, max_connections => m.conns,
                                     workload => m.workload, storage => m.storage,
                                     os => 'linux', data_size => '100GB') AS r
 WHERE r.name IN ('max_connections', 'shared_buffers', 'effective_cache_size', 'work_mem',
                  'maintenance_work_mem', 'max_wal_size', 'random_page_cost',
                  'max_parallel_workers_per_gather')
 ORDER BY m.machine, r.name;

-- Too many connections for the CPUs: a pooler, not a tiny work_mem
SELECT name, recommended, reason
  FROM pgbench_lab.recommend(ram => '8GB', cpus => 2, max_connections => 1000,
                             workload => 'web', storage => 'ssd', os => 'linux',
                             data_size => '1GB')
 WHERE name IN ('max_connections', 'work_mem');

-- max_connections not given: the live value is kept (this test server has
-- 100), and past what the CPUs serve a pooler is advised, never a cut
SELECT name, recommended, formula, reason
  FROM pgbench_lab.recommend(ram => '8GB', cpus => 2, workload => 'web', storage => 'ssd',
                             os => 'linux', data_size => '1GB')
 WHERE name = 'max_connections';

-- PostgreSQL's defaults are the floor: a 1 GB desktop keeps shared_buffers
-- 128MB, work_mem 4MB, maintenance_work_mem 64MB and max_wal_size 1GB ...
SELECT name, recommended, formula, reason
  FROM pgbench_lab.recommend(ram => '1GB', cpus => 1, max_connections => 20,
                             workload => 'desktop', storage => 'ssd', os => 'linux',
                             data_size => '1GB')
 WHERE name IN ('shared_buffers', 'work_mem', 'maintenance_work_mem', 'min_wal_size', 'max_wal_size');
-- ... unless the memory forces less, and then the reason says so
SELECT name, recommended, reason
  FROM pgbench_lab.recommend(ram => '384MB', cpus => 1, max_connections => 50,
                             workload => 'web', storage => 'ssd', os => 'linux',
                             data_size => '1GB')
 WHERE name IN ('shared_buffers', 'work_mem', 'maintenance_work_mem');

-- The issue's machine, described: max_worker_processes counts its
-- parallel workers, PostgreSQL's 4 logical replication workers and their
-- launcher, never below PostgreSQL's default 8; nothing of this server (its
-- live value, the workers running here, pgbench_lab's own runs).  And
-- effective_cache_size, a planner hint, is three quarters of its RAM,
-- whatever the memory budget allocates.
SELECT name, recommended, formula, reason
  FROM pgbench_lab.recommend(ram => '64GB', cpus => 16, max_connections => 40,
                             workload => 'dw', storage => 'ssd', os => 'linux',
                             data_size => '500GB')
 WHERE name IN ('effective_cache_size', 'max_worker_processes', 'max_parallel_workers');
SELECT recommended, formula
  FROM pgbench_lab.recommend(ram => '4GB', cpus => 1, max_connections => 20,
                             storage => 'ssd', os => 'linux', data_size => '1GB')
 WHERE name = 'max_worker_processes';

-- Storage named by the caller sets the device's depths; no wal_sync_method
-- row for a described machine (only for this server's own disk)
SELECT name, recommended, formula
  FROM pgbench_lab.recommend(ram => '16GB', cpus => 4, max_connections => 100,
                             storage => 'nvme', os => 'linux', data_size => '10GB')
 WHERE name IN ('effective_io_concurrency', 'maintenance_io_concurrency', 'wal_sync_method');

-- Windows and macOS
SELECT name, recommended, formula
  FROM pgbench_lab.recommend(ram => '16GB', cpus => 8, os => 'windows', storage => 'ssd',
                             data_size => '10GB', workload => 'oltp')
 WHERE name IN ('shared_buffers', 'maintenance_work_mem', 'effective_io_concurrency', 'huge_pages', 'vm.nr_hugepages');
SELECT name, recommended
  FROM pgbench_lab.recommend(ram => '16GB', cpus => 8, os => 'macos', storage => 'nvme',
                             data_size => '10GB', workload => 'desktop')
 WHERE name IN ('shared_buffers', 'effective_cache_size', 'huge_pages', 'vm.nr_hugepages',
                'effective_io_concurrency', 'checkpoint_timeout', 'jit');

-- random_page_cost falls smoothly as the data fits in memory
SELECT d.size, r.recommended, r.formula
  FROM unnest(ARRAY['1GB', '12GB', '24GB', '100GB']) AS d(size),
       LATERAL pgbench_lab.recommend(ram => '16GB', cpus => 4, storage => 'hdd', os => 'linux',
                                     data_size => d.size) AS r
 WHERE r.name = 'random_page_cost';

-- A huge machine: no overflow; values beyond the server's bounds are clamped
SELECT name, recommended, within_limits, reason LIKE '%clamped to its maximum%' AS says_clamped
  FROM pgbench_lab.recommend(ram => '1048576TB', cpus => 1024, max_connections => 100000,
                             storage => 'nvme', os => 'linux', data_size => '1TB')
 WHERE name IN ('max_connections', 'shared_buffers', 'effective_cache_size', 'work_mem',
                'maintenance_work_mem', 'max_worker_processes', 'max_parallel_workers');

-- Bad input: SQLSTATE 22023 (22003 when out of range) and a hint
\set VERBOSITY sqlstate
\set ON_ERROR_STOP 0
SELECT * FROM pgbench_lab.recommend(ram => '4 XB');
SELECT * FROM pgbench_lab.recommend(ram => '-4GB');
SELECT * FROM pgbench_lab.recommend(ram => 'abc');
SELECT * FROM pgbench_lab.recommend(ram => '12');
SELECT * FROM pgbench_lab.recommend(ram => '0GB');
SELECT * FROM pgbench_lab.recommend(ram => 'NaN GB');
SELECT * FROM pgbench_lab.recommend(ram => 'Infinity GB');
SELECT * FROM pgbench_lab.recommend(ram => '99999999999TB');
SELECT * FROM pgbench_lab.recommend(ram => '12GB', cpus => 0);
SELECT * FROM pgbench_lab.recommend(ram => '12GB', cpus => -1);
SELECT * FROM pgbench_lab.recommend(ram => '12GB', cpus => 'NaN');
SELECT * FROM pgbench_lab.recommend(ram => '12GB', cpus => 'Infinity');
SELECT * FROM pgbench_lab.recommend(ram => '12GB', cpus => 1e9);
SELECT * FROM pgbench_lab.recommend(ram => '12GB', cpus => 4, max_connections => 0);
SELECT * FROM pgbench_lab.recommend(ram => '12GB', cpus => 4, max_connections => 300000);
SELECT * FROM pgbench_lab.recommend(ram => '12GB', cpus => 4, workload => NULL);
SELECT * FROM pgbench_lab.recommend(ram => '12GB', cpus => 4, os_reserve => '12GB');
SELECT * FROM pgbench_lab.memory_budget(ram => '12GB', work_mem => '-1MB');
SELECT * FROM pgbench_lab.memory_budget(ram => '12GB', max_connections => -5);
\set VERBOSITY default
SELECT * FROM pgbench_lab.recommend(ram => '12GB', cpus => 4, workload => 'batch');
SELECT * FROM pgbench_lab.recommend(ram => '12GB', cpus => 4, storage => 'tape');
SELECT * FROM pgbench_lab.recommend(ram => '12GB', cpus => 4, os => 'beos');
SELECT * FROM pgbench_lab.recommend(ram => '4 XB');
\set ON_ERROR_STOP 1

-- Privileges: reading, for monitoring roles only
SELECT p.proname, pg_catalog.has_function_privilege('pg_monitor', p.oid, 'EXECUTE') AS pg_monitor,
       pg_catalog.has_function_privilege('public', p.oid, 'EXECUTE') AS public
  FROM pg_catalog.pg_proc p
 WHERE p.pronamespace = 'pgbench_lab'::regnamespace
   AND p.proname IN ('recommend', 'memory_budget', 'recommend_sql')
 ORDER BY 1;
