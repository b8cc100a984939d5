#!/usr/bin/env bash
# test/bench/leaf_index_cost.sh — what the index rebuild of a leaf load
# costs: the leaf method into the canonical table with its primary key and
# without any index, interleaved.
#
#   PG_CONFIG=/path/to/pg18/bin/pg_config PETAGEN_BUILD=1 bash test/bench/leaf_index_cost.sh
#   N=2000000 ROUNDS=3 WAL_LEVEL=replica OUT=/tmp/cost.md bash test/bench/leaf_index_cost.sh
#
# A leaf load writes a leaf's heap pages, then rebuilds the leaf's indexes
# with reindex_relation(), which reads the new heap back and sorts its keys
# (leafload.c); a btree build may use parallel workers
# (max_parallel_maintenance_workers).  This script measures that rebuild
# as the difference between loads of the same N rows into the canonical
# usertable (8-way hash, varchar(64) PK + 10 varchar(100)) in three
# variants, set up before each load (not timed):
#   pk          with its primary key, the server's settings
#   pk_serial   with its primary key, max_parallel_maintenance_workers = 0
#               (ALTER SYSTEM + reload; the job's workers start after it)
#   none        the primary key dropped (ALTER TABLE … DROP CONSTRAINT;
#               ADD PRIMARY KEY again on the empty table)
# Starts its own throwaway instance (lib.sh: PG_CONFIG, BENCH_DIR, BENCH_PORT
# default 5473, PETAGEN_BUILD=1) at WAL_LEVEL (default minimal); ROUNDS
# rounds (default 3) of the three, interleaved; each load after TRUNCATE +
# CHECKPOINT (not measured) and measured to the end of a CHECKPOINT after
# it; server CPU as in load_peers.sh (server_cpu_us in lib.sh); bytes
# written: pg_total_relation_size of the leaves.  Every load is checked
# (count(*) = N).  Medians; markdown printed and written to OUT (default
# test/bench/results/leaf_index_cost.md).  About 5 minutes at the defaults.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

N=${N:-2000000}
ROUNDS=${ROUNDS:-3}
WAL_LEVEL=${WAL_LEVEL:-minimal}
BENCH_PORT=${BENCH_PORT:-5473}
BENCH_DIR=${BENCH_DIR:-/tmp/bench-pg/leaf_index_cost}
OUT=${OUT:-$RESULTS_DIR/leaf_index_cost.md}

bench_start
create_usertable
bench_wal_level "$WAL_LEVEL"
log "instance up on port $BENCH_PORT ($BENCH_DIR); wal_level $(bval 'SHOW wal_level'); N=$N ROUNDS=$ROUNDS"

# Set up variant $1: pk (the primary key, index builds as configured),
# pk_serial (the primary key, max_parallel_maintenance_workers = 0: no
# parallel workers for the index builds) or none (no index).
set_variant() {
    local par=DEFAULT
    if [ "$1" = pk_serial ]; then par=0; fi
    bpsql -c "ALTER SYSTEM SET max_parallel_maintenance_workers = $par" -c "SELECT pg_reload_conf()" >/dev/null
    bpsql -c "ALTER TABLE usertable DROP CONSTRAINT IF EXISTS usertable_pkey" >/dev/null
    if [ "$1" != none ]; then bpsql -c "ALTER TABLE usertable ADD PRIMARY KEY (ycsb_key)" >/dev/null; fi
}

# One leaf load of N rows with 2 workers; prints "seconds cpu_us_per_row MB".
run() {
    local t0 t1 c0 c1 job
    reset_table >/dev/null
    c0=$(server_cpu_us)
    t0=$(date +%s.%N)
    job=$(bval "SELECT petagen.start($N, 2, method => 'leaf', force => true)")
    [ "$(bval "SELECT petagen.wait($job)")" = "done" ] || { echo "job $job did not end done" >&2; exit 1; }
    bpsql -c "CHECKPOINT" >/dev/null
    t1=$(date +%s.%N)
    c1=$(server_cpu_us)
    [ "$(bval "SELECT count(*) FROM usertable")" = "$N" ] || { echo "job $job: wrong count" >&2; exit 1; }
    awk -v a="$t0" -v b="$t1" -v c="$((c1 - c0))" -v n="$N" -v mb="$(bval "SELECT (sum(pg_total_relation_size(relid)) / 1048576)::bigint FROM pg_partition_tree('usertable') WHERE isleaf")" \
        'BEGIN{printf "%.2f %.2f %s", b - a, c / n, mb}'
}

VARIANTS="pk pk_serial none"
declare -A S C M LABEL=([pk]="primary key (varchar(64))" [pk_serial]="primary key, \`max_parallel_maintenance_workers = 0\`" [none]="no index")
for r in $(seq "$ROUNDS"); do
    for k in $VARIANTS; do
        set_variant "$k"
        read -r s c m <<<"$(run)"
        S[$k]+="$s "; C[$k]+="$c "; M[$k]=$m
        log "round $r, $k: $s s, $c µs/row, $m MB"
    done
done
set_variant pk

# Median of the words of $1.
med() { # shellcheck disable=SC2086
    median $1; }
rate() { printf "%'d" "$(awk -v n="$N" -v s="$(med "$1")" 'BEGIN{printf "%.0f", n / s}')"; }

mkdir -p "$RESULTS_DIR" "$(dirname "$OUT")"
{
    echo "# What a leaf load's index rebuild costs — $N rows, wal_level = $WAL_LEVEL, $ROUNDS interleaved rounds, medians"
    echo
    bench_env | sed "s/wal_level replica/wal_level $WAL_LEVEL/"
    echo "- command: \`PG_CONFIG=$PG_CONFIG N=$N ROUNDS=$ROUNDS WAL_LEVEL=$WAL_LEVEL bash test/bench/leaf_index_cost.sh\`"
    echo "- \`petagen.start($N, 2, method => 'leaf')\` + \`wait()\` into the canonical usertable with its primary key (parallel index builds as configured, then none), and with no index; TRUNCATE + CHECKPOINT before (not measured), measured to the end of a CHECKPOINT after; server CPU: utime + stime of the postmaster and all its children, from /proc"
    echo
    echo "| table | runs (s) | rows/s | server CPU µs/row (runs) | median µs/row | written MB |"
    echo "|---|---|---|---|---|---|"
    for k in $VARIANTS; do
        echo "| ${LABEL[$k]} | ${S[$k]% } | $(rate "${S[$k]}") | ${C[$k]% } | $(med "${C[$k]}") | ${M[$k]} |"
    done
    echo
    for k in pk pk_serial; do
        awk -v l="${LABEL[$k]}" -v a="$(med "${C[$k]}")" -v b="$(med "${C[none]}")" -v sa="$(med "${S[$k]}")" -v sb="$(med "${S[none]}")" \
            'BEGIN{printf "- the index rebuild, %s: %.2f µs of server CPU per row (%.0f%% of the load), %.0f%% of the wall time\n", l, a - b, 100 * (a - b) / a, 100 * (sa - sb) / sa}'
    done
} >"$OUT.tmp"
mv "$OUT.tmp" "$OUT"
cat "$OUT"
