-- petagen._cluster_each(cluster_job, caller, writes, query): run query, a
-- format() string taking the node's job id, on every node of a cluster
-- job, every node at once; one row per node with its first value or its
-- error, and a WARNING naming each node that failed or could not be reached.
CREATE OR REPLACE FUNCTION @extschema@._cluster_each(cluster_job bigint, caller text,
    writes boolean, query text,
    OUT node text, OUT job bigint, OUT result text, OUT error text)
RETURNS SETOF record
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    r record;
BEGIN
    -- every node at once
    FOR r IN
        WITH m AS (
            SELECT c.*, c.ordinality AS i
              FROM @extschema@._cluster_members(cluster_job, caller, writes) WITH ORDINALITY AS c
        )
        SELECT m.node, m.job, o.ok, o.result, o.error
          FROM @extschema@._cluster_run(ARRAY(SELECT m.node FROM m ORDER BY m.i),
                                        ARRAY(SELECT m.kind FROM m ORDER BY m.i),
                                        ARRAY(SELECT m.host FROM m ORDER BY m.i),
                                        ARRAY(SELECT m.port FROM m ORDER BY m.i),
                                        ARRAY(SELECT format(query, m.job) FROM m ORDER BY m.i))
               WITH ORDINALITY AS o(node, reached, ok, error, result, i)
          JOIN m ON m.i = o.i
         ORDER BY o.i
    LOOP
        node := r.node;
        job := r.job;
        result := r.result;
        error := r.error;
        IF NOT r.ok THEN
            RAISE WARNING '%: node "%" failed: %', caller, r.node, r.error;
        END IF;
        RETURN NEXT;
    END LOOP;
END
$$;
REVOKE ALL ON FUNCTION @extschema@._cluster_each(bigint, text, boolean, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@._cluster_each(bigint, text, boolean, text) TO petagen_operator;
