-- petagen.cluster_verify(cluster_job): verify() of a cluster job's key
-- space, every leaf once, each with the node that stores it.  It runs on
-- the cluster job's first node (this one when it loads), whose verify()
-- reads each foreign leaf or remote shard on its node; if that fails, each
-- node that cannot be reached is a row of its own, not ok, with its error.
CREATE OR REPLACE FUNCTION @extschema@.cluster_verify(cluster_job bigint,
    OUT node text, OUT leaf text, OUT expected bigint, OUT present bigint,
    OUT missing bigint, OUT extra bigint, OUT duplicated bigint, OUT ok boolean,
    OUT error text)
RETURNS SETOF record
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    here record;
    r record;
    p record;
    down boolean := false;
BEGIN
    SELECT * INTO here FROM @extschema@._cluster_members(cluster_job, 'petagen.cluster_verify()', false) LIMIT 1;
    r := @extschema@._on_node(here.node, here.kind, here.host, here.port, format(
        'SELECT coalesce(pg_catalog.json_agg(v), ''[]'')::text FROM @extschema@.verify(%s::bigint) AS v',
        here.job));
    IF r.ok THEN
        RETURN QUERY SELECT CASE WHEN v.node = 'local' THEN here.node ELSE v.node END,
            v.leaf, v.expected, v.present, v.missing, v.extra, v.duplicated, v.ok, NULL::text
        FROM json_to_recordset(r.result::json) AS v(node text, leaf text, expected bigint,
            present bigint, missing bigint, extra bigint, duplicated bigint, ok boolean)
        ORDER BY 1, 2;
        RETURN;
    END IF;
    -- which nodes answer: every node at once
    FOR p IN
        WITH m AS (
            SELECT c.*, c.ordinality AS i
              FROM @extschema@._cluster_members(cluster_job, 'petagen.cluster_verify()', false)
                   WITH ORDINALITY AS c
        )
        SELECT o.* FROM @extschema@._cluster_run(ARRAY(SELECT m.node FROM m ORDER BY m.i),
                                                 ARRAY(SELECT m.kind FROM m ORDER BY m.i),
                                                 ARRAY(SELECT m.host FROM m ORDER BY m.i),
                                                 ARRAY(SELECT m.port FROM m ORDER BY m.i),
                                                 ARRAY(SELECT 'SELECT 1' FROM m ORDER BY m.i)) AS o
    LOOP
        IF NOT p.reached THEN
            down := true;
            RAISE WARNING 'petagen.cluster_verify(): node "%" failed: %', p.node, p.error;
            RETURN QUERY SELECT p.node, NULL::text, NULL::bigint, NULL::bigint, NULL::bigint,
                NULL::bigint, NULL::bigint, false, p.error;
        END IF;
    END LOOP;
    IF NOT down THEN
        RAISE WARNING 'petagen.cluster_verify(): node "%" failed: %', here.node, r.error;
        RETURN QUERY SELECT here.node, NULL::text, NULL::bigint, NULL::bigint, NULL::bigint,
            NULL::bigint, NULL::bigint, false, r.error;
    END IF;
END
$$;
COMMENT ON FUNCTION @extschema@.cluster_verify(bigint) IS
    'verify() of the key space of a cluster job: one row per leaf with the node that stores it; a node that could not be reached (or the verify() that failed) is one row, ok false, with the error';
REVOKE ALL ON FUNCTION @extschema@.cluster_verify(bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.cluster_verify(bigint) TO petagen_operator, pg_monitor;
