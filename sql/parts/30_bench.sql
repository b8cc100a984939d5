
-- Benchmarks --------------------------------------------------------------

-- Every petagen.bench() run, with its whole configuration and its figures.
CREATE TABLE @extschema@.bench_results (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    sweep bigint,
    kind text NOT NULL,
    workers integer NOT NULL,
    duration interval NOT NULL,
    warmup interval NOT NULL,
    "table" text NOT NULL,
    target text[] NOT NULL,
    target_node text NOT NULL,
    distribution text NOT NULL,
    options jsonb NOT NULL DEFAULT '{}',
    operations bigint NOT NULL,
    tps double precision NOT NULL,
    errors bigint NOT NULL,
    not_found bigint NOT NULL,
    reads bigint NOT NULL DEFAULT 0,
    updates bigint NOT NULL DEFAULT 0,
    inserts bigint NOT NULL DEFAULT 0,
    scans bigint NOT NULL DEFAULT 0,
    rmws bigint NOT NULL DEFAULT 0,
    p50_us double precision,
    p95_us double precision,
    p99_us double precision,
    p999_us double precision,
    max_us double precision,
    node text NOT NULL DEFAULT COALESCE(
        NULLIF(pg_catalog.current_setting('cluster_name'), ''),
        pg_catalog.concat(pg_catalog.inet_server_addr(), ':',
                          pg_catalog.current_setting('port'))),
    server_version text NOT NULL DEFAULT pg_catalog.current_setting('server_version'),
    run_by regrole NOT NULL DEFAULT CURRENT_USER::pg_catalog.regrole,
    started_at timestamptz NOT NULL,
    finished_at timestamptz NOT NULL DEFAULT pg_catalog.now(),
    label text,
    settings jsonb
);
COMMENT ON TABLE @extschema@.bench_results IS
    'petagen.bench() runs: sweep is the id of the first run of a bench_sweep(); target_node is "local", the foreign server of the target leaves, the Citus node (host:port) of shards queried through Citus, or "mixed"';
SELECT pg_catalog.pg_extension_config_dump('@extschema@.bench_results', '');
GRANT SELECT ON @extschema@.bench_results TO petagen_operator;
GRANT SELECT ON @extschema@.bench_results TO pg_monitor;

-- Benchmark runs ----------------------------------------------------------

-- petagen.bench(kind, ...): run a benchmark in background workers; one row.
CREATE FUNCTION @extschema@.bench(
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
    label text DEFAULT NULL)
RETURNS TABLE(id bigint, kind text, workers integer, operations bigint,
              tps double precision, errors bigint, not_found bigint,
              p50_us double precision, p95_us double precision,
              p99_us double precision, p999_us double precision,
              max_us double precision, reads bigint, updates bigint,
              inserts bigint, scans bigint, rmws bigint)
AS 'MODULE_PATHNAME', 'petagen_bench'
LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE
ROWS 1;

COMMENT ON FUNCTION @extschema@.bench(text, integer, interval, interval, text, text[], text, double precision, numeric, text, bigint, integer, text, integer, bigint, double precision, double precision, double precision, double precision, double precision, integer, integer, text, double precision, double precision, double precision, double precision, text) IS
    'in-server YCSB benchmark (kind ycsb with YCSB''s CoreWorkload properties, or a preset) on the target leaves; recorded in petagen.bench_results';

-- petagen.bench_sweep(kind, workers[], ...): one bench() run per worker
-- count; each row ends with the sweep id that chart_sweep() takes.
CREATE FUNCTION @extschema@.bench_sweep(
    kind text,
    workers integer[] DEFAULT '{1,2,4,8}',
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
    label text DEFAULT NULL)
RETURNS TABLE(id bigint, kind text, workers integer, operations bigint,
              tps double precision, errors bigint, not_found bigint,
              p50_us double precision, p95_us double precision,
              p99_us double precision, p999_us double precision,
              max_us double precision, reads bigint, updates bigint,
              inserts bigint, scans bigint, rmws bigint, sweep bigint)
AS 'MODULE_PATHNAME', 'petagen_bench_sweep'
LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE
ROWS 4;

COMMENT ON FUNCTION @extschema@.bench_sweep(text, integer[], interval, interval, text, text[], text, double precision, numeric, text, bigint, integer, text, integer, bigint, double precision, double precision, double precision, double precision, double precision, integer, integer, text, double precision, double precision, double precision, double precision, text) IS
    'petagen.bench() once per worker count; every row ends with the sweep id (bench_results.sweep, the id of the first run)';

-- petagen.forget_bench(id): remove a benchmark run, or every run of the sweep id names.
CREATE FUNCTION @extschema@.forget_bench(id bigint)
RETURNS bigint
AS 'MODULE_PATHNAME', 'petagen_forget_bench'
LANGUAGE C VOLATILE;
COMMENT ON FUNCTION @extschema@.forget_bench(bigint) IS
    'remove benchmark run id from petagen.bench_results, with every run of its sweep when id is a sweep''s (its first run''s); returns the number of runs removed';

-- petagen.draw(distribution, items, n): the key numbers a benchmark would draw.
CREATE FUNCTION @extschema@.draw(
    distribution text,
    items bigint,
    n integer,
    seed bigint DEFAULT 0,
    zipfian_constant double precision DEFAULT 0.99,
    hotspotdatafraction double precision DEFAULT 0.2,
    hotspotopnfraction double precision DEFAULT 0.8,
    exponentialpercentile double precision DEFAULT 95,
    exponentialfrac double precision DEFAULT 0.8571428571)
RETURNS SETOF bigint
AS 'MODULE_PATHNAME', 'petagen_draw'
LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE
ROWS 1000;

COMMENT ON FUNCTION @extschema@.draw(text, bigint, integer, bigint, double precision, double precision, double precision, double precision, double precision) IS
    'n key numbers of 0 .. items-1 drawn as petagen.bench() draws them (uniform, YCSB scrambled zipfian, latest, hotspot, sequential, exponential)';

REVOKE ALL ON FUNCTION @extschema@.bench(text, integer, interval, interval, text, text[], text, double precision, numeric, text, bigint, integer, text, integer, bigint, double precision, double precision, double precision, double precision, double precision, integer, integer, text, double precision, double precision, double precision, double precision, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION @extschema@.bench_sweep(text, integer[], interval, interval, text, text[], text, double precision, numeric, text, bigint, integer, text, integer, bigint, double precision, double precision, double precision, double precision, double precision, integer, integer, text, double precision, double precision, double precision, double precision, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.bench(text, integer, interval, interval, text, text[], text, double precision, numeric, text, bigint, integer, text, integer, bigint, double precision, double precision, double precision, double precision, double precision, integer, integer, text, double precision, double precision, double precision, double precision, text) TO petagen_operator;
GRANT EXECUTE ON FUNCTION @extschema@.bench_sweep(text, integer[], interval, interval, text, text[], text, double precision, numeric, text, bigint, integer, text, integer, bigint, double precision, double precision, double precision, double precision, double precision, integer, integer, text, double precision, double precision, double precision, double precision, text) TO petagen_operator;
REVOKE ALL ON FUNCTION @extschema@.forget_bench(bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.forget_bench(bigint) TO petagen_operator;
