-- ---------------------------------------------------------------------------
-- Export and import: the parameters of experiments by kind, the document
-- as a whole (doc_validate), import_as() and import(), and export().  How
-- each array of the document is read and checked against its table is in
-- 73_doc_rows.sql.
-- ---------------------------------------------------------------------------

-- ---------------------------------------------------------------------------
-- The parameters of experiments, by kind: what run() arguments an
-- experiment's kind takes (until run_options() describes them, these are
-- written here).  doc_check_params() reads them with doc_spec(kind); the
-- kinds of value are those of doc_first_bad().
-- ---------------------------------------------------------------------------

-- The parameters of each kind of experiment, {"key": "kind[!]"} ('!' =
-- required).
CREATE FUNCTION pgbench_lab_internal.doc_spec(what text)
RETURNS jsonb LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE
        WHEN what OPERATOR(pg_catalog.=) 'sweep' THEN '{"clients": "array!", "duration": "interval", "settings": "object",
            "scripts": "array", "variables": "object",
            "knee_threshold": "share", "rounds": "count", "smallest_effect": "num", "confidence": "share"}'::pg_catalog.jsonb
        WHEN what OPERATOR(pg_catalog.=) 'compare_settings' THEN '{"settings": "array!", "clients": "count!",
            "duration": "interval", "rounds": "count!", "scripts": "array", "variables": "object",
            "rate": "num", "latency_limit": "interval", "restart_settings": "object",
            "smallest_effect": "num", "confidence": "share", "looks": "array", "budget": "interval"}'::pg_catalog.jsonb
        WHEN what OPERATOR(pg_catalog.=) 'cold_vs_warm' THEN '{"clients": "count!", "duration": "interval",
            "relations": "array", "relids": "array", "scripts": "array", "variables": "object",
            "rounds": "count", "smallest_effect": "num", "confidence": "share"}'::pg_catalog.jsonb
        WHEN what OPERATOR(pg_catalog.=) 'connection_cost' THEN '{"clients": "count!", "duration": "interval",
            "rounds": "count", "settings": "array", "scripts": "array", "variables": "object",
            "smallest_effect": "num", "confidence": "share"}'::pg_catalog.jsonb
        WHEN what OPERATOR(pg_catalog.=) 'latency_curve' THEN '{"clients": "count!", "duration": "interval",
            "target_ms": "num!", "percentile": "share!", "rates": "array", "shares": "array",
            "scripts": "array", "variables": "object", "runs": "num", "repeats": "num", "confidence": "share"}'::pg_catalog.jsonb
        WHEN what OPERATOR(pg_catalog.=) 'validate_recommendation' THEN '{"settings": "array!", "groups": "array!",
            "changes": "array!", "clients": "count!", "duration": "interval", "rounds": "count!",
            "smallest_effect": "num", "confidence": "share", "looks": "array", "budget": "interval"}'::pg_catalog.jsonb
        WHEN what OPERATOR(pg_catalog.=) 'tune' THEN '{"clients": "count!", "duration": "interval", "objective": "text!",
            "knobs": "array!", "levels": "array", "budget": "interval", "start": "object!", "settings": "object",
            "recommended": "object", "moves": "array!", "refused": "array", "search_confidence": "share!",
            "search_looks": "array!", "proof_looks": "array!", "p99_limit_ms": "num", "scripts": "array",
            "variables": "object", "rate": "num", "latency_limit": "interval",
            "smallest_effect": "num", "confidence": "share"}'::pg_catalog.jsonb
        END
$$;


-- The first problem of the elements of arr (an array of objects) against
-- spec {"key": "kind[!]"} ('!' = required), in the order of the elements
-- and then of the keys: the element's index (from 0), the key (NULL when
-- the element is no object) and what is wrong.  No row: no problem.
--
-- One query over every element and key, the kinds written out in it:
-- strings, objects, arrays, timestamps and intervals that PostgreSQL
-- reads (intervals above 0 and at most 100 years, as doc_fits() holds
-- them), numbers (num: 0 or more, under 1e300 and not so small that it
-- would read as 0; share: above 0 and below 1) and whole numbers (count:
-- 1 to 2147483647; oid: 0 to 4294967295).
CREATE FUNCTION pgbench_lab_internal.doc_first_bad(arr jsonb, spec jsonb,
                                          OUT i bigint, OUT key text, OUT problem text)
