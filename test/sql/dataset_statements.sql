-- pgbench_lab.init_sql(): the statements init runs, in its order (pgbench -I dtpGv).
SET search_path = public;
SELECT step, statement FROM pgbench_lab.init_sql(1);
-- options: fillfactor, unlogged, foreign keys; aid is bigint from 20000
SELECT step, statement FROM pgbench_lab.init_sql(20000, fillfactor => 90,
       foreign_keys => true, unlogged => true)
 WHERE step <> 'vacuum';
-- a schema whose name needs quoting
CREATE SCHEMA "Lab ""x""";
SET search_path = "Lab ""x""";
SELECT statement FROM pgbench_lab.init_sql(1) WHERE step = 'drop tables';
RESET search_path;
DROP SCHEMA "Lab ""x""";
