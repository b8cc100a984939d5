#!/usr/bin/env bash
# A throwaway Citus cluster on this machine: a coordinator and two workers
# on loopback ports, Citus built from ../shared/vendor when it is missing
# (scripts/citus.sh), and usertable distributed by hash on ycsb_key.  As
# root, the instances are owned and run by the `postgres` OS user.
#
#   bash scripts/citus_cluster.sh up       build + install petagen (and Citus), start the 3 nodes
#   bash scripts/citus_cluster.sh load     petagen.start() on each worker, wait, count on the coordinator
#   bash scripts/citus_cluster.sh status   every worker's jobs, from the coordinator
#   bash scripts/citus_cluster.sh verify   petagen.verify() of worker1's last job: every shard
#   bash scripts/citus_cluster.sh matrix   the 3 x 2 select TPS node matrix, the workers' with cluster_matrix() (+ matrix.svg)
#   bash scripts/citus_cluster.sh cbench   petagen.cluster_bench('select') from the coordinator: both workers at once
#   bash scripts/citus_cluster.sh bench    test/bench/citus_load.sh on this cluster
#   bash scripts/citus_cluster.sh psql K   psql on node K (0 = coordinator, 1, 2 = workers)
#   bash scripts/citus_cluster.sh down     stop every node (the data stays)
#
#   PETAGEN_CITUS_ROWS      rows in the whole table        (default 1000000)
#   PETAGEN_CITUS_WORKERS   load workers per Citus worker  (default 2)
#   PETAGEN_CITUS_SHARDS    shard_count of usertable       (default 32)
#   PETAGEN_CITUS_DURATION  per matrix cell                (default '5 s')
#   PETAGEN_CITUS_PORT      node K listens on PORT+K       (default 54360)
#   PETAGEN_CITUS_DIR       data, sockets and logs         (default ./citus_cluster)
#   PG_CONFIG               the PostgreSQL to use          (default: scripts/pg_config.sh)
set -euo pipefail
cd "$(dirname "$0")/.."

ROWS=${PETAGEN_CITUS_ROWS:-1000000}
WORKERS=${PETAGEN_CITUS_WORKERS:-2}
SHARDS=${PETAGEN_CITUS_SHARDS:-32}
DURATION=${PETAGEN_CITUS_DURATION:-5 s}
PORT=${PETAGEN_CITUS_PORT:-54360}
DIR=${PETAGEN_CITUS_DIR:-$PWD/citus_cluster}
export PG_CONFIG=${PG_CONFIG:-$(bash scripts/pg_config.sh)}
NODES="0 1 2"

NODE_IDS=$NODES
NODE_HOST=127.0.0.1
# shellcheck source=scripts/nodes.sh
. scripts/nodes.sh

# The postgresql.conf lines of node $1.
node_conf() {
    cat <<CONF
port = $((PORT + $1))
listen_addresses = '127.0.0.1'
unix_socket_directories = '$DIR'
cluster_name = '127.0.0.1:$((PORT + $1))'
shared_preload_libraries = 'citus'
max_worker_processes = 16
shared_buffers = 512MB
max_wal_size = 8GB
checkpoint_timeout = 30min
autovacuum = off
CONF
}

cmd_up() {
    bash scripts/deps.sh
    bash scripts/build.sh >/dev/null
    bash scripts/citus.sh | tail -1
    local fresh=0
    [ -d "$DIR" ] || fresh=1
    nodes_dir
    for k in $NODES; do node_up "$k"; done
    [ "$fresh" -eq 1 ] || return 0
    for k in $NODES; do
        node_psql "$k" -c "CREATE EXTENSION citus" -c "CREATE EXTENSION petagen"
    done
    node_psql 0 -c "SELECT citus_set_coordinator_host('127.0.0.1', $PORT)" >/dev/null
    for k in 1 2; do
        node_psql 0 -c "SELECT citus_add_node('127.0.0.1', $((PORT + k)))" >/dev/null
    done
    node_psql 0 <<SQL
CREATE TABLE usertable (ycsb_key varchar(64) PRIMARY KEY,
    field0 varchar(100), field1 varchar(100), field2 varchar(100),
    field3 varchar(100), field4 varchar(100), field5 varchar(100),
    field6 varchar(100), field7 varchar(100), field8 varchar(100),
    field9 varchar(100));
SELECT create_distributed_table('usertable', 'ycsb_key', shard_count => $SHARDS);
SELECT nodeport AS port, count(*) AS shards FROM citus_shards GROUP BY 1 ORDER BY 1;
SQL
}

