-- ---------------------------------------------------------------------------
-- Reports: text for psql, one line per row, charts in Unicode blocks.
-- ---------------------------------------------------------------------------

-- A paragraph cut into lines of at most width characters at spaces; the
-- first line starts with lead, the others with as many spaces.
CREATE FUNCTION pgbench_lab_internal.wrap(paragraph text, lead text, width integer DEFAULT 100)
RETURNS SETOF text LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    word pg_catalog.text;
    line pg_catalog.text := lead;
    fresh pg_catalog.bool := true;
BEGIN
    FOREACH word IN ARRAY pg_catalog.regexp_split_to_array(paragraph, ' +') LOOP
        IF NOT fresh AND pg_catalog.length(line) OPERATOR(pg_catalog.+) 1 OPERATOR(pg_catalog.+) pg_catalog.length(word) OPERATOR(pg_catalog.>) width THEN
            RETURN NEXT line;
            line := pg_catalog.repeat(' ', pg_catalog.length(lead));
            fresh := true;
        END IF;
        line := line OPERATOR(pg_catalog.||) CASE WHEN fresh THEN '' ELSE ' ' END OPERATOR(pg_catalog.||) word;
        fresh := false;
    END LOOP;
    RETURN NEXT line;
END
$$;

-- Vertical bars, top row first: each column a value, eighth-block precision.
-- (The scaling here and below is in numeric: figures of any size, a TPS of
-- 5e-324 beside one of 1e5, neither overflow nor underflow.)
CREATE FUNCTION pgbench_lab_internal.chart_rows(vals double precision[], top double precision, height integer)
RETURNS SETOF text LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    blocks CONSTANT pg_catalog.text := ' ▁▂▃▄▅▆▇█';
    k pg_catalog.int4;
    v pg_catalog.float8;
    line pg_catalog.text;
BEGIN
    FOR k IN REVERSE height..1 LOOP
        line := '';
        FOREACH v IN ARRAY vals LOOP
            line := line OPERATOR(pg_catalog.||) CASE
                 WHEN v IS NULL OR top IS NULL OR top OPERATOR(pg_catalog.<=) 0 THEN ' '
                 ELSE pg_catalog.substr(blocks
                           , 1 OPERATOR(pg_catalog.+) LEAST(8
                                     , GREATEST(0
                                              , CAST(GREATEST(0
                                                            , LEAST(height OPERATOR(pg_catalog.*) 8
                                                                  , pg_catalog.round((CAST(v AS numeric) OPERATOR(pg_catalog./) CAST(top AS numeric)) OPERATOR(pg_catalog.*) height OPERATOR(pg_catalog.*) 8))) AS integer) OPERATOR(pg_catalog.-) ((k OPERATOR(pg_catalog.-) 1) OPERATOR(pg_catalog.*) 8)))
                           , 1)
               END;
        END LOOP;
        RETURN NEXT line;
    END LOOP;
END
$$;

-- One character per value between lo and hi (a sparkline); NULL is blank.
CREATE FUNCTION pgbench_lab_internal.spark(vals double precision[], lo double precision, hi double precision)
RETURNS text LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pg_catalog.string_agg(CASE WHEN v IS NULL THEN ' '
                           ELSE pg_catalog.substr('▁▂▃▄▅▆▇█', 1 OPERATOR(pg_catalog.+) least(7, greatest(0,
                                pg_catalog.round((v::numeric OPERATOR(pg_catalog.-) lo::numeric) OPERATOR(pg_catalog./) CASE WHEN hi::numeric OPERATOR(pg_catalog.<>) lo::numeric THEN hi::numeric OPERATOR(pg_catalog.-) lo::numeric END OPERATOR(pg_catalog.*) 7)))::integer, 1) END,
                      '' ORDER BY i)
      FROM pg_catalog.unnest(vals) WITH ORDINALITY AS u(v, i)
$$;

-- A horizontal bar of v against top, width characters at most.
CREATE FUNCTION pgbench_lab_internal.hbar(v double precision, top double precision, width integer)
RETURNS text LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN v IS NULL OR top IS NULL OR top OPERATOR(pg_catalog.<=) 0
                     OR v OPERATOR(pg_catalog.<=) 0 THEN ''
                ELSE pg_catalog.repeat('█', e OPERATOR(pg_catalog./) 8)
                     OPERATOR(pg_catalog.||)
                     pg_catalog.rtrim(pg_catalog.substr(' ▏▎▍▌▋▊▉', 1 OPERATOR(pg_catalog.+) (e OPERATOR(pg_catalog.%) 8), 1))
           END
      FROM (SELECT least(width OPERATOR(pg_catalog.*) 8,
                         pg_catalog.round(((v::numeric OPERATOR(pg_catalog./) top::numeric)
                                           OPERATOR(pg_catalog.*) width) OPERATOR(pg_catalog.*) 8))::integer AS e) s
$$;

-- Per-second TPS chart and hit-ratio line of a run.  Seconds are averaged
-- in groups when a run has more than 60; a last partial second (the clients
-- finishing) is left out.
CREATE FUNCTION pgbench_lab_internal.run_charts(run_id bigint)
RETURNS SETOF text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    per pg_catalog.int4;
    last pg_catalog.int4;
    tps pg_catalog.float8[];
    hits pg_catalog.float8[];
    lags pg_catalog.float8[];
    top pg_catalog.float8;
    bars pg_catalog.text[];
    axis CONSTANT pg_catalog.text := pg_catalog.repeat(' ', 9);
BEGIN
    SELECT pg_catalog.ceil(pg_catalog.count(*) OPERATOR(pg_catalog./) 60.0)::integer, pg_catalog.max(p.second) INTO per, last
      FROM pgbench_lab.run_progress p
     WHERE p.run_id OPERATOR(pg_catalog.=) run_charts.run_id AND p.interval_seconds OPERATOR(pg_catalog.>=) 0.5;
    IF per OPERATOR(pg_catalog.=) 0 THEN
        RETURN QUERY SELECT 'No per-second progress was recorded.';
        RETURN;
    END IF;
    SELECT pg_catalog.array_agg(q.t ORDER BY q.g), pg_catalog.array_agg(q.h ORDER BY q.g),
           pg_catalog.array_agg(q.l ORDER BY q.g) INTO tps, hits, lags
      -- averaged in numeric: double precision's avg() squares its values
      -- (for the variance), past its range for a figure above 1e154
      FROM (SELECT (p.second OPERATOR(pg_catalog.-) 1) OPERATOR(pg_catalog./) per AS g,
                   pgbench_lab_internal.float8_of(pg_catalog.avg(p.tps::numeric)) AS t, pg_catalog.avg(p.hit_ratio) AS h,
                   pgbench_lab_internal.float8_of(pg_catalog.avg(p.lag_avg_ms::numeric)) AS l
              FROM pgbench_lab.run_progress p
             WHERE p.run_id OPERATOR(pg_catalog.=) run_charts.run_id AND p.interval_seconds OPERATOR(pg_catalog.>=) 0.5
             GROUP BY 1) q;
    SELECT pg_catalog.max(t) INTO top FROM pg_catalog.unnest(tps) t;
    RETURN QUERY SELECT pg_catalog.format('TPS per second (%s; top = %s tps)',
                       CASE WHEN per OPERATOR(pg_catalog.=) 1 THEN 'one column per second'
                                ELSE pg_catalog.format('one column per %s seconds, averaged', per) END,
                       pgbench_lab_internal.fmt(top));
    bars := ARRAY(SELECT pgbench_lab_internal.chart_rows(tps, top, 5));
    FOR k IN 1..5 LOOP
        RETURN QUERY SELECT pg_catalog.format('%s │%s', pg_catalog.lpad(CASE WHEN k OPERATOR(pg_catalog.=) 1 THEN pgbench_lab_internal.fmt(top, 0) WHEN k OPERATOR(pg_catalog.=) 5 THEN '0' ELSE '' END, 8),
                           bars[k]);
    END LOOP;
    RETURN QUERY SELECT axis OPERATOR(pg_catalog.||) '└' OPERATOR(pg_catalog.||) pg_catalog.repeat('─', pg_catalog.cardinality(tps));
    RETURN QUERY SELECT axis OPERATOR(pg_catalog.||) ' ' OPERATOR(pg_catalog.||) CASE WHEN pg_catalog.cardinality(tps) OPERATOR(pg_catalog.>) 8
        THEN pg_catalog.rpad('1 s', pg_catalog.cardinality(tps) OPERATOR(pg_catalog.-) pg_catalog.length(last OPERATOR(pg_catalog.||) ' s')) OPERATOR(pg_catalog.||) last OPERATOR(pg_catalog.||) ' s' ELSE '1 s' END;
    RETURN QUERY SELECT 'Buffer hit ratio per second (▁ = 0 %, █ = 100 %)';
    RETURN QUERY SELECT pg_catalog.format('%s │%s', pg_catalog.lpad('hit', 8), pgbench_lab_internal.spark(hits, 0, 1));
    -- a rate-limited run: how far behind its schedule the clients were
    SELECT pg_catalog.max(l) INTO top FROM pg_catalog.unnest(lags) l;
    IF top IS NOT NULL THEN
        RETURN QUERY SELECT pg_catalog.format('Schedule lag per second, average (▁ = 0 ms, █ = %s ms)', pgbench_lab_internal.fmt(top, 3));
        RETURN QUERY SELECT pg_catalog.format('%s │%s', pg_catalog.lpad('lag', 8), pgbench_lab_internal.spark(lags, 0, top));
    END IF;
