-- import() of every experiment kind, and a validator that refuses with
-- 22023 everything the tables would refuse (their types, NOT NULL and
-- CHECK constraints and keys, read from the catalog), so that no document
-- reaches a constraint or a cast.
\encoding UTF8
SET client_min_messages = warning;
SET timezone = 'UTC';
SELECT pg_catalog.setval('pgbench_lab.runs_run_id_seq', 4000, false) AS next_id;
\set fixture `cat test/fixtures/lab_a.json`
\set SHOW_CONTEXT never

-- The CHECK constraints of the tables import writes: import evaluates
-- each on the document's rows (a new one needs no code, only a line below).
SELECT conrelid::regclass AS "table", pg_get_constraintdef(oid) AS "check"
  FROM pg_constraint
 WHERE contype = 'c'
   AND conrelid = ANY (ARRAY['pgbench_lab.runs', 'pgbench_lab.run_progress', 'pgbench_lab.run_latency',
                             'pgbench_lab.experiments', 'pgbench_lab.experiment_runs']::regclass[])
 ORDER BY 1, 2;
-- each refused by the validator, naming the field and the valid values
SELECT * FROM pgbench_lab.import(jsonb_set(:'fixture', '{runs,0,via}', '"bogus"'));
SELECT * FROM pgbench_lab.import(jsonb_set(:'fixture', '{runs,0,status}', '"running"'));
SELECT * FROM pgbench_lab.import(jsonb_set(:'fixture', '{experiments,0,kind}', '"bogus"'));
SELECT * FROM pgbench_lab.import(jsonb_set(:'fixture', '{experiments,0,status}', '"running"'));
-- the column types: integer and bigint ranges, double precision, keys
SELECT * FROM pgbench_lab.import(jsonb_set(:'fixture', '{runs,0,max_tries}', '3000000000'));
SELECT * FROM pgbench_lab.import(jsonb_set(:'fixture', '{runs,0,tps}', '1e-400'));
SELECT * FROM pgbench_lab.import(jsonb_set(:'fixture', '{runs,0,latency_p99_ms}', '1e301'));
SELECT * FROM pgbench_lab.import(jsonb_set(:'fixture', '{runs,0,hit_ratio}', '1e-400'));
SELECT * FROM pgbench_lab.import(jsonb_set(:'fixture', '{runs,0,progress,2,second}', '3000000000'));
SELECT * FROM pgbench_lab.import(jsonb_set(:'fixture', '{runs,0,latency,1,bucket_upper_us}', '500.00'));
SELECT * FROM pgbench_lab.import(jsonb_set(:'fixture', '{experiments,1,runs,1,run_id}', '911'));
SELECT * FROM pgbench_lab.import(jsonb_set(:'fixture', '{experiments,1,runs,2,variant}', '3'));
SELECT * FROM pgbench_lab.import(jsonb_set(:'fixture', '{experiments,1,params,settings}',
                                           (SELECT jsonb_agg('{}'::jsonb) FROM generate_series(1, 27))));
SELECT * FROM pgbench_lab.import(jsonb_set(:'fixture', '{experiments,1,params,settings}', '[{}]'));
SELECT count(*) AS runs_after_bad_documents FROM pgbench_lab.runs WHERE run_id >= 4000;

-- a run of more than 2^31 transactions per client, and numbers written
-- with a decimal point (2.0) or an exponent, import and read back
CREATE TEMP TABLE big AS
SELECT jsonb_set(jsonb_set(jsonb_set(:'fixture', '{runs,0,transactions_per_client}', '3000000000'),
                           '{runs,0,clients}', '1.0'),
                 '{runs,0,blks_hit}', '1e7') AS doc;
SELECT kind, source_id, id FROM pgbench_lab.import((SELECT doc FROM big)) WHERE kind = 'run' AND source_id = 901;
SELECT run_id, transactions_per_client, clients, blks_hit FROM pgbench_lab.runs WHERE run_id = 4000;
SELECT pgbench_lab.export(ARRAY[4000])->'runs'->0->'transactions_per_client' AS exported_again;

