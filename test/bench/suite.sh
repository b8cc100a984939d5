#!/usr/bin/env bash
# test/bench/suite.sh — petagen against its peers, every load mode, one run.
#
#   test/bench/suite.sh                       # the full suite (about 40 min here)
#   N=200000 REPS=1 N_BIG=400000 REPS_BIG=1 test/bench/suite.sh   # a smoke run
#   ONLY="w2_scrambled copy_bin" REPS_BIG=0 test/bench/suite.sh  # some methods, no large case
#   OUT=test/bench/results/other.md BENCH_MWM=512MB test/bench/suite.sh  # elsewhere; lib.sh settings
#   PG_CONFIG=/path/to/pg15/bin/pg_config PETAGEN_BUILD=1 test/bench/suite.sh
#
# Starts its own throwaway instance (lib.sh: PG_CONFIG, BENCH_DIR, BENCH_PORT
# default 5463, PETAGEN_BUILD=1) with the canonical usertable (8-way hash,
# varchar(64) PRIMARY KEY + 10 varchar(100)) and, REPS times, interleaved,
# TRUNCATE + CHECKPOINT before each, loads N rows with:
#   - petagen.start(method => 'chunk') with 1 and 2 workers in every key mode;
#   - petagen.start() with keys 'scrambled', frozen and/or indexes => 'after';
#   - COPY FROM a binary and a text file of the identical rows (scrambled);
#   - INSERT … SELECT * FROM petagen.rows(...);
#   - a client loader as many write them: 500-row multi-VALUES INSERT … ON CONFLICT DO
#     NOTHING statements sent by psql over a connection, one transaction
#     each (N_CLIENT rows, default N/10: at ~17k rows/s it is the slowest).
# After each load: count(*), the share of heap pages all-frozen in the
# visibility map (pg_visibility), then VACUUM (FREEZE) of the table, timed.
# Per method: median seconds, rows/s, MB/s (heap + index bytes / time),
# petagen's rate ÷ this method's (petagen = 2 workers, scrambled, plain),
# WAL bytes per row, XIDs per load, % all-frozen, VACUUM (FREEZE) seconds.
# Then the large case: N_BIG (default 1e7) scrambled rows, 2 workers, the
# primary key maintained vs built after, REPS_BIG times, with bt_index_check
# on every index after each load.  Markdown written to
# test/bench/results/suite.md.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

N=${N:-2000000}
REPS=${REPS:-3}
N_CLIENT=${N_CLIENT:-$((N / 10))}
N_BIG=${N_BIG:-10000000}
REPS_BIG=${REPS_BIG:-3}
BENCH_PORT=${BENCH_PORT:-5463}
BENCH_DIR=${BENCH_DIR:-/tmp/bench-pg/suite}
OUT=${OUT:-$RESULTS_DIR/suite.md}
BIN=$BENCH_DIR/rows.bin
TXT=$BENCH_DIR/rows.txt
SQLF=$BENCH_DIR/client.sql
REF=w2_scrambled

# Methods: name|label|rows.  petagen methods are named w<workers>_<keys>[_frozen][_after].
METHODS="
w1_ordered|petagen, 1 worker, ordered|$N
w2_ordered|petagen, 2 workers, ordered|$N
w1_scrambled|petagen, 1 worker, scrambled|$N
w2_scrambled|petagen, 2 workers, scrambled|$N
w1_ycsb|petagen, 1 worker, ycsb|$N
w2_ycsb|petagen, 2 workers, ycsb|$N
w1_go-ycsb|petagen, 1 worker, go-ycsb|$N
w2_go-ycsb|petagen, 2 workers, go-ycsb|$N
w1_scrambled_frozen|petagen, 1 worker, scrambled, frozen|$N
w2_scrambled_frozen|petagen, 2 workers, scrambled, frozen|$N
w1_scrambled_after|petagen, 1 worker, scrambled, indexes after|$N
w2_scrambled_after|petagen, 2 workers, scrambled, indexes after|$N
w2_scrambled_frozen_after|petagen, 2 workers, scrambled, frozen, indexes after|$N
copy_bin|COPY FROM file (FORMAT binary)|$N
copy_text|COPY FROM file (text)|$N
insert_rows|INSERT … SELECT * FROM petagen.rows()|$N
client500|client: 500-row INSERT … ON CONFLICT DO NOTHING|$N_CLIENT
"
# ONLY="w2_scrambled copy_bin ..." runs a subset (it must include w2_scrambled).
names() { echo "$METHODS" | awk -F'|' -v only=" ${ONLY:-} " 'NF && (only == "  " || index(only, " " $1 " ")) {print $1}'; }
field() { echo "$METHODS" | awk -F'|' -v m="$1" -v f="$2" '$1 == m {print $f}'; }

