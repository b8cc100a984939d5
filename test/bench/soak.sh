#!/usr/bin/env bash
# test/bench/soak.sh — unattended loads under injected faults.
#
# LOADS load jobs (chunk and leaf method in turn, each into a table of
# LEAVES hash leaves, ROWS_MIN .. ROWS_MAX rows) run at once on a primary
# with petagen preloaded and a streaming standby, while a fault drawn at
# random hits every FAULT_MIN .. FAULT_MAX seconds, up to MAX_FAULTS: a
# worker killed (SIGKILL: the server restarts) or terminated
# (pg_terminate_backend), the postmaster killed, an immediate stop, a fast
# restart, stop() + resume() of a job, a throttle set or lifted, a leaf
# locked by another session for a few seconds, the standby restarted.
# Nothing else touches the jobs: auto-resume and the supervisor must bring
# each to `done`; a job left `failed` or `interrupted` for 60 s is resumed
# by hand and counted.  Then: every job's verify() (rows lost, extra,
# duplicated), amcheck of every index with heapallindexed, pg_visibility's
# pg_check_frozen/pg_check_visible, the standby holding the same rows, and
# files that no relation uses on either server.
#
#   SEED=42 LOADS=8 LEAVES=64 ROWS_MIN=1000000 ROWS_MAX=3000000 \
#   MAX_FAULTS=60 TIME_LIMIT=3600 bash test/bench/soak.sh
#
# The seed is printed: the same seed draws the same faults at the same
# gaps (what they hit depends on the run).  Disk: about 3 kB per row
# (the primary, the standby and their WAL), 6 GB for 2e6 rows.  Writes
# test/bench/results/soak.md.  PG_CONFIG and the rest as in lib.sh.
set -euo pipefail
cd "$(dirname "$0")"
# shellcheck source=lib.sh
. ./lib.sh

BENCH_DIR=${BENCH_DIR:-/tmp/bench-pg/soak}
BENCH_PORT=${BENCH_PORT:-5471}
SEED=${SEED:-$(date +%s)}
LOADS=${LOADS:-8}
LEAVES=${LEAVES:-64}
ROWS_MIN=${ROWS_MIN:-1000000}
ROWS_MAX=${ROWS_MAX:-3000000}
FAULT_MIN=${FAULT_MIN:-3}
FAULT_MAX=${FAULT_MAX:-8}
MAX_FAULTS=${MAX_FAULTS:-60}
TIME_LIMIT=${TIME_LIMIT:-3600}
STANDBY_DIR=$BENCH_DIR/standby
STANDBY_PORT=$((BENCH_PORT + 1))
RANDOM=$SEED
FAULTS=(kill_worker term_worker kill_postmaster immediate_stop fast_restart
        stop_resume throttle lock_leaf standby_restart)
declare -A injected=()
manual_resumes=0

# pg_ctl of the primary ($1: the action, more options after it); a crash
# recovery on a busy machine can take minutes.
primary_ctl() {
    as_owner "$PGBIN/pg_ctl" -D "$BENCH_DIR/data" -l "$BENCH_DIR/server.log" -w -t 600 "$@" >/dev/null
}

# psql into the standby.
spsql() {
    as_owner "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$BENCH_DIR" -p "$STANDBY_PORT" \
        -U postgres -d postgres "$@"
}

# A query's value on the primary, or nothing while it does not answer.
try_val() { bval "$1" 2>/dev/null || true; }

# Wait until the primary answers queries again (after a restart).
wait_primary() {
    local i
    for i in $(seq 1 600); do
        [ "$(try_val 'SELECT 1')" = 1 ] && return 0
        sleep 0.5
    done
    echo "the primary did not come back" >&2
    exit 1
}

