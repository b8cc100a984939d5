-- petagen._check_run(run, caller): raise the error every function taking a
-- benchmark run id raises for NULL (22004) or a run that does not exist
-- (42704); caller names the function, "petagen.f()".
CREATE OR REPLACE FUNCTION @extschema@._check_run(run bigint, caller text)
RETURNS void
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF run IS NULL THEN
        RAISE EXCEPTION 'argument "run" of % must not be null', caller USING ERRCODE = '22004';
    END IF;
    IF NOT EXISTS (SELECT FROM @extschema@.bench_results AS r WHERE r.id = _check_run.run) THEN
        RAISE EXCEPTION 'benchmark run % does not exist', run USING ERRCODE = '42704',
            HINT = 'SELECT id, sweep, kind, workers, run_by FROM petagen.bench_results lists the runs.';
    END IF;
END
$$;
REVOKE ALL ON FUNCTION @extschema@._check_run(bigint, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@._check_run(bigint, text) TO pg_monitor, petagen_operator;
