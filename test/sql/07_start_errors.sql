-- Bad input to petagen.start() and the other job functions: every case ends
-- in its own error with the right errcode and message, leaves no job row
-- behind and starts no worker.  Nothing here may connect anywhere: the
-- foreign server points at a host that does not exist.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS petagen;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS postgres_fdw;
DROP ROLE IF EXISTS regress_petagen_op;
DROP ROLE IF EXISTS regress_petagen_outsider;
DROP ROLE IF EXISTS regress_petagen_nologin;
RESET client_min_messages;
CREATE SCHEMA errs07;
SET search_path = errs07, public;

CREATE ROLE regress_petagen_op LOGIN IN ROLE petagen_operator;
CREATE ROLE regress_petagen_nologin NOLOGIN IN ROLE petagen_operator;
CREATE ROLE regress_petagen_outsider;
GRANT USAGE ON SCHEMA errs07 TO regress_petagen_op, regress_petagen_outsider;

SELECT ycsb_table('ok');
-- The other tables are each wrong in the one way a refusal below is about:
-- shapes create_table() and ycsb_table() never make.
CREATE TABLE short_key (ycsb_key varchar(8), field0 text);
CREATE TABLE no_key (id text, field0 text);
CREATE TABLE bad_type (ycsb_key text, field0 int);
CREATE TABLE gap (ycsb_key text, field0 text, field2 text);
CREATE VIEW a_view AS SELECT * FROM ok;
CREATE MATERIALIZED VIEW a_matview AS SELECT * FROM ok;
CREATE SEQUENCE a_seq;
CREATE TABLE empty_parent (ycsb_key text, field0 text) PARTITION BY HASH (ycsb_key);
CREATE TABLE by_field (ycsb_key text, field0 text) PARTITION BY LIST (field0);
CREATE TABLE by_field_a PARTITION OF by_field FOR VALUES IN ('a');
CREATE SERVER nowhere FOREIGN DATA WRAPPER postgres_fdw
    OPTIONS (host 'petagen-no-such-host.invalid', port '1');
CREATE TABLE remote_only (ycsb_key text, field0 text) PARTITION BY HASH (ycsb_key);
CREATE FOREIGN TABLE remote_only_0 PARTITION OF remote_only
    FOR VALUES WITH (MODULUS 1, REMAINDER 0) SERVER nowhere;
CREATE FOREIGN TABLE remote (ycsb_key text, field0 text) SERVER nowhere;
SELECT ycsb_table('with_rls');
ALTER TABLE with_rls ENABLE ROW LEVEL SECURITY;
CREATE POLICY everything ON with_rls USING (true);
GRANT INSERT ON with_rls TO regress_petagen_op;
SELECT ycsb_table('with_trigger');
CREATE FUNCTION keep_row() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN RETURN NEW; END$$;
CREATE TRIGGER keep BEFORE INSERT ON with_trigger FOR EACH ROW EXECUTE FUNCTION keep_row();
CREATE TABLE with_fk (ycsb_key varchar(64) REFERENCES ok, field0 text);
CREATE TEMP TABLE a_temp (ycsb_key text, field0 text);

SELECT plan(75);

-- rows
SELECT throws_ok($$SELECT petagen.start(0, 1, 'ok')$$, '22003',
    'rows must be at least 1', 'rows 0');
SELECT throws_ok($$SELECT petagen.start(-1, 1, 'ok')$$, '22003',
    'rows must be between 0 and 9223372036854775807, not -1', 'rows negative');
SELECT throws_ok($$SELECT petagen.start(1.5, 1, 'ok')$$, '22023',
    'rows must be a whole number, not 1.5', 'rows fractional');
SELECT throws_ok($$SELECT petagen.start('NaN', 1, 'ok')$$, '22003',
    'rows must be between 0 and 9223372036854775807, not NaN', 'rows NaN');
SELECT throws_ok($$SELECT petagen.start('Infinity', 1, 'ok')$$, '22003',
    'rows must be between 0 and 9223372036854775807, not Infinity', 'rows infinite');
