# test/bench/lib.sh — shared helpers of the petagen benchmark scripts.
# Sourced, not run.  Starts a private throwaway PostgreSQL instance with
# bulk-load settings, runs SQL in it, times statements, takes medians.
#
# Environment (all optional):
#   PG_CONFIG   the PostgreSQL to use      (default: scripts/pg_config.sh)
#   BENCH_DIR   instance + scratch dir     (default /tmp/bench-pg/<script name>)
#   BENCH_PORT  port                       (default set by each script, 5460+)
#   PETAGEN_BUILD=1  build and install petagen into PG_CONFIG's tree first
#   BENCH_MWM   maintenance_work_mem       (default 64MB, PostgreSQL's default)
#   BENCH_INITDB_OPTS  more initdb options (e.g. --no-data-checksums)
#   PG_BULKLOAD_TGZ  the pg_bulkload source archive bench_pg_bulkload builds
#                    (default ../shared/vendor/pg_bulkload-3.1.23.tar.gz)
#   PG_BULKLOAD_BUILD=1  let it install into a server under /usr
#
# The instance is one of scripts/instance.sh, which sets PGBIN to
# PG_CONFIG's programs (as root, it is run by the `postgres` OS user).

BENCH_REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
RESULTS_DIR=$BENCH_REPO/test/bench/results
# shellcheck source=scripts/instance.sh
. "$BENCH_REPO/scripts/instance.sh"

log() { echo "[$(date +%H:%M:%S)] $*" >&2; }

# Make sure petagen is installed into the tree of PG_CONFIG (optionally build it).
bench_check_install() {
    local pgc=$PG_CONFIG
    if [ "${PETAGEN_BUILD:-0}" = 1 ]; then
        log "building petagen into $($pgc --pkglibdir)"
        make -s -C "$BENCH_REPO" PG_CONFIG="$pgc" >/dev/null
        make -s -C "$BENCH_REPO" PG_CONFIG="$pgc" install >/dev/null
    fi
    if [ ! -f "$($pgc --pkglibdir)/petagen.so" ]; then
        echo "petagen is not installed in $($pgc --pkglibdir);" \
             "run with PETAGEN_BUILD=1 or 'make install PG_CONFIG=$pgc'" >&2
        exit 1
    fi
}

# Start a fresh instance in $BENCH_DIR/data on $BENCH_PORT; stopped on exit.
bench_start() {
    bench_check_install
    rm -rf "$BENCH_DIR"
    instance_dir "$BENCH_DIR"
    {
        instance_listen_conf "$BENCH_PORT" "$BENCH_DIR"
        cat <<CONF
# bulk-load settings of the benchmark
max_worker_processes = 16
shared_buffers = 1GB
max_wal_size = 8GB
checkpoint_timeout = 30min
maintenance_work_mem = ${BENCH_MWM:-64MB}
wal_level = replica
synchronous_commit = on
# no autovacuum/analyze between runs: it would skew times, XIDs and WAL
autovacuum = off
CONF
    # shellcheck disable=SC2086
    } | instance_init "$BENCH_DIR/data" "$BENCH_DIR/initdb.log" ${BENCH_INITDB_OPTS:-}
    instance_start "$BENCH_DIR/data" "$BENCH_DIR/server.log"
    trap bench_stop EXIT
}

bench_stop() { instance_stop "$BENCH_DIR/data" 2>/dev/null || true; }

# psql into the instance; extra args passed through.
bpsql() { instance_psql "$BENCH_DIR" "$BENCH_PORT" -v ON_ERROR_STOP=1 "$@"; }

# One value from a query.
bval() { bpsql -At -c "$1"; }

# Milliseconds one statement (or the sum of several) takes, measured by psql's \timing (server
# round trip, no connection start-up).  Extra session settings in $2.
time_sql() {
    local out
    out=$(printf '%s\n\\timing on\n%s\n' "${2:-}" "$1" | bpsql -At) || {
        echo "statement failed: $1" >&2; echo "$out" >&2; exit 1; }
    echo "$out" >"$BENCH_DIR/last.out"
    echo "$out" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | awk '{t += $1} END {printf "%.3f", t}'
}

