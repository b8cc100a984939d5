-- petagen._svg_panel(...): a line chart in the box (x, y, w, h): grid, ticks,
-- axis labels, per series a line and its points as <circle class="mark">
-- with a tooltip, and a legend right of the box (as many series as fit,
-- then how many more).  Points a log axis cannot show are left out.
-- xticks: the x ticks to use (the x axis then gets a margin); xmin, ymin:
-- a value the axis must reach (0 for rates and time).
CREATE OR REPLACE FUNCTION @extschema@._svg_panel(
    x integer, y integer, w integer, h integer,
    xlabel text, ylabel text,
    series text[], xs double precision[], ys double precision[],
    logx boolean DEFAULT false, logy boolean DEFAULT false,
    xticks double precision[] DEFAULT NULL, xmin double precision DEFAULT NULL,
    ymin double precision DEFAULT NULL, legend boolean DEFAULT true)
RETURNS text
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    pad integer := CASE WHEN xticks IS NULL THEN 0 ELSE w / 25 END;
    xt double precision[];
    yt double precision[];
    xlo double precision;
    xhi double precision;
    ylo double precision;
    yhi double precision;
    grid text;
    ticks text;
    lines text;
    keys text;
    room integer := greatest(h / 18, 2);
    series_n integer;
BEGIN
    SELECT min(px), max(px), min(py), max(py) INTO xlo, xhi, ylo, yhi
      FROM unnest(xs, ys) AS p(px, py)
     WHERE px IS NOT NULL AND py IS NOT NULL
       AND (NOT logx OR px > 0) AND (NOT logy OR py > 0);
    IF xlo IS NULL THEN
        RAISE EXCEPTION 'no data points to draw' USING ERRCODE = '22000';
    END IF;
    xt := coalesce(xticks, @extschema@._svg_ticks(CASE WHEN logx THEN xlo ELSE least(xmin, xlo) END,
                                                 xhi, logx));
    yt := @extschema@._svg_ticks(CASE WHEN logy THEN ylo ELSE least(ymin, ylo) END, yhi, logy);
    xlo := xt[1];
    xhi := xt[cardinality(xt)];
    ylo := yt[1];
    yhi := yt[cardinality(yt)];

    SELECT string_agg(format('<line x1="%1$s" y1="%2$s" x2="%3$s" y2="%2$s" stroke="#e6e6e6"/>'
                             '<text x="%4$s" y="%5$s" text-anchor="end">%6$s</text>',
                             x, py, x + w, x - 6, py + 4, @extschema@._svg_number(t)),
                      E'\n' ORDER BY t)
      INTO grid
      FROM unnest(yt) AS t,
           LATERAL @extschema@._svg_scale(t, ylo, yhi, logy, y + h, y) AS py;
    SELECT string_agg(format('<line x1="%1$s" y1="%2$s" x2="%1$s" y2="%3$s" stroke="#888888"/>'
                             '<text x="%1$s" y="%4$s" text-anchor="middle">%5$s</text>',
                             px, y + h, y + h + 5, y + h + 18, @extschema@._svg_number(t)),
                      E'\n' ORDER BY t)
      INTO ticks
      FROM unnest(xt) AS t,
           LATERAL @extschema@._svg_scale(t, xlo, xhi, logx, x + pad, x + w - pad) AS px;

    WITH p AS (
        SELECT u.s, u.px, u.py, u.o
          FROM unnest(series, xs, ys) WITH ORDINALITY AS u(s, px, py, o)
         WHERE u.px IS NOT NULL AND u.py IS NOT NULL
           AND (NOT logx OR u.px > 0) AND (NOT logy OR u.py > 0)),
    k AS (
        SELECT p.s, row_number() OVER (ORDER BY min(p.o))::integer AS i
          FROM p GROUP BY p.s),
    q AS (
        SELECT k.i, p.s, p.px, p.py, p.o, @extschema@._svg_color(k.i) AS color,
               @extschema@._svg_scale(p.px, xlo, xhi, logx, x + pad, x + w - pad) AS cx,
               @extschema@._svg_scale(p.py, ylo, yhi, logy, y + h, y) AS cy
          FROM p JOIN k ON k.s IS NOT DISTINCT FROM p.s),
    d AS (
        SELECT q.i, q.s, q.color,
               CASE WHEN count(*) > 1 THEN
                   format('<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>' || E'\n',
                          q.color, string_agg(q.cx || ',' || q.cy, ' ' ORDER BY q.px, q.o))
               ELSE '' END
               || string_agg(format('<circle class="mark" cx="%s" cy="%s" r="4" fill="%s"><title>%s</title></circle>',
                                    q.cx, q.cy, q.color,
                                    @extschema@._svg_escape(concat(
                                        q.s || ': ', coalesce(xlabel, 'x'), ' = ',
                                        @extschema@._svg_number(q.px, true), ', ', coalesce(ylabel, 'y'),
                                        ' = ', @extschema@._svg_number(q.py, true)))),
                             E'\n' ORDER BY q.px, q.o) AS drawn
          FROM q GROUP BY q.i, q.s, q.color),
    g AS (SELECT d.*, count(*) OVER ()::integer AS n FROM d)
    SELECT string_agg(g.drawn, E'\n' ORDER BY g.i),
           string_agg(format('<line x1="%1$s" y1="%2$s" x2="%3$s" y2="%2$s" stroke="%4$s" stroke-width="2"/>'
                             '<circle cx="%5$s" cy="%2$s" r="4" fill="%4$s"/><text x="%6$s" y="%7$s">%8$s</text>',
                             x + w + 14, y + 18 * g.i - 8, x + w + 38, g.color, x + w + 26,
                             x + w + 44, y + 18 * g.i - 4,
                             @extschema@._svg_escape(g.s, greatest(4, (756 - x - w) / 7))),
                      E'\n' ORDER BY g.i) FILTER (WHERE legend AND g.s IS NOT NULL
                                                 AND (g.i < room OR g.n <= room)),
           max(g.n)
      INTO lines, keys, series_n
      FROM g;

    RETURN concat_ws(E'\n', grid, ticks,
        format('<rect x="%s" y="%s" width="%s" height="%s" fill="none" stroke="#888888"/>', x, y, w, h),
        CASE WHEN xlabel IS NOT NULL THEN
            format('<text x="%s" y="%s" text-anchor="middle">%s</text>',
                   x + w / 2, y + h + 36, @extschema@._svg_escape(xlabel, 80)) END,
        CASE WHEN ylabel IS NOT NULL THEN
            format('<text transform="translate(%s,%s) rotate(-90)" text-anchor="middle">%s</text>',
                   x - 54, y + h / 2, @extschema@._svg_escape(ylabel, h / 7)) END,
        lines, keys,
        CASE WHEN legend AND series_n > room THEN
            format('<text x="%s" y="%s">+ %s more</text>',
                   x + w + 14, y + 18 * room - 4, series_n - room + 1) END) || E'\n';
END
$$;
REVOKE ALL ON FUNCTION @extschema@._svg_panel(integer, integer, integer, integer, text, text, text[], double precision[], double precision[], boolean, boolean, double precision[], double precision, double precision, boolean) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@._svg_panel(integer, integer, integer, integer, text, text, text[], double precision[], double precision[], boolean, boolean, double precision[], double precision, double precision, boolean) TO pg_monitor, petagen_operator;
