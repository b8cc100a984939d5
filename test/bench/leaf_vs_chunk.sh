#!/usr/bin/env bash
# test/bench/leaf_vs_chunk.sh — leaf loads (method => 'leaf') vs chunk loads
# and their client peers, same machine, same run, wal_level = minimal.
#
#   test/bench/leaf_vs_chunk.sh
#   N=2000000 REPS=3 SCALE_WORKERS="1 2 4 8 16" test/bench/leaf_vs_chunk.sh
#   METHODS="chunk_fa leaf" SCALE_WORKERS=16 test/bench/leaf_vs_chunk.sh  # a subset
#
# Starts its own throwaway instance (lib.sh: PG_CONFIG, BENCH_DIR, BENCH_PORT
# default 5467, PETAGEN_BUILD=1) with wal_level = minimal, max_wal_senders
# = 0, creates the canonical usertable (8-way hash, varchar(64) PK + 10
# varchar(100)) and loads N rows (keys => 'ordered') REPS times with each
# method, interleaved, TRUNCATE + CHECKPOINT before every load:
#   chunk_fa   petagen.start(N, 2, frozen => true, indexes => 'after')
#   leaf       petagen.start(N, 2, method => 'leaf')
#   copy2      two parallel streams of COPY usertable FROM '<leaf file>'
#              (FORMAT binary), 4 leaf files each
#   trunc_copy2  per leaf, in one transaction: TRUNCATE leaf; COPY leaf FROM
#              '<leaf file>' (FORMAT binary, FREEZE); two streams of 4 leaves
# (the COPY files, one per leaf, hold the identical rows, written before the
# timed loads, in COPY_DIR: default /dev/shm, so they take no disk space and
# COPY reads them from memory, as petagen generates its rows in memory).
# The jobs pass force => true: check()'s space estimate counts WAL a
# wal_level = minimal leaf load does not write.
# Per method: median time, rows/s, WAL bytes per row (insert LSN diff), % of
# heap pages all-frozen (pg_visibility), XIDs.  Then a scaling table:
# SCALE_ROWS rows (default N) into a 64-leaf table with 1, 2, 4, 8, 16
# workers, chunk (indexes maintained) and leaf methods, one run each, with
# the workers' wait events sampled from pg_stat_activity every 0.1 s (share
# of samples; "CPU" = no wait event).  Markdown to
# test/bench/results/leaf_vs_chunk.md.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

N=${N:-2000000}
REPS=${REPS:-3}
SCALE_ROWS=${SCALE_ROWS:-$N}
SCALE_WORKERS=${SCALE_WORKERS:-1 2 4 8 16}
BENCH_PORT=${BENCH_PORT:-5467}
BENCH_DIR=${BENCH_DIR:-/tmp/bench-pg/leaf_vs_chunk}
OUT=$RESULTS_DIR/leaf_vs_chunk.md
METHODS=${METHODS:-chunk_fa leaf copy2 trunc_copy2}
COPY_DIR=${COPY_DIR:-/dev/shm/petagen-leaf-bench}

bench_start
cat >>"$BENCH_DIR/data/postgresql.conf" <<CONF
wal_level = minimal
max_wal_senders = 0
# 16 workers and the server's own background workers
max_worker_processes = 40
CONF
as_owner "$PGBIN/pg_ctl" -D "$BENCH_DIR/data" -l "$BENCH_DIR/server.log" -w restart >/dev/null
create_usertable
bpsql -c "CREATE EXTENSION pg_visibility"
log "instance up on port $BENCH_PORT ($BENCH_DIR); N=$N REPS=$REPS; wal_level $(bval 'SHOW wal_level')"

LEAVES=$(bench_leaves)

# --- the COPY files: identical rows, one file per leaf, not timed --------
log "writing COPY files to $COPY_DIR"
bench_file_dir "$COPY_DIR"
case " $METHODS " in *" copy2 "*|*" trunc_copy2 "*)
    reset_table
    bpsql -c "SELECT * FROM petagen.load('usertable', 0, $N, keys => 'ordered')" >/dev/null
    for l in $LEAVES; do bpsql -c "COPY $l TO '$COPY_DIR/$l.bin' (FORMAT binary)"; done ;;
esac

# COPY the leaf files given into the parent, in one stream.
copy_stream() {
    local l
    for l in "$@"; do bpsql -c "COPY usertable FROM '$COPY_DIR/$l.bin' (FORMAT binary)"; done
}

# Run method $1 once; prints wall seconds.
run_method() {
    local t0 t1 job
    t0=$(date +%s.%N)
    case $1 in
    chunk_fa) job=$(bval "SELECT petagen.start($N, 2, keys => 'ordered', frozen => true, indexes => 'after', force => true)")
              [ "$(bval "SELECT petagen.wait($job)")" = done ] || { echo "job $job not done" >&2; exit 1; } ;;
    leaf)     job=$(bval "SELECT petagen.start($N, 2, keys => 'ordered', method => 'leaf', force => true)")
              [ "$(bval "SELECT petagen.wait($job)")" = done ] || { echo "job $job not done" >&2; exit 1; } ;;
    copy2)    # shellcheck disable=SC2086
              set -- $LEAVES
              copy_stream "${@:1:$(($# / 2))}" &
              copy_stream "${@:$(($# / 2 + 1))}"
              wait ;;
    trunc_copy2)
              # shellcheck disable=SC2086
              set -- $LEAVES
              trunc_copy_stream "$COPY_DIR" "${@:1:$(($# / 2))}" &
              trunc_copy_stream "$COPY_DIR" "${@:$(($# / 2 + 1))}"
              wait ;;
    esac
    t1=$(date +%s.%N)
    awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.2f", b - a}'
}
label() {
    case $1 in
    chunk_fa)    echo "petagen chunk, frozen, indexes after, 2 workers" ;;
    leaf)        echo "petagen leaf (method => 'leaf'), 2 workers" ;;
    copy2)       echo "2 parallel COPY (FORMAT binary) streams into the parent" ;;
    trunc_copy2) echo "per leaf TRUNCATE + COPY FREEZE (binary), 2 streams" ;;
    esac
}

