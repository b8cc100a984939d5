-- Charts that do not mislead, checked in the SVG text itself (no libxml
-- needed: this runs on every major, 13_charts only where the server has
-- libxml).  A load of some seconds logs at least 20 progress_log rows
-- whatever petagen.progress_log_interval says, each naming its phase;
-- chart_load() draws the phases and says what the load was and into which
-- table (a dropped one by that word, never its OID); chart_sweep() refuses
-- the id of a single run; any number of series get distinct colours; no
-- coordinate has more than one decimal.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS petagen;
RESET client_min_messages;
CREATE SCHEMA marks12;
SET search_path = marks12, public;

-- How often pattern occurs in svg.
CREATE FUNCTION marks(svg text, pattern text) RETURNS bigint
LANGUAGE sql AS $$ SELECT count(*) FROM regexp_matches(svg, pattern, 'g') $$;

-- What a chart says: its subtitle, its phase bands (in order) and keys,
-- its points, and whether some attribute has a number with more than one
-- decimal.
CREATE FUNCTION says(svg text, OUT subtitle text, OUT bands text, OUT keys text,
    OUT points bigint, OUT long_decimals boolean)
LANGUAGE sql AS $$
    SELECT (regexp_match(svg, '<text x="400" y="42"[^>]*>([^<]*)</text>'))[1],
           (SELECT string_agg(m[1], ', ') FROM regexp_matches(svg, '<rect class="phase"[^>]*><title>([a-z]+):', 'g') AS m),
           (SELECT string_agg(m[1], ', ') FROM regexp_matches(svg, 'stroke="#888888"/><text x="[0-9.]+" y="[0-9.]+">([a-z]+)</text>', 'g') AS m),
           marks(svg, '<circle class="mark"'),
           svg ~ '="-?[0-9]+\.[0-9]{2,}'
$$;

-- A chunk load of small rows throttled to some 5 seconds, with the default
-- 5-minute progress_log_interval: rows for a chart of 20 points and more,
-- all "loading" but the last, which says how the run ended.
LOAD 'petagen';
SHOW petagen.progress_log_interval;
SELECT petagen.create_table('slow', fields => 1, fieldlength => 10),
       petagen.create_table('leafy'), petagen.create_table('late');
SELECT petagen.start(400000, workers => 2, "table" => 'marks12.slow', fieldlength => 10,
                     max_rate => '4MB', method => 'chunk') AS slow \gset
SELECT petagen.wait(:slow);
SELECT count(*) >= 20 AS twenty_rows_or_more,
       max(logged_at) - min(logged_at) >= interval '3 s' AS over_seconds,
       string_agg(DISTINCT phase, ', ') AS phases,
       (array_agg(phase ORDER BY logged_at DESC))[1] AS last
FROM petagen.progress_log WHERE job = :slow;
SELECT subtitle, bands, keys, points >= 60 AS three_panels_of_20, long_decimals
FROM says(petagen.chart_load(:slow));

-- A leaf load routes, then loads; a chunk load with indexes after loads,
-- then builds the indexes.  Each phase begins with a row of its own.
SELECT petagen.start(20000, workers => 2, "table" => 'marks12.leafy', method => 'leaf') AS leafy \gset
SELECT petagen.wait(:leafy);
SELECT petagen.start(20000, workers => 2, "table" => 'marks12.late', indexes => 'after',
                     frozen => true, method => 'chunk') AS late \gset
SELECT petagen.wait(:late);
SELECT job = :leafy AS leaf_job, string_agg(phase, ', ' ORDER BY first) AS phases_in_order
FROM (SELECT job, phase, min(logged_at) AS first FROM petagen.progress_log
      WHERE job IN (:leafy, :late) GROUP BY job, phase) AS p
GROUP BY job ORDER BY job;
SELECT subtitle, bands, keys, long_decimals FROM says(petagen.chart_load(:leafy));
SELECT subtitle, bands, keys, long_decimals FROM says(petagen.chart_load(:late));

-- A dropped table is named so; a stopped run's end lasts until it resumed.
-- Rows of 0.1 (phase NULL) draw no band.  Fixture rows, rolled back.
BEGIN;
INSERT INTO petagen.jobs ("table", rows, workers, chunk_rows, keys, seed, fieldlength,
                          prefix, zeropadding, started_by, state, created_at, started_at)
VALUES (4242424242::oid::regclass, 1000000, 2, 100000, 'ordered', 0, 100, 'user', 1,
        current_user::regrole, 'done', '2024-01-01 00:00:00+00', '2024-01-01 00:00:00+00')
RETURNING job AS gone \gset
INSERT INTO petagen.jobs ("table", rows, workers, chunk_rows, keys, seed, fieldlength,
                          prefix, zeropadding, started_by, state, created_at, started_at)
