-- ---------------------------------------------------------------------------
-- Export and import.  The document (format "pgbench_lab export", version 1)
-- is described in README.md; import validates all of it before writing.
-- ---------------------------------------------------------------------------

-- True if s reads as a value of the type (timestamptz or interval).
CREATE FUNCTION pgbench_lab_internal.reads_as(s text, typ text)
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
CREATE FUNCTION pgbench_lab_internal.doc_spec(what text)
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
            "tps_without_connections": "num", "rate": "num", "latency_limit": "interval",
            "lag_avg_ms": "num", "lag_max_ms": "num", "late": "nonneg", "skipped": "nonneg",
            "scheduled": "nonneg", "rate_sustained": "bool", "variables": "object"}'::pg_catalog.jsonb
        WHEN what OPERATOR(pg_catalog.=) 'progress' THEN '{"second": "count!", "interval_seconds": "num!",
            "transactions": "nonneg!", "tps": "num!", "latency_avg_ms": "num",
            "latency_max_ms": "num", "failures": "nonneg!", "hit_ratio": "ratio",
            "lag_avg_ms": "num", "lag_max_ms": "num", "late": "nonneg", "skipped": "nonneg"}'::pg_catalog.jsonb
        WHEN what OPERATOR(pg_catalog.=) 'latency' THEN '{"bucket_upper_us": "num!", "count": "nonneg!"}'::pg_catalog.jsonb
        -- where the time went (0.2): per second; the counters are deltas,
        -- negative when the server's statistics were reset during the run
        WHEN what OPERATOR(pg_catalog.=) 'telemetry' THEN '{"second": "count!", "interval_seconds": "num!",
            "cpu_user_pct": "num", "cpu_system_pct": "num", "cpu_iowait_pct": "num", "cpu_steal_pct": "num",
            "cpu_idle_pct": "num", "run_cpu_seconds": "num", "checkpoints": "int", "buffers_checkpoint": "int",
            "buffers_clean": "int", "buffers_backend": "int", "wal_records": "int", "wal_fpi": "int",
            "wal_bytes": "num", "wait_samples": "nonneg4!", "waits": "object", "temp_files": "int",
            "temp_bytes": "int", "disk_reads": "int", "disk_read_bytes": "int", "disk_writes": "int",
            "disk_write_bytes": "int", "disk_busy_pct": "num"}'::pg_catalog.jsonb
        -- each standby's lag per second (0.2), for a run on a primary
        WHEN what OPERATOR(pg_catalog.=) 'replication' THEN '{"second": "count!", "standby": "text!",
            "client_addr": "text", "state": "text", "sync_state": "text", "sent_lag_bytes": "num",
            "write_lag_bytes": "num", "flush_lag_bytes": "num", "replay_lag_bytes": "num",
            "write_lag_ms": "num", "flush_lag_ms": "num", "replay_lag_ms": "num"}'::pg_catalog.jsonb
        -- a libpq run's servers (0.2): each target's facts and figures
        WHEN what OPERATOR(pg_catalog.=) 'target' THEN '{"target": "count!", "target_display": "text!",
            "server_version": "text", "in_recovery": "bool", "settings": "object", "clients": "count!",
            "clients_failed": "nonneg4", "transactions": "nonneg", "failures": "nonneg", "tps": "num",
            "latency_avg_ms": "num", "error": "text", "scripts": "array", "system": "object",
            "conflicts": "int", "conflicts_by_kind": "object", "first_client": "count",
            "system_note": "text", "conflicts_error": "text"}'::pg_catalog.jsonb
        -- a run of scripts (0.2): its scripts, each with its commands
        WHEN what OPERATOR(pg_catalog.=) 'script' THEN '{"script": "count!", "name": "text!", "weight": "nonneg4!",
            "body": "text!", "owner": "text", "transactions": "nonneg", "latency_avg_ms": "num", "failures": "nonneg",
            "retries": "nonneg"}'::pg_catalog.jsonb
        WHEN what OPERATOR(pg_catalog.=) 'command' THEN '{"command": "count!", "line": "count!", "kind": "text!",
            "command_text": "text!", "executions": "nonneg", "latency_avg_ms": "num", "failures": "nonneg",
            "retries": "nonneg"}'::pg_catalog.jsonb
        WHEN what OPERATOR(pg_catalog.=) 'experiment' THEN '{"experiment_id": "id!", "kind": "kind!", "workload": "text!",
            "label": "text", "params": "object!", "started_at": "time!", "finished_at": "time",
            "status": "exp_status!", "source_server": "text", "source_experiment_id": "id"}'::pg_catalog.jsonb
        WHEN what OPERATOR(pg_catalog.=) 'experiment_run' THEN '{"run_id": "id!", "ordinal": "count!", "variant": "count!",
            "round": "count!"}'::pg_catalog.jsonb
        -- params, by kind
        WHEN what OPERATOR(pg_catalog.=) 'sweep' THEN '{"clients": "array!", "duration": "interval", "settings": "object",
            "scripts": "array", "variables": "object",
            "knee_threshold": "share"}'::pg_catalog.jsonb
        WHEN what OPERATOR(pg_catalog.=) 'compare_settings' THEN '{"settings": "array!", "clients": "count!",
            "duration": "interval", "rounds": "count!", "scripts": "array", "variables": "object",
            "rate": "num", "latency_limit": "interval", "restart_settings": "object"}'::pg_catalog.jsonb
        WHEN what OPERATOR(pg_catalog.=) 'cold_vs_warm' THEN '{"clients": "count!", "duration": "interval",
            "relations": "array", "relids": "array", "scripts": "array", "variables": "object"}'::pg_catalog.jsonb
        WHEN what OPERATOR(pg_catalog.=) 'connection_cost' THEN '{"clients": "count!", "duration": "interval",
            "rounds": "count", "settings": "array", "scripts": "array", "variables": "object"}'::pg_catalog.jsonb
        WHEN what OPERATOR(pg_catalog.=) 'latency_curve' THEN '{"clients": "count!", "duration": "interval",
            "target_ms": "num!", "percentile": "share!", "rates": "array", "shares": "array",
            "scripts": "array", "variables": "object"}'::pg_catalog.jsonb
        WHEN what OPERATOR(pg_catalog.=) 'validate_recommendation' THEN '{"settings": "array!", "groups": "array!",
            "changes": "array!", "clients": "count!", "duration": "interval", "rounds": "count!"}'::pg_catalog.jsonb
        END
