
-- ---------------------------------------------------------------------------
-- capture: the application's statements from pg_stat_statements, each
-- parameter mapped by the server's parser and parse analysis to what it
-- meets (src/capture_parse.c), for capture() to draw it from the data.
-- ---------------------------------------------------------------------------

-- Every $n of one statement: its type, and where found the column it is
-- compared with, stored into or set (kind eq, in, range, like, ne, other,
-- insert, update), or limit/offset; NULL kind: found nowhere (capture()
-- draws it by type and names it a guess).  No SET search_path: the text
-- names its tables as the application wrote them, and the caller's path
-- (the application's, as capture() sets it) resolves them; parse analysis
-- plans and executes nothing.  Granted to PUBLIC below.
CREATE FUNCTION pgbench_lab_internal.capture_params(query text)
RETURNS TABLE (param integer, type regtype, relation regclass, attnum smallint, kind text, operator text)
LANGUAGE C STABLE
AS 'MODULE_PATHNAME', 'pgbench_lab_capture_params';
COMMENT ON FUNCTION pgbench_lab_internal.capture_params(text) IS
    'pgbench_lab: each parameter of a normalized statement, its type and the column it meets, by parse analysis';
-- Granted to PUBLIC: it runs as its caller and writes nothing (the role
-- granted capture() calls it).
GRANT EXECUTE ON FUNCTION pgbench_lab_internal.capture_params(text) TO PUBLIC;

-- What one statement does (select, select for update, select with writes,
-- insert, update, delete, merge, utility), by parse analysis; no SET
-- search_path for the same reason as capture_params().
CREATE FUNCTION pgbench_lab_internal.capture_command(query text)
RETURNS text
LANGUAGE C STABLE
AS 'MODULE_PATHNAME', 'pgbench_lab_capture_command';
COMMENT ON FUNCTION pgbench_lab_internal.capture_command(text) IS
    'pgbench_lab: what a normalized statement does (select, select for update, insert, update, delete, merge, utility ...), by parse analysis';
GRANT EXECUTE ON FUNCTION pgbench_lab_internal.capture_command(text) TO PUBLIC;

-- capture(source => ...): the source server's statements or its tables'
-- columns, read over libpq in a read-only transaction (capture_source.c).
-- As its caller; revoked from PUBLIC with capture() (it connects out).
CREATE FUNCTION pgbench_lab_internal.capture_source(source text, what text, min_calls bigint, relations text[])
RETURNS TABLE (a text, b text, c text, d text, e text, f text, g text)
LANGUAGE C
AS 'MODULE_PATHNAME', 'pgbench_lab_capture_source';
REVOKE EXECUTE ON FUNCTION pgbench_lab_internal.capture_source(text, text, bigint, text[]) FROM PUBLIC;

-- How one parameter is drawn: a script line (\set or NULL for a sampled
-- one), whether that is a guess, and what it is; for a sampled one, the
-- values.  Runs as its caller, under capture()'s pinned path: every name
-- of the application's table comes as a regclass and an attribute number.
CREATE FUNCTION pgbench_lab_internal.capture_draw(
    param integer, type regtype, relation regclass, attnum smallint, kind text, sample_size integer,
    OUT draw text, OUT guess boolean, OUT about text, OUT vals text[])
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $body$
DECLARE
    col pg_catalog.text;
    nsp pg_catalog.name;
    rel pg_catalog.name;
    lo pg_catalog.int8;
    hi pg_catalog.int8;
    n pg_catalog.float8;
    pct pg_catalog.float8;
    pages pg_catalog.float8;
    method pg_catalog.text;
    is_int pg_catalog.bool := type OPERATOR(pg_catalog.=) ANY (ARRAY['pg_catalog.int2', 'pg_catalog.int4', 'pg_catalog.int8']::pg_catalog.regtype[]);
    is_num pg_catalog.bool := type OPERATOR(pg_catalog.=) ANY (ARRAY['pg_catalog.numeric', 'pg_catalog.float4', 'pg_catalog.float8']::pg_catalog.regtype[]);
BEGIN
    guess := false;
    IF kind OPERATOR(pg_catalog.=) 'limit' THEN
        draw := '\set p' OPERATOR(pg_catalog.||) param OPERATOR(pg_catalog.||) ' 10';
        guess := true;
        about := 'LIMIT: 10, a typical small value (the application''s is not kept)';
        RETURN;
    ELSIF kind OPERATOR(pg_catalog.=) 'offset' THEN
        draw := '\set p' OPERATOR(pg_catalog.||) param OPERATOR(pg_catalog.||) ' 0';
        guess := true;
        about := 'OFFSET: 0, the first page (the application''s is not kept)';
        RETURN;
    END IF;
    IF relation IS NOT NULL AND kind OPERATOR(pg_catalog.=) ANY (ARRAY['eq', 'in', 'range', 'like', 'ne', 'insert', 'update']) THEN
        col := pg_catalog.quote_ident(pg_catalog.format('%s', (SELECT a.attname FROM pg_catalog.pg_attribute a
                                                                WHERE a.attrelid OPERATOR(pg_catalog.=) relation
                                                                  AND a.attnum OPERATOR(pg_catalog.=) capture_draw.attnum)));
        SELECT n.nspname, c.relname INTO nsp, rel FROM pg_catalog.pg_class c
          JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace
         WHERE c.oid OPERATOR(pg_catalog.=) relation;
        BEGIN
            -- a unique integer key whose range is dense: uniform over it,
            -- no look-up (pgbench's own aid, tid, bid)
            IF is_int AND kind OPERATOR(pg_catalog.=) ANY (ARRAY['eq', 'in'])
               AND EXISTS (SELECT FROM pg_catalog.pg_index i
                            WHERE i.indrelid OPERATOR(pg_catalog.=) relation AND i.indisunique
                              AND i.indnkeyatts OPERATOR(pg_catalog.=) 1 AND i.indpred IS NULL
                              AND i.indkey[0] OPERATOR(pg_catalog.=) capture_draw.attnum) THEN
                EXECUTE pg_catalog.format('SELECT pg_catalog.min(%1$s)::pg_catalog.int8, pg_catalog.max(%1$s)::pg_catalog.int8 FROM %2$I.%3$I',
                                          col, nsp, rel) INTO lo, hi;
                SELECT c.reltuples INTO n FROM pg_catalog.pg_class c WHERE c.oid OPERATOR(pg_catalog.=) relation;
                IF n OPERATOR(pg_catalog.<) 0 THEN
                    EXECUTE pg_catalog.format('SELECT pg_catalog.count(*)::pg_catalog.float8 FROM %I.%I', nsp, rel) INTO n;
                END IF;
                IF lo IS NOT NULL AND (hi OPERATOR(pg_catalog.-) lo OPERATOR(pg_catalog.+) 1)::pg_catalog.float8
                                      OPERATOR(pg_catalog.<=) (n OPERATOR(pg_catalog.*) 1.01 OPERATOR(pg_catalog.+) 1) THEN
                    draw := pg_catalog.format('\set p%s random(%s, %s)', param, lo, hi);
                    about := pg_catalog.format('uniform over %s..%s: %s.%s is a unique key with no gaps (about %s rows)',
                                               lo, hi, relation, col, n::pg_catalog.int8);
                    RETURN;
                END IF;
            END IF;
            -- otherwise a sample of the column's rows (their values as often
            -- as the rows hold them): about twice the size, then a random
            -- sample_size of those.  BERNOULLI picks rows but reads every
            -- page: above 10 000 pages, SYSTEM reads about 1 000 whole pages
            -- (or those twice the sample needs) instead
            SELECT c.reltuples, c.relpages INTO n, pages FROM pg_catalog.pg_class c WHERE c.oid OPERATOR(pg_catalog.=) relation;
            IF pages OPERATOR(pg_catalog.>) 10000 AND n OPERATOR(pg_catalog.>) 0 THEN
                method := 'SYSTEM';
                pct := LEAST(100, 100.0 OPERATOR(pg_catalog.*) GREATEST(1000, 2.0 OPERATOR(pg_catalog.*) sample_size OPERATOR(pg_catalog.*) pages OPERATOR(pg_catalog./) n)
                                  OPERATOR(pg_catalog./) pages);
            ELSE
                method := 'BERNOULLI';
                pct := CASE WHEN n OPERATOR(pg_catalog.<=) 0 THEN 100
                            ELSE LEAST(100, 200.0 OPERATOR(pg_catalog.*) sample_size OPERATOR(pg_catalog./) n) END;
            END IF;
            EXECUTE pg_catalog.format('SELECT pg_catalog.array_agg(s.v) FROM (SELECT %1$s::pg_catalog.text AS v FROM %2$I.%3$I TABLESAMPLE %6$s (%4$s) '
                                      'WHERE %1$s IS NOT NULL ORDER BY pg_catalog.random() LIMIT %5$s) AS s',
                                      col, nsp, rel, pct, sample_size, method) INTO vals;
        EXCEPTION WHEN insufficient_privilege THEN
            about := pg_catalog.format('no sample (%s); ', SQLERRM);
            vals := NULL;
        END;
        IF pg_catalog.cardinality(vals) OPERATOR(pg_catalog.>) 0 THEN
            about := pg_catalog.format('one of %s values sampled from the rows of %s.%s (%s)', pg_catalog.cardinality(vals), relation, col,
                                       CASE WHEN method OPERATOR(pg_catalog.=) 'SYSTEM' THEN 'whole pages: a table over 10 000 pages' ELSE 'rows' END);
            RETURN;
        END IF;
        about := COALESCE(about, pg_catalog.format('no values in %s.%s to sample; ', relation, col));
    END IF;
    -- a typed draw: a guess, said so
    guess := true;
    vals := NULL;
    IF is_int OR is_num THEN
        draw := pg_catalog.format('\set p%s random(1, 1000)', param);
        about := COALESCE(about, '') OPERATOR(pg_catalog.||) 'a guess: uniform over 1..1000';
    ELSIF type OPERATOR(pg_catalog.=) 'pg_catalog.bool'::pg_catalog.regtype THEN
        draw := pg_catalog.format('\set p%s random(0, 1) = 1', param);
        about := COALESCE(about, '') OPERATOR(pg_catalog.||) 'a guess: true or false';
    ELSIF type OPERATOR(pg_catalog.=) ANY (ARRAY['pg_catalog.text', 'pg_catalog.varchar', 'pg_catalog.bpchar', 'pg_catalog.name', 'pg_catalog.unknown']::pg_catalog.regtype[]) THEN
        vals := ARRAY(SELECT pg_catalog.md5(g::pg_catalog.text) FROM pg_catalog.generate_series(1, 100) AS g);
        about := COALESCE(about, '') OPERATOR(pg_catalog.||) 'a guess: one of 100 random strings';
    ELSIF type OPERATOR(pg_catalog.=) ANY (ARRAY['pg_catalog.date', 'pg_catalog.timestamp', 'pg_catalog.timestamptz']::pg_catalog.regtype[]) THEN
        vals := ARRAY(SELECT (pg_catalog.now() OPERATOR(pg_catalog.-) (g OPERATOR(pg_catalog.*) '1 hour'::pg_catalog.interval))::pg_catalog.text
                        FROM pg_catalog.generate_series(0, 99) AS g);
        about := COALESCE(about, '') OPERATOR(pg_catalog.||) 'a guess: one of the last 100 hours';
    ELSE
        draw := NULL;
        about := COALESCE(about, '') OPERATOR(pg_catalog.||) pg_catalog.format('no draw for type %s', type);
    END IF;
END
$body$;
-- As its caller: it reads only what the caller may read and writes
-- nothing (STABLE for that: its sample differs from call to call, and
-- capture() calls it once per parameter).
GRANT EXECUTE ON FUNCTION pgbench_lab_internal.capture_draw TO PUBLIC;

-- The schema pg_stat_statements is installed in here, or an error that
-- says what to do (55000); what names the calling function.
CREATE FUNCTION pgbench_lab_internal.capture_pgss(what text)
RETURNS name
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $body$
DECLARE
    pgss pg_catalog.name;
BEGIN
    SELECT n.nspname INTO pgss FROM pg_catalog.pg_extension e
      JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) e.extnamespace
     WHERE e.extname OPERATOR(pg_catalog.=) 'pg_stat_statements';
    IF pgss IS NULL THEN
        RAISE EXCEPTION '%: pg_stat_statements is not installed in database %', what, pg_catalog.current_database()
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  HINT = 'Add pg_stat_statements to shared_preload_libraries (a restart), run CREATE EXTENSION pg_stat_statements here, and let the application run.';
    END IF;
    RETURN pgss;
