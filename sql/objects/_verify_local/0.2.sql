-- petagen._verify_local(job, bench_inserts): verify(job) of this node's own
-- leaves only (local tables, or the Citus shards placed here), as
-- cluster_verify() runs it on every node of a cluster.
CREATE OR REPLACE FUNCTION @extschema@._verify_local(job bigint, bench_inserts text DEFAULT 'count',
    OUT leaf regclass, OUT local boolean, OUT expected bigint, OUT present bigint,
    OUT missing bigint, OUT extra bigint, OUT duplicated bigint, OUT ok boolean,
    OUT node text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'petagen_verify_local'
LANGUAGE C STABLE;
REVOKE ALL ON FUNCTION @extschema@._verify_local(bigint, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@._verify_local(bigint, text) TO petagen_operator, pg_monitor;