-- every kind of experiment: a cold_vs_warm and a connection_cost as their
-- procedures record them (the parameters differ by kind)
CREATE TEMP TABLE kinds AS
SELECT jsonb_set(:'fixture', '{experiments}', (:'fixture'::jsonb)->'experiments' || '[
    {"experiment_id": 930, "kind": "cold_vs_warm", "workload": "tpcb-like", "label": null,
     "params": {"clients": 1, "duration": "00:00:05", "relations": ["public.pgbench_accounts"],
                "relids": [16400, 16410, 4294967295]},
     "started_at": "2026-03-01T12:00:00+00:00", "finished_at": "2026-03-01T12:01:00+00:00",
     "status": "done", "source_server": null, "source_experiment_id": null,
     "runs": [{"run_id": 911, "ordinal": 1, "variant": 1, "round": 1},
              {"run_id": 913, "ordinal": 2, "variant": 2, "round": 1},
              {"run_id": 915, "ordinal": 3, "variant": 3, "round": 1}]},
    {"experiment_id": 940, "kind": "connection_cost", "workload": "tpcb-like", "label": "paths",
     "params": {"clients": 1, "duration": "00:00:05", "rounds": 1,
                "settings": [{"via": "spi"}, {"via": "libpq"}, {"via": "libpq-connect"}]},
     "started_at": "2026-03-01T13:00:00+00:00", "finished_at": "2026-03-01T13:01:00+00:00",
     "status": "done", "source_server": null, "source_experiment_id": null,
     "runs": [{"run_id": 912, "ordinal": 1, "variant": 1, "round": 1},
              {"run_id": 914, "ordinal": 2, "variant": 2, "round": 1},
              {"run_id": 916, "ordinal": 3, "variant": 3, "round": 1}]}]') AS doc;
-- their parameters are checked by kind
SELECT * FROM pgbench_lab.import(jsonb_set((SELECT doc FROM kinds), '{experiments,2,params}', '{"duration": "00:00:05"}'));
SELECT * FROM pgbench_lab.import(jsonb_set((SELECT doc FROM kinds), '{experiments,2,params,relids,1}', '-1'));
SELECT * FROM pgbench_lab.import(jsonb_set((SELECT doc FROM kinds), '{experiments,2,params,relations}', '[1]'));
SELECT * FROM pgbench_lab.import(jsonb_set((SELECT doc FROM kinds), '{experiments,2,runs,2,variant}', '4'));
SELECT * FROM pgbench_lab.import(jsonb_set((SELECT doc FROM kinds), '{experiments,3,params,settings,1}', '"libpq"'));
SELECT * FROM pgbench_lab.import(jsonb_set((SELECT doc FROM kinds), '{experiments,3,params,clients}', '0'));
SELECT count(*) AS runs_after_bad_documents FROM pgbench_lab.runs WHERE run_id > 4012;
SELECT kind, source_id, id FROM pgbench_lab.import((SELECT doc FROM kinds)) WHERE kind = 'experiment';
SELECT experiment_id, kind, label, params FROM pgbench_lab.experiments
 WHERE experiment_id > 4012 ORDER BY experiment_id;
-- exported again, every kind reads back the same
SELECT (SELECT jsonb_agg(e - ARRAY['experiment_id', 'source_server', 'source_experiment_id', 'runs', 'verdicts']
                         ORDER BY e->>'started_at')
          FROM kinds, jsonb_array_elements(doc->'experiments') e)
     = (SELECT jsonb_agg(e - ARRAY['experiment_id', 'source_server', 'source_experiment_id', 'runs', 'verdicts']
                         ORDER BY e->>'started_at')
          FROM jsonb_array_elements(pgbench_lab.export(ARRAY(SELECT experiment_id FROM pgbench_lab.experiments
                                                              WHERE experiment_id > 4012))->'experiments') e)
       AS experiments_read_back_the_same;
-- and reads as its kind
\pset format unaligned
\pset tuples_only on
SELECT * FROM pgbench_lab.report((SELECT max(experiment_id) - 1 FROM pgbench_lab.experiments));
SELECT * FROM pgbench_lab.report((SELECT max(experiment_id) FROM pgbench_lab.experiments));
\pset format aligned
\pset tuples_only off

-- 40 000 progress rows: import reads the document in one pass (this
-- checks that it completes, not how fast)
CREATE TEMP TABLE long_run AS
SELECT jsonb_set(jsonb_set(jsonb_set(:'fixture'::jsonb - 'experiments', '{runs}',
                                     jsonb_build_array((:'fixture'::jsonb)->'runs'->0)),
                           '{runs,0,duration}', '"11:06:40"'),
                 '{runs,0,progress}',
                 (SELECT jsonb_agg(jsonb_build_object('second', s, 'interval_seconds', 1.0, 'transactions', 1000,
                                                      'tps', 1000.0, 'latency_avg_ms', 1.0, 'latency_max_ms', 4.0,
                                                      'failures', 0, 'hit_ratio', 0.999) ORDER BY s)
                    FROM generate_series(1, 40000) s)) AS doc;
