-- ---------------------------------------------------------------------------
-- Captures in the export document (capture(), 47_capture.sql): each
-- capture with its statements and their figures at capture time, the
-- mapping and draws of their parameters, the values sampled and the
-- statements grouped into transactions, under the key "captures".  Read
-- and checked as runs are (doc_rows(): each array against its table), and
-- written by import_as() with new ids, as the importer's, marked with the
-- server they come from.  The scripts a capture saved do not travel: they
-- are the exporting role's, and name the capture's id there.
-- ---------------------------------------------------------------------------

-- One capture as the document holds it (its owner stays behind: an
-- imported capture is the importer's).
CREATE FUNCTION pgbench_lab_internal.export_capture(c pgbench_lab.captures)
RETURNS jsonb LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT (pg_catalog.to_jsonb(c) OPERATOR(pg_catalog.-) 'owner') OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object(
        'capture_statements', (SELECT coalesce(pg_catalog.jsonb_agg(pg_catalog.to_jsonb(s) OPERATOR(pg_catalog.-) 'capture_id' ORDER BY s.statement), '[]')
                                 FROM pgbench_lab.capture_statements s WHERE s.capture_id OPERATOR(pg_catalog.=) c.capture_id),
        'capture_params', (SELECT coalesce(pg_catalog.jsonb_agg(pg_catalog.to_jsonb(p) OPERATOR(pg_catalog.-) 'capture_id' ORDER BY p.statement, p.param), '[]')
                             FROM pgbench_lab.capture_params p WHERE p.capture_id OPERATOR(pg_catalog.=) c.capture_id),
        'capture_values', (SELECT coalesce(pg_catalog.jsonb_agg(pg_catalog.to_jsonb(v) OPERATOR(pg_catalog.-) 'capture_id' ORDER BY v.statement, v.i), '[]')
                             FROM pgbench_lab.capture_values v WHERE v.capture_id OPERATOR(pg_catalog.=) c.capture_id),
        'capture_groups', (SELECT coalesce(pg_catalog.jsonb_agg(pg_catalog.to_jsonb(g) OPERATOR(pg_catalog.-) 'capture_id' ORDER BY g.grp), '[]')
                             FROM pgbench_lab.capture_groups g WHERE g.capture_id OPERATOR(pg_catalog.=) c.capture_id))
$$;

-- The document's captures checked before anything is written: each as
-- pgbench_lab.captures reads it, each of its arrays as its table reads it,
-- and every row naming a statement of its capture; the first problem
-- raises an error naming its path.  Returns them as import_as() writes
-- them, with their source server and id.
CREATE FUNCTION pgbench_lab_internal.doc_captures(doc jsonb)
RETURNS jsonb LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    r pg_catalog.record;
    part pg_catalog.record;
    bad pg_catalog.record;
    one pg_catalog.jsonb;
    path pg_catalog.text;
    caps pg_catalog.jsonb[] := '{}';
BEGIN
    FOR r IN SELECT a.elem, x.row, a.n OPERATOR(pg_catalog.-) 1 AS i
               FROM pg_catalog.jsonb_array_elements(doc OPERATOR(pg_catalog.->) 'captures') WITH ORDINALITY AS a(elem, n)
               JOIN pg_catalog.jsonb_array_elements(pgbench_lab_internal.doc_rows('pgbench_lab.captures', doc OPERATOR(pg_catalog.->) 'captures',
                        '$.captures', '{owner}', NULL,
                        pg_catalog.jsonb_build_object('source_server', doc OPERATOR(pg_catalog.->) 'server' OPERATOR(pg_catalog.->) 'name')))
                    WITH ORDINALITY AS x(row, n) ON x.n OPERATOR(pg_catalog.=) a.n
              ORDER BY a.n LOOP
        path := pg_catalog.format('$.captures[%s]', r.i);
        one := pg_catalog.jsonb_build_object('source_capture_id', r.row OPERATOR(pg_catalog.->) 'capture_id') OPERATOR(pg_catalog.||) r.row;
        FOR part IN SELECT * FROM (VALUES ('capture_statements', 'pgbench_lab.capture_statements'::pg_catalog.regclass),
                                          ('capture_params', 'pgbench_lab.capture_params'),
                                          ('capture_values', 'pgbench_lab.capture_values'),
                                          ('capture_groups', 'pgbench_lab.capture_groups')) AS x(key, tbl) LOOP
            one := one OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object(part.key,
                pgbench_lab_internal.doc_rows(part.tbl, pgbench_lab_internal.doc_array(r.elem, part.key, path, true),
                                              path OPERATOR(pg_catalog.||) '.' OPERATOR(pg_catalog.||) part.key, '{capture_id}'));
        END LOOP;
        -- a parameter, a sampled value or a group names a statement of the capture
        SELECT x.what, x.n OPERATOR(pg_catalog.-) 1 AS i, x.field INTO bad
          FROM (SELECT 1 AS o, 'capture_params' AS what, e.n, 'statement' AS field, e.v OPERATOR(pg_catalog.->) 'statement' AS st
                  FROM pg_catalog.jsonb_array_elements(one OPERATOR(pg_catalog.->) 'capture_params') WITH ORDINALITY AS e(v, n)
                UNION ALL
                SELECT 2, 'capture_values', e.n, 'statement', e.v OPERATOR(pg_catalog.->) 'statement'
                  FROM pg_catalog.jsonb_array_elements(one OPERATOR(pg_catalog.->) 'capture_values') WITH ORDINALITY AS e(v, n)
                UNION ALL
                SELECT 3, 'capture_groups', e.n, 'statements', m.st
                  FROM pg_catalog.jsonb_array_elements(one OPERATOR(pg_catalog.->) 'capture_groups') WITH ORDINALITY AS e(v, n)
                 CROSS JOIN LATERAL pg_catalog.jsonb_array_elements(e.v OPERATOR(pg_catalog.->) 'statements') AS m(st)) AS x
         WHERE NOT EXISTS (SELECT FROM pg_catalog.jsonb_array_elements(one OPERATOR(pg_catalog.->) 'capture_statements') AS s(v)
                            WHERE (s.v OPERATOR(pg_catalog.->) 'statement') OPERATOR(pg_catalog.=) x.st)
         ORDER BY x.o, x.n
         LIMIT 1;
        IF FOUND THEN
            PERFORM pgbench_lab_internal.doc_invalid(pg_catalog.format('%s.%s[%s].%s names a statement that is not in %s.capture_statements',
                                                                       path, bad.what, bad.i, bad.field, path));
        END IF;
        caps := caps OPERATOR(pg_catalog.||) one;
    END LOOP;
    RETURN pg_catalog.to_jsonb(caps);
END
$$;

-- The document's captures (as doc_captures() returns them) written as
-- the caller's, with new ids; returns {source id: new id}.
CREATE FUNCTION pgbench_lab_internal.import_captures(caller regrole, caps jsonb)
RETURNS jsonb LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    ids pg_catalog.jsonb;
    tbl pg_catalog.text;
    who pg_catalog.name := (SELECT a.rolname FROM pg_catalog.pg_roles a WHERE a.oid OPERATOR(pg_catalog.=) caller::pg_catalog.oid);
BEGIN
    SELECT coalesce(pg_catalog.jsonb_object_agg(x.source_id, x.new_id), '{}') INTO ids
      FROM (SELECT a.c OPERATOR(pg_catalog.->>) 'capture_id' AS source_id,
                   pg_catalog.nextval('pgbench_lab.captures_capture_id_seq'::pg_catalog.regclass) AS new_id
              FROM pg_catalog.jsonb_array_elements(caps) WITH ORDINALITY AS a(c, n) ORDER BY a.n) AS x;
    INSERT INTO pgbench_lab.captures OVERRIDING SYSTEM VALUE SELECT v.*
      FROM pg_catalog.jsonb_array_elements(caps) AS a(c)
     CROSS JOIN LATERAL pg_catalog.jsonb_populate_record(NULL::pgbench_lab.captures,
               (a.c OPERATOR(pg_catalog.-) '{capture_statements,capture_params,capture_values,capture_groups}'::pg_catalog.text[])
               OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object('capture_id', ids OPERATOR(pg_catalog.->) (a.c OPERATOR(pg_catalog.->>) 'capture_id'),
                                                                     'owner', who)) AS v;
    -- each table's rows, the statements first (the others name them)
    FOR tbl IN SELECT t FROM pg_catalog.unnest('{capture_statements,capture_params,capture_values,capture_groups}'::pg_catalog.text[])
                    WITH ORDINALITY AS x(t, n) ORDER BY x.n LOOP
        EXECUTE pg_catalog.format(
            'INSERT INTO pgbench_lab.%1$I SELECT v.* FROM pg_catalog.jsonb_array_elements($1) AS a(c) '
            'CROSS JOIN LATERAL pg_catalog.jsonb_array_elements(a.c OPERATOR(pg_catalog.->) %2$L) AS x(e) '
            'CROSS JOIN LATERAL pg_catalog.jsonb_populate_record(NULL::pgbench_lab.%1$I, x.e OPERATOR(pg_catalog.||) '
            'pg_catalog.jsonb_build_object(%3$L, $2 OPERATOR(pg_catalog.->) (a.c OPERATOR(pg_catalog.->>) %3$L))) AS v',
            tbl, tbl, 'capture_id') USING caps, ids;
    END LOOP;
    RETURN ids;
END
$$;
REVOKE ALL ON FUNCTION pgbench_lab_internal.import_captures(regrole, jsonb) FROM PUBLIC;
