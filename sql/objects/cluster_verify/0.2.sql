-- petagen.cluster_verify(cluster_job): verify() of a cluster job's key
-- space, every leaf once, on the node that stores it: each node verifies
-- its own job's local leaves (_verify_local(), a scan of each leaf on its
-- own disks, nothing read over the network), and each row names the node
-- and the leaf, schema-qualified.
-- Every node verifies at once.  A node that fails or cannot be reached is
-- a row of its own, not ok, with its error (and a WARNING naming it); the
-- others are still verified.
CREATE OR REPLACE FUNCTION @extschema@.cluster_verify(cluster_job bigint,
    OUT node text, OUT leaf text, OUT expected bigint, OUT present bigint,
    OUT missing bigint, OUT extra bigint, OUT duplicated bigint, OUT ok boolean,
    OUT error text)
RETURNS SETOF record
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    p record;
BEGIN
    -- every node at once, each verifying its own leaves
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
            ARRAY(SELECT format(
                'SELECT coalesce(pg_catalog.json_agg(pg_catalog.to_jsonb(v) || pg_catalog.jsonb_build_object('
                '''leaf'', (SELECT pg_catalog.format(''%%I.%%I'', n.nspname, c.relname) FROM pg_catalog.pg_class AS c'
                ' JOIN pg_catalog.pg_namespace AS n ON n.oid = c.relnamespace WHERE c.oid = v.leaf))), ''[]'')::text'
                ' FROM @extschema@._verify_local(%s::bigint) AS v', m.job) FROM m ORDER BY m.i)) AS o
    LOOP
        IF NOT p.ok THEN
            RAISE WARNING 'petagen.cluster_verify(): node "%" failed: %', p.node, p.error;
            RETURN QUERY SELECT p.node, NULL::text, NULL::bigint, NULL::bigint, NULL::bigint,
                NULL::bigint, NULL::bigint, false, p.error;
            CONTINUE;
        END IF;
        RETURN QUERY SELECT p.node, v.leaf, v.expected, v.present, v.missing, v.extra,
            v.duplicated, v.ok, NULL::text
        FROM json_to_recordset(p.result::json) AS v(leaf text, expected bigint, present bigint,
            missing bigint, extra bigint, duplicated bigint, ok boolean)
        ORDER BY 2;
    END LOOP;
END
$$;
COMMENT ON FUNCTION @extschema@.cluster_verify(bigint) IS
    'verify() of the key space of a cluster job, each node verifying its own leaves: one row per leaf with the node that stores it; a node that could not be reached (or whose verify() failed) is one row, ok false, with the error';
REVOKE ALL ON FUNCTION @extschema@.cluster_verify(bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.cluster_verify(bigint) TO petagen_operator, pg_monitor;
