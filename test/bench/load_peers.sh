#!/usr/bin/env bash
# test/bench/load_peers.sh — petagen's load methods against their peers
# (pg_bulkload, COPY FREEZE), rows/s, server CPU per row and WAL, at
# wal_level = minimal and replica, in one run, against the leaf method's
# targets.
#
#   PG_CONFIG=/path/to/pg18/bin/pg_config PETAGEN_BUILD=1 bash test/bench/load_peers.sh
#   N=2000000 ROUNDS=3 WAL_LEVELS="minimal replica" OUT=/tmp/peers.md bash test/bench/load_peers.sh
#   METHODS="leaf trunc_copy2" WAL_LEVELS=minimal bash test/bench/load_peers.sh   # a subset
#
# Starts its own throwaway instance (lib.sh: PG_CONFIG, BENCH_DIR, BENCH_PORT
# default 5471, PETAGEN_BUILD=1), builds pg_bulkload 3.1.23 into PG_CONFIG's
# tree if it is not there (bench_pg_bulkload in lib.sh), creates the
# canonical usertable (8-way hash, varchar(64) PK + 10 varchar(100)), loads
# N rows (default keys, 'scrambled') once and writes each leaf's rows to a
# CSV and a binary COPY file in FILE_DIR (default /dev/shm: no disk space,
# read from memory as petagen generates in memory; not timed).  Then, for
# each wal_level in WAL_LEVELS (a restart), WARMUP unmeasured rounds
# (default 1) and then ROUNDS rounds (default 3) of every method,
# interleaved:
#   leaf           petagen.start(N, 2, method => 'leaf') + wait()
#   leaf4          the same with 4 workers
#   bulk_direct    pg_bulkload -O <leaf> TYPE=CSV WRITER=DIRECT TRUNCATE=YES,
#                  one run per leaf, two leaves at a time
#   bulk_parallel  the same with WRITER=PARALLEL (a reader and a writer
#                  backend per run), one leaf at a time
#   trunc_copy2    per leaf BEGIN; TRUNCATE leaf; COPY leaf FROM '<binary
#                  file>' (FORMAT binary, FREEZE); COMMIT, two streams of 4
#   chunk          petagen.start(N, 2, method => 'chunk') + wait()
# Before each load: TRUNCATE usertable + CHECKPOINT (not measured).  Each
# measured load ends with a CHECKPOINT, so every method is measured until
# its rows are on disk (the direct writers sync their files themselves, a
# COPY or a chunk load leaves dirty buffers).  Measured: wall time; server
# CPU (server_cpu_us in lib.sh: utime + stime of the postmaster and all its
# children, ended ones included, from /proc; the pg_bulkload and psql
# clients are not counted, they only send the command); WAL bytes (insert
# LSN difference); the bytes of the leaves after the load (heap, TOAST, FSM,
# VM and index: pg_total_relation_size), which the load wrote.  Every load
# is checked (count(*) = N).  Once per round, dd writes 1 GB in 1 MB
# O_DIRECT writes to the instance's filesystem; each leaf row's ceiling is
# min(cores / server CPU per row, dd bandwidth / (bytes written + WAL) per
# row).  Medians; the targets at the end.
# Markdown printed and written to OUT (default
# test/bench/results/load_peers.md).  About 17 minutes at the defaults.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

N=${N:-2000000}
ROUNDS=${ROUNDS:-3}
WARMUP=${WARMUP:-1}
WAL_LEVELS=${WAL_LEVELS:-minimal replica}
METHODS=${METHODS:-leaf bulk_direct bulk_parallel trunc_copy2 chunk}
BENCH_PORT=${BENCH_PORT:-5471}
BENCH_DIR=${BENCH_DIR:-/tmp/bench-pg/load_peers}
FILE_DIR=${FILE_DIR:-/dev/shm/petagen-peers-bench}
OUT=${OUT:-$RESULTS_DIR/load_peers.md}

