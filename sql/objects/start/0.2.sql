-- petagen.start(rows): start a load job of the key space first .. first+rows-1
-- (first: 0 unless given); returns its id.
CREATE OR REPLACE FUNCTION @extschema@.start(
    rows numeric,
    workers integer DEFAULT 4,
    "table" text DEFAULT 'usertable',
    keys text DEFAULT 'scrambled',
    seed bigint DEFAULT 0,
    fieldlength integer DEFAULT 100,
    prefix text DEFAULT 'user',
    zeropadding integer DEFAULT 1,
    chunk_rows bigint DEFAULT NULL,
    disk_reserve text DEFAULT NULL,
    max_rate text DEFAULT NULL,
    frozen boolean DEFAULT false,
    indexes text DEFAULT 'maintain',
    force boolean DEFAULT false,
    method text DEFAULT 'auto',
    fieldlengthdistribution text DEFAULT 'constant',
    minfieldlength integer DEFAULT 1,
    first numeric DEFAULT 0)
RETURNS bigint
AS 'MODULE_PATHNAME', 'petagen_start'
LANGUAGE C VOLATILE CALLED ON NULL INPUT;
COMMENT ON FUNCTION @extschema@.start(numeric, integer, text, text, bigint, integer, text, integer, bigint, text, text, boolean, text, boolean, text, text, integer, numeric) IS
    'start a load job of the key numbers first .. first+rows-1 (first 0 by default) into a table, written by background workers with the chunk or the leaf method; returns the job id';
REVOKE ALL ON FUNCTION @extschema@.start(numeric, integer, text, text, bigint, integer, text, integer, bigint, text, text, boolean, text, boolean, text, text, integer, numeric) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.start(numeric, integer, text, text, bigint, integer, text, integer, bigint, text, text, boolean, text, boolean, text, text, integer, numeric) TO petagen_operator;