# Start the primary with petagen preloaded and a standby streaming from it.
soak_start() {
    bench_start
    bpsql -c "ALTER SYSTEM SET shared_preload_libraries = 'petagen'" \
        -c "ALTER SYSTEM SET max_worker_processes = 40" \
        -c "ALTER SYSTEM SET max_wal_senders = 10" \
        -c "ALTER SYSTEM SET autovacuum = on"
    primary_ctl restart
    as_owner "$PGBIN/pg_basebackup" -h "$BENCH_DIR" -p "$BENCH_PORT" -U postgres \
        -D "$STANDBY_DIR" -R -X stream -c fast -C -S soak_standby
    cat >>"$STANDBY_DIR/postgresql.auto.conf" <<CONF
port = $STANDBY_PORT
hot_standby = on
CONF
    as_owner "$PGBIN/pg_ctl" -D "$STANDBY_DIR" -l "$BENCH_DIR/standby.log" -w -t 600 start >/dev/null
    trap soak_stop EXIT
}

# Stop both servers.
soak_stop() {
    as_owner "$PGBIN/pg_ctl" -D "$STANDBY_DIR" -m fast -w stop >/dev/null 2>&1 || true
    bench_stop
}

# Create the tables and start the loads; their job ids in JOBS.
start_loads() {
    local i rows method
    JOBS=()
    bpsql -c "CREATE EXTENSION petagen" -c "CREATE EXTENSION amcheck" \
        -c "CREATE EXTENSION pg_visibility"
    for i in $(seq 1 "$LOADS"); do
        rows=$((ROWS_MIN + (RANDOM * 32768 + RANDOM) % (ROWS_MAX - ROWS_MIN + 1)))
        method=chunk
        [ $((i % 2)) -eq 0 ] && method=leaf
        bval "SELECT petagen.create_table('soak_$i', $LEAVES)" >/dev/null
        JOBS+=("$(bval "SELECT petagen.start($rows, workers => 2, \"table\" => 'soak_$i',
                                            method => '$method')" 2>/dev/null)")
        log "job ${JOBS[-1]}: soak_$i, $rows rows, $method method"
    done
}

# The pid of a petagen load worker, at random, or nothing.
random_worker() {
    try_val "SELECT pid FROM pg_stat_activity WHERE backend_type = 'petagen worker'
             ORDER BY random() LIMIT 1"
}

# A job that is running, at random, or nothing.
random_running_job() {
    try_val "SELECT job FROM petagen.jobs WHERE state = 'running' ORDER BY random() LIMIT 1"
}

# Log a fault: to stderr and to the list the results show.
fault_log() {
    log "$*"
    echo "- $(date +%H:%M:%S) $*" >>"$BENCH_DIR/faults.log"
}

# Inject fault $1; what it hit goes to the fault log.
inject() {
    local pid job leaf
    case $1 in
    kill_worker)
        pid=$(random_worker)
        [ -n "$pid" ] || return 0
        kill -9 "$pid" && fault_log "SIGKILL worker $pid" ;;
    term_worker)
        pid=$(random_worker)
        [ -n "$pid" ] || return 0
        try_val "SELECT pg_terminate_backend($pid)" >/dev/null
        fault_log "pg_terminate_backend($pid)" ;;
    kill_postmaster)
        pid=$(head -1 "$BENCH_DIR/data/postmaster.pid")
        local children
        children=$(pgrep -P "$pid" | tr '\n' ' ')
        kill -9 "$pid"
        # its children exit once they see it gone
        for pid in $pid $children; do
            while kill -0 "$pid" 2>/dev/null; do sleep 0.2; done
        done
        primary_ctl start
        fault_log "SIGKILL postmaster, started again" ;;
    immediate_stop)
        primary_ctl stop -m immediate
        primary_ctl start
        fault_log "immediate stop, started again" ;;
    fast_restart)
        primary_ctl restart -m fast
        fault_log "fast restart" ;;
    stop_resume)
        job=$(random_running_job)
        [ -n "$job" ] || return 0
        try_val "SELECT petagen.stop($job)" >/dev/null
        sleep 1
        try_val "SELECT petagen.resume($job)" >/dev/null
        fault_log "stop() + resume() of job $job" ;;
    throttle)
        job=$(random_running_job)
        [ -n "$job" ] || return 0
        if [ $((RANDOM % 2)) -eq 0 ]; then
            try_val "SELECT petagen.alter($job, max_rate => '5MB')" >/dev/null
            fault_log "job $job throttled to 5MB/s"
        else
            try_val "SELECT petagen.alter($job, max_rate => '0')" >/dev/null
            fault_log "job $job unthrottled"
        fi ;;
    lock_leaf)
        leaf=$(try_val "SELECT relid FROM pg_partition_tree('soak_$((RANDOM % LOADS + 1))')
                        WHERE isleaf ORDER BY random() LIMIT 1")
        [ -n "$leaf" ] || return 0
        ( bpsql -c "BEGIN" -c "LOCK TABLE $leaf IN ACCESS EXCLUSIVE MODE" \
              -c "SELECT pg_sleep(5)" -c "COMMIT" >/dev/null 2>&1 || true ) &
        fault_log "leaf $leaf locked for 5 s" ;;
    standby_restart)
        as_owner "$PGBIN/pg_ctl" -D "$STANDBY_DIR" -m immediate -w stop >/dev/null
        as_owner "$PGBIN/pg_ctl" -D "$STANDBY_DIR" -l "$BENCH_DIR/standby.log" -w -t 600 start >/dev/null
        fault_log "standby restarted (immediate)" ;;
    esac
    injected[$1]=$((${injected[$1]:-0} + 1))
}

