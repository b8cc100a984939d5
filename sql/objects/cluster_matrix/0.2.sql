-- petagen.cluster_matrix(kind, workers, duration, ...): the node matrix of
-- a table's cluster from one call.  From every node in turn, one bench()
-- per node holding leaves, against exactly those leaves as that node sees
-- them (its local leaves directly, another node's through postgres_fdw, or
-- on Citus its shards through the distributed table), each cell measured
-- alone; a row per cell.  Every run is recorded on the node that sent the
-- queries, and another node's run also here, as a copy (node: that node,
-- target_node: the node holding the data), so that chart_matrix() of the
-- ids draws the whole matrix.  A node that cannot be reached or a cell
-- that fails is a row with its error (and a WARNING).
CREATE OR REPLACE FUNCTION @extschema@.cluster_matrix(
    kind text DEFAULT 'select',
    workers integer DEFAULT 1,
    duration interval DEFAULT '5 s',
    warmup interval DEFAULT '0 s',
    "table" regclass DEFAULT 'usertable'::text::regclass,
    clients integer DEFAULT NULL,
    label text DEFAULT NULL)
RETURNS TABLE(node text, target text, id bigint, operations bigint, tps double precision,
              errors bigint, not_found bigint, p99_us double precision, error text)
LANGUAGE plpgsql VOLATILE CALLED ON NULL INPUT
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    qualified text;
    nodes text[];
    kinds text[];
    hosts text[];
    ports integer[];
    f integer;
    q record;
    c record;
    b record;
    doc jsonb;
BEGIN
    IF "table" IS NULL THEN
        RAISE EXCEPTION 'argument "table" of petagen.cluster_matrix() must not be null' USING ERRCODE = '22004';
    END IF;
    SELECT format('%I.%I', s.nspname, r.relname) INTO qualified
      FROM pg_class AS r JOIN pg_namespace AS s ON s.oid = r.relnamespace WHERE r.oid = "table";
    SELECT array_agg(n.node ORDER BY n.i), array_agg(n.kind ORDER BY n.i),
           array_agg(n.host ORDER BY n.i), array_agg(n.port ORDER BY n.i)
      INTO nodes, kinds, hosts, ports
      FROM @extschema@._cluster_nodes("table") WITH ORDINALITY AS n(node, kind, host, port, i);
    IF nodes IS NULL THEN
        RAISE EXCEPTION 'table % has no node to benchmark', "table" USING ERRCODE = '55000';
    END IF;
    FOR f IN 1 .. cardinality(nodes) LOOP
        -- the leaves node f sees, by the node holding them: leaves, or the
        -- node itself where it has no table of a leaf (a Citus shard elsewhere)
        SELECT * INTO q FROM @extschema@._cluster_run(ARRAY[nodes[f]], ARRAY[kinds[f]],
            ARRAY[hosts[f]], ARRAY[ports[f]], ARRAY[format(
            'SELECT coalesce(pg_catalog.json_agg(g ORDER BY g.holder), ''[]'')::text FROM ('
            'SELECT CASE l.node WHEN ''local'' THEN %L ELSE l.node END AS holder,'
            ' CASE WHEN pg_catalog.bool_and(l.leaf IS NOT NULL)'
            ' THEN pg_catalog.array_agg(l.leaf::text ORDER BY l.leaf::text) ELSE ARRAY[l.node] END AS target'
            ' FROM @extschema@.leaves(%L) AS l GROUP BY l.node) AS g', nodes[f], qualified)]);
        IF NOT q.ok THEN
            RAISE WARNING 'petagen.cluster_matrix(): node "%" failed: %', nodes[f], q.error;
            RETURN QUERY SELECT nodes[f], t, NULL::bigint, NULL::bigint, NULL::double precision,
                NULL::bigint, NULL::bigint, NULL::double precision, q.error
              FROM unnest(nodes) AS t;
            CONTINUE;
        END IF;
        FOR c IN SELECT * FROM json_to_recordset(q.result::json) AS x(holder text, target text[]) LOOP
            node := nodes[f];
            target := c.holder;
            SELECT * INTO b FROM @extschema@._cluster_run(ARRAY[nodes[f]], ARRAY[kinds[f]],
                ARRAY[hosts[f]], ARRAY[ports[f]], ARRAY[format(
                'SELECT pg_catalog.row_to_json(b)::text FROM @extschema@.bench(%L, workers => %s,'
                ' duration => %L, warmup => %L, "table" => %L, target => %L, clients => %s,'
                ' label => %L) AS b', kind, quote_nullable(workers), duration, warmup, qualified,
                c.target, quote_nullable(clients), label)]);
            error := CASE WHEN NOT b.ok THEN b.error END;
            id := (b.result::json->>'id')::bigint;
            IF b.ok AND kinds[f] IS DISTINCT FROM 'local' THEN
                -- another node's run: a copy here, for chart_matrix()
                SELECT * INTO b FROM @extschema@._cluster_run(ARRAY[nodes[f]], ARRAY[kinds[f]],
                    ARRAY[hosts[f]], ARRAY[ports[f]],
                    ARRAY[format('SELECT @extschema@.bench_json(%s)::text', id)]);
                error := CASE WHEN NOT b.ok THEN b.error END;
                doc := CASE WHEN b.ok THEN b.result::jsonb END;
                id := @extschema@._bench_record_cluster(jsonb_build_array(jsonb_build_object(
                          'node', nodes[f], 'run', doc)), NULL, NULL, nodes[f], c.holder);
            END IF;
            IF error IS NOT NULL THEN
                RAISE WARNING 'petagen.cluster_matrix(): node "%" to node "%" failed: %',
                    nodes[f], c.holder, error;
                id := NULL;
            END IF;
            SELECT r.operations, r.tps, r.errors, r.not_found, r.p99_us
              INTO operations, tps, errors, not_found, p99_us
              FROM @extschema@.bench_results AS r WHERE r.id = cluster_matrix.id;
            RETURN NEXT;
        END LOOP;
    END LOOP;
END
$$;
COMMENT ON FUNCTION @extschema@.cluster_matrix(text, integer, interval, interval, regclass, integer, text) IS
    'the node matrix of the table''s cluster: from every node in turn, bench() against the leaves of each node holding some, each cell alone; a row per cell, every run recorded here too (chart_matrix() of the ids draws it)';
REVOKE ALL ON FUNCTION @extschema@.cluster_matrix(text, integer, interval, interval, regclass, integer, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.cluster_matrix(text, integer, interval, interval, regclass, integer, text) TO petagen_operator;
