-- petagen.bench_matrix(ids): the node matrix, one row per (node sending the
-- queries, node holding the data) with the latest run among ids, or among
-- all select runs when ids is NULL (cluster_bench()'s cluster rows left
-- out).  target is the node itself for 'local'.
CREATE OR REPLACE FUNCTION @extschema@.bench_matrix(ids bigint[] DEFAULT NULL)
RETURNS TABLE(node text, target text, kind text, tps double precision,
              p99_us double precision, id bigint, finished_at timestamptz)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
BEGIN ATOMIC
    SELECT DISTINCT ON (r.node, t.target) r.node, t.target, r.kind, r.tps, r.p99_us, r.id, r.finished_at
      FROM @extschema@.bench_results AS r,
           LATERAL (SELECT CASE WHEN r.target_node = 'local' THEN r.node ELSE r.target_node END) AS t(target)
     WHERE CASE WHEN ids IS NULL THEN r.kind = 'select' AND r.target_node <> 'cluster' ELSE r.id = ANY (ids) END
     ORDER BY r.node, t.target, r.finished_at DESC, r.id DESC;
END;
COMMENT ON FUNCTION @extschema@.bench_matrix(bigint[]) IS
    'per node sending the queries and node holding the data, the latest benchmark run among ids (NULL: among all select runs)';
REVOKE ALL ON FUNCTION @extschema@.bench_matrix(bigint[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.bench_matrix(bigint[]) TO pg_monitor, petagen_operator;
