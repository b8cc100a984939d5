-- petagen._cluster_nodes(table): the nodes of a table's cluster, as the
-- engine knows them: on Citus the nodes holding placements of its shards;
-- otherwise this node (if it stores a leaf) and the postgres_fdw servers of
-- its foreign leaves.  kind: 'local', 'postgres_fdw' or 'citus'.  The
-- partitions are found in pg_inherits, not with pg_partition_tree(), which
-- locks every leaf ACCESS SHARE until the transaction ends: cluster_wait()'s
-- transaction lasts as long as the load, whose leaf loads each take ACCESS
-- EXCLUSIVE on their leaf to commit.
CREATE OR REPLACE FUNCTION @extschema@._cluster_nodes("table" regclass,
    OUT node text, OUT kind text, OUT host text, OUT port integer)
RETURNS SETOF record
LANGUAGE plpgsql STABLE STRICT
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF EXISTS (SELECT FROM pg_extension WHERE extname = 'citus') THEN
        RETURN QUERY EXECUTE $q$
            SELECT DISTINCT n.nodename || ':' || n.nodeport,
                   CASE WHEN n.groupid = (SELECT groupid FROM pg_dist_local_group)
                        THEN 'local' ELSE 'citus' END,
                   n.nodename::text, n.nodeport
            FROM pg_dist_shard AS s
            JOIN pg_dist_placement AS p USING (shardid)
            JOIN pg_dist_node AS n USING (groupid)
            WHERE s.logicalrelid = $1 AND n.noderole = 'primary'
            ORDER BY 2 DESC, 1$q$ USING "table";
        IF FOUND THEN
            RETURN;
        END IF;
    END IF;
    RETURN QUERY
        SELECT coalesce(nullif(current_setting('cluster_name'), ''), 'local'),
               'local', NULL::text, current_setting('port')::integer
        WHERE EXISTS (SELECT FROM pg_class AS c
                      WHERE c.relkind = 'r' AND c.oid IN (WITH RECURSIVE t(relid) AS (
                          SELECT "table"::oid
                          UNION ALL
                          SELECT i.inhrelid FROM pg_inherits AS i JOIN t ON i.inhparent = t.relid)
                      SELECT relid FROM t));
    RETURN QUERY
        SELECT s.srvname::text, 'postgres_fdw',
               (SELECT o.option_value FROM pg_options_to_table(s.srvoptions) AS o
                WHERE o.option_name = 'host'),
               (SELECT o.option_value FROM pg_options_to_table(s.srvoptions) AS o
                WHERE o.option_name = 'port')::integer
        FROM pg_foreign_server AS s
        JOIN pg_foreign_data_wrapper AS w ON w.oid = s.srvfdw
        WHERE w.fdwname = 'postgres_fdw'
          AND s.oid IN (SELECT f.ftserver FROM pg_foreign_table AS f
                        WHERE f.ftrelid IN (WITH RECURSIVE t(relid) AS (
                          SELECT "table"::oid
                          UNION ALL
                          SELECT i.inhrelid FROM pg_inherits AS i JOIN t ON i.inhparent = t.relid)
                      SELECT relid FROM t))
        ORDER BY 1;
END
$$;
REVOKE ALL ON FUNCTION @extschema@._cluster_nodes(regclass) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@._cluster_nodes(regclass) TO petagen_operator, pg_monitor;
