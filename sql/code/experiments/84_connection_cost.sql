
-- ---------------------------------------------------------------------------
-- connection_cost(): the same workload in-server, over persistent libpq
-- connections (like pgbench -M prepared) and with a new connection per
-- transaction (like pgbench -C), as one experiment of rounds of three runs
-- with the same clients and duration, each round in the other order than
-- the one before (in-server, libpq, libpq-connect, then the reverse); its
-- finding gives their TPS and the verdicts of the two ratios it states,
-- in-server against libpq (in-server TPS / libpq TPS: what the protocol
-- costs) and libpq against libpq-connect (what a new connection per
-- transaction costs), paired by round and judged by
-- paired_verdict() (71_verdict.sql).
-- ---------------------------------------------------------------------------

-- The plan: the three paths in each round, under one label; any run that
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
                                                 label text, via text, rounds integer, options jsonb, caller jsonb,
                                                 smallest_effect double precision, confidence double precision)
RETURNS jsonb LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
SET intervalstyle = 'postgres'
AS $$
DECLARE
    name pg_catalog.text := coalesce(label, 'connection_cost ' OPERATOR(pg_catalog.||) pg_catalog.now()::pg_catalog.text);
    vias pg_catalog.text[] := ARRAY['spi', 'libpq', 'libpq-connect'];
    free_slots pg_catalog.int4;
    left_out pg_catalog.text;
    verdict pg_catalog.jsonb;
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
    IF rounds IS NULL THEN
        RAISE EXCEPTION 'rounds must not be null'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Leave it out for one round (figures without an interval), or give 6 or more for a verdict at 95 % confidence.';
    END IF;
    IF rounds OPERATOR(pg_catalog.<) 1 OR rounds OPERATOR(pg_catalog.>) 100 THEN
        RAISE EXCEPTION 'rounds must be from 1 to 100, not %', rounds
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Six rounds or more give a verdict at 95 % confidence; each round runs every path once.';
    END IF;
    verdict := pgbench_lab_internal.verdict_params(smallest_effect, confidence);
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
                  OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object('clients', clients, 'duration', duration::pg_catalog.text, 'rounds', rounds,
                      'settings', (SELECT pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object('via', v.via) ORDER BY v.i)
                                     FROM pg_catalog.unnest(vias) WITH ORDINALITY AS v(via, i)))
                  OPERATOR(pg_catalog.||) pg_catalog.jsonb_strip_nulls(pg_catalog.jsonb_build_object(
                      'in_server_left_out', left_out))
                  OPERATOR(pg_catalog.||) verdict,
        'steps', (SELECT pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object('variant', v.i, 'round', n.n,
                             'about', pg_catalog.format('the %s run%s', v.via,
                                                        CASE WHEN rounds OPERATOR(pg_catalog.>) 1
                                                             THEN pg_catalog.format(' of round %s', n.n) ELSE '' END),
                             'run', pgbench_lab_internal.step_run(workload,
                                        CASE WHEN v.via OPERATOR(pg_catalog.=) 'spi'
                                             THEN options OPERATOR(pg_catalog.-) ARRAY['target', 'targets', 'target_clients', 'threads']
                                             ELSE options END)
                                    OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object('clients', clients,
                                        'duration', duration::pg_catalog.text, 'label', name, 'via', v.via))
                             ORDER BY n.n, CASE WHEN n.n OPERATOR(pg_catalog.%) 2 OPERATOR(pg_catalog.=) 0
                                                THEN OPERATOR(pg_catalog.-) v.i ELSE v.i END)
                    FROM pg_catalog.generate_series(1, rounds) AS n(n),
                         pg_catalog.unnest(vias) WITH ORDINALITY AS v(via, i)));
END
$$;

