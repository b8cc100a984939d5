-- petagen._svg_number(v, exact): a tick or cell label (3 significant digits,
-- k/M/G/T suffix), or with exact, the value to 2 decimals.
CREATE OR REPLACE FUNCTION @extschema@._svg_number(v double precision, exact boolean DEFAULT false)
RETURNS text
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    a double precision := abs(v);
    div double precision := 1;
    suffix text := '';
    digits integer := CASE WHEN exact THEN 2 ELSE 0 END;
BEGIN
    IF NOT exact AND a >= 1e3 THEN
        SELECT d, x INTO div, suffix
          FROM (VALUES (1e12, 'T'), (1e9, 'G'), (1e6, 'M'), (1e3, 'k')) AS s(d, x)
         WHERE a >= d ORDER BY d DESC LIMIT 1;
        a := a / div;
    END IF;
    IF a > 0 THEN
        digits := greatest(digits, least(12, 2 - floor(log(a))::integer));
    END IF;
    RETURN trim_scale(round((v / div)::numeric, digits))::text || suffix;
END
$$;
REVOKE ALL ON FUNCTION @extschema@._svg_number(double precision, boolean) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@._svg_number(double precision, boolean) TO pg_monitor, petagen_operator;
