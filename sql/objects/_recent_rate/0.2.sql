-- petagen._recent_rate(job, seconds): the rows per second a load job's live
-- run on this node wrote over the last seconds, from the run's rate history
-- (a sample a second while it loads, the last 320 kept); NULL if the run
-- has not loaded that long, or does not load.
CREATE OR REPLACE FUNCTION @extschema@._recent_rate(job bigint, seconds double precision)
RETURNS double precision
AS 'MODULE_PATHNAME', 'petagen_recent_rate'
LANGUAGE C VOLATILE STRICT;
REVOKE ALL ON FUNCTION @extschema@._recent_rate(bigint, double precision) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@._recent_rate(bigint, double precision) TO petagen_operator, pg_monitor;