END
$body$;
GRANT EXECUTE ON FUNCTION pgbench_lab_internal.capture_pgss(text) TO PUBLIC;

-- capture(): see docs/reference.md, "Your workload in the lab".
CREATE FUNCTION pgbench_lab.capture(
    top integer DEFAULT 20,
    coverage double precision DEFAULT NULL,
    min_calls bigint DEFAULT 1,
    include_writes boolean DEFAULT false,
    prefix text DEFAULT 'captured',
    search_path text DEFAULT pg_catalog.current_setting('search_path'),
    source text DEFAULT NULL,
    replace boolean DEFAULT false,
    sample_size integer DEFAULT 1000)
RETURNS TABLE (capture_id bigint, statement integer, script text, weight integer, calls bigint,
               share_of_calls numeric, share_of_time numeric, note text, query text)
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $body$
#variable_conflict use_column
DECLARE
    pgss pg_catalog.name;
    cid pg_catalog.int8;
    total_time pg_catalog.float8;
    total_calls pg_catalog.numeric := 0;
    kept pg_catalog.int4 := 0;
    kept_time pg_catalog.float8 := 0;
    n pg_catalog.int4 := 0;
    r record;
    p record;
    d record;
    cmd pg_catalog.text;
    why pg_catalog.text;
    body pg_catalog.text;
    rows_n pg_catalog.int4;
    guesses pg_catalog.text[];
    existing pg_catalog.text[];
    app_path pg_catalog.text := capture.search_path;
    source_display pg_catalog.text;
    names pg_catalog.text[] := '{}';
    bodies pg_catalog.text[] := '{}';
    differ pg_catalog.text;
