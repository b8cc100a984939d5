# test/bench/lib.sh — shared helpers of the petagen benchmark scripts.
# Sourced, not run.  Starts a private throwaway PostgreSQL instance with
# bulk-load settings, runs SQL in it, times statements, takes medians.
#
# Environment (all optional):
#   PGBIN       PostgreSQL 15 bin dir      (default /usr/lib/postgresql/15/bin)
#   BENCH_DIR   instance + scratch dir     (default /tmp/bench-pg/<script name>)
#   BENCH_PORT  port                       (default set by each script, 5460+)
#   PETAGEN_BUILD=1  build and install petagen into PGBIN's tree first
#   BENCH_MWM   maintenance_work_mem       (default 64MB, PostgreSQL's default)
#   BENCH_INITDB_OPTS  more initdb options (e.g. --no-data-checksums)
#
# As root the instance is owned and run by the `postgres` OS user (initdb
# refuses root); as a normal user it runs as that user.

PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
BENCH_REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
RESULTS_DIR=$BENCH_REPO/test/bench/results

if [ "$(id -u)" -eq 0 ]; then
    as_owner() { runuser -u postgres -- "$@"; }
else
    as_owner() { "$@"; }
fi

log() { echo "[$(date +%H:%M:%S)] $*" >&2; }

# Make sure petagen is installed into the tree of PGBIN (optionally build it).
bench_check_install() {
    local pgc=$PGBIN/pg_config
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
    mkdir -p "$BENCH_DIR"
    if [ "$(id -u)" -eq 0 ]; then chown postgres: "$BENCH_DIR"; fi
    if ! as_owner test -w "$BENCH_DIR"; then
        echo "$BENCH_DIR is not writable by the instance owner" >&2; exit 1
    fi
    # shellcheck disable=SC2086
    as_owner "$PGBIN/initdb" -D "$BENCH_DIR/data" -U postgres -A trust -E UTF8 --no-sync \
        --no-locale ${BENCH_INITDB_OPTS:-} >"$BENCH_DIR/initdb.log"
    cat >>"$BENCH_DIR/data/postgresql.conf" <<CONF
port = $BENCH_PORT
listen_addresses = ''
unix_socket_directories = '$BENCH_DIR'
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
    as_owner "$PGBIN/pg_ctl" -D "$BENCH_DIR/data" -l "$BENCH_DIR/server.log" -w start >/dev/null
    trap bench_stop EXIT
}

bench_stop() {
    as_owner "$PGBIN/pg_ctl" -D "$BENCH_DIR/data" -m fast -w stop >/dev/null 2>&1 || true
}

# psql into the instance; extra args passed through.
bpsql() {
    as_owner "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$BENCH_DIR" -p "$BENCH_PORT" \
        -U postgres -d postgres "$@"
}

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

# A line describing the machine and the server, for the results header.
bench_env() {
    echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); host: $(nproc) CPUs ($(awk -F': ' '/^model name/{print $2; exit}' /proc/cpuinfo)), $(free -g | awk '/^Mem:/{print $2}') GB RAM; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "- server: $(bval 'SELECT version()' | cut -d, -f1) from \`$PGBIN\`; petagen commit $(git -C "$BENCH_REPO" rev-parse --short HEAD)"
    echo "- settings: max_worker_processes 16, shared_buffers 1GB, max_wal_size 8GB, checkpoint_timeout 30min, maintenance_work_mem $(bval 'SHOW maintenance_work_mem'), wal_level replica, synchronous_commit on, autovacuum off, work_mem $(bval 'SHOW work_mem'), jit $(bval 'SHOW jit')"
}
