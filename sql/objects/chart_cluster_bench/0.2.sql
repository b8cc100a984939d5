-- petagen.chart_cluster_bench(run): a cluster_bench() run (its cluster row
-- id): operations per second over time of each node and of the cluster
-- (their sum), each point at its interval's middle (a last interval
-- shorter than the others left out), and the latency percentiles of each
-- node and of the cluster (from the nodes' merged histograms; the cluster
-- drawn last, on top), x in nines:
-- 0.3 p50, 1.3 p95, 2 p99, 3 p99.9.
CREATE OR REPLACE FUNCTION @extschema@.chart_cluster_bench(run bigint)
RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    r record;
    about text;
    len double precision;
    total double precision;
    s text[];
    ts double precision[];
    rate double precision[];
    ls text[];
    ps double precision[];
    lat double precision[];
BEGIN
    IF run IS NULL THEN
        RAISE EXCEPTION 'argument "run" of petagen.chart_cluster_bench() must not be null'
            USING ERRCODE = '22004';
    END IF;
    SELECT * INTO r FROM @extschema@.bench_results AS b WHERE b.id = chart_cluster_bench.run;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'benchmark run % does not exist', run USING ERRCODE = '42704';
    END IF;
    IF r.path IS DISTINCT FROM 'cluster' OR NOT r.options ? 'nodes' THEN
        RAISE EXCEPTION 'benchmark run % is not a cluster run', run USING ERRCODE = '55000',
            HINT = 'petagen.cluster_bench() returns the id of its cluster row in its row whose node is ''cluster''.';
    END IF;
    about := format('%s, %s workers on %s nodes of %s, %s TPS in all, p99 %s %ss%s', r.kind, r.workers,
                    jsonb_array_length(r.options->'nodes'), r."table", round(r.tps::numeric),
                    r.p99_us, chr(181),
                    CASE WHEN r.label IS NOT NULL THEN format(', %s', r.label) END);
    len := (r.samples->>'interval_s')::double precision;
    total := (r.samples->>'seconds')::double precision;

    -- each node's operations per interval, then their sum
    WITH p AS (
        SELECT n.value->>'node' AS node, n.i, o.j, o.c::double precision AS c
          FROM jsonb_array_elements(r.options->'nodes') WITH ORDINALITY AS n(value, i),
               jsonb_array_elements_text(n.value->'ops') WITH ORDINALITY AS o(c, j)
         WHERE o.j * len <= total + 0.001
    ), q AS (
        SELECT p.node, p.i, p.j, p.c FROM p
        UNION ALL
        SELECT 'cluster', 1000000, p.j, sum(p.c) FROM p GROUP BY p.j
    )
    SELECT array_agg(q.node ORDER BY q.i, q.j), array_agg((q.j - 0.5) * len ORDER BY q.i, q.j),
           array_agg(q.c / len ORDER BY q.i, q.j)
      INTO s, ts, rate
      FROM q;
    IF s IS NULL THEN
        RAISE EXCEPTION 'benchmark run % has no whole interval to draw', run USING ERRCODE = '55000';
    END IF;

    WITH l AS (
        SELECT n.value->>'node' AS node, n.i, n.value AS v
          FROM jsonb_array_elements(r.options->'nodes') WITH ORDINALITY AS n(value, i)
        UNION ALL
        SELECT 'cluster', 1000000, jsonb_build_object('p50_us', r.p50_us, 'p95_us', r.p95_us,
                                               'p99_us', r.p99_us, 'p999_us', r.p999_us)
    )
    SELECT array_agg(l.node ORDER BY l.i, k.p), array_agg((-log(1 - k.p / 100))::double precision ORDER BY l.i, k.p),
           array_agg((l.v->>k.name)::double precision ORDER BY l.i, k.p)
      INTO ls, ps, lat
      FROM l, (VALUES (50::numeric, 'p50_us'), (95, 'p95_us'), (99, 'p99_us'), (99.9, 'p999_us')) AS k(p, name)
     WHERE l.v->>k.name IS NOT NULL;

    RETURN @extschema@._svg_document(format('Cluster benchmark run %s', run), about,
        @extschema@._svg_panel(90, 60, 540, 160, 'seconds since the measurement''s start',
                               'operations/s', s, ts, rate,
                               xticks => @extschema@._svg_ticks(0, greatest(floor(total / len + 0.001), 1) * len),
                               ymin => 0)
        || @extschema@._svg_panel(90, 280, 540, 150, 'percentile in nines: 0.3 p50, 1.3 p95, 2 p99, 3 p99.9',
                                  'latency ' || chr(181) || 's', ls, ps, lat, logy => true));
END
$$;
COMMENT ON FUNCTION @extschema@.chart_cluster_bench(bigint) IS
    'an SVG chart of a cluster_bench() run (its cluster row): operations per second over time and latency percentiles of each node and of the cluster, whose percentiles come from the nodes'' merged histograms';
REVOKE ALL ON FUNCTION @extschema@.chart_cluster_bench(bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.chart_cluster_bench(bigint) TO pg_monitor, petagen_operator;
