-- The answers of the job and benchmark functions: every function taking a
-- load job id or a benchmark run id refuses NULL (22004) and an id that
-- names nothing (42704) alike; verify(job, bench_inserts => 'ignore')
-- proves the key space while leaving out the rows benchmark runs
-- inserted; status() says when a stop rolled work back; bench() names the
-- argument that spells keys otherwise than the load job.  Jobs and runs
-- are rows written as start() and bench() leave them, with fixed numbers
-- (OVERRIDING SYSTEM VALUE), so the output is the same on every run.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS petagen;
CREATE EXTENSION IF NOT EXISTS pgtap;
RESET client_min_messages;
CREATE SCHEMA answers36;
SET search_path = answers36, public;
\set VERBOSITY default

-- 1. NULL and unknown ids, function by function.
SELECT plan(37);
SELECT throws_ok(format('SELECT * FROM petagen.%s(NULL%s)', f, rest), '22004',
                 format('argument "%s" of petagen.%s() must not be null', arg, f),
                 format('%s(NULL)', f))
FROM (VALUES ('stop', 'job', ''), ('resume', 'job', ''), ('wait', 'job', ''),
             ('forget', 'job', ''), ('alter', 'job', ', max_rate => ''1MB'''),
             ('status_workers', 'job', ''), ('load_rates', 'job', ''),
             ('verify', 'job', '::bigint'), ('chart_load', 'job', ''),
             ('bench_operations', 'run', ''), ('bench_samples', 'run', ''),
             ('bench_json', 'run', ''), ('chart_samples', 'run', ''),
             ('forget_bench', 'id', ''), ('chart_sweep', 'sweep', ''))
     AS t(f, arg, rest);
SELECT throws_ok(format('SELECT * FROM petagen.%s(424242%s)', f, rest), '42704',
                 format('%s 424242 does not exist', what), format('%s(424242)', f))
FROM (VALUES ('stop', 'load job', ''), ('resume', 'load job', ''), ('wait', 'load job', ''),
             ('forget', 'load job', ''), ('alter', 'load job', ', max_rate => ''1MB'''),
             ('status', 'load job', ''), ('status_workers', 'load job', ''),
             ('load_rates', 'load job', ''), ('verify', 'load job', '::bigint'),
             ('chart_load', 'load job', ''),
             ('bench_operations', 'benchmark run', ''), ('bench_samples', 'benchmark run', ''),
             ('bench_json', 'benchmark run', ''), ('chart_samples', 'benchmark run', ''),
             ('forget_bench', 'benchmark run', ''), ('chart_sweep', 'benchmark sweep', ''))
     AS t(f, what, rest);
-- status() without a job lists the jobs: NULL is its default, not an error.
SELECT lives_ok('SELECT * FROM petagen.status(NULL)', 'status(NULL) lists the jobs');

-- 2. verify(job, bench_inserts): a load job's key space, and a benchmark
-- run of the job that inserted keys past it (options.insert_base ..
-- insert_end, as bench() records them), three of which are in the table,
-- beside a row no benchmark wrote.
SELECT petagen.create_table('vb', partitions => 4, fields => 1);
SELECT keys FROM petagen.load('vb', 0, 100);
INSERT INTO petagen.jobs (job, "table", rows, workers, chunk_rows, keys, seed,
    fieldlength, prefix, zeropadding, started_by, state)
OVERRIDING SYSTEM VALUE
VALUES (3601, 'vb', 100, 1, 100, 'scrambled', 0, 100, 'user', 1, CURRENT_USER::regrole, 'done');
INSERT INTO petagen.bench_results (kind, workers, duration, warmup, "table", target,
    target_node, distribution, options, operations, tps, errors, not_found, inserts, started_at)
VALUES ('ycsb-d', 1, '1 s', '0 s', 'answers36.vb', '{vb}', 'local', 'latest',
        '{"job": 3601, "insert_base": 1000, "insert_end": 1005}', 5, 5, 0, 0, 5, now());
