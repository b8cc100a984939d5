-- petagen.bench_json(run): a benchmark run as one jsonb document: its
-- bench_results row (parameters, options, settings, figures) under "run",
-- its figures by operation kind with their histogram buckets under
-- "operations", its time series under "samples".
CREATE OR REPLACE FUNCTION @extschema@.bench_json(run bigint)
RETURNS jsonb
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
BEGIN ATOMIC
    SELECT @extschema@._check_run(run, 'petagen.bench_json()');
    SELECT jsonb_build_object('run', to_jsonb(r) - ARRAY['operation_stats', 'samples'],
                              'operations', r.operation_stats,
                              'samples', r.samples)
      FROM @extschema@.bench_results AS r
     WHERE r.id = bench_json.run;
END;
COMMENT ON FUNCTION @extschema@.bench_json(bigint) IS
    'benchmark run run as one jsonb document: its bench_results row under run, its figures by operation kind with their latency histogram buckets under operations, its time series under samples';
REVOKE ALL ON FUNCTION @extschema@.bench_json(bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.bench_json(bigint) TO pg_monitor, petagen_operator;
