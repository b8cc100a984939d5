-- petagen.bench_percentiles(run, percentiles, operation): latency percentiles
-- of a run computed from the histograms bench_results.operation_stats keeps,
-- merged by summing bucket counts ("all": every kind; NULL: "all", then
-- each kind); count is the operations the percentiles are of.
CREATE OR REPLACE FUNCTION @extschema@.bench_percentiles(
    run bigint,
    percentiles double precision[] DEFAULT '{50,90,99,99.9,99.99}',
    operation text DEFAULT NULL)
RETURNS TABLE(operation text, percentile double precision,
              latency_us double precision, count bigint)
AS 'MODULE_PATHNAME', 'petagen_bench_percentiles'
LANGUAGE C STABLE;
COMMENT ON FUNCTION @extschema@.bench_percentiles(bigint, double precision[], text) IS
    'latency percentiles (microseconds, from the intended start) of benchmark run run, from its stored histograms merged by bucket: operation "all", a kind, or NULL for "all" and each kind; count is the operations measured';
REVOKE ALL ON FUNCTION @extschema@.bench_percentiles(bigint, double precision[], text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.bench_percentiles(bigint, double precision[], text) TO pg_monitor, petagen_operator;
