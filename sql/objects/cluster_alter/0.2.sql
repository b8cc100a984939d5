-- petagen.cluster_alter(cluster_job, ...): alter() of every node's load job
-- of a cluster job, with the same settings (max_rate and disk_reserve are
-- each node's own); NULL leaves a setting.
CREATE OR REPLACE FUNCTION @extschema@.cluster_alter(cluster_job bigint, workers integer DEFAULT NULL,
    max_rate text DEFAULT NULL, disk_reserve text DEFAULT NULL,
    OUT node text, OUT job bigint, OUT state text, OUT error text)
RETURNS SETOF record
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN QUERY SELECT * FROM @extschema@._cluster_each(cluster_job, 'petagen.cluster_alter()', true, format(
        'SELECT a.state FROM @extschema@.alter(%%s, workers => %s, max_rate => %s, disk_reserve => %s) AS a',
        quote_nullable(workers), quote_nullable(max_rate), quote_nullable(disk_reserve)));
END
$$;
COMMENT ON FUNCTION @extschema@.cluster_alter(bigint, integer, text, text) IS
    'alter() the load job of every node of a cluster job with the same settings (max_rate and disk_reserve per node); one row per node: its job, its state or the error (a WARNING names each node that failed)';
REVOKE ALL ON FUNCTION @extschema@.cluster_alter(bigint, integer, text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.cluster_alter(bigint, integer, text, text) TO petagen_operator;
