-- pgTAP: the extension installs into its fixed schema.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pgbench_lab CASCADE;
SELECT plan(3);
SELECT has_schema('pgbench_lab');
SELECT is((SELECT extrelocatable FROM pg_extension WHERE extname = 'pgbench_lab'), false,
          'not relocatable');
SELECT is((SELECT count(*)::int FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid
            WHERE e.extname = 'pgbench_lab' AND d.classid = 'pg_extension'::regclass), 0,
          'no other extension depends on pgbench_lab');
SELECT * FROM finish();
ROLLBACK;
