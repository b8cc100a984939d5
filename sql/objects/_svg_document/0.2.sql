-- petagen._svg_document(title, subtitle, body): the whole 800 x 480 picture.
CREATE OR REPLACE FUNCTION @extschema@._svg_document(title text, subtitle text, body text)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
RETURN format(
    '<svg xmlns="http://www.w3.org/2000/svg" width="800" height="480" viewBox="0 0 800 480"'
    ' font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="12" fill="#222222">' || E'\n'
    '<title>%s</title>' || E'\n'
    '<rect width="800" height="480" fill="#ffffff"/>' || E'\n'
    '<text x="400" y="24" text-anchor="middle" font-size="16" font-weight="bold">%s</text>' || E'\n'
    '%s%s</svg>' || E'\n',
    @extschema@._svg_escape(title), @extschema@._svg_escape(title, 80),
    CASE WHEN subtitle IS NOT NULL THEN
        format('<text x="400" y="42" text-anchor="middle" fill="#555555">%s</text>' || E'\n',
               @extschema@._svg_escape(subtitle, 110))
    ELSE '' END,
    body);
REVOKE ALL ON FUNCTION @extschema@._svg_document(text, text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@._svg_document(text, text, text) TO pg_monitor, petagen_operator;
