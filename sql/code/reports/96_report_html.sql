-- report_html(): runs and experiments as one self-contained HTML page.
--
-- The page needs nothing from a network: its style is inline CSS and its
-- charts are plot()'s SVG documents (and two more drawn here: an
-- experiment's verdicts, each ratio with its interval, and a run's standby
-- lag), inlined.  Every text from the results goes through
-- pgbench_lab.printable() and is escaped for HTML; the report's own lines
-- (report()) are kept whole in a <pre>, so the page holds everything the
-- text report holds, figures, intervals and notes, with the charts beside.
-- It reads with the caller's rights, under row-level security, as report()
-- and plot() do.

-- Text for HTML: printable, with &, <, > and " escaped.
CREATE FUNCTION pgbench_lab_internal.html_text(s text)
RETURNS text LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pgbench_lab_internal.svg_escape(pgbench_lab.printable(coalesce(s, '')))
$$;

-- One chart of plot(), without its XML declaration, across the page's two
-- columns when wide; NULL when plot() draws nothing for these ids and this
-- metric ("Nothing to plot.").
CREATE FUNCTION pgbench_lab_internal.html_plot(ids bigint[], metric text, wide boolean DEFAULT false)
RETURNS text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    svg pg_catalog.text := pgbench_lab.plot(ids, metric);
BEGIN
    IF pg_catalog.strpos(svg, '>Nothing to plot.<') OPERATOR(pg_catalog.>) 0 THEN
        RETURN NULL;
    END IF;
    RETURN CASE WHEN wide THEN '<figure class="wide">' ELSE '<figure>' END
        OPERATOR(pg_catalog.||) pg_catalog.regexp_replace(svg, '^<\?xml[^>]*>\s*', '')
        OPERATOR(pg_catalog.||) '</figure>' OPERATOR(pg_catalog.||) E'\n';
END
$$;

-- A run's standby lag per second (run_replication), one curve per
-- standby, in kB of WAL not yet replayed; NULL without standbys.
CREATE FUNCTION pgbench_lab_internal.html_standby_lag(run_id bigint)
RETURNS text LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH s AS (
        SELECT q.standby, pg_catalog.dense_rank() OVER (ORDER BY q.standby) AS k,
               pg_catalog.jsonb_agg(q.second ORDER BY q.second) AS x,
               pg_catalog.jsonb_agg(pgbench_lab_internal.float8_of(q.replay_lag_bytes OPERATOR(pg_catalog./) 1024) ORDER BY q.second) AS y
          FROM pgbench_lab.run_replication q
         WHERE q.run_id OPERATOR(pg_catalog.=) html_standby_lag.run_id
         GROUP BY q.standby)
    SELECT '<figure>' OPERATOR(pg_catalog.||) pgbench_lab_internal.svg_chart(
               pg_catalog.format('Standby lag per second (run %s, read on the primary)', html_standby_lag.run_id),
               'time since the start (s)', 'WAL not yet replayed (kB)', NULL,
               pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object('color', s.k OPERATOR(pg_catalog.-) 1,
                   'label', s.standby, 'x', s.x, 'y', s.y) ORDER BY s.k))
           OPERATOR(pg_catalog.||) '</figure>' OPERATOR(pg_catalog.||) E'\n'
      FROM s
    HAVING pg_catalog.count(*) OPERATOR(pg_catalog.>) 0
$$;

-- Where a ratio lies on a log axis from lo to hi drawn from x0, w wide.
CREATE FUNCTION pgbench_lab_internal.ratio_x(r double precision, lo double precision, hi double precision,
                                             x0 integer, w integer)
RETURNS numeric LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pg_catalog.round((x0 OPERATOR(pg_catalog.+) ((w OPERATOR(pg_catalog.*)
                             (pg_catalog.ln(r) OPERATOR(pg_catalog.-) pg_catalog.ln(lo))) OPERATOR(pg_catalog./)
                             (pg_catalog.ln(hi) OPERATOR(pg_catalog.-) pg_catalog.ln(lo))))::pg_catalog.numeric, 1)
