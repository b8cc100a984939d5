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

-- petagen.rows(NULL::t, first, count): rows first .. first+count-1 of table t.
CREATE FUNCTION @extschema@.rows(
    "table" anyelement,
    first numeric,
    count numeric,
    keys text DEFAULT 'scrambled',
    seed bigint DEFAULT 0,
    fieldlength integer DEFAULT 100,
    prefix text DEFAULT 'user',
    zeropadding integer DEFAULT 1)
RETURNS SETOF anyelement
AS 'MODULE_PATHNAME', 'petagen_rows'
LANGUAGE C STABLE CALLED ON NULL INPUT PARALLEL SAFE
ROWS 1000;

COMMENT ON FUNCTION @extschema@.rows(anyelement, numeric, numeric, text, bigint, integer, text, integer) IS
    'YCSB rows of a table''s row type, a pure function of the key number and seed';


-- petagen.leaf(table, key): the leaf PostgreSQL would route a key to.
CREATE FUNCTION @extschema@.leaf("table" regclass, key text)
RETURNS regclass
AS 'MODULE_PATHNAME', 'petagen_leaf'
LANGUAGE C STABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.leaf(regclass, text) IS
    'the leaf partition PostgreSQL would route a ycsb_key to, NULL if no partition accepts it';

-- petagen.load(table, first, count): write key numbers first .. first+count-1
-- into the table's local leaves, in the calling transaction.
CREATE FUNCTION @extschema@.load(
    "table" regclass,
    first numeric,
    count numeric,
    keys text DEFAULT 'scrambled',
    seed bigint DEFAULT 0,
    fieldlength integer DEFAULT 100,
    prefix text DEFAULT 'user',
    zeropadding integer DEFAULT 1)
RETURNS TABLE(keys bigint, rows_written bigint, bytes bigint,
              duplicates bigint, foreign_skipped bigint)
AS 'MODULE_PATHNAME', 'petagen_load'
LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE
ROWS 1;

COMMENT ON FUNCTION @extschema@.load(regclass, numeric, numeric, text, bigint, integer, text, integer) IS
    'loads a range of key numbers into the local leaves of a table, in the calling transaction';

--#include objects/verify.sql


-- Cluster -----------------------------------------------------------------

--#include objects/leaves.sql

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
