-- petagen._cluster_bench_sweep(table, args, node_workers, node_clients,
-- start_delay): _cluster_bench() once per worker count, and with clients
-- per worker count and client count; its rows each time, the cluster rows
-- in one sweep whose id is the first one's.
CREATE OR REPLACE FUNCTION @extschema@._cluster_bench_sweep("table" regclass, args text,
    node_workers integer[], node_clients integer[], start_delay interval)
RETURNS TABLE(node text, id bigint, started_at timestamptz, workers integer,
              operations bigint, tps double precision, errors bigint,
              p50_us double precision, p95_us double precision, p99_us double precision,
              p999_us double precision, max_us double precision, error text)
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    w integer;
    c integer;
    sweep bigint := 0;
    r record;
BEGIN
    IF node_workers IS NULL OR cardinality(node_workers) = 0
       OR array_position(node_workers, NULL) IS NOT NULL THEN
        RAISE EXCEPTION 'workers must list at least one worker count, and no null' USING ERRCODE = '22023';
    END IF;
    IF cardinality(node_clients) = 0 OR array_position(node_clients, NULL) IS NOT NULL THEN
        RAISE EXCEPTION 'clients must list at least one client count, and no null' USING ERRCODE = '22023';
    END IF;
    FOREACH w IN ARRAY node_workers LOOP
        FOR c IN SELECT x FROM unnest(coalesce(node_clients, ARRAY[NULL::integer])) AS x LOOP
            FOR r IN SELECT * FROM @extschema@._cluster_bench("table", args, w, c, sweep, start_delay) LOOP
                -- the first cluster row starts the sweep (sweep 0), the others join it
                IF r.node = 'cluster' AND sweep = 0 AND r.id IS NOT NULL THEN
                    sweep := r.id;
                END IF;
                node := r.node;
                id := r.id;
                started_at := r.started_at;
                workers := r.workers;
                operations := r.operations;
                tps := r.tps;
                errors := r.errors;
                p50_us := r.p50_us;
                p95_us := r.p95_us;
                p99_us := r.p99_us;
                p999_us := r.p999_us;
                max_us := r.max_us;
                error := r.error;
                RETURN NEXT;
            END LOOP;
        END LOOP;
    END LOOP;
END
$$;
REVOKE ALL ON FUNCTION @extschema@._cluster_bench_sweep(regclass, text, integer[], integer[], interval) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@._cluster_bench_sweep(regclass, text, integer[], integer[], interval) TO petagen_operator;
