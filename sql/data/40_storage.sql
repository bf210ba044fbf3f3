
-- ---------------------------------------------------------------------
-- storage: the data directory's device measured from SQL
-- (fsync_test, io_test), results kept in storage_tests, the latest
-- figures in the view storage_latest.
-- ---------------------------------------------------------------------

CREATE SEQUENCE pgbench_lab.storage_tests_id_seq;

-- One row per test; written only by fsync_test() and io_test() (which only
-- superusers may run), read by pg_monitor.  results holds the rows the
-- function returned, as jsonb (fsync: {"wal_sync_method", "methods": [...]},
-- io: one object).
CREATE TABLE pgbench_lab.storage_tests (
    id bigint PRIMARY KEY
        DEFAULT pg_catalog.nextval('pgbench_lab.storage_tests_id_seq'::pg_catalog.regclass),
    kind text NOT NULL CHECK (kind OPERATOR(pg_catalog.=) ANY (ARRAY['fsync', 'io'])),
    started_at timestamptz NOT NULL,
    finished_at timestamptz NOT NULL,
    seconds numeric NOT NULL,
    size_bytes bigint,
    results jsonb NOT NULL
);
ALTER SEQUENCE pgbench_lab.storage_tests_id_seq OWNED BY pgbench_lab.storage_tests.id;
COMMENT ON TABLE pgbench_lab.storage_tests IS
    'pgbench_lab: results of fsync_test() and io_test(), one row per test';
SELECT pg_catalog.pg_extension_config_dump('pgbench_lab.storage_tests', '');
SELECT pg_catalog.pg_extension_config_dump('pgbench_lab.storage_tests_id_seq', '');
REVOKE ALL ON pgbench_lab.storage_tests FROM PUBLIC;
REVOKE ALL ON SEQUENCE pgbench_lab.storage_tests_id_seq FROM PUBLIC;
GRANT SELECT ON pgbench_lab.storage_tests TO pg_monitor;