bench_pg_bulkload
bench_start
create_usertable
bpsql -c "CREATE EXTENSION pg_bulkload"
# its load-status directory, made here: two first loads at once race to create it
as_owner mkdir -p "$BENCH_DIR/data/pg_bulkload"
# WRITER=PARALLEL's reader connects to its writer over TCP to localhost on
# PostgreSQL 15+ (it tests HAVE_UNIX_SOCKETS, gone since 15); the restart
# of bench_wal_level applies it
bpsql -c "ALTER SYSTEM SET listen_addresses = 'localhost'"
log "instance up on port $BENCH_PORT ($BENCH_DIR); N=$N ROUNDS=$ROUNDS WAL_LEVELS=$WAL_LEVELS"

LEAVES=$(bench_leaves)

# --- the input files: identical rows, one CSV and one binary per leaf ----
log "writing the input files to $FILE_DIR"
bench_file_dir "$FILE_DIR"
bpsql -c "SELECT * FROM petagen.load('usertable', 0, $N)" >/dev/null
for l in $LEAVES; do
    bpsql -c "COPY $l TO '$FILE_DIR/$l.csv' (FORMAT csv)" -c "COPY $l TO '$FILE_DIR/$l.bin' (FORMAT binary)"
done

# A petagen job of N rows, method $1, $2 workers; fails unless it ends done.
petagen_job() {
    local job
    job=$(bval "SELECT petagen.start($N, $2, method => '$1', force => true)")
    [ "$(bval "SELECT petagen.wait($job)")" = "done" ] || { echo "job $job did not end done" >&2; exit 1; }
}

# pg_bulkload with writer $1 into each leaf given, one after the other.
bulkload_stream() {
    local writer=$1 l
    shift
    for l in "$@"; do
        as_owner "$PGBIN/pg_bulkload" -h "$BENCH_DIR" -p "$BENCH_PORT" -U postgres -d postgres \
            -i "$FILE_DIR/$l.csv" -O "$l" -l "$BENCH_DIR/bulkload.$l.log" \
            -o TYPE=CSV -o "WRITER=$writer" -o TRUNCATE=YES >"$BENCH_DIR/bulkload.$l.out" 2>&1 ||
            { echo "pg_bulkload into $l failed:" >&2; cat "$BENCH_DIR/bulkload.$l.out" >&2; exit 1; }
    done
}

# Run method $1 once.
run_method() {
    # shellcheck disable=SC2086
    set -- "$1" $LEAVES
    local m=$1 half=$((($# - 1) / 2))
    shift
    case $m in
    leaf|chunk)    petagen_job "$m" 2 ;;
    leaf4)         petagen_job leaf 4 ;;
    bulk_direct)   bulkload_stream DIRECT "${@:1:$half}" &
                   bulkload_stream DIRECT "${@:$((half + 1))}"
                   wait $! ;;
    bulk_parallel) bulkload_stream PARALLEL "$@" ;;
    trunc_copy2)   trunc_copy_stream "$FILE_DIR" "${@:1:$half}" &
                   trunc_copy_stream "$FILE_DIR" "${@:$((half + 1))}"
                   wait $! ;;
    esac
}
label() {
    case $1 in
    leaf)          echo "\`petagen.start(…, workers => 2, method => 'leaf')\`" ;;
    leaf4)         echo "\`petagen.start(…, workers => 4, method => 'leaf')\`" ;;
    bulk_direct)   echo "pg_bulkload 3.1.23 \`WRITER=DIRECT\`, per leaf, 2 at a time" ;;
    bulk_parallel) echo "pg_bulkload \`WRITER=PARALLEL\`, per leaf, 1 at a time (2 backends)" ;;
    trunc_copy2)   echo "per leaf \`TRUNCATE\` + \`COPY … (FORMAT binary, FREEZE)\`, 2 streams" ;;
    chunk)         echo "\`petagen.start(…, workers => 2, method => 'chunk')\`" ;;
    esac
}