declare -A S WAL FRZ XID
for r in $(seq 1 "$REPS"); do
    for m in $METHODS; do
        reset_table
        x0=$(bval "SELECT txid_current()")
        w0=$(bval "SELECT pg_current_wal_insert_lsn()")
        s=$(run_method "$m")
        w1=$(bval "SELECT pg_current_wal_insert_lsn()")
        x1=$(bval "SELECT txid_current()")
        n=$(bval "SELECT count(*) FROM usertable")
        [ "$n" = "$N" ] || { echo "$m loaded $n rows, not $N" >&2; exit 1; }
        S[$m]="${S[$m]:-} $s"
        WAL[$m]="${WAL[$m]:-} $(bval "SELECT round(pg_wal_lsn_diff('$w1', '$w0') / $N, 1)")"
        XID[$m]="${XID[$m]:-} $((x1 - x0 - 1))"
        FRZ[$m]="${FRZ[$m]:-} $(bval "SELECT round(100.0 * avg(all_frozen::int), 1) FROM pg_partition_tree('usertable') t, pg_visibility_map(t.relid) WHERE t.isleaf")"
        log "rep $r $m: $s s; WAL bytes/row ${WAL[$m]##* }; all-frozen ${FRZ[$m]##* }%; XIDs $((x1 - x0 - 1))"
    done
done

# --- scaling on 64 leaves, with wait events ------------------------------
bpsql -c "SELECT petagen.create_table('usertable64', partitions => 64)" >/dev/null
# Sample the workers' wait events until job $1 ends; prints "n event..." lines.
sample_waits() {
    local job=$1
    while [ "$(bval "SELECT state FROM petagen.jobs WHERE job = $job")" = running ]; do
        bval "SELECT coalesce(wait_event_type || ':' || wait_event, 'CPU') FROM pg_stat_activity WHERE backend_type = 'petagen worker'"
        sleep 0.1
    done | sort | uniq -c | sort -rn
}
declare -A SC_S SC_W
for w in $SCALE_WORKERS; do
    for m in chunk leaf; do
        bpsql -c "TRUNCATE usertable64" -c "CHECKPOINT"
        t0=$(date +%s.%N)
        job=$(bval "SELECT petagen.start($SCALE_ROWS, $w, 'usertable64', keys => 'ordered', method => '$m', force => true)")
        waits=$(sample_waits "$job")
        [ "$(bval "SELECT petagen.wait($job)")" = done ] || { echo "scaling job $job not done" >&2; exit 1; }
        t1=$(date +%s.%N)
        SC_S[$m$w]=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.2f", b - a}')
        SC_W[$m$w]=$(echo "$waits" | awk '{n[NR]=$1; e[NR]=$2; t+=$1} END{for(i=1;i<=NR&&i<=6;i++) printf "%s%s %.0f%%", (i>1?", ":""), e[i], 100*n[i]/t}')
        log "scale $m $w workers: ${SC_S[$m$w]} s; ${SC_W[$m$w]}"
    done
done

# --- report --------------------------------------------------------------
fmt() { printf "%'d" "$1"; }
mkdir -p "$RESULTS_DIR"
{
    echo "# Leaf loads vs chunk loads and COPY — $(fmt "$N") rows, wal_level = minimal, $REPS runs each"
    echo
    bench_env | sed 's/wal_level replica/wal_level minimal, max_wal_senders 0/; s/max_worker_processes 16/max_worker_processes 40/'
    echo "- command: \`PG_CONFIG=$PG_CONFIG N=$N REPS=$REPS test/bench/leaf_vs_chunk.sh\`"
    echo "- canonical usertable (8-way hash, varchar(64) PK + 10 varchar(100)), keys 'ordered'; TRUNCATE + CHECKPOINT before each load; methods interleaved; medians"
    echo
    echo "| method | runs (s) | median s | rows/s | WAL bytes/row | % heap pages all-frozen | XIDs |"
    echo "|---|---|---|---|---|---|---|"
    for m in $METHODS; do
        s=$(median ${S[$m]})
        echo "| $(label "$m") | ${S[$m]# } | $s | $(fmt "$(awk -v n="$N" -v s="$s" 'BEGIN{printf "%.0f", n / s}')") | $(median ${WAL[$m]}) | $(median ${FRZ[$m]}) | $(median ${XID[$m]}) |"
    done
    echo
    echo "Scaling: $(fmt "$SCALE_ROWS") rows into 64 hash leaves (chunk: indexes maintained, not frozen), one run each; wait events of the workers, share of 0.1 s samples (CPU = none):"
    echo
    echo "| workers | chunk rows/s | chunk waits | leaf rows/s | leaf waits |"
    echo "|---|---|---|---|---|"
    for w in $SCALE_WORKERS; do
        echo "| $w | $(fmt "$(awk -v n="$SCALE_ROWS" -v s="${SC_S[chunk$w]}" 'BEGIN{printf "%.0f", n / s}')") | ${SC_W[chunk$w]} | $(fmt "$(awk -v n="$SCALE_ROWS" -v s="${SC_S[leaf$w]}" 'BEGIN{printf "%.0f", n / s}')") | ${SC_W[leaf$w]} |"
    done
} >"$OUT.tmp"
mv "$OUT.tmp" "$OUT"
cat "$OUT"
