-- Bad frozen and indexes options of petagen.start(): every case ends in its
-- own error with the right errcode, leaves no job row behind, starts no
-- worker and keeps every index where it was.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS petagen;
CREATE EXTENSION IF NOT EXISTS pgtap;
DROP ROLE IF EXISTS regress_petagen_frz_op;
RESET client_min_messages;
CREATE SCHEMA errs10;
SET search_path = errs10, public;

CREATE ROLE regress_petagen_frz_op LOGIN IN ROLE petagen_operator;
GRANT USAGE ON SCHEMA errs10 TO regress_petagen_frz_op;

SELECT ycsb_table('ok');
CREATE INDEX ok_field0 ON ok (field0);
GRANT INSERT ON ok TO regress_petagen_frz_op;
-- An exclusion constraint is the point of excluded and of parted_p1's.
CREATE TABLE excluded (ycsb_key text, field0 text,
    EXCLUDE USING btree (ycsb_key WITH =));
SELECT petagen.create_table('parted', 2, fields => 1);
ALTER TABLE parted_p1 ADD EXCLUDE USING btree (field0 WITH =);

SELECT plan(14);

-- frozen
SELECT throws_ok($$SELECT petagen.start(10, 1, 'ok', frozen => NULL)$$, '22004',
    'argument "frozen" of petagen.start() must not be null', 'frozen NULL');
SELECT throws_ok($$SELECT petagen.start(10, 1, 'ok', keys => 'ycsb', frozen => true)$$, '0A000',
    'frozen loads cannot use keys of mode "ycsb"', 'frozen with ycsb keys');
SELECT throws_ok($$SELECT petagen.start(10, 1, 'ok', keys => 'go-ycsb', frozen => true)$$, '0A000',
    'frozen loads cannot use keys of mode "go-ycsb"', 'frozen with go-ycsb keys');

-- indexes
SELECT throws_ok($$SELECT petagen.start(10, 1, 'ok', indexes => NULL)$$, '22004',
    'argument "indexes" of petagen.start() must not be null', 'indexes NULL');
SELECT throws_ok($$SELECT petagen.start(10, 1, 'ok', indexes => 'later')$$, '22023',
    'indexes must be "maintain" or "after", not "later"', 'indexes unknown');
SELECT throws_ok($$SELECT petagen.start(10, 1, 'ok', indexes => 'AFTER')$$, '22023',
    'indexes must be "maintain" or "after", not "AFTER"', 'indexes is case-sensitive');
SELECT throws_ok($$SELECT petagen.start(10, 1, 'ok', keys => 'ycsb', indexes => 'after')$$, '0A000',
    'indexes => ''after'' cannot load keys of mode "ycsb"', 'indexes after with ycsb keys');
SELECT throws_ok($$SELECT petagen.start(10, 1, 'ok', keys => 'go-ycsb', indexes => 'after')$$, '0A000',
    'indexes => ''after'' cannot load keys of mode "go-ycsb"', 'indexes after with go-ycsb keys');
SELECT throws_ok($$SET ROLE regress_petagen_frz_op; SELECT petagen.start(10, 1, 'ok', indexes => 'after')$$,
    '42501', 'must be owner of table ok to load it with indexes => ''after''',
    'indexes after, as an operator who is not the owner');
SELECT throws_ok($$SELECT petagen.start(10, 1, 'excluded', indexes => 'after')$$, '0A000',
    'indexes => ''after'' cannot set aside exclusion constraint "excluded_ycsb_key_excl" of errs10.excluded',
    'indexes after with an exclusion constraint');
SELECT throws_ok($$SELECT petagen.start(10, 1, 'parted', indexes => 'after')$$, '0A000',
    'indexes => ''after'' cannot set aside exclusion constraint "parted_p1_field0_excl" of errs10.parted_p1',
    'indexes after with an exclusion constraint on a leaf');

-- nothing was left behind
SELECT is(count(*), 0::bigint, 'no job row left behind') FROM petagen.jobs;
SELECT is(count(*), 0::bigint, 'no index recorded') FROM petagen.job_indexes;
SELECT is(string_agg(indexname, ',' ORDER BY indexname), 'ok_field0,ok_pkey,parted_p0_pkey,parted_p1_field0_excl,parted_p1_pkey',
    'every index is still there')
FROM pg_indexes WHERE schemaname = 'errs10' AND tablename IN ('ok', 'parted_p0', 'parted_p1');

SELECT * FROM finish();

SET client_min_messages = warning;
DROP SCHEMA errs10 CASCADE;
DROP ROLE regress_petagen_frz_op;
RESET client_min_messages;
