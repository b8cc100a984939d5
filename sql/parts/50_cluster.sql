
-- Clusters ----------------------------------------------------------------

-- One row per node of a cluster job: the load job cluster_start() started
-- there.  Written only by petagen's functions (as its owner).
CREATE SEQUENCE @extschema@.cluster_jobs_seq;
CREATE TABLE @extschema@.cluster_jobs (
    cluster_job bigint NOT NULL,
    "table" regclass NOT NULL,
    node text NOT NULL,
    job bigint NOT NULL,
    started_by regrole NOT NULL,
    created_at timestamptz NOT NULL DEFAULT pg_catalog.now(),
    PRIMARY KEY (cluster_job, node)
);
SELECT pg_catalog.pg_extension_config_dump('@extschema@.cluster_jobs', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.cluster_jobs_seq', '');
GRANT SELECT ON @extschema@.cluster_jobs TO petagen_operator, pg_monitor;

--#include objects/_node_query/0.2.sql

--#include objects/_nodes_query/0.2.sql

--#include objects/_on_node/0.2.sql

--#include objects/_cluster_run/0.2.sql

--#include objects/_cluster_nodes/0.2.sql

--#include objects/_cluster_record/0.2.sql

--#include objects/_cluster_members/0.2.sql

--#include objects/_cluster_each/0.2.sql

--#include objects/_job_waits/0.2.sql

--#include objects/_recent_rate/0.2.sql

--#include objects/_io_write_latency/0.2.sql

--#include objects/_verify_local/0.2.sql

--#include objects/nodes/0.2.sql

--#include objects/cluster_start/0.2.sql

--#include objects/cluster_status/0.2.sql

--#include objects/cluster_stop/0.2.sql

--#include objects/cluster_alter/0.2.sql

--#include objects/cluster_resume/0.2.sql

--#include objects/cluster_wait/0.2.sql

--#include objects/cluster_forget/0.2.sql

--#include objects/cluster_verify/0.2.sql

--#include objects/_bench_record_cluster/0.2.sql

--#include objects/_cluster_bench_args/0.2.sql

--#include objects/_cluster_bench/0.2.sql

--#include objects/_cluster_bench_sweep/0.2.sql

--#include objects/cluster_bench/0.2.sql

--#include objects/cluster_bench_sweep/0.2.sql

--#include objects/cluster_matrix/0.2.sql

--#include objects/chart_cluster_bench/0.2.sql

--#include objects/chart_cluster_load/0.2.sql
