#!/usr/bin/env bash
# test/bench/before_after.sh — load rates of two petagen revisions, same
# instance, same run: a change that should not change behaviour (such as a
# reorganisation of the code) shows its cost or its gain here.
#
#   test/bench/before_after.sh REV_A REV_B        e.g. f238b3c HEAD
#
# Builds each revision (git archive of REV into $BENCH_DIR/src-REV), starts
# one throwaway instance (lib.sh: PG_CONFIG, BENCH_DIR, BENCH_PORT default 5468),
# creates the canonical usertable and then, ROUNDS times, for each method and
# each revision in turn: installs that revision's build into PG_CONFIG's tree
# (every new backend and worker loads the installed library), TRUNCATE +
# CHECKPOINT, one timed load of N rows, count(*) checked.  Both revisions
# must share the SQL of the installed extension version (0.2 here).
#   w1    SELECT petagen.start(N, workers => 1, keys => KEYS,
#         method => 'chunk'), then wait()
#   w2    the same with 2 workers
#   load  SELECT * FROM petagen.load('usertable', 0, N, keys => KEYS)
#   leaf  w2 with method => 'leaf' instead
#   leaf_nopk  leaf into the table without its primary key (dropped before,
#         added again to the emptied table after, neither timed)
#   leaf_toast  leaf into toasttable, 8 hash leaves with a primary key and
#         two fields of 3,000 characters (fieldlength => 3000), each stored
#         out of line in two chunks: N_TOAST rows (default N / 10)
# Prints per method and revision the medians of rows/s, of the server's CPU
# time per row (lib.sh server_cpu_us: postmaster and children) and of the
# WAL written over the bytes of the loaded heaps and indexes; and B/A of the
# rates; beside them the machine's ceiling for that load, min(cores / CPU
# per row, bandwidth / bytes written per row), with the bandwidth of dd's
# 1 MB O_DIRECT writes (lib.sh dd_direct_mb_s, once per round, median) and
# the bytes the heaps, indexes and WAL took; and the share of the leaves'
# bytes in the page cache right after the load (lib.sh resident_share:
# fincore, heap/heap+indexes).  Writes test/bench/results/before_after.md
# (OUT).  The machine may be shared: the revisions alternate within each
# round, so a busy stretch hits both.
#   N (default 1000000), ROUNDS (default 3), METHODS (default "w1 w2 load leaf"),
#   N_TOAST (default N / 10)
#   WAL_LEVEL (default replica; minimal: lib.sh bench_wal_level)
#   KEYS (default ordered): the key mode of every load, e.g. scrambled
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -eq 2 ] || { echo "usage: $0 REV_A REV_B" >&2; exit 2; }
N=${N:-1000000}
ROUNDS=${ROUNDS:-3}
BENCH_PORT=${BENCH_PORT:-5468}
BENCH_DIR=${BENCH_DIR:-/tmp/bench-pg/before_after}
OUT=${OUT:-$RESULTS_DIR/before_after.md}
REVS=("$(git -C "$BENCH_REPO" rev-parse --short "$1")" "$(git -C "$BENCH_REPO" rev-parse --short "$2")")
METHODS=${METHODS:-w1 w2 load leaf}
KEYS=${KEYS:-ordered}
N_TOAST=${N_TOAST:-$((N / 10))}

# The table method $1 loads, and how many rows.
table_of() { if [ "$1" = leaf_toast ]; then echo toasttable; else echo usertable; fi; }
rows_of() { if [ "$1" = leaf_toast ]; then echo "$N_TOAST"; else echo "$N"; fi; }

# Build revision $1 in $BENCH_DIR/src-$1 (outside the instance directory).
build_rev() {
    local dir=$BENCH_DIR.src-$1
    rm -rf "$dir"; mkdir -p "$dir"
    git -C "$BENCH_REPO" archive "$1" | tar -C "$dir" -xf -
    make -s -C "$dir" PG_CONFIG="$PG_CONFIG" >/dev/null
}
install_rev() { make -s -C "$BENCH_DIR.src-$1" PG_CONFIG="$PG_CONFIG" install >/dev/null; }

stmt() {
    case $1 in
    w1)   printf '%s\n' "SELECT petagen.start($N, workers => 1, keys => '$KEYS', method => 'chunk') AS job \\gset" "SELECT petagen.wait(:job);" ;;
    w2)   printf '%s\n' "SELECT petagen.start($N, workers => 2, keys => '$KEYS', method => 'chunk') AS job \\gset" "SELECT petagen.wait(:job);" ;;
    load) echo "SELECT * FROM petagen.load('usertable', 0, $N, keys => '$KEYS');" ;;
    leaf|leaf_nopk) printf '%s\n' "SELECT petagen.start($N, workers => 2, keys => '$KEYS', method => 'leaf') AS job \\gset" "SELECT petagen.wait(:job);" ;;
    leaf_toast) printf '%s\n' "SELECT petagen.start($N_TOAST, workers => 2, \"table\" => 'toasttable', keys => '$KEYS', method => 'leaf', fieldlength => 3000) AS job \\gset" "SELECT petagen.wait(:job);" ;;
    esac
}

