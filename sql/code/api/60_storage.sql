
-- ---------------------------------------------------------------------------
-- storage: the data directory's device measured from SQL (fsync_test,
-- io_test), the latest figures in the view storage_latest.
-- ---------------------------------------------------------------------------

CREATE FUNCTION pgbench_lab.fsync_test(seconds numeric DEFAULT 2)
RETURNS TABLE (method text, direct boolean, writes_per_sync integer,
               write_size integer, ops_per_second numeric,
               usec_per_op numeric, supported boolean, is_current boolean,
               fastest_safe boolean, slowest_round numeric,
               median_round numeric, fastest_round numeric)
LANGUAGE C VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS 'MODULE_PATHNAME', 'pgbench_lab_fsync_test';
COMMENT ON FUNCTION pgbench_lab.fsync_test(numeric) IS
    'pgbench_lab: pg_test_fsync''s comparison of WAL sync methods on the data directory''s device, in 5 interleaved rounds';
REVOKE EXECUTE ON FUNCTION pgbench_lab.fsync_test(numeric) FROM PUBLIC;

CREATE FUNCTION pgbench_lab.io_test(size text DEFAULT '1GB',
                                    seconds numeric DEFAULT 10)
RETURNS TABLE (file_size bigint, write_mb_per_second numeric,
               read_mb_per_second numeric, random_read_iops numeric,
               random_read_usec numeric, read_cache_bypass text,
               elapsed_seconds numeric, iops_by_depth jsonb,
               knee_depth integer)
LANGUAGE C VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS 'MODULE_PATHNAME', 'pgbench_lab_io_test';
COMMENT ON FUNCTION pgbench_lab.io_test(text, numeric) IS
    'pgbench_lab: sequential write and read MB/s, and random 8 kB read IOPS at queue depths 1, 4, 16 and 64 with the knee, of the data directory''s device';
REVOKE EXECUTE ON FUNCTION pgbench_lab.io_test(text, numeric) FROM PUBLIC;

-- From random 8 kB reads per second at queue depth one (what io_test
-- measures) to a storage class and its planner settings.  The bands are
-- read latencies: over 2 ms a disk head moves (hdd); 0.25 to 2 ms is a
-- network or array hop (san); 0.1 to 0.25 ms flash behind SATA or SAS
-- (ssd); under 0.1 ms NVMe.  The settings per class are those of the common
-- tuning tools (random_page_cost 4 only for hdd; effective_io_concurrency
-- 2 / 300 / 200 / 1000).
CREATE FUNCTION pgbench_lab.storage_class(random_read_iops numeric)
RETURNS TABLE (storage_class text, random_page_cost numeric,
               effective_io_concurrency integer, reason text)
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
SELECT c.cls, c.rpc, c.eic,
       pg_catalog.format('%s random 8 kB reads/s (%s us each) at queue depth 1: %s',
                         pg_catalog.round(random_read_iops), pg_catalog.round(CASE WHEN random_read_iops OPERATOR(pg_catalog.<>) 0 THEN 1000000 OPERATOR(pg_catalog./) random_read_iops END), c.why)
  FROM (VALUES
        ('hdd', 4.0, 2, 'over 2 ms per read, a rotating disk',
         0::numeric, 500::numeric),
        ('san', 1.1, 300, '0.25 to 2 ms per read, network or array storage',
         500, 4000),
        ('ssd', 1.1, 200, '0.1 to 0.25 ms per read, a SATA or SAS SSD',
         4000, 10000),
        ('nvme', 1.1, 1000, 'under 0.1 ms per read, NVMe flash',
         10000, NULL)) AS c(cls, rpc, eic, why, lo, hi)
 WHERE random_read_iops OPERATOR(pg_catalog.>) 0
   AND random_read_iops OPERATOR(pg_catalog.>=) c.lo
   AND (c.hi IS NULL OR random_read_iops OPERATOR(pg_catalog.<) c.hi)
$$;
COMMENT ON FUNCTION pgbench_lab.storage_class(numeric) IS
    'pgbench_lab: storage class, random_page_cost and effective_io_concurrency for a measured random read rate';