VALUES ('slow', 1000000, 2, 100000, 'scrambled', 0, 100, 'user', 1,
        current_user::regrole, 'done', '2024-01-01 00:00:00+00', '2024-01-01 00:00:00+00')
RETURNING job AS old \gset
INSERT INTO petagen.progress_log (job, logged_at, keys_done, rows_written, bytes, phase)
SELECT CASE WHEN s.old THEN :old ELSE :gone END, '2024-01-01 00:00:00+00'::timestamptz + v.sec * interval '1 s', v.r, v.r, v.r * 1100,
       CASE WHEN NOT s.old THEN v.phase END
FROM (VALUES (0, 0, 'loading'), (60, 200000, 'loading'), (120, 400000, 'loading'),
             (130, 400000, 'stopped'), (400, 400000, 'loading'), (460, 600000, 'loading'),
             (520, 1000000, 'loading'), (521, 1000000, 'done')) AS v(sec, r, phase),
     (VALUES (false), (true)) AS s(old);
SELECT subtitle, bands, keys, points, long_decimals FROM says(petagen.chart_load(:gone));
SELECT subtitle, bands, keys, points, long_decimals FROM says(petagen.chart_load(:old));
SELECT position('4242424242' IN petagen.chart_load(:gone)) = 0 AS no_oid;
ROLLBACK;

-- chart_sweep() draws a sweep, and refuses the id of a single run.
BEGIN;
INSERT INTO petagen.bench_results
    (id, sweep, kind, workers, duration, warmup, "table", target, target_node,
     distribution, operations, tps, errors, not_found, node, started_at, finished_at)
    OVERRIDING SYSTEM VALUE
VALUES (9001, 9001, 'select', 1, '10 s', '0 s', 't', '{}', 'local', 'uniform', 10, 1, 0, 0, 'n1', now(), now()),
       (9002, 9001, 'select', 2, '10 s', '0 s', 't', '{}', 'local', 'uniform', 20, 2, 0, 0, 'n1', now(), now()),
       (9003, NULL, 'select', 4, '10 s', '0 s', 't', '{}', 'local', 'uniform', 40, 4, 0, 0, 'n1', now(), now());
SELECT points, long_decimals FROM says(petagen.chart_sweep(9001));
\set SHOW_CONTEXT never
SAVEPOINT refused;
SELECT petagen.chart_sweep(9003);
ROLLBACK TO refused;
SELECT petagen.chart_sweep(9004);
ROLLBACK TO refused;
\set SHOW_CONTEXT errors
ROLLBACK;

-- Colours: 40 series, 40 colours; a chart of 12 series uses 12.
SELECT count(DISTINCT petagen._svg_color(i)) AS colours_of_40 FROM generate_series(1, 40) AS i;
BEGIN;
INSERT INTO petagen.bench_results
    (id, kind, workers, duration, warmup, "table", target, target_node,
     distribution, operations, tps, errors, not_found, node, started_at, finished_at)
    OVERRIDING SYSTEM VALUE
SELECT 9100 + n * 10 + w, 'select', w, '10 s', '0 s', 't', '{}', 'local', 'uniform', 10,
       1000 * n + 300 * w, 0, 0, 'node' || n, now(), now()
FROM generate_series(1, 12) AS n, generate_series(1, 3) AS w;
SELECT count(DISTINCT m[1]) AS series_colours, long_decimals
FROM says(petagen.chart_bench(ARRAY(SELECT id FROM petagen.bench_results WHERE id BETWEEN 9100 AND 9499))) AS s,
     regexp_matches(petagen.chart_bench(ARRAY(SELECT id FROM petagen.bench_results WHERE id BETWEEN 9100 AND 9499)),
                    '<polyline fill="none" stroke="(#[0-9a-f]{6})"', 'g') AS m
GROUP BY long_decimals;
-- The node matrix: cells of a third of 460 pixels, labels at rounded positions.
INSERT INTO petagen.bench_results
    (id, kind, workers, duration, warmup, "table", target, target_node,
     distribution, operations, tps, errors, not_found, node, started_at, finished_at)
    OVERRIDING SYSTEM VALUE
SELECT 9500 + a * 3 + b, 'select', 2, '10 s', '0 s', 't', '{}', CASE WHEN a = b THEN 'local' ELSE 'm' || b END,
       'uniform', 10, 1000 + 100 * a + b, 0, 0, 'm' || a, now(), now()
FROM generate_series(1, 3) AS a, generate_series(1, 3) AS b;
SELECT marks(svg, '<rect class="cell"') AS cells, (says(svg)).long_decimals
FROM (SELECT petagen.chart_matrix(ARRAY(SELECT id FROM petagen.bench_results WHERE id > 9500)) AS svg) AS c;
ROLLBACK;

-- Later tests expect no jobs of this one.
DELETE FROM petagen.jobs WHERE job IN (:slow, :leafy, :late);
SET client_min_messages = warning;
DROP SCHEMA marks12 CASCADE;
RESET client_min_messages;
