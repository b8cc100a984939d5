-- check() finds a load's keys already in the table (a bounded probe of key
-- numbers in the local leaves' indexes on ycsb_key) for every method, and
-- start() refuses on it; resume() refuses a job whose table another job
-- wrote into since it last did.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS petagen;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS postgres_fdw;
DROP ROLE IF EXISTS regress_petagen_keys_op;
RESET client_min_messages;
CREATE SCHEMA keys20;
SET search_path = keys20, public;

-- A full table: the key space 0 .. 999 loaded in this session.
SELECT petagen.create_table('full_t', 4);
SELECT rows_written FROM petagen.load('full_t', 0, 1000);
-- Every probed key is there, whatever the method: an error finding naming
-- the first key found and its leaf.
SELECT m.how, severity, object, detail, hint IS NOT NULL AS has_hint
FROM (VALUES ('chunk', false, 'maintain'), ('frozen', true, 'maintain'),
             ('indexes after', false, 'after')) m(how, frozen, indexes),
     petagen.check_details(1000, 1, 'full_t', frozen => m.frozen, indexes => m.indexes)
WHERE finding LIKE 'keys:%' ORDER BY m.how;
SELECT hint FROM petagen.check_details(1000, 1, 'full_t') WHERE finding LIKE 'keys:%';
-- A leaf job: its error on leaves that hold rows says they hold the load's
-- keys (method => 'chunk' would not help); no second error.
SELECT severity, object, detail, hint
FROM petagen.check_details(1000, 1, 'full_t', method => 'leaf')
WHERE finding LIKE 'keys:%' OR finding LIKE 'leaf method:%hold rows%';
-- Other keys of the same table (another prefix) are not there.
SELECT severity, finding FROM petagen.check(1000, 1, 'full_t', prefix => 'other')
WHERE finding LIKE 'keys:%';
-- A key space partly there: the key numbers 0 .. 99 of 1000.
SELECT petagen.create_table('part_t', 2);
SELECT rows_written FROM petagen.load('part_t', 0, 100);
SELECT severity, object, finding FROM petagen.check(1000, 1, 'part_t') WHERE finding LIKE 'keys:%';

-- Leaves with rows and no index on ycsb_key cannot be probed: a warning.
CREATE TABLE noindex_t (ycsb_key varchar(64), field0 varchar(100));
INSERT INTO noindex_t SELECT * FROM petagen.rows(NULL::noindex_t, 0, 10);
SELECT severity, object, finding FROM petagen.check(1000, 1, 'noindex_t') WHERE finding LIKE 'keys:%';

-- Only local leaves are probed: a foreign leaf's keys are another node's.
CREATE SERVER keys20_nowhere FOREIGN DATA WRAPPER postgres_fdw
    OPTIONS (host 'petagen-no-such-host.invalid', port '1');
-- (No primary key on the root: a foreign partition cannot have one.)
CREATE TABLE mixed_t (ycsb_key varchar(64), field0 varchar(100))
    PARTITION BY HASH (ycsb_key);
CREATE TABLE mixed_t_0 PARTITION OF mixed_t FOR VALUES WITH (MODULUS 2, REMAINDER 0);
ALTER TABLE mixed_t_0 ADD PRIMARY KEY (ycsb_key);
CREATE FOREIGN TABLE mixed_t_1 PARTITION OF mixed_t
    FOR VALUES WITH (MODULUS 2, REMAINDER 1) SERVER keys20_nowhere;
SELECT rows_written FROM petagen.load('mixed_t_0', 0, 1000);
SELECT severity, object, finding FROM petagen.check(1000, 1, 'mixed_t') WHERE finding LIKE 'keys:%';

-- A role that may not read the table is not told whether keys are there.
CREATE ROLE regress_petagen_keys_op LOGIN IN ROLE petagen_operator;
GRANT USAGE ON SCHEMA keys20 TO regress_petagen_keys_op;
GRANT INSERT ON full_t TO regress_petagen_keys_op;
SET ROLE regress_petagen_keys_op;
SELECT severity, object, detail, hint FROM petagen.check_details(1000, 1, 'full_t') WHERE finding LIKE 'keys:%';
RESET ROLE;
-- SELECT on ycsb_key is enough.
GRANT SELECT (ycsb_key) ON full_t TO regress_petagen_keys_op;
SET ROLE regress_petagen_keys_op;
SELECT severity, object FROM petagen.check(1000, 1, 'full_t') WHERE finding LIKE 'keys:%';
RESET ROLE;

-- resume(): job 1 starts into an empty table and pauses at its disk reserve
-- before writing anything; stopped, job 2 loads the table; resuming job 1
-- is refused, unless force => true.
SELECT petagen.create_table('resume_t', 2);
SELECT petagen.start(1000, 1, 'resume_t', disk_reserve => '1000TB', force => true,
                     method => 'chunk') AS job1 \gset
SELECT petagen.stop(:job1);
SELECT petagen.start(1000, 1, 'resume_t', method => 'chunk') AS job2 \gset
SELECT petagen.wait(:job2);

SELECT plan(6);
SELECT throws_ok($$SELECT petagen.start(1000, 1, 'full_t')$$, '55000',
    'preflight check refuses the load of "full_t": keys: 65 of the 65 key numbers probed are already in the table, the first being key number 0 ("user1526461823633441937") in "full_t_p3": the load would write them again',
    'start() refuses a load whose keys are in the table');
SELECT throws_ok($$SELECT petagen.start(1000, 1, 'full_t', method => 'leaf')$$, '55000',
    NULL, 'start() refuses a leaf load into the full table');
SELECT throws_ok(format('SELECT petagen.resume(%s)', :job1), '55000',
    format('load job %s wrote into "resume_t" since load job %s last did', :job2, :job1),
    'resume() refuses a job whose table another job wrote into since');
SELECT throws_ok(format('SELECT petagen.resume(%s, force => NULL)', :job1), '22004',
    'argument "force" of petagen.resume() must not be null', 'resume(): NULL force');
-- force => true resumes it: it pauses at its reserve again, and stops.
SELECT is(petagen.resume(:job1, force => true), :'job1'::bigint, 'resume() with force => true runs');
SELECT is(petagen.stop(:job1), 'stopped', 'the forced resume ran');
SELECT * FROM finish();

DELETE FROM petagen.jobs;
SET client_min_messages = warning;
DROP SCHEMA keys20 CASCADE;
DROP SERVER keys20_nowhere CASCADE;
DROP OWNED BY regress_petagen_keys_op;
DROP ROLE regress_petagen_keys_op;
RESET client_min_messages;
