-- pgTAP: cold vs warm: functions, privileges, SQLSTATEs, the experiment kind.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pgbench_lab CASCADE;
SELECT plan(19);

SELECT is((SELECT prokind FROM pg_proc WHERE oid = 'pgbench_lab.cold_vs_warm'::regproc), 'p',
          'cold_vs_warm is a procedure');
SELECT is((SELECT proconfig FROM pg_proc WHERE oid = 'pgbench_lab.cold_vs_warm'::regproc), NULL,
          'cold_vs_warm has no SET clause, so it can commit between runs');
SELECT isnt_definer('pgbench_lab', 'cold_vs_warm', 'cold_vs_warm is not security definer');
SELECT ok(NOT has_function_privilege('public', 'pgbench_lab.cold_vs_warm'::regproc::oid, 'EXECUTE'),
          'PUBLIC may not run cold_vs_warm');
SELECT ok(NOT has_function_privilege('public', 'pgbench_lab.autoprewarm_status()', 'EXECUTE'),
          'PUBLIC may not call autoprewarm_status');
SELECT ok(has_function_privilege('pg_monitor', 'pgbench_lab.autoprewarm_status()', 'EXECUTE'),
          'pg_monitor may call autoprewarm_status');
SELECT ok(has_function_privilege('pg_monitor', 'pgbench_lab.cold_vs_warm_runs(bigint)', 'EXECUTE'),
          'pg_monitor may read cold_vs_warm results');

CREATE TABLE tap_cw (id int PRIMARY KEY);
CREATE VIEW tap_cw_v AS SELECT 1 AS one;
SELECT throws_ok($$CALL pgbench_lab.cold_vs_warm(relations => '{}')$$, '22004', NULL,
                 'an empty relation list is refused');
SELECT throws_ok($$CALL pgbench_lab.cold_vs_warm(relations => ARRAY['tap_cw'::regclass, 'tap_cw'])$$,
                 '22023', NULL, 'a relation named twice is refused');
SELECT throws_ok($$CALL pgbench_lab.cold_vs_warm(relations => ARRAY['tap_cw_v'::regclass])$$, '42809', NULL,
                 'views are refused');
SELECT throws_ok($$CALL pgbench_lab.cold_vs_warm(relations => ARRAY['pg_class'::regclass])$$, '42501', NULL,
                 'system catalogs are refused');
SELECT throws_ok($$CALL pgbench_lab.cold_vs_warm('write-only', relations => ARRAY['tap_cw'::regclass])$$,
                 '22023', NULL, 'an unknown workload is refused');
SELECT throws_ok($$CALL pgbench_lab.cold_vs_warm(clients => NULL, relations => ARRAY['tap_cw'::regclass])$$,
                 '22004', NULL, 'NULL clients are refused');
SELECT throws_ok($$CALL pgbench_lab.cold_vs_warm(duration => '0 s', relations => ARRAY['tap_cw'::regclass])$$,
                 '22023', NULL, 'a zero duration is refused');
-- (the runs' tables exist, so that only the transaction block is wrong)
CREATE TABLE pgbench_accounts (aid int);
CREATE TABLE pgbench_branches (bid int);
INSERT INTO pgbench_branches VALUES (1);
SELECT throws_ok($$CALL pgbench_lab.cold_vs_warm(relations => ARRAY['tap_cw'::regclass])$$,
                 '2D000', NULL, 'inside a transaction block it cannot commit between runs');
CREATE ROLE tap_cw_user;
GRANT EXECUTE ON PROCEDURE pgbench_lab.cold_vs_warm
   TO tap_cw_user;
SET LOCAL ROLE tap_cw_user;
SELECT throws_ok($$CALL pgbench_lab.cold_vs_warm(relations => ARRAY['tap_cw'::regclass])$$,
                 '42501', 'permission denied for procedure cold_vs_warm', 'only superusers run it');
RESET ROLE;

SELECT is(pgbench_lab.cold_vs_warm_finding(-1), 'No runs recorded.', 'an unknown experiment has no runs');
SELECT lives_ok($$INSERT INTO pgbench_lab.experiments (kind, workload, owner)
                  VALUES ('cold_vs_warm', 'select-only', current_user::regrole)$$,
                'the experiments table accepts kind cold_vs_warm');
SELECT is((SELECT restart_warm FROM pgbench_lab.autoprewarm_status()), false,
          'without pg_prewarm preloaded a restart comes back cold');

SELECT * FROM finish();
ROLLBACK;
