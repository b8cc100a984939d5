-- petagen.cluster_resume(cluster_job, workers): resume() on every node of
-- a cluster job whose load job is interrupted, stopped or failed.
CREATE OR REPLACE FUNCTION @extschema@.cluster_resume(cluster_job bigint, workers integer DEFAULT NULL,
    OUT node text, OUT job bigint, OUT state text, OUT error text)
RETURNS SETOF record
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN QUERY SELECT * FROM @extschema@._cluster_each(cluster_job, 'petagen.cluster_resume()', true, format(
        'SELECT CASE WHEN s.state IN (''interrupted'', ''stopped'', ''failed'')'
        ' THEN (SELECT ''resumed'' FROM @extschema@.resume(s.job, workers => %s))'
        ' ELSE s.state END FROM @extschema@.status(%%s) AS s', quote_nullable(workers)));
END
$$;
COMMENT ON FUNCTION @extschema@.cluster_resume(bigint, integer) IS
    'resume() the load job of every node of a cluster job that is interrupted, stopped or failed (workers: as resume()''s); one row per node: its job, resumed or the state it is in, or the error (a WARNING names each node that failed)';
REVOKE ALL ON FUNCTION @extschema@.cluster_resume(bigint, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.cluster_resume(bigint, integer) TO petagen_operator;