SELECT count(*) AS imported FROM pgbench_lab.import((SELECT doc FROM long_run));
SELECT count(*) AS progress_rows, min(second), max(second), sum(transactions)
  FROM pgbench_lab.run_progress WHERE run_id = (SELECT max(run_id) FROM pgbench_lab.runs);
-- and a duplicate second at the end is found there
SELECT * FROM pgbench_lab.import(jsonb_set((SELECT doc FROM long_run), '{runs,0,progress,39999,second}', '7'));

-- a constraint added to a table is the validator's at once: it names the
-- row and the constraint
BEGIN;
ALTER TABLE pgbench_lab.run_latency ADD CONSTRAINT few_per_bucket CHECK (count < 1000000);
SELECT * FROM pgbench_lab.import(jsonb_set(:'fixture', '{runs,2,latency,1,count}', '1000000'));
ROLLBACK;
-- what a run's row does not carry is not read from a document (owner,
-- the coordinator's pid, a run id in a progress row), and nulls take the
-- import's defaults
SELECT kind, source_id FROM pgbench_lab.import(jsonb_set(jsonb_set(jsonb_set(jsonb_set(:'fixture'::jsonb - 'experiments',
           '{runs,0,owner}', '"nobody"'), '{runs,0,coordinator_pid}', '"abc"'),
           '{runs,0,progress,0,run_id}', '"abc"'), '{runs,0,via}', 'null'))
 WHERE source_id = 901;
SELECT owner = current_user::regrole AS owned_by_importer, coordinator_pid, via,
       (SELECT count(*) FROM pgbench_lab.run_progress p WHERE p.run_id = r.run_id) AS progress_rows
  FROM pgbench_lab.runs r WHERE source_run_id = 901 ORDER BY run_id DESC LIMIT 1;

