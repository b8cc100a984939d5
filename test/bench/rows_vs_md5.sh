#!/usr/bin/env bash
# test/bench/rows_vs_md5.sh — generator speed: petagen.rows() vs md5() in SQL.
#
#   test/bench/rows_vs_md5.sh
#   PGBIN=/opt/pgE/usr/lib/postgresql/15/bin test/bench/rows_vs_md5.sh
#
# Starts its own throwaway instance (see lib.sh: PGBIN, BENCH_DIR, BENCH_PORT
# default 5460, PETAGEN_BUILD=1), creates the canonical usertable (8-way hash
# partitioned, varchar(64) PK + 10 varchar(100)) and times, REPS times each,
# interleaved, on one backend with parallel query off:
#   rows  SELECT count(*) FROM petagen.rows(NULL::usertable, 0, N)
#   rows1 the same with fieldlength => 1 (per-row overhead: key, tuplestore)
#   md5   the md5() peer below, which really computes all 11 columns
#         (count(t) over the whole-row reference: the planner cannot drop
#         any column of the subquery)
# and prints a markdown table (medians, rows/s, µs/row, ratio), also written
# to test/bench/results/rows_vs_md5.md.
#   N      rows per query (default 10000000)
#   REPS   repetitions    (default 3)
#   PERF=1 also perf-record one rows() run and list its hottest symbols
set -euo pipefail
. "$(dirname "$0")/lib.sh"

N=${N:-10000000}
REPS=${REPS:-3}
BENCH_PORT=${BENCH_PORT:-5460}
BENCH_DIR=${BENCH_DIR:-/tmp/bench-pg/rows_vs_md5}
OUT=$RESULTS_DIR/rows_vs_md5.md
SESSION="SET max_parallel_workers_per_gather = 0;"

Q_ROWS="SELECT count(*) FROM petagen.rows(NULL::usertable, 0, $N);"
Q_ROWS1="SELECT count(*) FROM petagen.rows(NULL::usertable, 0, $N, fieldlength => 1);"
# The peer: key 'user'||i and ten 100-character fields, one md5() each
# (32 hex chars repeated to 100) — the usual way of making YCSB-ish rows in SQL.
fld() { echo "left(repeat(md5(i::text || ':$1'), 4), 100) AS field$1"; }
Q_MD5="SELECT count(t) FROM (
  SELECT 'user' || i AS ycsb_key,
         $(fld 0), $(fld 1), $(fld 2), $(fld 3), $(fld 4),
         $(fld 5), $(fld 6), $(fld 7), $(fld 8), $(fld 9)
  FROM generate_series(0, $N - 1) AS i) AS t;"

bench_start
create_usertable
log "instance up on port $BENCH_PORT ($BENCH_DIR); N=$N REPS=$REPS"

temp_bytes() { bval "SELECT temp_bytes FROM pg_stat_database WHERE datname = current_database()"; }

declare -A MS TEMP
for r in $(seq 1 "$REPS"); do
    for k in rows rows1 md5; do
        case $k in rows) q=$Q_ROWS ;; rows1) q=$Q_ROWS1 ;; md5) q=$Q_MD5 ;; esac
        t0=$(temp_bytes)
        ms=$(time_sql "$q" "$SESSION")
        sleep 1    # let the ended backend's statistics arrive
        t1=$(temp_bytes)
        MS[$k]="${MS[$k]:-} $ms"
        TEMP[$k]=$((t1 - t0))
        log "rep $r $k: $ms ms, temp files $(( (t1 - t0) / 1048576 )) MB"
    done
done

med() { median ${MS[$1]}; }
rps() { awk -v n="$N" -v ms="$1" 'BEGIN{printf "%.0f", n / (ms / 1000)}'; }
usr() { awk -v n="$N" -v ms="$1" 'BEGIN{printf "%.2f", ms * 1000 / n}'; }
fmt() { printf "%'d" "$1"; }

M_ROWS=$(med rows); M_ROWS1=$(med rows1); M_MD5=$(med md5)
RATIO=$(awk -v a="$M_MD5" -v b="$M_ROWS" 'BEGIN{printf "%.2f", a / b}')
GEN_US=$(awk -v a="$M_ROWS" -v b="$M_ROWS1" -v n="$N" 'BEGIN{printf "%.2f", (a - b) * 1000 / n}')

mkdir -p "$RESULTS_DIR"
row() {   # label, key, query
    local m; m=$(med "$2")
    echo "| $1 | ${MS[$2]# } | $(awk -v m="$m" 'BEGIN{printf "%.0f", m}') | $(fmt "$(rps "$m")") | $(usr "$m") | $(( TEMP[$2] / 1048576 )) |"
}

{
    echo "# petagen.rows() vs md5() in SQL — $(fmt "$N") rows, $REPS runs each"
    echo
    bench_env
    echo "- command: \`PGBIN=$PGBIN N=$N REPS=$REPS test/bench/rows_vs_md5.sh\`"
    echo "- one backend, max_parallel_workers_per_gather = 0; runs interleaved; medians"
    echo
    echo "| query | runs (ms) | median ms | rows/s | µs/row | temp file MB |"
    echo "|---|---|---|---|---|---|"
    row "petagen.rows(NULL::usertable, 0, N)" rows
    row "petagen.rows(..., fieldlength => 1)" rows1
    row "md5() peer (below)" md5
    echo
    echo "**rows() / md5 peer: ${RATIO}×** (target ≥ 10×)."
    echo
    echo "Breakdown per row: rows() with fieldlength 1 (key + SRF/tuplestore +"
    echo "count, ~30-byte tuples) costs $(usr "$M_ROWS1") µs; the full 100-byte"
    echo "fields add $GEN_US µs (ten fields generated + 1 KB more materialized"
    echo "into the FunctionScan's tuplestore, which spills to a temp file"
    echo "beyond work_mem)."
    echo
    echo "The md5 peer:"
    echo
    echo '```sql'
    echo "$Q_MD5"
    echo '```'
} >"$OUT.tmp"

if [ "${PERF:-0}" = 1 ]; then
    log "perf: recording one rows() run"
    ( printf '%s\n%s\n' "$SESSION" "$Q_ROWS" | bpsql -At >/dev/null ) &
    qpid=$!
    pid=""
    for _ in $(seq 50); do
        pid=$(bval "SELECT pid FROM pg_stat_activity WHERE query LIKE 'SELECT count(*) FROM petagen.rows%' AND state = 'active' LIMIT 1")
        [ -n "$pid" ] && break; sleep 0.1
    done
    if [ -n "$pid" ]; then
        # own session: perf signals its workload's process group when done
        setsid -w perf record -q -g -o "$BENCH_DIR/perf.rows.data" -p "$pid" -- sleep "${PERF_SECONDS:-15}" \
            </dev/null >"$BENCH_DIR/perf.log" 2>&1 || true
    fi
    wait $qpid || true
    {
        echo
        echo "perf (${PERF_SECONDS:-15} s of one rows() backend, self time, top symbols):"
        echo
        echo '```'
        perf report -i "$BENCH_DIR/perf.rows.data" --no-children --sort symbol --stdio 2>/dev/null \
            | grep -E '^ +[0-9.]+%' | head -20 || true
        echo
        perf report -i "$BENCH_DIR/perf.rows.data" --no-children --sort dso --stdio 2>/dev/null \
            | grep -E '^ +[0-9.]+%' | head -6 || true
        echo '```'
    } >>"$OUT.tmp"
fi

mv "$OUT.tmp" "$OUT"
cat "$OUT"
