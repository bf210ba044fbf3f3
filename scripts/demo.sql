-- What scripts/demo.sh shows on a fresh cluster: each feature as it lands.
\pset pager off
\echo '== CREATE EXTENSION (no restart, no shared_preload_libraries)'
CREATE EXTENSION pgbench_lab CASCADE;
\dx pgbench_lab

\echo '== system_info(): the machine as the server sees it'
SELECT * FROM pgbench_lab.system_info();

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
