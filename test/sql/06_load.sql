-- petagen.load(): rows land in the right leaves, equal petagen.rows(), with
-- consistent indexes; other shapes; ycsb duplicates; bad inputs.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS petagen;
CREATE EXTENSION IF NOT EXISTS amcheck;
CREATE EXTENSION IF NOT EXISTS pgtap;
RESET client_min_messages;
CREATE SCHEMA load06;
SET search_path = load06, public;

SELECT petagen.create_table('usertable');

-- 20000 rows into the 8-way table.
SELECT * FROM petagen.load('usertable', 0, 20000);
SELECT count(*) AS rows, count(DISTINCT ycsb_key) AS distinct_keys FROM usertable;
-- Each row is in the leaf PostgreSQL's own hash routing names.
SELECT tableoid::regclass AS leaf, count(*),
       bool_and(satisfies_hash_partition('usertable'::regclass, 8,
                substr(tableoid::regclass::text, 12)::int, ycsb_key)) AS right_leaf
FROM usertable GROUP BY 1 ORDER BY 1;
-- The content is exactly petagen.rows().
SELECT (SELECT count(*) FROM (SELECT * FROM usertable
        EXCEPT SELECT * FROM petagen.rows(NULL::usertable, 0, 20000)) s) AS extra,
       (SELECT count(*) FROM (SELECT * FROM petagen.rows(NULL::usertable, 0, 20000)
        EXCEPT SELECT * FROM usertable) s) AS missing;
-- Every leaf's index agrees with its heap.
SELECT count(*) AS indexes_checked,
       bool_and(bt_index_check(indexrelid, true) IS NOT NULL) AS all_ok
FROM (SELECT indexrelid FROM pg_index
      WHERE indrelid IN (SELECT inhrelid FROM pg_inherits
                         WHERE inhparent = 'usertable'::regclass)) i;
-- The primary key finds loaded rows.
SET enable_seqscan = off;
SELECT count(*) AS found FROM generate_series(0, 19999, 997) s
JOIN usertable ON ycsb_key = petagen.key(s);
RESET enable_seqscan;

-- An adjacent range in a second call.
SELECT * FROM petagen.load('usertable', 20000, 5000);
SELECT count(*) AS rows, count(DISTINCT ycsb_key) AS distinct_keys,
       (SELECT count(*) FROM (SELECT * FROM petagen.rows(NULL::usertable, 0, 25000)
        EXCEPT SELECT * FROM usertable) s) AS missing
FROM usertable;
SELECT count(*) AS indexes_checked,
       bool_and(bt_index_check(indexrelid, true) IS NOT NULL) AS all_ok
FROM (SELECT indexrelid FROM pg_index
      WHERE indrelid IN (SELECT inhrelid FROM pg_inherits
                         WHERE inhparent = 'usertable'::regclass)) i;

-- A plain table, ordered keys, options.
SELECT ycsb_table('plain', 2);
SELECT * FROM petagen.load('plain', 5, 1000, keys => 'ordered', seed => 3,
                           fieldlength => 10, prefix => 'k', zeropadding => 8);
SELECT (SELECT count(*) FROM (SELECT * FROM plain EXCEPT
        SELECT * FROM petagen.rows(NULL::plain, 5, 1000, keys => 'ordered', seed => 3,
                                   fieldlength => 10, prefix => 'k', zeropadding => 8)) s) AS extra,
       (SELECT count(*) FROM plain) AS rows,
       min(ycsb_key), max(ycsb_key) FROM plain;
SELECT bt_index_check('plain_pkey', true) IS NOT NULL AS index_ok;
-- count 0 writes nothing.
SELECT * FROM petagen.load('plain', 0, 0);

-- A leaf with its own column order and a dropped column.
CREATE TABLE mixed (ycsb_key varchar(64) PRIMARY KEY, field0 varchar(100),
    field1 varchar(100), field2 varchar(100)) PARTITION BY HASH (ycsb_key);
CREATE TABLE mixed_0 PARTITION OF mixed FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE mixed_1 (field2 varchar(100), junk int, field0 varchar(100),
    ycsb_key varchar(64) NOT NULL, field1 varchar(100));
ALTER TABLE mixed_1 DROP COLUMN junk;
ALTER TABLE mixed ATTACH PARTITION mixed_1 FOR VALUES WITH (MODULUS 2, REMAINDER 1);
SELECT * FROM petagen.load('mixed', 0, 3000, seed => 9);
SELECT tableoid::regclass AS leaf, count(*) FROM mixed GROUP BY 1 ORDER BY 1;
SELECT (SELECT count(*) FROM (SELECT * FROM mixed EXCEPT
        SELECT * FROM petagen.rows(NULL::mixed, 0, 3000, seed => 9)) s) AS extra,
       (SELECT count(*) FROM (SELECT * FROM petagen.rows(NULL::mixed, 0, 3000, seed => 9)
        EXCEPT SELECT * FROM mixed) s) AS missing;
SELECT bool_and(bt_index_check(indexrelid, true) IS NOT NULL) AS indexes_ok
FROM pg_index WHERE indrelid IN ('mixed_0'::regclass, 'mixed_1'::regclass);