for rev in "${REVS[@]}"; do log "building $rev"; build_rev "$rev"; done
install_rev "${REVS[1]}"
PETAGEN_BUILD=0 bench_start
[ "${WAL_LEVEL:-replica}" = replica ] || bench_wal_level "$WAL_LEVEL"
create_usertable
case " $METHODS " in
*" leaf_toast "*) bpsql -c "SELECT petagen.create_table('toasttable', fields => 2, fieldlength => 3000)" ;;
esac
log "instance up on port $BENCH_PORT; N=$N ROUNDS=$ROUNDS KEYS=$KEYS; revisions ${REVS[*]}"

declare -A RATE CPU WAL BPR RES
DD=""
for r in $(seq 1 "$ROUNDS"); do
    DD="$DD $(dd_direct_mb_s)"
    for m in $METHODS; do
        for rev in "${REVS[@]}"; do
            install_rev "$rev"
            t=$(table_of "$m"); rows=$(rows_of "$m")
            bpsql -c "TRUNCATE $t" -c "CHECKPOINT"
            if [ "$m" = leaf_nopk ]; then bpsql -c "ALTER TABLE usertable DROP CONSTRAINT usertable_pkey"; fi
            lsn=$(bval "SELECT pg_current_wal_lsn()")
            cpu0=$(server_cpu_us)
            ms=$(time_sql "$(stmt "$m")")
            cpu1=$(server_cpu_us)
            wal=$(bval "SELECT round(pg_wal_lsn_diff(pg_current_wal_lsn(), '$lsn')
                        / sum(pg_table_size(relid) + pg_indexes_size(relid)), 3)
                        FROM pg_partition_tree('$t') WHERE isleaf")
            res=$(resident_share "$t")
            bpr=$(bval "SELECT round((pg_wal_lsn_diff(pg_current_wal_lsn(), '$lsn')
                        + sum(pg_table_size(relid) + pg_indexes_size(relid))) / $rows)
                        FROM pg_partition_tree('$t') WHERE isleaf")
            n=$(bval "SELECT count(*) FROM $t")
            [ "$n" = "$rows" ] || { echo "$rev $m loaded $n rows, not $rows" >&2; exit 1; }
            if [ "$m" = leaf_nopk ]; then
                bpsql -c "TRUNCATE usertable" -c "ALTER TABLE usertable ADD PRIMARY KEY (ycsb_key)"
            fi
            rate=$(awk -v n="$rows" -v ms="$ms" 'BEGIN{printf "%.0f", n / (ms / 1000)}')
            cpu=$(awk -v n="$rows" -v c="$((cpu1 - cpu0))" 'BEGIN{printf "%.2f", c / n}')
            RATE[$m,$rev]="${RATE[$m,$rev]:-} $rate"
            CPU[$m,$rev]="${CPU[$m,$rev]:-} $cpu"
            WAL[$m,$rev]="${WAL[$m,$rev]:-} $wal"
            BPR[$m,$rev]="${BPR[$m,$rev]:-} $bpr"
            RES[$m,$rev]="${RES[$m,$rev]:-} $res"
            log "round $r $m $rev: $ms ms, $rate rows/s, $cpu us CPU/row, WAL/(heap+index) $wal, $bpr bytes/row, page cache $res%"
        done
    done
done

# The ceiling of rows/s for CPU per row $1 (µs) and bytes per row $2.
ceiling() {
    awk -v c="$(nproc)" -v cpu="$1" -v b="$2" -v bw="$(median $DD)" \
        'BEGIN {x = c / (cpu / 1e6); y = bw * 1e6 / b; printf "%.0f", (x < y ? x : y)}'
}

{
    echo "# petagen $N-row loads ($N_TOAST rows for leaf_toast): ${REVS[0]} (A) vs ${REVS[1]} (B)"
    echo
    bench_env
    echo "- keys => '$KEYS'; $ROUNDS rounds; per round each method loads once with each revision, alternating; medians"
    echo "- dd, 1 GB in 1 MB O_DIRECT writes + fsync, once per round: $(median $DD) MB/s (runs:$DD)"
    echo "- ceiling = min($(nproc) cores / server CPU per row, dd bandwidth / bytes written per row (heaps, indexes, WAL))"
    echo "- page cache: share of the leaves' bytes resident right after the load (fincore), heap / heap + indexes"
    echo
    echo "| method | A rows/s (runs) | B rows/s (runs) | B/A | A / B server CPU µs/row | A / B ceiling rows/s | A / B WAL/(heap+index) | A / B page cache % |"
    echo "|---|---|---|---|---|---|---|---|"
    for m in $METHODS; do
        a=$(median ${RATE[$m,${REVS[0]}]}); b=$(median ${RATE[$m,${REVS[1]}]})
        ca=$(median ${CPU[$m,${REVS[0]}]}); cb=$(median ${CPU[$m,${REVS[1]}]})
        echo "| $m | $a (${RATE[$m,${REVS[0]}]# }) | $b (${RATE[$m,${REVS[1]}]# }) | $(awk -v a="$a" -v b="$b" 'BEGIN{printf "%.3f", b / a}')" \
             "| $ca / $cb" \
             "| $(ceiling "$ca" "$(median ${BPR[$m,${REVS[0]}]})") / $(ceiling "$cb" "$(median ${BPR[$m,${REVS[1]}]})")" \
             "| $(median ${WAL[$m,${REVS[0]}]}) / $(median ${WAL[$m,${REVS[1]}]})" \
             "| ${RES[$m,${REVS[0]}]# } / ${RES[$m,${REVS[1]}]# } |"
    done
} | tee "$OUT"