END
$$;

-- A rate as it was asked: 200, 0.05, 1e7 as 10000000 (three decimals at
-- most; beyond what numeric text reads well, as fmt() writes it).
CREATE FUNCTION pgbench_lab_internal.rate_text(rate double precision)
RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN rate IS NULL THEN '-'
                WHEN pg_catalog.abs(rate) OPERATOR(pg_catalog.>=) 1e15 OR pg_catalog.abs(rate) OPERATOR(pg_catalog.<) 0.001
                THEN pgbench_lab_internal.fmt(rate)
                ELSE pg_catalog.trim_scale(pg_catalog.round(rate::numeric, 3))::pg_catalog.text END
$$;

-- An interval as milliseconds, for latency limits: '50 ms', '0.5 ms'.
CREATE FUNCTION pgbench_lab_internal.ms_text(d interval)
RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT pg_catalog.trim_scale(extract(epoch FROM d) OPERATOR(pg_catalog.*) 1000)::pg_catalog.text OPERATOR(pg_catalog.||) ' ms' $$;

-- What a rate or a latency limit says of a run (runs.rate_sustained holds
-- the rule's verdict, src/results.c: the clients ran at least 98 % of the
-- transactions their schedule set), in plain words for run_notes().
CREATE FUNCTION pgbench_lab_internal.rate_notes(r pgbench_lab.runs)
RETURNS SETOF text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    first_lag pg_catalog.float8;
    last_lag pg_catalog.float8;
    ran pg_catalog.numeric := coalesce(r.transactions, 0)::numeric OPERATOR(pg_catalog.+) coalesce(r.failures, 0);
BEGIN
    IF r.rate IS NOT NULL THEN
        RETURN QUERY SELECT CASE WHEN r.clients OPERATOR(pg_catalog.=) 1
                                 THEN pg_catalog.format('Rate-limited run: the client started its transactions on a Poisson schedule at %s tps, as pgbench -R does; latencies count from each transaction''s scheduled start, so they include the schedule lag (the time a transaction waited for its client).',
                                                        pgbench_lab_internal.rate_text(r.rate))
                                 ELSE pg_catalog.format('Rate-limited run: each of the %s started its transactions on a Poisson schedule of its own at %s tps (%s tps shared by them, as pgbench -R shares its rate among its threads); latencies count from each transaction''s scheduled start, so they include the schedule lag (the time a transaction waited for its client).',
                                                        pgbench_lab_internal.clients_text(r.clients), pgbench_lab_internal.rate_text(pgbench_lab_internal.ratio(r.rate, r.clients)),
                                                        pgbench_lab_internal.rate_text(r.rate)) END;
    END IF;
    IF r.rate_sustained IS FALSE THEN
        SELECT p.lag_avg_ms INTO first_lag FROM pgbench_lab.run_progress p
         WHERE p.run_id OPERATOR(pg_catalog.=) r.run_id AND p.interval_seconds OPERATOR(pg_catalog.>=) 0.5 AND p.lag_avg_ms IS NOT NULL
         ORDER BY p.second LIMIT 1;
        SELECT p.lag_avg_ms INTO last_lag FROM pgbench_lab.run_progress p
         WHERE p.run_id OPERATOR(pg_catalog.=) r.run_id AND p.interval_seconds OPERATOR(pg_catalog.>=) 0.5 AND p.lag_avg_ms IS NOT NULL
         ORDER BY p.second DESC LIMIT 1;
        RETURN QUERY SELECT pg_catalog.format('Rate not sustained: %s of %s tps asked. The clients ran %s of the %s transactions their schedule set (%s %%; the rule asks for 98 %%)%s, %s. The server (or its clients) could not keep up: latencies at this rate measure the queue as much as the server.',
                           pgbench_lab_internal.fmt(r.tps), pgbench_lab_internal.rate_text(r.rate), ran, r.scheduled,
                           pgbench_lab_internal.fmt(100.0 OPERATOR(pg_catalog.*) ran OPERATOR(pg_catalog./) CASE WHEN r.scheduled OPERATOR(pg_catalog.>) 0 THEN r.scheduled END),
                           CASE WHEN r.skipped OPERATOR(pg_catalog.>) 0 THEN pg_catalog.format(' and skipped %s', r.skipped) ELSE '' END,
                           CASE WHEN last_lag OPERATOR(pg_catalog.>) (2 OPERATOR(pg_catalog.*) first_lag) AND (last_lag OPERATOR(pg_catalog.-) first_lag) OPERATOR(pg_catalog.>) 100
                                THEN pg_catalog.format('with the schedule lag growing from %s ms in the first second to %s ms in the last (max %s ms)',
                                                       pgbench_lab_internal.fmt(first_lag), pgbench_lab_internal.fmt(last_lag), pgbench_lab_internal.fmt(r.lag_max_ms))
                                ELSE pg_catalog.format('with a schedule lag of %s ms on average (max %s ms)',
                                                       pgbench_lab_internal.fmt(r.lag_avg_ms, 3), pgbench_lab_internal.fmt(r.lag_max_ms, 3)) END);
    END IF;
    IF r.late OPERATOR(pg_catalog.>) 0 THEN
        RETURN QUERY SELECT pg_catalog.format('%s committed transaction(s) (%s %%) took longer than the latency limit of %s%s.',
                           r.late, pgbench_lab_internal.fmt(100.0 OPERATOR(pg_catalog.*) r.late OPERATOR(pg_catalog./) CASE WHEN r.transactions OPERATOR(pg_catalog.>) 0 THEN r.transactions END),
                           pgbench_lab_internal.ms_text(r.latency_limit),
                           CASE WHEN r.rate IS NOT NULL THEN ', counted from their scheduled start' ELSE '' END);
    END IF;
    IF r.skipped OPERATOR(pg_catalog.>) 0 THEN
        RETURN QUERY SELECT pg_catalog.format('%s scheduled transaction(s) were skipped: when their client got to them they were already later than the limit of %s, so they would have been late however fast they ran (pgbench -L skips them too). They count in neither TPS nor the latencies.',
                           r.skipped, pgbench_lab_internal.ms_text(r.latency_limit));
    END IF;
END
$$;

-- Plain words on what the figures of a run need care with.
CREATE FUNCTION pgbench_lab_internal.run_notes(r pgbench_lab.runs)
RETURNS SETOF text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    ct pg_catalog.interval;
    first_hit pg_catalog.float8;