# The number of jobs not yet done (nothing while the primary is down).
jobs_left() {
    try_val "SELECT count(*) FROM petagen.jobs WHERE state <> 'done'"
}

# Resume by hand each job that has been failed or interrupted (no live
# run) for over 60 s: auto-resume and the supervisor did not.
declare -A stuck_since=()
resume_stuck() {
    local job stuck
    stuck=" $(try_val "SELECT string_agg(job::text, ' ') FROM petagen.status()
                        WHERE job IS NOT NULL AND state IN ('failed', 'interrupted')") "
    for job in "${!stuck_since[@]}"; do
        case $stuck in *" $job "*) ;; *) unset "stuck_since[$job]" ;; esac
    done
    for job in $stuck; do
        : "${stuck_since[$job]:=$SECONDS}"
        [ $((SECONDS - stuck_since[$job])) -gt 60 ] || continue
        try_val "SELECT petagen.resume($job)" >/dev/null
        manual_resumes=$((manual_resumes + 1))
        unset "stuck_since[$job]"
        log "job $job resumed by hand"
    done
}

# Inject faults until every job is done, MAX_FAULTS were injected or
# TIME_LIMIT passed; then wait for the jobs without faults.
fault_loop() {
    local n=0 gap
    while [ "$n" -lt "$MAX_FAULTS" ] && [ "$SECONDS" -lt "$TIME_LIMIT" ]; do
        gap=$((FAULT_MIN + RANDOM % (FAULT_MAX - FAULT_MIN + 1)))
        sleep "$gap"
        wait_primary
        [ "$(jobs_left)" = 0 ] && break
        inject "${FAULTS[RANDOM % ${#FAULTS[@]}]}"
        n=$((n + 1))
        resume_stuck
    done
    try_val "SELECT petagen.alter(job, max_rate => '0') FROM petagen.jobs WHERE state <> 'done'" >/dev/null
    while [ "$(jobs_left)" != 0 ] && [ "$SECONDS" -lt "$((TIME_LIMIT + 1800))" ]; do
        sleep 5
        wait_primary
        resume_stuck
    done
}

# Wait until the standby has replayed everything the primary wrote.
standby_catch_up() {
    local lsn
    local i
    lsn=$(bval "SELECT pg_current_wal_lsn()")
    for i in $(seq 1 600); do
        [ "$(spsql -At -c "SELECT pg_last_wal_replay_lsn() >= '$lsn'" 2>/dev/null)" = t ] && return 0
        sleep 1
    done
    echo "the standby did not replay up to $lsn within 10 minutes" >&2
    exit 1
}