# The SQL (or the client command) of a load of $2 rows.
stmt() {
    local m=$1 n=$2 w keys opts=", method => 'chunk'"
    case $m in
    copy_bin)    echo "COPY usertable FROM '$BIN' (FORMAT binary);" ;;
    copy_text)   echo "COPY usertable FROM '$TXT';" ;;
    insert_rows) echo "INSERT INTO usertable SELECT * FROM petagen.rows(NULL::usertable, 0, $n);" ;;
    client500)   echo "\\i $SQLF" ;;
    w*)
        w=${m%%_*}; w=${w#w}
        keys=$(echo "$m" | cut -d_ -f2)
        case $m in *_frozen*) opts="$opts, frozen => true" ;; esac
        case $m in *_after*) opts="$opts, indexes => 'after'" ;; esac
        printf '%s\n' "SELECT petagen.start($n, workers => $w, keys => '$keys'$opts) AS job \\gset" \
            "SELECT petagen.wait(:job);"
        ;;
    esac
}

bench_start
create_usertable
bpsql -c "CREATE EXTENSION pg_visibility" -c "CREATE EXTENSION amcheck"
log "instance up on port $BENCH_PORT ($BENCH_DIR); N=$N REPS=$REPS N_CLIENT=$N_CLIENT N_BIG=$N_BIG REPS_BIG=$REPS_BIG"

leaves="SELECT relid FROM pg_partition_tree('usertable') WHERE isleaf"
reset_table() { bpsql -c "TRUNCATE usertable" -c "CHECKPOINT"; }
data_bytes() { bval "SELECT sum(pg_table_size(relid) + pg_indexes_size(relid)) FROM ($leaves) l"; }
frozen_pct() {
    bval "SELECT round(100.0 * sum(s.all_frozen) / greatest(sum(pg_relation_size(l.relid) / 8192), 1), 1)
          FROM ($leaves) l, pg_visibility_map_summary(l.relid) s"
}
index_count() { bval "SELECT count(*) FROM pg_index i JOIN ($leaves) l ON i.indrelid = l.relid"; }
# bt_index_check on every leaf index; prints how many passed.
amcheck_all() {
    bval "SELECT count(bt_index_check(i.indexrelid)) FROM pg_index i JOIN ($leaves) l ON i.indrelid = l.relid"
}

# --- the peers' inputs: identical rows, not timed ------------------------
log "writing COPY files and the client's SQL"
bpsql -c "COPY (SELECT * FROM petagen.rows(NULL::usertable, 0, $N)) TO '$BIN' (FORMAT binary)"
bpsql -c "COPY (SELECT * FROM petagen.rows(NULL::usertable, 0, $N)) TO '$TXT'"
bpsql -At -o "$SQLF" -c "
    SELECT 'INSERT INTO usertable VALUES '
           || string_agg(format('(%L,%L,%L,%L,%L,%L,%L,%L,%L,%L,%L)', ycsb_key, field0, field1,
                                field2, field3, field4, field5, field6, field7, field8, field9), ',')
           || ' ON CONFLICT DO NOTHING;'
    FROM (SELECT r.*, (row_number() OVER () - 1) / 500 AS batch
          FROM petagen.rows(NULL::usertable, 0, $N_CLIENT) r) b
    GROUP BY batch ORDER BY batch"

