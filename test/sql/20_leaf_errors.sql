-- Bad method arguments of petagen.start() and check(): every case ends in
-- its own error with the right errcode, leaves no job row behind and
-- starts no worker.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS petagen;
CREATE EXTENSION IF NOT EXISTS pgtap;
DROP ROLE IF EXISTS regress_petagen_leaf_op;
RESET client_min_messages;
CREATE SCHEMA errs18;
SET search_path = errs18, public;

CREATE ROLE regress_petagen_leaf_op LOGIN IN ROLE petagen_operator;
GRANT USAGE ON SCHEMA errs18 TO regress_petagen_leaf_op;

CREATE TABLE ok (ycsb_key varchar(64) PRIMARY KEY, field0 varchar(100))
    PARTITION BY HASH (ycsb_key);
CREATE TABLE ok_0 PARTITION OF ok FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE ok_1 PARTITION OF ok FOR VALUES WITH (MODULUS 2, REMAINDER 1);
GRANT INSERT ON ok, ok_0, ok_1 TO regress_petagen_leaf_op;
GRANT TRUNCATE ON ok_0 TO regress_petagen_leaf_op;
CREATE TABLE full_t (ycsb_key varchar(64) PRIMARY KEY, field0 varchar(100))
    PARTITION BY HASH (ycsb_key);
CREATE TABLE full_t_0 PARTITION OF full_t FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE full_t_1 PARTITION OF full_t FOR VALUES WITH (MODULUS 2, REMAINDER 1);
INSERT INTO full_t VALUES ('x', 'y');

SELECT plan(18);

SELECT throws_ok($$SELECT petagen.start(10, 1, 'ok', method => NULL)$$, '22004',
    'argument "method" of petagen.start() must not be null', 'method NULL');
SELECT throws_ok($$SELECT petagen.start(10, 1, 'ok', method => 'leaves')$$, '22023',
    'method must be ''auto'', ''chunk'' or ''leaf'', not "leaves"', 'method unknown');
SELECT throws_ok($$SELECT petagen.start(10, 1, 'ok', method => 'LEAF')$$, '22023',
    'method must be ''auto'', ''chunk'' or ''leaf'', not "LEAF"', 'method is case-sensitive');
SELECT throws_ok($$SELECT * FROM petagen.check(10, 1, 'ok', method => 'row')$$, '22023',
    'method must be ''auto'', ''chunk'' or ''leaf'', not "row"', 'check() method unknown');
SELECT throws_ok($$SELECT petagen.start(10, 1, 'ok', keys => 'ycsb', method => 'leaf')$$, '0A000',
    'method => ''leaf'' cannot load keys of mode "ycsb"', 'leaf with ycsb keys');
SELECT throws_ok($$SELECT petagen.start(10, 1, 'ok', keys => 'go-ycsb', method => 'leaf')$$, '0A000',
    'method => ''leaf'' cannot load keys of mode "go-ycsb"', 'leaf with go-ycsb keys');
SELECT throws_ok($$SELECT petagen.start(10, 1, 'ok', indexes => 'after', method => 'leaf')$$, '22023',
    'method => ''leaf'' cannot be combined with indexes => ''after''', 'leaf with indexes after');
SELECT throws_ok($$SET ROLE regress_petagen_leaf_op; SELECT petagen.start(10, 1, 'ok', method => 'leaf')$$,
    '42501', 'permission denied for table ok_1',
    'leaf, as an operator without TRUNCATE on a leaf');
RESET ROLE;
SELECT throws_ok($$SELECT petagen.start(10, 1, 'full_t', method => 'leaf')$$, '55000',
    'preflight check refuses the load of "full_t": leaf method: 1 local leaves hold rows; a leaf load writes only into empty leaves',
    'leaf into a table with a leaf that holds rows');
SELECT is(count(*), 1::bigint, 'check() names the leaf that holds rows as an error')
FROM petagen.check(10, 1, 'full_t', method => 'leaf')
WHERE severity = 'error' AND finding LIKE 'leaf method:%' AND object IN ('full_t_0', 'full_t_1');
SELECT is(count(*), 0::bigint, 'check() owes no freeze after a leaf load: its rows are frozen')
FROM petagen.check(10, 1, 'ok', method => 'leaf')
WHERE finding LIKE 'freeze:%';
SELECT is(finding, 'xids: the load uses about 2 transaction IDs, one per local leaf',
    'check() counts a leaf job''s transaction IDs by leaf')
FROM petagen.check(100000, 1, 'ok', method => 'leaf')
WHERE finding LIKE 'xids:%';
SELECT is(finding, 'xids: the load uses about 2 transaction IDs, one per chunk of 50000 keys',
    'check() counts a chunk job''s transaction IDs by chunk')
FROM petagen.check(100000, 1, 'ok', chunk_rows => 50000, method => 'chunk')
WHERE finding LIKE 'xids:%';
SELECT throws_ok($$SELECT petagen.start(100000, 1, 'ok', chunk_rows => 9999, method => 'leaf')$$,
    '22023', 'chunk_rows of a leaf job must be at least 10000, not 9999',
    'a leaf job''s routing ranges have a floor: one file each');
SELECT throws_ok($$SELECT petagen.check(100000, 1, 'ok', chunk_rows => 1, method => 'leaf')$$,
    '22023', 'chunk_rows of a leaf job must be at least 10000, not 1',
    'check() refuses the same floor');
SELECT is(detail ~ '^leaf method: the routing files take about \d+ kB in 25 files \(one per 40000 keys\) in the data directory until the job ends; .* are free above the disk reserve, (\d+ inodes|inodes without limit)$',
    true, 'check() counts a leaf job''s routing files and the free inodes')
FROM petagen.check_details(1000000, 1, 'ok', chunk_rows => 40000, method => 'leaf')
WHERE object = 'pg_petagen';
SELECT is(detail ~ ' in 4 files \(one per 250000 keys\)', true,
    'a leaf job''s default range: about four per worker, at least 10,000 keys')
FROM petagen.check_details(1000000, 1, 'ok', method => 'leaf')
WHERE object = 'pg_petagen';

-- nothing was left behind
SELECT is(count(*), 0::bigint, 'no job row left behind') FROM petagen.jobs;

SELECT * FROM finish();

SET client_min_messages = warning;
DROP SCHEMA errs18 CASCADE;
DROP ROLE regress_petagen_leaf_op;
RESET client_min_messages;
