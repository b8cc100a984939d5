-- A partition as the table of load(), start(), check() and verify(): only the
-- keys PostgreSQL would route into it from the root of its partition tree
-- are written, the rest are skipped and counted as foreign, so no leaf holds
-- a row that belongs elsewhere and loading every leaf separately gives what
-- loading the root gives.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS petagen;
CREATE EXTENSION IF NOT EXISTS pgtap;
RESET client_min_messages;
CREATE SCHEMA part15;
SET search_path = part15, public;
SELECT plan(3);

-- hash, two levels: pt_1 is itself hash-partitioned by ycsb_key (a tree
-- create_table() does not make; so are the range and list trees below)
CREATE TABLE pt (ycsb_key varchar(64) PRIMARY KEY, field0 varchar(100))
    PARTITION BY HASH (ycsb_key);
CREATE TABLE pt_0 PARTITION OF pt FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE pt_1 PARTITION OF pt FOR VALUES WITH (MODULUS 2, REMAINDER 1)
    PARTITION BY HASH (ycsb_key);
CREATE TABLE pt_1_1 PARTITION OF pt_1 FOR VALUES WITH (MODULUS 4, REMAINDER 1);
CREATE TABLE pt_1_3 PARTITION OF pt_1 FOR VALUES WITH (MODULUS 4, REMAINDER 3);
-- the same shape, loaded through the root, as the oracle
CREATE TABLE whole (LIKE pt INCLUDING ALL) PARTITION BY HASH (ycsb_key);
CREATE TABLE whole_0 PARTITION OF whole FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE whole_1 PARTITION OF whole FOR VALUES WITH (MODULUS 2, REMAINDER 1)
    PARTITION BY HASH (ycsb_key);
CREATE TABLE whole_1_1 PARTITION OF whole_1 FOR VALUES WITH (MODULUS 4, REMAINDER 1);
CREATE TABLE whole_1_3 PARTITION OF whole_1 FOR VALUES WITH (MODULUS 4, REMAINDER 3);

-- Each leaf and the sub-partitioned partition loaded on its own: keys is
-- the whole range, rows those routed here, foreign the others.
SELECT keys, rows_written, foreign_skipped, keys = rows_written + foreign_skipped AS adds_up
FROM petagen.load('pt_0', 0, 1000);
SELECT keys, rows_written, foreign_skipped FROM petagen.load('pt_1_3', 0, 1000);
SELECT keys, rows_written, foreign_skipped FROM petagen.load('pt_1_1', 0, 1000);
SELECT rows_written FROM petagen.load('whole', 0, 1000);
-- A sub-partitioned partition writes exactly its leaves' share, and nothing
-- twice: its leaves already hold their keys, so a second load collides.
SELECT throws_ok($$SELECT * FROM petagen.load('pt_1', 0, 1000)$$, '23505',
    NULL, 'loading pt_1 again writes the keys its leaves already hold');

-- No leaf holds a foreign row (satisfies_hash_partition is the oracle at
-- each level), every leaf equals the root-loaded one, and plain INSERTs of
-- the rows into the leaf they are in succeed (the constraint PostgreSQL
-- enforces).
SELECT bool_and(satisfies_hash_partition('pt'::regclass, 2, 0, ycsb_key)) AS pt_0_ok
FROM pt_0;
SELECT tableoid::regclass AS leaf,
       bool_and(satisfies_hash_partition('pt'::regclass, 2, 1, ycsb_key) AND
                satisfies_hash_partition('pt_1'::regclass, 4,
                    CASE WHEN tableoid = 'pt_1_1'::regclass THEN 1 ELSE 3 END,
                    ycsb_key)) AS right_leaf
FROM pt_1 GROUP BY 1 ORDER BY 1;
SELECT (SELECT count(*) FROM pt) AS via_root, (SELECT count(*) FROM pt_0) +
       (SELECT count(*) FROM pt_1_1) + (SELECT count(*) FROM pt_1_3) AS leaves;
