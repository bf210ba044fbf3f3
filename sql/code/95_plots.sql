-- ---------------------------------------------------------------------------
-- Plots: SVG documents (text) with axes, units and a legend.
-- ---------------------------------------------------------------------------

-- Text for an SVG document: printable() (XML 1.0 cannot hold control
-- characters, even as references), then the XML metacharacters escaped.
CREATE FUNCTION pgbench_lab_internal.svg_escape(s text)
RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pg_catalog.replace(pg_catalog.replace(pg_catalog.replace(pg_catalog.replace(pgbench_lab.printable(s), '&', '&amp;'), '<', '&lt;'), '>', '&gt;'),
                   '"', '&quot;')
$$;

-- A number as SVG and tick labels want it: no trailing zeros.
CREATE FUNCTION pgbench_lab_internal.svg_num(x double precision, digits integer DEFAULT 1)
RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT pg_catalog.trim_scale(pg_catalog.round(x::numeric, digits))::pg_catalog.text $$;

-- The top of an axis from 0 that holds hi, in steps of 1, 2 or 5 x 10^k,
-- about five ticks: returns {top, step}.  At least 0.00001.
CREATE FUNCTION pgbench_lab_internal.svg_axis(hi double precision)
RETURNS double precision[] LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    raw pg_catalog.float8;
    mag pg_catalog.float8;
    step pg_catalog.float8;
BEGIN
    IF hi IS NULL OR hi OPERATOR(pg_catalog.<=) 0 THEN
        hi := 1;
    END IF;
    -- the tick labels have six decimals: a smaller axis would read 0 at
    -- every tick (and hi / 5 can underflow)
    hi := greatest(hi, 1e-5);
    raw := hi OPERATOR(pg_catalog./) 5;
    mag := pg_catalog.power(10, pg_catalog.floor(pg_catalog.log(raw)));
    step := mag OPERATOR(pg_catalog.*) CASE WHEN raw OPERATOR(pg_catalog./) mag OPERATOR(pg_catalog.<=) 1 THEN 1 WHEN raw OPERATOR(pg_catalog./) mag OPERATOR(pg_catalog.<=) 2 THEN 2
                       WHEN raw OPERATOR(pg_catalog./) mag OPERATOR(pg_catalog.<=) 5 THEN 5 ELSE 10 END;
    RETURN ARRAY[pg_catalog.ceil(hi OPERATOR(pg_catalog./) step OPERATOR(pg_catalog.-) 1e-9) OPERATOR(pg_catalog.*) step, step];
END
$$;

-- The plot area is fixed: x from 80 to x1 (730, or 680 with a right
-- axis), y from 340 (zero) up to 50; an axis is {top, step}.  In numeric,
-- like the bars above.
CREATE FUNCTION pgbench_lab_internal.svg_x(v double precision, xa double precision[], x1 integer)
RETURNS text LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pg_catalog.trim_scale(pg_catalog.round(80 OPERATOR(pg_catalog.+)
        ((v::numeric OPERATOR(pg_catalog./) xa[1]::numeric) OPERATOR(pg_catalog.*) (x1 OPERATOR(pg_catalog.-) 80)),
        1))::pg_catalog.text
$$;

CREATE FUNCTION pgbench_lab_internal.svg_y(v double precision, ya double precision[], shift integer DEFAULT 0)
RETURNS text LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pg_catalog.trim_scale(pg_catalog.round((340 OPERATOR(pg_catalog.-)
        ((v::numeric OPERATOR(pg_catalog./) ya[1]::numeric) OPERATOR(pg_catalog.*) 290)) OPERATOR(pg_catalog.+) shift,
        1))::pg_catalog.text
$$;

-- The largest value under key ('x' or 'y') of the series on an axis (any
-- axis when axis is NULL).
CREATE FUNCTION pgbench_lab_internal.svg_max(series jsonb, key text, axis text)
RETURNS double precision LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pg_catalog.max(v::pg_catalog.float8) FROM pg_catalog.jsonb_array_elements(series) e, pg_catalog.jsonb_array_elements_text(e OPERATOR(pg_catalog.->) key) v
     WHERE v IS NOT NULL AND (axis IS NULL OR coalesce(e OPERATOR(pg_catalog.->>) 'axis', '1') OPERATOR(pg_catalog.=) axis)
$$;

-- Grid lines and tick labels of both axes, and of the right axis if any.
CREATE FUNCTION pgbench_lab_internal.svg_grid(xa double precision[], ya double precision[],
                                     y2a double precision[], x1 integer)
