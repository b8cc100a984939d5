-- bench_percentiles() and bench_histogram(): a run's latency percentiles
-- and histogram from the buckets operation_stats keeps, the kinds merged by
-- summing bucket counts.  A run written here with known buckets gives
-- exact figures; a real run is checked by relationships only.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS petagen;
RESET client_min_messages;
CREATE SCHEMA b38;
SET search_path = b38, public;

-- Run 9801: 90 reads in [98.304, 100.352) us, 9 in [262.144, 270.336), one
-- in [1048.576, 1081.344) (the largest: 1050 us); 50 updates in
-- [163.84, 167.936).  Run 9802 has no histograms (recorded before them).
BEGIN;
INSERT INTO petagen.bench_results
    (id, kind, workers, duration, warmup, "table", target, target_node,
     distribution, operations, tps, errors, not_found, started_at, operation_stats)
    OVERRIDING SYSTEM VALUE
VALUES (9801, 'ycsb-a', 1, '1 s', '0 s', 't', '{}', 'local', 'zipfian', 150, 150, 0, 0, now(),
        '{"read": {"count": 100, "errors": 0, "not_found": 0, "max_us": 1050,
                   "histogram": [[98.304, 100.352, 90], [262.144, 270.336, 9], [1048.576, 1081.344, 1]]},
          "update": {"count": 50, "errors": 0, "not_found": 0, "max_us": 167,
                     "histogram": [[163.840, 167.936, 50]]},
          "insert": {"count": 0, "errors": 0, "not_found": 0, "histogram": []}}'),
       (9802, 'select', 1, '1 s', '0 s', 't', '{}', 'local', 'uniform', 10, 10, 0, 0, now(), NULL);

-- Merged: p50 in the reads' first bucket, p90 in the updates', p99 in the
-- reads' second; p99.9 and p100 the largest latency, not its bucket's middle.
SELECT * FROM petagen.bench_percentiles(9801, '{50,90,99,99.9,100}', 'all');
-- NULL: "all", then each kind the run reports; a kind without operations
-- has count 0 and no latency.
SELECT * FROM petagen.bench_percentiles(9801, '{50,99}');
SELECT * FROM petagen.bench_percentiles(9801, operation => 'update');
SELECT * FROM petagen.bench_percentiles(9801, operation => 'scan');
SELECT * FROM petagen.bench_percentiles(9802);

-- The histogram: non-empty buckets, exact bounds, counts summed.
SELECT * FROM petagen.bench_histogram(9801);
SELECT * FROM petagen.bench_histogram(9801, 'read');
SELECT sum(count) AS operations FROM petagen.bench_histogram(9801, 'all');
SELECT count(*) AS buckets FROM petagen.bench_histogram(9802);

-- Bad inputs.
\set SHOW_CONTEXT never
SAVEPOINT bad;
SELECT * FROM petagen.bench_percentiles(NULL);
ROLLBACK TO bad;
SELECT * FROM petagen.bench_percentiles(9899);
ROLLBACK TO bad;
SELECT * FROM petagen.bench_percentiles(9801, '{0}');
ROLLBACK TO bad;
SELECT * FROM petagen.bench_percentiles(9801, '{50,100.5}');
ROLLBACK TO bad;
SELECT * FROM petagen.bench_percentiles(9801, '{NaN}');
ROLLBACK TO bad;
SELECT * FROM petagen.bench_percentiles(9801, '{50,NULL}');
ROLLBACK TO bad;
SELECT * FROM petagen.bench_percentiles(9801, NULL);
ROLLBACK TO bad;
SELECT * FROM petagen.bench_percentiles(9801, operation => 'select');
ROLLBACK TO bad;
SELECT * FROM petagen.bench_histogram(NULL);
ROLLBACK TO bad;
SELECT * FROM petagen.bench_histogram(9899);
ROLLBACK TO bad;
SELECT * FROM petagen.bench_histogram(9801, 'reads');
ROLLBACK TO bad;
\set SHOW_CONTEXT errors
ROLLBACK;

-- A real run: percentiles in order, up to the largest latency; the
-- histogram's counts add up to the run's operations, each kind's to its own.
SELECT petagen.create_table('t', 2, fields => 2);
SELECT keys FROM petagen.load('t', 0, 1000);
CREATE TABLE runs AS
SELECT id, operations FROM petagen.bench('ycsb', workers => 2, "table" => 'b38.t', rows => 1000,
    operationcount => 400, readproportion => 0.5, updateproportion => 0.3, scanproportion => 0.2,
    maxscanlength => 5);
SELECT p.operation,
       bool_and(p.latency_us >= 0) AS measured,
       array_agg(p.latency_us ORDER BY p.percentile) =
         array_agg(p.latency_us ORDER BY p.latency_us, p.percentile) AS ordered,
       max(p.count) = min(p.count) AS one_count
FROM runs r, petagen.bench_percentiles(r.id, '{1,50,90,99,99.9,99.99,100}') p
GROUP BY p.operation ORDER BY p.operation;
SELECT p.count = r.operations AS all_counts_operations
FROM runs r, petagen.bench_percentiles(r.id, '{50}', 'all') p;
SELECT sum(h.count) = r.operations AS histogram_adds_up
FROM runs r, petagen.bench_histogram(r.id) h GROUP BY r.operations;
SELECT o.operation, (SELECT sum(h.count) FROM petagen.bench_histogram(r.id, o.operation) h) = o.count
         AS kind_adds_up,
       (SELECT p.count FROM petagen.bench_percentiles(r.id, '{50}', o.operation) p) = o.count
         AS kind_count
FROM runs r, petagen.bench_operations(r.id) o ORDER BY o.operation;
SELECT bool_and(h.lower_us < h.upper_us AND h.count > 0) AS buckets_sane
FROM runs r, petagen.bench_histogram(r.id) h;

SELECT petagen.forget_bench(id) FROM runs;
DROP SCHEMA b38 CASCADE;