SELECT (SELECT count(*) FROM (TABLE whole_0 EXCEPT TABLE pt_0) a) +
       (SELECT count(*) FROM (TABLE whole_1_1 EXCEPT TABLE pt_1_1) b) +
       (SELECT count(*) FROM (TABLE whole_1_3 EXCEPT TABLE pt_1_3) c) +
       (SELECT count(*) FROM (TABLE pt EXCEPT TABLE whole) d) AS differences,
       (SELECT count(*) FROM whole) AS whole_rows;
-- and the plain INSERT oracle: every row goes back into its own leaf
BEGIN;
DELETE FROM pt_0;
INSERT INTO pt_0 SELECT * FROM whole_0;
ROLLBACK;

-- verify() on a partition counts only its keys, and all are there.
SELECT leaf, expected, present, missing, extra, duplicated, ok
FROM petagen.verify('pt_1', 1000) ORDER BY leaf::text;
SELECT sum(expected) AS expected, bool_and(ok) AS ok FROM petagen.verify('pt_0', 1000);
-- petagen.leaf() on a partition: NULL for a key that lives elsewhere.
SELECT count(*) FILTER (WHERE petagen.leaf('pt_0', petagen.key(i)) IS NULL) AS elsewhere,
       count(*) FILTER (WHERE petagen.leaf('pt_0', petagen.key(i)) = 'pt_0'::regclass) AS here
FROM generate_series(0, 999) i;

-- range and list, with a sub-partition and a default: keys the root would
-- route to another partition, or to none, are skipped.
CREATE TABLE rt (ycsb_key text PRIMARY KEY, field0 text) PARTITION BY RANGE (ycsb_key);
CREATE TABLE rt_a PARTITION OF rt FOR VALUES FROM ('user0') TO ('user5');
CREATE TABLE rt_b PARTITION OF rt FOR VALUES FROM ('user5') TO ('user8')
    PARTITION BY LIST (ycsb_key);
CREATE TABLE rt_b_5 PARTITION OF rt_b FOR VALUES IN ('user5', 'user50', 'user55');
CREATE TABLE rt_b_rest PARTITION OF rt_b DEFAULT;
SELECT keys, rows_written, foreign_skipped FROM petagen.load('rt_a', 0, 100, keys => 'ordered');
SELECT keys, rows_written, foreign_skipped FROM petagen.load('rt_b_5', 0, 100, keys => 'ordered');
SELECT keys, rows_written, foreign_skipped FROM petagen.load('rt_b_rest', 0, 100, keys => 'ordered');
SELECT tableoid::regclass AS leaf, count(*), min(ycsb_key), max(ycsb_key)
FROM rt GROUP BY 1 ORDER BY 1;
-- the keys user8.. and user9.. have no partition: through the root that
-- is an error; loading a partition skips them, they are not its keys
SELECT throws_ok($$SELECT * FROM petagen.load('rt', 0, 100, keys => 'ordered')$$, '23514',
    'no partition of relation "rt" found for row', 'the root refuses unroutable keys');

-- check() on a leaf: the share of the key space it holds, no routing error.
SELECT finding FROM petagen.check(1000, 1, 'pt_0') WHERE finding ~ '^(leaves|routing)';
SELECT finding FROM petagen.check(100, 1, 'rt_a', keys => 'ordered') WHERE finding ~ '^(leaves|routing)';

-- a root partitioned by something else than ycsb_key cannot route: refused
CREATE TABLE other (ycsb_key text, field0 text) PARTITION BY LIST (field0);
CREATE TABLE other_a PARTITION OF other FOR VALUES IN ('a');
SELECT throws_ok($$SELECT * FROM petagen.load('other_a', 0, 10)$$, '0A000',
    'table "other" is not partitioned by the column ycsb_key', 'partition of a foreign-keyed tree');

SELECT * FROM finish();