SELECT throws_ok($$SELECT petagen.start(9223372036854775808, 1, 'ok')$$, '22003',
    'rows must be between 0 and 9223372036854775807, not 9223372036854775808', 'rows past 2^63-1');
SELECT throws_ok($$SELECT petagen.start(1e30, 1, 'ok')$$, '22003',
    'rows must be between 0 and 9223372036854775807, not 1000000000000000000000000000000', 'rows 1e30');
-- NULL arguments
SELECT throws_ok($$SELECT petagen.start(NULL, 1, 'ok')$$, '22004',
    'argument "rows" of petagen.start() must not be null', 'NULL rows');
SELECT throws_ok($$SELECT petagen.start(10, NULL, 'ok')$$, '22004',
    'argument "workers" of petagen.start() must not be null', 'NULL workers');
SELECT throws_ok($$SELECT petagen.start(10, 1, NULL)$$, '22004',
    'argument "table" of petagen.start() must not be null', 'NULL table');
SELECT throws_ok($$SELECT petagen.start(10, 1, 'ok', keys => NULL)$$, '22004',
    'argument "keys" of petagen.start() must not be null', 'NULL keys');
SELECT throws_ok($$SELECT petagen.start(10, 1, 'ok', seed => NULL)$$, '22004',
    'argument "seed" of petagen.start() must not be null', 'NULL seed');
SELECT throws_ok($$SELECT petagen.start(10, 1, 'ok', chunk_rows => NULL, fieldlength => NULL)$$, '22004',
    'argument "fieldlength" of petagen.start() must not be null', 'NULL chunk_rows is the default, NULL fieldlength is refused');
-- workers
SELECT throws_ok($$SELECT petagen.start(10, 0, 'ok')$$, '22023',
    'workers must be between 1 and 128, not 0', 'workers 0');
SELECT throws_ok($$SELECT petagen.start(10, -1, 'ok')$$, '22023',
    'workers must be between 1 and 128, not -1', 'workers negative');
SELECT throws_ok($$SELECT petagen.start(10, 1000, 'ok')$$, '22023',
    'workers must be between 1 and 128, not 1000', 'workers over the bound');
SELECT throws_ok($$SELECT petagen.start(10, 20, 'ok')$$, '53400',
    'not enough free background worker slots for 20 workers',
    'workers over max_worker_processes');
-- generation options
SELECT throws_ok($$SELECT petagen.start(10, 1, 'ok', keys => 'hashed')$$, '22023',
    'unknown key mode "hashed"', 'unknown key mode');
SELECT throws_ok($$SELECT petagen.start(10, 1, 'ok', fieldlength => 0)$$, '22023',
    'fieldlength must be between 1 and 1048576, not 0', 'fieldlength 0');
SELECT throws_ok($$SELECT petagen.start(10, 1, 'ok', fieldlength => 101)$$, '22001',
    'fieldlength 101 is longer than the field columns of "ok" allow', 'fieldlength over varchar(100)');
SELECT throws_ok($$SELECT petagen.start(10, 1, 'short_key')$$, '22001',
    'keys of mode "scrambled" can be 23 characters long, longer than column ycsb_key of "short_key" allows',
    'keys over varchar(8)');
SELECT throws_ok($$SELECT petagen.start(10, 1, 'ok', prefix => repeat('p', 65))$$, '22023',
    'key prefix is too long', 'prefix too long');
SELECT throws_ok($$SELECT petagen.start(10, 1, 'ok', zeropadding => 0)$$, '22023',
    'zeropadding must be between 1 and 64, not 0', 'zeropadding 0');
-- job options
SELECT throws_ok($$SELECT petagen.start(10, 1, 'ok', chunk_rows => 0)$$, '22023',
    'chunk_rows must be between 1 and 100000000, not 0', 'chunk_rows 0');
SELECT throws_ok($$SELECT petagen.start(10, 1, 'ok', chunk_rows => 100000001)$$, '22023',
    'chunk_rows must be between 1 and 100000000, not 100000001', 'chunk_rows too large');
