-- pgbench_lab install script.  Assembled by the Makefile from the files in
-- sql/install/ in name order; each part of the extension owns one file.
-- Rules (see the manual's "Security Considerations for Extensions"): every
-- name is schema-qualified, functions SET search_path, and nothing uses
-- CREATE OR REPLACE or IF NOT EXISTS on objects another role could create.

\echo Use "CREATE EXTENSION pgbench_lab CASCADE" to load this file. \quit

-- The schema is created here, not named in the control file: PostgreSQL
-- would otherwise create it before the extension exists (so DROP EXTENSION
-- would leave it behind) or, worse, adopt a schema another role made first.
-- A plain CREATE SCHEMA fails if anyone pre-created it.
CREATE SCHEMA pgbench_lab;
COMMENT ON SCHEMA pgbench_lab IS 'pgbench_lab: in-server performance lab';
GRANT USAGE ON SCHEMA pgbench_lab TO PUBLIC;

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

-- Seed 000's memory budget, term by term; NULL means the live value.
CREATE FUNCTION pgbench_lab.memory_budget(
    ram text DEFAULT NULL,
    max_connections int DEFAULT NULL,
    work_mem text DEFAULT NULL,
    shared_buffers text DEFAULT NULL,
    maintenance_work_mem text DEFAULT NULL,
    effective_cache_size text DEFAULT NULL,
    autovacuum_max_workers int DEFAULT NULL,
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

COMMENT ON FUNCTION pgbench_lab.memory_budget(text, int, text, text, text, text, int) IS
'Memory budget of the live (or given) settings: each term, the total, what is left for the OS cache, and a verdict';

-- The ALTER SYSTEM statements for what recommend() would change, a note of
-- what needs a restart, and a script that restores today's values.  Nothing
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
    SELECT r.*, s.source, s.sourcefile
      FROM (SELECT pg_catalog.row_number() OVER () AS n, *
              FROM pgbench_lab.recommend($1, $2, $3, $4, $5, $6, $7, $8)) AS r
      LEFT JOIN pg_catalog.pg_settings AS s ON s.name OPERATOR(pg_catalog.=) r.name
     WHERE r.changes
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
    SELECT 4, n, 'revert',
           CASE WHEN source OPERATOR(pg_catalog.=) 'configuration file'
                 AND sourcefile OPERATOR(pg_catalog.~) 'postgresql\.auto\.conf$'
                THEN pg_catalog.format('ALTER SYSTEM SET %I = %L;', name, current)
                ELSE pg_catalog.format('ALTER SYSTEM RESET %I;', name)
           END
      FROM r WHERE context OPERATOR(pg_catalog.<>) 'sysctl'
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
REVOKE EXECUTE ON FUNCTION pgbench_lab.memory_budget(text, int, text, text, text, text, int) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION pgbench_lab.recommend_sql(text, numeric, int, text, text, text, text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION pgbench_lab.recommend(text, numeric, int, text, text, text, text, text) TO pg_monitor;
GRANT EXECUTE ON FUNCTION pgbench_lab.memory_budget(text, int, text, text, text, text, int) TO pg_monitor;
GRANT EXECUTE ON FUNCTION pgbench_lab.recommend_sql(text, numeric, int, text, text, text, text, text) TO pg_monitor;

-- ---------------------------------------------------------------------------
-- results: what runs measured.  Written only by the extension (a run's
-- coordinator worker logs in as the extension's owner); each role reads its
-- own runs, pg_monitor reads all; pg_dump keeps the rows.
-- ---------------------------------------------------------------------------

CREATE TABLE pgbench_lab.runs (
    run_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    label text,
    workload text NOT NULL,
    via text NOT NULL DEFAULT 'spi',
    clients integer NOT NULL,
    scale integer,
    duration interval,
    transactions_per_client bigint,
    max_tries integer NOT NULL,
    random_seed bigint,
    started_at timestamptz NOT NULL DEFAULT pg_catalog.now(),
    finished_at timestamptz,
    status text NOT NULL DEFAULT 'running'
        CHECK (status OPERATOR(pg_catalog.=) ANY (ARRAY['running', 'done', 'cancelled', 'failed', 'aborted'])),
    measured_seconds double precision,
    transactions bigint,
    failures bigint,
    retries bigint,
    tps double precision,
    latency_avg_ms double precision,
    latency_stddev_ms double precision,
    latency_p50_ms double precision,
    latency_p90_ms double precision,
    latency_p95_ms double precision,
    latency_p99_ms double precision,
    latency_max_ms double precision,
    blks_hit bigint,
    blks_read bigint,
    hit_ratio double precision,
    wal_bytes numeric,
    checkpoints bigint,
    settings jsonb NOT NULL DEFAULT '{}',
    system jsonb,
    cache_before bigint,
    cache_after bigint,
    owner regrole NOT NULL,
    error text,
    coordinator_pid integer,
    dsm_handle bigint
);
COMMENT ON TABLE pgbench_lab.runs IS
    'One row per run: parameters, status and headline figures (in-server: no network round trips)';

CREATE TABLE pgbench_lab.run_progress (
    run_id bigint NOT NULL REFERENCES pgbench_lab.runs ON DELETE CASCADE,
    second integer NOT NULL,
    interval_seconds double precision NOT NULL,
    transactions bigint NOT NULL,
    tps double precision NOT NULL,
    latency_avg_ms double precision,
    latency_max_ms double precision,
    failures bigint NOT NULL,
    hit_ratio double precision,
    PRIMARY KEY (run_id, second)
);
COMMENT ON TABLE pgbench_lab.run_progress IS
    'Per-second progress of each run; transactions sum to the run''s total';

CREATE TABLE pgbench_lab.run_latency (
    run_id bigint NOT NULL REFERENCES pgbench_lab.runs ON DELETE CASCADE,
    bucket_upper_us double precision NOT NULL,
    count bigint NOT NULL,
    PRIMARY KEY (run_id, bucket_upper_us)
);
COMMENT ON TABLE pgbench_lab.run_latency IS
    'Latency histogram of each run: buckets 1/128 of a power of two wide (percentiles within 1%)';

SELECT pg_catalog.pg_extension_config_dump('pgbench_lab.runs', '');
SELECT pg_catalog.pg_extension_config_dump('pgbench_lab.run_progress', '');
SELECT pg_catalog.pg_extension_config_dump('pgbench_lab.run_latency', '');
SELECT pg_catalog.pg_extension_config_dump('pgbench_lab.runs_run_id_seq', '');

-- Each role sees its own runs; members of pg_monitor see all.
ALTER TABLE pgbench_lab.runs ENABLE ROW LEVEL SECURITY;
ALTER TABLE pgbench_lab.run_progress ENABLE ROW LEVEL SECURITY;
ALTER TABLE pgbench_lab.run_latency ENABLE ROW LEVEL SECURITY;

CREATE FUNCTION pgbench_lab.may_read_run(owner regrole) RETURNS boolean
    LANGUAGE sql STABLE PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT pg_catalog.pg_has_role(owner::pg_catalog.oid, 'USAGE')
              OR pg_catalog.pg_has_role('pg_monitor', 'USAGE') $$;

CREATE POLICY runs_read ON pgbench_lab.runs FOR SELECT
    USING (pgbench_lab.may_read_run(owner));
CREATE POLICY run_progress_read ON pgbench_lab.run_progress FOR SELECT
    USING (EXISTS (SELECT FROM pgbench_lab.runs r
                   WHERE r.run_id OPERATOR(pg_catalog.=) run_progress.run_id));
CREATE POLICY run_latency_read ON pgbench_lab.run_latency FOR SELECT
    USING (EXISTS (SELECT FROM pgbench_lab.runs r
                   WHERE r.run_id OPERATOR(pg_catalog.=) run_latency.run_id));

GRANT SELECT ON pgbench_lab.runs, pgbench_lab.run_progress, pgbench_lab.run_latency TO PUBLIC;

-- ---------------------------------------------------------------------------
-- dataset: pgbench's four tables and their rows, made in the server.
-- ---------------------------------------------------------------------------

CREATE FUNCTION pgbench_lab.init(
    scale int,
    fillfactor int DEFAULT 100,
    foreign_keys bool DEFAULT false,
    unlogged bool DEFAULT false)
RETURNS TABLE (step text, seconds numeric, rows bigint, rows_per_second numeric)
AS 'MODULE_PATHNAME', 'pgbench_lab_init'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION pgbench_lab.init(int, int, bool, bool) IS
'pgbench -i in the server: pgbench''s tables in the current schema, rows generated by a background worker';
REVOKE EXECUTE ON FUNCTION pgbench_lab.init(int, int, bool, bool) FROM PUBLIC;

CREATE FUNCTION pgbench_lab.init_sql(
    scale int,
    fillfactor int DEFAULT 100,
    foreign_keys bool DEFAULT false,
    unlogged bool DEFAULT false)
RETURNS TABLE (step text, statement text)
AS 'MODULE_PATHNAME', 'pgbench_lab_init_sql'
LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION pgbench_lab.init_sql(int, int, bool, bool) IS
'the statements pgbench_lab.init would run, step by step (generate data as equivalent SQL)';

-- ---------------------------------------------------------------------------
-- runner: start, run, wait, cancel, active_runs.  Nothing that starts
-- workers is executable by PUBLIC.
-- ---------------------------------------------------------------------------

CREATE FUNCTION pgbench_lab.start(
    workload text,
    clients integer DEFAULT 1,
    duration interval DEFAULT '10 s',
    transactions bigint DEFAULT NULL,
    label text DEFAULT NULL,
    settings jsonb DEFAULT '{}',
    max_tries integer DEFAULT 1,
    random_seed bigint DEFAULT NULL,
    via text DEFAULT 'spi',
    target text DEFAULT NULL)
RETURNS bigint
LANGUAGE c VOLATILE
AS 'MODULE_PATHNAME', 'pgbench_lab_start';
COMMENT ON FUNCTION pgbench_lab.start(text, integer, interval, bigint, text, jsonb, integer, bigint, text, text) IS
    'Start a run in background workers and return its run_id at once';

-- C procedures with no SET clause: a procedure with one cannot commit.
-- They run no SQL that resolves a name through search_path.
CREATE PROCEDURE pgbench_lab.run(
    workload text,
    clients integer DEFAULT 1,
    duration interval DEFAULT '10 s',
    transactions bigint DEFAULT NULL,
    label text DEFAULT NULL,
    settings jsonb DEFAULT '{}',
    max_tries integer DEFAULT 1,
    random_seed bigint DEFAULT NULL,
    INOUT run_id bigint DEFAULT NULL,
    INOUT status text DEFAULT NULL,
    INOUT transactions_done bigint DEFAULT NULL,
    INOUT tps double precision DEFAULT NULL,
    INOUT latency_avg_ms double precision DEFAULT NULL,
    INOUT latency_p99_ms double precision DEFAULT NULL,
    INOUT failures bigint DEFAULT NULL,
    INOUT error text DEFAULT NULL,
    via text DEFAULT 'spi',
    target text DEFAULT NULL)
LANGUAGE c
AS 'MODULE_PATHNAME', 'pgbench_lab_run';
COMMENT ON PROCEDURE pgbench_lab.run(text, integer, interval, bigint, text, jsonb, integer, bigint, bigint, text, bigint, double precision, double precision, double precision, bigint, text, text, text) IS
    'Run a workload in background workers and return its headline figures';

CREATE PROCEDURE pgbench_lab.wait(
    INOUT run_id bigint,
    INOUT status text DEFAULT NULL,
    INOUT transactions_done bigint DEFAULT NULL,
    INOUT tps double precision DEFAULT NULL,
    INOUT latency_avg_ms double precision DEFAULT NULL,
    INOUT latency_p99_ms double precision DEFAULT NULL,
    INOUT failures bigint DEFAULT NULL,
    INOUT error text DEFAULT NULL)
LANGUAGE c
AS 'MODULE_PATHNAME', 'pgbench_lab_wait';
COMMENT ON PROCEDURE pgbench_lab.wait(bigint, text, bigint, double precision, double precision, double precision, bigint, text) IS
    'Wait for a run to end (holding no snapshot) and return its headline figures';

CREATE FUNCTION pgbench_lab.cancel(run_id bigint) RETURNS boolean
LANGUAGE c VOLATILE
AS 'MODULE_PATHNAME', 'pgbench_lab_cancel';
COMMENT ON FUNCTION pgbench_lab.cancel(bigint) IS
    'Stop a running run; it is recorded as cancelled with what it measured';

CREATE FUNCTION pgbench_lab.run_live(
    run_id bigint,
    OUT elapsed_seconds double precision,
    OUT transactions bigint,
    OUT tps double precision,
    OUT failures bigint,
    OUT clients_running integer)
RETURNS record
LANGUAGE c VOLATILE STRICT
AS 'MODULE_PATHNAME', 'pgbench_lab_run_live';

CREATE VIEW pgbench_lab.active_runs WITH (security_invoker = true) AS
    SELECT r.run_id, r.label, r.workload, r.clients, r.scale, r.duration,
           r.started_at, r.owner, l.elapsed_seconds, l.transactions, l.tps,
           l.failures, l.clients_running
      FROM pgbench_lab.runs r
     CROSS JOIN LATERAL pgbench_lab.run_live(r.run_id) l
     WHERE r.status OPERATOR(pg_catalog.=) 'running';
COMMENT ON VIEW pgbench_lab.active_runs IS 'Runs in progress with their live counters';

REVOKE ALL ON FUNCTION pgbench_lab.start(text, integer, interval, bigint, text, jsonb, integer, bigint, text, text) FROM PUBLIC;
REVOKE ALL ON PROCEDURE pgbench_lab.run(text, integer, interval, bigint, text, jsonb, integer, bigint, bigint, text, bigint, double precision, double precision, double precision, bigint, text, text, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION pgbench_lab.cancel(bigint) FROM PUBLIC;
GRANT SELECT ON pgbench_lab.active_runs TO PUBLIC;

-- ---------------------------------------------------------------------------
-- the client path: runs whose clients talk to a server over libpq
-- (start()/run() via => 'libpq' | 'libpq-connect', target => conninfo), and
-- connection_cost(), the same workload in-server, over persistent
-- connections and with a new connection per transaction.
-- ---------------------------------------------------------------------------

ALTER TABLE pgbench_lab.runs
    ADD CONSTRAINT runs_via_check
        CHECK (via OPERATOR(pg_catalog.=) ANY (ARRAY['spi', 'libpq', 'libpq-connect'])),
    ADD COLUMN target_display text,
    ADD COLUMN connections bigint,
    ADD COLUMN connection_avg_ms double precision,
    ADD COLUMN tps_without_connections double precision;
COMMENT ON COLUMN pgbench_lab.runs.via IS
    'How clients sent the workload: spi (in-server), libpq (one connection per client), libpq-connect (one per transaction)';
COMMENT ON COLUMN pgbench_lab.runs.target_display IS
    'The server a libpq run connected to, as a conninfo without its password';
COMMENT ON COLUMN pgbench_lab.runs.connections IS
    'Connections the clients made: the initial ones and those made during the run';
COMMENT ON COLUMN pgbench_lab.runs.connection_avg_ms IS
    'Average time to connect (and authenticate), over all connections';
COMMENT ON COLUMN pgbench_lab.runs.tps_without_connections IS
    'Committed transactions per second of the time not spent connecting (tps counts all of it)';

-- A C procedure with no SET clause: it commits between its runs (each is a
-- CALL of run()).  See src/connection_cost.c.
CREATE PROCEDURE pgbench_lab.connection_cost(
    workload text DEFAULT 'select-only',
    clients integer DEFAULT 4,
    duration interval DEFAULT '10 s',
    target text DEFAULT NULL,
    INOUT label text DEFAULT NULL,
    INOUT spi_run_id bigint DEFAULT NULL,
    INOUT libpq_run_id bigint DEFAULT NULL,
    INOUT connect_run_id bigint DEFAULT NULL,
    INOUT spi_tps double precision DEFAULT NULL,
    INOUT libpq_tps double precision DEFAULT NULL,
    INOUT connect_tps double precision DEFAULT NULL,
    INOUT connect_tps_without_connections double precision DEFAULT NULL,
    INOUT connection_avg_ms double precision DEFAULT NULL,
    INOUT spi_vs_libpq double precision DEFAULT NULL,
    INOUT libpq_vs_connect double precision DEFAULT NULL,
    INOUT finding text DEFAULT NULL)
LANGUAGE c
AS 'MODULE_PATHNAME', 'pgbench_lab_connection_cost';
COMMENT ON PROCEDURE pgbench_lab.connection_cost(text, integer, interval, text, text, bigint, bigint, bigint, double precision, double precision, double precision, double precision, double precision, double precision, double precision, text) IS
    'The same workload in-server, over persistent libpq connections and with a new connection per transaction; TPS and ratios';
REVOKE ALL ON PROCEDURE pgbench_lab.connection_cost(text, integer, interval, text, text, bigint, bigint, bigint, double precision, double precision, double precision, double precision, double precision, double precision, double precision, text) FROM PUBLIC;
-- Cache part: residency in shared buffers and the OS page cache, snapshots
-- of it, make_cold and warm.

CREATE FUNCTION pgbench_lab.cache_status(rel pg_catalog.regclass DEFAULT NULL)
RETURNS TABLE (relation pg_catalog.regclass, kind pg_catalog.text,
               blocks pg_catalog.int8, buffers pg_catalog.int8,
               buffers_dirty pg_catalog.int8,
               usage_count_avg pg_catalog.float8,
               buffers_pct pg_catalog.float8, os_pages pg_catalog.int8,
               os_pct pg_catalog.float8)
LANGUAGE C VOLATILE
AS 'MODULE_PATHNAME', 'pgbench_lab_cache_status';
COMMENT ON FUNCTION pgbench_lab.cache_status(pg_catalog.regclass) IS
  'pages of a relation (with its indexes and TOAST) or of every relation of the database in shared buffers and in the OS page cache';
REVOKE ALL ON FUNCTION pgbench_lab.cache_status(pg_catalog.regclass) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION pgbench_lab.cache_status(pg_catalog.regclass) TO pg_monitor;

-- make_cold is superuser-only, and checks so in C: a GRANT cannot widen it.
CREATE FUNCTION pgbench_lab.make_cold(rel pg_catalog.regclass,
                                      include_indexes pg_catalog.bool DEFAULT true,
                                      os_cache pg_catalog.bool DEFAULT true)
RETURNS TABLE (relation pg_catalog.regclass, kind pg_catalog.text,
               buffers_evicted pg_catalog.int8, dirty_written pg_catalog.int8,
               buffers_left pg_catalog.int8, os_pages_dropped pg_catalog.int8,
               os_pages_left pg_catalog.int8)
LANGUAGE C VOLATILE
AS 'MODULE_PATHNAME', 'pgbench_lab_make_cold';
COMMENT ON FUNCTION pgbench_lab.make_cold(pg_catalog.regclass, pg_catalog.bool, pg_catalog.bool) IS
  'evict a relation (with its indexes and TOAST) from shared buffers and the OS page cache, writing dirty pages first';
REVOKE ALL ON FUNCTION pgbench_lab.make_cold(pg_catalog.regclass, pg_catalog.bool, pg_catalog.bool) FROM PUBLIC;

CREATE FUNCTION pgbench_lab.warm(rel pg_catalog.regclass,
                                 mode pg_catalog.text DEFAULT 'buffer',
                                 include_indexes pg_catalog.bool DEFAULT true)
RETURNS TABLE (relation pg_catalog.regclass, kind pg_catalog.text,
               blocks_loaded pg_catalog.int8, seconds pg_catalog.float8)
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp
AS 'MODULE_PATHNAME', 'pgbench_lab_warm';
COMMENT ON FUNCTION pgbench_lab.warm(pg_catalog.regclass, pg_catalog.text, pg_catalog.bool) IS
  'load a relation (with its indexes and TOAST) through pg_prewarm';
REVOKE ALL ON FUNCTION pgbench_lab.warm(pg_catalog.regclass, pg_catalog.text, pg_catalog.bool) FROM PUBLIC;

-- Snapshots.  The tables belong to the extension and only its
-- cache_snapshot() writes them: it is SECURITY DEFINER (a SQL-level
-- function with a fixed search_path; the C code it calls only reads buffer
-- headers), so a role allowed to take snapshots still cannot insert made-up
-- rows.  pg_dump keeps the rows (pg_extension_config_dump).
CREATE SEQUENCE pgbench_lab.cache_snapshot_id_seq;

CREATE TABLE pgbench_lab.cache_snapshots (
    snapshot_id pg_catalog.int8 PRIMARY KEY
        DEFAULT pg_catalog.nextval('pgbench_lab.cache_snapshot_id_seq'::pg_catalog.regclass),
    label pg_catalog.text,
    taken_at pg_catalog.timestamptz NOT NULL,
    datname pg_catalog.name NOT NULL,
    blks_hit pg_catalog.int8,
    blks_read pg_catalog.int8
);
ALTER SEQUENCE pgbench_lab.cache_snapshot_id_seq
    OWNED BY pgbench_lab.cache_snapshots.snapshot_id;
COMMENT ON TABLE pgbench_lab.cache_snapshots IS
  'one row per cache_snapshot(): when, and the database''s buffer hits and reads at that moment';

CREATE TABLE pgbench_lab.cache_snapshot_relations (
    snapshot_id pg_catalog.int8 NOT NULL
        REFERENCES pgbench_lab.cache_snapshots (snapshot_id) ON DELETE CASCADE,
    relid pg_catalog.oid NOT NULL,
    relation pg_catalog.text NOT NULL,
    kind pg_catalog.text NOT NULL,
    blocks pg_catalog.int8 NOT NULL,
    buffers pg_catalog.int8 NOT NULL,
    buffers_dirty pg_catalog.int8 NOT NULL,
    usage_count_avg pg_catalog.float8,
    os_pages pg_catalog.int8 NOT NULL,
    heap_blks_read pg_catalog.int8,
    heap_blks_hit pg_catalog.int8,
    idx_blks_read pg_catalog.int8,
    idx_blks_hit pg_catalog.int8,
    PRIMARY KEY (snapshot_id, relid)
);
COMMENT ON TABLE pgbench_lab.cache_snapshot_relations IS
  'per relation of a cache snapshot: residency and the relation''s I/O counters (pg_statio_all_tables/indexes)';

SELECT pg_catalog.pg_extension_config_dump('pgbench_lab.cache_snapshots', '');
SELECT pg_catalog.pg_extension_config_dump('pgbench_lab.cache_snapshot_relations', '');
SELECT pg_catalog.pg_extension_config_dump('pgbench_lab.cache_snapshot_id_seq', '');

REVOKE ALL ON TABLE pgbench_lab.cache_snapshots FROM PUBLIC;
REVOKE ALL ON TABLE pgbench_lab.cache_snapshot_relations FROM PUBLIC;
REVOKE ALL ON SEQUENCE pgbench_lab.cache_snapshot_id_seq FROM PUBLIC;
GRANT SELECT ON TABLE pgbench_lab.cache_snapshots TO pg_monitor;
GRANT SELECT ON TABLE pgbench_lab.cache_snapshot_relations TO pg_monitor;

CREATE FUNCTION pgbench_lab.cache_snapshot(label pg_catalog.text DEFAULT NULL)
RETURNS pg_catalog.int8
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    id pg_catalog.int8;
BEGIN
    -- statistics read earlier in this transaction must not be reused
    PERFORM pg_catalog.pg_stat_clear_snapshot();
    INSERT INTO pgbench_lab.cache_snapshots (label, taken_at, datname, blks_hit, blks_read)
    SELECT cache_snapshot.label, pg_catalog.clock_timestamp(), d.datname, d.blks_hit, d.blks_read
      FROM pg_catalog.pg_stat_database AS d
     WHERE d.datname OPERATOR(pg_catalog.=) pg_catalog.current_database()
    RETURNING snapshot_id INTO id;

    INSERT INTO pgbench_lab.cache_snapshot_relations
        (snapshot_id, relid, relation, kind, blocks, buffers, buffers_dirty,
         usage_count_avg, os_pages, heap_blks_read, heap_blks_hit,
         idx_blks_read, idx_blks_hit)
    SELECT id, s.relation, s.relation::pg_catalog.text, s.kind, s.blocks, s.buffers,
           s.buffers_dirty, s.usage_count_avg, s.os_pages,
           t.heap_blks_read, t.heap_blks_hit,
           COALESCE(t.idx_blks_read, i.idx_blks_read),
           COALESCE(t.idx_blks_hit, i.idx_blks_hit)
      FROM pgbench_lab.cache_status(NULL) AS s
      LEFT JOIN pg_catalog.pg_statio_all_tables AS t
             ON t.relid OPERATOR(pg_catalog.=) s.relation::pg_catalog.oid
      LEFT JOIN pg_catalog.pg_statio_all_indexes AS i
             ON i.indexrelid OPERATOR(pg_catalog.=) s.relation::pg_catalog.oid;
    RETURN id;
END
$$;
COMMENT ON FUNCTION pgbench_lab.cache_snapshot(pg_catalog.text) IS
  'record the database''s cache residency and I/O counters; returns the snapshot id';
REVOKE ALL ON FUNCTION pgbench_lab.cache_snapshot(pg_catalog.text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION pgbench_lab.cache_snapshot(pg_catalog.text) TO pg_monitor;

-- ---------------------------------------------------------------------
-- storage: the data directory's device measured from SQL
-- (fsync_test, io_test), results kept in storage_tests, the latest
-- figures in the view storage_latest.
-- ---------------------------------------------------------------------

CREATE SEQUENCE pgbench_lab.storage_tests_id_seq;

-- One row per test; written only by fsync_test() and io_test() (which only
-- superusers may run), read by pg_monitor.  results holds the rows the
-- function returned, as jsonb (fsync: {"wal_sync_method", "methods": [...]},
-- io: one object).
CREATE TABLE pgbench_lab.storage_tests (
    id bigint PRIMARY KEY
        DEFAULT pg_catalog.nextval('pgbench_lab.storage_tests_id_seq'::pg_catalog.regclass),
    kind text NOT NULL CHECK (kind OPERATOR(pg_catalog.=) ANY (ARRAY['fsync', 'io'])),
    started_at timestamptz NOT NULL,
    finished_at timestamptz NOT NULL,
    seconds numeric NOT NULL,
    size_bytes bigint,
    results jsonb NOT NULL
);
ALTER SEQUENCE pgbench_lab.storage_tests_id_seq OWNED BY pgbench_lab.storage_tests.id;
COMMENT ON TABLE pgbench_lab.storage_tests IS
    'pgbench_lab: results of fsync_test() and io_test(), one row per test';
SELECT pg_catalog.pg_extension_config_dump('pgbench_lab.storage_tests', '');
SELECT pg_catalog.pg_extension_config_dump('pgbench_lab.storage_tests_id_seq', '');
REVOKE ALL ON pgbench_lab.storage_tests FROM PUBLIC;
REVOKE ALL ON SEQUENCE pgbench_lab.storage_tests_id_seq FROM PUBLIC;
GRANT SELECT ON pgbench_lab.storage_tests TO pg_monitor;

CREATE FUNCTION pgbench_lab.fsync_test(seconds numeric DEFAULT 2)
RETURNS TABLE (method text, direct boolean, writes_per_sync integer,
               write_size integer, ops_per_second numeric,
               usec_per_op numeric, supported boolean, is_current boolean,
               fastest_safe boolean)
LANGUAGE C VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS 'MODULE_PATHNAME', 'pgbench_lab_fsync_test';
COMMENT ON FUNCTION pgbench_lab.fsync_test(numeric) IS
    'pgbench_lab: pg_test_fsync''s comparison of WAL sync methods on the data directory''s device';
REVOKE EXECUTE ON FUNCTION pgbench_lab.fsync_test(numeric) FROM PUBLIC;

CREATE FUNCTION pgbench_lab.io_test(size text DEFAULT '1GB',
                                    seconds numeric DEFAULT 10)
RETURNS TABLE (file_size bigint, write_mb_per_second numeric,
               read_mb_per_second numeric, random_read_iops numeric,
               random_read_usec numeric, read_cache_bypass text,
               elapsed_seconds numeric)
LANGUAGE C VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS 'MODULE_PATHNAME', 'pgbench_lab_io_test';
COMMENT ON FUNCTION pgbench_lab.io_test(text, numeric) IS
    'pgbench_lab: sequential write and read MB/s and random 8 kB read IOPS of the data directory''s device';
REVOKE EXECUTE ON FUNCTION pgbench_lab.io_test(text, numeric) FROM PUBLIC;

-- From random 8 kB reads per second at queue depth one (what io_test
-- measures) to a storage class and its planner settings.  The bands are
-- read latencies: over 2 ms a disk head moves (hdd); 0.25 to 2 ms is a
-- network or array hop (san); 0.1 to 0.25 ms flash behind SATA or SAS
-- (ssd); under 0.1 ms NVMe.  The settings per class are those of the common
-- tuning tools (random_page_cost 4 only for hdd; effective_io_concurrency
-- 2 / 300 / 200 / 1000).
CREATE FUNCTION pgbench_lab.storage_class(random_read_iops numeric)
RETURNS TABLE (storage_class text, random_page_cost numeric,
               effective_io_concurrency integer, reason text)
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
SELECT c.cls, c.rpc, c.eic,
       pg_catalog.format('%s random 8 kB reads/s (%s us each) at queue depth 1: %s',
                         pg_catalog.round(random_read_iops), pg_catalog.round(CASE WHEN random_read_iops OPERATOR(pg_catalog.<>) 0 THEN 1000000 OPERATOR(pg_catalog./) random_read_iops END), c.why)
  FROM (VALUES
        ('hdd', 4.0, 2, 'over 2 ms per read, a rotating disk',
         0::numeric, 500::numeric),
        ('san', 1.1, 300, '0.25 to 2 ms per read, network or array storage',
         500, 4000),
        ('ssd', 1.1, 200, '0.1 to 0.25 ms per read, a SATA or SAS SSD',
         4000, 10000),
        ('nvme', 1.1, 1000, 'under 0.1 ms per read, NVMe flash',
         10000, NULL)) AS c(cls, rpc, eic, why, lo, hi)
 WHERE random_read_iops OPERATOR(pg_catalog.>) 0
   AND random_read_iops OPERATOR(pg_catalog.>=) c.lo
   AND (c.hi IS NULL OR random_read_iops OPERATOR(pg_catalog.<) c.hi)
$$;
COMMENT ON FUNCTION pgbench_lab.storage_class(numeric) IS
    'pgbench_lab: storage class, random_page_cost and effective_io_concurrency for a measured random read rate';

-- The latest figures of each kind, one row (NULLs when nothing was
-- measured), for people and for the recommender.
CREATE VIEW pgbench_lab.storage_latest AS
SELECT f.id AS fsync_test_id,
       f.finished_at AS fsync_measured_at,
       f.results OPERATOR(pg_catalog.->>) 'wal_sync_method' AS wal_sync_method,
       cur.ops AS current_ops_per_second,
       best.method AS fastest_safe_method,
       best.ops AS fastest_safe_ops_per_second,
       fds.ops AS fdatasync_ops_per_second,
       i.id AS io_test_id,
       i.finished_at AS io_measured_at,
       i.size_bytes AS io_file_size,
       (i.results OPERATOR(pg_catalog.->>) 'write_mb_per_second')::numeric AS write_mb_per_second,
       (i.results OPERATOR(pg_catalog.->>) 'read_mb_per_second')::numeric AS read_mb_per_second,
       (i.results OPERATOR(pg_catalog.->>) 'random_read_iops')::numeric AS random_read_iops,
       i.results OPERATOR(pg_catalog.->>) 'read_cache_bypass' AS read_cache_bypass,
       sc.storage_class,
       sc.random_page_cost,
       sc.effective_io_concurrency,
       sc.reason AS storage_class_reason
  FROM (VALUES (1)) AS one(x)
  LEFT JOIN LATERAL (
        SELECT t.* FROM pgbench_lab.storage_tests AS t
         WHERE t.kind OPERATOR(pg_catalog.=) 'fsync'
         ORDER BY t.id DESC LIMIT 1) AS f ON true
  LEFT JOIN LATERAL (
        SELECT t.* FROM pgbench_lab.storage_tests AS t
         WHERE t.kind OPERATOR(pg_catalog.=) 'io'
         ORDER BY t.id DESC LIMIT 1) AS i ON true
  LEFT JOIN LATERAL (
        SELECT (e OPERATOR(pg_catalog.->>) 'ops_per_second')::numeric AS ops
          FROM pg_catalog.jsonb_array_elements(f.results OPERATOR(pg_catalog.->) 'methods') AS e
         WHERE (e OPERATOR(pg_catalog.->>) 'is_current')::boolean LIMIT 1) AS cur ON true
  LEFT JOIN LATERAL (
        SELECT e OPERATOR(pg_catalog.->>) 'method' AS method,
               (e OPERATOR(pg_catalog.->>) 'ops_per_second')::numeric AS ops
          FROM pg_catalog.jsonb_array_elements(f.results OPERATOR(pg_catalog.->) 'methods') AS e
         WHERE (e OPERATOR(pg_catalog.->>) 'fastest_safe')::boolean LIMIT 1) AS best ON true
  LEFT JOIN LATERAL (
        SELECT (e OPERATOR(pg_catalog.->>) 'ops_per_second')::numeric AS ops
          FROM pg_catalog.jsonb_array_elements(f.results OPERATOR(pg_catalog.->) 'methods') AS e
         WHERE e OPERATOR(pg_catalog.@>) '{"method": "fdatasync", "direct": false, "writes_per_sync": 1, "write_size": 8192}'::jsonb
         LIMIT 1) AS fds ON true
  LEFT JOIN LATERAL pgbench_lab.storage_class(
        (i.results OPERATOR(pg_catalog.->>) 'random_read_iops')::numeric) AS sc ON true;
COMMENT ON VIEW pgbench_lab.storage_latest IS
    'pgbench_lab: latest fsync_test() and io_test() figures and the storage class they suggest';
REVOKE ALL ON pgbench_lab.storage_latest FROM PUBLIC;
GRANT SELECT ON pgbench_lab.storage_latest TO pg_monitor;

-- ---------------------------------------------------------------------------
-- reports: experiments (client sweeps, settings A/B), reports, comparisons,
-- SVG plots, export and import.  Reading is plain SQL under row-level
-- security; writing goes through pgbench_lab.record() (C, src/report.c),
-- which switches to the extension's owner and calls record_as() with the
-- calling role, so the rows a user's experiment or import makes are owned
-- by that user and nobody writes the tables directly.
--
-- Runs and experiments draw their ids from one sequence, so an id names
-- exactly one of them and report(id) / plot(ids) / export(ids) accept both.
-- ---------------------------------------------------------------------------

-- Imported runs keep where they came from; their local run_id is new.
ALTER TABLE pgbench_lab.runs
    ADD COLUMN source_server text,
    ADD COLUMN source_run_id bigint,
    ADD COLUMN imported_at timestamptz;
COMMENT ON COLUMN pgbench_lab.runs.source_server IS
    'Server an imported run was measured on (NULL: measured here)';
COMMENT ON COLUMN pgbench_lab.runs.source_run_id IS
    'The run''s id on the server it was measured on (NULL: measured here)';

CREATE TABLE pgbench_lab.experiments (
    experiment_id bigint PRIMARY KEY
        DEFAULT pg_catalog.nextval('pgbench_lab.runs_run_id_seq'::pg_catalog.regclass),
    kind text NOT NULL
        CHECK (kind OPERATOR(pg_catalog.=) ANY (ARRAY['sweep', 'compare_settings', 'cold_vs_warm', 'connection_cost'])),
    workload text NOT NULL,
    label text,
    params jsonb NOT NULL DEFAULT '{}',
    started_at timestamptz NOT NULL DEFAULT pg_catalog.now(),
    finished_at timestamptz,
    status text NOT NULL DEFAULT 'running'
        CHECK (status OPERATOR(pg_catalog.=) ANY (ARRAY['running', 'done', 'failed', 'aborted'])),
    owner regrole NOT NULL,
    source_server text,
    source_experiment_id bigint,
    imported_at timestamptz,
    backend_pid integer,
    backend_start timestamptz
);
COMMENT ON COLUMN pgbench_lab.experiments.backend_pid IS
    'The session whose procedure runs the experiment (with backend_start): gone or on to another statement, the experiment is aborted';
COMMENT ON TABLE pgbench_lab.experiments IS
    'Groups of runs made by sweep() or compare_settings(); ids shared with runs';

-- variant: position of the client count (sweep) or of the settings set
-- (compare_settings, 1 = A); round: the interleaved round (1 for a sweep).
CREATE TABLE pgbench_lab.experiment_runs (
    experiment_id bigint NOT NULL REFERENCES pgbench_lab.experiments ON DELETE CASCADE,
    ordinal integer NOT NULL,
    run_id bigint NOT NULL REFERENCES pgbench_lab.runs ON DELETE CASCADE,
    variant integer NOT NULL,
    round integer NOT NULL,
    PRIMARY KEY (experiment_id, ordinal),
    UNIQUE (experiment_id, run_id)
);
COMMENT ON TABLE pgbench_lab.experiment_runs IS 'The runs of each experiment, in the order they ran';

SELECT pg_catalog.pg_extension_config_dump('pgbench_lab.experiments', '');
SELECT pg_catalog.pg_extension_config_dump('pgbench_lab.experiment_runs', '');

ALTER TABLE pgbench_lab.experiments ENABLE ROW LEVEL SECURITY;
ALTER TABLE pgbench_lab.experiment_runs ENABLE ROW LEVEL SECURITY;
CREATE POLICY experiments_read ON pgbench_lab.experiments FOR SELECT
    USING (pgbench_lab.may_read_run(owner));
CREATE POLICY experiment_runs_read ON pgbench_lab.experiment_runs FOR SELECT
    USING (EXISTS (SELECT FROM pgbench_lab.experiments e
                   WHERE e.experiment_id OPERATOR(pg_catalog.=) experiment_runs.experiment_id));
GRANT SELECT ON pgbench_lab.experiments, pgbench_lab.experiment_runs TO PUBLIC;

-- ---------------------------------------------------------------------------
-- Small formatting helpers shared by reports and plots.
-- ---------------------------------------------------------------------------

-- A figure rounded for reading; '-' for a missing one; from 1e15 on (no
-- measured figure, but an imported document may hold up to 1e300) in
-- exponent notation, '1.0e+299', rather than in 300 digits.
CREATE FUNCTION pgbench_lab.fmt(x double precision, digits integer DEFAULT 1)
RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN x IS NULL THEN '-'
                WHEN pg_catalog.abs(x) OPERATOR(pg_catalog.>=) 1e15 THEN trim(pg_catalog.to_char(x, '9.9EEEE'))
                ELSE pg_catalog.round(x::numeric, digits)::pg_catalog.text END
$$;

-- A float8 from a numeric computed with it, for ratios of figures that
-- float8 arithmetic would overflow or underflow on (an imported TPS of
-- 5e-324 against one of 1e5): beyond 1e300 it is cut to +-1e300, below
-- 1e-300 it is 0.
CREATE FUNCTION pgbench_lab.to_float8(x numeric)
RETURNS double precision LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN x IS NULL THEN NULL
                WHEN pg_catalog.abs(x) OPERATOR(pg_catalog.>) 1e300 THEN pg_catalog.sign(x) OPERATOR(pg_catalog.*) 1e300
                WHEN pg_catalog.abs(x) OPERATOR(pg_catalog.<) 1e-300 THEN 0
                ELSE x END::pg_catalog.float8
$$;

-- a / b, NULL when b is 0 or either is NULL; computed in numeric, so any
-- two figures give a result (see to_float8).
CREATE FUNCTION pgbench_lab.ratio(a double precision, b double precision)
RETURNS double precision LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN a IS NULL OR b IS NULL OR b OPERATOR(pg_catalog.=) 0 THEN NULL
                ELSE pgbench_lab.to_float8(a::numeric OPERATOR(pg_catalog./) b::numeric) END
$$;

-- The change from old to new in percent, signed ('+76%'); '' when unknown.
-- Computed in numeric; a rise of a million percent or more reads
-- '>+999999%'.
CREATE FUNCTION pgbench_lab.pct_change(new double precision, old double precision)
RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN p IS NULL THEN ''
                WHEN p OPERATOR(pg_catalog.>) 999999 THEN '>+999999%'
                WHEN p OPERATOR(pg_catalog.>=) 0 THEN '+' OPERATOR(pg_catalog.||) pg_catalog.round(p)::pg_catalog.text OPERATOR(pg_catalog.||) '%'
                ELSE pg_catalog.round(p)::pg_catalog.text OPERATOR(pg_catalog.||) '%' END
      FROM (SELECT CASE WHEN new IS NULL OR old IS NULL OR old OPERATOR(pg_catalog.=) 0 THEN NULL
                        ELSE (new::numeric OPERATOR(pg_catalog./) old::numeric OPERATOR(pg_catalog.-) 1) OPERATOR(pg_catalog.*) 100 END AS p) s
$$;

-- Stored text as it may be printed: every control character (U+0001 to
-- U+001F, U+007F to U+009F: a terminal escape sequence, a bell, a line
-- break that would forge a report line) shown as \xNN, its code in hex.
-- Labels, errors, settings, server names and workloads come from users
-- and from imported documents; report(), compare(), plot() and the
-- findings print them only through this.  Backslashes stay as they are.
CREATE FUNCTION pgbench_lab.printable(s text)
RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE STRICT
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF s OPERATOR(pg_catalog.!~) E'[\\x01-\\x1f\\x7f-\\x9f]' THEN
        RETURN s;
    END IF;
    RETURN (SELECT pg_catalog.string_agg(CASE WHEN c OPERATOR(pg_catalog.~) E'[\\x01-\\x1f\\x7f-\\x9f]'
                                   THEN E'\\x' OPERATOR(pg_catalog.||) pg_catalog.lpad(pg_catalog.to_hex(pg_catalog.ascii(c)), 2, '0') ELSE c END,
                              '' ORDER BY i)
              FROM pg_catalog.regexp_split_to_table(s, '') WITH ORDINALITY AS t(c, i));
END
$$;

-- '5 s', '0.5 s': a duration in seconds.
CREATE FUNCTION pgbench_lab.seconds_text(d interval)
RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT pg_catalog.trim_scale(extract(epoch FROM d))::pg_catalog.text OPERATOR(pg_catalog.||) ' s' $$;

-- '1 client', '4 clients'.
CREATE FUNCTION pgbench_lab.clients_text(n integer)
RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT n OPERATOR(pg_catalog.||) CASE WHEN n OPERATOR(pg_catalog.=) 1 THEN ' client' ELSE ' clients' END $$;

-- Session settings as 'name=value, ...' in name order, printable.
CREATE FUNCTION pgbench_lab.settings_text(settings jsonb)
RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pgbench_lab.printable(coalesce(pg_catalog.string_agg(key OPERATOR(pg_catalog.||) '=' OPERATOR(pg_catalog.||) value, ', ' ORDER BY key), '(none)'))
      FROM pg_catalog.jsonb_each_text(CASE WHEN pg_catalog.jsonb_typeof(settings) OPERATOR(pg_catalog.=) 'object' THEN settings END)
$$;

-- The name this server gives itself in exports: cluster_name if set, else
-- its system identifier (unique per initdb).
CREATE FUNCTION pgbench_lab.server_name()
RETURNS text LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT coalesce(CASE WHEN pg_catalog.current_setting('cluster_name') OPERATOR(pg_catalog.<>) ''
                         THEN pg_catalog.current_setting('cluster_name') END,
                    'system ' OPERATOR(pg_catalog.||) (SELECT system_identifier::pg_catalog.text FROM pg_catalog.pg_control_system()))
$$;

-- ---------------------------------------------------------------------------
-- Writing: pgbench_lab.record() (C) runs record_as() as the extension's owner.
-- ---------------------------------------------------------------------------

CREATE FUNCTION pgbench_lab.record(action text, args jsonb)
RETURNS jsonb
LANGUAGE c VOLATILE
AS 'MODULE_PATHNAME', 'pgbench_lab_record';
COMMENT ON FUNCTION pgbench_lab.record(text, jsonb) IS
    'Internal: write an experiment or an import as the extension owner, on behalf of the caller';

-- A jsonb number that is a whole number within [lo, hi], or NULL.
CREATE FUNCTION pgbench_lab.json_int(v jsonb, lo numeric, hi numeric)
RETURNS bigint LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN pg_catalog.jsonb_typeof(v) OPERATOR(pg_catalog.=) 'number' AND v::numeric OPERATOR(pg_catalog.=) pg_catalog.trunc(v::numeric)
                     AND v::numeric OPERATOR(pg_catalog.>=) lo AND v::numeric OPERATOR(pg_catalog.<=) hi
                THEN v::numeric::bigint END
$$;

-- Whether a running experiment's procedure has stopped without ending it:
-- its session is gone or idle, or has gone on to a statement and a
-- transaction that both began after the experiment did.  (A procedure's
-- CALL began before it, though the procedure commits between runs; several
-- statements of one transaction block share its start.)
CREATE FUNCTION pgbench_lab.experiment_stopped(e pgbench_lab.experiments)
RETURNS boolean LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT e.status OPERATOR(pg_catalog.=) 'running' AND e.source_server IS NULL AND e.backend_pid IS NOT NULL
       AND NOT EXISTS (SELECT FROM pg_catalog.pg_stat_get_activity(e.backend_pid) a
                        WHERE a.backend_start OPERATOR(pg_catalog.=) e.backend_start AND a.state OPERATOR(pg_catalog.=) 'active'
                          AND (a.query_start OPERATOR(pg_catalog.<=) e.started_at OR a.xact_start OPERATOR(pg_catalog.<=) e.started_at))
$$;

CREATE FUNCTION pgbench_lab.experiment_begin_as(caller regrole, args jsonb)
RETURNS jsonb LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    id pg_catalog.int8;
    kind pg_catalog.text := args OPERATOR(pg_catalog.->>) 'kind';
    proc pg_catalog.text := CASE
        WHEN kind OPERATOR(pg_catalog.=) 'sweep' THEN 'pgbench_lab.sweep(text,integer[],interval,text,jsonb,bigint,integer,double precision,integer,text)'
        WHEN kind OPERATOR(pg_catalog.=) 'compare_settings' THEN 'pgbench_lab.compare_settings(text,jsonb[],integer,interval,integer,text,bigint,text)'
        WHEN kind OPERATOR(pg_catalog.=) 'cold_vs_warm' THEN 'pgbench_lab.cold_vs_warm(text,integer,interval,regclass[],bigint,text)'
        WHEN kind OPERATOR(pg_catalog.=) 'connection_cost' THEN 'pgbench_lab.connection_cost(text,integer,interval,text,text,bigint,bigint,bigint,double precision,double precision,double precision,double precision,double precision,double precision,double precision,text)'
        END;
BEGIN
    IF proc IS NULL THEN
        RAISE EXCEPTION 'unknown experiment kind "%"', kind
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Valid kinds are sweep, compare_settings, cold_vs_warm and connection_cost.';
    END IF;
    IF NOT pg_catalog.has_function_privilege(caller::pg_catalog.oid, proc, 'EXECUTE') THEN
        RAISE EXCEPTION 'permission denied to record a % experiment', kind
            USING ERRCODE = 'insufficient_privilege',
                  HINT = 'Experiments are recorded by the procedures that run them.';
    END IF;
    -- experiments whose procedure stopped (an error, a cancel, a lost
    -- session) are marked aborted as the next one begins
    UPDATE pgbench_lab.experiments e
       SET status = 'aborted', finished_at = pg_catalog.clock_timestamp()
     WHERE e.status OPERATOR(pg_catalog.=) 'running' AND pgbench_lab.experiment_stopped(e);
    INSERT INTO pgbench_lab.experiments (kind, workload, label, params, owner, backend_pid, backend_start)
    VALUES (kind, args OPERATOR(pg_catalog.->>) 'workload', args OPERATOR(pg_catalog.->>) 'label',
            COALESCE(args OPERATOR(pg_catalog.->) 'params', '{}'), caller, pg_catalog.pg_backend_pid(),
            (SELECT a.backend_start FROM pg_catalog.pg_stat_get_activity(pg_catalog.pg_backend_pid()) a))
    RETURNING experiment_id INTO id;
    RETURN pg_catalog.jsonb_build_object('experiment_id', id);
END
$$;

-- The id of a running experiment of the caller, locked; an error otherwise.
CREATE FUNCTION pgbench_lab.running_experiment_of(caller regrole, args jsonb)
RETURNS bigint LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    eid pg_catalog.int8 := pgbench_lab.json_int(args OPERATOR(pg_catalog.->) 'experiment_id', 1, 9223372036854775807);
BEGIN
    PERFORM FROM pgbench_lab.experiments e
     WHERE e.experiment_id OPERATOR(pg_catalog.=) eid AND e.status OPERATOR(pg_catalog.=) 'running' AND e.source_server IS NULL
       AND pg_catalog.pg_has_role(caller::pg_catalog.oid, e.owner::pg_catalog.oid, 'USAGE')
       FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'experiment % is not a running experiment of role %', eid, caller
            USING ERRCODE = 'insufficient_privilege',
                  HINT = 'Only the procedure that started an experiment adds its runs and ends it.';
    END IF;
    RETURN eid;
END
$$;

-- Link a run to an experiment: the caller must own both.
CREATE FUNCTION pgbench_lab.experiment_add_as(caller regrole, args jsonb)
RETURNS jsonb LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    eid pg_catalog.int8 := pgbench_lab.running_experiment_of(caller, args);
    rid pg_catalog.int8 := pgbench_lab.json_int(args OPERATOR(pg_catalog.->) 'run_id', 1, 9223372036854775807);
    n pg_catalog.int4;
BEGIN
    PERFORM FROM pgbench_lab.runs r
     WHERE r.run_id OPERATOR(pg_catalog.=) rid AND r.source_server IS NULL
       AND pg_catalog.pg_has_role(caller::pg_catalog.oid, r.owner::pg_catalog.oid, 'USAGE');
    IF NOT FOUND THEN
        RAISE EXCEPTION 'run % is not a run of role %', rid, caller
            USING ERRCODE = 'insufficient_privilege',
                  HINT = 'An experiment links only runs its owner made on this server.';
    END IF;
    SELECT pg_catalog.count(*) OPERATOR(pg_catalog.+) 1 INTO n FROM pgbench_lab.experiment_runs WHERE experiment_id OPERATOR(pg_catalog.=) eid;
    INSERT INTO pgbench_lab.experiment_runs (experiment_id, ordinal, run_id, variant, round)
    VALUES (eid, n, rid,
            coalesce(pgbench_lab.json_int(args OPERATOR(pg_catalog.->) 'variant', 1, 2147483647), n),
            coalesce(pgbench_lab.json_int(args OPERATOR(pg_catalog.->) 'round', 1, 2147483647), 1));
    RETURN pg_catalog.jsonb_build_object('ordinal', n);
END
$$;

-- Done if every run is done, else failed.
CREATE FUNCTION pgbench_lab.experiment_end_as(caller regrole, args jsonb)
RETURNS jsonb LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    eid pg_catalog.int8 := pgbench_lab.running_experiment_of(caller, args);
    st pg_catalog.text;
BEGIN
    UPDATE pgbench_lab.experiments e
       SET finished_at = pg_catalog.clock_timestamp(),
           status = CASE WHEN EXISTS (SELECT FROM pgbench_lab.experiment_runs x
                                        JOIN pgbench_lab.runs r ON r.run_id OPERATOR(pg_catalog.=) x.run_id
                                       WHERE x.experiment_id OPERATOR(pg_catalog.=) e.experiment_id
                                         AND r.status OPERATOR(pg_catalog.<>) 'done')
                         THEN 'failed' ELSE 'done' END
     WHERE e.experiment_id OPERATOR(pg_catalog.=) eid
    RETURNING e.status INTO st;
    RETURN pg_catalog.jsonb_build_object('status', st);
END
$$;

-- ---------------------------------------------------------------------------
-- Export and import.  The document (format "pgbench_lab export", version 1)
-- is described in README.md; import validates all of it before writing.
-- ---------------------------------------------------------------------------

-- True if s reads as a value of the type (timestamptz or interval).
CREATE FUNCTION pgbench_lab.reads_as(s text, typ text)
RETURNS boolean LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF typ OPERATOR(pg_catalog.=) 'timestamptz' THEN
        PERFORM s::pg_catalog.timestamptz;
    ELSE
        PERFORM s::interval;
    END IF;
    RETURN true;
EXCEPTION WHEN data_exception THEN
    RETURN false;
END
$$;

-- The fields of each object of a document (version 1), with their kinds
-- for doc_check(): export writes the fields of 'run' and 'experiment' and
-- no others (a column another part adds to runs, such as a local snapshot
-- id, does not travel), import reads these.  Each kind holds what the
-- column's type and CHECK constraint hold (see doc_first_bad()), so that
-- the tables refuse nothing the validator passes.  The parameters of an
-- experiment are checked by its kind.
CREATE FUNCTION pgbench_lab.doc_spec(what text)
RETURNS jsonb LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN what OPERATOR(pg_catalog.=) 'run' THEN '{"run_id": "id!", "label": "text",
            "workload": "text!", "via": "via", "clients": "count!", "scale": "count",
            "duration": "interval", "transactions_per_client": "count8", "max_tries": "nonneg4!",
            "random_seed": "int", "started_at": "time!", "finished_at": "time",
            "status": "run_status!", "measured_seconds": "num", "transactions": "nonneg",
            "failures": "nonneg", "retries": "nonneg", "tps": "num", "latency_avg_ms": "num",
            "latency_stddev_ms": "num", "latency_p50_ms": "num", "latency_p90_ms": "num",
            "latency_p95_ms": "num", "latency_p99_ms": "num", "latency_max_ms": "num",
            "blks_hit": "nonneg", "blks_read": "nonneg", "hit_ratio": "ratio", "wal_bytes": "num",
            "checkpoints": "nonneg", "settings": "object", "system": "object", "error": "text",
            "source_server": "text", "source_run_id": "id", "target_display": "text",
            "connections": "nonneg", "connection_avg_ms": "num",
            "tps_without_connections": "num"}'::pg_catalog.jsonb
        WHEN what OPERATOR(pg_catalog.=) 'progress' THEN '{"second": "count!", "interval_seconds": "num!",
            "transactions": "nonneg!", "tps": "num!", "latency_avg_ms": "num",
            "latency_max_ms": "num", "failures": "nonneg!", "hit_ratio": "ratio"}'::pg_catalog.jsonb
        WHEN what OPERATOR(pg_catalog.=) 'latency' THEN '{"bucket_upper_us": "num!", "count": "nonneg!"}'::pg_catalog.jsonb
        WHEN what OPERATOR(pg_catalog.=) 'experiment' THEN '{"experiment_id": "id!", "kind": "kind!", "workload": "text!",
            "label": "text", "params": "object!", "started_at": "time!", "finished_at": "time",
            "status": "exp_status!", "source_server": "text", "source_experiment_id": "id"}'::pg_catalog.jsonb
        WHEN what OPERATOR(pg_catalog.=) 'experiment_run' THEN '{"run_id": "id!", "ordinal": "count!", "variant": "count!",
            "round": "count!"}'::pg_catalog.jsonb
        -- params, by kind
        WHEN what OPERATOR(pg_catalog.=) 'sweep' THEN '{"clients": "array!", "duration": "interval", "settings": "object"}'::pg_catalog.jsonb
        WHEN what OPERATOR(pg_catalog.=) 'compare_settings' THEN '{"settings": "array!", "clients": "count!",
            "duration": "interval", "rounds": "count!"}'::pg_catalog.jsonb
        WHEN what OPERATOR(pg_catalog.=) 'cold_vs_warm' THEN '{"clients": "count!", "duration": "interval",
            "relations": "array", "relids": "array"}'::pg_catalog.jsonb
        WHEN what OPERATOR(pg_catalog.=) 'connection_cost' THEN '{"clients": "count!", "duration": "interval",
            "rounds": "count", "settings": "array"}'::pg_catalog.jsonb
        END