RETURNS text LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT (SELECT pg_catalog.string_agg(pg_catalog.format('<line x1="80" y1="%s" x2="%s" y2="%s" stroke="#e0e0e0"/><text x="74" y="%s" text-anchor="end">%s</text>',
                                     pgbench_lab_internal.svg_y(t, ya), x1, pgbench_lab_internal.svg_y(t, ya),
                                     pgbench_lab_internal.svg_y(t, ya, 4), pgbench_lab_internal.svg_num(t, 6)), E'\n' ORDER BY t)
              FROM pg_catalog.generate_series(0, pg_catalog.round(ya[1] OPERATOR(pg_catalog./) ya[2])::integer) k, LATERAL (SELECT k OPERATOR(pg_catalog.*) ya[2] AS t) v)
        OPERATOR(pg_catalog.||) E'\n'
        OPERATOR(pg_catalog.||) (SELECT pg_catalog.string_agg(pg_catalog.format('<line x1="%s" y1="50" x2="%s" y2="340" stroke="#e0e0e0"/><text x="%s" y="358" text-anchor="middle">%s</text>',
                                     pgbench_lab_internal.svg_x(t, xa, x1), pgbench_lab_internal.svg_x(t, xa, x1),
                                     pgbench_lab_internal.svg_x(t, xa, x1), pgbench_lab_internal.svg_num(t, 6)), E'\n' ORDER BY t)
              FROM pg_catalog.generate_series(0, pg_catalog.round(xa[1] OPERATOR(pg_catalog./) xa[2])::integer) k, LATERAL (SELECT k OPERATOR(pg_catalog.*) xa[2] AS t) v)
        OPERATOR(pg_catalog.||) E'\n'
        OPERATOR(pg_catalog.||) coalesce((SELECT pg_catalog.string_agg(pg_catalog.format('<text x="%s" y="%s" text-anchor="start">%s</text>', x1 OPERATOR(pg_catalog.+) 6,
                                              pgbench_lab_internal.svg_y(t, y2a, 4), pgbench_lab_internal.svg_num(t, 6)), E'\n' ORDER BY t)
                       FROM pg_catalog.generate_series(0, pg_catalog.round(y2a[1] OPERATOR(pg_catalog./) y2a[2])::integer) k, LATERAL (SELECT k OPERATOR(pg_catalog.*) y2a[2] AS t) v)
                    OPERATOR(pg_catalog.||) E'\n', '')
$$;

-- One series: a polyline (dashed on the right axis) and, if asked, dots.
CREATE FUNCTION pgbench_lab_internal.svg_curve(s jsonb, xa double precision[], ax double precision[],
                                      color text, x1 integer)
RETURNS text LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH p AS (
        SELECT k, pgbench_lab_internal.svg_x(x::pg_catalog.float8, xa, x1) AS px, pgbench_lab_internal.svg_y(y::pg_catalog.float8, ax) AS py
          FROM pg_catalog.jsonb_array_elements_text(s OPERATOR(pg_catalog.->) 'x') WITH ORDINALITY AS a(x, k)
          JOIN pg_catalog.jsonb_array_elements_text(s OPERATOR(pg_catalog.->) 'y') WITH ORDINALITY AS b(y, k2) ON k OPERATOR(pg_catalog.=) k2
         WHERE y IS NOT NULL)
    SELECT pg_catalog.format('<polyline fill="none" stroke="%s" stroke-width="2"%s points="%s"/>', color,
                  CASE WHEN s OPERATOR(pg_catalog.->>) 'axis' OPERATOR(pg_catalog.=) '2' THEN ' stroke-dasharray="6 4"' ELSE '' END,
                  (SELECT coalesce(pg_catalog.string_agg(px OPERATOR(pg_catalog.||) ',' OPERATOR(pg_catalog.||) py, ' ' ORDER BY k), '') FROM p)) OPERATOR(pg_catalog.||) E'\n'
        OPERATOR(pg_catalog.||) CASE WHEN (s OPERATOR(pg_catalog.->>) 'points')::boolean
                THEN (SELECT coalesce(pg_catalog.string_agg(pg_catalog.format('<circle cx="%s" cy="%s" r="3.5" fill="%s"/>', px, py, color),
                                                 '' ORDER BY k), '') FROM p) OPERATOR(pg_catalog.||) E'\n'
                ELSE '' END
