-- petagen._cluster_each(cluster_job, caller, writes, query): run query, a
-- format() string taking the node's job id, on every node of a cluster
-- job; one row per node with its first value or its error, and a WARNING
-- naming each node that failed or could not be reached.
CREATE OR REPLACE FUNCTION @extschema@._cluster_each(cluster_job bigint, caller text,
    writes boolean, query text,
    OUT node text, OUT job bigint, OUT result text, OUT error text)
RETURNS SETOF record
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    m record;
    ok boolean;
BEGIN
    FOR m IN SELECT * FROM @extschema@._cluster_members(cluster_job, caller, writes) LOOP
        node := m.node;
        job := m.job;
        SELECT o.ok, o.result, o.error INTO ok, result, error
        FROM @extschema@._on_node(m.node, m.kind, m.host, m.port, format(query, m.job)) AS o;
        IF NOT ok THEN
            RAISE WARNING '%: node "%" failed: %', caller, m.node, error;
        END IF;
        RETURN NEXT;
    END LOOP;
END
$$;
REVOKE ALL ON FUNCTION @extschema@._cluster_each(bigint, text, boolean, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@._cluster_each(bigint, text, boolean, text) TO petagen_operator;
