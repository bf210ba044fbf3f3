-- pgTAP: pgbench_lab.init and init_sql: signatures, privileges, refusals.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pgbench_lab CASCADE;
SELECT plan(11);

SELECT is(has_function_privilege('public', 'pgbench_lab.init(int, int, bool, bool, text, int, text, text, text, text)', 'EXECUTE'),
          false, 'init is revoked from PUBLIC');
SELECT is(has_function_privilege('public', 'pgbench_lab.init_sql(int, int, bool, bool, int, text, text, text, text)', 'EXECUTE'),
          true, 'init_sql changes nothing and is open to all');

SELECT throws_ok('SELECT * FROM pgbench_lab.init(NULL)', '22004', 'scale must not be null');
SELECT throws_ok('SELECT * FROM pgbench_lab.init(0)', '22023', 'scale 0 is out of range');
SELECT throws_ok('SELECT * FROM pgbench_lab.init(100000)', '22023', 'scale 100000 is out of range');
SELECT throws_ok('SELECT * FROM pgbench_lab.init(1, 5)', '22023', 'fillfactor 5 is out of range');
SELECT throws_ok('SELECT * FROM pgbench_lab.init(1, unlogged => NULL)', '22004');
SELECT throws_ok('SELECT * FROM pgbench_lab.init(1)', '25001',
                 'pgbench_lab.init cannot run inside a transaction block');

SELECT is((SELECT count(*)::int FROM pgbench_lab.init_sql(1)), 1 + 8 + 3 + 4 + 3 + 4,
          'init_sql(1): drop, 4 creates + 4 comments, 3 inserts, 4 vacuums, 3 keys + 4 comments');
SELECT is((SELECT count(*)::int FROM pgbench_lab.init_sql(1, foreign_keys => true)
            WHERE step = 'foreign keys' AND statement LIKE '%FOREIGN KEY%'), 5,
          'five foreign keys, as pgbench --foreign-keys');
SELECT ok((SELECT bool_and(statement LIKE '%aid bigint%')
             FROM pgbench_lab.init_sql(20000)
            WHERE statement ~ 'CREATE TABLE .*(accounts|history)'),
          'aid is bigint in accounts and history from scale 20000');

SELECT * FROM finish();
ROLLBACK;
