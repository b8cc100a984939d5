-- Table shapes and field values of YCSB and BenchBase, the load side:
-- field length distributions, key ranges that start at first, and
-- their bad inputs.  Every output here is a pure function of the arguments.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS petagen;
RESET client_min_messages;
CREATE SCHEMA shapes32;
SET search_path = shapes32, public;
SELECT ycsb_table('shapes32.t', 3);

-- fieldlengthdistribution: constant (the default) is fieldlength; uniform
-- and zipfian lie in minfieldlength .. fieldlength.
SELECT min(length(field0)) AS min, max(length(field2)) AS max
FROM petagen.rows(NULL::t, 0, 1000, fieldlength => 20);
SELECT d, min(least(length(field0), length(field1), length(field2))) >= 5 AS min_ok,
       max(greatest(length(field0), length(field1), length(field2))) <= 20 AS max_ok,
       count(DISTINCT length(field1)) AS lengths
FROM unnest(ARRAY['uniform', 'zipfian']) d,
     LATERAL petagen.rows(NULL::t, 0, 2000, fieldlength => 20, minfieldlength => 5,
                          fieldlengthdistribution => d)
GROUP BY d ORDER BY d;
-- uniform is flat: each of the 16 lengths about 1/16 of 3 x 8000 fields;
-- zipfian (YCSB's constant 0.99) favours the shortest: length 5 most often.
SELECT bool_and(n BETWEEN 1200 AND 1800) AS uniform_flat
FROM (SELECT length(f) l, count(*) n
      FROM petagen.rows(NULL::t, 0, 8000, fieldlength => 20, minfieldlength => 5,
                        fieldlengthdistribution => 'uniform') r,
           unnest(ARRAY[field0, field1, field2]) f GROUP BY 1) s;
SELECT (array_agg(l ORDER BY n DESC))[1] AS most_common,
       round(avg(l * n) * count(*) / sum(n)) AS mean
FROM (SELECT length(f) l, count(*) n
      FROM petagen.rows(NULL::t, 0, 8000, fieldlength => 20, minfieldlength => 5,
                        fieldlengthdistribution => 'zipfian') r,
           unnest(ARRAY[field0, field1, field2]) f GROUP BY 1) s;
-- Deterministic: a field of length n is the first n characters of the
-- constant field, and rows(0, 10) = rows(0, 5) + rows(5, 5).
SELECT ycsb_key, field0, field1
FROM petagen.rows(NULL::t, 0, 3, keys => 'ordered', fieldlength => 12,
                  minfieldlength => 2, fieldlengthdistribution => 'uniform');
SELECT bool_and(starts_with(c.field0, v.field0) AND starts_with(c.field2, v.field2)) AS prefixes
FROM petagen.rows(NULL::t, 0, 500, fieldlength => 20) WITH ORDINALITY c
JOIN petagen.rows(NULL::t, 0, 500, fieldlength => 20, fieldlengthdistribution => 'zipfian')
     WITH ORDINALITY v USING (ordinality);
SELECT (SELECT string_agg(t::text, '|' ORDER BY ycsb_key)
        FROM petagen.rows(NULL::t, 0, 10, fieldlengthdistribution => 'uniform') t) =
       (SELECT string_agg(t::text, '|' ORDER BY ycsb_key)
        FROM (SELECT * FROM petagen.rows(NULL::t, 0, 5, fieldlengthdistribution => 'uniform')
              UNION ALL
              SELECT * FROM petagen.rows(NULL::t, 5, 5, fieldlengthdistribution => 'uniform')) t)
       AS chunk_independent;
-- load() writes what rows() returns.
SELECT keys, rows_written FROM petagen.load('t', 0, 200, fieldlength => 30,
    minfieldlength => 3, fieldlengthdistribution => 'zipfian');
SELECT count(*) AS differ FROM (
    SELECT * FROM t
    EXCEPT
    SELECT * FROM petagen.rows(NULL::t, 0, 200, fieldlength => 30, minfieldlength => 3,
                               fieldlengthdistribution => 'zipfian')) d;
TRUNCATE t;

-- check() sizes a load with the mean field length: the leaves it asks for
-- to keep a huge load under the relation size limit shrink from constant
-- to uniform to zipfian lengths.
SELECT leaves[1] > leaves[2] AND leaves[2] > leaves[3] AS smaller_by_mean
FROM (SELECT array_agg((regexp_match(hint, 'about (\d+) leaves'))[1]::int ORDER BY o) AS leaves
      FROM unnest(ARRAY['constant', 'uniform', 'zipfian']) WITH ORDINALITY d(dist, o),
           LATERAL petagen.check_details(1e14, 1, 'shapes32.t', fieldlengthdistribution => dist)
      WHERE finding LIKE 'relation size:%') s;

-- Bad field lengths.
\set VERBOSITY terse
SELECT * FROM petagen.rows(NULL::t, 0, 1, fieldlengthdistribution => 'pareto');
SELECT * FROM petagen.rows(NULL::t, 0, 1, fieldlength => 10, minfieldlength => 11,
                           fieldlengthdistribution => 'uniform');
SELECT * FROM petagen.rows(NULL::t, 0, 1, minfieldlength => 0);
SELECT * FROM petagen.rows(NULL::t, 0, 1, fieldlengthdistribution => NULL);
SELECT petagen.start(10, 1, 'shapes32.t', fieldlengthdistribution => 'histogram');
SELECT petagen.start(10, 1, 'shapes32.t', fieldlength => 50, minfieldlength => 51,
                     fieldlengthdistribution => 'zipfian');
SELECT severity, finding FROM petagen.check(10, 1, 'shapes32.t', minfieldlength => NULL);
\set VERBOSITY default

-- first (YCSB's insertstart): the key space first .. first+rows-1.  Keys
-- 100 .. 199 loaded: verify() of that range is ok, of 0 .. 99 all missing;
-- check() finds the keys of a load over them and none past them.
SELECT keys FROM petagen.load('t', 100, 100, keys => 'ordered');
SELECT expected, present, missing, extra, duplicated, ok
FROM petagen.verify('t', 100, keys => 'ordered', first => 100);
SELECT expected, present, missing, extra, ok
FROM petagen.verify('t', 100, keys => 'ordered');
SELECT expected, present, missing, extra, ok
FROM petagen.verify('t', 50, keys => 'ordered', first => 150);
SELECT severity, finding FROM petagen.check(100, 1, 'shapes32.t', keys => 'ordered', first => 100)
WHERE finding LIKE 'keys:%';
SELECT severity, finding FROM petagen.check(100, 1, 'shapes32.t', keys => 'ordered', first => 200)
WHERE finding LIKE 'keys:%';
-- ordered keys past 10^k outgrow a narrow ycsb_key: key number 10004
-- ("user10004") does not fit varchar(7).
CREATE TABLE narrow (ycsb_key varchar(7) PRIMARY KEY, field0 text);
SELECT severity, finding FROM petagen.check(10, 1, 'shapes32.narrow', keys => 'ordered', first => 9995)
WHERE severity = 'error';
DROP TABLE narrow;
TRUNCATE t;

-- Bad first.
\set VERBOSITY terse
SELECT petagen.start(10, 1, 'shapes32.t', first => -1);
SELECT petagen.start(10, 1, 'shapes32.t', first => 1.5);
SELECT petagen.start(10, 1, 'shapes32.t', first => 9223372036854775800);
SELECT petagen.start(10, 1, 'shapes32.t', first => NULL);
SELECT severity, finding FROM petagen.check(10, 1, 'shapes32.t', first => -1);
SELECT * FROM petagen.verify('shapes32.t', 10, first => -5);
SELECT * FROM petagen.verify('shapes32.t', 10, first => 9223372036854775800);
\set VERBOSITY default
SELECT count(*) AS jobs_left FROM petagen.jobs WHERE "table" = 'shapes32.t'::regclass;

-- BenchBase's numbering: fields field1 .. fieldN when there is no field0.
-- Field fieldK holds the same value in either numbering.
CREATE TABLE bb (ycsb_key varchar(64) PRIMARY KEY, field1 varchar(100),
                 field2 varchar(100), field3 varchar(100));
SELECT b.field1 = y.field1 AND b.field2 = y.field2 AND b.field3 IS NOT NULL AS same_fields,
       length(b.field3) AS len
FROM petagen.rows(NULL::bb, 7, 1) b, petagen.rows(NULL::t, 7, 1) y;
SELECT keys, rows_written FROM petagen.load('bb', 0, 50);
SELECT count(*) AS differ FROM (SELECT * FROM bb EXCEPT SELECT * FROM petagen.rows(NULL::bb, 0, 50)) d;
SELECT ok FROM petagen.verify('bb', 50);
DROP TABLE bb;
CREATE TABLE bb_gap (ycsb_key text, field1 text, field3 text);
CREATE TABLE bb_one (ycsb_key text, field1 text);
\set VERBOSITY terse
SELECT * FROM petagen.rows(NULL::bb_gap, 0, 1);
\set VERBOSITY default
SELECT length(field1) FROM petagen.rows(NULL::bb_one, 0, 1);
DROP TABLE bb_gap, bb_one;

-- Extra columns get what INSERT gives a column it does not name: the
-- default (volatile ones per row), an identity, a stored generated
-- expression over the row, else NULL; rows() leaves them NULL.
CREATE SEQUENCE s32;
CREATE TABLE ex (ycsb_key varchar(64) PRIMARY KEY, field0 varchar(100),
                 created timestamptz DEFAULT now(), answer int DEFAULT 42,
                 n bigint DEFAULT nextval('s32'), id bigint GENERATED ALWAYS AS IDENTITY,
                 keylen int GENERATED ALWAYS AS (length(ycsb_key) + answer) STORED,
                 note text);
BEGIN;
SELECT keys, rows_written FROM petagen.load('ex', 0, 20);
SELECT count(*) AS rows, bool_and(created = now()) AS now, bool_and(answer = 42) AS answer,
       count(DISTINCT n) AS serials, min(n) AS min_serial, count(DISTINCT id) AS identities,
       bool_and(keylen = length(ycsb_key) + 42) AS generated, bool_and(note IS NULL) AS nulls
FROM ex;
COMMIT;
SELECT count(*) AS differ FROM (
    SELECT ycsb_key, field0 FROM ex
    EXCEPT SELECT ycsb_key, field0 FROM petagen.rows(NULL::ex, 0, 20)) d;
SELECT created, answer, n, id, keylen, note FROM petagen.rows(NULL::ex, 0, 1);
DROP TABLE ex;
DROP SEQUENCE s32;
CREATE TABLE nn (ycsb_key text, field0 text, must int NOT NULL);
SELECT * FROM petagen.rows(NULL::nn, 0, 1);
SELECT petagen.start(10, 1, 'shapes32.nn');
DROP TABLE nn;
