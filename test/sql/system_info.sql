-- pgbench_lab.system_info(): its shape, the facts it names, its privileges,
-- and who may point it at another root.  Values depend on the machine, so
-- only deterministic parts are shown here (see test/t/test_system.py).
SELECT pg_get_function_arguments('pgbench_lab.system_info()'::regprocedure) AS arguments,
       pg_get_function_result('pgbench_lab.system_info()'::regprocedure) AS result;

-- every fact, in order, with its unit
SELECT name, unit FROM pgbench_lab.system_info();

-- a NULL value always says why, and a value never claims to be unavailable
SELECT name, value, source FROM pgbench_lab.system_info()
 WHERE (value IS NULL) <> (source = 'unavailable' OR source LIKE '%(no limit)');

-- numbers are plain numbers, booleans are true/false
SELECT name, value FROM pgbench_lab.system_info()
 WHERE (unit IS NOT NULL AND value !~ '^[0-9]+(\.[0-9]+)?$')
    OR (name IN ('data_rotational', 'lz4', 'zstd') AND value NOT IN ('true', 'false'));

-- facts of the server itself
SELECT name, value = current_setting(name) AS matches_setting
  FROM pgbench_lab.system_info()
 WHERE name IN ('server_version_num', 'block_size');

-- revoked from PUBLIC, granted to pg_monitor
SELECT has_function_privilege('public', 'pgbench_lab.system_info()', 'EXECUTE') AS public_may,
       has_function_privilege('pg_monitor', 'pgbench_lab.system_info()', 'EXECUTE') AS pg_monitor_may;

-- a root with nothing in it: every file fact is unavailable, no error
SET pgbench_lab.sysroot = '/nonexistent/pgbench_lab/sysroot';
-- (CPU counts still come from the real system, and say so)
SELECT name, source FROM pgbench_lab.system_info()
 WHERE name IN ('physical_ram', 'cgroup_memory_max', 'cgroup_memory_high', 'memory_limit',
                'hugepage_size', 'hugepages_total', 'hugepages_free', 'cpus_online',
                'cpus_affinity', 'cgroup_cpuset', 'cgroup_cpu_quota', 'data_device', 'data_rotational',
                'data_mount_point', 'data_mount_source');
RESET pgbench_lab.sysroot;

-- only a superuser may set the root
CREATE ROLE regress_system_user;
GRANT pg_monitor TO regress_system_user;
SET ROLE regress_system_user;
SELECT count(*) > 20 AS has_facts FROM pgbench_lab.system_info();
SET pgbench_lab.sysroot = '/tmp';
RESET ROLE;
REVOKE pg_monitor FROM regress_system_user;
SET ROLE regress_system_user;
SELECT count(*) FROM pgbench_lab.system_info();
RESET ROLE;
DROP ROLE regress_system_user;
