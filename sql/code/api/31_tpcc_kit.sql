-- ---------------------------------------------------------------------------
-- TPC-C's kit: the five transactions as pgbench scripts (their text for the
-- schema tpcc; init_tpcc() saves them for its caller with the schema it
-- made) and the consistency conditions of clause 3.3.2 (tpcc_check()).
-- The tables, their population and the kit's server-side functions are
-- made by init_tpcc() (32_tpcc.sql).
-- ---------------------------------------------------------------------------

-- The five scripts as they ship, naming the schema tpcc; init_tpcc() saves
-- them for its caller with the schema it made.  Their texts are the files
-- of sql/tpcc/, written here by the build (sql/run_options.awk).
CREATE FUNCTION pgbench_lab_internal.tpcc_scripts()
RETURNS TABLE (name text, weight integer, body text)
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $fn$
VALUES
    @SCRIPT_FILE tpcc-new-order 45 sql/tpcc/tpcc-new-order.sql@,
    @SCRIPT_FILE tpcc-payment 43 sql/tpcc/tpcc-payment.sql@,
    @SCRIPT_FILE tpcc-order-status 4 sql/tpcc/tpcc-order-status.sql@,
    @SCRIPT_FILE tpcc-delivery 4 sql/tpcc/tpcc-delivery.sql@,
    @SCRIPT_FILE tpcc-stock-level 4 sql/tpcc/tpcc-stock-level.sql@
$fn$;
COMMENT ON FUNCTION pgbench_lab_internal.tpcc_scripts() IS
    'The TPC-C kit''s five pgbench scripts, their weights in the mix and their text for the schema tpcc';

CREATE FUNCTION pgbench_lab.tpcc_check(schema text DEFAULT 'tpcc')
RETURNS TABLE (condition integer, ok boolean, detail text)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    s pg_catalog.text := pg_catalog.quote_ident(schema);
    bad pg_catalog.int8;
    total pg_catalog.int8;
    example pg_catalog.text;
    checks pg_catalog.text[] := ARRAY[
        -- 1: W_YTD = sum(D_YTD) (differs: IS DISTINCT FROM, which would
        -- look = up by name)
        $q$SELECT pg_catalog.count(*) FILTER (WHERE c.differs), pg_catalog.count(*),
                  pg_catalog.min(pg_catalog.format('warehouse %s: W_YTD %s, sum(D_YTD) %s', c.w_id, c.w_ytd, c.ytd))
                      FILTER (WHERE c.differs)
             FROM (SELECT w.w_id, w.w_ytd, y.ytd,
                          COALESCE(w.w_ytd OPERATOR(pg_catalog.<>) y.ytd,
                                   (w.w_ytd IS NULL) OPERATOR(pg_catalog.<>) (y.ytd IS NULL)) AS differs
                     FROM %1$s.warehouse AS w
                     LEFT JOIN (SELECT d_w_id, pg_catalog.sum(d_ytd) AS ytd FROM %1$s.district GROUP BY d_w_id) AS y
                            ON y.d_w_id OPERATOR(pg_catalog.=) w.w_id) AS c$q$,
        -- 2: D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID)
        $q$SELECT pg_catalog.count(*) FILTER (WHERE NOT ok), pg_catalog.count(*),
                  pg_catalog.min(pg_catalog.format('district %s of warehouse %s: D_NEXT_O_ID - 1 = %s, max(O_ID) %s, max(NO_O_ID) %s',
                                                   d_id, d_w_id, d_next_o_id OPERATOR(pg_catalog.-) 1, max_o, max_no)) FILTER (WHERE NOT ok)
             FROM (SELECT d.d_id, d.d_w_id, d.d_next_o_id, o.max_o, n.max_no,
                          ((d.d_next_o_id OPERATOR(pg_catalog.-) 1) OPERATOR(pg_catalog.=) o.max_o
                           AND (n.max_no IS NULL OR n.max_no OPERATOR(pg_catalog.=) o.max_o)) IS TRUE AS ok
                     FROM %1$s.district AS d
                     LEFT JOIN (SELECT o_w_id, o_d_id, pg_catalog.max(o_id) AS max_o FROM %1$s.orders GROUP BY o_w_id, o_d_id) AS o
                            ON o.o_w_id OPERATOR(pg_catalog.=) d.d_w_id AND o.o_d_id OPERATOR(pg_catalog.=) d.d_id
                     LEFT JOIN (SELECT no_w_id, no_d_id, pg_catalog.max(no_o_id) AS max_no FROM %1$s.new_order GROUP BY no_w_id, no_d_id) AS n
                            ON n.no_w_id OPERATOR(pg_catalog.=) d.d_w_id AND n.no_d_id OPERATOR(pg_catalog.=) d.d_id) AS c$q$,
        -- 3: max(NO_O_ID) - min(NO_O_ID) + 1 = the district's new_order rows
        $q$SELECT pg_catalog.count(*) FILTER (WHERE span OPERATOR(pg_catalog.<>) rows), pg_catalog.count(*),
                  pg_catalog.min(pg_catalog.format('district %s of warehouse %s: max(NO_O_ID) - min(NO_O_ID) + 1 = %s, %s rows',
                                                   no_d_id, no_w_id, span, rows)) FILTER (WHERE span OPERATOR(pg_catalog.<>) rows)
             FROM (SELECT no_w_id, no_d_id,
                          pg_catalog.max(no_o_id) OPERATOR(pg_catalog.-) pg_catalog.min(no_o_id) OPERATOR(pg_catalog.+) 1 AS span,
                          pg_catalog.count(*) AS rows
                     FROM %1$s.new_order GROUP BY no_w_id, no_d_id) AS n$q$,
        -- 4: sum(O_OL_CNT) = the district's order_line rows
        $q$SELECT pg_catalog.count(*) FILTER (WHERE c.differs), pg_catalog.count(*),
                  pg_catalog.min(pg_catalog.format('district %s of warehouse %s: sum(O_OL_CNT) %s, %s order lines',
                                                   c.o_d_id, c.o_w_id, c.cnt, COALESCE(c.lines, 0))) FILTER (WHERE c.differs)
             FROM (SELECT o.o_w_id, o.o_d_id, o.cnt, l.lines,
                          COALESCE(o.cnt OPERATOR(pg_catalog.<>) l.lines,
                                   (o.cnt IS NULL) OPERATOR(pg_catalog.<>) (l.lines IS NULL)) AS differs
                     FROM (SELECT o_w_id, o_d_id, pg_catalog.sum(o_ol_cnt) AS cnt FROM %1$s.orders GROUP BY o_w_id, o_d_id) AS o
                     LEFT JOIN (SELECT ol_w_id, ol_d_id, pg_catalog.count(*) AS lines FROM %1$s.order_line GROUP BY ol_w_id, ol_d_id) AS l
                            ON l.ol_w_id OPERATOR(pg_catalog.=) o.o_w_id AND l.ol_d_id OPERATOR(pg_catalog.=) o.o_d_id) AS c$q$];
    what pg_catalog.text[] := ARRAY['W_YTD = sum(D_YTD)', 'D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID)',
                         'max(NO_O_ID) - min(NO_O_ID) + 1 = new_order rows', 'sum(O_OL_CNT) = order_line rows'];
    unit pg_catalog.text[] := ARRAY['warehouses', 'districts', 'districts', 'districts'];
