#!/usr/bin/env bash
# test/bench/citus_load.sh — filling a Citus distributed table: petagen on
# both workers against COPY, the way a Citus user loads today.
#
#   test/bench/citus_load.sh
#   N=2000000 REPS=3 test/bench/citus_load.sh
#
# Brings up (or reuses) the 3-instance cluster of scripts/citus_cluster.sh
# (coordinator + 2 workers on loopback ports, usertable hash-distributed on
# ycsb_key into PETAGEN_CITUS_SHARDS shards, default 32) in
# PETAGEN_CITUS_DIR (default /tmp/bench-pg/citus_load) on
# PETAGEN_CITUS_PORT (default 54370), writes the same N rows petagen
# generates (keys 'scrambled') to binary COPY files (not timed), then loads
# them REPS times with each method, interleaved, TRUNCATE through the
# coordinator + CHECKPOINT on every node before each load:
#   copy_coord    COPY usertable FROM '<all rows>' (FORMAT binary) on the coordinator
#   copy_workers  the same, half the rows on each worker at once (Citus routes them)
#   petagen       SELECT petagen.start(N, workers => WORKERS, method => 'chunk') on each worker at
#                 once, then petagen.wait() of both (time: until both are done)
#   petagen_leaf  the same with method => 'leaf' (one shard per transaction,
#                 new relfilenode, frozen, primary key rebuilt per shard)
# Each load is checked through the coordinator (count(*) = N).  Per method:
# the runs, the median, rows/s and the ratio to COPY through the coordinator.
# Markdown table printed and written to test/bench/results/citus_load.md.
#   N        rows per load                 (default 1000000)
#   REPS     repetitions                   (default 3)
#   WORKERS  petagen load workers per node (default 2)
#   METHODS  the methods to run            (default: all four)
set -euo pipefail
cd "$(dirname "$0")/../.."

N=${N:-1000000}
REPS=${REPS:-3}
WORKERS=${WORKERS:-2}
export PETAGEN_CITUS_DIR=${PETAGEN_CITUS_DIR:-/tmp/bench-pg/citus_load}
export PETAGEN_CITUS_PORT=${PETAGEN_CITUS_PORT:-54370}
DIR=$PETAGEN_CITUS_DIR
OUT=test/bench/results/citus_load.md
METHODS=${METHODS:-copy_coord copy_workers petagen petagen_leaf}

log() { echo "[$(date +%H:%M:%S)] $*" >&2; }
cl() { bash scripts/citus_cluster.sh psql "$@"; }
val() { cl "$1" -At -c "$2"; }
now() { date +%s.%N; }
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

mkdir -p "$(dirname "$DIR")"
bash scripts/citus_cluster.sh up >&2
log "cluster up in $DIR, port $PETAGEN_CITUS_PORT; N=$N REPS=$REPS WORKERS=$WORKERS"

# --- the COPY files: the rows petagen generates, not timed ---------------
half=$((N / 2))
log "writing COPY files"
val 0 "COPY (SELECT * FROM petagen.rows(NULL::usertable, 0, $N)) TO '$DIR/rows.bin' (FORMAT binary)"
val 0 "COPY (SELECT * FROM petagen.rows(NULL::usertable, 0, $half)) TO '$DIR/half1.bin' (FORMAT binary)"
val 0 "COPY (SELECT * FROM petagen.rows(NULL::usertable, $half, $((N - half)))) TO '$DIR/half2.bin' (FORMAT binary)"

reset_table() {
    val 0 "TRUNCATE usertable" >/dev/null
    for k in 0 1 2; do val "$k" "CHECKPOINT" >/dev/null; done
}

