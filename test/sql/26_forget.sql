-- petagen.forget(job) and petagen.forget_bench(id): who may call them, bad
-- input, and which rows go.  The jobs and runs here are rows with no
-- worker, written as start(), stop() and bench() would have left them, so
-- nothing depends on timing; 071_forget (TAP) forgets real jobs, their
-- files and a running job's refusal.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS petagen;
CREATE EXTENSION IF NOT EXISTS pgtap;
DROP ROLE IF EXISTS regress_forget_alice;
DROP ROLE IF EXISTS regress_forget_bob;
DROP ROLE IF EXISTS regress_forget_alice_member;
DROP ROLE IF EXISTS regress_forget_watcher;
RESET client_min_messages;
CREATE SCHEMA forget20;
SET search_path = forget20, public;

CREATE ROLE regress_forget_alice LOGIN IN ROLE petagen_operator;
CREATE ROLE regress_forget_bob LOGIN IN ROLE petagen_operator;
CREATE ROLE regress_forget_alice_member LOGIN IN ROLE regress_forget_alice;
CREATE ROLE regress_forget_watcher LOGIN IN ROLE pg_monitor;
GRANT USAGE ON SCHEMA forget20 TO PUBLIC;
SELECT ycsb_table('t');
SELECT ycsb_table('u');
SELECT ycsb_table('v');
GRANT INSERT ON t, u TO regress_forget_alice;

-- A job of alice's in state `state` on table tab, with a row in every table
-- that names a job.
CREATE FUNCTION alice_job(state text, tab regclass DEFAULT 'forget20.t')
RETURNS bigint LANGUAGE sql AS $$
    WITH j AS (
        INSERT INTO petagen.jobs ("table", rows, workers, chunk_rows, keys, seed,
            fieldlength, prefix, zeropadding, started_by, state)
        VALUES (tab, 10, 1, 5, 'scrambled', 0, 100, 'user', 1,
                'regress_forget_alice', state)
        RETURNING job),
    c AS (INSERT INTO petagen.chunks SELECT job, 0, 5, 5, 500, 0, 0, 0, 1 FROM j),
    p AS (INSERT INTO petagen.progress_log (job, keys_done, rows_written, bytes)
          SELECT job, 5, 5, 500 FROM j),
    i AS (INSERT INTO petagen.chunk_intents (job, chunk, leaves, from_blocks, xid_bound, worker, run)
          SELECT job, 1, ARRAY[tab::oid], '{0}', pg_current_xact_id(), 0, 1 FROM j),
    x AS (INSERT INTO petagen.job_indexes (job, on_table, index_name, stage, create_sql)
          SELECT job, tab, 't_pkey', 0, 'SELECT 1' FROM j),
    s AS (INSERT INTO petagen.job_shards SELECT job, 102008 FROM j)
    SELECT job FROM j
$$;

-- The rows of job $1 in every table that names a job.
CREATE FUNCTION job_rows(job bigint) RETURNS text LANGUAGE sql AS $$
    SELECT format('jobs %s, chunks %s, progress_log %s, chunk_intents %s, job_indexes %s, job_shards %s',
        (SELECT count(*) FROM petagen.jobs j WHERE j.job = $1),
        (SELECT count(*) FROM petagen.chunks c WHERE c.job = $1),
        (SELECT count(*) FROM petagen.progress_log p WHERE p.job = $1),
        (SELECT count(*) FROM petagen.chunk_intents i WHERE i.job = $1),
        (SELECT count(*) FROM petagen.job_indexes x WHERE x.job = $1),
        (SELECT count(*) FROM petagen.job_shards s WHERE s.job = $1))
$$;

-- A benchmark run of $1's, in sweep $2 (NULL: none); returns its id.  The
-- runs of this file are those of table forget20.t: earlier files leave
-- runs of their own.
CREATE FUNCTION bench_run(run_by regrole, sweep bigint) RETURNS bigint LANGUAGE sql AS $$
    INSERT INTO petagen.bench_results (sweep, kind, workers, duration, warmup,
        "table", target, target_node, distribution, operations, tps, errors,
        not_found, run_by, started_at)
    VALUES (sweep, 'select', 1, '1 s', '0 s', 'forget20.t', '{t}', 'local',
            'uniform', 10, 10, 0, 0, run_by, now())
    RETURNING id
$$;

SELECT alice_job('stopped') AS stopped_job \gset
SELECT alice_job('running') AS interrupted_job \gset
SELECT alice_job('done') AS done_job \gset
SELECT alice_job('stopped', 'forget20.u') AS unbuilt_job \gset
UPDATE petagen.jobs SET indexes = 'after' WHERE job = :unbuilt_job;
SELECT bench_run('regress_forget_alice', NULL) AS alice_run \gset
SELECT bench_run('regress_forget_alice', NULL) AS alice_sweep \gset
UPDATE petagen.bench_results SET sweep = id WHERE id = :alice_sweep;
SELECT bench_run('regress_forget_alice', :alice_sweep) AS alice_sweep_2 \gset
SELECT bench_run('regress_forget_alice', :alice_sweep) AS alice_sweep_3 \gset
SELECT bench_run('regress_forget_bob', NULL) AS bob_run \gset

SELECT plan(22);

-- Bad input.
SELECT throws_ok('SELECT petagen.forget(NULL)', '22004',
    'argument "job" of petagen.forget() must not be null', 'forget(NULL)');
SELECT throws_ok('SELECT petagen.forget(-1)', '42704',
    'load job -1 does not exist', 'forget() of an unknown job');
SELECT throws_ok('SELECT petagen.forget_bench(NULL)', '22004',
    'argument "id" of petagen.forget_bench() must not be null', 'forget_bench(NULL)');
