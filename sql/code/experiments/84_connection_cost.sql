
-- ---------------------------------------------------------------------------
-- connection_cost(): the same workload in-server, over persistent libpq
-- connections (like pgbench -M prepared) and with a new connection per
-- transaction (like pgbench -C), as one experiment of three runs with the
-- same clients and duration; its finding gives their TPS and the ratios.
-- ---------------------------------------------------------------------------

-- The plan: the three paths in that order, under one label; any run that
-- does not finish stops the experiment.  The target (which may hold a
-- password) goes to the libpq runs' arguments only, never into params.
-- The in-server run needs a worker slot per client: when this server has
-- too few free, it is left out and said so (a connection storm of hundreds
-- of clients is what the libpq paths, a few workers each, are for).
--
-- Every run option goes to the runs (options), but via, which the
-- experiment varies (the planner takes it apart from the options, to
-- refuse it; given a target, the options' via is libpq, dropped here), and
-- rate, at which every path would commit the same throughput; the options
-- that only libpq has (target, targets, target_clients, threads) go to the
-- libpq runs only.
CREATE FUNCTION pgbench_lab_internal.connection_cost_plan(workload text, clients integer, duration interval,
                                                 label text, via text, options jsonb, caller jsonb)
RETURNS jsonb LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
SET intervalstyle = 'postgres'
AS $$
DECLARE
    name pg_catalog.text := coalesce(label, 'connection_cost ' OPERATOR(pg_catalog.||) pg_catalog.now()::pg_catalog.text);
    vias pg_catalog.text[] := ARRAY['spi', 'libpq', 'libpq-connect'];
    free_slots pg_catalog.int4;
    left_out pg_catalog.text;
BEGIN
    options := options OPERATOR(pg_catalog.-) 'via';
    IF via IS NOT NULL THEN
        PERFORM pgbench_lab_internal.refuse_option('connection_cost', 'via',
            'it runs the workload each way itself: in-server (spi), over kept libpq connections (libpq) and with a new connection per transaction (libpq-connect)',
            'Leave via out; target or targets send the libpq runs to another server.');
    END IF;
    IF options OPERATOR(pg_catalog.?) 'rate' THEN
        PERFORM pgbench_lab_internal.refuse_option('connection_cost', 'rate',
            'at a fixed rate every path commits the same throughput, so their ratios say nothing of what a connection costs',
            'Leave rate out (latency_limit alone may be given); to compare the paths'' latency at a fixed load, CALL run() with the rate once per via.');
    END IF;
    IF (workload IS NULL AND NOT options OPERATOR(pg_catalog.?|) ARRAY['script', 'scripts']) OR clients IS NULL OR duration IS NULL THEN
        RAISE EXCEPTION '% must not be NULL',
                        CASE WHEN clients IS NULL THEN 'clients' WHEN duration IS NULL THEN 'duration' ELSE 'workload' END
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'connection_cost runs one workload, by time, three ways.';
    END IF;
    -- a count out of range is refused by the runs' own checks
    IF (clients OPERATOR(pg_catalog.>) 0) AND (clients OPERATOR(pg_catalog.<) 1000000) THEN
        free_slots := pgbench_lab_internal.worker_slots_free((clients OPERATOR(pg_catalog.+) 1));
        IF free_slots OPERATOR(pg_catalog.<) (clients OPERATOR(pg_catalog.+) 1) THEN
            left_out := pg_catalog.format('%s clients in-server need %s background worker slots, one each and a '
                                          'coordinator; %s are free of max_worker_processes = %s',
                                          clients, (clients OPERATOR(pg_catalog.+) 1), free_slots,
                                          pg_catalog.current_setting('max_worker_processes'));
            vias := ARRAY['libpq', 'libpq-connect'];
            RAISE NOTICE 'the in-server run is left out: %', left_out
                USING HINT = pg_catalog.format('Set max_worker_processes to at least %s (a restart) to measure it too; '
                                               'the libpq runs drive all their clients from a few workers.',
                                               (((pg_catalog.current_setting('max_worker_processes')::pg_catalog.int4
                                                  OPERATOR(pg_catalog.-) free_slots) OPERATOR(pg_catalog.+) clients) OPERATOR(pg_catalog.+) 1));
        END IF;
    END IF;
    RETURN pg_catalog.jsonb_build_object('workload', pgbench_lab_internal.experiment_workload(workload, options),
        'label', name, 'stop_on_failure', true,
        'params', pgbench_lab_internal.step_options_params(options) OPERATOR(pg_catalog.-) 'settings'
                  OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object('clients', clients, 'duration', duration::pg_catalog.text, 'rounds', 1,
                      'settings', (SELECT pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object('via', v.via) ORDER BY v.i)
                                     FROM pg_catalog.unnest(vias) WITH ORDINALITY AS v(via, i)))
                  OPERATOR(pg_catalog.||) pg_catalog.jsonb_strip_nulls(pg_catalog.jsonb_build_object(
                      'in_server_left_out', left_out)),
        'steps', (SELECT pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object('variant', v.i, 'round', 1,
                             'about', pg_catalog.format('the %s run', v.via),
                             'run', pgbench_lab_internal.step_run(workload,
                                        CASE WHEN v.via OPERATOR(pg_catalog.=) 'spi'
                                             THEN options OPERATOR(pg_catalog.-) ARRAY['target', 'targets', 'target_clients', 'threads']
                                             ELSE options END)
                                    OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object('clients', clients,
                                        'duration', duration::pg_catalog.text, 'label', name, 'via', v.via))
                             ORDER BY v.i)
                    FROM pg_catalog.unnest(vias) WITH ORDINALITY AS v(via, i)));
