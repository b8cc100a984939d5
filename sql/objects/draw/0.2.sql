-- petagen.draw(distribution, items, n): the key numbers a benchmark would draw.
CREATE OR REPLACE FUNCTION @extschema@.draw(
    distribution text,
    items bigint,
    n integer,
    seed bigint DEFAULT 0,
    zipfian_constant double precision DEFAULT 0.99,
    hotspotdatafraction double precision DEFAULT 0.2,
    hotspotopnfraction double precision DEFAULT 0.8,
    exponentialpercentile double precision DEFAULT 95,
    exponentialfrac double precision DEFAULT 0.8571428571)
RETURNS SETOF bigint
AS 'MODULE_PATHNAME', 'petagen_draw'
LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE
ROWS 1000;

COMMENT ON FUNCTION @extschema@.draw(text, bigint, integer, bigint, double precision, double precision, double precision, double precision, double precision) IS
    'n key numbers of 0 .. items-1 drawn as petagen.bench() draws them (uniform, YCSB scrambled zipfian, latest, hotspot, sequential, exponential)';
