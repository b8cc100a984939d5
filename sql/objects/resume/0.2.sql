-- petagen.resume(job): load what an interrupted, stopped or failed job has not;
-- refused if another job wrote into its table since, unless force => true.
CREATE OR REPLACE FUNCTION @extschema@.resume(job bigint, workers integer DEFAULT NULL,
    force boolean DEFAULT false)
RETURNS bigint
AS 'MODULE_PATHNAME', 'petagen_resume'
LANGUAGE C VOLATILE;
COMMENT ON FUNCTION @extschema@.resume(bigint, integer, boolean) IS
    'load what an interrupted, stopped or failed load job has not, with workers workers (NULL: the job''s); refused if another job wrote into its table since, unless force; returns the job id';
REVOKE ALL ON FUNCTION @extschema@.resume(bigint, integer, boolean) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.resume(bigint, integer, boolean) TO petagen_operator;
