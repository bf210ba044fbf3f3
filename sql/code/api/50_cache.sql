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
  'load a relation (with its indexes and TOAST) through pg_prewarm; into shared buffers, only what fits, hottest first';
REVOKE ALL ON FUNCTION pgbench_lab.warm(pg_catalog.regclass, pg_catalog.text, pg_catalog.bool) FROM PUBLIC;

-- What fits: shared_buffers, the margin a warm leaves to the rest of the
-- server (a tenth, at least 4MB, at most a quarter) and what it may load,
-- in blocks; and the smallest shared_buffers that holds so many blocks.
CREATE FUNCTION pgbench_lab_internal.warm_budget(OUT shared_buffers pg_catalog.int8,
                                                 OUT margin pg_catalog.int8, OUT budget pg_catalog.int8)
LANGUAGE C STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS 'MODULE_PATHNAME', 'pgbench_lab_warm_budget';
COMMENT ON FUNCTION pgbench_lab_internal.warm_budget() IS
  'In blocks: shared_buffers, the margin a warm leaves to the rest of the server, and what it may load';

CREATE FUNCTION pgbench_lab_internal.warm_needed(blocks pg_catalog.int8)
RETURNS pg_catalog.int8
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS 'MODULE_PATHNAME', 'pgbench_lab_warm_needed';
COMMENT ON FUNCTION pgbench_lab_internal.warm_needed(pg_catalog.int8) IS
  'The smallest shared_buffers, in blocks, from which a warm may load so many blocks';

-- The plan of a warm within a budget, hottest first; loads nothing.
CREATE FUNCTION pgbench_lab_internal.warm_plan(rels pg_catalog.regclass[], budget pg_catalog.int8)
RETURNS TABLE (relation pg_catalog.regclass, kind pg_catalog.text,
               blocks pg_catalog.int8, warm_blocks pg_catalog.int8)
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp
AS 'MODULE_PATHNAME', 'pgbench_lab_warm_plan';
COMMENT ON FUNCTION pgbench_lab_internal.warm_plan(pg_catalog.regclass[], pg_catalog.int8) IS
  'What a warm of the relations (with their indexes and TOAST) loads within a budget of blocks, hottest first';
REVOKE ALL ON FUNCTION pgbench_lab_internal.warm_plan(pg_catalog.regclass[], pg_catalog.int8) FROM PUBLIC;

-- A plan loaded: the first blocks[i] blocks of rels[i], in the order given.
CREATE FUNCTION pgbench_lab_internal.warm_blocks(rels pg_catalog.regclass[], blocks pg_catalog.int8[])
RETURNS TABLE (relation pg_catalog.regclass, kind pg_catalog.text,
               blocks_loaded pg_catalog.int8, seconds pg_catalog.float8)
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp
AS 'MODULE_PATHNAME', 'pgbench_lab_warm_blocks';
COMMENT ON FUNCTION pgbench_lab_internal.warm_blocks(pg_catalog.regclass[], pg_catalog.int8[]) IS
  'Load into shared buffers the first blocks[i] blocks of each relation rels[i] (itself alone), in the order given';
REVOKE ALL ON FUNCTION pgbench_lab_internal.warm_blocks(pg_catalog.regclass[], pg_catalog.int8[]) FROM PUBLIC;


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

CREATE FUNCTION pgbench_lab_internal.os_page_size()
RETURNS integer
LANGUAGE c IMMUTABLE PARALLEL SAFE
AS 'MODULE_PATHNAME', 'pgbench_lab_os_page_size';
COMMENT ON FUNCTION pgbench_lab_internal.os_page_size() IS
    'The kernel''s page size in bytes (cache snapshots count OS pages)';
