
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
                WHEN abs(x) >= 1e15 THEN trim(to_char(x, '9.9EEEE'))
                ELSE round(x::numeric, digits)::text END
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
                WHEN abs(x) > 1e300 THEN sign(x) * 1e300
                WHEN abs(x) < 1e-300 THEN 0
                ELSE x END::float8
$$;

-- a / b, NULL when b is 0 or either is NULL; computed in numeric, so any
-- two figures give a result (see to_float8).
CREATE FUNCTION pgbench_lab.ratio(a double precision, b double precision)
RETURNS double precision LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN a IS NULL OR b IS NULL OR b = 0 THEN NULL
                ELSE pgbench_lab.to_float8(a::numeric / b::numeric) END
$$;

-- The change from old to new in percent, signed ('+76%'); '' when unknown.
-- Computed in numeric; a rise of a million percent or more reads
-- '>+999999%'.
CREATE FUNCTION pgbench_lab.pct_change(new double precision, old double precision)
RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN p IS NULL THEN ''
                WHEN p > 999999 THEN '>+999999%'
                WHEN p >= 0 THEN '+' || round(p)::text || '%'
                ELSE round(p)::text || '%' END
      FROM (SELECT CASE WHEN new IS NULL OR old IS NULL OR old = 0 THEN NULL
                        ELSE (new::numeric / old::numeric - 1) * 100 END AS p) s
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
    IF s !~ E'[\\x01-\\x1f\\x7f-\\x9f]' THEN
        RETURN s;
    END IF;
    RETURN (SELECT string_agg(CASE WHEN c ~ E'[\\x01-\\x1f\\x7f-\\x9f]'
                                   THEN E'\\x' || lpad(to_hex(ascii(c)), 2, '0') ELSE c END,
                              '' ORDER BY i)
              FROM regexp_split_to_table(s, '') WITH ORDINALITY AS t(c, i));
END
$$;

-- '5 s', '0.5 s': a duration in seconds.
CREATE FUNCTION pgbench_lab.seconds_text(d interval)
RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT trim_scale(extract(epoch FROM d))::text || ' s' $$;

-- '1 client', '4 clients'.
CREATE FUNCTION pgbench_lab.clients_text(n integer)
RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT n || CASE WHEN n = 1 THEN ' client' ELSE ' clients' END $$;

-- Session settings as 'name=value, ...' in name order, printable.
CREATE FUNCTION pgbench_lab.settings_text(settings jsonb)
RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pgbench_lab.printable(coalesce(string_agg(key || '=' || value, ', ' ORDER BY key), '(none)'))
      FROM jsonb_each_text(CASE WHEN jsonb_typeof(settings) = 'object' THEN settings END)
$$;

-- The name this server gives itself in exports: cluster_name if set, else
-- its system identifier (unique per initdb).
CREATE FUNCTION pgbench_lab.server_name()
RETURNS text LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT coalesce(nullif(current_setting('cluster_name'), ''),
                    'system ' || (SELECT system_identifier::text FROM pg_control_system()))
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
    SELECT CASE WHEN jsonb_typeof(v) = 'number' AND v::numeric = trunc(v::numeric)
                     AND v::numeric BETWEEN lo AND hi
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
    SELECT e.status = 'running' AND e.source_server IS NULL AND e.backend_pid IS NOT NULL
       AND NOT EXISTS (SELECT FROM pg_stat_get_activity(e.backend_pid) a
                        WHERE a.backend_start = e.backend_start AND a.state = 'active'
                          AND (a.query_start <= e.started_at OR a.xact_start <= e.started_at))
$$;

CREATE FUNCTION pgbench_lab.experiment_begin_as(caller regrole, args jsonb)
RETURNS jsonb LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    id bigint;
    proc text := CASE args->>'kind'
        WHEN 'sweep' THEN 'pgbench_lab.sweep(text,integer[],interval,text,jsonb,bigint,integer,double precision,integer,text)'
        WHEN 'compare_settings' THEN 'pgbench_lab.compare_settings(text,jsonb[],integer,interval,integer,text,bigint,text)'
        WHEN 'cold_vs_warm' THEN 'pgbench_lab.cold_vs_warm(text,integer,interval,regclass[],bigint,text)'
        WHEN 'connection_cost' THEN 'pgbench_lab.connection_cost(text,integer,interval,text,text,bigint,bigint,bigint,double precision,double precision,double precision,double precision,double precision,double precision,double precision,text)'
        END;
BEGIN
    IF proc IS NULL THEN
        RAISE EXCEPTION 'unknown experiment kind "%"', args->>'kind'
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Valid kinds are sweep, compare_settings, cold_vs_warm and connection_cost.';
    END IF;
    IF NOT has_function_privilege(caller::oid, proc, 'EXECUTE') THEN
        RAISE EXCEPTION 'permission denied to record a % experiment', args->>'kind'
            USING ERRCODE = 'insufficient_privilege',
                  HINT = 'Experiments are recorded by the procedures that run them.';
    END IF;
    -- experiments whose procedure stopped (an error, a cancel, a lost
    -- session) are marked aborted as the next one begins
    UPDATE pgbench_lab.experiments e
       SET status = 'aborted', finished_at = clock_timestamp()
     WHERE e.status = 'running' AND pgbench_lab.experiment_stopped(e);
    INSERT INTO pgbench_lab.experiments (kind, workload, label, params, owner, backend_pid, backend_start)
    VALUES (args->>'kind', args->>'workload', args->>'label', coalesce(args->'params', '{}'), caller,
            pg_backend_pid(), (SELECT a.backend_start FROM pg_stat_get_activity(pg_backend_pid()) a))
    RETURNING experiment_id INTO id;
    RETURN jsonb_build_object('experiment_id', id);
END
$$;

-- The id of a running experiment of the caller, locked; an error otherwise.
CREATE FUNCTION pgbench_lab.running_experiment_of(caller regrole, args jsonb)
RETURNS bigint LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    eid bigint := pgbench_lab.json_int(args->'experiment_id', 1, 9223372036854775807);
BEGIN
    PERFORM FROM pgbench_lab.experiments e
     WHERE e.experiment_id = eid AND e.status = 'running' AND e.source_server IS NULL
       AND pg_has_role(caller::oid, e.owner::oid, 'USAGE')
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
    eid bigint := pgbench_lab.running_experiment_of(caller, args);
    rid bigint := pgbench_lab.json_int(args->'run_id', 1, 9223372036854775807);
    n integer;
BEGIN
    PERFORM FROM pgbench_lab.runs r
     WHERE r.run_id = rid AND r.source_server IS NULL
       AND pg_has_role(caller::oid, r.owner::oid, 'USAGE');
    IF NOT FOUND THEN
        RAISE EXCEPTION 'run % is not a run of role %', rid, caller
            USING ERRCODE = 'insufficient_privilege',
                  HINT = 'An experiment links only runs its owner made on this server.';
    END IF;
    SELECT count(*) + 1 INTO n FROM pgbench_lab.experiment_runs WHERE experiment_id = eid;
    INSERT INTO pgbench_lab.experiment_runs (experiment_id, ordinal, run_id, variant, round)
    VALUES (eid, n, rid,
            coalesce(pgbench_lab.json_int(args->'variant', 1, 2147483647), n),
            coalesce(pgbench_lab.json_int(args->'round', 1, 2147483647), 1));
    RETURN jsonb_build_object('ordinal', n);
END
$$;

-- Done if every run is done, else failed.
CREATE FUNCTION pgbench_lab.experiment_end_as(caller regrole, args jsonb)
RETURNS jsonb LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    eid bigint := pgbench_lab.running_experiment_of(caller, args);
    st text;
BEGIN
    UPDATE pgbench_lab.experiments e
       SET finished_at = clock_timestamp(),
           status = CASE WHEN EXISTS (SELECT FROM pgbench_lab.experiment_runs x
                                        JOIN pgbench_lab.runs r ON r.run_id = x.run_id
                                       WHERE x.experiment_id = e.experiment_id
                                         AND r.status <> 'done')
                         THEN 'failed' ELSE 'done' END
     WHERE e.experiment_id = eid
    RETURNING e.status INTO st;
    RETURN jsonb_build_object('status', st);
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
    IF typ = 'timestamptz' THEN
        PERFORM s::timestamptz;
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
    SELECT CASE what
        WHEN 'run' THEN '{"run_id": "id!", "label": "text",
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
            "tps_without_connections": "num"}'::jsonb
        WHEN 'progress' THEN '{"second": "count!", "interval_seconds": "num!",
            "transactions": "nonneg!", "tps": "num!", "latency_avg_ms": "num",
            "latency_max_ms": "num", "failures": "nonneg!", "hit_ratio": "ratio"}'::jsonb
        WHEN 'latency' THEN '{"bucket_upper_us": "num!", "count": "nonneg!"}'::jsonb
        WHEN 'experiment' THEN '{"experiment_id": "id!", "kind": "kind!", "workload": "text!",
            "label": "text", "params": "object!", "started_at": "time!", "finished_at": "time",
            "status": "exp_status!", "source_server": "text", "source_experiment_id": "id"}'::jsonb
        WHEN 'experiment_run' THEN '{"run_id": "id!", "ordinal": "count!", "variant": "count!",
            "round": "count!"}'::jsonb
        -- params, by kind
        WHEN 'sweep' THEN '{"clients": "array!", "duration": "interval", "settings": "object"}'::jsonb
        WHEN 'compare_settings' THEN '{"settings": "array!", "clients": "count!",
            "duration": "interval", "rounds": "count!"}'::jsonb
        WHEN 'cold_vs_warm' THEN '{"clients": "count!", "duration": "interval",
            "relations": "array", "relids": "array"}'::jsonb
        WHEN 'connection_cost' THEN '{"clients": "count!", "duration": "interval",
            "rounds": "count", "settings": "array"}'::jsonb
        END
$$;

