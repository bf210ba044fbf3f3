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

-- A text made printable (printable()) and cut to at most n characters,
-- an ellipsis at the cut: a label that must stay inside the picture (its
-- whole text goes in a <title>).
CREATE FUNCTION pgbench_lab_internal.svg_fit(s text, n integer)
RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN pg_catalog.length(p.p) OPERATOR(pg_catalog.<=) n THEN p.p
                ELSE pg_catalog.rtrim(pg_catalog.left(p.p, n OPERATOR(pg_catalog.-) 1)) OPERATOR(pg_catalog.||) U&'\2026' END
      FROM (SELECT pgbench_lab.printable(s) AS p) p
$$;

-- A paragraph as the lines of a picture: wrapped at spaces to n
-- characters (wrap()), a word longer than a line cut (svg_fit()).  At
-- 12 px, DejaVu Sans's widest characters (digits) take 7.6 px: n = 92
-- holds in 700 px.
CREATE FUNCTION pgbench_lab_internal.svg_lines(paragraph text, n integer)
RETURNS text[] LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT coalesce(pg_catalog.array_agg(pgbench_lab_internal.svg_fit(w.line, n) ORDER BY w.k), '{}')
      FROM pgbench_lab_internal.wrap(pgbench_lab.printable(paragraph), '', n) WITH ORDINALITY AS w(line, k)
     WHERE paragraph IS NOT NULL
$$;

