-- What scripts/demo.sh shows on a fresh cluster: each feature as it lands.
\pset pager off
\echo '== CREATE EXTENSION (no restart, no shared_preload_libraries)'
CREATE EXTENSION pgbench_lab CASCADE;
\dx pgbench_lab

\echo '== storage: the WAL sync methods on the data directory''s device (1 s), then 64MB of I/O (1 s)'
SELECT method, direct, ops_per_second, is_current, fastest_safe
  FROM pgbench_lab.fsync_test(1)
 WHERE writes_per_sync = 1 AND write_size = 8192;
SELECT * FROM pgbench_lab.io_test('64MB', 1);
SELECT fastest_safe_method, fdatasync_ops_per_second, random_read_iops,
       storage_class, random_page_cost, effective_io_concurrency
  FROM pgbench_lab.storage_latest;