$$;

-- The ticks of a ratio axis from lo to hi (log scale): 1, 2 and 5 times
-- the powers of ten between them (only the powers when that makes more
-- than 12), or, on a span under 4 times, steps of 1, 2 or 5 times a
-- power of ten, about five of them.
CREATE FUNCTION pgbench_lab_internal.ratio_ticks(lo double precision, hi double precision)
RETURNS double precision[] LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH wide AS (
        SELECT m::pg_catalog.float8 OPERATOR(pg_catalog.*) pg_catalog.power(10::pg_catalog.float8, k::pg_catalog.float8) AS t, m, k
          FROM pg_catalog.generate_series(pg_catalog.floor(pg_catalog.log(lo))::integer,
                                          pg_catalog.ceil(pg_catalog.log(hi))::integer) k,
               pg_catalog.unnest(ARRAY[1, 2, 5]) m),
    inside AS (SELECT * FROM wide WHERE wide.t OPERATOR(pg_catalog.>=) lo AND wide.t OPERATOR(pg_catalog.<=) hi),
    -- over ten powers of ten, every second one or more
    every AS (SELECT greatest(1, pg_catalog.ceil(pg_catalog.count(*) OPERATOR(pg_catalog./) 10.0))::integer AS e
                FROM inside WHERE inside.m OPERATOR(pg_catalog.=) 1),
    step AS (SELECT (pgbench_lab_internal.svg_axis(hi OPERATOR(pg_catalog.-) lo))[2] AS st)
    SELECT CASE WHEN hi OPERATOR(pg_catalog./) lo OPERATOR(pg_catalog.>=) 4
                THEN (SELECT pg_catalog.array_agg(i.t ORDER BY i.t) FROM inside i, every
                       WHERE (i.m OPERATOR(pg_catalog.=) 1 AND i.k OPERATOR(pg_catalog.%) every.e OPERATOR(pg_catalog.=) 0)
                          OR (SELECT pg_catalog.count(*) FROM inside) OPERATOR(pg_catalog.<=) 12)
                ELSE (SELECT pg_catalog.array_agg(pg_catalog.round((k OPERATOR(pg_catalog.*) step.st)::pg_catalog.numeric, 6)::pg_catalog.float8 ORDER BY k)
                        FROM step, pg_catalog.generate_series(pg_catalog.ceil(lo OPERATOR(pg_catalog./) step.st)::integer,
                                                              pg_catalog.floor(hi OPERATOR(pg_catalog./) step.st)::integer) k) END
$$;

-- The rows html_verdicts() draws: each verdict's comparison (named as
-- names maps it, if it does), its figures in words, its ratio and
-- interval, its verdict.
CREATE FUNCTION pgbench_lab_internal.verdict_rows(experiment_id bigint, names jsonb)
RETURNS TABLE (k bigint, label text, figures text, ratio double precision, low double precision,
               high double precision, verdict text)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT q.k, coalesce(names OPERATOR(pg_catalog.->>) q.comparison, q.comparison),
           CASE WHEN q.ratio IS NULL THEN 'no ratio: ' OPERATOR(pg_catalog.||) q.verdict
                ELSE pg_catalog.format('%s %s%s%s, %s round%s: %s', CASE WHEN q.measure OPERATOR(pg_catalog.=) 'tps' THEN 'TPS' ELSE q.measure END, U&'\00D7', pgbench_lab_internal.fmt(q.ratio, 3),
                         CASE WHEN q.coverage IS NOT NULL AND q.ratio_low OPERATOR(pg_catalog.<) q.ratio_high
                              THEN pg_catalog.format(' (%s %% interval %s%s to %s%s)', pgbench_lab_internal.fmt(100 OPERATOR(pg_catalog.*) q.coverage),
                                                     U&'\00D7', pgbench_lab_internal.fmt(q.ratio_low, 3), U&'\00D7', pgbench_lab_internal.fmt(q.ratio_high, 3))
                              ELSE ' (no interval)' END,
                         q.rounds, CASE WHEN q.rounds OPERATOR(pg_catalog.=) 1 THEN '' ELSE 's' END, q.verdict) END,
           q.ratio, coalesce(q.ratio_low, q.ratio), coalesce(q.ratio_high, q.ratio), q.verdict
      FROM (SELECT pg_catalog.row_number() OVER () AS k, f.* FROM pgbench_lab.experiment_verdicts(experiment_id) f) q
