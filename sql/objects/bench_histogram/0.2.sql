-- petagen.bench_histogram(run, operation): the latency histogram of a run
-- as bench_results.operation_stats keeps it, the kinds merged by summing
-- bucket counts (NULL or "all": every kind), one row per non-empty bucket:
-- a latency v is in it when lower_us <= v < upper_us.
CREATE OR REPLACE FUNCTION @extschema@.bench_histogram(
    run bigint,
    operation text DEFAULT NULL)
RETURNS TABLE(lower_us double precision, upper_us double precision, count bigint)
AS 'MODULE_PATHNAME', 'petagen_bench_histogram'
LANGUAGE C STABLE;
COMMENT ON FUNCTION @extschema@.bench_histogram(bigint, text) IS
    'the latency histogram (microseconds, from the intended start) of benchmark run run, one row per non-empty bucket [lower_us, upper_us): operation "all" or NULL for every kind merged, or a kind';
REVOKE ALL ON FUNCTION @extschema@.bench_histogram(bigint, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.bench_histogram(bigint, text) TO pg_monitor, petagen_operator;
