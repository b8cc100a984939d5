-- petagen._cluster_run(nodes, kinds, hosts, ports, queries): run queries[i]
-- on node nodes[i] of a cluster (as _cluster_nodes() lists them), on every
-- node at once, as the calling role: through _nodes_query() (this node in
-- this backend, the others through their user mappings), or on Citus
-- through master_run_on_worker() in its parallel mode, this node too (by
-- its host and port).  A row per node in their order; what goes wrong is
-- returned, not raised (kind NULL: no longer a node of the cluster).
CREATE OR REPLACE FUNCTION @extschema@._cluster_run(nodes text[], kinds text[], hosts text[],
    ports integer[], queries text[])
RETURNS TABLE(node text, reached boolean, ok boolean, error text, result text)
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF NOT coalesce('citus' = ANY (kinds), false) THEN
        RETURN QUERY SELECT * FROM @extschema@._nodes_query(nodes, kinds, queries);
        RETURN;
    END IF;
    RETURN QUERY EXECUTE $q$
        WITH u AS (
            SELECT x.*, count(*) FILTER (WHERE x.kind IS NOT NULL AND x.query IS NOT NULL)
                            OVER (ORDER BY x.i) AS j
              FROM unnest($1, $2, $3, $4, $5) WITH ORDINALITY AS x(node, kind, host, port, query, i)
        ), r AS (
            SELECT w.*, row_number() OVER () AS j
              FROM master_run_on_worker(
                  ARRAY(SELECT u.host FROM u WHERE u.kind IS NOT NULL AND u.query IS NOT NULL ORDER BY u.i),
                  ARRAY(SELECT u.port FROM u WHERE u.kind IS NOT NULL AND u.query IS NOT NULL ORDER BY u.i),
                  ARRAY(SELECT u.query FROM u WHERE u.kind IS NOT NULL AND u.query IS NOT NULL ORDER BY u.i),
                  true) AS w
        )
        SELECT u.node,
               coalesce(r.success OR r.result NOT LIKE '%connect%', false),
               coalesce(r.success, false),
               CASE WHEN u.kind IS NULL THEN 'no longer a node of the table''s cluster'
                    WHEN u.query IS NULL THEN 'no statement'
                    WHEN NOT r.success THEN r.result END,
               CASE WHEN r.success THEN r.result END
          FROM u LEFT JOIN r ON u.kind IS NOT NULL AND u.query IS NOT NULL AND r.j = u.j
         ORDER BY u.i$q$
        USING nodes, kinds, hosts, ports, queries;
END
$$;
REVOKE ALL ON FUNCTION @extschema@._cluster_run(text[], text[], text[], integer[], text[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@._cluster_run(text[], text[], text[], integer[], text[]) TO petagen_operator, pg_monitor;