-- The path of the runs behind ids (runs, or experiments' runs), for a
-- chart's title: in-server, over libpq, over libpq with a connection per
-- transaction, or a list of those that occur.
CREATE FUNCTION pgbench_lab_internal.plot_path(ids bigint[])
RETURNS text LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT coalesce(pg_catalog.regexp_replace(pg_catalog.string_agg(p.words, ', ' ORDER BY p.k), ', ([^,]*)$', ' and \1'), 'no runs')
      FROM (SELECT DISTINCT CASE WHEN r.via OPERATOR(pg_catalog.=) 'libpq' THEN 2
                                 WHEN r.via OPERATOR(pg_catalog.=) 'libpq-connect' THEN 3 ELSE 1 END AS k,
                   CASE WHEN r.via OPERATOR(pg_catalog.=) 'libpq' THEN 'over libpq'
                        WHEN r.via OPERATOR(pg_catalog.=) 'libpq-connect' THEN 'over libpq with a connection per transaction'
                        ELSE 'in-server' END AS words
              FROM pg_catalog.unnest(ids) AS u(id)
              LEFT JOIN pgbench_lab.experiment_runs x ON x.experiment_id OPERATOR(pg_catalog.=) u.id
              JOIN pgbench_lab.runs r ON r.run_id OPERATOR(pg_catalog.=) coalesce(x.run_id, u.id)) p
$$;

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
-- xlog: the x axis is log2 of clients, from 2^xlog (xa = {number of
-- doublings, 1}); its ticks are the powers of two, labelled with the counts
-- (every second or more when there are over 12, so the labels do not run
-- into each other).  ylog: the left axis is log10 of the values, from
-- 10^ylog (ya = {number of decades, 1}); its ticks are 1, 2 and 5 times
-- each power of ten, labelled with the values.
CREATE FUNCTION pgbench_lab_internal.svg_grid(xa double precision[], ya double precision[],
                                     y2a double precision[], x1 integer, xlog integer DEFAULT NULL,
                                     ylog integer DEFAULT NULL)
RETURNS text LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT (SELECT pg_catalog.string_agg(pg_catalog.format('<line x1="80" y1="%s" x2="%s" y2="%s" stroke="#e0e0e0"/><text class="ytick" x="74" y="%s" text-anchor="end">%s</text>',
                                     pgbench_lab_internal.svg_y(v.t, ya), x1, pgbench_lab_internal.svg_y(v.t, ya),
                                     pgbench_lab_internal.svg_y(v.t, ya, 4), pgbench_lab_internal.svg_num(v.label, 6)), E'\n' ORDER BY v.t)
              FROM (SELECT k OPERATOR(pg_catalog.*) ya[2] AS t, k OPERATOR(pg_catalog.*) ya[2] AS label
                      FROM pg_catalog.generate_series(0, pg_catalog.round(ya[1] OPERATOR(pg_catalog./) ya[2])::integer) k
                     WHERE ylog IS NULL
                    UNION ALL
                    SELECT k OPERATOR(pg_catalog.+) pg_catalog.log(m::pg_catalog.float8),
                           m::pg_catalog.float8 OPERATOR(pg_catalog.*) pg_catalog.power(10::pg_catalog.float8, (ylog OPERATOR(pg_catalog.+) k)::pg_catalog.float8)
                      -- (the bound is not computed for a linear axis, whose top may pass an integer)
                      FROM pg_catalog.generate_series(0, CASE WHEN ylog IS NULL THEN -1 ELSE pg_catalog.round(ya[1])::integer END) k,
                           pg_catalog.unnest(ARRAY[1, 2, 5]) m
                     WHERE ylog IS NOT NULL
                       AND k OPERATOR(pg_catalog.+) pg_catalog.log(m::pg_catalog.float8) OPERATOR(pg_catalog.<=) ya[1]) v)
        OPERATOR(pg_catalog.||) E'\n'
        OPERATOR(pg_catalog.||) CASE WHEN xlog IS NULL THEN
                (SELECT pg_catalog.string_agg(pg_catalog.format('<line x1="%s" y1="50" x2="%s" y2="340" stroke="#e0e0e0"/><text class="xtick" x="%s" y="358" text-anchor="middle">%s</text>',
                                     pgbench_lab_internal.svg_x(t, xa, x1), pgbench_lab_internal.svg_x(t, xa, x1),
                                     pgbench_lab_internal.svg_x(t, xa, x1), pgbench_lab_internal.svg_num(t, 6)), E'\n' ORDER BY t)
                   FROM pg_catalog.generate_series(0, pg_catalog.round(xa[1] OPERATOR(pg_catalog./) xa[2])::integer) k, LATERAL (SELECT k OPERATOR(pg_catalog.*) xa[2] AS t) v)
             ELSE
                (SELECT pg_catalog.string_agg(pg_catalog.format('<line x1="%s" y1="50" x2="%s" y2="340" stroke="#e0e0e0"/>%s', v.px, v.px,
                                     CASE WHEN k OPERATOR(pg_catalog.%) v.every OPERATOR(pg_catalog.=) 0
                                          THEN pg_catalog.format('<text class="xtick" x="%s" y="358" text-anchor="middle">%s</text>', v.px,
                                                      1::pg_catalog.int8 OPERATOR(pg_catalog.<<) (k OPERATOR(pg_catalog.+) xlog))
                                          ELSE '' END), E'\n' ORDER BY k)
                   FROM pg_catalog.generate_series(0, pg_catalog.round(xa[1])::integer) k,
                        LATERAL (SELECT pgbench_lab_internal.svg_x(k, xa, x1) AS px,
                                        pg_catalog.ceil((xa[1] OPERATOR(pg_catalog.+) 1) OPERATOR(pg_catalog./) 12)::integer AS every) v)
             END
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

-- The peak and knee marks of one series: each {"kind": "peak" | "knee",
-- "x", "y", "label", "title"}, a filled diamond for a peak and an open
-- square for a knee, with its label above (peak) or below (knee) and its
-- title as the tooltip.
CREATE FUNCTION pgbench_lab_internal.svg_marks(marks jsonb, xa double precision[], ya double precision[],
                                      color text, x1 integer)
RETURNS text LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT coalesce(pg_catalog.string_agg(
               CASE WHEN m.kind OPERATOR(pg_catalog.=) 'peak'
                    THEN pg_catalog.format('<polygon class="peak" points="%s,%s %s,%s %s,%s %s,%s" fill="%s" stroke="#000000"><title>%s</title></polygon><text class="peak-label" x="%s" y="%s" text-anchor="%s" font-size="11">%s</text>',
                                p.x, p.y OPERATOR(pg_catalog.-) 7, p.x OPERATOR(pg_catalog.+) 7, p.y, p.x, p.y OPERATOR(pg_catalog.+) 7, p.x OPERATOR(pg_catalog.-) 7, p.y,
                                color, pgbench_lab_internal.svg_escape(m.title), p.x, p.y OPERATOR(pg_catalog.-) 11, p.anchor, pgbench_lab_internal.svg_escape(m.label))
                    ELSE pg_catalog.format('<rect class="knee" x="%s" y="%s" width="14" height="14" fill="none" stroke="%s" stroke-width="2"><title>%s</title></rect><text class="knee-label" x="%s" y="%s" text-anchor="%s" font-size="11">%s</text>',
                                p.x OPERATOR(pg_catalog.-) 7, p.y OPERATOR(pg_catalog.-) 7, color, pgbench_lab_internal.svg_escape(m.title),
                                p.x, p.y OPERATOR(pg_catalog.+) 21, p.anchor, pgbench_lab_internal.svg_escape(m.label)) END,
               E'\n' ORDER BY m.k) OPERATOR(pg_catalog.||) E'\n', '')
      FROM pg_catalog.jsonb_array_elements(marks) WITH ORDINALITY AS j(m0, k)
     CROSS JOIN LATERAL (SELECT j.m0 OPERATOR(pg_catalog.->>) 'kind' AS kind, j.m0 OPERATOR(pg_catalog.->>) 'label' AS label,
                                j.m0 OPERATOR(pg_catalog.->>) 'title' AS title, j.k) m
     CROSS JOIN LATERAL (SELECT pgbench_lab_internal.svg_x((j.m0 OPERATOR(pg_catalog.->>) 'x')::pg_catalog.float8, xa, x1)::pg_catalog.numeric AS x,
                                pgbench_lab_internal.svg_y((j.m0 OPERATOR(pg_catalog.->>) 'y')::pg_catalog.float8, ya)::pg_catalog.numeric AS y) p0
     -- a label near either axis starts or ends at its mark, clear of the axis's tick labels
     CROSS JOIN LATERAL (SELECT p0.x, p0.y, CASE WHEN p0.x OPERATOR(pg_catalog.<) 115 THEN 'start'
                                                 WHEN p0.x OPERATOR(pg_catalog.>) (x1 OPERATOR(pg_catalog.-) 35) THEN 'end'
                                                 ELSE 'middle' END AS anchor) p
$$;

-- The height of a panel of svg_panel(): the plot area, then a legend line
-- per series and one for the peak and knee marks if any series has some,
-- then the caption's lines.
CREATE FUNCTION pgbench_lab_internal.svg_panel_height(series jsonb, caption_lines integer DEFAULT 0)
RETURNS integer LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT 430 OPERATOR(pg_catalog.+) (20 OPERATOR(pg_catalog.*) (pg_catalog.jsonb_array_length(series)
        OPERATOR(pg_catalog.+) CASE WHEN pg_catalog.jsonb_path_exists(series, '$[*].marks[*]') THEN 1 ELSE 0 END))
        OPERATOR(pg_catalog.+) CASE WHEN caption_lines OPERATOR(pg_catalog.>) 0
                                    THEN 6 OPERATOR(pg_catalog.+) (16 OPERATOR(pg_catalog.*) caption_lines) ELSE 0 END
$$;

-- Series on a log10 left axis: each value of the axis-1 series as
-- log10(value) - lo, where 10^lo is the power of ten at or below two
-- thirds of the smallest value above zero (1e-3 at the least: a
-- microsecond in ms); values of zero or less are left out.  Returns the
-- series and {lo, decades}: at least one decade, up to the power at or
-- above 1.5 times the largest.
CREATE FUNCTION pgbench_lab_internal.svg_log_series(series jsonb, OUT logged jsonb, OUT lo integer, OUT decades integer)
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH v AS (
        SELECT y::pg_catalog.float8 AS y FROM pg_catalog.jsonb_array_elements(series) e,
               pg_catalog.jsonb_array_elements_text(e OPERATOR(pg_catalog.->) 'y') y
         WHERE coalesce(e OPERATOR(pg_catalog.->>) 'axis', '1') OPERATOR(pg_catalog.=) '1'
           AND y::pg_catalog.float8 OPERATOR(pg_catalog.>) 0),
    b AS (
        -- a value on a power of ten is not drawn on the axis's floor or ceiling
        SELECT greatest(-3, coalesce(pg_catalog.floor(pg_catalog.log(pg_catalog.min(v.y) OPERATOR(pg_catalog./) 1.5)), 0))::integer AS lo,
               greatest(-2, coalesce(pg_catalog.ceil(pg_catalog.log(pg_catalog.max(v.y) OPERATOR(pg_catalog.*) 1.5)), 1))::integer AS hi
          FROM v)
    SELECT (SELECT coalesce(pg_catalog.jsonb_agg(CASE WHEN coalesce(e OPERATOR(pg_catalog.->>) 'axis', '1') OPERATOR(pg_catalog.=) '1'
                  THEN pg_catalog.jsonb_set(e, '{y}', (SELECT coalesce(pg_catalog.jsonb_agg(
                           CASE WHEN y::pg_catalog.float8 OPERATOR(pg_catalog.>) 0
                                THEN pg_catalog.to_jsonb(pg_catalog.log(y::pg_catalog.float8) OPERATOR(pg_catalog.-) b.lo) END ORDER BY k), '[]')
                         FROM pg_catalog.jsonb_array_elements_text(e OPERATOR(pg_catalog.->) 'y') WITH ORDINALITY AS a(y, k)))
                  ELSE e END ORDER BY i), '[]')
              FROM pg_catalog.jsonb_array_elements(series) WITH ORDINALITY AS s(e, i)),
           b.lo, greatest(b.hi OPERATOR(pg_catalog.-) b.lo, 1)
      FROM b
$$;

-- One plot area with its axes, curves, legend and notes, in a frame
-- 760 wide from y = 0 (the plot area is y 50 to 340), as svg_chart()
-- below draws it and plot_sweeps() stacks several.
-- series: [{"label", "x": [..], "y": [..], "axis": 1|2, "color": n, "points": bool,
--           "marks": [see svg_marks()]}]
-- Axes start at zero and end at a round value; the legend lists the
-- series below the x axis, one per line.  notes: lines written at the top
-- left of the plot area (what could not be drawn, and why).  xlog: {lo,
-- doublings}: the x values are log2(clients) - lo, on an axis of that many
-- doublings from 2^lo, with the powers of two as ticks.  ylog: the left
-- axis is logarithmic (svg_log_series(); peak and knee marks are not
-- drawn on it).  caption: lines written under the legend, across the
-- panel (svg_lines() cuts them to fit).  A legend's label is cut to fit
-- the panel, its whole text the tooltip.
CREATE FUNCTION pgbench_lab_internal.svg_panel(x_title text, y_title text, y2_title text, series jsonb,
                                      notes text[] DEFAULT NULL, xlog integer[] DEFAULT NULL,
                                      ylog boolean DEFAULT false, caption text[] DEFAULT NULL)
RETURNS text LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    colors CONSTANT pg_catalog.text[] := ARRAY['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd',
                                    '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf'];
    x1 pg_catalog.int4 := CASE WHEN y2_title IS NULL THEN 730 ELSE 680 END;
    xa pg_catalog.float8[] := CASE WHEN xlog IS NULL THEN pgbench_lab_internal.svg_axis(pgbench_lab_internal.svg_max(series, 'x', NULL))
                                   ELSE ARRAY[xlog[2], 1]::pg_catalog.float8[] END;
    ya pg_catalog.float8[];
    logged pg_catalog.record;
    ylo pg_catalog.int4;
    y2a pg_catalog.float8[] := CASE WHEN y2_title IS NOT NULL
                                   THEN pgbench_lab_internal.svg_axis(pgbench_lab_internal.svg_max(series, 'y', '2')) END;
    out pg_catalog.text;
    s pg_catalog.jsonb;
    i pg_catalog.int4 := 0;
    c pg_catalog.text;
    ly pg_catalog.int4;
BEGIN
    IF ylog THEN
        logged := pgbench_lab_internal.svg_log_series(series);
        series := logged.logged;
        ya := ARRAY[logged.decades, 1]::pg_catalog.float8[];
        ylo := logged.lo;
    ELSE
        ya := pgbench_lab_internal.svg_axis(pgbench_lab_internal.svg_max(series, 'y', '1'));
    END IF;
    out := pgbench_lab_internal.svg_grid(xa, ya, y2a, x1, xlog[1], ylo);
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
                                  , x1)
            OPERATOR(pg_catalog.||) CASE WHEN s OPERATOR(pg_catalog.?) 'marks' AND NOT ylog
                                         THEN pgbench_lab_internal.svg_marks(s OPERATOR(pg_catalog.->) 'marks', xa,
                                                  CASE WHEN (s OPERATOR(pg_catalog.->>) 'axis') OPERATOR(pg_catalog.=) '2' THEN y2a ELSE ya END, c, x1)
                                         ELSE '' END
            OPERATOR(pg_catalog.||) pg_catalog.format('<line x1="80" y1="%s" x2="110" y2="%s" stroke="%s" stroke-width="2"%s/><text class="legend" x="118" y="%s"><title>%s</title>%s</text>'
                                                , 410 OPERATOR(pg_catalog.+) (20 OPERATOR(pg_catalog.*) i)
                                                , 410 OPERATOR(pg_catalog.+) (20 OPERATOR(pg_catalog.*) i)
                                                , c
                                                , CASE
                                                    WHEN (s OPERATOR(pg_catalog.->>) 'axis') OPERATOR(pg_catalog.=) '2'
                                                      THEN ' stroke-dasharray="6 4"'
                                                    ELSE ''
                                                  END
                                                , 414 OPERATOR(pg_catalog.+) (20 OPERATOR(pg_catalog.*) i)
                                                , pgbench_lab_internal.svg_escape(s OPERATOR(pg_catalog.->>) 'label')
                                                , pgbench_lab_internal.svg_escape(pgbench_lab_internal.svg_fit(s OPERATOR(pg_catalog.->>) 'label', 82))) OPERATOR(pg_catalog.||) '
