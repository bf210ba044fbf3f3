-- ---------------------------------------------------------------------------
-- Export and import.  The document (format "pgbench_lab export", version 1)
-- is described in README.md; import validates all of it before writing.
--
-- What a row of the document may hold is read from its table: each array
-- (runs, their progress, latency, scripts and commands, telemetry, errors,
-- replication and targets, experiments and their runs) is read into the
-- table's row type with jsonb_populate_recordset, in a subtransaction, and
-- checked against the table's NOT NULL and CHECK constraints and its keys,
-- all taken from the catalog (doc_rows).  Written here by hand: which
-- columns of runs and experiments travel (doc_carried) and the ranges the
-- tables do not hold (doc_rules).  What spans objects (the runs an
-- experiment names, the kinds of this server, the document's format) and
-- the parameters of experiments, by kind (doc_check_params), are in
-- 74_export.sql, with import() and export().
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

-- Every complaint about a document has the same shape and hint; detail,
-- when given, says what the table holds.
CREATE FUNCTION pgbench_lab_internal.doc_invalid(problem text, detail text DEFAULT NULL)
RETURNS void LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF detail IS NULL THEN
        RAISE EXCEPTION 'invalid export document: %', problem
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Pass a document made by pgbench_lab.export(); the format is described in the README.';
    END IF;
    RAISE EXCEPTION 'invalid export document: %', problem
        USING ERRCODE = 'invalid_parameter_value', DETAIL = detail,
              HINT = 'Pass a document made by pgbench_lab.export(); the format is described in the README.';
END
$$;

-- The columns of runs and experiments that travel: export writes these
-- and no others (a column another part adds to runs, such as a local
-- snapshot id, does not travel), import reads these.  The rows of the
-- other tables travel whole, without the keys of their run (or script, or
-- experiment).
CREATE FUNCTION pgbench_lab_internal.doc_carried(what text)
RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN what OPERATOR(pg_catalog.=) 'run' THEN '{run_id, label, workload, via, clients, scale, duration,
            transactions_per_client, max_tries, random_seed, started_at, finished_at, status, measured_seconds,
            transactions, failures, retries, tps, latency_avg_ms, latency_stddev_ms, latency_p50_ms, latency_p90_ms,
            latency_p95_ms, latency_p99_ms, latency_max_ms, blks_hit, blks_read, hit_ratio, wal_bytes, checkpoints,
            settings, system, error, source_server, source_run_id, target_display, connections, connection_avg_ms,
            tps_without_connections, rate, latency_limit, lag_avg_ms, lag_max_ms, late, skipped, scheduled,
            rate_sustained, variables, query_mode, options, figures_note, serialization_failures,
            deadlock_failures}'::pg_catalog.text[]
        WHEN what OPERATOR(pg_catalog.=) 'experiment' THEN '{experiment_id, kind, workload, label, params, started_at,
            finished_at, status, source_server, source_experiment_id}'::pg_catalog.text[] END
$$;

-- The fields of a row that the document carries.
CREATE FUNCTION pgbench_lab_internal.doc_fields(row_doc jsonb, what text)
RETURNS jsonb LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT coalesce(pg_catalog.jsonb_object_agg(r.key, r.value), '{}')
      FROM pg_catalog.jsonb_each(row_doc) r
     WHERE r.key OPERATOR(pg_catalog.=) ANY (pgbench_lab_internal.doc_carried(what))
$$;