$$;

-- series: [{"label", "x": [..], "y": [..], "axis": 1|2, "color": n, "points": bool}]
-- Axes start at zero and end at a round value; the legend lists the
-- series below the x axis, one per line.  notes: lines written at the top
-- left of the plot area (what could not be drawn, and why).
CREATE FUNCTION pgbench_lab_internal.svg_chart(title text, x_title text, y_title text, y2_title text, series jsonb,
                                      notes text[] DEFAULT NULL)
RETURNS text LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    colors CONSTANT pg_catalog.text[] := ARRAY['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd',
                                    '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf'];
    h pg_catalog.int4 := 430 OPERATOR(pg_catalog.+) (20 OPERATOR(pg_catalog.*) pg_catalog.jsonb_array_length(series));
    x1 pg_catalog.int4 := CASE WHEN y2_title IS NULL THEN 730 ELSE 680 END;
    xa pg_catalog.float8[] := pgbench_lab_internal.svg_axis(pgbench_lab_internal.svg_max(series, 'x', NULL));
    ya pg_catalog.float8[] := pgbench_lab_internal.svg_axis(pgbench_lab_internal.svg_max(series, 'y', '1'));
    y2a pg_catalog.float8[] := CASE WHEN y2_title IS NOT NULL
                                   THEN pgbench_lab_internal.svg_axis(pgbench_lab_internal.svg_max(series, 'y', '2')) END;
    out pg_catalog.text;
    s pg_catalog.jsonb;
    i pg_catalog.int4 := 0;
    c pg_catalog.text;
BEGIN
    out := pg_catalog.format('<svg xmlns="http://www.w3.org/2000/svg" width="760" height="%s" viewBox="0 0 760 %s" font-family="DejaVu Sans, Arial, sans-serif" font-size="12">',
                  h, h) OPERATOR(pg_catalog.||) E'\n'
        OPERATOR(pg_catalog.||) pg_catalog.format('<rect x="0" y="0" width="760" height="%s" fill="#ffffff"/>', h) OPERATOR(pg_catalog.||) E'\n'
        OPERATOR(pg_catalog.||) pg_catalog.format('<text x="380" y="28" text-anchor="middle" font-size="16">%s</text>',
                  pgbench_lab_internal.svg_escape(title)) OPERATOR(pg_catalog.||) E'\n'
        OPERATOR(pg_catalog.||) pgbench_lab_internal.svg_grid(xa, ya, y2a, x1);
    IF y2_title IS NOT NULL THEN
        out := out OPERATOR(pg_catalog.||) pg_catalog.format('<line x1="%s" y1="340" x2="%s" y2="50" stroke="#000000"/>', x1, x1) OPERATOR(pg_catalog.||) E'\n'
            OPERATOR(pg_catalog.||) pg_catalog.format('<text transform="translate(%s 195) rotate(90)" text-anchor="middle">%s</text>',
                      x1 OPERATOR(pg_catalog.+) 55, pgbench_lab_internal.svg_escape(y2_title)) OPERATOR(pg_catalog.||) E'\n';
    END IF;
    out := out OPERATOR(pg_catalog.||) pg_catalog.format('<line x1="80" y1="340" x2="%s" y2="340" stroke="#000000"/>', x1) OPERATOR(pg_catalog.||) E'\n'
        OPERATOR(pg_catalog.||) '<line x1="80" y1="340" x2="80" y2="50" stroke="#000000"/>' OPERATOR(pg_catalog.||) E'\n'
        OPERATOR(pg_catalog.||) pg_catalog.format('<text x="%s" y="380" text-anchor="middle">%s</text>', (80 OPERATOR(pg_catalog.+) x1) OPERATOR(pg_catalog./) 2,
                  pgbench_lab_internal.svg_escape(x_title)) OPERATOR(pg_catalog.||) E'\n'
        OPERATOR(pg_catalog.||) pg_catalog.format('<text transform="translate(22 195) rotate(-90)" text-anchor="middle">%s</text>',
                  pgbench_lab_internal.svg_escape(y_title)) OPERATOR(pg_catalog.||) E'\n';
    FOR s IN SELECT value FROM pg_catalog.jsonb_array_elements(series) LOOP
        c := (colors)[1 OPERATOR(pg_catalog.+) (COALESCE(CAST(s OPERATOR(pg_catalog.->>) 'color' AS integer), i) OPERATOR(pg_catalog.%) 10)];
        out := out OPERATOR(pg_catalog.||) pgbench_lab_internal.svg_curve(s
                                  , xa
                                  , CASE
                                      WHEN (s OPERATOR(pg_catalog.->>) 'axis') OPERATOR(pg_catalog.=) '2' THEN y2a
                                      ELSE ya
                                    END
                                  , c
                                  , x1) OPERATOR(pg_catalog.||) pg_catalog.format('<line x1="80" y1="%s" x2="110" y2="%s" stroke="%s" stroke-width="2"%s/><text x="118" y="%s">%s</text>'
                                                , 410 OPERATOR(pg_catalog.+) (20 OPERATOR(pg_catalog.*) i)
                                                , 410 OPERATOR(pg_catalog.+) (20 OPERATOR(pg_catalog.*) i)
                                                , c
                                                , CASE
                                                    WHEN (s OPERATOR(pg_catalog.->>) 'axis') OPERATOR(pg_catalog.=) '2'
                                                      THEN ' stroke-dasharray="6 4"'
                                                    ELSE ''
                                                  END
                                                , 414 OPERATOR(pg_catalog.+) (20 OPERATOR(pg_catalog.*) i)
                                                , pgbench_lab_internal.svg_escape(s OPERATOR(pg_catalog.->>) 'label')) OPERATOR(pg_catalog.||) '
