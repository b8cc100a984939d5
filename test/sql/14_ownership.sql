-- Who may touch the job catalog and a job: roles read the catalog and never
-- write it (only petagen's functions do, as its owner), and stop(),
-- resume() and wait() on a job need the privileges of the role that owns
-- it.  The jobs here are rows with no worker, so nothing depends on timing.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS petagen;
CREATE EXTENSION IF NOT EXISTS pgtap;
DROP ROLE IF EXISTS regress_own_alice;
DROP ROLE IF EXISTS regress_own_bob;
DROP ROLE IF EXISTS regress_own_alice_member;
DROP ROLE IF EXISTS regress_own_watcher;
RESET client_min_messages;
CREATE SCHEMA own13;
SET search_path = own13, public;

CREATE ROLE regress_own_alice LOGIN IN ROLE petagen_operator;
CREATE ROLE regress_own_bob LOGIN IN ROLE petagen_operator;
CREATE ROLE regress_own_alice_member LOGIN IN ROLE regress_own_alice;
CREATE ROLE regress_own_watcher LOGIN IN ROLE pg_monitor;
GRANT USAGE ON SCHEMA own13 TO PUBLIC;
SELECT ycsb_table('t');
GRANT INSERT ON t TO regress_own_alice;

-- A stopped job of alice's, as start() and stop() would have left it.
INSERT INTO petagen.jobs ("table", rows, workers, chunk_rows, keys, seed,
    fieldlength, prefix, zeropadding, started_by, state)
VALUES ('t', 10, 1, 100000, 'scrambled', 0, 100, 'user', 1, 'regress_own_alice', 'stopped');
SELECT job AS alice_job FROM petagen.jobs \gset

SELECT plan(28);

-- Another operator may not act on alice's job.
SELECT throws_ok(format('SET ROLE regress_own_bob; SELECT petagen.stop(%s)', :alice_job), '42501',
    format('permission denied for load job %s', :alice_job), 'stop of another role''s job');
SELECT throws_ok(format('SET ROLE regress_own_bob; SELECT petagen.resume(%s)', :alice_job), '42501',
    format('permission denied for load job %s', :alice_job), 'resume of another role''s job');
SELECT throws_ok(format('SET ROLE regress_own_bob; SELECT petagen.wait(%s)', :alice_job), '42501',
    format('permission denied for load job %s', :alice_job), 'wait for another role''s job');
SELECT throws_ok(format('SET ROLE regress_own_watcher; SELECT petagen.wait(%s)', :alice_job), '42501',
    format('permission denied for load job %s', :alice_job), 'wait, as a pg_monitor member');

-- The owner, a role with its privileges and a superuser may.
SET ROLE regress_own_alice;
SELECT petagen.wait(:alice_job) AS alice_waits, petagen.stop(:alice_job) AS alice_stops;
SET ROLE regress_own_alice_member;
SELECT petagen.wait(:alice_job) AS member_waits;
RESET ROLE;
SELECT petagen.wait(:alice_job) AS superuser_waits;

-- Nobody but petagen writes the catalog: every direct write is refused.
SELECT throws_ok(format('SET ROLE %s; %s', r, w), '42501', NULL, format('%s: %s', r, w))
FROM (VALUES ('regress_own_bob'), ('regress_own_watcher')) AS roles(r),
     (VALUES ($$INSERT INTO petagen.jobs ("table", rows, workers, chunk_rows, keys, seed, fieldlength, prefix, zeropadding, started_by) VALUES ('t', 1, 1, 1, 'scrambled', 0, 1, 'u', 1, 'regress_own_bob')$$),
             ('UPDATE petagen.jobs SET state = ''running'''),
             ('DELETE FROM petagen.jobs'),
             ('INSERT INTO petagen.chunks VALUES (1, 0, 10, 10, 10, 0, 0, 0, 1)'),
             ('DELETE FROM petagen.chunks'),
             ('DELETE FROM petagen.chunk_intents'),
             ('INSERT INTO petagen.job_indexes (job, on_table, index_name, stage, create_sql) VALUES (1, ''t'', ''x'', 0, ''SELECT 1'')'),
             ('UPDATE petagen.job_indexes SET create_sql = ''SELECT 1'''),
             ('INSERT INTO petagen.progress_log (job, keys_done, rows_written, bytes) VALUES (1, 0, 0, 0)'),
             ('INSERT INTO petagen.bench_results (kind, workers, duration, warmup, "table", target, target_node, distribution, operations, tps, errors, not_found, started_at) VALUES (''select'', 1, ''1s'', ''0s'', ''t'', ''{}'', ''local'', ''uniform'', 0, 0, 0, 0, now())'),
             ('DELETE FROM petagen.bench_results'),
             ('SELECT nextval(''petagen.bench_results_id_seq'')')) AS writes(w)
ORDER BY r, w;

-- What each role may do on each catalog table: read, and no more.
SELECT r.rolname, c.relname,
       string_agg(p.priv, ',' ORDER BY p.priv) FILTER (WHERE has_table_privilege(r.rolname, c.oid, p.priv)) AS may
FROM (VALUES ('petagen_operator'), ('pg_monitor'), ('public')) AS r(rolname),
     pg_class c,
     (VALUES ('SELECT'), ('INSERT'), ('UPDATE'), ('DELETE'), ('TRUNCATE'), ('REFERENCES'), ('TRIGGER')) AS p(priv)
WHERE c.relnamespace = 'petagen'::regnamespace AND c.relkind = 'r'
GROUP BY r.rolname, c.relname
ORDER BY r.rolname, c.relname;

-- Nothing above changed alice's job.
SELECT state, run FROM petagen.jobs;

SELECT * FROM finish();

SET client_min_messages = warning;
DELETE FROM petagen.jobs;
DROP SCHEMA own13 CASCADE;
DROP ROLE regress_own_alice_member;
DROP ROLE regress_own_alice;
DROP ROLE regress_own_bob;
DROP ROLE regress_own_watcher;
RESET client_min_messages;
