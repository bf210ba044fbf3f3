
-- ---------------------------------------------------------------------------
-- Small helpers shared by reports, plots, experiments and export: figures
-- formatted for reading, printable text, argument checks.
-- ---------------------------------------------------------------------------


-- A figure rounded for reading; '-' for a missing one; from 1e15 on (no
-- measured figure, but an imported document may hold up to 1e300) in
-- exponent notation, '1.0e+299', rather than in 300 digits.
CREATE FUNCTION pgbench_lab_internal.fmt(x double precision, digits integer DEFAULT 1)
RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN x IS NULL THEN '-'
                -- to_char() writes an infinite or NaN ratio (of imported extremes) as #.#####
                WHEN x OPERATOR(pg_catalog.=) 'Infinity'::pg_catalog.float8 THEN 'infinity'
                WHEN x OPERATOR(pg_catalog.=) '-Infinity'::pg_catalog.float8 THEN '-infinity'
                WHEN x OPERATOR(pg_catalog.=) 'NaN'::pg_catalog.float8 THEN 'NaN'
                WHEN pg_catalog.abs(x) OPERATOR(pg_catalog.>=) 1e15 THEN trim(pg_catalog.to_char(x, '9.9EEEE'))
                ELSE pg_catalog.round(x::numeric, digits)::pg_catalog.text END
$$;

-- A float8 from a numeric computed with it, for ratios of figures that
-- float8 arithmetic would overflow or underflow on (an imported TPS of
-- 5e-324 against one of 1e5): beyond 1e300 it is cut to +-1e300, below
-- 1e-300 it is 0.
CREATE FUNCTION pgbench_lab_internal.to_float8(x numeric)
RETURNS double precision LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN x IS NULL THEN NULL
                WHEN pg_catalog.abs(x) OPERATOR(pg_catalog.>) 1e300 THEN pg_catalog.sign(x) OPERATOR(pg_catalog.*) 1e300
                WHEN pg_catalog.abs(x) OPERATOR(pg_catalog.<) 1e-300 THEN 0
                ELSE x END::pg_catalog.float8
$$;