-- Per path (variant), over its rounds: its via (params.settings[variant]),
-- the runs and the finished ones, the medians of the finished runs' TPS
-- (with min and max), TPS without connecting and mean connection time, and
-- its run of the first round.
CREATE FUNCTION pgbench_lab_internal.connection_cost_paths(experiment_id bigint)
RETURNS TABLE (variant integer, via text, runs integer, rounds integer,
               tps_median double precision, tps_min double precision, tps_max double precision,
               tps_without_connections_median double precision, connection_avg_ms_median double precision,
               first_run_id bigint)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH x AS (
        SELECT er.variant, er.round,
               (e.params OPERATOR(pg_catalog.->) 'settings' OPERATOR(pg_catalog.->) (er.variant OPERATOR(pg_catalog.-) 1))
                   OPERATOR(pg_catalog.->>) 'via' AS via,
               r.run_id, r.status OPERATOR(pg_catalog.=) 'done' AS done, r.tps, r.tps_without_connections, r.connection_avg_ms
          FROM pgbench_lab.experiment_runs er
          JOIN pgbench_lab.experiments e ON e.experiment_id OPERATOR(pg_catalog.=) er.experiment_id
          JOIN pgbench_lab.runs r ON r.run_id OPERATOR(pg_catalog.=) er.run_id
         WHERE er.experiment_id OPERATOR(pg_catalog.=) connection_cost_paths.experiment_id
           AND e.kind OPERATOR(pg_catalog.=) 'connection_cost')
    SELECT x.variant, pg_catalog.min(x.via), pg_catalog.count(*)::integer,
           pg_catalog.count(*) FILTER (WHERE x.done)::integer,
           pg_catalog.percentile_cont(0.5) WITHIN GROUP (ORDER BY x.tps) FILTER (WHERE x.done),
           pg_catalog.min(x.tps) FILTER (WHERE x.done), pg_catalog.max(x.tps) FILTER (WHERE x.done),
           pg_catalog.percentile_cont(0.5) WITHIN GROUP (ORDER BY x.tps_without_connections) FILTER (WHERE x.done),
           pg_catalog.percentile_cont(0.5) WITHIN GROUP (ORDER BY x.connection_avg_ms) FILTER (WHERE x.done),
           (pg_catalog.array_agg(x.run_id ORDER BY x.round, x.run_id))[1]
      FROM x
     GROUP BY x.variant
     ORDER BY x.variant
$$;

