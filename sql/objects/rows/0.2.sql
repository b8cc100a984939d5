-- petagen.rows(NULL::t, first, count): rows first .. first+count-1 of table t.
CREATE OR REPLACE FUNCTION @extschema@.rows(
    "table" anyelement,
    first numeric,
    count numeric,
    keys text DEFAULT 'scrambled',
    seed bigint DEFAULT 0,
    fieldlength integer DEFAULT 100,
    prefix text DEFAULT 'user',
    zeropadding integer DEFAULT 1,
    fieldlengthdistribution text DEFAULT 'constant',
    minfieldlength integer DEFAULT 1)
RETURNS SETOF anyelement
AS 'MODULE_PATHNAME', 'petagen_rows'
LANGUAGE C STABLE CALLED ON NULL INPUT PARALLEL SAFE
ROWS 1000;

COMMENT ON FUNCTION @extschema@.rows(anyelement, numeric, numeric, text, bigint, integer, text, integer, text, integer) IS
    'YCSB rows of a table''s row type, a pure function of the key number and seed';
