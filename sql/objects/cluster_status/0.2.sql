-- petagen.cluster_status(cluster_job): the screen to \watch for a cluster
-- load: a row per node and a total row, in 120 columns.  A straggler is a
-- loading node (running, throttled or paused) whose rate over the last
-- petagen.straggler_window (1 minute by default; its own rate history) is
-- below 60% of the median of the loading nodes' rates over it: a stall of
-- a few seconds is not named, nor a node that has not loaded that long.
-- Its note says what its workers waited on most (_job_waits(): their own
-- samples, no sleep here) and, on 16 and later, its mean time per write
-- (pg_stat_io).  A node that cannot be reached is 'unreachable' with its
-- error while the others go on.  One statement per node, every node at
-- once.
CREATE OR REPLACE FUNCTION @extschema@.cluster_status(cluster_job bigint DEFAULT NULL,
    OUT node text, OUT state text, OUT progress text, OUT rate text, OUT eta interval,
    OUT note text)
RETURNS SETOF record
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    id bigint := coalesce(cluster_job, (SELECT max(c.cluster_job) FROM @extschema@.cluster_jobs AS c));
    -- the setting as SHOW gives it ('1min'), or as set before petagen loaded ('30s', '30')
    win double precision := extract(epoch FROM coalesce(nullif(current_setting(
        'petagen.straggler_window', true), ''), '60')::interval);
BEGIN
    IF id IS NULL THEN
        RAISE EXCEPTION 'there is no cluster job' USING ERRCODE = '42704',
            HINT = 'petagen.cluster_start() starts one.';
    END IF;
    RETURN QUERY
    WITH m AS (
        SELECT c.*, c.ordinality AS i
          FROM @extschema@._cluster_members(id, 'petagen.cluster_status()', false) WITH ORDINALITY AS c
    ), o AS (
        SELECT m.i, m.node, m.job, m.kind, m.host, m.port, x.reached, x.ok, x.error,
               x.result::json AS j
        FROM m JOIN @extschema@._cluster_run(
            ARRAY(SELECT m.node FROM m ORDER BY m.i), ARRAY(SELECT m.kind FROM m ORDER BY m.i),
            ARRAY(SELECT m.host FROM m ORDER BY m.i), ARRAY(SELECT m.port FROM m ORDER BY m.i),
            ARRAY(SELECT format(
            'SELECT pg_catalog.row_to_json(r)::text FROM (SELECT s.state, s.progress, s.rate,'
            ' s.eta, s.reason, (SELECT d.rows_per_s FROM @extschema@.status_details(s.job) AS d'
            ' WHERE d.worker IS NULL AND d.phase = ''loading'') AS rows_per_s,'
            ' @extschema@._recent_rate(s.job, %s) AS window_rate, @extschema@._job_waits(s.job) AS waits,'
            ' @extschema@._io_write_latency() AS io'
            ' FROM @extschema@.status(%s) AS s) AS r', win, m.job) FROM m ORDER BY m.i)) AS x
          ON x.node = m.node
    ), v AS (
        SELECT o.*,
               CASE WHEN NOT o.reached THEN 'unreachable'
                    WHEN NOT o.ok THEN 'error' ELSE o.j->>'state' END AS st,
               (o.j->>'rows_per_s')::float8 AS rps,
               (o.j->>'window_rate')::float8 AS wrate,
               substring(o.j->>'progress' from '([0-9.]+)%')::float8 AS pct
        FROM o
    ), med AS (
        SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY v.wrate) AS median
        FROM v WHERE v.st IN ('running', 'throttled', 'paused') AND v.wrate IS NOT NULL
        HAVING count(*) > 1
    ), n AS (
        SELECT v.*, v.st IN ('running', 'throttled', 'paused') AND v.wrate < 0.6 * med.median
                    AS straggler, med.median
        FROM v LEFT JOIN med ON true
    )
    (SELECT n.node, n.st, n.j->>'progress', n.j->>'rate', (n.j->>'eta')::interval,
           left(CASE WHEN n.error IS NOT NULL THEN
                         regexp_replace(split_part(n.error, E'\n', 1),
                                        '^connection to server .* failed: ', 'could not connect: ')
                     WHEN n.straggler THEN
                         format('straggler %s%% of median: %s', round(100 * n.wrate / n.median),
                                coalesce(substring(n.j->>'waits' from '^[^%]*%'), 'waits unknown'))
                         || coalesce(', ' || (n.j->>'io'), '')
                     ELSE n.j->>'reason' END, 54)
    FROM n ORDER BY n.i)
    UNION ALL
    SELECT 'total',
           CASE WHEN bool_and(n.st = 'done') THEN 'done'
                WHEN bool_or(n.st = 'failed') THEN 'failed'
                WHEN bool_or(n.st IN ('running', 'throttled', 'paused')) THEN 'running'
                ELSE min(n.st) END,
           repeat('#', floor(avg(n.pct) / 10)::integer)
               || repeat('.', 10 - floor(avg(n.pct) / 10)::integer)
               || ' ' || lpad(to_char(avg(n.pct), 'FM990.0'), 5) || '%',
           (SELECT CASE WHEN r < 999.95 THEN round(r)::text || '/s'
                        WHEN r < 999950 THEN to_char(r / 1e3, 'FM9990.0') || 'k/s'
                        WHEN r < 999950000 THEN to_char(r / 1e6, 'FM9990.0') || 'M/s'
                        ELSE to_char(r / 1e9, 'FM999990.0') || 'G/s' END
            FROM (SELECT sum(n.rps) AS r) AS t),
           CASE WHEN bool_and(n.st = 'done') THEN interval '0'
                WHEN bool_and(n.st = 'done' OR n.st IN ('running', 'throttled', 'paused')
                                               AND n.j->>'eta' IS NOT NULL)
                THEN max((n.j->>'eta')::interval) END,
           format('%s nodes', count(*))
               || coalesce(', ' || nullif(count(*) FILTER (WHERE n.st = 'unreachable'), 0) || ' unreachable', '')
               || coalesce(', ' || nullif(count(*) FILTER (WHERE n.straggler), 0) || ' straggling', '')
    FROM n;
END
$$;
COMMENT ON FUNCTION @extschema@.cluster_status(bigint) IS
    'one row per node of a cluster job (the newest without an argument) and a total row: state, progress of the node''s share, rate, ETA (the total''s: the slowest node''s) and a note: the error of a node that failed or is unreachable, a straggler''s rate over petagen.straggler_window against the median, what its workers wait on most and its time per write (16+), or the node''s reason';
REVOKE ALL ON FUNCTION @extschema@.cluster_status(bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.cluster_status(bigint) TO petagen_operator, pg_monitor;