-- The verdicts of a connection_cost experiment, one per ratio it states:
-- in-server against libpq (spi_vs_libpq) and libpq against libpq-connect
-- (libpq_vs_connect), the TPS of the finished runs paired by round and
-- judged by paired_verdict() against the experiment's smallest effect and
-- confidence (0.02 and 0.95 when it recorded none, or none that a verdict
-- can use: an imported document's params are not checked for them).  A
-- ratio whose paths did not both run (the in-server run left out) has no
-- row.
CREATE FUNCTION pgbench_lab_internal.connection_cost_comparisons(experiment_id bigint)
RETURNS TABLE (comparison text, rounds integer, ratio double precision,
               ratio_low double precision, ratio_high double precision, coverage double precision,
               verdict text, decided boolean, basis text, every_round text)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH e AS (
        SELECT x.params,
               pgbench_lab_internal.params_smallest_effect(x.params) AS smallest_effect,
               pgbench_lab_internal.params_confidence(x.params) AS confidence
          FROM pgbench_lab.experiments x
         WHERE x.experiment_id OPERATOR(pg_catalog.=) connection_cost_comparisons.experiment_id
           AND x.kind OPERATOR(pg_catalog.=) 'connection_cost'),
    t AS (
        SELECT (e.params OPERATOR(pg_catalog.->) 'settings' OPERATOR(pg_catalog.->) (x.variant OPERATOR(pg_catalog.-) 1))
                   OPERATOR(pg_catalog.->>) 'via' AS via,
               x.round, CASE WHEN r.status OPERATOR(pg_catalog.=) 'done' THEN r.tps END AS tps
          FROM e CROSS JOIN pgbench_lab.experiment_runs x
          JOIN pgbench_lab.runs r ON r.run_id OPERATOR(pg_catalog.=) x.run_id
         WHERE x.experiment_id OPERATOR(pg_catalog.=) connection_cost_comparisons.experiment_id),
    -- the ratio b/a
    c AS (
        SELECT * FROM (VALUES (1, 'in-server against libpq', 'libpq', 'spi'),
                              (2, 'libpq against libpq-connect', 'libpq-connect', 'libpq')) AS c(i, name, a, b)),
    p AS (
        SELECT c.i, c.name,
               pg_catalog.array_agg(ta.tps ORDER BY n.round) AS a_tps,
               pg_catalog.array_agg(tb.tps ORDER BY n.round) AS b_tps,
               pg_catalog.bool_or(ta.round IS NOT NULL) AND pg_catalog.bool_or(tb.round IS NOT NULL) AS both_ran
          FROM c CROSS JOIN (SELECT DISTINCT t.round FROM t) AS n
          LEFT JOIN t ta ON ta.via OPERATOR(pg_catalog.=) c.a AND ta.round OPERATOR(pg_catalog.=) n.round
          LEFT JOIN t tb ON tb.via OPERATOR(pg_catalog.=) c.b AND tb.round OPERATOR(pg_catalog.=) n.round
         GROUP BY c.i, c.name)
    SELECT p.name, v.rounds, v.ratio, v.ratio_low, v.ratio_high, v.coverage, v.verdict, v.decided, v.basis, v.every_round
      FROM p CROSS JOIN e
      CROSS JOIN LATERAL pgbench_lab.paired_verdict(p.a_tps, p.b_tps, e.smallest_effect, e.confidence) v
     WHERE p.both_ran
     ORDER BY p.i
$$;

-- The verdicts of a connection_cost experiment for experiment_kinds.verdicts
-- (pgbench_lab.experiment_verdicts() reads them): one row per ratio its
-- finding and report give.
CREATE FUNCTION pgbench_lab_internal.connection_cost_verdicts(experiment_id bigint)
RETURNS TABLE (comparison text, measure text, rounds integer, ratio double precision,
               ratio_low double precision, ratio_high double precision, coverage double precision,
               verdict text, decided boolean, basis text)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT c.comparison, 'tps', c.rounds, c.ratio, c.ratio_low, c.ratio_high, c.coverage, c.verdict, c.decided, c.basis
      FROM pgbench_lab_internal.connection_cost_comparisons(experiment_id) c
$$;

-- The procedure's INOUT columns: the label, each path's run of the first
-- round, the medians of their TPS over the rounds, of the libpq-connect
-- runs' TPS without connecting and mean connection time, the two ratios
-- (the medians of the ratios paired by round, as their verdicts give them)
-- and a sentence with the verdicts (which says why the in-server run is
-- missing when it was left out).
CREATE FUNCTION pgbench_lab_internal.connection_cost_result(id bigint)
RETURNS TABLE (label text, spi_run_id bigint, libpq_run_id bigint, connect_run_id bigint,
               spi_tps double precision, libpq_tps double precision, connect_tps double precision,
               connect_tps_without_connections double precision, connection_avg_ms double precision,
               spi_vs_libpq double precision, libpq_vs_connect double precision, finding text)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH x AS (
        SELECT * FROM pgbench_lab_internal.connection_cost_paths(id)),
    v AS (
        SELECT * FROM pgbench_lab_internal.connection_cost_comparisons(id)),
    f AS (
        SELECT e.label, e.params OPERATOR(pg_catalog.->>) 'in_server_left_out' AS left_out,
               s.first_run_id AS sid, l.first_run_id AS lid, c.first_run_id AS cid,
               s.tps_median AS spi, l.tps_median AS libpq, c.tps_median AS conn,
               c.tps_without_connections_median AS conn_wo, c.connection_avg_ms_median AS ms,
               (SELECT v.ratio FROM v WHERE v.comparison OPERATOR(pg_catalog.=) 'in-server against libpq') AS spi_libpq,
               (SELECT v.ratio FROM v WHERE v.comparison OPERATOR(pg_catalog.=) 'libpq against libpq-connect') AS libpq_conn,
               (SELECT pg_catalog.max(x.rounds) FROM x) AS rounds,
               (SELECT pg_catalog.string_agg(pg_catalog.format(' TPS %s %s.', v.comparison,
                           pgbench_lab_internal.verdict_phrase(v.rounds, v.ratio, v.ratio_low, v.ratio_high, v.coverage,
                                                               v.verdict, v.basis, v.every_round)), '')
                  FROM v) AS verdicts
          FROM pgbench_lab.experiments e
          LEFT JOIN x s ON s.via OPERATOR(pg_catalog.=) 'spi'
          LEFT JOIN x l ON l.via OPERATOR(pg_catalog.=) 'libpq'
          LEFT JOIN x c ON c.via OPERATOR(pg_catalog.=) 'libpq-connect'
         WHERE e.experiment_id OPERATOR(pg_catalog.=) id)
    SELECT f.label, f.sid, f.lid, f.cid, f.spi, f.libpq, f.conn, f.conn_wo, f.ms, f.spi_libpq, f.libpq_conn,
           CASE WHEN f.sid IS NULL
                THEN pg_catalog.format('in-server not run (%s); over persistent libpq connections %s tps; ',
                                       f.left_out, pg_catalog.round(f.libpq::pg_catalog.numeric))
                ELSE pg_catalog.format('in-server %s tps; over persistent libpq connections %s tps; ',
                                       pg_catalog.round(f.spi::pg_catalog.numeric), pg_catalog.round(f.libpq::pg_catalog.numeric)) END
           OPERATOR(pg_catalog.||)
           pg_catalog.format('with a new connection per transaction %s tps', pg_catalog.round(f.conn::pg_catalog.numeric))
           OPERATOR(pg_catalog.||)
           CASE WHEN f.ms IS NOT NULL
                THEN pg_catalog.format(', %s ms per connection', pg_catalog.round(f.ms::pg_catalog.numeric, 2))
                ELSE '' END
           OPERATOR(pg_catalog.||)
           CASE WHEN f.rounds OPERATOR(pg_catalog.>) 1 THEN pg_catalog.format(' (medians of %s rounds)', f.rounds) ELSE '' END
           OPERATOR(pg_catalog.||) '.' OPERATOR(pg_catalog.||) coalesce(f.verdicts, '')
           OPERATOR(pg_catalog.||) coalesce(' ' OPERATOR(pg_catalog.||) pgbench_lab_internal.drift_words(id, 'longer runs'), '')
      FROM f
$$;

-- The report: TPS per round (the paths as variants), each path over its
-- rounds (median TPS, min, max, mean connection time), then the finding,
-- with each ratio's verdict, which says why the in-server run is missing
-- when it was left out.
CREATE FUNCTION pgbench_lab_internal.report_connection_cost(experiment_id bigint)
RETURNS SETOF text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN QUERY SELECT 'TPS per round (each round runs every path, in the other order than the round before)';
    RETURN QUERY SELECT pg_catalog.format('  %5s', 'round') OPERATOR(pg_catalog.||)
                        coalesce(pg_catalog.string_agg(pg_catalog.format('  %13s', coalesce(pgbench_lab.printable(p.via), '-')), '' ORDER BY p.variant), '')
                   FROM pgbench_lab_internal.connection_cost_paths(experiment_id) p;
    RETURN QUERY
        SELECT pg_catalog.format('  %5s', x.round) OPERATOR(pg_catalog.||)
               pg_catalog.string_agg(pg_catalog.format('  %13s', CASE WHEN r.status OPERATOR(pg_catalog.=) 'done'
                                                                     THEN pgbench_lab_internal.fmt(r.tps) ELSE r.status END),
                                     '' ORDER BY x.variant)
          FROM pgbench_lab.experiment_runs x JOIN pgbench_lab.runs r ON r.run_id OPERATOR(pg_catalog.=) x.run_id
         WHERE x.experiment_id OPERATOR(pg_catalog.=) report_connection_cost.experiment_id
         GROUP BY x.round ORDER BY x.round;
    RETURN QUERY SELECT '';
    RETURN QUERY SELECT pg_catalog.format('  %-13s  %6s  %10s  %10s  %10s  %14s', 'path', 'rounds', 'median TPS', 'min', 'max',
                                          'ms per connect');
    RETURN QUERY
        SELECT pg_catalog.format('  %-13s  %6s  %10s  %10s  %10s  %14s', coalesce(pgbench_lab.printable(p.via), '-'), p.rounds,
                                 pgbench_lab_internal.fmt(p.tps_median), pgbench_lab_internal.fmt(p.tps_min),
                                 pgbench_lab_internal.fmt(p.tps_max), pgbench_lab_internal.fmt(p.connection_avg_ms_median, 2))
          FROM pgbench_lab_internal.connection_cost_paths(experiment_id) p;
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
    rounds pgbench_lab.rounds DEFAULT 1,
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
    INOUT experiment_id bigint DEFAULT NULL,
    smallest_effect double precision DEFAULT 0.02,
    confidence double precision DEFAULT 0.95,
    @RUN_OPTIONS_EXCEPT workload clients duration transactions label target scripts variables@)