END
$$;

-- The procedure's INOUT columns: the label, the three runs, their TPS, the
-- TPS of the libpq-connect run without connecting, its mean connection
-- time, the two ratios and a sentence (which says why the in-server run is
-- missing when it was left out).
CREATE FUNCTION pgbench_lab_internal.connection_cost_result(id bigint)
RETURNS TABLE (label text, spi_run_id bigint, libpq_run_id bigint, connect_run_id bigint,
               spi_tps double precision, libpq_tps double precision, connect_tps double precision,
               connect_tps_without_connections double precision, connection_avg_ms double precision,
               spi_vs_libpq double precision, libpq_vs_connect double precision, finding text)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    -- each variant's path as the plan gave it (params.settings[variant])
    WITH x AS (
        SELECT (e.params OPERATOR(pg_catalog.->) 'settings' OPERATOR(pg_catalog.->) (er.variant OPERATOR(pg_catalog.-) 1))
                   OPERATOR(pg_catalog.->>) 'via' AS via,
               r.run_id, r.tps, r.tps_without_connections, r.connection_avg_ms
          FROM pgbench_lab.experiment_runs er
          JOIN pgbench_lab.experiments e ON e.experiment_id OPERATOR(pg_catalog.=) er.experiment_id
          JOIN pgbench_lab.runs r ON r.run_id OPERATOR(pg_catalog.=) er.run_id
         WHERE er.experiment_id OPERATOR(pg_catalog.=) id),
    f AS (
        SELECT e.label, e.params OPERATOR(pg_catalog.->>) 'in_server_left_out' AS left_out,
               s.run_id AS sid, l.run_id AS lid, c.run_id AS cid,
               s.tps AS spi, l.tps AS libpq, c.tps AS conn, c.tps_without_connections AS conn_wo,
               c.connection_avg_ms AS ms,
               CASE WHEN l.tps OPERATOR(pg_catalog.<>) 0::pg_catalog.float8 THEN s.tps OPERATOR(pg_catalog./) l.tps END AS spi_libpq,
               CASE WHEN c.tps OPERATOR(pg_catalog.<>) 0::pg_catalog.float8 THEN l.tps OPERATOR(pg_catalog./) c.tps END AS libpq_conn
          FROM pgbench_lab.experiments e
          LEFT JOIN x s ON s.via OPERATOR(pg_catalog.=) 'spi'
          LEFT JOIN x l ON l.via OPERATOR(pg_catalog.=) 'libpq'
          LEFT JOIN x c ON c.via OPERATOR(pg_catalog.=) 'libpq-connect'
         WHERE e.experiment_id OPERATOR(pg_catalog.=) id)
    SELECT f.label, f.sid, f.lid, f.cid, f.spi, f.libpq, f.conn, f.conn_wo, f.ms, f.spi_libpq, f.libpq_conn,
           CASE WHEN f.sid IS NULL
                THEN pg_catalog.format('in-server not run (%s); over persistent libpq connections %s tps; ',
                                       f.left_out, pg_catalog.round(f.libpq::pg_catalog.numeric))
                ELSE pg_catalog.format('in-server %s tps; over persistent libpq connections %s tps (%s times fewer); ',
                                       pg_catalog.round(f.spi::pg_catalog.numeric), pg_catalog.round(f.libpq::pg_catalog.numeric),
                                       pg_catalog.round(f.spi_libpq::pg_catalog.numeric, 1)) END
           OPERATOR(pg_catalog.||)
           pg_catalog.format('with a new connection per transaction %s tps (%s times fewer than persistent)',
                             pg_catalog.round(f.conn::pg_catalog.numeric),
                             pg_catalog.round(f.libpq_conn::pg_catalog.numeric, 1))
           OPERATOR(pg_catalog.||)
           CASE WHEN f.ms IS NOT NULL
                THEN pg_catalog.format(', %s ms per connection', pg_catalog.round(f.ms::pg_catalog.numeric, 2))
                ELSE '' END
      FROM f
