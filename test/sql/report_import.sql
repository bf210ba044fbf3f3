-- import(): the whole document is validated before anything is written;
-- local run ids never change; export -> import reads back the same.
\encoding UTF8
SET client_min_messages = warning;
SET timezone = 'UTC';
SELECT pg_catalog.setval('pgbench_lab.runs_run_id_seq', 2000, false) AS next_id;
\set fixture `cat test/fixtures/lab_a.json`
CREATE TEMP TABLE before AS SELECT run_id, tps FROM pgbench_lab.runs;
\set SHOW_CONTEXT never

-- malformed documents: a clear error each, nothing imported
SELECT * FROM pgbench_lab.import(NULL);
SELECT * FROM pgbench_lab.import('[]');
SELECT * FROM pgbench_lab.import(jsonb_set(:'fixture', '{format}', '"other"'));
SELECT * FROM pgbench_lab.import(jsonb_set(:'fixture', '{version}', '2'));
SELECT * FROM pgbench_lab.import(:'fixture'::jsonb - 'server');
SELECT * FROM pgbench_lab.import(jsonb_set(:'fixture', '{runs,1,clients}', '0'));
SELECT * FROM pgbench_lab.import(jsonb_set(:'fixture', '{runs,1,clients}', '2.5'));
SELECT * FROM pgbench_lab.import(:'fixture'::jsonb #- '{runs,0,workload}');
SELECT * FROM pgbench_lab.import(jsonb_set(:'fixture', '{runs,2,progress,3,tps}', '"fast"'));
SELECT * FROM pgbench_lab.import(jsonb_set(:'fixture', '{runs,3,hit_ratio}', '1.5'));
SELECT * FROM pgbench_lab.import(jsonb_set(:'fixture', '{runs,4,started_at}', '"tuesday"'));
SELECT * FROM pgbench_lab.import(jsonb_set(:'fixture', '{runs,5,duration}', '"forever"'));
SELECT * FROM pgbench_lab.import(jsonb_set(:'fixture', '{runs,6,status}', '"running"'));
SELECT * FROM pgbench_lab.import(jsonb_set(:'fixture', '{runs,7,run_id}', '901'));
SELECT * FROM pgbench_lab.import(jsonb_set(:'fixture', '{runs,8,progress,1,second}', '1'));
SELECT * FROM pgbench_lab.import(jsonb_set(:'fixture', '{runs,9,transactions}', '-1'));
SELECT * FROM pgbench_lab.import(jsonb_set(:'fixture', '{runs,9,transactions}', '1e30'));
SELECT * FROM pgbench_lab.import(jsonb_set(:'fixture', '{experiments,0,runs,2,run_id}', '999'));
SELECT * FROM pgbench_lab.import(jsonb_set(:'fixture', '{experiments,1,kind}', '"guess"'));
SELECT * FROM pgbench_lab.import(jsonb_set(:'fixture', '{experiments,1,runs}', '{}'));
SELECT * FROM pgbench_lab.import(jsonb_set(:'fixture', '{experiments,0,params,clients}', '[1, "two"]'));
SELECT * FROM pgbench_lab.import(jsonb_set(:'fixture', '{experiments,0,params,clients}', '[1, 2, 2]'));
SELECT * FROM pgbench_lab.import(jsonb_set(:'fixture', '{experiments,1,params,settings}', '[{}, 3]'));
SELECT * FROM pgbench_lab.import(:'fixture'::jsonb #- '{experiments,1,params,rounds}');
SELECT count(*) AS runs_after_bad_documents FROM pgbench_lab.runs;

-- a good document: new ids from 2000 on, marked with where they came from
SELECT kind, source_id, id FROM pgbench_lab.import(:'fixture');
SELECT count(*) AS local_runs_unchanged
  FROM before b JOIN pgbench_lab.runs r USING (run_id) WHERE r.tps IS NOT DISTINCT FROM b.tps;
SELECT (SELECT count(*) FROM before) AS runs_before;

-- export -> import reads back the same runs (ids and source aside)
CREATE TEMP TABLE doc2 AS SELECT pgbench_lab.export(ARRAY[2011, 2012, 2010]) AS doc;
SELECT jsonb_array_length(doc->'runs') AS runs, jsonb_array_length(doc->'experiments') AS experiments,
       doc->>'format' AS format, doc->'version' AS version
  FROM doc2;
-- (a column the document does not have, as query_mode and options in one
-- from before 0.3, reads back as null; an experiment's verdicts are derived
-- from its runs, and exported beside them)
SELECT (SELECT jsonb_agg(jsonb_strip_nulls(r) - ARRAY['run_id', 'source_server', 'source_run_id'] ORDER BY r->>'started_at')
          FROM jsonb_array_elements(:'fixture'::jsonb->'runs') r)
     = (SELECT jsonb_agg(jsonb_strip_nulls(r) - ARRAY['run_id', 'source_server', 'source_run_id'] ORDER BY r->>'started_at')
          FROM doc2, jsonb_array_elements(doc->'runs') r) AS runs_read_back_the_same;
SELECT (SELECT jsonb_agg(e - ARRAY['experiment_id', 'source_server', 'source_experiment_id', 'runs', 'verdicts']
                         ORDER BY e->>'started_at')
          FROM jsonb_array_elements(:'fixture'::jsonb->'experiments') e)
     = (SELECT jsonb_agg(e - ARRAY['experiment_id', 'source_server', 'source_experiment_id', 'runs', 'verdicts']
                         ORDER BY e->>'started_at')
          FROM doc2, jsonb_array_elements(doc->'experiments') e) AS experiments_read_back_the_same;
-- and their runs, in the same order and places
SELECT (SELECT jsonb_agg(x ORDER BY e->>'experiment_id', (x->>'ordinal')::int)
          FROM jsonb_array_elements(:'fixture'::jsonb->'experiments') e, jsonb_array_elements(e->'runs') x)
     = (SELECT jsonb_agg(x || jsonb_build_object('run_id', r.source_run_id)
                         ORDER BY e->>'source_experiment_id', (x->>'ordinal')::int)
          FROM doc2, jsonb_array_elements(doc->'experiments') e, jsonb_array_elements(e->'runs') x
          JOIN pgbench_lab.runs r ON r.run_id = (x->>'run_id')::bigint) AS experiment_runs_read_back_the_same;
-- a second hop keeps the first server and the first ids
SELECT DISTINCT r->>'source_server' AS source, min((r->>'source_run_id')::int) AS first_id
  FROM doc2, jsonb_array_elements(doc->'runs') r GROUP BY 1;
SELECT kind, source_id, id FROM pgbench_lab.import((SELECT doc FROM doc2)) ORDER BY id;
SELECT DISTINCT source_server, min(source_run_id) FROM pgbench_lab.runs WHERE run_id >= 2013 GROUP BY 1;

-- export errors
SELECT pgbench_lab.export('{}');
SELECT pgbench_lab.export(ARRAY[NULL]::bigint[]);
SELECT pgbench_lab.export(ARRAY[987654]);
