-- The generator: keys, rows, routing, synchronous loads, verification,
-- the canonical table.

-- petagen.key(seq): the ycsb_key of key number seq.
CREATE FUNCTION @extschema@.key(
    seq bigint,
    keys text DEFAULT 'scrambled',
    prefix text DEFAULT 'user',
    zeropadding integer DEFAULT 1)
RETURNS text
AS 'MODULE_PATHNAME', 'petagen_key'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.key(bigint, text, text, integer) IS
    'the ycsb_key of a key number, in one of the key modes';

-- petagen.seq(key): the key number of a key (ordered and scrambled modes).
CREATE FUNCTION @extschema@.seq(
    key text,
    keys text DEFAULT 'scrambled',
    prefix text DEFAULT 'user',
    zeropadding integer DEFAULT 1)
RETURNS bigint
AS 'MODULE_PATHNAME', 'petagen_seq'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.seq(text, text, text, integer) IS
    'the key number of a ycsb_key: the inverse of petagen.key()';

--#include objects/rows/0.2.sql

-- petagen.leaf(table, key): the leaf PostgreSQL would route a key to.
CREATE FUNCTION @extschema@.leaf("table" regclass, key text)
RETURNS regclass
AS 'MODULE_PATHNAME', 'petagen_leaf'
LANGUAGE C STABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.leaf(regclass, text) IS
    'the leaf partition PostgreSQL would route a ycsb_key to, NULL if no partition accepts it';

--#include objects/load/0.2.sql

--#include objects/verify/0.2.sql


-- Cluster -----------------------------------------------------------------

--#include objects/leaves/0.2.sql

-- petagen.create_table(name, partitions, tablespaces): the canonical YCSB
-- usertable, hash-partitioned, leaves round-robin over the tablespaces, each
-- leaf's primary key index beside its heap.
CREATE FUNCTION @extschema@.create_table(
    name text DEFAULT 'usertable',
    partitions integer DEFAULT 8,
    tablespaces text[] DEFAULT NULL,
    fields integer DEFAULT 10,
    fieldlength integer DEFAULT 100,
    keylength integer DEFAULT 64)
RETURNS regclass
AS 'MODULE_PATHNAME', 'petagen_create_table'
LANGUAGE C VOLATILE CALLED ON NULL INPUT;

COMMENT ON FUNCTION @extschema@.create_table(text, integer, text[], integer, integer, integer) IS
    'creates the canonical hash-partitioned YCSB table name_p0 .. name_pN-1, each index beside its heap';
