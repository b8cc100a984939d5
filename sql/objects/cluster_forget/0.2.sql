-- petagen.cluster_forget(cluster_job): forget() on every node of a cluster
-- job, then the cluster job itself once no node is left with its job.
CREATE OR REPLACE FUNCTION @extschema@.cluster_forget(cluster_job bigint,
    OUT node text, OUT job bigint, OUT state text, OUT error text)
RETURNS SETOF record
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    failed boolean := false;
BEGIN
    -- a node's job forgotten before (an earlier call that failed elsewhere)
    -- is forgotten still
    FOR node, job, state, error IN
        SELECT * FROM @extschema@._cluster_each(cluster_job, 'petagen.cluster_forget()', true,
            'SELECT coalesce((SELECT f.state FROM @extschema@.jobs AS j,'
            ' @extschema@.forget(j.job) AS f WHERE j.job = %s), ''forgotten'')')
    LOOP
        failed := failed OR error IS NOT NULL;
        RETURN NEXT;
    END LOOP;
    IF NOT failed THEN
        PERFORM @extschema@._cluster_unrecord(cluster_job);
    END IF;
END
$$;
COMMENT ON FUNCTION @extschema@.cluster_forget(bigint) IS
    'forget() the load job of every node of a cluster job, then the cluster job unless a node failed (a WARNING names it; call again); one row per node: its job, the state it had or the error';
REVOKE ALL ON FUNCTION @extschema@.cluster_forget(bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.cluster_forget(bigint) TO petagen_operator;
