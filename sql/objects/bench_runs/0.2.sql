-- petagen.bench_runs: one row per benchmark run with the figures a DBA
-- compares, narrow enough for a 120-column psql screen; every parameter,
-- setting, histogram and time series stays in bench_results and
-- bench_json().
CREATE OR REPLACE VIEW @extschema@.bench_runs AS
SELECT id, kind, workers, duration, tps, p50_us, p95_us, p99_us,
       started_at::timestamptz(0) AS started_at
  FROM @extschema@.bench_results;
COMMENT ON VIEW @extschema@.bench_runs IS
    'petagen.bench() runs, one row each: kind, workers, duration, operations per second and latency percentiles; the rest of each run is in bench_results and bench_json()';
GRANT SELECT ON @extschema@.bench_runs TO petagen_operator, pg_monitor;
