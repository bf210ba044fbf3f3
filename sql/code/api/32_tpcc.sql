
-- ---------------------------------------------------------------------------
-- TPC-C: the nine tables of the specification made and populated in the
-- server (clause 4.3), the five transactions as pgbench scripts with the
-- server-side functions they call, and the consistency conditions (clause
-- 3.3.2).  The rows are generated in C (tpcc_load.c) in the caller's
-- transaction and written as finished frozen pages (tpcc_pages.c), each
-- primary key's B-tree with them (dataset_btree.c); the same population as
-- set-based SQL (generate_series) is kept beside each step.
--
-- NURand's constants: C_LAST is 157 at the load and 223 when running (a
-- difference of 66, within clause 2.1.6.1's rules); C_ID is 259 and
-- C_OL_I_ID 7911.  The scripts draw w_id uniformly over the warehouses
-- (max(w_id), read by each transaction), with no keying or think times.
-- ---------------------------------------------------------------------------

CREATE FUNCTION pgbench_lab_internal.tpcc_load(rel pg_catalog.regclass, warehouses pg_catalog.int4, seed pg_catalog.int8)
RETURNS pg_catalog.int8
LANGUAGE c VOLATILE STRICT
AS 'MODULE_PATHNAME', 'pgbench_lab_tpcc_load';
COMMENT ON FUNCTION pgbench_lab_internal.tpcc_load(pg_catalog.regclass, pg_catalog.int4, pg_catalog.int8) IS
'init_tpcc()''s generator: one of TPC-C''s nine tables, bare and new in this transaction, filled by clause 4.3''s rules with frozen rows; the rows it wrote';

CREATE FUNCTION pgbench_lab_internal.tpcc_check_disk(warehouses pg_catalog.int4, need_bytes pg_catalog.int8 DEFAULT NULL)
RETURNS pg_catalog.int8
LANGUAGE c VOLATILE
AS 'MODULE_PATHNAME', 'pgbench_lab_tpcc_check_disk';
COMMENT ON FUNCTION pgbench_lab_internal.tpcc_check_disk(pg_catalog.int4, pg_catalog.int8) IS
'init_tpcc()''s disk check: the bytes it will write (with WAL on the same file system), refused (53100) beyond the free space of the default tablespace''s file system; need_bytes replaces the estimate';

CREATE FUNCTION pgbench_lab_internal.tpcc_progress(step pg_catalog.int4, weights pg_catalog.float8[], what pg_catalog.text, done pg_catalog.bool)
RETURNS pg_catalog.void
LANGUAGE c VOLATILE STRICT
AS 'MODULE_PATHNAME', 'pgbench_lab_tpcc_progress';
COMMENT ON FUNCTION pgbench_lab_internal.tpcc_progress(pg_catalog.int4, pg_catalog.float8[], pg_catalog.text, pg_catalog.bool) IS
'init_tpcc()''s progress, as init()''s: a NOTICE per step''s start and end once the call is long enough, and the line in pg_stat_activity (pgbench_lab.in_progress); step 0 ends the call';

CREATE FUNCTION pgbench_lab_internal.tpcc_remote(target pg_catalog.text, schema pg_catalog.text, steps pg_catalog.text[],
                                                 statements pg_catalog.text[], pool pg_catalog.bytea, letters pg_catalog.text,
                                                 weights pg_catalog.float8[])
RETURNS TABLE (step pg_catalog.text, seconds pg_catalog.float8, rows pg_catalog.int8, bytes pg_catalog.int8)
LANGUAGE c VOLATILE STRICT
AS 'MODULE_PATHNAME', 'pgbench_lab_tpcc_remote';
COMMENT ON FUNCTION pgbench_lab_internal.tpcc_remote(pg_catalog.text, pg_catalog.text, pg_catalog.text[], pg_catalog.text[], pg_catalog.bytea, pg_catalog.text, pg_catalog.float8[]) IS
'init_tpcc()''s target: its steps'' SQL sent to another server in one transaction; each step''s seconds, rows and bytes there';

CREATE FUNCTION pgbench_lab.init_tpcc(warehouses integer, schema text DEFAULT 'tpcc', target text DEFAULT NULL)
RETURNS TABLE (step text, seconds numeric, rows bigint, rows_per_second numeric, bytes bigint, megabytes_per_second numeric)
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    s pg_catalog.text;
    pool pg_catalog.bytea;
    letters pg_catalog.text := 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
    addr pg_catalog.text;
    rnd pg_catalog.text;
    steps pg_catalog.text[];
    stmts pg_catalog.text[];
    counted pg_catalog.bool[];
    pooled pg_catalog.bool[];
    t_call pg_catalog.timestamptz := pg_catalog.clock_timestamp();
    t0 pg_catalog.timestamptz;
    n pg_catalog.int8;
    k pg_catalog.int4;
    -- each step's share of the work, for the time left its progress shows
    weights pg_catalog.float8[] := ARRAY[0.01, 0.03, 0.001, 0.001, 0.1, 0.01, 0.01, 0.005, 0.15, 0.2, 0.3, 0.15, 0.001];
    seed pg_catalog.int8 := (pg_catalog.random() OPERATOR(pg_catalog.*) 9007199254740991)::pg_catalog.int8;
    sized pg_catalog.text[];
    total_rows pg_catalog.int8 := 0;
    total_bytes pg_catalog.int8 := 0;
    first pg_catalog.int4 := 1;