';
        i := i OPERATOR(pg_catalog.+) 1;
    END LOOP;
    out := out OPERATOR(pg_catalog.||) COALESCE((SELECT pg_catalog.string_agg(pg_catalog.format('<text x="90" y="%s" fill="#555555">%s</text>'
                                               , 70 OPERATOR(pg_catalog.+) (18 OPERATOR(pg_catalog.*) (k OPERATOR(pg_catalog.-) 1))
                                               , pgbench_lab_internal.svg_escape(t))
                                        , '
' ORDER BY k)
                        FROM pg_catalog.unnest(notes) WITH ORDINALITY AS n (t, k)) OPERATOR(pg_catalog.||) '
'
                     , '');
    RETURN out OPERATOR(pg_catalog.||) '</svg>' OPERATOR(pg_catalog.||) E'\n';
END
$$;

-- Why an experiment's runs give nothing to draw: no runs, or none done
-- with a TPS above zero (each status counted).
CREATE FUNCTION pgbench_lab_internal.undrawn_runs(experiment_id bigint)
RETURNS text LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN pg_catalog.sum(c.n) IS NULL THEN 'it has no runs'
                ELSE pg_catalog.format('none of its %s run(s) ended done with a TPS above zero (%s)', pg_catalog.sum(c.n),
                            pg_catalog.string_agg(c.n OPERATOR(pg_catalog.||) ' ' OPERATOR(pg_catalog.||) c.status, ', ' ORDER BY c.status)) END
      FROM (SELECT CASE WHEN r.status OPERATOR(pg_catalog.=) 'done' THEN 'done without TPS' ELSE r.status END AS status,
                   pg_catalog.count(*) AS n
              FROM pgbench_lab.experiment_runs x JOIN pgbench_lab.runs r ON r.run_id OPERATOR(pg_catalog.=) x.run_id
             WHERE x.experiment_id OPERATOR(pg_catalog.=) undrawn_runs.experiment_id
             GROUP BY 1) c
$$;

-- TPS and average latency against clients, one pair of curves per sweep.
CREATE FUNCTION pgbench_lab_internal.plot_sweeps(ids bigint[])
RETURNS text LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH u AS (
        SELECT u.id, u.n, (SELECT pg_catalog.count(*) FROM pgbench_lab_internal.sweep_steps(u.id)) AS drawn
          FROM pg_catalog.unnest(ids) WITH ORDINALITY AS u(id, n))
    SELECT pgbench_lab_internal.svg_chart('TPS and latency against clients (in-server)', 'clients',
               'TPS (transactions per second), solid', 'average latency (ms), dashed',
               (SELECT pg_catalog.jsonb_agg(x.s ORDER BY x.n, x.axis) FROM (
                   SELECT u.n, a.axis, pg_catalog.jsonb_build_object(
                       'label', pg_catalog.format('%s %s (experiment %s)', coalesce(e.label, e.workload),
                                       CASE WHEN a.axis OPERATOR(pg_catalog.=) 1 THEN 'TPS' ELSE 'latency avg ms' END, e.experiment_id),
                       'x', (SELECT coalesce(pg_catalog.jsonb_agg(s.clients ORDER BY s.clients), '[]')
                               FROM pgbench_lab_internal.sweep_steps(e.experiment_id) s),
                       'y', (SELECT coalesce(pg_catalog.jsonb_agg(CASE WHEN a.axis OPERATOR(pg_catalog.=) 1 THEN s.tps ELSE s.latency_avg_ms END
                                                       ORDER BY s.clients), '[]')
                               FROM pgbench_lab_internal.sweep_steps(e.experiment_id) s),
                       'axis', a.axis, 'color', u.n OPERATOR(pg_catalog.-) 1, 'points', true) AS s
                     FROM u
                     JOIN pgbench_lab.experiments e ON e.experiment_id OPERATOR(pg_catalog.=) u.id
                    CROSS JOIN (VALUES (1), (2)) AS a(axis)) x),
               -- a sweep whose runs all failed is in the legend, and says why it has no curve
               (SELECT CASE WHEN (SELECT pg_catalog.sum(u.drawn) FROM u) OPERATOR(pg_catalog.=) 0 THEN ARRAY['Nothing to plot.'] ELSE '{}' END
                       OPERATOR(pg_catalog.||) pg_catalog.array_agg(pg_catalog.format('Experiment %s: %s.', u.id, pgbench_lab_internal.undrawn_runs(u.id)) ORDER BY u.n)
                  FROM u WHERE u.drawn OPERATOR(pg_catalog.=) 0))
$$;

-- Per-second curves of runs (experiments of settings bring their runs).
-- A run with no per-second figure to draw is in the legend and says so in
-- a note, as does an experiment with no runs.
CREATE FUNCTION pgbench_lab_internal.plot_runs(ids bigint[], metric text)
RETURNS text LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH runs AS (
        SELECT r.*, pg_catalog.row_number() OVER (ORDER BY u.n, x.ordinal) AS k, x.variant, x.round
          FROM pg_catalog.unnest(ids) WITH ORDINALITY AS u(id, n)
          LEFT JOIN pgbench_lab.experiment_runs x ON x.experiment_id OPERATOR(pg_catalog.=) u.id
          JOIN pgbench_lab.runs r ON r.run_id OPERATOR(pg_catalog.=) coalesce(x.run_id, u.id)),
    points AS (
        SELECT r.k, p.second AS x, CASE WHEN metric OPERATOR(pg_catalog.=) 'tps' THEN p.tps
                                               WHEN metric OPERATOR(pg_catalog.=) 'latency' THEN p.latency_avg_ms
                                               WHEN metric OPERATOR(pg_catalog.=) 'latency_max' THEN p.latency_max_ms
                                               ELSE p.hit_ratio OPERATOR(pg_catalog.*) 100 END AS y
          FROM runs r JOIN pgbench_lab.run_progress p ON p.run_id OPERATOR(pg_catalog.=) r.run_id
         WHERE p.interval_seconds OPERATOR(pg_catalog.>=) 0.5),
    notes AS (
        SELECT pg_catalog.format('Run %s: no per-second %s was recorded (status %s).', r.run_id,
                      CASE WHEN metric OPERATOR(pg_catalog.=) 'tps' THEN 'progress' ELSE pg_catalog.replace(metric, '_', ' ') END, r.status) AS t,
               r.k AS k
          FROM runs r WHERE NOT EXISTS (SELECT FROM points p WHERE p.k OPERATOR(pg_catalog.=) r.k AND p.y IS NOT NULL)
        UNION ALL
        SELECT pg_catalog.format('Experiment %s: it has no runs.', u.id), 0
          FROM pg_catalog.unnest(ids) AS u(id)
         WHERE EXISTS (SELECT FROM pgbench_lab.experiments e WHERE e.experiment_id OPERATOR(pg_catalog.=) u.id)
           AND NOT EXISTS (SELECT FROM pgbench_lab.experiment_runs x WHERE x.experiment_id OPERATOR(pg_catalog.=) u.id))
    SELECT pgbench_lab_internal.svg_chart(
        CASE WHEN metric OPERATOR(pg_catalog.=) 'tps' THEN 'TPS per second (in-server)'
                    WHEN metric OPERATOR(pg_catalog.=) 'latency' THEN 'Average latency per second (in-server)'
                    WHEN metric OPERATOR(pg_catalog.=) 'latency_max' THEN 'Maximum latency per second (in-server)'
                    ELSE 'Buffer hit ratio per second' END,
        'time since the start (s)',
        CASE WHEN metric OPERATOR(pg_catalog.=) 'tps' THEN 'TPS (transactions per second)'
                    WHEN metric OPERATOR(pg_catalog.=) 'latency' THEN 'average latency (ms)'
                    WHEN metric OPERATOR(pg_catalog.=) 'latency_max' THEN 'maximum latency (ms)'
                    ELSE 'buffer hit ratio (%)' END,
        NULL,
        (SELECT coalesce(pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object(
             'color', coalesce(r.variant OPERATOR(pg_catalog.-) 1, r.k OPERATOR(pg_catalog.-) 1),
             'label', pg_catalog.format('%srun %s: %s, %s%s%s',
                             CASE WHEN r.variant IS NOT NULL THEN pg_catalog.format('%s, round %s: ', pg_catalog.chr(64 OPERATOR(pg_catalog.+) r.variant), r.round) ELSE '' END,
                             r.run_id, r.workload, pgbench_lab_internal.clients_text(r.clients),
                             coalesce(', ' OPERATOR(pg_catalog.||) r.label, ''),
                             CASE WHEN r.settings OPERATOR(pg_catalog.->) 'session' OPERATOR(pg_catalog.<>) '{}'
                                  THEN ', ' OPERATOR(pg_catalog.||) pgbench_lab_internal.settings_text(r.settings OPERATOR(pg_catalog.->) 'session') ELSE '' END),
             'x', (SELECT coalesce(pg_catalog.jsonb_agg(p.x ORDER BY p.x), '[]') FROM points p WHERE p.k OPERATOR(pg_catalog.=) r.k),
             'y', (SELECT coalesce(pg_catalog.jsonb_agg(p.y ORDER BY p.x), '[]') FROM points p WHERE p.k OPERATOR(pg_catalog.=) r.k))
             ORDER BY r.k), '[]')
           FROM runs r),
        (SELECT CASE WHEN NOT EXISTS (SELECT FROM points p WHERE p.y IS NOT NULL)
                     THEN ARRAY['Nothing to plot.'] ELSE '{}' END
                OPERATOR(pg_catalog.||) pg_catalog.array_agg(n.t ORDER BY n.k)
           FROM notes n
         HAVING pg_catalog.count(*) OPERATOR(pg_catalog.>) 0))