BEGIN
    IF pg_catalog.to_regclass(s OPERATOR(pg_catalog.||) '.warehouse') IS NULL THEN
        RAISE EXCEPTION 'tpcc_check: schema "%" holds no TPC-C tables', schema
            USING ERRCODE = 'undefined_table',
                  HINT = 'Make them with pgbench_lab.init_tpcc(), or name the schema that holds them.';
    END IF;
    FOR i IN 1 .. 4 LOOP
        EXECUTE pg_catalog.replace(checks[i], '%1$s', s) INTO bad, total, example;
        condition := i;
        ok := bad OPERATOR(pg_catalog.=) 0;
        detail := pg_catalog.format('%s: %s of %s %s %s', what[i], CASE WHEN ok THEN total ELSE bad END, total, unit[i],
                                    CASE WHEN ok THEN 'hold' ELSE 'differ; the first, ' OPERATOR(pg_catalog.||) example END);
        RETURN NEXT;
    END LOOP;
END
$fn$;
COMMENT ON FUNCTION pgbench_lab.tpcc_check(text) IS
'TPC-C''s consistency conditions 1-4 (clause 3.3.2) on the tables of a schema: one row per condition, whether it holds, and the first place it does not';

-- HammerDB's figures of a run of the kit: per transaction type (the five
-- scripts tpcc_scripts() names, as the run recorded them) its
-- transactions, share of the mix, rate, failures and latencies, then the
-- whole mix ('all'); NOPM (new orders committed per minute: new-order's
-- transactions less the rolled-back ones, which the script's
-- \set rolled_back counts in run_commands) and TPM (the mix's transactions
-- per minute), both over the run's measured seconds.  The percentiles are
-- the run's samples' (sample_rate), else NULL.  It reads with the caller's
-- rights, as report() does.
CREATE FUNCTION pgbench_lab.tpcc_figures(run_id bigint)
RETURNS TABLE (transaction_type text, transactions bigint, share_pct double precision,
               per_minute double precision, rollbacks bigint, failures bigint,
               latency_avg_ms double precision, latency_p50_ms double precision,
               latency_p90_ms double precision, latency_p99_ms double precision,
               nopm double precision, tpm double precision, measured_seconds double precision)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    id pg_catalog.int8 := run_id;
