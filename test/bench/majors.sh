#!/usr/bin/env bash
# test/bench/majors.sh — the same load on each PostgreSQL major, same run.
#
#   bash test/bench/majors.sh
#   N=500000 RUNS=1 PG_MAJORS=18 bash test/bench/majors.sh
#
# For each major of PG_MAJORS (default "15 18", scripts/pg_config.sh; deps
# installed by scripts/deps.sh), builds and installs petagen into it
# (scripts/build.sh) and starts a throwaway instance (lib.sh settings, port
# 5468 + major) with the canonical usertable (petagen.create_table, 8 hash
# partitions, primary key).  Then RUNS rounds (default 3), each running every
# major once in turn (interleaved, so machine noise hits all alike):
# TRUNCATE + CHECKPOINT, petagen.start(N, workers => 2, method => 'chunk') (N default 2000000)
# and petagen.wait().  Per major: the medians of rows/s (N over the start +
# wait time) and of WAL bytes per row (insert LSN diff over N).  Markdown
# printed and written to test/bench/results/majors.md.  Data checksums are
# off on every major (18's initdb turns them on by default, 15's does not);
# BENCH_CHECKSUMS=default keeps each initdb's default.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
. "$REPO/test/bench/lib.sh"

N=${N:-2000000}
RUNS=${RUNS:-3}
PG_MAJORS=${PG_MAJORS:-15 18}
OUT=$REPO/test/bench/results/majors.md
PG_MAJORS=$PG_MAJORS bash "$REPO/scripts/deps.sh" >&2

# Point lib.sh's PG_CONFIG (and PGBIN), BENCH_DIR and BENCH_PORT at major
# $1's instance.
use_major() {
    PG_CONFIG=$(bash "$REPO/scripts/pg_config.sh" "$1")
    PGBIN=$("$PG_CONFIG" --bindir)
    BENCH_DIR=/tmp/bench-pg/majors-$1
    BENCH_PORT=$((5468 + $1))
}

# Stop every major's instance.
stop_all() {
    for m in $PG_MAJORS; do use_major "$m"; bench_stop; done
}

# One load on the current major; prints "rows/s WAL-bytes/row".
one_load() {
    local ms lsn0 wal
    bpsql -c "TRUNCATE usertable; CHECKPOINT;"
    lsn0=$(bval "SELECT pg_current_wal_insert_lsn()")
    ms=$(time_sql "SELECT petagen.start($N, workers => 2, method => 'chunk') AS job \\gset
SELECT petagen.wait(:job);")
    grep -qx done "$BENCH_DIR/last.out" || { echo "the load job did not end done" >&2; exit 1; }
    wal=$(bval "SELECT pg_current_wal_insert_lsn() - '$lsn0'::pg_lsn")
    awk -v n="$N" -v ms="$ms" -v w="$wal" 'BEGIN { printf "%.0f %.1f\n", n / (ms / 1000), w / n }'
}

declare -A rates wals version
for m in $PG_MAJORS; do
    PG_CONFIG=$(bash "$REPO/scripts/pg_config.sh" "$m") bash "$REPO/scripts/build.sh" >/dev/null
    use_major "$m"
    # Like for like: 18's initdb enables data checksums by default, 15's not.
    BENCH_INITDB_OPTS=$( [ "$m" -ge 18 ] && [ "${BENCH_CHECKSUMS:-off}" = off ] && echo --no-data-checksums || true)
    bench_start
    create_usertable >/dev/null
    version[$m]="$(bval 'SELECT version()' | cut -d, -f1 | sed 's/ on .*//'), data checksums $(bval 'SHOW data_checksums')"
done
trap stop_all EXIT
log "instances up; $RUNS rounds of $N rows on each of: $PG_MAJORS"
for i in $(seq 1 "$RUNS"); do
    for m in $PG_MAJORS; do
        use_major "$m"
        read -r rate wal < <(one_load)
        rates[$m]+="$rate "
        wals[$m]+="$wal "
        log "round $i, PostgreSQL $m: $rate rows/s, $wal WAL bytes/row"
    done
done

{
    echo "# The same load on each major ($N rows, canonical usertable, 2 workers, $RUNS interleaved rounds)"
    echo
    echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); host: $(nproc) CPUs, load average at the end: $(cut -d' ' -f1-3 /proc/loadavg); petagen commit $(git -C "$REPO" rev-parse --short HEAD)"
    echo "- settings (test/bench/lib.sh): shared_buffers 1GB, max_wal_size 8GB, checkpoint_timeout 30min, wal_level replica, synchronous_commit on, autovacuum off"
    echo
    echo "| server | rows/s (median) | WAL bytes/row (median) | rows/s per round | WAL bytes/row per round |"
    echo "|---|---|---|---|---|"
    for m in $PG_MAJORS; do
        # shellcheck disable=SC2086
        echo "| ${version[$m]} | $(median ${rates[$m]}) | $(median ${wals[$m]}) | ${rates[$m]% } | ${wals[$m]% } |"
    done
} | tee "$OUT"
