-- Load rates over honest intervals: petagen.load_rates() (and chart_load(),
-- which draws it) on progress_log rows with known times, as a superuser
-- writes them.  A row logged moments after the one before it is measured
-- over the job's usual interval, so no chunk is credited to those moments:
-- no false spike at the end of a load.  Work rolled back counts as none.
-- Everything runs in one transaction that is rolled back.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS petagen;
RESET client_min_messages;
BEGIN;
CREATE SCHEMA rates13;
SET search_path = rates13, public;
SELECT ycsb_table('t');

-- A job created at 00:00:00, and its progress_log rows at (seconds, rows).
CREATE FUNCTION job_with_log(VARIADIC points numeric[]) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
    id bigint;
BEGIN
    INSERT INTO petagen.jobs ("table", rows, workers, chunk_rows, keys, seed, fieldlength,
                              prefix, zeropadding, started_by, state, created_at, started_at)
    VALUES ('t', 1000000, 2, 100000, 'scrambled', 0, 100, 'user', 1, current_user::regrole,
            'done', '2024-01-01 00:00:00+00', '2024-01-01 00:00:00+00')
    RETURNING job INTO id;
    INSERT INTO petagen.progress_log (job, logged_at, keys_done, rows_written, bytes)
    SELECT id, '2024-01-01 00:00:00+00'::timestamptz + points[i] * interval '1 s',
           points[i + 1], points[i + 1], points[i + 1] * 1048576 / 1000
      FROM generate_series(1, cardinality(points), 2) AS i;
    RETURN id;
END
$$;

-- The rates of a job, rounded: seconds, rows written, rows/s, MB/s.
CREATE FUNCTION rates(job bigint)
RETURNS TABLE(seconds numeric, rows_written bigint, rows_per_s numeric, mb_per_s numeric)
LANGUAGE sql AS $$
    SELECT round(r.seconds::numeric, 3), r.rows_written, round(r.rows_per_s::numeric),
           round(r.mb_per_s::numeric, 1)
      FROM petagen.load_rates(job) AS r ORDER BY r.seconds
$$;

-- The largest rows/s chart_load() plots (from the tooltips of its points).
CREATE FUNCTION chart_peak(job bigint) RETURNS numeric
LANGUAGE sql AS $$
    SELECT round(max(replace(m[1], ',', '')::numeric))
      FROM regexp_matches(petagen.chart_load(job), 'rows/s = ([0-9,.]+)', 'g') AS m
$$;

-- A 1M-row load at 95,000 rows/s logged every 2 s as petagen 0.2 logs it
-- (rows written by then, chunks in flight included); it ends 0.526 s after
-- the last regular row.  Every rate is 95,000: the short last interval is
-- measured over 2 s, the job's usual interval.
SELECT job_with_log(2, 190000, 4, 380000, 6, 570000, 8, 760000, 10, 950000,
                    10.526, 1000000) AS live \gset
SELECT * FROM rates(:live);
SELECT chart_peak(:live) AS live_peak;

-- A demo load, logged as 0.1 did (committed chunks only: each
-- row credits whole chunks): 100,000-row chunks, a row every 2.1 s, and the
-- end row 0.1 s after the last, one more chunk.  Steady 95,238 rows/s; the
-- last rate is measured over 2.1 s (138,322), not 0.1 s (1,000,000).
SELECT job_with_log(2.1, 100000, 4.2, 300000, 6.3, 500000, 8.4, 700000,
                    10.5, 900000, 10.6, 1000000) AS committed \gset
SELECT * FROM rates(:committed);
SELECT chart_peak(:committed) AS committed_peak;

-- A stopped run: rows at 1, 2 and 3 s counted the chunks in flight, the
-- end row at 3.1 s only the one chunk that committed.  The drop is no
-- progress: 0 rows/s, never a negative rate.
SELECT job_with_log(1, 80000, 2, 160000, 3, 240000, 3.1, 100000) AS stopped \gset
SELECT * FROM rates(:stopped);

-- One row: its rate counts from the job's creation.
SELECT * FROM rates(job_with_log(4, 100000));

ROLLBACK;
