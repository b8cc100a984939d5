-- petagen.rows() in the select list streams: a value-per-call ProjectSet
-- sends each row on to COPY or INSERT as it is made, while rows() in FROM
-- (a FunctionScan) collects every row into a tuplestore first.  Same rows,
-- the function evaluated once per query, no temporary file, cancellable.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS petagen;
RESET client_min_messages;
SELECT petagen.create_table('stream17');

-- Same rows in the same order, composite or expanded, any arguments.
SELECT (SELECT md5(string_agg(md5(t::text), ''))
          FROM petagen.rows(NULL::stream17, 0, 20000) t) =
       (SELECT md5(string_agg(md5(r::text), ''))
          FROM (SELECT petagen.rows(NULL::stream17, 0, 20000) AS r) s) AS same_rows_same_order;
SELECT count(*) AS rows,
       count(*) FILTER (WHERE f IS NULL) AS only_streamed,
       count(*) FILTER (WHERE s IS NULL) AS only_in_from
FROM (SELECT (petagen.rows(NULL::stream17, 5, 20000, keys => 'ycsb', seed => 3,
                           fieldlength => 37, prefix => 'k', zeropadding => 9)).*) s
FULL JOIN petagen.rows(NULL::stream17, 5, 20000, keys => 'ycsb', seed => 3,
                       fieldlength => 37, prefix => 'k', zeropadding => 9) f
  ON s = f;
-- An empty range streams nothing; a LIMIT stops the generator early
-- (in FROM, 1e15 rows would be materialized first: the timeout ends that).
SELECT count(*) FROM (SELECT petagen.rows(NULL::stream17, 0, 0)) s;
SET statement_timeout = '60s';
SELECT ycsb_key FROM (SELECT (petagen.rows(NULL::stream17, 0, 1e15, keys => 'ordered')).*) s LIMIT 3;
RESET statement_timeout;
-- Bad input fails alike in the select list, before any row.
SELECT petagen.rows(NULL::int, 0, 1);
SELECT (petagen.rows(NULL::stream17, 0, -1)).*;

-- (petagen.rows(...)).* calls the function once, in a ProjectSet, not once
-- per column: pg_stat_user_functions counts one call per evaluated set.
SET track_functions = 'all';
SELECT pg_stat_force_next_flush();
SELECT coalesce((SELECT calls FROM pg_stat_user_functions
                  WHERE funcid = 'petagen.rows'::regproc),
                0) AS calls0 \gset
EXPLAIN (COSTS OFF) SELECT (petagen.rows(NULL::stream17, 0, 10)).*;
COPY (SELECT (petagen.rows(NULL::stream17, 0, 1000)).*) TO '/dev/null';
SELECT pg_stat_force_next_flush();
SELECT calls - :calls0 AS calls FROM pg_stat_user_functions
 WHERE funcid = 'petagen.rows'::regproc;
RESET track_functions;

-- Temporary files this database wrote since the last mark, as flushed
-- statistics (pg_stat_force_next_flush() makes the next idle moment send
-- this backend's counts; each statement reads a fresh snapshot).
CREATE FUNCTION temp_since(mark bigint[], OUT files bigint, OUT bytes bigint)
LANGUAGE sql AS $$
    SELECT temp_files - mark[1], temp_bytes - mark[2]
      FROM pg_stat_database WHERE datname = current_database() $$;
CREATE FUNCTION temp_mark() RETURNS bigint[]
LANGUAGE sql AS $$
    SELECT ARRAY[temp_files, temp_bytes]
      FROM pg_stat_database WHERE datname = current_database() $$;
SET work_mem = '64kB';

-- The positive control: in FROM, 200,000 rows spill to a temporary file.
SELECT pg_stat_force_next_flush();
SELECT temp_mark() AS mark \gset
COPY (SELECT * FROM petagen.rows(NULL::stream17, 0, 200000)) TO '/dev/null';
SELECT pg_stat_force_next_flush();
SELECT files > 0 AS from_wrote_files, bytes > 200000 * 1000 AS from_wrote_every_row
  FROM temp_since(:'mark');

-- Streamed, the same 200,000 rows write no temporary file, to COPY or INSERT.
SELECT temp_mark() AS mark \gset
COPY (SELECT (petagen.rows(NULL::stream17, 0, 200000)).*) TO '/dev/null';
INSERT INTO stream17 SELECT (petagen.rows(NULL::stream17, 0, 200000)).*;
SELECT pg_stat_force_next_flush();
SELECT * FROM temp_since(:'mark');
SELECT count(*) AS inserted FROM stream17;
RESET work_mem;

-- A streaming export is cancellable: statement_timeout stops it.
SET statement_timeout = '200ms';
COPY (SELECT (petagen.rows(NULL::stream17, 0, 1e15)).*) TO '/dev/null';
RESET statement_timeout;

DROP TABLE stream17;
DROP FUNCTION temp_since(bigint[]);
DROP FUNCTION temp_mark();
