-- pgbench_lab install script.  Assembled by the Makefile from the files of
-- sql/data/ (what an upgrade keeps: schemas, tables, row-level security),
-- then sql/code/ (what an upgrade replaces: functions, procedures, views),
-- each in name order; each part of the extension owns one file of each.
-- Rules (see the manual's "Security Considerations for Extensions"): every
-- name is schema-qualified, functions SET search_path, and nothing uses
-- CREATE OR REPLACE or IF NOT EXISTS on objects another role could create.

\echo Use "CREATE EXTENSION pgbench_lab CASCADE" to load this file. \quit

-- The schema is created here, not named in the control file: PostgreSQL
-- would otherwise create it before the extension exists (so DROP EXTENSION
-- would leave it behind) or, worse, adopt a schema another role made first.
-- A plain CREATE SCHEMA fails if anyone pre-created it.
CREATE SCHEMA pgbench_lab;
COMMENT ON SCHEMA pgbench_lab IS 'pgbench_lab: in-server performance lab';
GRANT USAGE ON SCHEMA pgbench_lab TO PUBLIC;

-- Everything that is not the documented API lives in a schema of its own,
-- so that \df pgbench_lab.* lists exactly the API (test/sql/api.sql): the
-- helpers of reports, plots, experiments and export/import, the write path
-- and the function the row-level security policies use.  Its names may
-- change between versions.  The API's functions run with their caller's
-- rights and call these helpers, so PUBLIC may use the schema; what writes
-- is revoked from PUBLIC function by function, as in pgbench_lab.
CREATE SCHEMA pgbench_lab_internal;
COMMENT ON SCHEMA pgbench_lab_internal IS 'pgbench_lab: internal helpers, not an API';
GRANT USAGE ON SCHEMA pgbench_lab_internal TO PUBLIC;
