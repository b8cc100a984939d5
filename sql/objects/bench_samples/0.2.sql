-- petagen.bench_samples(run): a run's time series from bench_results.samples,
-- one row per interval (one second, longer for long runs) and operation
-- kind, by the operations' ends; at_s is the interval's start from the
-- measurement's, seconds its length (the last one's may be shorter).
CREATE OR REPLACE FUNCTION @extschema@.bench_samples(run bigint)
RETURNS TABLE(at_s double precision, seconds double precision, operation text,
              operations bigint, errors bigint, ops_per_s double precision,
              mean_us double precision, service_mean_us double precision,
              max_us double precision)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
BEGIN ATOMIC
    SELECT @extschema@._check_run(run, 'petagen.bench_samples()');
    SELECT t.at_s, t.seconds, o.name, (e->>0)::bigint, (e->>1)::bigint,
           round(((e->>0)::numeric / NULLIF(t.seconds, 0)::numeric), 1)::float8,
           (e->>2)::float8, (e->>3)::float8, (e->>4)::float8
      FROM @extschema@.bench_results AS r,
           LATERAL (SELECT (r.samples->>'interval_s')::float8, (r.samples->>'seconds')::float8) AS i(len, total),
           unnest(ARRAY['read', 'update', 'insert', 'scan', 'readmodifywrite']) WITH ORDINALITY AS o(name, n),
           jsonb_array_elements(r.samples->'operations'->o.name) WITH ORDINALITY AS s(e, k),
           LATERAL (SELECT (s.k - 1) * i.len,
                           round(LEAST(i.len, GREATEST(i.total - (s.k - 1) * i.len, 0))::numeric, 3)::float8) AS t(at_s, seconds)
     WHERE r.id = bench_samples.run
     ORDER BY s.k, o.n;
END;
COMMENT ON FUNCTION @extschema@.bench_samples(bigint) IS
    'the time series of benchmark run run: per interval (from the measurement''s start, one second unless the run was long) and operation kind, operations, errors, operations per second and latencies (microseconds)';
REVOKE ALL ON FUNCTION @extschema@.bench_samples(bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.bench_samples(bigint) TO pg_monitor, petagen_operator;
