-- How benchmark runs are drawn and exported, from fixture rows of
-- petagen.bench_results (in transactions rolled back): a sweep of client
-- counts is drawn against clients, a series per worker count where the
-- workers were swept too, and a sweep of workers alone still against
-- workers; bench_hgrm() writes a known histogram as HdrHistogram's .hgrm
-- text exactly, and a real run's consistently with its figures.
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
     distribution, operations, tps, errors, not_found, node, started_at, finished_at, path, p99_us)
    OVERRIDING SYSTEM VALUE
VALUES (9411, 9411, 'select', 2, 8, '10 s', '0 s', 't', '{}', 'local', 'uniform', 10, 1, 0, 0, 'n1', now(), now(), 'libpq', 900),
       (9412, 9411, 'select', 2, 16, '10 s', '0 s', 't', '{}', 'local', 'uniform', 20, 2, 0, 0, 'n1', now(), now(), 'libpq', 900),
       (9413, 9411, 'select', 2, 64, '10 s', '0 s', 't', '{}', 'local', 'uniform', 40, 4, 0, 0, 'n1', now(), now(), 'libpq', 900),
       (9421, 9421, 'select', 1, 8, '10 s', '0 s', 't', '{}', 'local', 'uniform', 10, 1, 0, 0, 'n1', now(), now(), 'libpq', 900),
       (9422, 9421, 'select', 1, 16, '10 s', '0 s', 't', '{}', 'local', 'uniform', 20, 2, 0, 0, 'n1', now(), now(), 'libpq', 900),
       (9423, 9421, 'select', 2, 8, '10 s', '0 s', 't', '{}', 'local', 'uniform', 30, 3, 0, 0, 'n1', now(), now(), 'libpq', 900),
       (9424, 9421, 'select', 2, 16, '10 s', '0 s', 't', '{}', 'local', 'uniform', 40, 4, 0, 0, 'n1', now(), now(), 'libpq', 900),
       (9431, 9431, 'select', 1, 8, '10 s', '0 s', 't', '{}', 'local', 'uniform', 10, 1, 0, 0, 'n1', now(), now(), 'libpq', 900),
       (9432, 9431, 'select', 2, 8, '10 s', '0 s', 't', '{}', 'local', 'uniform', 20, 2, 0, 0, 'n1', now(), now(), 'libpq', 900),
       (9441, 9441, 'select', 1, NULL, '10 s', '0 s', 't', '{}', 'local', 'uniform', 10, 1, 0, 0, 'n1', now(), now(), 'spi', 900),
       (9442, 9441, 'select', 2, NULL, '10 s', '0 s', 't', '{}', 'local', 'uniform', 20, 2, 0, 0, 'n1', now(), now(), 'spi', 900);
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

-- bench_hgrm(): a run's histogram as HdrHistogram's .hgrm text.  Run 9851:
-- 90 reads in [98.304, 100.352) us, 9 in [262.144, 270.336), one in
-- [1048.576, 1081.344); 50 updates in [163.84, 167.936).  Run 9852 has no
-- histograms (recorded before them).  Each line is HdrHistogram's: the
-- value (a bucket's upper bound, ms), the percentile level, the count up
-- to it, 1/(1-level), 5 levels per half distance to 100%; then the last
-- line at 100% and the footer.
BEGIN;
INSERT INTO petagen.bench_results
    (id, kind, workers, duration, warmup, "table", target, target_node,
     distribution, operations, tps, errors, not_found, started_at, operation_stats)
    OVERRIDING SYSTEM VALUE
VALUES (9851, 'ycsb-a', 1, '1 s', '0 s', 't', '{}', 'local', 'zipfian', 150, 150, 0, 0, now(),
        '{"read": {"count": 100, "errors": 0, "not_found": 0, "max_us": 1050,
                   "histogram": [[98.304, 100.352, 90], [262.144, 270.336, 9], [1048.576, 1081.344, 1]]},
          "update": {"count": 50, "errors": 0, "not_found": 0, "max_us": 167,
                     "histogram": [[163.840, 167.936, 50]]},
          "insert": {"count": 0, "errors": 0, "not_found": 0, "histogram": []}}'),
       (9852, 'select', 1, '1 s', '0 s', 't', '{}', 'local', 'uniform', 10, 10, 0, 0, now(), NULL);
SELECT l.line FROM regexp_split_to_table(petagen.bench_hgrm(9851, 'read'), E'\n') WITH ORDINALITY AS l(line, n)
ORDER BY l.n;
-- Every kind merged (NULL, or 'all'): the updates' bucket in between.
SELECT l.line FROM regexp_split_to_table(petagen.bench_hgrm(9851), E'\n') WITH ORDINALITY AS l(line, n)
ORDER BY l.n;
SELECT petagen.bench_hgrm(9851) = petagen.bench_hgrm(9851, 'all') AS null_is_all;
-- One bucket: levels 0 and 100 only.
SELECT petagen.bench_hgrm(9851, 'update');
\set SHOW_CONTEXT never
SAVEPOINT bad;
SELECT petagen.bench_hgrm(9852);
ROLLBACK TO bad;
SELECT petagen.bench_hgrm(9851, 'insert');
ROLLBACK TO bad;
SELECT petagen.bench_hgrm(9851, 'reads');
ROLLBACK TO bad;
SELECT petagen.bench_hgrm(NULL);
ROLLBACK TO bad;
SELECT petagen.bench_hgrm(9899);
ROLLBACK TO bad;
\set SHOW_CONTEXT errors
ROLLBACK;

-- A real run: the total count and the 100% line are its operations and its
-- largest latency's bucket.
SELECT petagen.create_table('t', 2, fields => 2);
SELECT keys FROM petagen.load('t', 0, 1000);
CREATE TABLE runs AS
SELECT id, operations FROM petagen.bench('ycsb-a', workers => 2, "table" => 'b41.t', rows => 1000,
    operationcount => 300);
SELECT (regexp_match(petagen.bench_hgrm(r.id), 'Total count += +([0-9]+)'))[1]::bigint = r.operations
         AS total_is_operations,
       (regexp_match(petagen.bench_hgrm(r.id), E'\n *([0-9.]+) 1\\.000000000000 +([0-9]+)\n'))[1]::numeric
         = round(((SELECT max(h.upper_us) FROM petagen.bench_histogram(r.id) AS h) / 1000)::numeric, 3)
         AS last_line_is_top_bucket,
       (SELECT count(*) FROM regexp_split_to_table(petagen.bench_hgrm(r.id, 'update'), E'\n') AS l
         WHERE l ~ '^ +[0-9]') > 1 AS update_lines
  FROM runs AS r;
SELECT petagen.forget_bench(id) FROM runs;
DROP SCHEMA b41 CASCADE;