log "warm-up load (untimed)"
reset_table
bpsql -c "SELECT * FROM petagen.load('usertable', 0, $N)" >/dev/null

# --- the timed loads -----------------------------------------------------
declare -A S XID WAL BYTES FROZEN VAC
NIDX=$(index_count)
for r in $(seq 1 "$REPS"); do
    for m in $(names); do
        reset_table
        rows=$(field "$m" 3)
        x0=$(bval "SELECT txid_current()")
        w0=$(bval "SELECT pg_current_wal_insert_lsn()")
        ms=$(time_sql "$(stmt "$m" "$rows")")
        x1=$(bval "SELECT txid_current()")
        w1=$(bval "SELECT pg_current_wal_insert_lsn()")
        case $m in w*) grep -qx done "$BENCH_DIR/last.out" || {
            echo "$m: job did not end in 'done':" >&2; cat "$BENCH_DIR/last.out" >&2; exit 1; } ;; esac
        n=$(bval "SELECT count(*) FROM usertable")
        # ycsb/go-ycsb skip their (about N²/2⁶⁴) duplicate keys
        [ "$n" -le "$rows" ] && [ "$n" -ge $((rows - 2)) ] || {
            echo "$m loaded $n rows, not $rows" >&2; exit 1; }
        [ "$(index_count)" = "$NIDX" ] || { echo "$m left $(index_count) indexes, not $NIDX" >&2; exit 1; }
        S[$m]="${S[$m]:-} $(awk -v ms="$ms" 'BEGIN{printf "%.2f", ms / 1000}')"
        XID[$m]="${XID[$m]:-} $((x1 - x0 - 1))"    # minus the second txid_current() itself
        WAL[$m]="${WAL[$m]:-} $(bval "SELECT pg_wal_lsn_diff('$w1', '$w0')")"
        BYTES[$m]=$(data_bytes)
        FROZEN[$m]="${FROZEN[$m]:-} $(frozen_pct)"
        vms=$(time_sql "VACUUM (FREEZE) usertable;")
        VAC[$m]="${VAC[$m]:-} $(awk -v ms="$vms" 'BEGIN{printf "%.2f", ms / 1000}')"
        log "rep $r $m: $ms ms, XIDs $((x1 - x0 - 1)), frozen $(echo "${FROZEN[$m]}" | awk '{print $NF}')%, VACUUM (FREEZE) $vms ms"
    done
done

# --- the large case: primary key maintained vs built after ---------------
declare -A BIG CHECKED
BIGM="w2_scrambled w2_scrambled_after"
for r in $(seq 1 "$REPS_BIG"); do
    for m in $BIGM; do
        reset_table
        ms=$(time_sql "$(stmt "$m" "$N_BIG")")
        grep -qx done "$BENCH_DIR/last.out" || {
            echo "big $m: job did not end in 'done':" >&2; cat "$BENCH_DIR/last.out" >&2; exit 1; }
        n=$(bval "SELECT count(*) FROM usertable")
        [ "$n" = "$N_BIG" ] || { echo "big $m loaded $n rows, not $N_BIG" >&2; exit 1; }
        CHECKED[$m]=$(amcheck_all)
        [ "${CHECKED[$m]}" = "$NIDX" ] || { echo "big $m: bt_index_check passed on ${CHECKED[$m]} of $NIDX indexes" >&2; exit 1; }
        BIG[$m]="${BIG[$m]:-} $(awk -v ms="$ms" 'BEGIN{printf "%.2f", ms / 1000}')"
        log "big rep $r $m: $ms ms, bt_index_check ok on ${CHECKED[$m]} indexes"
    done
done

