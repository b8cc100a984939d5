-- petagen.chart_matrix(ids): bench_matrix() as a heatmap of TPS, rows = node
-- sending the queries, columns = node holding the data; cells are
-- <rect class="cell">, pairs without a run <rect class="missing">.  Only
-- closed-loop runs are drawn: a paced run (target_rate) measures its
-- target, not what the pair can do, and is left out (the subtitle says so).
CREATE OR REPLACE FUNCTION @extschema@.chart_matrix(ids bigint[] DEFAULT NULL)
RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    ax constant integer := 170;
    ay constant integer := 90;
    aw constant integer := 460;
    ah constant integer := 330;
    nodes text[];
    targets text[];
    kinds text;
    tk double precision[];
    lo double precision;
    hi double precision;
    cw numeric;
    ch numeric;
    fs numeric;
    body text;
    closed bigint[];
    paced bigint;
BEGIN
    SELECT coalesce(array_agg(r.id) FILTER (WHERE r.target_rate IS NULL), '{}'),
           count(*) FILTER (WHERE r.target_rate IS NOT NULL)
      INTO closed, paced
      FROM @extschema@.bench_results AS r
     WHERE CASE WHEN ids IS NULL THEN r.kind = 'select' AND r.target_node <> 'cluster' ELSE r.id = ANY (ids) END;
    SELECT array_agg(DISTINCT b.node ORDER BY b.node), array_agg(DISTINCT b.target ORDER BY b.target),
           string_agg(DISTINCT b.kind, ', '), min(b.tps), max(b.tps)
      INTO nodes, targets, kinds, lo, hi
      FROM @extschema@.bench_matrix(closed) AS b;
    IF nodes IS NULL THEN
        RAISE EXCEPTION 'no benchmark runs for a node matrix' USING ERRCODE = '42704',
            HINT = CASE WHEN ids IS NULL
                        THEN 'Run petagen.bench(''select'', ...) on every node against every node''s leaves first.'
                        ELSE 'None of the ids is in petagen.bench_results.' END
                || CASE WHEN paced > 0 THEN format(' Paced runs (target_rate) are not drawn: %s left out.', paced) ELSE '' END;
    END IF;
    tk := @extschema@._svg_ticks(lo, hi);
    lo := tk[1];
    hi := tk[cardinality(tk)];
    cw := round(aw::numeric / cardinality(targets), 1);
    ch := round(ah::numeric / cardinality(nodes), 1);
    fs := round(least(14, ch / 2.5, cw / 4.5), 1);

    SELECT string_agg(CASE WHEN b.node IS NULL THEN
               format('<rect class="missing" x="%s" y="%s" width="%s" height="%s" fill="#eeeeee" stroke="#ffffff"><title>%s</title></rect>',
                      g.cx, g.cy, cw, ch,
                      @extschema@._svg_escape(format('%s to %s: no run', rn.node, cn.target)))
           ELSE
               format('<rect class="cell" x="%s" y="%s" width="%s" height="%s" fill="%s" stroke="#ffffff"><title>%s</title></rect>'
                      '<text x="%s" y="%s" text-anchor="middle" font-size="%s" fill="%s">%s</text>',
                      g.cx, g.cy, cw, ch, @extschema@._svg_ramp(g.t),
                      @extschema@._svg_escape(format('%s to %s: %s TPS, p99 %s us (%s run %s)',
                          b.node, b.target, @extschema@._svg_number(b.tps, true),
                          coalesce(@extschema@._svg_number(b.p99_us, true), '-'), b.kind, b.id)),
                      round(g.cx + cw / 2, 1), round(g.cy + ch / 2 + fs * 0.35, 1), fs,
                      CASE WHEN g.t < 0.6 THEN '#ffffff' ELSE '#000000' END,
                      @extschema@._svg_number(b.tps))
           END, E'\n' ORDER BY rn.r, cn.c)
      INTO body
      FROM unnest(nodes) WITH ORDINALITY AS rn(node, r)
           CROSS JOIN unnest(targets) WITH ORDINALITY AS cn(target, c)
           LEFT JOIN @extschema@.bench_matrix(closed) AS b ON b.node = rn.node AND b.target = cn.target
           CROSS JOIN LATERAL (SELECT ax + (cn.c - 1) * cw AS cx, ay + (rn.r - 1) * ch AS cy,
                                      CASE WHEN hi > lo THEN (b.tps - lo) / (hi - lo) ELSE 0.5 END AS t) AS g;

    body := body || E'\n' || concat_ws(E'\n',
        (SELECT string_agg(format('<text x="%s" y="%s" text-anchor="middle">%s</text>',
                                  round(ax + (c - 0.5) * cw, 1), ay - 8,
                                  @extschema@._svg_escape(t, greatest(3, floor(cw / 7.5)::integer))),
                           E'\n' ORDER BY c)
           FROM unnest(targets) WITH ORDINALITY AS u(t, c)),
        (SELECT string_agg(format('<text x="%s" y="%s" text-anchor="end">%s</text>',
                                  ax - 8, round(ay + (r - 0.5) * ch + 4, 1),
                                  @extschema@._svg_escape(n, 18)),
                           E'\n' ORDER BY r)
           FROM unnest(nodes) WITH ORDINALITY AS u(n, r)),
        format('<text x="%s" y="%s" text-anchor="middle" font-weight="bold">node holding the data</text>',
               ax + aw / 2, ay - 28),
        format('<text transform="translate(24,%s) rotate(-90)" text-anchor="middle" font-weight="bold">node sending the queries</text>',
               ay + ah / 2),
        '<defs><linearGradient id="petagen-ramp" x1="0" y1="1" x2="0" y2="0">'
        || (SELECT string_agg(format('<stop offset="%s%%" stop-color="%s"/>', i * 12.5,
                                     @extschema@._svg_ramp(i / 8.0)), '' ORDER BY i)
              FROM generate_series(0, 8) AS i)
        || '</linearGradient></defs>',
        format('<rect x="660" y="%s" width="18" height="%s" fill="url(#petagen-ramp)" stroke="#888888"/>',
               ay, ah),
        format('<text x="669" y="%s" text-anchor="middle">TPS</text>', ay - 8),
        (SELECT string_agg(format('<line x1="678" y1="%1$s" x2="683" y2="%1$s" stroke="#888888"/>'
                                  '<text x="686" y="%2$s">%3$s</text>',
                                  py, py + 4, @extschema@._svg_number(t)), E'\n' ORDER BY t)
           FROM unnest(tk) AS t,
                LATERAL @extschema@._svg_scale(t, lo, hi, false, ay + ah, ay) AS py)) || E'\n';

    RETURN @extschema@._svg_document('Node matrix: TPS by node and data location',
        format('latest closed-loop %s run per pair; the diagonal reads local leaves%s', kinds,
               CASE WHEN paced > 0 THEN format('; %s paced run%s (target_rate) left out', paced,
                                               CASE WHEN paced > 1 THEN 's' END) END), body);
END
$$;
COMMENT ON FUNCTION @extschema@.chart_matrix(bigint[]) IS
    'bench_matrix() as an SVG heatmap of TPS: rows the node sending the queries, columns the node holding the data';
REVOKE ALL ON FUNCTION @extschema@.chart_matrix(bigint[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.chart_matrix(bigint[]) TO pg_monitor, petagen_operator;
