-- report_html(): runs and experiments as one self-contained HTML page.
--
-- The page needs nothing from a network: its style is inline CSS and its
-- charts are plot()'s SVG documents (and two more drawn here: the A/B
-- ratios of a settings experiment with their ranges, a run's standby
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

-- A settings experiment's TPS ratios against set A, one row per set: the
-- median of its rounds as a dot, their range as a line, 1.0 marked; NULL
-- for other kinds.
CREATE FUNCTION pgbench_lab_internal.html_ratios(experiment_id bigint)
RETURNS text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    hi pg_catalog.float8;
    n pg_catalog.int4;
    h pg_catalog.int4;
    one pg_catalog.numeric;
    y pg_catalog.int4;
    range_text pg_catalog.text;
    body pg_catalog.text := '';
    s record;
    x0 CONSTANT pg_catalog.int4 := 260;
    w CONSTANT pg_catalog.int4 := 460;
BEGIN
    IF NOT EXISTS (SELECT FROM pgbench_lab.experiments e
                    WHERE e.experiment_id OPERATOR(pg_catalog.=) html_ratios.experiment_id
                      AND e.kind OPERATOR(pg_catalog.=) 'compare_settings') THEN
        RETURN NULL;
    END IF;
    SELECT pg_catalog.max(GREATEST(r.ratio_max, 1)) OPERATOR(pg_catalog.*) 1.1, pg_catalog.count(*)
      INTO hi, n
      FROM pgbench_lab.settings_ratios(html_ratios.experiment_id) r;
    IF n OPERATOR(pg_catalog.=) 0 OR hi IS NULL THEN
        RETURN NULL;
    END IF;
    h := 70 OPERATOR(pg_catalog.+) 30 OPERATOR(pg_catalog.*) n;
    one := pg_catalog.round(x0 OPERATOR(pg_catalog.+) w OPERATOR(pg_catalog./) hi);
    FOR s IN SELECT r.variant, r.name, r.rounds, r.ratio_median, r.ratio_min, r.ratio_max
               FROM pgbench_lab.settings_ratios(html_ratios.experiment_id) r ORDER BY r.variant LOOP
        y := 30 OPERATOR(pg_catalog.+) 30 OPERATOR(pg_catalog.*) s.variant;
        body := body OPERATOR(pg_catalog.||) pg_catalog.format(
            '<text x="%s" y="%s" text-anchor="end">%s</text>', x0 OPERATOR(pg_catalog.-) 10, y,
            pgbench_lab_internal.svg_escape(pg_catalog.left(pgbench_lab.printable(
                pg_catalog.chr(64 OPERATOR(pg_catalog.+) s.variant) OPERATOR(pg_catalog.||) ': '
                OPERATOR(pg_catalog.||) coalesce(s.name, '')), 36)));
        CONTINUE WHEN s.ratio_median IS NULL;
        range_text := pg_catalog.format('%s to %s', pgbench_lab_internal.fmt(s.ratio_min, 3),
                                        pgbench_lab_internal.fmt(s.ratio_max, 3));
        body := body OPERATOR(pg_catalog.||) pg_catalog.format(
            '<line x1="%s" x2="%s" y1="%s" y2="%s" stroke="#1f77b4" stroke-width="3"/>'
            '<circle cx="%s" cy="%s" r="5" fill="#1f77b4"><title>median %s, range %s over %s rounds</title></circle>'
            '<text x="%s" y="%s" font-size="11">%s (%s, %s rounds)</text>',
            pg_catalog.round(x0 OPERATOR(pg_catalog.+) w OPERATOR(pg_catalog.*) s.ratio_min OPERATOR(pg_catalog./) hi),
            pg_catalog.round(x0 OPERATOR(pg_catalog.+) w OPERATOR(pg_catalog.*) s.ratio_max OPERATOR(pg_catalog./) hi),
            y OPERATOR(pg_catalog.-) 4, y OPERATOR(pg_catalog.-) 4,
            pg_catalog.round(x0 OPERATOR(pg_catalog.+) w OPERATOR(pg_catalog.*) s.ratio_median OPERATOR(pg_catalog./) hi),
            y OPERATOR(pg_catalog.-) 4, pgbench_lab_internal.fmt(s.ratio_median, 3), range_text, s.rounds,
            x0 OPERATOR(pg_catalog.+) w OPERATOR(pg_catalog.+) 8, y,
            pgbench_lab_internal.fmt(s.ratio_median, 3), range_text, s.rounds) OPERATOR(pg_catalog.||) E'\n';
    END LOOP;
    RETURN '<figure class="wide">' OPERATOR(pg_catalog.||) pg_catalog.format(
               '<svg xmlns="http://www.w3.org/2000/svg" width="860" height="%s" viewBox="0 0 860 %s" '
               'font-family="DejaVu Sans, Arial, sans-serif" font-size="12">'
               '<rect x="0" y="0" width="860" height="%s" fill="#ffffff"/>'
               '<text x="430" y="20" text-anchor="middle" font-size="14">TPS of each set against set A, per round: median and range (experiment %s)</text>'
               '<line x1="%s" x2="%s" y1="34" y2="%s" stroke="#888" stroke-dasharray="4 3"/>'
               '<text x="%s" y="%s" text-anchor="middle" font-size="11">1.0 (as fast as A)</text>',
               h, h, h, html_ratios.experiment_id, one, one, h OPERATOR(pg_catalog.-) 24, one, h OPERATOR(pg_catalog.-) 10)
        OPERATOR(pg_catalog.||) E'\n' OPERATOR(pg_catalog.||) body OPERATOR(pg_catalog.||) '</svg></figure>' OPERATOR(pg_catalog.||) E'\n';
