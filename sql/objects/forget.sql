-- petagen.forget(job): remove a job that has no worker, its catalog rows and files.
CREATE OR REPLACE FUNCTION @extschema@.forget(job bigint)
RETURNS text
AS 'MODULE_PATHNAME', 'petagen_forget'
LANGUAGE C VOLATILE;
COMMENT ON FUNCTION @extschema@.forget(bigint) IS
    'remove a load job that has no live worker (done, failed, stopped or interrupted): its rows in the job tables, the rows its interrupted frozen chunks left, its routing files and the files of leaves a crash interrupted; returns the state it had';
REVOKE ALL ON FUNCTION @extschema@.forget(bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.forget(bigint) TO petagen_operator;
