#!/usr/bin/env bash
# test/bench/load_vs_copy.sh — petagen loads vs COPY, same machine, same run.
#
#   test/bench/load_vs_copy.sh
#   PG_CONFIG=/path/to/pg15/bin/pg_config test/bench/load_vs_copy.sh
#   RSS_1E7=1 test/bench/load_vs_copy.sh      # also a worker's RSS at 1e7 rows (minutes)
#
# Starts its own throwaway instance (see lib.sh: PG_CONFIG, BENCH_DIR, BENCH_PORT
# default 5461, PETAGEN_BUILD=1), creates the canonical usertable (8-way
# hash partitioned, varchar(64) PRIMARY KEY + 10 varchar(100)), writes the
# identical rows (keys => 'ordered') to a binary and a text COPY file (not
# timed), then loads N rows REPS times with each method, interleaved,
# TRUNCATE + CHECKPOINT before every load:
#   copy_bin   COPY usertable FROM '<file>' (FORMAT binary)
#   copy_text  COPY usertable FROM '<file>'
#   pg_w1      SELECT petagen.start(N, workers => 1, keys => 'ordered', method => 'chunk') \gset
#              SELECT petagen.wait(:job)      (time: both statements)
#   pg_w2      the same with workers => 2
#   (start() and wait() must be separate transactions: the workers wait for
#   the starting transaction to commit, so wait(start(...)) in one statement
#   never returns — see results/load_vs_copy.md)
#   pg_load    SELECT * FROM petagen.load('usertable', 0, N, keys => 'ordered')
#   insert     INSERT INTO usertable SELECT * FROM petagen.rows(NULL::usertable, 0, N, keys => 'ordered')
# Each load is checked (count(*) = N).  Per method: median time, rows/s,
# heap MB/s (pg_table_size of the leaves / time), ratio to COPY binary,
# XIDs consumed (txid_current() before/after), WAL bytes (insert LSN diff).
# Also: a 1-worker job's peak RSS (VmHWM and RssAnon from /proc/<pid>/status,
# sampled every 0.2 s) at 1e6 rows (and 1e7 with RSS_1E7=1), and the raw
# sequential write bandwidth of the data directory's filesystem (dd
# oflag=direct, 2 GiB, 3 runs).  Markdown table printed and written to
# test/bench/results/load_vs_copy.md.
#   N      rows per load (default 2000000)
#   REPS   repetitions   (default 3)
#   PERF=1 also perf-record a 1-worker job (PERF_SECONDS, default 15) and
#          a COPY binary, and list the hottest symbols of each
set -euo pipefail
. "$(dirname "$0")/lib.sh"

N=${N:-2000000}
REPS=${REPS:-3}
BENCH_PORT=${BENCH_PORT:-5461}
BENCH_DIR=${BENCH_DIR:-/tmp/bench-pg/load_vs_copy}
OUT=$RESULTS_DIR/load_vs_copy.md
BIN=$BENCH_DIR/rows.bin
TXT=$BENCH_DIR/rows.txt
METHODS="copy_bin copy_text pg_w1 pg_w2 pg_load insert"

bench_start
create_usertable
log "instance up on port $BENCH_PORT ($BENCH_DIR); N=$N REPS=$REPS"

stmt() {
    case $1 in
    copy_bin)  echo "COPY usertable FROM '$BIN' (FORMAT binary);" ;;
    copy_text) echo "COPY usertable FROM '$TXT';" ;;
    pg_w1)     printf '%s\n' "SELECT petagen.start($N, workers => 1, keys => 'ordered', method => 'chunk') AS job \\gset" "SELECT petagen.wait(:job);" ;;
    pg_w2)     printf '%s\n' "SELECT petagen.start($N, workers => 2, keys => 'ordered', method => 'chunk') AS job \\gset" "SELECT petagen.wait(:job);" ;;
    pg_load)   echo "SELECT * FROM petagen.load('usertable', 0, $N, keys => 'ordered');" ;;
    insert)    echo "INSERT INTO usertable SELECT * FROM petagen.rows(NULL::usertable, 0, $N, keys => 'ordered');" ;;
    esac
}
label() {
    case $1 in
    copy_bin)  echo "COPY FROM file (FORMAT binary)" ;;
    copy_text) echo "COPY FROM file (text)" ;;
    pg_w1)     echo "petagen.start, 1 worker" ;;
    pg_w2)     echo "petagen.start, 2 workers" ;;
    pg_load)   echo "petagen.load(), 1 backend" ;;
    insert)    echo "INSERT … SELECT petagen.rows()" ;;
    esac
}

reset_table() { bpsql -c "TRUNCATE usertable" -c "CHECKPOINT"; }
heap_bytes() { bval "SELECT sum(pg_table_size(relid)) FROM pg_partition_tree('usertable') WHERE isleaf"; }
index_bytes() { bval "SELECT sum(pg_indexes_size(relid)) FROM pg_partition_tree('usertable') WHERE isleaf"; }

