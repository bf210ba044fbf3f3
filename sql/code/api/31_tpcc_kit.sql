-- ---------------------------------------------------------------------------
-- TPC-C's kit: the five transactions as pgbench scripts (their text for the
-- schema tpcc; init_tpcc() saves them for its caller with the schema it
-- made) and the consistency conditions of clause 3.3.2 (tpcc_check()).
-- The tables, their population and the kit's server-side functions are
-- made by init_tpcc() (32_tpcc.sql).
-- ---------------------------------------------------------------------------

-- The five scripts as they ship, naming the schema tpcc; init_tpcc() saves
-- them for its caller with the schema it made.  Their texts are the files
-- of sql/tpcc/, written here by the build (sql/run_options.awk).  The
-- weights are the deck of 23 cards of clause 5.2.4.2's example (and
-- HammerDB's): 10 new-order, 10 payment, one each of the others, 4.35 %
-- each, above clause 5.2.3's minimum of 4 %; run('tpcc') deals them.
CREATE FUNCTION pgbench_lab_internal.tpcc_scripts()
RETURNS TABLE (name text, weight integer, body text)
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $fn$
VALUES
    @SCRIPT_FILE tpcc-new-order 10 sql/tpcc/tpcc-new-order.sql@,
    @SCRIPT_FILE tpcc-payment 10 sql/tpcc/tpcc-payment.sql@,
    @SCRIPT_FILE tpcc-order-status 1 sql/tpcc/tpcc-order-status.sql@,
    @SCRIPT_FILE tpcc-delivery 1 sql/tpcc/tpcc-delivery.sql@,
    @SCRIPT_FILE tpcc-stock-level 1 sql/tpcc/tpcc-stock-level.sql@
$fn$;
COMMENT ON FUNCTION pgbench_lab_internal.tpcc_scripts() IS
    'The TPC-C kit''s five pgbench scripts, their weights in the mix and their text for the schema tpcc';