-- A float8 from a numeric average or sum of figures, which keeps the
-- smallest an imported document may hold (5e-324, where to_float8() gives
-- 0): 0 only below half the smallest denormal (an average of 5e-324 and
-- 0, which double precision's input refuses), and +-1e300 beyond 1e300.
CREATE FUNCTION pgbench_lab_internal.float8_of(x numeric)
RETURNS double precision LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN x IS NULL THEN NULL
                WHEN pg_catalog.abs(x) OPERATOR(pg_catalog.>) 1e300 THEN pg_catalog.sign(x) OPERATOR(pg_catalog.*) 1e300
                WHEN pg_catalog.abs(x) OPERATOR(pg_catalog.<) 2.5e-324 THEN 0
                ELSE x END::pg_catalog.float8
$$;

-- a / b, NULL when b is 0 or either is NULL; computed in numeric, so any
-- two figures give a result (see to_float8).
CREATE FUNCTION pgbench_lab_internal.ratio(a double precision, b double precision)
RETURNS double precision LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN a IS NULL OR b IS NULL OR b OPERATOR(pg_catalog.=) 0 THEN NULL
                ELSE pgbench_lab_internal.to_float8(a::numeric OPERATOR(pg_catalog./) b::numeric) END
$$;

-- The change from old to new in percent, signed ('+76%'); '' when unknown.
-- Computed in numeric; a rise of a million percent or more reads
-- '>+999999%'.
CREATE FUNCTION pgbench_lab_internal.pct_change(new double precision, old double precision)
RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN p IS NULL THEN ''
                WHEN p OPERATOR(pg_catalog.>) 999999 THEN '>+999999%'
                WHEN p OPERATOR(pg_catalog.>=) 0 THEN '+' OPERATOR(pg_catalog.||) pg_catalog.round(p)::pg_catalog.text OPERATOR(pg_catalog.||) '%'
                ELSE pg_catalog.round(p)::pg_catalog.text OPERATOR(pg_catalog.||) '%' END
      FROM (SELECT CASE WHEN new IS NULL OR old IS NULL OR old OPERATOR(pg_catalog.=) 0 THEN NULL
                        ELSE (new::numeric OPERATOR(pg_catalog./) old::numeric OPERATOR(pg_catalog.-) 1) OPERATOR(pg_catalog.*) 100 END AS p) s
$$;

-- Stored text as it may be printed: every control character (U+0001 to
-- U+001F, U+007F to U+009F: a terminal escape sequence, a bell, a line
-- break that would forge a report line) shown as \xNN, its code in hex.
-- Labels, errors, settings, server names and workloads come from users
-- and from imported documents; report(), compare(), plot() and the
-- findings print them only through this.  Backslashes stay as they are.
CREATE FUNCTION pgbench_lab.printable(s text)
RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE STRICT
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF s OPERATOR(pg_catalog.!~) E'[\\x01-\\x1f\\x7f-\\x9f]' THEN
        RETURN s;
    END IF;
    RETURN (SELECT pg_catalog.string_agg(CASE WHEN c OPERATOR(pg_catalog.~) E'[\\x01-\\x1f\\x7f-\\x9f]'
                                   THEN E'\\x' OPERATOR(pg_catalog.||) pg_catalog.lpad(pg_catalog.to_hex(pg_catalog.ascii(c)), 2, '0') ELSE c END,
                              '' ORDER BY i)
              FROM pg_catalog.regexp_split_to_table(s, '') WITH ORDINALITY AS t(c, i));
END
$$;

-- '5 s', '0.5 s': a duration in seconds.
CREATE FUNCTION pgbench_lab_internal.seconds_text(d interval)
RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT pg_catalog.trim_scale(extract(epoch FROM d))::pg_catalog.text OPERATOR(pg_catalog.||) ' s' $$;

-- '1 client', '4 clients'.
CREATE FUNCTION pgbench_lab_internal.clients_text(n integer)
RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT n OPERATOR(pg_catalog.||) CASE WHEN n OPERATOR(pg_catalog.=) 1 THEN ' client' ELSE ' clients' END $$;

-- How a run's clients reached the server, in the words reports use:
-- in-server figures have no network round trips; libpq figures do (and
-- name the server they went to; NULL target_display: this server).
CREATE FUNCTION pgbench_lab_internal.path_text(via text, target_display text)
RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN via OPERATOR(pg_catalog.=) 'libpq'
                THEN 'over libpq, one connection per client, to ' OPERATOR(pg_catalog.||) coalesce(target_display, 'this server')
                WHEN via OPERATOR(pg_catalog.=) 'libpq-connect'
                THEN 'over libpq, a new connection per transaction, to ' OPERATOR(pg_catalog.||) coalesce(target_display, 'this server')
                ELSE 'in-server: no network round trips' END
$$;

-- Session settings as 'name=value, ...' in name order, printable.
CREATE FUNCTION pgbench_lab_internal.settings_text(settings jsonb)
RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pgbench_lab.printable(coalesce(pg_catalog.string_agg(key OPERATOR(pg_catalog.||) '=' OPERATOR(pg_catalog.||) value, ', ' ORDER BY key), '(none)'))
      FROM pg_catalog.jsonb_each_text(CASE WHEN pg_catalog.jsonb_typeof(settings) OPERATOR(pg_catalog.=) 'object' THEN settings END)
$$;

-- The name this server gives itself in exports: cluster_name if set, else
-- its system identifier (unique per initdb).
CREATE FUNCTION pgbench_lab_internal.server_name()
RETURNS text LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT coalesce(CASE WHEN pg_catalog.current_setting('cluster_name') OPERATOR(pg_catalog.<>) ''
                         THEN pg_catalog.current_setting('cluster_name') END,
                    'system ' OPERATOR(pg_catalog.||) (SELECT system_identifier::pg_catalog.text FROM pg_catalog.pg_control_system()))
$$;


-- here, which check, plan, link and judge.
-- ---------------------------------------------------------------------------

-- An array argument must be a list: a two-dimensional array would be
-- read element by element as if it were one (and array_position() refuses
-- it with a message about searching), so it is refused before anything.
CREATE FUNCTION pgbench_lab_internal.check_flat(ndims integer, what text, example text)
RETURNS void LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF ndims OPERATOR(pg_catalog.>) 1 THEN
        RAISE EXCEPTION '% must be a one-dimensional array, not one of % dimensions', what, ndims
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = pg_catalog.format('Pass a plain list, for example %s.', example);
    END IF;
END
$$;

-- Errors for an id list: NULL, empty, a multidimensional array, NULL
-- elements, ids the caller cannot read.
CREATE FUNCTION pgbench_lab_internal.check_ids(ids bigint[], experiments_too boolean)
RETURNS void LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    bad pg_catalog.int8;
BEGIN
    IF ids IS NULL OR pg_catalog.cardinality(ids) OPERATOR(pg_catalog.=) 0 THEN
        RAISE EXCEPTION 'ids must not be null or empty'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Pass an array of run ids, for example ARRAY[41, 42].';
    END IF;
    PERFORM pgbench_lab_internal.check_flat(pg_catalog.array_ndims(ids), 'ids', 'ARRAY[41, 42]');
    IF pg_catalog.array_position(ids, NULL) IS NOT NULL THEN
        RAISE EXCEPTION 'ids must not contain null'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Pass an array of run ids, for example ARRAY[41, 42].';
    END IF;
    SELECT i INTO bad FROM pg_catalog.unnest(ids) AS i
     WHERE NOT EXISTS (SELECT FROM pgbench_lab.runs r WHERE r.run_id OPERATOR(pg_catalog.=) i)
       AND NOT (experiments_too AND EXISTS (SELECT FROM pgbench_lab.experiments e
                                             WHERE e.experiment_id OPERATOR(pg_catalog.=) i))
     LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION '% % does not exist or is not visible to you',
            CASE WHEN experiments_too THEN 'run or experiment' ELSE 'run' END, bad
            USING ERRCODE = 'undefined_object',
                  HINT = 'pgbench_lab.runs and pgbench_lab.experiments list what you can read: your own, or all for members of pg_monitor.';
    END IF;
END
$$;
