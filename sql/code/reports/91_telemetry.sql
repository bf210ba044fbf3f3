-- ---------------------------------------------------------------------------
-- Where the time went: the report() section drawn from run_telemetry (the
-- coordinator's per-second CPU, checkpoint, WAL and wait-event rows).
-- ---------------------------------------------------------------------------

-- The run's wait-event profile: each "type:event" (CPU: no wait event) with
-- its samples and share of all samples, largest first.
CREATE FUNCTION pgbench_lab_internal.wait_profile(run_id bigint)
RETURNS TABLE (wait text, samples bigint, share double precision)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT w.key, pg_catalog.sum(w.value::pg_catalog.int8)::pg_catalog.int8,
           pg_catalog.sum(w.value::pg_catalog.int8)::pg_catalog.float8
               OPERATOR(pg_catalog./) pg_catalog.sum(pg_catalog.sum(w.value::pg_catalog.int8)) OVER ()
      FROM pgbench_lab.run_telemetry t, pg_catalog.jsonb_each_text(t.waits) AS w
     WHERE t.run_id OPERATOR(pg_catalog.=) wait_profile.run_id
     GROUP BY w.key
    HAVING pg_catalog.sum(w.value::pg_catalog.int8) OPERATOR(pg_catalog.>) 0
     ORDER BY 2 DESC, 1
$$;

-- The run's top waits in words, 'CPU 62%, IO:WALSync 30%, LWLock:WALWrite 5%'
-- (entries of at least 1 %, up to n); NULL without telemetry.
CREATE FUNCTION pgbench_lab_internal.waits_text(run_id bigint, n integer DEFAULT 3)
RETURNS text LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pg_catalog.string_agg(pg_catalog.format('%s %s%%', p.wait, pgbench_lab_internal.fmt(100 OPERATOR(pg_catalog.*) p.share, 0)),
                                 ', ' ORDER BY p.j)
      FROM (SELECT w.wait, w.share, pg_catalog.row_number() OVER (ORDER BY w.samples DESC, w.wait) AS j
              FROM pgbench_lab_internal.wait_profile(waits_text.run_id) w) p
     WHERE p.j OPERATOR(pg_catalog.<=) n AND (p.share OPERATOR(pg_catalog.>=) 0.01 OR p.j OPERATOR(pg_catalog.=) 1)
$$;

-- The machine's CPU busy (all but idle and iowait) over a run's full
-- seconds, in %; NULL without telemetry.  The figure behind the 85 % rule (the
-- client-count sweep article): the notes below, and for sweeps the client
-- count at which it is passed.
CREATE FUNCTION pgbench_lab_internal.run_cpu_busy(run_id bigint)
RETURNS double precision LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pg_catalog.avg(100 OPERATOR(pg_catalog.-) t.cpu_idle_pct OPERATOR(pg_catalog.-) t.cpu_iowait_pct)
      FROM pgbench_lab.run_telemetry t
     WHERE t.run_id OPERATOR(pg_catalog.=) run_cpu_busy.run_id AND t.interval_seconds OPERATOR(pg_catalog.>=) 0.5
$$;

-- Plain words drawn from the telemetry: what bound the run.
CREATE FUNCTION pgbench_lab_internal.telemetry_notes(run_id bigint)
RETURNS SETOF text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    cpu_share pg_catalog.float8;
    top_wait pg_catalog.text;
    top_share pg_catalog.float8;
    wal_share pg_catalog.float8;
    read_share pg_catalog.float8;
    busy pg_catalog.float8;
    iowait pg_catalog.float8;
    ck_tps pg_catalog.float8;
    other_tps pg_catalog.float8;
    ck_n pg_catalog.int8;
    ck_secs pg_catalog.int8;
    disk_busy pg_catalog.float8;
BEGIN
    SELECT coalesce(pg_catalog.sum(p.share) FILTER (WHERE p.wait OPERATOR(pg_catalog.=) 'CPU'), 0),
           coalesce(pg_catalog.sum(p.share) FILTER (WHERE p.wait OPERATOR(pg_catalog.~*) '^(IO:WAL|LWLock:WAL)'), 0),
           coalesce(pg_catalog.sum(p.share) FILTER (WHERE p.wait OPERATOR(pg_catalog.~*) '^IO:DataFile'), 0)
      INTO cpu_share, wal_share, read_share
      FROM pgbench_lab_internal.wait_profile(telemetry_notes.run_id) p;
    SELECT p.wait, p.share INTO top_wait, top_share
      FROM pgbench_lab_internal.wait_profile(telemetry_notes.run_id) p
     WHERE p.wait OPERATOR(pg_catalog.<>) 'CPU' LIMIT 1;
    IF cpu_share OPERATOR(pg_catalog.>=) 0.8 THEN
        RETURN QUERY SELECT pg_catalog.format('CPU-bound: the clients waited on nothing %s %% of the time (they were running, or ready to run).',
                                      pgbench_lab_internal.fmt(100 OPERATOR(pg_catalog.*) cpu_share, 0));
    END IF;
    IF wal_share OPERATOR(pg_catalog.>=) 0.2 THEN
        RETURN QUERY SELECT pg_catalog.format('Commit-bound: the clients waited on writing and flushing WAL %s %% of the time; the storage''s flush rate sets the pace (synchronous_commit = off trades the last transactions in a crash for it).',
                                      pgbench_lab_internal.fmt(100 OPERATOR(pg_catalog.*) wal_share, 0));
    END IF;
    IF read_share OPERATOR(pg_catalog.>=) 0.2 THEN
        RETURN QUERY SELECT pg_catalog.format('Read-bound: the clients waited on data file reads %s %% of the time: the pages they needed were not in shared buffers.',
                                      pgbench_lab_internal.fmt(100 OPERATOR(pg_catalog.*) read_share, 0));
    END IF;
    IF top_share OPERATOR(pg_catalog.>=) 0.2 AND NOT top_wait OPERATOR(pg_catalog.~*) '^(IO:WAL|LWLock:WAL|IO:DataFile)' THEN
        RETURN QUERY SELECT pg_catalog.format('The clients waited on %s %s %% of the time.', top_wait,
                                      pgbench_lab_internal.fmt(100 OPERATOR(pg_catalog.*) top_share, 0));
    END IF;
    busy := pgbench_lab_internal.run_cpu_busy(telemetry_notes.run_id);
    SELECT pg_catalog.avg(t.cpu_iowait_pct)
      INTO iowait
      FROM pgbench_lab.run_telemetry t
     WHERE t.run_id OPERATOR(pg_catalog.=) telemetry_notes.run_id AND t.interval_seconds OPERATOR(pg_catalog.>=) 0.5;
    IF busy OPERATOR(pg_catalog.>=) 85 THEN
        RETURN QUERY SELECT pg_catalog.format('The machine''s CPU was %s %% busy on average: above about 85 %% the machine, not the server''s settings, is the limit: a sweep of client counts that looks for a server''s capacity keeps the machine''s CPU under 85 %%.',
                                      pgbench_lab_internal.fmt(busy, 0));
    END IF;
    SELECT pg_catalog.avg(t.disk_busy_pct) INTO disk_busy
      FROM pgbench_lab.run_telemetry t
     WHERE t.run_id OPERATOR(pg_catalog.=) telemetry_notes.run_id AND t.interval_seconds OPERATOR(pg_catalog.>=) 0.5;
    IF disk_busy OPERATOR(pg_catalog.>=) 80 THEN
        RETURN QUERY SELECT pg_catalog.format('The data directory''s disk had I/O in flight %s %% of the time on average: it was (nearly) always busy.',
                                      pgbench_lab_internal.fmt(disk_busy, 0));
    END IF;
    IF iowait OPERATOR(pg_catalog.>=) 20 THEN
        RETURN QUERY SELECT pg_catalog.format('iowait %s %% on average: storage-bound.', pgbench_lab_internal.fmt(iowait, 0));
    END IF;
    -- checkpoints: TPS in their seconds and the few after, against the rest
    SELECT pg_catalog.count(*) FILTER (WHERE t.checkpoints OPERATOR(pg_catalog.>) 0),
           pgbench_lab_internal.float8_of(pg_catalog.avg(p.tps::numeric) FILTER (WHERE k.near)),
           pgbench_lab_internal.float8_of(pg_catalog.avg(p.tps::numeric) FILTER (WHERE NOT k.near)),
           pg_catalog.count(*) FILTER (WHERE k.near)
      INTO ck_n, ck_tps, other_tps, ck_secs
      FROM pgbench_lab.run_progress p
      JOIN pgbench_lab.run_telemetry t USING (run_id, second)
     CROSS JOIN LATERAL (SELECT EXISTS (SELECT FROM pgbench_lab.run_telemetry c
                                         WHERE c.run_id OPERATOR(pg_catalog.=) p.run_id
                                           AND c.checkpoints OPERATOR(pg_catalog.>) 0
                                           AND p.second OPERATOR(pg_catalog.>=) c.second
                                           AND p.second OPERATOR(pg_catalog.<) (c.second::pg_catalog.int8 OPERATOR(pg_catalog.+) 3)) AS near) k
     WHERE p.run_id OPERATOR(pg_catalog.=) telemetry_notes.run_id AND p.interval_seconds OPERATOR(pg_catalog.>=) 0.5;
    IF ck_n OPERATOR(pg_catalog.>) 0 AND other_tps OPERATOR(pg_catalog.>) 0 THEN
        RETURN QUERY SELECT pg_catalog.format('%s checkpoint(s) completed during the run (▲ under the CPU chart): TPS in their seconds and the two after averaged %s, %s %% %s the other seconds'' %s.',
                                      ck_n, pgbench_lab_internal.fmt(ck_tps),
                                      pgbench_lab_internal.fmt(pg_catalog.abs(100 OPERATOR(pg_catalog.*) (pgbench_lab_internal.ratio(ck_tps, other_tps) OPERATOR(pg_catalog.-) 1)), 0),
                                      CASE WHEN ck_tps OPERATOR(pg_catalog.<) other_tps THEN 'below' ELSE 'above' END,
                                      pgbench_lab_internal.fmt(other_tps));
    END IF;
END
$$;

-- The section (none for a run without telemetry; it ends with a blank
-- line): the wait-event profile, CPU per second in the columns of
-- the TPS chart above it (same grouping as run_charts()), checkpoints
-- marked, WAL and buffers written, and the notes.
CREATE FUNCTION pgbench_lab_internal.telemetry_lines(run_id bigint)
RETURNS SETOF text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    per pg_catalog.int4;
    samples pg_catalog.int8;
    busy pg_catalog.float8[];
    iow pg_catalog.float8[];
    own pg_catalog.float8[];
    ckpt pg_catalog.text;
    disk pg_catalog.float8[];
    device pg_catalog.text;
    cpus pg_catalog.float8;
    f record;
BEGIN
    IF NOT EXISTS (SELECT FROM pgbench_lab.run_telemetry x WHERE x.run_id OPERATOR(pg_catalog.=) telemetry_lines.run_id) THEN
        RETURN;					-- telemetry off, or a run older than it: no section
    END IF;
    SELECT pg_catalog.sum(x.wait_samples) INTO samples FROM pgbench_lab.run_telemetry x
     WHERE x.run_id OPERATOR(pg_catalog.=) telemetry_lines.run_id;
    SELECT CASE WHEN r.system OPERATOR(pg_catalog.->>) 'cpus_effective' OPERATOR(pg_catalog.~) '^[0-9]{1,9}(\.[0-9]{1,6})?$'
                THEN (r.system OPERATOR(pg_catalog.->>) 'cpus_effective')::pg_catalog.float8 END,
           r.system OPERATOR(pg_catalog.->>) 'data_device'
      INTO cpus, device FROM pgbench_lab.runs r WHERE r.run_id OPERATOR(pg_catalog.=) telemetry_lines.run_id;
    IF samples OPERATOR(pg_catalog.>) 0 THEN
        RETURN QUERY SELECT pg_catalog.format('Where the time went (the clients'' wait events, sampled %s times, about every 10 ms)', samples);
        FOR f IN SELECT p.wait, p.share FROM pgbench_lab_internal.wait_profile(telemetry_lines.run_id) p LIMIT 6 LOOP
            RETURN QUERY SELECT pg_catalog.format('  %s %s %s', pg_catalog.rpad(CASE WHEN f.wait OPERATOR(pg_catalog.=) 'CPU' THEN 'CPU (no wait event)'
                                                                                       WHEN f.wait OPERATOR(pg_catalog.=) 'Idle:Pacing' THEN 'Idle:Pacing (rate, \sleep)'
                                                                                       ELSE f.wait END, 26),
                                          pg_catalog.lpad(pgbench_lab_internal.fmt(100 OPERATOR(pg_catalog.*) f.share) OPERATOR(pg_catalog.||) ' %', 7),
                                          pgbench_lab_internal.hbar(f.share, 1, 40));
        END LOOP;
    ELSE
        RETURN QUERY SELECT 'Where the time went (measured on this server and its machine, where the clients ran, whatever their target; clients over libpq have no wait events sampled: their work is done by other backends)';
    END IF;
    -- per-second rows, grouped as run_charts() groups the TPS chart
    SELECT pg_catalog.ceil(pg_catalog.count(*) OPERATOR(pg_catalog./) 60.0)::integer INTO per
      FROM pgbench_lab.run_progress p
     WHERE p.run_id OPERATOR(pg_catalog.=) telemetry_lines.run_id AND p.interval_seconds OPERATOR(pg_catalog.>=) 0.5;
    IF per OPERATOR(pg_catalog.>) 0 THEN
        SELECT pg_catalog.array_agg(q.b ORDER BY q.g), pg_catalog.array_agg(q.i ORDER BY q.g),
               pg_catalog.array_agg(q.o ORDER BY q.g),
               pg_catalog.string_agg(CASE WHEN q.c OPERATOR(pg_catalog.>) 0 THEN '▲' ELSE ' ' END, '' ORDER BY q.g),
               pg_catalog.array_agg(q.d ORDER BY q.g)
          INTO busy, iow, own, ckpt, disk
          FROM (SELECT (p.second OPERATOR(pg_catalog.-) 1) OPERATOR(pg_catalog./) per AS g,
                       pg_catalog.avg(100 OPERATOR(pg_catalog.-) x.cpu_idle_pct OPERATOR(pg_catalog.-) x.cpu_iowait_pct) AS b,
                       pg_catalog.avg(x.cpu_iowait_pct) AS i,
                       -- in numeric: an imported document's CPU seconds
                       -- may be past what double precision divides and averages
                       pgbench_lab_internal.to_float8(pg_catalog.avg(100 OPERATOR(pg_catalog.*) x.run_cpu_seconds::numeric
                                          OPERATOR(pg_catalog./) CASE WHEN cpus OPERATOR(pg_catalog.>) 0
                                                                      THEN x.interval_seconds::numeric OPERATOR(pg_catalog.*) cpus::numeric END)) AS o,
                       pg_catalog.sum(x.checkpoints) AS c, pg_catalog.avg(x.disk_busy_pct) AS d
                  FROM pgbench_lab.run_progress p
                  LEFT JOIN pgbench_lab.run_telemetry x USING (run_id, second)
                 WHERE p.run_id OPERATOR(pg_catalog.=) telemetry_lines.run_id AND p.interval_seconds OPERATOR(pg_catalog.>=) 0.5
                 GROUP BY 1) q;
        RETURN QUERY SELECT pg_catalog.format('CPU (and the data disk''s busy time) per second, in the TPS chart''s columns (▁ = 0 %%, █ = 100 %%; ▲ = a checkpoint completed)');
        RETURN QUERY SELECT pg_catalog.format('%s │%s', pg_catalog.lpad('machine', 8), pgbench_lab_internal.spark(busy, 0, 100));
        RETURN QUERY SELECT pg_catalog.format('%s │%s', pg_catalog.lpad('iowait', 8), pgbench_lab_internal.spark(iow, 0, 100));
        IF cpus OPERATOR(pg_catalog.>) 0 THEN
            RETURN QUERY SELECT pg_catalog.format('%s │%s', pg_catalog.lpad('this run', 8), pgbench_lab_internal.spark(own, 0, 100));
        END IF;
        IF EXISTS (SELECT FROM pg_catalog.unnest(disk) AS u WHERE u IS NOT NULL) THEN
            RETURN QUERY SELECT pg_catalog.format('%s │%s', pg_catalog.lpad('disk', 8), pgbench_lab_internal.spark(disk, 0, 100));
        END IF;
        RETURN QUERY SELECT pg_catalog.format('%s │%s', pg_catalog.lpad('ckpt', 8), ckpt);
    END IF;
    SELECT pg_catalog.avg(x.cpu_user_pct) AS u, pg_catalog.avg(x.cpu_system_pct) AS s, pg_catalog.avg(x.cpu_iowait_pct) AS w,
           pg_catalog.avg(x.cpu_steal_pct) AS st, pg_catalog.avg(x.cpu_idle_pct) AS id,
           pg_catalog.sum(x.run_cpu_seconds) AS own, pg_catalog.sum(x.interval_seconds) AS secs,
           pg_catalog.sum(x.wal_records) AS rec, pg_catalog.sum(x.wal_fpi) AS fpi, pg_catalog.sum(x.wal_bytes) AS wb,
           pg_catalog.sum(x.buffers_checkpoint) AS bc, pg_catalog.sum(x.buffers_clean) AS bw, pg_catalog.sum(x.buffers_backend) AS bb,
           pg_catalog.sum(x.temp_files) AS tf, pg_catalog.sum(x.temp_bytes) AS tb,
           pg_catalog.sum(x.disk_reads) AS dr, pg_catalog.sum(x.disk_read_bytes) AS drb,
           pg_catalog.sum(x.disk_writes) AS dw, pg_catalog.sum(x.disk_write_bytes) AS dwb, pg_catalog.avg(x.disk_busy_pct) AS db
      INTO f
      FROM pgbench_lab.run_telemetry x WHERE x.run_id OPERATOR(pg_catalog.=) telemetry_lines.run_id;
    RETURN QUERY SELECT pg_catalog.format('  machine CPU   user %s %%, system %s %%, iowait %s %%, steal %s %%, idle %s %%',
                                  pgbench_lab_internal.fmt(f.u), pgbench_lab_internal.fmt(f.s), pgbench_lab_internal.fmt(f.w),
                                  pgbench_lab_internal.fmt(f.st), pgbench_lab_internal.fmt(f.id));
    RETURN QUERY SELECT pg_catalog.format('  this run      %s CPU s in %s s (%s of %s CPUs the server may use; coordinator and clients)',
                                  pgbench_lab_internal.fmt(f.own, 2), pgbench_lab_internal.fmt(f.secs),
                                  pgbench_lab_internal.fmt(pgbench_lab_internal.ratio(f.own, f.secs), 2),
                                  pgbench_lab_internal.fmt(cpus, 2));
    RETURN QUERY SELECT pg_catalog.format('  WAL           %s records, %s full-page images, %s',
                                  coalesce(f.rec::pg_catalog.text, '-'), coalesce(f.fpi::pg_catalog.text, '-'),
                                  coalesce(pg_catalog.pg_size_pretty(f.wb), '-'));
    RETURN QUERY SELECT pg_catalog.format('  buffers written by the checkpointer %s, the background writer %s, other processes %s',
                                  coalesce(f.bc::pg_catalog.text, '-'), coalesce(f.bw::pg_catalog.text, '-'),
                                  coalesce(f.bb::pg_catalog.text, '-'));
    IF f.tf IS NOT NULL THEN
        RETURN QUERY SELECT pg_catalog.format('  temp files    %s (%s) in this database', f.tf, pg_catalog.pg_size_pretty(f.tb));
    END IF;
    IF f.db IS NOT NULL THEN
        RETURN QUERY SELECT pg_catalog.format('  disk %s  %s reads (%s), %s writes (%s), busy %s %% of the time',
                                      coalesce(device, '-'), f.dr, pg_catalog.pg_size_pretty(f.drb), f.dw,
                                      pg_catalog.pg_size_pretty(f.dwb), pgbench_lab_internal.fmt(f.db));
    END IF;
    RETURN QUERY SELECT x.w FROM pgbench_lab_internal.telemetry_notes(telemetry_lines.run_id) WITH ORDINALITY AS n(t, i),
                                 pgbench_lab_internal.wrap(n.t, '  - ') WITH ORDINALITY AS x(w, j)
                        ORDER BY n.i, x.j;
    RETURN QUERY SELECT '';
END
$$;