BEGIN
    IF r.via OPERATOR(pg_catalog.=) 'spi' THEN
        RETURN QUERY SELECT 'In-server figures: the clients are background workers inside the server, so there are no network round trips and no client CPU in the way; pgbench over a network will report less.';
    ELSE
        RETURN QUERY SELECT pg_catalog.format('Client figures: the clients are background workers of this server that sent the workload %s, so each statement paid a round trip through the protocol, as pgbench''s would.',
                           pgbench_lab_internal.path_text(r.via, r.target_display));
    END IF;
    RETURN QUERY SELECT pgbench_lab_internal.rate_notes(r);
    -- runs.system is recorded only for a role that may call system_info()
    IF r.system IS NULL AND r.source_server IS NULL AND r.status OPERATOR(pg_catalog.<>) 'running'
       AND EXISTS (SELECT FROM pg_catalog.pg_roles a WHERE a.oid OPERATOR(pg_catalog.=) r.owner::pg_catalog.oid)
       AND NOT pg_catalog.has_function_privilege(r.owner::pg_catalog.oid,
                                                 pg_catalog.to_regprocedure('pgbench_lab.system_info()')::pg_catalog.oid,
                                                 'EXECUTE') THEN
        RETURN QUERY SELECT pg_catalog.format('The machine''s facts (runs.system) were not recorded: role %s may not call pgbench_lab.system_info() (a superuser may grant it EXECUTE, or pg_monitor).',
                           r.owner);
    END IF;
    IF r.workload OPERATOR(pg_catalog.=) 'tpcb-like' AND r.scale OPERATOR(pg_catalog.<) r.clients THEN
        RETURN QUERY SELECT pg_catalog.format('Scale %s is below %s clients: every tpcb-like transaction updates one of only %s pgbench_branches rows, so clients queue on those row locks (branch-row contention) and the figures measure that more than the server. Use a scale of at least the client count.',
                           r.scale, r.clients, r.scale);
    END IF;
    ct := CASE WHEN pgbench_lab_internal.reads_as(r.settings OPERATOR(pg_catalog.->) 'server' OPERATOR(pg_catalog.->>) 'checkpoint_timeout', 'interval')
               THEN (r.settings OPERATOR(pg_catalog.->) 'server' OPERATOR(pg_catalog.->>) 'checkpoint_timeout')::interval END;
    IF r.measured_seconds OPERATOR(pg_catalog.<) extract(epoch FROM ct) THEN
        RETURN QUERY SELECT pg_catalog.format('The run (%s s) is shorter than checkpoint_timeout (%s): a steady state includes checkpoints and their full-page writes, so a longer run can show lower TPS.',
                           pgbench_lab_internal.fmt(r.measured_seconds), r.settings OPERATOR(pg_catalog.->) 'server' OPERATOR(pg_catalog.->>) 'checkpoint_timeout');
    END IF;
    IF r.checkpoints OPERATOR(pg_catalog.>) 0 THEN
        RETURN QUERY SELECT pg_catalog.format('%s checkpoint(s) happened during the run: their writes are inside the measured interval.', r.checkpoints);
    END IF;
    SELECT p.hit_ratio INTO first_hit FROM pgbench_lab.run_progress p
     WHERE p.run_id OPERATOR(pg_catalog.=) r.run_id ORDER BY p.second LIMIT 1;
    IF first_hit OPERATOR(pg_catalog.<) 0.9 THEN
        RETURN QUERY SELECT pg_catalog.format('Cold cache at the start: the buffer hit ratio in the first second was %s %% (%s %% over the whole run), so the first seconds waited for reads. Warm the cache first or run longer to measure the steady state.',
                           pgbench_lab_internal.fmt(first_hit OPERATOR(pg_catalog.*) 100), pgbench_lab_internal.fmt(r.hit_ratio OPERATOR(pg_catalog.*) 100));
    END IF;
    IF r.failures OPERATOR(pg_catalog.>) 0 AND r.serialization_failures IS NOT NULL THEN
        RETURN QUERY SELECT pg_catalog.format('%s transaction(s) failed: %s on serialization failures and %s on deadlocks after %s tries (0: unlimited), %s on other errors, each of which ended its client; TPS counts committed transactions only.',
                           r.failures, r.serialization_failures, r.deadlock_failures, r.max_tries,
                           r.failures::numeric OPERATOR(pg_catalog.-) r.serialization_failures OPERATOR(pg_catalog.-) r.deadlock_failures);
    ELSIF r.failures OPERATOR(pg_catalog.>) 0 THEN
        RETURN QUERY SELECT pg_catalog.format('%s transaction(s) failed (serialisation or deadlock, after %s tries); TPS counts committed transactions only.',
                           r.failures, r.max_tries);
    END IF;
    IF r.status OPERATOR(pg_catalog.=) 'running' THEN
        RETURN QUERY SELECT 'The run is still going: the figures so far are partial.'::pg_catalog.text;
    ELSIF r.status OPERATOR(pg_catalog.<>) 'done' THEN
        RETURN QUERY SELECT pg_catalog.format('The run ended %s%s: its figures cover only what it measured until then.',
                           r.status, coalesce(' (' OPERATOR(pg_catalog.||) r.error OPERATOR(pg_catalog.||) ')', ''));
    END IF;
END
$$;

-- A run of scripts: per script and per command, as pgbench -r reports.
CREATE FUNCTION pgbench_lab_internal.script_lines(run_id bigint)
RETURNS SETOF text LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT line FROM (
        SELECT s.script, 0 AS command, 0 AS part,
               pg_catalog.format('  script %s "%s"%s, weight %s: %s transactions (%s %%), latency avg %s ms, failures %s, retries %s',
                   s.script, s.name, ' saved by ' OPERATOR(pg_catalog.||) s.owner, s.weight, coalesce(s.transactions::pg_catalog.text, '-'),
                   pgbench_lab_internal.fmt(100.0 OPERATOR(pg_catalog.*) s.transactions
                       OPERATOR(pg_catalog./) CASE WHEN pg_catalog.sum(s.transactions) OVER () OPERATOR(pg_catalog.>) 0
                                                   THEN pg_catalog.sum(s.transactions) OVER () END, 1),
                   pgbench_lab_internal.fmt(s.latency_avg_ms, 3), coalesce(s.failures::pg_catalog.text, '-'),
                   coalesce(s.retries::pg_catalog.text, '-')) AS line
          FROM pgbench_lab.run_scripts s WHERE s.run_id OPERATOR(pg_catalog.=) script_lines.run_id
        UNION ALL
        SELECT s.script, 0, 1, '    executions    avg ms  failures  retries  line  command'
          FROM pgbench_lab.run_scripts s WHERE s.run_id OPERATOR(pg_catalog.=) script_lines.run_id
        UNION ALL
        SELECT c.script, c.command, 2,
               pg_catalog.format('    %s  %s  %s  %s  %s  %s',
                   pg_catalog.lpad(coalesce(c.executions::pg_catalog.text, '-'), 10),
                   pg_catalog.lpad(pgbench_lab_internal.fmt(c.latency_avg_ms, 3), 8),
                   pg_catalog.lpad(coalesce(c.failures::pg_catalog.text, '-'), 8),
                   pg_catalog.lpad(coalesce(c.retries::pg_catalog.text, '-'), 7),
                   pg_catalog.lpad(c.line::pg_catalog.text, 4),
                   pg_catalog.left(pg_catalog.regexp_replace(c.command_text, '\s+', ' ', 'g'), 70))
          FROM pgbench_lab.run_commands c WHERE c.run_id OPERATOR(pg_catalog.=) script_lines.run_id
    ) x ORDER BY x.script, x.part, x.command
$$;

-- A run of TPC-C's kit: HammerDB's figures (tpcc_figures()), per
-- transaction type and for the mix.
CREATE FUNCTION pgbench_lab_internal.tpcc_lines(run_id bigint)
RETURNS SETOF text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    f pg_catalog.record;
    sampled pg_catalog.bool := false;