-- The twelve consistency conditions of clause 3.3.2, each one query over
-- the schema's tables (%1$s) that gives the places that differ, the places
-- checked and the first (in text order) that differs.
CREATE FUNCTION pgbench_lab_internal.tpcc_conditions()
RETURNS TABLE (condition integer, what text, unit text, query text)
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $fn$
-- %2$s: each customer's delivered amount (conditions 10 and 12), each
-- order's first: half the time of a join of every line
SELECT v.condition, v.what, v.unit,
       pg_catalog.replace(v.query, '%2$s', '(' OPERATOR(pg_catalog.||) $d$SELECT o.o_w_id, o.o_d_id, o.o_c_id, pg_catalog.sum(x.amount) AS amount
  FROM %1$s.orders AS o
  JOIN (SELECT ol_w_id, ol_d_id, ol_o_id, pg_catalog.sum(ol_amount) AS amount FROM %1$s.order_line
         WHERE ol_delivery_d IS NOT NULL GROUP BY ol_w_id, ol_d_id, ol_o_id) AS x
    ON x.ol_w_id OPERATOR(pg_catalog.=) o.o_w_id AND x.ol_d_id OPERATOR(pg_catalog.=) o.o_d_id
   AND x.ol_o_id OPERATOR(pg_catalog.=) o.o_id
 GROUP BY o.o_w_id, o.o_d_id, o.o_c_id$d$ OPERATOR(pg_catalog.||) ')')
  FROM (VALUES
    -- a warehouse's or a district's year-to-date against a sum (nulls
    -- differ from a number: IS DISTINCT FROM would look = up by name)
    (1, 'W_YTD = sum(D_YTD)', 'warehouses',
     $q$SELECT pg_catalog.count(*) FILTER (WHERE c.differs), pg_catalog.count(*),
               pg_catalog.min(pg_catalog.format('warehouse %s: W_YTD %s, sum(D_YTD) %s', c.w_id, c.w_ytd, c.ytd)) FILTER (WHERE c.differs)
          FROM (SELECT w.w_id, w.w_ytd, y.ytd,
                       COALESCE(w.w_ytd OPERATOR(pg_catalog.<>) y.ytd, (w.w_ytd IS NULL) OPERATOR(pg_catalog.<>) (y.ytd IS NULL)) AS differs
                  FROM %1$s.warehouse AS w
                  LEFT JOIN (SELECT d_w_id, pg_catalog.sum(d_ytd) AS ytd FROM %1$s.district GROUP BY d_w_id) AS y
                         ON y.d_w_id OPERATOR(pg_catalog.=) w.w_id) AS c$q$),
    (2, 'D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID)', 'districts',
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
                         ON n.no_w_id OPERATOR(pg_catalog.=) d.d_w_id AND n.no_d_id OPERATOR(pg_catalog.=) d.d_id) AS c$q$),
    (3, 'max(NO_O_ID) - min(NO_O_ID) + 1 = new_order rows', 'districts',
     $q$SELECT pg_catalog.count(*) FILTER (WHERE span OPERATOR(pg_catalog.<>) rows), pg_catalog.count(*),
               pg_catalog.min(pg_catalog.format('district %s of warehouse %s: max(NO_O_ID) - min(NO_O_ID) + 1 = %s, %s rows',
                                                no_d_id, no_w_id, span, rows)) FILTER (WHERE span OPERATOR(pg_catalog.<>) rows)
          FROM (SELECT no_w_id, no_d_id,
                       pg_catalog.max(no_o_id) OPERATOR(pg_catalog.-) pg_catalog.min(no_o_id) OPERATOR(pg_catalog.+) 1 AS span,
                       pg_catalog.count(*) AS rows
                  FROM %1$s.new_order GROUP BY no_w_id, no_d_id) AS n$q$),
    (4, 'sum(O_OL_CNT) = order_line rows', 'districts',
     $q$SELECT pg_catalog.count(*) FILTER (WHERE c.differs), pg_catalog.count(*),
               pg_catalog.min(pg_catalog.format('district %s of warehouse %s: sum(O_OL_CNT) %s, %s order lines',
                                                c.o_d_id, c.o_w_id, c.cnt, COALESCE(c.lines, 0))) FILTER (WHERE c.differs)
          FROM (SELECT o.o_w_id, o.o_d_id, o.cnt, l.lines,
                       COALESCE(o.cnt OPERATOR(pg_catalog.<>) l.lines, (o.cnt IS NULL) OPERATOR(pg_catalog.<>) (l.lines IS NULL)) AS differs
                  FROM (SELECT o_w_id, o_d_id, pg_catalog.sum(o_ol_cnt) AS cnt FROM %1$s.orders GROUP BY o_w_id, o_d_id) AS o
                  LEFT JOIN (SELECT ol_w_id, ol_d_id, pg_catalog.count(*) AS lines FROM %1$s.order_line GROUP BY ol_w_id, ol_d_id) AS l
                         ON l.ol_w_id OPERATOR(pg_catalog.=) o.o_w_id AND l.ol_d_id OPERATOR(pg_catalog.=) o.o_d_id) AS c$q$),
    (5, 'O_CARRIER_ID is null exactly when the order has a new_order row', 'orders',
     $q$SELECT pg_catalog.count(*) FILTER (WHERE c.differs), pg_catalog.count(*),
               pg_catalog.min(pg_catalog.format('order %s of district %s of warehouse %s: O_CARRIER_ID %s, %s',
                                                c.o_id, c.o_d_id, c.o_w_id, COALESCE(c.o_carrier_id::pg_catalog.text, 'null'),
                                                CASE WHEN c.queued THEN 'a new_order row' ELSE 'no new_order row' END)) FILTER (WHERE c.differs)
          FROM (SELECT o.o_w_id, o.o_d_id, o.o_id, o.o_carrier_id, n.no_o_id IS NOT NULL AS queued,
                       (o.o_carrier_id IS NULL) OPERATOR(pg_catalog.<>) (n.no_o_id IS NOT NULL) AS differs
                  FROM %1$s.orders AS o
                  LEFT JOIN %1$s.new_order AS n
                         ON n.no_w_id OPERATOR(pg_catalog.=) o.o_w_id AND n.no_d_id OPERATOR(pg_catalog.=) o.o_d_id
                        AND n.no_o_id OPERATOR(pg_catalog.=) o.o_id) AS c$q$),
    (6, 'O_OL_CNT = the order''s order_line rows', 'orders',
     $q$SELECT pg_catalog.count(*) FILTER (WHERE c.differs), pg_catalog.count(*),
               pg_catalog.min(pg_catalog.format('order %s of district %s of warehouse %s: O_OL_CNT %s, %s order lines',
                                                c.o_id, c.o_d_id, c.o_w_id, c.o_ol_cnt, c.lines)) FILTER (WHERE c.differs)
          FROM (SELECT o.o_w_id, o.o_d_id, o.o_id, o.o_ol_cnt, COALESCE(l.lines, 0) AS lines,
                       COALESCE(o.o_ol_cnt OPERATOR(pg_catalog.<>) COALESCE(l.lines, 0), true) AS differs
                  FROM %1$s.orders AS o
                  LEFT JOIN (SELECT ol_w_id, ol_d_id, ol_o_id, pg_catalog.count(*) AS lines FROM %1$s.order_line
                              GROUP BY ol_w_id, ol_d_id, ol_o_id) AS l
                         ON l.ol_w_id OPERATOR(pg_catalog.=) o.o_w_id AND l.ol_d_id OPERATOR(pg_catalog.=) o.o_d_id
                        AND l.ol_o_id OPERATOR(pg_catalog.=) o.o_id) AS c$q$),
    (7, 'OL_DELIVERY_D is null exactly when the order''s O_CARRIER_ID is', 'order lines',
     $q$SELECT pg_catalog.count(*) FILTER (WHERE c.differs), pg_catalog.count(*),
               pg_catalog.min(pg_catalog.format('line %s of order %s of district %s of warehouse %s: OL_DELIVERY_D %s, O_CARRIER_ID %s',
                                                c.ol_number, c.ol_o_id, c.ol_d_id, c.ol_w_id,
                                                CASE WHEN c.ol_delivery_d IS NULL THEN 'null' ELSE 'set' END,
                                                CASE WHEN NOT c.ordered THEN 'of no order' WHEN c.o_carrier_id IS NULL THEN 'null'
                                                     ELSE c.o_carrier_id::pg_catalog.text END)) FILTER (WHERE c.differs)
          FROM (SELECT l.ol_w_id, l.ol_d_id, l.ol_o_id, l.ol_number, l.ol_delivery_d, o.o_carrier_id, o.o_id IS NOT NULL AS ordered,
                       o.o_id IS NULL OR (l.ol_delivery_d IS NULL) OPERATOR(pg_catalog.<>) (o.o_carrier_id IS NULL) AS differs
                  FROM %1$s.order_line AS l
                  LEFT JOIN %1$s.orders AS o
                         ON o.o_w_id OPERATOR(pg_catalog.=) l.ol_w_id AND o.o_d_id OPERATOR(pg_catalog.=) l.ol_d_id
                        AND o.o_id OPERATOR(pg_catalog.=) l.ol_o_id) AS c$q$),
    (8, 'W_YTD = sum(H_AMOUNT) of the warehouse''s payments', 'warehouses',
     $q$SELECT pg_catalog.count(*) FILTER (WHERE c.differs), pg_catalog.count(*),
               pg_catalog.min(pg_catalog.format('warehouse %s: W_YTD %s, sum(H_AMOUNT) %s', c.w_id, c.w_ytd, c.paid)) FILTER (WHERE c.differs)
          FROM (SELECT w.w_id, w.w_ytd, h.paid,
                       COALESCE(w.w_ytd OPERATOR(pg_catalog.<>) h.paid, (w.w_ytd IS NULL) OPERATOR(pg_catalog.<>) (h.paid IS NULL)) AS differs
                  FROM %1$s.warehouse AS w
                  LEFT JOIN (SELECT h_w_id, pg_catalog.sum(h_amount) AS paid FROM %1$s.history GROUP BY h_w_id) AS h
                         ON h.h_w_id OPERATOR(pg_catalog.=) w.w_id) AS c$q$),
    (9, 'D_YTD = sum(H_AMOUNT) of the district''s payments', 'districts',
     $q$SELECT pg_catalog.count(*) FILTER (WHERE c.differs), pg_catalog.count(*),
               pg_catalog.min(pg_catalog.format('district %s of warehouse %s: D_YTD %s, sum(H_AMOUNT) %s',
                                                c.d_id, c.d_w_id, c.d_ytd, c.paid)) FILTER (WHERE c.differs)
          FROM (SELECT d.d_w_id, d.d_id, d.d_ytd, h.paid,
                       COALESCE(d.d_ytd OPERATOR(pg_catalog.<>) h.paid, (d.d_ytd IS NULL) OPERATOR(pg_catalog.<>) (h.paid IS NULL)) AS differs
                  FROM %1$s.district AS d
                  LEFT JOIN (SELECT h_w_id, h_d_id, pg_catalog.sum(h_amount) AS paid FROM %1$s.history GROUP BY h_w_id, h_d_id) AS h
                         ON h.h_w_id OPERATOR(pg_catalog.=) d.d_w_id AND h.h_d_id OPERATOR(pg_catalog.=) d.d_id) AS c$q$),
    (10, 'C_BALANCE = sum(OL_AMOUNT) delivered - sum(H_AMOUNT)', 'customers',
     $q$SELECT pg_catalog.count(*) FILTER (WHERE c.differs), pg_catalog.count(*),
               pg_catalog.min(pg_catalog.format('customer %s of district %s of warehouse %s: C_BALANCE %s, delivered %s, paid %s',
                                                c.c_id, c.c_d_id, c.c_w_id, c.c_balance, c.delivered, c.paid)) FILTER (WHERE c.differs)
          FROM (SELECT k.c_w_id, k.c_d_id, k.c_id, k.c_balance, COALESCE(l.amount, 0) AS delivered, COALESCE(h.paid, 0) AS paid,
                       COALESCE(k.c_balance OPERATOR(pg_catalog.<>) (COALESCE(l.amount, 0) OPERATOR(pg_catalog.-) COALESCE(h.paid, 0)), true) AS differs
                  FROM %1$s.customer AS k
                  LEFT JOIN %2$s AS l
                         ON l.o_w_id OPERATOR(pg_catalog.=) k.c_w_id AND l.o_d_id OPERATOR(pg_catalog.=) k.c_d_id
                        AND l.o_c_id OPERATOR(pg_catalog.=) k.c_id
                  LEFT JOIN (SELECT h_c_w_id, h_c_d_id, h_c_id, pg_catalog.sum(h_amount) AS paid FROM %1$s.history
                              GROUP BY h_c_w_id, h_c_d_id, h_c_id) AS h
                         ON h.h_c_w_id OPERATOR(pg_catalog.=) k.c_w_id AND h.h_c_d_id OPERATOR(pg_catalog.=) k.c_d_id
                        AND h.h_c_id OPERATOR(pg_catalog.=) k.c_id) AS c$q$),
    -- the specification's relation holds for the population, where no
    -- customer has had a delivery; each delivery since adds one to the
    -- difference and to a customer's C_DELIVERY_CNT
    (11, 'orders - new_order rows = 2100 + sum(C_DELIVERY_CNT)', 'districts',
     $q$SELECT pg_catalog.count(*) FILTER (WHERE c.differs), pg_catalog.count(*),
               pg_catalog.min(pg_catalog.format('district %s of warehouse %s: %s orders - %s new_order rows, 2100 + %s deliveries',
                                                c.d_id, c.d_w_id, c.orders, c.queued, c.deliveries)) FILTER (WHERE c.differs)
          FROM (SELECT d.d_w_id, d.d_id, COALESCE(o.n, 0) AS orders, COALESCE(n.n, 0) AS queued, COALESCE(k.n, 0) AS deliveries,
                       COALESCE((COALESCE(o.n, 0) OPERATOR(pg_catalog.-) COALESCE(n.n, 0))
                                OPERATOR(pg_catalog.<>) (2100 OPERATOR(pg_catalog.+) k.n), true) AS differs
                  FROM %1$s.district AS d
                  LEFT JOIN (SELECT o_w_id, o_d_id, pg_catalog.count(*) AS n FROM %1$s.orders GROUP BY o_w_id, o_d_id) AS o
                         ON o.o_w_id OPERATOR(pg_catalog.=) d.d_w_id AND o.o_d_id OPERATOR(pg_catalog.=) d.d_id
                  LEFT JOIN (SELECT no_w_id, no_d_id, pg_catalog.count(*) AS n FROM %1$s.new_order GROUP BY no_w_id, no_d_id) AS n
                         ON n.no_w_id OPERATOR(pg_catalog.=) d.d_w_id AND n.no_d_id OPERATOR(pg_catalog.=) d.d_id
                  LEFT JOIN (SELECT c_w_id, c_d_id, pg_catalog.sum(c_delivery_cnt) AS n FROM %1$s.customer GROUP BY c_w_id, c_d_id) AS k
                         ON k.c_w_id OPERATOR(pg_catalog.=) d.d_w_id AND k.c_d_id OPERATOR(pg_catalog.=) d.d_id) AS c$q$),
    (12, 'C_BALANCE + C_YTD_PAYMENT = sum(OL_AMOUNT) delivered', 'customers',
     $q$SELECT pg_catalog.count(*) FILTER (WHERE c.differs), pg_catalog.count(*),
               pg_catalog.min(pg_catalog.format('customer %s of district %s of warehouse %s: C_BALANCE %s + C_YTD_PAYMENT %s, delivered %s',
                                                c.c_id, c.c_d_id, c.c_w_id, c.c_balance, c.c_ytd_payment, c.delivered)) FILTER (WHERE c.differs)
          FROM (SELECT k.c_w_id, k.c_d_id, k.c_id, k.c_balance, k.c_ytd_payment, COALESCE(l.amount, 0) AS delivered,
                       COALESCE((k.c_balance OPERATOR(pg_catalog.+) k.c_ytd_payment) OPERATOR(pg_catalog.<>) COALESCE(l.amount, 0), true) AS differs
                  FROM %1$s.customer AS k
                  LEFT JOIN %2$s AS l
                         ON l.o_w_id OPERATOR(pg_catalog.=) k.c_w_id AND l.o_d_id OPERATOR(pg_catalog.=) k.c_d_id
                        AND l.o_c_id OPERATOR(pg_catalog.=) k.c_id) AS c$q$)) AS v(condition, what, unit, query)
