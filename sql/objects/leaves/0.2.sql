-- petagen.leaves(table): every leaf, in routing order, and the node storing it.
CREATE OR REPLACE FUNCTION @extschema@.leaves("table" regclass, OUT leaf regclass, OUT node text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'petagen_leaves'
LANGUAGE C STABLE STRICT;

COMMENT ON FUNCTION @extschema@.leaves(regclass) IS
    'the leaves of a table in routing order (a Citus table''s shards); node is "local", the foreign server of a foreign leaf, or host:port of the Citus node holding a shard that is not here (leaf NULL)';
