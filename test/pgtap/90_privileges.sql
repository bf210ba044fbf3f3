-- pgTAP: privileges of the whole extension, as unprivileged roles.  Nothing
-- that starts workers, changes data or touches shared buffers is executable
-- by default; pg_monitor reads; the result tables take no direct writes;
-- superuser-only functions refuse even with EXECUTE granted.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pgbench_lab CASCADE;
SELECT plan(37);

CREATE ROLE tap_nobody;
CREATE ROLE tap_mon IN ROLE pg_monitor;
CREATE ROLE tap_granted;

-- what a role with no grants may execute that can change anything (VOLATILE):
-- only wait() and run_live(), which see only the caller's own runs (row
-- security), record(), whose C entry point checks the caller (imports),
-- init_tpcc()'s four helpers, whose C entry points refuse a role that may
-- not execute init_tpcc() (tpcc_load.c, tpcc_disk.c, tpcc_remote.c),
-- and worker_slots_free(), a count of
-- background workers that pg_stat_activity shows PUBLIC anyway; everything
-- else PUBLIC may execute is STABLE or IMMUTABLE (readers and formatters,
-- under row security)
SELECT set_eq(
    $$SELECT p.proname::text FROM pg_proc p
       WHERE p.pronamespace IN ('pgbench_lab'::regnamespace, 'pgbench_lab_internal'::regnamespace)
         AND p.provolatile = 'v'
         AND has_function_privilege('tap_nobody', p.oid, 'EXECUTE')$$,
    ARRAY['wait', 'run_live', 'record', 'doc_invalid', 'cold_vs_warm_prepare', 'worker_slots_free',
          'tpcc_load', 'tpcc_check_disk', 'tpcc_progress', 'tpcc_remote'],
    'PUBLIC may execute no volatile function but the run readers and the checked recorders');
SELECT set_eq(
    $$SELECT p.proname::text FROM pg_proc p
       WHERE p.pronamespace IN ('pgbench_lab'::regnamespace, 'pgbench_lab_internal'::regnamespace)
         AND has_function_privilege('tap_mon', p.oid, 'EXECUTE')
         AND NOT has_function_privilege('tap_nobody', p.oid, 'EXECUTE')$$,
    ARRAY['system_info', 'recommend', 'memory_budget', 'recommend_sql',
          'cache_status', 'cache_snapshot', 'autoprewarm_status',
          'cold_vs_warm_finding', 'cold_vs_warm_runs', 'auto_conf'],
    'pg_monitor adds the readers of the machine, the settings and the cache');

-- every function that starts workers, changes data or touches shared buffers
SELECT ok(NOT has_function_privilege('tap_nobody', 'pgbench_lab.start'::regproc::oid, 'EXECUTE'),
          'start() is not executable by default');
SELECT ok(NOT has_function_privilege('tap_nobody', 'pgbench_lab.run'::regproc::oid, 'EXECUTE'),
          'run() is not executable by default');
SELECT function_privs_are('pgbench_lab', 'init', ARRAY['integer', 'integer', 'boolean', 'boolean', 'text', 'integer', 'text', 'text', 'text', 'text'],
    'tap_nobody', '{}', 'init() is not executable by default');
SELECT function_privs_are('pgbench_lab', 'cancel', ARRAY['bigint'],
    'tap_nobody', '{}', 'cancel() is not executable by default');
SELECT function_privs_are('pgbench_lab', 'make_cold', ARRAY['regclass', 'boolean', 'boolean'],
    'tap_nobody', '{}', 'make_cold() is not executable by default');
SELECT function_privs_are('pgbench_lab', 'warm', ARRAY['regclass', 'text', 'boolean'],
    'tap_nobody', '{}', 'warm() is not executable by default');
SELECT function_privs_are('pgbench_lab', 'cache_snapshot', ARRAY['text'],
    'tap_nobody', '{}', 'cache_snapshot() is not executable by default');
SELECT function_privs_are('pgbench_lab', 'cache_status', ARRAY['regclass'],
    'tap_nobody', '{}', 'cache_status() is not executable by default');
SELECT function_privs_are('pgbench_lab', 'fsync_test', ARRAY['numeric'],
    'tap_nobody', '{}', 'fsync_test() is not executable by default');
SELECT function_privs_are('pgbench_lab', 'io_test', ARRAY['text', 'numeric'],
    'tap_nobody', '{}', 'io_test() is not executable by default');
SELECT function_privs_are('pgbench_lab', 'system_info', ARRAY[]::text[],
    'tap_nobody', '{}', 'system_info() is not executable by default');

-- nobody writes the result tables directly, not even pg_monitor
SELECT table_privs_are('pgbench_lab', 'runs', 'tap_nobody', ARRAY['SELECT'],
    'runs: read (own rows) only');