# --- report --------------------------------------------------------------
fmt() { printf "%'d" "$1"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.2f", a / b}'; }
rate() { awk -v n="$(field "$1" 3)" -v s="$(median ${S[$1]})" 'BEGIN{printf "%.0f", n / s}'; }
REF_RATE=$(rate $REF)
mkdir -p "$RESULTS_DIR"
{
    echo "# petagen benchmark suite — $(fmt "$N") rows per load, $REPS runs each, medians"
    echo
    bench_env
    echo "- command: \`PG_CONFIG=$PG_CONFIG N=$N REPS=$REPS N_CLIENT=$N_CLIENT N_BIG=$N_BIG REPS_BIG=$REPS_BIG test/bench/suite.sh\`"
    echo "- canonical usertable (8-way hash, varchar(64) PRIMARY KEY + 10 varchar(100)); TRUNCATE + CHECKPOINT before each load; methods interleaved; one untimed warm-up load first"
    echo "- peers load the identical rows (keys 'scrambled', seed 0); the client loads $(fmt "$N_CLIENT") rows (the first of them) over a unix-socket connection with psql, one transaction per 500-row statement"
    echo "- petagen ÷ this: the rows/s of petagen with 2 workers, scrambled keys, plain ($(fmt "$REF_RATE") rows/s) divided by this method's"
    echo "- all-frozen: heap pages all-frozen in the visibility map right after the load; VACUUM (FREEZE) runs after it"
    echo
    echo "| method | rows | runs (s) | median s | rows/s | MB/s | petagen ÷ this | WAL bytes/row | XIDs/load | all-frozen % | VACUUM (FREEZE) s |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|"
    for m in $(names); do
        s=$(median ${S[$m]})
        mbs=$(awk -v b="${BYTES[$m]}" -v s="$s" 'BEGIN{printf "%.1f", b / 1048576 / s}')
        wal=$(awk -v w="$(median ${WAL[$m]})" -v n="$(field "$m" 3)" 'BEGIN{printf "%.0f", w / n}')
        echo "| $(field "$m" 2) | $(fmt "$(field "$m" 3)") | ${S[$m]# } | $s | $(fmt "$(rate "$m")") | $mbs | **$(ratio "$REF_RATE" "$(rate "$m")")** | $wal | $(median ${XID[$m]}) | $(median ${FROZEN[$m]}) | $(median ${VAC[$m]}) |"
    done
    echo
    if [ -n "${VAC[w2_scrambled_frozen]:-}" ]; then
    plain_vac=$(median ${VAC[w2_scrambled]}); frozen_vac=$(median ${VAC[w2_scrambled_frozen]})
    echo "VACUUM (FREEZE) after a frozen load takes $(awk -v a="$frozen_vac" -v b="$plain_vac" 'BEGIN{printf "%.1f%%", 100 * a / b}') of its time after a plain load (2 workers, scrambled; target ≤ 10%)."
    echo
    fi
    if [ "$REPS_BIG" -gt 0 ]; then
    echo "## $(fmt "$N_BIG") rows, scrambled, 2 workers: primary key maintained vs built after ($REPS_BIG runs)"
    echo
    echo "| method | runs (s) | median s | rows/s | bt_index_check |"
    echo "|---|---|---|---|---|"
    for m in $BIGM; do
        s=$(median ${BIG[$m]})
        echo "| $(field "$m" 2) | ${BIG[$m]# } | $s | $(fmt "$(awk -v n="$N_BIG" -v s="$s" 'BEGIN{printf "%.0f", n / s}')") | ok on ${CHECKED[$m]} indexes |"
    done
    echo
    echo "Indexes after is $(ratio "$(median ${BIG[w2_scrambled]})" "$(median ${BIG[w2_scrambled_after]})")× faster end to end (target ≥ 1.5×)."
    echo
    fi
    echo "Statements (N rows; the client runs the generated file $SQLF):"
    echo
    echo '```sql'
    for m in $(names); do stmt "$m" "$N"; done
    echo '```'
} >"$OUT.tmp"
mv "$OUT.tmp" "$OUT"
cat "$OUT"
