-- compare_settings() with reload-level settings (ALTER SYSTEM): every set
-- is checked before anything changes, and what could stop the server from
-- starting or being reached is refused, each with its SQLSTATE, message
-- and hint; postgresql.auto.conf stays as it was, and nothing is recorded.
\set VERBOSITY default
\set SHOW_CONTEXT never
SET client_min_messages = warning;
-- pgbench's tables, empty but for one branch: the workload's own checks pass
CREATE TABLE pgbench_branches (bid int PRIMARY KEY, bbalance int, filler char(88));
CREATE TABLE pgbench_tellers (tid int PRIMARY KEY, bid int, tbalance int, filler char(84));
CREATE TABLE pgbench_accounts (aid int PRIMARY KEY, bid int, abalance int, filler char(84));
CREATE TABLE pgbench_history (tid int, bid int, aid int, delta int, mtime timestamp, filler char(22));
INSERT INTO pgbench_branches VALUES (1, 0);
CREATE TEMP TABLE before AS
SELECT pg_catalog.md5(pg_catalog.pg_read_binary_file('postgresql.auto.conf')) AS auto_conf,
       (SELECT count(*) FROM pgbench_lab.experiments) AS experiments;

-- nothing to restore on a fresh server
SELECT * FROM pgbench_lab.restore_settings();

-- each refused before anything changes (the error's CONTEXT, not shown here, names the set)
CALL pgbench_lab.compare_settings('select-only', ARRAY['{}', '{"max_wal_size": "1kB"}']::jsonb[]);
CALL pgbench_lab.compare_settings('select-only', ARRAY['{}', '{"checkpoint_timeout": "forever"}']::jsonb[]);
CALL pgbench_lab.compare_settings('select-only', ARRAY['{}', '{"wal_sync_method": "sometimes"}']::jsonb[]);
CALL pgbench_lab.compare_settings('select-only', ARRAY['{}', '{"max_wal_size": null}']::jsonb[]);
CALL pgbench_lab.compare_settings('select-only', ARRAY['{}', '{"ssl": "on"}']::jsonb[]);
CALL pgbench_lab.compare_settings('select-only', ARRAY['{}', '{"archive_command": "true"}']::jsonb[]);
CALL pgbench_lab.compare_settings('select-only', ARRAY['{}', '{"primary_conninfo": "host=elsewhere"}']::jsonb[]);
CALL pgbench_lab.compare_settings('select-only', ARRAY['{}', '{"port": "5433"}']::jsonb[]);
CALL pgbench_lab.compare_settings('select-only', ARRAY['{}', '{"listen_addresses": "*"}']::jsonb[]);
CALL pgbench_lab.compare_settings('select-only', ARRAY['{}', '{"data_directory": "/"}']::jsonb[]);
CALL pgbench_lab.compare_settings('select-only', ARRAY['{}', '{"shared_preload_libraries": "x"}']::jsonb[]);
CALL pgbench_lab.compare_settings('select-only', ARRAY['{}', '{"session_preload_libraries": "x"}']::jsonb[]);
CALL pgbench_lab.compare_settings('select-only', ARRAY['{}', '{"block_size": "4096"}']::jsonb[]);

-- not a superuser, though granted the procedure: refused, in C
CREATE ROLE settings_refused_tuner;
GRANT EXECUTE ON PROCEDURE pgbench_lab.compare_settings
    TO settings_refused_tuner;
GRANT EXECUTE ON FUNCTION pgbench_lab.restore_settings() TO settings_refused_tuner;
GRANT SELECT ON pgbench_branches, pgbench_tellers, pgbench_accounts TO settings_refused_tuner;
SET ROLE settings_refused_tuner;
CALL pgbench_lab.compare_settings('select-only', ARRAY['{}', '{"max_wal_size": "2GB"}']::jsonb[]);
SELECT * FROM pgbench_lab.restore_settings();
SELECT count(*) FROM pgbench_lab_internal.settings_saved;
RESET ROLE;
DROP OWNED BY settings_refused_tuner;
DROP ROLE settings_refused_tuner;

DROP TABLE pgbench_branches, pgbench_tellers, pgbench_accounts, pgbench_history;

-- the file and the records are as they were
SELECT b.auto_conf OPERATOR(pg_catalog.=) pg_catalog.md5(pg_catalog.pg_read_binary_file('postgresql.auto.conf')) AS auto_conf_unchanged,
       b.experiments OPERATOR(pg_catalog.=) (SELECT count(*) FROM pgbench_lab.experiments) AS nothing_recorded
  FROM before b;
SELECT count(*) AS saved FROM pgbench_lab_internal.settings_saved;