-- What a document's rows must hold beyond their tables' types and
-- constraints, by table and column: "positive" and "nonneg" whole numbers
-- (ids, counts, seconds), a "ratio" from 0 to 1, a "pct" from 0 to 100,
-- "seconds" 0 or from 1 ns (the clock's step) to 100 years, a "period"
-- from 1 ms (the least the coordinator records for a second) to 100
-- years, "ms" and "us" (latencies, lags) from 0 to 100 years, a "span"
-- (an interval above 0 and at most 100 years), a "time" (a finite
-- timestamp from 1970 to 9999), or the values allowed (a document holds
-- finished runs and experiments).  Figures that are not whole numbers (double precision,
-- numeric) are "nonneg" unless said otherwise here ("any": a difference of
-- positions read a moment apart may be below 0).  The readers add,
-- multiply and divide these; 100 years is above the longest run that
-- pgbench_lab.max_duration allows (2147483647 s, about 68 years).
CREATE FUNCTION pgbench_lab_internal.doc_rules()
RETURNS jsonb LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT '{"runs": {"run_id": "positive", "clients": "positive", "scale": "positive",
                "transactions_per_client": "positive", "source_run_id": "positive", "max_tries": "nonneg",
                "transactions": "nonneg", "failures": "nonneg", "retries": "nonneg", "blks_hit": "nonneg",
                "blks_read": "nonneg", "checkpoints": "nonneg", "connections": "nonneg", "late": "nonneg",
                "skipped": "nonneg", "scheduled": "nonneg", "hit_ratio": "ratio",
                "serialization_failures": "nonneg", "deadlock_failures": "nonneg",
                "measured_seconds": "seconds", "duration": "span", "latency_limit": "span",
                "started_at": "time", "finished_at": "time", "latency_avg_ms": "ms", "latency_stddev_ms": "ms",
                "latency_p50_ms": "ms", "latency_p90_ms": "ms", "latency_p95_ms": "ms", "latency_p99_ms": "ms",
                "latency_max_ms": "ms", "connection_avg_ms": "ms", "lag_avg_ms": "ms", "lag_max_ms": "ms",
                "status": ["done", "cancelled", "failed", "aborted"]},
             "run_progress": {"second": "positive", "transactions": "nonneg", "failures": "nonneg",
                "hit_ratio": "ratio", "late": "nonneg", "skipped": "nonneg", "interval_seconds": "period",
                "latency_avg_ms": "ms", "latency_max_ms": "ms", "lag_avg_ms": "ms", "lag_max_ms": "ms"},
             "run_latency": {"count": "nonneg", "bucket_upper_us": "us"},
             "run_telemetry": {"second": "positive", "wait_samples": "nonneg", "interval_seconds": "period",
                "cpu_user_pct": "pct", "cpu_system_pct": "pct", "cpu_iowait_pct": "pct", "cpu_steal_pct": "pct",
                "cpu_idle_pct": "pct", "disk_busy_pct": "pct", "checkpoints": "nonneg",
                "buffers_checkpoint": "nonneg", "buffers_clean": "nonneg", "buffers_backend": "nonneg",
                "wal_records": "nonneg", "wal_fpi": "nonneg", "temp_files": "nonneg", "temp_bytes": "nonneg",
                "disk_reads": "nonneg", "disk_read_bytes": "nonneg", "disk_writes": "nonneg",
                "disk_write_bytes": "nonneg"},
             "run_replication": {"second": "positive", "lag_samples": "nonneg", "sent_lag_bytes": "any",
                "write_lag_bytes": "any", "flush_lag_bytes": "any", "replay_lag_bytes": "any",
                "sent_lag_bytes_max": "any", "write_lag_bytes_max": "any", "flush_lag_bytes_max": "any",
                "replay_lag_bytes_max": "any", "write_lag_ms": "ms", "flush_lag_ms": "ms", "replay_lag_ms": "ms"},
             "run_targets": {"target": "positive", "clients": "positive", "first_client": "positive",
                "clients_failed": "nonneg", "transactions": "nonneg", "failures": "nonneg",
                "checkpoints": "nonneg", "conflicts": "nonneg", "latency_avg_ms": "ms"},
             "run_scripts": {"script": "positive", "weight": "nonneg", "transactions": "nonneg",
                "failures": "nonneg", "retries": "nonneg", "serialization_failures": "nonneg",
                "deadlock_failures": "nonneg", "latency_avg_ms": "ms"},
             "run_commands": {"command": "positive", "line": "positive", "executions": "nonneg",
                "failures": "nonneg", "retries": "nonneg", "serialization_failures": "nonneg",
                "deadlock_failures": "nonneg", "latency_avg_ms": "ms"},
             "run_errors": {"error": "positive", "count": "nonneg", "first_ms": "ms"},
             "experiments": {"experiment_id": "positive", "source_experiment_id": "positive",
                "started_at": "time", "finished_at": "time",
                "status": ["done", "failed", "aborted"]},
             "experiment_runs": {"run_id": "positive", "ordinal": "positive", "variant": "positive",
                "round": "positive"},
             "captures": {"capture_id": "positive", "source_capture_id": "positive", "captured_at": "time",
                "statements": "nonneg"},
             "capture_statements": {"statement": "positive", "calls": "nonneg", "rows": "nonneg",
                "shared_blks_hit": "nonneg", "shared_blks_read": "nonneg", "weight": "nonneg"},
             "capture_params": {"statement": "positive", "param": "positive"},
             "capture_values": {"statement": "positive", "i": "positive"},
             "capture_groups": {"grp": "positive", "calls": "nonneg", "weight": "nonneg"}}'::pg_catalog.jsonb
