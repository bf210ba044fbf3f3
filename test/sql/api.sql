-- The documented API, object by object: the schema pgbench_lab holds
-- exactly the functions, procedures, tables and views of the README's
-- function table (test/t/test_api.py compares the two); helpers live in
-- pgbench_lab_internal.  A new object in pgbench_lab changes this output.
SELECT p.oid::regprocedure AS routine,
       CASE p.prokind WHEN 'p' THEN 'procedure' ELSE 'function' END AS kind
  FROM pg_proc p
 WHERE p.pronamespace = 'pgbench_lab'::regnamespace
 ORDER BY p.oid::regprocedure::text;
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