-- What the latest io_test() says of effective_io_concurrency: the knee
-- depth it measured, with the rates that make it one (NULL for a result
-- from before depths were measured).
CREATE FUNCTION pgbench_lab_internal.io_knee_reason(results jsonb)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
SELECT pg_catalog.format(
         'effective_io_concurrency %s measured: %s random reads/s with %s in flight, %s%s',
         knee.depth, pg_catalog.round(knee.iops), knee.depth,
         CASE WHEN knee.depth OPERATOR(pg_catalog.=) best.depth
              THEN 'the best of the depths measured'
              ELSE pg_catalog.format('the fewest in flight within 10%% of the best (%s with %s)',
                                     pg_catalog.round(best.iops), best.depth) END,
         CASE WHEN knee.depth OPERATOR(pg_catalog.=) 1
              THEN '; reads in flight do not pay on this device'
              WHEN knee.depth OPERATOR(pg_catalog.=) deepest.depth
              THEN pg_catalog.format('; still growing at %s, the deepest io_test() measures', knee.depth)
              ELSE '' END)
  FROM (SELECT CASE WHEN pg_catalog.jsonb_typeof(results OPERATOR(pg_catalog.->) 'iops_by_depth')
                           OPERATOR(pg_catalog.=) 'array'
                      THEN results OPERATOR(pg_catalog.->) 'iops_by_depth' END AS depths,
               (results OPERATOR(pg_catalog.->>) 'knee_depth')::pg_catalog.int4 AS knee) AS r,
       LATERAL (SELECT (e OPERATOR(pg_catalog.->>) 'depth')::pg_catalog.int4 AS depth,
                       (e OPERATOR(pg_catalog.->>) 'iops')::pg_catalog.numeric AS iops
                  FROM pg_catalog.jsonb_array_elements(r.depths) AS e) AS knee,
       LATERAL (SELECT (e OPERATOR(pg_catalog.->>) 'depth')::pg_catalog.int4 AS depth,
                       (e OPERATOR(pg_catalog.->>) 'iops')::pg_catalog.numeric AS iops
                  FROM pg_catalog.jsonb_array_elements(r.depths) AS e
                 ORDER BY 2 DESC, 1 LIMIT 1) AS best,
       LATERAL (SELECT pg_catalog.max((e OPERATOR(pg_catalog.->>) 'depth')::pg_catalog.int4) AS depth
                  FROM pg_catalog.jsonb_array_elements(r.depths) AS e) AS deepest
 WHERE knee.depth OPERATOR(pg_catalog.=) r.knee
$$;