SELECT throws_ok($$SELECT petagen.start(10, 1, 'ok', disk_reserve => '-1MB')$$, '22023',
    'disk_reserve must not be negative, not "-1MB"', 'disk_reserve negative');
SELECT throws_ok($$SELECT petagen.start(10, 1, 'ok', disk_reserve => '-1')$$, '22023',
    'disk_reserve must not be negative, not "-1"', 'disk_reserve -1 bytes');
SELECT throws_ok($$SELECT petagen.start(10, 1, 'ok', disk_reserve => 'abc')$$, '22023',
    'invalid size: "abc"', 'disk_reserve not a size');
SELECT throws_ok($$SELECT petagen.start(10, 1, 'ok', max_rate => '-10MB')$$, '22023',
    'max_rate must not be negative, not "-10MB"', 'max_rate negative');
SELECT throws_ok($$SELECT petagen.start(10, 1, 'ok', max_rate => '10 parsecs')$$, '22023',
    'invalid size: "10 parsecs"', 'max_rate not a size');
-- the table: names and kinds
SELECT throws_ok($$SELECT petagen.start(10, 1, 'missing')$$, '42P01',
    'relation "missing" does not exist', 'no such table');
SELECT throws_ok($$SELECT petagen.start(10, 1, 'nowhere.ok')$$, '3F000',
    'schema "nowhere" does not exist', 'no such schema');
SELECT throws_ok($$SELECT petagen.start(10, 1, '')$$, '42602',
    'invalid name syntax', 'empty table name');
SELECT throws_ok($$SELECT petagen.start(10, 1, 'a.b.c.d')$$, '42601',
    'improper relation name (too many dotted names): a.b.c.d', 'too many dotted names');
SELECT throws_ok($$SELECT petagen.start(10, 1, 'a_view')$$, '42809',
    '"a_view" is not a table', 'a view');
SELECT throws_ok($$SELECT petagen.start(10, 1, 'a_matview')$$, '42809',
    '"a_matview" is not a table', 'a materialized view');
SELECT throws_ok($$SELECT petagen.start(10, 1, 'a_seq')$$, '42809',
    '"a_seq" is not a table', 'a sequence');
SELECT throws_ok($$SELECT petagen.start(10, 1, 'ok_pkey')$$, '42809',
    '"ok_pkey" is not a table', 'an index');
SELECT throws_ok($$SELECT petagen.start(10, 1, 'a_temp')$$, '0A000',
    'petagen cannot load temporary table "a_temp" with a job', 'a temporary table');
-- the table: shape and partitions
SELECT throws_ok($$SELECT petagen.start(10, 1, 'no_key')$$, '42703',
    '"no_key" has no column "ycsb_key"', 'no ycsb_key');
SELECT throws_ok($$SELECT petagen.start(10, 1, 'bad_type')$$, '42804',
    'column "field0" of "bad_type" has type integer, not text or varchar', 'a non-text field');
SELECT throws_ok($$SELECT petagen.start(10, 1, 'gap')$$, '42P16',
    'field columns of "gap" have a gap: field1 is missing', 'a gap in the fields');
SELECT throws_ok($$SELECT petagen.start(10, 1, 'empty_parent')$$, '55000',
    'partitioned table "empty_parent" has no partitions', 'no partitions');
SELECT throws_ok($$SELECT petagen.start(10, 1, 'by_field')$$, '0A000',
    'table "by_field" is not partitioned by the column ycsb_key', 'partitioned by another column');
SELECT throws_ok($$SELECT petagen.start(10, 1, 'remote_only')$$, '42809',
    '"remote_only" has no local leaf on this node', 'only a foreign leaf');
SELECT throws_ok($$SELECT petagen.start(10, 1, 'remote')$$, '42809',
    '"remote" has no local leaf on this node', 'a foreign table');
-- the table: what a direct write would bypass
SELECT throws_ok($$SELECT petagen.start(10, 1, 'with_trigger')$$, '0A000',
    'petagen cannot load "with_trigger": it has trigger "keep" on INSERT', 'an INSERT trigger');
