-- petagen._cluster_members(cluster_job, caller, writes): the nodes of a
-- cluster job with their job and how to reach them (kind NULL: the node is
-- no longer in the table's cluster); raises the error every cluster call
-- raises for NULL (22004), a cluster job that does not exist (42704) or,
-- for a call that writes, another role's (42501, as each node's stop(),
-- resume() and forget() would).  caller names the function, "petagen.f()".
CREATE OR REPLACE FUNCTION @extschema@._cluster_members(cluster_job bigint, caller text, writes boolean,
    OUT node text, OUT job bigint, OUT kind text, OUT host text, OUT port integer)
RETURNS SETOF record
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    owner regrole;
    tab regclass;
BEGIN
    IF cluster_job IS NULL THEN
        RAISE EXCEPTION 'argument "cluster_job" of % must not be null', caller USING ERRCODE = '22004';
    END IF;
    SELECT c.started_by, c."table" INTO owner, tab FROM @extschema@.cluster_jobs AS c
    WHERE c.cluster_job = _cluster_members.cluster_job LIMIT 1;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'cluster job % does not exist', cluster_job USING ERRCODE = '42704',
            HINT = 'SELECT DISTINCT cluster_job, "table" FROM petagen.cluster_jobs lists the cluster jobs.';
    END IF;
    IF writes AND NOT pg_has_role(owner, 'USAGE') THEN
        RAISE EXCEPTION 'permission denied for cluster job %', cluster_job USING ERRCODE = '42501',
            DETAIL = format('Only roles with the privileges of role %s may act on it.', owner);
    END IF;
    RETURN QUERY
        SELECT c.node, c.job, n.kind, n.host, n.port
        FROM @extschema@.cluster_jobs AS c
        LEFT JOIN @extschema@._cluster_nodes(tab) AS n ON n.node = c.node
        WHERE c.cluster_job = _cluster_members.cluster_job
        ORDER BY n.kind IS DISTINCT FROM 'local', c.node;
END
$$;
REVOKE ALL ON FUNCTION @extschema@._cluster_members(bigint, text, boolean) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@._cluster_members(bigint, text, boolean) TO petagen_operator, pg_monitor;
