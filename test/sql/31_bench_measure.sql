-- The measurement layer of petagen.bench(): target_rate's bad
-- inputs; every run's figures by operation kind (bench_operations()), its
-- time series (bench_samples()) and its export (bench_json()), checked by
-- their shape and their sums, never by a timing; forget_bench() removes
-- them with the run.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS petagen;
CREATE EXTENSION IF NOT EXISTS pgtap;
RESET client_min_messages;
CREATE SCHEMA b31;
SET search_path = b31, public;

SELECT petagen.create_table('t', 2, fields => 2);
SELECT keys FROM petagen.load('t', 0, 1000);

-- target_rate: a positive finite number of operations per second.
SELECT plan(8);
SELECT throws_ok($$SELECT * FROM petagen.bench('select', "table" => 'b31.t', rows => 1000, target_rate => 0)$$,
    '22023', 'target_rate must be a positive finite number of operations per second, not 0', 'target_rate 0');
SELECT throws_ok($$SELECT * FROM petagen.bench('select', "table" => 'b31.t', rows => 1000, target_rate => -5)$$,
    '22023', 'target_rate must be a positive finite number of operations per second, not -5', 'target_rate negative');
SELECT throws_ok($$SELECT * FROM petagen.bench('select', "table" => 'b31.t', rows => 1000, target_rate => 'NaN')$$,
    '22023', 'target_rate must be a positive finite number of operations per second, not NaN', 'target_rate NaN');
SELECT throws_ok($$SELECT * FROM petagen.bench('select', "table" => 'b31.t', rows => 1000, target_rate => 'Infinity')$$,
    '22023', 'target_rate must be a positive finite number of operations per second, not Infinity', 'target_rate infinity');
SELECT throws_ok($$SELECT * FROM petagen.bench_sweep('select', '{1}', "table" => 'b31.t', rows => 1000, target_rate => 0)$$,
    '22023', 'target_rate must be a positive finite number of operations per second, not 0', 'bench_sweep() too');

-- A paced mixed run and a closed-loop one.
CREATE TABLE runs AS
SELECT 'paced' AS run, id, operations FROM petagen.bench('ycsb', workers => 2, "table" => 'b31.t', rows => 1000,
    operationcount => 400, readproportion => 0.5, updateproportion => 0.5, target_rate => 2000);
INSERT INTO runs
SELECT 'closed', id, operations FROM petagen.bench('ycsb', workers => 1, "table" => 'b31.t', rows => 1000,
    operationcount => 300, readproportion => 0.7, updateproportion => 0.2, scanproportion => 0.1,
    maxscanlength => 5);

SELECT r.run, b.target_rate, b.operation_stats IS NOT NULL AS has_stats, b.samples IS NOT NULL AS has_samples
FROM runs r JOIN petagen.bench_results b USING (id) ORDER BY r.run;

-- One row per kind of the mix; the counts add up to the run's.
SELECT r.run, o.operation, o.errors, o.not_found,
       o.p50_us <= o.p95_us AND o.p95_us <= o.p99_us AND o.p99_us <= o.p999_us
         AND o.p999_us <= o.max_us AS ordered,
       o.service_p99_us <= o.p99_us AND o.service_max_us <= o.max_us AS service_within
FROM runs r, petagen.bench_operations(r.id) o ORDER BY r.run, o.operation;
SELECT r.run, sum(o.count) = r.operations AS counts_add_up
FROM runs r, petagen.bench_operations(r.id) o GROUP BY r.run, r.operations ORDER BY r.run;
-- A closed loop: an operation is intended when it starts, latency = service time.
SELECT o.operation, (o.p50_us, o.p95_us, o.p99_us, o.p999_us, o.max_us) =
       (o.service_p50_us, o.service_p95_us, o.service_p99_us, o.service_p999_us, o.service_max_us) AS same
FROM runs r, petagen.bench_operations(r.id) o WHERE r.run = 'closed' ORDER BY o.operation;