-- The fields of a row that the document carries.
CREATE FUNCTION pgbench_lab.doc_fields(row_doc jsonb, what text)
RETURNS jsonb LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT coalesce(jsonb_object_agg(r.key, r.value), '{}')
      FROM jsonb_each(row_doc) r
     WHERE pgbench_lab.doc_spec(what) ? r.key
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
        SELECT f.key, f.want LIKE '%!' AS required, k.*
          FROM jsonb_each_text(spec) AS f(key, want)
          JOIN (VALUES
                ('text', false, false, NULL::numeric, NULL::numeric, NULL::text[], 'a string'),
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
            ON k.kind = rtrim(f.want, '!')),
    e AS (
        SELECT a.elem, a.n - 1 AS i FROM jsonb_array_elements(arr) WITH ORDINALITY AS a(elem, n)),
    b AS (
        SELECT e.i, NULL::text AS key, 'must be an object' AS problem
          FROM e WHERE jsonb_typeof(e.elem) <> 'object'
        UNION ALL
        SELECT e.i, s.key,
               CASE WHEN v.v IS NULL OR jsonb_typeof(v.v) = 'null'
                    THEN CASE WHEN s.required THEN 'is missing' END
                    WHEN s.is_number THEN
                        CASE WHEN jsonb_typeof(v.v) <> 'number' THEN 'is not ' || s.descr
                             WHEN NOT s.whole AND NOT (abs(v.v::numeric) < 1e300
                                                       AND (v.v::numeric = 0 OR abs(v.v::numeric) >= 2.5e-324))
                             THEN 'is out of range for double precision'
                             WHEN s.whole AND v.v::numeric <> trunc(v.v::numeric) THEN 'is not ' || s.descr
                             WHEN v.v::numeric < coalesce(s.lo, v.v::numeric)
                                  OR v.v::numeric > coalesce(s.hi, v.v::numeric)
                             THEN 'is not ' || s.descr END
                    WHEN NOT CASE WHEN jsonb_typeof(v.v) <> CASE s.kind WHEN 'object' THEN 'object'
                                                                        WHEN 'array' THEN 'array'
                                                                        ELSE 'string' END
                                  THEN false
                                  WHEN s.vals IS NOT NULL THEN (v.v #>> '{}') = ANY (s.vals)
                                  WHEN s.kind = 'time' THEN pgbench_lab.reads_as(v.v #>> '{}', 'timestamptz')
                                  WHEN s.kind = 'interval' THEN pgbench_lab.reads_as(v.v #>> '{}', 'interval')
                                  ELSE true END
                    THEN 'is not ' || s.descr END
          FROM e CROSS JOIN s
          CROSS JOIN LATERAL (SELECT e.elem -> s.key) AS v(v)
         WHERE jsonb_typeof(e.elem) = 'object')
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
    bad record;
BEGIN
    SELECT * INTO bad FROM pgbench_lab.doc_first_bad(jsonb_build_array(obj), spec);
    IF FOUND THEN
        PERFORM pgbench_lab.doc_invalid(format('%s%s %s', path,
            CASE WHEN coalesce(bad.key, '') = '' THEN '' ELSE '.' || bad.key END, bad.problem));
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
    bad record;
    dup record;
BEGIN
    IF jsonb_typeof(arr) IS DISTINCT FROM 'array' THEN
        PERFORM pgbench_lab.doc_invalid(format('%s must be an array', path));
    END IF;
    SELECT * INTO bad FROM pgbench_lab.doc_first_bad(arr, spec);
    -- the elements before the first bad one are sound: their values cast
    SELECT d.i, d.key, d.val INTO dup
      FROM (SELECT a.n - 1 AS i, k.key, a.elem ->> k.key AS val,
                   row_number() OVER (PARTITION BY k.key,
                       CASE WHEN rtrim(spec ->> k.key, '!') = 'num'
                            THEN to_jsonb((a.elem ->> k.key)::float8) ELSE a.elem -> k.key END
                       ORDER BY a.n) AS dups
              FROM jsonb_array_elements(arr) WITH ORDINALITY AS a(elem, n)
             CROSS JOIN unnest(uniq) AS k(key)
             WHERE a.n - 1 < coalesce(bad.i, 9223372036854775807)
               AND jsonb_typeof(a.elem -> k.key) IS DISTINCT FROM 'null'
               AND a.elem -> k.key IS NOT NULL) d
     WHERE d.dups > 1
     ORDER BY d.i, d.key
     LIMIT 1;
    IF dup.i IS NOT NULL THEN
        RAISE EXCEPTION 'invalid export document: %[%]% % appears twice', path, dup.i,
                        CASE WHEN dup.key = '' THEN '' ELSE '.' || dup.key END, dup.val
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Each run, progress second, latency bucket, experiment, ordinal, run of an experiment and sweep client count appears once.';
    END IF;
    IF bad.i IS NOT NULL THEN
        PERFORM pgbench_lab.doc_invalid(format('%s[%s]%s %s', path, bad.i,
            CASE WHEN coalesce(bad.key, '') = '' THEN '' ELSE '.' || bad.key END, bad.problem));
    END IF;
END
$$;

-- [v1, v2] as [{"": v1}, {"": v2}], to check array elements with doc_check_each.
CREATE FUNCTION pgbench_lab.json_wrap(arr jsonb)
RETURNS jsonb LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN jsonb_typeof(arr) = 'array'
                THEN coalesce((SELECT jsonb_agg(jsonb_build_object('', v) ORDER BY i)
                                 FROM jsonb_array_elements(arr) WITH ORDINALITY AS a(v, i)), '[]') END
$$;

-- The parameters of an experiment of the document, by its kind, and the
-- variants its runs may have (reports name them: A, B... for settings
-- sets, cold/OS-warm/warm); path is the experiment's.
CREATE FUNCTION pgbench_lab.doc_check_params(e jsonb, path text)
RETURNS void LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    kind text := e->>'kind';
    params jsonb := e->'params';
    sets integer;
    fewest integer := CASE WHEN kind = 'compare_settings' THEN 2 ELSE 1 END;
    variants integer;
    bad bigint;
BEGIN
    PERFORM pgbench_lab.doc_check(params, pgbench_lab.doc_spec(kind), path || '.params');
    IF kind = 'sweep' THEN
        PERFORM pgbench_lab.doc_check_each(pgbench_lab.json_wrap(params->'clients'), '{"": "count!"}',
                                           path || '.params.clients', '{""}');
        variants := jsonb_array_length(params->'clients');
    ELSIF kind = 'cold_vs_warm' THEN
        IF jsonb_typeof(params->'relations') = 'array' THEN
            PERFORM pgbench_lab.doc_check_each(pgbench_lab.json_wrap(params->'relations'), '{"": "text!"}',
                                               path || '.params.relations', '{}');
        END IF;
        IF jsonb_typeof(params->'relids') = 'array' THEN
            PERFORM pgbench_lab.doc_check_each(pgbench_lab.json_wrap(params->'relids'), '{"": "oid!"}',
                                               path || '.params.relids', '{}');
        END IF;
        variants := 3;      -- cold, OS-warm, warm
    ELSE
        -- compare_settings, connection_cost: sets of settings (for
        -- connection_cost the three paths), named A, B...
        IF jsonb_typeof(params->'settings') = 'array' THEN
            PERFORM pgbench_lab.doc_check_each(pgbench_lab.json_wrap(params->'settings'), '{"": "object!"}',
                                               path || '.params.settings', '{}');
            sets := jsonb_array_length(params->'settings');
            IF sets < fewest OR sets > 26 THEN
                PERFORM pgbench_lab.doc_invalid(format('%s.params.settings holds %s set(s), not %s to 26',
                                                       path, sets, fewest));
            END IF;
        END IF;
        variants := coalesce(sets, 3);
    END IF;
    SELECT x.n - 1 INTO bad FROM jsonb_array_elements(e->'runs') WITH ORDINALITY AS x(r, n)
     WHERE (x.r->>'variant')::numeric > variants
     ORDER BY x.n LIMIT 1;
    IF FOUND THEN
        PERFORM pgbench_lab.doc_invalid(format('%s.runs[%s].variant is not from 1 to %s (the %s of the experiment)',
            path, bad, variants, CASE kind WHEN 'sweep' THEN 'client counts'
                                           WHEN 'cold_vs_warm' THEN 'cold, OS-warm and warm runs'
                                           ELSE 'sets of settings' END));
    END IF;
END
$$;

CREATE FUNCTION pgbench_lab.doc_validate(doc jsonb)
RETURNS void LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    r record;
    missing bigint;
BEGIN
    IF doc IS NULL OR jsonb_typeof(doc) = 'null' THEN
        RAISE EXCEPTION 'export document must not be null'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Pass a document made by pgbench_lab.export(); the format is described in the README.';
    END IF;
    PERFORM pgbench_lab.doc_check(doc, '{"format": "text!", "version": "count!", "server": "object!",
        "runs": "array!", "experiments": "array", "exported_at": "time"}', '$');
    IF doc->>'format' <> 'pgbench_lab export' OR doc->'version' <> '1' THEN
        RAISE EXCEPTION 'unsupported export document: format "%" version %',
                        pgbench_lab.printable(doc->>'format'), doc->'version'
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'This version of pgbench_lab reads format "pgbench_lab export" version 1.';
    END IF;
    PERFORM pgbench_lab.doc_check(doc->'server', '{"name": "text!", "server_version": "text"}', '$.server');
    PERFORM pgbench_lab.doc_check_each(doc->'runs', pgbench_lab.doc_spec('run')
        || '{"progress": "array!", "latency": "array!"}', '$.runs', '{run_id}');
    FOR r IN SELECT a.elem, a.n - 1 AS i FROM jsonb_array_elements(doc->'runs') WITH ORDINALITY AS a(elem, n) LOOP
        PERFORM pgbench_lab.doc_check_each(r.elem->'progress', pgbench_lab.doc_spec('progress'),
                                           format('$.runs[%s].progress', r.i), '{second}');
        PERFORM pgbench_lab.doc_check_each(r.elem->'latency', pgbench_lab.doc_spec('latency'),
                                           format('$.runs[%s].latency', r.i), '{bucket_upper_us}');
    END LOOP;
    IF NOT doc ? 'experiments' THEN
        RETURN;
    END IF;
    PERFORM pgbench_lab.doc_check_each(doc->'experiments', pgbench_lab.doc_spec('experiment')
        || '{"runs": "array!"}', '$.experiments', '{experiment_id}');
    -- the first experiment that names a run the document does not hold
    SELECT e.n - 1 INTO missing
      FROM jsonb_array_elements(doc->'experiments') WITH ORDINALITY AS e(elem, n)
     WHERE EXISTS (SELECT FROM jsonb_array_elements(e.elem->'runs') x
                    WHERE jsonb_typeof(x) = 'object'
                      AND NOT EXISTS (SELECT FROM jsonb_array_elements(doc->'runs') d
                                       WHERE d->'run_id' = x->'run_id'))
     ORDER BY e.n LIMIT 1;
    FOR r IN SELECT a.elem, a.n - 1 AS i FROM jsonb_array_elements(doc->'experiments') WITH ORDINALITY AS a(elem, n) LOOP
        PERFORM pgbench_lab.doc_check_each(r.elem->'runs', pgbench_lab.doc_spec('experiment_run'),
                                           format('$.experiments[%s].runs', r.i), '{ordinal,run_id}');
        PERFORM pgbench_lab.doc_check_params(r.elem, format('$.experiments[%s]', r.i));
        IF r.i = missing THEN
            PERFORM pgbench_lab.doc_invalid(format('$.experiments[%s] names a run that is not in $.runs', r.i));
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
    src text;
    ids jsonb;
    out_runs jsonb;
    out_experiments jsonb;
BEGIN
    IF NOT has_function_privilege(caller::oid, 'pgbench_lab.import(jsonb)', 'EXECUTE') THEN
        RAISE EXCEPTION 'permission denied for function import'
            USING ERRCODE = 'insufficient_privilege',
                  HINT = 'A superuser can GRANT EXECUTE ON FUNCTION pgbench_lab.import(jsonb).';
    END IF;
    PERFORM pgbench_lab.doc_validate(doc);
    src := doc->'server'->>'name';
    -- numbers are read through numeric: a document may write 2 as 2.0
    WITH d AS MATERIALIZED (
        SELECT a.r, a.n, (a.r->>'run_id')::numeric::bigint AS source_id,
               nextval('pgbench_lab.runs_run_id_seq'::regclass) AS new_id
          FROM jsonb_array_elements(doc->'runs') WITH ORDINALITY AS a(r, n)
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
        SELECT d.new_id, r->>'label', r->>'workload', coalesce(r->>'via', 'spi'),
               (r->>'clients')::numeric::integer, (r->>'scale')::numeric::integer,
               (r->>'duration')::interval, (r->>'transactions_per_client')::numeric::bigint,
               (r->>'max_tries')::numeric::integer, (r->>'random_seed')::numeric::bigint,
               (r->>'started_at')::timestamptz, (r->>'finished_at')::timestamptz, r->>'status',
               (r->>'measured_seconds')::float8, (r->>'transactions')::numeric::bigint,
               (r->>'failures')::numeric::bigint, (r->>'retries')::numeric::bigint,
               (r->>'tps')::float8, (r->>'latency_avg_ms')::float8, (r->>'latency_stddev_ms')::float8,
               (r->>'latency_p50_ms')::float8, (r->>'latency_p90_ms')::float8,
               (r->>'latency_p95_ms')::float8, (r->>'latency_p99_ms')::float8,
               (r->>'latency_max_ms')::float8, (r->>'blks_hit')::numeric::bigint,
               (r->>'blks_read')::numeric::bigint, (r->>'hit_ratio')::float8,
               (r->>'wal_bytes')::numeric, (r->>'checkpoints')::numeric::bigint,
               coalesce(CASE WHEN jsonb_typeof(r->'settings') = 'object' THEN r->'settings' END, '{}'),
               CASE WHEN jsonb_typeof(r->'system') = 'object' THEN r->'system' END, caller,
               r->>'error', coalesce(r->>'source_server', src),
               coalesce((r->>'source_run_id')::numeric::bigint, d.source_id), now(),
               r->>'target_display', (r->>'connections')::numeric::bigint,
               (r->>'connection_avg_ms')::float8, (r->>'tps_without_connections')::float8
          FROM d),
    progress AS (
        INSERT INTO pgbench_lab.run_progress (run_id, second, interval_seconds, transactions, tps,
                                              latency_avg_ms, latency_max_ms, failures, hit_ratio)
        SELECT d.new_id, (p->>'second')::numeric::integer, (p->>'interval_seconds')::float8,
               (p->>'transactions')::numeric::bigint, (p->>'tps')::float8,
               (p->>'latency_avg_ms')::float8, (p->>'latency_max_ms')::float8,
               (p->>'failures')::numeric::bigint, (p->>'hit_ratio')::float8
          FROM d CROSS JOIN LATERAL jsonb_array_elements(d.r->'progress') AS x(p)),
    latency AS (
        INSERT INTO pgbench_lab.run_latency (run_id, bucket_upper_us, count)
        SELECT d.new_id, (l->>'bucket_upper_us')::float8, (l->>'count')::numeric::bigint
          FROM d CROSS JOIN LATERAL jsonb_array_elements(d.r->'latency') AS x(l))
    SELECT coalesce(jsonb_object_agg(d.source_id, d.new_id), '{}'),
           coalesce(jsonb_agg(jsonb_build_object('kind', 'run', 'source_id', d.source_id, 'id', d.new_id)
                              ORDER BY d.n), '[]')
      INTO ids, out_runs
      FROM d;
    WITH d AS MATERIALIZED (
        SELECT a.e, a.n, (a.e->>'experiment_id')::numeric::bigint AS source_id,
               nextval('pgbench_lab.runs_run_id_seq'::regclass) AS new_id
          FROM jsonb_array_elements(coalesce(doc->'experiments', '[]')) WITH ORDINALITY AS a(e, n)
         ORDER BY a.n),
    experiments AS (
        INSERT INTO pgbench_lab.experiments (experiment_id, kind, workload, label, params, started_at,
            finished_at, status, owner, source_server, source_experiment_id, imported_at)
        SELECT d.new_id, e->>'kind', e->>'workload', e->>'label', e->'params',
               (e->>'started_at')::timestamptz, (e->>'finished_at')::timestamptz, e->>'status',
               caller, coalesce(e->>'source_server', src),
               coalesce((e->>'source_experiment_id')::numeric::bigint, d.source_id), now()
          FROM d),
    links AS (
        INSERT INTO pgbench_lab.experiment_runs (experiment_id, ordinal, run_id, variant, round)
        SELECT d.new_id, (x->>'ordinal')::numeric::integer,
               (ids->>((x->>'run_id')::numeric::bigint)::text)::bigint,
               (x->>'variant')::numeric::integer, (x->>'round')::numeric::integer
          FROM d CROSS JOIN LATERAL jsonb_array_elements(d.e->'runs') AS l(x))
    SELECT coalesce(jsonb_agg(jsonb_build_object('kind', 'experiment', 'source_id', d.source_id,
                                                 'id', d.new_id) ORDER BY d.n), '[]')
      INTO out_experiments
      FROM d;
    RETURN out_runs || out_experiments;
END
$$;

-- The only entry of record(): dispatch to the action, as the extension owner.
CREATE FUNCTION pgbench_lab.record_as(caller regrole, action text, args jsonb)
RETURNS jsonb LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF action IS NULL OR action NOT IN ('experiment_begin', 'experiment_add', 'experiment_end', 'import') THEN
        RAISE EXCEPTION 'unknown action "%"', action
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Valid actions are experiment_begin, experiment_add, experiment_end and import.';
    END IF;
    RETURN CASE action
        WHEN 'experiment_begin' THEN pgbench_lab.experiment_begin_as(caller, args)
        WHEN 'experiment_add' THEN pgbench_lab.experiment_add_as(caller, args)
        WHEN 'experiment_end' THEN pgbench_lab.experiment_end_as(caller, args)
        ELSE pgbench_lab.import_as(caller, args) END;
END
$$;

CREATE FUNCTION pgbench_lab.import(doc jsonb)
RETURNS TABLE (kind text, source_id bigint, id bigint)
LANGUAGE sql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT x.kind, x.source_id, x.id
      FROM jsonb_to_recordset(pgbench_lab.record('import', coalesce(doc, 'null')))
           AS x(kind text, source_id bigint, id bigint)
$$;
COMMENT ON FUNCTION pgbench_lab.import(jsonb) IS
    'Import runs and experiments from an export document: new local ids, marked with their source server';

-- One run as the document holds it.
CREATE FUNCTION pgbench_lab.export_run(r pgbench_lab.runs)
RETURNS jsonb LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pgbench_lab.doc_fields(to_jsonb(r), 'run')
        || jsonb_build_object(
            'progress', (SELECT coalesce(jsonb_agg(to_jsonb(p) - 'run_id' ORDER BY p.second), '[]')
                           FROM pgbench_lab.run_progress p WHERE p.run_id = r.run_id),
            'latency', (SELECT coalesce(jsonb_agg(to_jsonb(l) - 'run_id' ORDER BY l.bucket_upper_us), '[]')
                          FROM pgbench_lab.run_latency l WHERE l.run_id = r.run_id))
$$;

-- ids: runs and experiments (an experiment brings its runs); NULL = every
-- finished run and experiment the caller can read.
CREATE FUNCTION pgbench_lab.export(run_ids bigint[] DEFAULT NULL)
RETURNS jsonb LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
SET intervalstyle = 'postgres'
AS $$
DECLARE
    rids bigint[];
    eids bigint[];
    bad bigint;
BEGIN
    IF run_ids IS NULL THEN
        rids := ARRAY(SELECT r.run_id FROM pgbench_lab.runs r WHERE r.status <> 'running');
        eids := ARRAY(SELECT e.experiment_id FROM pgbench_lab.experiments e
                       WHERE e.status <> 'running'
                         AND NOT EXISTS (SELECT FROM pgbench_lab.experiment_runs x
                                          WHERE x.experiment_id = e.experiment_id
                                            AND NOT x.run_id = ANY (rids)));
    ELSE
        PERFORM pgbench_lab.check_ids(run_ids, true);
        eids := ARRAY(SELECT e.experiment_id FROM pgbench_lab.experiments e
                       WHERE e.experiment_id = ANY (run_ids));
        rids := ARRAY(SELECT r.run_id FROM pgbench_lab.runs r WHERE r.run_id = ANY (run_ids)
                      UNION
                      SELECT x.run_id FROM pgbench_lab.experiment_runs x
                       WHERE x.experiment_id = ANY (eids));
        SELECT r.run_id INTO bad FROM pgbench_lab.runs r
         WHERE r.run_id = ANY (rids) AND r.status = 'running' LIMIT 1;
        IF FOUND THEN
            RAISE EXCEPTION 'run % is still running', bad
                USING ERRCODE = 'object_not_in_prerequisite_state',
                      HINT = 'Export it when it has finished: CALL pgbench_lab.wait(run_id).';
        END IF;
    END IF;
    RETURN jsonb_build_object(
        'format', 'pgbench_lab export',
        'version', 1,
        'exported_at', now(),
        'server', jsonb_build_object(
            'name', pgbench_lab.server_name(),
            'server_version', current_setting('server_version'),
            'extension_version', (SELECT extversion FROM pg_extension WHERE extname = 'pgbench_lab')),
        'runs', (SELECT coalesce(jsonb_agg(pgbench_lab.export_run(r) ORDER BY r.run_id), '[]')
                   FROM pgbench_lab.runs r WHERE r.run_id = ANY (rids)),
        'experiments', (SELECT coalesce(jsonb_agg(pgbench_lab.doc_fields(to_jsonb(e), 'experiment')
                  || jsonb_build_object('runs',
                       (SELECT coalesce(jsonb_agg(to_jsonb(x) - 'experiment_id' ORDER BY x.ordinal), '[]')
                          FROM pgbench_lab.experiment_runs x
                         WHERE x.experiment_id = e.experiment_id))
                  ORDER BY e.experiment_id), '[]')
                   FROM pgbench_lab.experiments e WHERE e.experiment_id = ANY (eids)));
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
    IF ndims > 1 THEN
        RAISE EXCEPTION '% must be a one-dimensional array, not one of % dimensions', what, ndims
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = format('Pass a plain list, for example %s.', example);
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
    bad bigint;
BEGIN
    IF ids IS NULL OR cardinality(ids) = 0 THEN
        RAISE EXCEPTION 'ids must not be null or empty'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Pass an array of run ids, for example ARRAY[41, 42].';
    END IF;
    PERFORM pgbench_lab.check_flat(array_ndims(ids), 'ids', 'ARRAY[41, 42]');
    IF array_position(ids, NULL) IS NOT NULL THEN
        RAISE EXCEPTION 'ids must not contain null'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Pass an array of run ids, for example ARRAY[41, 42].';
    END IF;
    SELECT i INTO bad FROM unnest(ids) AS i
     WHERE NOT EXISTS (SELECT FROM pgbench_lab.runs r WHERE r.run_id = i)
       AND NOT (experiments_too AND EXISTS (SELECT FROM pgbench_lab.experiments e
                                             WHERE e.experiment_id = i))
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
    SELECT (pgbench_lab.record('experiment_begin', jsonb_build_object('kind', kind,
            'workload', workload, 'label', label, 'params', params))->>'experiment_id')::bigint
$$;

CREATE FUNCTION pgbench_lab.experiment_add(experiment_id bigint, run_id bigint, variant integer, round integer)
RETURNS void LANGUAGE sql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT FROM pgbench_lab.record('experiment_add', jsonb_build_object('experiment_id', experiment_id,
            'run_id', run_id, 'variant', variant, 'round', round))
$$;

CREATE FUNCTION pgbench_lab.experiment_end(experiment_id bigint)
RETURNS void LANGUAGE sql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT FROM pgbench_lab.record('experiment_end', jsonb_build_object('experiment_id', experiment_id))
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
    PERFORM pgbench_lab.check_flat(array_ndims(clients), 'clients', '''{1,2,4,8}''');
    IF clients IS NULL OR cardinality(clients) = 0 OR array_position(clients, NULL) IS NOT NULL THEN
        RAISE EXCEPTION 'clients must be a non-empty array without nulls'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Pass the client counts to try, for example ''{1,2,4,8}''.';
    END IF;
    IF EXISTS (SELECT FROM unnest(clients) c WHERE c < 1) THEN
        RAISE EXCEPTION 'client counts must be 1 or more'
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Pass positive client counts, for example ''{1,2,4,8}''.';
    END IF;
    IF (SELECT max(c) FROM unnest(clients) c) > current_setting('pgbench_lab.max_clients')::integer THEN
        RAISE EXCEPTION 'client counts must not exceed pgbench_lab.max_clients (%)',
                        current_setting('pgbench_lab.max_clients')
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Checked before the first run, so that a sweep does not stop halfway; a superuser can raise pgbench_lab.max_clients.';
    END IF;
    IF (SELECT count(DISTINCT c) FROM unnest(clients) c) < cardinality(clients) THEN
        RAISE EXCEPTION 'client counts must not repeat'
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Pass each client count once; run compare_settings for repeated rounds.';
    END IF;
    RETURN ARRAY(SELECT c FROM unnest(clients) c ORDER BY c);
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
    PERFORM pgbench_lab.check_flat(array_ndims(settings), 'settings',
                                   'ARRAY[''{}'', ''{"jit": "off"}'']::jsonb[]');
    IF settings IS NULL OR cardinality(settings) NOT BETWEEN 2 AND 26 THEN
        RAISE EXCEPTION 'settings must hold 2 to 26 sets of settings'
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Pass an array of jsonb objects, for example ARRAY[''{"synchronous_commit": "on"}'', ''{"synchronous_commit": "off"}'']::jsonb[].';
    END IF;
    IF EXISTS (SELECT FROM unnest(settings) s WHERE jsonb_typeof(s) IS DISTINCT FROM 'object') THEN
        RAISE EXCEPTION 'each set of settings must be a jsonb object'
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Use ''{}'' for the current settings and {"name": "value"} for others.';
    END IF;
    IF rounds NOT BETWEEN 1 AND 100 THEN
        RAISE EXCEPTION 'rounds must be from 1 to 100'
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Three rounds or more give a spread worth reading.';
    END IF;
    RETURN jsonb_build_object('settings', to_jsonb(settings), 'clients', clients,
                              'duration', duration::text, 'rounds', rounds);
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
    k text;
    wanted text := array_to_string(kinds, ' or ');
BEGIN
    IF experiment_id IS NULL THEN
        RAISE EXCEPTION 'experiment_id must not be null'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = format('Pass the id of a %s experiment from pgbench_lab.experiments.', wanted);
    END IF;
    SELECT e.kind INTO k FROM pgbench_lab.experiments e WHERE e.experiment_id = check_experiment.experiment_id;
    IF NOT FOUND THEN
        IF EXISTS (SELECT FROM pgbench_lab.runs r WHERE r.run_id = check_experiment.experiment_id) THEN
            RAISE EXCEPTION '% needs a % experiment, and % is a run', fn, wanted, experiment_id
                USING ERRCODE = 'invalid_parameter_value',
                      HINT = 'Read a run with pgbench_lab.report(run_id).';
        END IF;
        RAISE EXCEPTION 'experiment % does not exist or is not visible to you', experiment_id
            USING ERRCODE = 'undefined_object',
                  HINT = 'pgbench_lab.experiments lists what you can read: your own, or all for members of pg_monitor.';
    END IF;
    IF NOT k = ANY (kinds) THEN
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
    SELECT s.*, CASE WHEN s.clients > s.prev_clients
                     THEN pgbench_lab.to_float8((s.tps::numeric / s.prev_tps::numeric - 1)
                                                / (s.clients::numeric / s.prev_clients - 1)) END
      FROM (SELECT r.clients, r.run_id, r.tps, r.latency_avg_ms, r.latency_p99_ms,
                   lag(r.clients) OVER w AS prev_clients, lag(r.tps) OVER w AS prev_tps,
                   lag(r.latency_avg_ms) OVER w AS prev_latency_avg_ms
              FROM pgbench_lab.experiment_runs x
              JOIN pgbench_lab.runs r ON r.run_id = x.run_id
             WHERE x.experiment_id = sweep_steps.experiment_id
               AND r.status = 'done' AND r.tps > 0
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
    pk record;
    kn record;
    n integer;
    top integer;
    tail record;
    peak_text text;
    knee_text text;
BEGIN
    PERFORM pgbench_lab.check_experiment(experiment_id, '{sweep}', 'sweep_verdict()');
    SELECT count(*), max(s.clients) INTO n, top FROM pgbench_lab.sweep_steps(experiment_id) s;
    IF n = 0 THEN
        finding := 'No finished runs: no peak and no knee.';
        RETURN;
    END IF;
    SELECT * INTO pk FROM pgbench_lab.sweep_steps(experiment_id) s ORDER BY s.tps DESC, s.clients LIMIT 1;
    peak_clients := pk.clients;
    peak_tps := pk.tps;
    peak_text := format('Peak: %s at %s tps, the highest throughput of the sweep',
                        pgbench_lab.clients_text(pk.clients), pgbench_lab.fmt(pk.tps));
    SELECT * INTO tail FROM pgbench_lab.sweep_steps(experiment_id) s WHERE s.clients > pk.clients
     ORDER BY s.clients DESC LIMIT 1;
    IF tail IS NULL THEN
        IF n > 1 THEN
            peak_text := peak_text || ' (the largest count tried: more clients may go higher)';
        END IF;
    ELSE
        peak_text := peak_text || format('; at %s clients TPS was %s lower', tail.clients,
                                         ltrim(pgbench_lab.pct_change(tail.tps, pk.tps), '-'));
    END IF;
    SELECT * INTO kn FROM pgbench_lab.sweep_steps(experiment_id) s
     WHERE s.linear_share < 0.5 ORDER BY s.clients LIMIT 1;
    IF n < 2 THEN
        knee_text := 'Knee: not found: it needs at least two finished client counts';
    ELSIF kn IS NULL THEN
        knee_text := format('Knee: not reached: up to %s clients every step added at least half of linear throughput; sweep higher counts', top);
    ELSE
        knee_clients := kn.prev_clients;
        knee_text := format('Knee: %s: going from %s to %s clients (%s) changed TPS by %s (%s%% of linear scaling) while average latency changed by %s, so more clients add latency rather than throughput',
                            pgbench_lab.clients_text(kn.prev_clients), kn.prev_clients, kn.clients,
                            pgbench_lab.pct_change(kn.clients, kn.prev_clients),
                            pgbench_lab.pct_change(kn.tps, kn.prev_tps),
                            round((kn.linear_share * 100)::numeric),
                            coalesce(nullif(pgbench_lab.pct_change(kn.latency_avg_ms, kn.prev_latency_avg_ms), ''), 'an unknown amount'));
    END IF;
    finding := peak_text || '. ' || knee_text || '.';
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
           nullif(concat_ws(', ', CASE WHEN s.clients = v.peak_clients THEN 'peak' END,
                                  CASE WHEN s.clients = v.knee_clients THEN 'knee' END), '')
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
          JOIN pgbench_lab.runs r ON r.run_id = x.run_id
         WHERE x.experiment_id = settings_ratios.experiment_id AND r.status = 'done')
    SELECT t.variant, chr(64 + t.variant),
           (SELECT e.params->'settings'->(t.variant - 1) FROM pgbench_lab.experiments e
             WHERE e.experiment_id = settings_ratios.experiment_id),
           count(*)::integer,
           percentile_cont(0.5) WITHIN GROUP (ORDER BY t.tps), min(t.tps), max(t.tps),
           percentile_cont(0.5) WITHIN GROUP (ORDER BY t.latency_avg_ms),
           percentile_cont(0.5) WITHIN GROUP (ORDER BY pgbench_lab.ratio(t.tps, a.tps)),
           min(pgbench_lab.ratio(t.tps, a.tps)), max(pgbench_lab.ratio(t.tps, a.tps))
      FROM t LEFT JOIN t a ON a.variant = 1 AND a.round = t.round
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
    SELECT coalesce(string_agg(format('%s (%s) against A: TPS ×%s median over %s rounds (min ×%s, max ×%s); %s',
                    s.name, pgbench_lab.settings_text(s.settings),
                    pgbench_lab.fmt(s.ratio_median, 3), s.rounds,
                    pgbench_lab.fmt(s.ratio_min, 3), pgbench_lab.fmt(s.ratio_max, 3),
                    CASE WHEN s.ratio_median IS NULL THEN 'no round of A to compare with'
                         WHEN s.rounds < 2 THEN 'one round only: no spread to judge by'
                         WHEN s.ratio_min < 1 AND s.ratio_max > 1
                         THEN 'the rounds disagree on the direction: within the noise'
                         WHEN s.ratio_min >= 1 THEN 'faster in every round'
                         ELSE 'slower in every round' END), '. ' ORDER BY s.variant) || '.',
                    'No finished runs to compare.')
      FROM pgbench_lab.settings_ratios(experiment_id) s
     WHERE s.variant > 1
$$;

-- The parameters of a sweep, checked.
CREATE FUNCTION pgbench_lab.sweep_params(workload text, clients integer[], duration interval, settings jsonb)
RETURNS jsonb LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
SET intervalstyle = 'postgres'
AS $$
DECLARE
    counts integer[] := pgbench_lab.sweep_counts(workload, clients);
BEGIN
    IF duration IS NULL OR settings IS NULL THEN
        RAISE EXCEPTION 'duration and settings must not be null'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Leave them out for the defaults: 10 s and no session settings (''{}'').';
    END IF;
    IF jsonb_typeof(settings) <> 'object' THEN
        RAISE EXCEPTION 'settings must be a jsonb object'
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Use ''{}'' for the current settings and {"name": "value"} for others.';
    END IF;
    RETURN jsonb_build_object('clients', counts, 'duration', duration::text, 'settings', settings);
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
    SELECT CASE WHEN jsonb_array_length(sets) > 1 THEN chr(64 + a.i::integer) END, s.key, s.value
      FROM jsonb_array_elements(sets) WITH ORDINALITY AS a(one, i),
           jsonb_each_text(CASE WHEN jsonb_typeof(a.one) = 'object' THEN a.one END) AS s(key, value)
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
        jsonb_build_array(pgbench_lab.sweep_params(workload, clients, duration, settings)->'settings')) s
$$;

CREATE FUNCTION pgbench_lab.experiment_check_settings(workload text, settings jsonb[], clients integer,
                                                      duration interval, rounds integer, label text)
RETURNS TABLE (set_name text, name text, value text) LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT s.* FROM pgbench_lab.experiment_settings(
        pgbench_lab.compare_params(workload, settings, clients, duration, rounds)->'settings') s
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
    params jsonb := pgbench_lab.sweep_params(workload, clients, duration, settings);
BEGIN
    experiment_id := pgbench_lab.experiment_begin('sweep', workload, label, params);
    steps := jsonb_array_length(params->'clients');
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
           cardinality(settings) * rounds
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
    n integer;
BEGIN
    SELECT * INTO STRICT e FROM pgbench_lab.experiments x
     WHERE x.experiment_id = experiment_step.experiment_id;
    IF e.kind = 'sweep' THEN
        variant := step;
        round := 1;
        step_call := format('CALL pgbench_lab.run(%L, %L::pg_catalog.int4, %L::pg_catalog.interval, NULL, %L, %L::pg_catalog.jsonb)',
                       e.workload, e.params->'clients'->>(step - 1), e.params->>'duration', e.label,
                       e.params->'settings');
    ELSE
        n := jsonb_array_length(e.params->'settings');
        variant := (step - 1) % n + 1;
        round := (step - 1) / n + 1;
        step_call := format('CALL pgbench_lab.run(%L, %L::pg_catalog.int4, %L::pg_catalog.interval, NULL, %L, %L::pg_catalog.jsonb)',
                       e.workload, e.params->>'clients', e.params->>'duration', e.label,
                       e.params->'settings'->(variant - 1));
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
    word text;
    line text := lead;
    fresh boolean := true;
BEGIN
    FOREACH word IN ARRAY regexp_split_to_array(paragraph, ' +') LOOP
        IF NOT fresh AND length(line) + 1 + length(word) > width THEN
            RETURN NEXT line;
            line := repeat(' ', length(lead));
            fresh := true;
        END IF;
        line := line || CASE WHEN fresh THEN '' ELSE ' ' END || word;
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
    blocks CONSTANT text := ' ▁▂▃▄▅▆▇█';
    k integer;
    v double precision;
    line text;
BEGIN
    FOR k IN REVERSE height..1 LOOP
        line := '';
        FOREACH v IN ARRAY vals LOOP
            line := line || CASE WHEN v IS NULL OR top IS NULL OR top <= 0 THEN ' '
                ELSE substr(blocks, 1 + least(8, greatest(0, greatest(0, least(height * 8,
                         round(v::numeric / top::numeric * height * 8)))::integer - (k - 1) * 8)), 1) END;
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
    SELECT string_agg(CASE WHEN v IS NULL THEN ' '
                           ELSE substr('▁▂▃▄▅▆▇█', 1 + least(7, greatest(0,
                                round((v::numeric - lo::numeric) / nullif(hi::numeric - lo::numeric, 0) * 7)))::integer, 1) END,
                      '' ORDER BY i)
      FROM unnest(vals) WITH ORDINALITY AS u(v, i)
$$;

-- A horizontal bar of v against top, width characters at most.
CREATE FUNCTION pgbench_lab.hbar(v double precision, top double precision, width integer)
RETURNS text LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN v IS NULL OR top IS NULL OR top <= 0 OR v <= 0 THEN ''
                ELSE repeat('█', e / 8) || rtrim(substr(' ▏▎▍▌▋▊▉', 1 + e % 8, 1)) END
      FROM (SELECT least(width * 8, round(v::numeric / top::numeric * width * 8))::integer AS e) s
$$;

-- Per-second TPS chart and hit-ratio line of a run.  Seconds are averaged
-- in groups when a run has more than 60; a last partial second (the clients
-- finishing) is left out.
CREATE FUNCTION pgbench_lab.run_charts(run_id bigint)
RETURNS SETOF text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    per integer;
    last integer;
    tps double precision[];
    hits double precision[];
    top double precision;
    bars text[];
    axis CONSTANT text := repeat(' ', 9);
BEGIN
    SELECT ceil(count(*) / 60.0)::integer, max(p.second) INTO per, last
      FROM pgbench_lab.run_progress p
     WHERE p.run_id = run_charts.run_id AND p.interval_seconds >= 0.5;
    IF per = 0 THEN
        RETURN QUERY SELECT 'No per-second progress was recorded.';
        RETURN;
    END IF;
    SELECT array_agg(q.t ORDER BY q.g), array_agg(q.h ORDER BY q.g) INTO tps, hits
      FROM (SELECT (p.second - 1) / per AS g, avg(p.tps) AS t, avg(p.hit_ratio) AS h
              FROM pgbench_lab.run_progress p
             WHERE p.run_id = run_charts.run_id AND p.interval_seconds >= 0.5
             GROUP BY 1) q;
    SELECT max(t) INTO top FROM unnest(tps) t;
    RETURN QUERY SELECT format('TPS per second (%s; top = %s tps)',
                       CASE per WHEN 1 THEN 'one column per second'
                                ELSE format('one column per %s seconds, averaged', per) END,
                       pgbench_lab.fmt(top));
    bars := ARRAY(SELECT pgbench_lab.chart_rows(tps, top, 5));
    FOR k IN 1..5 LOOP
        RETURN QUERY SELECT format('%s │%s', lpad(CASE k WHEN 1 THEN pgbench_lab.fmt(top, 0) WHEN 5 THEN '0' ELSE '' END, 8),
                           bars[k]);
    END LOOP;
    RETURN QUERY SELECT axis || '└' || repeat('─', cardinality(tps));
    RETURN QUERY SELECT axis || ' ' || CASE WHEN cardinality(tps) > 8
        THEN rpad('1 s', cardinality(tps) - length(last || ' s')) || last || ' s' ELSE '1 s' END;
    RETURN QUERY SELECT 'Buffer hit ratio per second (▁ = 0 %, █ = 100 %)';
    RETURN QUERY SELECT format('%s │%s', lpad('hit', 8), pgbench_lab.spark(hits, 0, 1));
END
$$;

-- Plain words on what the figures of a run need care with.
CREATE FUNCTION pgbench_lab.run_notes(r pgbench_lab.runs)
RETURNS SETOF text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    ct interval;
    first_hit double precision;
BEGIN
    RETURN QUERY SELECT 'In-server figures: the clients are background workers inside the server, so there are no network round trips and no client CPU in the way; pgbench over a network will report less.';
    IF r.workload = 'tpcb-like' AND r.scale < r.clients THEN
        RETURN QUERY SELECT format('Scale %s is below %s clients: every tpcb-like transaction updates one of only %s pgbench_branches rows, so clients queue on those row locks (branch-row contention) and the figures measure that more than the server. Use a scale of at least the client count.',
                           r.scale, r.clients, r.scale);
    END IF;
    ct := CASE WHEN pgbench_lab.reads_as(r.settings->'server'->>'checkpoint_timeout', 'interval')
               THEN (r.settings->'server'->>'checkpoint_timeout')::interval END;
    IF r.measured_seconds < extract(epoch FROM ct) THEN
        RETURN QUERY SELECT format('The run (%s s) is shorter than checkpoint_timeout (%s): a steady state includes checkpoints and their full-page writes, so a longer run can show lower TPS.',
                           pgbench_lab.fmt(r.measured_seconds), r.settings->'server'->>'checkpoint_timeout');
    END IF;
    IF r.checkpoints > 0 THEN
        RETURN QUERY SELECT format('%s checkpoint(s) happened during the run: their writes are inside the measured interval.', r.checkpoints);
    END IF;
    SELECT p.hit_ratio INTO first_hit FROM pgbench_lab.run_progress p
     WHERE p.run_id = r.run_id ORDER BY p.second LIMIT 1;
    IF first_hit < 0.9 THEN
        RETURN QUERY SELECT format('Cold cache at the start: the buffer hit ratio in the first second was %s %% (%s %% over the whole run), so the first seconds waited for reads. Warm the cache first or run longer to measure the steady state.',
                           pgbench_lab.fmt(first_hit * 100), pgbench_lab.fmt(r.hit_ratio * 100));
    END IF;
    IF r.failures > 0 THEN
        RETURN QUERY SELECT format('%s transaction(s) failed (serialisation or deadlock, after %s tries); TPS counts committed transactions only.',
                           r.failures, r.max_tries);
    END IF;
    IF r.status = 'running' THEN
        RETURN QUERY SELECT 'The run is still going: the figures so far are partial.'::text;
    ELSIF r.status <> 'done' THEN
        RETURN QUERY SELECT format('The run ended %s%s: its figures cover only what it measured until then.',
                           r.status, coalesce(' (' || r.error || ')', ''));
    END IF;
END
$$;

CREATE FUNCTION pgbench_lab.report_run(run_id bigint)
RETURNS SETOF text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    r pgbench_lab.runs;
    srv jsonb;
BEGIN
    SELECT * INTO r FROM pgbench_lab.runs x WHERE x.run_id = report_run.run_id;
    srv := coalesce(r.settings->'server', '{}');
    RETURN QUERY SELECT format('Run %s: %s, %s, %s', r.run_id, r.workload, pgbench_lab.clients_text(r.clients),
                       coalesce(pgbench_lab.seconds_text(r.duration),
                                r.transactions_per_client || ' transactions per client'));
    IF r.label IS NOT NULL THEN
        RETURN QUERY SELECT 'label: ' || r.label;
    END IF;
    RETURN QUERY SELECT format('status %s, started %s, measured %s s', r.status,
                       to_char(r.started_at, 'YYYY-MM-DD HH24:MI:SS TZ'), pgbench_lab.fmt(r.measured_seconds));
    IF r.source_server IS NOT NULL THEN
        RETURN QUERY SELECT format('imported from %s, where it was run %s', r.source_server, r.source_run_id);
    END IF;
    RETURN QUERY SELECT format('server: PostgreSQL %s, shared_buffers %s, max_wal_size %s, checkpoint_timeout %s, synchronous_commit %s',
                       coalesce(srv->>'server_version', '-'), coalesce(srv->>'shared_buffers', '-'),
                       coalesce(srv->>'max_wal_size', '-'), coalesce(srv->>'checkpoint_timeout', '-'),
                       coalesce(srv->>'synchronous_commit', '-'));
    RETURN QUERY SELECT format('scale %s, max tries %s, random seed %s, session settings: %s',
                       coalesce(r.scale::text, '-'), r.max_tries, coalesce(r.random_seed::text, '-'),
                       pgbench_lab.settings_text(r.settings->'session'));
    RETURN QUERY SELECT '';
    RETURN QUERY SELECT 'Figures (in-server: no network round trips)';
    RETURN QUERY SELECT format('  transactions  %s   failures %s   retries %s', coalesce(r.transactions::text, '-'),
                       coalesce(r.failures::text, '-'), coalesce(r.retries::text, '-'));
    RETURN QUERY SELECT format('  TPS           %s', pgbench_lab.fmt(r.tps));
    RETURN QUERY SELECT format('  latency (ms)  avg %s   stddev %s', pgbench_lab.fmt(r.latency_avg_ms, 3),
                       pgbench_lab.fmt(r.latency_stddev_ms, 3));
    RETURN QUERY SELECT format('                p50 %s   p90 %s   p95 %s   p99 %s   max %s',
                       pgbench_lab.fmt(r.latency_p50_ms, 3), pgbench_lab.fmt(r.latency_p90_ms, 3),
                       pgbench_lab.fmt(r.latency_p95_ms, 3), pgbench_lab.fmt(r.latency_p99_ms, 3),
                       pgbench_lab.fmt(r.latency_max_ms, 3));
    RETURN QUERY SELECT format('  buffers       hit ratio %s %% (%s hits, %s reads)', pgbench_lab.fmt(r.hit_ratio * 100, 2),
                       coalesce(r.blks_hit::text, '-'), coalesce(r.blks_read::text, '-'));
    RETURN QUERY SELECT format('  WAL written   %s, checkpoints during the run: %s',
                       coalesce(pg_size_pretty(r.wal_bytes), '-'), coalesce(r.checkpoints::text, '-'));
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
    top double precision;
    v record;
BEGIN
    RETURN QUERY SELECT format('  %7s  %8s  %10s  %7s  %12s  %7s  %10s', 'clients', 'run', 'TPS', 'change',
                       'lat avg ms', 'change', 'p99 ms');
    RETURN QUERY
        SELECT rtrim(format('  %7s  %8s  %10s  %7s  %12s  %7s  %10s  %s', s.clients, s.run_id,
                            pgbench_lab.fmt(s.tps), s.tps_change, pgbench_lab.fmt(s.latency_avg_ms, 3),
                            s.latency_change, pgbench_lab.fmt(s.latency_p99_ms, 3), coalesce(s.mark, '')))
          FROM pgbench_lab.sweep_summary(experiment_id) s;
    SELECT max(s.tps) INTO top FROM pgbench_lab.sweep_summary(experiment_id) s;
    RETURN QUERY SELECT '';
    RETURN QUERY SELECT 'TPS by clients';
    RETURN QUERY
        SELECT format('  %7s │%s %s', s.clients, rpad(pgbench_lab.hbar(s.tps, top, 40), 40), pgbench_lab.fmt(s.tps))
          FROM pgbench_lab.sweep_summary(experiment_id) s;
    RETURN QUERY SELECT '';
    RETURN QUERY
        SELECT x.w FROM (SELECT min(r.scale) AS scale, min(r.clients) FILTER (WHERE r.clients > r.scale) AS c
                           FROM pgbench_lab.experiment_runs e JOIN pgbench_lab.runs r ON r.run_id = e.run_id
                          WHERE e.experiment_id = report_sweep.experiment_id AND r.workload = 'tpcb-like') s,
                        pgbench_lab.wrap(format('Note: from %s clients on, the clients outnumber the %s pgbench_branches rows (scale %s): branch-row lock contention caps tpcb-like TPS there, so the peak and the knee may be the lock''s rather than the server''s. Initialise with a scale of at least the largest client count.',
                                                s.c, s.scale, s.scale), '') WITH ORDINALITY AS x(w, j)
         WHERE s.c IS NOT NULL
         ORDER BY x.j;
    SELECT * INTO v FROM pgbench_lab.sweep_verdict(experiment_id);
    RETURN QUERY SELECT x.w FROM regexp_split_to_table(v.finding, '(?<=\.) (?=Knee)') WITH ORDINALITY AS f(t, i),
                                 pgbench_lab.wrap(f.t, '') WITH ORDINALITY AS x(w, j)
                        ORDER BY f.i, x.j;
END
$$;

CREATE FUNCTION pgbench_lab.report_settings(experiment_id bigint)
RETURNS SETOF text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    sets jsonb;
BEGIN
    SELECT e.params->'settings' INTO sets FROM pgbench_lab.experiments e
     WHERE e.experiment_id = report_settings.experiment_id;
    RETURN QUERY SELECT 'Settings sets';
    RETURN QUERY SELECT format('  %s: %s', chr(64 + i::integer), pgbench_lab.settings_text(s))
                   FROM jsonb_array_elements(sets) WITH ORDINALITY AS a(s, i);
    RETURN QUERY SELECT '';
    RETURN QUERY SELECT 'TPS per round (the sets run interleaved within each round)';
    RETURN QUERY SELECT format('  %5s', 'round') || (SELECT string_agg(format('  %10s', chr(64 + i::integer)), '' ORDER BY i)
                                              FROM jsonb_array_elements(sets) WITH ORDINALITY AS a(s, i));
    RETURN QUERY
        SELECT format('  %5s', x.round) || string_agg(format('  %10s', CASE WHEN r.status = 'done'
                      THEN pgbench_lab.fmt(r.tps) ELSE r.status END), '' ORDER BY x.variant)
          FROM pgbench_lab.experiment_runs x JOIN pgbench_lab.runs r ON r.run_id = x.run_id
         WHERE x.experiment_id = report_settings.experiment_id
         GROUP BY x.round ORDER BY x.round;
    RETURN QUERY SELECT '';
    RETURN QUERY SELECT format('  %3s  %10s  %10s  %10s  %12s  %s', 'set', 'median TPS', 'min', 'max',
                       'lat avg ms', 'TPS ratio to A: median (min - max)');
    RETURN QUERY
        SELECT format('  %3s  %10s  %10s  %10s  %12s  ×%s (×%s - ×%s)', s.name, pgbench_lab.fmt(s.tps_median),
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
    n integer;
    stopped boolean;
BEGIN
    SELECT * INTO e FROM pgbench_lab.experiments x WHERE x.experiment_id = report_experiment.experiment_id;
    stopped := pgbench_lab.experiment_stopped(e);
    SELECT count(*) INTO n FROM pgbench_lab.experiment_runs x WHERE x.experiment_id = e.experiment_id;
    RETURN QUERY SELECT format('Experiment %s: %s of %s, %s per run%s', e.experiment_id,
                       replace(e.kind, '_', ' '), e.workload,
                       CASE WHEN pgbench_lab.reads_as(e.params->>'duration', 'interval')
                            THEN pgbench_lab.seconds_text((e.params->>'duration')::interval) ELSE '-' END,
                       CASE e.kind WHEN 'sweep' THEN ', clients ' || (SELECT string_agg(c, ', ')
                                                    FROM jsonb_array_elements_text(e.params->'clients') c)
                            WHEN 'cold_vs_warm' THEN ', ' || pgbench_lab.clients_text((e.params->>'clients')::integer)
                            ELSE format(', %s%s', pgbench_lab.clients_text((e.params->>'clients')::integer),
                                        coalesce(', ' || (e.params->>'rounds') || ' round(s)', '')) END);
    IF e.label IS NOT NULL THEN
        RETURN QUERY SELECT 'label: ' || e.label;
    END IF;
    RETURN QUERY SELECT format('status %s, started %s, %s run(s)%s',
                       CASE WHEN stopped THEN 'aborted' ELSE e.status END,
                       to_char(e.started_at, 'YYYY-MM-DD HH24:MI:SS TZ'), n,
                       CASE WHEN stopped OR e.status = 'aborted'
                            THEN ' (its procedure stopped before the end: an error, a cancel or a lost session)'
                            WHEN e.status = 'running' THEN ' (still going)' ELSE '' END);
    IF e.source_server IS NOT NULL THEN
        RETURN QUERY SELECT format('imported from %s, where it was experiment %s', e.source_server, e.source_experiment_id);
    END IF;
    IF e.kind = 'sweep' THEN
        RETURN QUERY SELECT 'session settings: ' || pgbench_lab.settings_text(e.params->'settings');
    END IF;
    IF e.kind = 'connection_cost' THEN
        RETURN QUERY SELECT 'Variant 1 is in-server (no network round trips); 2 and 3 go through libpq.';
    ELSE
        RETURN QUERY SELECT 'Figures are in-server: no network round trips.';
    END IF;
    RETURN QUERY SELECT '';
    IF e.kind = 'sweep' THEN
        RETURN QUERY SELECT pgbench_lab.report_sweep(e.experiment_id);
    ELSIF e.kind = 'cold_vs_warm' THEN
        RETURN QUERY SELECT pgbench_lab.report_cold_vs_warm(e.experiment_id);
    ELSE
        RETURN QUERY SELECT pgbench_lab.report_settings(e.experiment_id);
    END IF;
    RETURN QUERY
        SELECT format('Run %s did not finish: %s%s', r.run_id, r.status, coalesce(' (' || r.error || ')', ''))
          FROM pgbench_lab.experiment_runs x JOIN pgbench_lab.runs r ON r.run_id = x.run_id
         WHERE x.experiment_id = e.experiment_id AND r.status <> 'done'
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
    IF EXISTS (SELECT FROM pgbench_lab.runs r WHERE r.run_id = id) THEN
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
        SELECT r.*, u.n FROM unnest(run_ids) WITH ORDINALITY AS u(id, n)
          JOIN pgbench_lab.runs r ON r.run_id = u.id),
    f AS (SELECT * FROM l WHERE l.n = 1)
    SELECT l.run_id, pgbench_lab.printable(l.label), pgbench_lab.printable(coalesce(l.source_server, 'here')),
           pgbench_lab.printable(l.workload), l.clients, l.scale,
           l.status, round(l.measured_seconds::numeric, 1), round(l.tps::numeric, 1),
           round(l.tps::numeric / nullif(f.tps, 0)::numeric, 3), round(l.latency_avg_ms::numeric, 3),
           round(l.latency_avg_ms::numeric / nullif(f.latency_avg_ms, 0)::numeric, 3),
           round(l.latency_p99_ms::numeric, 3),
           round(l.latency_p99_ms::numeric / nullif(f.latency_p99_ms, 0)::numeric, 3),
           round(l.hit_ratio::numeric * 100, 2),
           pgbench_lab.settings_text(l.settings->'session'),
           (SELECT pgbench_lab.printable(coalesce(string_agg(a.key || '=' || a.value, ', ' ORDER BY a.key), ''))
              FROM jsonb_each_text(coalesce(l.settings->'server', '{}')) a
             WHERE (f.settings->'server'->>a.key) IS DISTINCT FROM a.value)
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
    SELECT replace(replace(replace(replace(pgbench_lab.printable(s), '&', '&amp;'), '<', '&lt;'), '>', '&gt;'),
                   '"', '&quot;')
$$;

-- A number as SVG and tick labels want it: no trailing zeros.
CREATE FUNCTION pgbench_lab.svg_num(x double precision, digits integer DEFAULT 1)
RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT trim_scale(round(x::numeric, digits))::text $$;

-- The top of an axis from 0 that holds hi, in steps of 1, 2 or 5 x 10^k,
-- about five ticks: returns {top, step}.  At least 0.00001.
CREATE FUNCTION pgbench_lab.svg_axis(hi double precision)
RETURNS double precision[] LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    raw double precision;
    mag double precision;
    step double precision;
BEGIN
    IF hi IS NULL OR hi <= 0 THEN
        hi := 1;
    END IF;
    -- the tick labels have six decimals: a smaller axis would read 0 at
    -- every tick (and hi / 5 can underflow)
    hi := greatest(hi, 1e-5);
    raw := hi / 5;
    mag := power(10, floor(log(raw)));
    step := mag * CASE WHEN raw / mag <= 1 THEN 1 WHEN raw / mag <= 2 THEN 2
                       WHEN raw / mag <= 5 THEN 5 ELSE 10 END;
    RETURN ARRAY[ceil(hi / step - 1e-9) * step, step];
END
$$;

-- The plot area is fixed: x from 80 to x1 (730, or 680 with a right
-- axis), y from 340 (zero) up to 50; an axis is {top, step}.  In numeric,
-- like the bars above.
CREATE FUNCTION pgbench_lab.svg_x(v double precision, xa double precision[], x1 integer)
RETURNS text LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT trim_scale(round(80 + v::numeric / xa[1]::numeric * (x1 - 80), 1))::text $$;

CREATE FUNCTION pgbench_lab.svg_y(v double precision, ya double precision[], shift integer DEFAULT 0)
RETURNS text LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT trim_scale(round(340 - v::numeric / ya[1]::numeric * 290 + shift, 1))::text $$;

-- The largest value under key ('x' or 'y') of the series on an axis (any
-- axis when axis is NULL).
CREATE FUNCTION pgbench_lab.svg_max(series jsonb, key text, axis text)
RETURNS double precision LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT max(v::float8) FROM jsonb_array_elements(series) e, jsonb_array_elements_text(e->key) v
     WHERE v IS NOT NULL AND (axis IS NULL OR coalesce(e->>'axis', '1') = axis)
$$;

-- Grid lines and tick labels of both axes, and of the right axis if any.
CREATE FUNCTION pgbench_lab.svg_grid(xa double precision[], ya double precision[],
                                     y2a double precision[], x1 integer)
RETURNS text LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT (SELECT string_agg(format('<line x1="80" y1="%s" x2="%s" y2="%s" stroke="#e0e0e0"/><text x="74" y="%s" text-anchor="end">%s</text>',
                                     pgbench_lab.svg_y(t, ya), x1, pgbench_lab.svg_y(t, ya),
                                     pgbench_lab.svg_y(t, ya, 4), pgbench_lab.svg_num(t, 6)), E'\n' ORDER BY t)
              FROM generate_series(0, round(ya[1] / ya[2])::integer) k, LATERAL (SELECT k * ya[2] AS t) v)
        || E'\n'
        || (SELECT string_agg(format('<line x1="%s" y1="50" x2="%s" y2="340" stroke="#e0e0e0"/><text x="%s" y="358" text-anchor="middle">%s</text>',
                                     pgbench_lab.svg_x(t, xa, x1), pgbench_lab.svg_x(t, xa, x1),
                                     pgbench_lab.svg_x(t, xa, x1), pgbench_lab.svg_num(t, 6)), E'\n' ORDER BY t)
              FROM generate_series(0, round(xa[1] / xa[2])::integer) k, LATERAL (SELECT k * xa[2] AS t) v)
        || E'\n'
        || coalesce((SELECT string_agg(format('<text x="%s" y="%s" text-anchor="start">%s</text>', x1 + 6,
                                              pgbench_lab.svg_y(t, y2a, 4), pgbench_lab.svg_num(t, 6)), E'\n' ORDER BY t)
                       FROM generate_series(0, round(y2a[1] / y2a[2])::integer) k, LATERAL (SELECT k * y2a[2] AS t) v)
                    || E'\n', '')
$$;

-- One series: a polyline (dashed on the right axis) and, if asked, dots.
CREATE FUNCTION pgbench_lab.svg_curve(s jsonb, xa double precision[], ax double precision[],
                                      color text, x1 integer)
RETURNS text LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH p AS (
        SELECT k, pgbench_lab.svg_x(x::float8, xa, x1) AS px, pgbench_lab.svg_y(y::float8, ax) AS py
          FROM jsonb_array_elements_text(s->'x') WITH ORDINALITY AS a(x, k)
          JOIN jsonb_array_elements_text(s->'y') WITH ORDINALITY AS b(y, k2) ON k = k2
         WHERE y IS NOT NULL)
    SELECT format('<polyline fill="none" stroke="%s" stroke-width="2"%s points="%s"/>', color,
                  CASE WHEN s->>'axis' = '2' THEN ' stroke-dasharray="6 4"' ELSE '' END,
                  (SELECT coalesce(string_agg(px || ',' || py, ' ' ORDER BY k), '') FROM p)) || E'\n'
        || CASE WHEN (s->>'points')::boolean
                THEN (SELECT coalesce(string_agg(format('<circle cx="%s" cy="%s" r="3.5" fill="%s"/>', px, py, color),
                                                 '' ORDER BY k), '') FROM p) || E'\n'
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
    colors CONSTANT text[] := ARRAY['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd',
                                    '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf'];
    h integer := 430 + 20 * jsonb_array_length(series);
    x1 integer := CASE WHEN y2_title IS NULL THEN 730 ELSE 680 END;
    xa double precision[] := pgbench_lab.svg_axis(pgbench_lab.svg_max(series, 'x', NULL));
    ya double precision[] := pgbench_lab.svg_axis(pgbench_lab.svg_max(series, 'y', '1'));
    y2a double precision[] := CASE WHEN y2_title IS NOT NULL
                                   THEN pgbench_lab.svg_axis(pgbench_lab.svg_max(series, 'y', '2')) END;
    out text;
    s jsonb;
    i integer := 0;
    c text;
BEGIN
    out := format('<svg xmlns="http://www.w3.org/2000/svg" width="760" height="%s" viewBox="0 0 760 %s" font-family="DejaVu Sans, Arial, sans-serif" font-size="12">',
                  h, h) || E'\n'
        || format('<rect x="0" y="0" width="760" height="%s" fill="#ffffff"/>', h) || E'\n'
        || format('<text x="380" y="28" text-anchor="middle" font-size="16">%s</text>',
                  pgbench_lab.svg_escape(title)) || E'\n'
        || pgbench_lab.svg_grid(xa, ya, y2a, x1);
    IF y2_title IS NOT NULL THEN
        out := out || format('<line x1="%s" y1="340" x2="%s" y2="50" stroke="#000000"/>', x1, x1) || E'\n'
            || format('<text transform="translate(%s 195) rotate(90)" text-anchor="middle">%s</text>',
                      x1 + 55, pgbench_lab.svg_escape(y2_title)) || E'\n';
    END IF;
    out := out || format('<line x1="80" y1="340" x2="%s" y2="340" stroke="#000000"/>', x1) || E'\n'
        || '<line x1="80" y1="340" x2="80" y2="50" stroke="#000000"/>' || E'\n'
        || format('<text x="%s" y="380" text-anchor="middle">%s</text>', (80 + x1) / 2,
                  pgbench_lab.svg_escape(x_title)) || E'\n'
        || format('<text transform="translate(22 195) rotate(-90)" text-anchor="middle">%s</text>',
                  pgbench_lab.svg_escape(y_title)) || E'\n';
    FOR s IN SELECT value FROM jsonb_array_elements(series) LOOP
        c := colors[1 + coalesce((s->>'color')::integer, i) % 10];
        out := out || pgbench_lab.svg_curve(s, xa, CASE WHEN s->>'axis' = '2' THEN y2a ELSE ya END, c, x1)
            || format('<line x1="80" y1="%s" x2="110" y2="%s" stroke="%s" stroke-width="2"%s/><text x="118" y="%s">%s</text>',
                      410 + 20 * i, 410 + 20 * i, c,
                      CASE WHEN s->>'axis' = '2' THEN ' stroke-dasharray="6 4"' ELSE '' END,
                      414 + 20 * i, pgbench_lab.svg_escape(s->>'label')) || E'\n';
        i := i + 1;
    END LOOP;
    out := out || coalesce((SELECT string_agg(format('<text x="90" y="%s" fill="#555555">%s</text>',
                                                     70 + 18 * (k - 1), pgbench_lab.svg_escape(t)), E'\n' ORDER BY k)
                              FROM unnest(notes) WITH ORDINALITY AS n(t, k)) || E'\n', '');
    RETURN out || '</svg>' || E'\n';
END
$$;

-- Why an experiment's runs give nothing to draw: no runs, or none done
-- with a TPS above zero (each status counted).
CREATE FUNCTION pgbench_lab.undrawn_runs(experiment_id bigint)
RETURNS text LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN sum(c.n) IS NULL THEN 'it has no runs'
                ELSE format('none of its %s run(s) ended done with a TPS above zero (%s)', sum(c.n),
                            string_agg(c.n || ' ' || c.status, ', ' ORDER BY c.status)) END
      FROM (SELECT CASE WHEN r.status = 'done' THEN 'done without TPS' ELSE r.status END AS status,
                   count(*) AS n
              FROM pgbench_lab.experiment_runs x JOIN pgbench_lab.runs r ON r.run_id = x.run_id
             WHERE x.experiment_id = undrawn_runs.experiment_id
             GROUP BY 1) c
$$;

-- TPS and average latency against clients, one pair of curves per sweep.
CREATE FUNCTION pgbench_lab.plot_sweeps(ids bigint[])
RETURNS text LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH u AS (
        SELECT u.id, u.n, (SELECT count(*) FROM pgbench_lab.sweep_steps(u.id)) AS drawn
          FROM unnest(ids) WITH ORDINALITY AS u(id, n))
    SELECT pgbench_lab.svg_chart('TPS and latency against clients (in-server)', 'clients',
               'TPS (transactions per second), solid', 'average latency (ms), dashed',
               (SELECT jsonb_agg(x.s ORDER BY x.n, x.axis) FROM (
                   SELECT u.n, a.axis, jsonb_build_object(
                       'label', format('%s %s (experiment %s)', coalesce(e.label, e.workload),
                                       CASE a.axis WHEN 1 THEN 'TPS' ELSE 'latency avg ms' END, e.experiment_id),
                       'x', (SELECT coalesce(jsonb_agg(s.clients ORDER BY s.clients), '[]')
                               FROM pgbench_lab.sweep_steps(e.experiment_id) s),
                       'y', (SELECT coalesce(jsonb_agg(CASE a.axis WHEN 1 THEN s.tps ELSE s.latency_avg_ms END
                                                       ORDER BY s.clients), '[]')
                               FROM pgbench_lab.sweep_steps(e.experiment_id) s),
                       'axis', a.axis, 'color', u.n - 1, 'points', true) AS s
                     FROM u
                     JOIN pgbench_lab.experiments e ON e.experiment_id = u.id
                    CROSS JOIN (VALUES (1), (2)) AS a(axis)) x),
               -- a sweep whose runs all failed is in the legend, and says why it has no curve
               (SELECT CASE WHEN (SELECT sum(u.drawn) FROM u) = 0 THEN ARRAY['Nothing to plot.'] ELSE '{}' END
                       || array_agg(format('Experiment %s: %s.', u.id, pgbench_lab.undrawn_runs(u.id)) ORDER BY u.n)
                  FROM u WHERE u.drawn = 0))
$$;

-- Per-second curves of runs (experiments of settings bring their runs).
-- A run with no per-second figure to draw is in the legend and says so in
-- a note, as does an experiment with no runs.
CREATE FUNCTION pgbench_lab.plot_runs(ids bigint[], metric text)
RETURNS text LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH runs AS (
        SELECT r.*, row_number() OVER (ORDER BY u.n, x.ordinal) AS k, x.variant, x.round
          FROM unnest(ids) WITH ORDINALITY AS u(id, n)
          LEFT JOIN pgbench_lab.experiment_runs x ON x.experiment_id = u.id
          JOIN pgbench_lab.runs r ON r.run_id = coalesce(x.run_id, u.id)),
    points AS (
        SELECT r.k, p.second AS x, CASE metric WHEN 'tps' THEN p.tps
                                               WHEN 'latency' THEN p.latency_avg_ms
                                               WHEN 'latency_max' THEN p.latency_max_ms
                                               ELSE p.hit_ratio * 100 END AS y
          FROM runs r JOIN pgbench_lab.run_progress p ON p.run_id = r.run_id
         WHERE p.interval_seconds >= 0.5),
    notes AS (
        SELECT format('Run %s: no per-second %s was recorded (status %s).', r.run_id,
                      CASE metric WHEN 'tps' THEN 'progress' ELSE replace(metric, '_', ' ') END, r.status) AS t,
               r.k AS k
          FROM runs r WHERE NOT EXISTS (SELECT FROM points p WHERE p.k = r.k AND p.y IS NOT NULL)
        UNION ALL
        SELECT format('Experiment %s: it has no runs.', u.id), 0
          FROM unnest(ids) AS u(id)
         WHERE EXISTS (SELECT FROM pgbench_lab.experiments e WHERE e.experiment_id = u.id)
           AND NOT EXISTS (SELECT FROM pgbench_lab.experiment_runs x WHERE x.experiment_id = u.id))
    SELECT pgbench_lab.svg_chart(
        CASE metric WHEN 'tps' THEN 'TPS per second (in-server)'
                    WHEN 'latency' THEN 'Average latency per second (in-server)'
                    WHEN 'latency_max' THEN 'Maximum latency per second (in-server)'
                    ELSE 'Buffer hit ratio per second' END,
        'time since the start (s)',
        CASE metric WHEN 'tps' THEN 'TPS (transactions per second)'
                    WHEN 'latency' THEN 'average latency (ms)'
                    WHEN 'latency_max' THEN 'maximum latency (ms)'
                    ELSE 'buffer hit ratio (%)' END,
        NULL,
        (SELECT coalesce(jsonb_agg(jsonb_build_object(
             'color', coalesce(r.variant - 1, r.k - 1),
             'label', format('%srun %s: %s, %s%s%s',
                             CASE WHEN r.variant IS NOT NULL THEN format('%s, round %s: ', chr(64 + r.variant), r.round) ELSE '' END,
                             r.run_id, r.workload, pgbench_lab.clients_text(r.clients),
                             coalesce(', ' || r.label, ''),
                             CASE WHEN r.settings->'session' <> '{}'
                                  THEN ', ' || pgbench_lab.settings_text(r.settings->'session') ELSE '' END),
             'x', (SELECT coalesce(jsonb_agg(p.x ORDER BY p.x), '[]') FROM points p WHERE p.k = r.k),
             'y', (SELECT coalesce(jsonb_agg(p.y ORDER BY p.x), '[]') FROM points p WHERE p.k = r.k))
             ORDER BY r.k), '[]')
           FROM runs r),
        (SELECT CASE WHEN NOT EXISTS (SELECT FROM points p WHERE p.y IS NOT NULL)
                     THEN ARRAY['Nothing to plot.'] ELSE '{}' END
                || array_agg(n.t ORDER BY n.k)
           FROM notes n
         HAVING count(*) > 0))
$$;

CREATE FUNCTION pgbench_lab.plot(ids bigint[], metric text DEFAULT 'tps')
RETURNS text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    sweeps integer;
BEGIN
    PERFORM pgbench_lab.check_ids(ids, true);
    IF metric IS NULL THEN
        RAISE EXCEPTION 'metric must not be null'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Valid metrics are tps, latency, latency_max and hit_ratio.';
    END IF;
    IF metric NOT IN ('tps', 'latency', 'latency_max', 'hit_ratio') THEN
        RAISE EXCEPTION 'unknown metric "%"', metric
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Valid metrics are tps, latency, latency_max and hit_ratio.';
    END IF;
    SELECT count(*) INTO sweeps FROM pgbench_lab.experiments e
     WHERE e.experiment_id = ANY (ids) AND e.kind = 'sweep';
    IF sweeps = 0 THEN
        RETURN pgbench_lab.plot_runs(ids, metric);
    END IF;
    IF sweeps < cardinality(ids) THEN
        RAISE EXCEPTION 'sweeps cannot be plotted with runs or other experiments'
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Plot sweeps together (TPS and latency against clients) and runs together (per-second curves).';
    END IF;
    IF metric NOT IN ('tps', 'latency') THEN
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