-- ycsb keys: a key already present is counted and skipped, never an error.
SELECT ycsb_table('ycsb', 10);
INSERT INTO ycsb (ycsb_key, field0) VALUES (petagen.key(5, 'ycsb'), 'already here');
SELECT * FROM petagen.load('ycsb', 0, 10, keys => 'ycsb');
SELECT count(*) AS rows, count(*) FILTER (WHERE field0 = 'already here') AS kept
FROM ycsb;
-- Loading the same range again skips all of it.
SELECT * FROM petagen.load('ycsb', 0, 10, keys => 'ycsb');
-- go-ycsb keys, duplicates found in this transaction's own rows too.
BEGIN;
SELECT * FROM petagen.load('ycsb', 0, 10, keys => 'go-ycsb');
SELECT * FROM petagen.load('ycsb', 5, 10, keys => 'go-ycsb');
COMMIT;
SELECT count(*) AS rows FROM ycsb;
-- Without a unique index on ycsb_key duplicates cannot be told apart.
CREATE TABLE ycsb_noindex (LIKE usertable);
SELECT * FROM petagen.load('ycsb_noindex', 0, 10, keys => 'ycsb');
SELECT * FROM petagen.load('ycsb_noindex', 0, 10, keys => 'ycsb');

-- A CHECK constraint of a leaf is enforced.
CREATE TABLE checked (ycsb_key text PRIMARY KEY, field0 text  -- the CHECK is the point
    CHECK (length(field0) = 100));
SELECT * FROM petagen.load('checked', 0, 10);

-- Bad inputs: a table without ycsb_key, a hash tree missing a partition,
-- a deferrable unique constraint are shapes of their own.
CREATE TABLE not_ycsb (id int, field0 text);
CREATE TABLE halfway (ycsb_key text PRIMARY KEY, field0 text) PARTITION BY HASH (ycsb_key);
CREATE TABLE halfway_0 PARTITION OF halfway FOR VALUES WITH (MODULUS 2, REMAINDER 0);
SELECT ycsb_table('rls');
ALTER TABLE rls ENABLE ROW LEVEL SECURITY;
CREATE POLICY p ON rls USING (true);
SELECT ycsb_table('trig');
CREATE FUNCTION trig_fn() RETURNS trigger LANGUAGE plpgsql AS 'BEGIN RETURN NEW; END';
CREATE TRIGGER t BEFORE INSERT ON trig FOR EACH ROW EXECUTE FUNCTION trig_fn();
CREATE TABLE deferred (ycsb_key text, field0 text,
    UNIQUE (ycsb_key) DEFERRABLE INITIALLY DEFERRED);
CREATE ROLE petagen_load_reader IN ROLE petagen_operator;
GRANT USAGE ON SCHEMA load06, petagen TO petagen_load_reader;
GRANT SELECT ON plain, rls TO petagen_load_reader;
GRANT INSERT ON rls TO petagen_load_reader;

SELECT plan(15);
-- Scrambled keys are unique by construction: a reload is a unique violation.
SELECT throws_ok($$SELECT * FROM petagen.load('usertable', 100, 1)$$, '23505',
    NULL, 'reload of a scrambled key');
SELECT throws_ok($$SELECT * FROM petagen.load(NULL, 0, 1)$$, '22004',
    'argument "table" of petagen.load() must not be null', 'NULL table');
SELECT throws_ok($$SELECT * FROM petagen.load('plain', NULL, 1)$$, '22004',
    'argument "first" of petagen.load() must not be null', 'NULL first');
SELECT throws_ok($$SELECT * FROM petagen.load('plain', 0, 1, keys => NULL)$$, '22004',
    'argument "keys" of petagen.load() must not be null', 'NULL keys');
SELECT throws_ok($$SELECT * FROM petagen.load('plain', 0, 1, zeropadding => NULL)$$, '22004',
    'argument "zeropadding" of petagen.load() must not be null', 'NULL zeropadding');
SELECT throws_ok($$SELECT * FROM petagen.load('plain', -1, 1)$$, '22003',
    NULL, 'negative first');
SELECT throws_ok($$SELECT * FROM petagen.load('plain', 0, 1, keys => 'nope')$$, '22023',
    'unknown key mode "nope"', 'unknown key mode');
SELECT throws_ok($$SELECT * FROM petagen.load('not_ycsb', 0, 1)$$, '42703',
    '"not_ycsb" has no column "ycsb_key"', 'not a YCSB shape');
SELECT throws_ok($$SELECT * FROM petagen.load('plain', 0, 1, fieldlength => 0)$$, '22023',
    'fieldlength must be between 1 and 1048576, not 0', 'fieldlength out of range');
SELECT throws_ok($$SELECT * FROM petagen.load('halfway', 0, 10)$$, '23514',
    'no partition of relation "halfway" found for row', 'no partition for a key');
SELECT throws_ok($$SELECT * FROM petagen.load('checked', 10, 10, fieldlength => 50)$$, '23514',
    'new row for relation "checked" violates check constraint "checked_field0_check"',
    'CHECK constraint of a leaf');
SELECT throws_ok($$SELECT * FROM petagen.load('trig', 0, 1)$$, '0A000',
    'petagen cannot load "trig": it has trigger "t" on INSERT', 'insert trigger');
SELECT throws_ok($$SELECT * FROM petagen.load('deferred', 0, 1)$$, '0A000',
    'petagen cannot load "deferred": constraint "deferred_ycsb_key_key" is checked by a trigger',
    'deferrable unique constraint');
SET ROLE petagen_load_reader;
SELECT throws_ok($$SELECT * FROM petagen.load('plain', 0, 1)$$, '42501',
    'permission denied for table plain', 'no INSERT privilege');
SELECT throws_ok($$SELECT * FROM petagen.load('rls', 0, 1)$$, '0A000',
    'petagen cannot load "rls": row-level security is enabled for it', 'row-level security');
RESET ROLE;
SELECT * FROM finish();

-- Nothing of the failed loads was left behind.
SELECT (SELECT count(*) FROM plain) AS plain, (SELECT count(*) FROM halfway) AS halfway,
       (SELECT count(*) FROM checked) AS checked;

RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA load06 CASCADE;
DROP OWNED BY petagen_load_reader;
DROP ROLE petagen_load_reader;
RESET client_min_messages;
