-- petagen cluster: this node's row of the node matrix.  For every node
-- holding leaves of usertable (this one included), one petagen.bench('select')
-- against exactly those leaves: local ones directly, remote ones through
-- postgres_fdw.  Run on every node:
--   psql -v workers=1 -v duration='2 s' -f scripts/cluster_matrix.sql
-- Each run is recorded in petagen.bench_results (node = this node,
-- target_node = 'local' or the server); one line per run is printed:
-- holder|operations|tps|errors|not_found.
\set ON_ERROR_STOP on
SET client_min_messages = warning;

SELECT format('SELECT %L AS holder, b.operations, round(b.tps) AS tps, b.errors, b.not_found'
              ' FROM petagen.bench(%L, workers => %s, duration => %L, target => %L) AS b',
              holder, 'select', :workers, :'duration', leaves)
FROM (SELECT CASE l.node WHEN 'local' THEN pg_catalog.current_setting('cluster_name')
                         ELSE l.node END AS holder,
             array_agg(l.leaf::text) AS leaves
      FROM petagen.leaves('usertable') AS l
      GROUP BY 1) AS g
ORDER BY holder \gexec
