-- petagen.chart_capacity(search): the p99 latency from the intended start
-- of each paced step of one bench_capacity() against its offered rate, the
-- bound as a line and the answer (the highest rate that met it) as a point
-- of its own; the subtitle says what ran and what the closed loop reached.
CREATE OR REPLACE FUNCTION @extschema@.chart_capacity(search bigint)
RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    bound double precision;
    closed double precision;
    answer double precision;
    about text;
    s text[];
    xs double precision[];
    ys double precision[];
BEGIN
    IF search IS NULL THEN
        RAISE EXCEPTION 'argument "search" of petagen.chart_capacity() must not be null'
            USING ERRCODE = '22004';
    END IF;
    SELECT max((r.options #>> '{capacity,p99_us}')::double precision),
           max(r.tps) FILTER (WHERE r.target_rate IS NULL),
           max(r.target_rate) FILTER (WHERE (r.options #>> '{capacity,meets}')::boolean),
           format('%s on %s, workers: %s, node %s, %s s per step',
                  string_agg(DISTINCT r.kind, ', '), string_agg(DISTINCT r."table", ', '),
                  string_agg(DISTINCT r.workers::text, ', '), string_agg(DISTINCT r.node, ', '),
                  string_agg(DISTINCT trim_scale(extract(epoch FROM r.duration)) || '', ', '))
      INTO bound, closed, answer, about
      FROM @extschema@.bench_results AS r
     WHERE r.sweep = chart_capacity.search AND r.options ? 'capacity';
    IF bound IS NULL THEN
        RAISE EXCEPTION 'benchmark capacity search % does not exist', search USING ERRCODE = '42704',
            HINT = 'Run petagen.bench_capacity() first: the id of its first row names the search, the sweep column of petagen.bench_results.';
    END IF;

    SELECT array_agg(p.series ORDER BY p.o, p.x), array_agg(p.x ORDER BY p.o, p.x),
           array_agg(p.y ORDER BY p.o, p.x)
      INTO s, xs, ys
      FROM (SELECT 1 AS o, 'paced steps' AS series, r.target_rate AS x, r.p99_us AS y
              FROM @extschema@.bench_results AS r
             WHERE r.sweep = chart_capacity.search AND r.options ? 'capacity'
               AND r.target_rate IS NOT NULL AND r.p99_us IS NOT NULL
            UNION ALL
            SELECT 2, format('bound: p99 %s ms', bound / 1000), b.x, bound
              FROM (SELECT min(r.target_rate) AS lo, max(r.target_rate) AS hi
                      FROM @extschema@.bench_results AS r
                     WHERE r.sweep = chart_capacity.search AND r.options ? 'capacity') AS m,
                   LATERAL (VALUES (m.lo), (m.hi)) AS b(x)
            UNION ALL
            SELECT 3, 'answer', r.target_rate, r.p99_us
              FROM @extschema@.bench_results AS r
             WHERE r.sweep = chart_capacity.search AND r.options ? 'capacity'
               AND r.target_rate = answer AND r.p99_us IS NOT NULL) AS p;

    RETURN @extschema@._svg_document(
        format('Capacity search %s: p99 vs offered rate', search),
        concat(about, format('; closed loop %s/s', @extschema@._svg_number(closed)),
               CASE WHEN answer IS NOT NULL THEN format(', answer %s/s', @extschema@._svg_number(answer)) END),
        @extschema@._svg_panel(90, 60, 540, 360, 'offered rate (operations/s)',
            'p99 latency (' || chr(181) || 's)', s, xs, ys,
            logy => (SELECT max(v) / nullif(min(v), 0) >= 20 FROM unnest(ys) AS v WHERE v > 0),
            xmin => 0));
END
$$;
COMMENT ON FUNCTION @extschema@.chart_capacity(bigint) IS
    'an SVG chart of one bench_capacity() search, named by its id: p99 latency from the intended start against offered rate, the bound and the answer';
REVOKE ALL ON FUNCTION @extschema@.chart_capacity(bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.chart_capacity(bigint) TO pg_monitor, petagen_operator;
