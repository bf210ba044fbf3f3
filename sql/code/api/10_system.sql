
-- ---------------------------------------------------------------------------
-- system: what the server can see of the machine it runs on.
-- ---------------------------------------------------------------------------

-- One row per fact.  value is NULL when a fact could not be read (source
-- 'unavailable') or a cgroup sets no limit (source '... (no limit)').
CREATE FUNCTION pgbench_lab.system_info()
RETURNS TABLE (name text, value text, unit text, source text)
AS 'MODULE_PATHNAME', 'pgbench_lab_system_info'
LANGUAGE C VOLATILE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION pgbench_lab.system_info() IS
'RAM, cgroup limits, CPUs, huge pages, the data directory''s storage, OS and build, as the server sees them';

-- It shows paths, devices and limits of the host: monitoring roles only.
REVOKE EXECUTE ON FUNCTION pgbench_lab.system_info() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION pgbench_lab.system_info() TO pg_monitor;
