-- petagen cluster, second step: the cluster-wide views of one node.  Run on
-- every node after scripts/cluster.sql has run on all of them (it imports
-- the other nodes' objects through their foreign servers):
--   psql -f scripts/cluster_links.sql
-- For every other node J, schema petagen_nodeJ holds foreign tables over its
-- petagen.bench_results and petagen_cluster.node_status.  Then:
--   petagen_cluster.status          the status() row of every recent job on
--                                   every node, one query from any node
--   petagen_cluster.gather_bench()  copies the other nodes' bench_results
--                                   rows that this node lacks into its own,
--                                   so that petagen.chart_matrix() here draws
--                                   the whole node matrix; returns how many
\set ON_ERROR_STOP on
SET client_min_messages = warning;

-- The other nodes: this node's postgres_fdw servers.
CREATE VIEW petagen_cluster.servers AS
    SELECT s.srvname::text AS node
    FROM pg_catalog.pg_foreign_server AS s
    JOIN pg_catalog.pg_foreign_data_wrapper AS w ON w.oid = s.srvfdw
    WHERE w.fdwname = 'postgres_fdw';

SELECT format('CREATE SCHEMA %I', 'petagen_' || node),
       format('IMPORT FOREIGN SCHEMA petagen LIMIT TO (bench_results)'
              ' FROM SERVER %I INTO %I', node, 'petagen_' || node),
       format('IMPORT FOREIGN SCHEMA petagen_cluster LIMIT TO (node_status)'
              ' FROM SERVER %I INTO %I', node, 'petagen_' || node)
FROM petagen_cluster.servers ORDER BY node \gexec

SELECT 'CREATE VIEW petagen_cluster.status AS '
       || 'SELECT * FROM petagen_cluster.node_status'
       || string_agg(format(' UNION ALL SELECT * FROM %I.node_status', 'petagen_' || node),
                     '' ORDER BY node)
FROM petagen_cluster.servers \gexec

CREATE FUNCTION petagen_cluster.gather_bench() RETURNS bigint
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    cols text;
    n bigint;
    total bigint := 0;
    remote text;
BEGIN
    -- every column but the local identity
    SELECT string_agg(quote_ident(attname), ', ' ORDER BY attnum) INTO cols
    FROM pg_attribute
    WHERE attrelid = 'petagen.bench_results'::regclass AND attnum > 0
      AND NOT attisdropped AND attname <> 'id';
    FOR remote IN SELECT node FROM petagen_cluster.servers ORDER BY node LOOP
        EXECUTE format('INSERT INTO petagen.bench_results (%s) SELECT %s FROM %I.bench_results AS r'
                       ' WHERE NOT EXISTS (SELECT FROM petagen.bench_results AS l'
                       ' WHERE l.node = r.node AND l.started_at = r.started_at'
                       ' AND l.finished_at = r.finished_at)',
                       cols, cols, 'petagen_' || remote);
        GET DIAGNOSTICS n = ROW_COUNT;
        total := total + n;
    END LOOP;
    RETURN total;
END
$$;
