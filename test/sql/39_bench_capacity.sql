-- petagen.bench_capacity(): bad input is refused with 22023 (22004 for a
-- NULL) before any step runs, and records nothing; a short search records
-- its steps as one sweep, each with its "capacity" options, and
-- chart_capacity() draws it.  The search's rates and latencies vary from
-- run to run: only its shape is printed (the rate found is TAP
-- 026_bench_capacity's).
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS petagen;
CREATE EXTENSION IF NOT EXISTS pgtap;
RESET client_min_messages;
CREATE SCHEMA b39;
SET search_path = b39, public;

SELECT petagen.create_table('t', 2, fields => 2);
SELECT keys FROM petagen.load('t', 0, 1000);
SELECT count(*) AS runs_before FROM petagen.bench_results \gset

SELECT plan(14);
SELECT throws_ok($$SELECT * FROM petagen.bench_capacity('select', p99 => '0 s', "table" => 'b39.t', rows => 1000)$$,
    '22023', 'p99 must be positive', 'p99 0');
SELECT throws_ok($$SELECT * FROM petagen.bench_capacity('select', p99 => '-1 ms', "table" => 'b39.t', rows => 1000)$$,
    '22023', 'p99 must be positive', 'p99 negative');
SELECT throws_ok($$SELECT * FROM petagen.bench_capacity('select', steps => 1, "table" => 'b39.t', rows => 1000)$$,
    '22023', 'steps must be at least 2, not 1', 'one step');
SELECT throws_ok($$SELECT * FROM petagen.bench_capacity('select', steps => -3, "table" => 'b39.t', rows => 1000)$$,
    '22023', 'steps must be at least 2, not -3', 'negative steps');
SELECT throws_ok($$SELECT * FROM petagen.bench_capacity('select', step_duration => '0 s', "table" => 'b39.t', rows => 1000)$$,
    '22023', 'step_duration must be positive', 'step_duration 0');
SELECT throws_ok($$SELECT * FROM petagen.bench_capacity('select', workers => 0, "table" => 'b39.t', rows => 1000)$$,
    '22023', 'workers must be between 1 and 128, not 0', 'no workers');
SELECT throws_ok($$SELECT * FROM petagen.bench_capacity('select', warmup => '-1 s', "table" => 'b39.t', rows => 1000)$$,
    '22023', 'warmup must not be negative', 'bench()''s checks apply');
SELECT throws_ok($$SELECT * FROM petagen.bench_capacity('select', p99 => NULL, "table" => 'b39.t', rows => 1000)$$,
    '22004', 'argument "p99" of petagen.bench_capacity() must not be null', 'p99 NULL');
SELECT throws_ok($$SELECT * FROM petagen.bench_capacity('select', step_duration => NULL, "table" => 'b39.t', rows => 1000)$$,
    '22004', 'argument "step_duration" of petagen.bench_capacity() must not be null', 'step_duration NULL');
SELECT throws_ok($$SELECT * FROM petagen.bench_capacity('select', workers => 2, clients => 1, "table" => 'b39.t', rows => 1000)$$,
    '22023', 'clients must be at least workers (2)', 'its steps are client runs: bench()''s checks of clients apply');
-- A step is timed, and the search sets the rate: bench() takes these, bench_capacity() not.
SELECT throws_ok($$SELECT * FROM petagen.bench_capacity('select', operationcount => 10, "table" => 'b39.t', rows => 1000)$$,
    '42883', NULL, 'no operationcount');
SELECT throws_ok($$SELECT * FROM petagen.bench_capacity('select', target_rate => 10, "table" => 'b39.t', rows => 1000)$$,
    '42883', NULL, 'no target_rate');
SELECT throws_ok($$SELECT petagen.chart_capacity(NULL)$$,
    '22004', 'argument "search" of petagen.chart_capacity() must not be null', 'chart of NULL');
SELECT throws_ok($$SELECT petagen.chart_capacity(-1)$$,
    '42704', 'benchmark capacity search -1 does not exist', 'chart of no search');
SELECT * FROM finish();
SELECT count(*) - :runs_before AS runs_recorded_by_refusals FROM petagen.bench_results;

-- Three steps under a bound no short step misses: the closed loop (no
-- rate, no verdict), a tenth of its rate (which meets it), and its rate
-- (which may keep up or not); the answer is the highest that met the bound.
CREATE TEMP TABLE search AS
SELECT * FROM petagen.bench_capacity('select', p99 => '10 s', steps => 3, step_duration => '0.3 s', warmup => '0 s',
                                     workers => 1, "table" => 't', rows => 1000);
SELECT step, target_rate IS NULL AS closed_loop, tps > 0 AS measured, meets IS NOT NULL AS judged,
       p50_us <= p99_us AND p99_us <= p999_us AND p999_us <= max_us AS ordered, errors,
       answer = coalesce(target_rate = (SELECT max(target_rate) FROM search WHERE meets), false) AS answer_is_highest
FROM search ORDER BY step;
SELECT count(*) FILTER (WHERE answer) AS answers,
       (SELECT target_rate FROM search WHERE step = 2) * 10 BETWEEN (SELECT tps FROM search WHERE step = 1) - 1
                                                             AND (SELECT tps FROM search WHERE step = 1) + 1 AS low_is_a_tenth,
       (SELECT target_rate FROM search WHERE step = 3) = round((SELECT tps FROM search WHERE step = 1)::numeric, 1) AS high_is_closed_loop
FROM search;
-- Recorded: one sweep, the first step's id; each step's options say the bound and its step.
SELECT r.sweep = (SELECT id FROM search WHERE step = 1) AS one_sweep, r.kind, r.workers, r.duration,
       r.target_rate IS NOT DISTINCT FROM s.target_rate AS rate_recorded, r.p99_us = s.p99_us AS p99_recorded,
       (r.options -> 'capacity') - 'meets'::text AS capacity,
       (r.options #>> '{capacity,meets}')::boolean IS NOT DISTINCT FROM s.meets AS verdict_recorded
FROM petagen.bench_results AS r JOIN search AS s USING (id) ORDER BY s.step;
-- The chart: a point per paced step, two for the bound, one for the answer.
SELECT petagen.chart_capacity(id) ~ '^<svg' AS svg,
       (SELECT count(*) FROM regexp_matches(petagen.chart_capacity(id), '<circle class="mark"', 'g')) AS points,
       petagen.chart_capacity(id) LIKE '%Capacity search ' || id || ': p99 vs offered rate%' AS titled,
       petagen.chart_capacity(id) LIKE '%bound: p99 10000 ms%' AS bound_drawn
FROM search WHERE step = 1;
-- A later step's id is not a search.
DO $$
BEGIN
    PERFORM petagen.chart_capacity((SELECT id FROM search WHERE step = 2));
EXCEPTION WHEN undefined_object THEN
    RAISE NOTICE 'step 2 is not a search';
END
$$;
