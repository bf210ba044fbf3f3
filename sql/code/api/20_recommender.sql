
-- ---------------------------------------------------------------------------
-- recommender and settings: settings for the machine the server runs on,
-- explained, budgeted and validated against the live server.
-- ---------------------------------------------------------------------------

-- One row per setting.  A NULL input is detected: RAM and CPUs from
-- system_info() (cgroup limits first), storage from the data directory's
-- device, data size from the databases, OS from the server.
CREATE FUNCTION pgbench_lab.recommend(
    ram text DEFAULT NULL,
    cpus numeric DEFAULT NULL,
    max_connections int DEFAULT NULL,
    workload text DEFAULT 'mixed',
    storage text DEFAULT NULL,
    os text DEFAULT NULL,
    data_size text DEFAULT NULL,
    os_reserve text DEFAULT NULL,
    OUT name text,
    OUT current text,
    OUT recommended text,
    OUT changes boolean,
    OUT context text,
    OUT formula text,
    OUT reason text,
    OUT within_limits boolean)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'pgbench_lab_recommend'
LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL RESTRICTED
SET search_path = pg_catalog, pg_temp;

COMMENT ON FUNCTION pgbench_lab.recommend(text, numeric, int, text, text, text, text, text) IS
'Recommended settings with their formula, reason, context and whether they fit the server''s bounds';

