-- petagen._io_write_latency(): this node's mean time per relation write, as
-- pg_stat_io counts them (PostgreSQL 16 and later) for background workers,
-- the checkpointer and the background writer since the statistics were
-- reset: 'write 2.1 ms'; 'no io timing' while track_io_timing is off; NULL
-- before 16 or without a timed write.
CREATE OR REPLACE FUNCTION @extschema@._io_write_latency()
RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    ms double precision;
BEGIN
    IF current_setting('server_version_num')::integer < 160000 THEN
        RETURN NULL;
    END IF;
    IF NOT current_setting('track_io_timing')::boolean THEN
        RETURN 'no io timing';
    END IF;
    -- pg_stat_io does not exist before 16: not named where it is compiled
    EXECUTE 'SELECT sum(s.write_time) / nullif(sum(s.writes), 0) FROM pg_stat_io AS s'
            ' WHERE s.object = ''relation'''
            ' AND s.backend_type IN (''background worker'', ''checkpointer'', ''background writer'')'
        INTO ms;
    RETURN 'write ' || CASE WHEN ms < 9.95 THEN to_char(ms, 'FM990.0') ELSE round(ms)::text END || ' ms';
END
$$;
REVOKE ALL ON FUNCTION @extschema@._io_write_latency() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@._io_write_latency() TO petagen_operator, pg_monitor;
