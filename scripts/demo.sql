-- What scripts/demo.sh shows on a fresh cluster: each feature as it lands.
\pset pager off
\echo '== CREATE EXTENSION (no restart, no shared_preload_libraries)'
CREATE EXTENSION pgbench_lab CASCADE;
\dx pgbench_lab
SELECT * FROM pgbench_lab.init(scale => 2);