';
        i := i OPERATOR(pg_catalog.+) 1;
    END LOOP;
    IF pg_catalog.jsonb_path_exists(series, '$[*].marks[*]') THEN
        ly := 410 OPERATOR(pg_catalog.+) (20 OPERATOR(pg_catalog.*) i);
        out := out OPERATOR(pg_catalog.||) pg_catalog.format('<polygon class="legend-peak" points="95,%s 102,%s 95,%s 88,%s" fill="#ffffff" stroke="#000000"/><text x="110" y="%s">peak: the highest TPS</text>',
                                     ly OPERATOR(pg_catalog.-) 7, ly, ly OPERATOR(pg_catalog.+) 7, ly, ly OPERATOR(pg_catalog.+) 4)
            OPERATOR(pg_catalog.||) pg_catalog.format('<rect class="legend-knee" x="258" y="%s" width="14" height="14" fill="none" stroke="#000000" stroke-width="2"/><text x="280" y="%s">knee: the last count before a step gains less than the threshold</text>',
                                     ly OPERATOR(pg_catalog.-) 7, ly OPERATOR(pg_catalog.+) 4) OPERATOR(pg_catalog.||) E'\n';
    END IF;
    -- notes wrapped inside the plot area (640 px from x = 90)
    out := out OPERATOR(pg_catalog.||) COALESCE((SELECT pg_catalog.string_agg(pg_catalog.format('<text class="note" x="90" y="%s" fill="#555555">%s</text>'
                                               , 70 OPERATOR(pg_catalog.+) (18 OPERATOR(pg_catalog.*) (k OPERATOR(pg_catalog.-) 1))
                                               , pgbench_lab_internal.svg_escape(t))
                                        , '
' ORDER BY k)
                        FROM pg_catalog.unnest((SELECT pg_catalog.array_agg(l ORDER BY n.k, w.j)
                                                  FROM pg_catalog.unnest(notes) WITH ORDINALITY AS n (t, k),
                                                       pg_catalog.unnest(pgbench_lab_internal.svg_lines(n.t, 82)) WITH ORDINALITY AS w (l, j)))
                             WITH ORDINALITY AS n (t, k)) OPERATOR(pg_catalog.||) '
'
                     , '');
    ly := 410 OPERATOR(pg_catalog.+) (20 OPERATOR(pg_catalog.*) (i OPERATOR(pg_catalog.+)
              CASE WHEN pg_catalog.jsonb_path_exists(series, '$[*].marks[*]') THEN 1 ELSE 0 END));
    out := out OPERATOR(pg_catalog.||) COALESCE((SELECT pg_catalog.string_agg(pg_catalog.format('<text class="caption" x="20" y="%s">%s</text>',
                                                      ly OPERATOR(pg_catalog.+) 6 OPERATOR(pg_catalog.+) (16 OPERATOR(pg_catalog.*) k),
                                                      pgbench_lab_internal.svg_escape(t)), E'\n' ORDER BY k)
                                                FROM pg_catalog.unnest(caption) WITH ORDINALITY AS c (t, k)) OPERATOR(pg_catalog.||) E'\n', '');
    RETURN out;
END
$$;

-- A title centred at x, y that fits w px: at size, or smaller for a
-- long one (DejaVu Sans averages under 0.62 of the size a character), at
-- 10 px the least, and cut beyond that (svg_fit()).
CREATE FUNCTION pgbench_lab_internal.svg_title(x integer, y integer, title text, size integer, w integer)
RETURNS text LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pg_catalog.format('<text class="title" x="%s" y="%s" text-anchor="middle" font-size="%s">%s</text>', x, y,
                             greatest(10, least(size, pg_catalog.floor(w OPERATOR(pg_catalog./)
                                 (0.62 OPERATOR(pg_catalog.*) greatest(pg_catalog.length(t.t), 1)))::integer)),
                             pgbench_lab_internal.svg_escape(t.t))
      FROM (SELECT pgbench_lab_internal.svg_fit(title, pg_catalog.floor(w OPERATOR(pg_catalog./) 6.2)::integer) AS t) t
$$;

-- The opening of an SVG document h high, with its title.
CREATE FUNCTION pgbench_lab_internal.svg_open(title text, h integer)
RETURNS text LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pg_catalog.format('<svg xmlns="http://www.w3.org/2000/svg" width="760" height="%s" viewBox="0 0 760 %s" font-family="DejaVu Sans, Arial, sans-serif" font-size="12">',
                  h, h) OPERATOR(pg_catalog.||) E'\n'
        OPERATOR(pg_catalog.||) pg_catalog.format('<rect x="0" y="0" width="760" height="%s" fill="#ffffff"/>', h) OPERATOR(pg_catalog.||) E'\n'
        OPERATOR(pg_catalog.||) pgbench_lab_internal.svg_title(380, 28, title, 16, 720) OPERATOR(pg_catalog.||) E'\n'
$$;

-- A document of one panel (svg_panel() above) under a title; caption: a
-- paragraph under the legend, in lines that fit.
CREATE FUNCTION pgbench_lab_internal.svg_chart(title text, x_title text, y_title text, y2_title text, series jsonb,
                                      notes text[] DEFAULT NULL, ylog boolean DEFAULT false, caption text DEFAULT NULL)
RETURNS text LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pgbench_lab_internal.svg_open(title, pgbench_lab_internal.svg_panel_height(series, pg_catalog.cardinality(l.lines)))
        OPERATOR(pg_catalog.||) pgbench_lab_internal.svg_panel(x_title, y_title, y2_title, series, notes, NULL, ylog, l.lines)
        OPERATOR(pg_catalog.||) '</svg>' OPERATOR(pg_catalog.||) E'\n'
      FROM (SELECT pgbench_lab_internal.svg_lines(caption, 94) AS lines) l
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

-- What plot_sweeps() draws of each sweep, in the order of ids: n, id,
-- name, its steps [{"c": clients, "t": tps, "l": latency}], the peak and
-- the knee (counts and TPS) and the knee threshold the sweep uses.
CREATE FUNCTION pgbench_lab_internal.plot_sweep_data(ids bigint[])
RETURNS jsonb LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT coalesce(pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object(
               'n', u.n, 'id', e.experiment_id, 'name', coalesce(e.label, e.workload),
               'steps', (SELECT coalesce(pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object('c', s.clients, 't', s.tps, 'l', s.latency_avg_ms)
                                                              ORDER BY s.clients), '[]')
                           FROM pgbench_lab_internal.sweep_steps(e.experiment_id) s),
               'peak', v.peak_clients, 'peak_tps', v.peak_tps, 'knee', v.knee_clients,
               'knee_tps', (SELECT s.tps FROM pgbench_lab_internal.sweep_steps(e.experiment_id) s
                             WHERE s.clients OPERATOR(pg_catalog.=) v.knee_clients ORDER BY s.tps DESC LIMIT 1),
               'threshold', pgbench_lab_internal.sweep_rule(e.experiment_id, NULL)) ORDER BY u.n), '[]')
      FROM pg_catalog.unnest(ids) WITH ORDINALITY AS u(id, n)
      JOIN pgbench_lab.experiments e ON e.experiment_id OPERATOR(pg_catalog.=) u.id
     CROSS JOIN LATERAL pgbench_lab.sweep_verdict(e.experiment_id) v
