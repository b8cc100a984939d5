-- petagen 0.1 -> 0.2.  Every change to petagen--0.2.sql since 0.1 appears
-- here too, so that ALTER EXTENSION petagen UPDATE gives what a fresh 0.2 has.
\echo Use "ALTER EXTENSION petagen UPDATE TO '0.2'" to load this file. \quit

-- DROP EXTENSION petagen is refused while a load job's workers run (they
-- write into the table and this catalog); other DDL does not fire this.
CREATE FUNCTION @extschema@.guard_drop_extension()
RETURNS event_trigger
AS 'MODULE_PATHNAME', 'petagen_guard_drop_extension'
LANGUAGE C;
CREATE EVENT TRIGGER petagen_guard_drop_extension ON ddl_command_start
    WHEN TAG IN ('DROP EXTENSION')
    EXECUTE FUNCTION @extschema@.guard_drop_extension();
