-- petagen.status(job): one row per job, the screen to \watch: the active
-- jobs (running, stopped) and those that ended in the last hour, or job.
-- A row fits a 120-column psql screen: the job's method is in petagen.jobs,
-- the whole reason in status_details().
CREATE OR REPLACE FUNCTION @extschema@.status(job bigint DEFAULT NULL,
    OUT job bigint, OUT "table" regclass, OUT phase text,
    OUT progress text, OUT rate text, OUT elapsed interval, OUT eta interval,
    OUT state text, OUT reason text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'petagen_status'
LANGUAGE C VOLATILE;
COMMENT ON FUNCTION @extschema@.status(bigint) IS
    'one row per load job: phase, progress of the whole job, rows/s, elapsed, ETA, state and reason (cut to 24 characters); without an argument the active jobs and those ended in the last hour';
REVOKE ALL ON FUNCTION @extschema@.status(bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.status(bigint) TO petagen_operator, pg_monitor;
