-- petagen.bench_hgrm(run, operation): the latency histogram of a run (as
-- bench_histogram() gives it, the kinds merged by bucket unless operation
-- names one) as HdrHistogram's percentile distribution text, the ".hgrm"
-- files its plotter reads: the lines outputPercentileDistribution() writes
-- with 5 ticks per half distance to 100%, values in milliseconds (a
-- bucket's upper bound, as HdrHistogram gives a bucket's highest value),
-- and its footer (mean and standard deviation of the buckets' middles, the
-- largest value, the count, and the histogram's layout in HdrHistogram's
-- terms: 59 buckets of 64 sub-buckets, exact up to 64 ns, then 1/32).
CREATE OR REPLACE FUNCTION @extschema@.bench_hgrm(run bigint, operation text DEFAULT NULL)
RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    uppers double precision[];
    middles double precision[];
    counts bigint[];
    total bigint;
    mean double precision;
    sd double precision;
    cum bigint := 0;
    level double precision := 0;
    lines text[] := ARRAY[format('%12s %14s %10s %14s', 'Value', 'Percentile', 'TotalCount',
                                '1/(1-Percentile)'), ''];
BEGIN
    PERFORM @extschema@._check_run(run, 'petagen.bench_hgrm()');
    SELECT array_agg(h.upper_us / 1000 ORDER BY h.lower_us),
           array_agg((h.lower_us + h.upper_us) / 2000 ORDER BY h.lower_us),
           array_agg(h.count ORDER BY h.lower_us), sum(h.count)
      INTO uppers, middles, counts, total
      FROM @extschema@.bench_histogram(run, operation) AS h;
    IF total IS NULL THEN
        RAISE EXCEPTION 'benchmark run % recorded no latency of %', run,
            coalesce('operation "' || operation || '"', 'any operation') USING ERRCODE = '55000',
            HINT = 'petagen.bench_operations(' || run || ') shows the operations it measured; runs recorded before 0.2 keep no histogram.';
    END IF;
    SELECT sum(c * m) / total INTO mean FROM unnest(middles, counts) AS b(m, c);
    SELECT sqrt(sum(c * (m - mean) ^ 2) / total) INTO sd FROM unnest(middles, counts) AS b(m, c);
    FOR i IN 1 .. cardinality(counts) LOOP
        cum := cum + counts[i];
        -- each level reached at this value, the next one 100 / (5 * 2^(k+1))
        -- further on, k the halvings of the distance to 100% so far
        WHILE 100.0::float8 * cum / total >= level LOOP
            lines := lines || format('%12s %s %10s %14s', to_char(uppers[i]::numeric, 'FM99999999999990.000'),
                                     to_char((level / 100)::numeric, 'FM0.000000000000'), cum,
                                     to_char((1 / (1 - level / 100))::numeric, 'FM999999999999999990.00'));
            EXIT WHEN cum = total;
            level := level + 100.0 / (5 * 2 ^ (trunc(ln(100.0 / (100.0 - level)) / ln(2.0)) + 1));
        END LOOP;
    END LOOP;
    lines := lines || format('%12s %s %10s', to_char(uppers[cardinality(uppers)]::numeric, 'FM99999999999990.000'),
                             '1.000000000000', total)
                   || format('#[Mean    = %12s, StdDeviation   = %12s]', to_char(mean::numeric, 'FM99999999999990.000'),
                             to_char(sd::numeric, 'FM99999999999990.000'))
                   || format('#[Max     = %12s, Total count    = %12s]',
                             to_char(uppers[cardinality(uppers)]::numeric, 'FM99999999999990.000'), total)
                   || format('#[Buckets = %12s, SubBuckets     = %12s]', 59, 64);
    RETURN array_to_string(lines, E'\n') || E'\n';
END
$$;
COMMENT ON FUNCTION @extschema@.bench_hgrm(bigint, text) IS
    'the latency histogram of benchmark run run (operation "all" or NULL for every kind merged, or a kind) as HdrHistogram''s percentile distribution text (.hgrm), values in milliseconds';
REVOKE ALL ON FUNCTION @extschema@.bench_hgrm(bigint, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.bench_hgrm(bigint, text) TO pg_monitor, petagen_operator;
