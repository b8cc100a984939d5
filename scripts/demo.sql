-- petagen demo: the canonical YCSB usertable, filled and summarised.
-- Run by scripts/demo.sh as: psql -v rows=N -f scripts/demo.sql
\set ON_ERROR_STOP on
\pset footer off
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

\echo loading :rows rows ...
SELECT clock_timestamp() AS t0 \gset
-- ==================== LOAD STEP ====================
-- The only place rows are written. The loader issue replaces this with
-- background workers (petagen.start(...) + petagen.wait(...)).
INSERT INTO usertable SELECT * FROM petagen.rows(NULL::usertable, 0, :rows);
-- ================== END LOAD STEP ==================
SELECT extract(epoch FROM clock_timestamp() - :'t0'::timestamptz) AS elapsed
\gset

\echo
\echo == result
SELECT count(*) AS rows,
       (SELECT pg_size_pretty(sum(pg_total_relation_size(relid)))
          FROM pg_partition_tree('usertable')) AS table_size,
       round(:elapsed::numeric, 2) AS elapsed_s,
       round(count(*) / :elapsed::numeric) AS rows_per_s
FROM usertable;

\echo == sample rows
SELECT ycsb_key, left(field0, 24) || '...' AS field0_head,
       length(field0) AS len0, left(field9, 24) || '...' AS field9_head
FROM usertable ORDER BY ycsb_key LIMIT 3;

\echo == rows per partition
SELECT tableoid::regclass AS partition, count(*) AS rows
FROM usertable GROUP BY 1 ORDER BY 1;
