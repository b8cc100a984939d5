-- petagen.load(table, first, count): write key numbers first .. first+count-1
-- into the table's local leaves, in the calling transaction.
CREATE OR REPLACE FUNCTION @extschema@.load(
    "table" regclass,
    first numeric,
    count numeric,
    keys text DEFAULT 'scrambled',
    seed bigint DEFAULT 0,
    fieldlength integer DEFAULT 100,
    prefix text DEFAULT 'user',
    zeropadding integer DEFAULT 1,
    fieldlengthdistribution text DEFAULT 'constant',
    minfieldlength integer DEFAULT 1)
RETURNS TABLE(keys bigint, rows_written bigint, bytes bigint,
              duplicates bigint, foreign_skipped bigint)
AS 'MODULE_PATHNAME', 'petagen_load'
LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE
ROWS 1;

COMMENT ON FUNCTION @extschema@.load(regclass, numeric, numeric, text, bigint, integer, text, integer, text, integer) IS
    'loads a range of key numbers into the local leaves of a table, in the calling transaction';
