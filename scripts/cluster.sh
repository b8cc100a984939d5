#!/usr/bin/env bash
# A throwaway petagen cluster on this machine: N PostgreSQL instances, each
# storing some leaves of one hash-partitioned usertable as local tables and
# reaching the others through postgres_fdw (scripts/cluster.sql), the shape
# Shardman presents on each node.  As root, the instances are owned and run
# by the `postgres` OS user (initdb refuses root).
#
#   bash scripts/cluster.sh up       build + install petagen, start node1..N
#   bash scripts/cluster.sh load     petagen.cluster_start() from node1: every node
#   bash scripts/cluster.sh status   petagen.cluster_status() from node1
#   bash scripts/cluster.sh verify   petagen.cluster_verify() of the key space, from node1
#   bash scripts/cluster.sh bench    petagen.cluster_bench('select') from node1: every node at once (+ bench.svg)
#   bash scripts/cluster.sh matrix   petagen.cluster_matrix(): the N x N select TPS matrix (+ matrix.svg)
#   bash scripts/cluster.sh psql K   psql on node K
#   bash scripts/cluster.sh down     stop every node (the data stays)
#
#   PETAGEN_CLUSTER_NODES     instances                  (default 3)
#   PETAGEN_CLUSTER_PARTS     hash partitions            (default 12)
#   PETAGEN_CLUSTER_ROWS      rows in the whole cluster  (default 1000000)
#   PETAGEN_CLUSTER_WORKERS   load and bench workers per node (default 2)
#   PETAGEN_CLUSTER_DURATION  per benchmark, matrix cell (default '5 s')
#   PETAGEN_CLUSTER_PORT      node K listens on PORT+K   (default 54340)
#   PETAGEN_CLUSTER_DIR       data, sockets and logs     (default ./cluster)
#   PG_CONFIG                 the PostgreSQL to use      (default: scripts/pg_config.sh)
set -euo pipefail
cd "$(dirname "$0")/.."

NODES=${PETAGEN_CLUSTER_NODES:-3}
PARTS=${PETAGEN_CLUSTER_PARTS:-12}
ROWS=${PETAGEN_CLUSTER_ROWS:-1000000}
WORKERS=${PETAGEN_CLUSTER_WORKERS:-2}
DURATION=${PETAGEN_CLUSTER_DURATION:-5 s}
PORT=${PETAGEN_CLUSTER_PORT:-54340}
DIR=${PETAGEN_CLUSTER_DIR:-$PWD/cluster}
export PG_CONFIG=${PG_CONFIG:-$(bash scripts/pg_config.sh)}

NODE_IDS=$(seq 1 "$NODES")
NODE_HOST=$DIR
# shellcheck source=scripts/nodes.sh
. scripts/nodes.sh

# The postgresql.conf lines of node $1.
node_conf() {
    cat <<CONF
port = $((PORT + $1))
listen_addresses = ''
unix_socket_directories = '$DIR'
cluster_name = 'node$1'
max_worker_processes = 16
shared_buffers = 128MB
max_wal_size = 2GB
CONF
}

cmd_up() {
    bash scripts/deps.sh
    bash scripts/build.sh >/dev/null
    local fresh=0 ports=""
    [ -d "$DIR" ] || fresh=1
    nodes_dir
    for k in $(seq 1 "$NODES"); do
        node_up "$k"
        ports=$ports${ports:+,}$((PORT + k))
    done
    [ "$fresh" -eq 1 ] || return 0
    for k in $(seq 1 "$NODES"); do
        node_psql "$k" -v self="$k" -v nodes="$NODES" -v parts="$PARTS" \
            -v host="$DIR" -v ports="$ports" -f scripts/cluster.sql
    done
    node_psql 1 -c "SELECT node, count(*) AS leaves, string_agg(leaf::text, ' ') AS names
                    FROM petagen.leaves('usertable') GROUP BY node ORDER BY node"
}

cmd_load() {
    local cj
    cj=$(node_psql 1 -At -c "SELECT petagen.cluster_start($ROWS, workers => $WORKERS)")
    echo "== load: cluster job $cj, $ROWS rows in the cluster, $WORKERS workers on each of $NODES nodes"
    node_psql 1 -c "SELECT * FROM petagen.cluster_wait($cj)"
    cmd_status
}

cmd_status() {
    node_psql 1 -c "SELECT * FROM petagen.cluster_status()"
}

cmd_verify() {
    node_psql 1 <<'SQL'
CREATE TEMP TABLE v AS
    SELECT * FROM petagen.cluster_verify((SELECT max(cluster_job) FROM petagen.cluster_jobs));
\echo == cluster_verify from node1: per node
SELECT node, count(*) AS leaves, sum(expected) AS expected, sum(present) AS present,
       sum(missing) AS missing, sum(extra) AS extra, sum(duplicated) AS duplicated,
       bool_and(ok) AS ok
FROM v GROUP BY node ORDER BY node;
\echo == leaves that are not ok
SELECT leaf, node, expected, present, missing, extra, duplicated, error FROM v WHERE NOT ok;
SQL
}

cmd_bench() {
    local id
    echo "== cluster_bench('select'): $WORKERS workers on each node, $DURATION, every node at once"
    node_psql 1 -c "SELECT node, id, started_at::time(3) AS started, operations, round(tps) AS tps,
                           errors, p50_us, p99_us, error
                    FROM petagen.cluster_bench('select', workers => $WORKERS, duration => '$DURATION')"
    id=$(node_psql 1 -At -c "SELECT max(id) FROM petagen.bench_results WHERE path = 'cluster'")
    node_psql 1 -At -c "SELECT petagen.chart_cluster_bench($id)" >"$DIR/bench.svg"
    echo "chart: $DIR/bench.svg"
}

cmd_matrix() {
    local ids
    echo "== cluster_matrix('select'): every node to every node's leaves, one cell at a time"
    ids=$(node_psql 1 -At -c "SELECT array_agg(id) FROM petagen.cluster_matrix('select',
                                  workers => 1, duration => '$DURATION')")
    echo "== select TPS: rows = node sending the queries, columns = node holding the data"
    node_psql 1 <<SQL
SELECT node, target, round(tps) AS tps FROM petagen.bench_matrix('$ids') \\crosstabview node target tps
SQL
    node_psql 1 -At -c "SELECT petagen.chart_matrix('$ids')" >"$DIR/matrix.svg"
    echo "heatmap: $DIR/matrix.svg"
}

case ${1:-} in
    up) cmd_up ;;
    load) cmd_load ;;
    status) cmd_status ;;
    verify) cmd_verify ;;
    bench) cmd_bench ;;
    matrix) cmd_matrix ;;
    psql) shift; k=${1:-1}; shift || true; node_psql "$k" "$@" ;;
    down) nodes_down ;;
    *) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
