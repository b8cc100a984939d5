-- petagen._cluster_record(table, nodes, jobs): record a cluster job, the
-- job jobs[i] on node nodes[i]; returns its id.
CREATE OR REPLACE FUNCTION @extschema@._cluster_record("table" regclass, nodes text[], jobs bigint[])
RETURNS bigint
AS 'MODULE_PATHNAME', 'petagen_cluster_record'
LANGUAGE C VOLATILE STRICT;
REVOKE ALL ON FUNCTION @extschema@._cluster_record(regclass, text[], bigint[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@._cluster_record(regclass, text[], bigint[]) TO petagen_operator;

-- petagen._cluster_unrecord(cluster_job): remove a cluster job's rows if
-- the caller has the privileges of the role that started it.
CREATE OR REPLACE FUNCTION @extschema@._cluster_unrecord(cluster_job bigint)
RETURNS bigint
AS 'MODULE_PATHNAME', 'petagen_cluster_unrecord'
LANGUAGE C VOLATILE STRICT;
REVOKE ALL ON FUNCTION @extschema@._cluster_unrecord(bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@._cluster_unrecord(bigint) TO petagen_operator;