# Median of numbers given as arguments.
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END{print (NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2}'; }

# The canonical YCSB usertable (and the extension), as the demo makes it.
create_usertable() {
    bpsql <"$BENCH_REPO/scripts/demo.sql"
}

# The leaves of usertable, space-separated, in name order.
bench_leaves() {
    bval "SELECT string_agg(relid::text, ' ' ORDER BY relid::text) FROM pg_partition_tree('usertable') WHERE isleaf"
}

# Empty usertable and checkpoint: the state every measured load starts from.
reset_table() { bpsql -c "TRUNCATE usertable" -c "CHECKPOINT"; }

# Make $1 an empty directory the server writes input files into, removed
# (and the instance stopped) when the script exits.
bench_file_dir() {
    rm -rf "$1"; mkdir -p "$1"
    if [ "$(id -u)" -eq 0 ]; then chown postgres: "$1"; fi
    # shellcheck disable=SC2064
    trap "bench_stop; rm -rf '$1'" EXIT
}

# Per-leaf TRUNCATE + COPY FREEZE from the binary files <leaf>.bin in
# directory $1, one transaction per leaf, for the leaves given after it.
trunc_copy_stream() {
    local dir=$1 l
    shift
    for l in "$@"; do
        bpsql -c "BEGIN" -c "TRUNCATE $l" -c "COPY $l FROM '$dir/$l.bin' (FORMAT binary, FREEZE)" -c "COMMIT"
    done
}

# A line describing the machine and the server, for the results header.
bench_env() {
    echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); host: $(nproc) CPUs ($(awk -F': ' '/^model name/{print $2; exit}' /proc/cpuinfo)), $(free -g | awk '/^Mem:/{print $2}') GB RAM; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "- server: $(bval 'SELECT version()' | cut -d, -f1); petagen commit $(git -C "$BENCH_REPO" rev-parse --short HEAD)"
    echo "- settings: max_worker_processes 16, shared_buffers 1GB, max_wal_size 8GB, checkpoint_timeout 30min, maintenance_work_mem $(bval 'SHOW maintenance_work_mem'), wal_level $(bval 'SHOW wal_level'), synchronous_commit on, autovacuum off, work_mem $(bval 'SHOW work_mem'), jit $(bval 'SHOW jit')"
}

# Set wal_level to $1 (minimal or replica) and restart the instance.
bench_wal_level() {
    local senders=10
    if [ "$1" = minimal ]; then senders=0; fi
    bpsql -c "ALTER SYSTEM SET wal_level = $1" -c "ALTER SYSTEM SET max_wal_senders = $senders"
    instance_restart "$BENCH_DIR/data" "$BENCH_DIR/server.log"
}

# Server CPU time used so far, in microseconds: utime + stime + cutime +
# cstime (/proc/<pid>/stat) of the postmaster and of each of its live
# children.  A child that exits is reaped by the postmaster, which adds its
# time to its own cutime/cstime, so the difference of two readings counts
# every server process that ran in between, whether it lived or ended (a
# process that ends while it is read is missed: cat goes on).
server_cpu_us() {
    local pm
    pm=$(head -1 "$BENCH_DIR/data/postmaster.pid")
    { cat /proc/[0-9]*/stat 2>/dev/null || true; } | awk -v pm="$pm" -v hz="$(getconf CLK_TCK)" '
        { pid = $1; sub(/^.*\) /, "")      # after "(comm) ": $2 ppid, $12-$15 the times
          if (pid == pm || $2 == pm) t += $12 + $13 + $14 + $15 }
        END { printf "%.0f", t * 1000000 / hz }'
}

# Start sampling the wait events of the petagen workers every 0.1 s, in one
# session (a connection per sample would cost the server more CPU than a
# sample); waits_stop ends it, as does the end of the script.
waits_start() {
    rm -f "$BENCH_DIR/waits.stop"
    ( while [ ! -e "$BENCH_DIR/waits.stop" ] && kill -0 $$ 2>/dev/null; do
          echo "SELECT coalesce(wait_event_type || ':' || wait_event, 'CPU') FROM pg_stat_activity WHERE backend_type = 'petagen worker';"
          sleep 0.1
      done | bpsql -At >"$BENCH_DIR/waits.out" ) &
    WAITS_PID=$!
}

# Stop the sampler; print the six most frequent wait events with their share
# of the samples ("CPU" = no wait event).
waits_stop() {
    touch "$BENCH_DIR/waits.stop"
    wait "$WAITS_PID"
    sort "$BENCH_DIR/waits.out" | uniq -c | sort -rn |
        awk '{n[NR] = $1; e[NR] = $2; t += $1}
             END {for (i = 1; i <= NR && i <= 6; i++) printf "%s%s %.0f%%", (i > 1 ? ", " : ""), e[i], 100 * n[i] / t}'
}

