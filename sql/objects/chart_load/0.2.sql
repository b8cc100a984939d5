-- petagen.chart_load(job): load rate (rows/s, MB/s) and rows written over
-- the time since the job was started, from petagen.load_rates(), with the
-- job's phases (routing, loading, indexing; stopped or failed between
-- runs; interrupted from the last progress before a crash or lost worker
-- to the start of the run that resumed it) as bands behind the panels.
CREATE OR REPLACE FUNCTION @extschema@.chart_load(job bigint)
RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    about text;
    span double precision;
    unit text;
    div double precision;
    ts double precision[];
    rps double precision[];
    mbps double precision[];
    total double precision[];
    phases text[];
    xt double precision[];
    bands text;
    origin timestamptz;
    cut double precision[];
BEGIN
    IF job IS NULL THEN
        RAISE EXCEPTION 'argument "job" of petagen.chart_load() must not be null'
            USING ERRCODE = '22004';
    END IF;
    SELECT format('%s rows into %s: %s method, %s keys%s, indexes %s, %s workers, %s',
                  to_char(j.rows, 'FM999,999,999,999,999,999'),
                  CASE WHEN EXISTS (SELECT FROM pg_class AS c WHERE c.oid = j."table")
                       THEN j."table"::text ELSE 'dropped table' END,
                  j.method, j.keys, CASE WHEN j.frozen THEN ', frozen' END,
                  CASE j.indexes WHEN 'after' THEN 'built after' ELSE 'maintained' END,
                  j.workers, j.state)
      INTO about
      FROM @extschema@.jobs AS j
     WHERE j.job = chart_load.job;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'load job % does not exist', job USING ERRCODE = '42704';
    END IF;
    SELECT array_agg(r.seconds ORDER BY r.seconds, r.rows_written),
           array_agg(r.rows_per_s ORDER BY r.seconds, r.rows_written),
           array_agg(r.mb_per_s ORDER BY r.seconds, r.rows_written),
           array_agg(r.rows_written ORDER BY r.seconds, r.rows_written),
           array_agg(r.phase ORDER BY r.seconds, r.rows_written),
           min(r.logged_at - make_interval(secs => r.seconds))
      INTO ts, rps, mbps, total, phases, origin
      FROM @extschema@.load_rates(job) AS r;
    IF ts IS NULL THEN
        RAISE EXCEPTION 'load job % has no progress_log rows yet', job USING ERRCODE = '55000',
            HINT = 'A job''s first progress_log rows appear when its first chunk commits, a leaf job''s when it starts routing: try again in a moment.';
    END IF;
    span := ts[cardinality(ts)];
    SELECT u, d INTO unit, div
      FROM (VALUES ('h', 3600.0, 7200.0), ('min', 60.0, 120.0), ('s', 1.0, 0.0)) AS v(u, d, above)
     WHERE span >= above ORDER BY above DESC LIMIT 1;
    ts := ARRAY(SELECT t / div FROM unnest(ts) WITH ORDINALITY AS u(t, o) ORDER BY o);
    -- the x axis _svg_panel() draws (xmin 0), for the bands behind it
    xt := @extschema@._svg_ticks(0, ts[cardinality(ts)]);
    -- the job's recorded interruption, if a later run resumed it
    SELECT ARRAY[extract(epoch FROM j.interrupted_at - origin) / div,
                 extract(epoch FROM j.run_started_at - origin) / div]
      INTO cut
      FROM @extschema@.jobs AS j
     WHERE j.job = chart_load.job AND j.interrupted_at < j.run_started_at;

    -- a band per run of rows in the same phase, from where it began (the
    -- chart's start for a first phase of work) to where the next one did;
    -- a run's end (stopped, failed) lasts until the next run began; an
    -- interruption is drawn over the phase it cut short
    SELECT @extschema@._svg_bands(90, 56, 660, 368, xt[1], xt[cardinality(xt)],
                                 array_agg(b.ph ORDER BY b.t0), array_agg(b.t0 ORDER BY b.t0),
                                 array_agg(b.t1 ORDER BY b.t0))
      INTO bands
      FROM (SELECT i.ph, CASE WHEN i.first AND i.ph IN ('routing', 'loading', 'indexing') THEN 0 ELSE i.t0 END AS t0,
                   coalesce(lead(i.t0) OVER (ORDER BY i.t0), i.tl) AS t1
              FROM (SELECT g.ph, min(g.t) AS t0, max(g.t) AS tl, bool_or(g.o = 1) AS first
                      FROM (SELECT c.*, count(*) FILTER (WHERE c.changed) OVER (ORDER BY c.o) AS run
                              FROM (SELECT u.t, u.ph, u.o,
                                           u.ph IS DISTINCT FROM lag(u.ph) OVER (ORDER BY u.o) AS changed
                                      FROM unnest(ts, phases) WITH ORDINALITY AS u(t, ph, o)) AS c) AS g
                     GROUP BY g.run, g.ph) AS i
            UNION ALL
            SELECT 'interrupted', cut[1], cut[2] WHERE cut IS NOT NULL) AS b
     WHERE b.ph IS NOT NULL AND b.t1 > b.t0;

    RETURN @extschema@._svg_document(format('Load job %s: rate and rows written', job), about,
        coalesce(bands, '')
        || @extschema@._svg_panel(90, 56, 660, 100, NULL, 'rows/s', NULL, ts, rps, xmin => 0, ymin => 0)
        || @extschema@._svg_panel(90, 190, 660, 100, NULL, 'MB/s', NULL, ts, mbps, xmin => 0, ymin => 0)
        || @extschema@._svg_panel(90, 324, 660, 100, format('time since start (%s)', unit),
                                 'rows written', NULL, ts, total, xmin => 0, ymin => 0));
END
$$;
COMMENT ON FUNCTION @extschema@.chart_load(bigint) IS
    'an SVG chart of a load job: rows/s, MB/s and rows written over time, with the job''s phases behind them';
REVOKE ALL ON FUNCTION @extschema@.chart_load(bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.chart_load(bigint) TO pg_monitor, petagen_operator;