-- Which wal_sync_method an fsync_test() result supports, judged on the
-- medians of its rounds against their spread.  The candidates are the rows
-- written as the server would write WAL; each has a rate per round.  A
-- method's spread is the ratio of its middle rounds (all but its slowest
-- and its fastest: one odd round of a method does not count), and its
-- rounds are disturbed when that ratio exceeds 3: two or more rounds
-- disagree with the rest, and its median says little.  The reference is
-- the live method (else the server's default, fallback).  Another
-- candidate replaces it when its median is faster by more than both
-- spreads together (their product, and at least 10%), its slowest round
-- still beats the reference's median, and neither is disturbed; of several
-- such the best median wins.  A disturbed reference stays and the reason
-- says to measure again; every disturbed candidate is named (fsync_test()
-- warns of them by the same rule, PGBL_FSYNC_DISTURBED).  Five rounds
-- each are needed to change anything (what fsync_test() measures; a result
-- recorded before rounds were kept has none).  Pure: the tests give it
-- timings.
CREATE FUNCTION pgbench_lab_internal.wal_sync_decision(results jsonb, live text, fallback text)
RETURNS TABLE (method text, reference text, changes boolean, rule text, reason text)
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
WITH c AS (
    SELECT e OPERATOR(pg_catalog.->>) 'method' AS method,
           ARRAY(SELECT x::pg_catalog.numeric
                   FROM pg_catalog.jsonb_array_elements_text(e OPERATOR(pg_catalog.->) 'repeats') AS x
                  ORDER BY 1) AS r
      FROM pg_catalog.jsonb_array_elements(results OPERATOR(pg_catalog.->) 'methods') AS e
     WHERE (e OPERATOR(pg_catalog.->>) 'candidate')::pg_catalog.bool
       AND (e OPERATOR(pg_catalog.->>) 'supported')::pg_catalog.bool
       AND pg_catalog.jsonb_typeof(e OPERATOR(pg_catalog.->) 'repeats') OPERATOR(pg_catalog.=) 'array'
), m AS (
    SELECT c.method, c.r, pg_catalog.cardinality(c.r) AS n,
           -- the middle rounds: all but the slowest and the fastest
           CASE WHEN pg_catalog.cardinality(c.r) OPERATOR(pg_catalog.>=) 3
                THEN c.r[2] ELSE c.r[1] END AS mid_lo,
           CASE WHEN pg_catalog.cardinality(c.r) OPERATOR(pg_catalog.>=) 3
                THEN c.r[pg_catalog.cardinality(c.r) OPERATOR(pg_catalog.-) 1]
                ELSE c.r[pg_catalog.cardinality(c.r)] END AS mid_hi
      FROM c
     WHERE pg_catalog.cardinality(c.r) OPERATOR(pg_catalog.>) 0
       AND c.r[1] OPERATOR(pg_catalog.>) 0
), s AS (
    SELECT m.method, m.n, m.r[1] AS lo, m.r[m.n] AS hi, m.mid_lo, m.mid_hi,
           (SELECT pg_catalog.percentile_cont(0.5) WITHIN GROUP (ORDER BY x)
              FROM pg_catalog.unnest(m.r) AS x)::pg_catalog.numeric AS med,
           m.mid_hi OPERATOR(pg_catalog./) m.mid_lo AS spread,
           m.n OPERATOR(pg_catalog.>=) 3
               AND m.mid_hi OPERATOR(pg_catalog.>) (3 OPERATOR(pg_catalog.*) m.mid_lo) AS disturbed
      FROM m
), shown AS (
    SELECT pg_catalog.string_agg(pg_catalog.format('%s %s (%s-%s%s)', s.method,
                                                   pg_catalog.round(s.med), pg_catalog.round(s.lo),
                                                   pg_catalog.round(s.hi),
                                                   CASE WHEN s.disturbed THEN ', disturbed' ELSE '' END),
                                 ', ' ORDER BY s.med DESC, s.method) AS list,
           pg_catalog.string_agg(pg_catalog.format('%s (middle rounds %s-%s flushes/s)', s.method,
                                                   pg_catalog.round(s.mid_lo), pg_catalog.round(s.mid_hi)),
                                 ', ' ORDER BY s.method) FILTER (WHERE s.disturbed) AS disturbed,
           pg_catalog.max(s.n) AS rounds
      FROM s
), ref AS (
    SELECT s.* FROM s
     WHERE s.method OPERATOR(pg_catalog.=) live OR s.method OPERATOR(pg_catalog.=) fallback
     ORDER BY s.method OPERATOR(pg_catalog.=) live DESC LIMIT 1
), win AS (
    SELECT s.*, s.med OPERATOR(pg_catalog./) ref.med AS gain,
           s.spread OPERATOR(pg_catalog.*) ref.spread AS noise
      FROM s, ref
     WHERE s.method OPERATOR(pg_catalog.<>) ref.method
       AND s.n OPERATOR(pg_catalog.>=) 5 AND ref.n OPERATOR(pg_catalog.>=) 5
       AND NOT s.disturbed AND NOT ref.disturbed
       AND s.med OPERATOR(pg_catalog.>) (ref.med OPERATOR(pg_catalog.*) 1.1)
       AND s.med OPERATOR(pg_catalog.>) (ref.med OPERATOR(pg_catalog.*) s.spread OPERATOR(pg_catalog.*) ref.spread)
       AND s.lo OPERATOR(pg_catalog.>) ref.med
     ORDER BY s.med DESC, s.lo DESC, s.method LIMIT 1
), best AS (
    SELECT s.* FROM s ORDER BY s.disturbed, s.med DESC, s.method LIMIT 1
), said AS (
    SELECT CASE WHEN ref.method OPERATOR(pg_catalog.=) live THEN 'live method' ELSE 'default' END AS what,
           CASE WHEN shown.disturbed IS NULL THEN ''
                ELSE pg_catalog.format(' The rounds of %s were disturbed (more than 3 times apart: something else used the device during the test), so their medians say little; run fsync_test() again, on a quieter machine or with more seconds, before reading anything into them.',
                                       shown.disturbed) END AS warning
      FROM shown LEFT JOIN ref ON true
)
SELECT CASE WHEN win.method IS NOT NULL THEN win.method
            WHEN ref.method IS NOT NULL THEN ref.method
            ELSE best.method END,
       COALESCE(ref.method, live),
       COALESCE(win.method, ref.method, best.method) OPERATOR(pg_catalog.<>) live,
       CASE WHEN win.method IS NOT NULL
            THEN pg_catalog.format('%s: its median, %s ops/s, is %s times %s''s %s, beyond their spread (%s) and with no round below it',
                                   win.method, pg_catalog.round(win.med), pg_catalog.round(win.gain, 2),
                                   ref.method, pg_catalog.round(ref.med), pg_catalog.round(win.noise, 2))
            WHEN ref.method IS NULL
            THEN pg_catalog.format('%s: the best median; %s was not measured', best.method, live)
            WHEN ref.n OPERATOR(pg_catalog.<) 5
            THEN pg_catalog.format('%s kept: measured in %s round(s), 5 needed to change it', ref.method, ref.n)
            WHEN ref.disturbed
            THEN pg_catalog.format('%s kept: its rounds were disturbed, middle rounds %s-%s ops/s; measure again',
                                   ref.method, pg_catalog.round(ref.mid_lo), pg_catalog.round(ref.mid_hi))
            ELSE pg_catalog.format('%s kept: no other method''s median beats its %s ops/s beyond their spread',
                                   ref.method, pg_catalog.round(ref.med)) END,
       CASE WHEN win.method IS NOT NULL
            THEN pg_catalog.format('Every commit waits for this flush, and %s''s median round was %s times that of %s%s, more than the spread of their middle rounds (%s) allows for noise, and none of its %s rounds fell below that median (flushes/s, median (slowest-fastest round): %s). Methods that only reach a volatile cache are not offered.%s',
                                   win.method, pg_catalog.round(win.gain, 2), ref.method,
                                   CASE WHEN ref.method OPERATOR(pg_catalog.=) live THEN ', the live method' ELSE ', the default' END,
                                   pg_catalog.round(win.noise, 2), win.n, shown.list, said.warning)
            WHEN ref.method IS NULL
            THEN pg_catalog.format('Neither the live %s nor the default %s could be measured here; %s flushed fastest (flushes/s, median (slowest-fastest round): %s).%s',
                                   live, fallback, best.method, shown.list, said.warning)
            WHEN ref.n OPERATOR(pg_catalog.<) 5
            THEN pg_catalog.format('The %s stays: this fsync_test() result has no rounds to tell a lead from noise; run fsync_test() again (it measures every method in %s rounds).',
                                   said.what, 5)
            WHEN ref.disturbed
            THEN pg_catalog.format('The %s stays for now, but this measurement cannot judge it: its middle rounds ran from %s to %s flushes/s, more than 3 times apart, so something else used the device during the test and its median says little (flushes/s, median (slowest-fastest round): %s). Run fsync_test() again, on a quieter machine or with more seconds, before changing anything.',
                                   said.what, pg_catalog.round(ref.mid_lo), pg_catalog.round(ref.mid_hi), shown.list)
            ELSE pg_catalog.format('The %s stays: no other method''s median is faster than its own by more than the spread of their middle rounds (flushes/s, median (slowest-fastest round): %s). A method replaces it only when its median is at least 10%% faster and more than the two methods'' spreads (second-fastest over second-slowest round) multiplied, and none of its rounds falls below the %s''s median.%s',
                                   said.what, shown.list, said.what, said.warning) END
  FROM shown
  CROSS JOIN said
  LEFT JOIN ref ON true
  LEFT JOIN win ON true
  LEFT JOIN best ON true
 WHERE best.method IS NOT NULL
$$;

-- The latest figures of each kind, one row (NULLs when nothing was
-- measured), for people and for the recommender.  effective_io_concurrency
-- is the knee depth io_test() measured; a result without depths (recorded
-- by 0.1) falls back to the storage class's value, and the reason says
-- which.
CREATE VIEW pgbench_lab.storage_latest AS
SELECT f.id AS fsync_test_id,
       f.finished_at AS fsync_measured_at,
       f.results OPERATOR(pg_catalog.->>) 'wal_sync_method' AS wal_sync_method,
       cur.ops AS current_ops_per_second,
       best.method AS fastest_safe_method,
       best.ops AS fastest_safe_ops_per_second,
       fds.ops AS fdatasync_ops_per_second,
       sync.method AS wal_sync_recommended,
       sync.rule AS wal_sync_rule,
       sync.reason AS wal_sync_reason,
       i.id AS io_test_id,
       i.finished_at AS io_measured_at,
       i.size_bytes AS io_file_size,
       (i.results OPERATOR(pg_catalog.->>) 'write_mb_per_second')::pg_catalog.numeric AS write_mb_per_second,
       (i.results OPERATOR(pg_catalog.->>) 'read_mb_per_second')::pg_catalog.numeric AS read_mb_per_second,
       (i.results OPERATOR(pg_catalog.->>) 'random_read_iops')::pg_catalog.numeric AS random_read_iops,
       i.results OPERATOR(pg_catalog.->>) 'read_cache_bypass' AS read_cache_bypass,
       sc.storage_class,
       sc.random_page_cost,
       COALESCE(knee.depth, sc.effective_io_concurrency) AS effective_io_concurrency,
       CASE WHEN knee.depth IS NOT NULL
            THEN sc.reason OPERATOR(pg_catalog.||) '; ' OPERATOR(pg_catalog.||) knee.reason
            WHEN sc.reason IS NOT NULL
            THEN sc.reason OPERATOR(pg_catalog.||) pg_catalog.format(
                   '; effective_io_concurrency %s from the storage class: this io_test() result has no queue depths, a new io_test() would measure them',
                   sc.effective_io_concurrency) END AS storage_class_reason,
       i.results OPERATOR(pg_catalog.->) 'iops_by_depth' AS iops_by_depth,
       knee.depth AS knee_depth,
       knee.reason AS knee_reason
  FROM (VALUES (1)) AS one(x)
  LEFT JOIN LATERAL (
        SELECT t.* FROM pgbench_lab.storage_tests AS t
         WHERE t.kind OPERATOR(pg_catalog.=) 'fsync'
         ORDER BY t.id DESC LIMIT 1) AS f ON true
  LEFT JOIN LATERAL (
        SELECT t.* FROM pgbench_lab.storage_tests AS t
         WHERE t.kind OPERATOR(pg_catalog.=) 'io'
         ORDER BY t.id DESC LIMIT 1) AS i ON true
  LEFT JOIN LATERAL (
        SELECT (e OPERATOR(pg_catalog.->>) 'ops_per_second')::pg_catalog.numeric AS ops
          FROM pg_catalog.jsonb_array_elements(f.results OPERATOR(pg_catalog.->) 'methods') AS e
         WHERE (e OPERATOR(pg_catalog.->>) 'is_current')::pg_catalog.bool LIMIT 1) AS cur ON true
  LEFT JOIN LATERAL (
        SELECT e OPERATOR(pg_catalog.->>) 'method' AS method,
               (e OPERATOR(pg_catalog.->>) 'ops_per_second')::pg_catalog.numeric AS ops
          FROM pg_catalog.jsonb_array_elements(f.results OPERATOR(pg_catalog.->) 'methods') AS e
         WHERE (e OPERATOR(pg_catalog.->>) 'fastest_safe')::pg_catalog.bool LIMIT 1) AS best ON true
  LEFT JOIN LATERAL (
        SELECT (e OPERATOR(pg_catalog.->>) 'ops_per_second')::pg_catalog.numeric AS ops
          FROM pg_catalog.jsonb_array_elements(f.results OPERATOR(pg_catalog.->) 'methods') AS e
         WHERE e OPERATOR(pg_catalog.@>) '{"method": "fdatasync", "direct": false, "writes_per_sync": 1, "write_size": 8192}'::pg_catalog.jsonb
         LIMIT 1) AS fds ON true
  LEFT JOIN LATERAL pgbench_lab_internal.wal_sync_decision(
        f.results, pg_catalog.current_setting('wal_sync_method'),
        (SELECT s.boot_val FROM pg_catalog.pg_settings AS s
          WHERE s.name OPERATOR(pg_catalog.=) 'wal_sync_method')) AS sync ON true
  LEFT JOIN LATERAL pgbench_lab.storage_class(
        (i.results OPERATOR(pg_catalog.->>) 'random_read_iops')::pg_catalog.numeric) AS sc ON true
  LEFT JOIN LATERAL (
        SELECT (i.results OPERATOR(pg_catalog.->>) 'knee_depth')::pg_catalog.int4 AS depth,
               pgbench_lab_internal.io_knee_reason(i.results) AS reason
         WHERE sc.storage_class IS NOT NULL
           AND pg_catalog.jsonb_typeof(i.results OPERATOR(pg_catalog.->) 'knee_depth') OPERATOR(pg_catalog.=) 'number') AS knee ON true;
COMMENT ON VIEW pgbench_lab.storage_latest IS
    'pgbench_lab: latest fsync_test() and io_test() figures, the storage class they suggest and the measured effective_io_concurrency';
REVOKE ALL ON pgbench_lab.storage_latest FROM PUBLIC;
GRANT SELECT ON pgbench_lab.storage_latest TO pg_monitor;
