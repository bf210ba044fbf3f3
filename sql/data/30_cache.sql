
-- ---------------------------------------------------------------------------
-- cache snapshots: the rows cache_snapshot() writes.
-- ---------------------------------------------------------------------------

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
