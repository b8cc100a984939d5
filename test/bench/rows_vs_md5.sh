#!/usr/bin/env bash
# test/bench/rows_vs_md5.sh — generator speed: petagen.rows() vs md5() in SQL.
#
#   test/bench/rows_vs_md5.sh
#   PG_CONFIG=/path/to/pg15/bin/pg_config test/bench/rows_vs_md5.sh
#
# Starts its own throwaway instance (see lib.sh: PG_CONFIG, BENCH_DIR, BENCH_PORT
# default 5460, PETAGEN_BUILD=1), creates the canonical usertable (8-way hash
# partitioned, varchar(64) PK + 10 varchar(100)) and times, REPS times each,
# interleaved, on one backend with parallel query off, each generator into
# two sinks: count (the generator alone) and COPY (…) TO '/dev/null' (text):
#   stream the streaming form, rows() in the select list (a ProjectSet,
#          value-per-call: no tuplestore): count(r) over
#          (SELECT petagen.rows(NULL::usertable, 0, N) AS r), and
#          COPY (SELECT (petagen.rows(NULL::usertable, 0, N)).*)
#   rows   rows() in FROM (a FunctionScan, which collects every row into a
#          tuplestore first): count(*) / COPY (SELECT * FROM petagen.rows(…))
#   rows1  rows() in FROM with fieldlength => 1 (per-row overhead: key,
#          tuplestore), count sink only
#   md5    the md5() peer below, which really computes all 11 columns
#          (count(t) over the whole-row reference: the planner cannot drop
#          any column of the subquery)
# and prints a markdown table (medians, rows/s, µs/row, ratio to md5 in the
# same sink, temp file MB), also written to test/bench/results/rows_vs_md5.md.
#   N      rows per query (default 2000000)
#   REPS   repetitions    (default 3)
#   PERF=1 also perf-record one streaming run and list its hottest symbols
set -euo pipefail
. "$(dirname "$0")/lib.sh"

N=${N:-2000000}
REPS=${REPS:-3}
BENCH_PORT=${BENCH_PORT:-5460}
BENCH_DIR=${BENCH_DIR:-/tmp/bench-pg/rows_vs_md5}
OUT=$RESULTS_DIR/rows_vs_md5.md
SESSION="SET max_parallel_workers_per_gather = 0;"

ROWS="petagen.rows(NULL::usertable, 0, $N)"
Q_STREAM="SELECT count(r) FROM (SELECT $ROWS AS r) AS s;"
Q_STREAM_COPY="COPY (SELECT ($ROWS).*) TO '/dev/null';"
Q_ROWS="SELECT count(*) FROM $ROWS;"
Q_ROWS_COPY="COPY (SELECT * FROM $ROWS) TO '/dev/null';"
Q_ROWS1="SELECT count(*) FROM petagen.rows(NULL::usertable, 0, $N, fieldlength => 1);"
# The peer: key 'user'||i and ten 100-character fields, one md5() each
# (32 hex chars repeated to 100) — the usual way of making YCSB-ish rows in SQL.
fld() { echo "left(repeat(md5(i::text || ':$1'), 4), 100) AS field$1"; }
MD5_SELECT="SELECT 'user' || i AS ycsb_key,
         $(fld 0), $(fld 1), $(fld 2), $(fld 3), $(fld 4),
         $(fld 5), $(fld 6), $(fld 7), $(fld 8), $(fld 9)
  FROM generate_series(0, $N - 1) AS i"
Q_MD5="SELECT count(t) FROM (
  $MD5_SELECT) AS t;"
Q_MD5_COPY="COPY ($MD5_SELECT) TO '/dev/null';"

bench_start
create_usertable
log "instance up on port $BENCH_PORT ($BENCH_DIR); N=$N REPS=$REPS"
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)

temp_bytes() { bval "SELECT temp_bytes FROM pg_stat_database WHERE datname = current_database()"; }