SELECT throws_ok($$SELECT petagen.start(10, 1, 'with_fk')$$, '0A000',
    'petagen cannot load "with_fk": constraint "with_fk_ycsb_key_fkey" is checked by a trigger',
    'a foreign key');

-- Privileges.  pgTAP keeps its state in tables of the calling role, so each
-- statement switches role itself; the failed statement's SET ROLE is undone.
SELECT throws_ok($$SET ROLE regress_petagen_op; SELECT petagen.start(10, 1, 'with_rls')$$, '0A000',
    'petagen cannot load "with_rls": row-level security is enabled for it',
    'row-level security, as an operator who is not the owner');
SELECT throws_ok($$SET ROLE regress_petagen_op; SELECT petagen.start(10, 1, 'ok')$$, '42501',
    'permission denied for table ok', 'an operator without INSERT');
-- A role without LOGIN: before PostgreSQL 17 its workers could not connect,
-- so start() refuses it; from 17 on they can, and the next check answers
-- (TAP 016_nologin runs a whole load as such a role).
SELECT throws_ok($$SET ROLE regress_petagen_nologin; SELECT petagen.start(10, 1, 'errs07.ok')$$, '42501',
    CASE WHEN current_setting('server_version_num')::int < 170000
         THEN 'role "regress_petagen_nologin" cannot log in, so petagen workers cannot run as it'
         ELSE 'permission denied for schema errs07' END,
    'an operator role without LOGIN: refused before 17, where its workers could not connect');
-- resume() runs the workers as the job's owner, so it is the owner that must
-- log in before 17; from 17 on the owner's privileges on the table answer.
INSERT INTO petagen.jobs ("table", rows, workers, chunk_rows, keys, seed,
    fieldlength, prefix, zeropadding, started_by, state)
VALUES ('ok', 10, 1, 100000, 'scrambled', 0, 100, 'user', 1, 'regress_petagen_nologin', 'stopped');
SELECT throws_ok(format('SELECT petagen.resume(%s)', (SELECT job FROM petagen.jobs)), '42501',
    CASE WHEN current_setting('server_version_num')::int < 170000
         THEN 'role "regress_petagen_nologin" cannot log in, so petagen workers cannot run as it' END,
    'resume of a job whose owner cannot log in (before 17) or use its table');
DELETE FROM petagen.jobs;
SELECT throws_ok($$SET ROLE regress_petagen_outsider; SELECT petagen.start(10, 1, 'ok')$$, '42501',
    'permission denied for schema petagen', 'not an operator, no USAGE on schema petagen');
GRANT USAGE ON SCHEMA petagen TO regress_petagen_outsider;
SELECT throws_ok($$SET ROLE regress_petagen_outsider; SELECT petagen.start(10, 1, 'ok')$$, '42501',
    'permission denied for function start', 'not an operator');
SELECT throws_ok($$SET ROLE regress_petagen_outsider; SELECT petagen.resume(1)$$, '42501',
    'permission denied for function resume', 'resume, not an operator');
SELECT throws_ok($$SET ROLE regress_petagen_outsider; SELECT petagen.stop(1)$$, '42501',
    'permission denied for function stop', 'stop, not an operator');
-- Should EXECUTE be granted to a non-operator, start() itself still refuses.
GRANT EXECUTE ON FUNCTION petagen.start TO regress_petagen_outsider;
SELECT throws_ok($$SET ROLE regress_petagen_outsider; SELECT petagen.start(10, 1, 'ok')$$, '42501',
    'permission denied to run petagen load jobs', 'not an operator, with EXECUTE');
REVOKE EXECUTE ON FUNCTION petagen.start FROM regress_petagen_outsider;
REVOKE USAGE ON SCHEMA petagen FROM regress_petagen_outsider;
SELECT is(current_user, session_user, 'back to the session role');

-- A job that does not exist
SELECT throws_ok($$SELECT petagen.resume(424242)$$, '42704',
    'load job 424242 does not exist', 'resume a missing job');
SELECT throws_ok($$SELECT petagen.stop(424242)$$, '42704',
    'load job 424242 does not exist', 'stop a missing job');