$fn$;
COMMENT ON FUNCTION pgbench_lab_internal.tpcc_conditions() IS
    'TPC-C''s twelve consistency conditions (clause 3.3.2): each one''s relation, what it is checked over, and the query (over the schema %1$s) that counts the places that differ and the places checked';

CREATE FUNCTION pgbench_lab.tpcc_check(schema text DEFAULT 'tpcc')
RETURNS TABLE (condition integer, ok boolean, detail text, checked bigint, differing bigint)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    s pg_catalog.text := pg_catalog.quote_ident(schema);
    example pg_catalog.text;
    k pg_catalog.record;
BEGIN
    IF pg_catalog.to_regclass(s OPERATOR(pg_catalog.||) '.warehouse') IS NULL THEN
        RAISE EXCEPTION 'tpcc_check: schema "%" holds no TPC-C tables', schema
            USING ERRCODE = 'undefined_table',
                  HINT = 'Make them with pgbench_lab.init_tpcc(), or name the schema that holds them.';
    END IF;
    FOR k IN SELECT * FROM pgbench_lab_internal.tpcc_conditions() AS x ORDER BY x.condition LOOP
        EXECUTE pg_catalog.replace(k.query, '%1$s', s) INTO differing, checked, example;
        condition := k.condition;
        ok := differing OPERATOR(pg_catalog.=) 0;
        detail := pg_catalog.format('%s: %s of %s %s %s', k.what, CASE WHEN ok THEN checked ELSE differing END, checked, k.unit,
                                    CASE WHEN ok THEN 'hold' ELSE 'differ; the first, ' OPERATOR(pg_catalog.||) example END);
        RETURN NEXT;
    END LOOP;
