
-- ---------------------------------------------------------------------------
-- script_parse: pgbench script files parsed in the server
-- (src/script_parse*.c).  The script interpreter parses a run's scripts
-- with the C interface before anything starts; these functions show what
-- it makes of a script, for the tests and for a DBA who checks a script
-- before running it.  A bad script is an ERROR naming the script, the line
-- and the column, as pgbench reports it.  STABLE: how strings are read
-- follows standard_conforming_strings.  Revoked from PUBLIC, as
-- script_eval() is.
-- ---------------------------------------------------------------------------

-- One row per command, numbered as pgbench numbers them: its line, its
-- kind (sql, begin, commit, rollback, savepoint, release, rollback to, set,
-- sleep, if, elif, else, endif, startpipeline, syncpipeline, endpipeline),
-- its text (for SQL, with $1 .. $n where its :variables were), the
-- variables it reads (for SQL, the one of each $n) and the rest in detail.
CREATE FUNCTION pgbench_lab_internal.script_parse(script text, name text DEFAULT 'script')
RETURNS TABLE (command integer, line integer, kind text, text text, variables text[],
               detail jsonb)
LANGUAGE C STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS 'MODULE_PATHNAME', 'pgbench_lab_script_parse';
COMMENT ON FUNCTION pgbench_lab_internal.script_parse(text, text) IS
    'pgbench_lab: a pgbench script''s commands as the script interpreter reads them, or its first error';
REVOKE EXECUTE ON FUNCTION pgbench_lab_internal.script_parse(text, text) FROM PUBLIC;

-- The script as a whole: its commands, whether it has transaction blocks
-- (without any, each SQL command is a transaction of its own), conditionals
-- and pipelines, the variables it sets and reads, and the :names left as
-- text inside its strings and comments.
CREATE FUNCTION pgbench_lab_internal.script_check(script text, name text DEFAULT 'script')
RETURNS jsonb
LANGUAGE C STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS 'MODULE_PATHNAME', 'pgbench_lab_script_check';
COMMENT ON FUNCTION pgbench_lab_internal.script_check(text, text) IS
    'pgbench_lab: a pgbench script checked as a whole: transactions, conditionals, pipelines, variables';
REVOKE EXECUTE ON FUNCTION pgbench_lab_internal.script_check(text, text) FROM PUBLIC;