$$;

-- The report: the runs as sets of settings (their via), then the finding,
-- which says why the in-server run is missing when it was left out.
CREATE FUNCTION pgbench_lab_internal.report_connection_cost(experiment_id bigint)
RETURNS SETOF text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN QUERY SELECT l FROM pgbench_lab_internal.report_settings(experiment_id) AS l;
    RETURN QUERY SELECT '';
    RETURN QUERY SELECT pgbench_lab_internal.wrap('Connection cost: ' OPERATOR(pg_catalog.||) r.finding, '')
                   FROM pgbench_lab_internal.connection_cost_result(experiment_id) AS r;
END
$$;

-- Bound to the experiments driver (src/experiment.c), with no SET clause:
-- it commits between its runs.
CREATE PROCEDURE pgbench_lab.connection_cost(
    workload text DEFAULT 'select-only',
    clients integer DEFAULT 4,
    duration interval DEFAULT '10 s',
    target text DEFAULT NULL,
    scripts text[] DEFAULT NULL,
    variables jsonb DEFAULT NULL,
    INOUT label text DEFAULT NULL,
    INOUT spi_run_id bigint DEFAULT NULL,
    INOUT libpq_run_id bigint DEFAULT NULL,
    INOUT connect_run_id bigint DEFAULT NULL,
    INOUT spi_tps double precision DEFAULT NULL,
    INOUT libpq_tps double precision DEFAULT NULL,
    INOUT connect_tps double precision DEFAULT NULL,
    INOUT connect_tps_without_connections double precision DEFAULT NULL,
    INOUT connection_avg_ms double precision DEFAULT NULL,
    INOUT spi_vs_libpq double precision DEFAULT NULL,
    INOUT libpq_vs_connect double precision DEFAULT NULL,
    INOUT finding text DEFAULT NULL,
    @RUN_OPTIONS_EXCEPT workload clients duration transactions label target scripts variables@)
LANGUAGE c
AS 'MODULE_PATHNAME', 'pgbench_lab_experiment';
COMMENT ON PROCEDURE pgbench_lab.connection_cost IS
    'The same workload in-server, over persistent libpq connections and with a new connection per transaction; TPS and ratios';
REVOKE ALL ON PROCEDURE pgbench_lab.connection_cost FROM PUBLIC;

INSERT INTO pgbench_lab.experiment_kinds (kind, procedure, planner, preparation, finding, report, description)
VALUES ('connection_cost', 'pgbench_lab.connection_cost'::pg_catalog.regproc,
        'pgbench_lab_internal.connection_cost_plan'::pg_catalog.regproc, NULL,
        'pgbench_lab_internal.connection_cost_result(bigint)', 'pgbench_lab_internal.report_connection_cost(bigint)',
        'The same workload in-server, over persistent libpq connections and with a new connection per transaction')
ON CONFLICT (kind) DO UPDATE SET procedure = EXCLUDED.procedure, planner = EXCLUDED.planner,
    preparation = EXCLUDED.preparation, finding = EXCLUDED.finding, report = EXCLUDED.report,
    description = EXCLUDED.description;
