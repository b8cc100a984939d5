#!/usr/bin/env bash
# test/bench/cluster_7nodes.sh — the seven-node load of the story, on this
# machine: seven throwaway PostgreSQL instances holding the leaves of one
# hash-partitioned usertable as local tables and reaching each other's
# through postgres_fdw (scripts/cluster.sql, as scripts/cluster.sh builds
# them), driven from node1 with one psql:
#
#   1. one petagen.cluster_start() of ROWS rows (leaf method, WORKERS per
#      node), cluster_status() called and timed every few seconds while it
#      loads (median of the calls: the target is under a second), then
#      cluster_wait() and cluster_verify() (exact: every leaf ok, every key
#      once), timed, and chart_cluster_load() of the load;
#   2. a second, smaller load throttled on every node, one node throttled
#      to a tenth by its own alter(max_rate): cluster_status() once that
#      node is named straggler (petagen.straggler_window 20 s), at 120
#      columns, and its chart.
#
# Writes test/bench/results/cluster_7nodes.md, cluster_7nodes.svg and
# cluster_7nodes_straggler.svg.  Not a timed test: run it by hand.
#
#   PG_CONFIG       the PostgreSQL to use (default: scripts/pg_config.sh)
#   PETAGEN_BUILD=1 build and install petagen into PG_CONFIG's tree first
#   NODES (7), PARTS (28), ROWS (7000000), WORKERS (1), STATUS_EVERY (3 s)
#   BENCH_PORT (54600: node K on BENCH_PORT+K), BENCH_DIR (data and logs)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

NODES=${NODES:-7}
PARTS=${PARTS:-28}
ROWS=${ROWS:-7000000}
WORKERS=${WORKERS:-1}
STATUS_EVERY=${STATUS_EVERY:-3}
PORT=${BENCH_PORT:-54600}
DIR=${BENCH_DIR:-${TMPDIR:-/tmp}/bench-pg/cluster_7nodes}
NODE_IDS=$(seq 1 "$NODES")
NODE_HOST=$DIR
OUT=$RESULTS_DIR/cluster_7nodes.md
# shellcheck source=scripts/nodes.sh
. "$BENCH_REPO/scripts/nodes.sh"

# The postgresql.conf lines of node $1: small, seven of them share the machine.
node_conf() {
    cat <<CONF
port = $((PORT + $1))
listen_addresses = ''
unix_socket_directories = '$DIR'
cluster_name = 'node$1'
max_worker_processes = 16
shared_buffers = 128MB
max_wal_size = 4GB
checkpoint_timeout = 30min
autovacuum = off
CONF
}

# One value from node1.
n1() { node_psql 1 -At -c "$1"; }

# Milliseconds of one statement on node1, by psql's \timing; its output in $DIR/last.out.
time_n1() {
    local out
    out=$(printf '\\timing on\n%s\n' "$1" | node_psql 1 -At) || {
        echo "statement failed: $1" >&2; echo "$out" >&2; exit 1; }
    echo "$out" >"$DIR/last.out"
    echo "$out" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | tail -1
}

# Is every node's job of cluster job $1 over?
all_ended() {
    [ "$(n1 "SELECT count(*) FROM petagen.cluster_status($1)
             WHERE node <> 'total' AND state IN ('starting', 'running', 'throttled', 'paused')")" = 0 ]
}

trap nodes_down EXIT
bench_check_install
rm -rf "$DIR"
nodes_dir
ports=""
for k in $NODE_IDS; do
    node_up "$k" >/dev/null
    ports=$ports${ports:+,}$((PORT + k))
done
for k in $NODE_IDS; do
    node_psql "$k" -q -v self="$k" -v nodes="$NODES" -v parts="$PARTS" \
        -v host="$DIR" -v ports="$ports" -f "$BENCH_REPO/scripts/cluster.sql" >/dev/null
done
for k in $NODE_IDS; do
    node_psql "$k" -q -f "$BENCH_REPO/scripts/cluster_links.sql" >/dev/null
done
log "$NODES nodes up on ports $ports, $PARTS leaves"

