-- petagen.cluster_stop(cluster_job): stop() on every node of a cluster job.
CREATE OR REPLACE FUNCTION @extschema@.cluster_stop(cluster_job bigint,
    OUT node text, OUT job bigint, OUT state text, OUT error text)
RETURNS SETOF record
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN QUERY SELECT * FROM @extschema@._cluster_each(cluster_job, 'petagen.cluster_stop()', true,
                                                         'SELECT @extschema@.stop(%s)');
END
$$;
COMMENT ON FUNCTION @extschema@.cluster_stop(bigint) IS
    'stop() the load job of every node of a cluster job; one row per node: its job, the state stop() returned or the error (a WARNING names each node that failed)';
REVOKE ALL ON FUNCTION @extschema@.cluster_stop(bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.cluster_stop(bigint) TO petagen_operator;
