-- petagen._svg_ramp(t): the colour of t in 0 .. 1 on the viridis scale.
CREATE OR REPLACE FUNCTION @extschema@._svg_ramp(t double precision)
RETURNS text
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    stops integer[] := '{{68,1,84},{59,82,139},{33,145,140},{94,201,98},{253,231,37}}';
    seg integer;
    f double precision;
BEGIN
    t := least(greatest(t, 0), 1);
    seg := least(floor(t * 4)::integer, 3) + 1;
    f := t * 4 - (seg - 1);
    RETURN '#' || (SELECT string_agg(lpad(to_hex(round(stops[seg][c]
                                   + (stops[seg + 1][c] - stops[seg][c]) * f)::integer), 2, '0'), '' ORDER BY c)
                     FROM generate_series(1, 3) AS c);
END
$$;
REVOKE ALL ON FUNCTION @extschema@._svg_ramp(double precision) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@._svg_ramp(double precision) TO pg_monitor, petagen_operator;