BEGIN
    IF top IS NOT NULL AND top OPERATOR(pg_catalog.<) 1 THEN
        RAISE EXCEPTION 'capture: top must be at least 1, not %', top
            USING ERRCODE = 'invalid_parameter_value', HINT = 'Give the number of statements to keep, or NULL with a coverage.';
    END IF;
    IF top IS NULL AND coverage IS NULL THEN
        RAISE EXCEPTION 'capture: top and coverage are both null'
            USING ERRCODE = 'invalid_parameter_value', HINT = 'Give top (a count of statements) or coverage (a share of the total time, 0 to 1), or both.';
    END IF;
    IF coverage IS NOT NULL AND NOT (coverage OPERATOR(pg_catalog.>) 0 AND coverage OPERATOR(pg_catalog.<=) 1) THEN
        RAISE EXCEPTION 'capture: coverage must be above 0 and at most 1, not %', coverage
            USING ERRCODE = 'invalid_parameter_value', HINT = 'coverage is a share of the total execution time: 0.9 keeps the statements that take 90 % of it.';
    END IF;
    IF min_calls IS NULL OR min_calls OPERATOR(pg_catalog.<) 1 THEN
        RAISE EXCEPTION 'capture: min_calls must be at least 1'
            USING ERRCODE = 'invalid_parameter_value', HINT = 'Statements called fewer times are left out.';
    END IF;
    IF include_writes IS NULL OR replace IS NULL THEN
        RAISE EXCEPTION 'capture: include_writes and replace must not be null'
            USING ERRCODE = 'null_value_not_allowed', HINT = 'Give true or false.';
    END IF;
    IF sample_size IS NULL OR sample_size OPERATOR(pg_catalog.<) 1 OR sample_size OPERATOR(pg_catalog.>) 100000 THEN
        RAISE EXCEPTION 'capture: sample_size must be 1 to 100000'
            USING ERRCODE = 'invalid_parameter_value', HINT = 'The values sampled per column, 1000 by default.';
    END IF;
    IF prefix IS NULL OR prefix OPERATOR(pg_catalog.=) '' OR pg_catalog.strpos(prefix, '@') OPERATOR(pg_catalog.>) 0
       OR pg_catalog.strpos(prefix, '/') OPERATOR(pg_catalog.>) 0 OR pg_catalog.length(prefix) OPERATOR(pg_catalog.>) 50 THEN
        RAISE EXCEPTION 'capture: prefix must be a name of 1 to 50 characters without @ or /'
            USING ERRCODE = 'invalid_parameter_value', HINT = 'The scripts are saved as <prefix>-1, <prefix>-2 ...';
    END IF;
    IF app_path IS NULL THEN
        RAISE EXCEPTION 'capture: search_path must not be null'
            USING ERRCODE = 'null_value_not_allowed', HINT = 'Leave it out for your session''s, or give the application''s.';
    END IF;

    -- the statements, from here or from the source
    IF pg_catalog.to_regclass('pg_temp.pgbl_capture_stmts') IS NULL THEN
        CREATE TEMP TABLE pg_temp.pgbl_capture_stmts
            (queryid pg_catalog.int8, query pg_catalog.text, calls pg_catalog.int8, total_exec_time pg_catalog.float8,
             rows pg_catalog.int8, hit pg_catalog.int8, read pg_catalog.int8);
    END IF;
    TRUNCATE pg_temp.pgbl_capture_stmts;
    IF source IS NOT NULL THEN
        SELECT x.a INTO source_display FROM pgbench_lab_internal.capture_source(source, 'display', NULL, NULL) AS x;
        INSERT INTO pg_temp.pgbl_capture_stmts
        SELECT x.a::pg_catalog.int8, x.b, x.c::pg_catalog.int8, x.d::pg_catalog.float8, x.e::pg_catalog.int8,
               x.f::pg_catalog.int8, x.g::pg_catalog.int8
          FROM pgbench_lab_internal.capture_source(source, 'statements', min_calls, NULL) AS x;
    ELSE
        -- pg_stat_statements: created here, and its library loaded
        pgss := pgbench_lab_internal.capture_pgss('capture');
        BEGIN
            EXECUTE pg_catalog.format(
                'SELECT COALESCE(pg_catalog.sum(s.total_exec_time), 0) FROM %I.pg_stat_statements(true) AS s '
                'WHERE s.dbid OPERATOR(pg_catalog.=) (SELECT d.oid FROM pg_catalog.pg_database d WHERE d.datname OPERATOR(pg_catalog.=) pg_catalog.current_database()) '
                'AND s.toplevel AND s.calls OPERATOR(pg_catalog.>=) $1 '
                'AND pg_catalog.strpos(COALESCE(s.query, %L), %L) OPERATOR(pg_catalog.=) 0', pgss, '', 'pgbench_lab')
                INTO total_time USING min_calls;
        EXCEPTION WHEN object_not_in_prerequisite_state THEN
            RAISE EXCEPTION 'capture: pg_stat_statements is installed but its library is not loaded'
                USING ERRCODE = 'object_not_in_prerequisite_state',
                      HINT = 'Add pg_stat_statements to shared_preload_libraries and restart the server, then let the application run.';
        END;
        EXECUTE pg_catalog.format(
            'INSERT INTO pg_temp.pgbl_capture_stmts '
            'SELECT s.queryid, s.query, pg_catalog.sum(s.calls)::pg_catalog.int8, pg_catalog.sum(s.total_exec_time), '
            'pg_catalog.sum(s.rows)::pg_catalog.int8, pg_catalog.sum(s.shared_blks_hit)::pg_catalog.int8, '
            'pg_catalog.sum(s.shared_blks_read)::pg_catalog.int8 FROM %I.pg_stat_statements(true) AS s '
            'WHERE s.dbid OPERATOR(pg_catalog.=) (SELECT d.oid FROM pg_catalog.pg_database d WHERE d.datname OPERATOR(pg_catalog.=) pg_catalog.current_database()) '
            'AND s.toplevel AND s.calls OPERATOR(pg_catalog.>=) $1 '
            'GROUP BY s.queryid, s.query', pgss) USING min_calls;
    END IF;
    SELECT COALESCE(pg_catalog.sum(x.total_exec_time), 0) INTO total_time FROM pg_temp.pgbl_capture_stmts x
     WHERE pg_catalog.strpos(COALESCE(x.query, ''), 'pgbench_lab') OPERATOR(pg_catalog.=) 0;

    -- the scripts' names: the caller's own, refused or replaced
    existing := ARRAY(SELECT s.name FROM pgbench_lab.scripts s
                       WHERE s.created_by OPERATOR(pg_catalog.=) CURRENT_USER
                         AND pg_catalog.left(s.name, pg_catalog.length(prefix) OPERATOR(pg_catalog.+) 1) OPERATOR(pg_catalog.=) (prefix OPERATOR(pg_catalog.||) '-')
                         AND pg_catalog.substr(s.name, pg_catalog.length(prefix) OPERATOR(pg_catalog.+) 2) OPERATOR(pg_catalog.~) '^t?[0-9]+$'
                       ORDER BY s.name);
    IF pg_catalog.cardinality(existing) OPERATOR(pg_catalog.>) 0 THEN
        IF NOT replace THEN
            RAISE EXCEPTION 'capture: you have scripts named %-N already: %', prefix, pg_catalog.array_to_string(existing, ', ')
                USING ERRCODE = 'duplicate_object',
                      HINT = 'Give another prefix, or replace => true to replace your own.';
        END IF;
        DELETE FROM pgbench_lab.scripts s
         WHERE s.created_by OPERATOR(pg_catalog.=) CURRENT_USER AND s.name OPERATOR(pg_catalog.=) ANY (existing);
    END IF;

    INSERT INTO pgbench_lab.captures (database, source, prefix, settings)
    VALUES (pg_catalog.current_database(), source_display, prefix,
            pg_catalog.jsonb_build_object('top', top, 'coverage', coverage, 'min_calls', min_calls,
                                          'include_writes', include_writes, 'search_path', app_path,
                                          'sample_size', sample_size, 'replace', replace,
                                          'pg_stat_statements.track', pg_catalog.current_setting('pg_stat_statements.track', true)))
    RETURNING captures.capture_id INTO cid;

    -- the session's scratch tables of one statement's parameters
    IF pg_catalog.to_regclass('pg_temp.pgbl_capture_places') IS NULL THEN
        CREATE TEMP TABLE pg_temp.pgbl_capture_places
            (param pg_catalog.int4, type pg_catalog.regtype, relation pg_catalog.regclass, attnum pg_catalog.int2, kind pg_catalog.text);
    END IF;
    IF pg_catalog.to_regclass('pg_temp.pgbl_capture_vals') IS NULL THEN
        CREATE TEMP TABLE pg_temp.pgbl_capture_vals (param pg_catalog.int4, vals pg_catalog.text[]);
    END IF;

    FOR r IN SELECT x.queryid, x.query, x.calls, x.total_exec_time, x.rows, x.hit, x.read
               FROM pg_temp.pgbl_capture_stmts x
              ORDER BY x.total_exec_time DESC, x.calls DESC LOOP
        EXIT WHEN top IS NOT NULL AND kept OPERATOR(pg_catalog.>=) top;
        EXIT WHEN coverage IS NOT NULL AND total_time OPERATOR(pg_catalog.>) 0
                  AND kept_time OPERATOR(pg_catalog./) total_time OPERATOR(pg_catalog.>=) coverage;
        n := n OPERATOR(pg_catalog.+) 1;
        why := NULL;
        cmd := NULL;
        IF r.query IS NULL OR r.query OPERATOR(pg_catalog.=) '<insufficient privilege>' THEN
            why := 'another role''s statement: its text is hidden without pg_read_all_stats';
        ELSIF pg_catalog.strpos(r.query, 'pgbench_lab') OPERATOR(pg_catalog.>) 0 THEN
            why := 'the lab''s own statement (a capture''s look-up, a call of pgbench_lab)';
        ELSE
            BEGIN
                PERFORM pg_catalog.set_config('search_path', app_path, true);
                cmd := pgbench_lab_internal.capture_command(r.query);
                IF cmd OPERATOR(pg_catalog.<>) 'utility' THEN
                    TRUNCATE pg_temp.pgbl_capture_places;
                    INSERT INTO pg_temp.pgbl_capture_places
                    SELECT c.param, c.type, c.relation, c.attnum, c.kind FROM pgbench_lab_internal.capture_params(r.query) AS c;
                END IF;
                PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
            EXCEPTION WHEN OTHERS THEN
                why := pg_catalog.format('no longer analyzes here (%s: %s)', SQLSTATE, SQLERRM);
            END;
            IF why IS NULL AND cmd OPERATOR(pg_catalog.=) 'utility' THEN
                why := 'a utility statement (transaction control, SET ...): each captured statement runs as its own transaction, unless grouped (capture_group())';
            ELSIF why IS NULL AND cmd OPERATOR(pg_catalog.<>) 'select' AND NOT include_writes THEN
                why := pg_catalog.format('%s writes: include_writes => true replays it (on a copy, never on production)', cmd);
            END IF;
        END IF;
        IF why IS NOT NULL THEN
            INSERT INTO pgbench_lab.capture_statements
                (capture_id, statement, queryid, query, command, calls, total_exec_time, rows, shared_blks_hit, shared_blks_read, skipped)
            VALUES (cid, n, r.queryid, COALESCE(r.query, ''), cmd, r.calls, r.total_exec_time, r.rows, r.hit, r.read, why);
            CONTINUE;
        END IF;

        -- the script: each parameter's draw, then the statement
        kept := kept OPERATOR(pg_catalog.+) 1;
        kept_time := kept_time OPERATOR(pg_catalog.+) r.total_exec_time;
        INSERT INTO pgbench_lab.capture_statements
            (capture_id, statement, queryid, query, command, calls, total_exec_time, rows, shared_blks_hit, shared_blks_read, script)
        VALUES (cid, n, r.queryid, r.query, cmd, r.calls, r.total_exec_time, r.rows, r.hit, r.read, prefix OPERATOR(pg_catalog.||) '-' OPERATOR(pg_catalog.||) kept);
        rows_n := 0;
        TRUNCATE pg_temp.pgbl_capture_vals;
        FOR p IN SELECT * FROM pg_temp.pgbl_capture_places ORDER BY param LOOP
            SELECT * INTO d FROM pgbench_lab_internal.capture_draw(p.param, p.type, p.relation, p.attnum, p.kind, sample_size);
            IF d.draw IS NULL AND d.vals IS NULL THEN
                why := pg_catalog.format('$%s: %s', p.param, d.about);
            END IF;
            IF d.vals IS NOT NULL THEN
                rows_n := GREATEST(rows_n, pg_catalog.cardinality(d.vals));
                INSERT INTO pg_temp.pgbl_capture_vals VALUES (p.param, d.vals);
            END IF;
            INSERT INTO pgbench_lab.capture_params (capture_id, statement, param, type, relation, attname, kind, draw, guess, about)
            VALUES (cid, n, p.param, p.type::pg_catalog.text, p.relation::pg_catalog.text,
                    (SELECT a.attname FROM pg_catalog.pg_attribute a
                      WHERE a.attrelid OPERATOR(pg_catalog.=) p.relation AND a.attnum OPERATOR(pg_catalog.=) p.attnum),
                    p.kind, COALESCE(d.draw, CASE WHEN d.vals IS NOT NULL THEN 'sample' ELSE 'none' END), d.guess, d.about);
        END LOOP;
        IF why IS NOT NULL THEN
            -- a parameter with no draw: the statement cannot be replayed
            kept := kept OPERATOR(pg_catalog.-) 1;
            kept_time := kept_time OPERATOR(pg_catalog.-) r.total_exec_time;
            UPDATE pgbench_lab.capture_statements AS s SET script = NULL, skipped = why
             WHERE s.capture_id OPERATOR(pg_catalog.=) cid AND s.statement OPERATOR(pg_catalog.=) n;
            CONTINUE;
        END IF;
        IF rows_n OPERATOR(pg_catalog.>) 0 THEN
            -- one look-up of a row of sampled values: vals[n] for $n
            INSERT INTO pgbench_lab.capture_values (capture_id, statement, i, vals)
            SELECT cid, n, i, ARRAY(SELECT CASE WHEN v.param IS NULL THEN NULL
                                                ELSE v.vals[(i OPERATOR(pg_catalog.-) 1) OPERATOR(pg_catalog.%) pg_catalog.cardinality(v.vals) OPERATOR(pg_catalog.+) 1] END
                                      FROM pg_catalog.generate_series(1, (SELECT pg_catalog.max(x.param) FROM pg_temp.pgbl_capture_vals x)) AS k
                                      LEFT JOIN pg_temp.pgbl_capture_vals v ON v.param OPERATOR(pg_catalog.=) k
                                     ORDER BY k)
              FROM pg_catalog.generate_series(1, rows_n) AS i;
        END IF;
        body := pgbench_lab_internal.capture_body(cid, ARRAY[n]);
        names := names OPERATOR(pg_catalog.||) (prefix OPERATOR(pg_catalog.||) '-' OPERATOR(pg_catalog.||) kept);
        bodies := bodies OPERATOR(pg_catalog.||) body;
        PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
    END LOOP;

    -- from a source: its tables the parameters meet must be these (names,
    -- columns, types), or the scripts would replay something else here
    IF source IS NOT NULL THEN
        IF pg_catalog.to_regclass('pg_temp.pgbl_capture_cols') IS NULL THEN
            CREATE TEMP TABLE pg_temp.pgbl_capture_cols (name pg_catalog.text, attname pg_catalog.text, type pg_catalog.text);
        END IF;
        TRUNCATE pg_temp.pgbl_capture_cols;
        INSERT INTO pg_temp.pgbl_capture_cols
        SELECT x.a, x.b, x.c
          FROM pgbench_lab_internal.capture_source(source, 'columns', NULL,
                   ARRAY(SELECT DISTINCT p.relation FROM pgbench_lab.capture_params p
                          WHERE p.capture_id OPERATOR(pg_catalog.=) cid AND p.relation IS NOT NULL)) AS x;
        SELECT pg_catalog.string_agg(DISTINCT d.name, ', ') INTO differ
          FROM (SELECT t.name, t.attname, t.type FROM pg_temp.pgbl_capture_cols t
                EXCEPT ALL
                SELECT r.name, a.attname::pg_catalog.text, pg_catalog.format_type(a.atttypid, a.atttypmod)
                  FROM (SELECT DISTINCT t.name FROM pg_temp.pgbl_capture_cols t) AS r
                  JOIN pg_catalog.pg_attribute a ON a.attrelid OPERATOR(pg_catalog.=) pg_catalog.to_regclass(r.name)
                   AND a.attnum OPERATOR(pg_catalog.>) 0 AND NOT a.attisdropped) AS d;
        IF differ IS NULL THEN
            SELECT pg_catalog.string_agg(DISTINCT r.name, ', ') INTO differ
              FROM (SELECT DISTINCT t.name FROM pg_temp.pgbl_capture_cols t) AS r
              JOIN pg_catalog.pg_attribute a ON a.attrelid OPERATOR(pg_catalog.=) pg_catalog.to_regclass(r.name)
               AND a.attnum OPERATOR(pg_catalog.>) 0 AND NOT a.attisdropped
             WHERE NOT EXISTS (SELECT FROM pg_temp.pgbl_capture_cols t
                                WHERE t.name OPERATOR(pg_catalog.=) r.name AND t.attname OPERATOR(pg_catalog.=) a.attname::pg_catalog.text);
        END IF;
        IF differ IS NOT NULL THEN
            RAISE EXCEPTION 'capture: the source''s tables differ from this server''s: %', differ
                USING ERRCODE = 'object_not_in_prerequisite_state',
                      HINT = 'Replay on a copy of the source''s tables: the same names, columns and types (pg_dump --schema-only, then the data).';
        END IF;
    END IF;
    INSERT INTO pgbench_lab.scripts (name, body) SELECT x.n, x.b FROM ROWS FROM (pg_catalog.unnest(names), pg_catalog.unnest(bodies)) AS x(n, b);

    -- the weights: each script's share of the kept statements' calls, per 10 000
    SELECT COALESCE(pg_catalog.sum(s.calls), 0) INTO total_calls FROM pgbench_lab.capture_statements s
     WHERE s.capture_id OPERATOR(pg_catalog.=) cid AND s.script IS NOT NULL;
    UPDATE pgbench_lab.capture_statements AS s
       SET weight = GREATEST(1, pg_catalog.round(10000 OPERATOR(pg_catalog.*) s.calls OPERATOR(pg_catalog./) total_calls))
     WHERE s.capture_id OPERATOR(pg_catalog.=) cid AND s.script IS NOT NULL;
    UPDATE pgbench_lab.captures AS c
       SET statements = kept,
           share_of_time = CASE WHEN total_time OPERATOR(pg_catalog.>) 0 THEN kept_time OPERATOR(pg_catalog./) total_time END,
           notes = ARRAY['each statement is its own transaction: pg_stat_statements keeps no transaction context (capture_group() replays statements together)']
     WHERE c.capture_id OPERATOR(pg_catalog.=) cid;
    IF kept OPERATOR(pg_catalog.=) 0 THEN
        RAISE WARNING 'capture %: no statement to replay', cid
            USING HINT = 'pg_stat_statements holds no statement of this database that could be replayed (see the rows'' notes); let the application run, or include_writes => true.';
    END IF;

    RETURN QUERY
    SELECT s.capture_id, s.statement, s.script, s.weight, s.calls,
           CASE WHEN s.script IS NOT NULL AND total_calls OPERATOR(pg_catalog.>) 0
                THEN pg_catalog.round(100 OPERATOR(pg_catalog.*) s.calls OPERATOR(pg_catalog./) total_calls, 1) END,
           CASE WHEN total_time OPERATOR(pg_catalog.>) 0
                THEN pg_catalog.round((100 OPERATOR(pg_catalog.*) s.total_exec_time OPERATOR(pg_catalog./) total_time)::pg_catalog.numeric, 1) END,
           COALESCE(s.skipped, (SELECT pg_catalog.string_agg(pg_catalog.format('$%s %s', x.param, x.about), '; ' ORDER BY x.param)
                                  FROM pgbench_lab.capture_params x
                                 WHERE x.capture_id OPERATOR(pg_catalog.=) s.capture_id
                                   AND x.statement OPERATOR(pg_catalog.=) s.statement AND x.guess)),
           s.query
      FROM pgbench_lab.capture_statements s
     WHERE s.capture_id OPERATOR(pg_catalog.=) cid
     ORDER BY s.statement;