$$;

-- The panel of each sweep, by n ({"n": panel}): sweeps whose peak TPS
-- are within split_ratio of each other share one, so that a sweep of
-- 1000 tps is not drawn flat on the floor of one of 40000.  Taken from
-- the highest peak down, a sweep joins the current panel while the
-- panel's top is at most split_ratio times its peak; panels are then
-- numbered in the order of their first sweep, and a sweep with nothing
-- to draw goes to the first.
CREATE FUNCTION pgbench_lab_internal.plot_sweep_panels(sweeps jsonb, split_ratio numeric)
RETURNS jsonb LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    r pg_catalog.record;
    top pg_catalog.numeric;
    g pg_catalog.int4 := 0;
    groups pg_catalog.jsonb := '{}';
BEGIN
    FOR r IN SELECT (x OPERATOR(pg_catalog.->>) 'n')::pg_catalog.int4 AS n, (x OPERATOR(pg_catalog.->>) 'peak_tps')::pg_catalog.numeric AS peak
               FROM pg_catalog.jsonb_array_elements(sweeps) x
              WHERE x OPERATOR(pg_catalog.->>) 'peak_tps' IS NOT NULL
              ORDER BY 2 DESC, 1 LOOP
        IF top IS NULL OR top OPERATOR(pg_catalog.>) (split_ratio OPERATOR(pg_catalog.*) r.peak) THEN
            g := g OPERATOR(pg_catalog.+) 1;
            top := r.peak;
        END IF;
        groups := groups OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object(r.n::pg_catalog.text, g);
    END LOOP;
    RETURN (SELECT coalesce(pg_catalog.jsonb_object_agg(x.n, coalesce(o.panel, 1)), '{}')
              FROM (SELECT (x OPERATOR(pg_catalog.->>) 'n') AS n FROM pg_catalog.jsonb_array_elements(sweeps) x) x
              LEFT JOIN (SELECT m.key AS n, pg_catalog.dense_rank() OVER (ORDER BY f.first) AS panel
                           FROM pg_catalog.jsonb_each_text(groups) m
                           JOIN (SELECT m2.value AS g, pg_catalog.min(m2.key::pg_catalog.int4) AS first
                                   FROM pg_catalog.jsonb_each_text(groups) m2 GROUP BY m2.value) f
                             ON f.g OPERATOR(pg_catalog.=) m.value) o
                ON o.n OPERATOR(pg_catalog.=) x.n);
