-- petagen.cluster_wait(cluster_job, timeout): wait until the load job of
-- every node of a cluster job ends, at most timeout in all.
CREATE OR REPLACE FUNCTION @extschema@.cluster_wait(cluster_job bigint, timeout interval DEFAULT NULL,
    OUT node text, OUT job bigint, OUT state text, OUT error text)
RETURNS SETOF record
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    deadline timestamptz := clock_timestamp() + timeout;
    m record;
    ok boolean;
BEGIN
    FOR m IN SELECT * FROM @extschema@._cluster_members(cluster_job, 'petagen.cluster_wait()', false) LOOP
        node := m.node;
        job := m.job;
        SELECT o.ok, o.result, o.error INTO ok, state, error
        FROM @extschema@._on_node(m.node, m.kind, m.host, m.port,
            format('SELECT @extschema@.wait(%s, %L)', m.job,
                   CASE WHEN timeout IS NOT NULL
                        THEN greatest(deadline - clock_timestamp(), interval '0')
                   END)) AS o;
        IF NOT ok THEN
            RAISE WARNING 'petagen.cluster_wait(): node "%" failed: %', m.node, error;
        END IF;
        RETURN NEXT;
    END LOOP;
END
$$;
COMMENT ON FUNCTION @extschema@.cluster_wait(bigint, interval) IS
    'wait until the load job of every node of a cluster job ends, at most timeout in all (NULL: no limit); one row per node: its job, its state or the error (a WARNING names each node that failed)';
REVOKE ALL ON FUNCTION @extschema@.cluster_wait(bigint, interval) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.cluster_wait(bigint, interval) TO petagen_operator, pg_monitor;
