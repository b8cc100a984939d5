-- petagen.check(rows, ...): what would hurt a load with start()'s arguments,
-- one finding per row, each in at most 80 characters (a row fits a
-- 120-column psql screen); check_details() says them in full, with hints.
-- start() refuses on an error unless force => true.
CREATE OR REPLACE FUNCTION @extschema@.check(
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
    OUT severity text, OUT object text, OUT finding text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'petagen_check'
LANGUAGE C VOLATILE CALLED ON NULL INPUT;

COMMENT ON FUNCTION @extschema@.check(numeric, integer, text, text, bigint, integer, text, integer, bigint, text, text, boolean, text, text, text, integer, numeric) IS
    'preflight of a load: shape, leaves, space per filesystem, index tablespaces, relation size, worker slots, settings; one short finding per row (check_details() has them in full, with hints)';
REVOKE ALL ON FUNCTION @extschema@.check(numeric, integer, text, text, bigint, integer, text, integer, bigint, text, text, boolean, text, text, text, integer, numeric) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.check(numeric, integer, text, text, bigint, integer, text, integer, bigint, text, text, boolean, text, text, text, integer, numeric) TO petagen_operator, pg_monitor;
