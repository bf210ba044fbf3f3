
-- ---------------------------------------------------------------------------
-- cold_vs_warm(): runs cold, OS-warm and warm, in rounds, recorded as an
-- experiment.  Each step's preparation brings the relations into its state
-- (make_cold, warm) in a transaction of its own before its run.  Every
-- round runs the three in that order: the OS-warm state is what the
-- round's cold run left in the OS page cache, so the order is part of what
-- is measured and cannot alternate as other kinds' rounds do; each round
-- begins with make_cold of both caches, so the rounds start alike.  The
-- TPS ratios warm/cold, OS-warm/cold and warm/OS-warm ("warm against
-- cold" ...) are paired by round and judged by paired_verdict()
-- (71_verdict.sql).
-- ---------------------------------------------------------------------------

-- The three states, in the order they run; a run's variant is its position.
CREATE FUNCTION pgbench_lab_internal.cold_vs_warm_state(variant integer)
RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT (ARRAY['cold', 'os-warm', 'warm'])[variant] $$;

-- The relations of an experiment: those given (tables or materialized
-- views, each once; for a TPC-C run given none, the planner passes its
-- nine tables, cold_vs_warm_tpcc_relations()), or pgbench's four tables
-- in the schema of the pgbench_accounts that the caller's search_path
-- finds (accounts passed in by the procedure, which has no search_path of
-- its own).
CREATE FUNCTION pgbench_lab_internal.cold_vs_warm_relations(relations regclass[], accounts regclass)
RETURNS regclass[] LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    bad pg_catalog.regclass;
BEGIN
    IF relations IS NULL THEN
        IF accounts IS NULL THEN
            RAISE EXCEPTION 'relation "pgbench_accounts" does not exist'
                USING ERRCODE = 'undefined_table',
                      HINT = 'Create pgbench''s tables with pgbench_lab.init(scale => 10) or pgbench -i, '
                             'put their schema in search_path, or pass relations.';
        END IF;
        RETURN ARRAY(SELECT c.oid::pg_catalog.regclass
                       FROM pg_catalog.unnest(ARRAY['pgbench_accounts', 'pgbench_branches', 'pgbench_tellers',
                                         'pgbench_history']) WITH ORDINALITY AS t(name, i)
                       JOIN pg_catalog.pg_class c ON c.relname OPERATOR(pg_catalog.=) t.name
                      WHERE c.relnamespace OPERATOR(pg_catalog.=) (SELECT a.relnamespace FROM pg_catalog.pg_class a WHERE a.oid OPERATOR(pg_catalog.=) accounts)
                      ORDER BY t.i);
    END IF;
    IF pg_catalog.cardinality(relations) OPERATOR(pg_catalog.=) 0 OR pg_catalog.array_position(relations, NULL) IS NOT NULL THEN
        RAISE EXCEPTION 'relations must not be empty or contain null'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Pass NULL for pgbench''s tables, or tables such as ARRAY[''pgbench_accounts''::regclass].';
    END IF;
    SELECT r INTO bad FROM pg_catalog.unnest(relations) r GROUP BY r HAVING pg_catalog.count(*) OPERATOR(pg_catalog.>) 1 LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'relation "%" appears twice in relations', bad
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Name each table once; its indexes and TOAST table come with it.';
    END IF;
    SELECT r INTO bad FROM pg_catalog.unnest(relations) r JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) r
     WHERE NOT c.relkind OPERATOR(pg_catalog.=) ANY (ARRAY['r', 'm']::pg_catalog."char"[]) LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION '"%" is not a table or materialized view', bad
            USING ERRCODE = 'wrong_object_type',
                  HINT = 'Pass tables (or materialized views); their indexes and TOAST tables come with them.';
    END IF;
    SELECT r INTO bad FROM pg_catalog.unnest(relations) r JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) r
     WHERE c.relnamespace OPERATOR(pg_catalog.=) ANY (ARRAY['pg_catalog'::pg_catalog.regnamespace,
                                                            'pg_toast'::pg_catalog.regnamespace]::pg_catalog.oid[]) LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'permission denied: "%" is a system catalog', bad
            USING ERRCODE = 'insufficient_privilege',
                  DETAIL = 'make_cold never evicts the system catalogs.';
    END IF;
    RETURN relations;
END
$$;

-- The schema of a TPC-C run's tables, or NULL when the run is not TPC-C.
-- A run is TPC-C when its scripts are all the kit's (tpcc-new-order ...,
-- each the caller's or owner/name, with or without a weight), or when its
-- workload is 'tpcc' and it names no scripts (then it runs the caller's
-- saved tpcc-* scripts).  init_tpcc() saved those scripts with the schema
-- it made, and each one reads the count of warehouses "FROM <schema>.warehouse":
-- the schema is read from that statement of each saved script the run
-- names (quoted names too, through parse_ident), and must be one.
CREATE FUNCTION pgbench_lab_internal.cold_vs_warm_tpcc_schema(workload text, options jsonb)
RETURNS text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    entries pg_catalog.text[];
    e pg_catalog.record;
    head pg_catalog.text;
    one pg_catalog.text;
    schema pg_catalog.text;