$$;

CREATE FUNCTION pgbench_lab.plot(ids bigint[], metric text DEFAULT 'tps')
RETURNS text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    sweeps pg_catalog.int4;
BEGIN
    PERFORM pgbench_lab_internal.check_ids(ids, true);
    IF metric IS NULL THEN
        RAISE EXCEPTION 'metric must not be null'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Valid metrics are tps, latency, latency_max and hit_ratio.';
    END IF;
    IF NOT metric OPERATOR(pg_catalog.=) ANY (ARRAY['tps', 'latency', 'latency_max', 'hit_ratio']) THEN
        RAISE EXCEPTION 'unknown metric "%"', metric
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Valid metrics are tps, latency, latency_max and hit_ratio.';
    END IF;
    SELECT pg_catalog.count(*) INTO sweeps FROM pgbench_lab.experiments e
     WHERE e.experiment_id OPERATOR(pg_catalog.=) ANY (ids) AND e.kind OPERATOR(pg_catalog.=) 'sweep';
    IF sweeps OPERATOR(pg_catalog.=) 0 THEN
        RETURN pgbench_lab_internal.plot_runs(ids, metric);
    END IF;
    IF sweeps OPERATOR(pg_catalog.<) pg_catalog.cardinality(ids) THEN
        RAISE EXCEPTION 'sweeps cannot be plotted with runs or other experiments'
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Plot sweeps together (TPS and latency against clients) and runs together (per-second curves).';
    END IF;
    IF NOT metric OPERATOR(pg_catalog.=) ANY (ARRAY['tps', 'latency']) THEN
        RAISE EXCEPTION 'a sweep plots TPS and latency, not %', metric
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Use metric tps or latency for sweeps; both draw TPS and latency against clients.';
    END IF;
    RETURN pgbench_lab_internal.plot_sweeps(ids);
END
$$;
COMMENT ON FUNCTION pgbench_lab.plot(bigint[], text) IS
    'An SVG document: per-second curves of runs, or TPS and latency against clients for sweeps';


GRANT EXECUTE ON FUNCTION pgbench_lab.plot(bigint[], text) TO pg_monitor;