BEGIN
    IF warehouses IS NULL OR warehouses OPERATOR(pg_catalog.<) 1 OR warehouses OPERATOR(pg_catalog.>) 1000 THEN
        RAISE EXCEPTION 'init_tpcc: % warehouses is out of range', COALESCE(warehouses::pg_catalog.text, 'NULL')
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Give 1 to 1000 warehouses (each takes about 100 MB of disk).';
    END IF;
    IF schema IS NULL OR schema OPERATOR(pg_catalog.=) '' THEN
        RAISE EXCEPTION 'init_tpcc: schema must be a name'
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Leave it out for the schema tpcc.';
    END IF;
    IF target IS NULL AND EXISTS (SELECT FROM pg_catalog.pg_class c
                 JOIN pg_catalog.pg_namespace ns ON ns.oid OPERATOR(pg_catalog.=) c.relnamespace
                WHERE ns.nspname OPERATOR(pg_catalog.=) schema
                  AND c.relname OPERATOR(pg_catalog.=) ANY (ARRAY['warehouse', 'district', 'customer', 'history',
                                                                  'new_order', 'orders', 'order_line', 'item', 'stock'])) THEN
        RAISE EXCEPTION 'init_tpcc: schema "%" already holds TPC-C tables', schema
            USING ERRCODE = 'duplicate_table',
                  HINT = pg_catalog.format('Drop them first (DROP SCHEMA %s CASCADE), or name another schema.',
                                           pg_catalog.quote_ident(schema));
    END IF;
    -- the disk: refused before anything is made (tpcc_disk.c)
    IF target IS NULL THEN
        PERFORM pgbench_lab_internal.tpcc_check_disk(warehouses);
    END IF;
    s := pg_catalog.quote_ident(schema);
    -- as bytea: a piece of it is found at its offset, where text's
    -- substr() walks the characters before it
    SELECT pg_catalog.convert_to(pg_catalog.string_agg(
               pg_catalog.substr('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789',
                                 1 OPERATOR(pg_catalog.+) (pg_catalog.random() OPERATOR(pg_catalog.*) 61)::pg_catalog.int4, 1), ''), 'UTF8')
      INTO pool FROM pg_catalog.generate_series(1, 1000);
    -- a random a-string of the given lengths (clause 4.3.2.2): a piece of
    -- the pool at a random offset
    rnd := 'pg_catalog.encode(pg_catalog.substr($1, 1 OPERATOR(pg_catalog.+) (pg_catalog.random() OPERATOR(pg_catalog.*) 400)::pg_catalog.int4, %s OPERATOR(pg_catalog.+) (pg_catalog.random() OPERATOR(pg_catalog.*) %s)::pg_catalog.int4), ''escape'')';
    addr := pg_catalog.concat_ws(', ', pg_catalog.format(rnd, 10, 10), pg_catalog.format(rnd, 10, 10), pg_catalog.format(rnd, 10, 10),
                                 'pg_catalog.substr($2, 1 OPERATOR(pg_catalog.+) (pg_catalog.random() OPERATOR(pg_catalog.*) 24)::pg_catalog.int4, 2)',
                                 'pg_catalog.lpad(((pg_catalog.random() OPERATOR(pg_catalog.*) 9999)::pg_catalog.int4)::pg_catalog.text, 4, ''0'') OPERATOR(pg_catalog.||) ''11111''');

    steps := ARRAY['tables', 'item', 'warehouse', 'district', 'customer', 'history', 'orders', 'new_order',
                   'order_line', 'stock', 'indexes', 'analyze', 'scripts'];
    counted := ARRAY[false, true, true, true, true, true, true, true, true, true, false, false, true];
    -- the steps that draw random strings from the pool are single statements
    -- that take it as their parameter; the others may be several
    pooled := ARRAY[false, true, true, true, true, true, true, true, true, true, false, false, false];
    -- the relations whose size a step's bytes are: its table, or every
    -- table's indexes for the keys' step
    sized := ARRAY[NULL, 'item', 'warehouse', 'district', 'customer', 'history', 'orders', 'new_order',
                   'order_line', 'stock', 'indexes', NULL, NULL];
    stmts := ARRAY[
        -- tables
        -- a schema that exists already must be the caller's alone: another
        -- role that owns it, or may create in it, could put its own
        -- functions where the kit's scripts call them, to run with the
        -- rights of whoever runs the kit
        pg_catalog.format($q$
DO $own$
BEGIN
    IF EXISTS (SELECT FROM pg_catalog.pg_namespace n
                WHERE n.nspname OPERATOR(pg_catalog.=) %2$L
                  AND (n.nspowner OPERATOR(pg_catalog.<>) (SELECT r.oid FROM pg_catalog.pg_roles r
                                                            WHERE r.rolname OPERATOR(pg_catalog.=) CURRENT_USER)
                       OR EXISTS (SELECT FROM pg_catalog.aclexplode(n.nspacl) a
                                   WHERE a.privilege_type OPERATOR(pg_catalog.=) 'CREATE'
                                     AND a.grantee OPERATOR(pg_catalog.<>) n.nspowner))) THEN
        RAISE EXCEPTION USING ERRCODE = 'insufficient_privilege', MESSAGE = %3$L, HINT = %4$L;
    END IF;
END
$own$;
CREATE SCHEMA IF NOT EXISTS %1$s;
CREATE TABLE %1$s.warehouse (w_id pg_catalog.int4 NOT NULL, w_name pg_catalog.varchar(10) COLLATE pg_catalog."C", w_street_1 pg_catalog.varchar(20) COLLATE pg_catalog."C",
    w_street_2 pg_catalog.varchar(20) COLLATE pg_catalog."C", w_city pg_catalog.varchar(20) COLLATE pg_catalog."C", w_state pg_catalog.bpchar(2) COLLATE pg_catalog."C", w_zip pg_catalog.bpchar(9) COLLATE pg_catalog."C",
    w_tax pg_catalog.numeric(4,4), w_ytd pg_catalog.numeric(12,2));
CREATE TABLE %1$s.district (d_id pg_catalog.int4 NOT NULL, d_w_id pg_catalog.int4 NOT NULL, d_name pg_catalog.varchar(10) COLLATE pg_catalog."C",
    d_street_1 pg_catalog.varchar(20) COLLATE pg_catalog."C", d_street_2 pg_catalog.varchar(20) COLLATE pg_catalog."C", d_city pg_catalog.varchar(20) COLLATE pg_catalog."C", d_state pg_catalog.bpchar(2) COLLATE pg_catalog."C",
    d_zip pg_catalog.bpchar(9) COLLATE pg_catalog."C", d_tax pg_catalog.numeric(4,4), d_ytd pg_catalog.numeric(12,2), d_next_o_id pg_catalog.int4);
CREATE TABLE %1$s.customer (c_id pg_catalog.int4 NOT NULL, c_d_id pg_catalog.int4 NOT NULL, c_w_id pg_catalog.int4 NOT NULL,
    c_first pg_catalog.varchar(16) COLLATE pg_catalog."C", c_middle pg_catalog.bpchar(2) COLLATE pg_catalog."C", c_last pg_catalog.varchar(16) COLLATE pg_catalog."C", c_street_1 pg_catalog.varchar(20) COLLATE pg_catalog."C",
    c_street_2 pg_catalog.varchar(20) COLLATE pg_catalog."C", c_city pg_catalog.varchar(20) COLLATE pg_catalog."C", c_state pg_catalog.bpchar(2) COLLATE pg_catalog."C", c_zip pg_catalog.bpchar(9) COLLATE pg_catalog."C",
    c_phone pg_catalog.bpchar(16) COLLATE pg_catalog."C", c_since pg_catalog.timestamp, c_credit pg_catalog.bpchar(2) COLLATE pg_catalog."C", c_credit_lim pg_catalog.numeric(12,2),
    c_discount pg_catalog.numeric(4,4), c_balance pg_catalog.numeric(12,2), c_ytd_payment pg_catalog.numeric(12,2),
    c_payment_cnt pg_catalog.int4, c_delivery_cnt pg_catalog.int4, c_data pg_catalog.varchar(500) COLLATE pg_catalog."C");
CREATE TABLE %1$s.history (h_c_id pg_catalog.int4, h_c_d_id pg_catalog.int4, h_c_w_id pg_catalog.int4, h_d_id pg_catalog.int4,
    h_w_id pg_catalog.int4, h_date pg_catalog.timestamp, h_amount pg_catalog.numeric(6,2), h_data pg_catalog.varchar(24) COLLATE pg_catalog."C");
CREATE TABLE %1$s.new_order (no_o_id pg_catalog.int4 NOT NULL, no_d_id pg_catalog.int4 NOT NULL, no_w_id pg_catalog.int4 NOT NULL);
CREATE TABLE %1$s.orders (o_id pg_catalog.int4 NOT NULL, o_d_id pg_catalog.int4 NOT NULL, o_w_id pg_catalog.int4 NOT NULL,
    o_c_id pg_catalog.int4, o_entry_d pg_catalog.timestamp, o_carrier_id pg_catalog.int4, o_ol_cnt pg_catalog.int4,
    o_all_local pg_catalog.int4);
CREATE TABLE %1$s.order_line (ol_o_id pg_catalog.int4 NOT NULL, ol_d_id pg_catalog.int4 NOT NULL, ol_w_id pg_catalog.int4 NOT NULL,
    ol_number pg_catalog.int4 NOT NULL, ol_i_id pg_catalog.int4, ol_supply_w_id pg_catalog.int4, ol_delivery_d pg_catalog.timestamp,
    ol_quantity pg_catalog.int4, ol_amount pg_catalog.numeric(6,2), ol_dist_info pg_catalog.bpchar(24) COLLATE pg_catalog."C");
CREATE TABLE %1$s.item (i_id pg_catalog.int4 NOT NULL, i_im_id pg_catalog.int4, i_name pg_catalog.varchar(24) COLLATE pg_catalog."C",
    i_price pg_catalog.numeric(5,2), i_data pg_catalog.varchar(50) COLLATE pg_catalog."C");
CREATE TABLE %1$s.stock (s_i_id pg_catalog.int4 NOT NULL, s_w_id pg_catalog.int4 NOT NULL, s_quantity pg_catalog.int4,
    s_dist_01 pg_catalog.bpchar(24) COLLATE pg_catalog."C", s_dist_02 pg_catalog.bpchar(24) COLLATE pg_catalog."C", s_dist_03 pg_catalog.bpchar(24) COLLATE pg_catalog."C", s_dist_04 pg_catalog.bpchar(24) COLLATE pg_catalog."C",
    s_dist_05 pg_catalog.bpchar(24) COLLATE pg_catalog."C", s_dist_06 pg_catalog.bpchar(24) COLLATE pg_catalog."C", s_dist_07 pg_catalog.bpchar(24) COLLATE pg_catalog."C", s_dist_08 pg_catalog.bpchar(24) COLLATE pg_catalog."C",
    s_dist_09 pg_catalog.bpchar(24) COLLATE pg_catalog."C", s_dist_10 pg_catalog.bpchar(24) COLLATE pg_catalog."C", s_ytd pg_catalog.int4, s_order_cnt pg_catalog.int4,
    s_remote_cnt pg_catalog.int4, s_data pg_catalog.varchar(50) COLLATE pg_catalog."C");
-- the primary keys on the empty tables: their B-trees are written with
-- the rows, which come in their order (tpcc_load.c)
ALTER TABLE %1$s.warehouse ADD PRIMARY KEY (w_id);
ALTER TABLE %1$s.district ADD PRIMARY KEY (d_w_id, d_id);
ALTER TABLE %1$s.customer ADD PRIMARY KEY (c_w_id, c_d_id, c_id);
ALTER TABLE %1$s.new_order ADD PRIMARY KEY (no_w_id, no_d_id, no_o_id);
ALTER TABLE %1$s.orders ADD PRIMARY KEY (o_w_id, o_d_id, o_id);
ALTER TABLE %1$s.order_line ADD PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number);
ALTER TABLE %1$s.item ADD PRIMARY KEY (i_id);
ALTER TABLE %1$s.stock ADD PRIMARY KEY (s_w_id, s_i_id);
CREATE FUNCTION %1$s.last_name(n pg_catalog.int4) RETURNS pg_catalog.text
LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT SET search_path = pg_catalog, pg_temp AS $b$
    SELECT (ARRAY['BAR', 'OUGHT', 'ABLE', 'PRI', 'PRES', 'ESE', 'ANTI', 'CALLY', 'ATION', 'EING']::pg_catalog.text[])[n OPERATOR(pg_catalog./) 100 OPERATOR(pg_catalog.+) 1]
           OPERATOR(pg_catalog.||) (ARRAY['BAR', 'OUGHT', 'ABLE', 'PRI', 'PRES', 'ESE', 'ANTI', 'CALLY', 'ATION', 'EING']::pg_catalog.text[])[n OPERATOR(pg_catalog./) 10 OPERATOR(pg_catalog.%%) 10 OPERATOR(pg_catalog.+) 1]
           OPERATOR(pg_catalog.||) (ARRAY['BAR', 'OUGHT', 'ABLE', 'PRI', 'PRES', 'ESE', 'ANTI', 'CALLY', 'ATION', 'EING']::pg_catalog.text[])[n OPERATOR(pg_catalog.%%) 10 OPERATOR(pg_catalog.+) 1]
$b$;
COMMENT ON FUNCTION %1$s.last_name(pg_catalog.int4) IS 'TPC-C: a customer''s last name from a number 0-999, three syllables (clause 4.3.2.3)';
CREATE FUNCTION %1$s.new_order(w pg_catalog.int4, d pg_catalog.int4, c pg_catalog.int4, ol_cnt pg_catalog.int4,
                               unknown_item pg_catalog.int4, warehouses pg_catalog.int4)
RETURNS pg_catalog.int4 LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $b$
DECLARE
    items pg_catalog.int4[]; supply pg_catalog.int4[]; qty pg_catalog.int4[]; all_local pg_catalog.int4 := 1;
    o pg_catalog.int4; line pg_catalog.record; item pg_catalog.record; stock pg_catalog.record;
    w_tax pg_catalog.numeric; d_tax pg_catalog.numeric; cust pg_catalog.record;
    amount pg_catalog.numeric; total pg_catalog.numeric := 0; brand pg_catalog.text;
BEGIN
    FOR i IN 1 .. ol_cnt LOOP
        items[i] := (((pg_catalog.floor(pg_catalog.random() OPERATOR(pg_catalog.*) 8192)::pg_catalog.int4
                       OPERATOR(pg_catalog.|) (1 OPERATOR(pg_catalog.+) pg_catalog.floor(pg_catalog.random() OPERATOR(pg_catalog.*) 100000)::pg_catalog.int4))
                      OPERATOR(pg_catalog.+) 7911) OPERATOR(pg_catalog.%%) 100000) OPERATOR(pg_catalog.+) 1;
        supply[i] := w;
        IF warehouses OPERATOR(pg_catalog.>) 1 AND pg_catalog.random() OPERATOR(pg_catalog.<) 0.01 THEN
            supply[i] := 1 OPERATOR(pg_catalog.+) pg_catalog.floor(pg_catalog.random() OPERATOR(pg_catalog.*) (warehouses OPERATOR(pg_catalog.-) 1))::pg_catalog.int4;
            IF supply[i] OPERATOR(pg_catalog.>=) w THEN supply[i] := supply[i] OPERATOR(pg_catalog.+) 1; END IF;
            all_local := 0;
        END IF;
        qty[i] := 1 OPERATOR(pg_catalog.+) pg_catalog.floor(pg_catalog.random() OPERATOR(pg_catalog.*) 10)::pg_catalog.int4;
    END LOOP;
    IF unknown_item OPERATOR(pg_catalog.=) 1 THEN
        items[ol_cnt] := 100001;
    END IF;
    -- an unknown item rolls back what the order did (clause 2.4.2.3): here
    -- its subtransaction, and the kit's script then the whole transaction
    BEGIN
        -- clause 2.4.2.2: the warehouse's tax, the district's tax and next
        -- order id, the customer's discount, last name and credit
        SELECT x.w_tax INTO w_tax FROM %1$s.warehouse AS x WHERE x.w_id OPERATOR(pg_catalog.=) w;
        UPDATE %1$s.district AS x SET d_next_o_id = x.d_next_o_id OPERATOR(pg_catalog.+) 1
         WHERE x.d_w_id OPERATOR(pg_catalog.=) w AND x.d_id OPERATOR(pg_catalog.=) d
            RETURNING x.d_next_o_id OPERATOR(pg_catalog.-) 1, x.d_tax INTO o, d_tax;
        SELECT x.c_discount, x.c_last, x.c_credit INTO cust FROM %1$s.customer AS x
         WHERE x.c_w_id OPERATOR(pg_catalog.=) w AND x.c_d_id OPERATOR(pg_catalog.=) d AND x.c_id OPERATOR(pg_catalog.=) c;
        INSERT INTO %1$s.orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)
            VALUES (o, d, w, c, pg_catalog.now(), NULL, ol_cnt, all_local);
        INSERT INTO %1$s.new_order (no_o_id, no_d_id, no_w_id) VALUES (o, d, w);
        -- lines in the order of their stock rows, so that two new-orders
        -- never wait for each other's
        FOR line IN SELECT u.i, u.s, u.q, u.n::pg_catalog.int4 AS n
                      FROM ROWS FROM (pg_catalog.unnest(items), pg_catalog.unnest(supply), pg_catalog.unnest(qty)) WITH ORDINALITY AS u (i, s, q, n)
                     ORDER BY u.s, u.i LOOP
            SELECT x.i_price, x.i_name, x.i_data INTO item FROM %1$s.item AS x WHERE x.i_id OPERATOR(pg_catalog.=) line.i;
            IF NOT FOUND THEN
                RAISE EXCEPTION 'item %% is unknown', line.i USING ERRCODE = 'no_data_found';
            END IF;
            UPDATE %1$s.stock
               SET s_quantity = CASE WHEN s_quantity OPERATOR(pg_catalog.-) line.q OPERATOR(pg_catalog.>=) 10
                                     THEN s_quantity OPERATOR(pg_catalog.-) line.q
                                     ELSE s_quantity OPERATOR(pg_catalog.-) line.q OPERATOR(pg_catalog.+) 91 END,
                   s_ytd = s_ytd OPERATOR(pg_catalog.+) line.q, s_order_cnt = s_order_cnt OPERATOR(pg_catalog.+) 1,
                   s_remote_cnt = s_remote_cnt OPERATOR(pg_catalog.+) CASE WHEN line.s OPERATOR(pg_catalog.=) w THEN 0 ELSE 1 END
             WHERE s_w_id OPERATOR(pg_catalog.=) line.s AND s_i_id OPERATOR(pg_catalog.=) line.i
            RETURNING (ARRAY[s_dist_01, s_dist_02, s_dist_03, s_dist_04, s_dist_05,
                             s_dist_06, s_dist_07, s_dist_08, s_dist_09, s_dist_10])[d] AS dist, s_data INTO stock;
            -- the brand: B when the item's and the stock's data both say ORIGINAL
            brand := CASE WHEN pg_catalog.strpos(item.i_data, 'ORIGINAL') OPERATOR(pg_catalog.>) 0
                               AND pg_catalog.strpos(stock.s_data, 'ORIGINAL') OPERATOR(pg_catalog.>) 0 THEN 'B' ELSE 'G' END;
            amount := line.q OPERATOR(pg_catalog.*) item.i_price;
            total := total OPERATOR(pg_catalog.+) amount;
            INSERT INTO %1$s.order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d,
                                         ol_quantity, ol_amount, ol_dist_info)
                VALUES (o, d, w, line.n, line.i, line.s, NULL, line.q, amount, stock.dist);
        END LOOP;
        -- the order's total, as the terminal shows it
        total := total OPERATOR(pg_catalog.*) (1 OPERATOR(pg_catalog.-) cust.c_discount)
                 OPERATOR(pg_catalog.*) (1 OPERATOR(pg_catalog.+) w_tax OPERATOR(pg_catalog.+) d_tax);
    EXCEPTION WHEN no_data_found THEN
        RETURN 0;		-- rolled back (clause 2.4.2.3)
    END;
    RETURN o;
