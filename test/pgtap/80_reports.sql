-- pgTAP: experiments, reports, export and import -- privileges, row-level
-- security and the ownership checks of record(), the only writer.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pgbench_lab CASCADE;
SELECT plan(42);
\set fixture `cat test/fixtures/lab_a.json`

-- what starts workers or writes is not PUBLIC's; reading is pg_monitor's
SELECT ok(NOT has_function_privilege('public', 'pgbench_lab.sweep'::regproc::oid, 'EXECUTE'),
          'PUBLIC may not run sweep()');
SELECT ok(NOT has_function_privilege('public', 'pgbench_lab.compare_settings'::regproc::oid, 'EXECUTE'),
          'PUBLIC may not run compare_settings()');
SELECT ok(NOT has_function_privilege('public', 'pgbench_lab.resume(bigint,text)', 'EXECUTE'),
          'PUBLIC may not run resume()');
SELECT function_privs_are('pgbench_lab', 'import', ARRAY['jsonb'], 'public', ARRAY[]::text[],
                          'PUBLIC may not import');
SELECT function_privs_are('pgbench_lab_internal', 'record_as', ARRAY['regrole', 'text', 'jsonb'], 'public', ARRAY[]::text[],
                          'PUBLIC may not call record_as() directly');
SELECT function_privs_are('pgbench_lab_internal', 'import_as', ARRAY['regrole', 'jsonb'], 'public', ARRAY[]::text[],
                          'PUBLIC may not call import_as() directly');
SELECT function_privs_are('pgbench_lab_internal', 'experiment_begin_as', ARRAY['regrole', 'text', 'text', 'text', 'jsonb'],
                          'public', ARRAY[]::text[], 'PUBLIC may not begin an experiment directly');
SELECT function_privs_are('pgbench_lab_internal', 'experiment_add_as', ARRAY['regrole', 'bigint', 'bigint', 'integer', 'integer'],
                          'public', ARRAY[]::text[], 'nor link a run');
SELECT function_privs_are('pgbench_lab_internal', 'experiment_end_as', ARRAY['regrole', 'bigint'],
                          'public', ARRAY[]::text[], 'nor end an experiment');
SELECT function_privs_are('pgbench_lab', 'report', ARRAY['bigint'], 'pg_monitor', ARRAY['EXECUTE'],
                          'pg_monitor may read reports');
SELECT function_privs_are('pgbench_lab', 'compare', ARRAY['bigint[]'], 'pg_monitor', ARRAY['EXECUTE'],
                          'pg_monitor may compare');
SELECT function_privs_are('pgbench_lab', 'plot', ARRAY['bigint[]', 'text'], 'pg_monitor', ARRAY['EXECUTE'],
                          'pg_monitor may plot');
SELECT function_privs_are('pgbench_lab', 'export', ARRAY['bigint[]', 'bigint[]'], 'pg_monitor', ARRAY['EXECUTE'],
                          'pg_monitor may export');
SELECT table_privs_are('pgbench_lab', 'experiments', 'public', ARRAY['SELECT'],
                       'PUBLIC may only read experiments (under row-level security)');
SELECT table_privs_are('pgbench_lab', 'experiment_runs', 'public', ARRAY['SELECT'],
                       'PUBLIC may only read experiment_runs (under row-level security)');

CREATE ROLE tap_rep_alice;
CREATE ROLE tap_rep_bob;
CREATE ROLE tap_rep_monitor IN ROLE pg_monitor;
SELECT lives_ok(format('SELECT * FROM pgbench_lab.import(%L)', :'fixture'), 'the superuser imports the fixture');
CREATE TEMP TABLE ids AS
    SELECT (SELECT max(experiment_id) FROM pgbench_lab.experiments WHERE kind = 'sweep') AS sweep,
           (SELECT max(run_id) FROM pgbench_lab.runs WHERE source_run_id = 901) AS run;
GRANT SELECT ON ids TO PUBLIC;

SET LOCAL ROLE tap_rep_alice;
SELECT is((SELECT count(*) FROM pgbench_lab.runs WHERE owner = 'postgres'::regrole), 0::bigint,
          'another role''s runs are invisible');
SELECT is((SELECT count(*) FROM pgbench_lab.experiments), 0::bigint, 'and so are its experiments');
SELECT throws_ok(format('SELECT * FROM pgbench_lab.report(%s)', (SELECT sweep FROM ids)), '42704', NULL,
                 'report() of an invisible experiment is refused');
SELECT throws_ok(format('SELECT * FROM pgbench_lab.import(%L)', :'fixture'), '42501', NULL,
                 'a role without EXECUTE may not import');
SELECT throws_ok($$SELECT pgbench_lab_internal.record('import', '{}')$$, '42501', NULL,
                 'nor import through record()');
SELECT throws_ok($$SELECT pgbench_lab_internal.record('drop_everything', '{}')$$, '22023', NULL,
                 'record() knows only its actions');
SELECT throws_ok($$SELECT pgbench_lab_internal.record('experiment_begin', '{"kind": "sweep", "workload": "tpcb-like"}')$$,
                 '22023', NULL, 'record() no longer writes experiments');
SELECT throws_ok($$SELECT pgbench_lab_internal.experiment_begin_as('tap_rep_alice', 'sweep', 'tpcb-like', NULL, '{}')$$,
                 '42501', NULL, 'nor may she call the experiments'' writer');
SELECT throws_ok($$INSERT INTO pgbench_lab.experiments (kind, workload, owner) VALUES ('sweep', 'x', 'tap_rep_alice')$$,
                 '42501', NULL, 'nobody writes experiments directly');
