-- storage: bad arguments and callers are refused before any file is made.
-- Each call goes through a catcher that shows SQLSTATE, message and hint.
CREATE FUNCTION pg_temp.try(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    msg text;
    hint text;
BEGIN
    EXECUTE q;
    RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS msg = MESSAGE_TEXT, hint = PG_EXCEPTION_HINT;
    RETURN SQLSTATE || ': ' || msg || ' (hint: ' || hint || ')';
END $$;

-- seconds: NULL, zero, negative, NaN, infinities, above the bound
SELECT pg_temp.try('SELECT * FROM pgbench_lab.fsync_test(NULL)');
SELECT pg_temp.try('SELECT * FROM pgbench_lab.fsync_test(0)');
SELECT pg_temp.try('SELECT * FROM pgbench_lab.fsync_test(-1)');
SELECT pg_temp.try('SELECT * FROM pgbench_lab.fsync_test(''NaN'')');
SELECT pg_temp.try('SELECT * FROM pgbench_lab.fsync_test(''Infinity'')');
SELECT pg_temp.try('SELECT * FROM pgbench_lab.fsync_test(''-Infinity'')');
SELECT pg_temp.try('SELECT * FROM pgbench_lab.fsync_test(600.001)');
SELECT pg_temp.try('SELECT * FROM pgbench_lab.fsync_test(1e400)');
SELECT pg_temp.try('SELECT * FROM pgbench_lab.io_test(''16MB'', NULL)');
SELECT pg_temp.try('SELECT * FROM pgbench_lab.io_test(''16MB'', 0)');
SELECT pg_temp.try('SELECT * FROM pgbench_lab.io_test(''16MB'', ''NaN'')');

-- size: NULL, bad units, no number, negative, zero, too small, overflow
SELECT pg_temp.try('SELECT * FROM pgbench_lab.io_test(NULL)');
SELECT pg_temp.try('SELECT * FROM pgbench_lab.io_test(''1XB'')');
SELECT pg_temp.try('SELECT * FROM pgbench_lab.io_test(''GB'')');
SELECT pg_temp.try('SELECT * FROM pgbench_lab.io_test(''-1GB'')');
SELECT pg_temp.try('SELECT * FROM pgbench_lab.io_test(''0'')');
SELECT pg_temp.try('SELECT * FROM pgbench_lab.io_test(''512kB'')');
SELECT pg_temp.try('SELECT * FROM pgbench_lab.io_test(''NaN'')');
SELECT pg_temp.try('SELECT * FROM pgbench_lab.io_test(''3TB'')');

-- a role granted EXECUTE is still refused: the check is in C
CREATE ROLE pgbl_storage_regress_user;
GRANT USAGE ON SCHEMA pgbench_lab TO pgbl_storage_regress_user;
GRANT EXECUTE ON FUNCTION pgbench_lab.fsync_test(numeric) TO pgbl_storage_regress_user;
GRANT EXECUTE ON FUNCTION pgbench_lab.io_test(text, numeric) TO pgbl_storage_regress_user;
SET ROLE pgbl_storage_regress_user;
SELECT pg_temp.try('SELECT * FROM pgbench_lab.fsync_test(0.5)');
SELECT pg_temp.try('SELECT * FROM pgbench_lab.io_test(''16MB'', 0.5)');
-- and may neither read nor write the results table
SELECT pg_temp.try('SELECT count(*) FROM pgbench_lab.storage_tests');
SELECT pg_temp.try('INSERT INTO pgbench_lab.storage_tests (kind, started_at, finished_at, seconds, results) VALUES (''io'', now(), now(), 1, ''{}'')');
RESET ROLE;
REVOKE ALL ON FUNCTION pgbench_lab.fsync_test(numeric) FROM pgbl_storage_regress_user;
REVOKE ALL ON FUNCTION pgbench_lab.io_test(text, numeric) FROM pgbl_storage_regress_user;
REVOKE USAGE ON SCHEMA pgbench_lab FROM pgbl_storage_regress_user;
DROP ROLE pgbl_storage_regress_user;

-- nothing was made or recorded
SELECT count(*) AS tests_recorded FROM pgbench_lab.storage_tests;
SELECT count(*) AS temp_files FROM pg_ls_tmpdir() WHERE name LIKE '%pgbench_lab%';
