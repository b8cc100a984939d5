-- petagen.chart_samples(run): a benchmark run over time, from
-- petagen.bench_samples(): operations per second, mean and max latency
-- (log scale) per interval, a series per operation kind, each point at
-- its interval's middle.  A last interval shorter than the others is left
-- out of the rate panel (a few operations in a few milliseconds are no
-- rate).
CREATE OR REPLACE FUNCTION @extschema@.chart_samples(run bigint)
RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    about text;
    measured boolean;
    s text[];
    ts double precision[];
    rate double precision[];
    ls text[];
    lts double precision[];
    mean double precision[];
    worst double precision[];
    xt double precision[];
BEGIN
    IF run IS NULL THEN
        RAISE EXCEPTION 'argument "run" of petagen.chart_samples() must not be null'
            USING ERRCODE = '22004';
    END IF;
    SELECT format('%s, %s workers on %s, %s%s%s', r.kind, r.workers, r."table",
                  CASE WHEN r.target_rate IS NULL THEN 'closed loop'
                       ELSE format('target_rate %s/s', r.target_rate) END,
                  ', latency from the intended start',
                  CASE WHEN r.label IS NOT NULL THEN format(', %s', r.label) END),
           r.samples IS NOT NULL
      INTO about, measured
      FROM @extschema@.bench_results AS r
     WHERE r.id = chart_samples.run;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'benchmark run % does not exist', run USING ERRCODE = '42704';
    END IF;
    IF NOT measured THEN
        RAISE EXCEPTION 'benchmark run % has no time series', run USING ERRCODE = '55000',
            HINT = 'Runs recorded before petagen 0.2''s measurement layer keep only their totals.';
    END IF;
    SELECT array_agg(b.operation ORDER BY b.operation, b.at_s),
           array_agg(b.at_s + b.seconds / 2 ORDER BY b.operation, b.at_s),
           array_agg(coalesce(b.ops_per_s, 0) ORDER BY b.operation, b.at_s)
      INTO s, ts, rate
      FROM @extschema@.bench_samples(run) AS b
     WHERE b.seconds = (SELECT max(a.seconds) FROM @extschema@.bench_samples(run) AS a);
    SELECT array_agg(b.operation ORDER BY b.operation, b.at_s),
           array_agg(b.at_s + b.seconds / 2 ORDER BY b.operation, b.at_s),
           array_agg(b.mean_us ORDER BY b.operation, b.at_s),
           array_agg(b.max_us ORDER BY b.operation, b.at_s)
      INTO ls, lts, mean, worst
      FROM @extschema@.bench_samples(run) AS b
     WHERE b.operations > 0;
    -- one x axis for the three panels: the run's whole window
    xt := @extschema@._svg_ticks(0, (SELECT max(b.at_s + b.seconds) FROM @extschema@.bench_samples(run) AS b));
    RETURN @extschema@._svg_document(format('Benchmark run %s over time', run), about,
        @extschema@._svg_panel(90, 56, 540, 100, NULL, 'operations/s', s, ts, rate,
                               xticks => xt, ymin => 0)
        || @extschema@._svg_panel(90, 190, 540, 100, NULL, 'mean ' || chr(181) || 's', ls, lts, mean,
                                  logy => true, xticks => xt)
        || @extschema@._svg_panel(90, 324, 540, 100, 'seconds since the measurement''s start',
                                  'max ' || chr(181) || 's', ls, lts, worst, logy => true, xticks => xt));
END
$$;
COMMENT ON FUNCTION @extschema@.chart_samples(bigint) IS
    'an SVG chart of a benchmark run over time: operations per second, mean and max latency per operation kind';
REVOKE ALL ON FUNCTION @extschema@.chart_samples(bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.chart_samples(bigint) TO pg_monitor, petagen_operator;