$$;

-- Whether the text s, read as rule "span" (an interval) or "time" (a
-- timestamp) says, is within the rule's bounds (doc_rules()); a text that
-- does not read is left to the reading into the row type (true).
CREATE FUNCTION pgbench_lab_internal.doc_fits(s text, rule text)
RETURNS boolean LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF rule OPERATOR(pg_catalog.=) 'span' THEN
        RETURN extract(epoch FROM s::pg_catalog.interval) OPERATOR(pg_catalog.>) 0
           AND extract(epoch FROM s::pg_catalog.interval) OPERATOR(pg_catalog.<=) 3155760000;
    END IF;
    RETURN s::pg_catalog.timestamptz OPERATOR(pg_catalog.>=) '1970-01-01 00:00:00+00'::pg_catalog.timestamptz
       AND s::pg_catalog.timestamptz OPERATOR(pg_catalog.<) '10000-01-01 00:00:00+00'::pg_catalog.timestamptz;
EXCEPTION WHEN data_exception THEN
    RETURN true;
END
$$;

-- The columns of table tbl that the document carries (fields, or every
-- column but skip), in their order, with what a value of each must be:
-- the JSON type that reads as the column's type (number, boolean, array,
-- object for jsonb, else string), the words for it, whether it is a whole
-- number, its bounds (a whole number's type's, narrowed by doc_rules(),
-- or its rule's) and the least it may be above 0, the rule, and whether
-- the document must give it (NOT NULL, unless the import fills it:
-- defaults).
CREATE FUNCTION pgbench_lab_internal.doc_columns(tbl regclass, skip text[], fields text[], defaults jsonb)
RETURNS TABLE (attnum smallint, name text, typ oid, jtype text, words text, whole boolean, lo numeric, hi numeric,
               smallest numeric, rule jsonb, required boolean)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT a.attnum, a.attname::pg_catalog.text, a.atttypid, j.jtype,
           CASE WHEN pg_catalog.jsonb_typeof(r.rule) OPERATOR(pg_catalog.=) 'array'
                THEN 'one of ' OPERATOR(pg_catalog.||)
                     (SELECT pg_catalog.string_agg(v, ', ') FROM pg_catalog.jsonb_array_elements_text(r.rule) AS v)
                WHEN b.hi IS NULL THEN coalesce(f.words, j.words)
                WHEN b.hi OPERATOR(pg_catalog.<) 9223372036854775807
                THEN pg_catalog.format('a whole number from %s to %s', l.lo, b.hi)
                WHEN l.lo OPERATOR(pg_catalog.=) 1 THEN 'a positive whole number'
                WHEN l.lo OPERATOR(pg_catalog.=) 0 THEN 'a whole number of 0 or more'
                ELSE 'a whole number' END,
           b.hi IS NOT NULL, coalesce(l.lo, f.lo), coalesce(b.hi, f.hi), f.smallest, r.rule,
           a.attnotnull AND NOT defaults OPERATOR(pg_catalog.?) a.attname::pg_catalog.text
      FROM pg_catalog.pg_attribute a
      JOIN pg_catalog.pg_type t ON t.oid OPERATOR(pg_catalog.=) a.atttypid
      JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) a.attrelid
      LEFT JOIN (VALUES ('pg_catalog.int2'::pg_catalog.regtype, '-32768'::numeric, 32767::numeric),
                        ('pg_catalog.int4'::pg_catalog.regtype, -2147483648, 2147483647),
                        ('pg_catalog.int8'::pg_catalog.regtype, -9223372036854775808, 9223372036854775807))
                AS b(typ, lo, hi) ON b.typ::pg_catalog.oid OPERATOR(pg_catalog.=) a.atttypid
      CROSS JOIN LATERAL (SELECT coalesce(pgbench_lab_internal.doc_rules() OPERATOR(pg_catalog.->) c.relname::pg_catalog.text
                                          OPERATOR(pg_catalog.->) a.attname::pg_catalog.text,
                                          CASE WHEN t.typcategory OPERATOR(pg_catalog.=) 'N' AND b.hi IS NULL
                                               THEN '"nonneg"'::pg_catalog.jsonb END)) AS r(rule)
      CROSS JOIN LATERAL (SELECT CASE WHEN r.rule OPERATOR(pg_catalog.=) '"positive"' THEN 1
                                      WHEN r.rule OPERATOR(pg_catalog.=) '"nonneg"' THEN 0 ELSE b.lo END) AS l(lo)
      -- the bounds (and the least above 0) and words of the rules of
      -- figures, intervals and timestamps
      LEFT JOIN (VALUES ('"nonneg"'::pg_catalog.jsonb, 0::numeric, NULL::numeric, NULL::numeric, 'a number of 0 or more'),
                        ('"ratio"', 0, 1, NULL, 'a number from 0 to 1'),
                        ('"pct"', 0, 100, NULL, 'a number from 0 to 100'),
                        ('"seconds"', 0, 3155760000, 0.000000001,
                         'a number of seconds, 0 or from 0.000000001 to 3155760000 (100 years)'),
                        ('"period"', 0.001, 3155760000, NULL, 'a number of seconds from 0.001 to 3155760000 (100 years)'),
                        ('"ms"', 0, 3155760000000, NULL, 'a number of milliseconds from 0 to 3155760000000 (100 years)'),
                        ('"us"', 0, 3155760000000000, NULL, 'a number of microseconds from 0 to 3155760000000000 (100 years)'),
                        ('"span"', NULL, NULL, NULL, 'an interval above 0 and at most 100 years'),
                        ('"time"', NULL, NULL, NULL, 'a timestamp from 1970-01-01 to 9999-12-31'))
                AS f(rule, lo, hi, smallest, words) ON b.hi IS NULL AND f.rule OPERATOR(pg_catalog.=) r.rule
      CROSS JOIN LATERAL (VALUES (
            CASE WHEN t.typcategory OPERATOR(pg_catalog.=) 'N' THEN 'number'
                 WHEN t.typcategory OPERATOR(pg_catalog.=) 'B' THEN 'boolean'
                 WHEN t.typcategory OPERATOR(pg_catalog.=) 'A' THEN 'array'
                 WHEN a.atttypid OPERATOR(pg_catalog.=) 'pg_catalog.jsonb'::pg_catalog.regtype THEN 'object'
                 ELSE 'string' END,
            CASE WHEN t.typcategory OPERATOR(pg_catalog.=) 'N' THEN 'a number'
                 WHEN t.typcategory OPERATOR(pg_catalog.=) 'B' THEN 'true or false'
                 WHEN t.typcategory OPERATOR(pg_catalog.=) 'A' THEN 'an array'
                 WHEN t.typcategory OPERATOR(pg_catalog.=) 'S' THEN 'a string'
                 WHEN a.atttypid OPERATOR(pg_catalog.=) 'pg_catalog.jsonb'::pg_catalog.regtype THEN 'an object'
                 WHEN a.atttypid OPERATOR(pg_catalog.=) 'pg_catalog.timestamptz'::pg_catalog.regtype THEN 'a timestamp'
                 WHEN a.atttypid OPERATOR(pg_catalog.=) 'pg_catalog.interval'::pg_catalog.regtype THEN 'an interval'
                 ELSE 'a value of type ' OPERATOR(pg_catalog.||) pg_catalog.format_type(a.atttypid, NULL) END))
            AS j(jtype, words)
     WHERE a.attrelid OPERATOR(pg_catalog.=) tbl AND a.attnum OPERATOR(pg_catalog.>) 0 AND NOT a.attisdropped
       AND CASE WHEN fields IS NULL THEN NOT a.attname::pg_catalog.text OPERATOR(pg_catalog.=) ANY (skip)
                ELSE a.attname::pg_catalog.text OPERATOR(pg_catalog.=) ANY (fields) END