# Load with method $1 once; append its figures to the arrays of key $2.
measure() {
    local m=$1 k=$2 t0 t1 c0 c1 w0 w1 n
    reset_table
    w0=$(bval "SELECT pg_current_wal_insert_lsn()")
    c0=$(server_cpu_us)
    t0=$(date +%s.%N)
    run_method "$m"
    bpsql -c "CHECKPOINT"
    t1=$(date +%s.%N)
    c1=$(server_cpu_us)
    w1=$(bval "SELECT pg_current_wal_insert_lsn()")
    n=$(bval "SELECT count(*) FROM usertable")
    [ "$n" = "$N" ] || { echo "$m loaded $n rows, not $N" >&2; exit 1; }
    S[$k]="${S[$k]:-} $(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.2f", b - a}')"
    CPU[$k]="${CPU[$k]:-} $(awk -v c="$((c1 - c0))" -v n="$N" 'BEGIN{printf "%.2f", c / n}')"
    WAL[$k]="${WAL[$k]:-} $(bval "SELECT pg_wal_lsn_diff('$w1', '$w0')")"
    BYTES[$k]=$(bval "SELECT sum(pg_total_relation_size(relid)) FROM pg_partition_tree('usertable') WHERE isleaf")
    log "$k: ${S[$k]##* } s, ${CPU[$k]##* } µs CPU/row, WAL $((${WAL[$k]##* } / 1048576)) MB"
}

# Load with each method once, unmeasured, so that no measured load is a
# method's first after the restart (its WAL segments, for one, are new).
warm_up() {
    local m
    for m in $METHODS; do
        reset_table
        run_method "$m"
        bpsql -c "CHECKPOINT"
    done
    log "warm-up round done"
}

declare -A S CPU WAL BYTES
for lvl in $WAL_LEVELS; do
    bench_wal_level "$lvl"
    log "wal_level $(bval 'SHOW wal_level')"
    for _ in $(seq 1 "$WARMUP"); do warm_up; done
    for _ in $(seq 1 "$ROUNDS"); do
        for m in $METHODS; do measure "$m" "$lvl.$m"; done
        DD="${DD:-} $(dd_direct_mb_s)"
        log "dd O_DIRECT ${DD##* } MB/s"
    done
done

