-- petagen._cluster_bench(table, args, node_workers, node_clients, sweep,
-- start_delay): bench(args) with node_workers and node_clients on every node of the table's
-- cluster at once, each starting at one instant start_delay from now,
-- each run recorded on its node; then the cluster row recorded here
-- (_bench_record_cluster(), in sweep).  A row per node, then the cluster
-- row (node 'cluster'); a node that failed has its error (and a WARNING).
CREATE OR REPLACE FUNCTION @extschema@._cluster_bench("table" regclass, args text,
    node_workers integer, node_clients integer, sweep bigint, start_delay interval)
RETURNS TABLE(node text, id bigint, started_at timestamptz, workers integer,
              operations bigint, tps double precision, errors bigint,
              p50_us double precision, p95_us double precision, p99_us double precision,
              p999_us double precision, max_us double precision, error text)
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    qualified text;
    start_at timestamptz;
    nodes text[];
    kinds text[];
    hosts text[];
    ports integer[];
    first text[];
    second text[];
    failures text[];
    runs jsonb := '[]';
    cluster_id bigint;
    r record;
    doc jsonb;
BEGIN
    IF "table" IS NULL THEN
        RAISE EXCEPTION 'argument "table" of petagen.cluster_bench() must not be null' USING ERRCODE = '22004';
    END IF;
    IF start_delay IS NULL OR start_delay < interval '0' OR start_delay > interval '1 hour' THEN
        RAISE EXCEPTION 'start_delay must be between 0 and 1 hour' USING ERRCODE = '22023',
            HINT = 'Every node''s run starts start_delay after the call: enough to connect to every node and start its workers, 2 s by default.';
    END IF;
    SELECT format('%I.%I', s.nspname, c.relname) INTO qualified
      FROM pg_class AS c JOIN pg_namespace AS s ON s.oid = c.relnamespace WHERE c.oid = "table";
    SELECT array_agg(n.node ORDER BY n.i), array_agg(n.kind ORDER BY n.i),
           array_agg(n.host ORDER BY n.i), array_agg(n.port ORDER BY n.i)
      INTO nodes, kinds, hosts, ports
      FROM @extschema@._cluster_nodes("table") WITH ORDINALITY AS n(node, kind, host, port, i);
    IF nodes IS NULL THEN
        RAISE EXCEPTION 'table % has no node to benchmark', "table" USING ERRCODE = '55000';
    END IF;

    -- One instant for every node, far enough ahead for each connection and
    -- each node's workers: then every run measures the same window.
    start_at := clock_timestamp() + start_delay;
    first := array_fill(format('SELECT pg_catalog.row_to_json(b)::text FROM @extschema@.bench(%s,'
                               ' workers => %s, clients => %s, "table" => %L,'
                               ' start_at => %L::timestamptz) AS b',
                               args, quote_nullable(node_workers), quote_nullable(node_clients), qualified,
                               to_char(start_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'))::text,
                        ARRAY[cardinality(nodes)]);
    SELECT array_agg(CASE WHEN o.ok THEN format('SELECT @extschema@.bench_json(%s)::text',
                                                 (o.result::json)->>'id') END ORDER BY o.i),
           array_agg(CASE WHEN NOT o.ok THEN o.error END ORDER BY o.i)
      INTO second, failures
      FROM @extschema@._cluster_run(nodes, kinds, hosts, ports, first) WITH ORDINALITY
           AS o(node, reached, ok, error, result, i);

    -- Each run's histograms and time series, from its node.
    FOR r IN SELECT o.*, failures[o.i] AS failed
               FROM @extschema@._cluster_run(nodes, kinds, hosts, ports, second) WITH ORDINALITY
                    AS o(node, reached, ok, error, result, i) ORDER BY o.i LOOP
        doc := CASE WHEN r.ok THEN r.result::jsonb END;
        node := r.node;
        error := coalesce(r.failed, CASE WHEN NOT r.ok THEN r.error END);
        IF error IS NOT NULL THEN
            RAISE WARNING 'petagen.cluster_bench(): node "%" failed: %', r.node, error;
        END IF;
        runs := runs || jsonb_build_array(jsonb_build_object('node', r.node, 'error', error, 'run', doc));
        id := (doc->'run'->>'id')::bigint;
        started_at := (doc->'run'->>'started_at')::timestamptz;
        workers := (doc->'run'->>'workers')::integer;
        operations := (doc->'run'->>'operations')::bigint;
        tps := (doc->'run'->>'tps')::double precision;
        errors := (doc->'run'->>'errors')::bigint;
        p50_us := (doc->'run'->>'p50_us')::double precision;
        p95_us := (doc->'run'->>'p95_us')::double precision;
        p99_us := (doc->'run'->>'p99_us')::double precision;
        p999_us := (doc->'run'->>'p999_us')::double precision;
        max_us := (doc->'run'->>'max_us')::double precision;
        RETURN NEXT;
    END LOOP;

    cluster_id := @extschema@._bench_record_cluster(runs, sweep, start_at);
    IF cluster_id IS NULL THEN
        RETURN QUERY SELECT 'cluster'::text, NULL::bigint, NULL::timestamptz, NULL::integer,
            NULL::bigint, NULL::double precision, NULL::bigint, NULL::double precision,
            NULL::double precision, NULL::double precision, NULL::double precision,
            NULL::double precision, 'no node ran the benchmark'::text;
        RETURN;
    END IF;
    RETURN QUERY SELECT 'cluster'::text, b.id, b.started_at, b.workers, b.operations, b.tps,
        b.errors, b.p50_us, b.p95_us, b.p99_us, b.p999_us, b.max_us, NULL::text
      FROM @extschema@.bench_results AS b WHERE b.id = cluster_id;
END
$$;
REVOKE ALL ON FUNCTION @extschema@._cluster_bench(regclass, text, integer, integer, bigint, interval) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@._cluster_bench(regclass, text, integer, integer, bigint, interval) TO petagen_operator;
