-- petagen 0.1 -> 0.2.  Every change to petagen--0.2.sql since 0.1 appears
-- here too, so that ALTER EXTENSION petagen UPDATE gives what a fresh 0.2 has.
\echo Use "ALTER EXTENSION petagen UPDATE TO '0.2'" to load this file. \quit

-- The job catalog is written only by petagen's functions (as its owner):
-- operators keep SELECT, lose every write, and no longer draw bench ids.
REVOKE INSERT, UPDATE, DELETE ON @extschema@.jobs, @extschema@.chunks,
    @extschema@.progress_log, @extschema@.chunk_intents, @extschema@.job_indexes,
    @extschema@.bench_results FROM petagen_operator;
REVOKE USAGE ON SEQUENCE @extschema@.bench_results_id_seq FROM petagen_operator;

-- load() and create_table() write: operators may run them (with their own
-- privileges on the tables), pg_monitor members and other roles with USAGE
-- on the schema may not.  status() shows what the job tables hold, to the
-- roles that may read them.  The pure functions, verify() (with the
-- caller's privileges) and wait() (on the caller's jobs) stay PUBLIC.
REVOKE ALL ON FUNCTION @extschema@.load(regclass, numeric, numeric, text, bigint, integer, text, integer) FROM PUBLIC;
REVOKE ALL ON FUNCTION @extschema@.create_table(text, integer, text[], integer, integer, integer) FROM PUBLIC;
REVOKE ALL ON FUNCTION @extschema@.status(bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.load(regclass, numeric, numeric, text, bigint, integer, text, integer),
    @extschema@.create_table(text, integer, text[], integer, integer, integer) TO petagen_operator;
GRANT EXECUTE ON FUNCTION @extschema@.status(bigint) TO petagen_operator, pg_monitor;

-- start() and check() without chunk_rows choose the chunk size from rows
-- and workers (about four chunks per worker, 1,000 .. 100,000 rows).
-- start() and check() take method ('auto', the default, 'chunk' or 'leaf'):
-- a new signature.
DROP FUNCTION @extschema@.start(numeric, integer, text, text, bigint, integer, text, integer, bigint, text, text, boolean, text, boolean);
DROP FUNCTION @extschema@.check(numeric, integer, text, text, bigint, integer, text, integer, bigint, text, text, boolean, text);
-- petagen.start(rows): start a load job of the key space 0 .. rows-1; returns its id.
CREATE FUNCTION @extschema@.start(
    rows numeric,
    workers integer DEFAULT 4,
    "table" text DEFAULT 'usertable',
    keys text DEFAULT 'scrambled',
    seed bigint DEFAULT 0,
    fieldlength integer DEFAULT 100,
    prefix text DEFAULT 'user',
    zeropadding integer DEFAULT 1,
    chunk_rows bigint DEFAULT NULL,
    disk_reserve text DEFAULT NULL,
    max_rate text DEFAULT NULL,
    frozen boolean DEFAULT false,
    indexes text DEFAULT 'maintain',
    force boolean DEFAULT false,
    method text DEFAULT 'auto')
RETURNS bigint
AS 'MODULE_PATHNAME', 'petagen_start'
LANGUAGE C VOLATILE CALLED ON NULL INPUT;
REVOKE ALL ON FUNCTION @extschema@.start(numeric, integer, text, text, bigint, integer, text, integer, bigint, text, text, boolean, text, boolean, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.start(numeric, integer, text, text, bigint, integer, text, integer, bigint, text, text, boolean, text, boolean, text) TO petagen_operator;

-- petagen.check(rows, ...): what would hurt a load with start()'s arguments,
-- one finding per row; start() refuses on an error unless force => true.
CREATE FUNCTION @extschema@.check(
    rows numeric,
    workers integer DEFAULT 4,
    "table" text DEFAULT 'usertable',
    keys text DEFAULT 'scrambled',
    seed bigint DEFAULT 0,
    fieldlength integer DEFAULT 100,
    prefix text DEFAULT 'user',
    zeropadding integer DEFAULT 1,
    chunk_rows bigint DEFAULT NULL,
    disk_reserve text DEFAULT NULL,
    max_rate text DEFAULT NULL,
    frozen boolean DEFAULT false,
    indexes text DEFAULT 'maintain',
    method text DEFAULT 'auto',
    OUT severity text, OUT object text, OUT finding text, OUT hint text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'petagen_check'
LANGUAGE C VOLATILE CALLED ON NULL INPUT;
COMMENT ON FUNCTION @extschema@.check(numeric, integer, text, text, bigint, integer, text, integer, bigint, text, text, boolean, text, text) IS
    'preflight of a load: shape, leaves, space per filesystem, index tablespaces, relation size, worker slots, settings';
REVOKE ALL ON FUNCTION @extschema@.check(numeric, integer, text, text, bigint, integer, text, integer, bigint, text, text, boolean, text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.check(numeric, integer, text, text, bigint, integer, text, integer, bigint, text, text, boolean, text, text) TO petagen_operator, pg_monitor;

-- progress_log rows name the phase the job was in (issue 23).
ALTER TABLE @extschema@.progress_log ADD COLUMN phase text;

-- Load rates over honest intervals: load_rates(), and chart_load() drawing it.
-- petagen.load_rates(job): a load job's progress_log rows with their rates.
-- Each row's rates count the rows written over the window that ends at it
-- and spans the time since the previous row, or the job's median time
-- between rows if that is longer (cumulative counts are interpolated
-- linearly inside the window's first interval): a row logged moments after
-- the one before it is not credited with work done before that one.
-- Drops (work rolled back by a stop) count as no progress.  phase: what
-- the job was doing (progress_log.phase).
CREATE FUNCTION @extschema@.load_rates(job bigint)
RETURNS TABLE(logged_at timestamptz, seconds double precision, rows_written bigint,
              bytes bigint, rows_per_s double precision, mb_per_s double precision,
              phase text)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
BEGIN ATOMIC
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

-- petagen.chart_load(job): load rate (rows/s, MB/s) and rows written over
-- the time since the job was started, from petagen.load_rates(), with the
-- job's phases (routing, loading, indexing; stopped or failed between
-- runs) as bands behind the panels.
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
           array_agg(r.phase ORDER BY r.seconds, r.rows_written)
      INTO ts, rps, mbps, total, phases
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
    -- the x axis svg_panel() draws (xmin 0), for the bands behind it
    xt := @extschema@.svg_ticks(0, ts[cardinality(ts)]);

    -- a band per run of rows in the same phase, from where it began (the
    -- chart's start for a first phase of work) to where the next one did;
    -- a run's end (stopped, failed) lasts until the next run began
    SELECT @extschema@.svg_bands(90, 56, 660, 368, xt[1], xt[cardinality(xt)],
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
                     GROUP BY g.run, g.ph) AS i) AS b
     WHERE b.ph IS NOT NULL AND b.t1 > b.t0;

    RETURN @extschema@.svg_document(format('Load job %s: rate and rows written', job), about,
        coalesce(bands, '')
        || @extschema@.svg_panel(90, 56, 660, 100, NULL, 'rows/s', NULL, ts, rps, xmin => 0, ymin => 0)
        || @extschema@.svg_panel(90, 190, 660, 100, NULL, 'MB/s', NULL, ts, mbps, xmin => 0, ymin => 0)
        || @extschema@.svg_panel(90, 324, 660, 100, format('time since start (%s)', unit),
                                 'rows written', NULL, ts, total, xmin => 0, ymin => 0));
END
$$;

REVOKE ALL ON FUNCTION @extschema@.load_rates(bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.load_rates(bigint) TO pg_monitor, petagen_operator;

-- Dropping petagen is refused while a load job's workers run (they write
-- into the table and this catalog): DROP EXTENSION, DROP SCHEMA of its
-- schema and DROP OWNED by its owner or its schema's owner, the statements
-- that can drop it; other DDL does not fire this.
CREATE FUNCTION @extschema@.guard_drop_extension()
RETURNS event_trigger
AS 'MODULE_PATHNAME', 'petagen_guard_drop_extension'
LANGUAGE C;
CREATE EVENT TRIGGER petagen_guard_drop_extension ON ddl_command_start
    WHEN TAG IN ('DROP EXTENSION', 'DROP SCHEMA', 'DROP OWNED')
    EXECUTE FUNCTION @extschema@.guard_drop_extension();

-- The Citus shards a job writes on this node, as start() found them placed
-- here; a chunk fails when they change (a shard moved during the load).
CREATE TABLE @extschema@.job_shards (
    job bigint NOT NULL REFERENCES @extschema@.jobs ON DELETE CASCADE,
    shard bigint NOT NULL,
    PRIMARY KEY (job, shard)
);
COMMENT ON TABLE @extschema@.job_shards IS
    'the Citus shards placed on this node when a load job of a distributed table started';
SELECT pg_catalog.pg_extension_config_dump('@extschema@.job_shards', '');
GRANT SELECT ON @extschema@.job_shards TO petagen_operator, pg_monitor;

-- leaves() of a Citus table lists its shards, those on other nodes with their node.
COMMENT ON FUNCTION @extschema@.leaves(regclass) IS
    'the leaves of a table in routing order (a Citus table''s shards); node is "local", the foreign server of a foreign leaf, or host:port of the Citus node holding a shard that is not here (leaf NULL)';

-- Leaf loads: method => 'leaf' routes first, then writes each local leaf
-- whole, frozen, into new storage, one transaction per leaf; the ledger row
-- of a leaf job is a leaf (chunk numbers the local leaves in routing order).
ALTER TABLE @extschema@.jobs
    ADD COLUMN method text NOT NULL DEFAULT 'chunk'
        CHECK (method IN ('chunk', 'leaf'));
ALTER TABLE @extschema@.chunks
    ADD COLUMN leaf regclass;
-- A leaf job's routing files are $PGDATA/pg_petagen/<database oid>/<token>:
-- a random value start() draws, so that they belong to this job only.
ALTER TABLE @extschema@.jobs
    ADD COLUMN route_token bigint;

-- bench() targets the shards of a Citus node through the distributed table.
COMMENT ON TABLE @extschema@.bench_results IS
    'petagen.bench() runs: sweep is the id of the first run of a bench_sweep(); target_node is "local", the foreign server of the target leaves, the Citus node (host:port) of shards queried through Citus, or "mixed"';

-- petagen.alter(job, ...): change a job's workers (for its next run),
-- max_rate and disk_reserve (live, within a second); NULL leaves a setting.
CREATE FUNCTION @extschema@.alter(job bigint, workers integer DEFAULT NULL,
    max_rate text DEFAULT NULL, disk_reserve text DEFAULT NULL)
RETURNS void
AS 'MODULE_PATHNAME', 'petagen_alter'
LANGUAGE C VOLATILE;
COMMENT ON FUNCTION @extschema@.alter(bigint, integer, text, text) IS
    'change a load job''s max_rate and disk_reserve (a running job''s workers take them within a second) or its workers (for the next resume())';
REVOKE ALL ON FUNCTION @extschema@.alter(bigint, integer, text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.alter(bigint, integer, text, text) TO petagen_operator;

-- Forgetting load jobs and benchmark runs: the operators', on their own.
-- petagen.forget(job): remove a job that has no worker, its catalog rows and files.
CREATE FUNCTION @extschema@.forget(job bigint)
RETURNS text
AS 'MODULE_PATHNAME', 'petagen_forget'
LANGUAGE C VOLATILE;
COMMENT ON FUNCTION @extschema@.forget(bigint) IS
    'remove a load job that has no live worker (done, failed, stopped or interrupted): its rows in the job tables, the rows its interrupted frozen chunks left, its routing files and the files of leaves a crash interrupted; returns the state it had';
REVOKE ALL ON FUNCTION @extschema@.forget(bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.forget(bigint) TO petagen_operator;
-- petagen.forget_bench(id): remove a benchmark run, or every run of the sweep id names.
CREATE FUNCTION @extschema@.forget_bench(id bigint)
RETURNS bigint
AS 'MODULE_PATHNAME', 'petagen_forget_bench'
LANGUAGE C VOLATILE;
COMMENT ON FUNCTION @extschema@.forget_bench(bigint) IS
    'remove benchmark run id from petagen.bench_results, with every run of its sweep when id is a sweep''s (its first run''s); returns the number of runs removed';
REVOKE ALL ON FUNCTION @extschema@.forget_bench(bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.forget_bench(bigint) TO petagen_operator;

-- Charts that do not mislead (issue 23): chart_load() draws the phases
-- (above), the table's name (or "dropped table") and the job's method,
-- keys, frozen and indexes; more than 7 series get colours of their own;
-- coordinates are rounded; chart_sweep() refuses a single run's id.


-- petagen.svg_color(i): colour i (1, 2, ...): the 7 colours of a palette
-- safe for colour-blind readers, then hues a golden angle apart in three
-- lightnesses, so that any number of series get distinct colours.
CREATE OR REPLACE FUNCTION @extschema@.svg_color(i integer)
RETURNS text
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    h double precision := ((i - 8) * 137.508 + 270)::numeric % 360;
    l double precision := (ARRAY[0.42, 0.30, 0.55])[1 + (i - 8) % 3];
    a double precision := 0.75 * least(l, 1 - l);
BEGIN
    IF i <= 7 THEN
        RETURN ('{#0072b2,#d55e00,#009e73,#cc79a7,#e69f00,#56b4e9,#000000}'::text[])
               [1 + ((i - 1) % 7 + 7) % 7];
    END IF;
    RETURN '#' || (SELECT string_agg(lpad(to_hex(round(255 * (l - a * greatest(-1, least(k - 3, 9 - k, 1))))::integer), 2, '0'),
                                     '' ORDER BY n)
                     FROM unnest('{0,8,4}'::integer[]) WITH ORDINALITY AS c(n0, n),
                          LATERAL (SELECT ((n0 + h / 30)::numeric % 12)::float8) AS x(k));
END
$$;

-- petagen.svg_tint(phase): the background colour of a job's phase.
CREATE FUNCTION @extschema@.svg_tint(phase text)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
RETURN CASE phase WHEN 'routing' THEN '#fbe3c4' WHEN 'loading' THEN '#e6f0fa'
                  WHEN 'indexing' THEN '#dcefe2' ELSE '#e4e4e4' END;

-- petagen.svg_bands(x, y, w, h, lo, hi, labels, starts, ends): the spans
-- starts[i] .. ends[i] of an x axis from lo to hi, drawn across the box
-- (x, y, w, h) as tinted <rect class="phase"> with a tooltip, and a key of
-- the labels below the box, left of where svg_panel() puts the x label:
-- the phases behind a chart over time.
CREATE FUNCTION @extschema@.svg_bands(x integer, y integer, w integer, h integer,
    lo double precision, hi double precision,
    labels text[], starts double precision[], ends double precision[])
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
RETURN (SELECT string_agg(format('<rect class="phase" x="%s" y="%s" width="%s" height="%s" fill="%s"><title>%s</title></rect>',
                                 p.x0, y, p.x1 - p.x0, h, @extschema@.svg_tint(b.label),
                                 @extschema@.svg_escape(format('%s: %s to %s', b.label,
                                     @extschema@.svg_number(b.s0, true), @extschema@.svg_number(b.s1, true)))),
                          E'\n' ORDER BY b.o)
          FROM unnest(labels, starts, ends) WITH ORDINALITY AS b(label, s0, s1, o),
               LATERAL (SELECT @extschema@.svg_scale(b.s0, lo, hi, false, x, x + w),
                               @extschema@.svg_scale(b.s1, lo, hi, false, x, x + w)) AS p(x0, x1))
    || E'\n'
    || (SELECT string_agg(format('<rect x="%s" y="%s" width="12" height="12" fill="%s" stroke="#888888"/>'
                                 '<text x="%s" y="%s">%s</text>',
                                 k.kx, y + h + 26, @extschema@.svg_tint(k.label),
                                 k.kx + 16, y + h + 36, @extschema@.svg_escape(k.label, 9)),
                          E'\n' ORDER BY k.n)
          FROM (SELECT u.label, row_number() OVER (ORDER BY min(u.o)) AS n
                  FROM unnest(labels) WITH ORDINALITY AS u(label, o)
                 GROUP BY u.label) AS g,
               LATERAL (SELECT g.label, g.n,
                               x + CASE WHEN g.n <= 3 THEN 80 * (g.n - 1)
                                        ELSE w - 80 * (7 - g.n) END) AS k(label, n, kx)
         WHERE g.n <= 6)
    || E'\n';

-- petagen.svg_panel(...): a line chart in the box (x, y, w, h): grid, ticks,
-- axis labels, per series a line and its points as <circle class="mark">
-- with a tooltip, and a legend right of the box (as many series as fit,
-- then how many more).  Points a log axis cannot show are left out.
-- xticks: the x ticks to use (the x axis then gets a margin); xmin, ymin:
-- a value the axis must reach (0 for rates and time).
CREATE OR REPLACE FUNCTION @extschema@.svg_panel(
    x integer, y integer, w integer, h integer,
    xlabel text, ylabel text,
    series text[], xs double precision[], ys double precision[],
    logx boolean DEFAULT false, logy boolean DEFAULT false,
    xticks double precision[] DEFAULT NULL, xmin double precision DEFAULT NULL,
    ymin double precision DEFAULT NULL, legend boolean DEFAULT true)
RETURNS text
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    pad integer := CASE WHEN xticks IS NULL THEN 0 ELSE w / 25 END;
    xt double precision[];
    yt double precision[];
    xlo double precision;
    xhi double precision;
    ylo double precision;
    yhi double precision;
    grid text;
    ticks text;
    lines text;
    keys text;
    room integer := greatest(h / 18, 2);
    series_n integer;
BEGIN
    SELECT min(px), max(px), min(py), max(py) INTO xlo, xhi, ylo, yhi
      FROM unnest(xs, ys) AS p(px, py)
     WHERE px IS NOT NULL AND py IS NOT NULL
       AND (NOT logx OR px > 0) AND (NOT logy OR py > 0);
    IF xlo IS NULL THEN
        RAISE EXCEPTION 'no data points to draw' USING ERRCODE = '22000';
    END IF;
    xt := coalesce(xticks, @extschema@.svg_ticks(CASE WHEN logx THEN xlo ELSE least(xmin, xlo) END,
                                                 xhi, logx));
    yt := @extschema@.svg_ticks(CASE WHEN logy THEN ylo ELSE least(ymin, ylo) END, yhi, logy);
    xlo := xt[1];
    xhi := xt[cardinality(xt)];
    ylo := yt[1];
    yhi := yt[cardinality(yt)];

    SELECT string_agg(format('<line x1="%1$s" y1="%2$s" x2="%3$s" y2="%2$s" stroke="#e6e6e6"/>'
                             '<text x="%4$s" y="%5$s" text-anchor="end">%6$s</text>',
                             x, py, x + w, x - 6, py + 4, @extschema@.svg_number(t)),
                      E'\n' ORDER BY t)
      INTO grid
      FROM unnest(yt) AS t,
           LATERAL @extschema@.svg_scale(t, ylo, yhi, logy, y + h, y) AS py;
    SELECT string_agg(format('<line x1="%1$s" y1="%2$s" x2="%1$s" y2="%3$s" stroke="#888888"/>'
                             '<text x="%1$s" y="%4$s" text-anchor="middle">%5$s</text>',
                             px, y + h, y + h + 5, y + h + 18, @extschema@.svg_number(t)),
                      E'\n' ORDER BY t)
      INTO ticks
      FROM unnest(xt) AS t,
           LATERAL @extschema@.svg_scale(t, xlo, xhi, logx, x + pad, x + w - pad) AS px;

    WITH p AS (
        SELECT u.s, u.px, u.py, u.o
          FROM unnest(series, xs, ys) WITH ORDINALITY AS u(s, px, py, o)
         WHERE u.px IS NOT NULL AND u.py IS NOT NULL
           AND (NOT logx OR u.px > 0) AND (NOT logy OR u.py > 0)),
    k AS (
        SELECT p.s, row_number() OVER (ORDER BY min(p.o))::integer AS i
          FROM p GROUP BY p.s),
    q AS (
        SELECT k.i, p.s, p.px, p.py, p.o, @extschema@.svg_color(k.i) AS color,
               @extschema@.svg_scale(p.px, xlo, xhi, logx, x + pad, x + w - pad) AS cx,
               @extschema@.svg_scale(p.py, ylo, yhi, logy, y + h, y) AS cy
          FROM p JOIN k ON k.s IS NOT DISTINCT FROM p.s),
    d AS (
        SELECT q.i, q.s, q.color,
               CASE WHEN count(*) > 1 THEN
                   format('<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>' || E'\n',
                          q.color, string_agg(q.cx || ',' || q.cy, ' ' ORDER BY q.px, q.o))
               ELSE '' END
               || string_agg(format('<circle class="mark" cx="%s" cy="%s" r="4" fill="%s"><title>%s</title></circle>',
                                    q.cx, q.cy, q.color,
                                    @extschema@.svg_escape(concat(
                                        q.s || ': ', coalesce(xlabel, 'x'), ' = ',
                                        @extschema@.svg_number(q.px, true), ', ', coalesce(ylabel, 'y'),
                                        ' = ', @extschema@.svg_number(q.py, true)))),
                             E'\n' ORDER BY q.px, q.o) AS drawn
          FROM q GROUP BY q.i, q.s, q.color),
    g AS (SELECT d.*, count(*) OVER ()::integer AS n FROM d)
    SELECT string_agg(g.drawn, E'\n' ORDER BY g.i),
           string_agg(format('<line x1="%1$s" y1="%2$s" x2="%3$s" y2="%2$s" stroke="%4$s" stroke-width="2"/>'
                             '<circle cx="%5$s" cy="%2$s" r="4" fill="%4$s"/><text x="%6$s" y="%7$s">%8$s</text>',
                             x + w + 14, y + 18 * g.i - 8, x + w + 38, g.color, x + w + 26,
                             x + w + 44, y + 18 * g.i - 4,
                             @extschema@.svg_escape(g.s, greatest(4, (756 - x - w) / 7))),
                      E'\n' ORDER BY g.i) FILTER (WHERE legend AND g.s IS NOT NULL
                                                 AND (g.i < room OR g.n <= room)),
           max(g.n)
      INTO lines, keys, series_n
      FROM g;

    RETURN concat_ws(E'\n', grid, ticks,
        format('<rect x="%s" y="%s" width="%s" height="%s" fill="none" stroke="#888888"/>', x, y, w, h),
        CASE WHEN xlabel IS NOT NULL THEN
            format('<text x="%s" y="%s" text-anchor="middle">%s</text>',
                   x + w / 2, y + h + 36, @extschema@.svg_escape(xlabel, 80)) END,
        CASE WHEN ylabel IS NOT NULL THEN
            format('<text transform="translate(%s,%s) rotate(-90)" text-anchor="middle">%s</text>',
                   x - 54, y + h / 2, @extschema@.svg_escape(ylabel, h / 7)) END,
        lines, keys,
        CASE WHEN legend AND series_n > room THEN
            format('<text x="%s" y="%s">+ %s more</text>',
                   x + w + 14, y + 18 * room - 4, series_n - room + 1) END) || E'\n';
END
$$;

-- petagen.chart_sweep(sweep, metric): chart_bench() of the runs of one
-- bench_sweep(); the id of a single bench() run is not a sweep.
CREATE OR REPLACE FUNCTION @extschema@.chart_sweep(sweep bigint, metric text DEFAULT 'tps')
RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    ids bigint[];
BEGIN
    IF sweep IS NULL THEN
        RAISE EXCEPTION 'argument "sweep" of petagen.chart_sweep() must not be null'
            USING ERRCODE = '22004';
    END IF;
    ids := ARRAY(SELECT r.id FROM @extschema@.bench_results AS r
                  WHERE r.sweep = chart_sweep.sweep ORDER BY r.id);
    IF cardinality(ids) = 0 THEN
        RAISE EXCEPTION 'benchmark sweep % does not exist', sweep USING ERRCODE = '42704',
            HINT = CASE WHEN EXISTS (SELECT FROM @extschema@.bench_results AS r WHERE r.id = chart_sweep.sweep)
                        THEN format('Run %s is a single petagen.bench() run, not a sweep: draw it with petagen.chart_bench(''{%s}'').', sweep, sweep)
                        ELSE 'Run petagen.bench_sweep() first: it returns the sweep id, the sweep column of petagen.bench_results.' END;
    END IF;
    RETURN @extschema@.chart_bench(ids, metric,
        format('Sweep %s: %s', sweep, CASE metric WHEN 'latency' THEN 'latency percentiles vs workers'
                                                  ELSE 'TPS vs workers' END));
END
$$;

-- petagen.chart_matrix(ids): bench_matrix() as a heatmap of TPS, rows = node
-- sending the queries, columns = node holding the data; cells are
-- <rect class="cell">, pairs without a run <rect class="missing">.
CREATE OR REPLACE FUNCTION @extschema@.chart_matrix(ids bigint[] DEFAULT NULL)
RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    ax constant integer := 170;
    ay constant integer := 90;
    aw constant integer := 460;
    ah constant integer := 330;
    nodes text[];
    targets text[];
    kinds text;
    tk double precision[];
    lo double precision;
    hi double precision;
    cw numeric;
    ch numeric;
    fs numeric;
    body text;
BEGIN
    SELECT array_agg(DISTINCT b.node ORDER BY b.node), array_agg(DISTINCT b.target ORDER BY b.target),
           string_agg(DISTINCT b.kind, ', '), min(b.tps), max(b.tps)
      INTO nodes, targets, kinds, lo, hi
      FROM @extschema@.bench_matrix(ids) AS b;
    IF nodes IS NULL THEN
        RAISE EXCEPTION 'no benchmark runs for a node matrix' USING ERRCODE = '42704',
            HINT = CASE WHEN ids IS NULL
                        THEN 'Run petagen.bench(''select'', ...) on every node against every node''s leaves first.'
                        ELSE 'None of the ids is in petagen.bench_results.' END;
    END IF;
    tk := @extschema@.svg_ticks(lo, hi);
    lo := tk[1];
    hi := tk[cardinality(tk)];
    cw := round(aw::numeric / cardinality(targets), 1);
    ch := round(ah::numeric / cardinality(nodes), 1);
    fs := round(least(14, ch / 2.5, cw / 4.5), 1);

    SELECT string_agg(CASE WHEN b.node IS NULL THEN
               format('<rect class="missing" x="%s" y="%s" width="%s" height="%s" fill="#eeeeee" stroke="#ffffff"><title>%s</title></rect>',
                      g.cx, g.cy, cw, ch,
                      @extschema@.svg_escape(format('%s to %s: no run', rn.node, cn.target)))
           ELSE
               format('<rect class="cell" x="%s" y="%s" width="%s" height="%s" fill="%s" stroke="#ffffff"><title>%s</title></rect>'
                      '<text x="%s" y="%s" text-anchor="middle" font-size="%s" fill="%s">%s</text>',
                      g.cx, g.cy, cw, ch, @extschema@.svg_ramp(g.t),
                      @extschema@.svg_escape(format('%s to %s: %s TPS, p99 %s us (%s run %s)',
                          b.node, b.target, @extschema@.svg_number(b.tps, true),
                          coalesce(@extschema@.svg_number(b.p99_us, true), '-'), b.kind, b.id)),
                      round(g.cx + cw / 2, 1), round(g.cy + ch / 2 + fs * 0.35, 1), fs,
                      CASE WHEN g.t < 0.6 THEN '#ffffff' ELSE '#000000' END,
                      @extschema@.svg_number(b.tps))
           END, E'\n' ORDER BY rn.r, cn.c)
      INTO body
      FROM unnest(nodes) WITH ORDINALITY AS rn(node, r)
           CROSS JOIN unnest(targets) WITH ORDINALITY AS cn(target, c)
           LEFT JOIN @extschema@.bench_matrix(ids) AS b ON b.node = rn.node AND b.target = cn.target
           CROSS JOIN LATERAL (SELECT ax + (cn.c - 1) * cw AS cx, ay + (rn.r - 1) * ch AS cy,
                                      CASE WHEN hi > lo THEN (b.tps - lo) / (hi - lo) ELSE 0.5 END AS t) AS g;

    body := body || E'\n' || concat_ws(E'\n',
        (SELECT string_agg(format('<text x="%s" y="%s" text-anchor="middle">%s</text>',
                                  round(ax + (c - 0.5) * cw, 1), ay - 8,
                                  @extschema@.svg_escape(t, greatest(3, floor(cw / 7.5)::integer))),
                           E'\n' ORDER BY c)
           FROM unnest(targets) WITH ORDINALITY AS u(t, c)),
        (SELECT string_agg(format('<text x="%s" y="%s" text-anchor="end">%s</text>',
                                  ax - 8, round(ay + (r - 0.5) * ch + 4, 1),
                                  @extschema@.svg_escape(n, 18)),
                           E'\n' ORDER BY r)
           FROM unnest(nodes) WITH ORDINALITY AS u(n, r)),
        format('<text x="%s" y="%s" text-anchor="middle" font-weight="bold">node holding the data</text>',
               ax + aw / 2, ay - 28),
        format('<text transform="translate(24,%s) rotate(-90)" text-anchor="middle" font-weight="bold">node sending the queries</text>',
               ay + ah / 2),
        '<defs><linearGradient id="petagen-ramp" x1="0" y1="1" x2="0" y2="0">'
        || (SELECT string_agg(format('<stop offset="%s%%" stop-color="%s"/>', i * 12.5,
                                     @extschema@.svg_ramp(i / 8.0)), '' ORDER BY i)
              FROM generate_series(0, 8) AS i)
        || '</linearGradient></defs>',
        format('<rect x="660" y="%s" width="18" height="%s" fill="url(#petagen-ramp)" stroke="#888888"/>',
               ay, ah),
        format('<text x="669" y="%s" text-anchor="middle">TPS</text>', ay - 8),
        (SELECT string_agg(format('<line x1="678" y1="%1$s" x2="683" y2="%1$s" stroke="#888888"/>'
                                  '<text x="686" y="%2$s">%3$s</text>',
                                  py, py + 4, @extschema@.svg_number(t)), E'\n' ORDER BY t)
           FROM unnest(tk) AS t,
                LATERAL @extschema@.svg_scale(t, lo, hi, false, ay + ah, ay) AS py)) || E'\n';

    RETURN @extschema@.svg_document('Node matrix: TPS by node and data location',
        format('latest %s run per pair; the diagonal reads local leaves', kinds), body);
END
$$;

-- bench_sweep()'s rows end with the sweep id: a new result type.
DROP FUNCTION @extschema@.bench_sweep(text, integer[], interval, interval, text, text[], text, double precision, numeric, text, bigint, integer, text, integer);
-- petagen.bench_sweep(kind, workers[], ...): one bench() run per worker
-- count; each row ends with the sweep id that chart_sweep() takes.
CREATE FUNCTION @extschema@.bench_sweep(
    kind text,
    workers integer[] DEFAULT '{1,2,4,8}',
    duration interval DEFAULT NULL,
    warmup interval DEFAULT '0 s',
    "table" text DEFAULT 'usertable',
    target text[] DEFAULT NULL,
    distribution text DEFAULT NULL,
    zipfian_constant double precision DEFAULT 0.99,
    rows numeric DEFAULT NULL,
    keys text DEFAULT NULL,
    seed bigint DEFAULT NULL,
    fieldlength integer DEFAULT NULL,
    prefix text DEFAULT NULL,
    zeropadding integer DEFAULT NULL,
    operationcount bigint DEFAULT NULL,
    readproportion double precision DEFAULT NULL,
    updateproportion double precision DEFAULT NULL,
    insertproportion double precision DEFAULT NULL,
    scanproportion double precision DEFAULT NULL,
    readmodifywriteproportion double precision DEFAULT NULL,
    minscanlength integer DEFAULT NULL,
    maxscanlength integer DEFAULT NULL,
    scanlengthdistribution text DEFAULT NULL,
    hotspotdatafraction double precision DEFAULT 0.2,
    hotspotopnfraction double precision DEFAULT 0.8,
    exponentialpercentile double precision DEFAULT 95,
    exponentialfrac double precision DEFAULT 0.8571428571,
    label text DEFAULT NULL)
RETURNS TABLE(id bigint, kind text, workers integer, operations bigint,
              tps double precision, errors bigint, not_found bigint,
              p50_us double precision, p95_us double precision,
              p99_us double precision, p999_us double precision,
              max_us double precision, reads bigint, updates bigint,
              inserts bigint, scans bigint, rmws bigint, sweep bigint)
AS 'MODULE_PATHNAME', 'petagen_bench_sweep'
LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE
ROWS 4;

COMMENT ON FUNCTION @extschema@.bench_sweep(text, integer[], interval, interval, text, text[], text, double precision, numeric, text, bigint, integer, text, integer, bigint, double precision, double precision, double precision, double precision, double precision, integer, integer, text, double precision, double precision, double precision, double precision, text) IS
    'petagen.bench() once per worker count; every row ends with the sweep id (bench_results.sweep, the id of the first run)';

REVOKE ALL ON FUNCTION @extschema@.bench_sweep(text, integer[], interval, interval, text, text[], text, double precision, numeric, text, bigint, integer, text, integer, bigint, double precision, double precision, double precision, double precision, double precision, integer, integer, text, double precision, double precision, double precision, double precision, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.bench_sweep(text, integer[], interval, interval, text, text[], text, double precision, numeric, text, bigint, integer, text, integer, bigint, double precision, double precision, double precision, double precision, double precision, integer, integer, text, double precision, double precision, double precision, double precision, text) TO petagen_operator;

-- resume() refuses a job whose table another job wrote into since it last
-- did, unless force => true: a new signature.
DROP FUNCTION @extschema@.resume(bigint, integer);
-- petagen.resume(job): load what an interrupted, stopped or failed job has not;
-- refused if another job wrote into its table since, unless force => true.
CREATE FUNCTION @extschema@.resume(job bigint, workers integer DEFAULT NULL,
    force boolean DEFAULT false)
RETURNS bigint
AS 'MODULE_PATHNAME', 'petagen_resume'
LANGUAGE C VOLATILE;
REVOKE ALL ON FUNCTION @extschema@.resume(bigint, integer, boolean) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.resume(bigint, integer, boolean) TO petagen_operator;

-- An interrupted run: its last progress and why, as the auto-resume launcher
-- found it after a restart (petagen in shared_preload_libraries).
ALTER TABLE @extschema@.jobs
    ADD COLUMN interrupted_at timestamptz,
    ADD COLUMN interrupted_reason text;

-- YCSB parity (issue 20): bench() and bench_sweep() take YCSB's CoreWorkload
-- properties, draw() every request distribution's parameters, and every run
-- records its settings and an optional label.
ALTER TABLE @extschema@.bench_results ADD COLUMN label text;
ALTER TABLE @extschema@.bench_results ADD COLUMN settings jsonb;
DROP FUNCTION @extschema@.bench(text, integer, interval, interval, text, text[], text, double precision, numeric, text, bigint, integer, text, integer);
-- petagen.bench(kind, ...): run a benchmark in background workers; one row.
CREATE FUNCTION @extschema@.bench(
    kind text,
    workers integer DEFAULT 2,
    duration interval DEFAULT NULL,
    warmup interval DEFAULT '0 s',
    "table" text DEFAULT 'usertable',
    target text[] DEFAULT NULL,
    distribution text DEFAULT NULL,
    zipfian_constant double precision DEFAULT 0.99,
    rows numeric DEFAULT NULL,
    keys text DEFAULT NULL,
    seed bigint DEFAULT NULL,
    fieldlength integer DEFAULT NULL,
    prefix text DEFAULT NULL,
    zeropadding integer DEFAULT NULL,
    operationcount bigint DEFAULT NULL,
    readproportion double precision DEFAULT NULL,
    updateproportion double precision DEFAULT NULL,
    insertproportion double precision DEFAULT NULL,
    scanproportion double precision DEFAULT NULL,
    readmodifywriteproportion double precision DEFAULT NULL,
    minscanlength integer DEFAULT NULL,
    maxscanlength integer DEFAULT NULL,
    scanlengthdistribution text DEFAULT NULL,
    hotspotdatafraction double precision DEFAULT 0.2,
    hotspotopnfraction double precision DEFAULT 0.8,
    exponentialpercentile double precision DEFAULT 95,
    exponentialfrac double precision DEFAULT 0.8571428571,
    label text DEFAULT NULL)
RETURNS TABLE(id bigint, kind text, workers integer, operations bigint,
              tps double precision, errors bigint, not_found bigint,
              p50_us double precision, p95_us double precision,
              p99_us double precision, p999_us double precision,
              max_us double precision, reads bigint, updates bigint,
              inserts bigint, scans bigint, rmws bigint)
AS 'MODULE_PATHNAME', 'petagen_bench'
LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE
ROWS 1;

COMMENT ON FUNCTION @extschema@.bench(text, integer, interval, interval, text, text[], text, double precision, numeric, text, bigint, integer, text, integer, bigint, double precision, double precision, double precision, double precision, double precision, integer, integer, text, double precision, double precision, double precision, double precision, text) IS
    'in-server YCSB benchmark (kind ycsb with YCSB''s CoreWorkload properties, or a preset) on the target leaves; recorded in petagen.bench_results';

REVOKE ALL ON FUNCTION @extschema@.bench(text, integer, interval, interval, text, text[], text, double precision, numeric, text, bigint, integer, text, integer, bigint, double precision, double precision, double precision, double precision, double precision, integer, integer, text, double precision, double precision, double precision, double precision, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.bench(text, integer, interval, interval, text, text[], text, double precision, numeric, text, bigint, integer, text, integer, bigint, double precision, double precision, double precision, double precision, double precision, integer, integer, text, double precision, double precision, double precision, double precision, text) TO petagen_operator;

DROP FUNCTION @extschema@.draw(text, bigint, integer, bigint, double precision);
-- petagen.draw(distribution, items, n): the key numbers a benchmark would draw.
CREATE FUNCTION @extschema@.draw(
    distribution text,
    items bigint,
    n integer,
    seed bigint DEFAULT 0,
    zipfian_constant double precision DEFAULT 0.99,
    hotspotdatafraction double precision DEFAULT 0.2,
    hotspotopnfraction double precision DEFAULT 0.8,
    exponentialpercentile double precision DEFAULT 95,
    exponentialfrac double precision DEFAULT 0.8571428571)
RETURNS SETOF bigint
AS 'MODULE_PATHNAME', 'petagen_draw'
LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE
ROWS 1000;

COMMENT ON FUNCTION @extschema@.draw(text, bigint, integer, bigint, double precision, double precision, double precision, double precision, double precision) IS
    'n key numbers of 0 .. items-1 drawn as petagen.bench() draws them (uniform, YCSB scrambled zipfian, latest, hotspot, sequential, exponential)';

-- method => 'auto' (start()'s and check()'s default) takes the leaf method
-- when it may, the chunk method otherwise; jobs.method keeps the method
-- taken and method_reason why.
ALTER TABLE @extschema@.jobs ADD COLUMN method_reason text;

-- status() shows one row per job (the active ones and those ended in the
-- last hour), status_workers() its phases and workers; started_at keeps the
-- first run's start, run_started_at the current run's.
ALTER TABLE @extschema@.jobs ADD COLUMN run_started_at timestamptz;
DROP FUNCTION @extschema@.status(bigint);
-- petagen.status(job): one row per job, the screen to \watch: the active
-- jobs (running, stopped) and those that ended in the last hour, or job.
CREATE FUNCTION @extschema@.status(job bigint DEFAULT NULL,
    OUT job bigint, OUT "table" regclass, OUT method text, OUT phase text,
    OUT progress text, OUT rate text, OUT elapsed interval, OUT eta interval,
    OUT state text, OUT reason text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'petagen_status'
LANGUAGE C VOLATILE;
COMMENT ON FUNCTION @extschema@.status(bigint) IS
    'one row per load job: phase, progress of the whole job, rows/s, elapsed, ETA, state and reason; without an argument the active jobs and those ended in the last hour';

-- petagen.status_workers(job): a row per phase of the job (worker IS NULL),
-- then a row per worker of its live run, each with its own progress.
CREATE FUNCTION @extschema@.status_workers(job bigint,
    OUT worker integer, OUT phase text, OUT state text, OUT pid integer,
    OUT leaf regclass, OUT chunk bigint, OUT done bigint, OUT total bigint,
    OUT percent double precision, OUT rows_written bigint,
    OUT duplicates bigint, OUT rows_per_s bigint, OUT mb_per_s double precision,
    OUT started timestamptz, OUT elapsed interval, OUT disk_headroom text,
    OUT reason text, OUT last_error text, OUT last_error_at timestamptz,
    OUT current_index text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'petagen_status_workers'
LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION @extschema@.status_workers(bigint) IS
    'a load job''s phases (worker IS NULL) and its live workers, each with its own progress and the chunk or leaf it writes';
REVOKE ALL ON FUNCTION @extschema@.status(bigint) FROM PUBLIC;
REVOKE ALL ON FUNCTION @extschema@.status_workers(bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.status(bigint),
    @extschema@.status_workers(bigint) TO petagen_operator, pg_monitor;
