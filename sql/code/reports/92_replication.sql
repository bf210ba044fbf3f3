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
               pg_catalog.bool_and(x.state IS NULL) AS hidden,
               pg_catalog.max(coalesce(x.replay_lag_bytes_max, x.replay_lag_bytes)) AS top_bytes,
               pg_catalog.max(x.replay_lag_ms) AS top_ms,
               pg_catalog.bool_and(x.lag_samples IS NOT NULL) AS fine,
               pgbench_lab_internal.float8_of(pg_catalog.avg(x.replay_lag_ms::numeric)) AS avg_ms,
               (pg_catalog.array_agg(x.replay_lag_bytes ORDER BY x.second DESC))[1] AS last_bytes,
               pgbench_lab_internal.lag_trend(pg_catalog.array_agg(x.replay_lag_bytes ORDER BY x.second)) AS trend,
               pg_catalog.count(*) AS secs
          FROM pgbench_lab.run_replication x
         WHERE x.run_id OPERATOR(pg_catalog.=) replication_lines.run_id
         GROUP BY x.standby ORDER BY x.standby
    LOOP
        IF s.hidden THEN
            -- recorded as pg_stat_replication showed it to the run's role
            RETURN QUERY SELECT pg_catalog.format('  %s', pg_catalog.left(s.standby, 24));
            RETURN QUERY SELECT pg_catalog.format('    %s: lag not recorded: the run''s role %s may not see the WAL senders'' positions in pg_stat_replication (members of pg_read_all_stats do)',
                                                  coalesce(s.addr, 'address not shown'),
                                                  (SELECT r.owner FROM pgbench_lab.runs r WHERE r.run_id OPERATOR(pg_catalog.=) replication_lines.run_id));
            CONTINUE;
        END IF;
        RETURN QUERY
            SELECT pg_catalog.format('  %s │%s', pg_catalog.left(s.standby, 24),
                                     pgbench_lab_internal.spark(pg_catalog.array_agg(g.v ORDER BY g.k), 0,
                                                                GREATEST(s.top_bytes, 1)::pg_catalog.float8))
              FROM (SELECT (x.second OPERATOR(pg_catalog.-) 1) OPERATOR(pg_catalog./) per AS k,
                           pgbench_lab_internal.float8_of(pg_catalog.avg(x.replay_lag_bytes)) AS v
                      FROM pgbench_lab.run_replication x
                     WHERE x.run_id OPERATOR(pg_catalog.=) replication_lines.run_id
                       AND x.standby OPERATOR(pg_catalog.=) s.standby
                     GROUP BY 1) g;
        -- the lag is sampled (every 50 ms; runs before 0.3 once a second):
        -- its largest is the largest seen, never a bound
        RETURN QUERY SELECT pg_catalog.format('    %s: replay lag up to %s as sampled %s (it may have peaked between samples; %s ms as the primary timed it; %s ms on average), %s at the end: %s',
                                              coalesce(s.addr, 'local socket'),
                                              pg_catalog.pg_size_pretty(coalesce(s.top_bytes, 0)),
                                              CASE WHEN s.fine THEN 'every 50 ms' ELSE 'once a second' END,
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

-- A sweep on a primary with standbys: each client count's lag per standby
-- (the trend of lag_trend() over its run), for the sweep's report, and
-- the finding's sentence naming the first count at which some standby's
-- lag grew through the run: from there on the standbys do not keep up with
-- the writes.  Nothing for a sweep whose runs recorded no standby.
CREATE FUNCTION pgbench_lab_internal.sweep_lag_steps(experiment_id bigint)
RETURNS TABLE (clients integer, standby text, trend text, top_bytes numeric, last_bytes numeric)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT s.clients, x.standby,
           pgbench_lab_internal.lag_trend(pg_catalog.array_agg(x.replay_lag_bytes ORDER BY x.second)),
           pg_catalog.max(coalesce(x.replay_lag_bytes_max, x.replay_lag_bytes)),
           (pg_catalog.array_agg(x.replay_lag_bytes ORDER BY x.second DESC))[1]
      FROM pgbench_lab_internal.sweep_steps(experiment_id) s
      JOIN pgbench_lab.run_replication x ON x.run_id OPERATOR(pg_catalog.=) s.run_id
     GROUP BY s.clients, x.standby
     ORDER BY s.clients, x.standby
$$;

CREATE FUNCTION pgbench_lab_internal.sweep_lag(experiment_id bigint,
    OUT growing_clients integer, OUT words text)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    l pg_catalog.record;
BEGIN
    -- the steps read once: the first growing (count, standby, lag at its
    -- end), the largest count before it, and the largest lag of all
    SELECT pg_catalog.count(*) AS n,
           (pg_catalog.array_agg(s.clients ORDER BY s.clients, s.standby) FILTER (WHERE s.trend OPERATOR(pg_catalog.=) 'growing'))[1] AS g_clients,
           (pg_catalog.array_agg(s.standby ORDER BY s.clients, s.standby) FILTER (WHERE s.trend OPERATOR(pg_catalog.=) 'growing'))[1] AS g_standby,
           (pg_catalog.array_agg(s.last_bytes ORDER BY s.clients, s.standby) FILTER (WHERE s.trend OPERATOR(pg_catalog.=) 'growing'))[1] AS g_last,
           pg_catalog.array_agg(s.clients) AS counts,
           (pg_catalog.array_agg(s.clients ORDER BY s.top_bytes DESC NULLS LAST, s.clients))[1] AS t_clients,
           (pg_catalog.array_agg(s.standby ORDER BY s.top_bytes DESC NULLS LAST, s.clients))[1] AS t_standby,
           pg_catalog.max(s.top_bytes) AS t_bytes
      INTO l
      FROM pgbench_lab_internal.sweep_lag_steps(experiment_id) s;
    -- no lag recorded at all (the runs' role may not see it): nothing to say
    IF l.n OPERATOR(pg_catalog.=) 0 OR l.t_bytes IS NULL THEN
        RETURN;
    END IF;
    IF l.g_clients IS NULL THEN
        words := pg_catalog.format('Standby lag: bounded at every count (up to %s behind as sampled, %s at %s): the standbys kept up with the writes.',
                                   pg_catalog.pg_size_pretty(coalesce(l.t_bytes, 0)), l.t_standby,
                                   pgbench_lab_internal.clients_text(l.t_clients));
        RETURN;
    END IF;
    growing_clients := l.g_clients;
    words := pg_catalog.format('Standby lag: %sgrowing through the run from %s on (%s was %s behind at its end): from there the standbys no longer keep up with the writes.',
                               (SELECT pg_catalog.format('bounded up to %s, ', pgbench_lab_internal.clients_text(pg_catalog.max(c)))
                                  FROM pg_catalog.unnest(l.counts) AS c
                                 WHERE c OPERATOR(pg_catalog.<) l.g_clients
                                HAVING pg_catalog.count(*) OPERATOR(pg_catalog.>) 0),
                               pgbench_lab_internal.clients_text(l.g_clients), l.g_standby,
                               pg_catalog.pg_size_pretty(coalesce(l.g_last, 0)));
END
$$;
