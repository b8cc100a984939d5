
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
    run_started_at timestamptz,
    -- how long each field is: YCSB's fieldlengthdistribution, and its
    -- shortest field for uniform and zipfian (the longest is fieldlength)
    fieldlengthdistribution text NOT NULL DEFAULT 'constant'
        CHECK (fieldlengthdistribution IN ('constant', 'uniform', 'zipfian')),
    minfieldlength integer NOT NULL DEFAULT 1,
    -- the first key number: the job loads first .. first+rows-1 (YCSB's
    -- insertstart)
    first bigint NOT NULL DEFAULT 0 CHECK (first >= 0),
    -- petagen.auto_retry: the SQLSTATE of the error that failed the job's
    -- last run, the retries the launcher made, and when it retries next
    -- ('infinity': it does not, and status() says why)
    failed_sqlstate text,
    retries integer NOT NULL DEFAULT 0,
    next_retry_at timestamptz
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

--#include objects/_check_job/0.2.sql

--#include objects/start/0.2.sql

--#include objects/resume/0.2.sql

--#include objects/stop/0.2.sql

--#include objects/forget/0.2.sql

--#include objects/wait/0.2.sql

--#include objects/alter/0.2.sql

--#include objects/status/0.2.sql

--#include objects/status_workers/0.2.sql

--#include objects/status_details/0.2.sql

-- Who may do what: operators run jobs, pg_monitor members watch them.  The
-- job catalog is written only by petagen's functions (as its owner): roles
-- may read it, never write it.
GRANT USAGE ON SCHEMA @extschema@ TO petagen_operator, pg_monitor;
GRANT SELECT ON @extschema@.jobs, @extschema@.chunks, @extschema@.progress_log TO petagen_operator;
GRANT SELECT ON @extschema@.jobs, @extschema@.chunks, @extschema@.progress_log TO pg_monitor;
-- load() and create_table() write: operators may run them (with their own
-- privileges on the tables), pg_monitor members and other roles with USAGE
-- on the schema may not.  The pure functions, verify() (with the
-- caller's privileges) and wait() (on the caller's jobs) stay PUBLIC.
REVOKE ALL ON FUNCTION @extschema@.load(regclass, numeric, numeric, text, bigint, integer, text, integer, text, integer) FROM PUBLIC;
REVOKE ALL ON FUNCTION @extschema@.create_table(text, integer, text[], integer, integer, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.load(regclass, numeric, numeric, text, bigint, integer, text, integer, text, integer),
    @extschema@.create_table(text, integer, text[], integer, integer, integer) TO petagen_operator;


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


--#include objects/guard_drop_extension/0.2.sql


-- Preflight check ----------------------------------------------------------

--#include objects/check/0.2.sql

--#include objects/check_details/0.2.sql

