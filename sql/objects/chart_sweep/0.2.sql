-- petagen.chart_sweep(sweep, metric): chart_bench() of the runs of one
-- bench_sweep(), against clients when it swept client counts, else
-- workers; the id of a single bench() run is not a sweep.
CREATE OR REPLACE FUNCTION @extschema@.chart_sweep(sweep bigint, metric text DEFAULT 'tps')
RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    ids bigint[];
    xname text;
BEGIN
    IF sweep IS NULL THEN
        RAISE EXCEPTION 'argument "sweep" of petagen.chart_sweep() must not be null'
            USING ERRCODE = '22004';
    END IF;
    ids := ARRAY(SELECT r.id FROM @extschema@.bench_results AS r
                  WHERE r.sweep = chart_sweep.sweep ORDER BY r.id);
    SELECT CASE WHEN count(DISTINCT r.clients) > 1 THEN 'clients' ELSE 'workers' END INTO xname
      FROM @extschema@.bench_results AS r WHERE r.id = ANY (ids);
    IF cardinality(ids) = 0 THEN
        RAISE EXCEPTION 'benchmark sweep % does not exist', sweep USING ERRCODE = '42704',
            HINT = CASE WHEN EXISTS (SELECT FROM @extschema@.bench_results AS r WHERE r.id = chart_sweep.sweep)
                        THEN format('Run %s is a single petagen.bench() run, not a sweep: draw it with petagen.chart_bench(''{%s}'').', sweep, sweep)
                        ELSE 'Run petagen.bench_sweep() first: it returns the sweep id, the sweep column of petagen.bench_results.' END;
    END IF;
    RETURN @extschema@.chart_bench(ids, metric,
        format('Sweep %s: %s vs %s', sweep, CASE metric WHEN 'latency' THEN 'latency percentiles'
                                                     ELSE 'TPS' END, xname));
END
$$;
COMMENT ON FUNCTION @extschema@.chart_sweep(bigint, text) IS
    'chart_bench() of the runs of one bench_sweep(), named by its sweep id: against clients when it swept them, else workers';
REVOKE ALL ON FUNCTION @extschema@.chart_sweep(bigint, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.chart_sweep(bigint, text) TO pg_monitor, petagen_operator;