$$;

-- The fields of a row that the document carries.
CREATE FUNCTION pgbench_lab.doc_fields(row_doc jsonb, what text)
RETURNS jsonb LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT coalesce(pg_catalog.jsonb_object_agg(r.key, r.value), '{}')
      FROM pg_catalog.jsonb_each(row_doc) r
     WHERE pgbench_lab.doc_spec(what) OPERATOR(pg_catalog.?) r.key
$$;

-- Every complaint about a document has the same shape and hint.
CREATE FUNCTION pgbench_lab.doc_invalid(problem text)
RETURNS void LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RAISE EXCEPTION 'invalid export document: %', problem
        USING ERRCODE = 'invalid_parameter_value',
              HINT = 'Pass a document made by pgbench_lab.export(); the format is described in the README.';
END
$$;

-- The first problem of the elements of arr (an array of objects) against
-- spec {"key": "kind[!]"} ('!' = required), in the order of the elements
-- and then of the keys: the element's index (from 0), the key (NULL when
-- the element is no object) and what is wrong.  No row: no problem.
--
-- One query over every element and key, the kinds written out in it: a
-- function call per value would cost more than the checks (a run can have
-- tens of thousands of progress rows).  The kinds are the tables' column
-- types and CHECK constraints: whole numbers within integer or bigint
-- (count, count8, id, int, nonneg, nonneg4, oid), double precision (num:
-- under 1e300 and not so small that it would read as 0; ratio: also 0 to
-- 1), timestamps and intervals that PostgreSQL reads, and the values the
-- CHECK constraints allow (run_status, exp_status, kind, via).
CREATE FUNCTION pgbench_lab.doc_first_bad(arr jsonb, spec jsonb,
                                          OUT i bigint, OUT key text, OUT problem text)