# The checks, as markdown rows.
final_checks() {
    local q_rows q_orphans i p s same=0
    bpsql -At -c "SELECT '| jobs done | ' || count(*) FILTER (WHERE state = 'done') || ' of ' || count(*) || ' |'
                  FROM petagen.jobs"
    bpsql -At -F $'\n' -c "SELECT '| rows expected / present | ' || sum(expected) || ' / ' || sum(present) || ' |',
                         '| rows lost (missing) / extra / duplicated | ' || sum(missing) || ' / '
                           || sum(extra) || ' / ' || sum(duplicated) || ' |',
                         '| verify() ok on every leaf | ' || bool_and(ok) || ' |'
                  FROM petagen.jobs j, LATERAL petagen.verify(j.job) v"
    bpsql -At -c "SELECT '| amcheck bt_index_check(heapallindexed) | ' || count(*) || ' indexes, '
                         || count(*) FILTER (WHERE bt_index_check(c.oid, true)::text = '') || ' passed |'
                  FROM pg_class c JOIN pg_index i ON i.indexrelid = c.oid
                  JOIN pg_class t ON t.oid = i.indrelid
                  WHERE t.relname LIKE 'soak\_%' AND c.relkind = 'i' AND c.relam = 403"
    bpsql -At -c "SELECT '| pg_check_frozen / pg_check_visible TIDs | '
                         || sum((SELECT count(*) FROM pg_check_frozen(relid))) || ' / '
                         || sum((SELECT count(*) FROM pg_check_visible(relid))) || ' |'
                  FROM petagen.jobs j, LATERAL pg_partition_tree(j.\"table\") WHERE isleaf"
    standby_catch_up
    for i in $(seq 1 "$LOADS"); do
        q_rows="SELECT count(*) || ':' || coalesce(sum(hashtext(ycsb_key)::bigint), 0) FROM soak_$i"
        p=$(bval "$q_rows")
        s=$(spsql -At -c "$q_rows")
        [ "$p" = "$s" ] && same=$((same + 1))
    done
    echo "| standby: tables with the same rows (count and key hash) | $same of $LOADS |"
    q_orphans="SELECT count(*) FROM pg_ls_dir('base/' || (SELECT oid FROM pg_database
                 WHERE datname = current_database())) f
               WHERE f ~ '^\\d+\$' AND pg_filenode_relation(0, f::oid) IS NULL"
    bpsql -c "CHECKPOINT" >/dev/null
    standby_catch_up
    spsql -c "CHECKPOINT" >/dev/null
    echo "| files no relation uses, primary / standby | $(bval "$q_orphans") / $(spsql -At -c "$q_orphans") |"
}

# The faults injected, by kind, as one markdown cell.
faults_cell() {
    local k out="" total=0
    for k in "${FAULTS[@]}"; do
        [ -n "${injected[$k]:-}" ] || continue
        out+="${out:+, }$k ${injected[$k]}"
        total=$((total + injected[$k]))
    done
    echo "$total ($out)"
}

soak_start
log "seed $SEED: $LOADS loads of $ROWS_MIN .. $ROWS_MAX rows into $LEAVES leaves each"
start_loads
fault_loop
checks=$(final_checks)
{
    echo "# Soak: unattended loads under injected faults"
    echo
    echo "\`SEED=$SEED LOADS=$LOADS LEAVES=$LEAVES ROWS_MIN=$ROWS_MIN ROWS_MAX=$ROWS_MAX" \
         "FAULT_MIN=$FAULT_MIN FAULT_MAX=$FAULT_MAX MAX_FAULTS=$MAX_FAULTS bash test/bench/soak.sh\`"
    echo
    bench_env
    echo "- for the soak: shared_preload_libraries petagen, max_worker_processes 40," \
         "autovacuum on, a streaming standby; wall time $SECONDS s"
    echo
    echo "| what | figure |"
    echo "|---|---|"
    echo "| faults injected | $(faults_cell) |"
    echo "| jobs resumed by hand | $manual_resumes |"
    echo "$checks"
    echo
    echo "The faults, in order:"
    echo
    cat "$BENCH_DIR/faults.log"
} | tee "$RESULTS_DIR/soak.md"