-- The memory budget, term by term (with the classic 5-parameter budget);
-- NULL means the live value, and for backend_memory (a backend's private
-- memory) the figure measured on an idle backend of this server.  It takes
-- every memory setting recommend() sets, so that recommend()'s output can
-- be checked as it would run.
CREATE FUNCTION pgbench_lab.memory_budget(
    ram text DEFAULT NULL,
    max_connections int DEFAULT NULL,
    work_mem text DEFAULT NULL,
    shared_buffers text DEFAULT NULL,
    maintenance_work_mem text DEFAULT NULL,
    effective_cache_size text DEFAULT NULL,
    autovacuum_max_workers int DEFAULT NULL,
    backend_memory text DEFAULT NULL,
    autovacuum_work_mem text DEFAULT NULL,
    hash_mem_multiplier numeric DEFAULT NULL,
    max_parallel_workers_per_gather int DEFAULT NULL,
    max_parallel_workers int DEFAULT NULL,
    wal_buffers text DEFAULT NULL,
    OUT component text,
    OUT bytes numeric,
    OUT size text,
    OUT ram_share numeric,
    OUT status text,
    OUT note text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'pgbench_lab_memory_budget'
LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL RESTRICTED
SET search_path = pg_catalog, pg_temp;

COMMENT ON FUNCTION pgbench_lab.memory_budget(text, int, text, text, text, text, int, text, text, numeric, int, int, text) IS
'Memory budget of the live (or given) settings: each term, the total, what is left for the OS cache, and a verdict';

-- What postgresql.auto.conf holds for these settings: the last line of
-- each, applied or still pending, exactly as ALTER SYSTEM wrote it.  The
-- revert script restores these lines (and resets the others), so that
-- apply then revert leaves postgresql.auto.conf as it was.  pg_file_settings
-- is for superusers only: this reads it as the extension's owner, and only
-- the lines ALTER SYSTEM wrote for the names asked for; pg_monitor, which
-- may call it, reads every applied setting already.
CREATE FUNCTION pgbench_lab_internal.auto_conf(names text[])
RETURNS TABLE (name text, setting text)
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT f.name, f.setting
      FROM (SELECT f.name, f.setting,
                   pg_catalog.row_number() OVER (PARTITION BY f.name ORDER BY f.seqno DESC) AS last
              FROM pg_catalog.pg_file_settings f
             WHERE f.sourcefile OPERATOR(pg_catalog.~) '(^|/)postgresql\.auto\.conf$'
               AND f.name OPERATOR(pg_catalog.=) ANY (names)) f
     WHERE f.last OPERATOR(pg_catalog.=) 1
$$;
REVOKE ALL ON FUNCTION pgbench_lab_internal.auto_conf(text[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION pgbench_lab_internal.auto_conf(text[]) TO pg_monitor;

-- The ALTER SYSTEM statements for what recommend() would change, a note of
-- what needs a restart, and a script that restores what postgresql.auto.conf
-- holds today (pending values included).  Nothing
-- is applied: the DBA reads, edits and runs it.
CREATE FUNCTION pgbench_lab.recommend_sql(
    ram text DEFAULT NULL,
    cpus numeric DEFAULT NULL,
    max_connections int DEFAULT NULL,
    workload text DEFAULT 'mixed',
    storage text DEFAULT NULL,
    os text DEFAULT NULL,
    data_size text DEFAULT NULL,
    os_reserve text DEFAULT NULL,
    OUT step int,
    OUT kind text,
    OUT statement text)
RETURNS SETOF record
LANGUAGE sql VOLATILE CALLED ON NULL INPUT PARALLEL RESTRICTED
SET search_path = pg_catalog, pg_temp
AS $$
WITH r AS (
    SELECT r.*
      FROM (SELECT pg_catalog.row_number() OVER () AS n, *
              FROM pgbench_lab.recommend($1, $2, $3, $4, $5, $6, $7, $8)) AS r
     WHERE r.changes
), auto AS (
    SELECT * FROM pgbench_lab_internal.auto_conf(ARRAY(SELECT r.name FROM r))
), lines AS (
    SELECT 1 AS part, n, 'apply'::pg_catalog.text AS kind,
           CASE WHEN context OPERATOR(pg_catalog.=) 'sysctl'
                THEN pg_catalog.format('-- as root, before the restart: sysctl -w %s=%s', name, recommended)
                ELSE pg_catalog.format('ALTER SYSTEM SET %I = %L;  -- %s', name, recommended, context)
           END AS statement
      FROM r
    UNION ALL
    SELECT 2, 0, 'apply', 'SELECT pg_catalog.pg_reload_conf();'
     WHERE EXISTS (SELECT FROM r WHERE context OPERATOR(pg_catalog.<>) 'sysctl')
    UNION ALL
    SELECT 3, 0, 'note', '-- needs a restart: ' OPERATOR(pg_catalog.||)
           pg_catalog.string_agg(name, ', ' ORDER BY n)
      FROM r WHERE context OPERATOR(pg_catalog.=) 'restart'
    HAVING pg_catalog.count(*) OPERATOR(pg_catalog.>) 0
    UNION ALL
    -- what postgresql.auto.conf holds now (pending values too), else RESET
    SELECT 4, r.n, 'revert',
           CASE WHEN a.setting IS NOT NULL
                THEN pg_catalog.format('ALTER SYSTEM SET %I = %L;', r.name, a.setting)
                ELSE pg_catalog.format('ALTER SYSTEM RESET %I;', r.name)
           END
      FROM r LEFT JOIN auto a ON a.name OPERATOR(pg_catalog.=) r.name
     WHERE r.context OPERATOR(pg_catalog.<>) 'sysctl'
    UNION ALL
    SELECT 5, 0, 'revert', 'SELECT pg_catalog.pg_reload_conf();'
     WHERE EXISTS (SELECT FROM r WHERE context OPERATOR(pg_catalog.<>) 'sysctl')
)
SELECT (pg_catalog.row_number() OVER (ORDER BY part, n))::int, kind, statement
  FROM lines
 ORDER BY part, n
$$;

COMMENT ON FUNCTION pgbench_lab.recommend_sql(text, numeric, int, text, text, text, text, text) IS
'ALTER SYSTEM script for recommend()''s changes, with a restart note and a revert script; applies nothing';

-- They read the machine's limits and every setting, like system_info():
-- monitoring roles only (pg_monitor includes pg_read_all_settings and
-- pg_read_all_stats, which the settings' sources and the databases' sizes need).
REVOKE EXECUTE ON FUNCTION pgbench_lab.recommend(text, numeric, int, text, text, text, text, text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION pgbench_lab.memory_budget(text, int, text, text, text, text, int, text, text, numeric, int, int, text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION pgbench_lab.recommend_sql(text, numeric, int, text, text, text, text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION pgbench_lab.recommend(text, numeric, int, text, text, text, text, text) TO pg_monitor;
GRANT EXECUTE ON FUNCTION pgbench_lab.memory_budget(text, int, text, text, text, text, int, text, text, numeric, int, int, text) TO pg_monitor;
GRANT EXECUTE ON FUNCTION pgbench_lab.recommend_sql(text, numeric, int, text, text, text, text, text) TO pg_monitor;
