-- petagen.alter(job, ...): change a job's workers (for its next run),
-- max_rate and disk_reserve (live, within a second); NULL leaves a setting.
-- Returns the job's settings as they now stand (max_rate and disk_reserve
-- in bytes, NULL: none; reserve_in_force: the larger of disk_reserve and
-- petagen.disk_reserve).
CREATE OR REPLACE FUNCTION @extschema@.alter(job bigint, workers integer DEFAULT NULL,
    max_rate text DEFAULT NULL, disk_reserve text DEFAULT NULL,
    OUT job bigint, OUT state text, OUT workers integer, OUT max_rate bigint,
    OUT disk_reserve bigint, OUT reserve_in_force bigint)
RETURNS record
AS 'MODULE_PATHNAME', 'petagen_alter'
LANGUAGE C VOLATILE;
COMMENT ON FUNCTION @extschema@.alter(bigint, integer, text, text) IS
    'change a load job''s max_rate and disk_reserve (a running job''s workers take them within a second) or its workers (for the next resume()); returns the job''s settings as they now stand';
REVOKE ALL ON FUNCTION @extschema@.alter(bigint, integer, text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.alter(bigint, integer, text, text) TO petagen_operator;
