-- petagen._job_waits(job, samples): what the workers of a load job on this
-- node wait on most, from samples of pg_stat_activity 10 ms apart:
-- 'IO:DataFileExtend 71%', or 'CPU 90%' for a worker that waits on nothing.
CREATE OR REPLACE FUNCTION @extschema@._job_waits(job bigint, samples integer DEFAULT 20)
RETURNS text
LANGUAGE plpgsql VOLATILE STRICT
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    pids integer[];
    seen text[] := '{}';
BEGIN
    SELECT array_agg(w.pid) INTO pids FROM @extschema@.status_workers(job) AS w
    WHERE w.pid IS NOT NULL;
    IF pids IS NULL THEN
        RETURN NULL;
    END IF;
    FOR i IN 1 .. samples LOOP
        PERFORM pg_stat_clear_snapshot();
        seen := seen || ARRAY(SELECT coalesce(a.wait_event_type || ':' || a.wait_event, 'CPU')
                              FROM pg_stat_activity AS a WHERE a.pid = ANY (pids));
        PERFORM pg_sleep(0.01);
    END LOOP;
    RETURN (SELECT format('%s %s%%', w, round(100.0 * count(*) / cardinality(seen)))
            FROM unnest(seen) AS w GROUP BY w ORDER BY count(*) DESC, w LIMIT 1);
END
$$;
REVOKE ALL ON FUNCTION @extschema@._job_waits(bigint, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@._job_waits(bigint, integer) TO petagen_operator, pg_monitor;
