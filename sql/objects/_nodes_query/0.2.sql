-- petagen._nodes_query(nodes, kinds, queries): run queries[i] on node
-- nodes[i], all at once: kind 'local' in this backend, 'postgres_fdw' on
-- the node of that server as the calling role through its user mapping;
-- a row per node, in their order, with what went wrong returned, not
-- raised.
CREATE OR REPLACE FUNCTION @extschema@._nodes_query(nodes text[], kinds text[], queries text[])
RETURNS TABLE(node text, reached boolean, ok boolean, error text, result text)
AS 'MODULE_PATHNAME', 'petagen_nodes_query'
LANGUAGE C VOLATILE STRICT;
REVOKE ALL ON FUNCTION @extschema@._nodes_query(text[], text[], text[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@._nodes_query(text[], text[], text[]) TO petagen_operator, pg_monitor;
