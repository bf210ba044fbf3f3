
-- ---------------------------------------------------------------------------
-- script_expr: pgbench's \set expression language, evaluated in the server
-- (src/script_expr*.c, src/script_funcs.c).  The script interpreter calls
-- the C interface per client; this function evaluates one expression from
-- SQL, for the tests and for checking an expression before it goes into a
-- script.
-- ---------------------------------------------------------------------------

-- The value pgbench would give :x after "\set x <expr>", as text (NULL for
-- null), or pgbench's error as an ERROR: parse errors with their column.
-- variables are pgbench's -D; seed plays --random-seed for one client (a
-- random one when NULL).  VOLATILE for the random functions; revoked from
-- PUBLIC, as every volatile function of the extension that PUBLIC need not
-- run (debug() writes to the server log).
CREATE FUNCTION pgbench_lab_internal.script_eval(expr text,
                                                 variables jsonb DEFAULT '{}',
                                                 seed bigint DEFAULT NULL)
RETURNS text
LANGUAGE C VOLATILE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS 'MODULE_PATHNAME', 'pgbench_lab_script_eval';
COMMENT ON FUNCTION pgbench_lab_internal.script_eval(text, jsonb, bigint) IS
    'pgbench_lab: one pgbench \set expression evaluated as pgbench would, for tests and checks';
REVOKE EXECUTE ON FUNCTION pgbench_lab_internal.script_eval(text, jsonb, bigint) FROM PUBLIC;
