-- pgTAP: recommend(), memory_budget(), recommend_sql(): signatures,
-- privileges, errors, and every recommendation accepted by this server.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pgbench_lab CASCADE;
SELECT plan(27);


-- read-only, for monitoring roles
SELECT ok(has_function_privilege('pg_monitor',
          'pgbench_lab.recommend(text,numeric,integer,text,text,text,text,text)', 'EXECUTE'),
          'pg_monitor may call recommend()');
SELECT ok(NOT has_function_privilege('public',
          'pgbench_lab.recommend(text,numeric,integer,text,text,text,text,text)', 'EXECUTE'),
          'PUBLIC may not call recommend()');
SELECT ok(has_function_privilege('pg_monitor',
          'pgbench_lab.memory_budget(text,integer,text,text,text,text,integer,text,text,numeric,integer,integer,text)', 'EXECUTE'),
          'pg_monitor may call memory_budget()');

-- errors
SELECT throws_ok($$SELECT * FROM pgbench_lab.recommend(ram => '4 XB')$$, '22023',
                 'invalid size for ram: "4 XB"', 'unit-less nonsense refused');
SELECT throws_ok($$SELECT * FROM pgbench_lab.recommend(ram => '-4GB')$$, '22023',
                 'ram must be positive: "-4GB"', 'negative size refused');
SELECT throws_ok($$SELECT * FROM pgbench_lab.recommend(ram => '8GB', cpus => 1e9)$$, '22003',
                 NULL, 'absurd CPU count out of range');
SELECT throws_ok($$SELECT * FROM pgbench_lab.recommend(ram => '8GB', cpus => 2, workload => 'olap')$$,
                 '22023', 'unknown workload: "olap"', 'unknown workload refused');
SELECT throws_ok($$SELECT * FROM pgbench_lab.memory_budget(ram => '8GB', shared_buffers => 'lots')$$,
                 '22023', 'invalid size for shared_buffers: "lots"', 'memory_budget validates sizes');

-- an ordinary machine: every value inside the server's bounds ...
SELECT is((SELECT count(*)::int FROM pgbench_lab.recommend('32GB', 8, 200, 'oltp', 'ssd', 'linux', '50GB')
            WHERE NOT within_limits), 0, 'all recommendations within the GUC bounds');
-- ... and accepted by the server: set every session-settable one
SELECT is((SELECT count(*) FILTER (WHERE CASE WHEN r.context = 'session'
                 THEN pg_catalog.set_config(r.name, r.recommended, true) IS NOT NULL END)::int
             FROM pgbench_lab.recommend('32GB', 8, 200, 'oltp', 'ssd', 'linux', '50GB') r), 13,
          'the server accepts all 13 session-settable recommendations as written');
SELECT is(current_setting('work_mem'),
          (SELECT recommended FROM pgbench_lab.recommend('32GB', 8, 200, 'oltp', 'ssd', 'linux', '50GB')
            WHERE name = 'work_mem'),
          'SHOW prints work_mem exactly as recommended');
-- restart and reload settings: the written value, read back in bytes, is inside the bounds
SELECT is((SELECT count(*)::int FROM pgbench_lab.recommend('32GB', 8, 200, 'oltp', 'ssd', 'linux', '50GB') r
             JOIN pg_settings s USING (name)
            WHERE r.context IN ('restart', 'reload')
              AND s.vartype IN ('integer', 'real')
              AND s.unit IS NOT NULL
              AND s.unit NOT IN ('s', 'ms', 'min')
              AND pg_size_bytes(r.recommended) BETWEEN
                  s.min_val::numeric * CASE s.unit WHEN '8kB' THEN 8192 ELSE pg_size_bytes('1' || s.unit) END
                  AND s.max_val::numeric * CASE s.unit WHEN '8kB' THEN 8192 ELSE pg_size_bytes('1' || s.unit) END), 5,
          'the 5 memory settings needing restart or reload are inside the bounds in bytes');

-- a huge machine is clamped, and says so
SELECT is((SELECT pg_size_bytes(recommended) FROM pgbench_lab.recommend('1048576TB', 1024, 100000)
            WHERE name = 'shared_buffers'),
          (SELECT max_val::bigint * 8192 FROM pg_settings WHERE name = 'shared_buffers'),
          'shared_buffers clamped to the server maximum');
SELECT ok((SELECT NOT within_limits AND reason LIKE '%clamped to its maximum%'
             FROM pgbench_lab.recommend('1048576TB', 1024, 100000) WHERE name = 'work_mem'),
          'work_mem clamped and explained');
SELECT is((SELECT recommended FROM pgbench_lab.recommend('1048576TB', 1024, 100000)
            WHERE name = 'max_connections'), '10240', 'connections capped at 10 per CPU');

