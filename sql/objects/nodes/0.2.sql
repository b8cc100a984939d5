-- petagen.nodes(table): the nodes of a table's cluster, each reached as the
-- calling role: whether it answers, its petagen version, whether the role
-- may run load jobs there; every node at once.
CREATE OR REPLACE FUNCTION @extschema@.nodes("table" regclass DEFAULT 'usertable'::text::regclass,
    OUT node text, OUT host text, OUT port integer, OUT reachable boolean,
    OUT petagen text, OUT operator boolean, OUT error text)
RETURNS SETOF record
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    probe constant text := $q$
        SELECT pg_catalog.json_build_object('petagen', e.extversion,
            'operator', coalesce(pg_catalog.pg_has_role(e.extowner, 'USAGE'), false)
                OR EXISTS (SELECT FROM pg_catalog.pg_roles AS o
                           WHERE o.rolname = 'petagen_operator'
                             AND pg_catalog.pg_has_role(o.oid, 'USAGE')))::text
        FROM (SELECT) AS d LEFT JOIN pg_catalog.pg_extension AS e ON e.extname = 'petagen'$q$;
BEGIN
    IF "table" IS NULL THEN
        RAISE EXCEPTION 'argument "table" of petagen.nodes() must not be null' USING ERRCODE = '22004';
    END IF;
    -- every node at once
    RETURN QUERY
        WITH n AS (
            SELECT c.node, c.kind, c.host, c.port, c.i
              FROM @extschema@._cluster_nodes("table") WITH ORDINALITY AS c(node, kind, host, port, i)
        )
        SELECT n.node, n.host, n.port, r.reached, (r.result::json)->>'petagen',
               ((r.result::json)->>'operator')::boolean, r.error
          FROM @extschema@._cluster_run(ARRAY(SELECT n.node FROM n ORDER BY n.i),
                                        ARRAY(SELECT n.kind FROM n ORDER BY n.i),
                                        ARRAY(SELECT n.host FROM n ORDER BY n.i),
                                        ARRAY(SELECT n.port FROM n ORDER BY n.i),
                                        ARRAY(SELECT probe FROM n ORDER BY n.i))
               WITH ORDINALITY AS r(node, reached, ok, error, result, i)
          JOIN n ON n.i = r.i
         ORDER BY n.i;
END
$$;
COMMENT ON FUNCTION @extschema@.nodes(regclass) IS
    'the nodes of a table''s cluster (this node and the postgres_fdw servers of its foreign leaves, or the Citus nodes holding its shards), each reached as the calling role: reachable, petagen version, whether the role may run load jobs there, the error';
REVOKE ALL ON FUNCTION @extschema@.nodes(regclass) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.nodes(regclass) TO petagen_operator, pg_monitor;
