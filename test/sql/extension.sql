-- The extension's objects live in schema pgbench_lab, which it owns.
SELECT extname, extversion, extrelocatable
  FROM pg_extension WHERE extname = 'pgbench_lab';
SELECT pg_describe_object(classid, objid, 0) AS member
  FROM pg_depend
 WHERE refclassid = 'pg_extension'::regclass
   AND refobjid = (SELECT oid FROM pg_extension WHERE extname = 'pgbench_lab')
   AND deptype = 'e'
   AND classid = 'pg_namespace'::regclass;
