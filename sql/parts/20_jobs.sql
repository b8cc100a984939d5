
-- Load jobs ---------------------------------------------------------------

-- Members of petagen_operator may start, stop, resume and forget load jobs.
DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_roles WHERE rolname = 'petagen_operator') THEN
        CREATE ROLE petagen_operator NOLOGIN;
    END IF;
END
$$;

-- One row per load job: what it loads, how, and how its last run ended.
CREATE TABLE @extschema@.jobs (
    job bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    "table" regclass NOT NULL,
    rows bigint NOT NULL CHECK (rows > 0),
    workers integer NOT NULL,
    chunk_rows bigint NOT NULL,
    keys text NOT NULL,
    seed bigint NOT NULL,
    fieldlength integer NOT NULL,
    prefix text NOT NULL,
    zeropadding integer NOT NULL,
    disk_reserve bigint,
    max_rate bigint,
    state text NOT NULL DEFAULT 'running'
        CHECK (state IN ('running', 'done', 'failed', 'stopped')),
    run integer NOT NULL DEFAULT 1,
    started_by regrole NOT NULL,
    created_at timestamptz NOT NULL DEFAULT pg_catalog.now(),
    started_at timestamptz,
    finished_at timestamptz,
    last_error text,
    last_error_at timestamptz,
    dsm_handle bigint,
    frozen boolean NOT NULL DEFAULT false,
    indexes text NOT NULL DEFAULT 'maintain'
        CHECK (indexes IN ('maintain', 'after')),
    -- 'leaf': route first, then each local leaf whole in one transaction;
    -- the method start() took (method => 'auto' resolves to one of them)
    method text NOT NULL DEFAULT 'chunk'
        CHECK (method IN ('chunk', 'leaf')),
    -- a leaf job's routing files are $PGDATA/pg_petagen/<database oid>/<token>:
    -- a random value start() draws, so that they belong to this job only
    route_token bigint,
    -- an interrupted run: its last progress and why, as the auto-resume
    -- launcher found it after a restart (shared_preload_libraries)
    interrupted_at timestamptz,
    interrupted_reason text,
    -- why start() took that method: method => 'auto''s reason, or that it
    -- was asked; NULL for jobs started before 0.2
    method_reason text,
    -- the current (or last) run's start; started_at keeps the first run's
    run_started_at timestamptz
);
COMMENT ON TABLE @extschema@.jobs IS
    'petagen load jobs; state "running" with no live worker is shown as interrupted by petagen.status()';

-- The work ledger: a chunk's row commits with the chunk's data.  A leaf
-- job's chunk is a whole local leaf (numbered in routing order), named in leaf.
CREATE TABLE @extschema@.chunks (
    job bigint NOT NULL REFERENCES @extschema@.jobs ON DELETE CASCADE,
    chunk bigint NOT NULL,
    keys bigint NOT NULL,
    rows_written bigint NOT NULL,
    bytes bigint NOT NULL,
    duplicates bigint NOT NULL,
    foreign_skipped bigint NOT NULL,
    worker integer NOT NULL,
    run integer NOT NULL,
    finished_at timestamptz NOT NULL DEFAULT pg_catalog.now(),
    leaf regclass,
    PRIMARY KEY (job, chunk)
);

-- Cumulative progress of every job: some 40 rows a run (one at least every
-- petagen.progress_log_interval), one as each phase begins, one at its end.
CREATE TABLE @extschema@.progress_log (
    job bigint NOT NULL REFERENCES @extschema@.jobs ON DELETE CASCADE,
    logged_at timestamptz NOT NULL DEFAULT pg_catalog.now(),
    keys_done bigint NOT NULL,
    rows_written bigint NOT NULL,
    bytes bigint NOT NULL,
    -- routing, loading or indexing; a run's last row: how it ended (done,
    -- stopped, failed); NULL in rows logged by 0.1
    phase text
);
CREATE INDEX ON @extschema@.progress_log (job, logged_at);

SELECT pg_catalog.pg_extension_config_dump('@extschema@.jobs', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.chunks', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.progress_log', '');

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

-- petagen.resume(job): load what an interrupted, stopped or failed job has not;
-- refused if another job wrote into its table since, unless force => true.
CREATE FUNCTION @extschema@.resume(job bigint, workers integer DEFAULT NULL,
    force boolean DEFAULT false)
RETURNS bigint
AS 'MODULE_PATHNAME', 'petagen_resume'
LANGUAGE C VOLATILE;

-- petagen.stop(job): stop a job's workers at their next batch; returns the state.
CREATE FUNCTION @extschema@.stop(job bigint)
RETURNS text
AS 'MODULE_PATHNAME', 'petagen_stop'
LANGUAGE C VOLATILE STRICT;

-- petagen.forget(job): remove a job that has no worker, its catalog rows and files.
CREATE FUNCTION @extschema@.forget(job bigint)
RETURNS text
AS 'MODULE_PATHNAME', 'petagen_forget'
LANGUAGE C VOLATILE;
COMMENT ON FUNCTION @extschema@.forget(bigint) IS
    'remove a load job that has no live worker (done, failed, stopped or interrupted): its rows in the job tables, the rows its interrupted frozen chunks left, its routing files and the files of leaves a crash interrupted; returns the state it had';

