-- petagen.bench(clients => N): the argument matrix.  Without clients a
-- run takes the SPI path and records none; with clients it runs through
-- that many libpq sessions and records them; fewer clients than workers
-- and more sessions than the server has connections for are refused
-- before anything starts; bench_sweep() sweeps client counts.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS petagen;
CREATE EXTENSION IF NOT EXISTS pgtap;
RESET client_min_messages;
CREATE SCHEMA b40;
SET search_path = b40, public;

SELECT petagen.create_table('t', 2, fields => 2);
SELECT keys FROM petagen.load('t', 0, 1000);

SELECT plan(7);
SELECT throws_ok($$SELECT * FROM petagen.bench('select', workers => 2, "table" => 'b40.t', rows => 1000, clients => 1)$$,
    '22023', 'clients must be at least workers (2)', 'fewer clients than workers');
SELECT throws_ok($$SELECT * FROM petagen.bench('select', workers => 2, "table" => 'b40.t', rows => 1000, clients => 0)$$,
    '22023', 'clients must be at least workers (2)', 'no clients');
SELECT throws_like($$SELECT * FROM petagen.bench('select', workers => 2, "table" => 'b40.t', rows => 1000, clients => 100000)$$,
    'the server has no room for 100000 client sessions', 'more sessions than max_connections');
SELECT throws_ok($$SELECT * FROM petagen.bench('select', workers => 2, "table" => 'b40.t', rows => 1000, clients => 100000)$$,
    '53300', NULL, 'more sessions than max_connections: 53300');
SELECT is(count(*), 0::bigint, 'nothing recorded by the refused runs')
  FROM petagen.bench_results WHERE "table" = 'b40.t';

-- Exact operation counts on both paths, and the path recorded.
CREATE TEMP TABLE runs AS
SELECT 'spi' AS run, id FROM petagen.bench('select', workers => 2, "table" => 'b40.t', rows => 1000, operationcount => 200);
INSERT INTO runs
SELECT 'libpq', id FROM petagen.bench('ycsb-a', workers => 2, "table" => 'b40.t', rows => 1000, operationcount => 200, clients => 6);
SELECT r.run, b.workers, b.clients, b.path, b.operations, b.errors, b.not_found,
       b.reads + b.updates AS reads_and_updates
  FROM runs r JOIN petagen.bench_results b USING (id) ORDER BY r.run;
SELECT petagen.forget_bench(id) FROM runs ORDER BY id;

-- bench_sweep() sweeps client counts: a run per worker count and client
-- count, every pair checked before the first run.
SELECT throws_ok($$SELECT * FROM petagen.bench_sweep('select', workers => '{2,4}', "table" => 'b40.t', rows => 1000, clients => '{3}')$$,
    '22023', 'clients must be at least workers (4)', 'a sweep checks every pair first');
SELECT is(count(*), 0::bigint, 'nothing recorded by the refused sweep')
  FROM petagen.bench_results WHERE "table" = 'b40.t';
CREATE TEMP TABLE sweep AS
SELECT id FROM petagen.bench_sweep('select', workers => '{1,2}', "table" => 'b40.t', rows => 1000,
                                   operationcount => 100, clients => '{2,4}');
SELECT b.workers, b.clients, b.path, b.operations, b.errors, b.sweep = (SELECT min(id) FROM sweep) AS one_sweep
  FROM sweep s JOIN petagen.bench_results b USING (id) ORDER BY s.id;
SELECT petagen.forget_bench(min(id)) FROM sweep;
SELECT * FROM finish();
DROP SCHEMA b40 CASCADE;
