-- petagen demo, part 3: what the load job did, and whether the table is right.
-- Run by scripts/demo.sh with -v job=N.
\set ON_ERROR_STOP on
\pset footer off

\echo == the job
SELECT job, state, rows, workers, keys,
       round(extract(epoch FROM finished_at - started_at)::numeric, 2) AS elapsed_s,
       round(rows / extract(epoch FROM finished_at - started_at)::numeric) AS rows_per_s,
       (SELECT pg_size_pretty(sum(pg_total_relation_size(relid)))
          FROM pg_partition_tree('usertable')) AS table_size
FROM petagen.jobs WHERE job = :job;

\echo == verify: every key of the key space exactly once, per leaf
SELECT leaf, expected, present, missing, extra, duplicated, ok
FROM petagen.verify(:job);

\echo == sample rows
SELECT ycsb_key, left(field0, 24) || '...' AS field0_head,
       length(field0) AS len0, petagen.seq(ycsb_key) AS key_number
FROM usertable ORDER BY ycsb_key LIMIT 3;