RETURNS SETOF record LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH s AS MATERIALIZED (
        SELECT f.key, f.want OPERATOR(pg_catalog.~~) '%!' AS required, k.*
          FROM pg_catalog.jsonb_each_text(spec) AS f(key, want)
          JOIN (VALUES
                ('text', false, false, NULL::numeric, NULL::numeric, NULL::pg_catalog.text[], 'a string'),
                ('object', false, false, NULL, NULL, NULL, 'an object'),
                ('array', false, false, NULL, NULL, NULL, 'an array'),
                ('time', false, false, NULL, NULL, NULL, 'a timestamp'),
                ('interval', false, false, NULL, NULL, NULL, 'an interval'),
                ('num', true, false, NULL, NULL, NULL, 'a number'),
                ('ratio', true, false, 0, 1, NULL, 'a number from 0 to 1'),
                ('int', true, true, -9223372036854775808, 9223372036854775807, NULL, 'a whole number'),
                ('nonneg', true, true, 0, 9223372036854775807, NULL, 'a whole number of 0 or more'),
                ('nonneg4', true, true, 0, 2147483647, NULL, 'a whole number from 0 to 2147483647'),
                ('count', true, true, 1, 2147483647, NULL, 'a whole number from 1 to 2147483647'),
                ('count8', true, true, 1, 9223372036854775807, NULL,
                 'a whole number from 1 to 9223372036854775807'),
                ('id', true, true, 1, 9223372036854775807, NULL, 'a positive whole number'),
                ('oid', true, true, 0, 4294967295, NULL, 'a whole number from 0 to 4294967295'),
                ('run_status', false, false, NULL, NULL, ARRAY['done', 'cancelled', 'failed', 'aborted'],
                 'one of done, cancelled, failed, aborted'),
                ('exp_status', false, false, NULL, NULL, ARRAY['done', 'failed', 'aborted'],
                 'one of done, failed, aborted'),
                ('kind', false, false, NULL, NULL,
                 ARRAY['sweep', 'compare_settings', 'cold_vs_warm', 'connection_cost'],
                 'one of sweep, compare_settings, cold_vs_warm, connection_cost'),
                ('via', false, false, NULL, NULL, ARRAY['spi', 'libpq', 'libpq-connect'],
                 'one of spi, libpq, libpq-connect'))
            AS k(kind, is_number, whole, lo, hi, vals, descr)
            ON k.kind OPERATOR(pg_catalog.=) pg_catalog.rtrim(f.want, '!')),
    e AS (
        SELECT a.elem, a.n OPERATOR(pg_catalog.-) 1 AS i FROM pg_catalog.jsonb_array_elements(arr) WITH ORDINALITY AS a(elem, n)),
    b AS (
        SELECT e.i, NULL::pg_catalog.text AS key, 'must be an object' AS problem
          FROM e WHERE pg_catalog.jsonb_typeof(e.elem) OPERATOR(pg_catalog.<>) 'object'
        UNION ALL
        SELECT e.i, s.key,
               CASE WHEN v.v IS NULL OR pg_catalog.jsonb_typeof(v.v) OPERATOR(pg_catalog.=) 'null'
                    THEN CASE WHEN s.required THEN 'is missing' END
                    WHEN s.is_number THEN
                        CASE WHEN pg_catalog.jsonb_typeof(v.v) OPERATOR(pg_catalog.<>) 'number' THEN 'is not ' OPERATOR(pg_catalog.||) s.descr
                             WHEN NOT s.whole AND NOT (pg_catalog.abs(v.v::numeric) OPERATOR(pg_catalog.<) 1e300
                                                       AND (v.v::numeric OPERATOR(pg_catalog.=) 0 OR pg_catalog.abs(v.v::numeric) OPERATOR(pg_catalog.>=) 2.5e-324))
                             THEN 'is out of range for double precision'
                             WHEN s.whole AND v.v::numeric OPERATOR(pg_catalog.<>) pg_catalog.trunc(v.v::numeric) THEN 'is not ' OPERATOR(pg_catalog.||) s.descr
                             WHEN v.v::numeric OPERATOR(pg_catalog.<) coalesce(s.lo, v.v::numeric)
                                  OR v.v::numeric OPERATOR(pg_catalog.>) coalesce(s.hi, v.v::numeric)
                             THEN 'is not ' OPERATOR(pg_catalog.||) s.descr END
                    WHEN NOT CASE WHEN pg_catalog.jsonb_typeof(v.v) OPERATOR(pg_catalog.<>) CASE WHEN s.kind OPERATOR(pg_catalog.=) 'object' THEN 'object'
                                                                        WHEN s.kind OPERATOR(pg_catalog.=) 'array' THEN 'array'
                                                                        ELSE 'string' END
                                  THEN false
                                  WHEN s.vals IS NOT NULL THEN (v.v OPERATOR(pg_catalog.#>>) '{}') OPERATOR(pg_catalog.=) ANY (s.vals)
                                  WHEN s.kind OPERATOR(pg_catalog.=) 'time' THEN pgbench_lab.reads_as(v.v OPERATOR(pg_catalog.#>>) '{}', 'timestamptz')
                                  WHEN s.kind OPERATOR(pg_catalog.=) 'interval' THEN pgbench_lab.reads_as(v.v OPERATOR(pg_catalog.#>>) '{}', 'interval')
                                  ELSE true END
                    THEN 'is not ' OPERATOR(pg_catalog.||) s.descr END
          FROM e CROSS JOIN s
          CROSS JOIN LATERAL (SELECT e.elem OPERATOR(pg_catalog.->) s.key) AS v(v)
         WHERE pg_catalog.jsonb_typeof(e.elem) OPERATOR(pg_catalog.=) 'object')
    SELECT b.i, b.key, b.problem FROM b
     WHERE b.problem IS NOT NULL
     ORDER BY b.i, b.key NULLS FIRST
     LIMIT 1
$$;

-- Check one object of the document against a spec; the first bad field
-- raises an error naming its path.
CREATE FUNCTION pgbench_lab.doc_check(obj jsonb, spec jsonb, path text)
RETURNS void LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    bad pg_catalog.record;
BEGIN
    SELECT * INTO bad FROM pgbench_lab.doc_first_bad(pg_catalog.jsonb_build_array(obj), spec);
    IF FOUND THEN
        PERFORM pgbench_lab.doc_invalid(pg_catalog.format('%s%s %s', path,
            CASE WHEN coalesce(bad.key, '') OPERATOR(pg_catalog.=) '' THEN '' ELSE '.' OPERATOR(pg_catalog.||) bad.key END, bad.problem));
    END IF;
END
$$;

-- Every element of the array arr checked against spec, and the values of
-- each key in uniq unique among them (numbers compared as numbers; the
-- kind num as double precision, as the tables store it).  The first
-- problem, in the order of the elements, raises an error naming its path.
CREATE FUNCTION pgbench_lab.doc_check_each(arr jsonb, spec jsonb, path text, uniq text[])
RETURNS void LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    bad pg_catalog.record;
    dup pg_catalog.record;
BEGIN
    IF (pg_catalog.jsonb_typeof(arr) OPERATOR(pg_catalog.=) 'array') IS NOT TRUE THEN
        PERFORM pgbench_lab.doc_invalid(pg_catalog.format('%s must be an array', path));
    END IF;
    SELECT * INTO bad FROM pgbench_lab.doc_first_bad(arr, spec);
    -- the elements before the first bad one are sound: their values cast
    SELECT d.i, d.key, d.val INTO dup
      FROM (SELECT a.n OPERATOR(pg_catalog.-) 1 AS i, k.key, a.elem OPERATOR(pg_catalog.->>) k.key AS val,
                   pg_catalog.row_number() OVER (PARTITION BY k.key,
                       CASE WHEN pg_catalog.rtrim(spec OPERATOR(pg_catalog.->>) k.key, '!') OPERATOR(pg_catalog.=) 'num'
                            THEN pg_catalog.to_jsonb((a.elem OPERATOR(pg_catalog.->>) k.key)::pg_catalog.float8) ELSE a.elem OPERATOR(pg_catalog.->) k.key END
                       ORDER BY a.n) AS dups
              FROM pg_catalog.jsonb_array_elements(arr) WITH ORDINALITY AS a(elem, n)
             CROSS JOIN pg_catalog.unnest(uniq) AS k(key)
             WHERE a.n OPERATOR(pg_catalog.-) 1 OPERATOR(pg_catalog.<) coalesce(bad.i, 9223372036854775807)
               AND (pg_catalog.jsonb_typeof(a.elem OPERATOR(pg_catalog.->) k.key) OPERATOR(pg_catalog.=) 'null') IS NOT TRUE
               AND a.elem OPERATOR(pg_catalog.->) k.key IS NOT NULL) d
     WHERE d.dups OPERATOR(pg_catalog.>) 1
     ORDER BY d.i, d.key
     LIMIT 1;
    IF dup.i IS NOT NULL THEN
        RAISE EXCEPTION 'invalid export document: %[%]% % appears twice', path, dup.i,
                        CASE WHEN dup.key OPERATOR(pg_catalog.=) '' THEN '' ELSE '.' OPERATOR(pg_catalog.||) dup.key END, dup.val
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Each run, progress second, latency bucket, experiment, ordinal, run of an experiment and sweep client count appears once.';
    END IF;
    IF bad.i IS NOT NULL THEN
        PERFORM pgbench_lab.doc_invalid(pg_catalog.format('%s[%s]%s %s', path, bad.i,
            CASE WHEN coalesce(bad.key, '') OPERATOR(pg_catalog.=) '' THEN '' ELSE '.' OPERATOR(pg_catalog.||) bad.key END, bad.problem));
    END IF;
END
$$;

-- [v1, v2] as [{"": v1}, {"": v2}], to check array elements with doc_check_each.
CREATE FUNCTION pgbench_lab.json_wrap(arr jsonb)
RETURNS jsonb LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN pg_catalog.jsonb_typeof(arr) OPERATOR(pg_catalog.=) 'array'
                THEN coalesce((SELECT pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object('', v) ORDER BY i)
                                 FROM pg_catalog.jsonb_array_elements(arr) WITH ORDINALITY AS a(v, i)), '[]') END
$$;

-- The parameters of an experiment of the document, by its kind, and the
-- variants its runs may have (reports name them: A, B... for settings
-- sets, cold/OS-warm/warm); path is the experiment's.
CREATE FUNCTION pgbench_lab.doc_check_params(e jsonb, path text)
RETURNS void LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    kind pg_catalog.text := e OPERATOR(pg_catalog.->>) 'kind';
    params pg_catalog.jsonb := e OPERATOR(pg_catalog.->) 'params';
    sets pg_catalog.int4;
    fewest pg_catalog.int4 := CASE WHEN kind OPERATOR(pg_catalog.=) 'compare_settings' THEN 2 ELSE 1 END;
    variants pg_catalog.int4;
    bad pg_catalog.int8;
BEGIN
    PERFORM pgbench_lab.doc_check(params, pgbench_lab.doc_spec(kind), path OPERATOR(pg_catalog.||) '.params');
    IF kind OPERATOR(pg_catalog.=) 'sweep' THEN
        PERFORM pgbench_lab.doc_check_each(pgbench_lab.json_wrap(params OPERATOR(pg_catalog.->) 'clients'), '{"": "count!"}',
                                           path OPERATOR(pg_catalog.||) '.params.clients', '{""}');
        variants := pg_catalog.jsonb_array_length(params OPERATOR(pg_catalog.->) 'clients');
    ELSIF kind OPERATOR(pg_catalog.=) 'cold_vs_warm' THEN
        IF pg_catalog.jsonb_typeof(params OPERATOR(pg_catalog.->) 'relations') OPERATOR(pg_catalog.=) 'array' THEN
            PERFORM pgbench_lab.doc_check_each(pgbench_lab.json_wrap(params OPERATOR(pg_catalog.->) 'relations'), '{"": "text!"}',
                                               path OPERATOR(pg_catalog.||) '.params.relations', '{}');
        END IF;
        IF pg_catalog.jsonb_typeof(params OPERATOR(pg_catalog.->) 'relids') OPERATOR(pg_catalog.=) 'array' THEN
            PERFORM pgbench_lab.doc_check_each(pgbench_lab.json_wrap(params OPERATOR(pg_catalog.->) 'relids'), '{"": "oid!"}',
                                               path OPERATOR(pg_catalog.||) '.params.relids', '{}');
        END IF;
        variants := 3;      -- cold, OS-warm, warm
    ELSE
        -- compare_settings, connection_cost: sets of settings (for
        -- connection_cost the three paths), named A, B...
        IF pg_catalog.jsonb_typeof(params OPERATOR(pg_catalog.->) 'settings') OPERATOR(pg_catalog.=) 'array' THEN
            PERFORM pgbench_lab.doc_check_each(pgbench_lab.json_wrap(params OPERATOR(pg_catalog.->) 'settings'), '{"": "object!"}',
                                               path OPERATOR(pg_catalog.||) '.params.settings', '{}');
            sets := pg_catalog.jsonb_array_length(params OPERATOR(pg_catalog.->) 'settings');
            IF sets OPERATOR(pg_catalog.<) fewest OR sets OPERATOR(pg_catalog.>) 26 THEN
                PERFORM pgbench_lab.doc_invalid(pg_catalog.format('%s.params.settings holds %s set(s), not %s to 26',
                                                       path, sets, fewest));
            END IF;
        END IF;
        variants := coalesce(sets, 3);
    END IF;
    SELECT x.n OPERATOR(pg_catalog.-) 1 INTO bad FROM pg_catalog.jsonb_array_elements(e OPERATOR(pg_catalog.->) 'runs') WITH ORDINALITY AS x(r, n)
     WHERE (x.r OPERATOR(pg_catalog.->>) 'variant')::numeric OPERATOR(pg_catalog.>) variants
     ORDER BY x.n LIMIT 1;
    IF FOUND THEN
        PERFORM pgbench_lab.doc_invalid(pg_catalog.format('%s.runs[%s].variant is not from 1 to %s (the %s of the experiment)',
            path, bad, variants, CASE WHEN kind OPERATOR(pg_catalog.=) 'sweep' THEN 'client counts'
                                           WHEN kind OPERATOR(pg_catalog.=) 'cold_vs_warm' THEN 'cold, OS-warm and warm runs'
                                           ELSE 'sets of settings' END));
    END IF;
END
$$;

CREATE FUNCTION pgbench_lab.doc_validate(doc jsonb)
RETURNS void LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    r pg_catalog.record;
    missing pg_catalog.int8;
BEGIN
    IF doc IS NULL OR pg_catalog.jsonb_typeof(doc) OPERATOR(pg_catalog.=) 'null' THEN
        RAISE EXCEPTION 'export document must not be null'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Pass a document made by pgbench_lab.export(); the format is described in the README.';
    END IF;
    PERFORM pgbench_lab.doc_check(doc, '{"format": "text!", "version": "count!", "server": "object!",
        "runs": "array!", "experiments": "array", "exported_at": "time"}', '$');
    IF doc OPERATOR(pg_catalog.->>) 'format' OPERATOR(pg_catalog.<>) 'pgbench_lab export' OR doc OPERATOR(pg_catalog.->) 'version' OPERATOR(pg_catalog.<>) '1' THEN
        RAISE EXCEPTION 'unsupported export document: format "%" version %',
                        pgbench_lab.printable(doc OPERATOR(pg_catalog.->>) 'format'), doc OPERATOR(pg_catalog.->) 'version'
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'This version of pgbench_lab reads format "pgbench_lab export" version 1.';
    END IF;
    PERFORM pgbench_lab.doc_check(doc OPERATOR(pg_catalog.->) 'server', '{"name": "text!", "server_version": "text"}', '$.server');
    PERFORM pgbench_lab.doc_check_each(doc OPERATOR(pg_catalog.->) 'runs', pgbench_lab.doc_spec('run')
        OPERATOR(pg_catalog.||) '{"progress": "array!", "latency": "array!"}', '$.runs', '{run_id}');
    FOR r IN SELECT a.elem, a.n OPERATOR(pg_catalog.-) 1 AS i
               FROM pg_catalog.jsonb_array_elements(doc OPERATOR(pg_catalog.->) 'runs') WITH ORDINALITY AS a(elem, n) LOOP
        PERFORM pgbench_lab.doc_check_each(r.elem OPERATOR(pg_catalog.->) 'progress', pgbench_lab.doc_spec('progress'),
                                           pg_catalog.format('$.runs[%s].progress', r.i), '{second}');
        PERFORM pgbench_lab.doc_check_each(r.elem OPERATOR(pg_catalog.->) 'latency', pgbench_lab.doc_spec('latency'),
                                           pg_catalog.format('$.runs[%s].latency', r.i), '{bucket_upper_us}');
    END LOOP;
    IF NOT doc OPERATOR(pg_catalog.?) 'experiments' THEN
        RETURN;
    END IF;
    PERFORM pgbench_lab.doc_check_each(doc OPERATOR(pg_catalog.->) 'experiments', pgbench_lab.doc_spec('experiment')
        OPERATOR(pg_catalog.||) '{"runs": "array!"}', '$.experiments', '{experiment_id}');
    -- the first experiment that names a run the document does not hold
    SELECT e.n OPERATOR(pg_catalog.-) 1 INTO missing
      FROM pg_catalog.jsonb_array_elements(doc OPERATOR(pg_catalog.->) 'experiments') WITH ORDINALITY AS e(elem, n)
     WHERE EXISTS (SELECT FROM pg_catalog.jsonb_array_elements(e.elem OPERATOR(pg_catalog.->) 'runs') x
                    WHERE pg_catalog.jsonb_typeof(x) OPERATOR(pg_catalog.=) 'object'
                      AND NOT EXISTS (SELECT FROM pg_catalog.jsonb_array_elements(doc OPERATOR(pg_catalog.->) 'runs') d
                                       WHERE (d OPERATOR(pg_catalog.->) 'run_id') OPERATOR(pg_catalog.=) (x OPERATOR(pg_catalog.->) 'run_id')))
     ORDER BY e.n LIMIT 1;
    FOR r IN SELECT a.elem, a.n OPERATOR(pg_catalog.-) 1 AS i
               FROM pg_catalog.jsonb_array_elements(doc OPERATOR(pg_catalog.->) 'experiments') WITH ORDINALITY AS a(elem, n) LOOP
        PERFORM pgbench_lab.doc_check_each(r.elem OPERATOR(pg_catalog.->) 'runs', pgbench_lab.doc_spec('experiment_run'),
                                           pg_catalog.format('$.experiments[%s].runs', r.i), '{ordinal,run_id}');
        PERFORM pgbench_lab.doc_check_params(r.elem, pg_catalog.format('$.experiments[%s]', r.i));
        IF r.i OPERATOR(pg_catalog.=) missing THEN
            PERFORM pgbench_lab.doc_invalid(pg_catalog.format('$.experiments[%s] names a run that is not in $.runs', r.i));
        END IF;
    END LOOP;
END
$$;

-- Import as caller: new local ids, source server and source ids kept.
-- Set-based: each table is written by one statement for the whole
-- document, whatever its size.  The new ids are drawn first, in the order
-- of the document (runs, then experiments), so that progress, histograms
-- and experiments can refer to them.
CREATE FUNCTION pgbench_lab.import_as(caller regrole, doc jsonb)
RETURNS jsonb LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    src pg_catalog.text;
    ids pg_catalog.jsonb;
    out_runs pg_catalog.jsonb;
    out_experiments pg_catalog.jsonb;
BEGIN
    IF NOT pg_catalog.has_function_privilege(caller::pg_catalog.oid, 'pgbench_lab.import(jsonb)', 'EXECUTE') THEN
        RAISE EXCEPTION 'permission denied for function import'
            USING ERRCODE = 'insufficient_privilege',
                  HINT = 'A superuser can GRANT EXECUTE ON FUNCTION pgbench_lab.import(jsonb).';
    END IF;
    PERFORM pgbench_lab.doc_validate(doc);
    src := doc OPERATOR(pg_catalog.->) 'server' OPERATOR(pg_catalog.->>) 'name';
    -- numbers are read through numeric: a document may write 2 as 2.0
    WITH d AS MATERIALIZED (
        SELECT a.r, a.n, (a.r OPERATOR(pg_catalog.->>) 'run_id')::numeric::bigint AS source_id,
               pg_catalog.nextval('pgbench_lab.runs_run_id_seq'::pg_catalog.regclass) AS new_id
          FROM pg_catalog.jsonb_array_elements(doc OPERATOR(pg_catalog.->) 'runs') WITH ORDINALITY AS a(r, n)
         ORDER BY a.n),
    runs AS (
        INSERT INTO pgbench_lab.runs (run_id, label, workload, via, clients,
            scale, duration, transactions_per_client, max_tries, random_seed, started_at, finished_at,
            status, measured_seconds, transactions, failures, retries, tps, latency_avg_ms,
            latency_stddev_ms, latency_p50_ms, latency_p90_ms, latency_p95_ms, latency_p99_ms,
            latency_max_ms, blks_hit, blks_read, hit_ratio, wal_bytes, checkpoints, settings,
            system, owner, error, source_server, source_run_id, imported_at, target_display,
            connections, connection_avg_ms, tps_without_connections)
        OVERRIDING SYSTEM VALUE
        SELECT d.new_id, r OPERATOR(pg_catalog.->>) 'label', r OPERATOR(pg_catalog.->>) 'workload', coalesce(r OPERATOR(pg_catalog.->>) 'via', 'spi'),
               (r OPERATOR(pg_catalog.->>) 'clients')::numeric::integer, (r OPERATOR(pg_catalog.->>) 'scale')::numeric::integer,
               (r OPERATOR(pg_catalog.->>) 'duration')::interval, (r OPERATOR(pg_catalog.->>) 'transactions_per_client')::numeric::bigint,
               (r OPERATOR(pg_catalog.->>) 'max_tries')::numeric::integer, (r OPERATOR(pg_catalog.->>) 'random_seed')::numeric::bigint,
               (r OPERATOR(pg_catalog.->>) 'started_at')::pg_catalog.timestamptz, (r OPERATOR(pg_catalog.->>) 'finished_at')::pg_catalog.timestamptz, r OPERATOR(pg_catalog.->>) 'status',
               (r OPERATOR(pg_catalog.->>) 'measured_seconds')::pg_catalog.float8, (r OPERATOR(pg_catalog.->>) 'transactions')::numeric::bigint,
               (r OPERATOR(pg_catalog.->>) 'failures')::numeric::bigint, (r OPERATOR(pg_catalog.->>) 'retries')::numeric::bigint,
               (r OPERATOR(pg_catalog.->>) 'tps')::pg_catalog.float8, (r OPERATOR(pg_catalog.->>) 'latency_avg_ms')::pg_catalog.float8, (r OPERATOR(pg_catalog.->>) 'latency_stddev_ms')::pg_catalog.float8,
               (r OPERATOR(pg_catalog.->>) 'latency_p50_ms')::pg_catalog.float8, (r OPERATOR(pg_catalog.->>) 'latency_p90_ms')::pg_catalog.float8,
               (r OPERATOR(pg_catalog.->>) 'latency_p95_ms')::pg_catalog.float8, (r OPERATOR(pg_catalog.->>) 'latency_p99_ms')::pg_catalog.float8,
               (r OPERATOR(pg_catalog.->>) 'latency_max_ms')::pg_catalog.float8, (r OPERATOR(pg_catalog.->>) 'blks_hit')::numeric::bigint,
               (r OPERATOR(pg_catalog.->>) 'blks_read')::numeric::bigint, (r OPERATOR(pg_catalog.->>) 'hit_ratio')::pg_catalog.float8,
               (r OPERATOR(pg_catalog.->>) 'wal_bytes')::numeric, (r OPERATOR(pg_catalog.->>) 'checkpoints')::numeric::bigint,
               coalesce(CASE WHEN pg_catalog.jsonb_typeof(r OPERATOR(pg_catalog.->) 'settings') OPERATOR(pg_catalog.=) 'object' THEN r OPERATOR(pg_catalog.->) 'settings' END, '{}'),
               CASE WHEN pg_catalog.jsonb_typeof(r OPERATOR(pg_catalog.->) 'system') OPERATOR(pg_catalog.=) 'object' THEN r OPERATOR(pg_catalog.->) 'system' END, caller,
               r OPERATOR(pg_catalog.->>) 'error', coalesce(r OPERATOR(pg_catalog.->>) 'source_server', src),
               coalesce((r OPERATOR(pg_catalog.->>) 'source_run_id')::numeric::bigint, d.source_id), pg_catalog.now(),
               r OPERATOR(pg_catalog.->>) 'target_display', (r OPERATOR(pg_catalog.->>) 'connections')::numeric::bigint,
               (r OPERATOR(pg_catalog.->>) 'connection_avg_ms')::pg_catalog.float8, (r OPERATOR(pg_catalog.->>) 'tps_without_connections')::pg_catalog.float8
          FROM d),
    progress AS (
        INSERT INTO pgbench_lab.run_progress (run_id, second, interval_seconds, transactions, tps,
                                              latency_avg_ms, latency_max_ms, failures, hit_ratio)
        SELECT d.new_id, (p OPERATOR(pg_catalog.->>) 'second')::numeric::integer, (p OPERATOR(pg_catalog.->>) 'interval_seconds')::pg_catalog.float8,
               (p OPERATOR(pg_catalog.->>) 'transactions')::numeric::bigint, (p OPERATOR(pg_catalog.->>) 'tps')::pg_catalog.float8,
               (p OPERATOR(pg_catalog.->>) 'latency_avg_ms')::pg_catalog.float8, (p OPERATOR(pg_catalog.->>) 'latency_max_ms')::pg_catalog.float8,
               (p OPERATOR(pg_catalog.->>) 'failures')::numeric::bigint, (p OPERATOR(pg_catalog.->>) 'hit_ratio')::pg_catalog.float8
          FROM d CROSS JOIN LATERAL pg_catalog.jsonb_array_elements(d.r OPERATOR(pg_catalog.->) 'progress') AS x(p)),
    latency AS (
        INSERT INTO pgbench_lab.run_latency (run_id, bucket_upper_us, count)
        SELECT d.new_id, (l OPERATOR(pg_catalog.->>) 'bucket_upper_us')::pg_catalog.float8, (l OPERATOR(pg_catalog.->>) 'count')::numeric::bigint
          FROM d CROSS JOIN LATERAL pg_catalog.jsonb_array_elements(d.r OPERATOR(pg_catalog.->) 'latency') AS x(l))
    SELECT coalesce(pg_catalog.jsonb_object_agg(d.source_id, d.new_id), '{}'),
           coalesce(pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object('kind', 'run', 'source_id', d.source_id, 'id', d.new_id)
                              ORDER BY d.n), '[]')
      INTO ids, out_runs
      FROM d;
    WITH d AS MATERIALIZED (
        SELECT a.e, a.n, (a.e OPERATOR(pg_catalog.->>) 'experiment_id')::numeric::bigint AS source_id,
               pg_catalog.nextval('pgbench_lab.runs_run_id_seq'::pg_catalog.regclass) AS new_id
          FROM pg_catalog.jsonb_array_elements(coalesce(doc OPERATOR(pg_catalog.->) 'experiments', '[]')) WITH ORDINALITY AS a(e, n)
         ORDER BY a.n),
    experiments AS (
        INSERT INTO pgbench_lab.experiments (experiment_id, kind, workload, label, params, started_at,
            finished_at, status, owner, source_server, source_experiment_id, imported_at)
        SELECT d.new_id, e OPERATOR(pg_catalog.->>) 'kind', e OPERATOR(pg_catalog.->>) 'workload', e OPERATOR(pg_catalog.->>) 'label', e OPERATOR(pg_catalog.->) 'params',
               (e OPERATOR(pg_catalog.->>) 'started_at')::pg_catalog.timestamptz, (e OPERATOR(pg_catalog.->>) 'finished_at')::pg_catalog.timestamptz, e OPERATOR(pg_catalog.->>) 'status',
               caller, coalesce(e OPERATOR(pg_catalog.->>) 'source_server', src),
               coalesce((e OPERATOR(pg_catalog.->>) 'source_experiment_id')::numeric::bigint, d.source_id), pg_catalog.now()
          FROM d),
    links AS (
        INSERT INTO pgbench_lab.experiment_runs (experiment_id, ordinal, run_id, variant, round)
        SELECT d.new_id, (x OPERATOR(pg_catalog.->>) 'ordinal')::numeric::integer,
               (ids OPERATOR(pg_catalog.->>) ((x OPERATOR(pg_catalog.->>) 'run_id')::numeric::bigint)::pg_catalog.text)::bigint,
               (x OPERATOR(pg_catalog.->>) 'variant')::numeric::integer, (x OPERATOR(pg_catalog.->>) 'round')::numeric::integer
          FROM d CROSS JOIN LATERAL pg_catalog.jsonb_array_elements(d.e OPERATOR(pg_catalog.->) 'runs') AS l(x))
    SELECT coalesce(pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object('kind', 'experiment', 'source_id', d.source_id,
                                                 'id', d.new_id) ORDER BY d.n), '[]')
      INTO out_experiments
      FROM d;
    RETURN out_runs OPERATOR(pg_catalog.||) out_experiments;
END
$$;

-- The only entry of record(): dispatch to the action, as the extension owner.
CREATE FUNCTION pgbench_lab.record_as(caller regrole, action text, args jsonb)
RETURNS jsonb LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF action IS NULL OR NOT action OPERATOR(pg_catalog.=) ANY (ARRAY['experiment_begin', 'experiment_add', 'experiment_end', 'import']) THEN
        RAISE EXCEPTION 'unknown action "%"', action
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Valid actions are experiment_begin, experiment_add, experiment_end and import.';
    END IF;
    RETURN CASE WHEN action OPERATOR(pg_catalog.=) 'experiment_begin' THEN pgbench_lab.experiment_begin_as(caller, args)
        WHEN action OPERATOR(pg_catalog.=) 'experiment_add' THEN pgbench_lab.experiment_add_as(caller, args)
        WHEN action OPERATOR(pg_catalog.=) 'experiment_end' THEN pgbench_lab.experiment_end_as(caller, args)
        ELSE pgbench_lab.import_as(caller, args) END;
END
$$;

CREATE FUNCTION pgbench_lab.import(doc jsonb)
RETURNS TABLE (kind text, source_id bigint, id bigint)
LANGUAGE sql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT x.kind, x.source_id, x.id
      FROM pg_catalog.jsonb_to_recordset(pgbench_lab.record('import', coalesce(doc, 'null')))
           AS x(kind pg_catalog.text, source_id bigint, id bigint)
$$;
COMMENT ON FUNCTION pgbench_lab.import(jsonb) IS
    'Import runs and experiments from an export document: new local ids, marked with their source server';

-- One run as the document holds it.
CREATE FUNCTION pgbench_lab.export_run(r pgbench_lab.runs)
RETURNS jsonb LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pgbench_lab.doc_fields(pg_catalog.to_jsonb(r), 'run')
        OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object(
            'progress', (SELECT coalesce(pg_catalog.jsonb_agg(pg_catalog.to_jsonb(p) OPERATOR(pg_catalog.-) 'run_id' ORDER BY p.second), '[]')
                           FROM pgbench_lab.run_progress p WHERE p.run_id OPERATOR(pg_catalog.=) r.run_id),
            'latency', (SELECT coalesce(pg_catalog.jsonb_agg(pg_catalog.to_jsonb(l) OPERATOR(pg_catalog.-) 'run_id' ORDER BY l.bucket_upper_us), '[]')
                          FROM pgbench_lab.run_latency l WHERE l.run_id OPERATOR(pg_catalog.=) r.run_id))
$$;

-- ids: runs and experiments (an experiment brings its runs); NULL = every
-- finished run and experiment the caller can read.
CREATE FUNCTION pgbench_lab.export(run_ids bigint[] DEFAULT NULL)
RETURNS jsonb LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
SET intervalstyle = 'postgres'
AS $$
DECLARE
    rids pg_catalog.int8[];
    eids pg_catalog.int8[];
    bad pg_catalog.int8;
BEGIN
    IF run_ids IS NULL THEN
        rids := ARRAY(SELECT r.run_id FROM pgbench_lab.runs r WHERE r.status OPERATOR(pg_catalog.<>) 'running');
        eids := ARRAY(SELECT e.experiment_id FROM pgbench_lab.experiments e
                       WHERE e.status OPERATOR(pg_catalog.<>) 'running'
                         AND NOT EXISTS (SELECT FROM pgbench_lab.experiment_runs x
                                          WHERE x.experiment_id OPERATOR(pg_catalog.=) e.experiment_id
                                            AND NOT x.run_id OPERATOR(pg_catalog.=) ANY (rids)));
    ELSE
        PERFORM pgbench_lab.check_ids(run_ids, true);
        eids := ARRAY(SELECT e.experiment_id FROM pgbench_lab.experiments e
                       WHERE e.experiment_id OPERATOR(pg_catalog.=) ANY (run_ids));
        rids := ARRAY(SELECT r.run_id FROM pgbench_lab.runs r WHERE r.run_id OPERATOR(pg_catalog.=) ANY (run_ids)
                      UNION
                      SELECT x.run_id FROM pgbench_lab.experiment_runs x
                       WHERE x.experiment_id OPERATOR(pg_catalog.=) ANY (eids));
        SELECT r.run_id INTO bad FROM pgbench_lab.runs r
         WHERE r.run_id OPERATOR(pg_catalog.=) ANY (rids) AND r.status OPERATOR(pg_catalog.=) 'running' LIMIT 1;
        IF FOUND THEN
            RAISE EXCEPTION 'run % is still running', bad
                USING ERRCODE = 'object_not_in_prerequisite_state',
                      HINT = 'Export it when it has finished: CALL pgbench_lab.wait(run_id).';
        END IF;
    END IF;
    RETURN pg_catalog.jsonb_build_object(
        'format', 'pgbench_lab export',
        'version', 1,
        'exported_at', pg_catalog.now(),
        'server', pg_catalog.jsonb_build_object(
            'name', pgbench_lab.server_name(),
            'server_version', pg_catalog.current_setting('server_version'),
            'extension_version', (SELECT extversion FROM pg_catalog.pg_extension WHERE extname OPERATOR(pg_catalog.=) 'pgbench_lab')),
        'runs', (SELECT coalesce(pg_catalog.jsonb_agg(pgbench_lab.export_run(r) ORDER BY r.run_id), '[]')
                   FROM pgbench_lab.runs r WHERE r.run_id OPERATOR(pg_catalog.=) ANY (rids)),
        'experiments', (SELECT coalesce(pg_catalog.jsonb_agg(pgbench_lab.doc_fields(pg_catalog.to_jsonb(e), 'experiment')
                  OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object('runs',
                       (SELECT coalesce(pg_catalog.jsonb_agg(pg_catalog.to_jsonb(x) OPERATOR(pg_catalog.-) 'experiment_id' ORDER BY x.ordinal), '[]')
                          FROM pgbench_lab.experiment_runs x
                         WHERE x.experiment_id OPERATOR(pg_catalog.=) e.experiment_id))
                  ORDER BY e.experiment_id), '[]')
                   FROM pgbench_lab.experiments e WHERE e.experiment_id OPERATOR(pg_catalog.=) ANY (eids)));
END
$$;
COMMENT ON FUNCTION pgbench_lab.export(bigint[]) IS
    'A versioned jsonb document of runs and experiments (progress, histograms, settings, system facts)';

-- ---------------------------------------------------------------------------
-- Experiments: sweep() and compare_settings().  They commit between runs,
-- so they are C loops (src/report_experiment.c) around the SQL functions
-- here, which check, plan, link and judge.
-- ---------------------------------------------------------------------------

-- An array argument must be a list: a two-dimensional array would be
-- read element by element as if it were one (and array_position() refuses
-- it with a message about searching), so it is refused before anything.
CREATE FUNCTION pgbench_lab.check_flat(ndims integer, what text, example text)
RETURNS void LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF ndims OPERATOR(pg_catalog.>) 1 THEN
        RAISE EXCEPTION '% must be a one-dimensional array, not one of % dimensions', what, ndims
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = pg_catalog.format('Pass a plain list, for example %s.', example);
    END IF;
END
$$;

-- Errors for an id list: NULL, empty, a multidimensional array, NULL
-- elements, ids the caller cannot read.
CREATE FUNCTION pgbench_lab.check_ids(ids bigint[], experiments_too boolean)
RETURNS void LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    bad pg_catalog.int8;
BEGIN
    IF ids IS NULL OR pg_catalog.cardinality(ids) OPERATOR(pg_catalog.=) 0 THEN
        RAISE EXCEPTION 'ids must not be null or empty'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Pass an array of run ids, for example ARRAY[41, 42].';
    END IF;
    PERFORM pgbench_lab.check_flat(pg_catalog.array_ndims(ids), 'ids', 'ARRAY[41, 42]');
    IF pg_catalog.array_position(ids, NULL) IS NOT NULL THEN
        RAISE EXCEPTION 'ids must not contain null'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Pass an array of run ids, for example ARRAY[41, 42].';
    END IF;
    SELECT i INTO bad FROM pg_catalog.unnest(ids) AS i
     WHERE NOT EXISTS (SELECT FROM pgbench_lab.runs r WHERE r.run_id OPERATOR(pg_catalog.=) i)
       AND NOT (experiments_too AND EXISTS (SELECT FROM pgbench_lab.experiments e
                                             WHERE e.experiment_id OPERATOR(pg_catalog.=) i))
     LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION '% % does not exist or is not visible to you',
            CASE WHEN experiments_too THEN 'run or experiment' ELSE 'run' END, bad
            USING ERRCODE = 'undefined_object',
                  HINT = 'pgbench_lab.runs and pgbench_lab.experiments list what you can read: your own, or all for members of pg_monitor.';
    END IF;
END
$$;

CREATE FUNCTION pgbench_lab.experiment_begin(kind text, workload text, label text, params jsonb)
RETURNS bigint LANGUAGE sql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT (pgbench_lab.record('experiment_begin', pg_catalog.jsonb_build_object('kind', kind,
            'workload', workload, 'label', label, 'params', params)) OPERATOR(pg_catalog.->>) 'experiment_id')::bigint
$$;

CREATE FUNCTION pgbench_lab.experiment_add(experiment_id bigint, run_id bigint, variant integer, round integer)
RETURNS void LANGUAGE sql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT FROM pgbench_lab.record('experiment_add', pg_catalog.jsonb_build_object('experiment_id', experiment_id,
            'run_id', run_id, 'variant', variant, 'round', round))
$$;

CREATE FUNCTION pgbench_lab.experiment_end(experiment_id bigint)
RETURNS void LANGUAGE sql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT FROM pgbench_lab.record('experiment_end', pg_catalog.jsonb_build_object('experiment_id', experiment_id))
$$;

-- The sweep's client counts, checked and in rising order.
CREATE FUNCTION pgbench_lab.sweep_counts(workload text, clients integer[])
RETURNS integer[] LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF workload IS NULL THEN
        RAISE EXCEPTION 'workload must not be null'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Valid workloads are tpcb-like, simple-update and select-only.';
    END IF;
    PERFORM pgbench_lab.check_flat(pg_catalog.array_ndims(clients), 'clients', '''{1,2,4,8}''');
    IF clients IS NULL OR pg_catalog.cardinality(clients) OPERATOR(pg_catalog.=) 0
       OR pg_catalog.array_position(clients, NULL) IS NOT NULL THEN
        RAISE EXCEPTION 'clients must be a non-empty array without nulls'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Pass the client counts to try, for example ''{1,2,4,8}''.';
    END IF;
    IF EXISTS (SELECT FROM pg_catalog.unnest(clients) c WHERE c OPERATOR(pg_catalog.<) 1) THEN
        RAISE EXCEPTION 'client counts must be 1 or more'
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Pass positive client counts, for example ''{1,2,4,8}''.';
    END IF;
    IF (SELECT pg_catalog.max(c) FROM pg_catalog.unnest(clients) c)
       OPERATOR(pg_catalog.>) pg_catalog.current_setting('pgbench_lab.max_clients')::integer THEN
        RAISE EXCEPTION 'client counts must not exceed pgbench_lab.max_clients (%)',
                        pg_catalog.current_setting('pgbench_lab.max_clients')
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Checked before the first run, so that a sweep does not stop halfway; a superuser can raise pgbench_lab.max_clients.';
    END IF;
    IF (SELECT pg_catalog.count(DISTINCT c) FROM pg_catalog.unnest(clients) c)
       OPERATOR(pg_catalog.<) pg_catalog.cardinality(clients) THEN
        RAISE EXCEPTION 'client counts must not repeat'
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Pass each client count once; run compare_settings for repeated rounds.';
    END IF;
    RETURN ARRAY(SELECT c FROM pg_catalog.unnest(clients) c ORDER BY c);
END
$$;

CREATE FUNCTION pgbench_lab.compare_params(workload text, settings jsonb[], clients integer,
                                           duration interval, rounds integer)
RETURNS jsonb LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
SET intervalstyle = 'postgres'
AS $$
BEGIN
    IF workload IS NULL OR clients IS NULL OR duration IS NULL OR rounds IS NULL THEN
        RAISE EXCEPTION 'workload, clients, duration and rounds must not be null'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Pass values or leave them out for the defaults (1 client, 10 s, 3 rounds).';
    END IF;
    PERFORM pgbench_lab.check_flat(pg_catalog.array_ndims(settings), 'settings',
                                   'ARRAY[''{}'', ''{"jit": "off"}'']::jsonb[]');
    IF settings IS NULL OR pg_catalog.cardinality(settings) OPERATOR(pg_catalog.<) 2
       OR pg_catalog.cardinality(settings) OPERATOR(pg_catalog.>) 26 THEN
        RAISE EXCEPTION 'settings must hold 2 to 26 sets of settings'
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Pass an array of jsonb objects, for example ARRAY[''{"synchronous_commit": "on"}'', ''{"synchronous_commit": "off"}'']::jsonb[].';
    END IF;
    IF EXISTS (SELECT FROM pg_catalog.unnest(settings) s
                WHERE (pg_catalog.jsonb_typeof(s) OPERATOR(pg_catalog.=) 'object') IS NOT TRUE) THEN
        RAISE EXCEPTION 'each set of settings must be a jsonb object'
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Use ''{}'' for the current settings and {"name": "value"} for others.';
    END IF;
    IF rounds OPERATOR(pg_catalog.<) 1 OR rounds OPERATOR(pg_catalog.>) 100 THEN
        RAISE EXCEPTION 'rounds must be from 1 to 100'
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Three rounds or more give a spread worth reading.';
    END IF;
    RETURN pg_catalog.jsonb_build_object('settings', pg_catalog.to_jsonb(settings), 'clients', clients,
                              'duration', duration::pg_catalog.text, 'rounds', rounds);
END
$$;

-- An experiment of one of the kinds a function reads, or an error naming
-- the kind it is (the functions would otherwise read another kind's runs
-- as their own: a cold_vs_warm experiment's three runs of one client count
-- as a sweep divides by zero).
CREATE FUNCTION pgbench_lab.check_experiment(experiment_id bigint, kinds text[], fn text)
RETURNS void LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    k pg_catalog.text;
    wanted pg_catalog.text := pg_catalog.array_to_string(kinds, ' or ');
BEGIN
    IF experiment_id IS NULL THEN
        RAISE EXCEPTION 'experiment_id must not be null'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = pg_catalog.format('Pass the id of a %s experiment from pgbench_lab.experiments.', wanted);
    END IF;
    SELECT e.kind INTO k FROM pgbench_lab.experiments e WHERE e.experiment_id OPERATOR(pg_catalog.=) check_experiment.experiment_id;
    IF NOT FOUND THEN
        IF EXISTS (SELECT FROM pgbench_lab.runs r WHERE r.run_id OPERATOR(pg_catalog.=) check_experiment.experiment_id) THEN
            RAISE EXCEPTION '% needs a % experiment, and % is a run', fn, wanted, experiment_id
                USING ERRCODE = 'invalid_parameter_value',
                      HINT = 'Read a run with pgbench_lab.report(run_id).';
        END IF;
        RAISE EXCEPTION 'experiment % does not exist or is not visible to you', experiment_id
            USING ERRCODE = 'undefined_object',
                  HINT = 'pgbench_lab.experiments lists what you can read: your own, or all for members of pg_monitor.';
    END IF;
    IF NOT k OPERATOR(pg_catalog.=) ANY (kinds) THEN
        RAISE EXCEPTION '% needs a % experiment, and experiment % is a % experiment', fn, wanted, experiment_id, k
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'pgbench_lab.report(experiment_id) reads an experiment of any kind.';
    END IF;
END
$$;

-- Each finished client count with the step from the one before it.
-- linear_share: the TPS gained as a share of what linear scaling with the
-- added clients would give (1 = linear, 0 = nothing, negative = a loss);
-- computed in numeric, so that no figures make it overflow, and NULL when
-- two runs share a client count (an imported document may hold that).
CREATE FUNCTION pgbench_lab.sweep_steps(experiment_id bigint)
RETURNS TABLE (clients integer, run_id bigint, tps double precision, latency_avg_ms double precision,
               latency_p99_ms double precision, prev_clients integer, prev_tps double precision,
               prev_latency_avg_ms double precision, linear_share double precision)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT s.*, CASE WHEN s.clients OPERATOR(pg_catalog.>) s.prev_clients
                     THEN pgbench_lab.to_float8((s.tps::numeric OPERATOR(pg_catalog./) s.prev_tps::numeric OPERATOR(pg_catalog.-) 1)
                                                OPERATOR(pg_catalog./) (s.clients::numeric OPERATOR(pg_catalog./) s.prev_clients OPERATOR(pg_catalog.-) 1)) END
      FROM (SELECT r.clients, r.run_id, r.tps, r.latency_avg_ms, r.latency_p99_ms,
                   pg_catalog.lag(r.clients) OVER w AS prev_clients, pg_catalog.lag(r.tps) OVER w AS prev_tps,
                   pg_catalog.lag(r.latency_avg_ms) OVER w AS prev_latency_avg_ms
              FROM pgbench_lab.experiment_runs x
              JOIN pgbench_lab.runs r ON r.run_id OPERATOR(pg_catalog.=) x.run_id
             WHERE x.experiment_id OPERATOR(pg_catalog.=) sweep_steps.experiment_id
               AND r.status OPERATOR(pg_catalog.=) 'done' AND r.tps OPERATOR(pg_catalog.>) 0
            WINDOW w AS (ORDER BY r.clients, x.ordinal)) s
     ORDER BY s.clients
$$;

-- Seed 004's method: the peak is the highest TPS; the knee is the last
-- count before the first step whose added clients bring less than half of
-- linear throughput; past it, clients mostly add latency.
CREATE FUNCTION pgbench_lab.sweep_verdict(experiment_id bigint,
    OUT peak_clients integer, OUT peak_tps double precision,
    OUT knee_clients integer, OUT finding text)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    pk pg_catalog.record;
    kn pg_catalog.record;
    n pg_catalog.int4;
    top pg_catalog.int4;
    tail pg_catalog.record;
    peak_text pg_catalog.text;
    knee_text pg_catalog.text;
BEGIN
    PERFORM pgbench_lab.check_experiment(experiment_id, '{sweep}', 'sweep_verdict()');
    SELECT pg_catalog.count(*), pg_catalog.max(s.clients) INTO n, top FROM pgbench_lab.sweep_steps(experiment_id) s;
    IF n OPERATOR(pg_catalog.=) 0 THEN
        finding := 'No finished runs: no peak and no knee.';
        RETURN;
    END IF;
    SELECT * INTO pk FROM pgbench_lab.sweep_steps(experiment_id) s ORDER BY s.tps DESC, s.clients LIMIT 1;
    peak_clients := pk.clients;
    peak_tps := pk.tps;
    peak_text := pg_catalog.format('Peak: %s at %s tps, the highest throughput of the sweep',
                        pgbench_lab.clients_text(pk.clients), pgbench_lab.fmt(pk.tps));
    SELECT * INTO tail FROM pgbench_lab.sweep_steps(experiment_id) s WHERE s.clients OPERATOR(pg_catalog.>) pk.clients
     ORDER BY s.clients DESC LIMIT 1;
    IF tail IS NULL THEN
        IF n OPERATOR(pg_catalog.>) 1 THEN
            peak_text := peak_text OPERATOR(pg_catalog.||) ' (the largest count tried: more clients may go higher)';
        END IF;
    ELSE
        peak_text := peak_text OPERATOR(pg_catalog.||) pg_catalog.format('; at %s clients TPS was %s lower', tail.clients,
                                         pg_catalog.ltrim(pgbench_lab.pct_change(tail.tps, pk.tps), '-'));
    END IF;
    SELECT * INTO kn FROM pgbench_lab.sweep_steps(experiment_id) s
     WHERE s.linear_share OPERATOR(pg_catalog.<) 0.5 ORDER BY s.clients LIMIT 1;
    IF n OPERATOR(pg_catalog.<) 2 THEN
        knee_text := 'Knee: not found: it needs at least two finished client counts';
    ELSIF kn IS NULL THEN
        knee_text := pg_catalog.format('Knee: not reached: up to %s clients every step added at least half of linear throughput; sweep higher counts', top);
    ELSE
        knee_clients := kn.prev_clients;
        knee_text := pg_catalog.format('Knee: %s: going from %s to %s clients (%s) changed TPS by %s (%s%% of linear scaling) while average latency changed by %s, so more clients add latency rather than throughput',
                            pgbench_lab.clients_text(kn.prev_clients), kn.prev_clients, kn.clients,
                            pgbench_lab.pct_change(kn.clients, kn.prev_clients),
                            pgbench_lab.pct_change(kn.tps, kn.prev_tps),
                            pg_catalog.round((kn.linear_share OPERATOR(pg_catalog.*) 100)::numeric),
                            CASE WHEN pgbench_lab.pct_change(kn.latency_avg_ms, kn.prev_latency_avg_ms) OPERATOR(pg_catalog.<>) ''
                                 THEN pgbench_lab.pct_change(kn.latency_avg_ms, kn.prev_latency_avg_ms)
                                 ELSE 'an unknown amount' END);
    END IF;
    finding := peak_text OPERATOR(pg_catalog.||) '. ' OPERATOR(pg_catalog.||) knee_text OPERATOR(pg_catalog.||) '.';
END
$$;

CREATE FUNCTION pgbench_lab.sweep_summary(experiment_id bigint)
RETURNS TABLE (clients integer, run_id bigint, tps double precision, latency_avg_ms double precision,
               latency_p99_ms double precision, tps_change text, latency_change text,
               linear_share double precision, mark text)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM pgbench_lab.check_experiment(experiment_id, '{sweep}', 'sweep_summary()');
    RETURN QUERY
    SELECT s.clients, s.run_id, s.tps, s.latency_avg_ms, s.latency_p99_ms,
           pgbench_lab.pct_change(s.tps, s.prev_tps),
           pgbench_lab.pct_change(s.latency_avg_ms, s.prev_latency_avg_ms),
           s.linear_share,
           CASE WHEN s.clients OPERATOR(pg_catalog.=) v.peak_clients
                     OR s.clients OPERATOR(pg_catalog.=) v.knee_clients
                THEN pg_catalog.concat_ws(', ', CASE WHEN s.clients OPERATOR(pg_catalog.=) v.peak_clients THEN 'peak' END,
                                          CASE WHEN s.clients OPERATOR(pg_catalog.=) v.knee_clients THEN 'knee' END) END
      FROM pgbench_lab.sweep_steps(sweep_summary.experiment_id) s,
           pgbench_lab.sweep_verdict(sweep_summary.experiment_id) v
     ORDER BY s.clients;
END
$$;
COMMENT ON FUNCTION pgbench_lab.sweep_summary(bigint) IS
    'TPS and latency per client count of a sweep, with the peak and the knee marked';

-- Per settings set: TPS and the ratio to set A, paired round by round (the
-- interleaving cancels drift), as a median with its min and max.
CREATE FUNCTION pgbench_lab.settings_ratios(experiment_id bigint)
RETURNS TABLE (variant integer, name text, settings jsonb, rounds integer,
               tps_median double precision, tps_min double precision, tps_max double precision,
               latency_avg_ms_median double precision, ratio_median double precision,
               ratio_min double precision, ratio_max double precision)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM pgbench_lab.check_experiment(experiment_id, '{compare_settings,connection_cost}', 'settings_ratios()');
    RETURN QUERY
    WITH t AS (
        SELECT x.variant, x.round, r.tps, r.latency_avg_ms
          FROM pgbench_lab.experiment_runs x
          JOIN pgbench_lab.runs r ON r.run_id OPERATOR(pg_catalog.=) x.run_id
         WHERE x.experiment_id OPERATOR(pg_catalog.=) settings_ratios.experiment_id AND r.status OPERATOR(pg_catalog.=) 'done')
    SELECT t.variant, pg_catalog.chr(64 OPERATOR(pg_catalog.+) t.variant),
           (SELECT e.params OPERATOR(pg_catalog.->) 'settings' OPERATOR(pg_catalog.->) (t.variant OPERATOR(pg_catalog.-) 1) FROM pgbench_lab.experiments e
             WHERE e.experiment_id OPERATOR(pg_catalog.=) settings_ratios.experiment_id),
           pg_catalog.count(*)::integer,
           pg_catalog.percentile_cont(0.5) WITHIN GROUP (ORDER BY t.tps), pg_catalog.min(t.tps), pg_catalog.max(t.tps),
           pg_catalog.percentile_cont(0.5) WITHIN GROUP (ORDER BY t.latency_avg_ms),
           pg_catalog.percentile_cont(0.5) WITHIN GROUP (ORDER BY pgbench_lab.ratio(t.tps, a.tps)),
           pg_catalog.min(pgbench_lab.ratio(t.tps, a.tps)), pg_catalog.max(pgbench_lab.ratio(t.tps, a.tps))
      FROM t LEFT JOIN t a ON a.variant OPERATOR(pg_catalog.=) 1 AND a.round OPERATOR(pg_catalog.=) t.round
     GROUP BY t.variant
     ORDER BY t.variant;
END
$$;
COMMENT ON FUNCTION pgbench_lab.settings_ratios(bigint) IS
    'TPS per settings set of a compare_settings experiment, with ratios to set A (median, min, max over rounds)';

CREATE FUNCTION pgbench_lab.settings_finding(experiment_id bigint)
RETURNS text LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT coalesce(pg_catalog.string_agg(pg_catalog.format('%s (%s) against A: TPS ×%s median over %s rounds (min ×%s, max ×%s); %s',
                    s.name, pgbench_lab.settings_text(s.settings),
                    pgbench_lab.fmt(s.ratio_median, 3), s.rounds,
                    pgbench_lab.fmt(s.ratio_min, 3), pgbench_lab.fmt(s.ratio_max, 3),
                    CASE WHEN s.ratio_median IS NULL THEN 'no round of A to compare with'
                         WHEN s.rounds OPERATOR(pg_catalog.<) 2 THEN 'one round only: no spread to judge by'
                         WHEN s.ratio_min OPERATOR(pg_catalog.<) 1 AND s.ratio_max OPERATOR(pg_catalog.>) 1
                         THEN 'the rounds disagree on the direction: within the noise'
                         WHEN s.ratio_min OPERATOR(pg_catalog.>=) 1 THEN 'faster in every round'
                         ELSE 'slower in every round' END), '. ' ORDER BY s.variant) OPERATOR(pg_catalog.||) '.',
                    'No finished runs to compare.')
      FROM pgbench_lab.settings_ratios(experiment_id) s
     WHERE s.variant OPERATOR(pg_catalog.>) 1
$$;

-- The parameters of a sweep, checked.
CREATE FUNCTION pgbench_lab.sweep_params(workload text, clients integer[], duration interval, settings jsonb)
RETURNS jsonb LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
SET intervalstyle = 'postgres'
AS $$
DECLARE
    counts pg_catalog.int4[] := pgbench_lab.sweep_counts(workload, clients);
BEGIN
    IF duration IS NULL OR settings IS NULL THEN
        RAISE EXCEPTION 'duration and settings must not be null'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Leave them out for the defaults: 10 s and no session settings (''{}'').';
    END IF;
    IF pg_catalog.jsonb_typeof(settings) OPERATOR(pg_catalog.<>) 'object' THEN
        RAISE EXCEPTION 'settings must be a jsonb object'
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Use ''{}'' for the current settings and {"name": "value"} for others.';
    END IF;
    RETURN pg_catalog.jsonb_build_object('clients', counts, 'duration', duration::pg_catalog.text, 'settings', settings);
END
$$;

-- Every setting of every set an experiment's runs will apply: (set, for
-- more than one set its name A, B...; name; value), for the procedures to
-- check as run() does (the name exists, the value is valid, the caller may
-- set it) before the experiment begins, so that a bad setting in the last
-- set is not found after the first sets have run.
CREATE FUNCTION pgbench_lab.experiment_settings(sets jsonb)
RETURNS TABLE (set_name text, name text, value text) LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN pg_catalog.jsonb_array_length(sets) OPERATOR(pg_catalog.>) 1 THEN pg_catalog.chr(64 OPERATOR(pg_catalog.+) a.i::integer) END, s.key, s.value
      FROM pg_catalog.jsonb_array_elements(sets) WITH ORDINALITY AS a(one, i),
           pg_catalog.jsonb_each_text(CASE WHEN pg_catalog.jsonb_typeof(a.one) OPERATOR(pg_catalog.=) 'object' THEN a.one END) AS s(key, value)
     ORDER BY a.i, s.key
$$;

-- The arguments of sweep() and compare_settings() checked, with the
-- settings their runs will apply (see experiment_settings()).  Nothing is
-- recorded yet.
CREATE FUNCTION pgbench_lab.experiment_check_sweep(workload text, clients integer[], duration interval,
                                                   label text, settings jsonb)
RETURNS TABLE (set_name text, name text, value text) LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT s.* FROM pgbench_lab.experiment_settings(
        pg_catalog.jsonb_build_array(pgbench_lab.sweep_params(workload, clients, duration, settings) OPERATOR(pg_catalog.->) 'settings')) s
$$;

CREATE FUNCTION pgbench_lab.experiment_check_settings(workload text, settings jsonb[], clients integer,
                                                      duration interval, rounds integer, label text)
RETURNS TABLE (set_name text, name text, value text) LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT s.* FROM pgbench_lab.experiment_settings(
        pgbench_lab.compare_params(workload, settings, clients, duration, rounds) OPERATOR(pg_catalog.->) 'settings') s
$$;

-- Check the arguments and begin the experiment; returns its id and how
-- many runs it will make.  The procedures below (C) then run each step.
CREATE FUNCTION pgbench_lab.experiment_plan_sweep(workload text, clients integer[], duration interval,
                                                  label text, settings jsonb,
                                                  OUT experiment_id bigint, OUT steps integer)
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    params pg_catalog.jsonb := pgbench_lab.sweep_params(workload, clients, duration, settings);
BEGIN
    experiment_id := pgbench_lab.experiment_begin('sweep', workload, label, params);
    steps := pg_catalog.jsonb_array_length(params OPERATOR(pg_catalog.->) 'clients');
END
$$;

CREATE FUNCTION pgbench_lab.experiment_plan_settings(workload text, settings jsonb[], clients integer,
                                                     duration interval, rounds integer, label text,
                                                     OUT experiment_id bigint, OUT steps integer)
LANGUAGE sql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pgbench_lab.experiment_begin('compare_settings', workload, label,
               pgbench_lab.compare_params(workload, settings, clients, duration, rounds)),
           pg_catalog.cardinality(settings) OPERATOR(pg_catalog.*) rounds
$$;

-- Step n (from 1) of an experiment: the CALL that makes its run, spelled
-- with quoted literals, and where the run goes (variant, round).  A
-- compare_settings experiment runs its sets in order within each round.
CREATE FUNCTION pgbench_lab.experiment_step(experiment_id bigint, step integer,
                                            OUT step_call text, OUT variant integer, OUT round integer)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    e pgbench_lab.experiments;
    n pg_catalog.int4;
BEGIN
    SELECT * INTO STRICT e FROM pgbench_lab.experiments x
     WHERE x.experiment_id OPERATOR(pg_catalog.=) experiment_step.experiment_id;
    IF e.kind OPERATOR(pg_catalog.=) 'sweep' THEN
        variant := step;
        round := 1;
        step_call := pg_catalog.format('CALL pgbench_lab.run(%L, %L::pg_catalog.int4, %L::pg_catalog.interval, NULL, %L, %L::pg_catalog.jsonb)',
                       e.workload, e.params OPERATOR(pg_catalog.->) 'clients' OPERATOR(pg_catalog.->>) (step OPERATOR(pg_catalog.-) 1), e.params OPERATOR(pg_catalog.->>) 'duration', e.label,
                       e.params OPERATOR(pg_catalog.->) 'settings');
    ELSE
        n := pg_catalog.jsonb_array_length(e.params OPERATOR(pg_catalog.->) 'settings');
        variant := (step OPERATOR(pg_catalog.-) 1) OPERATOR(pg_catalog.%) n OPERATOR(pg_catalog.+) 1;
        round := (step OPERATOR(pg_catalog.-) 1) OPERATOR(pg_catalog./) n OPERATOR(pg_catalog.+) 1;
        step_call := pg_catalog.format('CALL pgbench_lab.run(%L, %L::pg_catalog.int4, %L::pg_catalog.interval, NULL, %L, %L::pg_catalog.jsonb)',
                       e.workload, e.params OPERATOR(pg_catalog.->>) 'clients', e.params OPERATOR(pg_catalog.->>) 'duration', e.label,
                       e.params OPERATOR(pg_catalog.->) 'settings' OPERATOR(pg_catalog.->) (variant OPERATOR(pg_catalog.-) 1));
    END IF;
END
$$;

-- C procedures with no SET clause: they commit between runs.
CREATE PROCEDURE pgbench_lab.sweep(
    workload text,
    clients integer[] DEFAULT '{1,2,4,8}',
    duration interval DEFAULT '10 s',
    label text DEFAULT NULL,
    settings jsonb DEFAULT '{}',
    INOUT experiment_id bigint DEFAULT NULL,
    INOUT peak_clients integer DEFAULT NULL,
    INOUT peak_tps double precision DEFAULT NULL,
    INOUT knee_clients integer DEFAULT NULL,
    INOUT finding text DEFAULT NULL)
LANGUAGE c
AS 'MODULE_PATHNAME', 'pgbench_lab_sweep';
COMMENT ON PROCEDURE pgbench_lab.sweep(text, integer[], interval, text, jsonb, bigint, integer, double precision, integer, text) IS
    'One run per client count, recorded as an experiment; names the peak and the knee';

CREATE PROCEDURE pgbench_lab.compare_settings(
    workload text,
    settings jsonb[],
    clients integer DEFAULT 1,
    duration interval DEFAULT '10 s',
    rounds integer DEFAULT 3,
    label text DEFAULT NULL,
    INOUT experiment_id bigint DEFAULT NULL,
    INOUT finding text DEFAULT NULL)
LANGUAGE c
AS 'MODULE_PATHNAME', 'pgbench_lab_compare_settings';
COMMENT ON PROCEDURE pgbench_lab.compare_settings(text, jsonb[], integer, interval, integer, text, bigint, text) IS
    'The same workload under each set of session settings, rounds interleaved; TPS ratios with their spread';

-- ---------------------------------------------------------------------------
-- Reports: text for psql, one line per row, charts in Unicode blocks.
-- ---------------------------------------------------------------------------

-- A paragraph cut into lines of at most width characters at spaces; the
-- first line starts with lead, the others with as many spaces.
CREATE FUNCTION pgbench_lab.wrap(paragraph text, lead text, width integer DEFAULT 100)
RETURNS SETOF text LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    word pg_catalog.text;
    line pg_catalog.text := lead;
    fresh pg_catalog.bool := true;
BEGIN
    FOREACH word IN ARRAY pg_catalog.regexp_split_to_array(paragraph, ' +') LOOP
        IF NOT fresh AND pg_catalog.length(line) OPERATOR(pg_catalog.+) 1 OPERATOR(pg_catalog.+) pg_catalog.length(word) OPERATOR(pg_catalog.>) width THEN
            RETURN NEXT line;
            line := pg_catalog.repeat(' ', pg_catalog.length(lead));
            fresh := true;
        END IF;
        line := line OPERATOR(pg_catalog.||) CASE WHEN fresh THEN '' ELSE ' ' END OPERATOR(pg_catalog.||) word;
        fresh := false;
    END LOOP;
    RETURN NEXT line;
END
$$;

-- Vertical bars, top row first: each column a value, eighth-block precision.
-- (The scaling here and below is in numeric: figures of any size, a TPS of
-- 5e-324 beside one of 1e5, neither overflow nor underflow.)
CREATE FUNCTION pgbench_lab.chart_rows(vals double precision[], top double precision, height integer)
RETURNS SETOF text LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    blocks CONSTANT pg_catalog.text := ' ▁▂▃▄▅▆▇█';
    k pg_catalog.int4;
    v pg_catalog.float8;
    line pg_catalog.text;
BEGIN
    FOR k IN REVERSE height..1 LOOP
        line := '';
        FOREACH v IN ARRAY vals LOOP
            line := line OPERATOR(pg_catalog.||) CASE
                 WHEN v IS NULL OR top IS NULL OR top OPERATOR(pg_catalog.<=) 0 THEN ' '
                 ELSE pg_catalog.substr(blocks
                           , 1 OPERATOR(pg_catalog.+) LEAST(8
                                     , GREATEST(0
                                              , CAST(GREATEST(0
                                                            , LEAST(height OPERATOR(pg_catalog.*) 8
                                                                  , pg_catalog.round((CAST(v AS numeric) OPERATOR(pg_catalog./) CAST(top AS numeric)) OPERATOR(pg_catalog.*) height OPERATOR(pg_catalog.*) 8))) AS integer) OPERATOR(pg_catalog.-) ((k OPERATOR(pg_catalog.-) 1) OPERATOR(pg_catalog.*) 8)))
                           , 1)
               END;
        END LOOP;
        RETURN NEXT line;
    END LOOP;
END
$$;

-- One character per value between lo and hi (a sparkline); NULL is blank.
CREATE FUNCTION pgbench_lab.spark(vals double precision[], lo double precision, hi double precision)
RETURNS text LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pg_catalog.string_agg(CASE WHEN v IS NULL THEN ' '
                           ELSE pg_catalog.substr('▁▂▃▄▅▆▇█', 1 OPERATOR(pg_catalog.+) least(7, greatest(0,
                                pg_catalog.round((v::numeric OPERATOR(pg_catalog.-) lo::numeric) OPERATOR(pg_catalog./) CASE WHEN hi::numeric OPERATOR(pg_catalog.<>) lo::numeric THEN hi::numeric OPERATOR(pg_catalog.-) lo::numeric END OPERATOR(pg_catalog.*) 7)))::integer, 1) END,
                      '' ORDER BY i)
      FROM pg_catalog.unnest(vals) WITH ORDINALITY AS u(v, i)
$$;

-- A horizontal bar of v against top, width characters at most.
CREATE FUNCTION pgbench_lab.hbar(v double precision, top double precision, width integer)
RETURNS text LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN v IS NULL OR top IS NULL OR top OPERATOR(pg_catalog.<=) 0
                     OR v OPERATOR(pg_catalog.<=) 0 THEN ''
                ELSE pg_catalog.repeat('█', e OPERATOR(pg_catalog./) 8)
                     OPERATOR(pg_catalog.||)
                     pg_catalog.rtrim(pg_catalog.substr(' ▏▎▍▌▋▊▉', 1 OPERATOR(pg_catalog.+) (e OPERATOR(pg_catalog.%) 8), 1))
           END
      FROM (SELECT least(width OPERATOR(pg_catalog.*) 8,
                         pg_catalog.round(((v::numeric OPERATOR(pg_catalog./) top::numeric)
                                           OPERATOR(pg_catalog.*) width) OPERATOR(pg_catalog.*) 8))::integer AS e) s
$$;

-- Per-second TPS chart and hit-ratio line of a run.  Seconds are averaged
-- in groups when a run has more than 60; a last partial second (the clients
-- finishing) is left out.
CREATE FUNCTION pgbench_lab.run_charts(run_id bigint)
RETURNS SETOF text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    per pg_catalog.int4;
    last pg_catalog.int4;
    tps pg_catalog.float8[];
    hits pg_catalog.float8[];
    top pg_catalog.float8;
    bars pg_catalog.text[];
    axis CONSTANT pg_catalog.text := pg_catalog.repeat(' ', 9);
BEGIN
    SELECT pg_catalog.ceil(pg_catalog.count(*) OPERATOR(pg_catalog./) 60.0)::integer, pg_catalog.max(p.second) INTO per, last
      FROM pgbench_lab.run_progress p
     WHERE p.run_id OPERATOR(pg_catalog.=) run_charts.run_id AND p.interval_seconds OPERATOR(pg_catalog.>=) 0.5;
    IF per OPERATOR(pg_catalog.=) 0 THEN
        RETURN QUERY SELECT 'No per-second progress was recorded.';
        RETURN;
    END IF;
    SELECT pg_catalog.array_agg(q.t ORDER BY q.g), pg_catalog.array_agg(q.h ORDER BY q.g) INTO tps, hits
      FROM (SELECT (p.second OPERATOR(pg_catalog.-) 1) OPERATOR(pg_catalog./) per AS g, pg_catalog.avg(p.tps) AS t, pg_catalog.avg(p.hit_ratio) AS h
              FROM pgbench_lab.run_progress p
             WHERE p.run_id OPERATOR(pg_catalog.=) run_charts.run_id AND p.interval_seconds OPERATOR(pg_catalog.>=) 0.5
             GROUP BY 1) q;
    SELECT pg_catalog.max(t) INTO top FROM pg_catalog.unnest(tps) t;
    RETURN QUERY SELECT pg_catalog.format('TPS per second (%s; top = %s tps)',
                       CASE WHEN per OPERATOR(pg_catalog.=) 1 THEN 'one column per second'
                                ELSE pg_catalog.format('one column per %s seconds, averaged', per) END,
                       pgbench_lab.fmt(top));
    bars := ARRAY(SELECT pgbench_lab.chart_rows(tps, top, 5));
    FOR k IN 1..5 LOOP
        RETURN QUERY SELECT pg_catalog.format('%s │%s', pg_catalog.lpad(CASE WHEN k OPERATOR(pg_catalog.=) 1 THEN pgbench_lab.fmt(top, 0) WHEN k OPERATOR(pg_catalog.=) 5 THEN '0' ELSE '' END, 8),
                           bars[k]);
    END LOOP;
    RETURN QUERY SELECT axis OPERATOR(pg_catalog.||) '└' OPERATOR(pg_catalog.||) pg_catalog.repeat('─', pg_catalog.cardinality(tps));
    RETURN QUERY SELECT axis OPERATOR(pg_catalog.||) ' ' OPERATOR(pg_catalog.||) CASE WHEN pg_catalog.cardinality(tps) OPERATOR(pg_catalog.>) 8
        THEN pg_catalog.rpad('1 s', pg_catalog.cardinality(tps) OPERATOR(pg_catalog.-) pg_catalog.length(last OPERATOR(pg_catalog.||) ' s')) OPERATOR(pg_catalog.||) last OPERATOR(pg_catalog.||) ' s' ELSE '1 s' END;
    RETURN QUERY SELECT 'Buffer hit ratio per second (▁ = 0 %, █ = 100 %)';
    RETURN QUERY SELECT pg_catalog.format('%s │%s', pg_catalog.lpad('hit', 8), pgbench_lab.spark(hits, 0, 1));
END
$$;

-- Plain words on what the figures of a run need care with.
CREATE FUNCTION pgbench_lab.run_notes(r pgbench_lab.runs)
RETURNS SETOF text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    ct pg_catalog.interval;
    first_hit pg_catalog.float8;
BEGIN
    RETURN QUERY SELECT 'In-server figures: the clients are background workers inside the server, so there are no network round trips and no client CPU in the way; pgbench over a network will report less.';
    IF r.workload OPERATOR(pg_catalog.=) 'tpcb-like' AND r.scale OPERATOR(pg_catalog.<) r.clients THEN
        RETURN QUERY SELECT pg_catalog.format('Scale %s is below %s clients: every tpcb-like transaction updates one of only %s pgbench_branches rows, so clients queue on those row locks (branch-row contention) and the figures measure that more than the server. Use a scale of at least the client count.',
                           r.scale, r.clients, r.scale);
    END IF;
    ct := CASE WHEN pgbench_lab.reads_as(r.settings OPERATOR(pg_catalog.->) 'server' OPERATOR(pg_catalog.->>) 'checkpoint_timeout', 'interval')
               THEN (r.settings OPERATOR(pg_catalog.->) 'server' OPERATOR(pg_catalog.->>) 'checkpoint_timeout')::interval END;
    IF r.measured_seconds OPERATOR(pg_catalog.<) extract(epoch FROM ct) THEN
        RETURN QUERY SELECT pg_catalog.format('The run (%s s) is shorter than checkpoint_timeout (%s): a steady state includes checkpoints and their full-page writes, so a longer run can show lower TPS.',
                           pgbench_lab.fmt(r.measured_seconds), r.settings OPERATOR(pg_catalog.->) 'server' OPERATOR(pg_catalog.->>) 'checkpoint_timeout');
    END IF;
    IF r.checkpoints OPERATOR(pg_catalog.>) 0 THEN
        RETURN QUERY SELECT pg_catalog.format('%s checkpoint(s) happened during the run: their writes are inside the measured interval.', r.checkpoints);
    END IF;
    SELECT p.hit_ratio INTO first_hit FROM pgbench_lab.run_progress p
     WHERE p.run_id OPERATOR(pg_catalog.=) r.run_id ORDER BY p.second LIMIT 1;
    IF first_hit OPERATOR(pg_catalog.<) 0.9 THEN
        RETURN QUERY SELECT pg_catalog.format('Cold cache at the start: the buffer hit ratio in the first second was %s %% (%s %% over the whole run), so the first seconds waited for reads. Warm the cache first or run longer to measure the steady state.',
                           pgbench_lab.fmt(first_hit OPERATOR(pg_catalog.*) 100), pgbench_lab.fmt(r.hit_ratio OPERATOR(pg_catalog.*) 100));
    END IF;
    IF r.failures OPERATOR(pg_catalog.>) 0 THEN
        RETURN QUERY SELECT pg_catalog.format('%s transaction(s) failed (serialisation or deadlock, after %s tries); TPS counts committed transactions only.',
                           r.failures, r.max_tries);
    END IF;
    IF r.status OPERATOR(pg_catalog.=) 'running' THEN
        RETURN QUERY SELECT 'The run is still going: the figures so far are partial.'::pg_catalog.text;
    ELSIF r.status OPERATOR(pg_catalog.<>) 'done' THEN
        RETURN QUERY SELECT pg_catalog.format('The run ended %s%s: its figures cover only what it measured until then.',
                           r.status, coalesce(' (' OPERATOR(pg_catalog.||) r.error OPERATOR(pg_catalog.||) ')', ''));
    END IF;
END
$$;

CREATE FUNCTION pgbench_lab.report_run(run_id bigint)
RETURNS SETOF text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    r pgbench_lab.runs;
    srv pg_catalog.jsonb;
BEGIN
    SELECT * INTO r FROM pgbench_lab.runs x WHERE x.run_id OPERATOR(pg_catalog.=) report_run.run_id;
    srv := coalesce(r.settings OPERATOR(pg_catalog.->) 'server', '{}');
    RETURN QUERY SELECT pg_catalog.format('Run %s: %s, %s, %s', r.run_id, r.workload, pgbench_lab.clients_text(r.clients),
                       coalesce(pgbench_lab.seconds_text(r.duration),
                                r.transactions_per_client OPERATOR(pg_catalog.||) ' transactions per client'));
    IF r.label IS NOT NULL THEN
        RETURN QUERY SELECT 'label: ' OPERATOR(pg_catalog.||) r.label;
    END IF;
    RETURN QUERY SELECT pg_catalog.format('status %s, started %s, measured %s s', r.status,
                       pg_catalog.to_char(r.started_at, 'YYYY-MM-DD HH24:MI:SS TZ'), pgbench_lab.fmt(r.measured_seconds));
    IF r.source_server IS NOT NULL THEN
        RETURN QUERY SELECT pg_catalog.format('imported from %s, where it was run %s', r.source_server, r.source_run_id);
    END IF;
    RETURN QUERY SELECT pg_catalog.format('server: PostgreSQL %s, shared_buffers %s, max_wal_size %s, checkpoint_timeout %s, synchronous_commit %s',
                       coalesce(srv OPERATOR(pg_catalog.->>) 'server_version', '-'), coalesce(srv OPERATOR(pg_catalog.->>) 'shared_buffers', '-'),
                       coalesce(srv OPERATOR(pg_catalog.->>) 'max_wal_size', '-'), coalesce(srv OPERATOR(pg_catalog.->>) 'checkpoint_timeout', '-'),
                       coalesce(srv OPERATOR(pg_catalog.->>) 'synchronous_commit', '-'));
    RETURN QUERY SELECT pg_catalog.format('scale %s, max tries %s, random seed %s, session settings: %s',
                       coalesce(r.scale::pg_catalog.text, '-'), r.max_tries, coalesce(r.random_seed::pg_catalog.text, '-'),
                       pgbench_lab.settings_text(r.settings OPERATOR(pg_catalog.->) 'session'));
    RETURN QUERY SELECT '';
    RETURN QUERY SELECT 'Figures (in-server: no network round trips)';
    RETURN QUERY SELECT pg_catalog.format('  transactions  %s   failures %s   retries %s', coalesce(r.transactions::pg_catalog.text, '-'),
                       coalesce(r.failures::pg_catalog.text, '-'), coalesce(r.retries::pg_catalog.text, '-'));
    RETURN QUERY SELECT pg_catalog.format('  TPS           %s', pgbench_lab.fmt(r.tps));
    RETURN QUERY SELECT pg_catalog.format('  latency (ms)  avg %s   stddev %s', pgbench_lab.fmt(r.latency_avg_ms, 3),
                       pgbench_lab.fmt(r.latency_stddev_ms, 3));
    RETURN QUERY SELECT pg_catalog.format('                p50 %s   p90 %s   p95 %s   p99 %s   max %s',
                       pgbench_lab.fmt(r.latency_p50_ms, 3), pgbench_lab.fmt(r.latency_p90_ms, 3),
                       pgbench_lab.fmt(r.latency_p95_ms, 3), pgbench_lab.fmt(r.latency_p99_ms, 3),
                       pgbench_lab.fmt(r.latency_max_ms, 3));
    RETURN QUERY SELECT pg_catalog.format('  buffers       hit ratio %s %% (%s hits, %s reads)', pgbench_lab.fmt(r.hit_ratio OPERATOR(pg_catalog.*) 100, 2),
                       coalesce(r.blks_hit::pg_catalog.text, '-'), coalesce(r.blks_read::pg_catalog.text, '-'));
    RETURN QUERY SELECT pg_catalog.format('  WAL written   %s, checkpoints during the run: %s',
                       coalesce(pg_catalog.pg_size_pretty(r.wal_bytes), '-'), coalesce(r.checkpoints::pg_catalog.text, '-'));
    RETURN QUERY SELECT '';
    RETURN QUERY SELECT pgbench_lab.run_charts(r.run_id);
    RETURN QUERY SELECT '';
    RETURN QUERY SELECT 'Notes';
    RETURN QUERY SELECT x.w FROM pgbench_lab.run_notes(r) WITH ORDINALITY AS n(t, i),
                                 pgbench_lab.wrap(n.t, '  - ') WITH ORDINALITY AS x(w, j)
                        ORDER BY n.i, x.j;
END
$$;

CREATE FUNCTION pgbench_lab.report_sweep(experiment_id bigint)
RETURNS SETOF text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    top pg_catalog.float8;
    v pg_catalog.record;
BEGIN
    RETURN QUERY SELECT pg_catalog.format('  %7s  %8s  %10s  %7s  %12s  %7s  %10s', 'clients', 'run', 'TPS', 'change',
                       'lat avg ms', 'change', 'p99 ms');
    RETURN QUERY
        SELECT pg_catalog.rtrim(pg_catalog.format('  %7s  %8s  %10s  %7s  %12s  %7s  %10s  %s', s.clients, s.run_id,
                            pgbench_lab.fmt(s.tps), s.tps_change, pgbench_lab.fmt(s.latency_avg_ms, 3),
                            s.latency_change, pgbench_lab.fmt(s.latency_p99_ms, 3), coalesce(s.mark, '')))
          FROM pgbench_lab.sweep_summary(experiment_id) s;
    SELECT pg_catalog.max(s.tps) INTO top FROM pgbench_lab.sweep_summary(experiment_id) s;
    RETURN QUERY SELECT '';
    RETURN QUERY SELECT 'TPS by clients';
    RETURN QUERY
        SELECT pg_catalog.format('  %7s │%s %s', s.clients, pg_catalog.rpad(pgbench_lab.hbar(s.tps, top, 40), 40), pgbench_lab.fmt(s.tps))
          FROM pgbench_lab.sweep_summary(experiment_id) s;
    RETURN QUERY SELECT '';
    RETURN QUERY
        SELECT x.w FROM (SELECT pg_catalog.min(r.scale) AS scale, pg_catalog.min(r.clients) FILTER (WHERE r.clients OPERATOR(pg_catalog.>) r.scale) AS c
                           FROM pgbench_lab.experiment_runs e JOIN pgbench_lab.runs r ON r.run_id OPERATOR(pg_catalog.=) e.run_id
                          WHERE e.experiment_id OPERATOR(pg_catalog.=) report_sweep.experiment_id AND r.workload OPERATOR(pg_catalog.=) 'tpcb-like') s,
                        pgbench_lab.wrap(pg_catalog.format('Note: from %s clients on, the clients outnumber the %s pgbench_branches rows (scale %s): branch-row lock contention caps tpcb-like TPS there, so the peak and the knee may be the lock''s rather than the server''s. Initialise with a scale of at least the largest client count.',
                                                s.c, s.scale, s.scale), '') WITH ORDINALITY AS x(w, j)
         WHERE s.c IS NOT NULL
         ORDER BY x.j;
    SELECT * INTO v FROM pgbench_lab.sweep_verdict(experiment_id);
    RETURN QUERY SELECT x.w FROM pg_catalog.regexp_split_to_table(v.finding, '(?<=\.) (?=Knee)') WITH ORDINALITY AS f(t, i),
                                 pgbench_lab.wrap(f.t, '') WITH ORDINALITY AS x(w, j)
                        ORDER BY f.i, x.j;
END
$$;

CREATE FUNCTION pgbench_lab.report_settings(experiment_id bigint)
RETURNS SETOF text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    sets pg_catalog.jsonb;
BEGIN
    SELECT e.params OPERATOR(pg_catalog.->) 'settings' INTO sets FROM pgbench_lab.experiments e
     WHERE e.experiment_id OPERATOR(pg_catalog.=) report_settings.experiment_id;
    RETURN QUERY SELECT 'Settings sets';
    RETURN QUERY SELECT pg_catalog.format('  %s: %s', pg_catalog.chr(64 OPERATOR(pg_catalog.+) i::integer), pgbench_lab.settings_text(s))
                   FROM pg_catalog.jsonb_array_elements(sets) WITH ORDINALITY AS a(s, i);
    RETURN QUERY SELECT '';
    RETURN QUERY SELECT 'TPS per round (the sets run interleaved within each round)';
    RETURN QUERY SELECT pg_catalog.format('  %5s', 'round') OPERATOR(pg_catalog.||) (SELECT pg_catalog.string_agg(pg_catalog.format('  %10s', pg_catalog.chr(64 OPERATOR(pg_catalog.+) i::integer)), '' ORDER BY i)
                                              FROM pg_catalog.jsonb_array_elements(sets) WITH ORDINALITY AS a(s, i));
    RETURN QUERY
        SELECT pg_catalog.format('  %5s', x.round) OPERATOR(pg_catalog.||) pg_catalog.string_agg(pg_catalog.format('  %10s', CASE WHEN r.status OPERATOR(pg_catalog.=) 'done'
                      THEN pgbench_lab.fmt(r.tps) ELSE r.status END), '' ORDER BY x.variant)
          FROM pgbench_lab.experiment_runs x JOIN pgbench_lab.runs r ON r.run_id OPERATOR(pg_catalog.=) x.run_id
         WHERE x.experiment_id OPERATOR(pg_catalog.=) report_settings.experiment_id
         GROUP BY x.round ORDER BY x.round;
    RETURN QUERY SELECT '';
    RETURN QUERY SELECT pg_catalog.format('  %3s  %10s  %10s  %10s  %12s  %s', 'set', 'median TPS', 'min', 'max',
                       'lat avg ms', 'TPS ratio to A: median (min - max)');
    RETURN QUERY
        SELECT pg_catalog.format('  %3s  %10s  %10s  %10s  %12s  ×%s (×%s - ×%s)', s.name, pgbench_lab.fmt(s.tps_median),
                      pgbench_lab.fmt(s.tps_min), pgbench_lab.fmt(s.tps_max),
                      pgbench_lab.fmt(s.latency_avg_ms_median, 3), pgbench_lab.fmt(s.ratio_median, 3),
                      pgbench_lab.fmt(s.ratio_min, 3), pgbench_lab.fmt(s.ratio_max, 3))
          FROM pgbench_lab.settings_ratios(experiment_id) s;
    RETURN QUERY SELECT '';
    RETURN QUERY SELECT pgbench_lab.wrap(pgbench_lab.settings_finding(experiment_id), '');
END
$$;

CREATE FUNCTION pgbench_lab.report_experiment(experiment_id bigint)
RETURNS SETOF text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    e pgbench_lab.experiments;
    n pg_catalog.int4;
    stopped pg_catalog.bool;
BEGIN
    SELECT * INTO e FROM pgbench_lab.experiments x WHERE x.experiment_id OPERATOR(pg_catalog.=) report_experiment.experiment_id;
    stopped := pgbench_lab.experiment_stopped(e);
    SELECT pg_catalog.count(*) INTO n FROM pgbench_lab.experiment_runs x WHERE x.experiment_id OPERATOR(pg_catalog.=) e.experiment_id;
    RETURN QUERY SELECT pg_catalog.format('Experiment %s: %s of %s, %s per run%s', e.experiment_id,
                       pg_catalog.replace(e.kind, '_', ' '), e.workload,
                       CASE WHEN pgbench_lab.reads_as(e.params OPERATOR(pg_catalog.->>) 'duration', 'interval')
                            THEN pgbench_lab.seconds_text((e.params OPERATOR(pg_catalog.->>) 'duration')::interval) ELSE '-' END,
                       CASE WHEN e.kind OPERATOR(pg_catalog.=) 'sweep' THEN ', clients ' OPERATOR(pg_catalog.||) (SELECT pg_catalog.string_agg(c, ', ')
                                                    FROM pg_catalog.jsonb_array_elements_text(e.params OPERATOR(pg_catalog.->) 'clients') c)
                            WHEN e.kind OPERATOR(pg_catalog.=) 'cold_vs_warm' THEN ', ' OPERATOR(pg_catalog.||) pgbench_lab.clients_text((e.params OPERATOR(pg_catalog.->>) 'clients')::integer)
                            ELSE pg_catalog.format(', %s%s', pgbench_lab.clients_text((e.params OPERATOR(pg_catalog.->>) 'clients')::integer),
                                        coalesce(', ' OPERATOR(pg_catalog.||) (e.params OPERATOR(pg_catalog.->>) 'rounds') OPERATOR(pg_catalog.||) ' round(s)', '')) END);
    IF e.label IS NOT NULL THEN
        RETURN QUERY SELECT 'label: ' OPERATOR(pg_catalog.||) e.label;
    END IF;
    RETURN QUERY SELECT pg_catalog.format('status %s, started %s, %s run(s)%s',
                       CASE WHEN stopped THEN 'aborted' ELSE e.status END,
                       pg_catalog.to_char(e.started_at, 'YYYY-MM-DD HH24:MI:SS TZ'), n,
                       CASE WHEN stopped OR e.status OPERATOR(pg_catalog.=) 'aborted'
                            THEN ' (its procedure stopped before the end: an error, a cancel or a lost session)'
                            WHEN e.status OPERATOR(pg_catalog.=) 'running' THEN ' (still going)' ELSE '' END);
    IF e.source_server IS NOT NULL THEN
        RETURN QUERY SELECT pg_catalog.format('imported from %s, where it was experiment %s', e.source_server, e.source_experiment_id);
    END IF;
    IF e.kind OPERATOR(pg_catalog.=) 'sweep' THEN
        RETURN QUERY SELECT 'session settings: ' OPERATOR(pg_catalog.||) pgbench_lab.settings_text(e.params OPERATOR(pg_catalog.->) 'settings');
    END IF;
    IF e.kind OPERATOR(pg_catalog.=) 'connection_cost' THEN
        RETURN QUERY SELECT 'Variant 1 is in-server (no network round trips); 2 and 3 go through libpq.';
    ELSE
        RETURN QUERY SELECT 'Figures are in-server: no network round trips.';
    END IF;
    RETURN QUERY SELECT '';
    IF e.kind OPERATOR(pg_catalog.=) 'sweep' THEN
        RETURN QUERY SELECT pgbench_lab.report_sweep(e.experiment_id);
    ELSIF e.kind OPERATOR(pg_catalog.=) 'cold_vs_warm' THEN
        RETURN QUERY SELECT pgbench_lab.report_cold_vs_warm(e.experiment_id);
    ELSE
        RETURN QUERY SELECT pgbench_lab.report_settings(e.experiment_id);
    END IF;
    RETURN QUERY
        SELECT pg_catalog.format('Run %s did not finish: %s%s', r.run_id, r.status, coalesce(' (' OPERATOR(pg_catalog.||) r.error OPERATOR(pg_catalog.||) ')', ''))
          FROM pgbench_lab.experiment_runs x JOIN pgbench_lab.runs r ON r.run_id OPERATOR(pg_catalog.=) x.run_id
         WHERE x.experiment_id OPERATOR(pg_catalog.=) e.experiment_id AND r.status OPERATOR(pg_catalog.<>) 'done'
         ORDER BY x.ordinal;
    RETURN QUERY SELECT 'Each run in detail: SELECT * FROM pgbench_lab.report(run_id);';
END
$$;

CREATE FUNCTION pgbench_lab.report(id bigint)
RETURNS SETOF text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF id IS NULL THEN
        RAISE EXCEPTION 'id must not be null'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Pass a run_id from pgbench_lab.runs or an experiment_id from pgbench_lab.experiments.';
    END IF;
    PERFORM pgbench_lab.check_ids(ARRAY[id], true);
    -- every line through printable(): labels, errors, settings and server
    -- names may hold control characters (an imported document's, say)
    IF EXISTS (SELECT FROM pgbench_lab.runs r WHERE r.run_id OPERATOR(pg_catalog.=) id) THEN
        RETURN QUERY SELECT pgbench_lab.printable(l) FROM pgbench_lab.report_run(id) AS l;
    ELSE
        RETURN QUERY SELECT pgbench_lab.printable(l) FROM pgbench_lab.report_experiment(id) AS l;
    END IF;
END
$$;
COMMENT ON FUNCTION pgbench_lab.report(bigint) IS
    'A readable report of a run or an experiment: figures, charts and notes (one line per row)';

-- Runs side by side in the order given, with ratios to the first (in
-- numeric: any two figures have a ratio).  Text columns are printable().
CREATE FUNCTION pgbench_lab.compare(run_ids bigint[])
RETURNS TABLE (run_id bigint, label text, server text, workload text, clients integer,
               scale integer, status text, seconds numeric, tps numeric, tps_ratio numeric,
               latency_avg_ms numeric, latency_avg_ratio numeric, latency_p99_ms numeric,
               latency_p99_ratio numeric, hit_ratio_pct numeric, session_settings text,
               server_differences text)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM pgbench_lab.check_ids(run_ids, false);
    RETURN QUERY
    WITH l AS (
        SELECT r.*, u.n FROM pg_catalog.unnest(run_ids) WITH ORDINALITY AS u(id, n)
          JOIN pgbench_lab.runs r ON r.run_id OPERATOR(pg_catalog.=) u.id),
    f AS (SELECT * FROM l WHERE l.n OPERATOR(pg_catalog.=) 1)
    SELECT l.run_id, pgbench_lab.printable(l.label), pgbench_lab.printable(coalesce(l.source_server, 'here')),
           pgbench_lab.printable(l.workload), l.clients, l.scale,
           l.status, pg_catalog.round(l.measured_seconds::numeric, 1), pg_catalog.round(l.tps::numeric, 1),
           pg_catalog.round(l.tps::numeric OPERATOR(pg_catalog./) (CASE WHEN f.tps OPERATOR(pg_catalog.<>) 0 THEN f.tps END)::numeric, 3), pg_catalog.round(l.latency_avg_ms::numeric, 3),
           pg_catalog.round(l.latency_avg_ms::numeric OPERATOR(pg_catalog./)
                            (CASE WHEN f.latency_avg_ms OPERATOR(pg_catalog.<>) 0 THEN f.latency_avg_ms END)::numeric, 3),
           pg_catalog.round(l.latency_p99_ms::numeric, 3),
           pg_catalog.round(l.latency_p99_ms::numeric OPERATOR(pg_catalog./)
                            (CASE WHEN f.latency_p99_ms OPERATOR(pg_catalog.<>) 0 THEN f.latency_p99_ms END)::numeric, 3),
           pg_catalog.round(l.hit_ratio::numeric OPERATOR(pg_catalog.*) 100, 2),
           pgbench_lab.settings_text(l.settings OPERATOR(pg_catalog.->) 'session'),
           (SELECT pgbench_lab.printable(coalesce(pg_catalog.string_agg(a.key OPERATOR(pg_catalog.||) '=' OPERATOR(pg_catalog.||) a.value, ', ' ORDER BY a.key), ''))
              FROM pg_catalog.jsonb_each_text(coalesce(l.settings OPERATOR(pg_catalog.->) 'server', '{}')) a
             WHERE CASE WHEN (f.settings OPERATOR(pg_catalog.->) 'server' OPERATOR(pg_catalog.->>) a.key) IS NULL
                        THEN a.value IS NOT NULL
                        WHEN a.value IS NULL THEN true
                        ELSE (f.settings OPERATOR(pg_catalog.->) 'server' OPERATOR(pg_catalog.->>) a.key)
                             OPERATOR(pg_catalog.<>) a.value END)
      FROM l CROSS JOIN f
     ORDER BY l.n;
END
$$;
COMMENT ON FUNCTION pgbench_lab.compare(bigint[]) IS
    'Runs side by side in the order given, with ratios to the first and the server settings that differ';

-- ---------------------------------------------------------------------------
-- Plots: SVG documents (text) with axes, units and a legend.
-- ---------------------------------------------------------------------------

-- Text for an SVG document: printable() (XML 1.0 cannot hold control
-- characters, even as references), then the XML metacharacters escaped.
CREATE FUNCTION pgbench_lab.svg_escape(s text)
RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pg_catalog.replace(pg_catalog.replace(pg_catalog.replace(pg_catalog.replace(pgbench_lab.printable(s), '&', '&amp;'), '<', '&lt;'), '>', '&gt;'),
                   '"', '&quot;')
$$;

-- A number as SVG and tick labels want it: no trailing zeros.
CREATE FUNCTION pgbench_lab.svg_num(x double precision, digits integer DEFAULT 1)
RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT pg_catalog.trim_scale(pg_catalog.round(x::numeric, digits))::pg_catalog.text $$;

-- The top of an axis from 0 that holds hi, in steps of 1, 2 or 5 x 10^k,
-- about five ticks: returns {top, step}.  At least 0.00001.
CREATE FUNCTION pgbench_lab.svg_axis(hi double precision)
RETURNS double precision[] LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    raw pg_catalog.float8;
    mag pg_catalog.float8;
    step pg_catalog.float8;
BEGIN
    IF hi IS NULL OR hi OPERATOR(pg_catalog.<=) 0 THEN
        hi := 1;
    END IF;
    -- the tick labels have six decimals: a smaller axis would read 0 at
    -- every tick (and hi / 5 can underflow)
    hi := greatest(hi, 1e-5);
    raw := hi OPERATOR(pg_catalog./) 5;
    mag := pg_catalog.power(10, pg_catalog.floor(pg_catalog.log(raw)));
    step := mag OPERATOR(pg_catalog.*) CASE WHEN raw OPERATOR(pg_catalog./) mag OPERATOR(pg_catalog.<=) 1 THEN 1 WHEN raw OPERATOR(pg_catalog./) mag OPERATOR(pg_catalog.<=) 2 THEN 2
                       WHEN raw OPERATOR(pg_catalog./) mag OPERATOR(pg_catalog.<=) 5 THEN 5 ELSE 10 END;
    RETURN ARRAY[pg_catalog.ceil(hi OPERATOR(pg_catalog./) step OPERATOR(pg_catalog.-) 1e-9) OPERATOR(pg_catalog.*) step, step];
END
$$;

-- The plot area is fixed: x from 80 to x1 (730, or 680 with a right
-- axis), y from 340 (zero) up to 50; an axis is {top, step}.  In numeric,
-- like the bars above.
CREATE FUNCTION pgbench_lab.svg_x(v double precision, xa double precision[], x1 integer)
RETURNS text LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pg_catalog.trim_scale(pg_catalog.round(80 OPERATOR(pg_catalog.+)
        ((v::numeric OPERATOR(pg_catalog./) xa[1]::numeric) OPERATOR(pg_catalog.*) (x1 OPERATOR(pg_catalog.-) 80)),
        1))::pg_catalog.text
$$;

CREATE FUNCTION pgbench_lab.svg_y(v double precision, ya double precision[], shift integer DEFAULT 0)
RETURNS text LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pg_catalog.trim_scale(pg_catalog.round((340 OPERATOR(pg_catalog.-)
        ((v::numeric OPERATOR(pg_catalog./) ya[1]::numeric) OPERATOR(pg_catalog.*) 290)) OPERATOR(pg_catalog.+) shift,
        1))::pg_catalog.text
$$;

-- The largest value under key ('x' or 'y') of the series on an axis (any
-- axis when axis is NULL).
CREATE FUNCTION pgbench_lab.svg_max(series jsonb, key text, axis text)
RETURNS double precision LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pg_catalog.max(v::pg_catalog.float8) FROM pg_catalog.jsonb_array_elements(series) e, pg_catalog.jsonb_array_elements_text(e OPERATOR(pg_catalog.->) key) v
     WHERE v IS NOT NULL AND (axis IS NULL OR coalesce(e OPERATOR(pg_catalog.->>) 'axis', '1') OPERATOR(pg_catalog.=) axis)
$$;

-- Grid lines and tick labels of both axes, and of the right axis if any.
CREATE FUNCTION pgbench_lab.svg_grid(xa double precision[], ya double precision[],
                                     y2a double precision[], x1 integer)
RETURNS text LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT (SELECT pg_catalog.string_agg(pg_catalog.format('<line x1="80" y1="%s" x2="%s" y2="%s" stroke="#e0e0e0"/><text x="74" y="%s" text-anchor="end">%s</text>',
                                     pgbench_lab.svg_y(t, ya), x1, pgbench_lab.svg_y(t, ya),
                                     pgbench_lab.svg_y(t, ya, 4), pgbench_lab.svg_num(t, 6)), E'\n' ORDER BY t)
              FROM pg_catalog.generate_series(0, pg_catalog.round(ya[1] OPERATOR(pg_catalog./) ya[2])::integer) k, LATERAL (SELECT k OPERATOR(pg_catalog.*) ya[2] AS t) v)
        OPERATOR(pg_catalog.||) E'\n'
        OPERATOR(pg_catalog.||) (SELECT pg_catalog.string_agg(pg_catalog.format('<line x1="%s" y1="50" x2="%s" y2="340" stroke="#e0e0e0"/><text x="%s" y="358" text-anchor="middle">%s</text>',
                                     pgbench_lab.svg_x(t, xa, x1), pgbench_lab.svg_x(t, xa, x1),
                                     pgbench_lab.svg_x(t, xa, x1), pgbench_lab.svg_num(t, 6)), E'\n' ORDER BY t)
              FROM pg_catalog.generate_series(0, pg_catalog.round(xa[1] OPERATOR(pg_catalog./) xa[2])::integer) k, LATERAL (SELECT k OPERATOR(pg_catalog.*) xa[2] AS t) v)
        OPERATOR(pg_catalog.||) E'\n'
        OPERATOR(pg_catalog.||) coalesce((SELECT pg_catalog.string_agg(pg_catalog.format('<text x="%s" y="%s" text-anchor="start">%s</text>', x1 OPERATOR(pg_catalog.+) 6,
                                              pgbench_lab.svg_y(t, y2a, 4), pgbench_lab.svg_num(t, 6)), E'\n' ORDER BY t)
                       FROM pg_catalog.generate_series(0, pg_catalog.round(y2a[1] OPERATOR(pg_catalog./) y2a[2])::integer) k, LATERAL (SELECT k OPERATOR(pg_catalog.*) y2a[2] AS t) v)
                    OPERATOR(pg_catalog.||) E'\n', '')
$$;

-- One series: a polyline (dashed on the right axis) and, if asked, dots.
CREATE FUNCTION pgbench_lab.svg_curve(s jsonb, xa double precision[], ax double precision[],
                                      color text, x1 integer)
RETURNS text LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH p AS (
        SELECT k, pgbench_lab.svg_x(x::pg_catalog.float8, xa, x1) AS px, pgbench_lab.svg_y(y::pg_catalog.float8, ax) AS py
          FROM pg_catalog.jsonb_array_elements_text(s OPERATOR(pg_catalog.->) 'x') WITH ORDINALITY AS a(x, k)
          JOIN pg_catalog.jsonb_array_elements_text(s OPERATOR(pg_catalog.->) 'y') WITH ORDINALITY AS b(y, k2) ON k OPERATOR(pg_catalog.=) k2
         WHERE y IS NOT NULL)
    SELECT pg_catalog.format('<polyline fill="none" stroke="%s" stroke-width="2"%s points="%s"/>', color,
                  CASE WHEN s OPERATOR(pg_catalog.->>) 'axis' OPERATOR(pg_catalog.=) '2' THEN ' stroke-dasharray="6 4"' ELSE '' END,
                  (SELECT coalesce(pg_catalog.string_agg(px OPERATOR(pg_catalog.||) ',' OPERATOR(pg_catalog.||) py, ' ' ORDER BY k), '') FROM p)) OPERATOR(pg_catalog.||) E'\n'
        OPERATOR(pg_catalog.||) CASE WHEN (s OPERATOR(pg_catalog.->>) 'points')::boolean
                THEN (SELECT coalesce(pg_catalog.string_agg(pg_catalog.format('<circle cx="%s" cy="%s" r="3.5" fill="%s"/>', px, py, color),
                                                 '' ORDER BY k), '') FROM p) OPERATOR(pg_catalog.||) E'\n'
                ELSE '' END
$$;

-- series: [{"label", "x": [..], "y": [..], "axis": 1|2, "color": n, "points": bool}]
-- Axes start at zero and end at a round value; the legend lists the
-- series below the x axis, one per line.  notes: lines written at the top
-- left of the plot area (what could not be drawn, and why).
CREATE FUNCTION pgbench_lab.svg_chart(title text, x_title text, y_title text, y2_title text, series jsonb,
                                      notes text[] DEFAULT NULL)
RETURNS text LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    colors CONSTANT pg_catalog.text[] := ARRAY['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd',
                                    '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf'];
    h pg_catalog.int4 := 430 OPERATOR(pg_catalog.+) (20 OPERATOR(pg_catalog.*) pg_catalog.jsonb_array_length(series));
    x1 pg_catalog.int4 := CASE WHEN y2_title IS NULL THEN 730 ELSE 680 END;
    xa pg_catalog.float8[] := pgbench_lab.svg_axis(pgbench_lab.svg_max(series, 'x', NULL));
    ya pg_catalog.float8[] := pgbench_lab.svg_axis(pgbench_lab.svg_max(series, 'y', '1'));
    y2a pg_catalog.float8[] := CASE WHEN y2_title IS NOT NULL
                                   THEN pgbench_lab.svg_axis(pgbench_lab.svg_max(series, 'y', '2')) END;
    out pg_catalog.text;
    s pg_catalog.jsonb;
    i pg_catalog.int4 := 0;
    c pg_catalog.text;
BEGIN
    out := pg_catalog.format('<svg xmlns="http://www.w3.org/2000/svg" width="760" height="%s" viewBox="0 0 760 %s" font-family="DejaVu Sans, Arial, sans-serif" font-size="12">',
                  h, h) OPERATOR(pg_catalog.||) E'\n'
        OPERATOR(pg_catalog.||) pg_catalog.format('<rect x="0" y="0" width="760" height="%s" fill="#ffffff"/>', h) OPERATOR(pg_catalog.||) E'\n'
        OPERATOR(pg_catalog.||) pg_catalog.format('<text x="380" y="28" text-anchor="middle" font-size="16">%s</text>',
                  pgbench_lab.svg_escape(title)) OPERATOR(pg_catalog.||) E'\n'
        OPERATOR(pg_catalog.||) pgbench_lab.svg_grid(xa, ya, y2a, x1);
    IF y2_title IS NOT NULL THEN
        out := out OPERATOR(pg_catalog.||) pg_catalog.format('<line x1="%s" y1="340" x2="%s" y2="50" stroke="#000000"/>', x1, x1) OPERATOR(pg_catalog.||) E'\n'
            OPERATOR(pg_catalog.||) pg_catalog.format('<text transform="translate(%s 195) rotate(90)" text-anchor="middle">%s</text>',
                      x1 OPERATOR(pg_catalog.+) 55, pgbench_lab.svg_escape(y2_title)) OPERATOR(pg_catalog.||) E'\n';
    END IF;
    out := out OPERATOR(pg_catalog.||) pg_catalog.format('<line x1="80" y1="340" x2="%s" y2="340" stroke="#000000"/>', x1) OPERATOR(pg_catalog.||) E'\n'
        OPERATOR(pg_catalog.||) '<line x1="80" y1="340" x2="80" y2="50" stroke="#000000"/>' OPERATOR(pg_catalog.||) E'\n'
        OPERATOR(pg_catalog.||) pg_catalog.format('<text x="%s" y="380" text-anchor="middle">%s</text>', (80 OPERATOR(pg_catalog.+) x1) OPERATOR(pg_catalog./) 2,
                  pgbench_lab.svg_escape(x_title)) OPERATOR(pg_catalog.||) E'\n'
        OPERATOR(pg_catalog.||) pg_catalog.format('<text transform="translate(22 195) rotate(-90)" text-anchor="middle">%s</text>',
                  pgbench_lab.svg_escape(y_title)) OPERATOR(pg_catalog.||) E'\n';
    FOR s IN SELECT value FROM pg_catalog.jsonb_array_elements(series) LOOP
        c := (colors)[1 OPERATOR(pg_catalog.+) (COALESCE(CAST(s OPERATOR(pg_catalog.->>) 'color' AS integer), i) OPERATOR(pg_catalog.%) 10)];
        out := out OPERATOR(pg_catalog.||) pgbench_lab.svg_curve(s
                                  , xa
                                  , CASE
                                      WHEN (s OPERATOR(pg_catalog.->>) 'axis') OPERATOR(pg_catalog.=) '2' THEN y2a
                                      ELSE ya
                                    END
                                  , c
                                  , x1) OPERATOR(pg_catalog.||) pg_catalog.format('<line x1="80" y1="%s" x2="110" y2="%s" stroke="%s" stroke-width="2"%s/><text x="118" y="%s">%s</text>'
                                                , 410 OPERATOR(pg_catalog.+) (20 OPERATOR(pg_catalog.*) i)
                                                , 410 OPERATOR(pg_catalog.+) (20 OPERATOR(pg_catalog.*) i)
                                                , c
                                                , CASE
                                                    WHEN (s OPERATOR(pg_catalog.->>) 'axis') OPERATOR(pg_catalog.=) '2'
                                                      THEN ' stroke-dasharray="6 4"'
                                                    ELSE ''
                                                  END
                                                , 414 OPERATOR(pg_catalog.+) (20 OPERATOR(pg_catalog.*) i)
                                                , pgbench_lab.svg_escape(s OPERATOR(pg_catalog.->>) 'label')) OPERATOR(pg_catalog.||) '
';
        i := i OPERATOR(pg_catalog.+) 1;
    END LOOP;
    out := out OPERATOR(pg_catalog.||) COALESCE((SELECT pg_catalog.string_agg(pg_catalog.format('<text x="90" y="%s" fill="#555555">%s</text>'
                                               , 70 OPERATOR(pg_catalog.+) (18 OPERATOR(pg_catalog.*) (k OPERATOR(pg_catalog.-) 1))
                                               , pgbench_lab.svg_escape(t))
                                        , '
' ORDER BY k)
                        FROM pg_catalog.unnest(notes) WITH ORDINALITY AS n (t, k)) OPERATOR(pg_catalog.||) '
'
                     , '');
    RETURN out OPERATOR(pg_catalog.||) '</svg>' OPERATOR(pg_catalog.||) E'\n';
END
$$;

-- Why an experiment's runs give nothing to draw: no runs, or none done
-- with a TPS above zero (each status counted).
CREATE FUNCTION pgbench_lab.undrawn_runs(experiment_id bigint)
RETURNS text LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN pg_catalog.sum(c.n) IS NULL THEN 'it has no runs'
                ELSE pg_catalog.format('none of its %s run(s) ended done with a TPS above zero (%s)', pg_catalog.sum(c.n),
                            pg_catalog.string_agg(c.n OPERATOR(pg_catalog.||) ' ' OPERATOR(pg_catalog.||) c.status, ', ' ORDER BY c.status)) END
      FROM (SELECT CASE WHEN r.status OPERATOR(pg_catalog.=) 'done' THEN 'done without TPS' ELSE r.status END AS status,
                   pg_catalog.count(*) AS n
              FROM pgbench_lab.experiment_runs x JOIN pgbench_lab.runs r ON r.run_id OPERATOR(pg_catalog.=) x.run_id
             WHERE x.experiment_id OPERATOR(pg_catalog.=) undrawn_runs.experiment_id
             GROUP BY 1) c
$$;

-- TPS and average latency against clients, one pair of curves per sweep.
CREATE FUNCTION pgbench_lab.plot_sweeps(ids bigint[])
RETURNS text LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH u AS (
        SELECT u.id, u.n, (SELECT pg_catalog.count(*) FROM pgbench_lab.sweep_steps(u.id)) AS drawn
          FROM pg_catalog.unnest(ids) WITH ORDINALITY AS u(id, n))
    SELECT pgbench_lab.svg_chart('TPS and latency against clients (in-server)', 'clients',
               'TPS (transactions per second), solid', 'average latency (ms), dashed',
               (SELECT pg_catalog.jsonb_agg(x.s ORDER BY x.n, x.axis) FROM (
                   SELECT u.n, a.axis, pg_catalog.jsonb_build_object(
                       'label', pg_catalog.format('%s %s (experiment %s)', coalesce(e.label, e.workload),
                                       CASE WHEN a.axis OPERATOR(pg_catalog.=) 1 THEN 'TPS' ELSE 'latency avg ms' END, e.experiment_id),
                       'x', (SELECT coalesce(pg_catalog.jsonb_agg(s.clients ORDER BY s.clients), '[]')
                               FROM pgbench_lab.sweep_steps(e.experiment_id) s),
                       'y', (SELECT coalesce(pg_catalog.jsonb_agg(CASE WHEN a.axis OPERATOR(pg_catalog.=) 1 THEN s.tps ELSE s.latency_avg_ms END
                                                       ORDER BY s.clients), '[]')
                               FROM pgbench_lab.sweep_steps(e.experiment_id) s),
                       'axis', a.axis, 'color', u.n OPERATOR(pg_catalog.-) 1, 'points', true) AS s
                     FROM u
                     JOIN pgbench_lab.experiments e ON e.experiment_id OPERATOR(pg_catalog.=) u.id
                    CROSS JOIN (VALUES (1), (2)) AS a(axis)) x),
               -- a sweep whose runs all failed is in the legend, and says why it has no curve
               (SELECT CASE WHEN (SELECT pg_catalog.sum(u.drawn) FROM u) OPERATOR(pg_catalog.=) 0 THEN ARRAY['Nothing to plot.'] ELSE '{}' END
                       OPERATOR(pg_catalog.||) pg_catalog.array_agg(pg_catalog.format('Experiment %s: %s.', u.id, pgbench_lab.undrawn_runs(u.id)) ORDER BY u.n)
                  FROM u WHERE u.drawn OPERATOR(pg_catalog.=) 0))
$$;

-- Per-second curves of runs (experiments of settings bring their runs).
-- A run with no per-second figure to draw is in the legend and says so in
-- a note, as does an experiment with no runs.
CREATE FUNCTION pgbench_lab.plot_runs(ids bigint[], metric text)
RETURNS text LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH runs AS (
        SELECT r.*, pg_catalog.row_number() OVER (ORDER BY u.n, x.ordinal) AS k, x.variant, x.round
          FROM pg_catalog.unnest(ids) WITH ORDINALITY AS u(id, n)
          LEFT JOIN pgbench_lab.experiment_runs x ON x.experiment_id OPERATOR(pg_catalog.=) u.id
          JOIN pgbench_lab.runs r ON r.run_id OPERATOR(pg_catalog.=) coalesce(x.run_id, u.id)),
    points AS (
        SELECT r.k, p.second AS x, CASE WHEN metric OPERATOR(pg_catalog.=) 'tps' THEN p.tps
                                               WHEN metric OPERATOR(pg_catalog.=) 'latency' THEN p.latency_avg_ms
                                               WHEN metric OPERATOR(pg_catalog.=) 'latency_max' THEN p.latency_max_ms
                                               ELSE p.hit_ratio OPERATOR(pg_catalog.*) 100 END AS y
          FROM runs r JOIN pgbench_lab.run_progress p ON p.run_id OPERATOR(pg_catalog.=) r.run_id
         WHERE p.interval_seconds OPERATOR(pg_catalog.>=) 0.5),
    notes AS (
        SELECT pg_catalog.format('Run %s: no per-second %s was recorded (status %s).', r.run_id,
                      CASE WHEN metric OPERATOR(pg_catalog.=) 'tps' THEN 'progress' ELSE pg_catalog.replace(metric, '_', ' ') END, r.status) AS t,
               r.k AS k
          FROM runs r WHERE NOT EXISTS (SELECT FROM points p WHERE p.k OPERATOR(pg_catalog.=) r.k AND p.y IS NOT NULL)
        UNION ALL
        SELECT pg_catalog.format('Experiment %s: it has no runs.', u.id), 0
          FROM pg_catalog.unnest(ids) AS u(id)
         WHERE EXISTS (SELECT FROM pgbench_lab.experiments e WHERE e.experiment_id OPERATOR(pg_catalog.=) u.id)
           AND NOT EXISTS (SELECT FROM pgbench_lab.experiment_runs x WHERE x.experiment_id OPERATOR(pg_catalog.=) u.id))
    SELECT pgbench_lab.svg_chart(
        CASE WHEN metric OPERATOR(pg_catalog.=) 'tps' THEN 'TPS per second (in-server)'
                    WHEN metric OPERATOR(pg_catalog.=) 'latency' THEN 'Average latency per second (in-server)'
                    WHEN metric OPERATOR(pg_catalog.=) 'latency_max' THEN 'Maximum latency per second (in-server)'
                    ELSE 'Buffer hit ratio per second' END,
        'time since the start (s)',
        CASE WHEN metric OPERATOR(pg_catalog.=) 'tps' THEN 'TPS (transactions per second)'
                    WHEN metric OPERATOR(pg_catalog.=) 'latency' THEN 'average latency (ms)'
                    WHEN metric OPERATOR(pg_catalog.=) 'latency_max' THEN 'maximum latency (ms)'
                    ELSE 'buffer hit ratio (%)' END,
        NULL,
        (SELECT coalesce(pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object(
             'color', coalesce(r.variant OPERATOR(pg_catalog.-) 1, r.k OPERATOR(pg_catalog.-) 1),
             'label', pg_catalog.format('%srun %s: %s, %s%s%s',
                             CASE WHEN r.variant IS NOT NULL THEN pg_catalog.format('%s, round %s: ', pg_catalog.chr(64 OPERATOR(pg_catalog.+) r.variant), r.round) ELSE '' END,
                             r.run_id, r.workload, pgbench_lab.clients_text(r.clients),
                             coalesce(', ' OPERATOR(pg_catalog.||) r.label, ''),
                             CASE WHEN r.settings OPERATOR(pg_catalog.->) 'session' OPERATOR(pg_catalog.<>) '{}'
                                  THEN ', ' OPERATOR(pg_catalog.||) pgbench_lab.settings_text(r.settings OPERATOR(pg_catalog.->) 'session') ELSE '' END),
             'x', (SELECT coalesce(pg_catalog.jsonb_agg(p.x ORDER BY p.x), '[]') FROM points p WHERE p.k OPERATOR(pg_catalog.=) r.k),
             'y', (SELECT coalesce(pg_catalog.jsonb_agg(p.y ORDER BY p.x), '[]') FROM points p WHERE p.k OPERATOR(pg_catalog.=) r.k))
             ORDER BY r.k), '[]')
           FROM runs r),
        (SELECT CASE WHEN NOT EXISTS (SELECT FROM points p WHERE p.y IS NOT NULL)
                     THEN ARRAY['Nothing to plot.'] ELSE '{}' END
                OPERATOR(pg_catalog.||) pg_catalog.array_agg(n.t ORDER BY n.k)
           FROM notes n
         HAVING pg_catalog.count(*) OPERATOR(pg_catalog.>) 0))
$$;

CREATE FUNCTION pgbench_lab.plot(ids bigint[], metric text DEFAULT 'tps')
RETURNS text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    sweeps pg_catalog.int4;
BEGIN
    PERFORM pgbench_lab.check_ids(ids, true);
    IF metric IS NULL THEN
        RAISE EXCEPTION 'metric must not be null'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Valid metrics are tps, latency, latency_max and hit_ratio.';
    END IF;
    IF NOT metric OPERATOR(pg_catalog.=) ANY (ARRAY['tps', 'latency', 'latency_max', 'hit_ratio']) THEN
        RAISE EXCEPTION 'unknown metric "%"', metric
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Valid metrics are tps, latency, latency_max and hit_ratio.';
    END IF;
    SELECT pg_catalog.count(*) INTO sweeps FROM pgbench_lab.experiments e
     WHERE e.experiment_id OPERATOR(pg_catalog.=) ANY (ids) AND e.kind OPERATOR(pg_catalog.=) 'sweep';
    IF sweeps OPERATOR(pg_catalog.=) 0 THEN
        RETURN pgbench_lab.plot_runs(ids, metric);
    END IF;
    IF sweeps OPERATOR(pg_catalog.<) pg_catalog.cardinality(ids) THEN
        RAISE EXCEPTION 'sweeps cannot be plotted with runs or other experiments'
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Plot sweeps together (TPS and latency against clients) and runs together (per-second curves).';
    END IF;
    IF NOT metric OPERATOR(pg_catalog.=) ANY (ARRAY['tps', 'latency']) THEN
        RAISE EXCEPTION 'a sweep plots TPS and latency, not %', metric
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Use metric tps or latency for sweeps; both draw TPS and latency against clients.';
    END IF;
    RETURN pgbench_lab.plot_sweeps(ids);
END
$$;
COMMENT ON FUNCTION pgbench_lab.plot(bigint[], text) IS
    'An SVG document: per-second curves of runs, or TPS and latency against clients for sweeps';

-- ---------------------------------------------------------------------------
-- Privileges: what starts workers or writes is not for PUBLIC; reading is
-- (under row-level security), and pg_monitor reads every run.
-- ---------------------------------------------------------------------------
REVOKE ALL ON PROCEDURE pgbench_lab.sweep(text, integer[], interval, text, jsonb, bigint, integer, double precision, integer, text) FROM PUBLIC;
REVOKE ALL ON PROCEDURE pgbench_lab.compare_settings(text, jsonb[], integer, interval, integer, text, bigint, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION pgbench_lab.import(jsonb) FROM PUBLIC;
REVOKE ALL ON FUNCTION pgbench_lab.record_as(regrole, text, jsonb) FROM PUBLIC;
REVOKE ALL ON FUNCTION pgbench_lab.experiment_begin_as(regrole, jsonb) FROM PUBLIC;
REVOKE ALL ON FUNCTION pgbench_lab.experiment_add_as(regrole, jsonb) FROM PUBLIC;
REVOKE ALL ON FUNCTION pgbench_lab.experiment_end_as(regrole, jsonb) FROM PUBLIC;
REVOKE ALL ON FUNCTION pgbench_lab.running_experiment_of(regrole, jsonb) FROM PUBLIC;
REVOKE ALL ON FUNCTION pgbench_lab.import_as(regrole, jsonb) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION pgbench_lab.report(bigint), pgbench_lab.compare(bigint[]),
    pgbench_lab.plot(bigint[], text), pgbench_lab.export(bigint[]),
    pgbench_lab.sweep_summary(bigint), pgbench_lab.settings_ratios(bigint) TO pg_monitor;

-- ---------------------------------------------------------------------------
-- Cold vs warm: autoprewarm_status() and the cold_vs_warm experiment.
-- This fragment comes after 80_reports.sql because cold_vs_warm records
-- its runs as an experiment (kind 'cold_vs_warm') in the reports part's
-- tables, through its recording functions, and the SQL functions below
-- read those tables (SQL function bodies are checked when created).
-- ---------------------------------------------------------------------------

CREATE FUNCTION pgbench_lab.autoprewarm_status()
RETURNS TABLE (preloaded boolean, autoprewarm boolean,
               autoprewarm_interval interval,
               dump_file text, dump_modified timestamptz, dump_age interval,
               dump_blocks bigint, dump_blocks_this_database bigint,
               pending_restart boolean, restart_warm boolean, warning text)
LANGUAGE c VOLATILE
SET search_path = pg_catalog, pg_temp
AS 'MODULE_PATHNAME', 'pgbench_lab_autoprewarm_status';
COMMENT ON FUNCTION pgbench_lab.autoprewarm_status() IS
    'Whether pg_prewarm''s autoprewarm would make a restart come back warm: settings, leader, dump file';
REVOKE ALL ON FUNCTION pgbench_lab.autoprewarm_status() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION pgbench_lab.autoprewarm_status() TO pg_monitor;

CREATE FUNCTION pgbench_lab.os_page_size()
RETURNS integer
LANGUAGE c IMMUTABLE PARALLEL SAFE
AS 'MODULE_PATHNAME', 'pgbench_lab_os_page_size';
COMMENT ON FUNCTION pgbench_lab.os_page_size() IS
    'The kernel''s page size in bytes (cache snapshots count OS pages)';

-- The three states, in the order they run; a run's variant is its position.
CREATE FUNCTION pgbench_lab.cold_vs_warm_state(variant integer)
RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT (ARRAY['cold', 'os-warm', 'warm'])[variant] $$;

-- The relations of an experiment: those given (tables or materialized
-- views, each once), or pgbench's four tables in the schema of the
-- pgbench_accounts that the caller's search_path finds (accounts passed in
-- by the procedure, which has no search_path of its own).
CREATE FUNCTION pgbench_lab.cold_vs_warm_relations(relations regclass[], accounts regclass)
RETURNS regclass[] LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    bad pg_catalog.regclass;
BEGIN
    IF relations IS NULL THEN
        IF accounts IS NULL THEN
            RAISE EXCEPTION 'relation "pgbench_accounts" does not exist'
                USING ERRCODE = 'undefined_table',
                      HINT = 'Create pgbench''s tables with pgbench_lab.init(scale => 10) or pgbench -i, '
                             'put their schema in search_path, or pass relations.';
        END IF;
        RETURN ARRAY(SELECT c.oid::pg_catalog.regclass
                       FROM pg_catalog.unnest(ARRAY['pgbench_accounts', 'pgbench_branches', 'pgbench_tellers',
                                         'pgbench_history']) WITH ORDINALITY AS t(name, i)
                       JOIN pg_catalog.pg_class c ON c.relname OPERATOR(pg_catalog.=) t.name
                      WHERE c.relnamespace OPERATOR(pg_catalog.=) (SELECT a.relnamespace FROM pg_catalog.pg_class a WHERE a.oid OPERATOR(pg_catalog.=) accounts)
                      ORDER BY t.i);
    END IF;
    IF pg_catalog.cardinality(relations) OPERATOR(pg_catalog.=) 0 OR pg_catalog.array_position(relations, NULL) IS NOT NULL THEN
        RAISE EXCEPTION 'relations must not be empty or contain null'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Pass NULL for pgbench''s tables, or tables such as ARRAY[''pgbench_accounts''::regclass].';
    END IF;
    SELECT r INTO bad FROM pg_catalog.unnest(relations) r GROUP BY r HAVING pg_catalog.count(*) OPERATOR(pg_catalog.>) 1 LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'relation "%" appears twice in relations', bad
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Name each table once; its indexes and TOAST table come with it.';
    END IF;
    SELECT r INTO bad FROM pg_catalog.unnest(relations) r JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) r
     WHERE NOT c.relkind OPERATOR(pg_catalog.=) ANY (ARRAY['r', 'm']::pg_catalog."char"[]) LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION '"%" is not a table or materialized view', bad
            USING ERRCODE = 'wrong_object_type',
                  HINT = 'Pass tables (or materialized views); their indexes and TOAST tables come with them.';
    END IF;
    SELECT r INTO bad FROM pg_catalog.unnest(relations) r JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) r
     WHERE c.relnamespace OPERATOR(pg_catalog.=) ANY (ARRAY['pg_catalog'::pg_catalog.regnamespace,
                                                            'pg_toast'::pg_catalog.regnamespace]::pg_catalog.oid[]) LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'permission denied: "%" is a system catalog', bad
            USING ERRCODE = 'insufficient_privilege',
                  DETAIL = 'make_cold never evicts the system catalogs.';
    END IF;
    RETURN relations;
END
$$;

-- Check the arguments and begin the experiment.  Everything that can be
-- refused is refused here, before anything is evicted or recorded.
CREATE FUNCTION pgbench_lab.cold_vs_warm_begin(workload text, clients integer, duration interval,
                                               relations regclass[])
RETURNS bigint LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF NOT (SELECT r.rolsuper FROM pg_catalog.pg_roles r WHERE r.rolname OPERATOR(pg_catalog.=) current_user) THEN
        RAISE EXCEPTION 'permission denied for procedure cold_vs_warm'
            USING ERRCODE = 'insufficient_privilege',
                  DETAIL = 'It evicts buffers with pgbench_lab.make_cold(), which only superusers may do: it affects every session.';
    END IF;
    IF workload IS NULL OR clients IS NULL OR duration IS NULL THEN
        RAISE EXCEPTION 'workload, clients and duration must not be null'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Leave them out for the defaults: select-only, 1 client, 20 s.';
    END IF;
    IF NOT workload OPERATOR(pg_catalog.=) ANY (ARRAY['tpcb-like', 'simple-update', 'select-only']) THEN
        RAISE EXCEPTION 'unknown workload "%"', workload
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Valid workloads are tpcb-like, simple-update and select-only.';
    END IF;
    IF clients OPERATOR(pg_catalog.<) 1 THEN
        RAISE EXCEPTION 'clients must be at least 1'
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Pass a number of clients from 1 to pgbench_lab.max_clients.';
    END IF;
    IF NOT pg_catalog.isfinite(duration) OR duration OPERATOR(pg_catalog.<=) '0'::interval THEN
        RAISE EXCEPTION 'duration must be a positive, finite interval'
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Pass a duration such as ''20 s''; each of the three runs lasts that long.';
    END IF;
    RETURN pgbench_lab.experiment_begin('cold_vs_warm', workload, NULL,
        pg_catalog.jsonb_build_object('clients', clients, 'duration', duration::pg_catalog.text,
            'relations', (SELECT pg_catalog.jsonb_agg(r::pg_catalog.text ORDER BY i) FROM pg_catalog.unnest(relations) WITH ORDINALITY AS x(r, i)),
            -- the relations and their indexes and TOAST, for the cache states
            'relids', (SELECT pg_catalog.jsonb_agg(DISTINCT o::bigint) FROM pg_catalog.unnest(relations) r,
                            LATERAL (SELECT r::pg_catalog.oid UNION ALL
                                     SELECT i.indexrelid FROM pg_catalog.pg_index i WHERE i.indrelid OPERATOR(pg_catalog.=) r
                                     UNION ALL
                                     SELECT c.reltoastrelid FROM pg_catalog.pg_class c WHERE c.oid OPERATOR(pg_catalog.=) r AND c.reltoastrelid OPERATOR(pg_catalog.<>) 0
                                     UNION ALL
                                     SELECT i.indexrelid FROM pg_catalog.pg_class c JOIN pg_catalog.pg_index i ON i.indrelid OPERATOR(pg_catalog.=) c.reltoastrelid
                                      WHERE c.oid OPERATOR(pg_catalog.=) r) AS s(o))));
END
$$;

-- Bring the relations into a run's starting state; returns what it did.
-- cold: make_cold() of shared buffers and the OS page cache; os-warm:
-- make_cold() of shared buffers only, the OS keeps what the cold run read
-- (seed 002's second run); warm: warm() through pg_prewarm, on top of that.
CREATE FUNCTION pgbench_lab.cold_vs_warm_prepare(relations regclass[], state text)
RETURNS text LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    a pg_catalog.numeric;
    b pg_catalog.numeric;
    c pg_catalog.numeric;
BEGIN
    IF state OPERATOR(pg_catalog.=) 'warm' THEN
        SELECT pg_catalog.sum(w.blocks_loaded), pg_catalog.sum(w.seconds) INTO a, b
          FROM pg_catalog.unnest(relations) WITH ORDINALITY AS x(r, i),
               LATERAL pgbench_lab.warm(x.r) w;
        RETURN pg_catalog.format('warm: pg_prewarm loaded %s blocks in %s s', a, pg_catalog.round(b, 2));
    END IF;
    SELECT pg_catalog.sum(m.buffers_evicted), pg_catalog.sum(m.dirty_written), pg_catalog.sum(m.os_pages_dropped) INTO a, b, c
      FROM pg_catalog.unnest(relations) WITH ORDINALITY AS x(r, i),
           LATERAL pgbench_lab.make_cold(x.r, true, state OPERATOR(pg_catalog.=) 'cold') m;
    RETURN pg_catalog.format('%s: make_cold evicted %s buffers (%s dirty, written first)%s', state, a, b,
                  CASE WHEN state OPERATOR(pg_catalog.=) 'cold' THEN pg_catalog.format(' and dropped %s OS pages', c) ELSE '' END);
END
$$;

-- The label of each run: the experiment and the state.
CREATE FUNCTION pgbench_lab.cold_vs_warm_label(experiment_id bigint, variant integer)
RETURNS text LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT pg_catalog.format('cold_vs_warm %s: %s', experiment_id, pgbench_lab.cold_vs_warm_state(variant)) $$;

-- Each run of a cold_vs_warm experiment: headline figures, the cache state
-- it started from (its cache_before snapshot, over the experiment's
-- relations with their indexes: relations under pgbench_lab.cache_min_size
-- are not in snapshots), the per-second curves, and when its TPS first
-- reached 90% of the warm run's (end of that second, from the run's start;
-- NULL if it never did).
CREATE FUNCTION pgbench_lab.cold_vs_warm_runs(experiment_id bigint)
RETURNS TABLE (state text, run_id bigint, status text, tps double precision,
               latency_avg_ms double precision, latency_p99_ms double precision,
               hit_ratio double precision, buffers_pct double precision,
               os_pct double precision, seconds_to_90pct double precision,
               tps_curve double precision[], hit_ratio_curve double precision[])
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH e AS (
        SELECT x.experiment_id, x.params FROM pgbench_lab.experiments x
         WHERE x.experiment_id OPERATOR(pg_catalog.=) cold_vs_warm_runs.experiment_id
           AND x.kind OPERATOR(pg_catalog.=) 'cold_vs_warm'
    ), r AS (
        SELECT x.variant, u.*
          FROM e JOIN pgbench_lab.experiment_runs x ON x.experiment_id OPERATOR(pg_catalog.=) e.experiment_id
          JOIN pgbench_lab.runs u ON u.run_id OPERATOR(pg_catalog.=) x.run_id
    ), warm AS (
        SELECT pg_catalog.max(r.tps) AS tps FROM r WHERE r.variant OPERATOR(pg_catalog.=) 3
    ), sizes AS (
        -- per run: the relations' blocks, buffers and OS pages before it
        SELECT r.run_id, pg_catalog.sum(s.blocks) AS blocks, pg_catalog.sum(s.buffers) AS buffers,
               pg_catalog.sum(s.os_pages) AS os_pages
          FROM r, e, pgbench_lab.cache_snapshot_relations s
         WHERE s.snapshot_id OPERATOR(pg_catalog.=) r.cache_before
           AND s.relid OPERATOR(pg_catalog.=) ANY (ARRAY(
                   SELECT o::pg_catalog.oid
                     FROM pg_catalog.jsonb_array_elements_text(e.params OPERATOR(pg_catalog.->) 'relids') AS o))
         GROUP BY r.run_id
    )
    SELECT pgbench_lab.cold_vs_warm_state(r.variant), r.run_id, r.status, r.tps,
           r.latency_avg_ms, r.latency_p99_ms, r.hit_ratio,
           CASE WHEN c.blocks OPERATOR(pg_catalog.>) 0
                THEN (100.0 OPERATOR(pg_catalog.*) c.buffers) OPERATOR(pg_catalog./) c.blocks END,
           CASE WHEN c.blocks OPERATOR(pg_catalog.>) 0
                THEN ((100.0 OPERATOR(pg_catalog.*) c.os_pages) OPERATOR(pg_catalog.*) pgbench_lab.os_page_size())
                     OPERATOR(pg_catalog./)
                     (c.blocks OPERATOR(pg_catalog.*) pg_catalog.current_setting('block_size')::integer) END,
           (SELECT pg_catalog.min(p.elapsed) FROM (
                SELECT q.tps, pg_catalog.sum(q.interval_seconds) OVER (ORDER BY q.second) AS elapsed
                  FROM pgbench_lab.run_progress q WHERE q.run_id OPERATOR(pg_catalog.=) r.run_id) p, warm
             WHERE p.tps OPERATOR(pg_catalog.>=) (0.9 OPERATOR(pg_catalog.*) warm.tps)),
           ARRAY(SELECT q.tps FROM pgbench_lab.run_progress q
                  WHERE q.run_id OPERATOR(pg_catalog.=) r.run_id ORDER BY q.second),
           ARRAY(SELECT q.hit_ratio FROM pgbench_lab.run_progress q
                  WHERE q.run_id OPERATOR(pg_catalog.=) r.run_id ORDER BY q.second)
      FROM r LEFT JOIN sizes c ON c.run_id OPERATOR(pg_catalog.=) r.run_id
     ORDER BY r.variant
$$;
COMMENT ON FUNCTION pgbench_lab.cold_vs_warm_runs(bigint) IS
    'The runs of a cold_vs_warm experiment: figures, starting cache state, per-second curves, time to 90% of warm TPS';
REVOKE ALL ON FUNCTION pgbench_lab.cold_vs_warm_runs(bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION pgbench_lab.cold_vs_warm_runs(bigint) TO pg_monitor;

-- The comparison the way seed 002 tells it.
CREATE FUNCTION pgbench_lab.cold_vs_warm_finding(experiment_id bigint)
RETURNS text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    runs pg_catalog.text;
    cold pg_catalog.float8;
    warm pg_catalog.float8;
    reach pg_catalog.text;
BEGIN
    SELECT pg_catalog.string_agg(pg_catalog.format('%s %s tps (latency %s ms, hit ratio %s%%, %s%% in shared buffers at the start)',
                             r.name, pgbench_lab.fmt(r.tps, 0), pgbench_lab.fmt(r.latency_avg_ms, 3),
                             pgbench_lab.fmt(100 OPERATOR(pg_catalog.*) r.hit_ratio, 1), pgbench_lab.fmt(r.buffers_pct, 0)),
                      ', ' ORDER BY r.variant),
           pg_catalog.max(r.tps) FILTER (WHERE r.state OPERATOR(pg_catalog.=) 'cold'), pg_catalog.max(r.tps) FILTER (WHERE r.state OPERATOR(pg_catalog.=) 'warm'),
           pg_catalog.string_agg(pg_catalog.format('%s %s', r.name,
                             CASE WHEN r.seconds_to_90pct IS NULL THEN 'never (within the run)'
                                  ELSE 'after ' OPERATOR(pg_catalog.||) pgbench_lab.fmt(r.seconds_to_90pct, 1) OPERATOR(pg_catalog.||) ' s' END),
                      ', ' ORDER BY r.variant) FILTER (WHERE r.state OPERATOR(pg_catalog.<>) 'warm')
      INTO runs, cold, warm, reach
      FROM (SELECT x.*, pg_catalog.replace(x.state, 'os-', 'OS-') AS name, v.variant
              FROM pgbench_lab.cold_vs_warm_runs(experiment_id) x
              JOIN pg_catalog.generate_series(1, 3) AS v(variant)
                ON pgbench_lab.cold_vs_warm_state(v.variant) OPERATOR(pg_catalog.=) x.state) r;
    IF runs IS NULL THEN
        RETURN 'No runs recorded.';
    END IF;
    RETURN runs OPERATOR(pg_catalog.||) pg_catalog.format(': warm/cold %s; 90%% of the warm TPS reached: %s. In-server figures: no network round trips.',
                          CASE WHEN cold OPERATOR(pg_catalog.>) 0 AND warm IS NOT NULL THEN pgbench_lab.fmt(pgbench_lab.ratio(warm, cold), 2) OPERATOR(pg_catalog.||) 'x'
                               ELSE '-' END,
                          coalesce(reach, '-'));
END
$$;
COMMENT ON FUNCTION pgbench_lab.cold_vs_warm_finding(bigint) IS
    'One paragraph comparing the cold, OS-warm and warm runs of a cold_vs_warm experiment';
REVOKE ALL ON FUNCTION pgbench_lab.cold_vs_warm_finding(bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION pgbench_lab.cold_vs_warm_finding(bigint) TO pg_monitor;

-- The body of report(experiment_id) for a cold_vs_warm experiment.
CREATE FUNCTION pgbench_lab.report_cold_vs_warm(experiment_id bigint)
RETURNS SETOF text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF NOT pg_catalog.has_table_privilege('pgbench_lab.cache_snapshot_relations', 'SELECT') THEN
        RETURN QUERY SELECT 'The cache states need membership in pg_monitor (they come from pgbench_lab.cache_snapshot_relations).';
        RETURN;
    END IF;
    RETURN QUERY SELECT pg_catalog.format('%-8s %8s %10s %12s %10s %10s %8s %10s', 'state', 'run', 'tps', 'latency ms',
                       'hit %', 'buffers %', 'OS %', 'to 90% s');
    RETURN QUERY
        SELECT pg_catalog.format('%-8s %8s %10s %12s %10s %10s %8s %10s', r.state, r.run_id, pgbench_lab.fmt(r.tps, 0),
                      pgbench_lab.fmt(r.latency_avg_ms, 3), pgbench_lab.fmt(100 OPERATOR(pg_catalog.*) r.hit_ratio, 1),
                      pgbench_lab.fmt(r.buffers_pct, 0), pgbench_lab.fmt(r.os_pct, 0),
                      pgbench_lab.fmt(r.seconds_to_90pct, 1))
          FROM pgbench_lab.cold_vs_warm_runs(experiment_id) r;
    RETURN QUERY SELECT '';
    RETURN QUERY SELECT pg_catalog.format('%-8s tps per second: %s', r.state, pg_catalog.array_to_string(
                        ARRAY(SELECT pgbench_lab.fmt(t, 0) FROM pg_catalog.unnest(r.tps_curve) t), ' '))
                   FROM pgbench_lab.cold_vs_warm_runs(experiment_id) r;
    RETURN QUERY SELECT '';
    RETURN QUERY SELECT pgbench_lab.cold_vs_warm_finding(experiment_id);
END
$$;

-- A PL/pgSQL procedure with no SET clause, so that it can commit around
-- each run (pgbench_lab.run commits before it waits; a procedure with a SET
-- clause cannot commit).  Its body therefore names everything with its
-- schema and uses no operator; the work is in the functions above.  The
-- Makefile's pgspot target lets it through with --proc-without-search-path.
CREATE PROCEDURE pgbench_lab.cold_vs_warm(
    workload text DEFAULT 'select-only',
    clients integer DEFAULT 1,
    duration interval DEFAULT '20 s',
    relations regclass[] DEFAULT NULL,
    INOUT experiment_id bigint DEFAULT NULL,
    INOUT finding text DEFAULT NULL)
LANGUAGE plpgsql
AS $$
DECLARE
    rels pg_catalog.regclass[];
    variant pg_catalog.int4;
    rid pg_catalog.int8;
    st pg_catalog.text;
    n pg_catalog.int8;
    tps pg_catalog.float8;
    lat pg_catalog.float8;
    p99 pg_catalog.float8;
    fails pg_catalog.int8;
    err pg_catalog.text;
BEGIN
    rels := pgbench_lab.cold_vs_warm_relations(relations, pg_catalog.to_regclass('pgbench_accounts'));
    experiment_id := pgbench_lab.cold_vs_warm_begin(workload, clients, duration, rels);
    COMMIT;
    FOR variant IN 1..3 LOOP
        RAISE NOTICE '%', pgbench_lab.cold_vs_warm_prepare(rels, pgbench_lab.cold_vs_warm_state(variant));
        COMMIT;     -- on PostgreSQL 15 make_cold holds AccessExclusiveLock until here
        rid := NULL;
        CALL pgbench_lab.run(workload => workload, clients => clients, duration => duration,
                             label => pgbench_lab.cold_vs_warm_label(experiment_id, variant),
                             run_id => rid, status => st, transactions_done => n, tps => tps,
                             latency_avg_ms => lat, latency_p99_ms => p99, failures => fails,
                             error => err);
        PERFORM pgbench_lab.experiment_add(experiment_id, rid, variant, 1);
        COMMIT;
    END LOOP;
    PERFORM pgbench_lab.experiment_end(experiment_id);
    finding := pgbench_lab.cold_vs_warm_finding(experiment_id);
    RAISE NOTICE '%', finding;
END
$$;
COMMENT ON PROCEDURE pgbench_lab.cold_vs_warm(text, integer, interval, regclass[], bigint, text) IS
    'Three runs, cold, OS-warm and warm, recorded as an experiment; prints the comparison';
REVOKE ALL ON PROCEDURE pgbench_lab.cold_vs_warm(text, integer, interval, regclass[], bigint, text) FROM PUBLIC;