BEGIN
    IF id IS NULL THEN
        RAISE EXCEPTION 'run_id must not be null'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Pass the run_id of a run of the TPC-C kit, as run(''tpcc'') returns it.';
    END IF;
    PERFORM pgbench_lab_internal.check_ids(ARRAY[id], false);
    IF NOT EXISTS (SELECT FROM pgbench_lab.run_scripts s
                    WHERE s.run_id OPERATOR(pg_catalog.=) id AND s.name OPERATOR(pg_catalog.=) 'tpcc-new-order') THEN
        RAISE EXCEPTION 'run % did not run the TPC-C kit', id
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'tpcc_figures() reads runs of workload tpcc, or of scripts that include tpcc-new-order.';
    END IF;
    RETURN QUERY
    SELECT u.tt, u.n, u.share, u.pm, u.rb, u.f, u.lat, u.q1, u.q2, u.q3, u.nopm, u.tpm, u.secs FROM (
    WITH r AS (SELECT x.measured_seconds AS secs,
                      CASE WHEN x.measured_seconds OPERATOR(pg_catalog.>) 0 THEN 60 OPERATOR(pg_catalog./) x.measured_seconds END AS per_min
                 FROM pgbench_lab.runs x WHERE x.run_id OPERATOR(pg_catalog.=) id),
         k AS (SELECT k.name, k.ord FROM pgbench_lab_internal.tpcc_scripts() WITH ORDINALITY AS k(name, weight, body, ord)),
         s AS (SELECT k.ord, k.name, s.script, s.transactions AS n, s.failures AS f, s.latency_avg_ms AS lat,
                      -- new-order's rolled-back orders: the executions of its \set rolled_back (NULL: a kit without it)
                      CASE WHEN k.name OPERATOR(pg_catalog.=) 'tpcc-new-order' THEN
                          (SELECT pg_catalog.sum(c.executions)::pg_catalog.int8 FROM pgbench_lab.run_commands c
                            WHERE c.run_id OPERATOR(pg_catalog.=) id AND c.script OPERATOR(pg_catalog.=) s.script
                              AND c.command_text OPERATOR(pg_catalog.~) '^\\set\s+rolled_back\M') END AS rb
                 FROM k JOIN pgbench_lab.run_scripts s ON s.name OPERATOR(pg_catalog.=) k.name
                WHERE s.run_id OPERATOR(pg_catalog.=) id),
         p AS (SELECT x.script,
                      pg_catalog.percentile_cont(ARRAY[0.5, 0.9, 0.99]::pg_catalog.float8[]) WITHIN GROUP (ORDER BY x.latency_ms) AS q
                 FROM pgbench_lab.run_samples x
                WHERE x.run_id OPERATOR(pg_catalog.=) id AND NOT x.failed AND x.latency_ms IS NOT NULL
                  AND x.script OPERATOR(pg_catalog.=) ANY (ARRAY(SELECT s.script FROM s))
                GROUP BY GROUPING SETS ((x.script), ())),
         t AS (SELECT pg_catalog.sum(s.n)::pg_catalog.int8 AS n,
                      (SELECT s2.n OPERATOR(pg_catalog.-) s2.rb FROM s AS s2 WHERE s2.name OPERATOR(pg_catalog.=) 'tpcc-new-order') AS placed
                 FROM s)
    SELECT s.ord, pg_catalog.substr(s.name, 6) AS tt, s.n,
           100.0::pg_catalog.float8 OPERATOR(pg_catalog.*) s.n OPERATOR(pg_catalog./) CASE WHEN t.n OPERATOR(pg_catalog.>) 0 THEN t.n END AS share,
           s.n OPERATOR(pg_catalog.*) r.per_min AS pm, s.rb, s.f, s.lat, p.q[1] AS q1, p.q[2] AS q2, p.q[3] AS q3,
           t.placed OPERATOR(pg_catalog.*) r.per_min AS nopm, t.n OPERATOR(pg_catalog.*) r.per_min AS tpm, r.secs
      FROM s CROSS JOIN r CROSS JOIN t LEFT JOIN p ON p.script OPERATOR(pg_catalog.=) s.script
    UNION ALL
    SELECT 1000, 'all', t.n, CASE WHEN t.n OPERATOR(pg_catalog.>) 0 THEN 100.0::pg_catalog.float8 END, t.n OPERATOR(pg_catalog.*) r.per_min,
           (SELECT s.rb FROM s WHERE s.name OPERATOR(pg_catalog.=) 'tpcc-new-order'),
           (SELECT pg_catalog.sum(s.f)::pg_catalog.int8 FROM s),
           (SELECT pg_catalog.sum(s.n OPERATOR(pg_catalog.*) s.lat) OPERATOR(pg_catalog./) CASE WHEN t.n OPERATOR(pg_catalog.>) 0 THEN t.n END FROM s),
           p.q[1], p.q[2], p.q[3], t.placed OPERATOR(pg_catalog.*) r.per_min, t.n OPERATOR(pg_catalog.*) r.per_min, r.secs
      FROM r CROSS JOIN t LEFT JOIN p ON p.script IS NULL) AS u
     ORDER BY u.ord;
END
$fn$;
COMMENT ON FUNCTION pgbench_lab.tpcc_figures(bigint) IS
    'HammerDB''s figures of a run of the TPC-C kit: NOPM and TPM, and per transaction type its transactions, share of the mix, failures and latencies';
GRANT EXECUTE ON FUNCTION pgbench_lab.tpcc_figures(bigint) TO pg_monitor;