$$;

-- An experiment's verdicts (experiment_verdicts()) as a picture, one row
-- per comparison: its words and figures above, its median ratio as a dot
-- coloured by its verdict and its interval as a bar, on a log axis of
-- ratios with ticks and x1 (no change) marked.  The sets of a settings
-- comparison are named with their settings; tune's rows are its search,
-- candidate by candidate, then its proof.  NULL for the kinds drawn
-- otherwise (sweep, latency_curve) and without verdicts.
CREATE FUNCTION pgbench_lab_internal.html_verdicts(experiment_id bigint)
RETURNS text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    x0 CONSTANT pg_catalog.int4 := 40;
    w CONSTANT pg_catalog.int4 := 780;
    kind pg_catalog.text;
    lo pg_catalog.float8;
    hi pg_catalog.float8;
    n pg_catalog.int4;
    ya pg_catalog.int4;
    body pg_catalog.text := '';
    v record;
    t pg_catalog.float8;
    words pg_catalog.text;
    color pg_catalog.text;
    names pg_catalog.jsonb;
BEGIN
    SELECT e.kind INTO kind FROM pgbench_lab.experiments e WHERE e.experiment_id OPERATOR(pg_catalog.=) html_verdicts.experiment_id;
    IF kind IS NULL OR kind OPERATOR(pg_catalog.=) ANY (ARRAY['sweep', 'latency_curve']) THEN
        RETURN NULL;
    END IF;
    -- a settings comparison's sets by their settings: "B (work_mem=8MB) against A"
    IF kind OPERATOR(pg_catalog.=) 'compare_settings' THEN
        SELECT pg_catalog.jsonb_object_agg(s.name OPERATOR(pg_catalog.||) ' against A',
                   pg_catalog.format('%s (%s) against A%s', s.name, pgbench_lab_internal.settings_text(s.settings),
                                     CASE WHEN a.settings OPERATOR(pg_catalog.=) '{}'::pg_catalog.jsonb THEN ''
                                          ELSE ' (' OPERATOR(pg_catalog.||) pgbench_lab_internal.settings_text(a.settings) OPERATOR(pg_catalog.||) ')' END))
          INTO names
          FROM pgbench_lab.settings_ratios(experiment_id) s
          JOIN pgbench_lab.settings_ratios(experiment_id) a ON a.variant OPERATOR(pg_catalog.=) 1
         WHERE s.variant OPERATOR(pg_catalog.>) 1;
    END IF;
    SELECT pg_catalog.count(*),
           pg_catalog.min(least(r.low, r.ratio)) FILTER (WHERE r.low OPERATOR(pg_catalog.>) 0),
           pg_catalog.max(greatest(r.high, r.ratio)) FILTER (WHERE r.ratio OPERATOR(pg_catalog.>) 0)
      INTO n, lo, hi
      FROM pgbench_lab_internal.verdict_rows(experiment_id, names) r;
    IF n OPERATOR(pg_catalog.=) 0 THEN
        RETURN NULL;
    END IF;
    -- at least x0.9 to x1.1, a margin beyond the extremes; within 1e-300
    -- to 1e300 (an imported ratio may be 5e-324 or 1e308)
    lo := greatest(least(least(coalesce(lo, 1), 1) OPERATOR(pg_catalog./) 1.05, 0.9), 1e-300);
    hi := least(greatest(greatest(coalesce(hi, 1), 1) OPERATOR(pg_catalog.*) 1.05, 1.1), 1e300);
    ya := 56 OPERATOR(pg_catalog.+) (52 OPERATOR(pg_catalog.*) n);
    -- (each within the axis: a ratio of 5e-324 sits on its left end)
    FOR v IN SELECT r.*, pgbench_lab_internal.ratio_x(least(greatest(r.ratio, lo), hi), lo, hi, x0, w) AS px,
                    pgbench_lab_internal.ratio_x(least(greatest(r.low, lo), hi), lo, hi, x0, w) AS plo,
                    pgbench_lab_internal.ratio_x(least(greatest(r.high, lo), hi), lo, hi, x0, w) AS phi,
                    16 OPERATOR(pg_catalog.+) (52 OPERATOR(pg_catalog.*) r.k) AS y
               FROM pgbench_lab_internal.verdict_rows(experiment_id, names) r ORDER BY r.k LOOP
        words := v.label OPERATOR(pg_catalog.||) ': ' OPERATOR(pg_catalog.||) v.figures;
        -- the comparison, then its figures, each cut to fit 780 px (at
        -- most 7.6 px a character at 12 px, 7 at 11 px)
        body := body OPERATOR(pg_catalog.||) pg_catalog.format('<text class="row" x="%s" y="%s"><title>%s</title>%s</text>'
                                                               '<text class="figures" x="%s" y="%s" font-size="11" fill="#444444">%s</text>',
            x0, v.y, pgbench_lab_internal.svg_escape(words), pgbench_lab_internal.svg_escape(pgbench_lab_internal.svg_fit(v.label, 102)),
            x0, v.y OPERATOR(pg_catalog.+) 15, pgbench_lab_internal.svg_escape(pgbench_lab_internal.svg_fit(v.figures, 110)));
        CONTINUE WHEN v.ratio IS NULL OR v.ratio OPERATOR(pg_catalog.<=) 0;
        color := CASE WHEN v.verdict OPERATOR(pg_catalog.=) 'faster' THEN '#2ca02c' WHEN v.verdict OPERATOR(pg_catalog.=) 'slower' THEN '#d62728'
                      WHEN v.verdict OPERATOR(pg_catalog.=) 'undecided' THEN '#ff7f0e' ELSE '#7f7f7f' END;
        body := body OPERATOR(pg_catalog.||) pg_catalog.format(
            '<line class="interval" x1="%s" x2="%s" y1="%s" y2="%s" stroke="%s" stroke-width="4"/>'
            '<circle class="median" cx="%s" cy="%s" r="5" fill="%s" stroke="#000000"/>',
            v.plo, v.phi, v.y OPERATOR(pg_catalog.+) 29, v.y OPERATOR(pg_catalog.+) 29, color,
            v.px, v.y OPERATOR(pg_catalog.+) 29, color) OPERATOR(pg_catalog.||) E'\n';
    END LOOP;
    -- the axis, its ticks, and x1
    FOREACH t IN ARRAY pgbench_lab_internal.ratio_ticks(lo, hi) LOOP
        body := body OPERATOR(pg_catalog.||) pg_catalog.format(
            '<line x1="%s" x2="%s" y1="46" y2="%s" stroke="%s"%s/><text class="xtick" x="%s" y="%s" text-anchor="middle">%s%s</text>',
            pgbench_lab_internal.ratio_x(t, lo, hi, x0, w), pgbench_lab_internal.ratio_x(t, lo, hi, x0, w), ya,
            CASE WHEN t OPERATOR(pg_catalog.=) 1 THEN '#555555' ELSE '#e0e0e0' END,
            CASE WHEN t OPERATOR(pg_catalog.=) 1 THEN ' stroke-dasharray="4 3"' ELSE '' END,
            pgbench_lab_internal.ratio_x(t, lo, hi, x0, w), ya OPERATOR(pg_catalog.+) 16, U&'\00D7', pgbench_lab_internal.svg_num(t, 6))
            OPERATOR(pg_catalog.||) E'\n';
    END LOOP;
    RETURN '<figure class="wide">' OPERATOR(pg_catalog.||) pg_catalog.format(
               '<svg xmlns="http://www.w3.org/2000/svg" width="860" height="%s" viewBox="0 0 860 %s" '
               'font-family="DejaVu Sans, Arial, sans-serif" font-size="12">'
               '<rect x="0" y="0" width="860" height="%s" fill="#ffffff"/>'
               '%s'
               '<line x1="%s" x2="%s" y1="%s" y2="%s" stroke="#000000"/>'
               '<text x="430" y="%s" text-anchor="middle">%s</text>'
               '<text x="430" y="%s" text-anchor="middle" fill="#555555">%s</text>',
               ya OPERATOR(pg_catalog.+) 66, ya OPERATOR(pg_catalog.+) 66, ya OPERATOR(pg_catalog.+) 66,
               pgbench_lab_internal.svg_title(430, 20, pg_catalog.format('%s (experiment %s)',
                   CASE WHEN kind OPERATOR(pg_catalog.=) 'tune' THEN 'The search, each candidate against the incumbent of its time, then the proof'
                        ELSE 'Each comparison''s median ratio and its interval' END, experiment_id), 14, 820)
               OPERATOR(pg_catalog.||) pgbench_lab_internal.svg_title(430, 38, 'runs ' OPERATOR(pg_catalog.||)
                                                                      pgbench_lab_internal.plot_path(ARRAY[experiment_id]), 12, 820),
               x0, x0 OPERATOR(pg_catalog.+) w, ya, ya,
               ya OPERATOR(pg_catalog.+) 34, U&'ratio (log scale); \00D71: no change',
               ya OPERATOR(pg_catalog.+) 54, 'dot: the median, bar: its interval; green faster, red slower, grey no difference, orange undecided')
        OPERATOR(pg_catalog.||) E'\n' OPERATOR(pg_catalog.||) body OPERATOR(pg_catalog.||) '</svg></figure>' OPERATOR(pg_catalog.||) E'\n';
