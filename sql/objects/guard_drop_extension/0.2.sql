-- Dropping petagen is refused while a load job's workers run (they write
-- into the table and this catalog): DROP EXTENSION, DROP SCHEMA of its
-- schema and DROP OWNED by its owner or its schema's owner, the statements
-- that can drop it; and DROP TABLE, DROP SCHEMA and DROP OWNED dropping
-- the table of a job whose workers run, or one of its partitions.  Other
-- DDL does not fire this.
CREATE OR REPLACE FUNCTION @extschema@.guard_drop_extension()
RETURNS event_trigger
AS 'MODULE_PATHNAME', 'petagen_guard_drop_extension'
LANGUAGE C;
CREATE EVENT TRIGGER petagen_guard_drop_extension ON ddl_command_start
    WHEN TAG IN ('DROP EXTENSION', 'DROP SCHEMA', 'DROP OWNED', 'DROP TABLE')
    EXECUTE FUNCTION @extschema@.guard_drop_extension();
COMMENT ON FUNCTION @extschema@.guard_drop_extension() IS
    'the event trigger function that refuses, while a load job''s workers run, the DROP EXTENSION, DROP SCHEMA, DROP OWNED and DROP TABLE statements that would drop petagen or the job''s table; not for calling';
