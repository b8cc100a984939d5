-- petagen 0.1 -> 0.2.  Every change to petagen--0.2.sql since 0.1 appears
-- here too, so that ALTER EXTENSION petagen UPDATE gives what a fresh 0.2 has.
\echo Use "ALTER EXTENSION petagen UPDATE TO '0.2'" to load this file. \quit

-- start() and check() without chunk_rows choose the chunk size from rows
-- and workers (about four chunks per worker, 1,000 .. 100,000 rows).
-- petagen.start(rows): start a load job of the key space 0 .. rows-1; returns its id.
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
    force boolean DEFAULT false)
RETURNS bigint
AS 'MODULE_PATHNAME', 'petagen_start'
LANGUAGE C VOLATILE CALLED ON NULL INPUT;

-- petagen.check(rows, ...): what would hurt a load with start()'s arguments,
-- one finding per row; start() refuses on an error unless force => true.
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
    OUT severity text, OUT object text, OUT finding text, OUT hint text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'petagen_check'
LANGUAGE C VOLATILE CALLED ON NULL INPUT;
