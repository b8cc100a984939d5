-- petagen.forget(job): remove a job that has no worker, its catalog rows and
-- files.  Returns what went: the job, its table, the state it had, its
-- chunks and progress_log rows, and the petagen.bench() arguments that give
-- its key space (bench() takes it from the table's newest load job).
CREATE OR REPLACE FUNCTION @extschema@.forget(job bigint,
    OUT job bigint, OUT "table" regclass, OUT state text, OUT chunks bigint,
    OUT progress_log bigint, OUT key_space text)
RETURNS record
AS 'MODULE_PATHNAME', 'petagen_forget'
LANGUAGE C VOLATILE;
COMMENT ON FUNCTION @extschema@.forget(bigint) IS
    'remove a load job that has no live worker (done, failed, stopped or interrupted): its rows in the job tables, the rows its interrupted frozen chunks left, its routing files and the files of leaves a crash interrupted; returns the job, its table, the state it had, the chunks and progress_log rows removed and the bench() arguments of its key space';
REVOKE ALL ON FUNCTION @extschema@.forget(bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.forget(bigint) TO petagen_operator;
