
-- ---------------------------------------------------------------------------
-- capture: the application's statements from pg_stat_statements, each
-- parameter mapped by the server's parser and parse analysis to what it
-- meets (src/capture_parse.c), for capture() to draw it from the data.
-- ---------------------------------------------------------------------------

-- Every $n of one statement: its type, and where found the column it is
-- compared with, stored into or set (kind eq, in, range, like, ne, other,
-- insert, update), or limit/offset; NULL kind: found nowhere (capture()
-- draws it by type and names it a guess).  No SET search_path: the text
-- names its tables as the application wrote them, and the caller's path
-- (the application's, as capture() sets it) resolves them; parse analysis
-- plans and executes nothing.  Revoked from PUBLIC, as script_parse() is.
CREATE FUNCTION pgbench_lab_internal.capture_params(query text)
RETURNS TABLE (param integer, type regtype, relation regclass, attnum smallint, kind text, operator text)
LANGUAGE C STABLE
AS 'MODULE_PATHNAME', 'pgbench_lab_capture_params';
COMMENT ON FUNCTION pgbench_lab_internal.capture_params(text) IS
    'pgbench_lab: each parameter of a normalized statement, its type and the column it meets, by parse analysis';
REVOKE EXECUTE ON FUNCTION pgbench_lab_internal.capture_params(text) FROM PUBLIC;
