-- petagen.alter(job, ...): change a job's workers (for its next run),
-- max_rate and disk_reserve (live, within a second); NULL leaves a setting.
CREATE OR REPLACE FUNCTION @extschema@.alter(job bigint, workers integer DEFAULT NULL,
    max_rate text DEFAULT NULL, disk_reserve text DEFAULT NULL)
RETURNS void
AS 'MODULE_PATHNAME', 'petagen_alter'
LANGUAGE C VOLATILE;
COMMENT ON FUNCTION @extschema@.alter(bigint, integer, text, text) IS
    'change a load job''s max_rate and disk_reserve (a running job''s workers take them within a second) or its workers (for the next resume())';
REVOKE ALL ON FUNCTION @extschema@.alter(bigint, integer, text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.alter(bigint, integer, text, text) TO petagen_operator;