SELECT table_privs_are('pgbench_lab', 'run_progress', 'tap_nobody', ARRAY['SELECT'],
    'run_progress: read (own runs) only');
SELECT table_privs_are('pgbench_lab', 'run_latency', 'tap_nobody', ARRAY['SELECT'],
    'run_latency: read (own runs) only');
SELECT table_privs_are('pgbench_lab', 'run_errors', 'tap_nobody', ARRAY['SELECT'],
    'run_errors: read (own runs) only');
SELECT table_privs_are('pgbench_lab', 'run_telemetry', 'tap_nobody', ARRAY['SELECT'],
    'run_telemetry: read (own runs) only');
SELECT is((SELECT c.relrowsecurity FROM pg_class c WHERE c.oid = 'pgbench_lab.run_telemetry'::regclass),
          true, 'run_telemetry has row level security');
SELECT table_privs_are('pgbench_lab', 'cache_snapshots', 'tap_nobody', ARRAY[]::text[],
    'cache_snapshots: nothing for PUBLIC');
SELECT table_privs_are('pgbench_lab', 'storage_tests', 'tap_nobody', ARRAY[]::text[],
    'storage_tests: nothing for PUBLIC');
SELECT table_privs_are('pgbench_lab', 'cache_snapshots', 'tap_mon', ARRAY['SELECT'],
    'cache_snapshots: pg_monitor reads');
SELECT table_privs_are('pgbench_lab', 'storage_tests', 'tap_mon', ARRAY['SELECT'],
    'storage_tests: pg_monitor reads');
SELECT is((SELECT bool_and(c.relrowsecurity) FROM pg_class c
            WHERE c.oid IN ('pgbench_lab.runs'::regclass, 'pgbench_lab.run_progress'::regclass,
                            'pgbench_lab.run_latency'::regclass, 'pgbench_lab.run_errors'::regclass)),
          true, 'run tables have row level security');

SET LOCAL ROLE tap_mon;
SELECT throws_ok($$INSERT INTO pgbench_lab.runs (workload, clients, max_tries, owner)
                   VALUES ('select-only', 1, 1, 'tap_mon')$$, '42501', NULL,
                 'pg_monitor cannot insert a run');
SELECT throws_ok($$UPDATE pgbench_lab.runs SET status = 'done'$$, '42501', NULL,
                 'pg_monitor cannot update runs');
SELECT throws_ok($$DELETE FROM pgbench_lab.run_progress$$, '42501', NULL,
                 'pg_monitor cannot delete progress');
SELECT throws_ok($$INSERT INTO pgbench_lab.run_latency VALUES (1, 1, 1)$$, '42501', NULL,
                 'pg_monitor cannot insert latency buckets');
SELECT throws_ok($$DELETE FROM pgbench_lab.run_telemetry$$, '42501', NULL,
                 'pg_monitor cannot delete telemetry');
SELECT throws_ok($$DELETE FROM pgbench_lab.cache_snapshots$$, '42501', NULL,
                 'pg_monitor cannot delete snapshots');
SELECT throws_ok($$INSERT INTO pgbench_lab.storage_tests (kind, started_at, finished_at, seconds, results)
                   VALUES ('io', now(), now(), 1, '{}')$$, '42501', NULL,
                 'pg_monitor cannot insert storage results');
SELECT throws_ok($$TRUNCATE pgbench_lab.runs CASCADE$$, '42501', NULL,
                 'pg_monitor cannot truncate runs');
SELECT throws_ok($$SELECT pgbench_lab.start('select-only')$$, '42501', NULL,
                 'pg_monitor cannot start runs');
RESET ROLE;

-- superuser-only functions refuse even with EXECUTE granted (checked in C)
GRANT EXECUTE ON FUNCTION pgbench_lab.make_cold(regclass, boolean, boolean),
                          pgbench_lab.fsync_test(numeric),
                          pgbench_lab.io_test(text, numeric) TO tap_granted;
CREATE TABLE tap_priv_t (id int);
GRANT ALL ON tap_priv_t TO tap_granted;
SET LOCAL ROLE tap_granted;
SELECT throws_ok($$SELECT * FROM pgbench_lab.make_cold('tap_priv_t')$$, '42501', NULL,
                 'make_cold refuses a granted non-superuser');
SELECT throws_ok($$SELECT * FROM pgbench_lab.fsync_test(0.01)$$, '42501', NULL,
                 'fsync_test refuses a granted non-superuser');
SELECT throws_ok($$SELECT * FROM pgbench_lab.io_test('1MB', 0.01)$$, '42501', NULL,
                 'io_test refuses a granted non-superuser');
SELECT throws_ok($$UPDATE pgbench_lab.runs SET owner = 'tap_granted'$$, '42501', NULL,
                 'a granted role cannot rewrite run owners');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
