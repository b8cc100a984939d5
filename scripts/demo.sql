-- petagen demo, part 1: the canonical YCSB usertable.
-- Run by scripts/demo.sh and the benchmarks (test/bench/lib.sh).
\set ON_ERROR_STOP on
SET client_min_messages = warning;

CREATE EXTENSION petagen;

CREATE TABLE usertable (
    ycsb_key varchar(64) PRIMARY KEY,
    field0 varchar(100), field1 varchar(100), field2 varchar(100),
    field3 varchar(100), field4 varchar(100), field5 varchar(100),
    field6 varchar(100), field7 varchar(100), field8 varchar(100),
    field9 varchar(100)
) PARTITION BY HASH (ycsb_key);
SELECT format('CREATE TABLE usertable_%s PARTITION OF usertable '
              'FOR VALUES WITH (MODULUS 8, REMAINDER %s)', i, i)
FROM generate_series(0, 7) AS i \gexec
