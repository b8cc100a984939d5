-- petagen.bench_operations(run): a run's figures by operation kind, from
-- bench_results.operation_stats; latencies from the intended start, the
-- service times from the actual start (equal in a closed loop).
CREATE OR REPLACE FUNCTION @extschema@.bench_operations(run bigint)
RETURNS TABLE(operation text, count bigint, errors bigint, not_found bigint,
              p50_us double precision, p95_us double precision,
              p99_us double precision, p999_us double precision,
              max_us double precision, service_p50_us double precision,
              service_p95_us double precision, service_p99_us double precision,
              service_p999_us double precision, service_max_us double precision)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
BEGIN ATOMIC
    SELECT @extschema@._check_run(run, 'petagen.bench_operations()');
    SELECT o.name, (s->>'count')::bigint, (s->>'errors')::bigint, (s->>'not_found')::bigint,
           (s->>'p50_us')::float8, (s->>'p95_us')::float8, (s->>'p99_us')::float8,
           (s->>'p999_us')::float8, (s->>'max_us')::float8,
           (s->>'service_p50_us')::float8, (s->>'service_p95_us')::float8,
           (s->>'service_p99_us')::float8, (s->>'service_p999_us')::float8,
           (s->>'service_max_us')::float8
      FROM @extschema@.bench_results AS r,
           unnest(ARRAY['read', 'update', 'insert', 'scan', 'readmodifywrite']) WITH ORDINALITY AS o(name, n),
           LATERAL (SELECT r.operation_stats -> o.name) AS x(s)
     WHERE r.id = bench_operations.run AND x.s IS NOT NULL
     ORDER BY o.n;
END;
COMMENT ON FUNCTION @extschema@.bench_operations(bigint) IS
    'per operation kind of benchmark run run: count, errors, not_found, latency percentiles from the intended start and service-time percentiles from the actual start (microseconds)';
REVOKE ALL ON FUNCTION @extschema@.bench_operations(bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.bench_operations(bigint) TO pg_monitor, petagen_operator;