END
$b$;
COMMENT ON FUNCTION %1$s.new_order(pg_catalog.int4, pg_catalog.int4, pg_catalog.int4, pg_catalog.int4, pg_catalog.int4, pg_catalog.int4) IS
    'TPC-C new-order (clause 2.4): the order, its lines, the stock, the taxes, discount, brands and total read; the order''s id, or 0 when it named an unknown item and its work was rolled back';
CREATE FUNCTION %1$s.delivery(w pg_catalog.int4, carrier pg_catalog.int4)
RETURNS pg_catalog.int4 LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $b$
DECLARE
    o pg_catalog.int4; c pg_catalog.int4; amount pg_catalog.numeric; delivered pg_catalog.int4 := 0;
BEGIN
    FOR d IN 1 .. 10 LOOP
        -- the oldest new order no other delivery holds; when another holds
        -- every one, the oldest left once it is done: a district is skipped
        -- only when it has no new order (clause 2.7.4.2)
        SELECT no_o_id INTO o FROM %1$s.new_order WHERE no_w_id OPERATOR(pg_catalog.=) w AND no_d_id OPERATOR(pg_catalog.=) d
         ORDER BY no_o_id LIMIT 1 FOR UPDATE SKIP LOCKED;
        IF NOT FOUND THEN
            SELECT no_o_id INTO o FROM %1$s.new_order WHERE no_w_id OPERATOR(pg_catalog.=) w AND no_d_id OPERATOR(pg_catalog.=) d
             ORDER BY no_o_id LIMIT 1 FOR UPDATE;
        END IF;
        IF NOT FOUND THEN
            RAISE LOG 'TPC-C delivery skipped district %% of warehouse %%: it has no new order', d, w;
            CONTINUE;
        END IF;
        DELETE FROM %1$s.new_order WHERE no_w_id OPERATOR(pg_catalog.=) w AND no_d_id OPERATOR(pg_catalog.=) d
           AND no_o_id OPERATOR(pg_catalog.=) o;
        UPDATE %1$s.orders SET o_carrier_id = carrier
         WHERE o_w_id OPERATOR(pg_catalog.=) w AND o_d_id OPERATOR(pg_catalog.=) d AND o_id OPERATOR(pg_catalog.=) o
        RETURNING o_c_id INTO c;
        UPDATE %1$s.order_line SET ol_delivery_d = pg_catalog.now()
         WHERE ol_w_id OPERATOR(pg_catalog.=) w AND ol_d_id OPERATOR(pg_catalog.=) d AND ol_o_id OPERATOR(pg_catalog.=) o;
        SELECT pg_catalog.sum(ol_amount) INTO amount FROM %1$s.order_line
         WHERE ol_w_id OPERATOR(pg_catalog.=) w AND ol_d_id OPERATOR(pg_catalog.=) d AND ol_o_id OPERATOR(pg_catalog.=) o;
        UPDATE %1$s.customer SET c_balance = c_balance OPERATOR(pg_catalog.+) amount,
                                 c_delivery_cnt = c_delivery_cnt OPERATOR(pg_catalog.+) 1
         WHERE c_w_id OPERATOR(pg_catalog.=) w AND c_d_id OPERATOR(pg_catalog.=) d AND c_id OPERATOR(pg_catalog.=) c;
        delivered := delivered OPERATOR(pg_catalog.+) 1;
    END LOOP;
    RETURN delivered;