SELECT is(jsonb_array_length(pgbench_lab.export()->'runs'), 0, 'export() holds only what the caller can read');
RESET ROLE;

SELECT throws_ok($$SELECT pgbench_lab_internal.experiment_begin_as('tap_rep_alice', 'sweep', 'tpcb-like', NULL, '{}')$$,
                 '42501', 'permission denied to record a sweep experiment',
                 'an experiment is not begun for a role without EXECUTE on its procedure');
GRANT EXECUTE ON FUNCTION pgbench_lab.import(jsonb) TO tap_rep_alice;
GRANT EXECUTE ON PROCEDURE pgbench_lab.sweep TO tap_rep_alice;
-- two local runs as the runner would record them (its coordinator writes
-- as the extension owner): one of alice's, one of bob's
INSERT INTO pgbench_lab.runs (workload, clients, max_tries, owner, status, tps)
VALUES ('select-only', 1, 1, 'tap_rep_alice', 'done', 100), ('select-only', 2, 1, 'tap_rep_bob', 'done', 150);
CREATE TEMP TABLE local_runs AS
    SELECT (SELECT run_id FROM pgbench_lab.runs WHERE owner = 'tap_rep_alice'::regrole) AS alice,
           (SELECT run_id FROM pgbench_lab.runs WHERE owner = 'tap_rep_bob'::regrole) AS bob;
GRANT SELECT ON local_runs TO PUBLIC;

SET LOCAL ROLE tap_rep_alice;
SELECT is((SELECT count(*) FROM pgbench_lab.import(:'fixture')), 13::bigint, 'with EXECUTE, alice imports');
SELECT is((SELECT count(*) FROM pgbench_lab.runs WHERE owner = 'tap_rep_alice'::regrole AND source_server = 'fixture-a'),
          11::bigint, 'the imported runs are hers');
RESET ROLE;
-- the experiments' writers, as the driver calls them (as the owner, on
-- behalf of the role running the experiment)
CREATE TEMP TABLE exp AS SELECT pgbench_lab_internal.experiment_begin_as('tap_rep_alice', 'sweep', 'select-only', NULL, '{}') AS id;
GRANT SELECT ON exp TO PUBLIC;
SELECT is((SELECT owner FROM pgbench_lab.experiments e JOIN exp ON e.experiment_id = exp.id),
          'tap_rep_alice'::regrole, 'an experiment begun for her is hers');
SELECT throws_ok(format('SELECT pgbench_lab_internal.experiment_add_as(''tap_rep_alice'', %s, %s, NULL, 1)', (SELECT id FROM exp),
                        (SELECT bob FROM local_runs)), '42501', NULL, 'bob''s run is not linked to her experiment');
SELECT throws_ok(format('SELECT pgbench_lab_internal.experiment_add_as(''tap_rep_alice'', %s, %s, NULL, 1)', (SELECT id FROM exp),
                        (SELECT run FROM ids)), '42501', NULL, 'nor an imported run');
SELECT lives_ok(format('SELECT pgbench_lab_internal.experiment_add_as(''tap_rep_alice'', %s, %s, NULL, 1)', (SELECT id FROM exp),
                       (SELECT alice FROM local_runs)), 'her own run is');
SELECT throws_ok(format('SELECT pgbench_lab_internal.experiment_end_as(''tap_rep_bob'', %s)', (SELECT id FROM exp)), '42501', NULL,
                 'bob may not end alice''s experiment');
SELECT is(pgbench_lab_internal.experiment_end_as('tap_rep_alice', (SELECT id FROM exp)), 'done',
          'she ends it, done: all its runs are');
SET LOCAL ROLE tap_rep_monitor;
SELECT cmp_ok((SELECT count(DISTINCT owner) FROM pgbench_lab.runs)::int, '>=', 3, 'pg_monitor reads everyone''s runs');
RESET ROLE;

-- what every reader prints goes through printable(): control characters as \xNN
SELECT is(pgbench_lab.printable(E'a\x1b[31mb\nc\u009bd\u00e9'), E'a\\x1b[31mb\\x0ac\\x9bd\u00e9',
          'printable() shows C0, DEL and C1 control characters as \xNN and keeps the rest');
SELECT is(pgbench_lab.printable('plain \x1b text'), 'plain \x1b text', 'and leaves text without them as it is');
-- refusals before anything is done, with SQLSTATE 22023
SELECT throws_ok(format('SELECT * FROM pgbench_lab.import(%L)', jsonb_set(:'fixture', '{runs,0,via}', '"bogus"')),
                 '22023', 'invalid export document: $.runs[0].via "bogus" is not allowed by the check runs_via_check of pgbench_lab.runs',
                 'import() refuses a value the runs table''s CHECK would refuse, naming the field');
SELECT throws_ok(format('SELECT * FROM pgbench_lab.sweep_summary(%s)',
                        (SELECT max(experiment_id) FROM pgbench_lab.experiments WHERE kind = 'compare_settings')),
                 '22023', NULL, 'sweep_summary() refuses an experiment of another kind');
SELECT throws_ok($$SELECT pgbench_lab.plot('{{1,2},{3,4}}')$$, '22023', NULL,
                 'plot() refuses an array of arrays');
SELECT throws_ok($$SELECT * FROM pgbench_lab.compare('{{1,2},{3,4}}')$$, '22023', NULL,
                 'compare() refuses an array of arrays');

SELECT * FROM finish();
ROLLBACK;
