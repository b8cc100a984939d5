-- petagen._svg_bands(x, y, w, h, lo, hi, labels, starts, ends): the spans
-- starts[i] .. ends[i] of an x axis from lo to hi, drawn across the box
-- (x, y, w, h) as tinted <rect class="phase"> with a tooltip, and a key of
-- the labels below the box, left of where _svg_panel() puts the x label:
-- the phases behind a chart over time.
CREATE OR REPLACE FUNCTION @extschema@._svg_bands(x integer, y integer, w integer, h integer,
    lo double precision, hi double precision,
    labels text[], starts double precision[], ends double precision[])
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
RETURN (SELECT string_agg(format('<rect class="phase" x="%s" y="%s" width="%s" height="%s" fill="%s"><title>%s</title></rect>',
                                 p.x0, y, p.x1 - p.x0, h, @extschema@._svg_tint(b.label),
                                 @extschema@._svg_escape(format('%s: %s to %s', b.label,
                                     @extschema@._svg_number(b.s0, true), @extschema@._svg_number(b.s1, true)))),
                          E'\n' ORDER BY b.o)
          FROM unnest(labels, starts, ends) WITH ORDINALITY AS b(label, s0, s1, o),
               LATERAL (SELECT @extschema@._svg_scale(b.s0, lo, hi, false, x, x + w),
                               @extschema@._svg_scale(b.s1, lo, hi, false, x, x + w)) AS p(x0, x1))
    || E'\n'
    || (SELECT string_agg(format('<rect x="%s" y="%s" width="12" height="12" fill="%s" stroke="#888888"/>'
                                 '<text x="%s" y="%s">%s</text>',
                                 k.kx, y + h + 26, @extschema@._svg_tint(k.label),
                                 k.kx + 16, y + h + 36, @extschema@._svg_escape(k.label, 11)),
                          E'\n' ORDER BY k.n)
          FROM (SELECT u.label, row_number() OVER (ORDER BY min(u.o)) AS n
                  FROM unnest(labels) WITH ORDINALITY AS u(label, o)
                 GROUP BY u.label) AS g,
               LATERAL (SELECT g.label, g.n,
                               x + CASE WHEN g.n <= 3 THEN 80 * (g.n - 1)
                                        ELSE w - 80 * (7 - g.n) END) AS k(label, n, kx)
         WHERE g.n <= 6)
    || E'\n';
REVOKE ALL ON FUNCTION @extschema@._svg_bands(integer, integer, integer, integer, double precision, double precision, text[], double precision[], double precision[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@._svg_bands(integer, integer, integer, integer, double precision, double precision, text[], double precision[], double precision[]) TO pg_monitor, petagen_operator;
