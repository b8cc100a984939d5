#!/usr/bin/env bash
# test/bench/leaf_scaling.sh — the leaf method at growing sizes and worker
# counts: rows/s, server CPU per row and the workers' wait events.
#
#   PG_CONFIG=/path/to/pg18/bin/pg_config bash test/bench/leaf_scaling.sh
#   SIZES="2000000 10000000" WORKERS="1 2" WAL_LEVEL=replica bash test/bench/leaf_scaling.sh
#
# Starts its own throwaway instance (lib.sh: PG_CONFIG, BENCH_DIR, BENCH_PORT
# default 5472, PETAGEN_BUILD=1) at WAL_LEVEL (default minimal) with the
# canonical usertable (8-way hash, varchar(64) PK + 10 varchar(100)), and
# runs petagen.start(rows, workers, method => 'leaf') + wait(), one run each,
# TRUNCATE + CHECKPOINT before (not measured), a CHECKPOINT ending each
# measured load:
#   sizes     SIZES rows (default 2e6, 1e7, 3e7) with 2 workers; a size whose
#             heap, indexes (and WAL at replica) would not fit the free disk
#             space of BENCH_DIR, with a 10% margin, is skipped with a
#             message (3e7 rows are ~34 GB)
#   workers   WAIT_ROWS rows (default 2e6) with each of WORKERS (default
#             1 2 4 8) workers
# Every run samples the workers' wait events from pg_stat_activity every
# 0.1 s (waits_start in lib.sh; share of the samples, six most frequent,
# CPU = no wait event); server CPU as in load_peers.sh (server_cpu_us in
# lib.sh).  Every load is checked (count(*) = rows).  Markdown printed and
# written to OUT (default test/bench/results/leaf_scaling.md).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

SIZES=${SIZES:-2000000 10000000 30000000}
WAIT_ROWS=${WAIT_ROWS:-2000000}
WORKERS=${WORKERS:-1 2 4 8}
WAL_LEVEL=${WAL_LEVEL:-minimal}
BENCH_PORT=${BENCH_PORT:-5472}
BENCH_DIR=${BENCH_DIR:-/tmp/bench-pg/leaf_scaling}
OUT=${OUT:-$RESULTS_DIR/leaf_scaling.md}
ROW_BYTES=1200    # heap + index bytes of a canonical row, a little over

bench_start
create_usertable
bench_wal_level "$WAL_LEVEL"
log "instance up on port $BENCH_PORT ($BENCH_DIR); wal_level $(bval 'SHOW wal_level')"

# Whether $1 rows fit the free space of BENCH_DIR (10% margin).
fits() {
    local need=$(($1 * ROW_BYTES * 11 / 10)) free
    if [ "$WAL_LEVEL" != minimal ]; then need=$((need * 2)); fi
    free=$(df -B1 --output=avail "$BENCH_DIR" | tail -1)
    [ "$free" -gt "$need" ] || {
        log "skipping $1 rows: they need ~$((need >> 30)) GB, $((free >> 30)) GB are free"; return 1; }
}

# Load $1 rows with $2 workers once; prints "seconds cpu_us_per_row waits".
run() {
    local rows=$1 w=$2 t0 t1 c0 c1 job waits
    bpsql -c "TRUNCATE usertable" -c "CHECKPOINT"
    c0=$(server_cpu_us)
    t0=$(date +%s.%N)
    job=$(bval "SELECT petagen.start($rows, $w, method => 'leaf', force => true)")
    waits_start
    [ "$(bval "SELECT petagen.wait($job)")" = "done" ] || { echo "job $job did not end done" >&2; exit 1; }
    waits=$(waits_stop)
    bpsql -c "CHECKPOINT"
    t1=$(date +%s.%N)
    c1=$(server_cpu_us)
    [ "$(bval "SELECT count(*) FROM usertable")" = "$rows" ] || { echo "job $job: wrong count" >&2; exit 1; }
    awk -v a="$t0" -v b="$t1" -v c="$((c1 - c0))" -v n="$rows" 'BEGIN{printf "%.2f %.2f ", b - a, c / n}'
    echo "$waits"
}

fmt() { printf "%'d" "$1"; }
# A table row: $1 rows, $2 workers, $3 the output of run().
row() {
    local s cpu waits
    read -r s cpu waits <<<"$3"
    echo "| $(fmt "$1") | $2 | $s | $(fmt "$(awk -v n="$1" -v s="$s" 'BEGIN{printf "%.0f", n / s}')") | $cpu | $waits |"
}

declare -A SZ WK
for n in $SIZES; do
    fits "$n" || { SZ[$n]=skipped; continue; }
    SZ[$n]=$(run "$n" 2)
    log "$n rows, 2 workers: ${SZ[$n]}"
done
for w in $WORKERS; do
    WK[$w]=$(run "$WAIT_ROWS" "$w")
    log "$WAIT_ROWS rows, $w workers: ${WK[$w]}"
done

mkdir -p "$RESULTS_DIR" "$(dirname "$OUT")"
{
    echo "# The leaf method at scale — wal_level = $WAL_LEVEL, one run each"
    echo
    bench_env | sed "s/wal_level replica/wal_level $WAL_LEVEL/"
    echo "- command: \`PG_CONFIG=$PG_CONFIG SIZES=\"$SIZES\" WORKERS=\"$WORKERS\" WAL_LEVEL=$WAL_LEVEL bash test/bench/leaf_scaling.sh\`"
    echo "- canonical usertable (8-way hash, varchar(64) PK + 10 varchar(100)), keys 'scrambled', \`petagen.start(rows, workers, method => 'leaf')\` + \`wait()\`; TRUNCATE + CHECKPOINT before (not measured), measured to the end of a CHECKPOINT after"
    echo "- server CPU: utime + stime of the postmaster and all its children, from /proc; waits: the petagen workers' \`wait_event_type:wait_event\` in \`pg_stat_activity\` every 0.1 s, share of the samples (CPU = none)"
    echo
    echo "| rows | workers | s | rows/s | server CPU µs/row | worker wait events |"
    echo "|---|---|---|---|---|---|"
    for n in $SIZES; do
        if [ "${SZ[$n]}" = skipped ]; then
            echo "| $(fmt "$n") | 2 | skipped: not enough free disk | | | |"
        else
            row "$n" 2 "${SZ[$n]}"
        fi
    done
    for w in $WORKERS; do row "$WAIT_ROWS" "$w" "${WK[$w]}"; done
} >"$OUT.tmp"
mv "$OUT.tmp" "$OUT"
cat "$OUT"