BEGIN
    IF pg_catalog.jsonb_typeof(options OPERATOR(pg_catalog.->) 'scripts') OPERATOR(pg_catalog.=) 'array' THEN
        entries := ARRAY(SELECT pg_catalog.jsonb_array_elements_text(options OPERATOR(pg_catalog.->) 'scripts'));
    ELSIF options OPERATOR(pg_catalog.?) 'script' OR options OPERATOR(pg_catalog.?) 'scripts' THEN
        RETURN NULL;
    ELSIF workload OPERATOR(pg_catalog.=) 'tpcc' THEN
        entries := ARRAY['tpcc-new-order'];
    ELSE
        RETURN NULL;
    END IF;
    IF pg_catalog.cardinality(entries) OPERATOR(pg_catalog.=) 0 THEN
        RETURN NULL;
    END IF;
    -- each entry as the runner reads it: [owner/]name[@weight], the owner
    -- before the last '/', the weight after the last '@' that follows it
    FOR e IN
        SELECT x.name, (SELECT p.body FROM pgbench_lab.scripts p
                         WHERE p.name OPERATOR(pg_catalog.=) x.name
                           AND p.created_by OPERATOR(pg_catalog.=) coalesce(x.owner, CURRENT_USER::pg_catalog.text)) AS body
          FROM (SELECT pg_catalog.substring(u.entry, '^(.*)/[^/]*$') AS owner,
                       pg_catalog.regexp_replace(pg_catalog.substring(u.entry, '([^/]*)$'), '@[^@]*$', '') AS name
                  FROM pg_catalog.unnest(entries) AS u(entry)) x
    LOOP
        IF e.body IS NULL OR NOT e.name OPERATOR(pg_catalog.=) ANY (ARRAY(SELECT k.name FROM pgbench_lab_internal.tpcc_scripts() k)) THEN
            RETURN NULL;        -- not the kit's scripts (run() refuses an unknown one itself)
        END IF;
        -- the statement that reads the warehouses: the first line that is
        -- not a comment and names one (the kit's first statement is BEGIN)
        SELECT l.line INTO head FROM pg_catalog.regexp_split_to_table(e.body, E'\n') WITH ORDINALITY AS l(line, i)
         WHERE l.line OPERATOR(pg_catalog.!~) '^\s*--'
           AND l.line OPERATOR(pg_catalog.~) '(?i)\mFROM\s+("(?:[^"]|"")+"|[^[:space:]".]+)\.warehouse\M'
         ORDER BY l.i LIMIT 1;
        BEGIN
            one := (pg_catalog.parse_ident(pg_catalog.substring(head,
                       '(?i)\mFROM\s+("(?:[^"]|"")+"|[^[:space:]".]+)\.warehouse\M')))[1];
        EXCEPTION WHEN invalid_parameter_value THEN
            one := NULL;        -- an edited script whose schema is not a name
        END;
        IF one IS NULL OR (schema IS NOT NULL AND one OPERATOR(pg_catalog.<>) schema) THEN
            RETURN NULL;        -- no schema read, or not one schema
        END IF;
        schema := one;
    END LOOP;
    RETURN schema;
END
$$;

-- The relations of a TPC-C run (cold_vs_warm_tpcc_schema()): the nine
-- tables in that schema, in the order init_tpcc() makes them, or NULL when
-- the run is not TPC-C.  A missing table is refused, naming it.
CREATE FUNCTION pgbench_lab_internal.cold_vs_warm_tpcc_relations(workload text, options jsonb)
RETURNS regclass[] LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    schema pg_catalog.text := pgbench_lab_internal.cold_vs_warm_tpcc_schema(workload, options);
    rels pg_catalog.regclass[];
    missing pg_catalog.text;
BEGIN
    IF schema IS NULL THEN
        RETURN NULL;
    END IF;
    SELECT pg_catalog.array_agg(c.oid::pg_catalog.regclass ORDER BY t.i),
           (pg_catalog.array_agg(t.name ORDER BY t.i) FILTER (WHERE c.oid IS NULL))[1]
      INTO rels, missing
      FROM pg_catalog.unnest(ARRAY['warehouse', 'district', 'customer', 'history', 'new_order', 'orders',
                                   'order_line', 'item', 'stock']) WITH ORDINALITY AS t(name, i)
      LEFT JOIN pg_catalog.pg_namespace n ON n.nspname OPERATOR(pg_catalog.=) schema
      LEFT JOIN pg_catalog.pg_class c ON c.relnamespace OPERATOR(pg_catalog.=) n.oid
                                     AND c.relname OPERATOR(pg_catalog.=) t.name
                                     AND c.relkind OPERATOR(pg_catalog.=) 'r';
    IF missing IS NOT NULL THEN
        RAISE EXCEPTION 'relation "%.%" does not exist', pg_catalog.quote_ident(schema), missing
            USING ERRCODE = 'undefined_table',
                  DETAIL = pg_catalog.format('The run''s TPC-C scripts name the schema %s.', pg_catalog.quote_ident(schema)),
                  HINT = 'Make the tables with pgbench_lab.init_tpcc(), or pass relations.';
    END IF;
    RETURN rels;
END
$$;

-- What the warm step will load, recorded with the experiment (params->'warm')
-- before anything is evicted: shared_buffers, the margin a warm leaves to
-- the rest of the server and the budget it leaves (blocks, from C:
-- warm_budget), the working set (the relations with their indexes and
-- TOAST, all forks), and per relation, hottest first, its blocks and how
-- many of them the warm step loads (warm_plan).
CREATE FUNCTION pgbench_lab_internal.cold_vs_warm_warm_plan(rels regclass[])
RETURNS jsonb LANGUAGE sql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH b AS (
        SELECT * FROM pgbench_lab_internal.warm_budget()
    ), p AS MATERIALIZED (
        SELECT w.relation, w.kind, w.blocks, w.warm_blocks, w.o
          FROM b, pgbench_lab_internal.warm_plan(rels, b.budget) WITH ORDINALITY AS w(relation, kind, blocks, warm_blocks, o)
    ), t AS (
        SELECT coalesce(pg_catalog.sum(p.blocks), 0)::bigint AS blocks,
               coalesce(pg_catalog.sum(p.warm_blocks), 0)::bigint AS warm_blocks FROM p
    )
    SELECT pg_catalog.jsonb_build_object(
               'block_size', pg_catalog.current_setting('block_size')::bigint,
               'shared_buffers', b.shared_buffers, 'margin', b.margin, 'budget', b.budget,
               'working_set', t.blocks, 'warm_blocks', t.warm_blocks,
               'fits', t.blocks OPERATOR(pg_catalog.<=) b.budget,
               'relations', coalesce((SELECT pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object(
                                               'relid', p.relation::pg_catalog.oid::bigint,
                                               'relation', p.relation::pg_catalog.text, 'kind', p.kind,
                                               'blocks', p.blocks, 'warm_blocks', p.warm_blocks) ORDER BY p.o)
                                        FROM p), '[]'))
      FROM b, t
$$;
REVOKE ALL ON FUNCTION pgbench_lab_internal.cold_vs_warm_warm_plan(regclass[]) FROM PUBLIC;

-- A recorded warm plan (params->'warm') read back, whatever an imported
-- document put there: no row unless its figures are whole numbers.
-- partly lists what the plan loads in part or not at all ("only 39% of
-- public.pgbench_accounts, none of public.pgbench_history"; NULL when
-- nothing); the percentages are of the working set.
CREATE FUNCTION pgbench_lab_internal.cold_vs_warm_fit(warm jsonb)
RETURNS TABLE (block_size bigint, shared_buffers bigint, budget bigint, working_set bigint,
               warm_blocks bigint, fits boolean, buffers_pct double precision, warm_pct double precision,
               partly text)
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH f AS (
        SELECT pgbench_lab_internal.json_int(warm OPERATOR(pg_catalog.->) 'block_size', 1, 1048576) AS block_size,
               pgbench_lab_internal.json_int(warm OPERATOR(pg_catalog.->) 'shared_buffers', 0, 9223372036854775807) AS shared_buffers,
               pgbench_lab_internal.json_int(warm OPERATOR(pg_catalog.->) 'budget', 0, 9223372036854775807) AS budget,
               pgbench_lab_internal.json_int(warm OPERATOR(pg_catalog.->) 'working_set', 0, 9223372036854775807) AS working_set,
               pgbench_lab_internal.json_int(warm OPERATOR(pg_catalog.->) 'warm_blocks', 0, 9223372036854775807) AS warm_blocks
    ), r AS (
        SELECT x.e OPERATOR(pg_catalog.->>) 'relation' AS relation, x.i,
               pgbench_lab_internal.json_int(x.e OPERATOR(pg_catalog.->) 'blocks', 0, 9223372036854775807) AS blocks,
               pgbench_lab_internal.json_int(x.e OPERATOR(pg_catalog.->) 'warm_blocks', 0, 9223372036854775807) AS warm
          FROM pg_catalog.jsonb_array_elements(
                   CASE WHEN pg_catalog.jsonb_typeof(warm OPERATOR(pg_catalog.->) 'relations') OPERATOR(pg_catalog.=) 'array'
                        THEN warm OPERATOR(pg_catalog.->) 'relations' ELSE '[]' END) WITH ORDINALITY AS x(e, i)
    )
    SELECT f.block_size, f.shared_buffers, f.budget, f.working_set, f.warm_blocks,
           f.working_set OPERATOR(pg_catalog.<=) f.budget,
           CASE WHEN f.working_set OPERATOR(pg_catalog.>) 0
                THEN LEAST(100.0, (100.0 OPERATOR(pg_catalog.*) f.shared_buffers) OPERATOR(pg_catalog./) f.working_set) END,
           CASE WHEN f.working_set OPERATOR(pg_catalog.>) 0
                THEN (100.0 OPERATOR(pg_catalog.*) f.warm_blocks) OPERATOR(pg_catalog./) f.working_set END,
           (SELECT pg_catalog.string_agg(CASE WHEN r.warm OPERATOR(pg_catalog.=) 0
                                              THEN pg_catalog.format('none of %s', r.relation)
                                              ELSE pg_catalog.format('only %s%% of %s',
                                                       pg_catalog.floor((100 OPERATOR(pg_catalog.*) r.warm) OPERATOR(pg_catalog./) r.blocks),
                                                       r.relation) END, ', ' ORDER BY r.i)
              FROM r WHERE r.warm OPERATOR(pg_catalog.<) r.blocks)
      FROM f
     WHERE f.block_size IS NOT NULL AND f.shared_buffers IS NOT NULL AND f.budget IS NOT NULL
       AND f.working_set IS NOT NULL AND f.warm_blocks IS NOT NULL
$$;