# --- the COPY files: identical rows, not timed ---------------------------
log "writing COPY files"
bpsql -c "COPY (SELECT * FROM petagen.rows(NULL::usertable, 0, $N, keys => 'ordered')) TO '$BIN' (FORMAT binary)"
bpsql -c "COPY (SELECT * FROM petagen.rows(NULL::usertable, 0, $N, keys => 'ordered')) TO '$TXT'"

# --- raw sequential write bandwidth of the data directory's filesystem ---
DD=()
for i in 1 2 3; do
    s=$(as_owner dd if=/dev/zero of="$BENCH_DIR/dd.test" bs=1M count=2048 oflag=direct 2>&1 \
        | sed -n 's/.* copied, \([0-9.]*\) s.*/\1/p')
    as_owner rm -f "$BENCH_DIR/dd.test"
    DD+=("$(awk -v s="$s" 'BEGIN{printf "%.0f", 2147483648 / s / 1048576}')")
done
DD_MED=$(median "${DD[@]}")
log "dd oflag=direct: ${DD[*]} MB/s"

# --- warm-up (untimed): creates the WAL segments later loads recycle -----
log "warm-up load"
reset_table
bpsql -c "SELECT * FROM petagen.load('usertable', 0, $N, keys => 'ordered')" >/dev/null

# --- the timed loads -----------------------------------------------------
declare -A S XID WAL HEAP IDX
for r in $(seq 1 "$REPS"); do
    for m in $METHODS; do
        reset_table
        x0=$(bval "SELECT txid_current()")
        w0=$(bval "SELECT pg_current_wal_insert_lsn()")
        ms=$(time_sql "$(stmt "$m")")
        x1=$(bval "SELECT txid_current()")
        w1=$(bval "SELECT pg_current_wal_insert_lsn()")
        case $m in pg_w*) grep -qx done "$BENCH_DIR/last.out" || {
            echo "job did not end in 'done':" >&2; cat "$BENCH_DIR/last.out" >&2; exit 1; } ;; esac
        n=$(bval "SELECT count(*) FROM usertable")
        [ "$n" = "$N" ] || { echo "$m loaded $n rows, not $N" >&2; exit 1; }
        S[$m]="${S[$m]:-} $(awk -v ms="$ms" 'BEGIN{printf "%.2f", ms / 1000}')"
        XID[$m]="${XID[$m]:-} $((x1 - x0 - 1))"    # minus the second txid_current() itself
        WAL[$m]="${WAL[$m]:-} $(bval "SELECT pg_wal_lsn_diff('$w1', '$w0')")"
        HEAP[$m]=$(heap_bytes); IDX[$m]=$(index_bytes)
        log "rep $r $m: $ms ms, XIDs $((x1 - x0 - 1)), WAL $(bval "SELECT pg_size_pretty(pg_wal_lsn_diff('$w1', '$w0'))")"
    done
done

# --- a worker's peak memory ----------------------------------------------
# Start a 1-worker job of $1 rows and sample its worker's /proc status until
# the job ends; prints "VmHWM_kB RssAnon_kB seconds".
rss_run() {
    local rows=$1 job pid hwm=0 anon=0 v a t0 t1 st
    reset_table
    t0=$(date +%s.%N)
    job=$(bval "SELECT petagen.start($rows, workers => 1, keys => 'ordered', method => 'chunk')")
    while :; do
        for pid in $(bval "SELECT pid FROM pg_stat_activity WHERE backend_type = 'petagen worker'"); do
            v=$(awk '/^VmHWM:/{print $2}' "/proc/$pid/status" 2>/dev/null || true)
            a=$(awk '/^RssAnon:/{print $2}' "/proc/$pid/status" 2>/dev/null || true)
            [ -n "$v" ] && [ "$v" -gt "$hwm" ] && hwm=$v
            [ -n "$a" ] && [ "$a" -gt "$anon" ] && anon=$a
        done
        st=$(bval "SELECT state FROM petagen.jobs WHERE job = $job")
        [ "$st" = running ] || break
        sleep 0.2
    done
    t1=$(date +%s.%N)
    [ "$st" = done ] || { echo "RSS job $job ended '$st'" >&2; exit 1; }
    echo "$hwm $anon $(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.1f", b - a}')"
}
RSS_ROWS="1000000"
if [ "${RSS_1E7:-0}" = 1 ]; then RSS_ROWS="$RSS_ROWS 10000000"; fi
declare -A RSS
for rows in $RSS_ROWS; do
    log "RSS run: $rows rows, 1 worker"
    RSS[$rows]=$(rss_run "$rows")
    log "RSS $rows: ${RSS[$rows]}"
done

