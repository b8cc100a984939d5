-- petagen._svg_scale(v, lo, hi, log, p0, p1): the pixel of value v on an axis
-- mapping lo .. hi to p0 .. p1.
CREATE OR REPLACE FUNCTION @extschema@._svg_scale(v double precision, lo double precision,
    hi double precision, log boolean, p0 double precision, p1 double precision)
RETURNS numeric
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
RETURN round((CASE
    WHEN hi = lo THEN (p0 + p1) / 2
    WHEN log THEN p0 + (ln(v) - ln(lo)) / (ln(hi) - ln(lo)) * (p1 - p0)
    ELSE p0 + (v - lo) / (hi - lo) * (p1 - p0) END)::numeric, 1);
REVOKE ALL ON FUNCTION @extschema@._svg_scale(double precision, double precision, double precision, boolean, double precision, double precision) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@._svg_scale(double precision, double precision, double precision, boolean, double precision, double precision) TO pg_monitor, petagen_operator;
