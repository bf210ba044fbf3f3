-- in_progress: the long calls under way in this server's sessions, with
-- their step and the time they have left (progress.c).  A call shows its
-- progress line in place of its query text in pg_stat_activity; the view
-- reads it there with the caller's rights (security_invoker), so a role
-- sees its own sessions' calls, and pg_read_all_stats members everyone's.

CREATE VIEW pgbench_lab.in_progress WITH (security_invoker = true) AS
SELECT a.pid,
       a.usename::pg_catalog.text AS role,
       a.datname::pg_catalog.text AS database,
       pg_catalog.split_part(pg_catalog.substr(a.query, 13), ': ', 1) AS call,
       pg_catalog.substr(a.query, 13 OPERATOR(pg_catalog.+)
                         pg_catalog.strpos(pg_catalog.substr(a.query, 13), ': ') OPERATOR(pg_catalog.+) 1) AS progress,
       a.query_start AS call_started,
       a.state_change AS line_since
  FROM pg_catalog.pg_stat_activity a
 WHERE a.backend_type OPERATOR(pg_catalog.=) 'client backend'
   AND a.state OPERATOR(pg_catalog.=) 'active'
   AND a.query OPERATOR(pg_catalog.~) '^pgbench_lab [a-z_]+\(\): step [0-9]+ of [0-9]+';
COMMENT ON VIEW pgbench_lab.in_progress IS
    'Long calls under way (init(), io_test(), fsync_test(), the experiments): their step, what it measured and the time left';
GRANT SELECT ON pgbench_lab.in_progress TO PUBLIC;
