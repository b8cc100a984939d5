#!/usr/bin/env bash
# test/bench/verify_scale.sh — verify() at the scale it loads: the key-by-key
# verify of BASELINE vs the fingerprint verify of this tree, vs the load.
#
#   test/bench/verify_scale.sh                 # 20,000,000 rows
#   N=2000000 test/bench/verify_scale.sh       # a smaller table
#
# Starts its own throwaway instance (lib.sh: PG_CONFIG, BENCH_DIR, BENCH_PORT
# default 5464), creates the canonical usertable (8-way hash partitioned,
# varchar(64) PRIMARY KEY + 10 varchar(100)) and loads N rows with
#   petagen.start(N, workers => WORKERS, frozen => true, indexes => 'after')
# (timed: start + wait).  Then, REPS times each, interleaved, every run in a
# new session:
#   old   petagen.verify(job) of BASELINE (default: the last commit before
#         the fingerprint verify), built from `git archive` and installed
#         into PG_CONFIG's tree — one index probe per key
#   new   petagen.verify(job) of this tree — a fingerprint per leaf
# Both must report every leaf ok with N keys present.  This tree is
# installed again at the end.  Prints the medians, the speed-up and the
# ratio to the load; writes test/bench/results/verify_scale.md.
#   N        rows (default 20000000)
#   REPS     repetitions of each verify (default 3)
#   WORKERS  load workers (default 2)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

N=${N:-20000000}
REPS=${REPS:-3}
WORKERS=${WORKERS:-2}
BASELINE=${BASELINE:-f238b3c}
BENCH_PORT=${BENCH_PORT:-5464}
BENCH_DIR=${BENCH_DIR:-/tmp/bench-pg/verify_scale}
OUT=$RESULTS_DIR/verify_scale.md

# Build and install a source tree into PG_CONFIG's PostgreSQL.
install_tree() {
    PG_CONFIG=$PG_CONFIG bash "$1/scripts/build.sh" >"$BENCH_DIR.build.log" 2>&1 || {
        echo "build of $1 failed:" >&2; tail -20 "$BENCH_DIR.build.log" >&2; exit 1; }
}

install_tree "$BENCH_REPO"
bench_start
create_usertable
log "instance up on port $BENCH_PORT ($BENCH_DIR); N=$N REPS=$REPS WORKERS=$WORKERS"

OLD_TREE=$BENCH_DIR/baseline
mkdir -p "$OLD_TREE"
git -C "$BENCH_REPO" archive "$BASELINE" | tar -x -C "$OLD_TREE"

log "loading $N rows, $WORKERS workers, frozen, indexes after"
LOAD_MS=$(time_sql "$(printf '%s\n' \
    "SELECT petagen.start($N, workers => $WORKERS, frozen => true, indexes => 'after') AS job \\gset" \
    "SELECT petagen.wait(:job);")")
grep -qx done "$BENCH_DIR/last.out" || { echo "load did not end in 'done'" >&2; cat "$BENCH_DIR/last.out" >&2; exit 1; }
JOB=$(bval "SELECT max(job) FROM petagen.jobs")
log "load: $LOAD_MS ms"

VERIFY="SELECT count(*) FILTER (WHERE ok) || '/' || count(*) || ' ' || sum(present) FROM petagen.verify($JOB::bigint);"
declare -A S
for r in $(seq 1 "$REPS"); do
    for m in old new; do
        if [ "$m" = old ]; then install_tree "$OLD_TREE"; else install_tree "$BENCH_REPO"; fi
        ms=$(time_sql "$VERIFY")
        grep -qx "8/8 $N" "$BENCH_DIR/last.out" || {
            echo "$m verify is not ok:" >&2; cat "$BENCH_DIR/last.out" >&2; exit 1; }
        S[$m]="${S[$m]:-} $ms"
        log "rep $r $m verify: $ms ms"
    done
done
install_tree "$BENCH_REPO"

OLD=$(median ${S[old]}); NEW=$(median ${S[new]})
{
    echo "# verify() at the scale it loads"
    echo
    bench_env
    echo "- table: canonical usertable, $N rows, loaded by $WORKERS workers, frozen, indexes after; old = $BASELINE"
    echo
    echo "| | median s | runs (ms) | keys/s | vs load |"
    echo "|---|---:|---|---:|---:|"
    echo "| load (start + wait) | $(awk -v m="$LOAD_MS" 'BEGIN{printf "%.1f", m/1000}') | $LOAD_MS | $(awk -v m="$LOAD_MS" -v n="$N" 'BEGIN{printf "%.0f", n/(m/1000)}') | 1.00 |"
    for m in old new; do
        med=$([ $m = old ] && echo "$OLD" || echo "$NEW")
        echo "| verify, $m | $(awk -v m="$med" 'BEGIN{printf "%.1f", m/1000}') | ${S[$m]# } | $(awk -v m="$med" -v n="$N" 'BEGIN{printf "%.0f", n/(m/1000)}') | $(awk -v m="$med" -v l="$LOAD_MS" 'BEGIN{printf "%.2f", m/l}') |"
    done
    echo
    echo "new verify: $(awk -v o="$OLD" -v n="$NEW" 'BEGIN{printf "%.1f", o/n}')x faster than old; $(awk -v l="$LOAD_MS" -v n="$NEW" 'BEGIN{printf "%.1f", l/n}')x faster than the load."
} | tee "$OUT"