BEGIN
    IF NOT EXISTS (SELECT FROM pgbench_lab.run_scripts s WHERE s.run_id OPERATOR(pg_catalog.=) tpcc_lines.run_id
                    AND s.name OPERATOR(pg_catalog.=) 'tpcc-new-order') THEN
        RETURN;
    END IF;
    RETURN QUERY SELECT '';
    RETURN QUERY SELECT 'TPC-C (HammerDB''s figures: SELECT * FROM pgbench_lab.tpcc_figures(run_id))';
    FOR f IN SELECT * FROM pgbench_lab.tpcc_figures(tpcc_lines.run_id) LOOP
        IF f.transaction_type OPERATOR(pg_catalog.=) 'all' THEN
            RETURN QUERY SELECT pg_catalog.format('  NOPM %s   TPM %s   (over %s measured s; new orders rolled back: %s)',
                               pgbench_lab_internal.fmt(f.nopm), pgbench_lab_internal.fmt(f.tpm),
                               pgbench_lab_internal.fmt(f.measured_seconds, 3), coalesce(f.rollbacks::pg_catalog.text, '-'));
            RETURN QUERY SELECT x.w FROM pgbench_lab_internal.wrap(
                CASE WHEN f.valid THEN 'The run kept the specification''s rules (minimum shares of the mix, failures, skipped deliveries, 90th-percentile limits where sampled): its NOPM stands.'
                     ELSE 'NOPM NOT VALID: ' OPERATOR(pg_catalog.||) coalesce(f.invalid_because, 'the run broke the specification''s rules') END,
                '  ') AS x(w);
            RETURN QUERY SELECT '  transaction    transactions  share %    per min  failures    avg ms  resp. ms    p50 ms    p90 ms    p99 ms';
        END IF;
        sampled := sampled OR f.latency_p50_ms IS NOT NULL;
    END LOOP;
    RETURN QUERY SELECT pg_catalog.format('  %s %s %s %s %s %s %s %s %s %s', pg_catalog.rpad(g.transaction_type, 12),
                       pg_catalog.lpad(coalesce(g.transactions::pg_catalog.text, '-'), 14),
                       pg_catalog.lpad(pgbench_lab_internal.fmt(g.share_pct), 8),
                       pg_catalog.lpad(pgbench_lab_internal.fmt(g.per_minute), 10),
                       pg_catalog.lpad(coalesce(g.failures::pg_catalog.text, '-'), 9),
                       pg_catalog.lpad(pgbench_lab_internal.fmt(g.latency_avg_ms, 3), 9),
                       pg_catalog.lpad(pgbench_lab_internal.fmt(g.response_avg_ms, 3), 9),
                       pg_catalog.lpad(pgbench_lab_internal.fmt(g.latency_p50_ms, 3), 9),
                       pg_catalog.lpad(pgbench_lab_internal.fmt(g.latency_p90_ms, 3), 9),
                       pg_catalog.lpad(pgbench_lab_internal.fmt(g.latency_p99_ms, 3), 9))
                  FROM pgbench_lab.tpcc_figures(tpcc_lines.run_id) AS g;
    RETURN QUERY SELECT x.w FROM pgbench_lab_internal.wrap(
        'NOPM counts new orders committed per minute (new-order''s transactions less those rolled back on an unknown item); '
        OPERATOR(pg_catalog.||) 'TPM counts the mix''s transactions per minute, each one database transaction, so that it equals HammerDB''s count of the database''s commits and rollbacks. '
        OPERATOR(pg_catalog.||) 'resp. ms is the average response time without the keying and think times slept (clause 5.2.5). '
        OPERATOR(pg_catalog.||) CASE WHEN sampled THEN 'The percentiles are of the run''s samples.'
                                     ELSE 'The percentiles need the run''s samples: run with sample_rate => 1 to have them.' END
        OPERATOR(pg_catalog.||) CASE WHEN EXISTS (SELECT FROM pgbench_lab.run_commands c JOIN pgbench_lab.run_scripts s
                                                    ON s.run_id OPERATOR(pg_catalog.=) c.run_id AND s.script OPERATOR(pg_catalog.=) c.script
                                                 WHERE c.run_id OPERATOR(pg_catalog.=) tpcc_lines.run_id AND c.kind OPERATOR(pg_catalog.=) 'sleep'
                                                   AND c.executions OPERATOR(pg_catalog.>) 0)
                                     THEN ' The latencies include the keying and think times the transactions slept.' ELSE '' END,
        '  ') AS x(w);
END
$$;

-- The errors a run met (run_errors), the most frequent first: a heading,
-- then up to 10 texts with their counts, and what the others add up to.
CREATE FUNCTION pgbench_lab_internal.error_lines(run_id bigint)
RETURNS SETOF text LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH e AS (
        SELECT x.*, pg_catalog.row_number() OVER (ORDER BY x.message IS NULL, x.count DESC, x.error) AS rank,
               pg_catalog.count(x.message) OVER () AS texts, pg_catalog.sum(x.count) OVER () AS total
          FROM pgbench_lab.run_errors x WHERE x.run_id OPERATOR(pg_catalog.=) error_lines.run_id)
    SELECT line FROM (
        SELECT 0 AS o, '' AS line FROM e WHERE e.rank OPERATOR(pg_catalog.=) 1
        UNION ALL
        SELECT 1, pg_catalog.format('Errors met (%s, retried or not; %s distinct text%s%s)', e.total, e.texts,
                                    CASE WHEN e.texts OPERATOR(pg_catalog.=) 1 THEN '' ELSE 's' END,
                                    CASE WHEN e.texts OPERATOR(pg_catalog.>) 10 THEN ', the 10 most frequent' ELSE '' END)
          FROM e WHERE e.rank OPERATOR(pg_catalog.=) 1
        UNION ALL
        SELECT 2 OPERATOR(pg_catalog.+) e.rank, pg_catalog.format('  %s  %s  %s', pg_catalog.lpad(e.count::pg_catalog.text, 9), e.sqlstate,
                                          pg_catalog.left(pg_catalog.regexp_replace(e.message, '\s+', ' ', 'g'), 100))
          FROM e WHERE e.message IS NOT NULL AND e.rank OPERATOR(pg_catalog.<=) 10
        UNION ALL
        SELECT 100, pg_catalog.format('  %s  %s other text(s)%s', pg_catalog.lpad(pg_catalog.sum(e.count)::pg_catalog.text, 9),
                                      pg_catalog.count(e.message),
                                      CASE WHEN pg_catalog.bool_or(e.message IS NULL) THEN ', and texts past the 100 kept' ELSE '' END)
          FROM e WHERE e.rank OPERATOR(pg_catalog.>) 10 OR e.message IS NULL
        HAVING pg_catalog.count(*) OPERATOR(pg_catalog.>) 0
    ) x ORDER BY x.o
$$;

-- A target's machine in a few words, from its system_info() as recorded
-- (run_targets.system): ' on 4 CPUs, 16 GB memory', or '' when unknown.
CREATE FUNCTION pgbench_lab_internal.system_text(system jsonb)
RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN c.cpus IS NULL AND m.bytes IS NULL THEN ''
                ELSE ' on ' OPERATOR(pg_catalog.||) pg_catalog.concat_ws(', ',
                         c.cpus OPERATOR(pg_catalog.||) CASE WHEN c.cpus OPERATOR(pg_catalog.=) '1' THEN ' CPU' ELSE ' CPUs' END,
                         pg_catalog.pg_size_pretty(m.bytes) OPERATOR(pg_catalog.||) ' memory') END
      FROM (SELECT CASE WHEN system OPERATOR(pg_catalog.->>) 'cpus_effective' OPERATOR(pg_catalog.~) '^[0-9]{1,9}(\.[0-9]{1,6})?$'
                        THEN system OPERATOR(pg_catalog.->>) 'cpus_effective' END AS cpus) c,
           (SELECT CASE WHEN system OPERATOR(pg_catalog.->>) 'memory_limit' OPERATOR(pg_catalog.~) '^[0-9]{1,30}$'
                        THEN (system OPERATOR(pg_catalog.->>) 'memory_limit')::numeric END AS bytes) m
$$;

-- A standby's recovery conflicts over the run (run_targets.conflicts and
-- conflicts_by_kind): '3 (snapshot 3), by ...', '0, by ...', or why there
-- is no count.
CREATE FUNCTION pgbench_lab_internal.conflicts_text(conflicts bigint, by_kind jsonb)
RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN conflicts IS NULL THEN 'not counted: the standby could not be read at the end of the run'
                ELSE conflicts::pg_catalog.text OPERATOR(pg_catalog.||) coalesce(' (' OPERATOR(pg_catalog.||) (
                    SELECT pg_catalog.string_agg(e.key OPERATOR(pg_catalog.||) ' ' OPERATOR(pg_catalog.||) e.value, ', ' ORDER BY e.key)
                      FROM pg_catalog.jsonb_each_text(CASE WHEN pg_catalog.jsonb_typeof(by_kind) OPERATOR(pg_catalog.=) 'object'
                                                           THEN by_kind ELSE '{}' END) e
                     WHERE e.value OPERATOR(pg_catalog.<>) '0') OPERATOR(pg_catalog.||) ')', '')
                     OPERATOR(pg_catalog.||) ', by the standby''s counters for its database' END
$$;

-- A run with several targets, or on a standby: each server's facts and
-- figures, over the run's one measured interval, and a standby's recovery
-- conflicts there.
CREATE FUNCTION pgbench_lab_internal.target_lines(run_id bigint)
RETURNS SETOF text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    t pgbench_lab.run_targets;
    n pg_catalog.int8;
