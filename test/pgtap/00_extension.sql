-- pgTAP: the extension installs into its fixed schema.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pgbench_lab CASCADE;
SELECT plan(1);
SELECT is((SELECT count(*)::int FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid
            WHERE e.extname = 'pgbench_lab' AND d.classid = 'pg_extension'::regclass), 0,
          'no other extension depends on pgbench_lab');
SELECT * FROM finish();
ROLLBACK;
