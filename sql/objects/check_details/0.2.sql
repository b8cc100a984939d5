-- petagen.check_details(rows, ...): check()'s findings, each with the
-- sentence that says it in full (detail) and what to do (hint); wide rows,
-- to read with \x or from a script.
CREATE OR REPLACE FUNCTION @extschema@.check_details(
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
    method text DEFAULT 'auto',
    fieldlengthdistribution text DEFAULT 'constant',
    minfieldlength integer DEFAULT 1,
    first numeric DEFAULT 0,
    OUT severity text, OUT object text, OUT finding text,
    OUT detail text, OUT hint text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'petagen_check_details'
LANGUAGE C VOLATILE CALLED ON NULL INPUT;

COMMENT ON FUNCTION @extschema@.check_details(numeric, integer, text, text, bigint, integer, text, integer, bigint, text, text, boolean, text, text, text, integer, numeric) IS
    'the findings of check() with the same arguments, each also in full (detail) and with what to do about it (hint)';
REVOKE ALL ON FUNCTION @extschema@.check_details(numeric, integer, text, text, bigint, integer, text, integer, bigint, text, text, boolean, text, text, text, integer, numeric) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.check_details(numeric, integer, text, text, bigint, integer, text, integer, bigint, text, text, boolean, text, text, text, integer, numeric) TO petagen_operator, pg_monitor;