LANGUAGE c
AS 'MODULE_PATHNAME', 'pgbench_lab_experiment';
COMMENT ON PROCEDURE pgbench_lab.connection_cost IS
    'The same workload in-server, over persistent libpq connections and with a new connection per transaction, in rounds; TPS and the verdicts of the ratios';
REVOKE ALL ON PROCEDURE pgbench_lab.connection_cost FROM PUBLIC;

INSERT INTO pgbench_lab.experiment_kinds (kind, procedure, planner, preparation, finding, report, description,
                                          verdicts)
VALUES ('connection_cost', 'pgbench_lab.connection_cost'::pg_catalog.regproc,
        'pgbench_lab_internal.connection_cost_plan'::pg_catalog.regproc, NULL,
        'pgbench_lab_internal.connection_cost_result(bigint)', 'pgbench_lab_internal.report_connection_cost(bigint)',
        'The same workload in-server, over persistent libpq connections and with a new connection per transaction',
        'pgbench_lab_internal.connection_cost_verdicts(bigint)')
ON CONFLICT (kind) DO UPDATE SET procedure = EXCLUDED.procedure, planner = EXCLUDED.planner,
    preparation = EXCLUDED.preparation, finding = EXCLUDED.finding, report = EXCLUDED.report,
    description = EXCLUDED.description, verdicts = EXCLUDED.verdicts;
