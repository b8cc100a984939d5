-- petagen._svg_escape(s, maxlen): s as XML text, non-ASCII as character
-- references; longer than maxlen characters, its middle becomes an ellipsis
-- (node names often differ only at their end).
CREATE OR REPLACE FUNCTION @extschema@._svg_escape(s text, maxlen integer DEFAULT NULL)
RETURNS text
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    keep integer := greatest(maxlen, 2) - 1;
    out text;
BEGIN
    IF maxlen IS NOT NULL AND length(s) > keep + 1 THEN
        RETURN @extschema@._svg_escape(left(s, (keep + 1) / 2)) || '&#8230;'
               || @extschema@._svg_escape(right(s, keep / 2));
    END IF;
    SELECT string_agg(CASE
               WHEN c = '&' THEN '&amp;'
               WHEN c = '<' THEN '&lt;'
               WHEN c = '>' THEN '&gt;'
               WHEN c = '"' THEN '&quot;'
               WHEN c = '''' THEN '&#39;'
               WHEN ascii(c) < 32 OR ascii(c) = 127 THEN ' '
               WHEN ascii(c) IN (65534, 65535) THEN '?'
               WHEN ascii(c) > 126 THEN '&#' || ascii(c) || ';'
               ELSE c END, '' ORDER BY o)
      INTO out
      FROM regexp_split_to_table(s, '') WITH ORDINALITY AS t(c, o);
    RETURN coalesce(out, '');
END
$$;
REVOKE ALL ON FUNCTION @extschema@._svg_escape(text, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@._svg_escape(text, integer) TO pg_monitor, petagen_operator;
