-- storage: what storage_latest makes of io_test() results, for results as
-- io_test() records them (fabricated here, so that the output is fixed):
-- effective_io_concurrency is the measured knee depth, with its reason; a
-- result without depths falls back to the storage class's value.
BEGIN;
CREATE FUNCTION pg_temp.io_result(iops numeric, depths jsonb, knee int)
RETURNS void LANGUAGE sql AS $$
INSERT INTO pgbench_lab.storage_tests (kind, started_at, finished_at, seconds, size_bytes, results)
VALUES ('io', now(), now(), 1, 16777216,
        jsonb_build_object('random_read_iops', iops, 'read_cache_bypass', 'O_DIRECT')
        || CASE WHEN depths IS NULL THEN '{}'::jsonb
                ELSE jsonb_build_object('iops_by_depth', depths, 'knee_depth', knee) END)
$$;
CREATE FUNCTION pg_temp.depths(VARIADIC iops numeric[]) RETURNS jsonb LANGUAGE sql AS $$
SELECT jsonb_agg(jsonb_build_object('depth', d, 'iops', i, 'reads', 100, 'seconds', 0.1,
                                    'method', CASE WHEN d = 1 THEN 'O_DIRECT' ELSE 'posix_fadvise' END)
                 ORDER BY d)
  FROM unnest(ARRAY[1, 4, 16, 64], iops) AS x(d, i)
$$;

-- the throughput stops growing at 16 (9500 is within 10% of 10000)
SELECT pg_temp.io_result(2000, pg_temp.depths(2000, 7000, 9500, 10000), 16);
SELECT storage_class, effective_io_concurrency, knee_depth,
       jsonb_array_length(iops_by_depth) AS depths, storage_class_reason
  FROM pgbench_lab.storage_latest;

-- reads in flight do not pay: the knee is depth 1
SELECT pg_temp.io_result(12000, pg_temp.depths(12000, 12500, 12400, 12600), 1);
SELECT storage_class, effective_io_concurrency, knee_depth, storage_class_reason
  FROM pgbench_lab.storage_latest;

-- still growing at 64
SELECT pg_temp.io_result(300, pg_temp.depths(300, 1100, 3800, 9000), 64);
SELECT storage_class, effective_io_concurrency, knee_depth, storage_class_reason
  FROM pgbench_lab.storage_latest;

-- a result from before depths were measured: the class decides
SELECT pg_temp.io_result(5000, NULL, NULL);
SELECT storage_class, effective_io_concurrency, knee_depth, iops_by_depth, storage_class_reason
  FROM pgbench_lab.storage_latest;

-- the reason helper on what is not a result with depths
SELECT pgbench_lab_internal.io_knee_reason(NULL) IS NULL AS null_input,
       pgbench_lab_internal.io_knee_reason('{"iops_by_depth": {"1": 5}, "knee_depth": 1}') IS NULL AS object_depths,
       pgbench_lab_internal.io_knee_reason('{"iops_by_depth": [], "knee_depth": 4}') IS NULL AS no_depths;
ROLLBACK;