RETURNS SETOF record LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH s AS MATERIALIZED (
        SELECT f.key, f.want OPERATOR(pg_catalog.~~) '%!' AS required, k.*
          FROM pg_catalog.jsonb_each_text(spec) AS f(key, want)
          JOIN (VALUES
                ('text', false, false, NULL::numeric, NULL::numeric, 'a string'),
                ('object', false, false, NULL, NULL, 'an object'),
                ('array', false, false, NULL, NULL, 'an array'),
                ('time', false, false, NULL, NULL, 'a timestamp'),
                ('interval', false, false, NULL, NULL, 'an interval above 0 and at most 100 years'),
                ('num', true, false, 0, NULL, 'a number of 0 or more'),
                ('share', true, false, 0, 1, 'a number above 0 and below 1'),
                ('count', true, true, 1, 2147483647, 'a whole number from 1 to 2147483647'),
                ('oid', true, true, 0, 4294967295, 'a whole number from 0 to 4294967295'))
            AS k(kind, is_number, whole, lo, hi, descr)
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
                                                                        ELSE 'string' END
                                  THEN false
                                  WHEN s.kind OPERATOR(pg_catalog.=) 'time' THEN pgbench_lab_internal.reads_as(v.v OPERATOR(pg_catalog.#>>) '{}', 'timestamptz')
                                  WHEN s.kind OPERATOR(pg_catalog.=) 'interval' THEN pgbench_lab_internal.reads_as(v.v OPERATOR(pg_catalog.#>>) '{}', 'interval')
                                                                                   AND pgbench_lab_internal.doc_fits(v.v OPERATOR(pg_catalog.#>>) '{}', 'span')
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
                  HINT = 'Each client count of a sweep, and each rate or share of a latency curve, appears once.';
    END IF;
    IF bad.i IS NOT NULL THEN
        PERFORM pgbench_lab_internal.doc_invalid(pg_catalog.format('%s[%s]%s %s', path, bad.i,
            CASE WHEN coalesce(bad.key, '') OPERATOR(pg_catalog.=) '' THEN '' ELSE '.' OPERATOR(pg_catalog.||) bad.key END, bad.problem));
    END IF;
END
$$;

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
        -- the maximum, the rates, and the steps down below the lowest
        variants := pgbench_lab_internal.latency_curve_planned(params)
                    OPERATOR(pg_catalog.+) pgbench_lab_internal.latency_curve_max_steps_down();
    ELSIF kind OPERATOR(pg_catalog.=) 'tune' THEN
        -- the search's moves (2 variants each: the incumbent, the move), then
        -- the proof's 4 (86_tune.sql)
        PERFORM pgbench_lab_internal.doc_check_each(params OPERATOR(pg_catalog.->) 'moves', '{"change": "object!", "source": "text"}',
                                           path OPERATOR(pg_catalog.||) '.params.moves', '{}');
        PERFORM pgbench_lab_internal.doc_check_each(pgbench_lab_internal.json_wrap(params OPERATOR(pg_catalog.->) 'search_looks'), '{"": "count!"}',
                                           path OPERATOR(pg_catalog.||) '.params.search_looks', '{""}');
        PERFORM pgbench_lab_internal.doc_check_each(pgbench_lab_internal.json_wrap(params OPERATOR(pg_catalog.->) 'proof_looks'), '{"": "count!"}',
                                           path OPERATOR(pg_catalog.||) '.params.proof_looks', '{""}');
        variants := 2 OPERATOR(pg_catalog.*) pg_catalog.jsonb_array_length(params OPERATOR(pg_catalog.->) 'moves') OPERATOR(pg_catalog.+) 4;
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
                                           WHEN kind OPERATOR(pg_catalog.=) 'latency_curve' THEN 'the maximum, the rates and the steps down'
                                           WHEN kind OPERATOR(pg_catalog.=) 'tune' THEN 'search''s and proof''s configurations'
                                           ELSE 'sets of settings' END));
    END IF;
END
$$;


-- ---------------------------------------------------------------------------
-- The document as a whole: its format, each array read as its table reads
-- it (doc_rows), and what spans objects.
-- ---------------------------------------------------------------------------

-- obj->key, an array of the object at path, or NULL when it is missing
-- and not required.
CREATE FUNCTION pgbench_lab_internal.doc_array(obj jsonb, key text, path text, required boolean)
RETURNS jsonb LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF pg_catalog.jsonb_typeof(obj OPERATOR(pg_catalog.->) key) OPERATOR(pg_catalog.=) 'array' THEN
        RETURN obj OPERATOR(pg_catalog.->) key;
    ELSIF pg_catalog.jsonb_typeof(obj OPERATOR(pg_catalog.->) key) OPERATOR(pg_catalog.<>) 'null' THEN
        PERFORM pgbench_lab_internal.doc_invalid(pg_catalog.format('%s.%s is not an array', path, key));
    ELSIF required THEN
        PERFORM pgbench_lab_internal.doc_invalid(pg_catalog.format('%s.%s is missing', path, key));
    END IF;
    RETURN NULL;
END
$$;

-- What spans the columns of a run or an experiment of the document (its
-- row as the table reads it, at path): it did not finish before it
-- started, and a run's transactions and failures, which the readers add up
-- (the transactions it ran), fit a bigint together.
CREATE FUNCTION pgbench_lab_internal.doc_check_row(row_doc jsonb, path text)
RETURNS void LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF (row_doc OPERATOR(pg_catalog.->>) 'finished_at')::pg_catalog.timestamptz
       OPERATOR(pg_catalog.<) (row_doc OPERATOR(pg_catalog.->>) 'started_at')::pg_catalog.timestamptz THEN
        PERFORM pgbench_lab_internal.doc_invalid(pg_catalog.format('%s.finished_at %s is before its started_at %s', path,
                                                                   row_doc OPERATOR(pg_catalog.->) 'finished_at',
                                                                   row_doc OPERATOR(pg_catalog.->) 'started_at'));
    END IF;
    IF coalesce((row_doc OPERATOR(pg_catalog.->>) 'transactions')::numeric, 0)
       OPERATOR(pg_catalog.+) coalesce((row_doc OPERATOR(pg_catalog.->>) 'failures')::numeric, 0)
       OPERATOR(pg_catalog.>) 9223372036854775807 THEN
        PERFORM pgbench_lab_internal.doc_invalid(
            pg_catalog.format('%s.failures takes the sum of transactions and failures past 9223372036854775807', path),
            'The readers add up a run''s transactions and failures (the transactions it ran) as bigint.');
    END IF;
END
$$;

-- The whole document checked before anything is written; returns what
-- import writes: {"runs": [...], "experiments": [...]}, each row as its
-- table reads it (doc_rows()), with its source server and id, and with
-- the arrays that needed rewriting (a run's others are read from the
-- document as they are).
CREATE FUNCTION pgbench_lab_internal.doc_validate(doc jsonb)
RETURNS jsonb LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    r pg_catalog.record;
    part pg_catalog.record;
    runs pg_catalog.jsonb[] := '{}';
    experiments pg_catalog.jsonb[] := '{}';
    one pg_catalog.jsonb;
    got pg_catalog.jsonb;
    path pg_catalog.text;
    kinds pg_catalog.text[];
    bad pg_catalog.int8;
BEGIN
    IF doc IS NULL OR pg_catalog.jsonb_typeof(doc) OPERATOR(pg_catalog.=) 'null' THEN
        RAISE EXCEPTION 'export document must not be null'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Pass a document made by pgbench_lab.export(); the format is described in the README.';
    END IF;
    PERFORM pgbench_lab_internal.doc_check(doc, '{"format": "text!", "version": "count!", "server": "object!",
        "runs": "array!", "experiments": "array", "captures": "array", "exported_at": "time"}', '$');
    IF doc OPERATOR(pg_catalog.->>) 'format' OPERATOR(pg_catalog.<>) 'pgbench_lab export' OR doc OPERATOR(pg_catalog.->) 'version' OPERATOR(pg_catalog.<>) '1' THEN
        RAISE EXCEPTION 'unsupported export document: format "%" version %',
                        pgbench_lab.printable(doc OPERATOR(pg_catalog.->>) 'format'), doc OPERATOR(pg_catalog.->) 'version'
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'This version of pgbench_lab reads format "pgbench_lab export" version 1.';
    END IF;
    PERFORM pgbench_lab_internal.doc_check(doc OPERATOR(pg_catalog.->) 'server', '{"name": "text!", "server_version": "text"}', '$.server');

    -- the runs, then the arrays of each
    FOR r IN SELECT a.elem, x.row, a.n OPERATOR(pg_catalog.-) 1 AS i
               FROM pg_catalog.jsonb_array_elements(doc OPERATOR(pg_catalog.->) 'runs') WITH ORDINALITY AS a(elem, n)
               JOIN pg_catalog.jsonb_array_elements(pgbench_lab_internal.doc_rows('pgbench_lab.runs', doc OPERATOR(pg_catalog.->) 'runs',
                        '$.runs', '{}', pgbench_lab_internal.doc_carried('run'),
                        pg_catalog.jsonb_build_object('via', 'spi', 'settings', '{}'::pg_catalog.jsonb,
                                                      'source_server', doc OPERATOR(pg_catalog.->) 'server' OPERATOR(pg_catalog.->) 'name')))
                    WITH ORDINALITY AS x(row, n) ON x.n OPERATOR(pg_catalog.=) a.n
              ORDER BY a.n LOOP
        path := pg_catalog.format('$.runs[%s]', r.i);
        one := pg_catalog.jsonb_build_object('source_run_id', r.row OPERATOR(pg_catalog.->) 'run_id') OPERATOR(pg_catalog.||) r.row;
        -- its arrays; those that read as they are stay in the document
        FOR part IN SELECT * FROM (VALUES ('progress', 'pgbench_lab.run_progress'::pg_catalog.regclass, true),
                                          ('latency', 'pgbench_lab.run_latency', true),
                                          ('telemetry', 'pgbench_lab.run_telemetry', false),
                                          ('replication', 'pgbench_lab.run_replication', false),
                                          ('targets', 'pgbench_lab.run_targets', false),
                                          ('errors', 'pgbench_lab.run_errors', false)) AS x(key, tbl, required) LOOP
            got := pgbench_lab_internal.doc_rows(part.tbl, pgbench_lab_internal.doc_array(r.elem, part.key, path, part.required),
                                                 path OPERATOR(pg_catalog.||) '.' OPERATOR(pg_catalog.||) part.key, '{run_id}', NULL, '{}', true);
            IF got IS NOT NULL THEN
                one := one OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object(part.key, got);
            END IF;
            PERFORM pgbench_lab_internal.doc_sums(part.tbl, coalesce(got, r.elem OPERATOR(pg_catalog.->) part.key),
                                                  path OPERATOR(pg_catalog.||) '.' OPERATOR(pg_catalog.||) part.key);
        END LOOP;
        -- its scripts, each with its commands
        one := one OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object('scripts', (
            SELECT coalesce(pg_catalog.jsonb_agg(s.row OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object('commands',
                       pgbench_lab_internal.doc_rows('pgbench_lab.run_commands',
                           pgbench_lab_internal.doc_array(x.elem, 'commands', pg_catalog.format('%s.scripts[%s]', path, s.n OPERATOR(pg_catalog.-) 1), true),
                           pg_catalog.format('%s.scripts[%s].commands', path, s.n OPERATOR(pg_catalog.-) 1), '{run_id,script}'))
                       ORDER BY s.n), '[]')
              FROM pg_catalog.jsonb_array_elements(pgbench_lab_internal.doc_rows('pgbench_lab.run_scripts',
                       pgbench_lab_internal.doc_array(r.elem, 'scripts', path, false), path OPERATOR(pg_catalog.||) '.scripts', '{run_id}'))
                   WITH ORDINALITY AS s(row, n)
              JOIN pg_catalog.jsonb_array_elements(r.elem OPERATOR(pg_catalog.->) 'scripts') WITH ORDINALITY AS x(elem, n)
                ON x.n OPERATOR(pg_catalog.=) s.n));
        PERFORM pgbench_lab_internal.doc_sums('pgbench_lab.run_scripts', one OPERATOR(pg_catalog.->) 'scripts', path OPERATOR(pg_catalog.||) '.scripts');
        PERFORM pgbench_lab_internal.doc_sums('pgbench_lab.run_commands', s.e OPERATOR(pg_catalog.->) 'commands',
                                              pg_catalog.format('%s.scripts[%s].commands', path, s.n OPERATOR(pg_catalog.-) 1))
           FROM pg_catalog.jsonb_array_elements(one OPERATOR(pg_catalog.->) 'scripts') WITH ORDINALITY AS s(e, n);
        PERFORM pgbench_lab_internal.doc_check_row(r.row, path);
        -- a wait event's samples are a whole number (telemetry's waits)
        PERFORM pgbench_lab_internal.doc_invalid(pg_catalog.format('%s.telemetry[%s].waits: each wait event needs a whole number of samples (0 to 999999999)',
                                                                   path, t.n OPERATOR(pg_catalog.-) 1))
           FROM pg_catalog.jsonb_array_elements(coalesce(one OPERATOR(pg_catalog.->) 'telemetry', r.elem OPERATOR(pg_catalog.->) 'telemetry')) WITH ORDINALITY AS t(x, n)
          WHERE EXISTS (SELECT FROM pg_catalog.jsonb_each(t.x OPERATOR(pg_catalog.->) 'waits') AS w
                         WHERE NOT (pg_catalog.jsonb_typeof(w.value) OPERATOR(pg_catalog.=) 'number'
                                    AND w.value::pg_catalog.text OPERATOR(pg_catalog.~) '^[0-9]{1,9}$'));
        runs := runs OPERATOR(pg_catalog.||) one;
    END LOOP;

    -- the experiments: one of this server's kinds, their runs those of
    -- the document, their parameters by kind
    kinds := ARRAY(SELECT k.kind FROM pgbench_lab.experiment_kinds k ORDER BY k.procedure::pg_catalog.oid);
    FOR r IN SELECT a.elem, x.row, a.n OPERATOR(pg_catalog.-) 1 AS i
               FROM pg_catalog.jsonb_array_elements(doc OPERATOR(pg_catalog.->) 'experiments') WITH ORDINALITY AS a(elem, n)
               JOIN pg_catalog.jsonb_array_elements(pgbench_lab_internal.doc_rows('pgbench_lab.experiments',
                        doc OPERATOR(pg_catalog.->) 'experiments', '$.experiments', '{}', pgbench_lab_internal.doc_carried('experiment'),
                        pg_catalog.jsonb_build_object('source_server', doc OPERATOR(pg_catalog.->) 'server' OPERATOR(pg_catalog.->) 'name')))
                    WITH ORDINALITY AS x(row, n) ON x.n OPERATOR(pg_catalog.=) a.n
              ORDER BY a.n LOOP
        path := pg_catalog.format('$.experiments[%s]', r.i);
        IF NOT (r.row OPERATOR(pg_catalog.->>) 'kind') OPERATOR(pg_catalog.=) ANY (kinds) THEN
            PERFORM pgbench_lab_internal.doc_invalid(pg_catalog.format('%s.kind is not one of %s', path, pg_catalog.array_to_string(kinds, ', ')),
                                                     'The kinds of experiment are those of pgbench_lab.experiment_kinds.');
        END IF;
        one := pg_catalog.jsonb_build_object('source_experiment_id', r.row OPERATOR(pg_catalog.->) 'experiment_id')
            OPERATOR(pg_catalog.||) r.row OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object('runs',
                pgbench_lab_internal.doc_rows('pgbench_lab.experiment_runs', pgbench_lab_internal.doc_array(r.elem, 'runs', path, true),
                                              path OPERATOR(pg_catalog.||) '.runs', '{experiment_id}'));
        SELECT x.n OPERATOR(pg_catalog.-) 1 INTO bad
          FROM pg_catalog.jsonb_array_elements(one OPERATOR(pg_catalog.->) 'runs') WITH ORDINALITY AS x(l, n)
         WHERE NOT EXISTS (SELECT FROM pg_catalog.unnest(runs) AS d
                            WHERE (d OPERATOR(pg_catalog.->) 'run_id') OPERATOR(pg_catalog.=) (x.l OPERATOR(pg_catalog.->) 'run_id'))
         ORDER BY x.n LIMIT 1;
        IF FOUND THEN
            PERFORM pgbench_lab_internal.doc_invalid(pg_catalog.format('%s.runs[%s].run_id names a run that is not in $.runs', path, bad));
        END IF;
        PERFORM pgbench_lab_internal.doc_check_params(r.elem, path);
        PERFORM pgbench_lab_internal.doc_check_row(r.row, path);
        experiments := experiments OPERATOR(pg_catalog.||) one;
    END LOOP;
    RETURN pg_catalog.jsonb_build_object('runs', pg_catalog.to_jsonb(runs), 'experiments', pg_catalog.to_jsonb(experiments),
                                         'captures', pgbench_lab_internal.doc_captures(doc));
END
$$;

-- Import as caller: new local ids, source server and source ids kept.
-- Set-based: each table is written by one statement for the whole
-- document, whatever its size, each row read into the table's row type
-- from the document as doc_validate() returns it, with its new ids.  The
-- new ids are drawn first, in the order of the document (runs, then
-- experiments), so that the rows of each can refer to them.
CREATE FUNCTION pgbench_lab_internal.import_as(caller regrole, doc jsonb)
RETURNS jsonb LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    rows pg_catalog.jsonb;
    ids pg_catalog.jsonb;
    marks pg_catalog.jsonb := pg_catalog.jsonb_build_object('owner', caller::pg_catalog.oid, 'imported_at', pg_catalog.now());
BEGIN
    IF NOT pg_catalog.has_function_privilege(caller::pg_catalog.oid, 'pgbench_lab.import(jsonb)', 'EXECUTE') THEN
        RAISE EXCEPTION 'permission denied for function import'
            USING ERRCODE = 'insufficient_privilege',
                  HINT = 'A superuser can GRANT EXECUTE ON FUNCTION pgbench_lab.import(jsonb).';
    END IF;
    rows := pgbench_lab_internal.doc_validate(doc);
    -- the new ids, {"run_id": {source id: new id}, "experiment_id": {...}}
    SELECT pg_catalog.jsonb_object_agg(x.id, x.ids) INTO ids
      FROM (SELECT w.id, pg_catalog.jsonb_object_agg(w.source_id, w.new_id) AS ids
              FROM (SELECT w.id, a.e OPERATOR(pg_catalog.->>) w.id AS source_id,
                           pg_catalog.nextval('pgbench_lab.runs_run_id_seq'::pg_catalog.regclass) AS new_id
                      FROM (VALUES (1, 'runs', 'run_id'), (2, 'experiments', 'experiment_id')) AS w(o, what, id)
                      CROSS JOIN LATERAL pg_catalog.jsonb_array_elements(rows OPERATOR(pg_catalog.->) w.what) WITH ORDINALITY AS a(e, n)
                     ORDER BY w.o, a.n) AS w
             GROUP BY w.id) AS x;
    -- each row read into its table's row type, with its new ids; the
    -- arrays of a run that read as they are from the document
    WITH r AS (
        SELECT n.r, o.r AS doc, ids OPERATOR(pg_catalog.->) 'run_id' OPERATOR(pg_catalog.->) (n.r OPERATOR(pg_catalog.->>) 'run_id') AS id
          FROM pg_catalog.jsonb_array_elements(rows OPERATOR(pg_catalog.->) 'runs') WITH ORDINALITY AS n(r, i)
          JOIN pg_catalog.jsonb_array_elements(doc OPERATOR(pg_catalog.->) 'runs') WITH ORDINALITY AS o(r, i) ON o.i OPERATOR(pg_catalog.=) n.i),
    runs AS (
        INSERT INTO pgbench_lab.runs OVERRIDING SYSTEM VALUE SELECT v.*
          FROM r CROSS JOIN LATERAL pg_catalog.jsonb_populate_record(NULL::pgbench_lab.runs,
                   r.r OPERATOR(pg_catalog.||) marks OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object('run_id', r.id)) AS v),
    scripts AS (
        INSERT INTO pgbench_lab.run_scripts SELECT v.*
          FROM r CROSS JOIN LATERAL pg_catalog.jsonb_array_elements(r.r OPERATOR(pg_catalog.->) 'scripts') AS s(e)
          CROSS JOIN LATERAL pg_catalog.jsonb_populate_record(NULL::pgbench_lab.run_scripts,
                                 s.e OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object('run_id', r.id)) AS v),
    commands AS (
        INSERT INTO pgbench_lab.run_commands SELECT v.*
          FROM r CROSS JOIN LATERAL pg_catalog.jsonb_array_elements(r.r OPERATOR(pg_catalog.->) 'scripts') AS s(e)
          CROSS JOIN LATERAL pg_catalog.jsonb_array_elements(s.e OPERATOR(pg_catalog.->) 'commands') AS c(e)
          CROSS JOIN LATERAL pg_catalog.jsonb_populate_record(NULL::pgbench_lab.run_commands, c.e OPERATOR(pg_catalog.||)
                                 pg_catalog.jsonb_build_object('run_id', r.id, 'script', s.e OPERATOR(pg_catalog.->) 'script')) AS v),
    progress AS (
        INSERT INTO pgbench_lab.run_progress SELECT v.*
          FROM r CROSS JOIN LATERAL pg_catalog.jsonb_array_elements(coalesce(r.r OPERATOR(pg_catalog.->) 'progress', r.doc OPERATOR(pg_catalog.->) 'progress')) AS x(e)
          CROSS JOIN LATERAL pg_catalog.jsonb_populate_record(NULL::pgbench_lab.run_progress,
                                 x.e OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object('run_id', r.id)) AS v),
    latency AS (
        INSERT INTO pgbench_lab.run_latency SELECT v.*
          FROM r CROSS JOIN LATERAL pg_catalog.jsonb_array_elements(coalesce(r.r OPERATOR(pg_catalog.->) 'latency', r.doc OPERATOR(pg_catalog.->) 'latency')) AS x(e)
          CROSS JOIN LATERAL pg_catalog.jsonb_populate_record(NULL::pgbench_lab.run_latency,
                                 x.e OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object('run_id', r.id)) AS v),
    telemetry AS (
        INSERT INTO pgbench_lab.run_telemetry SELECT v.*
          FROM r CROSS JOIN LATERAL pg_catalog.jsonb_array_elements(coalesce(r.r OPERATOR(pg_catalog.->) 'telemetry', r.doc OPERATOR(pg_catalog.->) 'telemetry')) AS x(e)
          CROSS JOIN LATERAL pg_catalog.jsonb_populate_record(NULL::pgbench_lab.run_telemetry,
                                 x.e OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object('run_id', r.id)) AS v),
    replication AS (
        INSERT INTO pgbench_lab.run_replication SELECT v.*
          FROM r CROSS JOIN LATERAL pg_catalog.jsonb_array_elements(coalesce(r.r OPERATOR(pg_catalog.->) 'replication', r.doc OPERATOR(pg_catalog.->) 'replication')) AS x(e)
          CROSS JOIN LATERAL pg_catalog.jsonb_populate_record(NULL::pgbench_lab.run_replication,
                                 x.e OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object('run_id', r.id)) AS v),
    errors AS (
        INSERT INTO pgbench_lab.run_errors SELECT v.*
          FROM r CROSS JOIN LATERAL pg_catalog.jsonb_array_elements(coalesce(r.r OPERATOR(pg_catalog.->) 'errors', r.doc OPERATOR(pg_catalog.->) 'errors')) AS x(e)
          CROSS JOIN LATERAL pg_catalog.jsonb_populate_record(NULL::pgbench_lab.run_errors,
                                 x.e OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object('run_id', r.id)) AS v)
    INSERT INTO pgbench_lab.run_targets SELECT v.*
      FROM r CROSS JOIN LATERAL pg_catalog.jsonb_array_elements(coalesce(r.r OPERATOR(pg_catalog.->) 'targets', r.doc OPERATOR(pg_catalog.->) 'targets')) AS x(e)
      CROSS JOIN LATERAL pg_catalog.jsonb_populate_record(NULL::pgbench_lab.run_targets,
                             x.e OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object('run_id', r.id)) AS v;
    WITH e AS (
        SELECT n.e, ids OPERATOR(pg_catalog.->) 'experiment_id' OPERATOR(pg_catalog.->) (n.e OPERATOR(pg_catalog.->>) 'experiment_id') AS id
          FROM pg_catalog.jsonb_array_elements(rows OPERATOR(pg_catalog.->) 'experiments') AS n(e)),
    experiments AS (
        INSERT INTO pgbench_lab.experiments SELECT v.*
          FROM e CROSS JOIN LATERAL pg_catalog.jsonb_populate_record(NULL::pgbench_lab.experiments,
                   e.e OPERATOR(pg_catalog.||) marks OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object('experiment_id', e.id)) AS v)
    INSERT INTO pgbench_lab.experiment_runs SELECT v.*
      FROM e CROSS JOIN LATERAL pg_catalog.jsonb_array_elements(e.e OPERATOR(pg_catalog.->) 'runs') AS l(x)
      CROSS JOIN LATERAL pg_catalog.jsonb_populate_record(NULL::pgbench_lab.experiment_runs, l.x OPERATOR(pg_catalog.||)
                             pg_catalog.jsonb_build_object('experiment_id', e.id, 'run_id',
                                 ids OPERATOR(pg_catalog.->) 'run_id' OPERATOR(pg_catalog.->) (l.x OPERATOR(pg_catalog.->>) 'run_id'))) AS v;
    -- and the captures, with ids of their own
    ids := coalesce(ids, '{}') OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object('capture_id',
               pgbench_lab_internal.import_captures(caller, rows OPERATOR(pg_catalog.->) 'captures'));
    RETURN (SELECT coalesce(pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object('kind', w.kind, 'source_id', a.e OPERATOR(pg_catalog.->) w.id,
                                                     'id', ids OPERATOR(pg_catalog.->) w.id OPERATOR(pg_catalog.->) (a.e OPERATOR(pg_catalog.->>) w.id))
                                                ORDER BY w.o, a.n), '[]')
              FROM (VALUES (1, 'runs', 'run', 'run_id'), (2, 'experiments', 'experiment', 'experiment_id'),
                           (3, 'captures', 'capture', 'capture_id')) AS w(o, what, kind, id)
              CROSS JOIN LATERAL pg_catalog.jsonb_array_elements(rows OPERATOR(pg_catalog.->) w.what) WITH ORDINALITY AS a(e, n));
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
                                              '{rate,latency_limit,lag_avg_ms,lag_max_ms,late,skipped,scheduled,rate_sustained,variables,serialization_failures,deadlock_failures}')
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
                                                          '{owner,transactions,latency_avg_ms,failures,retries,serialization_failures,deadlock_failures}')
                       OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object('commands',
                           (SELECT pg_catalog.jsonb_agg(pgbench_lab_internal.without_nulls(
                                       pg_catalog.to_jsonb(c) OPERATOR(pg_catalog.-) '{run_id,script}'::pg_catalog.text[],
                                       '{executions,latency_avg_ms,failures,retries,serialization_failures,deadlock_failures}') ORDER BY c.command)
                              FROM pgbench_lab.run_commands c
                             WHERE c.run_id OPERATOR(pg_catalog.=) s.run_id AND c.script OPERATOR(pg_catalog.=) s.script))
                       ORDER BY s.script))
              FROM pgbench_lab.run_scripts s WHERE s.run_id OPERATOR(pg_catalog.=) r.run_id
            HAVING pg_catalog.count(*) OPERATOR(pg_catalog.>) 0), '{}')
        -- and a run of TPC-C's kit HammerDB's figures, derived from its
        -- scripts and samples (an import leaves them: tpcc_figures()
        -- computes them again from what it imported), nulls left out
        OPERATOR(pg_catalog.||) coalesce(CASE WHEN EXISTS (SELECT FROM pgbench_lab.run_scripts s
                                                            WHERE s.run_id OPERATOR(pg_catalog.=) r.run_id
                                                              AND s.name OPERATOR(pg_catalog.=) 'tpcc-new-order') THEN (
            SELECT pg_catalog.jsonb_build_object('tpcc', pg_catalog.jsonb_agg(pg_catalog.jsonb_strip_nulls(pg_catalog.to_jsonb(f))))
              FROM pgbench_lab.tpcc_figures(r.run_id) AS f) END, '{}')
        -- and a run with telemetry (0.2) carries it, its nulls left out
        OPERATOR(pg_catalog.||) coalesce((
            SELECT pg_catalog.jsonb_build_object('telemetry', pg_catalog.jsonb_agg(
                       pg_catalog.jsonb_strip_nulls(pg_catalog.to_jsonb(t) OPERATOR(pg_catalog.-) 'run_id') ORDER BY t.second))
              FROM pgbench_lab.run_telemetry t WHERE t.run_id OPERATOR(pg_catalog.=) r.run_id
            HAVING pg_catalog.count(*) OPERATOR(pg_catalog.>) 0), '{}')
        -- and a run that met errors their texts and counts
        OPERATOR(pg_catalog.||) coalesce((
            SELECT pg_catalog.jsonb_build_object('errors', pg_catalog.jsonb_agg(
                       pg_catalog.jsonb_strip_nulls(pg_catalog.to_jsonb(x) OPERATOR(pg_catalog.-) 'run_id') ORDER BY x.error))
              FROM pgbench_lab.run_errors x WHERE x.run_id OPERATOR(pg_catalog.=) r.run_id
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
                           '{server_version,in_recovery,settings,clients_failed,transactions,failures,tps,latency_avg_ms,error,scripts,system,conflicts,conflicts_by_kind,first_client,system_note,conflicts_error,wal_bytes,checkpoints,figures_note}')
                       ORDER BY x.target))
              FROM pgbench_lab.run_targets x WHERE x.run_id OPERATOR(pg_catalog.=) r.run_id
            HAVING pg_catalog.count(*) OPERATOR(pg_catalog.>) 0), '{}')
