-- ---------------------------------------------------------------------------
-- The standbys' lag during a run (pgbench_lab.run_replication), for
-- report(): per standby, the replay lag per second in the TPS chart's
-- columns and whether it stayed bounded.
-- ---------------------------------------------------------------------------

-- Bounded or growing: growing when, from a third of the way in, the lag
-- never fell to half of what it was then, rose by more than 64 kB, and
-- ended at (nearly) its largest: the standby never caught up.  A standby
-- that keeps up falls back between bursts, whatever the bursts' size.
CREATE FUNCTION pgbench_lab_internal.lag_trend(lags numeric[])
RETURNS text LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN n.last IS NULL OR n.third IS NULL THEN 'unknown'
                WHEN n.last OPERATOR(pg_catalog.>=) (0.9 OPERATOR(pg_catalog.*) n.top)
                     AND n.last OPERATOR(pg_catalog.>) (n.third OPERATOR(pg_catalog.+) 65536)
                     AND n.low OPERATOR(pg_catalog.>=) (0.5 OPERATOR(pg_catalog.*) n.third)
                THEN 'growing' ELSE 'bounded' END
      FROM (SELECT lags[n.len] AS last, lags[n.k] AS third,
                   (SELECT pg_catalog.max(u) FROM pg_catalog.unnest(lags) AS u) AS top,
                   (SELECT pg_catalog.min(u) FROM pg_catalog.unnest(lags[n.k:n.len]) AS u) AS low
              FROM (SELECT pg_catalog.cardinality(lags) AS len,
                           GREATEST(1, pg_catalog.cardinality(lags) OPERATOR(pg_catalog./) 3) AS k) n) n
$$;

CREATE FUNCTION pgbench_lab_internal.replication_lines(run_id bigint)
RETURNS SETOF text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    per pg_catalog.int4;
    s pg_catalog.record;
BEGIN
    IF NOT EXISTS (SELECT FROM pgbench_lab.run_replication x WHERE x.run_id OPERATOR(pg_catalog.=) replication_lines.run_id) THEN
        RETURN;
    END IF;
    SELECT GREATEST(1, pg_catalog.ceil(pg_catalog.count(*) OPERATOR(pg_catalog./) 60.0))::integer INTO per
      FROM pgbench_lab.run_progress p
     WHERE p.run_id OPERATOR(pg_catalog.=) replication_lines.run_id AND p.interval_seconds OPERATOR(pg_catalog.>=) 0.5;
    RETURN QUERY SELECT 'Standbys: how far each was behind this server, replayed WAL per second in the TPS chart''s columns (▁ = none, █ = its largest lag)';
    FOR s IN
        SELECT x.standby, pg_catalog.max(x.client_addr) AS addr,
               pg_catalog.max(x.replay_lag_bytes) AS top_bytes, pg_catalog.max(x.replay_lag_ms) AS top_ms,
               pg_catalog.avg(x.replay_lag_ms) AS avg_ms,
               (pg_catalog.array_agg(x.replay_lag_bytes ORDER BY x.second DESC))[1] AS last_bytes,
               pgbench_lab_internal.lag_trend(pg_catalog.array_agg(x.replay_lag_bytes ORDER BY x.second)) AS trend,
               pg_catalog.count(*) AS secs
          FROM pgbench_lab.run_replication x
         WHERE x.run_id OPERATOR(pg_catalog.=) replication_lines.run_id
         GROUP BY x.standby ORDER BY x.standby
    LOOP
        RETURN QUERY
            SELECT pg_catalog.format('  %s │%s', pg_catalog.left(s.standby, 24),
                                     pgbench_lab_internal.spark(pg_catalog.array_agg(g.v ORDER BY g.k), 0,
                                                                GREATEST(s.top_bytes, 1)::pg_catalog.float8))
              FROM (SELECT (x.second OPERATOR(pg_catalog.-) 1) OPERATOR(pg_catalog./) per AS k,
                           pg_catalog.avg(x.replay_lag_bytes)::pg_catalog.float8 AS v
                      FROM pgbench_lab.run_replication x
                     WHERE x.run_id OPERATOR(pg_catalog.=) replication_lines.run_id
                       AND x.standby OPERATOR(pg_catalog.=) s.standby
                     GROUP BY 1) g;
        RETURN QUERY SELECT pg_catalog.format('    %s: replay lag at most %s (%s ms as the primary timed it; %s ms on average), %s at the end: %s',
                                              coalesce(s.addr, 'local socket'),
                                              pg_catalog.pg_size_pretty(coalesce(s.top_bytes, 0)),
                                              coalesce(pgbench_lab_internal.fmt(s.top_ms, 1), '-'),
                                              coalesce(pgbench_lab_internal.fmt(s.avg_ms, 1), '-'),
                                              pg_catalog.pg_size_pretty(coalesce(s.last_bytes, 0)),
                                              CASE WHEN s.trend OPERATOR(pg_catalog.=) 'growing'
                                                   THEN 'growing (it ended at its largest): the standby did not keep up'
                                                   WHEN s.trend OPERATOR(pg_catalog.=) 'bounded'
                                                   THEN 'bounded'
                                                   ELSE 'unknown (no replay position reported)' END);
    END LOOP;
    RETURN QUERY SELECT '';
END
$$;
