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
-- start() and check() take method ('chunk' or 'leaf'): a new signature.
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
    method text DEFAULT 'chunk')
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
    method text DEFAULT 'chunk',
    OUT severity text, OUT object text, OUT finding text, OUT hint text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'petagen_check'
LANGUAGE C VOLATILE CALLED ON NULL INPUT;
COMMENT ON FUNCTION @extschema@.check(numeric, integer, text, text, bigint, integer, text, integer, bigint, text, text, boolean, text, text) IS
    'preflight of a load: shape, leaves, space per filesystem, index tablespaces, relation size, worker slots, settings';
REVOKE ALL ON FUNCTION @extschema@.check(numeric, integer, text, text, bigint, integer, text, integer, bigint, text, text, boolean, text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.check(numeric, integer, text, text, bigint, integer, text, integer, bigint, text, text, boolean, text, text) TO petagen_operator, pg_monitor;

-- Load rates over honest intervals: load_rates(), and chart_load() drawing it.
-- petagen.load_rates(job): a load job's progress_log rows with their rates.
-- Each row's rates count the rows written over the window that ends at it
-- and spans the time since the previous row, or the job's median time
-- between rows if that is longer (cumulative counts are interpolated
-- linearly inside the window's first interval): a row logged moments after
-- the one before it is not credited with work done before that one.
-- Drops (work rolled back by a stop) count as no progress.
CREATE FUNCTION @extschema@.load_rates(job bigint)
RETURNS TABLE(logged_at timestamptz, seconds double precision, rows_written bigint,
              bytes bigint, rows_per_s double precision, mb_per_s double precision)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
BEGIN ATOMIC
    WITH o AS (
        SELECT least(j.created_at, (SELECT min(l.logged_at) FROM @extschema@.progress_log AS l
                                     WHERE l.job = j.job)) AS origin
          FROM @extschema@.jobs AS j
         WHERE j.job = load_rates.job),
    p AS (
        SELECT NULL::timestamptz AS at, 0::float8 AS sec, 0::bigint AS r, 0::bigint AS b FROM o
        UNION ALL
        SELECT l.logged_at, extract(epoch FROM l.logged_at - o.origin)::float8, l.rows_written, l.bytes
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
           greatest(x.b - a.b_from, 0) / 1048576.0 / nullif(x.win, 0)
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
-- the time since the job was started, from petagen.load_rates().
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
BEGIN
    IF job IS NULL THEN
        RAISE EXCEPTION 'argument "job" of petagen.chart_load() must not be null'
            USING ERRCODE = '22004';
    END IF;
    SELECT format('%s rows into %s, %s workers, keys %s, %s', to_char(j.rows, 'FM999,999,999,999,999,999'), j."table", j.workers, j.keys, j.state)
      INTO about
      FROM @extschema@.jobs AS j
     WHERE j.job = chart_load.job;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'load job % does not exist', job USING ERRCODE = '42704';
    END IF;
    SELECT array_agg(r.seconds ORDER BY r.seconds, r.rows_written),
           array_agg(r.rows_per_s ORDER BY r.seconds, r.rows_written),
           array_agg(r.mb_per_s ORDER BY r.seconds, r.rows_written),
           array_agg(r.rows_written ORDER BY r.seconds, r.rows_written)
      INTO ts, rps, mbps, total
      FROM @extschema@.load_rates(job) AS r;
    IF ts IS NULL THEN
        RAISE EXCEPTION 'load job % has no progress_log rows yet', job USING ERRCODE = '55000',
            HINT = format('A running job adds a row to petagen.progress_log every petagen.progress_log_interval (now %s): try again later, or lower the setting.',
                          coalesce(current_setting('petagen.progress_log_interval', true), '5min'));
    END IF;
    span := ts[cardinality(ts)];
    SELECT u, d INTO unit, div
      FROM (VALUES ('h', 3600.0, 7200.0), ('min', 60.0, 120.0), ('s', 1.0, 0.0)) AS v(u, d, above)
     WHERE span >= above ORDER BY above DESC LIMIT 1;
    ts := ARRAY(SELECT t / div FROM unnest(ts) WITH ORDINALITY AS u(t, o) ORDER BY o);

    RETURN @extschema@.svg_document(format('Load job %s: rate and rows written', job), about,
        @extschema@.svg_panel(90, 56, 660, 100, NULL, 'rows/s', NULL, ts, rps, xmin => 0, ymin => 0)
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