END
$body$;
COMMENT ON FUNCTION pgbench_lab.capture IS
    'pgbench_lab: the application''s workload from pg_stat_statements, saved as your scripts <prefix>-1, <prefix>-2 ... with weights, each parameter drawn from the data it meets';
REVOKE ALL ON FUNCTION pgbench_lab.capture FROM PUBLIC;

-- capture_check(): the replay against the capture, statement by statement.
-- The replayed figures are pg_stat_statements' as they stand: reset it just
-- before the run (SELECT pg_stat_statements_reset()), run, then check; the
-- reset must fall after the capture and before the run's start.
CREATE FUNCTION pgbench_lab.capture_check(capture_id bigint, run_id bigint)
RETURNS TABLE (statement integer, script text,
               captured_share numeric, replayed_share numeric,
               captured_blocks_per_call numeric, replayed_blocks_per_call numeric,
               captured_rows_per_call numeric, replayed_rows_per_call numeric,
               captured_mean_ms numeric, replayed_mean_ms numeric,
               verdict text, why text)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $body$
#variable_conflict use_column
DECLARE
    pgss pg_catalog.name;
    cap record;
    run record;
    reset_at pg_catalog.timestamptz;
BEGIN
    SELECT c.* INTO cap FROM pgbench_lab.captures c WHERE c.capture_id OPERATOR(pg_catalog.=) capture_check.capture_id;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'capture_check: capture % not found', capture_check.capture_id
            USING ERRCODE = 'no_data_found', HINT = 'pgbench_lab.captures lists your captures.';
    END IF;
    SELECT r.run_id, r.started_at INTO run FROM pgbench_lab.runs r WHERE r.run_id OPERATOR(pg_catalog.=) capture_check.run_id;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'capture_check: run % not found', capture_check.run_id
            USING ERRCODE = 'no_data_found', HINT = 'pgbench_lab.runs lists your runs.';
    END IF;
    pgss := pgbench_lab_internal.capture_pgss('capture_check');
    EXECUTE pg_catalog.format('SELECT i.stats_reset FROM %I.pg_stat_statements_info AS i', pgss) INTO reset_at;
    IF reset_at OPERATOR(pg_catalog.<) cap.captured_at OR reset_at OPERATOR(pg_catalog.>) run.started_at THEN
        RAISE EXCEPTION 'capture_check: pg_stat_statements was last reset at %, not between the capture (%) and the run''s start (%)',
                        reset_at, cap.captured_at, run.started_at
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  HINT = 'Reset it just before the replay: SELECT pg_stat_statements_reset(); CALL pgbench_lab.run(scripts => ...); then check.';
    END IF;
    RETURN QUERY EXECUTE pg_catalog.format($q$
WITH c AS (
    SELECT s.statement, s.script, s.queryid, s.query, s.calls, s.total_exec_time, s.rows,
           s.shared_blks_hit OPERATOR(pg_catalog.+) s.shared_blks_read AS blocks,
           pg_catalog.regexp_replace(pg_catalog.regexp_replace(pg_catalog.btrim(s.query), '\s+', ' ', 'g'),
                                     '(\$[0-9]+)::pg_catalog\.numeric', '\1', 'g') AS text_key
      FROM pgbench_lab.capture_statements s
     WHERE s.capture_id OPERATOR(pg_catalog.=) $1 AND s.script IS NOT NULL
), now_ AS (
    SELECT x.queryid, pg_catalog.regexp_replace(pg_catalog.regexp_replace(pg_catalog.rtrim(pg_catalog.btrim(x.query), ';'), '\s+', ' ', 'g'),
                                                '(\$[0-9]+)::pg_catalog\.numeric', '\1', 'g') AS text_key,
           x.calls, x.total_exec_time, x.rows, x.shared_blks_hit OPERATOR(pg_catalog.+) x.shared_blks_read AS blocks
      FROM %I.pg_stat_statements(true) AS x
     WHERE x.dbid OPERATOR(pg_catalog.=) (SELECT d.oid FROM pg_catalog.pg_database d WHERE d.datname OPERATOR(pg_catalog.=) pg_catalog.current_database())
       AND x.toplevel
), r AS (
    SELECT c.statement, pg_catalog.sum(n.calls) AS calls, pg_catalog.sum(n.total_exec_time) AS total_exec_time,
           pg_catalog.sum(n.rows) AS rows, pg_catalog.sum(n.blocks) AS blocks
      FROM c LEFT JOIN now_ n ON n.queryid OPERATOR(pg_catalog.=) c.queryid OR n.text_key OPERATOR(pg_catalog.=) c.text_key
     GROUP BY c.statement
), f AS (
    SELECT c.statement, c.script,
           100 OPERATOR(pg_catalog.*) c.calls::pg_catalog.numeric OPERATOR(pg_catalog./) pg_catalog.sum(c.calls) OVER () AS cs,
           100 OPERATOR(pg_catalog.*) COALESCE(r.calls, 0)::pg_catalog.numeric OPERATOR(pg_catalog./) CASE WHEN pg_catalog.sum(COALESCE(r.calls, 0)) OVER () OPERATOR(pg_catalog.>) 0 THEN pg_catalog.sum(COALESCE(r.calls, 0)) OVER () END AS rs,
           c.blocks::pg_catalog.numeric OPERATOR(pg_catalog./) c.calls AS cb,
           r.blocks::pg_catalog.numeric OPERATOR(pg_catalog./) CASE WHEN r.calls OPERATOR(pg_catalog.>) 0 THEN r.calls END AS rb,
           c.rows::pg_catalog.numeric OPERATOR(pg_catalog./) c.calls AS cr,
           r.rows::pg_catalog.numeric OPERATOR(pg_catalog./) CASE WHEN r.calls OPERATOR(pg_catalog.>) 0 THEN r.calls END AS rr,
           (c.total_exec_time OPERATOR(pg_catalog./) c.calls)::pg_catalog.numeric AS cm,
           (r.total_exec_time OPERATOR(pg_catalog./) CASE WHEN r.calls OPERATOR(pg_catalog.>) 0 THEN r.calls END)::pg_catalog.numeric AS rm,
           (SELECT pg_catalog.string_agg(pg_catalog.format('$%%s drawn by a guess', p.param), ', ' ORDER BY p.param)
              FROM pgbench_lab.capture_params p
             WHERE p.capture_id OPERATOR(pg_catalog.=) $1 AND p.statement OPERATOR(pg_catalog.=) c.statement AND p.guess) AS guesses,
           (SELECT pg_catalog.array_to_string(cg.statements, ', ') FROM pgbench_lab.capture_groups cg
             WHERE cg.capture_id OPERATOR(pg_catalog.=) $1 AND c.statement OPERATOR(pg_catalog.=) ANY (cg.statements) LIMIT 1) AS grouped,
           (SELECT cg.script FROM pgbench_lab.capture_groups cg
             WHERE cg.capture_id OPERATOR(pg_catalog.=) $1 AND c.statement OPERATOR(pg_catalog.=) ANY (cg.statements) LIMIT 1) AS group_script
      FROM c JOIN r ON r.statement OPERATOR(pg_catalog.=) c.statement
), g AS (
    SELECT f.*, pg_catalog.array_remove(ARRAY[
               CASE WHEN f.rs IS NULL OR f.rs OPERATOR(pg_catalog.=) 0 THEN 'not replayed' END,
               CASE WHEN pg_catalog.abs(f.cs OPERATOR(pg_catalog.-) f.rs) OPERATOR(pg_catalog.>) 2 THEN 'share of calls off by more than 2 points' END,
               CASE WHEN pg_catalog.abs(f.cb OPERATOR(pg_catalog.-) f.rb) OPERATOR(pg_catalog.>) GREATEST(0.1 OPERATOR(pg_catalog.*) f.cb, 0.25)
                    THEN 'blocks per call off by more than 10 %% (and a quarter of a block)' END,
               CASE WHEN pg_catalog.abs(f.cr OPERATOR(pg_catalog.-) f.rr) OPERATOR(pg_catalog.>) (0.1 OPERATOR(pg_catalog.*) GREATEST(f.cr, 1))
                    THEN 'rows per call off by more than 10 %%' END], NULL) AS off
      FROM f
)
SELECT g.statement, g.script, pg_catalog.round(g.cs, 1), pg_catalog.round(g.rs, 1),
       pg_catalog.round(g.cb, 2), pg_catalog.round(g.rb, 2), pg_catalog.round(g.cr, 2), pg_catalog.round(g.rr, 2),
       pg_catalog.round(g.cm, 3), pg_catalog.round(g.rm, 3),
       CASE WHEN pg_catalog.cardinality(g.off) OPERATOR(pg_catalog.=) 0 THEN 'matches' ELSE 'diverges' END,
       pg_catalog.concat_ws('; ', pg_catalog.array_to_string(g.off, ', '),
                            CASE WHEN pg_catalog.cardinality(g.off) OPERATOR(pg_catalog.>) 0 THEN g.guesses END,
                            CASE WHEN pg_catalog.cardinality(g.off) OPERATOR(pg_catalog.=) 0 THEN NULL
                                 WHEN g.grouped IS NOT NULL
                                 THEN pg_catalog.format('replayed in one transaction with statements %%s (%%s): locks waited on and versions of rows read as the run''s timing has them', g.grouped, g.group_script)
                                 ELSE 'replayed as its own transaction: in the application it may have met rows its transaction had just changed, or waited on locks held longer (capture_group() replays statements together)' END)
  FROM g ORDER BY g.statement
$q$, pgss) USING capture_check.capture_id;
END
$body$;
COMMENT ON FUNCTION pgbench_lab.capture_check(bigint, bigint) IS
    'pgbench_lab: a replay of a capture against the capture, statement by statement: share of calls, blocks and rows per call, mean time (timing), and why a statement diverges';
