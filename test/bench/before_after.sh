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
#   w1    SELECT petagen.start(N, workers => 1, keys => 'ordered',
#         method => 'chunk'), then wait()
#   w2    the same with 2 workers
#   load  SELECT * FROM petagen.load('usertable', 0, N, keys => 'ordered')
#   leaf  w2 with method => 'leaf' instead
# Prints per method and revision the medians of rows/s, of the server's CPU
# time per row (lib.sh server_cpu_us: postmaster and children) and of the
# WAL written over the bytes of the loaded heaps and indexes; and B/A of the
# rates; writes test/bench/results/before_after.md.
#   N (default 1000000), ROUNDS (default 3), METHODS (default "w1 w2 load leaf")
#   WAL_LEVEL (default replica; minimal: lib.sh bench_wal_level)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -eq 2 ] || { echo "usage: $0 REV_A REV_B" >&2; exit 2; }
N=${N:-1000000}
ROUNDS=${ROUNDS:-3}
BENCH_PORT=${BENCH_PORT:-5468}
BENCH_DIR=${BENCH_DIR:-/tmp/bench-pg/before_after}
OUT=$RESULTS_DIR/before_after.md
REVS=("$(git -C "$BENCH_REPO" rev-parse --short "$1")" "$(git -C "$BENCH_REPO" rev-parse --short "$2")")
METHODS=${METHODS:-w1 w2 load leaf}

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
    w1)   printf '%s\n' "SELECT petagen.start($N, workers => 1, keys => 'ordered', method => 'chunk') AS job \\gset" "SELECT petagen.wait(:job);" ;;
    w2)   printf '%s\n' "SELECT petagen.start($N, workers => 2, keys => 'ordered', method => 'chunk') AS job \\gset" "SELECT petagen.wait(:job);" ;;
    load) echo "SELECT * FROM petagen.load('usertable', 0, $N, keys => 'ordered');" ;;
    leaf) printf '%s\n' "SELECT petagen.start($N, workers => 2, keys => 'ordered', method => 'leaf') AS job \\gset" "SELECT petagen.wait(:job);" ;;
    esac
}

for rev in "${REVS[@]}"; do log "building $rev"; build_rev "$rev"; done
install_rev "${REVS[1]}"
PETAGEN_BUILD=0 bench_start
[ "${WAL_LEVEL:-replica}" = replica ] || bench_wal_level "$WAL_LEVEL"
create_usertable
log "instance up on port $BENCH_PORT; N=$N ROUNDS=$ROUNDS; revisions ${REVS[*]}"

declare -A RATE CPU WAL
for r in $(seq 1 "$ROUNDS"); do
    for m in $METHODS; do
        for rev in "${REVS[@]}"; do
            install_rev "$rev"
            bpsql -c "TRUNCATE usertable" -c "CHECKPOINT"
            lsn=$(bval "SELECT pg_current_wal_lsn()")
            cpu0=$(server_cpu_us)
            ms=$(time_sql "$(stmt "$m")")
            cpu1=$(server_cpu_us)
            wal=$(bval "SELECT round(pg_wal_lsn_diff(pg_current_wal_lsn(), '$lsn')
                        / sum(pg_table_size(relid) + pg_indexes_size(relid)), 3)
                        FROM pg_partition_tree('usertable') WHERE isleaf")
            n=$(bval "SELECT count(*) FROM usertable")
            [ "$n" = "$N" ] || { echo "$rev $m loaded $n rows, not $N" >&2; exit 1; }
            rate=$(awk -v n="$N" -v ms="$ms" 'BEGIN{printf "%.0f", n / (ms / 1000)}')
            cpu=$(awk -v n="$N" -v c="$((cpu1 - cpu0))" 'BEGIN{printf "%.2f", c / n}')
            RATE[$m,$rev]="${RATE[$m,$rev]:-} $rate"
            CPU[$m,$rev]="${CPU[$m,$rev]:-} $cpu"
            WAL[$m,$rev]="${WAL[$m,$rev]:-} $wal"
            log "round $r $m $rev: $ms ms, $rate rows/s, $cpu us CPU/row, WAL/(heap+index) $wal"
        done
    done
done

{
    echo "# petagen $N-row loads: ${REVS[0]} (A) vs ${REVS[1]} (B)"
    echo
    bench_env
    echo "- $ROUNDS rounds; per round each method loads once with each revision, alternating; medians"
    echo
    echo "| method | A rows/s (runs) | B rows/s (runs) | B/A | A / B server CPU µs/row | A / B WAL/(heap+index) |"
    echo "|---|---|---|---|---|---|"
    for m in $METHODS; do
        a=$(median ${RATE[$m,${REVS[0]}]}); b=$(median ${RATE[$m,${REVS[1]}]})
        echo "| $m | $a (${RATE[$m,${REVS[0]}]# }) | $b (${RATE[$m,${REVS[1]}]# }) | $(awk -v a="$a" -v b="$b" 'BEGIN{printf "%.3f", b / a}')" \
             "| $(median ${CPU[$m,${REVS[0]}]}) / $(median ${CPU[$m,${REVS[1]}]})" \
             "| $(median ${WAL[$m,${REVS[0]}]}) / $(median ${WAL[$m,${REVS[1]}]}) |"
    done
} | tee "$OUT"
