
-- ---------------------------------------------------------------------------
-- capture's scripts: the text of one captured statement's script or of
-- several statements' in one transaction (capture_body(), which capture()
-- calls too), capture_group() and capture_set_draw(), which write them
-- again.
-- ---------------------------------------------------------------------------

-- The script of one captured statement, or of several replayed in one
-- transaction (capture_group()): every parameter's draw and one look-up of
-- each statement's sampled values, then the statements, between BEGIN and
-- END when there are several.  In a group, a parameter that meets a key
-- (= or IN) that an earlier parameter of the group meets takes that one's
-- value: the application's UPDATE and SELECT of one account name the same
-- aid.  Variables: pN for one statement (iN of its look-up: i), sSpN for
-- statement S of a group (its look-up's: sSi).
CREATE FUNCTION pgbench_lab_internal.capture_body(cid bigint, statements integer[])
RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $body$
DECLARE
    single pg_catalog.bool := pg_catalog.cardinality(statements) OPERATOR(pg_catalog.=) 1;
    head pg_catalog.text := '';
    draws pg_catalog.text := '';
    sqls pg_catalog.text := '';
    st record;
    p record;
    pre pg_catalog.text;
    v pg_catalog.text;
    k pg_catalog.text;
    keys pg_catalog.text[] := '{}';
    keyvars pg_catalog.text[] := '{}';
    vars pg_catalog.text[];
    casts pg_catalog.text[];
    lookup pg_catalog.text;
    q pg_catalog.text;
BEGIN
    FOR st IN SELECT s.statement, s.queryid, s.calls, s.query
                FROM pg_catalog.unnest(statements) WITH ORDINALITY AS x(statement, ord)
                JOIN pgbench_lab.capture_statements s
                  ON s.capture_id OPERATOR(pg_catalog.=) cid AND s.statement OPERATOR(pg_catalog.=) x.statement
               ORDER BY x.ord LOOP
        pre := CASE WHEN single THEN '' ELSE pg_catalog.format('s%s', st.statement) END;
        head := head OPERATOR(pg_catalog.||) pg_catalog.format(E'-- pgbench_lab capture %s, statement %s (queryid %s): %s calls captured\n',
                                                                cid, st.statement, st.queryid, st.calls);
        vars := '{}';
        casts := '{}';
        lookup := NULL;
        FOR p IN SELECT x.param, x.relation, x.attname, x.kind, x.draw, x.type FROM pgbench_lab.capture_params x
                  WHERE x.capture_id OPERATOR(pg_catalog.=) cid AND x.statement OPERATOR(pg_catalog.=) st.statement
                  ORDER BY x.param LOOP
            k := CASE WHEN NOT single AND p.relation IS NOT NULL AND p.kind OPERATOR(pg_catalog.=) ANY (ARRAY['eq', 'in'])
                      THEN pg_catalog.concat(p.relation, '.', p.attname) END;
            -- a number the analysis typed by its arithmetic ($1 / $2):
            -- cast, as the replay sends its values untyped
            casts[p.param] := CASE WHEN p.kind IS NULL AND p.type OPERATOR(pg_catalog.=) 'numeric' THEN pg_catalog.concat(':', ':', 'pg_catalog', '.numeric') ELSE '' END;
            IF pg_catalog.array_position(keys, k) IS NOT NULL THEN
                vars[p.param] := keyvars[pg_catalog.array_position(keys, k)];
                CONTINUE;
            END IF;
            v := pre OPERATOR(pg_catalog.||) 'p' OPERATOR(pg_catalog.||) p.param;
            vars[p.param] := v;
            IF k IS NOT NULL THEN
                keys := keys OPERATOR(pg_catalog.||) k;
                keyvars := keyvars OPERATOR(pg_catalog.||) v;
            END IF;
            IF p.draw OPERATOR(pg_catalog.=) 'sample' THEN
                lookup := pg_catalog.concat_ws(', ', lookup, pg_catalog.format('v.vals[%s] AS %s', p.param, v));
            ELSE
                draws := draws OPERATOR(pg_catalog.||) pg_catalog.format(E'\\set %s %s\n', v,
                                                                         pg_catalog.regexp_replace(p.draw, '^\\set p[0-9]+ ', ''));
            END IF;
        END LOOP;
        IF lookup IS NOT NULL THEN
            draws := draws OPERATOR(pg_catalog.||) pg_catalog.format(E'\\set %si random(1, %s)\n', pre,
                         (SELECT pg_catalog.count(*) FROM pgbench_lab.capture_values x
                           WHERE x.capture_id OPERATOR(pg_catalog.=) cid AND x.statement OPERATOR(pg_catalog.=) st.statement))
                     OPERATOR(pg_catalog.||) pg_catalog.format(
                'SELECT %s FROM pgbench_lab.capture_values AS v WHERE v.capture_id OPERATOR(pg_catalog.=) %s '
                'AND v.statement OPERATOR(pg_catalog.=) %s AND v.i OPERATOR(pg_catalog.=) %s', lookup, cid, st.statement, ':' OPERATOR(pg_catalog.||) pre OPERATOR(pg_catalog.||) 'i')
                     OPERATOR(pg_catalog.||) E' \\gset\n';
        END IF;
        q := st.query;
        FOR n IN REVERSE COALESCE(pg_catalog.array_upper(vars, 1), 0) .. 1 LOOP
            q := pg_catalog.regexp_replace(q, '\$' OPERATOR(pg_catalog.||) n OPERATOR(pg_catalog.||) '(?![0-9])',
                                           ':' OPERATOR(pg_catalog.||) vars[n] OPERATOR(pg_catalog.||) casts[n], 'g');
        END LOOP;
        sqls := sqls OPERATOR(pg_catalog.||) q OPERATOR(pg_catalog.||) E';\n';
    END LOOP;
    IF single THEN
        RETURN head OPERATOR(pg_catalog.||) draws OPERATOR(pg_catalog.||) sqls;
    END IF;
    RETURN head OPERATOR(pg_catalog.||) draws OPERATOR(pg_catalog.||) E'BEGIN;\n' OPERATOR(pg_catalog.||) sqls OPERATOR(pg_catalog.||) E'END;\n';
END
$body$;
GRANT EXECUTE ON FUNCTION pgbench_lab_internal.capture_body(bigint, integer[]) TO PUBLIC;

-- Each replayed statement of a capture and its calls that none of its
-- groups makes (capture_group()'s weights).
CREATE FUNCTION pgbench_lab_internal.capture_left(cid bigint)
RETURNS TABLE (statement integer, n bigint)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $body$
    SELECT s.statement, GREATEST(0, s.calls OPERATOR(pg_catalog.-)
               COALESCE((SELECT pg_catalog.sum(cg.calls) FROM pgbench_lab.capture_groups cg
                          WHERE cg.capture_id OPERATOR(pg_catalog.=) cid
                            AND s.statement OPERATOR(pg_catalog.=) ANY (cg.statements)), 0))::pg_catalog.int8
      FROM pgbench_lab.capture_statements s
     WHERE s.capture_id OPERATOR(pg_catalog.=) cid AND s.script IS NOT NULL
$body$;
GRANT EXECUTE ON FUNCTION pgbench_lab_internal.capture_left(bigint) TO PUBLIC;

-- capture_group(): see docs/reference.md, "Your workload in the lab".
CREATE FUNCTION pgbench_lab.capture_group(capture_id bigint, statements integer[])
RETURNS TABLE (script text, weight integer, members integer[])
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $body$
#variable_conflict use_column
DECLARE
    cid pg_catalog.int8 := capture_group.capture_id;
    list pg_catalog.int4[] := capture_group.statements;
    cap record;
    bad pg_catalog.text;
    g pg_catalog.int4;
    gname pg_catalog.text;
    total pg_catalog.numeric;
BEGIN
    IF list IS NULL OR pg_catalog.cardinality(list) OPERATOR(pg_catalog.<) 2 OR pg_catalog.array_position(list, NULL) IS NOT NULL
       OR (SELECT pg_catalog.count(DISTINCT x) FROM pg_catalog.unnest(list) AS x) OPERATOR(pg_catalog.<>) pg_catalog.cardinality(list) THEN
        RAISE EXCEPTION 'capture_group: statements must be two or more statement numbers, each once'
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Give the numbers of capture()''s result in the order the application runs them in one transaction.';
    END IF;
    SELECT c.capture_id, c.prefix INTO cap FROM pgbench_lab.captures c WHERE c.capture_id OPERATOR(pg_catalog.=) cid;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'capture_group: capture % not found', cid
            USING ERRCODE = 'no_data_found', HINT = 'pgbench_lab.captures lists your captures.';
    END IF;
    SELECT pg_catalog.string_agg(x::pg_catalog.text, ', ') INTO bad FROM pg_catalog.unnest(list) AS x
     WHERE NOT EXISTS (SELECT FROM pgbench_lab.capture_statements s
                        WHERE s.capture_id OPERATOR(pg_catalog.=) cid AND s.statement OPERATOR(pg_catalog.=) x AND s.script IS NOT NULL);
    IF bad IS NOT NULL THEN
        RAISE EXCEPTION 'capture_group: capture % replays no statement %', cid, bad
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Group statements that have a script (capture()''s result, column script); skipped ones say why in note.';
    END IF;
    -- a statement may be in several groups (the application's transactions
    -- that begin with the same statement) while it has calls left
    SELECT pg_catalog.string_agg(l.statement::pg_catalog.text, ', ' ORDER BY l.statement) INTO bad
      FROM pgbench_lab_internal.capture_left(cid) AS l
     WHERE l.statement OPERATOR(pg_catalog.=) ANY (list) AND l.n OPERATOR(pg_catalog.<=) 0;
    IF bad IS NOT NULL THEN
        RAISE EXCEPTION 'capture_group: the calls of statement % of capture % are all replayed by its groups already', bad, cid
            USING ERRCODE = 'duplicate_object',
                  HINT = 'pgbench_lab.capture_groups lists the groups; capture again (replace => true) to start over.';
    END IF;
    g := (SELECT COALESCE(pg_catalog.max(cg.grp), 0) OPERATOR(pg_catalog.+) 1 FROM pgbench_lab.capture_groups cg
           WHERE cg.capture_id OPERATOR(pg_catalog.=) cid);
    gname := pg_catalog.format('%s-t%s', cap.prefix, g);
    IF EXISTS (SELECT FROM pgbench_lab.scripts s WHERE s.name OPERATOR(pg_catalog.=) gname AND s.created_by OPERATOR(pg_catalog.=) CURRENT_USER) THEN
        RAISE EXCEPTION 'capture_group: you have a script named % already', gname
            USING ERRCODE = 'duplicate_object', HINT = 'Delete it, or capture again with another prefix.';
    END IF;
    -- as many transactions as its least-called statement has calls left
    INSERT INTO pgbench_lab.capture_groups (capture_id, grp, statements, script, calls)
    SELECT cid, g, list, gname, pg_catalog.min(l.n) FROM pgbench_lab_internal.capture_left(cid) AS l
     WHERE l.statement OPERATOR(pg_catalog.=) ANY (list);
    INSERT INTO pgbench_lab.scripts (name, body) VALUES (gname, pgbench_lab_internal.capture_body(cid, list));

    -- the weights again, per 10 000 transactions: a group's transactions,
    -- and each statement's calls that its groups do not make
    total := (SELECT pg_catalog.sum(l.n) FROM pgbench_lab_internal.capture_left(cid) AS l)
             OPERATOR(pg_catalog.+) (SELECT pg_catalog.sum(cg.calls) FROM pgbench_lab.capture_groups cg
                                      WHERE cg.capture_id OPERATOR(pg_catalog.=) cid);
    UPDATE pgbench_lab.capture_statements AS s
       SET weight = CASE WHEN l.n OPERATOR(pg_catalog.>) 0
                         THEN GREATEST(1, pg_catalog.round(10000 OPERATOR(pg_catalog.*) l.n OPERATOR(pg_catalog./) total)) ELSE 0 END
      FROM pgbench_lab_internal.capture_left(cid) AS l
     WHERE s.capture_id OPERATOR(pg_catalog.=) cid AND s.statement OPERATOR(pg_catalog.=) l.statement;
    UPDATE pgbench_lab.capture_groups AS cg
       SET weight = GREATEST(1, pg_catalog.round(10000 OPERATOR(pg_catalog.*) cg.calls OPERATOR(pg_catalog./) total))
     WHERE cg.capture_id OPERATOR(pg_catalog.=) cid;

    RETURN QUERY
    SELECT m.script, m.weight, m.members FROM (
        SELECT s.script, s.weight, ARRAY[s.statement] AS members FROM pgbench_lab.capture_statements s
         WHERE s.capture_id OPERATOR(pg_catalog.=) cid AND s.script IS NOT NULL AND s.weight OPERATOR(pg_catalog.>) 0
        UNION ALL
        SELECT cg.script, cg.weight, cg.statements FROM pgbench_lab.capture_groups cg
         WHERE cg.capture_id OPERATOR(pg_catalog.=) cid) AS m
     ORDER BY m.members;
END
$body$;
COMMENT ON FUNCTION pgbench_lab.capture_group(bigint, integer[]) IS
    'pgbench_lab: replay statements of a capture together in one transaction, in the given order, the parameters that meet the same key drawn once; returns the capture''s mix of scripts and weights';
REVOKE ALL ON FUNCTION pgbench_lab.capture_group(bigint, integer[]) FROM PUBLIC;

-- capture_set_draw(): see docs/reference.md, "Your workload in the lab".
CREATE FUNCTION pgbench_lab.capture_set_draw(capture_id bigint, statement integer, param integer, expression text)
RETURNS TABLE (script text, body text)
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $body$
#variable_conflict use_column
DECLARE
    cid pg_catalog.int8 := capture_set_draw.capture_id;
    st pg_catalog.int4 := capture_set_draw.statement;
    n pg_catalog.int4 := capture_set_draw.param;
BEGIN
    IF expression IS NULL OR pg_catalog.btrim(expression) OPERATOR(pg_catalog.=) '' OR pg_catalog.strpos(expression, E'\n') OPERATOR(pg_catalog.>) 0 THEN
        RAISE EXCEPTION 'capture_set_draw: expression must be one line of pgbench''s \set expression language'
            USING ERRCODE = 'invalid_parameter_value', HINT = 'For example random(1, 10), or 42.';
    END IF;
    IF NOT EXISTS (SELECT FROM pgbench_lab.capture_params p
                    WHERE p.capture_id OPERATOR(pg_catalog.=) cid AND p.statement OPERATOR(pg_catalog.=) st
                      AND p.param OPERATOR(pg_catalog.=) n) THEN
        RAISE EXCEPTION 'capture_set_draw: capture % has no parameter $% of statement %', cid, n, st
            USING ERRCODE = 'no_data_found',
                  HINT = 'pgbench_lab.capture_params lists the parameters of your captures'' replayed statements.';
    END IF;
    UPDATE pgbench_lab.capture_params AS p
       SET draw = pg_catalog.format('\set p%s %s', n, pg_catalog.btrim(expression)), guess = false,
           about = pg_catalog.format('given: %s', pg_catalog.btrim(expression))
     WHERE p.capture_id OPERATOR(pg_catalog.=) cid AND p.statement OPERATOR(pg_catalog.=) st AND p.param OPERATOR(pg_catalog.=) n;
    -- the scripts that draw it, again (the scripts' own check parses them)
    RETURN QUERY
    UPDATE pgbench_lab.scripts AS s
       SET body = pgbench_lab_internal.capture_body(cid, w.members)
      FROM (SELECT x.script, ARRAY[x.statement] AS members FROM pgbench_lab.capture_statements x
             WHERE x.capture_id OPERATOR(pg_catalog.=) cid AND x.statement OPERATOR(pg_catalog.=) st AND x.script IS NOT NULL
            UNION ALL
            SELECT g.script, g.statements FROM pgbench_lab.capture_groups g
             WHERE g.capture_id OPERATOR(pg_catalog.=) cid AND st OPERATOR(pg_catalog.=) ANY (g.statements)) AS w
     WHERE s.name OPERATOR(pg_catalog.=) w.script AND s.created_by OPERATOR(pg_catalog.=) CURRENT_USER
    RETURNING s.name, s.body;
END
$body$;
COMMENT ON FUNCTION pgbench_lab.capture_set_draw(bigint, integer, integer, text) IS
    'pgbench_lab: how the scripts of a capture draw one parameter, given as a pgbench expression (a guess replaced by what you know); returns the scripts written again';
REVOKE ALL ON FUNCTION pgbench_lab.capture_set_draw(bigint, integer, integer, text) FROM PUBLIC;
