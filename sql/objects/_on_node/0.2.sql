-- petagen._on_node(node, kind, host, port, query): run query on one node of
-- a cluster as the calling role: here, through its user mapping
-- (postgres_fdw), or through Citus; what goes wrong is returned, not raised
-- (kind NULL: a node that is no longer in the table's cluster).
CREATE OR REPLACE FUNCTION @extschema@._on_node(node text, kind text, host text, port integer,
    query text, OUT reached boolean, OUT ok boolean, OUT error text, OUT result text)
RETURNS record
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF kind IS NULL THEN
        reached := false;
        ok := false;
        error := 'no longer a node of the table''s cluster';
    ELSIF kind = 'local' THEN
        reached := true;
        BEGIN
            EXECUTE query INTO result;
            ok := true;
        EXCEPTION WHEN OTHERS THEN
            ok := false;
            error := SQLERRM;
        END;
    ELSIF kind = 'postgres_fdw' THEN
        SELECT q.reached, q.ok, q.error, q.result INTO reached, ok, error, result
        FROM @extschema@._node_query(node, query) AS q;
    ELSE
        -- Citus runs it as the calling role with its own connection settings
        EXECUTE 'SELECT r.success, r.result FROM master_run_on_worker('
                'ARRAY[$1], ARRAY[$2], ARRAY[$3], false) AS r'
            INTO ok, result USING host, port, query;
        IF NOT ok THEN
            error := result;
            result := NULL;
        END IF;
        reached := ok OR error NOT LIKE '%connect%';
    END IF;
END
$$;
REVOKE ALL ON FUNCTION @extschema@._on_node(text, text, text, integer, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@._on_node(text, text, text, integer, text) TO petagen_operator, pg_monitor;
