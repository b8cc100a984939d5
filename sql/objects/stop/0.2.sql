-- petagen.stop(job): stop a job's workers at their next batch; returns the state.
CREATE OR REPLACE FUNCTION @extschema@.stop(job bigint)
RETURNS text
AS 'MODULE_PATHNAME', 'petagen_stop'
LANGUAGE C VOLATILE;
COMMENT ON FUNCTION @extschema@.stop(bigint) IS
    'stop a load job''s workers at their next batch (resume() goes on from there); returns the job''s state';
REVOKE ALL ON FUNCTION @extschema@.stop(bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.stop(bigint) TO petagen_operator;
