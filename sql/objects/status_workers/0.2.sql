-- petagen.status_workers(job): a row per phase of the job (worker IS NULL),
-- then a row per worker of its live run, each with its own progress, in
-- the columns a 120-column psql screen holds; status_details() has them all.
CREATE OR REPLACE FUNCTION @extschema@.status_workers(job bigint,
    OUT worker integer, OUT phase text, OUT state text, OUT pid integer,
    OUT unit text, OUT percent double precision, OUT rows_written bigint,
    OUT rows_per_s bigint, OUT reason text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'petagen_status_workers'
LANGUAGE C VOLATILE;
COMMENT ON FUNCTION @extschema@.status_workers(bigint) IS
    'a load job''s phases (worker IS NULL) and its live workers, each with its own progress, the chunk or leaf it writes, rows, rate and reason (cut to 24 characters); status_details() has every figure';
REVOKE ALL ON FUNCTION @extschema@.status_workers(bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.status_workers(bigint) TO petagen_operator, pg_monitor;
