-- petagen._bench_record_cluster(runs, sweep, start_at, node, target_node):
-- record the row of a cluster_bench() run in bench_results (path
-- 'cluster'): the nodes' counts and tps summed, their latency histograms
-- merged by bucket; runs is a JSON array of {node, error, run: bench_json()
-- of the node's run}; sweep NULL for none, 0 to start one.  With node and
-- target_node, a copy of one node's run (a cell of cluster_matrix()).
-- Returns its id, NULL when no node ran.
CREATE OR REPLACE FUNCTION @extschema@._bench_record_cluster(runs jsonb, sweep bigint,
    start_at timestamptz, node text DEFAULT NULL, target_node text DEFAULT NULL)
RETURNS bigint
AS 'MODULE_PATHNAME', 'petagen_bench_record_cluster'
LANGUAGE C VOLATILE;
REVOKE ALL ON FUNCTION @extschema@._bench_record_cluster(jsonb, bigint, timestamptz, text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@._bench_record_cluster(jsonb, bigint, timestamptz, text, text) TO petagen_operator;
