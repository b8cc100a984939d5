
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

--#include objects/svg_color.sql

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


--#include objects/svg_tint.sql

--#include objects/svg_bands.sql

--#include objects/svg_panel.sql

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

--#include objects/chart_sweep.sql

--#include objects/load_rates.sql

--#include objects/chart_load.sql

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

--#include objects/chart_matrix.sql

-- The charts only read: pg_monitor members and operators may draw them.
REVOKE ALL ON FUNCTION @extschema@.chart_bench(bigint[], text, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION @extschema@.bench_matrix(bigint[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.chart_bench(bigint[], text, text),
    @extschema@.bench_matrix(bigint[]) TO pg_monitor, petagen_operator;