BEGIN
    SELECT pg_catalog.count(*) INTO n FROM pgbench_lab.run_targets x
     WHERE x.run_id OPERATOR(pg_catalog.=) target_lines.run_id;
    IF n OPERATOR(pg_catalog.<) 2 AND NOT EXISTS (SELECT FROM pgbench_lab.run_targets x
                                                   WHERE x.run_id OPERATOR(pg_catalog.=) target_lines.run_id AND x.in_recovery) THEN
        RETURN;
    END IF;
    RETURN QUERY SELECT '';
    RETURN QUERY SELECT CASE WHEN n OPERATOR(pg_catalog.<=) 1 THEN 'Target'
                             WHEN EXISTS (SELECT FROM pgbench_lab.run_targets x
                                           WHERE x.run_id OPERATOR(pg_catalog.=) target_lines.run_id
                                             AND x.first_client IS NOT NULL)
                             THEN 'Targets (each took a block of clients, as target_clients gave; the same measured interval for all)'
                             ELSE 'Targets (client i went to target (i - 1) % n + 1; the same measured interval for all)' END;
    FOR t IN SELECT * FROM pgbench_lab.run_targets x WHERE x.run_id OPERATOR(pg_catalog.=) target_lines.run_id
              ORDER BY x.target LOOP
        RETURN QUERY SELECT pg_catalog.format('  %s  %s', t.target, t.target_display);
        RETURN QUERY SELECT pg_catalog.format('     PostgreSQL %s%s, %s; %s, %s transactions, %s tps, latency avg %s ms, %s failures',
                           coalesce(t.server_version, '?'),
                           pgbench_lab_internal.system_text(t.system) OPERATOR(pg_catalog.||)
                           CASE WHEN t.system IS NULL AND t.system_note IS NOT NULL
                                THEN ' (its system facts not read: ' OPERATOR(pg_catalog.||) t.system_note OPERATOR(pg_catalog.||) ')'
                                ELSE '' END,
                           CASE WHEN t.in_recovery THEN 'a standby (in recovery)' WHEN NOT t.in_recovery THEN 'not in recovery' ELSE 'recovery unknown' END,
                           pgbench_lab_internal.clients_text(t.clients)
                           OPERATOR(pg_catalog.||) CASE WHEN t.first_client IS NOT NULL
                                                        THEN pg_catalog.format(' (%s to %s)', t.first_client,
                                                                               ((t.first_client::pg_catalog.int8 OPERATOR(pg_catalog.+) t.clients) OPERATOR(pg_catalog.-) 1))
                                                        ELSE '' END,
                           coalesce(t.transactions::pg_catalog.text, '-'),
                           pgbench_lab_internal.fmt(t.tps), pgbench_lab_internal.fmt(t.latency_avg_ms, 3),
                           coalesce(t.failures::pg_catalog.text, '-'));
        IF t.scripts IS NOT NULL THEN
            RETURN QUERY SELECT pg_catalog.format('     split run: its clients ran only the scripts that %s: %s',
                               CASE WHEN t.in_recovery THEN 'read' ELSE 'write' END,
                               pg_catalog.array_to_string(t.scripts, ', '));
        END IF;
        IF t.clients_failed OPERATOR(pg_catalog.>) 0 THEN
            RETURN QUERY SELECT pg_catalog.format('     %s of its %s ended failed: %s', t.clients_failed,
                               pgbench_lab_internal.clients_text(t.clients), coalesce(t.error, 'no error recorded'));
        END IF;
        IF t.in_recovery THEN
            RETURN QUERY SELECT pg_catalog.format('     recovery conflicts during the run: %s%s',
                               pgbench_lab_internal.conflicts_text(t.conflicts, t.conflicts_by_kind),
                               CASE WHEN t.conflicts IS NULL AND t.conflicts_error IS NOT NULL
                                    THEN ' (' OPERATOR(pg_catalog.||) t.conflicts_error OPERATOR(pg_catalog.||) ')'
                                    ELSE '' END);
        END IF;
    END LOOP;
END;
$$;

CREATE FUNCTION pgbench_lab_internal.report_run(run_id bigint)
RETURNS SETOF text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    r pgbench_lab.runs;
    srv pg_catalog.jsonb;