$$;

-- The elements of the array arr (NULL: none), rows of table tbl, checked
-- as the table would check them, in this order: the JSON type and range of
-- each value (doc_columns()) and the values the document must give; the
-- values read into the table's row type (jsonb_populate_recordset, in a
-- subtransaction: a timestamp or an interval that does not read); the
-- table's CHECK constraints; its primary and unique keys among the
-- elements (without the columns of skip: the run's, the same for each).
-- The first problem raises an error naming its path (path[i].column).
-- Returns the elements as the table reads them: the columns carried,
-- without nulls, over defaults, whole numbers written as such (2.0 as 2);
-- or NULL, if as_is allows it, when the document's elements read as they
-- are (a run's 40 000 progress rows are not copied).
CREATE FUNCTION pgbench_lab_internal.doc_rows(tbl regclass, arr jsonb, path text, skip text[],
                                              fields text[] DEFAULT NULL, defaults jsonb DEFAULT '{}',
                                              as_is boolean DEFAULT false)
RETURNS jsonb LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    typed pg_catalog.text := (SELECT pg_catalog.format('NULL::%I.%I', n.nspname, c.relname)
                                FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace
                               WHERE c.oid OPERATOR(pg_catalog.=) tbl);
    rows pg_catalog.jsonb;
    bad pg_catalog.record;
    con pg_catalog.record;
    i pg_catalog.int8;
    val pg_catalog.jsonb;
    msg pg_catalog.text;
BEGIN
    IF arr IS NULL OR pg_catalog.jsonb_array_length(arr) OPERATOR(pg_catalog.=) 0 THEN
        RETURN '[]';
    END IF;
    -- the first value that is not what its column holds, by element and
    -- column; failing that, whether an element needs rewriting (''): a
    -- whole number written otherwise (2.0), a column of skip given
    WITH cols AS MATERIALIZED (SELECT * FROM pgbench_lab_internal.doc_columns(tbl, skip, fields, defaults)),
    elems AS (SELECT a.elem, a.n OPERATOR(pg_catalog.-) 1 AS i
                FROM pg_catalog.jsonb_array_elements(arr) WITH ORDINALITY AS a(elem, n))
    SELECT p.i, p.name, p.problem, p.typ INTO bad FROM (
        SELECT e.i, NULL::pg_catalog.text AS name, NULL::pg_catalog.oid AS typ, 0 AS attnum,
               CASE WHEN pg_catalog.jsonb_typeof(e.elem) OPERATOR(pg_catalog.<>) 'object' THEN 'must be an object'
                    WHEN e.elem OPERATOR(pg_catalog.?|) skip THEN '' END AS problem
          FROM elems e
        UNION ALL
        SELECT e.i, c.name, c.typ, c.attnum,
               CASE WHEN t.jt IS NULL OR t.jt OPERATOR(pg_catalog.=) 'null' THEN CASE WHEN c.required THEN 'is missing' END
                    WHEN t.jt OPERATOR(pg_catalog.<>) c.jtype THEN 'is not ' OPERATOR(pg_catalog.||) c.words
                    WHEN t.num IS NULL THEN
                        CASE WHEN pg_catalog.jsonb_typeof(c.rule) OPERATOR(pg_catalog.=) 'array'
                                  AND NOT c.rule OPERATOR(pg_catalog.?) (t.v OPERATOR(pg_catalog.#>>) '{}')
                             THEN 'is not ' OPERATOR(pg_catalog.||) c.words
                             WHEN '["span", "time"]'::pg_catalog.jsonb OPERATOR(pg_catalog.@>) c.rule
                                  AND NOT pgbench_lab_internal.doc_fits(t.v OPERATOR(pg_catalog.#>>) '{}', c.rule OPERATOR(pg_catalog.#>>) '{}')
                             THEN 'is not ' OPERATOR(pg_catalog.||) c.words END
                    WHEN c.whole THEN
                        CASE WHEN t.num OPERATOR(pg_catalog.<>) pg_catalog.trunc(t.num) OR t.num OPERATOR(pg_catalog.<) c.lo
                                  OR t.num OPERATOR(pg_catalog.>) c.hi THEN 'is not ' OPERATOR(pg_catalog.||) c.words
                             WHEN pg_catalog.scale(t.num) OPERATOR(pg_catalog.<>) 0 THEN '' END
                    -- numbers that double precision holds, not too close to its limits
                    WHEN NOT (pg_catalog.abs(t.num) OPERATOR(pg_catalog.<) 1e300
                              AND (t.num OPERATOR(pg_catalog.=) 0 OR pg_catalog.abs(t.num) OPERATOR(pg_catalog.>=) 2.5e-324))
                    THEN 'is out of range for double precision'
                    WHEN t.num OPERATOR(pg_catalog.<) c.lo OR t.num OPERATOR(pg_catalog.>) c.hi
                         OR (t.num OPERATOR(pg_catalog.>) 0 AND t.num OPERATOR(pg_catalog.<) c.smallest)
                    THEN 'is not ' OPERATOR(pg_catalog.||) c.words END
          FROM elems e CROSS JOIN cols c
          CROSS JOIN LATERAL (SELECT x.v, pg_catalog.jsonb_typeof(x.v),
                                     CASE WHEN pg_catalog.jsonb_typeof(x.v) OPERATOR(pg_catalog.=) 'number' THEN x.v::numeric END
                                FROM (SELECT e.elem OPERATOR(pg_catalog.->) c.name) AS x(v) OFFSET 0) AS t(v, jt, num)
         WHERE pg_catalog.jsonb_typeof(e.elem) OPERATOR(pg_catalog.=) 'object') AS p
     WHERE p.problem IS NOT NULL
     ORDER BY p.problem OPERATOR(pg_catalog.=) '', p.i, p.attnum
     LIMIT 1;
    IF bad.problem OPERATOR(pg_catalog.<>) '' THEN
        PERFORM pgbench_lab_internal.doc_invalid(
            pg_catalog.format('%s[%s]%s %s', path, bad.i, '.' OPERATOR(pg_catalog.||) bad.name, bad.problem),
            pg_catalog.format('The column %s of %s is %s.', bad.name, tbl, pg_catalog.format_type(bad.typ, NULL)));
    END IF;
    -- the elements as the table reads them (NULL when as_is allows it and
    -- they read as they are: the table's values, its whole numbers as such)
    IF fields IS NULL AND defaults OPERATOR(pg_catalog.=) '{}' AND bad.problem IS NULL THEN
        rows := arr;
    ELSE
        WITH cols AS MATERIALIZED (SELECT * FROM pgbench_lab_internal.doc_columns(tbl, skip, fields, defaults))
        SELECT pg_catalog.jsonb_agg(defaults OPERATOR(pg_catalog.||) coalesce((
                   SELECT pg_catalog.jsonb_object_agg(c.name, CASE WHEN NOT c.whole THEN v.v
                                                                   ELSE pg_catalog.to_jsonb(pg_catalog.trunc(v.v::numeric)) END)
                     FROM cols c CROSS JOIN LATERAL (SELECT a.elem OPERATOR(pg_catalog.->) c.name) AS v(v)
                    WHERE pg_catalog.jsonb_typeof(v.v) OPERATOR(pg_catalog.<>) 'null'), '{}') ORDER BY a.n)
          INTO rows
          FROM pg_catalog.jsonb_array_elements(arr) WITH ORDINALITY AS a(elem, n);
        as_is := false;
    END IF;
    -- read into the row type; what does not read is found value by value
    BEGIN
        EXECUTE pg_catalog.format('SELECT FROM pg_catalog.jsonb_populate_recordset(%s, $1)', typed) USING rows;
    EXCEPTION WHEN data_exception THEN
        FOR con IN SELECT a.n OPERATOR(pg_catalog.-) 1 AS i, k.name, k.words, pg_catalog.jsonb_build_object(k.name, a.elem OPERATOR(pg_catalog.->) k.name) AS v
                   FROM pg_catalog.jsonb_array_elements(rows) WITH ORDINALITY AS a(elem, n)
                   JOIN pgbench_lab_internal.doc_columns(tbl, skip, fields, defaults) AS k ON a.elem OPERATOR(pg_catalog.?) k.name
                  ORDER BY a.n, k.attnum LOOP
            BEGIN
                EXECUTE pg_catalog.format('SELECT pg_catalog.jsonb_populate_record(%s, $1)', typed) USING con.v;
            EXCEPTION WHEN data_exception THEN
                GET STACKED DIAGNOSTICS msg = MESSAGE_TEXT;
                PERFORM pgbench_lab_internal.doc_invalid(pg_catalog.format('%s[%s].%s is not %s', path, con.i, con.name, con.words), msg);
            END;
        END LOOP;
        RAISE;
    END;
    -- the table's CHECK constraints, evaluated as the table would (their
    -- expressions as the catalog gives them, under this function's
    -- search_path): the first element that one of them refuses
    FOR con IN SELECT k.conname, pg_catalog.pg_get_expr(k.conbin, k.conrelid) AS expr, pg_catalog.pg_get_constraintdef(k.oid) AS def,
                    (SELECT a.attname FROM pg_catalog.pg_attribute a
                      WHERE a.attrelid OPERATOR(pg_catalog.=) k.conrelid AND a.attnum OPERATOR(pg_catalog.=) k.conkey[1]
                        AND pg_catalog.cardinality(k.conkey) OPERATOR(pg_catalog.=) 1) AS col
               FROM pg_catalog.pg_constraint k
              WHERE k.conrelid OPERATOR(pg_catalog.=) tbl AND k.contype OPERATOR(pg_catalog.=) 'c'
              ORDER BY k.conname LOOP
        EXECUTE pg_catalog.format('SELECT t.ordinality OPERATOR(pg_catalog.-) 1, pg_catalog.to_jsonb(t)
                                     FROM pg_catalog.jsonb_populate_recordset(%s, $1) WITH ORDINALITY AS t
                                    WHERE (%s) IS FALSE ORDER BY t.ordinality LIMIT 1', typed, con.expr)
            INTO i, val USING rows;
        IF i IS NOT NULL THEN
            PERFORM pgbench_lab_internal.doc_invalid(
                pg_catalog.format('%s[%s]%s is not allowed by the check %s of %s', path, i,
                                  CASE WHEN con.col IS NOT NULL
                                       THEN pg_catalog.format('.%s %s', con.col, val OPERATOR(pg_catalog.->) con.col::pg_catalog.text) END,
                                  con.conname, tbl),
                pg_catalog.format('%s: %s', con.conname, con.def));
        END IF;
    END LOOP;
    -- the table's keys (without the run's columns): the first element
    -- whose key an earlier element has
    FOR con IN SELECT k.conname, pg_catalog.pg_get_constraintdef(k.oid) AS def,
                    ARRAY(SELECT a.attname::pg_catalog.text
                            FROM pg_catalog.unnest(k.conkey) WITH ORDINALITY AS u(attnum, o)
                            JOIN pg_catalog.pg_attribute a ON a.attrelid OPERATOR(pg_catalog.=) k.conrelid
                                                          AND a.attnum OPERATOR(pg_catalog.=) u.attnum
                           WHERE NOT a.attname::pg_catalog.text OPERATOR(pg_catalog.=) ANY (skip)
                           ORDER BY u.o) AS cols
               FROM pg_catalog.pg_constraint k
              WHERE k.conrelid OPERATOR(pg_catalog.=) tbl
                AND (k.contype OPERATOR(pg_catalog.=) 'p' OR k.contype OPERATOR(pg_catalog.=) 'u')
              ORDER BY k.contype, k.conname LOOP
        CONTINUE WHEN pg_catalog.cardinality(con.cols) OPERATOR(pg_catalog.=) 0;
        EXECUTE pg_catalog.format('SELECT d.i, d.v FROM (
                                     SELECT t.ordinality OPERATOR(pg_catalog.-) 1 AS i, pg_catalog.jsonb_build_object(%s) AS v,
                                            pg_catalog.row_number() OVER (PARTITION BY %s ORDER BY t.ordinality) AS k
                                       FROM pg_catalog.jsonb_populate_recordset(%s, $1) WITH ORDINALITY AS t) AS d
                                    WHERE d.k OPERATOR(pg_catalog.>) 1 ORDER BY d.i LIMIT 1',
                                  (SELECT pg_catalog.string_agg(pg_catalog.format('%L, t.%I', x, x), ', ') FROM pg_catalog.unnest(con.cols) AS x),
                                  (SELECT pg_catalog.string_agg(pg_catalog.format('t.%I', x), ', ') FROM pg_catalog.unnest(con.cols) AS x),
                                  typed)
            INTO i, val USING rows;
        IF i IS NOT NULL THEN
            RAISE EXCEPTION 'invalid export document: %[%]% appears twice', path, i,
                            CASE WHEN pg_catalog.cardinality(con.cols) OPERATOR(pg_catalog.=) 1
                                 THEN pg_catalog.format('.%s %s', con.cols[1], val OPERATOR(pg_catalog.->) con.cols[1])
                                 ELSE ': ' OPERATOR(pg_catalog.||) val::pg_catalog.text END
                USING ERRCODE = 'invalid_parameter_value',
                      DETAIL = pg_catalog.format('%s holds one row for each %s: %s %s.', tbl,
                                                 pg_catalog.array_to_string(con.cols, ', '), con.conname, con.def),
                      HINT = 'Pass a document made by pgbench_lab.export(); the format is described in the README.';
        END IF;
    END LOOP;
    RETURN CASE WHEN NOT as_is THEN rows END;
END
$$;

-- The counts of a run's array (its elements as the table reads them):
-- each bigint column's values, added up over the elements, fit a bigint,
-- as the readers add them up (a run's transactions over its seconds, its
-- histogram's buckets, its errors).  The first element that takes a sum
-- past the largest bigint raises an error naming its path.
CREATE FUNCTION pgbench_lab_internal.doc_sums(tbl regclass, arr jsonb, path text)
RETURNS void LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    bad pg_catalog.record;
BEGIN
    SELECT s.i, s.name INTO bad
      FROM (SELECT a.n OPERATOR(pg_catalog.-) 1 AS i, c.attname::pg_catalog.text AS name, c.attnum,
                   pg_catalog.sum((a.elem OPERATOR(pg_catalog.->>) c.attname::pg_catalog.text)::numeric)
                       OVER (PARTITION BY c.attnum ORDER BY a.n) AS upto
              FROM pg_catalog.pg_attribute c
             CROSS JOIN pg_catalog.jsonb_array_elements(arr) WITH ORDINALITY AS a(elem, n)
             WHERE c.attrelid OPERATOR(pg_catalog.=) tbl AND c.attnum OPERATOR(pg_catalog.>) 0 AND NOT c.attisdropped
               AND c.atttypid OPERATOR(pg_catalog.=) 'pg_catalog.int8'::pg_catalog.regtype
               AND c.attname OPERATOR(pg_catalog.<>) 'run_id'
               AND pg_catalog.jsonb_typeof(a.elem OPERATOR(pg_catalog.->) c.attname::pg_catalog.text) OPERATOR(pg_catalog.=) 'number') AS s
     WHERE s.upto OPERATOR(pg_catalog.>) 9223372036854775807
     ORDER BY s.i, s.attnum
     LIMIT 1;
    IF FOUND THEN
        PERFORM pgbench_lab_internal.doc_invalid(
            pg_catalog.format('%s[%s].%s takes the sum of %s over %s past 9223372036854775807', path, bad.i, bad.name, bad.name, path),
            pg_catalog.format('The readers add up the %s of a run''s %s rows as bigint.', bad.name, tbl));
    END IF;
END
$$;