END
$fn$;
COMMENT ON FUNCTION pgbench_lab.tpcc_check(text) IS
'TPC-C''s twelve consistency conditions (clause 3.3.2) on the tables of a schema: one row per condition, whether it holds, the places checked and those that differ, and the first that does';

-- HammerDB's figures of a run of the kit: per transaction type (the five
-- scripts tpcc_scripts() names, as the run recorded them) its
-- transactions, share of the mix, rate, failures and latencies, then the
-- whole mix ('all'); NOPM (new orders committed per minute: new-order's
-- transactions less the rolled-back ones, which the script's
-- \set rolled_back counts in run_commands) and TPM (the mix's transactions
-- per minute), both over the run's measured seconds.  The percentiles are
-- the run's samples' (sample_rate), else NULL.  Then the specification's
-- rules: each type's response time without its keying and think sleeps
-- (clause 5.2.5: the script's \sleep commands' time taken out), the
-- minimum shares of clause 5.2.3 and the 90th-percentile limits of clause
-- 5.2.5.3, the deliveries that skipped a district (\set skipped_districts),
-- and whether the run keeps them (valid; on 'all', whether its NOPM is a
-- valid one, and why not).  It reads with the caller's rights, as report()
-- does.
CREATE FUNCTION pgbench_lab.tpcc_figures(run_id bigint)
RETURNS TABLE (transaction_type text, transactions bigint, share_pct double precision,
               per_minute double precision, rollbacks bigint, failures bigint,
               latency_avg_ms double precision, latency_p50_ms double precision,
               latency_p90_ms double precision, latency_p99_ms double precision,
               nopm double precision, tpm double precision, measured_seconds double precision,
               response_avg_ms double precision, minimum_share_pct double precision, p90_limit_ms double precision,
               skipped bigint, valid boolean, invalid_because text)
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
    SELECT u.tt, u.n, u.share, u.pm, u.rb, u.f, u.lat, u.q1, u.q2, u.q3, u.nopm, u.tpm, u.secs,
           u.resp, u.min_share, u.limit_ms, u.skipped, u.ok, u.why FROM (
    WITH r AS (SELECT x.measured_seconds AS secs,
                      CASE WHEN x.measured_seconds OPERATOR(pg_catalog.>) 0 THEN 60 OPERATOR(pg_catalog./) x.measured_seconds END AS per_min
                 FROM pgbench_lab.runs x WHERE x.run_id OPERATOR(pg_catalog.=) id),
         -- clause 5.2.3's minimum shares and clause 5.2.5.3's limits
         m (name, min_share, limit_ms) AS (VALUES ('tpcc-new-order', NULL::pg_catalog.float8, 5000::pg_catalog.float8),
                                                 ('tpcc-payment', 43, 5000), ('tpcc-order-status', 4, 5000),
                                                 ('tpcc-delivery', 4, 5000), ('tpcc-stock-level', 4, 20000)),
         k AS (SELECT k.name, k.ord FROM pgbench_lab_internal.tpcc_scripts() WITH ORDINALITY AS k(name, weight, body, ord)),
         s AS (SELECT k.ord, k.name, s.script, s.transactions AS n, s.failures AS f, s.latency_avg_ms AS lat,
                      m.min_share, m.limit_ms, c.rb, c.skipped, c.slept_ms, c.sleeps
                 FROM k JOIN pgbench_lab.run_scripts s ON s.name OPERATOR(pg_catalog.=) k.name
                 JOIN m ON m.name OPERATOR(pg_catalog.=) k.name
                 CROSS JOIN LATERAL (
                      -- new-order's rolled-back orders, delivery's skips: the
                      -- executions of their \set (NULL: a kit without it);
                      -- the keying and think sleeps' time
                      SELECT pg_catalog.sum(c.executions) FILTER (WHERE k.name OPERATOR(pg_catalog.=) 'tpcc-new-order'
                                 AND c.command_text OPERATOR(pg_catalog.~) '^\\set\s+rolled_back\M')::pg_catalog.int8 AS rb,
                             pg_catalog.sum(c.executions) FILTER (WHERE k.name OPERATOR(pg_catalog.=) 'tpcc-delivery'
                                 AND c.command_text OPERATOR(pg_catalog.~) '^\\set\s+skipped_districts\M')::pg_catalog.int8 AS skipped,
                             COALESCE(pg_catalog.sum(c.executions OPERATOR(pg_catalog.*) c.latency_avg_ms)
                                          FILTER (WHERE c.kind OPERATOR(pg_catalog.=) 'sleep' AND c.executions OPERATOR(pg_catalog.>) 0), 0) AS slept_ms,
                             COALESCE(pg_catalog.sum(c.executions) FILTER (WHERE c.kind OPERATOR(pg_catalog.=) 'sleep'), 0) AS sleeps
                        FROM pgbench_lab.run_commands c
                       WHERE c.run_id OPERATOR(pg_catalog.=) id AND c.script OPERATOR(pg_catalog.=) s.script) AS c
                WHERE s.run_id OPERATOR(pg_catalog.=) id),
         p AS (SELECT x.script,
                      pg_catalog.percentile_cont(ARRAY[0.5, 0.9, 0.99]::pg_catalog.float8[]) WITHIN GROUP (ORDER BY x.latency_ms) AS q
                 FROM pgbench_lab.run_samples x
                WHERE x.run_id OPERATOR(pg_catalog.=) id AND NOT x.failed AND x.latency_ms IS NOT NULL
                  AND x.script OPERATOR(pg_catalog.=) ANY (ARRAY(SELECT s.script FROM s))
                GROUP BY GROUPING SETS ((x.script), ())),
         t AS (SELECT pg_catalog.sum(s.n)::pg_catalog.int8 AS n, pg_catalog.sum(s.f)::pg_catalog.int8 AS f,
                      (SELECT s2.n OPERATOR(pg_catalog.-) s2.rb FROM s AS s2 WHERE s2.name OPERATOR(pg_catalog.=) 'tpcc-new-order') AS placed
                 FROM s),
         -- each type against the rules: its share, and its 90th percentile
         -- when the run sampled it and it slept none (a sample's latency
         -- holds its sleeps)
         v AS (SELECT s.*, 100.0::pg_catalog.float8 OPERATOR(pg_catalog.*) s.n OPERATOR(pg_catalog./) CASE WHEN t.n OPERATOR(pg_catalog.>) 0 THEN t.n END AS share,
                      CASE WHEN s.sleeps OPERATOR(pg_catalog.=) 0 THEN p.q[2] END AS p90_response, p.q
                 FROM s CROSS JOIN t LEFT JOIN p ON p.script OPERATOR(pg_catalog.=) s.script),
         w AS (SELECT v.*,
                      CASE WHEN v.n OPERATOR(pg_catalog.=) 0 OR v.share IS NULL
                               THEN pg_catalog.format('no %s transaction', pg_catalog.substr(v.name, 6))
                           WHEN v.share OPERATOR(pg_catalog.<) v.min_share
                               THEN pg_catalog.format('%s''s share %s %% is under its minimum of %s %%', pg_catalog.substr(v.name, 6),
                                                      pg_catalog.round(v.share::pg_catalog.numeric, 2), v.min_share) END AS share_why,
                      CASE WHEN v.p90_response OPERATOR(pg_catalog.>) v.limit_ms
                               THEN pg_catalog.format('%s''s 90th percentile %s ms is over its limit of %s s', pg_catalog.substr(v.name, 6),
                                                      pg_catalog.round(v.p90_response::pg_catalog.numeric, 1), v.limit_ms OPERATOR(pg_catalog./) 1000) END AS p90_why
                 FROM v),
         a AS (SELECT pg_catalog.concat_ws('; ',
                          (SELECT pg_catalog.string_agg(pg_catalog.format('no %s transaction', pg_catalog.substr(m.name, 6)), '; ')
                             FROM m WHERE NOT EXISTS (SELECT FROM s WHERE s.name OPERATOR(pg_catalog.=) m.name)),
                          pg_catalog.string_agg(pg_catalog.concat_ws('; ', w.share_why, w.p90_why), '; ' ORDER BY w.ord)
                              FILTER (WHERE w.share_why IS NOT NULL OR w.p90_why IS NOT NULL),
                          CASE WHEN (t.f OPERATOR(pg_catalog.*) 100) OPERATOR(pg_catalog.>) (t.n OPERATOR(pg_catalog.+) t.f)
                               THEN pg_catalog.format('%s of %s transactions failed (more than 1 %%)', t.f, t.n OPERATOR(pg_catalog.+) t.f) END,
                          (SELECT pg_catalog.format('%s of %s deliveries skipped a district (more than 1 %%)', d.skipped, d.n)
                             FROM w AS d WHERE d.name OPERATOR(pg_catalog.=) 'tpcc-delivery'
                              AND d.skipped OPERATOR(pg_catalog.*) 100 OPERATOR(pg_catalog.>) d.n)) AS why
                 FROM w CROSS JOIN t GROUP BY t.f, t.n)
    SELECT w.ord, pg_catalog.substr(w.name, 6) AS tt, w.n, w.share,
           w.n OPERATOR(pg_catalog.*) r.per_min AS pm, w.rb, w.f, w.lat, w.q[1] AS q1, w.q[2] AS q2, w.q[3] AS q3,
           t.placed OPERATOR(pg_catalog.*) r.per_min AS nopm, t.n OPERATOR(pg_catalog.*) r.per_min AS tpm, r.secs,
           CASE WHEN w.n OPERATOR(pg_catalog.>) 0 THEN w.lat OPERATOR(pg_catalog.-) (w.slept_ms OPERATOR(pg_catalog./) w.n) END AS resp,
           w.min_share, w.limit_ms, w.skipped,
           w.share_why IS NULL AND w.p90_why IS NULL AS ok,
           CASE WHEN w.share_why IS NOT NULL OR w.p90_why IS NOT NULL THEN pg_catalog.concat_ws('; ', w.share_why, w.p90_why) END AS why
      FROM w CROSS JOIN r CROSS JOIN t
    UNION ALL
    SELECT 1000, 'all', t.n, CASE WHEN t.n OPERATOR(pg_catalog.>) 0 THEN 100.0::pg_catalog.float8 END, t.n OPERATOR(pg_catalog.*) r.per_min,
           (SELECT w.rb FROM w WHERE w.name OPERATOR(pg_catalog.=) 'tpcc-new-order'), t.f,
           (SELECT pg_catalog.sum(w.n OPERATOR(pg_catalog.*) w.lat) OPERATOR(pg_catalog./) CASE WHEN t.n OPERATOR(pg_catalog.>) 0 THEN t.n END FROM w),
           p.q[1], p.q[2], p.q[3], t.placed OPERATOR(pg_catalog.*) r.per_min, t.n OPERATOR(pg_catalog.*) r.per_min, r.secs,
           (SELECT pg_catalog.sum(w.n OPERATOR(pg_catalog.*) w.lat OPERATOR(pg_catalog.-) w.slept_ms)
                   OPERATOR(pg_catalog./) CASE WHEN t.n OPERATOR(pg_catalog.>) 0 THEN t.n END FROM w),
           NULL, NULL, (SELECT w.skipped FROM w WHERE w.name OPERATOR(pg_catalog.=) 'tpcc-delivery'),
           a.why OPERATOR(pg_catalog.=) '', CASE WHEN a.why OPERATOR(pg_catalog.<>) '' THEN a.why END
      FROM r CROSS JOIN t CROSS JOIN a LEFT JOIN p ON p.script IS NULL) AS u
     ORDER BY u.ord;
END
$fn$;
COMMENT ON FUNCTION pgbench_lab.tpcc_figures(bigint) IS
    'HammerDB''s figures of a run of the TPC-C kit: NOPM and TPM, and per transaction type its transactions, share of the mix, failures, latencies and response times, checked against the specification''s minimum shares and 90th-percentile limits';
GRANT EXECUTE ON FUNCTION pgbench_lab.tpcc_figures(bigint) TO pg_monitor;
