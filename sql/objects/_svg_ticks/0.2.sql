-- petagen._svg_ticks(lo, hi, log): nice axis ticks (1, 2, 5 x 10^k steps, or
-- decades on a log axis) from the last tick <= lo to the first tick >= hi.
CREATE OR REPLACE FUNCTION @extschema@._svg_ticks(lo double precision, hi double precision,
    log boolean DEFAULT false)
RETURNS double precision[]
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    raw double precision;
    step double precision;
    d0 integer;
    d1 integer;
    t double precision[];
BEGIN
    IF log THEN
        d0 := floor(log(lo));
        d1 := greatest(ceil(log(hi)), d0 + 1);
        t := ARRAY(SELECT m * 10.0 ^ d
                     FROM generate_series(d0, d1) AS d,
                          unnest(CASE WHEN d1 - d0 >= 3 THEN '{1}'::float8[]
                                      ELSE '{1,2,5}'::float8[] END) AS m
                    ORDER BY 1);
        RETURN t[(SELECT max(i) FROM generate_subscripts(t, 1) i WHERE t[i] <= lo * (1 + 1e-9))
                 : (SELECT min(i) FROM generate_subscripts(t, 1) i WHERE t[i] >= hi * (1 - 1e-9))];
    END IF;
    IF hi <= lo THEN
        lo := lo - greatest(abs(lo) * 0.1, 1);
        hi := hi + greatest(abs(hi) * 0.1, 1);
    END IF;
    raw := (hi - lo) / 5;
    step := 10.0 ^ floor(log(raw));
    step := step * CASE WHEN raw / step <= 1 THEN 1 WHEN raw / step <= 2 THEN 2
                        WHEN raw / step <= 5 THEN 5 ELSE 10 END;
    RETURN ARRAY(SELECT i * step
                   FROM generate_series(floor(lo / step * (1 + 1e-12))::bigint,
                                        ceil(hi / step * (1 - 1e-12))::bigint) AS i);
END
$$;
REVOKE ALL ON FUNCTION @extschema@._svg_ticks(double precision, double precision, boolean) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@._svg_ticks(double precision, double precision, boolean) TO pg_monitor, petagen_operator;
