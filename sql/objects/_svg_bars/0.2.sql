-- petagen._svg_bars(...): a bar chart in the box (x, y, w, h): a group of
-- bars per category along the x axis (its name below it), in each a bar
-- per series coloured as in _svg_panel(), as <rect class="mark"> with a
-- tooltip, grid and y ticks, and a legend of the series right of the box
-- when there are several: runs compared at one setting.
CREATE OR REPLACE FUNCTION @extschema@._svg_bars(
    x integer, y integer, w integer, h integer, ylabel text,
    cats text[], series text[], ys double precision[], logy boolean DEFAULT false)
RETURNS text
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    yt double precision[];
    ylo double precision;
    yhi double precision;
    nc integer;
    ns integer;
    gw numeric;
    bw numeric;
    grid text;
    bars text;
    names text;
    keys text;
BEGIN
    SELECT min(v), max(v) INTO ylo, yhi FROM unnest(ys) AS v WHERE v IS NOT NULL AND (NOT logy OR v > 0);
    IF ylo IS NULL THEN
        RAISE EXCEPTION 'no data points to draw' USING ERRCODE = '22000';
    END IF;
    yt := @extschema@._svg_ticks(CASE WHEN logy THEN ylo ELSE least(0, ylo) END, yhi, logy);
    ylo := yt[1];
    yhi := yt[cardinality(yt)];
    SELECT count(DISTINCT c), count(DISTINCT s) INTO nc, ns FROM unnest(cats, series) AS u(c, s);
    ns := greatest(ns, 1);
    gw := round(w::numeric / nc, 1);
    bw := round(least(48, gw * 0.8 / ns), 1);

    SELECT string_agg(format('<line x1="%1$s" y1="%2$s" x2="%3$s" y2="%2$s" stroke="#e6e6e6"/>'
                             '<text x="%4$s" y="%5$s" text-anchor="end">%6$s</text>',
                             x, py, x + w, x - 6, py + 4, @extschema@._svg_number(t)),
                      E'\n' ORDER BY t)
      INTO grid
      FROM unnest(yt) AS t,
           LATERAL @extschema@._svg_scale(t, ylo, yhi, logy, y + h, y) AS py;

    WITH u AS (
        SELECT u.c, u.s, u.v, u.o,
               dense_rank() OVER (ORDER BY ci.first) AS ci,
               dense_rank() OVER (ORDER BY si.first) AS si
          FROM unnest(cats, series, ys) WITH ORDINALITY AS u(c, s, v, o)
               JOIN LATERAL (SELECT min(o2) AS first FROM unnest(cats) WITH ORDINALITY AS a(c2, o2)
                              WHERE a.c2 = u.c) AS ci ON true
               JOIN LATERAL (SELECT min(o2) AS first FROM unnest(series) WITH ORDINALITY AS a(s2, o2)
                              WHERE a.s2 IS NOT DISTINCT FROM u.s) AS si ON true
         WHERE u.v IS NOT NULL AND (NOT logy OR u.v > 0))
    SELECT string_agg(format('<rect class="mark" x="%s" y="%s" width="%s" height="%s" fill="%s"><title>%s</title></rect>',
                             round(x + (u.ci - 1) * gw + (gw - bw * ns) / 2 + (u.si - 1) * bw, 1), py,
                             bw, y + h - py, @extschema@._svg_color(u.si::integer),
                             @extschema@._svg_escape(concat_ws(' ', u.c, u.s) || ': '
                                                     || coalesce(ylabel, 'y') || ' = '
                                                     || @extschema@._svg_number(u.v, true))),
                      E'\n' ORDER BY u.ci, u.si, u.o)
      INTO bars
      FROM u, LATERAL @extschema@._svg_scale(u.v, ylo, yhi, logy, y + h, y) AS py;

    SELECT string_agg(format('<text x="%s" y="%s" text-anchor="middle">%s</text>',
                             round(x + (g.n - 0.5) * gw, 1), y + h + 18,
                             @extschema@._svg_escape(g.c, greatest(3, floor(gw / 7)::integer))),
                      E'\n' ORDER BY g.n)
      INTO names
      FROM (SELECT a.c, row_number() OVER (ORDER BY min(a.o)) AS n
              FROM unnest(cats) WITH ORDINALITY AS a(c, o) GROUP BY a.c) AS g;

    SELECT string_agg(format('<rect x="%s" y="%s" width="12" height="12" fill="%s"/><text x="%s" y="%s">%s</text>',
                             x + w + 14, y + 18 * g.n - 14, @extschema@._svg_color(g.n::integer),
                             x + w + 32, y + 18 * g.n - 4,
                             @extschema@._svg_escape(g.s, greatest(4, (756 - x - w) / 7))),
                      E'\n' ORDER BY g.n)
      INTO keys
      FROM (SELECT a.s, row_number() OVER (ORDER BY min(a.o)) AS n
              FROM unnest(series) WITH ORDINALITY AS a(s, o) WHERE a.s IS NOT NULL GROUP BY a.s) AS g
     WHERE ns > 1;

    RETURN concat_ws(E'\n', grid, bars, names,
        format('<rect x="%s" y="%s" width="%s" height="%s" fill="none" stroke="#888888"/>', x, y, w, h),
        CASE WHEN ylabel IS NOT NULL THEN
            format('<text transform="translate(%s,%s) rotate(-90)" text-anchor="middle">%s</text>',
                   x - 54, y + h / 2, @extschema@._svg_escape(ylabel, h / 7)) END,
        keys) || E'\n';
END
$$;
REVOKE ALL ON FUNCTION @extschema@._svg_bars(integer, integer, integer, integer, text, text[], text[], double precision[], boolean) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@._svg_bars(integer, integer, integer, integer, text, text[], text[], double precision[], boolean) TO pg_monitor, petagen_operator;