END
$$;

-- The key figures of runs as an HTML table (compare()'s columns), with
-- where and how each was measured.
CREATE FUNCTION pgbench_lab_internal.html_runs_table(run_ids bigint[])
RETURNS text LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT '<table><tr><th>run</th><th>label</th><th>server</th><th>path</th><th>workload</th>'
           '<th>clients</th><th>scale</th><th>status</th><th>seconds</th><th>TPS</th>'
           '<th>latency avg (ms)</th><th>latency p99 (ms)</th><th>hit ratio (%)</th>'
           '<th>CPU busy (%)</th><th>session settings</th></tr>' OPERATOR(pg_catalog.||) E'\n'
        OPERATOR(pg_catalog.||) pg_catalog.string_agg(pg_catalog.format(
            '<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td class="n">%s</td><td class="n">%s</td>'
            '<td class="%s">%s</td><td class="n">%s</td><td class="n">%s</td><td class="n">%s</td>'
            '<td class="n">%s</td><td class="n">%s</td><td class="n">%s</td><td>%s</td></tr>',
            c.run_id, pgbench_lab_internal.html_text(c.label), pgbench_lab_internal.html_text(c.server),
            pgbench_lab_internal.html_text(c.via), pgbench_lab_internal.html_text(c.workload),
            c.clients, coalesce(c.scale::pg_catalog.text, ''),
            CASE WHEN c.status OPERATOR(pg_catalog.=) 'done' THEN 'ok' ELSE 'bad' END,
            pgbench_lab_internal.html_text(c.status),
            coalesce(c.seconds::pg_catalog.text, ''), coalesce(c.tps::pg_catalog.text, ''),
            coalesce(c.latency_avg_ms::pg_catalog.text, ''), coalesce(c.latency_p99_ms::pg_catalog.text, ''),
            coalesce(c.hit_ratio_pct::pg_catalog.text, ''), coalesce(c.cpu_busy_pct::pg_catalog.text, ''),
            pgbench_lab_internal.html_text(c.session_settings)), E'\n')
        OPERATOR(pg_catalog.||) E'\n</table>\n'
      FROM pgbench_lab.compare(run_ids) c
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
            charts := charts OPERATOR(pg_catalog.||) pgbench_lab_internal.html_ratios(id)
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