BEGIN
    SELECT * INTO r FROM pgbench_lab.runs x WHERE x.run_id OPERATOR(pg_catalog.=) report_run.run_id;
    srv := coalesce(r.settings OPERATOR(pg_catalog.->) 'server', '{}');
    RETURN QUERY SELECT pg_catalog.format('Run %s: %s, %s, %s', r.run_id, r.workload, pgbench_lab_internal.clients_text(r.clients),
                       coalesce(pgbench_lab_internal.seconds_text(r.duration),
                                r.transactions_per_client OPERATOR(pg_catalog.||) ' transactions per client'));
    IF r.label IS NOT NULL THEN
        RETURN QUERY SELECT 'label: ' OPERATOR(pg_catalog.||) r.label;
    END IF;
    RETURN QUERY SELECT pg_catalog.format('status %s, started %s, measured %s s', r.status,
                       pg_catalog.to_char(r.started_at, 'YYYY-MM-DD HH24:MI:SS TZ'), pgbench_lab_internal.fmt(r.measured_seconds));
    IF r.source_server IS NOT NULL THEN
        RETURN QUERY SELECT pg_catalog.format('imported from %s, where it was run %s', r.source_server, r.source_run_id);
    END IF;
    -- a libpq run records its target's settings, read there
    RETURN QUERY SELECT pg_catalog.format('%s: PostgreSQL %s, shared_buffers %s, max_wal_size %s, checkpoint_timeout %s, synchronous_commit %s',
                       CASE WHEN r.via OPERATOR(pg_catalog.=) 'spi' THEN 'server' ELSE 'target server' END,
                       coalesce(srv OPERATOR(pg_catalog.->>) 'server_version', '-'), coalesce(srv OPERATOR(pg_catalog.->>) 'shared_buffers', '-'),
                       coalesce(srv OPERATOR(pg_catalog.->>) 'max_wal_size', '-'), coalesce(srv OPERATOR(pg_catalog.->>) 'checkpoint_timeout', '-'),
                       coalesce(srv OPERATOR(pg_catalog.->>) 'synchronous_commit', '-'));
    -- TPC-C's kit reads no :scale (its size is the warehouses it finds)
    RETURN QUERY SELECT pg_catalog.format('%smax tries %s, random seed %s, session settings: %s',
                       CASE WHEN EXISTS (SELECT FROM pgbench_lab.run_scripts s
                                          WHERE s.run_id OPERATOR(pg_catalog.=) r.run_id
                                            AND s.name OPERATOR(pg_catalog.=) 'tpcc-new-order')
                            THEN '' ELSE pg_catalog.format('scale %s, ', coalesce(r.scale::pg_catalog.text, '-')) END,
                       r.max_tries, coalesce(r.random_seed::pg_catalog.text, '-'),
                       pgbench_lab_internal.settings_text(r.settings OPERATOR(pg_catalog.->) 'session'));
    -- pgbench gives scripts without a built-in :scale from -s, 1 by default
    IF r.scale OPERATOR(pg_catalog.<>) 1
       AND NOT coalesce(r.variables OPERATOR(pg_catalog.?) 'scale', false)
       AND EXISTS (SELECT FROM pgbench_lab.run_scripts s WHERE s.run_id OPERATOR(pg_catalog.=) r.run_id
                   AND s.body OPERATOR(pg_catalog.~) ':scale([^A-Za-z0-9_]|$)')
       AND NOT EXISTS (SELECT FROM pgbench_lab.run_scripts s WHERE s.run_id OPERATOR(pg_catalog.=) r.run_id
                       AND s.owner IS NULL
                       AND s.name OPERATOR(pg_catalog.=) ANY ('{tpcb-like,simple-update,select-only}'::pg_catalog.text[])) THEN
        RETURN QUERY SELECT pg_catalog.format(':scale was %s, read from pgbench_branches; pgbench would give these scripts 1 (-s, 1 when not given): run it with -s %s to compare',
                           r.scale, r.scale);
    END IF;
    IF r.rate IS NOT NULL OR r.latency_limit IS NOT NULL THEN
        RETURN QUERY SELECT pg_catalog.format('%s, %s',
                           coalesce('rate ' OPERATOR(pg_catalog.||) pgbench_lab_internal.rate_text(r.rate) OPERATOR(pg_catalog.||) ' tps asked', 'no rate (as fast as possible)'),
                           coalesce('latency limit ' OPERATOR(pg_catalog.||) pgbench_lab_internal.ms_text(r.latency_limit), 'no latency limit'));
    END IF;
    RETURN QUERY SELECT '';
    RETURN QUERY SELECT pg_catalog.format('Figures (%s)', pgbench_lab_internal.path_text(r.via, r.target_display));
    RETURN QUERY SELECT pg_catalog.format('  transactions  %s   failures %s   retries %s', coalesce(r.transactions::pg_catalog.text, '-'),
                       coalesce(r.failures::pg_catalog.text, '-'), coalesce(r.retries::pg_catalog.text, '-'));
    IF r.failures OPERATOR(pg_catalog.>) 0 AND r.serialization_failures IS NOT NULL THEN
        RETURN QUERY SELECT pg_catalog.format('  failures by kind: serialization %s   deadlock %s   other %s',
                           r.serialization_failures, r.deadlock_failures,
                           r.failures::numeric OPERATOR(pg_catalog.-) r.serialization_failures OPERATOR(pg_catalog.-) r.deadlock_failures);
    END IF;
    RETURN QUERY SELECT pg_catalog.format('  TPS           %s', pgbench_lab_internal.fmt(r.tps));
    IF r.rate IS NOT NULL THEN
        RETURN QUERY SELECT pg_catalog.format('  rate          %s tps asked: %s of the %s scheduled transactions ran (%s %%), %s',
                           pgbench_lab_internal.rate_text(r.rate), coalesce(r.transactions, 0)::numeric OPERATOR(pg_catalog.+) coalesce(r.failures, 0),
                           coalesce(r.scheduled::pg_catalog.text, '-'),
                           pgbench_lab_internal.fmt(100.0 OPERATOR(pg_catalog.*) (coalesce(r.transactions, 0)::numeric OPERATOR(pg_catalog.+) coalesce(r.failures, 0))
                                                    OPERATOR(pg_catalog./) CASE WHEN r.scheduled OPERATOR(pg_catalog.>) 0 THEN r.scheduled END),
                           CASE WHEN r.rate_sustained THEN 'sustained' WHEN NOT r.rate_sustained THEN 'NOT sustained' ELSE '-' END);
        RETURN QUERY SELECT pg_catalog.format('  schedule lag  avg %s ms   max %s ms', pgbench_lab_internal.fmt(r.lag_avg_ms, 3),
                           pgbench_lab_internal.fmt(r.lag_max_ms, 3));
    END IF;
    IF r.latency_limit IS NOT NULL THEN
        RETURN QUERY SELECT pg_catalog.format('  late          %s over %s (%s %% of committed)%s',
                           coalesce(r.late::pg_catalog.text, '-'), pgbench_lab_internal.ms_text(r.latency_limit),
                           pgbench_lab_internal.fmt(100.0 OPERATOR(pg_catalog.*) r.late OPERATOR(pg_catalog./) CASE WHEN r.transactions OPERATOR(pg_catalog.>) 0 THEN r.transactions END),
                           CASE WHEN r.rate IS NOT NULL THEN pg_catalog.format(', %s skipped', coalesce(r.skipped::pg_catalog.text, '-')) ELSE '' END);
    END IF;
    IF r.sample_rate IS NOT NULL THEN
        RETURN QUERY SELECT pg_catalog.format('  samples       %s kept in run_samples (sample rate %s)%s', coalesce(r.samples::pg_catalog.text, '-'),
                           r.sample_rate, CASE WHEN r.samples_dropped OPERATOR(pg_catalog.>) 0
                                               THEN pg_catalog.format(', %s drawn but not kept', r.samples_dropped) ELSE '' END);
    END IF;
    RETURN QUERY SELECT pg_catalog.format('  latency (ms)  avg %s   stddev %s', pgbench_lab_internal.fmt(r.latency_avg_ms, 3),
                       pgbench_lab_internal.fmt(r.latency_stddev_ms, 3));
    RETURN QUERY SELECT pg_catalog.format('                p50 %s   p90 %s   p95 %s   p99 %s   max %s',
                       pgbench_lab_internal.fmt(q.p50, 3), pgbench_lab_internal.fmt(q.p90, 3),
                       pgbench_lab_internal.fmt(q.p95, 3), pgbench_lab_internal.fmt(q.p99, 3),
                       pgbench_lab_internal.fmt(r.latency_max_ms, 3))
                   FROM pgbench_lab_internal.run_percentiles(r) q;
    RETURN QUERY SELECT pgbench_lab_internal.percentile_line(r.run_id);
    -- over libpq the buffers are read by the backends serving the
    -- connections, which count them for themselves: to this server and the
    -- run's database, its pg_stat_database over the run; else not measured
    RETURN QUERY SELECT CASE WHEN r.via OPERATOR(pg_catalog.<>) 'spi' AND r.hit_ratio IS NULL
                             THEN '  buffers       hit ratio not measured: over libpq it is read here only when the clients'' backends are this server''s, '
                                  'in the run''s database (its pg_stat_database); for another server, read it there'
                             ELSE pg_catalog.format('  buffers       hit ratio %s %% (%s hits, %s reads)%s', pgbench_lab_internal.fmt(r.hit_ratio OPERATOR(pg_catalog.*) 100, 2),
                                                    coalesce(r.blks_hit::pg_catalog.text, '-'), coalesce(r.blks_read::pg_catalog.text, '-'),
                                                    CASE WHEN r.via OPERATOR(pg_catalog.<>) 'spi'
                                                         THEN ': the database''s over the run (pg_stat_database, read when the run''s backends had exited), '
                                                              'every session''s blocks among them' ELSE '' END) END;
    -- completed checkpoints; a run to other servers says where they were read
    RETURN QUERY SELECT pg_catalog.format('  WAL written   %s, checkpoints during the run: %s%s',
                       coalesce(pg_catalog.pg_size_pretty(r.wal_bytes), '-'), coalesce(r.checkpoints::pg_catalog.text, '-'),
                       CASE WHEN r.figures_note IS NOT NULL THEN ' (' OPERATOR(pg_catalog.||) r.figures_note OPERATOR(pg_catalog.||) ')' ELSE '' END);
    RETURN QUERY SELECT pgbench_lab_internal.target_lines(r.run_id);
    IF EXISTS (SELECT FROM pgbench_lab.run_scripts s WHERE s.run_id OPERATOR(pg_catalog.=) r.run_id) THEN
        RETURN QUERY SELECT '';
        RETURN QUERY SELECT 'Scripts (per command, as pgbench -r; latencies of the executions that completed)';
        IF r.variables IS NOT NULL THEN
            RETURN QUERY SELECT '  variables ' OPERATOR(pg_catalog.||) r.variables::pg_catalog.text;
        END IF;
        RETURN QUERY SELECT pgbench_lab_internal.script_lines(r.run_id);
    END IF;
    RETURN QUERY SELECT pgbench_lab_internal.tpcc_lines(r.run_id);
    RETURN QUERY SELECT pgbench_lab_internal.error_lines(r.run_id);
    RETURN QUERY SELECT '';
    RETURN QUERY SELECT pgbench_lab_internal.run_charts(r.run_id);
    RETURN QUERY SELECT '';
    RETURN QUERY SELECT pgbench_lab_internal.telemetry_lines(r.run_id);
    RETURN QUERY SELECT pgbench_lab_internal.replication_lines(r.run_id);
    RETURN QUERY SELECT 'Notes';
    RETURN QUERY SELECT x.w FROM pgbench_lab_internal.run_notes(r) WITH ORDINALITY AS n(t, i),
                                 pgbench_lab_internal.wrap(n.t, '  - ') WITH ORDINALITY AS x(w, j)
                        ORDER BY n.i, x.j;
END
$$;

CREATE FUNCTION pgbench_lab_internal.report_experiment(experiment_id bigint)
RETURNS SETOF text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    e pgbench_lab.experiments;
    n pg_catalog.int4;
    stopped pg_catalog.bool;
    body pg_catalog.regproc;
