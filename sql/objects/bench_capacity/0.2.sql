-- petagen.bench_capacity(kind, p99, steps, step_duration, workers, ...): the
-- highest target_rate whose p99 from the intended start stays under p99, by
-- a bounded search over short paced bench() runs; a row per step, the
-- first row's id the search's (bench_results.sweep, what chart_capacity()
-- takes).  bench()'s arguments, clients too, but duration, operationcount and target_rate.
CREATE OR REPLACE FUNCTION @extschema@.bench_capacity(
    kind text,
    p99 interval DEFAULT '5 ms',
    steps integer DEFAULT 8,
    step_duration interval DEFAULT '3 s',
    workers integer DEFAULT 2,
    warmup interval DEFAULT '1 s',
    "table" text DEFAULT 'usertable',
    target text[] DEFAULT NULL,
    distribution text DEFAULT NULL,
    zipfian_constant double precision DEFAULT 0.99,
    rows numeric DEFAULT NULL,
    keys text DEFAULT NULL,
    seed bigint DEFAULT NULL,
    fieldlength integer DEFAULT NULL,
    prefix text DEFAULT NULL,
    zeropadding integer DEFAULT NULL,
    readproportion double precision DEFAULT NULL,
    updateproportion double precision DEFAULT NULL,
    insertproportion double precision DEFAULT NULL,
    scanproportion double precision DEFAULT NULL,
    readmodifywriteproportion double precision DEFAULT NULL,
    minscanlength integer DEFAULT NULL,
    maxscanlength integer DEFAULT NULL,
    scanlengthdistribution text DEFAULT NULL,
    hotspotdatafraction double precision DEFAULT 0.2,
    hotspotopnfraction double precision DEFAULT 0.8,
    exponentialpercentile double precision DEFAULT 95,
    exponentialfrac double precision DEFAULT 0.8571428571,
    label text DEFAULT NULL,
    dataintegrity boolean DEFAULT false,
    clients integer DEFAULT NULL)
RETURNS TABLE(step integer, id bigint, target_rate double precision,
              tps double precision, errors bigint,
              p50_us double precision, p99_us double precision,
              p999_us double precision, max_us double precision,
              meets boolean, answer boolean)
AS 'MODULE_PATHNAME', 'petagen_bench_capacity'
LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE
ROWS 8;

COMMENT ON FUNCTION @extschema@.bench_capacity(text, interval, integer, interval, integer, interval, text, text[], text, double precision, numeric, text, bigint, integer, text, integer, double precision, double precision, double precision, double precision, double precision, integer, integer, text, double precision, double precision, double precision, double precision, text, boolean, integer) IS
    'the highest target_rate petagen.bench() holds with p99 latency from the intended start under p99: a closed-loop step, a low-rate step, then bisection; a row per step, answer marks the rate found';
REVOKE ALL ON FUNCTION @extschema@.bench_capacity(text, interval, integer, interval, integer, interval, text, text[], text, double precision, numeric, text, bigint, integer, text, integer, double precision, double precision, double precision, double precision, double precision, integer, integer, text, double precision, double precision, double precision, double precision, text, boolean, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.bench_capacity(text, interval, integer, interval, integer, interval, text, text[], text, double precision, numeric, text, bigint, integer, text, integer, double precision, double precision, double precision, double precision, double precision, integer, integer, text, double precision, double precision, double precision, double precision, text, boolean, integer) TO petagen_operator;