cmd_load() {
    local j1 j2
    j1=$(node_psql 1 -At -c "SELECT petagen.start($ROWS, workers => $WORKERS)")
    j2=$(node_psql 2 -At -c "SELECT petagen.start($ROWS, workers => $WORKERS)")
    echo "== load: $ROWS rows, $WORKERS load workers on each Citus worker"
    echo "worker1: job $j1 $(node_psql 1 -At -c "SELECT petagen.wait($j1)")"
    echo "worker2: job $j2 $(node_psql 2 -At -c "SELECT petagen.wait($j2)")"
    node_psql 0 -c "SELECT count(*) AS rows, count(DISTINCT ycsb_key) AS distinct_keys FROM usertable"
    cmd_status
}

# Every worker's recent jobs (their status() row), in one query on the coordinator.
cmd_status() {
    node_psql 0 -c "SELECT w.nodename || ':' || w.nodeport AS node, s.job, s.phase, s.progress,
                           s.rate, s.elapsed, s.eta, s.state, s.reason
                    FROM run_command_on_workers(\$\$SELECT coalesce(json_agg(s), '[]')
                             FROM petagen.status() AS s\$\$) AS w,
                         json_to_recordset(w.result::json) AS s(job bigint, phase text,
                             progress text, rate text, elapsed interval, eta interval,
                             state text, reason text)
                    ORDER BY 1, 2"
}

cmd_verify() {
    echo "== verify on worker1: its shards, and worker2's through Citus"
    node_psql 1 -c "SELECT node, count(*) AS shards, sum(expected) AS expected,
                           sum(present) AS present, sum(missing) AS missing,
                           sum(extra) AS extra, sum(duplicated) AS duplicated, bool_and(ok) AS ok
                    FROM petagen.verify((SELECT max(job) FROM petagen.jobs))
                    GROUP BY 1 ORDER BY 1 DESC"
}

# From the coordinator, bench('select') of each worker's shards through
# Citus; then cluster_matrix(): from each worker, its local shards directly
# and the other worker's through Citus, each run recorded on the
# coordinator too.  Then the matrix.
cmd_matrix() {
    local holders rows ids=""
    holders=$(node_psql 0 -At -c "SELECT DISTINCT nodename || ':' || nodeport FROM citus_shards
                                  WHERE table_name = 'usertable'::regclass ORDER BY 1")
    rows=$(node_psql 1 -At -c "SELECT rows FROM petagen.jobs
                               WHERE \"table\" = 'usertable'::regclass ORDER BY job DESC LIMIT 1")
    echo "== 127.0.0.1:$PORT (coordinator) sends: holder|id|operations|tps|errors|not_found"
    for h in $holders; do
        ids=$ids${ids:+,}$(node_psql 0 -At -c "SELECT '$h', id, operations, round(tps), errors, not_found
            FROM petagen.bench('select', workers => 1, duration => '$DURATION',
                               rows => $rows, target => ARRAY['$h'])" | tee /dev/stderr | cut -d'|' -f2)
    done
    echo "== the workers: cluster_matrix('select') from the coordinator"
    ids=$ids,$(node_psql 0 -At -c "SELECT string_agg(id::text, ',') FROM petagen.cluster_matrix('select',
                                       workers => 1, duration => '$DURATION')")
    echo "== select TPS: rows = node sending the queries, columns = node holding the shards"
    node_psql 0 <<SQL
SELECT node, target, round(tps) AS tps FROM petagen.bench_matrix('{$ids}') \\crosstabview node target tps
SQL
    node_psql 0 -At -c "SELECT petagen.chart_matrix('{$ids}')" >"$DIR/matrix.svg"
    echo "heatmap: $DIR/matrix.svg"
}

case ${1:-} in
    up) cmd_up ;;
    load) cmd_load ;;
    status) cmd_status ;;
    verify) cmd_verify ;;
    matrix) cmd_matrix ;;
    cbench) node_psql 0 -c "SELECT node, id, operations, round(tps) AS tps, errors, p99_us, error
                               FROM petagen.cluster_bench('select', workers => 1, duration => '$DURATION')" ;;
    bench) PETAGEN_CITUS_DIR=$DIR PETAGEN_CITUS_PORT=$PORT bash test/bench/citus_load.sh ;;
    psql) shift; k=${1:-0}; shift || true; node_psql "$k" "$@" ;;
    down) nodes_down ;;
    *) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
