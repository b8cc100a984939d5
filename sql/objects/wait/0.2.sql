-- petagen.wait(job, timeout): wait until a job ends; returns its state.
CREATE OR REPLACE FUNCTION @extschema@.wait(job bigint, timeout interval DEFAULT NULL)
RETURNS text
AS 'MODULE_PATHNAME', 'petagen_wait'
LANGUAGE C VOLATILE;
COMMENT ON FUNCTION @extschema@.wait(bigint, interval) IS
    'wait until a load job ends, at most timeout (NULL: no limit); returns the job''s state';