$$;

-- ids: runs and experiments (an experiment brings its runs); capture_ids:
-- captures; both NULL = every finished run and experiment and every
-- capture the caller can read (one of them given: the other NULL is none).
CREATE FUNCTION pgbench_lab.export(run_ids bigint[] DEFAULT NULL, capture_ids bigint[] DEFAULT NULL)
RETURNS jsonb LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
SET intervalstyle = 'postgres'
AS $$
DECLARE
    rids pg_catalog.int8[];
    eids pg_catalog.int8[];
    cids pg_catalog.int8[] := coalesce(capture_ids, '{}');
    bad pg_catalog.int8;
BEGIN
    SELECT x INTO bad FROM pg_catalog.unnest(capture_ids) AS x
     WHERE x IS NULL OR NOT EXISTS (SELECT FROM pgbench_lab.captures c WHERE c.capture_id OPERATOR(pg_catalog.=) x) LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'capture % not found', coalesce(bad::pg_catalog.text, 'NULL')
            USING ERRCODE = 'no_data_found', HINT = 'pgbench_lab.captures lists your captures.';
    END IF;
    IF run_ids IS NULL AND capture_ids IS NOT NULL THEN
        rids := '{}';
        eids := '{}';
    ELSIF run_ids IS NULL THEN
        cids := ARRAY(SELECT c.capture_id FROM pgbench_lab.captures c);
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
                         WHERE x.experiment_id OPERATOR(pg_catalog.=) e.experiment_id),
                       -- derived from the runs (an import computes them again), for a reader of the document
                       'verdicts',
                       (SELECT coalesce(pg_catalog.jsonb_agg(pg_catalog.to_jsonb(v)), '[]')
                          FROM pgbench_lab.experiment_verdicts(e.experiment_id) v))
                  ORDER BY e.experiment_id), '[]')
                   FROM pgbench_lab.experiments e WHERE e.experiment_id OPERATOR(pg_catalog.=) ANY (eids)))
        -- captures only where there are some: a document of runs reads as before
        OPERATOR(pg_catalog.||) coalesce((
            SELECT pg_catalog.jsonb_build_object('captures', pg_catalog.jsonb_agg(pgbench_lab_internal.export_capture(c) ORDER BY c.capture_id))
              FROM pgbench_lab.captures c WHERE c.capture_id OPERATOR(pg_catalog.=) ANY (cids)
            HAVING pg_catalog.count(*) OPERATOR(pg_catalog.>) 0), '{}');
END
$$;
COMMENT ON FUNCTION pgbench_lab.export(bigint[], bigint[]) IS
    'A versioned jsonb document of runs and experiments (progress, histograms, settings, system facts) and captures';


REVOKE ALL ON FUNCTION pgbench_lab.import(jsonb) FROM PUBLIC;
REVOKE ALL ON FUNCTION pgbench_lab_internal.import_as(regrole, jsonb) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION pgbench_lab.export(bigint[], bigint[]) TO pg_monitor;
