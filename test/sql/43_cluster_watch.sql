-- What cluster_status() and cluster_verify() read of each node, on one node:
-- _verify_local() checks this node's own leaves only (here, every leaf),
-- with the rows verify() gives; a job without a live run has no wait shares
-- and no rate over a window; petagen.straggler_window's bounds; and
-- chart_cluster_load()'s refusals.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS petagen;
CREATE EXTENSION IF NOT EXISTS pgtap;
RESET client_min_messages;
CREATE SCHEMA b43;
SET search_path = b43, public;

SELECT petagen.create_table('t', 4, fields => 2);
SELECT petagen.start(20000, workers => 1, "table" => 'b43.t', fieldlength => 10,
                     method => 'leaf') AS job \gset
SELECT petagen.wait(:job);

SELECT plan(12);
SELECT results_eq(format('SELECT leaf, local, expected, present, missing, extra, duplicated, ok, node'
                         ' FROM petagen._verify_local(%s) ORDER BY leaf', :job),
                  format('SELECT leaf, local, expected, present, missing, extra, duplicated, ok, node'
                         ' FROM petagen.verify(%s) ORDER BY leaf', :job),
                  '_verify_local(): every leaf is local here, as verify() finds them');
SELECT is((SELECT sum(present) FROM petagen._verify_local(:job)), 20000::numeric,
          '_verify_local(): every key present');
SELECT throws_ok('SELECT * FROM petagen._verify_local(NULL)', '22004', NULL,
                 '_verify_local() of NULL');
SELECT is(petagen._job_waits(:job), NULL, 'a job without a live run: no wait shares');
SELECT is(petagen._recent_rate(:job, 60), NULL, 'a job without a live run: no rate over a window');
SELECT is(petagen._job_waits(4242), NULL, 'no such job: no wait shares');
SELECT is((SELECT count(*) FROM petagen.status_details(:job) WHERE waits IS NOT NULL OR bound IS NOT NULL),
          0::bigint, 'status_details() of a job that ended: no wait shares');
SELECT is(current_setting('petagen.straggler_window'), '1min', 'straggler_window is a minute by default');
SELECT throws_ok($$SET petagen.straggler_window = '6min'$$, '22023', NULL,
                 'straggler_window: at most 5 minutes');
SELECT throws_ok($$SET petagen.straggler_window = 0$$, '22023', NULL,
                 'straggler_window: at least a second');
SELECT throws_ok('SELECT petagen.chart_cluster_load(NULL)', '22004',
                 'argument "cluster_job" of petagen.chart_cluster_load() must not be null',
                 'chart_cluster_load() of NULL');
SELECT throws_ok('SELECT petagen.chart_cluster_load(4242)', '42704',
                 'cluster job 4242 does not exist', 'chart_cluster_load() of no such cluster job');
SELECT * FROM finish();
SET client_min_messages = warning;
SELECT state FROM petagen.forget(:job);
RESET client_min_messages;
DROP SCHEMA b43 CASCADE;
