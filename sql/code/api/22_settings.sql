
-- ---------------------------------------------------------------------------
-- Settings changed by experiments with ALTER SYSTEM (src/settings_apply.c):
-- restore_settings() puts back, after a crash or an immediate shutdown,
-- what an experiment changed and no session restored; every experiment
-- call does the same before it starts.
-- ---------------------------------------------------------------------------

CREATE FUNCTION pgbench_lab.restore_settings()
RETURNS TABLE (experiment_id bigint, settings text[], saved_at timestamptz, outcome text)
LANGUAGE c VOLATILE
SET search_path = pg_catalog, pg_temp
AS 'MODULE_PATHNAME', 'pgbench_lab_restore_settings';
COMMENT ON FUNCTION pgbench_lab.restore_settings() IS
    'Restores postgresql.auto.conf as it was before experiments whose session ended without restoring it (a crash, an immediate shutdown); superusers only';
REVOKE ALL ON FUNCTION pgbench_lab.restore_settings() FROM PUBLIC;

-- The part of a set of settings that is reload-level (context sighup,
-- changed with ALTER SYSTEM and a reload), or the rest (given to the
-- runs' sessions); '{}' for none, and for what is not an object.
CREATE FUNCTION pgbench_lab_internal.settings_part(s jsonb, reload boolean)
RETURNS jsonb LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT COALESCE(pg_catalog.jsonb_object_agg(e.key, e.value), '{}'::pg_catalog.jsonb)
      FROM pg_catalog.jsonb_each(CASE WHEN pg_catalog.jsonb_typeof(s) OPERATOR(pg_catalog.=) 'object' THEN s END) AS e(key, value)
     WHERE EXISTS (SELECT FROM pg_catalog.pg_settings g
                    WHERE g.name OPERATOR(pg_catalog.=) pg_catalog.lower(e.key)
                      AND g.context OPERATOR(pg_catalog.=) 'sighup') OPERATOR(pg_catalog.=) reload
$$;