END
$$;

-- log2(n) - lo, in numeric (exact at the powers of two).
CREATE FUNCTION pgbench_lab_internal.log2_from(n integer, lo integer)
RETURNS numeric LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT pg_catalog.log(2::pg_catalog.numeric, n::pg_catalog.numeric) OPERATOR(pg_catalog.-) lo $$;

-- The series of one sweep for svg_panel(): TPS (solid, with its peak and
-- knee marked) and average latency (dashed, right axis), x as
-- log2(clients) - lo.
CREATE FUNCTION pgbench_lab_internal.plot_sweep_series(w jsonb, lo integer)
RETURNS jsonb LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pg_catalog.jsonb_build_array(
        pg_catalog.jsonb_build_object(
            'label', pg_catalog.format('%s TPS (experiment %s): %s', w OPERATOR(pg_catalog.->>) 'name', w OPERATOR(pg_catalog.->>) 'id',
                          CASE WHEN w OPERATOR(pg_catalog.->>) 'peak' IS NULL THEN 'no peak, no knee'
                               ELSE pg_catalog.format('peak %s, knee %s (threshold %s of linear)', w OPERATOR(pg_catalog.->>) 'peak',
                                             coalesce(w OPERATOR(pg_catalog.->>) 'knee',
                                                      CASE WHEN pg_catalog.jsonb_array_length(w OPERATOR(pg_catalog.->) 'steps') OPERATOR(pg_catalog.<) 2
                                                           THEN 'not found' ELSE 'not reached' END),
                                             pgbench_lab_internal.threshold_text((w OPERATOR(pg_catalog.->>) 'threshold')::pg_catalog.float8)) END),
            'x', x.xs, 'y', (SELECT coalesce(pg_catalog.jsonb_agg(st OPERATOR(pg_catalog.->) 't' ORDER BY k), '[]')
                               FROM pg_catalog.jsonb_array_elements(w OPERATOR(pg_catalog.->) 'steps') WITH ORDINALITY AS a(st, k)),
            'axis', 1, 'color', (w OPERATOR(pg_catalog.->>) 'n')::pg_catalog.int4 OPERATOR(pg_catalog.-) 1, 'points', true,
            'marks', (SELECT coalesce(pg_catalog.jsonb_agg(m.mark ORDER BY m.k), '[]') FROM (
                         SELECT 1 AS k, pg_catalog.jsonb_build_object('kind', 'peak',
                                    'x', pgbench_lab_internal.log2_from((w OPERATOR(pg_catalog.->>) 'peak')::pg_catalog.int4, lo),
                                    'y', w OPERATOR(pg_catalog.->) 'peak_tps',
                                    'label', 'peak ' OPERATOR(pg_catalog.||) (w OPERATOR(pg_catalog.->>) 'peak'),
                                    'title', pg_catalog.format('%s, experiment %s: peak at %s, %s tps', w OPERATOR(pg_catalog.->>) 'name',
                                                  w OPERATOR(pg_catalog.->>) 'id',
                                                  pgbench_lab_internal.clients_text((w OPERATOR(pg_catalog.->>) 'peak')::pg_catalog.int4),
                                                  pgbench_lab_internal.fmt((w OPERATOR(pg_catalog.->>) 'peak_tps')::pg_catalog.float8))) AS mark
                          WHERE w OPERATOR(pg_catalog.->>) 'peak' IS NOT NULL
                         UNION ALL
                         SELECT 2, pg_catalog.jsonb_build_object('kind', 'knee',
                                    'x', pgbench_lab_internal.log2_from((w OPERATOR(pg_catalog.->>) 'knee')::pg_catalog.int4, lo),
                                    'y', w OPERATOR(pg_catalog.->) 'knee_tps',
                                    'label', 'knee ' OPERATOR(pg_catalog.||) (w OPERATOR(pg_catalog.->>) 'knee'),
                                    'title', pg_catalog.format('%s, experiment %s: knee at %s, %s tps; the next step gained less than %s of linear scaling',
                                                  w OPERATOR(pg_catalog.->>) 'name', w OPERATOR(pg_catalog.->>) 'id',
                                                  pgbench_lab_internal.clients_text((w OPERATOR(pg_catalog.->>) 'knee')::pg_catalog.int4),
                                                  pgbench_lab_internal.fmt((w OPERATOR(pg_catalog.->>) 'knee_tps')::pg_catalog.float8),
                                                  pgbench_lab_internal.threshold_text((w OPERATOR(pg_catalog.->>) 'threshold')::pg_catalog.float8)))
                          WHERE w OPERATOR(pg_catalog.->>) 'knee' IS NOT NULL) m)),
        pg_catalog.jsonb_build_object(
            'label', pg_catalog.format('%s latency avg ms (experiment %s)', w OPERATOR(pg_catalog.->>) 'name', w OPERATOR(pg_catalog.->>) 'id'),
            'x', x.xs, 'y', (SELECT coalesce(pg_catalog.jsonb_agg(st OPERATOR(pg_catalog.->) 'l' ORDER BY k), '[]')
                               FROM pg_catalog.jsonb_array_elements(w OPERATOR(pg_catalog.->) 'steps') WITH ORDINALITY AS a(st, k)),
            'axis', 2, 'color', (w OPERATOR(pg_catalog.->>) 'n')::pg_catalog.int4 OPERATOR(pg_catalog.-) 1, 'points', true))
      FROM (SELECT (SELECT coalesce(pg_catalog.jsonb_agg(pgbench_lab_internal.log2_from((st OPERATOR(pg_catalog.->>) 'c')::pg_catalog.int4, lo) ORDER BY k), '[]')
                      FROM pg_catalog.jsonb_array_elements(w OPERATOR(pg_catalog.->) 'steps') WITH ORDINALITY AS a(st, k)) AS xs) x
