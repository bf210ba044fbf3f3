-- pgbench_lab.init(): every bad argument is refused before any work starts.
\set VERBOSITY default
SELECT * FROM pgbench_lab.init(NULL);
SELECT * FROM pgbench_lab.init(1, fillfactor => NULL);
SELECT * FROM pgbench_lab.init(1, foreign_keys => NULL);
SELECT * FROM pgbench_lab.init(1, unlogged => NULL);
SELECT * FROM pgbench_lab.init(0);
SELECT * FROM pgbench_lab.init(-1);
SELECT * FROM pgbench_lab.init(5001);
SELECT * FROM pgbench_lab.init(1, fillfactor => 9);
SELECT * FROM pgbench_lab.init(1, fillfactor => 101);
SELECT * FROM pgbench_lab.init(2147483648);
SELECT * FROM pgbench_lab.init(2147483648::bigint::int);
SELECT * FROM pgbench_lab.init_sql(0);
-- the limit is a superuser setting
SET pgbench_lab.max_scale = 10;
SELECT * FROM pgbench_lab.init(11);
RESET pgbench_lab.max_scale;
SELECT name, setting, context FROM pg_settings WHERE name = 'pgbench_lab.max_scale';
-- the worker commits on its own, so no transaction block
BEGIN;
SELECT * FROM pgbench_lab.init(1);
ROLLBACK;
-- nor in a read-only transaction
SET default_transaction_read_only = on;
SELECT * FROM pgbench_lab.init(1);
RESET default_transaction_read_only;
-- nor a temporary schema, which the worker cannot see
CREATE TEMP TABLE t_dataset (x int);
SET search_path = pg_temp, public;
SELECT * FROM pgbench_lab.init(1);
RESET search_path;
-- not a table init made: refused, with a hint
CREATE SCHEMA dataset_theirs;
CREATE TABLE dataset_theirs.pgbench_history (x int);
SET search_path = dataset_theirs;
SELECT * FROM pgbench_lab.init(1);
RESET search_path;
DROP SCHEMA dataset_theirs CASCADE;
-- who may call what
SELECT p.oid::regprocedure AS function,
       has_function_privilege('public', p.oid, 'EXECUTE') AS public_execute
  FROM pg_proc p
 WHERE p.pronamespace = 'pgbench_lab'::regnamespace AND p.proname LIKE 'init%'
 ORDER BY 1::text;
