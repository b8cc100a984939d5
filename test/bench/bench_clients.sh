#!/usr/bin/env bash
# test/bench/bench_clients.sh — petagen.bench(clients => N): thousands of
# libpq client sessions driven by a few workers.
#
#   test/bench/bench_clients.sh
#   CLIENTS=200 SECONDS_PER_RUN=5 test/bench/bench_clients.sh   # a smoke run
#
# Starts its own throwaway instance (see lib.sh: PG_CONFIG, BENCH_DIR,
# BENCH_PORT default 5467, PETAGEN_BUILD=1) with max_connections raised to
# CLIENTS + 50 and max_files_per_process to three times a worker's
# sessions (+200), its open files limit above that, loads N rows, then runs, each D seconds after a 5 s
# warm-up:
#   select  petagen.bench('select', workers => WORKERS, clients => CLIENTS)
#           a closed loop: every session runs its next read as soon as the
#           last one returned
#   ycsb-a  petagen.bench('ycsb-a', …, target_rate => RATE)
#           paced: RATE operations per second over all sessions, latency
#           from each operation's intended start, service time beside it
# While each run goes (all CLIENTS sessions connected, 3 s on), it records the
# memory the sessions' backends take: the sum of their private memory
# (RssAnon of /proc/<pid>/status: what each backend allocated for itself,
# shared buffers not included) and the machine's used memory (MemTotal -
# MemAvailable) against before the run.
# Results: test/bench/results/bench_clients.md.
#   N                rows              (default 200000)
#   CLIENTS          sessions          (default 2000)
#   WORKERS          workers           (default 4)
#   SECONDS_PER_RUN  measured seconds  (default 30)
#   RATE             ycsb-a target_rate (default 1000)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

N=${N:-200000}
CLIENTS=${CLIENTS:-2000}
WORKERS=${WORKERS:-4}
D=${SECONDS_PER_RUN:-30}
RATE=${RATE:-1000}
BENCH_PORT=${BENCH_PORT:-5467}
BENCH_DIR=${BENCH_DIR:-/tmp/bench-pg/bench_clients}
OUT=${OUT:-$RESULTS_DIR/bench_clients.md}

FILES=$((3 * ((CLIENTS + WORKERS - 1) / WORKERS) + 200))
bench_start
as_owner tee -a "$BENCH_DIR/data/postgresql.conf" >/dev/null <<CONF
max_connections = $((CLIENTS + 50))
max_files_per_process = $FILES
CONF
# the server's open files limit above max_files_per_process (soft limit raised to it)
as_owner bash -c "ulimit -n $((FILES + 100)) && '$PGBIN/pg_ctl' -D '$BENCH_DIR/data' \
    -l '$BENCH_DIR/server.log' -w restart" >/dev/null
create_usertable
log "instance up on port $BENCH_PORT ($BENCH_DIR); N=$N CLIENTS=$CLIENTS WORKERS=$WORKERS D=${D}s"
job=$(bval "SELECT petagen.start($N, workers => 2)")
[ "$(bval "SELECT petagen.wait($job)")" = done ] || { echo "load failed" >&2; exit 1; }
bpsql -c "VACUUM ANALYZE usertable" -c "CHECKPOINT"

# Memory in use on the machine, MB.
mem_used_mb() {
    awk '/^MemTotal:/ {t = $2} /^MemAvailable:/ {a = $2} END {printf "%d", (t - a) / 1024}' /proc/meminfo
}

# The run's sessions: their count, and the sum of their backends' private
# memory (RssAnon), MB.
sessions_anon() {
    local files
    files=$(bval "SELECT string_agg('/proc/' || pid || '/status', ' ')
                  FROM pg_stat_activity WHERE application_name LIKE 'petagen bench%'")
    # shellcheck disable=SC2086
    cat $files 2>/dev/null | awk '/^RssAnon:/ {kb += $2; n++} END {printf "%d %d\n", n, kb / 1024}'
}

# Run petagen.bench($2) as run $1 in the background; while it goes with
# every session connected, sample memory; print its row.
run_clients() {
    local name=$1 args=$2 before pid n=0 pss=0 used=0 waited=0
    before=$(mem_used_mb)
    bpsql -At >"$BENCH_DIR/$name.out" 2>"$BENCH_DIR/$name.err" <<SQL &
SELECT id AS run FROM petagen.bench($args) \\gset
SELECT kind, workers, clients, path, operations, tps, errors, not_found,
       p50_us, p99_us, p999_us, max_us,
       (SELECT string_agg(k || ' ' || (v->>'p99_us') || ' / ' || (v->>'service_p99_us'), ', ')
          FROM jsonb_each(operation_stats) AS o(k, v))
  FROM petagen.bench_results WHERE id = :run;
SQL
    pid=$!
    while [ "$n" -lt "$CLIENTS" ] && kill -0 "$pid" 2>/dev/null && [ "$waited" -lt 600 ]; do
        sleep 1; waited=$((waited + 1))
        n=$(bval "SELECT count(*) FROM pg_stat_activity WHERE application_name LIKE 'petagen bench%'")
    done
    log "$name: $n sessions connected after ${waited}s"
    sleep 3
    read -r n pss <<<"$(sessions_anon)"
    used=$(mem_used_mb)
    wait "$pid" || { cat "$BENCH_DIR/$name.err" >&2; exit 1; }
    echo "$(cut -d'|' -f1-13 "$BENCH_DIR/$name.out")|$n|$pss|$((used - before))"
}

declare -a ROWS
ROWS+=("$(run_clients select "'select', workers => $WORKERS, clients => $CLIENTS, duration => '$D s', warmup => '5 s'")")
log "select: ${ROWS[-1]}"
ROWS+=("$(run_clients ycsb_a "'ycsb-a', workers => $WORKERS, clients => $CLIENTS, duration => '$D s', warmup => '5 s', target_rate => $RATE")")
log "ycsb-a: ${ROWS[-1]}"

{
    echo "# petagen.bench(clients => $CLIENTS) from $WORKERS workers"
    echo
    bench_env
    echo "- command: \`PG_CONFIG=$PG_CONFIG N=$N CLIENTS=$CLIENTS WORKERS=$WORKERS SECONDS_PER_RUN=$D RATE=$RATE test/bench/bench_clients.sh\`"
    echo "- $N rows (usertable, 8 hash partitions), $CLIENTS libpq sessions from $WORKERS workers, ${D} s measured after a 5 s warm-up; max_connections = $((CLIENTS + 50)), shared_buffers = 1GB"
    echo "- select: a closed loop; ycsb-a: paced at target_rate $RATE (latency from the intended start; service time from the send)"
    echo "- memory: the sessions' backends' summed private memory (RssAnon) 3 s after all had connected, and the machine's used memory (MemTotal - MemAvailable) then against before the run (other users' processes on the machine included: noisy)"
    echo
    echo "| kind | workers | clients | path | operations | tps | errors | not found | p50 µs | p99 µs | p99.9 µs | max µs | p99 / service p99 µs by kind | sessions seen | sessions' RssAnon MB | machine memory +MB |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    for row in "${ROWS[@]}"; do echo "| ${row//|/ | } |"; done
} | tee "$OUT"