# Build and install pg_bulkload into the tree of PG_CONFIG unless it is there
# (into a server under /usr, a shared package, only with PG_BULKLOAD_BUILD=1).
# The server's CFLAGS less those this compiler does not know (the wheels'
# servers were built by a newer gcc), -no-pie (their libpgcommon.a is not
# position-independent) and AWK=awk (their PGXS names gawk).
bench_pg_bulkload() {
    local pgc=$PG_CONFIG build f cflags=()
    local tgz=${PG_BULKLOAD_TGZ:-$BENCH_REPO/../shared/vendor/pg_bulkload-3.1.23.tar.gz}
    if [ -x "$PGBIN/pg_bulkload" ] && [ -f "$($pgc --sharedir)/extension/pg_bulkload.control" ]; then
        return 0
    fi
    [ -f "$tgz" ] || { echo "pg_bulkload is not installed and $tgz is missing" >&2; exit 1; }
    case $("$pgc" --pkglibdir) in /usr/*)
        if [ "${PG_BULKLOAD_BUILD:-0}" != 1 ]; then
            echo "pg_bulkload is not installed in the system's PostgreSQL ($PGBIN): point PG_CONFIG" \
                 "at a private server, or set PG_BULKLOAD_BUILD=1 to install it there" >&2
            exit 1
        fi ;;
    esac
    for f in $("$pgc" --cflags); do
        ${CC:-gcc} "$f" -E -x c /dev/null >/dev/null 2>&1 && cflags+=("$f")
    done
    build=$(mktemp -d "${TMPDIR:-/tmp}/pg_bulkload.XXXXXX")
    log "building pg_bulkload from $tgz into $($pgc --pkglibdir)"
    tar -xzf "$tgz" -C "$build" --strip-components=1
    (
        cd "$build"
        make -j"$(nproc)" USE_PGXS=1 PG_CONFIG="$pgc" CFLAGS="${cflags[*]}" LDFLAGS_EX=-no-pie \
            AWK=awk >make.log 2>&1 || { tail -30 make.log >&2; exit 1; }
        make USE_PGXS=1 PG_CONFIG="$pgc" AWK=awk install >install.log 2>&1 ||
            { tail -20 install.log >&2; exit 1; }
    ) || exit 1
    rm -rf "$build"
}

# Direct sequential write bandwidth, in MB/s, of the filesystem of the
# instance: dd of 1 GB in 1 MB O_DIRECT writes, then fsync (the ceiling's
# bandwidth, measured in the same run as the loads it is compared with).
dd_direct_mb_s() {
    local f=$BENCH_DIR/dd.direct
    dd if=/dev/zero of="$f" bs=1M count=1024 oflag=direct conv=fsync 2>&1 | tail -1 |
        awk '{for (i = 2; i <= NF; i++) if ($i == "s,") s = $(i - 1); printf "%.0f", $1 / s / 1e6}'
    rm -f "$f"
}

# The share, in percent, of the bytes of the files of the leaves of table
# $1 (default usertable) that the page cache holds (fincore(1),
# util-linux: mincore() of each file): "heap%/all%", heap = every fork and
# segment of the leaves and of their TOAST tables, all = with their
# indexes.
resident_share() {
    local data=$BENCH_DIR/data kind p f heap="" all="" table=${1:-usertable}
    for kind in heap all; do
        local files=()
        for p in $(bval "SELECT pg_relation_filepath(c.oid) FROM pg_partition_tree('$table') t
                         JOIN pg_class l ON l.oid = t.relid
                         JOIN pg_class c ON c.oid IN (l.oid, l.reltoastrelid) OR ('$kind' = 'all' AND c.oid IN
                           (SELECT indexrelid FROM pg_index WHERE indrelid IN (l.oid, l.reltoastrelid)))
                         WHERE t.isleaf"); do
            for f in "$data/$p" "$data/$p".[0-9]* "$data/$p"_*; do
                if [ -e "$f" ]; then files+=("$f"); fi
            done
        done
        printf -v "$kind" '%s' "$(fincore --bytes --noheadings --raw --output RES,SIZE "${files[@]}" |
            awk '{r += $1; s += $2} END {printf "%.1f", s ? 100 * r / s : 0}')"
    done
    echo "$heap/$all"
}