-- "the working set (30 MB) is larger than shared_buffers (16 MB), which
-- holds 53% of it", or, between the budget and shared_buffers, that it
-- does not fit once the margin is left.
CREATE FUNCTION pgbench_lab_internal.cold_vs_warm_fit_words(block_size bigint, shared_buffers bigint, working_set bigint)
RETURNS text LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN working_set OPERATOR(pg_catalog.>) shared_buffers
                THEN pg_catalog.format('the working set (%s) is larger than shared_buffers (%s), which holds %s%% of it',
                         pg_catalog.pg_size_pretty(working_set::numeric OPERATOR(pg_catalog.*) block_size),
                         pg_catalog.pg_size_pretty(shared_buffers::numeric OPERATOR(pg_catalog.*) block_size),
                         pg_catalog.floor((100.0 OPERATOR(pg_catalog.*) shared_buffers) OPERATOR(pg_catalog./) working_set))
                ELSE pg_catalog.format('the working set (%s) fits in shared_buffers (%s) only without the margin a warm leaves to the rest of the server',
                         pg_catalog.pg_size_pretty(working_set::numeric OPERATOR(pg_catalog.*) block_size),
                         pg_catalog.pg_size_pretty(shared_buffers::numeric OPERATOR(pg_catalog.*) block_size)) END
$$;

-- The warning of an experiment whose warm run was not warm, or NULL: from
-- its recorded plan (the working set larger than what a warm may load) or,
-- for an experiment recorded without one, from the cache state the warm
-- runs started from (the median over the rounds under 90% of the working
-- set in shared buffers).
CREATE FUNCTION pgbench_lab_internal.cold_vs_warm_warning(experiment_id bigint)
RETURNS text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fit pg_catalog.record;
    started pg_catalog.float8;
BEGIN
    SELECT f.* INTO fit FROM pgbench_lab.experiments e,
           LATERAL pgbench_lab_internal.cold_vs_warm_fit(e.params OPERATOR(pg_catalog.->) 'warm') f
     WHERE e.experiment_id OPERATOR(pg_catalog.=) cold_vs_warm_warning.experiment_id;
    IF FOUND AND NOT fit.fits THEN
        RETURN pg_catalog.format('Warning: the warm state cannot be reached: %s, so the warm step loaded what fits, hottest first: '
                                 '%s, the rest whole (%s%% of the working set). The "warm" run is a partly warm run, '
                                 'and its ratio to the cold run is not a warm/cold ratio.',
                                 pgbench_lab_internal.cold_vs_warm_fit_words(fit.block_size, fit.shared_buffers,
                                                                             fit.working_set),
                                 fit.partly, pgbench_lab_internal.fmt(fit.warm_pct, 0));
    END IF;
    SELECT pg_catalog.percentile_cont(0.5) WITHIN GROUP (ORDER BY r.buffers_pct) INTO started
      FROM pgbench_lab.cold_vs_warm_runs(experiment_id) r
     WHERE r.state OPERATOR(pg_catalog.=) 'warm';
    IF started OPERATOR(pg_catalog.<) 90 THEN
        RETURN pg_catalog.format('Warning: the warm run began with only %s%% of the working set in shared buffers, so it is '
                                 'a partly warm run, and its ratio to the cold run is not a warm/cold ratio.',
                                 pgbench_lab_internal.fmt(started, 0));
    END IF;
    RETURN NULL;
END
$$;

