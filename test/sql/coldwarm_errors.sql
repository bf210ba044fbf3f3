-- Cold vs warm: argument checks and refusals of cold_vs_warm (all made
-- before anything is evicted or recorded), and autoprewarm_status on a
-- server without pg_prewarm preloaded.  SQLSTATEs: test/pgtap/85_coldwarm.sql.
\set SHOW_CONTEXT never
CREATE TABLE coldwarm_reg (id int PRIMARY KEY);
CREATE VIEW coldwarm_reg_v AS SELECT 1 AS one;

-- no pgbench tables in search_path, and none given
CALL pgbench_lab.cold_vs_warm();
-- bad relations
CALL pgbench_lab.cold_vs_warm(relations => '{}');
CALL pgbench_lab.cold_vs_warm(relations => ARRAY['coldwarm_reg'::regclass, NULL]);
CALL pgbench_lab.cold_vs_warm(relations => ARRAY['coldwarm_reg'::regclass, 'coldwarm_reg']);
CALL pgbench_lab.cold_vs_warm(relations => ARRAY['coldwarm_reg_v'::regclass]);
CALL pgbench_lab.cold_vs_warm(relations => ARRAY['coldwarm_reg_pkey'::regclass]);
CALL pgbench_lab.cold_vs_warm(relations => ARRAY['pg_class'::regclass]);
-- bad run parameters
CALL pgbench_lab.cold_vs_warm(NULL, relations => ARRAY['coldwarm_reg'::regclass]);
CALL pgbench_lab.cold_vs_warm('read-write', relations => ARRAY['coldwarm_reg'::regclass]);
CALL pgbench_lab.cold_vs_warm(clients => 0, relations => ARRAY['coldwarm_reg'::regclass]);
CALL pgbench_lab.cold_vs_warm(duration => '0 s', relations => ARRAY['coldwarm_reg'::regclass]);
CALL pgbench_lab.cold_vs_warm(duration => '-5 s', relations => ARRAY['coldwarm_reg'::regclass]);
-- bad rounds and verdict parameters
CALL pgbench_lab.cold_vs_warm(rounds => 0, relations => ARRAY['coldwarm_reg'::regclass]);
CALL pgbench_lab.cold_vs_warm(rounds => 101, relations => ARRAY['coldwarm_reg'::regclass]);
CALL pgbench_lab.cold_vs_warm(rounds => NULL, relations => ARRAY['coldwarm_reg'::regclass]);
CALL pgbench_lab.cold_vs_warm(smallest_effect => 1, relations => ARRAY['coldwarm_reg'::regclass]);
CALL pgbench_lab.cold_vs_warm(confidence => 0.5, relations => ARRAY['coldwarm_reg'::regclass]);
-- inside a transaction block it cannot commit between runs: nothing recorded
-- (the runs' tables exist, so that only the transaction block is wrong)
CREATE TABLE pgbench_accounts (aid int);
CREATE TABLE pgbench_branches (bid int);
INSERT INTO pgbench_branches VALUES (1);
BEGIN;
CALL pgbench_lab.cold_vs_warm(duration => '1 s', relations => ARRAY['coldwarm_reg'::regclass]);
ROLLBACK;
DROP TABLE pgbench_accounts, pgbench_branches;
-- not a superuser: refused even with EXECUTE granted
CREATE ROLE coldwarm_reg_user;
GRANT EXECUTE ON PROCEDURE pgbench_lab.cold_vs_warm
   TO coldwarm_reg_user;
SET ROLE coldwarm_reg_user;
CALL pgbench_lab.cold_vs_warm(relations => ARRAY['coldwarm_reg'::regclass]);
SELECT * FROM pgbench_lab.autoprewarm_status();
RESET ROLE;
SELECT count(*) AS experiments FROM pgbench_lab.experiments;

-- an experiment that does not exist has no runs
SELECT * FROM pgbench_lab.cold_vs_warm_runs(0);
SELECT pgbench_lab.cold_vs_warm_finding(0);

-- pg_prewarm is not preloaded here: a restart comes back cold
SELECT preloaded, autoprewarm_interval IS NULL OR autoprewarm_interval > '0 s' AS interval_sane,
       dump_file, dump_blocks, pending_restart, restart_warm, warning
  FROM pgbench_lab.autoprewarm_status();

REVOKE EXECUTE ON PROCEDURE pgbench_lab.cold_vs_warm
  FROM coldwarm_reg_user;
DROP ROLE coldwarm_reg_user;
DROP VIEW coldwarm_reg_v;
DROP TABLE coldwarm_reg;