# Run one load with method $1; prints its wall time in seconds.
run() {
    local t0 t1 j1 j2 p1 p2
    t0=$(now)
    case $1 in
    copy_coord)
        val 0 "COPY usertable FROM '$DIR/rows.bin' (FORMAT binary)" >/dev/null ;;
    copy_workers)
        val 1 "COPY usertable FROM '$DIR/half1.bin' (FORMAT binary)" >/dev/null & p1=$!
        val 2 "COPY usertable FROM '$DIR/half2.bin' (FORMAT binary)" >/dev/null & p2=$!
        wait $p1; wait $p2 ;;
    petagen|petagen_leaf)
        local how="workers => $WORKERS, method => 'chunk'"
        [ "$1" = petagen ] || how="workers => $WORKERS, method => 'leaf'"
        j1=$(val 1 "SELECT petagen.start($N, $how)")
        j2=$(val 2 "SELECT petagen.start($N, $how)")
        [ "$(val 1 "SELECT petagen.wait($j1)")" = done ] || { echo "worker1 job $j1 not done" >&2; exit 1; }
        [ "$(val 2 "SELECT petagen.wait($j2)")" = done ] || { echo "worker2 job $j2 not done" >&2; exit 1; } ;;
    esac
    t1=$(now)
    awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.2f", b - a}'
}

declare -A S
for r in $(seq 1 "$REPS"); do
    for m in $METHODS; do
        reset_table
        s=$(run "$m")
        n=$(val 0 "SELECT count(*) FROM usertable")
        [ "$n" = "$N" ] || { echo "$m loaded $n rows, not $N" >&2; exit 1; }
        S[$m]="${S[$m]:-} $s"
        log "rep $r $m: $s s"
    done
done

label() {
    case $1 in
    copy_coord)   echo "COPY FROM file (binary) through the coordinator" ;;
    copy_workers) echo "COPY FROM file (binary), half through each worker at once" ;;
    petagen)      echo "petagen.start(N, workers => $WORKERS, method => 'chunk') on each worker at once" ;;
    petagen_leaf) echo "petagen.start(N, workers => $WORKERS, method => 'leaf') on each worker at once" ;;
    esac
}
fmt() { printf "%'d" "$1"; }
base=$(median ${S[copy_coord]})
load=$(cut -d' ' -f1-3 /proc/loadavg)
mkdir -p "$(dirname "$OUT")"
{
    echo "# Filling a Citus table: petagen on the workers vs COPY — $(fmt "$N") rows, $REPS runs each"
    echo
    echo "- $(nproc) cores, $(awk '/MemTotal/{printf "%.0f GB", $2 / 1048576}' /proc/meminfo) RAM; $(val 0 "SELECT split_part(version(), ' on ', 1)"), Citus $(val 0 "SELECT extversion FROM pg_extension WHERE extname = 'citus'")"
    echo "- $(date -u '+%Y-%m-%d %H:%M UTC'); load average at the end: $load (the 3 instances and the loaders share the cores)"
    echo "- command: \`N=$N REPS=$REPS WORKERS=$WORKERS METHODS='$METHODS' test/bench/citus_load.sh\` (PG_CONFIG=${PG_CONFIG:-$(bash scripts/pg_config.sh)})"
    echo "- coordinator + 2 workers on one machine (scripts/citus_cluster.sh), usertable hash-distributed on ycsb_key, $(val 0 "SELECT count(*) FROM pg_dist_shard WHERE logicalrelid = 'usertable'::regclass") shards, primary key maintained; TRUNCATE + CHECKPOINT before each load; methods interleaved; medians"
    echo
    echo "| method | runs (s) | median s | rows/s | × COPY through the coordinator |"
    echo "|---|---|---|---|---|"
    for m in $METHODS; do
        s=$(median ${S[$m]})
        echo "| $(label "$m") | ${S[$m]# } | $s | $(fmt "$(awk -v n="$N" -v s="$s" 'BEGIN{printf "%.0f", n / s}')") | **$(awk -v a="$base" -v b="$s" 'BEGIN{printf "%.2f", a / b}')×** |"
    done
} >"$OUT"
cat "$OUT"
