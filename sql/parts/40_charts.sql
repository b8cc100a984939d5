
-- Pictures ----------------------------------------------------------------
-- Charts are standalone SVG documents, 800 x 480 and ASCII only, drawn from
-- petagen.bench_results and petagen.progress_log.  The chart_* functions only
-- gather data; all SVG comes from the svg_* helpers below (svg_panel draws a
-- line chart; chart_matrix draws its heatmap cells itself).  Every label is
-- user data and goes through svg_escape().

-- petagen.svg_escape(s, maxlen): s as XML text, non-ASCII as character
-- references; longer than maxlen characters, its middle becomes an ellipsis
-- (node names often differ only at their end).
CREATE FUNCTION @extschema@.svg_escape(s text, maxlen integer DEFAULT NULL)
RETURNS text
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    keep integer := greatest(maxlen, 2) - 1;
    out text;
BEGIN
    IF maxlen IS NOT NULL AND length(s) > keep + 1 THEN
        RETURN @extschema@.svg_escape(left(s, (keep + 1) / 2)) || '&#8230;'
               || @extschema@.svg_escape(right(s, keep / 2));
    END IF;
    SELECT string_agg(CASE
               WHEN c = '&' THEN '&amp;'
               WHEN c = '<' THEN '&lt;'
               WHEN c = '>' THEN '&gt;'
               WHEN c = '"' THEN '&quot;'
               WHEN c = '''' THEN '&#39;'
               WHEN ascii(c) < 32 OR ascii(c) = 127 THEN ' '
               WHEN ascii(c) IN (65534, 65535) THEN '?'
               WHEN ascii(c) > 126 THEN '&#' || ascii(c) || ';'
               ELSE c END, '' ORDER BY o)
      INTO out
      FROM regexp_split_to_table(s, '') WITH ORDINALITY AS t(c, o);
    RETURN coalesce(out, '');
END
$$;

-- petagen.svg_number(v, exact): a tick or cell label (3 significant digits,
-- k/M/G/T suffix), or with exact, the value to 2 decimals.
CREATE FUNCTION @extschema@.svg_number(v double precision, exact boolean DEFAULT false)
RETURNS text
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    a double precision := abs(v);
    div double precision := 1;
    suffix text := '';
    digits integer := CASE WHEN exact THEN 2 ELSE 0 END;
BEGIN
    IF NOT exact AND a >= 1e3 THEN
        SELECT d, x INTO div, suffix
          FROM (VALUES (1e12, 'T'), (1e9, 'G'), (1e6, 'M'), (1e3, 'k')) AS s(d, x)
         WHERE a >= d ORDER BY d DESC LIMIT 1;
        a := a / div;
    END IF;
    IF a > 0 THEN
        digits := greatest(digits, least(12, 2 - floor(log(a))::integer));
    END IF;
    RETURN trim_scale(round((v / div)::numeric, digits))::text || suffix;
END
$$;

-- petagen.svg_ticks(lo, hi, log): nice axis ticks (1, 2, 5 x 10^k steps, or
-- decades on a log axis) from the last tick <= lo to the first tick >= hi.
CREATE FUNCTION @extschema@.svg_ticks(lo double precision, hi double precision,
    log boolean DEFAULT false)
RETURNS double precision[]
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    raw double precision;
    step double precision;
    d0 integer;
    d1 integer;
    t double precision[];
BEGIN
    IF log THEN
        d0 := floor(log(lo));
        d1 := greatest(ceil(log(hi)), d0 + 1);
        t := ARRAY(SELECT m * 10.0 ^ d
                     FROM generate_series(d0, d1) AS d,
                          unnest(CASE WHEN d1 - d0 >= 3 THEN '{1}'::float8[]
                                      ELSE '{1,2,5}'::float8[] END) AS m
                    ORDER BY 1);
        RETURN t[(SELECT max(i) FROM generate_subscripts(t, 1) i WHERE t[i] <= lo * (1 + 1e-9))
                 : (SELECT min(i) FROM generate_subscripts(t, 1) i WHERE t[i] >= hi * (1 - 1e-9))];
    END IF;
    IF hi <= lo THEN
        lo := lo - greatest(abs(lo) * 0.1, 1);
        hi := hi + greatest(abs(hi) * 0.1, 1);
    END IF;
    raw := (hi - lo) / 5;
    step := 10.0 ^ floor(log(raw));
    step := step * CASE WHEN raw / step <= 1 THEN 1 WHEN raw / step <= 2 THEN 2
                        WHEN raw / step <= 5 THEN 5 ELSE 10 END;
    RETURN ARRAY(SELECT i * step
                   FROM generate_series(floor(lo / step * (1 + 1e-12))::bigint,
                                        ceil(hi / step * (1 - 1e-12))::bigint) AS i);
END
$$;

-- petagen.svg_scale(v, lo, hi, log, p0, p1): the pixel of value v on an axis
-- mapping lo .. hi to p0 .. p1.
CREATE FUNCTION @extschema@.svg_scale(v double precision, lo double precision,
    hi double precision, log boolean, p0 double precision, p1 double precision)
RETURNS numeric
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
RETURN round((CASE
    WHEN hi = lo THEN (p0 + p1) / 2
    WHEN log THEN p0 + (ln(v) - ln(lo)) / (ln(hi) - ln(lo)) * (p1 - p0)
    ELSE p0 + (v - lo) / (hi - lo) * (p1 - p0) END)::numeric, 1);

-- petagen.svg_color(i): colour i (1, 2, ...): the 7 colours of a palette
-- safe for colour-blind readers, then hues a golden angle apart in three
-- lightnesses, so that any number of series get distinct colours.
CREATE FUNCTION @extschema@.svg_color(i integer)
RETURNS text
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    h double precision := ((i - 8) * 137.508 + 270)::numeric % 360;
    l double precision := (ARRAY[0.42, 0.30, 0.55])[1 + (i - 8) % 3];
    a double precision := 0.75 * least(l, 1 - l);
BEGIN
    IF i <= 7 THEN
        RETURN ('{#0072b2,#d55e00,#009e73,#cc79a7,#e69f00,#56b4e9,#000000}'::text[])
               [1 + ((i - 1) % 7 + 7) % 7];
    END IF;
    RETURN '#' || (SELECT string_agg(lpad(to_hex(round(255 * (l - a * greatest(-1, least(k - 3, 9 - k, 1))))::integer), 2, '0'),
                                     '' ORDER BY n)
                     FROM unnest('{0,8,4}'::integer[]) WITH ORDINALITY AS c(n0, n),
                          LATERAL (SELECT ((n0 + h / 30)::numeric % 12)::float8) AS x(k));
END
$$;

-- petagen.svg_ramp(t): the colour of t in 0 .. 1 on the viridis scale.
CREATE FUNCTION @extschema@.svg_ramp(t double precision)
RETURNS text
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    stops integer[] := '{{68,1,84},{59,82,139},{33,145,140},{94,201,98},{253,231,37}}';
    seg integer;
    f double precision;
BEGIN
    t := least(greatest(t, 0), 1);
    seg := least(floor(t * 4)::integer, 3) + 1;
    f := t * 4 - (seg - 1);
    RETURN '#' || (SELECT string_agg(lpad(to_hex(round(stops[seg][c]
                                   + (stops[seg + 1][c] - stops[seg][c]) * f)::integer), 2, '0'), '' ORDER BY c)
                     FROM generate_series(1, 3) AS c);
END
$$;

-- petagen.svg_document(title, subtitle, body): the whole 800 x 480 picture.
CREATE FUNCTION @extschema@.svg_document(title text, subtitle text, body text)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
RETURN format(
    '<svg xmlns="http://www.w3.org/2000/svg" width="800" height="480" viewBox="0 0 800 480"'
    ' font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="12" fill="#222222">' || E'\n'
    '<title>%s</title>' || E'\n'
    '<rect width="800" height="480" fill="#ffffff"/>' || E'\n'
    '<text x="400" y="24" text-anchor="middle" font-size="16" font-weight="bold">%s</text>' || E'\n'
    '%s%s</svg>' || E'\n',
    @extschema@.svg_escape(title), @extschema@.svg_escape(title, 80),
    CASE WHEN subtitle IS NOT NULL THEN
        format('<text x="400" y="42" text-anchor="middle" fill="#555555">%s</text>' || E'\n',
               @extschema@.svg_escape(subtitle, 110))
    ELSE '' END,
    body);


-- petagen.svg_tint(phase): the background colour of a job's phase.
CREATE FUNCTION @extschema@.svg_tint(phase text)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
RETURN CASE phase WHEN 'routing' THEN '#fbe3c4' WHEN 'loading' THEN '#e6f0fa'
                  WHEN 'indexing' THEN '#dcefe2' ELSE '#e4e4e4' END;

-- petagen.svg_bands(x, y, w, h, lo, hi, labels, starts, ends): the spans
-- starts[i] .. ends[i] of an x axis from lo to hi, drawn across the box
-- (x, y, w, h) as tinted <rect class="phase"> with a tooltip, and a key of
-- the labels below the box, left of where svg_panel() puts the x label:
-- the phases behind a chart over time.
CREATE FUNCTION @extschema@.svg_bands(x integer, y integer, w integer, h integer,
    lo double precision, hi double precision,
    labels text[], starts double precision[], ends double precision[])
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
RETURN (SELECT string_agg(format('<rect class="phase" x="%s" y="%s" width="%s" height="%s" fill="%s"><title>%s</title></rect>',
                                 p.x0, y, p.x1 - p.x0, h, @extschema@.svg_tint(b.label),
                                 @extschema@.svg_escape(format('%s: %s to %s', b.label,
                                     @extschema@.svg_number(b.s0, true), @extschema@.svg_number(b.s1, true)))),
                          E'\n' ORDER BY b.o)
          FROM unnest(labels, starts, ends) WITH ORDINALITY AS b(label, s0, s1, o),
               LATERAL (SELECT @extschema@.svg_scale(b.s0, lo, hi, false, x, x + w),
                               @extschema@.svg_scale(b.s1, lo, hi, false, x, x + w)) AS p(x0, x1))
    || E'\n'
    || (SELECT string_agg(format('<rect x="%s" y="%s" width="12" height="12" fill="%s" stroke="#888888"/>'
                                 '<text x="%s" y="%s">%s</text>',
                                 k.kx, y + h + 26, @extschema@.svg_tint(k.label),
                                 k.kx + 16, y + h + 36, @extschema@.svg_escape(k.label, 9)),
                          E'\n' ORDER BY k.n)
          FROM (SELECT u.label, row_number() OVER (ORDER BY min(u.o)) AS n
                  FROM unnest(labels) WITH ORDINALITY AS u(label, o)
                 GROUP BY u.label) AS g,
               LATERAL (SELECT g.label, g.n,
                               x + CASE WHEN g.n <= 3 THEN 80 * (g.n - 1)
                                        ELSE w - 80 * (7 - g.n) END) AS k(label, n, kx)
         WHERE g.n <= 6)
    || E'\n';

-- petagen.svg_panel(...): a line chart in the box (x, y, w, h): grid, ticks,
-- axis labels, per series a line and its points as <circle class="mark">
-- with a tooltip, and a legend right of the box (as many series as fit,
-- then how many more).  Points a log axis cannot show are left out.
-- xticks: the x ticks to use (the x axis then gets a margin); xmin, ymin:
-- a value the axis must reach (0 for rates and time).
CREATE FUNCTION @extschema@.svg_panel(
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
    xt := coalesce(xticks, @extschema@.svg_ticks(CASE WHEN logx THEN xlo ELSE least(xmin, xlo) END,
                                                 xhi, logx));
    yt := @extschema@.svg_ticks(CASE WHEN logy THEN ylo ELSE least(ymin, ylo) END, yhi, logy);
    xlo := xt[1];
    xhi := xt[cardinality(xt)];
    ylo := yt[1];
    yhi := yt[cardinality(yt)];

    SELECT string_agg(format('<line x1="%1$s" y1="%2$s" x2="%3$s" y2="%2$s" stroke="#e6e6e6"/>'
                             '<text x="%4$s" y="%5$s" text-anchor="end">%6$s</text>',
                             x, py, x + w, x - 6, py + 4, @extschema@.svg_number(t)),
                      E'\n' ORDER BY t)
      INTO grid
      FROM unnest(yt) AS t,
           LATERAL @extschema@.svg_scale(t, ylo, yhi, logy, y + h, y) AS py;
    SELECT string_agg(format('<line x1="%1$s" y1="%2$s" x2="%1$s" y2="%3$s" stroke="#888888"/>'
                             '<text x="%1$s" y="%4$s" text-anchor="middle">%5$s</text>',
                             px, y + h, y + h + 5, y + h + 18, @extschema@.svg_number(t)),
                      E'\n' ORDER BY t)
      INTO ticks
      FROM unnest(xt) AS t,
           LATERAL @extschema@.svg_scale(t, xlo, xhi, logx, x + pad, x + w - pad) AS px;

    WITH p AS (
        SELECT u.s, u.px, u.py, u.o
          FROM unnest(series, xs, ys) WITH ORDINALITY AS u(s, px, py, o)
         WHERE u.px IS NOT NULL AND u.py IS NOT NULL
           AND (NOT logx OR u.px > 0) AND (NOT logy OR u.py > 0)),
    k AS (
        SELECT p.s, row_number() OVER (ORDER BY min(p.o))::integer AS i
          FROM p GROUP BY p.s),
    q AS (
        SELECT k.i, p.s, p.px, p.py, p.o, @extschema@.svg_color(k.i) AS color,
               @extschema@.svg_scale(p.px, xlo, xhi, logx, x + pad, x + w - pad) AS cx,
               @extschema@.svg_scale(p.py, ylo, yhi, logy, y + h, y) AS cy
          FROM p JOIN k ON k.s IS NOT DISTINCT FROM p.s),
    d AS (
        SELECT q.i, q.s, q.color,
               CASE WHEN count(*) > 1 THEN
                   format('<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>' || E'\n',
                          q.color, string_agg(q.cx || ',' || q.cy, ' ' ORDER BY q.px, q.o))
               ELSE '' END
               || string_agg(format('<circle class="mark" cx="%s" cy="%s" r="4" fill="%s"><title>%s</title></circle>',
                                    q.cx, q.cy, q.color,
                                    @extschema@.svg_escape(concat(
                                        q.s || ': ', coalesce(xlabel, 'x'), ' = ',
                                        @extschema@.svg_number(q.px, true), ', ', coalesce(ylabel, 'y'),
                                        ' = ', @extschema@.svg_number(q.py, true)))),
                             E'\n' ORDER BY q.px, q.o) AS drawn
          FROM q GROUP BY q.i, q.s, q.color),
    g AS (SELECT d.*, count(*) OVER ()::integer AS n FROM d)
    SELECT string_agg(g.drawn, E'\n' ORDER BY g.i),
           string_agg(format('<line x1="%1$s" y1="%2$s" x2="%3$s" y2="%2$s" stroke="%4$s" stroke-width="2"/>'
                             '<circle cx="%5$s" cy="%2$s" r="4" fill="%4$s"/><text x="%6$s" y="%7$s">%8$s</text>',
                             x + w + 14, y + 18 * g.i - 8, x + w + 38, g.color, x + w + 26,
                             x + w + 44, y + 18 * g.i - 4,
                             @extschema@.svg_escape(g.s, greatest(4, (756 - x - w) / 7))),
                      E'\n' ORDER BY g.i) FILTER (WHERE legend AND g.s IS NOT NULL
                                                 AND (g.i < room OR g.n <= room)),
           max(g.n)
      INTO lines, keys, series_n
      FROM g;

    RETURN concat_ws(E'\n', grid, ticks,
        format('<rect x="%s" y="%s" width="%s" height="%s" fill="none" stroke="#888888"/>', x, y, w, h),
        CASE WHEN xlabel IS NOT NULL THEN
            format('<text x="%s" y="%s" text-anchor="middle">%s</text>',
                   x + w / 2, y + h + 36, @extschema@.svg_escape(xlabel, 80)) END,
        CASE WHEN ylabel IS NOT NULL THEN
            format('<text transform="translate(%s,%s) rotate(-90)" text-anchor="middle">%s</text>',
                   x - 54, y + h / 2, @extschema@.svg_escape(ylabel, h / 7)) END,
        lines, keys,
        CASE WHEN legend AND series_n > room THEN
            format('<text x="%s" y="%s">+ %s more</text>',
                   x + w + 14, y + 18 * room - 4, series_n - room + 1) END) || E'\n';
END
$$;

-- petagen.chart_bench(ids, metric, title): TPS ('tps') or latency
-- percentiles ('latency') vs workers of benchmark runs, a series per kind
-- (and per node and target node where the runs differ in them).
CREATE FUNCTION @extschema@.chart_bench(ids bigint[], metric text DEFAULT 'tps',
    title text DEFAULT NULL)
RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    n bigint;
    nodes bigint;
    targets bigint;
    about text;
    ws double precision[];
    s text[];
    xs double precision[];
    ys double precision[];
    logy boolean;
BEGIN
    IF ids IS NULL OR metric IS NULL THEN
        RAISE EXCEPTION 'argument "%" of petagen.chart_bench() must not be null',
            CASE WHEN ids IS NULL THEN 'ids' ELSE 'metric' END USING ERRCODE = '22004';
    END IF;
    IF metric NOT IN ('tps', 'latency') THEN
        RAISE EXCEPTION 'unknown chart metric "%"', metric USING ERRCODE = '22023',
            HINT = 'Use "tps" (TPS vs workers) or "latency" (latency percentiles vs workers).';
    END IF;
    SELECT count(*), count(DISTINCT r.node), count(DISTINCT r.target_node),
           format('%s on %s, node %s, %s per run',
                  string_agg(DISTINCT r.kind, ', '), string_agg(DISTINCT r."table", ', '),
                  string_agg(DISTINCT r.node, ', '), string_agg(DISTINCT trim_scale(extract(epoch FROM r.duration)) || ' s', ', ')),
           array_agg(DISTINCT r.workers::double precision ORDER BY r.workers::double precision)
      INTO n, nodes, targets, about, ws
      FROM @extschema@.bench_results AS r
     WHERE r.id = ANY (ids);
    IF n = 0 THEN
        RAISE EXCEPTION 'no benchmark runs with ids %', ids USING ERRCODE = '42704',
            HINT = 'Run petagen.bench() or petagen.bench_sweep() first; the ids are those of petagen.bench_results.';
    END IF;

    SELECT array_agg(concat_ws(' ', b.series, v.pct) ORDER BY b.series, v.o, b.workers, b.id),
           array_agg(b.workers::double precision ORDER BY b.series, v.o, b.workers, b.id),
           array_agg(v.val ORDER BY b.series, v.o, b.workers, b.id)
      INTO s, xs, ys
      FROM (SELECT r.*, concat_ws(' ', r.kind,
                                  CASE WHEN nodes > 1 THEN 'from ' || r.node END,
                                  CASE WHEN targets > 1 THEN 'to ' || r.target_node END) AS series
              FROM @extschema@.bench_results AS r
             WHERE r.id = ANY (ids)) AS b,
           LATERAL (VALUES (0, NULL, b.tps), (1, 'p50', b.p50_us), (2, 'p95', b.p95_us),
                           (3, 'p99', b.p99_us), (4, 'p99.9', b.p999_us)) AS v(o, pct, val)
     WHERE (v.o = 0) = (metric = 'tps') AND v.val IS NOT NULL;
    IF s IS NULL THEN
        RAISE EXCEPTION 'benchmark runs % recorded no latency percentiles', ids
            USING ERRCODE = '55000', HINT = 'Chart their TPS with metric => ''tps''.';
    END IF;
    logy := metric = 'latency'
            AND (SELECT max(v) / nullif(min(v), 0) >= 20 FROM unnest(ys) AS v WHERE v > 0);

    RETURN @extschema@.svg_document(
        coalesce(title, CASE metric WHEN 'tps' THEN 'TPS vs workers'
                                    ELSE 'Latency percentiles vs workers' END),
        about,
        @extschema@.svg_panel(90, 60, 540, 360, 'workers',
            CASE metric WHEN 'tps' THEN 'TPS (operations/s)'
                        ELSE 'latency (' || chr(181) || 's)' END,
            s, xs, ys,
            logx => ws[1] > 0 AND ws[cardinality(ws)] / ws[1] >= 8,
            logy => coalesce(logy, false),
            xticks => CASE WHEN cardinality(ws) <= 12 THEN ws END,
            ymin => CASE metric WHEN 'tps' THEN 0 END));
END
$$;

-- petagen.chart_sweep(sweep, metric): chart_bench() of the runs of one
-- bench_sweep(); the id of a single bench() run is not a sweep.
CREATE FUNCTION @extschema@.chart_sweep(sweep bigint, metric text DEFAULT 'tps')
RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    ids bigint[];
BEGIN
    IF sweep IS NULL THEN
        RAISE EXCEPTION 'argument "sweep" of petagen.chart_sweep() must not be null'
            USING ERRCODE = '22004';
    END IF;
    ids := ARRAY(SELECT r.id FROM @extschema@.bench_results AS r
                  WHERE r.sweep = chart_sweep.sweep ORDER BY r.id);
    IF cardinality(ids) = 0 THEN
        RAISE EXCEPTION 'benchmark sweep % does not exist', sweep USING ERRCODE = '42704',
            HINT = CASE WHEN EXISTS (SELECT FROM @extschema@.bench_results AS r WHERE r.id = chart_sweep.sweep)
                        THEN format('Run %s is a single petagen.bench() run, not a sweep: draw it with petagen.chart_bench(''{%s}'').', sweep, sweep)
                        ELSE 'Run petagen.bench_sweep() first: it returns the sweep id, the sweep column of petagen.bench_results.' END;
    END IF;
    RETURN @extschema@.chart_bench(ids, metric,
        format('Sweep %s: %s', sweep, CASE metric WHEN 'latency' THEN 'latency percentiles vs workers'
                                                  ELSE 'TPS vs workers' END));
END
$$;

-- petagen.load_rates(job): a load job's progress_log rows with their rates.
-- Each row's rates count the rows written over the window that ends at it
-- and spans the time since the previous row, or the job's median time
-- between rows if that is longer (cumulative counts are interpolated
-- linearly inside the window's first interval): a row logged moments after
-- the one before it is not credited with work done before that one.
-- Drops (work rolled back by a stop) count as no progress.  phase: what
-- the job was doing (progress_log.phase).
CREATE FUNCTION @extschema@.load_rates(job bigint)
RETURNS TABLE(logged_at timestamptz, seconds double precision, rows_written bigint,
              bytes bigint, rows_per_s double precision, mb_per_s double precision,
              phase text)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
BEGIN ATOMIC
    WITH o AS (
        SELECT least(j.created_at, (SELECT min(l.logged_at) FROM @extschema@.progress_log AS l
                                     WHERE l.job = j.job)) AS origin
          FROM @extschema@.jobs AS j
         WHERE j.job = load_rates.job),
    p AS (
        SELECT NULL::timestamptz AS at, 0::float8 AS sec, 0::bigint AS r, 0::bigint AS b,
               NULL::text AS ph FROM o
        UNION ALL
        SELECT l.logged_at, extract(epoch FROM l.logged_at - o.origin)::float8, l.rows_written, l.bytes,
               l.phase
          FROM @extschema@.progress_log AS l, o
         WHERE l.job = load_rates.job),
    s AS (
        SELECT p.*, lead(p.sec) OVER w AS sec2, lead(p.r) OVER w AS r2, lead(p.b) OVER w AS b2,
               p.sec - lag(p.sec) OVER w AS gap
          FROM p
        WINDOW w AS (ORDER BY p.sec, p.at NULLS FIRST, p.r)),
    x AS (
        SELECT s.*, least(greatest(s.gap, m.med), s.sec) AS win
          FROM s, (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY s.gap) AS med
                     FROM s WHERE s.at IS NOT NULL) AS m
         WHERE s.at IS NOT NULL)
    SELECT x.at, x.sec, x.r, x.b,
           greatest(x.r - a.r_from, 0) / nullif(x.win, 0),
           greatest(x.b - a.b_from, 0) / 1048576.0 / nullif(x.win, 0), x.ph
      FROM x,
           LATERAL (SELECT s0.r + coalesce((s0.r2 - s0.r) * f.frac, 0),
                           s0.b + coalesce((s0.b2 - s0.b) * f.frac, 0)
                      FROM s AS s0,
                           LATERAL (SELECT (x.sec - x.win - s0.sec) / nullif(s0.sec2 - s0.sec, 0)) AS f(frac)
                     WHERE s0.sec <= x.sec - x.win
                     ORDER BY s0.sec DESC, s0.at DESC NULLS LAST, s0.r DESC
                     LIMIT 1) AS a(r_from, b_from)
     ORDER BY x.sec, x.r;
END;

-- petagen.chart_load(job): load rate (rows/s, MB/s) and rows written over
-- the time since the job was started, from petagen.load_rates(), with the
-- job's phases (routing, loading, indexing; stopped or failed between
-- runs) as bands behind the panels.
CREATE FUNCTION @extschema@.chart_load(job bigint)
RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    about text;
    span double precision;
    unit text;
    div double precision;
    ts double precision[];
    rps double precision[];
    mbps double precision[];
    total double precision[];
    phases text[];
    xt double precision[];
    bands text;
BEGIN
    IF job IS NULL THEN
        RAISE EXCEPTION 'argument "job" of petagen.chart_load() must not be null'
            USING ERRCODE = '22004';
    END IF;
    SELECT format('%s rows into %s: %s method, %s keys%s, indexes %s, %s workers, %s',
                  to_char(j.rows, 'FM999,999,999,999,999,999'),
                  CASE WHEN EXISTS (SELECT FROM pg_class AS c WHERE c.oid = j."table")
                       THEN j."table"::text ELSE 'dropped table' END,
                  j.method, j.keys, CASE WHEN j.frozen THEN ', frozen' END,
                  CASE j.indexes WHEN 'after' THEN 'built after' ELSE 'maintained' END,
                  j.workers, j.state)
      INTO about
      FROM @extschema@.jobs AS j
     WHERE j.job = chart_load.job;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'load job % does not exist', job USING ERRCODE = '42704';
    END IF;
    SELECT array_agg(r.seconds ORDER BY r.seconds, r.rows_written),
           array_agg(r.rows_per_s ORDER BY r.seconds, r.rows_written),
           array_agg(r.mb_per_s ORDER BY r.seconds, r.rows_written),
           array_agg(r.rows_written ORDER BY r.seconds, r.rows_written),
           array_agg(r.phase ORDER BY r.seconds, r.rows_written)
      INTO ts, rps, mbps, total, phases
      FROM @extschema@.load_rates(job) AS r;
    IF ts IS NULL THEN
        RAISE EXCEPTION 'load job % has no progress_log rows yet', job USING ERRCODE = '55000',
            HINT = 'A job''s first progress_log rows appear when its first chunk commits, a leaf job''s when it starts routing: try again in a moment.';
    END IF;
    span := ts[cardinality(ts)];
    SELECT u, d INTO unit, div
      FROM (VALUES ('h', 3600.0, 7200.0), ('min', 60.0, 120.0), ('s', 1.0, 0.0)) AS v(u, d, above)
     WHERE span >= above ORDER BY above DESC LIMIT 1;
    ts := ARRAY(SELECT t / div FROM unnest(ts) WITH ORDINALITY AS u(t, o) ORDER BY o);
    -- the x axis svg_panel() draws (xmin 0), for the bands behind it
    xt := @extschema@.svg_ticks(0, ts[cardinality(ts)]);

    -- a band per run of rows in the same phase, from where it began (the
    -- chart's start for a first phase of work) to where the next one did;
    -- a run's end (stopped, failed) lasts until the next run began
    SELECT @extschema@.svg_bands(90, 56, 660, 368, xt[1], xt[cardinality(xt)],
                                 array_agg(b.ph ORDER BY b.t0), array_agg(b.t0 ORDER BY b.t0),
                                 array_agg(b.t1 ORDER BY b.t0))
      INTO bands
      FROM (SELECT i.ph, CASE WHEN i.first AND i.ph IN ('routing', 'loading', 'indexing') THEN 0 ELSE i.t0 END AS t0,
                   coalesce(lead(i.t0) OVER (ORDER BY i.t0), i.tl) AS t1
              FROM (SELECT g.ph, min(g.t) AS t0, max(g.t) AS tl, bool_or(g.o = 1) AS first
                      FROM (SELECT c.*, count(*) FILTER (WHERE c.changed) OVER (ORDER BY c.o) AS run
                              FROM (SELECT u.t, u.ph, u.o,
                                           u.ph IS DISTINCT FROM lag(u.ph) OVER (ORDER BY u.o) AS changed
                                      FROM unnest(ts, phases) WITH ORDINALITY AS u(t, ph, o)) AS c) AS g
                     GROUP BY g.run, g.ph) AS i) AS b
     WHERE b.ph IS NOT NULL AND b.t1 > b.t0;

    RETURN @extschema@.svg_document(format('Load job %s: rate and rows written', job), about,
        coalesce(bands, '')
        || @extschema@.svg_panel(90, 56, 660, 100, NULL, 'rows/s', NULL, ts, rps, xmin => 0, ymin => 0)
        || @extschema@.svg_panel(90, 190, 660, 100, NULL, 'MB/s', NULL, ts, mbps, xmin => 0, ymin => 0)
        || @extschema@.svg_panel(90, 324, 660, 100, format('time since start (%s)', unit),
                                 'rows written', NULL, ts, total, xmin => 0, ymin => 0));
END
$$;

-- petagen.bench_matrix(ids): the node matrix, one row per (node sending the
-- queries, node holding the data) with the latest run among ids, or among
-- all select runs when ids is NULL.  target is the node itself for 'local'.
CREATE FUNCTION @extschema@.bench_matrix(ids bigint[] DEFAULT NULL)
RETURNS TABLE(node text, target text, kind text, tps double precision,
              p99_us double precision, id bigint, finished_at timestamptz)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
BEGIN ATOMIC
    SELECT DISTINCT ON (r.node, t.target) r.node, t.target, r.kind, r.tps, r.p99_us, r.id, r.finished_at
      FROM @extschema@.bench_results AS r,
           LATERAL (SELECT CASE WHEN r.target_node = 'local' THEN r.node ELSE r.target_node END) AS t(target)
     WHERE CASE WHEN ids IS NULL THEN r.kind = 'select' ELSE r.id = ANY (ids) END
     ORDER BY r.node, t.target, r.finished_at DESC, r.id DESC;
END;

-- petagen.chart_matrix(ids): bench_matrix() as a heatmap of TPS, rows = node
-- sending the queries, columns = node holding the data; cells are
-- <rect class="cell">, pairs without a run <rect class="missing">.
CREATE FUNCTION @extschema@.chart_matrix(ids bigint[] DEFAULT NULL)
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
BEGIN
    SELECT array_agg(DISTINCT b.node ORDER BY b.node), array_agg(DISTINCT b.target ORDER BY b.target),
           string_agg(DISTINCT b.kind, ', '), min(b.tps), max(b.tps)
      INTO nodes, targets, kinds, lo, hi
      FROM @extschema@.bench_matrix(ids) AS b;
    IF nodes IS NULL THEN
        RAISE EXCEPTION 'no benchmark runs for a node matrix' USING ERRCODE = '42704',
            HINT = CASE WHEN ids IS NULL
                        THEN 'Run petagen.bench(''select'', ...) on every node against every node''s leaves first.'
                        ELSE 'None of the ids is in petagen.bench_results.' END;
    END IF;
    tk := @extschema@.svg_ticks(lo, hi);
    lo := tk[1];
    hi := tk[cardinality(tk)];
    cw := round(aw::numeric / cardinality(targets), 1);
    ch := round(ah::numeric / cardinality(nodes), 1);
    fs := round(least(14, ch / 2.5, cw / 4.5), 1);

    SELECT string_agg(CASE WHEN b.node IS NULL THEN
               format('<rect class="missing" x="%s" y="%s" width="%s" height="%s" fill="#eeeeee" stroke="#ffffff"><title>%s</title></rect>',
                      g.cx, g.cy, cw, ch,
                      @extschema@.svg_escape(format('%s to %s: no run', rn.node, cn.target)))
           ELSE
               format('<rect class="cell" x="%s" y="%s" width="%s" height="%s" fill="%s" stroke="#ffffff"><title>%s</title></rect>'
                      '<text x="%s" y="%s" text-anchor="middle" font-size="%s" fill="%s">%s</text>',
                      g.cx, g.cy, cw, ch, @extschema@.svg_ramp(g.t),
                      @extschema@.svg_escape(format('%s to %s: %s TPS, p99 %s us (%s run %s)',
                          b.node, b.target, @extschema@.svg_number(b.tps, true),
                          coalesce(@extschema@.svg_number(b.p99_us, true), '-'), b.kind, b.id)),
                      round(g.cx + cw / 2, 1), round(g.cy + ch / 2 + fs * 0.35, 1), fs,
                      CASE WHEN g.t < 0.6 THEN '#ffffff' ELSE '#000000' END,
                      @extschema@.svg_number(b.tps))
           END, E'\n' ORDER BY rn.r, cn.c)
      INTO body
      FROM unnest(nodes) WITH ORDINALITY AS rn(node, r)
           CROSS JOIN unnest(targets) WITH ORDINALITY AS cn(target, c)
           LEFT JOIN @extschema@.bench_matrix(ids) AS b ON b.node = rn.node AND b.target = cn.target
           CROSS JOIN LATERAL (SELECT ax + (cn.c - 1) * cw AS cx, ay + (rn.r - 1) * ch AS cy,
                                      CASE WHEN hi > lo THEN (b.tps - lo) / (hi - lo) ELSE 0.5 END AS t) AS g;

    body := body || E'\n' || concat_ws(E'\n',
        (SELECT string_agg(format('<text x="%s" y="%s" text-anchor="middle">%s</text>',
                                  round(ax + (c - 0.5) * cw, 1), ay - 8,
                                  @extschema@.svg_escape(t, greatest(3, floor(cw / 7.5)::integer))),
                           E'\n' ORDER BY c)
           FROM unnest(targets) WITH ORDINALITY AS u(t, c)),
        (SELECT string_agg(format('<text x="%s" y="%s" text-anchor="end">%s</text>',
                                  ax - 8, round(ay + (r - 0.5) * ch + 4, 1),
                                  @extschema@.svg_escape(n, 18)),
                           E'\n' ORDER BY r)
           FROM unnest(nodes) WITH ORDINALITY AS u(n, r)),
        format('<text x="%s" y="%s" text-anchor="middle" font-weight="bold">node holding the data</text>',
               ax + aw / 2, ay - 28),
        format('<text transform="translate(24,%s) rotate(-90)" text-anchor="middle" font-weight="bold">node sending the queries</text>',
               ay + ah / 2),
        '<defs><linearGradient id="petagen-ramp" x1="0" y1="1" x2="0" y2="0">'
        || (SELECT string_agg(format('<stop offset="%s%%" stop-color="%s"/>', i * 12.5,
                                     @extschema@.svg_ramp(i / 8.0)), '' ORDER BY i)
              FROM generate_series(0, 8) AS i)
        || '</linearGradient></defs>',
        format('<rect x="660" y="%s" width="18" height="%s" fill="url(#petagen-ramp)" stroke="#888888"/>',
               ay, ah),
        format('<text x="669" y="%s" text-anchor="middle">TPS</text>', ay - 8),
        (SELECT string_agg(format('<line x1="678" y1="%1$s" x2="683" y2="%1$s" stroke="#888888"/>'
                                  '<text x="686" y="%2$s">%3$s</text>',
                                  py, py + 4, @extschema@.svg_number(t)), E'\n' ORDER BY t)
           FROM unnest(tk) AS t,
                LATERAL @extschema@.svg_scale(t, lo, hi, false, ay + ah, ay) AS py)) || E'\n';

    RETURN @extschema@.svg_document('Node matrix: TPS by node and data location',
        format('latest %s run per pair; the diagonal reads local leaves', kinds), body);
END
$$;

-- The charts only read: pg_monitor members and operators may draw them.
REVOKE ALL ON FUNCTION @extschema@.chart_bench(bigint[], text, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION @extschema@.chart_sweep(bigint, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION @extschema@.chart_load(bigint) FROM PUBLIC;
REVOKE ALL ON FUNCTION @extschema@.load_rates(bigint) FROM PUBLIC;
REVOKE ALL ON FUNCTION @extschema@.chart_matrix(bigint[]) FROM PUBLIC;
REVOKE ALL ON FUNCTION @extschema@.bench_matrix(bigint[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.chart_bench(bigint[], text, text),
    @extschema@.chart_sweep(bigint, text), @extschema@.chart_load(bigint),
    @extschema@.load_rates(bigint),
    @extschema@.chart_matrix(bigint[]), @extschema@.bench_matrix(bigint[])
    TO pg_monitor, petagen_operator;
