-- petagen.bench_status(): the benchmarks running now in this database, one
-- row each, read live from their workers (as status() serves loads); a
-- row fits a 120-column psql screen (who runs one: pg_stat_activity).
CREATE OR REPLACE FUNCTION @extschema@.bench_status()
RETURNS TABLE(run bigint, kind text, workers integer, clients integer, phase text,
              elapsed_s double precision, operations bigint, tps double precision,
              mean_us double precision, max_us double precision, eta_s double precision,
              target_rate double precision)
AS 'MODULE_PATHNAME', 'petagen_bench_status'
LANGUAGE C VOLATILE STRICT;
COMMENT ON FUNCTION @extschema@.bench_status() IS
    'the benchmarks running in this database: client sessions (NULL through SPI), phase, seconds measured, operations so far, operations per second (tps) and latency (mean, max) of the last whole second, seconds left';
REVOKE ALL ON FUNCTION @extschema@.bench_status() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.bench_status() TO pg_monitor, petagen_operator;