declare -A MS TEMP
for r in $(seq 1 "$REPS"); do
    for k in stream rows rows1 md5 stream_copy rows_copy md5_copy; do
        case $k in
            stream) q=$Q_STREAM ;; stream_copy) q=$Q_STREAM_COPY ;;
            rows) q=$Q_ROWS ;; rows_copy) q=$Q_ROWS_COPY ;; rows1) q=$Q_ROWS1 ;;
            md5) q=$Q_MD5 ;; md5_copy) q=$Q_MD5_COPY ;;
        esac
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

M_ROWS=$(med rows); M_ROWS1=$(med rows1)
ratio() { awk -v a="$(med "$1")" -v b="$(med "$2")" 'BEGIN{printf "%.2f", a / b}'; }
GEN_US=$(awk -v a="$M_ROWS" -v b="$M_ROWS1" -v n="$N" 'BEGIN{printf "%.2f", (a - b) * 1000 / n}')
LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)

mkdir -p "$RESULTS_DIR"
row() {   # label, key, md5 key of the same sink
    local m; m=$(med "$2")
    echo "| $1 | ${MS[$2]# } | $(awk -v m="$m" 'BEGIN{printf "%.0f", m}') | $(fmt "$(rps "$m")") | $(usr "$m") | $(ratio "$3" "$2")× | $(( TEMP[$2] / 1048576 )) |"
}

{
    echo "# petagen.rows() vs md5() in SQL — $(fmt "$N") rows, $REPS runs each"
    echo
    bench_env
    echo "- command: \`PG_CONFIG=$PG_CONFIG N=$N REPS=$REPS test/bench/rows_vs_md5.sh\`"
    echo "- one backend, max_parallel_workers_per_gather = 0; runs interleaved; medians"
    echo
    echo "- load average (1/5/15 min) before the runs: $LOAD_START; after them: $LOAD_END (absolute figures vary between runs, the ratios within one interleaved run less)"
    echo
    echo "| query | runs (ms) | median ms | rows/s | µs/row | ÷ md5, same sink | temp file MB |"
    echo "|---|---|---|---|---|---|---|"
    row "streaming: \`count(r) FROM (SELECT petagen.rows(…) AS r)\`" stream md5
    row "in FROM: \`count(*) FROM petagen.rows(…)\`" rows md5
    row "in FROM, \`fieldlength => 1\`" rows1 md5
    row "md5() peer: \`count(t)\`" md5 md5
    row "streaming: \`COPY (SELECT (petagen.rows(…)).*) TO '/dev/null'\`" stream_copy md5_copy
    row "in FROM: \`COPY (SELECT * FROM petagen.rows(…)) TO '/dev/null'\`" rows_copy md5_copy
    row "md5() peer: \`COPY (…) TO '/dev/null'\`" md5_copy md5_copy
    echo
    echo "**Generator (count sink): streaming rows() / md5 peer: $(ratio md5 stream)×**"
    echo "(target ≥ 10×); rows() in FROM: $(ratio md5 rows)×. Into COPY text: streaming"
    echo "$(ratio md5_copy stream_copy)×, in FROM $(ratio md5_copy rows_copy)×."
    echo
    echo "Breakdown per row in FROM: with fieldlength 1 (key + SRF/tuplestore +"
    echo "count, ~30-byte tuples) a row costs $(usr "$M_ROWS1") µs; the full 100-byte"
    echo "fields add $GEN_US µs (ten fields generated + 1 KB more materialized"
    echo "into the FunctionScan's tuplestore, which spills to a temp file"
    echo "beyond work_mem). The streaming form writes no temp file."
    echo
    echo "The md5 peer:"
    echo
    echo '```sql'
    echo "$Q_MD5"
    echo "$Q_MD5_COPY"
    echo '```'
} >"$OUT.tmp"

if [ "${PERF:-0}" = 1 ]; then
    log "perf: recording one streaming rows() run"
    ( printf '%s\n%s\n' "$SESSION" "$Q_STREAM" | bpsql -At >/dev/null ) &
    qpid=$!
    pid=""
    for _ in $(seq 50); do
        pid=$(bval "SELECT pid FROM pg_stat_activity WHERE query LIKE 'SELECT count(r) FROM (SELECT petagen.rows%' AND state = 'active' LIMIT 1")
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
        echo "perf (${PERF_SECONDS:-15} s of one streaming rows() backend, self time, top symbols):"
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
