
-- Benchmarks --------------------------------------------------------------

-- Every petagen.bench() run, with its whole configuration and its figures.
CREATE TABLE @extschema@.bench_results (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    sweep bigint,
    kind text NOT NULL,
    workers integer NOT NULL,
    duration interval NOT NULL,
    warmup interval NOT NULL,
    "table" text NOT NULL,
    target text[] NOT NULL,
    target_node text NOT NULL,
    distribution text NOT NULL,
    options jsonb NOT NULL DEFAULT '{}',
    operations bigint NOT NULL,
    tps double precision NOT NULL,
    errors bigint NOT NULL,
    not_found bigint NOT NULL,
    reads bigint NOT NULL DEFAULT 0,
    updates bigint NOT NULL DEFAULT 0,
    inserts bigint NOT NULL DEFAULT 0,
    scans bigint NOT NULL DEFAULT 0,
    rmws bigint NOT NULL DEFAULT 0,
    p50_us double precision,
    p95_us double precision,
    p99_us double precision,
    p999_us double precision,
    max_us double precision,
    node text NOT NULL DEFAULT COALESCE(
        NULLIF(pg_catalog.current_setting('cluster_name'), ''),
        pg_catalog.concat(pg_catalog.inet_server_addr(), ':',
                          pg_catalog.current_setting('port'))),
    server_version text NOT NULL DEFAULT pg_catalog.current_setting('server_version'),
    run_by regrole NOT NULL DEFAULT CURRENT_USER::pg_catalog.regrole,
    started_at timestamptz NOT NULL,
    finished_at timestamptz NOT NULL DEFAULT pg_catalog.now(),
    label text,
    settings jsonb,
    integrity_errors bigint,
    target_rate double precision,
    operation_stats jsonb,
    samples jsonb,
    clients integer,
    path text NOT NULL DEFAULT 'spi'
);
COMMENT ON TABLE @extschema@.bench_results IS
    'petagen.bench() runs: sweep is the id of the first run of a bench_sweep() or bench_capacity(); target_node is "local", the foreign server of the target leaves, the Citus node (host:port) of shards queried through Citus, or "mixed"';
SELECT pg_catalog.pg_extension_config_dump('@extschema@.bench_results', '');
GRANT SELECT ON @extschema@.bench_results TO petagen_operator;
GRANT SELECT ON @extschema@.bench_results TO pg_monitor;

-- Benchmark runs ----------------------------------------------------------

--#include objects/_check_run/0.2.sql

--#include objects/bench/0.2.sql

--#include objects/bench_sweep/0.2.sql

--#include objects/bench_capacity/0.2.sql

--#include objects/forget_bench/0.2.sql

--#include objects/bench_operations/0.2.sql

--#include objects/bench_samples/0.2.sql

--#include objects/bench_percentiles/0.2.sql

--#include objects/bench_histogram/0.2.sql

--#include objects/bench_hgrm/0.2.sql

--#include objects/bench_json/0.2.sql

--#include objects/bench_status/0.2.sql

--#include objects/bench_runs/0.2.sql

--#include objects/draw/0.2.sql

