-- petagen demo, part 4: benchmarks in the server, recorded in petagen.bench_results.
-- Run by scripts/demo.sh with -v job=N after the load.
\set ON_ERROR_STOP on
\pset footer off

SELECT kind, workers, operations, round(tps) AS tps, errors, not_found,
       round(p50_us::numeric, 1) AS p50_us, round(p95_us::numeric, 1) AS p95_us,
       round(p99_us::numeric, 1) AS p99_us, round(p999_us::numeric, 1) AS p999_us,
       round(max_us::numeric) AS max_us
FROM petagen.bench_sweep('select', workers => '{1,2}', duration => '5 s', warmup => '1 s');

\echo == benchmark: YCSB workload A (50% read, 50% update, zipfian), 2 workers, 5 s
SELECT kind, workers, operations, round(tps) AS tps, errors, not_found,
       round(p50_us::numeric, 1) AS p50_us, round(p99_us::numeric, 1) AS p99_us
FROM petagen.bench('ycsb-a', workers => 2, duration => '5 s', warmup => '1 s');
