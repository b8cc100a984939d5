-- petagen demo, part 1: the canonical YCSB usertable.
-- Run by scripts/demo.sh and the benchmarks (test/bench/lib.sh).
\set ON_ERROR_STOP on
SET client_min_messages = warning;

CREATE EXTENSION petagen;

-- varchar(64) key, ten varchar(100) fields, 8 hash partitions usertable_p0
-- .. usertable_p7, primary key.
SELECT petagen.create_table('usertable', partitions => 8);
