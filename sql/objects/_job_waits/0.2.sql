-- petagen._job_waits(job): what the live workers of a load job on this node
-- waited on over the last seconds, all together, as shares of the limits
-- they count against, most first: 'data writes 71% CPU 29%', 'sleep 96%'
-- (a worker's own sleeps: max_rate, the disk reserve).  Each worker samples
-- its own wait event every 100 ms; this reads the samples and sleeps not.
-- NULL without a live worker.
CREATE OR REPLACE FUNCTION @extschema@._job_waits(job bigint)
RETURNS text
AS 'MODULE_PATHNAME', 'petagen_job_waits'
LANGUAGE C VOLATILE STRICT;
REVOKE ALL ON FUNCTION @extschema@._job_waits(bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@._job_waits(bigint) TO petagen_operator, pg_monitor;
