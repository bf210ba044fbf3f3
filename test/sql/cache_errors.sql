-- Cache part: argument checks, refusals and privileges (messages and hints;
-- the SQLSTATEs are checked in test/pgtap/60_cache.sql).
CREATE TABLE cache_reg (id int PRIMARY KEY, note text);
INSERT INTO cache_reg SELECT g, 'row ' || g FROM generate_series(1, 1000) g;
CREATE VIEW cache_reg_v AS SELECT * FROM cache_reg;
CREATE TEMP TABLE cache_reg_tmp (id int);

-- the relations cache_status and make_cold act on
SELECT regexp_replace(relation::text, '[0-9]+', 'N') AS relation, kind, blocks > 0 AS has_blocks, buffers <= blocks AS sane
  FROM pgbench_lab.cache_status('cache_reg') ORDER BY kind;
SELECT regexp_replace(relation::text, '[0-9]+', 'N') AS relation, kind, buffers_left
  FROM pgbench_lab.make_cold('cache_reg', include_indexes => false, os_cache => false)
 ORDER BY kind;
SELECT regexp_replace(relation::text, '[0-9]+', 'N') AS relation, blocks_loaded > 0 AS loaded
  FROM pgbench_lab.warm('cache_reg', 'read', include_indexes => false)
 ORDER BY kind;

-- what fits: a warm's plan within a budget, indexes first, smaller first
SELECT shared_buffers > 0 AS sized, budget = shared_buffers - margin AS budget_is_the_rest,
       margin >= shared_buffers / 10 AND margin <= shared_buffers / 4 + 1 + shared_buffers / 10 AS margin_sane
  FROM pgbench_lab_internal.warm_budget();
SELECT regexp_replace(relation::text, '[0-9]+', 'N') AS relation, kind, warm_blocks = blocks AS whole
  FROM pgbench_lab_internal.warm_plan(ARRAY['cache_reg'::regclass], 1000000);
SELECT regexp_replace(relation::text, '[0-9]+', 'N') AS relation, kind, blocks > 1 AS several, warm_blocks
  FROM pgbench_lab_internal.warm_plan(ARRAY['cache_reg'::regclass], 2);
SELECT regexp_replace(relation::text, '[0-9]+', 'N') AS relation, blocks_loaded
  FROM pgbench_lab_internal.warm_blocks(ARRAY['cache_reg_pkey', 'cache_reg']::regclass[], '{1,2}');
SELECT b, pgbench_lab_internal.warm_needed(b) FROM unnest('{0,1000,100000}'::int8[]) b;
SELECT * FROM pgbench_lab_internal.warm_plan(ARRAY['cache_reg'::regclass], -1);
SELECT * FROM pgbench_lab_internal.warm_plan(ARRAY['cache_reg'::regclass, NULL], 1);
SELECT * FROM pgbench_lab_internal.warm_plan(NULL, 1);
SELECT * FROM pgbench_lab_internal.warm_blocks(ARRAY['cache_reg'::regclass], '{1,2}');
SELECT * FROM pgbench_lab_internal.warm_blocks(ARRAY['cache_reg', 'cache_reg']::regclass[], '{1,1}');
SELECT * FROM pgbench_lab_internal.warm_blocks(ARRAY['cache_reg'::regclass], '{-1}');
SELECT * FROM pgbench_lab_internal.warm_blocks(ARRAY['cache_reg'::regclass], '{NULL}');
SELECT * FROM pgbench_lab_internal.warm_blocks(ARRAY['cache_reg_v'::regclass], '{1}');
SELECT pgbench_lab_internal.warm_needed(-1);

-- bad arguments
SELECT * FROM pgbench_lab.warm('cache_reg', 'everything');
SELECT * FROM pgbench_lab.warm('cache_reg', NULL);
SELECT * FROM pgbench_lab.warm(NULL);
SELECT * FROM pgbench_lab.make_cold(NULL);
SELECT * FROM pgbench_lab.make_cold('cache_reg', NULL);
SELECT * FROM pgbench_lab.cache_status(0::oid::regclass);

-- what has no shared-buffer pages
SELECT * FROM pgbench_lab.cache_status('cache_reg_v');
SELECT * FROM pgbench_lab.make_cold('cache_reg_v');
SELECT * FROM pgbench_lab.warm('cache_reg_tmp');

-- system catalogs and TOAST tables are never made cold
SELECT * FROM pgbench_lab.make_cold('pg_class');
SELECT * FROM pgbench_lab.make_cold('pg_catalog.pg_statistic_relid_att_inh_index');
CREATE TABLE cache_reg_toasted (t text);
\set VERBOSITY sqlstate
SELECT count(*) FROM pgbench_lab.make_cold((SELECT reltoastrelid FROM pg_class
                                           WHERE oid = 'cache_reg_toasted'::regclass)::regclass);
\set VERBOSITY default

-- make_cold is for superusers, whatever EXECUTE says; warm needs SELECT
CREATE ROLE cache_reg_user;
GRANT EXECUTE ON FUNCTION pgbench_lab.make_cold(regclass, bool, bool),
                          pgbench_lab.warm(regclass, text, bool) TO cache_reg_user;
SET ROLE cache_reg_user;
SELECT * FROM pgbench_lab.make_cold('cache_reg');
SELECT * FROM pgbench_lab.warm('cache_reg');
SELECT * FROM pgbench_lab_internal.warm_plan(ARRAY['cache_reg'::regclass], 1);
SELECT * FROM pgbench_lab_internal.warm_blocks(ARRAY['cache_reg'::regclass], '{1}');
SELECT * FROM pgbench_lab.cache_status('cache_reg');
SELECT pgbench_lab.cache_snapshot('nope');
RESET ROLE;

-- privileges as installed
SELECT p.proname,
       has_function_privilege('cache_reg_user', p.oid, 'EXECUTE') AS granted_user,
       has_function_privilege('pg_monitor', p.oid, 'EXECUTE') AS pg_monitor,
       p.prosecdef AS security_definer
  FROM pg_proc p
 WHERE p.pronamespace = 'pgbench_lab'::regnamespace
   AND p.proname IN ('cache_status', 'cache_snapshot', 'make_cold', 'warm')
 ORDER BY 1;
SELECT c.relname,
       has_table_privilege('pg_monitor', c.oid, 'SELECT') AS monitor_select,
       has_table_privilege('pg_monitor', c.oid, 'INSERT') AS monitor_insert
  FROM pg_class c
 WHERE c.relnamespace = 'pgbench_lab'::regnamespace AND c.relname LIKE 'cache_snapshot%'
   AND c.relkind = 'r'
 ORDER BY 1;

REVOKE ALL ON FUNCTION pgbench_lab.make_cold(regclass, bool, bool),
                       pgbench_lab.warm(regclass, text, bool) FROM cache_reg_user;
DROP ROLE cache_reg_user;
DROP TABLE cache_reg_toasted;
DROP VIEW cache_reg_v;
DROP TABLE cache_reg;
