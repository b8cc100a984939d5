-- petagen.cluster_wait(cluster_job, timeout): wait until the load job of
-- every node of a cluster job ends, at most timeout in all (every node is
-- waited for at once).
CREATE OR REPLACE FUNCTION @extschema@.cluster_wait(cluster_job bigint, timeout interval DEFAULT NULL,
    OUT node text, OUT job bigint, OUT state text, OUT error text)
RETURNS SETOF record
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    r record;
BEGIN
    -- every node at once, so timeout is for all of them together
    FOR r IN
        WITH m AS (
            SELECT c.*, c.ordinality AS i
              FROM @extschema@._cluster_members(cluster_job, 'petagen.cluster_wait()', false)
                   WITH ORDINALITY AS c
        )
        SELECT m.node, m.job, o.ok, o.result, o.error
          FROM @extschema@._cluster_run(ARRAY(SELECT m.node FROM m ORDER BY m.i),
                                        ARRAY(SELECT m.kind FROM m ORDER BY m.i),
                                        ARRAY(SELECT m.host FROM m ORDER BY m.i),
                                        ARRAY(SELECT m.port FROM m ORDER BY m.i),
                                        ARRAY(SELECT format('SELECT @extschema@.wait(%s, %L)', m.job, timeout)
                                                FROM m ORDER BY m.i))
               WITH ORDINALITY AS o(node, reached, ok, error, result, i)
          JOIN m ON m.i = o.i
         ORDER BY o.i
    LOOP
        node := r.node;
        job := r.job;
        state := r.result;
        error := r.error;
        IF NOT r.ok THEN
            RAISE WARNING 'petagen.cluster_wait(): node "%" failed: %', r.node, r.error;
        END IF;
        RETURN NEXT;
    END LOOP;
END
$$;
COMMENT ON FUNCTION @extschema@.cluster_wait(bigint, interval) IS
    'wait until the load job of every node of a cluster job ends, at most timeout in all (NULL: no limit); one row per node: its job, its state or the error (a WARNING names each node that failed)';
REVOKE ALL ON FUNCTION @extschema@.cluster_wait(bigint, interval) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.cluster_wait(bigint, interval) TO petagen_operator, pg_monitor;
