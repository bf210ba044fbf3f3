-- pgTAP: the cache part's functions, privileges, SQLSTATEs and snapshots.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pgbench_lab CASCADE;
SELECT plan(19);

SELECT is_definer('pgbench_lab', 'cache_snapshot', ARRAY['text'],
                  'cache_snapshot writes the extension''s tables as their owner');
SELECT isnt_definer('pgbench_lab', 'make_cold', ARRAY['regclass', 'boolean', 'boolean']);
SELECT is((SELECT count(*)::int FROM pg_extension
            WHERE extname = 'pgbench_lab' AND array_length(extconfig, 1) >= 3), 1,
          'snapshot tables and their sequence are kept by pg_dump');

CREATE TABLE tap_cache (id int PRIMARY KEY, v text);
INSERT INTO tap_cache SELECT g, repeat('v', 100) FROM generate_series(1, 2000) g;
CREATE VIEW tap_cache_v AS SELECT 1 AS one;
CREATE ROLE tap_cache_user;
CREATE ROLE tap_cache_mon IN ROLE pg_monitor;
GRANT EXECUTE ON FUNCTION pgbench_lab.make_cold(regclass, bool, bool) TO tap_cache_user;

SELECT throws_ok($$SELECT * FROM pgbench_lab.warm('tap_cache', 'hot')$$, '22023',
                 'invalid warm mode "hot"', 'an unknown warm mode is refused');
SELECT throws_ok($$SELECT * FROM pgbench_lab.warm('tap_cache', NULL)$$, '22004', NULL,
                 'a NULL mode is refused');
SELECT throws_ok($$SELECT * FROM pgbench_lab.make_cold(NULL)$$, '22004', NULL,
                 'a NULL relation is refused');
SELECT throws_ok($$SELECT * FROM pgbench_lab.make_cold('pg_class')$$, '42501', NULL,
                 'system catalogs are refused');
SELECT throws_ok($$SELECT * FROM pgbench_lab.make_cold('tap_cache_v')$$, '42809', NULL,
                 'relations without storage are refused');
SELECT throws_ok($$SELECT * FROM pgbench_lab.cache_status('tap_cache_v')$$, '42809', NULL,
                 'cache_status refuses views too');

SET LOCAL ROLE tap_cache_user;
SELECT throws_ok($$SELECT * FROM pgbench_lab.make_cold('tap_cache')$$, '42501',
                 'permission denied for function make_cold',
                 'make_cold refuses a non-superuser who was granted EXECUTE');
SELECT throws_ok($$SELECT pgbench_lab.cache_snapshot()$$, '42501', NULL,
                 'PUBLIC may not take snapshots');
RESET ROLE;

SET LOCAL ROLE tap_cache_mon;
SELECT throws_ok($$SELECT * FROM pgbench_lab.cache_status('tap_cache')$$, '42501', NULL,
                 'cache_status(rel) wants SELECT on the table before it locks it');
RESET ROLE;
GRANT SELECT ON tap_cache TO tap_cache_mon;
SET LOCAL ROLE tap_cache_mon;
SELECT lives_ok($$SELECT * FROM pgbench_lab.cache_status('tap_cache')$$,
                'pg_monitor may read cache_status of a table it may read');
SELECT lives_ok($$SELECT pgbench_lab.cache_snapshot('tap')$$,
                'pg_monitor may take a snapshot');
SELECT throws_ok($$INSERT INTO pgbench_lab.cache_snapshots (taken_at, datname) VALUES (now(), 'x')$$,
                 '42501', NULL, 'but not write the snapshot tables');
RESET ROLE;

-- a snapshot after warm() records the table as fully in shared buffers
SELECT ok((SELECT sum(blocks_loaded) > 0 FROM pgbench_lab.warm('tap_cache')),
          'warm loads blocks through pg_prewarm');
SET LOCAL pgbench_lab.cache_min_size = 0;
SELECT pgbench_lab.cache_snapshot('after warm') AS snap_id \gset
SELECT is((SELECT r.buffers FROM pgbench_lab.cache_snapshot_relations r
            WHERE r.snapshot_id = :snap_id AND r.relid = 'tap_cache'::regclass),
          (SELECT blocks FROM pgbench_lab.cache_status('tap_cache')
            WHERE relation = 'tap_cache'::regclass),
          'the snapshot shows every block of the table in shared buffers');
SELECT is((SELECT sum(buffers_left)::int FROM pgbench_lab.make_cold('tap_cache')), 0,
          'make_cold leaves no buffer of the table and its index');
SELECT is((SELECT sum(buffers)::int FROM pgbench_lab.cache_status('tap_cache')), 0,
          'cache_status agrees');

SELECT * FROM finish();
ROLLBACK;
