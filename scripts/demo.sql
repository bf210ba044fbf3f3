-- What scripts/demo.sh shows on a fresh cluster: each feature as it lands.
\pset pager off
\echo '== CREATE EXTENSION (no restart, no shared_preload_libraries)'
CREATE EXTENSION pgbench_lab CASCADE;
\dx pgbench_lab

\echo '== system_info(): the machine as the server sees it'
SELECT * FROM pgbench_lab.system_info();
