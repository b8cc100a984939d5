-- Integer keys: BenchBase's YCSB table, ycsb_key int, loads as
-- it is; ycsb_key bigint too.  The key is the key number itself.  Every
-- output here is a pure function of the arguments.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS petagen;
RESET client_min_messages;
CREATE SCHEMA intkeys35;
SET search_path = intkeys35, public;
-- BenchBase's ddl-postgres.sql, as it is (but for three fields)
CREATE TABLE usertable (ycsb_key int PRIMARY KEY, field1 varchar(100),
    field2 varchar(100), field3 varchar(100));
CREATE TABLE big (ycsb_key bigint PRIMARY KEY, field0 text, field1 text);

-- rows(): the key is the key number; the fields are those of a text key's
-- row of the same number.
SELECT ycsb_key, field1, field3 FROM petagen.rows(NULL::usertable, 0, 3, fieldlength => 10);
SELECT ycsb_key FROM petagen.rows(NULL::big, 5, 3);
-- In the select list rows() streams: the same rows.
SELECT (petagen.rows(NULL::big, 5, 3)).ycsb_key;
CREATE TABLE texty (ycsb_key text, field1 text, field2 text, field3 text);
SELECT count(*) AS rows, bool_and(i.field1 = t.field1 AND i.field3 = t.field3) AS same_fields
FROM petagen.rows(NULL::usertable, 0, 100, seed => 7) i
JOIN petagen.rows(NULL::texty, 0, 100, seed => 7, keys => 'ordered', prefix => '') t
  ON i.ycsb_key::text = t.ycsb_key;

-- load() and verify(): plain tables, both key types.
SELECT keys, rows_written FROM petagen.load('usertable', 0, 500);
SELECT min(ycsb_key), max(ycsb_key), count(*) FROM usertable;
SELECT count(*) AS differ FROM (
    SELECT * FROM usertable EXCEPT SELECT * FROM petagen.rows(NULL::usertable, 0, 500)) d;
SELECT expected, present, missing, extra, ok FROM petagen.verify('usertable', 500);
DELETE FROM usertable WHERE ycsb_key = 7;
INSERT INTO usertable (ycsb_key) VALUES (900);
SELECT expected, present, missing, extra, ok FROM petagen.verify('usertable', 500);
SELECT keys, rows_written FROM petagen.load('big', 1000, 300);
SELECT expected, present, ok FROM petagen.verify('big', 300, first => 1000);

-- HASH and RANGE partitions on an int key route as PostgreSQL does.
CREATE TABLE hashed (ycsb_key int, field1 text, PRIMARY KEY (ycsb_key))
    PARTITION BY HASH (ycsb_key);
CREATE TABLE hashed_0 PARTITION OF hashed FOR VALUES WITH (MODULUS 3, REMAINDER 0);
CREATE TABLE hashed_1 PARTITION OF hashed FOR VALUES WITH (MODULUS 3, REMAINDER 1);
CREATE TABLE hashed_2 PARTITION OF hashed FOR VALUES WITH (MODULUS 3, REMAINDER 2);
SELECT keys, rows_written FROM petagen.load('hashed', 0, 600);
SELECT tableoid::regclass AS leaf, count(*) FROM hashed GROUP BY 1 ORDER BY 1;
SELECT expected, present, ok FROM petagen.verify('hashed', 600);
SELECT petagen.leaf('hashed', '42') = (SELECT tableoid FROM hashed WHERE ycsb_key = 42)
    AS leaf_of_42;
CREATE TABLE ranged (ycsb_key bigint PRIMARY KEY, field1 text) PARTITION BY RANGE (ycsb_key);
CREATE TABLE ranged_lo PARTITION OF ranged FOR VALUES FROM (MINVALUE) TO (100);
CREATE TABLE ranged_hi PARTITION OF ranged FOR VALUES FROM (100) TO (200);
SELECT keys, rows_written FROM petagen.load('ranged', 0, 200);
SELECT tableoid::regclass AS leaf, min(ycsb_key), max(ycsb_key) FROM ranged GROUP BY 1 ORDER BY 1;
SELECT expected, present, ok FROM petagen.verify('ranged', 200);
SELECT petagen.load('ranged', 150, 100);
CREATE TABLE listed (ycsb_key int PRIMARY KEY, field1 text) PARTITION BY LIST (ycsb_key);
CREATE TABLE listed_odd PARTITION OF listed FOR VALUES IN (1, 3, 5, 7, 9);
CREATE TABLE listed_rest PARTITION OF listed DEFAULT;
SELECT keys, rows_written FROM petagen.load('listed', 0, 10);
SELECT tableoid::regclass AS leaf, array_agg(ycsb_key ORDER BY ycsb_key) FROM listed GROUP BY 1 ORDER BY 1;
SELECT expected, present, ok FROM petagen.verify('listed', 10);

-- The key options do not apply to an integer key; their defaults are ignored.
SELECT petagen.load('usertable', 0, 1, keys => 'ycsb');
SELECT petagen.load('usertable', 0, 1, prefix => 'key');
SELECT * FROM petagen.rows(NULL::usertable, 0, 1, zeropadding => 12);
SELECT * FROM petagen.verify('usertable', 1, keys => 'go-ycsb');
SELECT ycsb_key FROM petagen.rows(NULL::usertable, 3, 1, keys => 'ordered');

-- An int key holds key numbers up to 2147483647: a load past it is refused.
SELECT ycsb_key FROM petagen.rows(NULL::usertable, 2147483646, 2);
SELECT * FROM petagen.rows(NULL::usertable, 2147483647, 2);
SELECT keys, rows_written FROM petagen.load('usertable', 2147483000, 648);
SELECT severity, finding FROM petagen.check(3000000000, 1, 'intkeys35.usertable')
WHERE severity = 'error';
SELECT ycsb_key FROM petagen.rows(NULL::big, 3000000000, 1);

-- Other key types are still refused.
CREATE TABLE smallkey (ycsb_key smallint, field0 text);
SELECT * FROM petagen.rows(NULL::smallkey, 0, 1);
CREATE TABLE numkey (ycsb_key int, field0 text) PARTITION BY RANGE ((ycsb_key + 0));
SELECT petagen.load('numkey', 0, 1);

RESET search_path;
DROP SCHEMA intkeys35 CASCADE;
