-- petagen.forget_bench(id): remove a benchmark run, or every run of the sweep id names.
CREATE OR REPLACE FUNCTION @extschema@.forget_bench(id bigint)
RETURNS bigint
AS 'MODULE_PATHNAME', 'petagen_forget_bench'
LANGUAGE C VOLATILE;
COMMENT ON FUNCTION @extschema@.forget_bench(bigint) IS
    'remove benchmark run id from petagen.bench_results, with every run of its sweep when id is a sweep''s (its first run''s); returns the number of runs removed';
REVOKE ALL ON FUNCTION @extschema@.forget_bench(bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.forget_bench(bigint) TO petagen_operator;