# --- report --------------------------------------------------------------
fmt() { printf "%'d" "$1"; }
mb() { awk -v b="$1" 'BEGIN{printf "%.0f", b / 1048576}'; }
S_BIN=$(median ${S[copy_bin]})
mkdir -p "$RESULTS_DIR"
{
    echo "# petagen load vs COPY — $(fmt "$N") rows, keys 'ordered', PK maintained, $REPS runs each"
    echo
    bench_env
    echo "- command: \`PG_CONFIG=$PG_CONFIG N=$N REPS=$REPS test/bench/load_vs_copy.sh\`"
    echo "- canonical usertable (8-way hash, varchar(64) PK + 10 varchar(100)); TRUNCATE + CHECKPOINT before each load; methods interleaved; medians; one untimed warm-up load first"
    echo "- raw sequential write, \`dd if=/dev/zero of=<data dir fs> bs=1M count=2048 oflag=direct\`: ${DD[*]} MB/s, median **$DD_MED MB/s**"
    echo
    echo "| method | runs (s) | median s | rows/s | heap MB | heap MB/s | % of dd | × COPY binary | XIDs/load | WAL MB/load | index MB |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|"
    for m in $METHODS; do
        s=$(median ${S[$m]})
        rps=$(awk -v n="$N" -v s="$s" 'BEGIN{printf "%.0f", n / s}')
        mbs=$(awk -v b="${HEAP[$m]}" -v s="$s" 'BEGIN{printf "%.1f", b / 1048576 / s}')
        pct=$(awk -v x="$mbs" -v d="$DD_MED" 'BEGIN{printf "%.0f%%", 100 * x / d}')
        x=$(awk -v a="$S_BIN" -v b="$s" 'BEGIN{printf "%.2f", a / b}')
        echo "| $(label "$m") | ${S[$m]# } | $s | $(fmt "$rps") | $(mb "${HEAP[$m]}") | $mbs | $pct | **$x×** | $(median ${XID[$m]}) | $(mb "$(median ${WAL[$m]})") | $(mb "${IDX[$m]}") |"
    done
    echo
    echo "Targets: 2 workers ≥ 2.0× COPY binary; 1 worker ≥ 1.3×."
    echo
    echo "A 1-worker job's peak memory (VmHWM counts the shared_buffers pages the"
    echo "worker touched; RssAnon is its private memory):"
    echo
    echo "| rows | VmHWM MB | peak RssAnon MB | job wall s |"
    echo "|---|---|---|---|"
    for rows in $RSS_ROWS; do
        read -r h a t <<<"${RSS[$rows]}"
        echo "| $(fmt "$rows") | $((h / 1024)) | $((a / 1024)) | $t |"
    done
    if [ "${RSS_1E7:-0}" != 1 ]; then echo "| 10,000,000 | (run with RSS_1E7=1) | | |"; fi
    echo
    echo "Statements:"
    echo
    echo '```sql'
    for m in $METHODS; do echo "$(stmt "$m")"; done
    echo '```'
} >"$OUT.tmp"

# --- optional profile ----------------------------------------------------
if [ "${PERF:-0}" = 1 ]; then
    prof() {   # name pid
        # own session: perf signals its workload's process group when the target exits
        setsid -w perf record -q -g -o "$BENCH_DIR/perf.$1.data" -p "$2" -- sleep "${PERF_SECONDS:-15}" \
            </dev/null >"$BENCH_DIR/perf.$1.log" 2>&1 || true
    }
    report() {
        echo
        echo "perf, $1 (${PERF_SECONDS:-15} s, self time):"
        echo
        echo '```'
        perf report -i "$BENCH_DIR/perf.$2.data" --no-children --sort dso --stdio 2>/dev/null \
            | grep -E '^ +[0-9.]+%' | head -6 || true
        echo
        perf report -i "$BENCH_DIR/perf.$2.data" --no-children --sort symbol --stdio 2>/dev/null \
            | grep -E '^ +[0-9.]+%' | head -25 || true
        echo '```'
    }
    PROWS=$((N * 5))
    log "perf: 1-worker job of $PROWS rows"
    reset_table
    job=$(bval "SELECT petagen.start($PROWS, workers => 1, keys => 'ordered', method => 'chunk')")
    sleep 2
    pid=$(bval "SELECT pid FROM pg_stat_activity WHERE backend_type = 'petagen worker' LIMIT 1")
    if [ -n "$pid" ]; then prof worker "$pid"; fi
    bval "SELECT petagen.stop($job)" >/dev/null
    bval "SELECT petagen.wait($job)" >/dev/null
    log "perf: COPY binary"
    reset_table
    ( bpsql -c "$(stmt copy_bin)" >/dev/null ) &
    q=$!
    sleep 1
    pid=$(bval "SELECT pid FROM pg_stat_activity WHERE query LIKE 'COPY usertable%' AND state = 'active' LIMIT 1")
    if [ -n "$pid" ]; then prof copy "$pid"; fi
    wait $q || true
    { report "petagen worker (1-worker job)" worker; report "COPY binary backend" copy; } >>"$OUT.tmp"
fi

mv "$OUT.tmp" "$OUT"
cat "$OUT"
