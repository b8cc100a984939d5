-- petagen._node_query(server, query): run query on the node of a
-- postgres_fdw server as the calling role, through its user mapping.
CREATE OR REPLACE FUNCTION @extschema@._node_query(server text, query text,
    OUT reached boolean, OUT ok boolean, OUT error text, OUT result text)
RETURNS record
AS 'MODULE_PATHNAME', 'petagen_node_query'
LANGUAGE C VOLATILE STRICT;
REVOKE ALL ON FUNCTION @extschema@._node_query(text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@._node_query(text, text) TO petagen_operator, pg_monitor;