# 1. The load, watched.
t0=$(date +%s.%N)
cj=$(n1 "SELECT petagen.cluster_start($ROWS, workers => $WORKERS, method => 'leaf')")
log "cluster job $cj: $ROWS rows, $WORKERS worker(s) on each node"
status_ms=()
while ! all_ended "$cj"; do
    sleep "$STATUS_EVERY"
    ms=$(time_n1 "SELECT * FROM petagen.cluster_status($cj)")
    status_ms+=("$ms")
    node_psql 1 -P footer=off -c "SELECT * FROM petagen.cluster_status($cj)" \
        >"$DIR/status_${#status_ms[@]}.out"
    node_psql 1 -P footer=off -c "SELECT worker, phase, state, rows_per_s, waits, bound
        FROM petagen.status_details((SELECT job FROM petagen.cluster_jobs
                                     WHERE cluster_job = $cj AND node = 'node1'))
        WHERE worker IS NOT NULL" >"$DIR/waits_${#status_ms[@]}.out"
    log "cluster_status(): $ms ms"
done
mid=$(( (${#status_ms[@]} + 1) / 2 ))
waits_mid=$(cat "$DIR/waits_$mid.out")
status_mid=$(cat "$DIR/status_$mid.out")
wait_ms=$(time_n1 "SELECT * FROM petagen.cluster_wait($cj)")
t1=$(date +%s.%N)
wait_out=$(cat "$DIR/last.out")
verify_ms=$(time_n1 "SELECT node, count(*), sum(expected), sum(present), sum(missing), sum(extra),
                            sum(duplicated), bool_and(ok) FROM petagen.cluster_verify($cj)
                     GROUP BY ROLLUP (node) ORDER BY node NULLS LAST")
verify_out=$(grep -v '^Time:' "$DIR/last.out")
exact=$(echo "$verify_out" | awk -F'|' -v rows="$ROWS" -v parts="$PARTS" \
    '$1 == "" { print ($2 == parts && $3 == rows && $4 == rows && $5 == 0 && $6 == 0 && $7 == 0 && $8 == "t") ? "exact" : "NOT EXACT" }')
n1 "SELECT petagen.chart_cluster_load($cj)" >"$RESULTS_DIR/cluster_7nodes.svg"
load_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
log "loaded in $load_s s; cluster_wait $wait_ms ms; cluster_verify $verify_ms ms: $exact"

# 2. A straggler: every node at 3MB/s, node3 at 300kB/s by its own alter().
node_psql 1 -q -c "LOAD 'petagen'" -c "ALTER SYSTEM SET petagen.straggler_window = '20s'" -c "SELECT pg_reload_conf()" >/dev/null
cj2=$(n1 "SELECT petagen.cluster_start($((ROWS / 5)), first => $ROWS, workers => 1, method => 'chunk',
                                       max_rate => '3MB')")
job3=$(n1 "SELECT job FROM petagen.cluster_jobs WHERE cluster_job = $cj2 AND node = 'node3'")
node_psql 3 -At -c "SELECT petagen.alter($job3, max_rate => '300kB')" >/dev/null
for _ in $(seq 1 120); do
    sleep 2
    [ "$(n1 "SELECT count(*) FROM petagen.cluster_status($cj2) WHERE note LIKE 'straggler%'")" = 0 ] || break
done
sleep 10
straggler=$(node_psql 1 -f - <<SQL
\\pset footer off
SELECT * FROM petagen.cluster_status($cj2);
SQL
)
width=$(echo "$straggler" | awk '{ if (length($0) > w) w = length($0) } END { print w }')
workers3=$(node_psql 3 -f - <<SQL
\\pset footer off
SELECT * FROM petagen.status_workers($job3);
SELECT worker, state, rows_per_s, waits, bound FROM petagen.status_details($job3) WHERE worker IS NOT NULL;
SQL
)
fast1=$(node_psql 1 -f - <<SQL
\\pset footer off
SELECT worker, state, rows_per_s, waits, bound FROM petagen.status_details(
    (SELECT job FROM petagen.cluster_jobs WHERE cluster_job = $cj2 AND node = 'node1')) WHERE worker IS NOT NULL;
SQL
)
n1 "SELECT petagen.chart_cluster_load($cj2)" >"$RESULTS_DIR/cluster_7nodes_straggler.svg"
n1 "SELECT * FROM petagen.cluster_stop($cj2)" >/dev/null

med=$(median "${status_ms[@]}")
{
    echo "# Seven postgres_fdw nodes on one machine, driven from node1"
    echo
    echo "test/bench/cluster_7nodes.sh: $NODES throwaway instances (shared_buffers 128MB,"
    echo "autovacuum off, wal_level replica) holding $PARTS hash leaves of usertable, $((PARTS / NODES))"
    echo "local per node; one cluster_start() of $ROWS rows from node1, leaf method,"
    echo "$WORKERS worker per node."
    echo
    echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); host: $(nproc) CPUs ($(awk -F': ' '/^model name/{print $2; exit}' /proc/cpuinfo)), $(free -g | awk '/^Mem:/{print $2}') GB RAM"
    echo "- server: $(n1 'SELECT version()' | cut -d, -f1); petagen commit $(git -C "$BENCH_REPO" rev-parse --short HEAD)"
    echo
    echo "| what | figure |"
    echo "|---|---|"
    echo "| load, cluster_start() to cluster_wait() returning | $load_s s ($(awk -v r="$ROWS" -v s="$load_s" 'BEGIN { printf "%.0f", r / s }') rows/s in the cluster) |"
    echo "| cluster_status() during the load, median of ${#status_ms[@]} calls | $med ms (min $(printf '%s\n' "${status_ms[@]}" | sort -g | head -1), max $(printf '%s\n' "${status_ms[@]}" | sort -g | tail -1)) |"
    echo "| cluster_wait() after the load | $wait_ms ms |"
    echo "| cluster_verify(), each node its own leaves | $verify_ms ms: $exact |"
    echo
    echo "cluster_status() halfway through the load:"
    echo
    echo '```text'
    echo "$status_mid"
    echo '```'
    echo
    echo "node1's worker at the same moment (status_details(), on node1):"
    echo
    echo '```text'
    echo "$waits_mid"
    echo '```'
    echo
    echo "cluster_wait() and cluster_verify() (per node, then the total):"
    echo
    echo '```text'
    echo "$wait_out" | grep -v '^Time:'
    echo
    echo "$verify_out"
    echo '```'
    echo
    echo "![each node's rate during the load](cluster_7nodes.svg)"
    echo
    echo "## A straggler"
    echo
    echo "A second load, $((ROWS / 5)) rows, chunk method, every node throttled to 3 MB/s and node3"
    echo "to 300 kB/s by its own \`alter()\`; petagen.straggler_window = 20 s. cluster_status() ($width columns):"
    echo
    echo '```text'
    echo "$straggler"
    echo '```'
    echo
    echo "status_workers() and the workers' waits in status_details() of node3's job, on node3:"
    echo
    echo '```text'
    echo "$workers3"
    echo '```'
    echo
    echo "node1's worker, throttled to 3 MB/s, for comparison:"
    echo
    echo '```text'
    echo "$fast1"
    echo '```'
    echo
    echo "![node3 straggling](cluster_7nodes_straggler.svg)"
} >"$OUT"
log "wrote $OUT"
