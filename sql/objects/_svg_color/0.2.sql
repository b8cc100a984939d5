-- petagen._svg_color(i): colour i (1, 2, ...): the 7 colours of a palette
-- safe for colour-blind readers, then hues a golden angle apart in three
-- lightnesses, so that any number of series get distinct colours.
CREATE OR REPLACE FUNCTION @extschema@._svg_color(i integer)
RETURNS text
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    h double precision := ((i - 8) * 137.508 + 270)::numeric % 360;
    l double precision := (ARRAY[0.42, 0.30, 0.55])[1 + (i - 8) % 3];
    a double precision := 0.75 * least(l, 1 - l);
BEGIN
    IF i <= 7 THEN
        RETURN ('{#0072b2,#d55e00,#009e73,#cc79a7,#e69f00,#56b4e9,#000000}'::text[])
               [1 + ((i - 1) % 7 + 7) % 7];
    END IF;
    RETURN '#' || (SELECT string_agg(lpad(to_hex(round(255 * (l - a * greatest(-1, least(k - 3, 9 - k, 1))))::integer), 2, '0'),
                                     '' ORDER BY n)
                     FROM unnest('{0,8,4}'::integer[]) WITH ORDINALITY AS c(n0, n),
                          LATERAL (SELECT ((n0 + h / 30)::numeric % 12)::float8) AS x(k));
END
$$;
REVOKE ALL ON FUNCTION @extschema@._svg_color(integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@._svg_color(integer) TO pg_monitor, petagen_operator;