END
$$;

-- The key figures of runs as an HTML table (compare()'s columns), with
-- where and how each was measured: the path, and for a libpq run the
-- number of its target, each target's connection (without a password, as
-- runs.target_display keeps it) listed once under the table.
CREATE FUNCTION pgbench_lab_internal.html_runs_table(run_ids bigint[])
RETURNS text LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH t AS (
        SELECT d.target_display, pg_catalog.row_number() OVER (ORDER BY d.first) AS n
          FROM (SELECT r.target_display, pg_catalog.min(u.k) AS first
                  FROM pg_catalog.unnest(run_ids) WITH ORDINALITY AS u(id, k)
                  JOIN pgbench_lab.runs r ON r.run_id OPERATOR(pg_catalog.=) u.id
                 WHERE r.target_display IS NOT NULL
                 GROUP BY r.target_display) d)
    SELECT '<table><tr><th>run</th><th>label</th><th>server</th><th>path</th><th>workload</th>'
           '<th>clients</th><th>scale</th><th>status</th><th>seconds</th><th>TPS</th>'
           '<th>latency avg (ms)</th><th>latency p99 (ms)</th><th>hit ratio (%)</th>'
           '<th>CPU busy (%)</th><th>session settings</th></tr>' OPERATOR(pg_catalog.||) E'\n'
        OPERATOR(pg_catalog.||) pg_catalog.string_agg(pg_catalog.format(
            '<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td class="n">%s</td><td class="n">%s</td>'
            '<td class="%s">%s</td><td class="n">%s</td><td class="n">%s</td><td class="n">%s</td>'
            '<td class="n">%s</td><td class="n">%s</td><td class="n">%s</td><td>%s</td></tr>',
            c.run_id, pgbench_lab_internal.html_text(c.label), pgbench_lab_internal.html_text(c.server),
            pgbench_lab_internal.html_text(CASE WHEN r.via OPERATOR(pg_catalog.=) 'spi' THEN 'in-server'
                                                ELSE r.via OPERATOR(pg_catalog.||) coalesce(' to target ' OPERATOR(pg_catalog.||) t.n, '') END),
            pgbench_lab_internal.html_text(c.workload),
            c.clients, coalesce(c.scale::pg_catalog.text, ''),
            CASE WHEN c.status OPERATOR(pg_catalog.=) 'done' THEN 'ok' ELSE 'bad' END,
            pgbench_lab_internal.html_text(c.status),
            coalesce(c.seconds::pg_catalog.text, ''), coalesce(c.tps::pg_catalog.text, ''),
            coalesce(c.latency_avg_ms::pg_catalog.text, ''), coalesce(c.latency_p99_ms::pg_catalog.text, ''),
            coalesce(c.hit_ratio_pct::pg_catalog.text, ''), coalesce(c.cpu_busy_pct::pg_catalog.text, ''),
            pgbench_lab_internal.html_text(c.session_settings)), E'\n' ORDER BY c.ordinality)
        OPERATOR(pg_catalog.||) E'\n</table>\n'
        OPERATOR(pg_catalog.||) coalesce((SELECT '<p class="prov">' OPERATOR(pg_catalog.||)
                                                 pg_catalog.string_agg(pg_catalog.format('target %s: %s', t.n, pgbench_lab_internal.html_text(t.target_display)),
                                                                       '<br>' ORDER BY t.n)
                                                 OPERATOR(pg_catalog.||) E'</p>\n' FROM t), '')
      FROM pgbench_lab.compare(run_ids) WITH ORDINALITY AS c
      JOIN pgbench_lab.runs r ON r.run_id OPERATOR(pg_catalog.=) c.run_id
      LEFT JOIN t ON t.target_display OPERATOR(pg_catalog.=) r.target_display