$$;

-- The fields of a row that the document carries.
CREATE FUNCTION pgbench_lab_internal.doc_fields(row_doc jsonb, what text)
RETURNS jsonb LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT coalesce(pg_catalog.jsonb_object_agg(r.key, r.value), '{}')
      FROM pg_catalog.jsonb_each(row_doc) r
     WHERE pgbench_lab_internal.doc_spec(what) OPERATOR(pg_catalog.?) r.key
$$;

-- Every complaint about a document has the same shape and hint.
CREATE FUNCTION pgbench_lab_internal.doc_invalid(problem text)
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
-- 1; share: above 0 and below 1), timestamps and intervals that PostgreSQL reads, booleans, and the values the
-- CHECK constraints allow (run_status, exp_status, kind, via).
CREATE FUNCTION pgbench_lab_internal.doc_first_bad(arr jsonb, spec jsonb,
                                          OUT i bigint, OUT key text, OUT problem text)
RETURNS SETOF record LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH x AS (
        -- the kinds in the order they were defined
        SELECT ARRAY(SELECT k.kind FROM pgbench_lab.experiment_kinds k
                      ORDER BY k.procedure::pg_catalog.oid) AS kinds),
    s AS MATERIALIZED (
        SELECT f.key, f.want OPERATOR(pg_catalog.~~) '%!' AS required, k.*
          FROM x CROSS JOIN pg_catalog.jsonb_each_text(spec) AS f(key, want)
          JOIN LATERAL (VALUES
                ('text', false, false, NULL::numeric, NULL::numeric, NULL::pg_catalog.text[], 'a string'),
                ('object', false, false, NULL, NULL, NULL, 'an object'),
                ('bool', false, false, NULL, NULL, NULL, 'true or false'),
                ('array', false, false, NULL, NULL, NULL, 'an array'),
                ('time', false, false, NULL, NULL, NULL, 'a timestamp'),
                ('interval', false, false, NULL, NULL, NULL, 'an interval'),
                ('num', true, false, NULL, NULL, NULL, 'a number'),
                ('ratio', true, false, 0, 1, NULL, 'a number from 0 to 1'),
                ('share', true, false, 0, 1, NULL, 'a number above 0 and below 1'),
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
                ('kind', false, false, NULL, NULL, x.kinds,
                 'one of ' OPERATOR(pg_catalog.||) pg_catalog.array_to_string(x.kinds, ', ')),
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
                             WHEN s.kind OPERATOR(pg_catalog.=) 'share'
                                  AND v.v::numeric OPERATOR(pg_catalog.=) ANY (ARRAY[0, 1]::numeric[])
                             THEN 'is not ' OPERATOR(pg_catalog.||) s.descr
                             WHEN v.v::numeric OPERATOR(pg_catalog.<) coalesce(s.lo, v.v::numeric)
                                  OR v.v::numeric OPERATOR(pg_catalog.>) coalesce(s.hi, v.v::numeric)
                             THEN 'is not ' OPERATOR(pg_catalog.||) s.descr END
                    WHEN NOT CASE WHEN pg_catalog.jsonb_typeof(v.v) OPERATOR(pg_catalog.<>) CASE WHEN s.kind OPERATOR(pg_catalog.=) 'object' THEN 'object'
                                                                        WHEN s.kind OPERATOR(pg_catalog.=) 'array' THEN 'array'
                                                                        WHEN s.kind OPERATOR(pg_catalog.=) 'bool' THEN 'boolean'
                                                                        ELSE 'string' END
                                  THEN false
                                  WHEN s.vals IS NOT NULL THEN (v.v OPERATOR(pg_catalog.#>>) '{}') OPERATOR(pg_catalog.=) ANY (s.vals)
                                  WHEN s.kind OPERATOR(pg_catalog.=) 'time' THEN pgbench_lab_internal.reads_as(v.v OPERATOR(pg_catalog.#>>) '{}', 'timestamptz')
                                  WHEN s.kind OPERATOR(pg_catalog.=) 'interval' THEN pgbench_lab_internal.reads_as(v.v OPERATOR(pg_catalog.#>>) '{}', 'interval')
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
CREATE FUNCTION pgbench_lab_internal.doc_check(obj jsonb, spec jsonb, path text)
RETURNS void LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    bad pg_catalog.record;
BEGIN
    SELECT * INTO bad FROM pgbench_lab_internal.doc_first_bad(pg_catalog.jsonb_build_array(obj), spec);
    IF FOUND THEN
        PERFORM pgbench_lab_internal.doc_invalid(pg_catalog.format('%s%s %s', path,
            CASE WHEN coalesce(bad.key, '') OPERATOR(pg_catalog.=) '' THEN '' ELSE '.' OPERATOR(pg_catalog.||) bad.key END, bad.problem));
    END IF;
END
$$;

-- Every element of the array arr checked against spec, and the values of
-- each key in uniq unique among them (numbers compared as numbers; the
-- kind num as double precision, as the tables store it).  The first
-- problem, in the order of the elements, raises an error naming its path.
CREATE FUNCTION pgbench_lab_internal.doc_check_each(arr jsonb, spec jsonb, path text, uniq text[])
RETURNS void LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    bad pg_catalog.record;
    dup pg_catalog.record;
BEGIN
    IF (pg_catalog.jsonb_typeof(arr) OPERATOR(pg_catalog.=) 'array') IS NOT TRUE THEN
        PERFORM pgbench_lab_internal.doc_invalid(pg_catalog.format('%s must be an array', path));
    END IF;
    SELECT * INTO bad FROM pgbench_lab_internal.doc_first_bad(arr, spec);
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
                  HINT = 'Each run, progress second, latency bucket, target of a run, experiment, ordinal, run of an experiment and sweep client count appears once.';
    END IF;
    IF bad.i IS NOT NULL THEN
        PERFORM pgbench_lab_internal.doc_invalid(pg_catalog.format('%s[%s]%s %s', path, bad.i,
            CASE WHEN coalesce(bad.key, '') OPERATOR(pg_catalog.=) '' THEN '' ELSE '.' OPERATOR(pg_catalog.||) bad.key END, bad.problem));
    END IF;
END
$$;

-- [v1, v2] as [{"": v1}, {"": v2}], to check array elements with doc_check_each.
CREATE FUNCTION pgbench_lab_internal.json_wrap(arr jsonb)
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
CREATE FUNCTION pgbench_lab_internal.doc_check_params(e jsonb, path text)
RETURNS void LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    kind pg_catalog.text := e OPERATOR(pg_catalog.->>) 'kind';
    params pg_catalog.jsonb := e OPERATOR(pg_catalog.->) 'params';
    sets pg_catalog.int4;
    fewest pg_catalog.int4 := CASE WHEN kind OPERATOR(pg_catalog.=) ANY (ARRAY['compare_settings', 'validate_recommendation'])
                                   THEN 2 ELSE 1 END;
    variants pg_catalog.int4;
    bad pg_catalog.int8;
BEGIN
    PERFORM pgbench_lab_internal.doc_check(params, pgbench_lab_internal.doc_spec(kind), path OPERATOR(pg_catalog.||) '.params');
    IF kind OPERATOR(pg_catalog.=) 'sweep' THEN
        PERFORM pgbench_lab_internal.doc_check_each(pgbench_lab_internal.json_wrap(params OPERATOR(pg_catalog.->) 'clients'), '{"": "count!"}',
                                           path OPERATOR(pg_catalog.||) '.params.clients', '{""}');
        variants := pg_catalog.jsonb_array_length(params OPERATOR(pg_catalog.->) 'clients');
    ELSIF kind OPERATOR(pg_catalog.=) 'cold_vs_warm' THEN
        IF pg_catalog.jsonb_typeof(params OPERATOR(pg_catalog.->) 'relations') OPERATOR(pg_catalog.=) 'array' THEN
            PERFORM pgbench_lab_internal.doc_check_each(pgbench_lab_internal.json_wrap(params OPERATOR(pg_catalog.->) 'relations'), '{"": "text!"}',
                                               path OPERATOR(pg_catalog.||) '.params.relations', '{}');
        END IF;
        IF pg_catalog.jsonb_typeof(params OPERATOR(pg_catalog.->) 'relids') OPERATOR(pg_catalog.=) 'array' THEN
            PERFORM pgbench_lab_internal.doc_check_each(pgbench_lab_internal.json_wrap(params OPERATOR(pg_catalog.->) 'relids'), '{"": "oid!"}',
                                               path OPERATOR(pg_catalog.||) '.params.relids', '{}');
        END IF;
        variants := 3;      -- cold, OS-warm, warm
    ELSIF kind OPERATOR(pg_catalog.=) 'latency_curve' THEN
        IF (params OPERATOR(pg_catalog.?) 'rates') OPERATOR(pg_catalog.=) (params OPERATOR(pg_catalog.?) 'shares') THEN
            PERFORM pgbench_lab_internal.doc_invalid(path OPERATOR(pg_catalog.||) '.params holds rates or shares, one of them');
        END IF;
        PERFORM pgbench_lab_internal.doc_check_each(
            pgbench_lab_internal.json_wrap(coalesce(params OPERATOR(pg_catalog.->) 'rates', params OPERATOR(pg_catalog.->) 'shares')),
            '{"": "num!"}', path OPERATOR(pg_catalog.||) '.params.' OPERATOR(pg_catalog.||)
                            CASE WHEN params OPERATOR(pg_catalog.?) 'rates' THEN 'rates' ELSE 'shares' END, '{""}');
        variants := 1 OPERATOR(pg_catalog.+) pg_catalog.jsonb_array_length(coalesce(params OPERATOR(pg_catalog.->) 'rates',
                                                                          params OPERATOR(pg_catalog.->) 'shares'));
    ELSE
        -- compare_settings, connection_cost, validate_recommendation: sets
        -- of settings (for connection_cost the three paths), named A, B...
        IF pg_catalog.jsonb_typeof(params OPERATOR(pg_catalog.->) 'settings') OPERATOR(pg_catalog.=) 'array' THEN
            PERFORM pgbench_lab_internal.doc_check_each(pgbench_lab_internal.json_wrap(params OPERATOR(pg_catalog.->) 'settings'), '{"": "object!"}',
                                               path OPERATOR(pg_catalog.||) '.params.settings', '{}');
            sets := pg_catalog.jsonb_array_length(params OPERATOR(pg_catalog.->) 'settings');
            IF sets OPERATOR(pg_catalog.<) fewest OR sets OPERATOR(pg_catalog.>) 26 THEN
                PERFORM pgbench_lab_internal.doc_invalid(pg_catalog.format('%s.params.settings holds %s set(s), not %s to 26',
                                                       path, sets, fewest));
            END IF;
        END IF;
        variants := coalesce(sets, 3);
    END IF;
    SELECT x.n OPERATOR(pg_catalog.-) 1 INTO bad FROM pg_catalog.jsonb_array_elements(e OPERATOR(pg_catalog.->) 'runs') WITH ORDINALITY AS x(r, n)
     WHERE (x.r OPERATOR(pg_catalog.->>) 'variant')::numeric OPERATOR(pg_catalog.>) variants
     ORDER BY x.n LIMIT 1;
    IF FOUND THEN
        PERFORM pgbench_lab_internal.doc_invalid(pg_catalog.format('%s.runs[%s].variant is not from 1 to %s (the %s of the experiment)',
            path, bad, variants, CASE WHEN kind OPERATOR(pg_catalog.=) 'sweep' THEN 'client counts'
                                           WHEN kind OPERATOR(pg_catalog.=) 'cold_vs_warm' THEN 'cold, OS-warm and warm runs'
                                           WHEN kind OPERATOR(pg_catalog.=) 'latency_curve' THEN 'the maximum and the rates'
                                           ELSE 'sets of settings' END));
    END IF;
END
$$;

CREATE FUNCTION pgbench_lab_internal.doc_validate(doc jsonb)
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
    PERFORM pgbench_lab_internal.doc_check(doc, '{"format": "text!", "version": "count!", "server": "object!",
        "runs": "array!", "experiments": "array", "exported_at": "time"}', '$');
    IF doc OPERATOR(pg_catalog.->>) 'format' OPERATOR(pg_catalog.<>) 'pgbench_lab export' OR doc OPERATOR(pg_catalog.->) 'version' OPERATOR(pg_catalog.<>) '1' THEN
        RAISE EXCEPTION 'unsupported export document: format "%" version %',
                        pgbench_lab.printable(doc OPERATOR(pg_catalog.->>) 'format'), doc OPERATOR(pg_catalog.->) 'version'
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'This version of pgbench_lab reads format "pgbench_lab export" version 1.';
    END IF;
    PERFORM pgbench_lab_internal.doc_check(doc OPERATOR(pg_catalog.->) 'server', '{"name": "text!", "server_version": "text"}', '$.server');
    PERFORM pgbench_lab_internal.doc_check_each(doc OPERATOR(pg_catalog.->) 'runs', pgbench_lab_internal.doc_spec('run')
        OPERATOR(pg_catalog.||) '{"progress": "array!", "latency": "array!", "scripts": "array", "telemetry": "array", "replication": "array", "targets": "array"}', '$.runs', '{run_id}');
    FOR r IN SELECT a.elem, a.n OPERATOR(pg_catalog.-) 1 AS i
               FROM pg_catalog.jsonb_array_elements(doc OPERATOR(pg_catalog.->) 'runs') WITH ORDINALITY AS a(elem, n) LOOP
        PERFORM pgbench_lab_internal.doc_check_each(r.elem OPERATOR(pg_catalog.->) 'progress', pgbench_lab_internal.doc_spec('progress'),
                                           pg_catalog.format('$.runs[%s].progress', r.i), '{second}');
        PERFORM pgbench_lab_internal.doc_check_each(r.elem OPERATOR(pg_catalog.->) 'latency', pgbench_lab_internal.doc_spec('latency'),
                                           pg_catalog.format('$.runs[%s].latency', r.i), '{bucket_upper_us}');
        IF r.elem OPERATOR(pg_catalog.?) 'telemetry' THEN
            PERFORM pgbench_lab_internal.doc_check_each(r.elem OPERATOR(pg_catalog.->) 'telemetry', pgbench_lab_internal.doc_spec('telemetry'),
                                               pg_catalog.format('$.runs[%s].telemetry', r.i), '{second}');
            PERFORM pgbench_lab_internal.doc_invalid(pg_catalog.format('$.runs[%s].telemetry[%s].waits: each wait event needs a whole number of samples (0 to 999999999)',
                                                                       r.i, t.n OPERATOR(pg_catalog.-) 1))
               FROM pg_catalog.jsonb_array_elements(r.elem OPERATOR(pg_catalog.->) 'telemetry') WITH ORDINALITY AS t(x, n)
              WHERE pg_catalog.jsonb_typeof(t.x OPERATOR(pg_catalog.->) 'waits') OPERATOR(pg_catalog.=) 'object'
                AND EXISTS (SELECT FROM pg_catalog.jsonb_each(t.x OPERATOR(pg_catalog.->) 'waits') AS w
                             WHERE NOT (pg_catalog.jsonb_typeof(w.value) OPERATOR(pg_catalog.=) 'number'
                                        AND w.value::pg_catalog.text OPERATOR(pg_catalog.~) '^[0-9]{1,9}$'));
        END IF;
        IF r.elem OPERATOR(pg_catalog.?) 'replication' THEN
            PERFORM pgbench_lab_internal.doc_check_each(r.elem OPERATOR(pg_catalog.->) 'replication', pgbench_lab_internal.doc_spec('replication'),
                                               pg_catalog.format('$.runs[%s].replication', r.i), '{}');
            PERFORM pgbench_lab_internal.doc_invalid(pg_catalog.format('$.runs[%s].replication: second %s of standby %s appears more than once',
                                                                       r.i, d.second, pgbench_lab.printable(d.standby)))
               FROM (SELECT t.x OPERATOR(pg_catalog.->>) 'second' AS second, t.x OPERATOR(pg_catalog.->>) 'standby' AS standby
                       FROM pg_catalog.jsonb_array_elements(r.elem OPERATOR(pg_catalog.->) 'replication') AS t(x)
                      GROUP BY 1, 2 HAVING pg_catalog.count(*) OPERATOR(pg_catalog.>) 1 LIMIT 1) d;
        END IF;
        IF r.elem OPERATOR(pg_catalog.?) 'targets' THEN
            PERFORM pgbench_lab_internal.doc_check_each(r.elem OPERATOR(pg_catalog.->) 'targets', pgbench_lab_internal.doc_spec('target'),
                                               pg_catalog.format('$.runs[%s].targets', r.i), '{target}');
        END IF;
        IF r.elem OPERATOR(pg_catalog.?) 'scripts' THEN
            PERFORM pgbench_lab_internal.doc_check_each(r.elem OPERATOR(pg_catalog.->) 'scripts',
                                               pgbench_lab_internal.doc_spec('script') OPERATOR(pg_catalog.||) '{"commands": "array!"}',
                                               pg_catalog.format('$.runs[%s].scripts', r.i), '{script}');
            PERFORM pgbench_lab_internal.doc_check_each(x.s OPERATOR(pg_catalog.->) 'commands', pgbench_lab_internal.doc_spec('command'),
                                               pg_catalog.format('$.runs[%s].scripts[%s].commands', r.i, x.n OPERATOR(pg_catalog.-) 1), '{command}')
              FROM pg_catalog.jsonb_array_elements(r.elem OPERATOR(pg_catalog.->) 'scripts') WITH ORDINALITY AS x(s, n);
        END IF;
    END LOOP;
    IF NOT doc OPERATOR(pg_catalog.?) 'experiments' THEN
        RETURN;
    END IF;
    PERFORM pgbench_lab_internal.doc_check_each(doc OPERATOR(pg_catalog.->) 'experiments', pgbench_lab_internal.doc_spec('experiment')
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
        PERFORM pgbench_lab_internal.doc_check_each(r.elem OPERATOR(pg_catalog.->) 'runs', pgbench_lab_internal.doc_spec('experiment_run'),
                                           pg_catalog.format('$.experiments[%s].runs', r.i), '{ordinal,run_id}');
        PERFORM pgbench_lab_internal.doc_check_params(r.elem, pg_catalog.format('$.experiments[%s]', r.i));
        IF r.i OPERATOR(pg_catalog.=) missing THEN
            PERFORM pgbench_lab_internal.doc_invalid(pg_catalog.format('$.experiments[%s] names a run that is not in $.runs', r.i));
        END IF;
    END LOOP;
END
$$;

-- Import as caller: new local ids, source server and source ids kept.
-- Set-based: each table is written by one statement for the whole
-- document, whatever its size.  The new ids are drawn first, in the order
-- of the document (runs, then experiments), so that progress, histograms
-- and experiments can refer to them.
CREATE FUNCTION pgbench_lab_internal.import_as(caller regrole, doc jsonb)
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
    PERFORM pgbench_lab_internal.doc_validate(doc);
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
            connections, connection_avg_ms, tps_without_connections, rate, latency_limit,
            lag_avg_ms, lag_max_ms, late, skipped, scheduled, rate_sustained, variables)
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
               (r OPERATOR(pg_catalog.->>) 'connection_avg_ms')::pg_catalog.float8, (r OPERATOR(pg_catalog.->>) 'tps_without_connections')::pg_catalog.float8,
               -- rate-limited runs (0.2); absent in 0.1's documents
               (r OPERATOR(pg_catalog.->>) 'rate')::pg_catalog.float8, (r OPERATOR(pg_catalog.->>) 'latency_limit')::interval,
               (r OPERATOR(pg_catalog.->>) 'lag_avg_ms')::pg_catalog.float8, (r OPERATOR(pg_catalog.->>) 'lag_max_ms')::pg_catalog.float8,
               (r OPERATOR(pg_catalog.->>) 'late')::numeric::bigint, (r OPERATOR(pg_catalog.->>) 'skipped')::numeric::bigint,
               (r OPERATOR(pg_catalog.->>) 'scheduled')::numeric::bigint, (r OPERATOR(pg_catalog.->>) 'rate_sustained')::pg_catalog.bool,
               r OPERATOR(pg_catalog.->) 'variables'
          FROM d),
    scripts AS (
        INSERT INTO pgbench_lab.run_scripts (run_id, script, name, weight, body, owner, transactions,
                                             latency_avg_ms, failures, retries)
        SELECT d.new_id, (x OPERATOR(pg_catalog.->>) 'script')::numeric::integer, x OPERATOR(pg_catalog.->>) 'name',
               (x OPERATOR(pg_catalog.->>) 'weight')::numeric::integer, x OPERATOR(pg_catalog.->>) 'body',
               (x OPERATOR(pg_catalog.->>) 'owner')::pg_catalog.name,
               (x OPERATOR(pg_catalog.->>) 'transactions')::numeric::bigint, (x OPERATOR(pg_catalog.->>) 'latency_avg_ms')::pg_catalog.float8,
               (x OPERATOR(pg_catalog.->>) 'failures')::numeric::bigint, (x OPERATOR(pg_catalog.->>) 'retries')::numeric::bigint
          FROM d CROSS JOIN LATERAL pg_catalog.jsonb_array_elements(coalesce(d.r OPERATOR(pg_catalog.->) 'scripts', '[]')) AS s(x)),
    commands AS (
        INSERT INTO pgbench_lab.run_commands (run_id, script, command, line, kind, command_text,
                                              executions, latency_avg_ms, failures, retries)
        SELECT d.new_id, (x OPERATOR(pg_catalog.->>) 'script')::numeric::integer, (c OPERATOR(pg_catalog.->>) 'command')::numeric::integer,
               (c OPERATOR(pg_catalog.->>) 'line')::numeric::integer, c OPERATOR(pg_catalog.->>) 'kind', c OPERATOR(pg_catalog.->>) 'command_text',
               (c OPERATOR(pg_catalog.->>) 'executions')::numeric::bigint, (c OPERATOR(pg_catalog.->>) 'latency_avg_ms')::pg_catalog.float8,
               (c OPERATOR(pg_catalog.->>) 'failures')::numeric::bigint, (c OPERATOR(pg_catalog.->>) 'retries')::numeric::bigint
          FROM d CROSS JOIN LATERAL pg_catalog.jsonb_array_elements(coalesce(d.r OPERATOR(pg_catalog.->) 'scripts', '[]')) AS s(x)
                 CROSS JOIN LATERAL pg_catalog.jsonb_array_elements(x OPERATOR(pg_catalog.->) 'commands') AS m(c)),
    progress AS (
        INSERT INTO pgbench_lab.run_progress (run_id, second, interval_seconds, transactions, tps,
                                              latency_avg_ms, latency_max_ms, failures, hit_ratio,
                                              lag_avg_ms, lag_max_ms, late, skipped)
        SELECT d.new_id, (p OPERATOR(pg_catalog.->>) 'second')::numeric::integer, (p OPERATOR(pg_catalog.->>) 'interval_seconds')::pg_catalog.float8,
               (p OPERATOR(pg_catalog.->>) 'transactions')::numeric::bigint, (p OPERATOR(pg_catalog.->>) 'tps')::pg_catalog.float8,
               (p OPERATOR(pg_catalog.->>) 'latency_avg_ms')::pg_catalog.float8, (p OPERATOR(pg_catalog.->>) 'latency_max_ms')::pg_catalog.float8,
               (p OPERATOR(pg_catalog.->>) 'failures')::numeric::bigint, (p OPERATOR(pg_catalog.->>) 'hit_ratio')::pg_catalog.float8,
               (p OPERATOR(pg_catalog.->>) 'lag_avg_ms')::pg_catalog.float8, (p OPERATOR(pg_catalog.->>) 'lag_max_ms')::pg_catalog.float8,
               (p OPERATOR(pg_catalog.->>) 'late')::numeric::bigint, (p OPERATOR(pg_catalog.->>) 'skipped')::numeric::bigint
          FROM d CROSS JOIN LATERAL pg_catalog.jsonb_array_elements(d.r OPERATOR(pg_catalog.->) 'progress') AS x(p)),
    telemetry AS (
        INSERT INTO pgbench_lab.run_telemetry (run_id, second, interval_seconds, cpu_user_pct, cpu_system_pct,
                                               cpu_iowait_pct, cpu_steal_pct, cpu_idle_pct, run_cpu_seconds,
                                               checkpoints, buffers_checkpoint, buffers_clean, buffers_backend,
                                               wal_records, wal_fpi, wal_bytes, wait_samples, waits,
                                               temp_files, temp_bytes, disk_reads, disk_read_bytes,
                                               disk_writes, disk_write_bytes, disk_busy_pct)
        SELECT d.new_id, (t OPERATOR(pg_catalog.->>) 'second')::numeric::integer, (t OPERATOR(pg_catalog.->>) 'interval_seconds')::pg_catalog.float8,
               (t OPERATOR(pg_catalog.->>) 'cpu_user_pct')::pg_catalog.float8, (t OPERATOR(pg_catalog.->>) 'cpu_system_pct')::pg_catalog.float8,
               (t OPERATOR(pg_catalog.->>) 'cpu_iowait_pct')::pg_catalog.float8, (t OPERATOR(pg_catalog.->>) 'cpu_steal_pct')::pg_catalog.float8,
               (t OPERATOR(pg_catalog.->>) 'cpu_idle_pct')::pg_catalog.float8, (t OPERATOR(pg_catalog.->>) 'run_cpu_seconds')::pg_catalog.float8,
               (t OPERATOR(pg_catalog.->>) 'checkpoints')::numeric::bigint, (t OPERATOR(pg_catalog.->>) 'buffers_checkpoint')::numeric::bigint,
               (t OPERATOR(pg_catalog.->>) 'buffers_clean')::numeric::bigint, (t OPERATOR(pg_catalog.->>) 'buffers_backend')::numeric::bigint,
               (t OPERATOR(pg_catalog.->>) 'wal_records')::numeric::bigint, (t OPERATOR(pg_catalog.->>) 'wal_fpi')::numeric::bigint,
               (t OPERATOR(pg_catalog.->>) 'wal_bytes')::numeric, (t OPERATOR(pg_catalog.->>) 'wait_samples')::numeric::integer,
               t OPERATOR(pg_catalog.->) 'waits',
               (t OPERATOR(pg_catalog.->>) 'temp_files')::numeric::bigint, (t OPERATOR(pg_catalog.->>) 'temp_bytes')::numeric::bigint,
               (t OPERATOR(pg_catalog.->>) 'disk_reads')::numeric::bigint, (t OPERATOR(pg_catalog.->>) 'disk_read_bytes')::numeric::bigint,
               (t OPERATOR(pg_catalog.->>) 'disk_writes')::numeric::bigint, (t OPERATOR(pg_catalog.->>) 'disk_write_bytes')::numeric::bigint,
               (t OPERATOR(pg_catalog.->>) 'disk_busy_pct')::pg_catalog.float8
          FROM d CROSS JOIN LATERAL pg_catalog.jsonb_array_elements(coalesce(d.r OPERATOR(pg_catalog.->) 'telemetry', '[]')) AS x(t)),
    replication AS (
        INSERT INTO pgbench_lab.run_replication (run_id, second, standby, client_addr, state, sync_state,
                                                 sent_lag_bytes, write_lag_bytes, flush_lag_bytes, replay_lag_bytes,
                                                 write_lag_ms, flush_lag_ms, replay_lag_ms)
        SELECT d.new_id, (t OPERATOR(pg_catalog.->>) 'second')::numeric::integer, t OPERATOR(pg_catalog.->>) 'standby',
               t OPERATOR(pg_catalog.->>) 'client_addr', t OPERATOR(pg_catalog.->>) 'state', t OPERATOR(pg_catalog.->>) 'sync_state',
               (t OPERATOR(pg_catalog.->>) 'sent_lag_bytes')::numeric, (t OPERATOR(pg_catalog.->>) 'write_lag_bytes')::numeric,
               (t OPERATOR(pg_catalog.->>) 'flush_lag_bytes')::numeric, (t OPERATOR(pg_catalog.->>) 'replay_lag_bytes')::numeric,
               (t OPERATOR(pg_catalog.->>) 'write_lag_ms')::pg_catalog.float8, (t OPERATOR(pg_catalog.->>) 'flush_lag_ms')::pg_catalog.float8,
               (t OPERATOR(pg_catalog.->>) 'replay_lag_ms')::pg_catalog.float8
          FROM d CROSS JOIN LATERAL pg_catalog.jsonb_array_elements(coalesce(d.r OPERATOR(pg_catalog.->) 'replication', '[]')) AS x(t)),
    targets AS (
        INSERT INTO pgbench_lab.run_targets (run_id, target, target_display, server_version, in_recovery, settings,
                                             clients, clients_failed, transactions, failures, tps, latency_avg_ms,
                                             error, scripts, system, conflicts, conflicts_by_kind, first_client,
                                             system_note, conflicts_error)
        SELECT d.new_id, (t OPERATOR(pg_catalog.->>) 'target')::numeric::integer, t OPERATOR(pg_catalog.->>) 'target_display',
               t OPERATOR(pg_catalog.->>) 'server_version', (t OPERATOR(pg_catalog.->>) 'in_recovery')::pg_catalog.bool,
               CASE WHEN pg_catalog.jsonb_typeof(t OPERATOR(pg_catalog.->) 'settings') OPERATOR(pg_catalog.=) 'object' THEN t OPERATOR(pg_catalog.->) 'settings' END,
               (t OPERATOR(pg_catalog.->>) 'clients')::numeric::integer, (t OPERATOR(pg_catalog.->>) 'clients_failed')::numeric::integer,
               (t OPERATOR(pg_catalog.->>) 'transactions')::numeric::bigint, (t OPERATOR(pg_catalog.->>) 'failures')::numeric::bigint,
               (t OPERATOR(pg_catalog.->>) 'tps')::pg_catalog.float8, (t OPERATOR(pg_catalog.->>) 'latency_avg_ms')::pg_catalog.float8,
               t OPERATOR(pg_catalog.->>) 'error',
               CASE WHEN pg_catalog.jsonb_typeof(t OPERATOR(pg_catalog.->) 'scripts') OPERATOR(pg_catalog.=) 'array'
                    THEN ARRAY(SELECT pg_catalog.jsonb_array_elements_text(t OPERATOR(pg_catalog.->) 'scripts')) END,
               CASE WHEN pg_catalog.jsonb_typeof(t OPERATOR(pg_catalog.->) 'system') OPERATOR(pg_catalog.=) 'object' THEN t OPERATOR(pg_catalog.->) 'system' END,
               (t OPERATOR(pg_catalog.->>) 'conflicts')::numeric::bigint,
               CASE WHEN pg_catalog.jsonb_typeof(t OPERATOR(pg_catalog.->) 'conflicts_by_kind') OPERATOR(pg_catalog.=) 'object'
                    THEN t OPERATOR(pg_catalog.->) 'conflicts_by_kind' END,
               (t OPERATOR(pg_catalog.->>) 'first_client')::numeric::integer,
               t OPERATOR(pg_catalog.->>) 'system_note', t OPERATOR(pg_catalog.->>) 'conflicts_error'
          FROM d CROSS JOIN LATERAL pg_catalog.jsonb_array_elements(coalesce(d.r OPERATOR(pg_catalog.->) 'targets', '[]')) AS x(t)),
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


CREATE FUNCTION pgbench_lab.import(doc jsonb)
RETURNS TABLE (kind text, source_id bigint, id bigint)
LANGUAGE sql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT x.kind, x.source_id, x.id
      FROM pg_catalog.jsonb_to_recordset(pgbench_lab_internal.record('import', coalesce(doc, 'null')))
           AS x(kind pg_catalog.text, source_id bigint, id bigint)
$$;
COMMENT ON FUNCTION pgbench_lab.import(jsonb) IS
    'Import runs and experiments from an export document: new local ids, marked with their source server';

-- obj without those of keys that are null in it: the fields of
-- rate-limited runs travel only with runs that have a rate or a latency
-- limit, so a run without either exports as it did before they existed.
CREATE FUNCTION pgbench_lab_internal.without_nulls(obj jsonb, keys text[])
RETURNS jsonb LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT obj OPERATOR(pg_catalog.-) ARRAY(SELECT k FROM pg_catalog.unnest(keys) AS k
                                             WHERE pg_catalog.jsonb_typeof(obj OPERATOR(pg_catalog.->) k) OPERATOR(pg_catalog.=) 'null')
$$;

-- One run as the document holds it.
CREATE FUNCTION pgbench_lab_internal.export_run(r pgbench_lab.runs)
RETURNS jsonb LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pgbench_lab_internal.without_nulls(pgbench_lab_internal.doc_fields(pg_catalog.to_jsonb(r), 'run'),
                                              '{rate,latency_limit,lag_avg_ms,lag_max_ms,late,skipped,scheduled,rate_sustained,variables}')
        OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object(
            'progress', (SELECT coalesce(pg_catalog.jsonb_agg(pgbench_lab_internal.without_nulls(pg_catalog.to_jsonb(p) OPERATOR(pg_catalog.-) 'run_id',
                                                                                                   '{lag_avg_ms,lag_max_ms,late,skipped}') ORDER BY p.second), '[]')
                           FROM pgbench_lab.run_progress p WHERE p.run_id OPERATOR(pg_catalog.=) r.run_id),
            'latency', (SELECT coalesce(pg_catalog.jsonb_agg(pg_catalog.to_jsonb(l) OPERATOR(pg_catalog.-) 'run_id' ORDER BY l.bucket_upper_us), '[]')
                          FROM pgbench_lab.run_latency l WHERE l.run_id OPERATOR(pg_catalog.=) r.run_id))
        -- a run of scripts carries them, each with its commands
        OPERATOR(pg_catalog.||) coalesce((
            SELECT pg_catalog.jsonb_build_object('scripts', pg_catalog.jsonb_agg(
                       pgbench_lab_internal.without_nulls(pg_catalog.to_jsonb(s) OPERATOR(pg_catalog.-) 'run_id',
                                                          '{owner,transactions,latency_avg_ms,failures,retries}')
                       OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object('commands',
                           (SELECT pg_catalog.jsonb_agg(pgbench_lab_internal.without_nulls(
                                       pg_catalog.to_jsonb(c) OPERATOR(pg_catalog.-) '{run_id,script}'::pg_catalog.text[],
                                       '{executions,latency_avg_ms,failures,retries}') ORDER BY c.command)
                              FROM pgbench_lab.run_commands c
                             WHERE c.run_id OPERATOR(pg_catalog.=) s.run_id AND c.script OPERATOR(pg_catalog.=) s.script))
                       ORDER BY s.script))
              FROM pgbench_lab.run_scripts s WHERE s.run_id OPERATOR(pg_catalog.=) r.run_id
            HAVING pg_catalog.count(*) OPERATOR(pg_catalog.>) 0), '{}')
        -- and a run with telemetry (0.2) carries it, its nulls left out
        OPERATOR(pg_catalog.||) coalesce((
            SELECT pg_catalog.jsonb_build_object('telemetry', pg_catalog.jsonb_agg(
                       pg_catalog.jsonb_strip_nulls(pg_catalog.to_jsonb(t) OPERATOR(pg_catalog.-) 'run_id') ORDER BY t.second))
              FROM pgbench_lab.run_telemetry t WHERE t.run_id OPERATOR(pg_catalog.=) r.run_id
            HAVING pg_catalog.count(*) OPERATOR(pg_catalog.>) 0), '{}')
        -- and a run on a primary its standbys' lag
        OPERATOR(pg_catalog.||) coalesce((
            SELECT pg_catalog.jsonb_build_object('replication', pg_catalog.jsonb_agg(
                       pg_catalog.jsonb_strip_nulls(pg_catalog.to_jsonb(x) OPERATOR(pg_catalog.-) 'run_id') ORDER BY x.second, x.standby))
              FROM pgbench_lab.run_replication x WHERE x.run_id OPERATOR(pg_catalog.=) r.run_id
            HAVING pg_catalog.count(*) OPERATOR(pg_catalog.>) 0), '{}')
        -- and a libpq run its servers, each with its facts and figures (its
        -- columns that are null left out; the objects within kept whole)
        OPERATOR(pg_catalog.||) coalesce((
            SELECT pg_catalog.jsonb_build_object('targets', pg_catalog.jsonb_agg(
                       pgbench_lab_internal.without_nulls(pg_catalog.to_jsonb(x) OPERATOR(pg_catalog.-) 'run_id',
                           '{server_version,in_recovery,settings,clients_failed,transactions,failures,tps,latency_avg_ms,error,scripts,system,conflicts,conflicts_by_kind,first_client,system_note,conflicts_error}')
                       ORDER BY x.target))
              FROM pgbench_lab.run_targets x WHERE x.run_id OPERATOR(pg_catalog.=) r.run_id
            HAVING pg_catalog.count(*) OPERATOR(pg_catalog.>) 0), '{}')
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
                       WHERE NOT e.status OPERATOR(pg_catalog.=) ANY (ARRAY['running', 'waiting for restart'])
                         AND NOT EXISTS (SELECT FROM pgbench_lab.experiment_runs x
                                          WHERE x.experiment_id OPERATOR(pg_catalog.=) e.experiment_id
                                            AND NOT x.run_id OPERATOR(pg_catalog.=) ANY (rids)));
    ELSE
        PERFORM pgbench_lab_internal.check_ids(run_ids, true);
        eids := ARRAY(SELECT e.experiment_id FROM pgbench_lab.experiments e
                       WHERE e.experiment_id OPERATOR(pg_catalog.=) ANY (run_ids));
        rids := ARRAY(SELECT r.run_id FROM pgbench_lab.runs r WHERE r.run_id OPERATOR(pg_catalog.=) ANY (run_ids)
                      UNION
                      SELECT x.run_id FROM pgbench_lab.experiment_runs x
                       WHERE x.experiment_id OPERATOR(pg_catalog.=) ANY (eids));
        SELECT e.experiment_id INTO bad FROM pgbench_lab.experiments e
         WHERE e.experiment_id OPERATOR(pg_catalog.=) ANY (eids) AND e.status OPERATOR(pg_catalog.=) 'waiting for restart' LIMIT 1;
        IF FOUND THEN
            RAISE EXCEPTION 'experiment % is waiting for a restart', bad
                USING ERRCODE = 'object_not_in_prerequisite_state',
                      HINT = 'Export it when its second phase has run: restart the server, then CALL pgbench_lab.resume(experiment_id).';
        END IF;
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
            'name', pgbench_lab_internal.server_name(),
            'server_version', pg_catalog.current_setting('server_version'),
            'extension_version', (SELECT extversion FROM pg_catalog.pg_extension WHERE extname OPERATOR(pg_catalog.=) 'pgbench_lab')),
        'runs', (SELECT coalesce(pg_catalog.jsonb_agg(pgbench_lab_internal.export_run(r) ORDER BY r.run_id), '[]')
                   FROM pgbench_lab.runs r WHERE r.run_id OPERATOR(pg_catalog.=) ANY (rids)),
        'experiments', (SELECT coalesce(pg_catalog.jsonb_agg(pgbench_lab_internal.doc_fields(pg_catalog.to_jsonb(e), 'experiment')
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


REVOKE ALL ON FUNCTION pgbench_lab.import(jsonb) FROM PUBLIC;
REVOKE ALL ON FUNCTION pgbench_lab_internal.import_as(regrole, jsonb) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION pgbench_lab.export(bigint[]) TO pg_monitor;