-- The plan: check the arguments (run() checks the workload, clients and
-- duration with the steps), then per round the cold, OS-warm and warm runs
-- in that order.  Everything that can be refused is refused before
-- anything is evicted or recorded.  caller->'accounts' is the pgbench_accounts the caller's
-- search_path finds (the driver looks it up in the caller's session).  A
-- working set that does not fit is warned of here, before the runs.  Every
-- run option goes to the three runs (options), over libpq too (to
-- this server's own socket), but not to another server: target and
-- targets are refused, this server makes only its own caches cold.
CREATE FUNCTION pgbench_lab_internal.cold_vs_warm_plan(workload text, clients integer, duration interval,
                                              relations regclass[], rounds integer, options jsonb, caller jsonb,
                                              smallest_effect double precision, confidence double precision,
                                              label text DEFAULT NULL)
RETURNS jsonb LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    rels pg_catalog.regclass[];
    warm pg_catalog.jsonb;
    verdict pg_catalog.jsonb;
    fit pg_catalog.record;
BEGIN
    IF NOT (SELECT r.rolsuper FROM pg_catalog.pg_roles r WHERE r.rolname OPERATOR(pg_catalog.=) current_user) THEN
        RAISE EXCEPTION 'permission denied for procedure cold_vs_warm'
            USING ERRCODE = 'insufficient_privilege',
                  DETAIL = 'It evicts buffers with pgbench_lab.make_cold(), which only superusers may do: it affects every session.';
    END IF;
    IF pgbench_lab_internal.runs_elsewhere(options) THEN
        PERFORM pgbench_lab_internal.refuse_option('cold_vs_warm', 'target or targets',
            'this server makes only its own caches cold (make_cold and warm act on its shared buffers and its OS page cache), and the runs would go to another server, whose caches would stay as they are',
            'Run cold_vs_warm on that server itself, or here with via => ''libpq'' and no target: the clients then connect to this server''s own socket, and its caches are the ones made cold.',
            '0A000');
    END IF;
    -- relations NULL: a TPC-C run's nine tables, or else pgbench's four
    rels := pgbench_lab_internal.cold_vs_warm_relations(
        coalesce(relations, pgbench_lab_internal.cold_vs_warm_tpcc_relations(workload, options)),
        (caller OPERATOR(pg_catalog.->>) 'accounts')::pg_catalog.oid::pg_catalog.regclass);
    IF (workload IS NULL AND NOT options OPERATOR(pg_catalog.?|) ARRAY['script', 'scripts']) OR clients IS NULL OR duration IS NULL THEN
        RAISE EXCEPTION 'workload, clients and duration must not be null'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Leave them out for the defaults: select-only, 1 client, 20 s.';
    END IF;
    IF rounds IS NULL THEN
        RAISE EXCEPTION 'rounds must not be null'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Leave it out for one round (figures without an interval), or give 6 or more for a verdict at 95 % confidence.';
    END IF;
    IF rounds OPERATOR(pg_catalog.<) 1 OR rounds OPERATOR(pg_catalog.>) 100 THEN
        RAISE EXCEPTION 'rounds must be from 1 to 100, not %', rounds
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Six rounds or more give a verdict at 95 % confidence; each round runs cold, OS-warm and warm once.';
    END IF;
    verdict := pgbench_lab_internal.verdict_params(smallest_effect, confidence);
    warm := pgbench_lab_internal.cold_vs_warm_warm_plan(rels);
    SELECT f.* INTO fit FROM pgbench_lab_internal.cold_vs_warm_fit(warm) f;
    IF NOT fit.fits THEN
        RAISE WARNING 'the warm state cannot be reached: %',
                      pgbench_lab_internal.cold_vs_warm_fit_words(fit.block_size, fit.shared_buffers, fit.working_set)
            USING DETAIL = pg_catalog.format('The warm step will load what fits, hottest first: %s, the rest whole (%s%% of '
                                             'the working set). The "warm" run will be a partly warm run, and its ratio '
                                             'to the cold run not a warm/cold ratio.',
                                             fit.partly, pgbench_lab_internal.fmt(fit.warm_pct, 0)),
                  HINT = pg_catalog.format('For a warm run, give shared_buffers at least %s (the working set and the margin '
                                           'a warm leaves to the rest of the server), or pass relations that fit.',
                                           pg_catalog.pg_size_pretty(pgbench_lab_internal.warm_needed(fit.working_set)::numeric
                                                                     OPERATOR(pg_catalog.*) fit.block_size));
    END IF;
    RETURN pg_catalog.jsonb_build_object('workload', pgbench_lab_internal.experiment_workload(workload, options), 'label', label,
        'params', pgbench_lab_internal.step_options_params(options)
            OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object('clients', clients, 'duration', duration::pg_catalog.text,
            'relations', (SELECT pg_catalog.jsonb_agg(r::pg_catalog.text ORDER BY i) FROM pg_catalog.unnest(rels) WITH ORDINALITY AS x(r, i)),
            -- the relations and their indexes and TOAST, for the cache states
            'relids', (SELECT pg_catalog.jsonb_agg(DISTINCT o::bigint) FROM pg_catalog.unnest(rels) r,
                            LATERAL (SELECT r::pg_catalog.oid UNION ALL
                                     SELECT i.indexrelid FROM pg_catalog.pg_index i WHERE i.indrelid OPERATOR(pg_catalog.=) r
                                     UNION ALL
                                     SELECT c.reltoastrelid FROM pg_catalog.pg_class c WHERE c.oid OPERATOR(pg_catalog.=) r AND c.reltoastrelid OPERATOR(pg_catalog.<>) 0
                                     UNION ALL
                                     SELECT i.indexrelid FROM pg_catalog.pg_class c JOIN pg_catalog.pg_index i ON i.indrelid OPERATOR(pg_catalog.=) c.reltoastrelid
                                      WHERE c.oid OPERATOR(pg_catalog.=) r) AS s(o)),
            'warm', warm, 'rounds', rounds)
            OPERATOR(pg_catalog.||) verdict,
        -- each run is labelled "<label>: <state>", or without a label
        -- "cold_vs_warm <experiment>: <state>" by the driver; every round in
        -- the same order (see the head of this file)
        'steps', (SELECT pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object(
                             'variant', v.v, 'round', n.n, 'name', pgbench_lab_internal.cold_vs_warm_state(v.v),
                             'about', pg_catalog.format('the %s run%s', pgbench_lab_internal.cold_vs_warm_state(v.v),
                                                        CASE WHEN rounds OPERATOR(pg_catalog.>) 1
                                                             THEN pg_catalog.format(' of round %s', n.n) ELSE '' END),
                             'prepare', pg_catalog.jsonb_build_object('state', pgbench_lab_internal.cold_vs_warm_state(v.v),
                                 'relations', (SELECT pg_catalog.jsonb_agg(r::pg_catalog.oid ORDER BY i)
                                                 FROM pg_catalog.unnest(rels) WITH ORDINALITY AS x(r, i)),
                                 'warm', CASE WHEN v.v OPERATOR(pg_catalog.=) 3 THEN warm END),
                             'run', pgbench_lab_internal.step_run(workload, options)
                                    OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object('clients', clients, 'duration', duration::pg_catalog.text)
                                    OPERATOR(pg_catalog.||) pg_catalog.jsonb_strip_nulls(pg_catalog.jsonb_build_object('label',
                                        label OPERATOR(pg_catalog.||) ': ' OPERATOR(pg_catalog.||) pgbench_lab_internal.cold_vs_warm_state(v.v))))
                             ORDER BY n.n, v.v)
                    FROM pg_catalog.generate_series(1, rounds) AS n(n), pg_catalog.generate_series(1, 3) AS v(v)));
END
$$;

-- A step's preparation: bring the relations into its run's starting state;
-- returns what it did (the driver shows it as a NOTICE, then commits: on
-- PostgreSQL 15 make_cold holds AccessExclusiveLock until then).
-- cold: make_cold() of shared buffers and the OS page cache; os-warm:
-- make_cold() of shared buffers only, the OS keeps what the cold run read
-- (the second run of the published cold-cache test); warm: make_cold() of
-- shared buffers only again, so that nothing the OS-warm run left competes
-- with what is loaded, then the recorded plan (step->'prepare'->'warm')
-- through pg_prewarm: what fits, coldest first (warm_blocks).  Every state
-- begins with a CHECKPOINT: the buffers the previous run dirtied are
-- written and synced then, so that no state's run pays for another's
-- writes (make_cold would otherwise write them into the OS page cache for
-- the kernel's writeback to flush during the next run, except in the cold
-- state, which syncs the files before it drops their pages).
CREATE FUNCTION pgbench_lab_internal.cold_vs_warm_prepare(experiment_id bigint, step jsonb)
RETURNS text LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    state pg_catalog.text := step OPERATOR(pg_catalog.->) 'prepare' OPERATOR(pg_catalog.->>) 'state';
    relations pg_catalog.regclass[] := ARRAY(
        SELECT x.o::pg_catalog.oid::pg_catalog.regclass
          FROM pg_catalog.jsonb_array_elements_text(step OPERATOR(pg_catalog.->) 'prepare' OPERATOR(pg_catalog.->) 'relations')
               WITH ORDINALITY AS x(o, i) ORDER BY x.i);
    warm pg_catalog.jsonb := step OPERATOR(pg_catalog.->) 'prepare' OPERATOR(pg_catalog.->) 'warm';
    -- the state as the NOTICE names it: "cold", "cold (round 2)"
    said pg_catalog.text := state OPERATOR(pg_catalog.||)
        CASE WHEN pg_catalog.jsonb_typeof(step OPERATOR(pg_catalog.->) 'round') OPERATOR(pg_catalog.=) 'number'
                  AND step OPERATOR(pg_catalog.->>) 'round' OPERATOR(pg_catalog.<>) '1'
             THEN pg_catalog.format(' (round %s)', step OPERATOR(pg_catalog.->>) 'round') ELSE '' END;
    a pg_catalog.numeric;
    b pg_catalog.numeric;
    c pg_catalog.numeric;
BEGIN
    CHECKPOINT;
    SELECT pg_catalog.sum(m.buffers_evicted), pg_catalog.sum(m.dirty_written), pg_catalog.sum(m.os_pages_dropped) INTO a, b, c
      FROM pg_catalog.unnest(relations) WITH ORDINALITY AS x(r, i),
           LATERAL pgbench_lab.make_cold(x.r, true, state OPERATOR(pg_catalog.=) 'cold') m;
    IF state OPERATOR(pg_catalog.<>) 'warm' THEN
        RETURN pg_catalog.format('%s: checkpoint, then make_cold evicted %s buffers (%s dirty, written first)%s', said, a, b,
                      CASE WHEN state OPERATOR(pg_catalog.=) 'cold' THEN pg_catalog.format(' and dropped %s OS pages', c) ELSE '' END);
    END IF;
    c := a;
    SELECT pg_catalog.sum(w.blocks_loaded), pg_catalog.sum(w.seconds) INTO a, b
      FROM pgbench_lab_internal.warm_blocks(
               ARRAY(SELECT (x.e OPERATOR(pg_catalog.->>) 'relid')::pg_catalog.oid::pg_catalog.regclass
                       FROM pg_catalog.jsonb_array_elements(warm OPERATOR(pg_catalog.->) 'relations') WITH ORDINALITY AS x(e, i)
                      ORDER BY x.i DESC),
               ARRAY(SELECT (x.e OPERATOR(pg_catalog.->>) 'warm_blocks')::bigint
                       FROM pg_catalog.jsonb_array_elements(warm OPERATOR(pg_catalog.->) 'relations') WITH ORDINALITY AS x(e, i)
                      ORDER BY x.i DESC)) w;
    RETURN pg_catalog.format('%s: checkpoint, then make_cold evicted %s buffers, then pg_prewarm loaded %s blocks in %s s: %s', said, c, a,
                  pg_catalog.round(b, 2),
                  CASE WHEN (warm OPERATOR(pg_catalog.->) 'fits')::boolean THEN 'the whole working set'
                       ELSE pg_catalog.format('what fits in shared_buffers less a margin, hottest first (%s of the working set''s %s blocks)',
                                   warm OPERATOR(pg_catalog.->>) 'warm_blocks', warm OPERATOR(pg_catalog.->>) 'working_set') END);
END
$$;

-- Each run of a cold_vs_warm experiment, round by round: headline
-- figures, the cache state it started from (its cache_before snapshot, over
-- the experiment's relations with their indexes: relations under
-- pgbench_lab.cache_min_size are not in snapshots), the per-second curves,
-- and when its TPS first reached 90% of the warm run's of its round (end
-- of that second, from the run's start; NULL if it never did).
CREATE FUNCTION pgbench_lab.cold_vs_warm_runs(experiment_id bigint)
RETURNS TABLE (state text, run_id bigint, status text, tps double precision,
               latency_avg_ms double precision, latency_p99_ms double precision,
               hit_ratio double precision, buffers_pct double precision,
               os_pct double precision, seconds_to_90pct double precision,
               tps_curve double precision[], hit_ratio_curve double precision[],
               round integer)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH e AS (
        SELECT x.experiment_id, x.params FROM pgbench_lab.experiments x
         WHERE x.experiment_id OPERATOR(pg_catalog.=) cold_vs_warm_runs.experiment_id
           AND x.kind OPERATOR(pg_catalog.=) 'cold_vs_warm'
    ), r AS (
        SELECT x.variant, x.round, x.ordinal, u.*
          FROM e JOIN pgbench_lab.experiment_runs x ON x.experiment_id OPERATOR(pg_catalog.=) e.experiment_id
          JOIN pgbench_lab.runs u ON u.run_id OPERATOR(pg_catalog.=) x.run_id
    ), warm AS (
        SELECT r.round, pg_catalog.max(r.tps) AS tps FROM r WHERE r.variant OPERATOR(pg_catalog.=) 3 GROUP BY r.round
    ), sizes AS (
        -- per run: the relations' blocks, buffers and OS pages before it
        SELECT r.run_id, pg_catalog.sum(s.blocks) AS blocks, pg_catalog.sum(s.buffers) AS buffers,
               pg_catalog.sum(s.os_pages) AS os_pages
          FROM r, e, pgbench_lab.cache_snapshot_relations s
         WHERE s.snapshot_id OPERATOR(pg_catalog.=) r.cache_before
           AND s.relid OPERATOR(pg_catalog.=) ANY (ARRAY(
                   SELECT o::pg_catalog.oid
                     FROM pg_catalog.jsonb_array_elements_text(e.params OPERATOR(pg_catalog.->) 'relids') AS o))
         GROUP BY r.run_id
    )
    SELECT pgbench_lab_internal.cold_vs_warm_state(r.variant), r.run_id, r.status, r.tps,
           r.latency_avg_ms, r.latency_p99_ms, r.hit_ratio,
           CASE WHEN c.blocks OPERATOR(pg_catalog.>) 0
                THEN (100.0 OPERATOR(pg_catalog.*) c.buffers) OPERATOR(pg_catalog./) c.blocks END,
           CASE WHEN c.blocks OPERATOR(pg_catalog.>) 0
                THEN ((100.0 OPERATOR(pg_catalog.*) c.os_pages) OPERATOR(pg_catalog.*) pgbench_lab_internal.os_page_size())
                     OPERATOR(pg_catalog./)
                     (c.blocks OPERATOR(pg_catalog.*) pg_catalog.current_setting('block_size')::integer) END,
           (SELECT pg_catalog.min(p.elapsed) FROM (
                SELECT q.tps, pg_catalog.sum(q.interval_seconds) OVER (ORDER BY q.second) AS elapsed
                  FROM pgbench_lab.run_progress q WHERE q.run_id OPERATOR(pg_catalog.=) r.run_id) p, warm
             WHERE warm.round OPERATOR(pg_catalog.=) r.round
               AND p.tps OPERATOR(pg_catalog.>=) (0.9 OPERATOR(pg_catalog.*) warm.tps)),
           ARRAY(SELECT q.tps FROM pgbench_lab.run_progress q
                  WHERE q.run_id OPERATOR(pg_catalog.=) r.run_id ORDER BY q.second),
           ARRAY(SELECT q.hit_ratio FROM pgbench_lab.run_progress q
                  WHERE q.run_id OPERATOR(pg_catalog.=) r.run_id ORDER BY q.second),
           r.round
      FROM r LEFT JOIN sizes c ON c.run_id OPERATOR(pg_catalog.=) r.run_id
     ORDER BY r.round, r.variant, r.ordinal
$$;
COMMENT ON FUNCTION pgbench_lab.cold_vs_warm_runs(bigint) IS
    'The runs of a cold_vs_warm experiment, round by round: figures, starting cache state, per-second curves, time to 90% of its round''s warm TPS';
REVOKE ALL ON FUNCTION pgbench_lab.cold_vs_warm_runs(bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION pgbench_lab.cold_vs_warm_runs(bigint) TO pg_monitor;

-- Per state, over its rounds: the runs, the medians of the finished runs'
-- figures (TPS with its min and max, latency, hit ratio, the share of the
-- working set in shared buffers at the start), and how many of them reached
-- 90% of their round's warm TPS, with the median time of those that did.
CREATE FUNCTION pgbench_lab_internal.cold_vs_warm_states(experiment_id bigint)
RETURNS TABLE (variant integer, state text, runs integer, rounds integer,
               tps_median double precision, tps_min double precision, tps_max double precision,
               latency_avg_ms_median double precision, hit_ratio_median double precision,
               buffers_pct_median double precision, reached integer, seconds_to_90pct_median double precision)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT v.v, pgbench_lab_internal.cold_vs_warm_state(v.v), pg_catalog.count(*)::integer,
           pg_catalog.count(*) FILTER (WHERE r.status OPERATOR(pg_catalog.=) 'done')::integer,
           pg_catalog.percentile_cont(0.5) WITHIN GROUP (ORDER BY r.tps) FILTER (WHERE r.status OPERATOR(pg_catalog.=) 'done'),
           pg_catalog.min(r.tps) FILTER (WHERE r.status OPERATOR(pg_catalog.=) 'done'),
           pg_catalog.max(r.tps) FILTER (WHERE r.status OPERATOR(pg_catalog.=) 'done'),
           pg_catalog.percentile_cont(0.5) WITHIN GROUP (ORDER BY r.latency_avg_ms) FILTER (WHERE r.status OPERATOR(pg_catalog.=) 'done'),
           pg_catalog.percentile_cont(0.5) WITHIN GROUP (ORDER BY r.hit_ratio) FILTER (WHERE r.status OPERATOR(pg_catalog.=) 'done'),
           pg_catalog.percentile_cont(0.5) WITHIN GROUP (ORDER BY r.buffers_pct) FILTER (WHERE r.status OPERATOR(pg_catalog.=) 'done'),
           pg_catalog.count(r.seconds_to_90pct) FILTER (WHERE r.status OPERATOR(pg_catalog.=) 'done')::integer,
           pg_catalog.percentile_cont(0.5) WITHIN GROUP (ORDER BY r.seconds_to_90pct) FILTER (WHERE r.status OPERATOR(pg_catalog.=) 'done')
      FROM pg_catalog.generate_series(1, 3) AS v(v)
      JOIN pgbench_lab.cold_vs_warm_runs(experiment_id) r
        ON r.state OPERATOR(pg_catalog.=) pgbench_lab_internal.cold_vs_warm_state(v.v)
     GROUP BY v.v
     ORDER BY v.v
$$;

-- The name of the warm state as the finding and the report give it:
-- "partly warm" when the warm state could not be reached (the warning).
-- Without the cache readers (pg_monitor), from the recorded plan alone.
CREATE FUNCTION pgbench_lab_internal.cold_vs_warm_warm_name(experiment_id bigint)
RETURNS text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF pg_catalog.has_function_privilege('pgbench_lab.cold_vs_warm_runs(bigint)', 'EXECUTE')
       AND pg_catalog.has_table_privilege('pgbench_lab.cache_snapshot_relations', 'SELECT') THEN
        RETURN CASE WHEN pgbench_lab_internal.cold_vs_warm_warning(experiment_id) IS NULL THEN 'warm' ELSE 'partly warm' END;
    END IF;
    RETURN CASE WHEN (SELECT f.fits FROM pgbench_lab.experiments e,
                             LATERAL pgbench_lab_internal.cold_vs_warm_fit(e.params OPERATOR(pg_catalog.->) 'warm') f
                       WHERE e.experiment_id OPERATOR(pg_catalog.=) cold_vs_warm_warm_name.experiment_id) IS FALSE
                THEN 'partly warm' ELSE 'warm' END;
END
$$;

-- The verdicts of a cold_vs_warm experiment, one per comparison: warm
-- against cold, OS-warm against cold and warm against OS-warm ("partly
-- warm" when the warm state could not be reached), the TPS ratio of the finished runs paired by round and
-- judged by paired_verdict() against the experiment's smallest effect and
-- confidence (0.02 and 0.95 when it recorded none, or none that a verdict
-- can use: an imported document's params are not checked for them).  No
-- rows for an experiment of another kind or without runs.
CREATE FUNCTION pgbench_lab_internal.cold_vs_warm_comparisons(experiment_id bigint)
RETURNS TABLE (comparison text, a integer, b integer, rounds integer, ratio double precision,
               ratio_low double precision, ratio_high double precision, coverage double precision,
               verdict text, decided boolean, basis text, every_round text)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    warm_name pg_catalog.text := pgbench_lab_internal.cold_vs_warm_warm_name(experiment_id);
BEGIN
    RETURN QUERY
    WITH e AS (
        SELECT pgbench_lab_internal.params_smallest_effect(x.params) AS smallest_effect,
               pgbench_lab_internal.params_confidence(x.params) AS confidence
          FROM pgbench_lab.experiments x
         WHERE x.experiment_id OPERATOR(pg_catalog.=) cold_vs_warm_comparisons.experiment_id
           AND x.kind OPERATOR(pg_catalog.=) 'cold_vs_warm'),
    t AS (
        SELECT x.variant, x.round, r.tps
          FROM pgbench_lab.experiment_runs x
          JOIN pgbench_lab.runs r ON r.run_id OPERATOR(pg_catalog.=) x.run_id
         WHERE x.experiment_id OPERATOR(pg_catalog.=) cold_vs_warm_comparisons.experiment_id
           AND r.status OPERATOR(pg_catalog.=) 'done'),
    c AS (
        SELECT * FROM (VALUES (1, warm_name OPERATOR(pg_catalog.||) ' against cold', 1, 3),
                              (2, 'OS-warm against cold', 1, 2),
                              (3, warm_name OPERATOR(pg_catalog.||) ' against OS-warm', 2, 3)) AS c(i, name, a, b)),
    p AS (
        SELECT c.i, c.name, c.a, c.b,
               pg_catalog.array_agg(ta.tps ORDER BY n.round) AS a_tps,
               pg_catalog.array_agg(tb.tps ORDER BY n.round) AS b_tps
          FROM c CROSS JOIN (SELECT DISTINCT t.round FROM t) AS n
          LEFT JOIN t ta ON ta.variant OPERATOR(pg_catalog.=) c.a AND ta.round OPERATOR(pg_catalog.=) n.round
          LEFT JOIN t tb ON tb.variant OPERATOR(pg_catalog.=) c.b AND tb.round OPERATOR(pg_catalog.=) n.round
         GROUP BY c.i, c.name, c.a, c.b)
    SELECT p.name, p.a, p.b, v.rounds, v.ratio, v.ratio_low, v.ratio_high, v.coverage, v.verdict, v.decided,
           v.basis, v.every_round
      FROM p CROSS JOIN e
      CROSS JOIN LATERAL pgbench_lab.paired_verdict(p.a_tps, p.b_tps, e.smallest_effect, e.confidence) v
     ORDER BY p.i;
END
$$;

-- The verdicts of a cold_vs_warm experiment for experiment_kinds.verdicts
-- (pgbench_lab.experiment_verdicts() reads them): one row per comparison
-- that its report and finding give.
CREATE FUNCTION pgbench_lab_internal.cold_vs_warm_verdicts(experiment_id bigint)
RETURNS TABLE (comparison text, measure text, rounds integer, ratio double precision,
               ratio_low double precision, ratio_high double precision, coverage double precision,
               verdict text, decided boolean, basis text)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT c.comparison, 'tps', c.rounds, c.ratio, c.ratio_low, c.ratio_high, c.coverage, c.verdict, c.decided, c.basis
      FROM pgbench_lab_internal.cold_vs_warm_comparisons(experiment_id) c
$$;

-- The comparison as a cold-restart study tells it: each state's figures
-- (medians over the rounds), the verdicts of warm/cold and OS-warm/cold with
-- their intervals, and how soon each run reached 90% of its round's warm
-- TPS; first the warning when the warm run was only partly warm (its ratio
-- is then labelled "partly warm against cold"), then why, when the warm
-- run was slower than the OS-warm one (with that verdict), and how the
-- working set compares with shared_buffers.
CREATE FUNCTION pgbench_lab.cold_vs_warm_finding(experiment_id bigint)
RETURNS text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    warning pg_catalog.text := pgbench_lab_internal.cold_vs_warm_warning(experiment_id);
    warm_name pg_catalog.text := CASE WHEN warning IS NULL THEN 'warm' ELSE 'partly warm' END;
    fit pg_catalog.record;
    c pg_catalog.record;
    n pg_catalog.int4;
    runs pg_catalog.text;
    cold pg_catalog.float8;
    os_warm pg_catalog.float8;
    warm pg_catalog.float8;
    warm_started pg_catalog.float8;
    reach pg_catalog.text;
    said pg_catalog.text;
    versus pg_catalog.text;     -- the verdict warm/OS-warm
    slower pg_catalog.bool;     -- the warm run slower than the OS-warm one
    called pg_catalog.bool;     -- and the verdict says so
    noise pg_catalog.text;
BEGIN
    SELECT pg_catalog.string_agg(pg_catalog.format('%s %s tps (latency %s ms, hit ratio %s%%, %s%% in shared buffers at the start)',
                             s.name, pgbench_lab_internal.fmt(s.tps_median, 0), pgbench_lab_internal.fmt(s.latency_avg_ms_median, 3),
                             pgbench_lab_internal.fmt(100 OPERATOR(pg_catalog.*) s.hit_ratio_median, 1),
                             pgbench_lab_internal.fmt(s.buffers_pct_median, 0)),
                      ', ' ORDER BY s.variant),
           pg_catalog.max(s.tps_median) FILTER (WHERE s.variant OPERATOR(pg_catalog.=) 1),
           pg_catalog.max(s.tps_median) FILTER (WHERE s.variant OPERATOR(pg_catalog.=) 2),
           pg_catalog.max(s.tps_median) FILTER (WHERE s.variant OPERATOR(pg_catalog.=) 3),
           pg_catalog.max(s.buffers_pct_median) FILTER (WHERE s.variant OPERATOR(pg_catalog.=) 3),
           pg_catalog.string_agg(pg_catalog.format('%s %s', s.name,
                             CASE WHEN s.reached OPERATOR(pg_catalog.=) 0 THEN 'never (within the run)'
                                  WHEN s.reached OPERATOR(pg_catalog.<) s.rounds
                                  THEN pg_catalog.format('after %s s in %s of %s rounds (their median), never in the others',
                                                         pgbench_lab_internal.fmt(s.seconds_to_90pct_median, 1), s.reached, s.rounds)
                                  ELSE 'after ' OPERATOR(pg_catalog.||) pgbench_lab_internal.fmt(s.seconds_to_90pct_median, 1) OPERATOR(pg_catalog.||) ' s' END),
                      ', ' ORDER BY s.variant) FILTER (WHERE s.variant OPERATOR(pg_catalog.<>) 3),
           pg_catalog.max(s.rounds)
      INTO runs, cold, os_warm, warm, warm_started, reach, n
      FROM (SELECT x.*, CASE WHEN x.variant OPERATOR(pg_catalog.=) 3 THEN warm_name
                             ELSE pg_catalog.replace(x.state, 'os-', 'OS-') END AS name
              FROM pgbench_lab_internal.cold_vs_warm_states(experiment_id) x) s;
    IF runs IS NULL THEN
        RETURN 'No runs recorded.';
    END IF;
    said := coalesce(warning OPERATOR(pg_catalog.||) ' ', '')
        OPERATOR(pg_catalog.||) CASE WHEN n OPERATOR(pg_catalog.>) 1 THEN pg_catalog.format('Medians of %s rounds: ', n) ELSE '' END
        OPERATOR(pg_catalog.||) runs OPERATOR(pg_catalog.||) '.';
    FOR c IN SELECT * FROM pgbench_lab_internal.cold_vs_warm_comparisons(experiment_id) LOOP
        IF c.a OPERATOR(pg_catalog.=) 1 THEN
            said := said OPERATOR(pg_catalog.||) pg_catalog.format(' TPS %s %s.', c.comparison,
                pgbench_lab_internal.verdict_phrase(c.rounds, c.ratio, c.ratio_low, c.ratio_high, c.coverage,
                                                    c.verdict, c.basis, c.every_round));
        ELSE
            versus := pg_catalog.format('TPS %s %s', c.comparison,
                pgbench_lab_internal.verdict_phrase(c.rounds, c.ratio, c.ratio_low, c.ratio_high, c.coverage,
                                                    c.verdict, c.basis, c.every_round));
            slower := coalesce(c.ratio OPERATOR(pg_catalog.<) 1::pg_catalog.float8, warm OPERATOR(pg_catalog.<) os_warm);
            called := c.verdict OPERATOR(pg_catalog.=) 'slower';
        END IF;
    END LOOP;
    said := said OPERATOR(pg_catalog.||) pg_catalog.format(' 90%% of the %s TPS%s reached: %s.', warm_name,
                                                           CASE WHEN n OPERATOR(pg_catalog.>) 1 THEN ' of its round' ELSE '' END,
                                                           coalesce(reach, '-'));
    noise := CASE WHEN called THEN 'another cause does, such as the machine''s other load.'
                  ELSE 'it is noise or another cause, such as the machine''s other load; repeat with longer runs, and more '
                       'of them, before reading anything into it.' END;
    SELECT f.* INTO fit FROM pgbench_lab.experiments e,
           LATERAL pgbench_lab_internal.cold_vs_warm_fit(e.params OPERATOR(pg_catalog.->) 'warm') f
     WHERE e.experiment_id OPERATOR(pg_catalog.=) cold_vs_warm_finding.experiment_id;
    IF slower AND warning IS NOT NULL THEN
        said := said OPERATOR(pg_catalog.||) pg_catalog.format(
            ' The partly warm run was slower than the OS-warm run (%s vs %s tps): with %s%% of the working set in shared '
            'buffers at its start, both runs read most pages from the OS page cache, and after their first seconds their '
            'buffers hold the same thing, what the workload touched last. The partly warm run also began with full '
            'buffers, so each page it read first had to evict one, where the OS-warm run began with free ones. Beyond '
            'that the cache does not explain the difference: %s %s.',
            pgbench_lab_internal.fmt(warm, 0), pgbench_lab_internal.fmt(os_warm, 0),
            pgbench_lab_internal.fmt(coalesce(warm_started, fit.warm_pct), 0), noise, versus);
    ELSIF slower AND fit.fits IS NULL AND warm_started IS NULL THEN
        said := said OPERATOR(pg_catalog.||) pg_catalog.format(
            ' The warm run was slower than the OS-warm run (%s vs %s tps); what its shared buffers held at its start '
            'is not recorded here, so whether the cache explains it cannot be told; %s %s.',
            pgbench_lab_internal.fmt(warm, 0), pgbench_lab_internal.fmt(os_warm, 0),
            CASE WHEN called THEN 'the rounds tell it from noise.'
                 ELSE 'repeat with longer runs, and more of them, before reading anything into it.' END, versus);
    ELSIF slower THEN
        said := said OPERATOR(pg_catalog.||) pg_catalog.format(
            ' The warm run was slower than the OS-warm run (%s vs %s tps) though it began with the working set in shared '
            'buffers: the cache does not explain that, %s %s.',
            pgbench_lab_internal.fmt(warm, 0), pgbench_lab_internal.fmt(os_warm, 0), noise, versus);
    END IF;
    IF fit.fits THEN
        said := said OPERATOR(pg_catalog.||) pg_catalog.format(' The working set (%s) fits in shared_buffers (%s).',
            pg_catalog.pg_size_pretty(fit.working_set::numeric OPERATOR(pg_catalog.*) fit.block_size),
            pg_catalog.pg_size_pretty(fit.shared_buffers::numeric OPERATOR(pg_catalog.*) fit.block_size));
    END IF;
    said := said OPERATOR(pg_catalog.||) COALESCE(' ' OPERATOR(pg_catalog.||) pgbench_lab_internal.drift_words(experiment_id,
                                                      'longer runs, or a run of the workload before the experiment,'), '');
    RETURN said OPERATOR(pg_catalog.||)
           CASE WHEN EXISTS (SELECT FROM pgbench_lab.experiment_runs x JOIN pgbench_lab.runs r ON r.run_id OPERATOR(pg_catalog.=) x.run_id
                              WHERE x.experiment_id OPERATOR(pg_catalog.=) cold_vs_warm_finding.experiment_id
                                AND r.via OPERATOR(pg_catalog.<>) 'spi')
                THEN ' Figures over libpq (this server''s own socket): each statement paid a round trip.'
                ELSE ' In-server figures: no network round trips.' END;
END
$$;
COMMENT ON FUNCTION pgbench_lab.cold_vs_warm_finding(bigint) IS
    'One paragraph comparing the cold, OS-warm and warm runs of a cold_vs_warm experiment, with the verdicts of their ratios and a warning when the warm run was only partly warm';
REVOKE ALL ON FUNCTION pgbench_lab.cold_vs_warm_finding(bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION pgbench_lab.cold_vs_warm_finding(bigint) TO pg_monitor;

-- The procedure's INOUT columns; the finding is also shown as a NOTICE.
CREATE FUNCTION pgbench_lab_internal.cold_vs_warm_result(id bigint)
RETURNS TABLE (experiment_id bigint, finding text)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    said pg_catalog.text := pgbench_lab.cold_vs_warm_finding(id);
BEGIN
    RAISE NOTICE '%', said;
    RETURN QUERY SELECT id, said;
END
$$;

-- The warm step of a report: the working set against shared_buffers and
-- what the recorded plan loaded of each relation, hottest first.
CREATE FUNCTION pgbench_lab_internal.report_cold_vs_warm_plan(experiment_id bigint)
RETURNS SETOF text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    warm pg_catalog.jsonb := (SELECT e.params OPERATOR(pg_catalog.->) 'warm' FROM pgbench_lab.experiments e
                               WHERE e.experiment_id OPERATOR(pg_catalog.=) report_cold_vs_warm_plan.experiment_id);
    fit pg_catalog.record;
BEGIN
    SELECT f.* INTO fit FROM pgbench_lab_internal.cold_vs_warm_fit(warm) f;
    IF NOT FOUND THEN
        RETURN;         -- recorded without a plan (before 0.2, or imported from such a server)
    END IF;
    RETURN QUERY SELECT pg_catalog.format('working set %s (%s blocks); shared_buffers %s (%s buffers): %s%% of the working set fits',
                        pg_catalog.pg_size_pretty(fit.working_set::numeric OPERATOR(pg_catalog.*) fit.block_size), fit.working_set,
                        pg_catalog.pg_size_pretty(fit.shared_buffers::numeric OPERATOR(pg_catalog.*) fit.block_size), fit.shared_buffers,
                        coalesce(pgbench_lab_internal.fmt(pg_catalog.floor(fit.buffers_pct), 0), '100'));
    RETURN QUERY SELECT pg_catalog.format('warm step: what fits in shared_buffers less a margin of %s (%s blocks), hottest first: %s blocks',
                        pg_catalog.pg_size_pretty((fit.shared_buffers OPERATOR(pg_catalog.-) fit.budget)::numeric OPERATOR(pg_catalog.*) fit.block_size),
                        fit.budget, fit.warm_blocks);
    RETURN QUERY SELECT pg_catalog.format('  %-40s %-12s %10s %10s %6s', 'relation', 'kind', 'blocks', 'warmed', '%');
    RETURN QUERY
        SELECT pg_catalog.format('  %-40s %-12s %10s %10s %6s', x.e OPERATOR(pg_catalog.->>) 'relation', x.e OPERATOR(pg_catalog.->>) 'kind',
                      x.e OPERATOR(pg_catalog.->>) 'blocks', x.e OPERATOR(pg_catalog.->>) 'warm_blocks',
                      CASE WHEN pgbench_lab_internal.json_int(x.e OPERATOR(pg_catalog.->) 'blocks', 1, 9223372036854775807) IS NULL THEN '-'
                           ELSE pg_catalog.floor((100 OPERATOR(pg_catalog.*) pgbench_lab_internal.json_int(x.e OPERATOR(pg_catalog.->) 'warm_blocks', 0, 9223372036854775807))
                                                 OPERATOR(pg_catalog./) pgbench_lab_internal.json_int(x.e OPERATOR(pg_catalog.->) 'blocks', 1, 9223372036854775807))::pg_catalog.text END)
          FROM pg_catalog.jsonb_array_elements(
                   CASE WHEN pg_catalog.jsonb_typeof(warm OPERATOR(pg_catalog.->) 'relations') OPERATOR(pg_catalog.=) 'array'
                        THEN warm OPERATOR(pg_catalog.->) 'relations' ELSE '[]' END) WITH ORDINALITY AS x(e, i)
         ORDER BY x.i;
    RETURN QUERY SELECT '';
END
$$;

-- The body of report(experiment_id) for a cold_vs_warm experiment: each
-- run with its round, the per-second curves, each state over its rounds
-- (median TPS, min, max), each comparison's verdict with its interval,
-- the warm step's plan and the finding.
CREATE FUNCTION pgbench_lab_internal.report_cold_vs_warm(experiment_id bigint)
RETURNS SETOF text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    warm_name pg_catalog.text;
    w pg_catalog.int4;          -- the width of the state column
    several pg_catalog.bool;    -- more than one round
    cw pg_catalog.int4;         -- the width of a curve's name
BEGIN
    IF NOT pg_catalog.has_table_privilege('pgbench_lab.cache_snapshot_relations', 'SELECT') THEN
        RETURN QUERY SELECT 'The cache states need membership in pg_monitor (they come from pgbench_lab.cache_snapshot_relations).';
        RETURN;
    END IF;
    warm_name := CASE WHEN pgbench_lab_internal.cold_vs_warm_warning(experiment_id) IS NULL THEN 'warm' ELSE 'partly warm' END;
    w := GREATEST(8, pg_catalog.length(warm_name) OPERATOR(pg_catalog.+) 1);
    several := EXISTS (SELECT FROM pgbench_lab.experiment_runs x
                        WHERE x.experiment_id OPERATOR(pg_catalog.=) report_cold_vs_warm.experiment_id
                          AND x.round OPERATOR(pg_catalog.>) 1);
    cw := w OPERATOR(pg_catalog.+) CASE WHEN several THEN 11 ELSE 0 END;
    RETURN QUERY SELECT pg_catalog.format('%-*s %8s %6s %10s %12s %10s %10s %8s %10s', w, 'state', 'run', 'round', 'tps', 'latency ms',
                       'hit %', 'buffers %', 'OS %', 'to 90% s');
    RETURN QUERY
        SELECT pg_catalog.format('%-*s %8s %6s %10s %12s %10s %10s %8s %10s', w,
                      CASE WHEN r.state OPERATOR(pg_catalog.=) 'warm' THEN warm_name ELSE r.state END, r.run_id, r.round,
                      pgbench_lab_internal.fmt(r.tps, 0),
                      pgbench_lab_internal.fmt(r.latency_avg_ms, 3), pgbench_lab_internal.fmt(100 OPERATOR(pg_catalog.*) r.hit_ratio, 1),
                      pgbench_lab_internal.fmt(r.buffers_pct, 0), pgbench_lab_internal.fmt(r.os_pct, 0),
                      pgbench_lab_internal.fmt(r.seconds_to_90pct, 1))
          FROM pgbench_lab.cold_vs_warm_runs(experiment_id) r;
    RETURN QUERY SELECT '';
    RETURN QUERY SELECT pg_catalog.format('%-*s tps per second: %s', cw,
                        CASE WHEN r.state OPERATOR(pg_catalog.=) 'warm' THEN warm_name ELSE r.state END
                        OPERATOR(pg_catalog.||) CASE WHEN several THEN pg_catalog.format(' (round %s)', r.round) ELSE '' END,
                        pg_catalog.array_to_string(ARRAY(SELECT pgbench_lab_internal.fmt(t, 0) FROM pg_catalog.unnest(r.tps_curve) t), ' '))
                   FROM pgbench_lab.cold_vs_warm_runs(experiment_id) r;
    RETURN QUERY SELECT '';
    RETURN QUERY SELECT pg_catalog.format('%-*s %6s %10s %10s %10s', w, 'state', 'rounds', 'median tps', 'min', 'max');
    RETURN QUERY
        SELECT pg_catalog.format('%-*s %6s %10s %10s %10s', w,
                      CASE WHEN s.variant OPERATOR(pg_catalog.=) 3 THEN warm_name ELSE s.state END, s.rounds,
                      pgbench_lab_internal.fmt(s.tps_median, 0), pgbench_lab_internal.fmt(s.tps_min, 0),
                      pgbench_lab_internal.fmt(s.tps_max, 0))
          FROM pgbench_lab_internal.cold_vs_warm_states(experiment_id) s;
    RETURN QUERY SELECT '';
    RETURN QUERY
        SELECT pg_catalog.format('TPS %s %s', c.comparison,
                                 pgbench_lab_internal.verdict_phrase(c.rounds, c.ratio, c.ratio_low, c.ratio_high, c.coverage,
                                                                     c.verdict, c.basis, c.every_round))
          FROM pgbench_lab_internal.cold_vs_warm_comparisons(experiment_id) c;
    RETURN QUERY SELECT '';
    RETURN QUERY SELECT * FROM pgbench_lab_internal.report_cold_vs_warm_plan(experiment_id);
    RETURN QUERY SELECT pgbench_lab.cold_vs_warm_finding(experiment_id);
END
$$;

-- Bound to the experiments driver (src/experiment.c), with no SET clause:
-- it commits around each run.
CREATE PROCEDURE pgbench_lab.cold_vs_warm(
    workload text DEFAULT 'select-only',
    clients integer DEFAULT 1,
    duration interval DEFAULT '20 s',
    relations regclass[] DEFAULT NULL,
    scripts text[] DEFAULT NULL,
    variables jsonb DEFAULT NULL,
    rounds pgbench_lab.rounds DEFAULT 1,
    INOUT experiment_id bigint DEFAULT NULL,
    INOUT finding text DEFAULT NULL,
    smallest_effect double precision DEFAULT 0.02,
    confidence double precision DEFAULT 0.95,
    label text DEFAULT NULL,
    @RUN_OPTIONS_EXCEPT workload clients duration transactions label scripts variables@)
LANGUAGE c
AS 'MODULE_PATHNAME', 'pgbench_lab_experiment';
COMMENT ON PROCEDURE pgbench_lab.cold_vs_warm IS
    'Runs cold, OS-warm and warm in rounds, recorded as an experiment; prints the comparison with the verdicts of its ratios';
REVOKE ALL ON PROCEDURE pgbench_lab.cold_vs_warm FROM PUBLIC;

INSERT INTO pgbench_lab.experiment_kinds (kind, procedure, planner, preparation, finding, report, description,
                                          verdicts)
VALUES ('cold_vs_warm', 'pgbench_lab.cold_vs_warm'::pg_catalog.regproc,
        'pgbench_lab_internal.cold_vs_warm_plan'::pg_catalog.regproc,
        'pgbench_lab_internal.cold_vs_warm_prepare(bigint, jsonb)',
        'pgbench_lab_internal.cold_vs_warm_result(bigint)', 'pgbench_lab_internal.report_cold_vs_warm(bigint)',
        'Runs cold, OS-warm and warm in rounds; the verdicts of their TPS ratios, time to 90% of the warm TPS',
        'pgbench_lab_internal.cold_vs_warm_verdicts(bigint)')
ON CONFLICT (kind) DO UPDATE SET procedure = EXCLUDED.procedure, planner = EXCLUDED.planner,
    preparation = EXCLUDED.preparation, finding = EXCLUDED.finding, report = EXCLUDED.report,
    description = EXCLUDED.description, verdicts = EXCLUDED.verdicts;
