-- petagen._cluster_bench_args(kind, ...): bench()'s arguments but workers,
-- "table", target, clients and start_at, as the text of a call, for
-- cluster_bench() and cluster_bench_sweep() to run on every node.
CREATE OR REPLACE FUNCTION @extschema@._cluster_bench_args(
    kind text, duration interval, warmup interval, distribution text,
    zipfian_constant double precision, rows numeric, keys text, seed bigint,
    fieldlength integer, prefix text, zeropadding integer, operationcount bigint,
    readproportion double precision, updateproportion double precision,
    insertproportion double precision, scanproportion double precision,
    readmodifywriteproportion double precision, minscanlength integer,
    maxscanlength integer, scanlengthdistribution text,
    hotspotdatafraction double precision, hotspotopnfraction double precision,
    exponentialpercentile double precision, exponentialfrac double precision,
    label text, dataintegrity boolean, target_rate double precision)
RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
BEGIN ATOMIC
    SELECT format('%s, duration => %s, warmup => %s, distribution => %s, zipfian_constant => %s,'
                  ' rows => %s, keys => %s, seed => %s, fieldlength => %s, prefix => %s,'
                  ' zeropadding => %s, operationcount => %s, readproportion => %s,'
                  ' updateproportion => %s, insertproportion => %s, scanproportion => %s,'
                  ' readmodifywriteproportion => %s, minscanlength => %s, maxscanlength => %s,'
                  ' scanlengthdistribution => %s, hotspotdatafraction => %s,'
                  ' hotspotopnfraction => %s, exponentialpercentile => %s, exponentialfrac => %s,'
                  ' label => %s, dataintegrity => %s, target_rate => %s',
                  quote_nullable(kind), quote_nullable(duration), quote_nullable(warmup),
                  quote_nullable(distribution), quote_nullable(zipfian_constant),
                  quote_nullable(rows), quote_nullable(keys), quote_nullable(seed),
                  quote_nullable(fieldlength), quote_nullable(prefix), quote_nullable(zeropadding),
                  quote_nullable(operationcount), quote_nullable(readproportion),
                  quote_nullable(updateproportion), quote_nullable(insertproportion),
                  quote_nullable(scanproportion), quote_nullable(readmodifywriteproportion),
                  quote_nullable(minscanlength), quote_nullable(maxscanlength),
                  quote_nullable(scanlengthdistribution), quote_nullable(hotspotdatafraction),
                  quote_nullable(hotspotopnfraction), quote_nullable(exponentialpercentile),
                  quote_nullable(exponentialfrac), quote_nullable(label),
                  quote_nullable(dataintegrity), quote_nullable(target_rate));
END;
REVOKE ALL ON FUNCTION @extschema@._cluster_bench_args(text, interval, interval, text, double precision, numeric, text, bigint, integer, text, integer, bigint, double precision, double precision, double precision, double precision, double precision, integer, integer, text, double precision, double precision, double precision, double precision, text, boolean, double precision) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@._cluster_bench_args(text, interval, interval, text, double precision, numeric, text, bigint, integer, text, integer, bigint, double precision, double precision, double precision, double precision, double precision, integer, integer, text, double precision, double precision, double precision, double precision, text, boolean, double precision) TO petagen_operator;
