-- petagen cluster: the part of one node, the shape Shardman presents on
-- each node.  Run once on every node, as a superuser, with psql variables:
--   psql -v self=1 -v nodes=3 -v parts=12 -v host=/tmp -v ports=5441,5442,5443 \
--        -f scripts/cluster.sql
--   self   this node's number, 1 .. nodes (node names are node1 .. nodeN)
--   host   where the nodes listen: one socket directory or address for all,
--          or one per node, comma-separated, node1 first
--   ports  every node's port, node1 first
-- It creates petagen and postgres_fdw; a foreign server nodeJ for every other
-- node J with a user mapping for the current user; and usertable, hash
-- partitioned into leaves usertable_p0 .. usertable_p<parts-1>: leaf r is a
-- local table with its own primary key on node (r % nodes) + 1 and a foreign
-- table on every other node.  Used by scripts/cluster.sh and by the TAP
-- tests (test/t/PetagenCluster.pm).  Then any node drives the cluster with
-- petagen's cluster calls (docs/clusters.md).
\set ON_ERROR_STOP on
SET client_min_messages = warning;

CREATE EXTENSION IF NOT EXISTS petagen;
CREATE EXTENSION IF NOT EXISTS postgres_fdw;

-- A server and a user mapping for every other node.
SELECT format('CREATE SERVER %I FOREIGN DATA WRAPPER postgres_fdw'
              ' OPTIONS (host %L, port %L, dbname %L)',
              'node' || n,
              coalesce((string_to_array(:'host', ','))[n], :'host'), port,
              pg_catalog.current_database()),
       format('CREATE USER MAPPING FOR CURRENT_USER SERVER %I', 'node' || n)
FROM unnest(string_to_array(:'ports', ',')) WITH ORDINALITY AS p(port, n)
WHERE n <> :self \gexec

-- No primary key on the parent: a partitioned table with foreign leaves
-- cannot have one, so every local leaf carries its own.
CREATE TABLE usertable (
    ycsb_key varchar(64) NOT NULL,
    field0 varchar(100), field1 varchar(100), field2 varchar(100),
    field3 varchar(100), field4 varchar(100), field5 varchar(100),
    field6 varchar(100), field7 varchar(100), field8 varchar(100),
    field9 varchar(100)
) PARTITION BY HASH (ycsb_key);

-- Leaf r: local on node (r % nodes) + 1, foreign elsewhere (round-robin).
SELECT CASE WHEN r % :nodes + 1 = :self THEN
           format('CREATE TABLE %I PARTITION OF usertable (PRIMARY KEY (ycsb_key))'
                  ' FOR VALUES WITH (MODULUS %s, REMAINDER %s)',
                  'usertable_p' || r, :parts, r)
       ELSE
           format('CREATE FOREIGN TABLE %I PARTITION OF usertable'
                  ' FOR VALUES WITH (MODULUS %s, REMAINDER %s)'
                  ' SERVER %I OPTIONS (table_name %L)',
                  'usertable_p' || r, :parts, r,
                  'node' || (r % :nodes + 1), 'usertable_p' || r)
       END
FROM generate_series(0, :parts - 1) AS r \gexec
