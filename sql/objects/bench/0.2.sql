-- petagen.bench(kind, ...): run a benchmark in background workers; one row.
CREATE OR REPLACE FUNCTION @extschema@.bench(
    kind text,
    workers integer DEFAULT 2,
    duration interval DEFAULT NULL,
    warmup interval DEFAULT '0 s',
    "table" text DEFAULT 'usertable',
    target text[] DEFAULT NULL,
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
    start_at timestamptz DEFAULT NULL)
RETURNS TABLE(id bigint, kind text, workers integer, operations bigint,
              tps double precision, errors bigint, not_found bigint,
              p50_us double precision, p95_us double precision,
              p99_us double precision, p999_us double precision,
              max_us double precision)
AS 'MODULE_PATHNAME', 'petagen_bench'
LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE
ROWS 1;

COMMENT ON FUNCTION @extschema@.bench(text, integer, interval, interval, text, text[], text, double precision, numeric, text, bigint, integer, text, integer, bigint, double precision, double precision, double precision, double precision, double precision, integer, integer, text, double precision, double precision, double precision, double precision, text, boolean, double precision, integer, timestamp with time zone) IS
    'in-server YCSB benchmark (kind ycsb with YCSB''s CoreWorkload properties, or a preset) on the target leaves, through SPI or with clients over as many libpq sessions; recorded in petagen.bench_results; start_at: the instant the run starts, its workers ready (cluster_bench() starts every node''s at one)';
REVOKE ALL ON FUNCTION @extschema@.bench(text, integer, interval, interval, text, text[], text, double precision, numeric, text, bigint, integer, text, integer, bigint, double precision, double precision, double precision, double precision, double precision, integer, integer, text, double precision, double precision, double precision, double precision, text, boolean, double precision, integer, timestamp with time zone) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.bench(text, integer, interval, interval, text, text[], text, double precision, numeric, text, bigint, integer, text, integer, bigint, double precision, double precision, double precision, double precision, double precision, integer, integer, text, double precision, double precision, double precision, double precision, text, boolean, double precision, integer, timestamp with time zone) TO petagen_operator;
