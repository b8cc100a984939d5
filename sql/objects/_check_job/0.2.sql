-- petagen._check_job(job, caller): raise the error every function taking a
-- load job id raises for NULL (22004) or a job that does not exist
-- (42704); caller names the function, "petagen.f()".
CREATE OR REPLACE FUNCTION @extschema@._check_job(job bigint, caller text)
RETURNS void
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF job IS NULL THEN
        RAISE EXCEPTION 'argument "job" of % must not be null', caller USING ERRCODE = '22004';
    END IF;
    IF NOT EXISTS (SELECT FROM @extschema@.jobs AS j WHERE j.job = _check_job.job) THEN
        RAISE EXCEPTION 'load job % does not exist', job USING ERRCODE = '42704',
            HINT = 'SELECT job, "table", state FROM petagen.jobs lists the jobs.';
    END IF;
END
$$;
REVOKE ALL ON FUNCTION @extschema@._check_job(bigint, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@._check_job(bigint, text) TO pg_monitor, petagen_operator;
