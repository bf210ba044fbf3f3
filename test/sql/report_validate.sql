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
