-- What scripts/demo.sh shows on a fresh cluster: each feature as it lands.
\pset pager off
\echo '== CREATE EXTENSION (no restart, no shared_preload_libraries)'
CREATE EXTENSION pgbench_lab CASCADE;
\dx pgbench_lab

\echo '== system_info(): the machine as the server sees it'
SELECT * FROM pgbench_lab.system_info();

\echo '== sweep(), report(), plot(): two 1 s runs, the peak and the knee'
SELECT to_regclass('public.pgbench_accounts') IS NULL
   AND to_regproc('pgbench_lab.init') IS NOT NULL AS reports_need_init \gset
\if :reports_need_init
SELECT * FROM pgbench_lab.init(scale => 1);
\endif
SELECT to_regclass('public.pgbench_accounts') IS NOT NULL AS reports_have_tables \gset
\if :reports_have_tables
CALL pgbench_lab.sweep('select-only', clients => '{1,2}', duration => '1 s', label => 'demo sweep');
\set QUIET 1
\pset format unaligned
\pset tuples_only on
SELECT * FROM pgbench_lab.report((SELECT max(experiment_id) FROM pgbench_lab.experiments));
SELECT length(pgbench_lab.plot(ARRAY[(SELECT max(experiment_id) FROM pgbench_lab.experiments)]))
       || ' characters of SVG from pgbench_lab.plot()';
\pset format aligned
\pset tuples_only off
\set QUIET 0
\else
\echo '(skipped: no pgbench tables; run pgbench -i or pgbench_lab.init() first)'
\endif