-- detected inputs work on this server
SELECT cmp_ok((SELECT count(*)::int FROM pgbench_lab.recommend()), '>=', 23,
              'recommend() with every input detected');
SELECT is((SELECT count(*)::int FROM pgbench_lab.recommend() WHERE current IS NULL
            AND name <> 'vm.nr_hugepages'), 0, 'every PostgreSQL setting has a current value');

-- memory_budget for the live settings
SELECT is((SELECT count(*)::int FROM pgbench_lab.memory_budget()), 13, 'thirteen budget rows');
SELECT ok((SELECT status IN ('ok', 'warning', 'out-of-memory risk')
             FROM pgbench_lab.memory_budget() WHERE component = 'verdict'), 'a verdict');

-- recommend_sql: one ALTER SYSTEM per change, one revert each, nothing applied
SELECT is((SELECT count(*)::int FROM pgbench_lab.recommend_sql('64GB', 16, 100, 'oltp', 'ssd', 'linux', '10GB')
            WHERE kind = 'apply' AND statement LIKE 'ALTER SYSTEM SET %'),
          (SELECT count(*)::int FROM pgbench_lab.recommend_sql('64GB', 16, 100, 'oltp', 'ssd', 'linux', '10GB')
            WHERE kind = 'revert' AND statement LIKE 'ALTER SYSTEM %'),
          'as many revert statements as changes');
SELECT is((SELECT statement FROM pgbench_lab.recommend_sql('64GB', 16, 100, 'oltp', 'ssd', 'linux', '10GB')
            WHERE kind = 'note'),
          (SELECT '-- needs a restart: ' || string_agg(name, ', ')
             FROM pgbench_lab.recommend('64GB', 16, 100, 'oltp', 'ssd', 'linux', '10GB')
            WHERE changes AND context = 'restart'),
          'the restart note lists the restart settings that change');

-- every setting issue 3 asks for, and no other
SELECT set_eq($$SELECT name FROM pgbench_lab.recommend('16GB', 4, 100, 'mixed', 'ssd', 'linux', '10GB')$$,
              ARRAY['max_connections', 'shared_buffers', 'effective_cache_size', 'work_mem',
                    'hash_mem_multiplier', 'maintenance_work_mem', 'autovacuum_work_mem',
                    'huge_pages', 'vm.nr_hugepages', 'wal_buffers', 'min_wal_size',
                    'max_wal_size', 'checkpoint_timeout', 'checkpoint_completion_target',
                    'random_page_cost', 'effective_io_concurrency', 'maintenance_io_concurrency',
                    'default_statistics_target', 'max_worker_processes', 'max_parallel_workers',
                    'max_parallel_workers_per_gather', 'max_parallel_maintenance_workers',
                    'jit', 'wal_compression'],
              'all 24 settings of issue 3');

-- storage measured by io_test() (a result row as it writes one) replaces
-- the device's flag when storage is NULL, and the reason says so
DELETE FROM pgbench_lab.storage_tests;
INSERT INTO pgbench_lab.storage_tests (kind, started_at, finished_at, seconds, size_bytes, results)
VALUES ('io', now(), now(), 1, 67108864, '{"random_read_iops": 12000}');
SELECT matches((SELECT reason FROM pgbench_lab.recommend('16GB', 4, 100, 'mixed', NULL, 'linux', '10GB')
                 WHERE name = 'random_page_cost'),
               '^Storage measured by pgbench_lab\.io_test\(\) on [0-9]{4}-[0-9]{2}-[0-9]{2}: 12000 random 8 kB reads/s -> nvme ',
               'random_page_cost names the measurement');
SELECT is((SELECT recommended FROM pgbench_lab.recommend('16GB', 4, 100, 'mixed', NULL, 'linux', '10GB')
            WHERE name = 'effective_io_concurrency'), '1000',
          'effective_io_concurrency of the measured class');
SELECT matches((SELECT formula FROM pgbench_lab.recommend('16GB', 4, 100, 'mixed', NULL, 'linux', '10GB')
                 WHERE name = 'maintenance_io_concurrency'), '^1000 for measured nvme$',
               'maintenance_io_concurrency follows');
SELECT is((SELECT recommended FROM pgbench_lab.recommend('16GB', 4, 100, 'mixed', 'hdd', 'linux', '10GB')
            WHERE name = 'effective_io_concurrency'), '2', 'an explicit storage wins');
SELECT is((SELECT count(*)::int FROM pgbench_lab.recommend('16GB', 4, 100, 'mixed', 'hdd', 'linux', '10GB')
            WHERE reason LIKE '%measured%' OR formula LIKE '%measured%'), 0,
          'an explicit storage mentions no measurement');

SELECT * FROM finish();
ROLLBACK;