-- The time series: intervals of one second from 0, each kind in each, the
-- operations adding up to the run's and to each kind's.
SELECT r.run, min(s.at_s) = 0 AS from_0, bool_and(s.seconds <= 1) AS one_second,
       count(*) = count(DISTINCT s.at_s) * count(DISTINCT s.operation) AS every_kind_each_second,
       sum(s.operations) = r.operations AS operations_add_up,
       bool_and(s.operations = 0 OR s.mean_us <= s.max_us) AS mean_within_max
FROM runs r, petagen.bench_samples(r.id) s GROUP BY r.run, r.operations ORDER BY r.run;
SELECT r.run, o.operation, (SELECT sum(s.operations) FROM petagen.bench_samples(r.id) s
                            WHERE s.operation = o.operation) = o.count AS kind_adds_up
FROM runs r, petagen.bench_operations(r.id) o ORDER BY r.run, o.operation;

-- The export: the row, the kinds with their histogram buckets, the series.
SELECT r.run, (SELECT array_agg(k ORDER BY k) FROM jsonb_object_keys(j) AS k) AS keys,
       (j->'run'->>'id')::bigint = r.id AS its_id,
       j->'run' ? 'settings' AND j->'run' ? 'options' AND j->'run' ? 'target_rate' AS parameters,
       NOT j->'run' ? 'operation_stats' AS not_twice,
       (SELECT array_agg(k ORDER BY k) FROM jsonb_object_keys(j->'operations') AS k) AS kinds,
       (SELECT bool_and((SELECT sum((b->>2)::bigint) FROM jsonb_array_elements(v->'histogram') AS b)
                        = (v->>'count')::bigint)
        FROM jsonb_each(j->'operations') AS e(k, v)) AS buckets_add_up,
       (SELECT bool_and((b->>0)::float8 < (b->>1)::float8)
        FROM jsonb_each(j->'operations') AS e(k, v), jsonb_array_elements(v->'histogram') AS b) AS buckets_ordered,
       (j->'samples'->>'interval_s')::int AS interval_s
FROM runs r, petagen.bench_json(r.id) AS j ORDER BY r.run;

-- chart_samples(): the run over time, a series per kind in each panel.
SELECT r.run, c LIKE '<svg %' AS svg, c LIKE '%operations/s%' AND c LIKE '%mean &#181;s%' AND c LIKE '%max &#181;s%' AS panels,
       c LIKE '%>read<%' AND c LIKE '%>update<%' AS kinds
FROM runs r, petagen.chart_samples(r.id) AS c ORDER BY r.run;
SELECT throws_ok($$SELECT petagen.chart_samples(NULL)$$, '22004',
    'argument "run" of petagen.chart_samples() must not be null', 'chart_samples(NULL)');
SELECT throws_ok($$SELECT petagen.chart_samples(-1)$$, '42704',
    'benchmark run -1 does not exist', 'chart_samples() of no run');
UPDATE petagen.bench_results SET samples = NULL WHERE id = (SELECT id FROM runs WHERE run = 'paced');
SELECT throws_ok(format('SELECT petagen.chart_samples(%s)', (SELECT id FROM runs WHERE run = 'paced')), '55000',
    format('benchmark run %s has no time series', (SELECT id FROM runs WHERE run = 'paced')),
    'chart_samples() of a run recorded before the measurement layer');
SELECT * FROM finish();

-- No benchmark is running now: bench_status() has no row.
SELECT * FROM petagen.bench_status();

-- forget_bench() takes the figures with the run.
SELECT petagen.forget_bench(id) FROM runs WHERE run = 'closed';
SELECT count(*) AS left_runs FROM petagen.bench_results b JOIN runs r USING (id) WHERE r.run = 'closed';

SELECT petagen.forget_bench(id) FROM runs WHERE run = 'paced';
DROP SCHEMA b31 CASCADE;
