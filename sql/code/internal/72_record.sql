
-- ---------------------------------------------------------------------------
-- Writing: pgbench_lab_internal.record() (C, src/results_record.c) switches to the
-- extension's owner and calls record_as() with the calling role, so the rows
-- a user's import makes are owned by that user and nobody writes the tables
-- directly.  Experiments write the same way through their own functions
-- below, which the driver calls as the owner.
-- ---------------------------------------------------------------------------

CREATE FUNCTION pgbench_lab_internal.record(action text, args jsonb)
RETURNS jsonb
LANGUAGE c VOLATILE
AS 'MODULE_PATHNAME', 'pgbench_lab_record';
COMMENT ON FUNCTION pgbench_lab_internal.record(text, jsonb) IS
    'Internal: write an import as the extension owner, on behalf of the caller';

-- A jsonb number that is a whole number within [lo, hi], or NULL.
CREATE FUNCTION pgbench_lab_internal.json_int(v jsonb, lo numeric, hi numeric)
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
-- statements of one transaction block share its start.)  A two-phase
-- experiment's second phase counts from resume()'s start.
CREATE FUNCTION pgbench_lab_internal.experiment_stopped(e pgbench_lab.experiments)
RETURNS boolean LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT e.status OPERATOR(pg_catalog.=) 'running' AND e.source_server IS NULL AND e.backend_pid IS NOT NULL
       AND NOT EXISTS (SELECT FROM pg_catalog.pg_stat_get_activity(e.backend_pid) a
                        WHERE a.backend_start OPERATOR(pg_catalog.=) e.backend_start AND a.state OPERATOR(pg_catalog.=) 'active'
                          AND (a.query_start OPERATOR(pg_catalog.<=) COALESCE(e.resumed_at, e.started_at)
                               OR a.xact_start OPERATOR(pg_catalog.<=) COALESCE(e.resumed_at, e.started_at)))
$$;

-- An experiment's writers, one per step of its life, called by the driver
-- (src/experiment.c) by name as the extension's owner (SecureAsOwner), on
-- behalf of caller, the role that called the experiment's procedure.  Each
-- checks that the caller may do what it asks.  SECURITY DEFINER as well, so
-- that they write as the owner however they are reached; no role but the
-- owner may execute them.
CREATE FUNCTION pgbench_lab_internal.experiment_begin_as(caller regrole, kind text, workload text,
                                                          label text, params jsonb)
RETURNS bigint LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    id pg_catalog.int8;
    proc pg_catalog.oid := (SELECT k.procedure::pg_catalog.oid FROM pgbench_lab.experiment_kinds k
                             WHERE k.kind OPERATOR(pg_catalog.=) experiment_begin_as.kind);
BEGIN
    IF caller IS NULL THEN
        RAISE EXCEPTION 'caller must not be null' USING ERRCODE = 'null_value_not_allowed';
    END IF;
    IF proc IS NULL THEN
        RAISE EXCEPTION 'unknown experiment kind "%"', kind
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'pgbench_lab.experiment_kinds lists the kinds.';
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
     WHERE e.status OPERATOR(pg_catalog.=) 'running' AND pgbench_lab_internal.experiment_stopped(e);
    INSERT INTO pgbench_lab.experiments (kind, workload, label, params, owner, backend_pid, backend_start)
    VALUES (kind, workload, label, COALESCE(params, '{}'), caller, pg_catalog.pg_backend_pid(),
            (SELECT a.backend_start FROM pg_catalog.pg_stat_get_activity(pg_catalog.pg_backend_pid()) a))
    RETURNING experiment_id INTO id;
    RETURN id;
END
$$;

-- The id of a running experiment of the caller, locked; an error otherwise.
CREATE FUNCTION pgbench_lab_internal.running_experiment_of(caller regrole, eid bigint)
RETURNS bigint LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
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

-- Link a run to an experiment: the caller must own both.  The run's
-- ordinal in the experiment.
CREATE FUNCTION pgbench_lab_internal.experiment_add_as(caller regrole, experiment_id bigint, run_id bigint,
                                                        variant integer, round integer)
RETURNS integer LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    eid pg_catalog.int8 := pgbench_lab_internal.running_experiment_of(caller, experiment_add_as.experiment_id);
    rid pg_catalog.int8 := experiment_add_as.run_id;
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
    SELECT pg_catalog.count(*) OPERATOR(pg_catalog.+) 1 INTO n FROM pgbench_lab.experiment_runs x
     WHERE x.experiment_id OPERATOR(pg_catalog.=) eid;
    INSERT INTO pgbench_lab.experiment_runs (experiment_id, ordinal, run_id, variant, round)
    VALUES (eid, n, rid,
            COALESCE(CASE WHEN experiment_add_as.variant OPERATOR(pg_catalog.>=) 1 THEN experiment_add_as.variant END, n),
            COALESCE(CASE WHEN experiment_add_as.round OPERATOR(pg_catalog.>=) 1 THEN experiment_add_as.round END, 1));
    RETURN n;
END
$$;

-- Done if every run is done, else failed; the status.
CREATE FUNCTION pgbench_lab_internal.experiment_end_as(caller regrole, experiment_id bigint)
RETURNS text LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    eid pg_catalog.int8 := pgbench_lab_internal.running_experiment_of(caller, experiment_end_as.experiment_id);
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
    RETURN st;
END
$$;

-- The only entry of record(): an import, as the extension owner.
CREATE FUNCTION pgbench_lab_internal.record_as(caller regrole, action text, args jsonb)
RETURNS jsonb LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF action IS NULL OR NOT action OPERATOR(pg_catalog.=) 'import' THEN
        RAISE EXCEPTION 'unknown action "%"', action
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'The only action is import; experiments record themselves.';
    END IF;
    RETURN pgbench_lab_internal.import_as(caller, args);
END
$$;

REVOKE ALL ON FUNCTION pgbench_lab_internal.record_as(regrole, text, jsonb) FROM PUBLIC;
REVOKE ALL ON FUNCTION pgbench_lab_internal.experiment_begin_as(regrole, text, text, text, jsonb) FROM PUBLIC;
REVOKE ALL ON FUNCTION pgbench_lab_internal.experiment_add_as(regrole, bigint, bigint, integer, integer) FROM PUBLIC;
REVOKE ALL ON FUNCTION pgbench_lab_internal.experiment_end_as(regrole, bigint) FROM PUBLIC;
REVOKE ALL ON FUNCTION pgbench_lab_internal.running_experiment_of(regrole, bigint) FROM PUBLIC;
