-- petagen.load_rates(job): a load job's progress_log rows with their rates.
-- Each row's rates count the rows written over the window that ends at it
-- and spans the time since the previous row, or the job's median time
-- between rows if that is longer (cumulative counts are interpolated
-- linearly inside the window's first interval): a row logged moments after
-- the one before it is not credited with work done before that one.
-- Drops (work rolled back by a stop) count as no progress.  phase: what
-- the job was doing (progress_log.phase).
CREATE OR REPLACE FUNCTION @extschema@.load_rates(job bigint)
RETURNS TABLE(logged_at timestamptz, seconds double precision, rows_written bigint,
              bytes bigint, rows_per_s double precision, mb_per_s double precision,
              phase text)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
BEGIN ATOMIC
    SELECT @extschema@._check_job(job, 'petagen.load_rates()');
    WITH o AS (
        SELECT least(j.created_at, (SELECT min(l.logged_at) FROM @extschema@.progress_log AS l
                                     WHERE l.job = j.job)) AS origin
          FROM @extschema@.jobs AS j
         WHERE j.job = load_rates.job),
    p AS (
        SELECT NULL::timestamptz AS at, 0::float8 AS sec, 0::bigint AS r, 0::bigint AS b,
               NULL::text AS ph FROM o
        UNION ALL
        SELECT l.logged_at, extract(epoch FROM l.logged_at - o.origin)::float8, l.rows_written, l.bytes,
               l.phase
          FROM @extschema@.progress_log AS l, o
         WHERE l.job = load_rates.job),
    s AS (
        SELECT p.*, lead(p.sec) OVER w AS sec2, lead(p.r) OVER w AS r2, lead(p.b) OVER w AS b2,
               p.sec - lag(p.sec) OVER w AS gap
          FROM p
        WINDOW w AS (ORDER BY p.sec, p.at NULLS FIRST, p.r)),
    x AS (
        SELECT s.*, least(greatest(s.gap, m.med), s.sec) AS win
          FROM s, (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY s.gap) AS med
                     FROM s WHERE s.at IS NOT NULL) AS m
         WHERE s.at IS NOT NULL)
    SELECT x.at, x.sec, x.r, x.b,
           greatest(x.r - a.r_from, 0) / nullif(x.win, 0),
           greatest(x.b - a.b_from, 0) / 1048576.0 / nullif(x.win, 0), x.ph
      FROM x,
           LATERAL (SELECT s0.r + coalesce((s0.r2 - s0.r) * f.frac, 0),
                           s0.b + coalesce((s0.b2 - s0.b) * f.frac, 0)
                      FROM s AS s0,
                           LATERAL (SELECT (x.sec - x.win - s0.sec) / nullif(s0.sec2 - s0.sec, 0)) AS f(frac)
                     WHERE s0.sec <= x.sec - x.win
                     ORDER BY s0.sec DESC, s0.at DESC NULLS LAST, s0.r DESC
                     LIMIT 1) AS a(r_from, b_from)
     ORDER BY x.sec, x.r;
END;
COMMENT ON FUNCTION @extschema@.load_rates(bigint) IS
    'a load job''s progress_log rows with their rows/s and MB/s, each over the time since the row before it or the job''s median time between rows if longer';
REVOKE ALL ON FUNCTION @extschema@.load_rates(bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.load_rates(bigint) TO pg_monitor, petagen_operator;