SELECT throws_ok('SELECT petagen.forget_bench(-1)', '42704',
    'benchmark run -1 does not exist', 'forget_bench() of an unknown run');

-- Roles that are not operators may not call them at all.
SELECT throws_ok(format('SET ROLE regress_forget_watcher; SELECT petagen.forget(%s)', :stopped_job),
    '42501', 'permission denied for function forget', 'forget(), as a pg_monitor member');
SELECT throws_ok(format('SET ROLE regress_forget_watcher; SELECT petagen.forget_bench(%s)', :alice_run),
    '42501', 'permission denied for function forget_bench', 'forget_bench(), as a pg_monitor member');

-- Another operator may not forget alice's job or runs; nothing goes.
SELECT throws_ok(format('SET ROLE regress_forget_bob; SELECT petagen.forget(%s)', :stopped_job),
    '42501', format('permission denied for load job %s', :stopped_job), 'forget() of another role''s job');
SELECT throws_ok(format('SET ROLE regress_forget_bob; SELECT petagen.forget_bench(%s)', :alice_run),
    '42501', format('permission denied for benchmark run %s', :alice_run), 'forget_bench() of another role''s run');
SELECT throws_ok(format('SET ROLE regress_forget_bob; SELECT petagen.forget_bench(%s)', :alice_sweep),
    '42501', format('permission denied for benchmark run %s', :alice_sweep), 'forget_bench() of another role''s sweep');
RESET ROLE;
SELECT is(job_rows(:stopped_job),
    'jobs 1, chunks 1, progress_log 1, chunk_intents 1, job_indexes 1, job_shards 1',
    'a refused forget() removes nothing');
SELECT is((SELECT count(*) FROM petagen.bench_results WHERE "table" = 'forget20.t'), 5::bigint,
    'a refused forget_bench() removes nothing');

-- A job started in this transaction gets its workers at commit: refused.
BEGIN;
SELECT petagen.start(10, 1, 'forget20.v', method => 'chunk') AS new_job \gset
SELECT throws_ok(format('SELECT petagen.forget(%s)', :new_job), '55006',
    format('load job %s was started in this transaction', :new_job),
    'forget() of a job started in the same transaction');
ROLLBACK;

-- Indexes an indexes => 'after' job set aside and has not built again are
-- recorded only in its job_indexes rows: refused while the table is there.
SELECT throws_ok(format('SELECT petagen.forget(%s)', :unbuilt_job), '55000',
    format('load job %s has not built the indexes it set aside', :unbuilt_job),
    'forget() of a job whose set-aside indexes are not built');
DROP TABLE u;
SELECT is(f.state, 'stopped', 'forget() of that job once its table is dropped') FROM petagen.forget(:unbuilt_job) AS f;

-- A rolled back forget() keeps the job.  forget() returns what it
-- removed, and the bench() arguments of the job's key space; when no other
-- job loaded the table (bench() took its key space from this one) a NOTICE
-- gives them.
BEGIN;
SET LOCAL ROLE regress_forget_alice;
\set VERBOSITY default
SELECT job = :stopped_job AS job, "table", state, chunks, progress_log, key_space
FROM petagen.forget(:stopped_job);
SELECT job = :interrupted_job AS job, "table", state, chunks, progress_log, key_space
FROM petagen.forget(:interrupted_job);
SELECT job = :done_job AS job, "table", state, chunks, progress_log, key_space
FROM petagen.forget(:done_job);
\set VERBOSITY terse
ROLLBACK;
SELECT is(job_rows(:stopped_job),
    'jobs 1, chunks 1, progress_log 1, chunk_intents 1, job_indexes 1, job_shards 1',
    'a rolled back forget() keeps every row');

-- The owner forgets a stopped job; a role with its privileges an
-- interrupted one (running in the catalog, no worker); a superuser a done
-- one.  Each returns the state it had and leaves no row naming it.
SET ROLE regress_forget_alice;
SELECT is(f.state, 'stopped', 'the owner forgets a stopped job') FROM petagen.forget(:stopped_job) AS f;
SET ROLE regress_forget_alice_member;
SELECT is(f.state, 'interrupted', 'a member of the owner forgets an interrupted job') FROM petagen.forget(:interrupted_job) AS f;
RESET ROLE;
SELECT is(f.state, 'done', 'a superuser forgets a done job') FROM petagen.forget(:done_job) AS f;
SELECT is(job_rows(j), 'jobs 0, chunks 0, progress_log 0, chunk_intents 0, job_indexes 0, job_shards 0',
    format('no row names the forgotten %s job', state))
FROM (VALUES (:stopped_job, 'stopped'), (:interrupted_job, 'interrupted'),
             (:done_job, 'done')) AS forgotten(j, state);

-- Runs: a later run of a sweep goes alone, a sweep's id takes the whole
-- sweep, a lone run goes alone.
SET ROLE regress_forget_alice;
SELECT petagen.forget_bench(:alice_sweep_3) AS sweep_run_removed;
SELECT petagen.forget_bench(:alice_sweep) AS sweep_runs_removed;
SELECT petagen.forget_bench(:alice_run) AS lone_run_removed;
RESET ROLE;
SELECT is((SELECT array_agg(id ORDER BY id) FROM petagen.bench_results WHERE "table" = 'forget20.t'),
    ARRAY[:bob_run]::bigint[], 'forget_bench() removed exactly alice''s runs');

SELECT * FROM finish();

SET client_min_messages = warning;
DELETE FROM petagen.bench_results WHERE "table" = 'forget20.t';
DROP SCHEMA forget20 CASCADE;
DROP ROLE regress_forget_alice_member;
DROP ROLE regress_forget_alice;
DROP ROLE regress_forget_bob;
DROP ROLE regress_forget_watcher;
RESET client_min_messages;
