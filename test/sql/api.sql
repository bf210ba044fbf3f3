-- The documented API, object by object: the schema pgbench_lab holds
-- exactly the functions, procedures, tables and views of the README's
-- function table (test/t/test_api.py compares the two); helpers live in
-- pgbench_lab_internal.  A new object in pgbench_lab changes this output.
-- A routine that takes the run options (run(), start() and the
-- experiment kinds: test_run_spec.py holds them to run_options()) shows
-- its own arguments and "run options", so that a new option changes
-- nothing here.
SELECT CASE WHEN a.options > 0 THEN format('%s(%s, run options)', p.oid::regproc, a.own)
            ELSE p.oid::regprocedure::text END AS routine,
       CASE p.prokind WHEN 'p' THEN 'procedure' ELSE 'function' END AS kind
  FROM pg_proc p,
       LATERAL (SELECT count(*) FILTER (WHERE x.name = 'query_mode') AS options,
                       string_agg(format_type(x.type, NULL), ',' ORDER BY x.i)
                           FILTER (WHERE x.name IS NULL OR x.name NOT IN (SELECT name FROM pgbench_lab.run_options())
                                   OR x.name IN ('workload', 'clients', 'duration', 'label', 'settings')
                                   OR NOT 'query_mode' = ANY (p.proargnames)) AS own
                  FROM unnest(coalesce(p.proallargtypes, p.proargtypes::oid[]),
                              coalesce(p.proargnames, array_fill(NULL::text, ARRAY[p.pronargs])),
                              coalesce(p.proargmodes, array_fill('i'::"char", ARRAY[p.pronargs])))
                       WITH ORDINALITY AS x(type, name, mode, i)
                 WHERE x.mode IN ('i', 'b', 'v')) a
 WHERE p.pronamespace = 'pgbench_lab'::regnamespace
 ORDER BY 1;
SELECT c.relname, CASE c.relkind WHEN 'r' THEN 'table' WHEN 'v' THEN 'view' ELSE c.relkind::text END AS kind
  FROM pg_class c
 WHERE c.relnamespace = 'pgbench_lab'::regnamespace AND c.relkind IN ('r', 'v', 'm', 'p', 'f')
 ORDER BY 1;
-- and no routine of the extension is anywhere else but in these two schemas
SELECT count(*) AS elsewhere
  FROM pg_depend d JOIN pg_proc p ON p.oid = d.objid AND d.classid = 'pg_proc'::regclass
 WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
   AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'pgbench_lab')
   AND p.pronamespace NOT IN ('pgbench_lab'::regnamespace, 'pgbench_lab_internal'::regnamespace);