-- What the readers would choke on is refused too (22023), naming the
-- value's path: figures below 0 (double precision and numeric ones unless
-- a rule says otherwise), shares of CPU past 100, latencies, seconds and
-- durations past 100 years, a second's length under 1 ms, a measured
-- time under 1 ns but 0, durations of 0 or less, timestamps infinite,
-- outside 1970-9999 or ending before they start, and counts whose sum over
-- a run's rows (or a run's transactions and failures together) is past
-- the largest bigint.  A run that has
-- every kind of row:
CREATE TEMP TABLE one AS
SELECT jsonb_set(:'fixture'::jsonb - 'experiments', '{runs}', jsonb_build_array((:'fixture'::jsonb)->'runs'->0 || '{
    "telemetry": [{"second": 1, "interval_seconds": 1.0, "cpu_idle_pct": 50, "checkpoints": 0, "wait_samples": 100},
                  {"second": 2, "interval_seconds": 1.0, "cpu_idle_pct": 50, "checkpoints": 1, "wait_samples": 100}],
    "targets": [{"target": 1, "target_display": "host=a", "clients": 1, "transactions": 5000, "conflicts": 0},
                {"target": 2, "target_display": "host=b", "clients": 1, "transactions": 5000, "conflicts": 0}],
    "errors": [{"error": 1, "sqlstate": "40001", "message": "could not serialize", "count": 3, "first_ms": 10},
               {"error": 2, "sqlstate": "40P01", "message": "deadlock detected", "count": 1, "first_ms": 20}],
    "scripts": [{"script": 1, "name": "s", "weight": 1, "body": "SELECT 1;\nSELECT 2;", "transactions": 10000,
                 "commands": [{"command": 1, "line": 1, "kind": "sql", "command_text": "SELECT 1;", "executions": 10000},
                              {"command": 2, "line": 2, "kind": "sql", "command_text": "SELECT 2;", "executions": 10000,
                               "latency_avg_ms": 0.5}]}]}'::jsonb)) AS doc;
-- the document with each [path, value] of sets set; the import's refusal
CREATE FUNCTION pg_temp.patched(doc jsonb, sets jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
    s jsonb;
BEGIN
    FOR s IN SELECT jsonb_array_elements(sets) LOOP
        doc := jsonb_set(doc, (s->>0)::text[], s->1);
    END LOOP;
    RETURN doc;
END
$$;
CREATE FUNCTION pg_temp.refusal(doc jsonb) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pgbench_lab.import(doc);
    RETURN 'imported';
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE || ' ' || SQLERRM;
END
$$;
SELECT count(*) AS imported FROM pgbench_lab.import((SELECT doc FROM one));
CREATE TEMP TABLE runs_before AS SELECT count(*) AS n FROM pgbench_lab.runs;
SELECT pg_temp.refusal(pg_temp.patched(CASE WHEN c.x->>0 = 'one' THEN (SELECT doc FROM one) ELSE :'fixture' END, c.x->1)) AS refusal
  FROM jsonb_array_elements('[
        ["one", [["{runs,0,tps}", -1]]],
        ["one", [["{runs,0,latency_p99_ms}", -0.001]]],
        ["one", [["{runs,0,wal_bytes}", -1]]],
        ["one", [["{runs,0,progress,1,latency_avg_ms}", -1]]],
        ["one", [["{runs,0,latency,1,bucket_upper_us}", -900]]],
        ["one", [["{runs,0,telemetry,0,run_cpu_seconds}", -1]]],
        ["one", [["{runs,0,telemetry,1,checkpoints}", -1]]],
        ["one", [["{runs,0,targets,0,conflicts}", -1]]],
        ["one", [["{runs,0,errors,1,first_ms}", -1]]],
        ["one", [["{runs,0,scripts,0,commands,1,latency_avg_ms}", -0.5]]],
        ["one", [["{runs,0,telemetry,0,cpu_idle_pct}", 100.5]]],
        ["one", [["{runs,0,latency_max_ms}", 3155760000001]]],
        ["one", [["{runs,0,measured_seconds}", 3155760001]]],
        ["one", [["{runs,0,measured_seconds}", 1e-10]]],
        ["one", [["{runs,0,progress,10,interval_seconds}", 0.0009]]],
        ["one", [["{runs,0,duration}", "-1 s"]]],
        ["one", [["{runs,0,duration}", "00:00:00"]]],
        ["one", [["{runs,0,duration}", "1000000 years"]]],
        ["one", [["{runs,0,latency_limit}", "100 years 1 day"]]],
        ["one", [["{runs,0,started_at}", "infinity"]]],
        ["one", [["{runs,0,finished_at}", "1969-12-31T23:59:59+00:00"]]],
        ["one", [["{runs,0,finished_at}", "2026-03-01T09:59:59+00:00"]]],
        ["one", [["{runs,0,latency,0,count}", 4611686018427387904], ["{runs,0,latency,1,count}", 4611686018427387904]]],
        ["one", [["{runs,0,progress,0,transactions}", 9223372036854775807]]],
        ["one", [["{runs,0,telemetry,0,checkpoints}", 9223372036854775807]]],
        ["one", [["{runs,0,targets,1,transactions}", 9223372036854775807]]],
        ["one", [["{runs,0,errors,0,count}", 9223372036854775807]]],
        ["one", [["{runs,0,scripts,0,commands,0,executions}", 9223372036854775807]]],
        ["one", [["{runs,0,transactions}", 9223372036854775807], ["{runs,0,failures}", 1]]],
        ["fixture", [["{experiments,0,params,duration}", "-10 s"]]],
        ["fixture", [["{experiments,1,params,rate}", -5]]],
        ["fixture", [["{experiments,1,started_at}", "infinity"]]],
        ["fixture", [["{experiments,0,finished_at}", "2026-02-28T00:00:00+00:00"]]]]') WITH ORDINALITY AS c(x, n)
 ORDER BY c.n;
-- each with the hint and, where a column holds it, the column's type
SELECT * FROM pgbench_lab.import(jsonb_set((SELECT doc FROM one), '{runs,0,latency_p99_ms}', '-0.001'));
SELECT * FROM pgbench_lab.import(jsonb_set((SELECT doc FROM one), '{runs,0,progress,0,transactions}', '9223372036854775807'));
SELECT count(*) = (SELECT n FROM runs_before) AS none_imported FROM pgbench_lab.runs;
-- the bounds themselves are taken
SELECT count(*) AS imported FROM pgbench_lab.import(pg_temp.patched((SELECT doc FROM one), '[
    ["{runs,0,tps}", 0], ["{runs,0,duration}", "100 years"], ["{runs,0,latency_limit}", "00:00:00.000001"],
    ["{runs,0,measured_seconds}", 3155760000], ["{runs,0,progress,10,interval_seconds}", 0.001],
    ["{runs,0,latency_max_ms}", 3155760000000], ["{runs,0,progress,0,latency_avg_ms}", 5e-324],
    ["{runs,0,telemetry,0,cpu_idle_pct}", 100], ["{runs,0,started_at}", "1970-01-01T00:00:00+00:00"],
    ["{runs,0,finished_at}", "9999-12-31T23:59:59.999999+00:00"],
    ["{runs,0,latency,0,count}", 4611686018427387904], ["{runs,0,latency,1,count}", 4611686018427387903],
    ["{runs,0,latency,2,count}", 0], ["{runs,0,latency,3,count}", 0]]'));
