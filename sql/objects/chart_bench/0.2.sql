-- petagen.chart_bench(ids, metric, title): TPS ('tps') or latency
-- percentiles ('latency') vs workers of benchmark runs, a series per run
-- label as given, else per kind (and per node and target node where the
-- runs differ in them); runs at a single worker count are compared as bars,
-- a group per series (and run, where a series has several), a colour per
-- percentile.  Runs that all went through client sessions and differ in
-- their number are drawn against clients instead, a series per worker
-- count where they differ in it too.
CREATE OR REPLACE FUNCTION @extschema@.chart_bench(ids bigint[], metric text DEFAULT 'tps',
    title text DEFAULT NULL)
RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    n bigint;
    byclients boolean;
    xname text;
    nworkers bigint;
    nodes bigint;
    targets bigint;
    about text;
    ws double precision[];
    s text[];
    xs double precision[];
    ys double precision[];
    cats text[];
    pcts text[];
    bys double precision[];
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
    SELECT count(*), count(r.clients) = count(*) AND count(DISTINCT r.clients) > 1,
           count(DISTINCT r.workers), count(DISTINCT r.node), count(DISTINCT r.target_node),
           format('%s on %s, node %s, %s per run',
                  string_agg(DISTINCT r.kind, ', '), string_agg(DISTINCT r."table", ', '),
                  string_agg(DISTINCT r.node, ', '), string_agg(DISTINCT trim_scale(extract(epoch FROM r.duration)) || ' s', ', ')),
           array_agg(DISTINCT r.workers::double precision ORDER BY r.workers::double precision),
           array_agg(DISTINCT r.clients::double precision ORDER BY r.clients::double precision)
      INTO n, byclients, nworkers, nodes, targets, about, ws, xs
      FROM @extschema@.bench_results AS r
     WHERE r.id = ANY (ids);
    IF n = 0 THEN
        RAISE EXCEPTION 'no benchmark runs with ids %', ids USING ERRCODE = '42704',
            HINT = 'Run petagen.bench() or petagen.bench_sweep() first; the ids are those of petagen.bench_results.';
    END IF;
    xname := CASE WHEN byclients THEN 'clients' ELSE 'workers' END;
    IF byclients THEN
        ws := xs;
    END IF;

    SELECT array_agg(concat_ws(' ', b.series, v.pct) ORDER BY b.series, v.o, b.x, b.id),
           array_agg(b.x ORDER BY b.series, v.o, b.x, b.id),
           array_agg(v.val ORDER BY b.series, v.o, b.x, b.id),
           array_agg(b.series || CASE WHEN b.runs > 1 THEN ' (run ' || b.id || ')' ELSE '' END
                     ORDER BY b.series, b.id, v.o),
           array_agg(v.pct ORDER BY b.series, b.id, v.o),
           array_agg(v.val ORDER BY b.series, b.id, v.o)
      INTO s, xs, ys, cats, pcts, bys
      FROM (SELECT r.*, count(*) OVER (PARTITION BY r.series) AS runs
              FROM (SELECT r.*, CASE WHEN byclients THEN r.clients ELSE r.workers END::double precision AS x,
                           coalesce(r.label, concat_ws(' ', r.kind,
                                  CASE WHEN nodes > 1 THEN 'from ' || r.node END,
                                  CASE WHEN targets > 1 THEN 'to ' || r.target_node END,
                                  CASE WHEN byclients AND nworkers > 1
                                       THEN r.workers || CASE WHEN r.workers = 1 THEN ' worker' ELSE ' workers' END END)) AS series
                      FROM @extschema@.bench_results AS r
                     WHERE r.id = ANY (ids)) AS r) AS b,
           LATERAL (VALUES (0, NULL, b.tps), (1, 'p50', b.p50_us), (2, 'p95', b.p95_us),
                           (3, 'p99', b.p99_us), (4, 'p99.9', b.p999_us)) AS v(o, pct, val)
     WHERE (v.o = 0) = (metric = 'tps') AND v.val IS NOT NULL;
    IF s IS NULL THEN
        RAISE EXCEPTION 'benchmark runs % recorded no latency percentiles', ids
            USING ERRCODE = '55000', HINT = 'Chart their TPS with metric => ''tps''.';
    END IF;
    logy := metric = 'latency'
            AND (SELECT max(v) / nullif(min(v), 0) >= 20 FROM unnest(ys) AS v WHERE v > 0);

    IF cardinality(ws) = 1 THEN
        RETURN @extschema@._svg_document(
            coalesce(title, CASE metric WHEN 'tps' THEN 'TPS' ELSE 'Latency percentiles' END
                            || format(' at %s workers', ws[1])),
            about,
            @extschema@._svg_bars(90, 60, 540, 360,
                CASE metric WHEN 'tps' THEN 'TPS (operations/s)'
                            ELSE 'latency (' || chr(181) || 's)' END,
                cats, pcts, bys, coalesce(logy, false)));
    END IF;
    RETURN @extschema@._svg_document(
        coalesce(title, CASE metric WHEN 'tps' THEN 'TPS vs ' ELSE 'Latency percentiles vs ' END
                        || xname),
        about,
        @extschema@._svg_panel(90, 60, 540, 360, xname,
            CASE metric WHEN 'tps' THEN 'TPS (operations/s)'
                        ELSE 'latency (' || chr(181) || 's)' END,
            s, xs, ys,
            logx => ws[1] > 0 AND ws[cardinality(ws)] / ws[1] >= 8,
            logy => coalesce(logy, false),
            xticks => CASE WHEN cardinality(ws) <= 12 THEN ws END,
            ymin => CASE metric WHEN 'tps' THEN 0 END));
END
$$;
COMMENT ON FUNCTION @extschema@.chart_bench(bigint[], text, text) IS
    'an SVG chart of benchmark runs ids: TPS (metric ''tps'') or latency percentiles (''latency'') against workers (against clients for runs through client sessions that differ in them), a series per kind';
REVOKE ALL ON FUNCTION @extschema@.chart_bench(bigint[], text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.chart_bench(bigint[], text, text) TO pg_monitor, petagen_operator;