# --- report --------------------------------------------------------------
# The median of the space-separated figures $1.
med() {
    # shellcheck disable=SC2086
    median $1
}
fmt() { printf "%'d" "$1"; }
rps() { awk -v n="$N" -v s="$(med "${S[$1]}")" 'BEGIN{printf "%.0f", n / s}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.2f", a / b}'; }
# The ceiling of rows/s of key $1: min(cores / CPU per row, dd bandwidth /
# (written + WAL) bytes per row).
ceiling() {
    awk -v c="$(nproc)" -v cpu="$(med "${CPU[$1]}")" -v b="$(((BYTES[$1] + $(med "${WAL[$1]}" | cut -d. -f1)) / N))" \
        -v bw="$(med "$DD")" 'BEGIN {x = c / (cpu / 1e6); y = bw * 1e6 / b; printf "%.0f", (x < y ? x : y)}'
}
# rows/s of key $1 as a share of its ceiling.
reached() { awk -v r="$(rps "$1")" -v c="$(ceiling "$1")" 'BEGIN{printf "%.2f", r / c}'; }
# "met"/"missed" with the figure: $1 figure, $2 op (le/ge), $3 bound.
verdict() {
    awk -v x="$1" -v op="$2" -v b="$3" 'BEGIN{ok = (op == "le") ? x <= b : x >= b; printf "%s (%s)", ok ? "**met**" : "**missed**", x}'
}
mkdir -p "$RESULTS_DIR" "$(dirname "$OUT")"
{
    echo "# petagen against its peers — $(fmt "$N") rows, $ROUNDS interleaved rounds, medians"
    echo
    bench_env | sed 's/, wal_level replica//'
    echo "- command: \`PG_CONFIG=$PG_CONFIG N=$N ROUNDS=$ROUNDS WARMUP=$WARMUP WAL_LEVELS=\"$WAL_LEVELS\" bash test/bench/load_peers.sh\`; $WARMUP unmeasured round(s) of every method after each restart"
    echo "- canonical usertable (8-way hash, varchar(64) PK + 10 varchar(100)), keys 'scrambled'; input files (CSV for pg_bulkload, binary for COPY) in \`$FILE_DIR\`, written before the loads"
    echo "- each load: TRUNCATE + CHECKPOINT before (not measured); measured from the command to the end of a CHECKPOINT after it"
    echo "- server CPU: utime + stime of the postmaster and all its children (ended ones through the postmaster's cutime/cstime), from /proc, difference around the load; clients not counted"
    echo "- WAL: insert LSN difference; written: \`pg_total_relation_size\` of the leaves after the load (heap, TOAST, FSM, VM, indexes)"
    echo "- dd, 1 GB in 1 MB O_DIRECT writes + fsync, once per round: $(med "$DD") MB/s (runs:$DD); ceiling = min($(nproc) cores / server CPU per row, dd bandwidth / (written + WAL) bytes per row)"
    for lvl in $WAL_LEVELS; do
        echo
        echo "## wal_level = $lvl"
        echo
        echo "| method | runs (s) | rows/s | leaf ÷ this | server CPU µs/row (runs) | median µs/row | WAL MB | written MB | WAL ÷ written | ceiling rows/s (reached) |"
        echo "|---|---|---|---|---|---|---|---|---|---|"
        for m in $METHODS; do
            k=$lvl.$m
            w=$(med "${WAL[$k]}")
            lr=-
            case " $METHODS " in *" leaf "*) lr="$(ratio "$(rps "$lvl.leaf")" "$(rps "$k")")×" ;; esac
            echo "| $(label "$m") | ${S[$k]# } | $(fmt "$(rps "$k")") | $lr | ${CPU[$k]# } | $(med "${CPU[$k]}") | $((${w%.*} / 1048576)) | $((BYTES[$k] / 1048576)) | $(ratio "$w" "${BYTES[$k]}") | $(fmt "$(ceiling "$k")") ($(reached "$k")) |"
        done
    done
    echo
    echo "## Targets"
    echo
    has() { case " $METHODS " in *" $1 "*) return 0 ;; esac; return 1; }
    for lvl in $WAL_LEVELS; do
        has leaf || break
        case $lvl in
        minimal)
            echo "- minimal, leaf ≤ 2.0 µs of server CPU per row: $(verdict "$(med "${CPU[minimal.leaf]}")" le 2.0)"
            if has trunc_copy2; then
                echo "- minimal, leaf ≥ 3× per-leaf TRUNCATE + COPY FREEZE: $(verdict "$(ratio "$(rps minimal.leaf)" "$(rps minimal.trunc_copy2)")" ge 3)"
            fi
            if has bulk_direct; then
                echo "- minimal, leaf ≥ 3× pg_bulkload DIRECT: $(verdict "$(ratio "$(rps minimal.leaf)" "$(rps minimal.bulk_direct)")" ge 3)"
            fi
            echo "- minimal, leaf ≥ 85% of its ceiling: $(verdict "$(reached minimal.leaf)" ge 0.85)"
            if has leaf4; then
                echo "- minimal, leaf with 4 workers ≥ 85% of its ceiling: $(verdict "$(reached minimal.leaf4)" ge 0.85)"
            fi ;;
        replica)
            echo "- replica, leaf ≤ 3.0 µs of server CPU per row: $(verdict "$(med "${CPU[replica.leaf]}")" le 3.0)"
            echo "- replica, leaf WAL ≤ 1.05× the bytes written: $(verdict "$(ratio "$(med "${WAL[replica.leaf]}")" "${BYTES[replica.leaf]}")" le 1.05)" ;;
        esac
    done
} >"$OUT.tmp"
mv "$OUT.tmp" "$OUT"
cat "$OUT"
