-- storage: the storage class rule (random 8 kB reads/s at queue depth 1),
-- the objects and their privileges, and an empty storage_latest.
SELECT r.iops, c.*
  FROM (VALUES (0), (120), (499.9), (500), (1500), (3999), (4000), (9999),
               (10000), (250000), (NULL)) AS r(iops)
  LEFT JOIN LATERAL pgbench_lab.storage_class(r.iops) AS c ON true
 ORDER BY r.iops NULLS FIRST;

SELECT p.oid::regprocedure AS function,
       has_function_privilege('public', p.oid, 'EXECUTE') AS public_execute
  FROM pg_proc p
 WHERE p.pronamespace = 'pgbench_lab'::regnamespace
   AND p.proname IN ('fsync_test', 'io_test', 'storage_class')
 ORDER BY 1::text;

SELECT c.relname,
       has_table_privilege('pg_monitor', c.oid, 'SELECT') AS monitor_select,
       has_table_privilege('pg_monitor', c.oid, 'INSERT') AS monitor_insert,
       has_table_privilege('public', c.oid, 'SELECT') AS public_select
  FROM pg_class c
 WHERE c.relnamespace = 'pgbench_lab'::regnamespace
   AND c.relname IN ('storage_tests', 'storage_latest')
 ORDER BY 1;

-- kept by pg_dump
SELECT d.dumped
  FROM pg_extension e, unnest(e.extconfig::regclass[]) AS d(dumped)
 WHERE e.extname = 'pgbench_lab' AND d.dumped::text LIKE 'pgbench_lab.storage%'
 ORDER BY 1::text;

SELECT count(*) AS latest_rows,
       count(fsync_test_id) AS fsync_tests,
       count(io_test_id) AS io_tests
  FROM pgbench_lab.storage_latest;
