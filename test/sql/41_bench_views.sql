-- How runs through client sessions are drawn and exported, from fixture
-- rows of petagen.bench_results (in transactions rolled back): a sweep of
-- client counts is drawn against clients, a series per worker count where
-- the workers were swept too, and a sweep of workers alone still against
-- workers.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS petagen;
RESET client_min_messages;
CREATE SCHEMA b41;
SET search_path = b41, public;

-- What a chart says: its title, its x axis, and its points' titles.
CREATE FUNCTION says(svg text, OUT title text, OUT xaxis text, OUT points text)
LANGUAGE sql AS $$
    SELECT (regexp_match(svg, '<title>([^<]*)</title>'))[1],
           (regexp_match(svg, '<text x="[0-9]+" y="456" text-anchor="middle">([^<]*)</text>'))[1],
           (SELECT string_agg(m[1], '; ') FROM regexp_matches(svg, '<circle class="mark"[^>]*><title>([^:]*: [a-z]+ = [0-9]+)', 'g') AS m)
$$;

BEGIN;
INSERT INTO petagen.bench_results
    (id, sweep, kind, workers, clients, duration, warmup, "table", target, target_node,
     distribution, operations, tps, errors, not_found, node, started_at, finished_at, path)
    OVERRIDING SYSTEM VALUE
VALUES (9411, 9411, 'select', 2, 8, '10 s', '0 s', 't', '{}', 'local', 'uniform', 10, 1, 0, 0, 'n1', now(), now(), 'libpq'),
       (9412, 9411, 'select', 2, 16, '10 s', '0 s', 't', '{}', 'local', 'uniform', 20, 2, 0, 0, 'n1', now(), now(), 'libpq'),
       (9413, 9411, 'select', 2, 64, '10 s', '0 s', 't', '{}', 'local', 'uniform', 40, 4, 0, 0, 'n1', now(), now(), 'libpq'),
       (9421, 9421, 'select', 1, 8, '10 s', '0 s', 't', '{}', 'local', 'uniform', 10, 1, 0, 0, 'n1', now(), now(), 'libpq'),
       (9422, 9421, 'select', 1, 16, '10 s', '0 s', 't', '{}', 'local', 'uniform', 20, 2, 0, 0, 'n1', now(), now(), 'libpq'),
       (9423, 9421, 'select', 2, 8, '10 s', '0 s', 't', '{}', 'local', 'uniform', 30, 3, 0, 0, 'n1', now(), now(), 'libpq'),
       (9424, 9421, 'select', 2, 16, '10 s', '0 s', 't', '{}', 'local', 'uniform', 40, 4, 0, 0, 'n1', now(), now(), 'libpq'),
       (9431, 9431, 'select', 1, 8, '10 s', '0 s', 't', '{}', 'local', 'uniform', 10, 1, 0, 0, 'n1', now(), now(), 'libpq'),
       (9432, 9431, 'select', 2, 8, '10 s', '0 s', 't', '{}', 'local', 'uniform', 20, 2, 0, 0, 'n1', now(), now(), 'libpq'),
       (9441, 9441, 'select', 1, NULL, '10 s', '0 s', 't', '{}', 'local', 'uniform', 10, 1, 0, 0, 'n1', now(), now(), 'spi'),
       (9442, 9441, 'select', 2, NULL, '10 s', '0 s', 't', '{}', 'local', 'uniform', 20, 2, 0, 0, 'n1', now(), now(), 'spi');
-- Client counts swept at 2 workers: against clients, one series.
SELECT * FROM says(petagen.chart_sweep(9411));
SELECT title, xaxis FROM says(petagen.chart_sweep(9411, 'latency'));
-- Workers and client counts swept: against clients, a series per worker count.
SELECT * FROM says(petagen.chart_sweep(9421));
-- Workers swept at one client count, and without clients: against workers.
SELECT * FROM says(petagen.chart_sweep(9431));
SELECT * FROM says(petagen.chart_sweep(9441));
-- chart_bench() of runs through sessions that differ in clients: the same.
SELECT title, xaxis FROM says(petagen.chart_bench('{9411,9412,9413}'));
ROLLBACK;