INSERT INTO vb SELECT * FROM petagen.rows(NULL::vb, 1000, 3);
INSERT INTO vb VALUES ('stray', 'x');
SELECT results_eq($$SELECT sum(expected)::bigint, sum(present)::bigint, sum(extra)::bigint, bool_and(ok) FROM petagen.verify(3601)$$,
                  $$VALUES (100::bigint, 100::bigint, 4::bigint, false)$$,
                  'bench_inserts => ''count'' (the default): the inserted rows are extra');
SELECT results_eq($$SELECT sum(expected)::bigint, sum(present)::bigint, sum(extra)::bigint, bool_and(ok) FROM petagen.verify(3601, bench_inserts => 'ignore')$$,
                  $$VALUES (100::bigint, 100::bigint, 1::bigint, false)$$,
                  'bench_inserts => ''ignore'': only the stray row is extra');
DELETE FROM vb WHERE ycsb_key = 'stray';
SELECT results_eq($$SELECT bool_and(ok) FROM petagen.verify(3601, bench_inserts => 'ignore')$$,
                  $$VALUES (true)$$, 'bench_inserts => ''ignore'' proves the key space exactly');
SELECT throws_ok($$SELECT * FROM petagen.verify(3601, bench_inserts => 'skip')$$, '22023',
                 'unknown bench_inserts "skip"', 'an unknown bench_inserts');
SELECT throws_ok($$SELECT * FROM petagen.verify(3601, bench_inserts => NULL)$$, '22004',
                 'argument "bench_inserts" of petagen.verify() must not be null', 'bench_inserts NULL');
SELECT * FROM finish();

-- Each leaf's row, and the NOTICE that says how many rows were left out;
-- a missing key is still found.
SELECT leaf, expected, present, missing, extra, ok FROM petagen.verify(3601, bench_inserts => 'ignore');
DELETE FROM vb WHERE ycsb_key = petagen.key(7);
SELECT sum(missing) AS missing, sum(extra) AS extra, bool_and(ok) AS ok
FROM petagen.verify(3601, bench_inserts => 'ignore');
SELECT sum(missing) AS missing, sum(extra) AS extra, bool_and(ok) AS ok
FROM petagen.verify(3601);

-- 3. A stopped job whose progress_log showed more keys done than its
-- ledger holds: status() says that work was rolled back.
INSERT INTO petagen.jobs (job, "table", rows, workers, chunk_rows, keys, seed,
    fieldlength, prefix, zeropadding, started_by, state)
OVERRIDING SYSTEM VALUE
VALUES (3602, 'vb', 100, 1, 10, 'scrambled', 0, 100, 'user', 1, CURRENT_USER::regrole, 'stopped');
INSERT INTO petagen.chunks (job, chunk, keys, rows_written, bytes, duplicates,
    foreign_skipped, worker, run)
VALUES (3602, 0, 10, 10, 1000, 0, 0, 0, 1), (3602, 1, 10, 10, 1000, 0, 0, 0, 1);
INSERT INTO petagen.progress_log (job, keys_done, rows_written, bytes, phase)
VALUES (3602, 27, 27, 2700, 'loading'), (3602, 20, 20, 2000, 'stopped');
SELECT phase, progress, eta, state, reason FROM petagen.status(3602);
SELECT reason FROM petagen.status_details(3602) WHERE worker IS NULL;

-- 4. bench() with keys that spell the key space otherwise than the load
-- job it is from: the warning names the argument.  The runs get fixed ids
-- (the sequence is set back after them).
SELECT last_value AS bench_seq, is_called AS bench_called FROM petagen.bench_results_id_seq \gset
ALTER SEQUENCE petagen.bench_results_id_seq RESTART WITH 3601;
SELECT kind, operations FROM petagen.bench('select', 1, warmup => '0 s', "table" => 'vb',
    keys => 'ordered', operationcount => 1);
SELECT kind, operations FROM petagen.bench('select', 1, warmup => '0 s', "table" => 'vb',
    prefix => 'key', zeropadding => 4, operationcount => 1);

SELECT setval('petagen.bench_results_id_seq', :bench_seq, :'bench_called') AS restored \gset

SET client_min_messages = warning;
DELETE FROM petagen.bench_results WHERE "table" = 'answers36.vb';
DELETE FROM petagen.jobs WHERE job IN (3601, 3602);
DROP SCHEMA answers36 CASCADE;
RESET client_min_messages;
