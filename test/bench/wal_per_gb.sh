#!/usr/bin/env bash
# test/bench/wal_per_gb.sh — WAL written per GB loaded, for each load mode.
#
#   test/bench/wal_per_gb.sh
#   N=10000000 PG_CONFIG=/path/to/pg15/bin/pg_config test/bench/wal_per_gb.sh
#
# Starts its own throwaway instance (lib.sh: PG_CONFIG, BENCH_DIR, BENCH_PORT
# default 5467, PETAGEN_BUILD=1) with the canonical usertable, and loads N
# rows (default 200000, keys => 'scrambled', 2 workers, method => 'chunk') once per mode,
# TRUNCATE + CHECKPOINT before each:
#   maintain      petagen.start(N)                         (wal_level replica)
#   frozen        petagen.start(N, frozen => true)
#   after         petagen.start(N, indexes => 'after')     (index builds included)
#   frozen_after  petagen.start(N, frozen => true, indexes => 'after')
# then restarts it with wal_level = minimal and loads again:
#   min_frozen_after  the same job as frozen_after: the relfilenodes are not
#                 new, so the data is WAL-logged (index builds are not)
#   min_load      BEGIN; TRUNCATE usertable; petagen.load(usertable, 0, N);
#                 COMMIT — relfilenodes new in the transaction: no WAL for
#                 the data (the files are synced at commit instead)
# Per mode: WAL bytes (insert LSN diff around the load), table size (heap +
# indexes of the leaves), WAL MB per GB loaded, all-frozen share of the
# heap pages, and the WAL of a VACUUM (FREEZE) right after (what the
# anti-wraparound autovacuum would write later).  Markdown table printed and written to
# test/bench/results/wal_per_gb.md.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

N=${N:-200000}
BENCH_PORT=${BENCH_PORT:-5467}
BENCH_DIR=${BENCH_DIR:-/tmp/bench-pg/wal_per_gb}
OUT=$RESULTS_DIR/wal_per_gb.md

# The statements of one load mode.
stmt() {
    local job="SELECT petagen.start($N, workers => 2, method => 'chunk'"
    case $1 in
    maintain)      printf '%s\n' "$job) AS job \\gset" "SELECT petagen.wait(:job);" ;;
    frozen)        printf '%s\n' "$job, frozen => true) AS job \\gset" "SELECT petagen.wait(:job);" ;;
    after)         printf '%s\n' "$job, indexes => 'after') AS job \\gset" "SELECT petagen.wait(:job);" ;;
    frozen_after|min_frozen_after)
                   printf '%s\n' "$job, frozen => true, indexes => 'after') AS job \\gset" "SELECT petagen.wait(:job);" ;;
    min_load)      printf '%s\n' "BEGIN;" "TRUNCATE usertable;" \
                       "SELECT * FROM petagen.load('usertable', 0, $N);" "COMMIT;" ;;
    esac
}

# Load with one mode; print a markdown row.
measure() {
    local mode=$1 lsn0 wal bytes frozen vac
    bpsql -c "TRUNCATE usertable; CHECKPOINT;"
    lsn0=$(bval "SELECT pg_current_wal_insert_lsn()")
    stmt "$mode" | bpsql >/dev/null
    wal=$(bval "SELECT pg_current_wal_insert_lsn() - '$lsn0'::pg_lsn")
    bytes=$(bval "SELECT sum(pg_total_relation_size(relid)) FROM pg_partition_tree('usertable') WHERE isleaf")
    frozen=$(bval "SELECT round(100 * avg(all_frozen::int), 1) FROM pg_partition_tree('usertable') t, pg_visibility_map(t.relid) WHERE t.isleaf")
    [ "$(bval 'SELECT count(*) FROM usertable')" = "$N" ] || { echo "$mode: wrong count" >&2; exit 1; }
    lsn0=$(bval "SELECT pg_current_wal_insert_lsn()")
    bpsql -c "VACUUM (FREEZE) usertable"
    vac=$(bval "SELECT pg_current_wal_insert_lsn() - '$lsn0'::pg_lsn")
    awk -v m="$mode" -v w="$wal" -v b="$bytes" -v f="$frozen" -v v="$vac" 'BEGIN {
        printf "| %s | %.1f | %.1f | %.0f | %s | %.1f |\n", m, w / 1048576, b / 1048576,
            (w / 1048576) / (b / 1073741824), f, v / 1048576 }'
}

bench_start
create_usertable
bpsql -c "CREATE EXTENSION pg_visibility"
log "instance up on port $BENCH_PORT ($BENCH_DIR); N=$N"
{
    echo "# WAL per GB loaded ($N rows, canonical usertable, 2 workers)"
    echo
    bench_env
    echo
    echo "| mode | WAL MB | table MB (heap + indexes) | WAL MB per GB loaded | heap pages all-frozen % | VACUUM (FREEZE) WAL MB |"
    echo "|---|---|---|---|---|---|"
    for mode in maintain frozen after frozen_after; do measure $mode; done
    as_owner "$PGBIN/pg_ctl" -D "$BENCH_DIR/data" -m fast -w stop >/dev/null
    cat >>"$BENCH_DIR/data/postgresql.conf" <<CONF
wal_level = minimal
max_wal_senders = 0
CONF
    as_owner "$PGBIN/pg_ctl" -D "$BENCH_DIR/data" -l "$BENCH_DIR/server.log" -w start >/dev/null
    for mode in min_frozen_after min_load; do measure $mode; done
} | tee "$OUT"
