-- petagen._svg_tint(phase): the background colour of a job's phase.
CREATE OR REPLACE FUNCTION @extschema@._svg_tint(phase text)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
RETURN CASE phase WHEN 'routing' THEN '#fbe3c4' WHEN 'loading' THEN '#e6f0fa'
                  WHEN 'indexing' THEN '#dcefe2' ELSE '#e4e4e4' END;
REVOKE ALL ON FUNCTION @extschema@._svg_tint(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@._svg_tint(text) TO pg_monitor, petagen_operator;