$$;

-- TPS and average latency against clients on a log2 axis, a pair of
-- curves per sweep with its peak and knee marked; sweeps of very
-- different throughput in separate panels (plot_sweep_panels()), stacked
-- in one document, each with its own y axes and all with the same x axis.
CREATE FUNCTION pgbench_lab_internal.plot_sweeps(ids bigint[])
RETURNS text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    split_ratio CONSTANT pg_catalog.numeric := 5;
    sweeps pg_catalog.jsonb := pgbench_lab_internal.plot_sweep_data(ids);
    panels pg_catalog.jsonb := pgbench_lab_internal.plot_sweep_panels(sweeps, split_ratio);
    npanels pg_catalog.int4;
    minc pg_catalog.int8;
    maxc pg_catalog.int8;
    lo pg_catalog.int4 := 0;
    hi pg_catalog.int4 := 1;
    p pg_catalog.int4;
    series pg_catalog.jsonb;
    notes pg_catalog.text[];
    body pg_catalog.text := '';
    y pg_catalog.int4;
    peaks pg_catalog.record;
BEGIN
    SELECT pg_catalog.max(v::pg_catalog.int4) INTO npanels FROM pg_catalog.jsonb_each_text(panels) AS e(k, v);
    SELECT pg_catalog.min((st OPERATOR(pg_catalog.->>) 'c')::pg_catalog.int8), pg_catalog.max((st OPERATOR(pg_catalog.->>) 'c')::pg_catalog.int8)
      INTO minc, maxc
      FROM pg_catalog.jsonb_array_elements(sweeps) w, pg_catalog.jsonb_array_elements(w OPERATOR(pg_catalog.->) 'steps') st;
    IF minc IS NOT NULL THEN
        -- from the power of two at or below the fewest clients to the one
        -- at or above the most, at least one doubling
        WHILE (1::pg_catalog.int8 OPERATOR(pg_catalog.<<) (lo OPERATOR(pg_catalog.+) 1)) OPERATOR(pg_catalog.<=) minc LOOP
            lo := lo OPERATOR(pg_catalog.+) 1;
        END LOOP;
        hi := lo;
        WHILE (1::pg_catalog.int8 OPERATOR(pg_catalog.<<) hi) OPERATOR(pg_catalog.<) maxc LOOP
            hi := hi OPERATOR(pg_catalog.+) 1;
        END LOOP;
        hi := greatest(hi, lo OPERATOR(pg_catalog.+) 1);
    END IF;
    y := CASE WHEN npanels OPERATOR(pg_catalog.>) 1 THEN 40 ELSE 0 END;
    FOR p IN 1 .. npanels LOOP
        SELECT coalesce(pg_catalog.jsonb_agg(e ORDER BY (w OPERATOR(pg_catalog.->>) 'n')::pg_catalog.int4, k), '[]') INTO series
          FROM pg_catalog.jsonb_array_elements(sweeps) w,
               pg_catalog.jsonb_array_elements(pgbench_lab_internal.plot_sweep_series(w, lo)) WITH ORDINALITY AS s(e, k)
         WHERE (panels OPERATOR(pg_catalog.->>) (w OPERATOR(pg_catalog.->>) 'n'))::pg_catalog.int4 OPERATOR(pg_catalog.=) p;
        notes := NULL;
        IF p OPERATOR(pg_catalog.=) 1 THEN
            -- a sweep whose runs all failed is in the legend, and says why it has no curve
            SELECT CASE WHEN minc IS NULL THEN ARRAY['Nothing to plot.'] ELSE '{}' END
                   OPERATOR(pg_catalog.||) pg_catalog.array_agg(pg_catalog.format('Experiment %s: %s.', w OPERATOR(pg_catalog.->>) 'id',
                                                    pgbench_lab_internal.undrawn_runs((w OPERATOR(pg_catalog.->>) 'id')::pg_catalog.int8))
                                                    ORDER BY (w OPERATOR(pg_catalog.->>) 'n')::pg_catalog.int4)
              INTO notes
              FROM pg_catalog.jsonb_array_elements(sweeps) w
             WHERE pg_catalog.jsonb_array_length(w OPERATOR(pg_catalog.->) 'steps') OPERATOR(pg_catalog.=) 0;
        END IF;
        body := body OPERATOR(pg_catalog.||) pg_catalog.format('<g class="panel" transform="translate(0 %s)">', y) OPERATOR(pg_catalog.||) E'\n';
        IF npanels OPERATOR(pg_catalog.>) 1 THEN
            SELECT pg_catalog.min((w OPERATOR(pg_catalog.->>) 'peak_tps')::pg_catalog.float8) AS low,
                   pg_catalog.max((w OPERATOR(pg_catalog.->>) 'peak_tps')::pg_catalog.float8) AS high INTO peaks
              FROM pg_catalog.jsonb_array_elements(sweeps) w
             WHERE (panels OPERATOR(pg_catalog.->>) (w OPERATOR(pg_catalog.->>) 'n'))::pg_catalog.int4 OPERATOR(pg_catalog.=) p;
            body := body OPERATOR(pg_catalog.||) pg_catalog.format('<text x="380" y="28" text-anchor="middle" font-size="14">Panel %s of %s: peak TPS %s</text>',
                                p, npanels,
                                CASE WHEN peaks.low OPERATOR(pg_catalog.=) peaks.high THEN pgbench_lab_internal.fmt(peaks.high)
                                     ELSE pgbench_lab_internal.fmt(peaks.low) OPERATOR(pg_catalog.||) ' to ' OPERATOR(pg_catalog.||) pgbench_lab_internal.fmt(peaks.high) END)
                    OPERATOR(pg_catalog.||) E'\n';
        END IF;
        body := body OPERATOR(pg_catalog.||) pgbench_lab_internal.svg_panel('clients (log2 scale)', 'TPS (transactions per second), solid',
                                                   'average latency (ms), dashed', series, notes, ARRAY[lo, hi OPERATOR(pg_catalog.-) lo])
            OPERATOR(pg_catalog.||) '</g>' OPERATOR(pg_catalog.||) E'\n';
        y := y OPERATOR(pg_catalog.+) pgbench_lab_internal.svg_panel_height(series);
    END LOOP;
    RETURN pgbench_lab_internal.svg_open(pg_catalog.format('TPS and latency against clients (%s)', pgbench_lab_internal.plot_path(ids)), y)
        OPERATOR(pg_catalog.||) CASE WHEN npanels OPERATOR(pg_catalog.>) 1
                THEN pg_catalog.format('<text x="380" y="48" text-anchor="middle" fill="#555555">Peak TPS more than %s times apart: sweeps within %s times of each other share a panel with its own y axes</text>',
                                       split_ratio, split_ratio) OPERATOR(pg_catalog.||) E'\n'
                ELSE '' END
        OPERATOR(pg_catalog.||) body OPERATOR(pg_catalog.||) '</svg>' OPERATOR(pg_catalog.||) E'\n';
