-- petagen.status_details(job): a row per phase of the job (worker IS NULL),
-- then a row per worker of its live run, each with its own progress and
-- what it waited on over the last 10 seconds (waits: the wait events' shares,
-- bound: the limit it waited on most): every figure, in wide rows to read
-- with \x or from a script.
CREATE OR REPLACE FUNCTION @extschema@.status_details(job bigint,
    OUT worker integer, OUT phase text, OUT state text, OUT pid integer,
    OUT leaf regclass, OUT chunk bigint, OUT done bigint, OUT total bigint,
    OUT percent double precision, OUT rows_written bigint,
    OUT duplicates bigint, OUT rows_per_s bigint, OUT mb_per_s double precision,
    OUT started timestamptz, OUT elapsed interval, OUT disk_headroom text,
    OUT reason text, OUT last_error text, OUT last_error_at timestamptz,
    OUT current_index text, OUT waits text, OUT bound text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'petagen_status_details'
LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION @extschema@.status_details(bigint) IS
    'a load job''s phases (worker IS NULL) and its live workers, each with its own progress and the chunk or leaf it writes: every figure status_workers() sums up, and what each worker waited on lately (the shares of its wait events, the limit that binds)';
REVOKE ALL ON FUNCTION @extschema@.status_details(bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.status_details(bigint) TO petagen_operator, pg_monitor;
