-- petagen.cluster_bench(kind, workers, ...): bench() with the same arguments
-- on every node of the table's cluster (workers and clients per node, each
-- node on its own leaves), every run starting at one instant start_delay
-- after the call; each node records its run, this node also the cluster
-- row (bench_results.path 'cluster'): tps summed, percentiles from the
-- nodes' latency histograms merged.  A row per node, then the cluster row.
CREATE OR REPLACE FUNCTION @extschema@.cluster_bench(
    kind text,
    workers integer DEFAULT 2,
    duration interval DEFAULT NULL,
    warmup interval DEFAULT '0 s',
    "table" regclass DEFAULT 'usertable'::text::regclass,
    distribution text DEFAULT NULL,
    zipfian_constant double precision DEFAULT 0.99,
    rows numeric DEFAULT NULL,
    keys text DEFAULT NULL,
    seed bigint DEFAULT NULL,
    fieldlength integer DEFAULT NULL,
    prefix text DEFAULT NULL,
    zeropadding integer DEFAULT NULL,
    operationcount bigint DEFAULT NULL,
    readproportion double precision DEFAULT NULL,
    updateproportion double precision DEFAULT NULL,
    insertproportion double precision DEFAULT NULL,
    scanproportion double precision DEFAULT NULL,
    readmodifywriteproportion double precision DEFAULT NULL,
    minscanlength integer DEFAULT NULL,
    maxscanlength integer DEFAULT NULL,
    scanlengthdistribution text DEFAULT NULL,
    hotspotdatafraction double precision DEFAULT 0.2,
    hotspotopnfraction double precision DEFAULT 0.8,
    exponentialpercentile double precision DEFAULT 95,
    exponentialfrac double precision DEFAULT 0.8571428571,
    label text DEFAULT NULL,
    dataintegrity boolean DEFAULT false,
    target_rate double precision DEFAULT NULL,
    clients integer DEFAULT NULL,
    start_delay interval DEFAULT '2 s')
RETURNS TABLE(node text, id bigint, started_at timestamptz, workers integer,
              operations bigint, tps double precision, errors bigint,
              p50_us double precision, p95_us double precision, p99_us double precision,
              p999_us double precision, max_us double precision, error text)
LANGUAGE sql VOLATILE CALLED ON NULL INPUT
SET search_path = pg_catalog, pg_temp
BEGIN ATOMIC
    SELECT * FROM @extschema@._cluster_bench("table", @extschema@._cluster_bench_args(
        kind, duration, warmup, distribution, zipfian_constant, rows, keys, seed,
        fieldlength, prefix, zeropadding, operationcount, readproportion, updateproportion,
        insertproportion, scanproportion, readmodifywriteproportion, minscanlength,
        maxscanlength, scanlengthdistribution, hotspotdatafraction, hotspotopnfraction,
        exponentialpercentile, exponentialfrac, label, dataintegrity, target_rate),
        workers, clients, NULL, start_delay);
END;
COMMENT ON FUNCTION @extschema@.cluster_bench(text, integer, interval, interval, regclass, text, double precision, numeric, text, bigint, integer, text, integer, bigint, double precision, double precision, double precision, double precision, double precision, integer, integer, text, double precision, double precision, double precision, double precision, text, boolean, double precision, integer, interval) IS
    'bench() on every node of the table''s cluster at one instant (workers and clients per node, each on its own leaves), each run recorded on its node; a row per node and the cluster row, recorded here with path ''cluster'': tps summed, percentiles from the nodes'' latency histograms merged';
REVOKE ALL ON FUNCTION @extschema@.cluster_bench(text, integer, interval, interval, regclass, text, double precision, numeric, text, bigint, integer, text, integer, bigint, double precision, double precision, double precision, double precision, double precision, integer, integer, text, double precision, double precision, double precision, double precision, text, boolean, double precision, integer, interval) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.cluster_bench(text, integer, interval, interval, regclass, text, double precision, numeric, text, bigint, integer, text, integer, bigint, double precision, double precision, double precision, double precision, double precision, integer, integer, text, double precision, double precision, double precision, double precision, text, boolean, double precision, integer, interval) TO petagen_operator;