-- petagen.wait(job, timeout): wait until a job ends; returns its state.
CREATE FUNCTION @extschema@.wait(job bigint, timeout interval DEFAULT NULL)
RETURNS text
AS 'MODULE_PATHNAME', 'petagen_wait'
LANGUAGE C VOLATILE;

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

-- Who may do what: operators run jobs, pg_monitor members watch them.  The
-- job catalog is written only by petagen's functions (as its owner): roles
-- may read it, never write it.
REVOKE ALL ON FUNCTION @extschema@.start(numeric, integer, text, text, bigint, integer, text, integer, bigint, text, text, boolean, text, boolean, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION @extschema@.resume(bigint, integer, boolean) FROM PUBLIC;
REVOKE ALL ON FUNCTION @extschema@.stop(bigint) FROM PUBLIC;
REVOKE ALL ON FUNCTION @extschema@.forget(bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.start(numeric, integer, text, text, bigint, integer, text, integer, bigint, text, text, boolean, text, boolean, text) TO petagen_operator;
GRANT EXECUTE ON FUNCTION @extschema@.resume(bigint, integer, boolean) TO petagen_operator;
GRANT EXECUTE ON FUNCTION @extschema@.stop(bigint) TO petagen_operator;
GRANT EXECUTE ON FUNCTION @extschema@.forget(bigint) TO petagen_operator;
GRANT USAGE ON SCHEMA @extschema@ TO petagen_operator, pg_monitor;
GRANT SELECT ON @extschema@.jobs, @extschema@.chunks, @extschema@.progress_log TO petagen_operator;
GRANT SELECT ON @extschema@.jobs, @extschema@.chunks, @extschema@.progress_log TO pg_monitor;
-- load() and create_table() write: operators may run them (with their own
-- privileges on the tables), pg_monitor members and other roles with USAGE
-- on the schema may not.  status() shows what the job tables hold, to the
-- roles that may read them.  The pure functions, verify() (with the
-- caller's privileges) and wait() (on the caller's jobs) stay PUBLIC.
REVOKE ALL ON FUNCTION @extschema@.load(regclass, numeric, numeric, text, bigint, integer, text, integer) FROM PUBLIC;
REVOKE ALL ON FUNCTION @extschema@.create_table(text, integer, text[], integer, integer, integer) FROM PUBLIC;
REVOKE ALL ON FUNCTION @extschema@.status(bigint) FROM PUBLIC;
REVOKE ALL ON FUNCTION @extschema@.status_workers(bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.load(regclass, numeric, numeric, text, bigint, integer, text, integer),
    @extschema@.create_table(text, integer, text[], integer, integer, integer) TO petagen_operator;
GRANT EXECUTE ON FUNCTION @extschema@.status(bigint),
    @extschema@.status_workers(bigint) TO petagen_operator, pg_monitor;


-- Frozen loads and indexes after ------------------------------------------

-- A frozen chunk being written: committed before its rows, deleted with its
-- ledger row.  Where its attempts may have left rows (per local leaf, the
-- first block they can be on) and the first XID they can carry.
CREATE TABLE @extschema@.chunk_intents (
    job bigint NOT NULL REFERENCES @extschema@.jobs ON DELETE CASCADE,
    chunk bigint NOT NULL,
    leaves oid[] NOT NULL,
    from_blocks bigint[] NOT NULL,
    xid_bound xid8 NOT NULL,
    worker integer NOT NULL,
    run integer NOT NULL,
    written_at timestamptz NOT NULL DEFAULT pg_catalog.now(),
    PRIMARY KEY (job, chunk)
);
COMMENT ON TABLE @extschema@.chunk_intents IS
    'frozen chunks in flight or interrupted: their leftover rows are removed before the chunk is written again';

-- The indexes a job with indexes => 'after' set aside at start(), and how to
-- build each again: stage 0 (leaf indexes) in parallel, then the partitioned
-- indexes in increasing stage (deepest tables first), which attach them.
CREATE TABLE @extschema@.job_indexes (
    job bigint NOT NULL REFERENCES @extschema@.jobs ON DELETE CASCADE,
    on_table regclass NOT NULL,
    index_name name NOT NULL,
    stage integer NOT NULL,
    create_sql text NOT NULL,
    constraint_sql text,
    tablespace name,
    built_by integer,
    built_at timestamptz,
    PRIMARY KEY (job, on_table, index_name)
);
COMMENT ON TABLE @extschema@.job_indexes IS
    'indexes set aside by an indexes => ''after'' job; tablespace is the heap''s, where the index was built (NULL: the database default)';

SELECT pg_catalog.pg_extension_config_dump('@extschema@.chunk_intents', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.job_indexes', '');
GRANT SELECT ON @extschema@.chunk_intents, @extschema@.job_indexes TO petagen_operator;
GRANT SELECT ON @extschema@.chunk_intents, @extschema@.job_indexes TO pg_monitor;

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


-- Preflight check ----------------------------------------------------------

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