$$;

-- One run or experiment: its heading, its figures, its charts and its
-- whole text report.
CREATE FUNCTION pgbench_lab_internal.html_section(id bigint)
RETURNS text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    e pgbench_lab.experiments;
    r pgbench_lab.runs;
    run_list pg_catalog.int8[];
    charts pg_catalog.text[] := '{}';
    m pg_catalog.text;
    out pg_catalog.text;
BEGIN
    SELECT * INTO e FROM pgbench_lab.experiments x WHERE x.experiment_id OPERATOR(pg_catalog.=) id;
    IF FOUND THEN
        SELECT pg_catalog.array_agg(x.run_id ORDER BY x.ordinal) INTO run_list
          FROM pgbench_lab.experiment_runs x WHERE x.experiment_id OPERATOR(pg_catalog.=) id;
        out := pg_catalog.format('<section id="e%s"><h2>Experiment %s: %s</h2>', id, id,
                                 pgbench_lab_internal.html_text(e.kind OPERATOR(pg_catalog.||)
                                     coalesce(', ' OPERATOR(pg_catalog.||) e.label, '')));
        IF e.kind OPERATOR(pg_catalog.=) ANY (ARRAY['sweep', 'latency_curve']) THEN
            charts := charts OPERATOR(pg_catalog.||) pgbench_lab_internal.html_plot(ARRAY[id], 'tps', true);
        ELSIF run_list IS NOT NULL THEN
            charts := charts OPERATOR(pg_catalog.||) pgbench_lab_internal.html_verdicts(id)
                             OPERATOR(pg_catalog.||) pgbench_lab_internal.html_plot(ARRAY[id], 'tps');
        END IF;
    ELSE
        SELECT * INTO r FROM pgbench_lab.runs x WHERE x.run_id OPERATOR(pg_catalog.=) id;
        run_list := ARRAY[id];
        out := pg_catalog.format('<section id="r%s"><h2>Run %s: %s</h2>', id, id,
                                 pgbench_lab_internal.html_text(r.workload OPERATOR(pg_catalog.||)
                                     coalesce(', ' OPERATOR(pg_catalog.||) r.label, '')));
        FOREACH m IN ARRAY ARRAY['tps', 'latency', 'cpu', 'waits', 'lag'] LOOP
            charts := charts OPERATOR(pg_catalog.||) pgbench_lab_internal.html_plot(ARRAY[id], m);
        END LOOP;
        charts := charts OPERATOR(pg_catalog.||) pgbench_lab_internal.html_standby_lag(id);
    END IF;
    out := out OPERATOR(pg_catalog.||) E'\n';
    IF run_list IS NOT NULL THEN
        out := out OPERATOR(pg_catalog.||) pgbench_lab_internal.html_runs_table(run_list);
    END IF;
    out := out OPERATOR(pg_catalog.||) CASE WHEN pg_catalog.array_to_string(charts, '') OPERATOR(pg_catalog.<>) ''
                   THEN '<div class="charts">' OPERATOR(pg_catalog.||) pg_catalog.array_to_string(charts, '')
                        OPERATOR(pg_catalog.||) '</div>' ELSE '' END
        OPERATOR(pg_catalog.||) '<details open><summary>The report</summary><pre>'
        OPERATOR(pg_catalog.||) (SELECT pg_catalog.string_agg(pgbench_lab_internal.html_text(l), E'\n')
                                   FROM pgbench_lab.report(id) AS l)
        OPERATOR(pg_catalog.||) E'</pre></details></section>\n';
    RETURN out;