END
$b$;
COMMENT ON FUNCTION %1$s.delivery(pg_catalog.int4, pg_catalog.int4) IS
    'TPC-C delivery (clause 2.7): the oldest new order of each district of a warehouse that another delivery does not hold delivered; how many (a district without a new order is skipped, and logged)'
$q$, s, schema,
           pg_catalog.format('init_tpcc: schema "%s" exists and another role owns it or may create in it', schema),
           pg_catalog.format('The kit''s functions there would be that role''s to replace, and run with your rights. Drop the schema (DROP SCHEMA %s CASCADE) or name another.',
                             s)),
        -- item (clause 4.3.3.1): 10 %% of the items' data hold ORIGINAL
        pg_catalog.format($q$
INSERT INTO %1$s.item (i_id, i_im_id, i_name, i_price, i_data)
SELECT i, 1 OPERATOR(pg_catalog.+) (pg_catalog.random() OPERATOR(pg_catalog.*) 9999)::pg_catalog.int4, %2$s, (100 OPERATOR(pg_catalog.+) (pg_catalog.random() OPERATOR(pg_catalog.*) 9900)::pg_catalog.int4) OPERATOR(pg_catalog./) 100.0,
       CASE WHEN r.original THEN pg_catalog.overlay(pg_catalog.encode(pg_catalog.substr($1, r.o, r.l), 'escape'), 'ORIGINAL', 1 OPERATOR(pg_catalog.+) (pg_catalog.random() OPERATOR(pg_catalog.*) (r.l OPERATOR(pg_catalog.-) 8))::pg_catalog.int4, 8)
            ELSE pg_catalog.encode(pg_catalog.substr($1, r.o, r.l), 'escape') END
  FROM (SELECT i, 26 OPERATOR(pg_catalog.+) (pg_catalog.random() OPERATOR(pg_catalog.*) 24)::pg_catalog.int4 AS l, 1 OPERATOR(pg_catalog.+) (pg_catalog.random() OPERATOR(pg_catalog.*) 400)::pg_catalog.int4 AS o,
               pg_catalog.random() OPERATOR(pg_catalog.<) 0.1 AS original
          FROM pg_catalog.generate_series(1, 100000) AS i OFFSET 0) AS r
$q$, s, pg_catalog.format(rnd, 14, 10)),
        -- warehouse
        pg_catalog.format($q$
INSERT INTO %1$s.warehouse
SELECT w, %2$s, %3$s, (pg_catalog.random() OPERATOR(pg_catalog.*) 2000)::pg_catalog.int4 OPERATOR(pg_catalog./) 10000.0, 300000
  FROM pg_catalog.generate_series(1, %4$s) AS w
$q$, s, pg_catalog.format(rnd, 6, 4), addr, warehouses),
        -- district
        pg_catalog.format($q$
INSERT INTO %1$s.district
SELECT d, w, %2$s, %3$s, (pg_catalog.random() OPERATOR(pg_catalog.*) 2000)::pg_catalog.int4 OPERATOR(pg_catalog./) 10000.0, 30000, 3001
  FROM pg_catalog.generate_series(1, %4$s) AS w, pg_catalog.generate_series(1, 10) AS d
$q$, s, pg_catalog.format(rnd, 6, 4), addr, warehouses),
        -- customer: the first 1 000 of a district have the 1 000 last
        -- names in turn, the others NURand(255, 0, 999) ones
        pg_catalog.format($q$
INSERT INTO %1$s.customer
SELECT c, d, w, %2$s, 'OE',
       %1$s.last_name(CASE WHEN c OPERATOR(pg_catalog.<=) 1000 THEN c OPERATOR(pg_catalog.-) 1
                           ELSE ((((pg_catalog.random() OPERATOR(pg_catalog.*) 255)::pg_catalog.int4 OPERATOR(pg_catalog.|) (pg_catalog.random() OPERATOR(pg_catalog.*) 999)::pg_catalog.int4) OPERATOR(pg_catalog.+) 157) OPERATOR(pg_catalog.%%) 1000) END),
       %3$s, pg_catalog.lpad(((pg_catalog.random() OPERATOR(pg_catalog.*) 9999999999999999)::pg_catalog.int8)::pg_catalog.text, 16, '0'), pg_catalog.now(),
       CASE WHEN pg_catalog.random() OPERATOR(pg_catalog.<) 0.1 THEN 'BC' ELSE 'GC' END, 50000,
       (pg_catalog.random() OPERATOR(pg_catalog.*) 5000)::pg_catalog.int4 OPERATOR(pg_catalog./) 10000.0, -10, 10, 1, 0, %4$s
  FROM pg_catalog.generate_series(1, %5$s) AS w, pg_catalog.generate_series(1, 10) AS d, pg_catalog.generate_series(1, 3000) AS c
$q$, s, pg_catalog.format(rnd, 8, 8), addr, pg_catalog.format(rnd, 300, 200), warehouses),
        -- history: one row per customer
        pg_catalog.format($q$
INSERT INTO %1$s.history
SELECT c, d, w, d, w, pg_catalog.now(), 10, %2$s
  FROM pg_catalog.generate_series(1, %3$s) AS w, pg_catalog.generate_series(1, 10) AS d, pg_catalog.generate_series(1, 3000) AS c
$q$, s, pg_catalog.format(rnd, 12, 12), warehouses),
        -- orders: the customers of a district in a random permutation; the
        -- first 2 100 delivered
        pg_catalog.format($q$
INSERT INTO %1$s.orders
SELECT o, d, w, c, pg_catalog.now(), CASE WHEN o OPERATOR(pg_catalog.<) 2101 THEN 1 OPERATOR(pg_catalog.+) (pg_catalog.random() OPERATOR(pg_catalog.*) 9)::pg_catalog.int4 END,
       5 OPERATOR(pg_catalog.+) (pg_catalog.random() OPERATOR(pg_catalog.*) 10)::pg_catalog.int4, 1
  FROM (SELECT w, d, c, pg_catalog.row_number() OVER (PARTITION BY w, d ORDER BY pg_catalog.random()) AS o
          FROM pg_catalog.generate_series(1, %2$s) AS w, pg_catalog.generate_series(1, 10) AS d,
               pg_catalog.generate_series(1, 3000) AS c) AS p
$q$, s, warehouses),
        -- new_order: the last 900 orders of each district
        pg_catalog.format($q$
INSERT INTO %1$s.new_order
SELECT o, d, w
  FROM pg_catalog.generate_series(1, %2$s) AS w, pg_catalog.generate_series(1, 10) AS d, pg_catalog.generate_series(2101, 3000) AS o
$q$, s, warehouses),
        -- order_line: o_ol_cnt lines per order
        pg_catalog.format($q$
INSERT INTO %1$s.order_line
SELECT o_id, o_d_id, o_w_id, n, 1 OPERATOR(pg_catalog.+) (pg_catalog.random() OPERATOR(pg_catalog.*) 99999)::pg_catalog.int4, o_w_id,
       CASE WHEN o_id OPERATOR(pg_catalog.<) 2101 THEN o_entry_d END, 5,
       CASE WHEN o_id OPERATOR(pg_catalog.<) 2101 THEN 0 ELSE (1 OPERATOR(pg_catalog.+) (pg_catalog.random() OPERATOR(pg_catalog.*) 999998)::pg_catalog.int4) OPERATOR(pg_catalog./) 100.0 END,
       pg_catalog.encode(pg_catalog.substr($1, 1 OPERATOR(pg_catalog.+) (pg_catalog.random() OPERATOR(pg_catalog.*) 900)::pg_catalog.int4, 24), 'escape')
  FROM %1$s.orders, pg_catalog.generate_series(1, o_ol_cnt) AS n
$q$, s),
        -- stock: 100 000 per warehouse, 10 %% of their data with ORIGINAL;
        -- the ten s_dist_xx adjacent pieces of the pool from one offset
        pg_catalog.format($q$
INSERT INTO %1$s.stock
SELECT i, w, 10 OPERATOR(pg_catalog.+) (pg_catalog.random() OPERATOR(pg_catalog.*) 90)::pg_catalog.int4,
       pg_catalog.encode(pg_catalog.substr($1, r.d, 24), 'escape'), pg_catalog.encode(pg_catalog.substr($1, r.d OPERATOR(pg_catalog.+) 24, 24), 'escape'), pg_catalog.encode(pg_catalog.substr($1, r.d OPERATOR(pg_catalog.+) 48, 24), 'escape'),
       pg_catalog.encode(pg_catalog.substr($1, r.d OPERATOR(pg_catalog.+) 72, 24), 'escape'), pg_catalog.encode(pg_catalog.substr($1, r.d OPERATOR(pg_catalog.+) 96, 24), 'escape'), pg_catalog.encode(pg_catalog.substr($1, r.d OPERATOR(pg_catalog.+) 120, 24), 'escape'),
       pg_catalog.encode(pg_catalog.substr($1, r.d OPERATOR(pg_catalog.+) 144, 24), 'escape'), pg_catalog.encode(pg_catalog.substr($1, r.d OPERATOR(pg_catalog.+) 168, 24), 'escape'), pg_catalog.encode(pg_catalog.substr($1, r.d OPERATOR(pg_catalog.+) 192, 24), 'escape'),
       pg_catalog.encode(pg_catalog.substr($1, r.d OPERATOR(pg_catalog.+) 216, 24), 'escape'), 0, 0, 0,
       CASE WHEN r.original THEN pg_catalog.overlay(pg_catalog.encode(pg_catalog.substr($1, r.o, r.l), 'escape'), 'ORIGINAL', 1 OPERATOR(pg_catalog.+) (pg_catalog.random() OPERATOR(pg_catalog.*) (r.l OPERATOR(pg_catalog.-) 8))::pg_catalog.int4, 8)
            ELSE pg_catalog.encode(pg_catalog.substr($1, r.o, r.l), 'escape') END
  FROM (SELECT w, i, 26 OPERATOR(pg_catalog.+) (pg_catalog.random() OPERATOR(pg_catalog.*) 24)::pg_catalog.int4 AS l, 1 OPERATOR(pg_catalog.+) (pg_catalog.random() OPERATOR(pg_catalog.*) 400)::pg_catalog.int4 AS o,
               pg_catalog.random() OPERATOR(pg_catalog.<) 0.1 AS original, 1 OPERATOR(pg_catalog.+) (pg_catalog.random() OPERATOR(pg_catalog.*) 700)::pg_catalog.int4 AS d
          FROM pg_catalog.generate_series(1, %3$s) AS w, pg_catalog.generate_series(1, 100000) AS i OFFSET 0) AS r
$q$, s, NULL, warehouses),
        -- the two indexes the transactions' look-ups need, from the rows
        pg_catalog.format($q$
CREATE INDEX customer_name ON %1$s.customer (c_w_id, c_d_id, c_last, c_first);
CREATE INDEX orders_customer ON %1$s.orders (o_w_id, o_d_id, o_c_id, o_id)
$q$, s),
        -- the statistics of the columns the kit's transactions look up
        -- and join by (the wide random strings' would cost most of the
        -- time and serve no plan); relpages and reltuples of all
        pg_catalog.format($q$
ANALYZE %1$s.warehouse (w_id), %1$s.district (d_w_id, d_id), %1$s.customer (c_w_id, c_d_id, c_id, c_last),
        %1$s.history (h_w_id), %1$s.new_order (no_w_id, no_d_id, no_o_id), %1$s.orders (o_w_id, o_d_id, o_id, o_c_id),
        %1$s.order_line (ol_w_id, ol_d_id, ol_o_id, ol_i_id), %1$s.item (i_id), %1$s.stock (s_w_id, s_i_id, s_quantity)
$q$, s),
        -- the kit's scripts, saved for the caller with this schema
        pg_catalog.format($q$
INSERT INTO pgbench_lab.scripts AS t (name, body)
SELECT k.name, pg_catalog.replace(k.body, 'tpcc.', %1$L OPERATOR(pg_catalog.||) '.')
  FROM pgbench_lab_internal.tpcc_scripts() AS k
ON CONFLICT (created_by, name) DO UPDATE SET body = excluded.body, created_at = pg_catalog.now()
$q$, s)];

    IF target IS NOT NULL THEN
        -- on the target: every step but the scripts' as set-based SQL, in
        -- one transaction there (tpcc_remote.c); the scripts saved here
        FOR step, seconds, rows, bytes IN
            SELECT r.step, pg_catalog.round(r.seconds::pg_catalog.numeric, 3), r.rows, r.bytes
              FROM pgbench_lab_internal.tpcc_remote(target, schema, steps[1:12], stmts[1:12], pool, letters, weights) AS r LOOP
            rows_per_second := CASE WHEN rows IS NOT NULL AND seconds OPERATOR(pg_catalog.>) 0
                                    THEN pg_catalog.round(rows::pg_catalog.numeric OPERATOR(pg_catalog./) seconds) END;
            megabytes_per_second := CASE WHEN bytes IS NOT NULL AND seconds OPERATOR(pg_catalog.>) 0
                                         THEN pg_catalog.round(bytes::pg_catalog.numeric OPERATOR(pg_catalog./) 1048576
                                                               OPERATOR(pg_catalog./) seconds, 1) END;
            total_rows := total_rows OPERATOR(pg_catalog.+) COALESCE(rows, 0);
            total_bytes := total_bytes OPERATOR(pg_catalog.+) COALESCE(bytes, 0);
            RETURN NEXT;
        END LOOP;
        first := 13;
    END IF;
    FOR k IN first .. pg_catalog.array_length(steps, 1) LOOP
        PERFORM pgbench_lab_internal.tpcc_progress(k, weights, steps[k], false);
        t0 := pg_catalog.clock_timestamp();
        IF steps[k] OPERATOR(pg_catalog.=) 'scripts'
           AND NOT pg_catalog.has_table_privilege('pgbench_lab.scripts', 'INSERT, UPDATE') THEN
            -- saving scripts is granted with run(): without it, no scripts
            RAISE NOTICE 'init_tpcc: the kit''s scripts are not saved: this role may not save scripts'
                USING HINT = 'A role granted pgbench_lab.run() may; the files are in the extension''s source, sql/tpcc/.';
            n := 0;
        ELSIF pooled[k] THEN
            -- the rows made in C (tpcc_load.c); stmts[k], the same in SQL, is what a target runs
            n := pgbench_lab_internal.tpcc_load(pg_catalog.format('%s.%I', s, steps[k])::pg_catalog.regclass, warehouses, seed);
        ELSE
            EXECUTE stmts[k];
            GET DIAGNOSTICS n = ROW_COUNT;
        END IF;
        step := steps[k];
        seconds := pg_catalog.round(pg_catalog.date_part('epoch', pg_catalog.clock_timestamp() OPERATOR(pg_catalog.-) t0)::pg_catalog.numeric, 3);
        rows := CASE WHEN counted[k] THEN n END;
        rows_per_second := CASE WHEN counted[k] AND seconds OPERATOR(pg_catalog.>) 0
                                THEN pg_catalog.round(n::pg_catalog.numeric OPERATOR(pg_catalog./) seconds) END;
        bytes := NULL;
        IF sized[k] OPERATOR(pg_catalog.=) 'indexes' THEN
            bytes := pg_catalog.pg_relation_size(pg_catalog.format('%s.customer_name', s)::pg_catalog.regclass)
                     OPERATOR(pg_catalog.+) pg_catalog.pg_relation_size(pg_catalog.format('%s.orders_customer', s)::pg_catalog.regclass);
        ELSIF sized[k] IS NOT NULL THEN
            -- the table and its primary key, written together
            bytes := pg_catalog.pg_total_relation_size(pg_catalog.format('%s.%I', s, sized[k])::pg_catalog.regclass);
        END IF;
        megabytes_per_second := CASE WHEN bytes IS NOT NULL AND seconds OPERATOR(pg_catalog.>) 0
                                     THEN pg_catalog.round(bytes::pg_catalog.numeric OPERATOR(pg_catalog./) 1048576
                                                           OPERATOR(pg_catalog./) seconds, 1) END;
        total_rows := total_rows OPERATOR(pg_catalog.+) COALESCE(rows, 0);
        total_bytes := total_bytes OPERATOR(pg_catalog.+) COALESCE(bytes, 0);
        PERFORM pgbench_lab_internal.tpcc_progress(k, weights, pg_catalog.format('%s%s in %s s', step,
            CASE WHEN rows IS NULL THEN '' ELSE pg_catalog.format(', %s rows', rows) END, seconds), true);
        RETURN NEXT;
    END LOOP;
    PERFORM pgbench_lab_internal.tpcc_progress(0, weights, '', false);
    -- the whole call: its rows and the bytes of the tables and their keys
    step := 'total';
    seconds := pg_catalog.round(pg_catalog.date_part('epoch', pg_catalog.clock_timestamp() OPERATOR(pg_catalog.-) t_call)::pg_catalog.numeric, 3);
    rows := total_rows;
    rows_per_second := CASE WHEN seconds OPERATOR(pg_catalog.>) 0
                            THEN pg_catalog.round(total_rows::pg_catalog.numeric OPERATOR(pg_catalog./) seconds) END;
    bytes := total_bytes;
    megabytes_per_second := CASE WHEN seconds OPERATOR(pg_catalog.>) 0
                                 THEN pg_catalog.round(total_bytes::pg_catalog.numeric OPERATOR(pg_catalog./) 1048576
                                                       OPERATOR(pg_catalog./) seconds, 1) END;
    RETURN NEXT;
END
$fn$;
COMMENT ON FUNCTION pgbench_lab.init_tpcc(integer, text, text) IS
'TPC-C''s nine tables in a schema (default tpcc), populated by the specification''s rules in the server, with the kit''s functions there and its five scripts saved as the caller''s tpcc-* scripts';
REVOKE EXECUTE ON FUNCTION pgbench_lab.init_tpcc(integer, text, text) FROM PUBLIC;
