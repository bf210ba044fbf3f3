-- pgTAP: storage functions record their results, return the rows promised
-- and leave no temporary file behind.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pgbench_lab CASCADE;
SELECT plan(14);


CREATE TEMP TABLE f AS SELECT * FROM pgbench_lab.fsync_test(0.5);
SELECT is((SELECT count(*)::int FROM f), 19, 'fsync_test returns 19 method rows');
SELECT is((SELECT count(*)::int FROM f WHERE fastest_safe), 1, 'exactly one fastest safe method');
SELECT ok((SELECT method <> 'write' AND supported AND writes_per_sync = 1
             FROM f WHERE fastest_safe), 'the fastest safe method really syncs');
SELECT ok((SELECT bool_and(ops_per_second > 0 AND usec_per_op > 0) FROM f WHERE supported),
          'every supported method has positive figures');
SELECT ok(NOT EXISTS (SELECT FROM f WHERE NOT supported
                        AND (NOT direct OR ops_per_second IS NOT NULL)),
          'only O_DIRECT rows can be unsupported, and they have no figures');
SELECT is((SELECT count(*)::int FROM f WHERE is_current),
          CASE WHEN current_setting('wal_sync_method') = 'fsync_writethrough' THEN 0 ELSE 1 END,
          'the server''s wal_sync_method is marked once');
SELECT is((SELECT count(*)::int FROM pg_ls_tmpdir() WHERE name LIKE '%pgbench_lab%'), 0,
          'no temporary file left after fsync_test');

CREATE TEMP TABLE i AS SELECT * FROM pgbench_lab.io_test('8MB', 0.5);
SELECT ok((SELECT file_size > 0 AND file_size <= 8 * 1024 * 1024 AND file_size % 8192 = 0
             AND write_mb_per_second > 0 AND read_mb_per_second > 0 AND random_read_iops > 0
             FROM i), 'io_test returns positive figures for at most the asked size');
SELECT ok((SELECT read_cache_bypass IN ('O_DIRECT', 'posix_fadvise') FROM i),
          'the OS cache is kept out of the read figures');
SELECT is((SELECT array_agg((e ->> 'depth')::int ORDER BY n)
             FROM i, jsonb_array_elements(i.iops_by_depth) WITH ORDINALITY AS d(e, n)),
          ARRAY[1, 4, 16, 64], 'io_test measures random reads at queue depths 1, 4, 16 and 64');
SELECT ok((SELECT knee_depth IN (1, 4, 16, 64)
                  AND (iops_by_depth -> 0 ->> 'iops')::numeric = random_read_iops FROM i),
          'the knee is one of the depths, and depth 1 is random_read_iops');
SELECT is((SELECT count(*)::int FROM pg_ls_tmpdir() WHERE name LIKE '%pgbench_lab%'), 0,
          'no temporary file left after io_test');

SELECT is((SELECT count(*)::int FROM pgbench_lab.storage_tests
            WHERE kind IN ('fsync', 'io') AND started_at >= now()), 2,
          'both tests recorded in storage_tests');
SELECT ok((SELECT fastest_safe_method = (SELECT method FROM f WHERE fastest_safe)
                  AND random_read_iops = (SELECT random_read_iops FROM i)
                  AND storage_class IS NOT NULL
                  AND effective_io_concurrency = (SELECT knee_depth FROM i)
                  AND knee_depth = (SELECT knee_depth FROM i)
             FROM pgbench_lab.storage_latest),
          'storage_latest shows the latest figures, effective_io_concurrency the measured knee');

SELECT * FROM finish();
ROLLBACK;