END
$$;

CREATE FUNCTION pgbench_lab.report_html(ids bigint[])
RETURNS text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    id pg_catalog.int8;
    out pg_catalog.text;
BEGIN
    PERFORM pgbench_lab_internal.check_ids(ids, true);
    out := E'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        OPERATOR(pg_catalog.||) '<meta name="viewport" content="width=device-width, initial-scale=1">'
        OPERATOR(pg_catalog.||) pg_catalog.format('<title>pgbench_lab: %s</title>',
               pgbench_lab_internal.html_text(pg_catalog.array_to_string(ids, ', ')))
        OPERATOR(pg_catalog.||) '<style>'
           'body{font-family:"DejaVu Sans",Arial,sans-serif;margin:24px auto;max-width:1100px;color:#222;background:#fafafa}'
           'h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #ccc}'
           '.prov{color:#555;font-size:13px;margin:0 0 16px}'
           'table{border-collapse:collapse;font-size:12px;margin:8px 0;background:#fff}'
           'th,td{border:1px solid #ddd;padding:3px 6px;text-align:left;vertical-align:top}'
           'td.n{text-align:right;font-variant-numeric:tabular-nums}td.ok{color:#176c2e}td.bad{color:#b00020}'
           '.charts{display:grid;grid-template-columns:1fr 1fr;gap:12px;margin:12px 0}'
           'figure{margin:0;background:#fff;border:1px solid #e4e4e4}figure.wide{grid-column:1 / -1}'
           'figure svg{display:block;width:100%;height:auto}'
           'pre{background:#fff;border:1px solid #e4e4e4;padding:10px;font-size:12px;overflow-x:auto}'
           'summary{cursor:pointer;color:#333}'
           '</style></head><body>' OPERATOR(pg_catalog.||) E'\n'
        OPERATOR(pg_catalog.||) '<h1>pgbench_lab report</h1>'
        OPERATOR(pg_catalog.||) pg_catalog.format('<p class="prov">Read on %s (%s, database %s) at %s. '
               'Each run says where it was measured (server, path) and on which machine; '
               'figures from an imported run are the source server''s.</p>',
               pgbench_lab_internal.html_text(pgbench_lab_internal.server_name()),
               pgbench_lab_internal.html_text(pg_catalog.split_part(pg_catalog.version(), ' on ', 1)),
               pgbench_lab_internal.html_text(pg_catalog.current_database()),
               pg_catalog.to_char(pg_catalog.now(), 'YYYY-MM-DD HH24:MI:SS TZ'))
        OPERATOR(pg_catalog.||) E'\n';
    FOREACH id IN ARRAY ids LOOP
        out := out OPERATOR(pg_catalog.||) pgbench_lab_internal.html_section(id);
    END LOOP;
    RETURN out OPERATOR(pg_catalog.||) E'</body></html>\n';
END
$$;
COMMENT ON FUNCTION pgbench_lab.report_html(bigint[]) IS
    'One self-contained HTML page (inline CSS and SVG, nothing from a network) for runs and experiments: their figures, charts and whole reports';

GRANT EXECUTE ON FUNCTION pgbench_lab.report_html(bigint[]) TO pg_monitor;