SELECT throws_ok($$SELECT petagen.wait(424242)$$, '42704',
    'load job 424242 does not exist', 'wait for a missing job');
SELECT throws_ok($$SELECT * FROM petagen.status(424242)$$, '42704',
    'load job 424242 does not exist', 'status of a missing job');
SELECT throws_ok($$SELECT * FROM petagen.verify(424242)$$, '42704',
    'load job 424242 does not exist', 'verify a missing job');
SELECT throws_ok($$SELECT petagen.resume(NULL)$$, '22004',
    'argument "job" of petagen.resume() must not be null', 'resume NULL');
SELECT throws_ok($$SELECT petagen.wait(NULL)$$, '22004',
    'argument "job" of petagen.wait() must not be null', 'wait for NULL');
SELECT throws_ok($$SELECT petagen.wait(424242, '-1 second')$$, '22023',
    'timeout must not be negative', 'wait with a negative timeout');
SELECT throws_ok($$SELECT * FROM petagen.verify('ok', -1)$$, '22003',
    'rows must be between 0 and 9223372036854775807, not -1', 'verify negative rows');

-- A second job on a table that has one.  The first is a job row that looks
-- running (no worker: nothing is loaded), so the refusal is deterministic.
INSERT INTO petagen.jobs ("table", rows, workers, chunk_rows, keys, seed,
    fieldlength, prefix, zeropadding, started_by)
VALUES ('ok', 10, 1, 100000, 'scrambled', 0, 100, 'user', 1, current_user::regrole);
SELECT throws_ok($$SELECT petagen.start(10, 1, 'ok')$$, '55006',
    format('"ok" already has load job %s', (SELECT job FROM petagen.jobs)),
    'a second job on one table');
DELETE FROM petagen.jobs;

-- None of the above left a job row or started a worker.
SELECT is(count(*), 0::bigint, 'no job row left behind') FROM petagen.jobs;
SELECT pg_sleep(0.5);
SELECT is(count(*), 0::bigint, 'no petagen worker started')
FROM pg_stat_activity WHERE backend_type = 'petagen worker';

-- The same, with a real first job: two start() calls in one statement, the
-- second refused and the first rolled back with it.  Its worker is never
-- registered: that happens only when a transaction commits.
SELECT throws_ok($sql$DO $$BEGIN
        PERFORM petagen.start(1, 1, 'ok', method => 'chunk');
        PERFORM petagen.start(1, 1, 'ok', method => 'chunk');
    END$$$sql$, '55006',
    format('"ok" already has load job %s',
           (SELECT last_value + 1 FROM petagen.jobs_job_seq)),
    'a second job on one table, in the transaction of the first');
-- wait() in the transaction that started the job would never return.
SELECT throws_ok($$SELECT petagen.wait(petagen.start(1, 1, 'ok', method => 'chunk'))$$, '55000',
    format('load job %s was started in this transaction',
           (SELECT last_value + 1 FROM petagen.jobs_job_seq)),
    'wait() in the transaction of start()');
SELECT pg_sleep(0.5);
DO $$
BEGIN
    FOR i IN 1 .. 600 LOOP
        EXIT WHEN NOT EXISTS (SELECT FROM pg_stat_activity
                              WHERE backend_type = 'petagen worker');
        PERFORM pg_sleep(0.1);
    END LOOP;
END
$$;
SELECT is(count(*), 0::bigint, 'the rolled-back job left no row') FROM petagen.jobs;
SELECT is(count(*), 0::bigint, 'its worker left')
FROM pg_stat_activity WHERE backend_type = 'petagen worker';
SELECT is(count(*), 0::bigint, 'nothing was loaded') FROM ok;

SELECT * FROM finish();

SET client_min_messages = warning;
DROP SCHEMA errs07 CASCADE;
DROP SERVER nowhere CASCADE;
DROP ROLE regress_petagen_op;
DROP ROLE regress_petagen_outsider;
DROP ROLE regress_petagen_nologin;
RESET client_min_messages;
