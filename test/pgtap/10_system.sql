-- pgTAP: pgbench_lab.system_info() -- shape, privileges, the sysroot
-- setting, and facts that must hold on any machine.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pgbench_lab CASCADE;
SELECT plan(14);

SELECT is(pg_get_function_result('pgbench_lab.system_info()'::regprocedure),
          'TABLE(name text, value text, unit text, source text)', 'columns name, value, unit, source');

-- privileges: not PUBLIC, pg_monitor yes
SELECT function_privs_are('pgbench_lab', 'system_info', ARRAY[]::text[], 'public', ARRAY[]::text[],
                          'PUBLIC may not run system_info()');
SELECT function_privs_are('pgbench_lab', 'system_info', ARRAY[]::text[], 'pg_monitor', ARRAY['EXECUTE'],
                          'pg_monitor may run system_info()');

CREATE ROLE tap_system_monitor IN ROLE pg_monitor;
CREATE ROLE tap_system_nobody;
SET LOCAL ROLE tap_system_nobody;
SELECT throws_ok('SELECT * FROM pgbench_lab.system_info()', '42501', NULL,
                 'a role outside pg_monitor may not run it');
RESET ROLE;
SET LOCAL ROLE tap_system_monitor;
SELECT cmp_ok((SELECT count(*) FROM pgbench_lab.system_info())::int, '>', 20,
              'a pg_monitor member gets the facts');
SELECT throws_ok($$SET pgbench_lab.sysroot = '/tmp'$$, '42501', NULL,
                 'a non-superuser may not set pgbench_lab.sysroot');
RESET ROLE;

-- facts that hold on any machine
SELECT cmp_ok((SELECT value::numeric FROM pgbench_lab.system_info() WHERE name = 'memory_limit'),
              '<=', (SELECT value::numeric FROM pgbench_lab.system_info() WHERE name = 'physical_ram'),
              'the effective memory limit is at most the physical RAM');
SELECT cmp_ok((SELECT value::numeric FROM pgbench_lab.system_info() WHERE name = 'cpus_effective'),
              '<=', (SELECT value::numeric FROM pgbench_lab.system_info() WHERE name = 'cpus_online'),
              'the effective CPUs are at most the CPUs online');
SELECT ok((SELECT value::numeric > 0 FROM pgbench_lab.system_info() WHERE name = 'cpus_effective'),
          'some CPU is usable');
SELECT is((SELECT value FROM pgbench_lab.system_info() WHERE name = 'block_size'),
          current_setting('block_size'), 'block size is the server''s');
SELECT is((SELECT value FROM pgbench_lab.system_info() WHERE name = 'server_version_num'),
          current_setting('server_version_num'), 'version is the server''s');
SELECT is((SELECT count(*)::int FROM pgbench_lab.system_info()
            WHERE (value IS NULL) <> (source = 'unavailable' OR source LIKE '%(no limit)')),
          0, 'a NULL value always says why');

-- a root that holds nothing: facts become unavailable, nothing fails
SET LOCAL pgbench_lab.sysroot = '/nonexistent';
SELECT lives_ok('SELECT * FROM pgbench_lab.system_info()', 'an empty root raises no error');
SELECT is((SELECT source FROM pgbench_lab.system_info() WHERE name = 'memory_limit'),
          'unavailable', 'an empty root has no memory facts');

SELECT * FROM finish();
ROLLBACK;