BEGIN
    SELECT * INTO e FROM pgbench_lab.experiments x WHERE x.experiment_id OPERATOR(pg_catalog.=) report_experiment.experiment_id;
    stopped := pgbench_lab_internal.experiment_stopped(e);
    SELECT pg_catalog.count(*) INTO n FROM pgbench_lab.experiment_runs x WHERE x.experiment_id OPERATOR(pg_catalog.=) e.experiment_id;
    RETURN QUERY SELECT pg_catalog.format('Experiment %s: %s of %s, %s per run%s', e.experiment_id,
                       pg_catalog.replace(e.kind, '_', ' '), e.workload,
                       CASE WHEN pgbench_lab_internal.reads_as(e.params OPERATOR(pg_catalog.->>) 'duration', 'interval')
                            THEN pgbench_lab_internal.seconds_text((e.params OPERATOR(pg_catalog.->>) 'duration')::interval) ELSE '-' END,
                       CASE WHEN e.kind OPERATOR(pg_catalog.=) 'sweep' THEN ', clients ' OPERATOR(pg_catalog.||) (SELECT pg_catalog.string_agg(c, ', ')
                                                    FROM pg_catalog.jsonb_array_elements_text(e.params OPERATOR(pg_catalog.->) 'clients') c)
                            WHEN e.kind OPERATOR(pg_catalog.=) 'cold_vs_warm' THEN ', ' OPERATOR(pg_catalog.||) pgbench_lab_internal.clients_text((e.params OPERATOR(pg_catalog.->>) 'clients')::integer)
                            ELSE pg_catalog.format(', %s%s', pgbench_lab_internal.clients_text((e.params OPERATOR(pg_catalog.->>) 'clients')::integer),
                                        coalesce(', ' OPERATOR(pg_catalog.||) (e.params OPERATOR(pg_catalog.->>) 'rounds') OPERATOR(pg_catalog.||) ' round(s)', '')) END);
    IF e.label IS NOT NULL THEN
        RETURN QUERY SELECT 'label: ' OPERATOR(pg_catalog.||) e.label;
    END IF;
    RETURN QUERY SELECT pg_catalog.format('status %s, started %s, %s run(s)%s',
                       CASE WHEN stopped THEN 'aborted' ELSE e.status END,
                       pg_catalog.to_char(e.started_at, 'YYYY-MM-DD HH24:MI:SS TZ'), n,
                       CASE WHEN stopped OR e.status OPERATOR(pg_catalog.=) 'aborted'
                            THEN ' (its procedure stopped before the end: an error, a cancel or a lost session)'
                            WHEN e.status OPERATOR(pg_catalog.=) 'running' THEN ' (still going)'
                            WHEN e.status OPERATOR(pg_catalog.=) 'waiting for restart'
                            THEN pg_catalog.format(' (restart the server, then CALL pgbench_lab.resume(%s))', e.experiment_id)
                            ELSE '' END);
    IF e.source_server IS NOT NULL THEN
        RETURN QUERY SELECT pg_catalog.format('imported from %s, where it was experiment %s', e.source_server, e.source_experiment_id);
    END IF;
    IF e.kind OPERATOR(pg_catalog.=) 'sweep' THEN
        RETURN QUERY SELECT 'session settings: ' OPERATOR(pg_catalog.||) pgbench_lab_internal.settings_text(e.params OPERATOR(pg_catalog.->) 'settings');
    END IF;
    IF e.kind OPERATOR(pg_catalog.=) 'connection_cost' THEN
        RETURN QUERY SELECT CASE WHEN e.params OPERATOR(pg_catalog.?) 'in_server_left_out'
                                 THEN 'The in-server run was left out (too few worker slots); variant 1 goes through libpq over kept connections, 2 with a new connection per transaction.'
                                 ELSE 'Variant 1 is in-server (no network round trips); 2 and 3 go through libpq.' END;
    ELSE
        -- the paths its runs took: in-server, or over libpq
        RETURN QUERY SELECT CASE WHEN pg_catalog.bool_or(r.via OPERATOR(pg_catalog.<>) 'spi')
                                 THEN pg_catalog.format('Figures are over libpq%s: each statement paid a round trip through the protocol.',
                                                        -- the paths named only when there is more to say than "libpq"
                                                        CASE WHEN pg_catalog.string_agg(DISTINCT r.via, ', ') OPERATOR(pg_catalog.=) 'libpq' THEN ''
                                                             ELSE ' (' OPERATOR(pg_catalog.||) pg_catalog.string_agg(DISTINCT r.via, ', ') OPERATOR(pg_catalog.||) ')' END)
                                 ELSE 'Figures are in-server: no network round trips.' END
                           FROM pgbench_lab.experiment_runs x JOIN pgbench_lab.runs r ON r.run_id OPERATOR(pg_catalog.=) x.run_id
                          WHERE x.experiment_id OPERATOR(pg_catalog.=) e.experiment_id;
    END IF;
    RETURN QUERY SELECT '';
    -- the body is the kind's report function (pgbench_lab.experiment_kinds)
    SELECT k.report::pg_catalog.oid::pg_catalog.regproc INTO body
      FROM pgbench_lab.experiment_kinds k WHERE k.kind OPERATOR(pg_catalog.=) e.kind;
    IF body IS NULL THEN
        RETURN QUERY SELECT pg_catalog.format('(no report for kind %s: it is not in pgbench_lab.experiment_kinds)', e.kind);
    ELSE
        RETURN QUERY EXECUTE pg_catalog.format('SELECT l FROM %s($1) AS l', body) USING e.experiment_id;
    END IF;
    RETURN QUERY
        SELECT pg_catalog.format('Run %s did not finish: %s%s', r.run_id, r.status, coalesce(' (' OPERATOR(pg_catalog.||) r.error OPERATOR(pg_catalog.||) ')', ''))
          FROM pgbench_lab.experiment_runs x JOIN pgbench_lab.runs r ON r.run_id OPERATOR(pg_catalog.=) x.run_id
         WHERE x.experiment_id OPERATOR(pg_catalog.=) e.experiment_id AND r.status OPERATOR(pg_catalog.<>) 'done'
         ORDER BY x.ordinal;
    RETURN QUERY SELECT 'Each run in detail: SELECT * FROM pgbench_lab.report(run_id);';
END
$$;