END
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
                                               WHEN metric OPERATOR(pg_catalog.=) 'lag' THEN p.lag_avg_ms
                                               -- telemetry: the machine's busy CPU, the clients' waiting
                                               WHEN metric OPERATOR(pg_catalog.=) 'cpu'
                                               THEN 100 OPERATOR(pg_catalog.-) t.cpu_idle_pct OPERATOR(pg_catalog.-) t.cpu_iowait_pct
                                               WHEN metric OPERATOR(pg_catalog.=) 'waits'
                                               THEN 100 OPERATOR(pg_catalog.*) (1 OPERATOR(pg_catalog.-) coalesce((t.waits OPERATOR(pg_catalog.->>) 'CPU')::pg_catalog.float8, 0)
                                                    OPERATOR(pg_catalog./) CASE WHEN w.n OPERATOR(pg_catalog.>) 0 THEN w.n END)
                                               ELSE p.hit_ratio OPERATOR(pg_catalog.*) 100 END AS y
          FROM runs r JOIN pgbench_lab.run_progress p ON p.run_id OPERATOR(pg_catalog.=) r.run_id
          LEFT JOIN pgbench_lab.run_telemetry t
                 ON t.run_id OPERATOR(pg_catalog.=) p.run_id AND t.second OPERATOR(pg_catalog.=) p.second
          LEFT JOIN LATERAL (SELECT pg_catalog.sum(e.value::pg_catalog.float8) AS n
                               FROM pg_catalog.jsonb_each_text(t.waits) AS e) w ON true
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
        CASE WHEN metric OPERATOR(pg_catalog.=) 'tps' THEN 'TPS per second'
                    WHEN metric OPERATOR(pg_catalog.=) 'latency' THEN 'Average latency per second'
                    WHEN metric OPERATOR(pg_catalog.=) 'latency_max' THEN 'Maximum latency per second'
                    WHEN metric OPERATOR(pg_catalog.=) 'lag' THEN 'Average schedule lag per second (runs with a rate)'
                    WHEN metric OPERATOR(pg_catalog.=) 'cpu' THEN 'Machine CPU busy per second (all but idle and iowait)'
                    WHEN metric OPERATOR(pg_catalog.=) 'waits' THEN 'Clients waiting per second (share of wait-event samples)'
                    ELSE 'Buffer hit ratio per second' END
        -- the path the runs took, where the figure depends on it
        OPERATOR(pg_catalog.||) CASE WHEN metric OPERATOR(pg_catalog.=) ANY (ARRAY['tps', 'latency', 'latency_max', 'hit_ratio'])
                                     THEN pg_catalog.format(' (%s)', pgbench_lab_internal.plot_path(ids)) ELSE '' END,
        'time since the start (s)',
        CASE WHEN metric OPERATOR(pg_catalog.=) 'tps' THEN 'TPS (transactions per second)'
                    WHEN metric OPERATOR(pg_catalog.=) 'latency' THEN 'average latency (ms)'
                    WHEN metric OPERATOR(pg_catalog.=) 'latency_max' THEN 'maximum latency (ms)'
                    WHEN metric OPERATOR(pg_catalog.=) 'lag' THEN 'schedule lag (ms)'
                    WHEN metric OPERATOR(pg_catalog.=) 'cpu' THEN 'CPU busy (%)'
                    WHEN metric OPERATOR(pg_catalog.=) 'waits' THEN 'clients waiting on an event (%)'
                    ELSE 'buffer hit ratio (%)' END,
        NULL,
        (SELECT coalesce(pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object(
             'color', coalesce(r.variant OPERATOR(pg_catalog.-) 1, r.k OPERATOR(pg_catalog.-) 1),
             'label', pg_catalog.format('%srun %s: %s, %s%s%s',
                             CASE WHEN r.variant IS NOT NULL THEN pg_catalog.format('%s%s, round %s: ', pg_catalog.chr(64 OPERATOR(pg_catalog.+) r.variant),
                                         -- runs of several paths (connection_cost): each set named by its path
                                         CASE WHEN (SELECT pg_catalog.count(DISTINCT coalesce(o.via, 'spi')) FROM runs o) OPERATOR(pg_catalog.>) 1
                                              THEN CASE WHEN r.via OPERATOR(pg_catalog.=) 'libpq' THEN ' (over libpq)'
                                                        WHEN r.via OPERATOR(pg_catalog.=) 'libpq-connect' THEN ' (over libpq, a connection per transaction)'
                                                        ELSE ' (in-server)' END
                                              ELSE '' END,
                                         r.round) ELSE '' END,
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
                  HINT = 'Valid metrics are tps, latency, latency_max, lag, hit_ratio, cpu and waits.';
    END IF;
    IF NOT metric OPERATOR(pg_catalog.=) ANY (ARRAY['tps', 'latency', 'latency_max', 'lag', 'hit_ratio', 'cpu', 'waits']) THEN
        RAISE EXCEPTION 'unknown metric "%"', metric
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Valid metrics are tps, latency, latency_max, lag, hit_ratio, cpu and waits.';
    END IF;
    IF EXISTS (SELECT FROM pgbench_lab.experiments e
                WHERE e.experiment_id OPERATOR(pg_catalog.=) ANY (ids) AND e.kind OPERATOR(pg_catalog.=) 'latency_curve') THEN
        IF pg_catalog.cardinality(ids) OPERATOR(pg_catalog.>) 1 THEN
            RAISE EXCEPTION 'a latency curve is plotted alone'
                USING ERRCODE = 'invalid_parameter_value',
                      HINT = 'Plot one latency_curve experiment at a time: its latency percentiles against the achieved TPS.';
        END IF;
        RETURN pgbench_lab_internal.plot_latency_curve(ids[1]);
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
    'An SVG document: per-second curves of runs, TPS and latency against clients for sweeps, latency against TPS for a latency curve';


GRANT EXECUTE ON FUNCTION pgbench_lab.plot(bigint[], text) TO pg_monitor;