CREATE FUNCTION pgbench_lab.report(id bigint)
RETURNS SETOF text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF id IS NULL THEN
        RAISE EXCEPTION 'id must not be null'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Pass a run_id from pgbench_lab.runs or an experiment_id from pgbench_lab.experiments.';
    END IF;
    PERFORM pgbench_lab_internal.check_ids(ARRAY[id], true);
    -- every line through printable(): labels, errors, settings and server
    -- names may hold control characters (an imported document's, say)
    IF EXISTS (SELECT FROM pgbench_lab.runs r WHERE r.run_id OPERATOR(pg_catalog.=) id) THEN
        RETURN QUERY SELECT pgbench_lab.printable(l) FROM pgbench_lab_internal.report_run(id) AS l;
    ELSE
        RETURN QUERY SELECT pgbench_lab.printable(l) FROM pgbench_lab_internal.report_experiment(id) AS l;
    END IF;
END
$$;
COMMENT ON FUNCTION pgbench_lab.report(bigint) IS
    'A readable report of a run or an experiment: figures, charts and notes (one line per row)';

-- Runs side by side in the order given, with ratios to the first (in
-- numeric: any two figures have a ratio).  Text columns are printable().
CREATE FUNCTION pgbench_lab.compare(run_ids bigint[])
RETURNS TABLE (run_id bigint, label text, server text, via text, workload text, clients integer,
               scale integer, status text, seconds numeric, tps numeric, tps_ratio numeric,
               latency_avg_ms numeric, latency_avg_ratio numeric, latency_p99_ms numeric,
               latency_p99_ratio numeric, hit_ratio_pct numeric, session_settings text,
               server_differences text, rate numeric, rate_sustained boolean, lag_avg_ms numeric,
               cpu_busy_pct numeric, waits text, checkpoints bigint)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM pgbench_lab_internal.check_ids(run_ids, false);
    RETURN QUERY
    WITH l AS (
        SELECT r.*, u.n, (pgbench_lab_internal.run_percentiles(r)).p99 FROM pg_catalog.unnest(run_ids) WITH ORDINALITY AS u(id, n)
          JOIN pgbench_lab.runs r ON r.run_id OPERATOR(pg_catalog.=) u.id),
    f AS (SELECT * FROM l WHERE l.n OPERATOR(pg_catalog.=) 1)
    SELECT l.run_id, pgbench_lab.printable(l.label), pgbench_lab.printable(coalesce(l.source_server, 'here')),
           -- how the clients reached the server: in-server, or over libpq to which target
           pgbench_lab.printable(l.via OPERATOR(pg_catalog.||) coalesce(' to ' OPERATOR(pg_catalog.||) l.target_display, '')),
           pgbench_lab.printable(l.workload), l.clients, l.scale,
           l.status, pg_catalog.round(l.measured_seconds::numeric, 1), pg_catalog.round(l.tps::numeric, 1),
           pg_catalog.round(l.tps::numeric OPERATOR(pg_catalog./) (CASE WHEN f.tps OPERATOR(pg_catalog.<>) 0 THEN f.tps END)::numeric, 3), pg_catalog.round(l.latency_avg_ms::numeric, 3),
           pg_catalog.round(l.latency_avg_ms::numeric OPERATOR(pg_catalog./)
                            (CASE WHEN f.latency_avg_ms OPERATOR(pg_catalog.<>) 0 THEN f.latency_avg_ms END)::numeric, 3),
           pg_catalog.round(l.p99::numeric, 3),
           pg_catalog.round(l.p99::numeric OPERATOR(pg_catalog./)
                            (CASE WHEN f.p99 OPERATOR(pg_catalog.<>) 0 THEN f.p99 END)::numeric, 3),
           pg_catalog.round(l.hit_ratio::numeric OPERATOR(pg_catalog.*) 100, 2),
           pgbench_lab_internal.settings_text(l.settings OPERATOR(pg_catalog.->) 'session'),
           (SELECT pgbench_lab.printable(coalesce(pg_catalog.string_agg(a.key OPERATOR(pg_catalog.||) '=' OPERATOR(pg_catalog.||) a.value, ', ' ORDER BY a.key), ''))
              FROM pg_catalog.jsonb_each_text(coalesce(l.settings OPERATOR(pg_catalog.->) 'server', '{}')) a
             WHERE CASE WHEN (f.settings OPERATOR(pg_catalog.->) 'server' OPERATOR(pg_catalog.->>) a.key) IS NULL
                        THEN a.value IS NOT NULL
                        WHEN a.value IS NULL THEN true
                        ELSE (f.settings OPERATOR(pg_catalog.->) 'server' OPERATOR(pg_catalog.->>) a.key)
                             OPERATOR(pg_catalog.<>) a.value END),
           -- rate-limited runs: the rate asked, the rule's verdict and the schedule lag
           pg_catalog.round(l.rate::numeric, 1), l.rate_sustained, pg_catalog.round(l.lag_avg_ms::numeric, 3),
           -- telemetry: the machine's CPU busy, the top waits, checkpoints completed
           pg_catalog.round(pgbench_lab_internal.run_cpu_busy(l.run_id)::numeric, 1),
           pgbench_lab_internal.waits_text(l.run_id),
           (SELECT pg_catalog.sum(t.checkpoints)::pg_catalog.int8 FROM pgbench_lab.run_telemetry t
             WHERE t.run_id OPERATOR(pg_catalog.=) l.run_id)
      FROM l CROSS JOIN f
     ORDER BY l.n;
END
$$;
COMMENT ON FUNCTION pgbench_lab.compare(bigint[]) IS
    'Runs side by side in the order given, with the path their clients took, ratios to the first, the server settings that differ, the rate and schedule lag of rate-limited runs, and the machine''s CPU, the waits and the checkpoints of runs with telemetry';


-- A run's per-second progress aggregated over intervals of whole seconds,
-- as pgbench's --aggregate-interval does for its log: sums and maxima are
-- exact; averages are weighted by each second's committed transactions
-- (latency, lag) or by its length (hit ratio, which has no counts per
-- second).  Invoker's rights: row-level security shows the caller's runs.
CREATE FUNCTION pgbench_lab.progress(run_id bigint, every interval DEFAULT '1 s')
RETURNS TABLE (from_second integer, to_second integer, seconds double precision, transactions bigint,
               tps double precision, latency_avg_ms double precision, latency_max_ms double precision,
               failures bigint, hit_ratio double precision, lag_avg_ms double precision,
               lag_max_ms double precision, late bigint, skipped bigint)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    n pg_catalog.float8;
BEGIN
    IF run_id IS NULL OR every IS NULL THEN
        RAISE EXCEPTION '% must not be null', CASE WHEN run_id IS NULL THEN 'run_id' ELSE 'every' END
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Pass a run_id from pgbench_lab.runs and an interval of whole seconds, for example ''10 s''.';
    END IF;
    n := pg_catalog.date_part('epoch', every);
    IF NOT (n OPERATOR(pg_catalog.>=) 1 AND n OPERATOR(pg_catalog.<=) 864000)
       OR n OPERATOR(pg_catalog.<>) pg_catalog.trunc(n) THEN
        RAISE EXCEPTION 'every must be a whole number of seconds from 1 s to 10 days, not %', every
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Progress is recorded once a second; pass, for example, ''10 s'' or ''1 min''.';
    END IF;
    PERFORM pgbench_lab_internal.check_ids(ARRAY[run_id], false);
    RETURN QUERY
    SELECT a.k, a.last, a.secs, a.tx::pg_catalog.int8,
           pgbench_lab_internal.float8_of(a.tx OPERATOR(pg_catalog./) CASE WHEN a.secs OPERATOR(pg_catalog.>) 0 THEN a.secs::numeric END),
           pgbench_lab_internal.float8_of(a.lat OPERATOR(pg_catalog./) CASE WHEN a.lat_tx OPERATOR(pg_catalog.>) 0 THEN a.lat_tx END),
           a.lat_max, a.fail::pg_catalog.int8,
           pgbench_lab_internal.float8_of(a.hit OPERATOR(pg_catalog./) CASE WHEN a.hit_secs OPERATOR(pg_catalog.>) 0 THEN a.hit_secs::numeric END),
           pgbench_lab_internal.float8_of(a.lag OPERATOR(pg_catalog./) CASE WHEN a.lag_tx OPERATOR(pg_catalog.>) 0 THEN a.lag_tx END),
           a.lag_max, a.late::pg_catalog.int8, a.skipped::pg_catalog.int8
      -- in numeric: the products of figures and counts an imported document
      -- may hold are past double precision, or below it
      FROM (SELECT (g.k OPERATOR(pg_catalog.*) n)::pg_catalog.int4 OPERATOR(pg_catalog.+) 1 AS k,
                   pg_catalog.max(p.second) AS last, pg_catalog.sum(p.interval_seconds) AS secs,
                   pg_catalog.sum(p.transactions) AS tx,
                   pg_catalog.sum(p.latency_avg_ms::numeric OPERATOR(pg_catalog.*) p.transactions) AS lat,
                   pg_catalog.sum(p.transactions) FILTER (WHERE p.latency_avg_ms IS NOT NULL) AS lat_tx,
                   pg_catalog.max(p.latency_max_ms) AS lat_max, pg_catalog.sum(p.failures) AS fail,
                   pg_catalog.sum(p.hit_ratio::numeric OPERATOR(pg_catalog.*) p.interval_seconds::numeric) AS hit,
                   pg_catalog.sum(p.interval_seconds) FILTER (WHERE p.hit_ratio IS NOT NULL) AS hit_secs,
                   pg_catalog.sum(p.lag_avg_ms::numeric OPERATOR(pg_catalog.*) p.transactions) AS lag,
                   pg_catalog.sum(p.transactions) FILTER (WHERE p.lag_avg_ms IS NOT NULL) AS lag_tx,
                   pg_catalog.max(p.lag_max_ms) AS lag_max, pg_catalog.sum(p.late) AS late,
                   pg_catalog.sum(p.skipped) AS skipped
              FROM pgbench_lab.run_progress p,
                   LATERAL (SELECT pg_catalog.floor((p.second OPERATOR(pg_catalog.-) 1) OPERATOR(pg_catalog./) n) AS k) g
             WHERE p.run_id OPERATOR(pg_catalog.=) progress.run_id
             GROUP BY g.k) a
     ORDER BY a.k;
END
$$;
COMMENT ON FUNCTION pgbench_lab.progress(bigint, interval) IS
    'A run''s per-second progress over intervals of whole seconds (pgbench''s --aggregate-interval): transactions, tps, latency, failures, hit ratio, lag, late and skipped';

GRANT EXECUTE ON FUNCTION pgbench_lab.report(bigint), pgbench_lab.compare(bigint[]),
    pgbench_lab.progress(bigint, interval) TO pg_monitor;
