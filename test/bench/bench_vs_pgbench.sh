#!/usr/bin/env bash
# test/bench/bench_vs_pgbench.sh — petagen.bench() vs pgbench, same machine, same run.
#
#   test/bench/bench_vs_pgbench.sh
#   N=20000 SECONDS_PER_RUN=2 REPS=1 test/bench/bench_vs_pgbench.sh   # a smoke run
#
# Starts its own throwaway instance (see lib.sh: PG_CONFIG, BENCH_DIR, BENCH_PORT
# default 5462, PETAGEN_BUILD=1), creates the canonical usertable, loads N
# rows once with keys => 'ordered' (so pgbench can spell a key as
# 'user' || n without calling a function), then REPS times, alternating:
#   select  petagen.bench('select', workers => 2, duration => D)
#           pgbench -n -M prepared -c 2 -j 2 -T D -f select.sql
#           select.sql:  \set s random(0, N-1)
#                        SELECT * FROM usertable WHERE ycsb_key = 'user' || :s
#   update  the same with petagen.bench('update') and
#           update.sql:  \set s random(0, N-1)
#                        UPDATE usertable SET field0 = <100 chars> WHERE ycsb_key = 'user' || :s
# Both sides pick keys uniformly and run one statement per transaction.
# (petagen updates a random field, pgbench field0.)
# petagen.bench() queries the leaf partition that holds the key directly;
# pgbench goes through the partitioned table (run-time pruning of a generic
# plan), as a client would.  Medians of TPS and p99; ratio bench/pgbench.
# Then, REPS times, alternating, the client path at CLIENTS sessions:
#   petagen.bench('select', workers => 2, clients => CLIENTS, duration => D)
#   pgbench -n -M prepared -c CLIENTS -j 2 -T D -f select.sql
# both through libpq sessions over the instance's Unix-domain socket, each
# a backend of its own, prepared statements on both sides (pgbench -S's
# transaction, on usertable).
# Then a select sweep at 1, 2, 4 and 8 workers (D seconds each), whose
# charts (TPS and latency percentiles vs workers) go to docs/ for docs/performance.md.
# Results: test/bench/results/bench_vs_pgbench.md.
#   N                rows        (default 1000000)
#   SECONDS_PER_RUN  duration    (default 10)
#   REPS             repetitions (default 3)
#   CLIENTS          client sessions of the client-path runs (default 64)
#   CLIENT_PATH_ONLY=1  only the client-path runs, results in
#                    test/bench/results/bench_vs_pgbench_clients.md
set -euo pipefail
. "$(dirname "$0")/lib.sh"

N=${N:-1000000}
D=${SECONDS_PER_RUN:-10}
REPS=${REPS:-3}
CLIENTS=${CLIENTS:-64}
BENCH_PORT=${BENCH_PORT:-5462}
BENCH_DIR=${BENCH_DIR:-/tmp/bench-pg/bench_vs_pgbench}
OUT=$RESULTS_DIR/bench_vs_pgbench.md
# CLIENT_PATH_ONLY=1: only the client-path comparison, into its own file
CLIENT_PATH_ONLY=${CLIENT_PATH_ONLY:-0}
[ "$CLIENT_PATH_ONLY" = 1 ] && OUT=$RESULTS_DIR/bench_vs_pgbench_clients.md

bench_start
create_usertable
log "instance up on port $BENCH_PORT ($BENCH_DIR); N=$N D=${D}s REPS=$REPS"
job=$(bval "SELECT petagen.start($N, workers => 2, keys => 'ordered')")
[ "$(bval "SELECT petagen.wait($job)")" = done ] || { echo "load failed" >&2; exit 1; }
bpsql -c "VACUUM ANALYZE usertable" -c "CHECKPOINT"

as_owner tee "$BENCH_DIR/select.sql" >/dev/null <<SQL
\\set s random(0, $((N - 1)))
SELECT * FROM usertable WHERE ycsb_key = 'user' || :s;
SQL
as_owner tee "$BENCH_DIR/update.sql" >/dev/null <<SQL
\\set s random(0, $((N - 1)))
\\set f random(0, 9)
UPDATE usertable SET field0 = repeat(md5(:s::text || :f::text), 4)::varchar(100) WHERE ycsb_key = 'user' || :s;
SQL

# TPS and p99 (µs) of petagen.bench(kind); checks errors and keys not found.
run_petagen() {
    local row
    row=$(bval "SELECT round(tps::numeric, 1), round(p99_us::numeric, 1), errors, not_found
                FROM petagen.bench('$1', workers => 2, duration => '$D s')")
    IFS='|' read -r tps p99 err nf <<<"$row"
    [ "$err" = 0 ] && [ "$nf" = 0 ] || { echo "petagen.bench($1): $err errors, $nf not found" >&2; exit 1; }
    echo "$tps $p99"
}

# TPS and p99 (µs) of petagen.bench('select') through $1 client sessions.
run_petagen_clients() {
    local row
    row=$(bval "SELECT round(tps::numeric, 1), round(p99_us::numeric, 1), errors, not_found
                FROM petagen.bench('select', workers => 2, clients => $1, duration => '$D s')")
    IFS='|' read -r tps p99 err nf <<<"$row"
    [ "$err" = 0 ] && [ "$nf" = 0 ] || { echo "petagen.bench(select, clients => $1): $err errors, $nf not found" >&2; exit 1; }
    echo "$tps $p99"
}

# TPS and p99 (µs) of pgbench with script $1, $2 clients (default 2).
run_pgbench() {
    local log=$BENCH_DIR/pgbench.out tps p99
    rm -f "$BENCH_DIR"/pgbench_log.*
    as_owner bash -c "cd '$BENCH_DIR' && '$PGBIN/pgbench' -n -M prepared -c ${2:-2} -j 2 -T $D -l \
        -h '$BENCH_DIR' -p $BENCH_PORT -U postgres -f '$BENCH_DIR/$1.sql' postgres" >"$log" 2>&1 ||
        { cat "$log" >&2; exit 1; }
    tps=$(sed -n 's/^tps = \([0-9.]*\) .*/\1/p' "$log" | awk '{printf "%.1f", $1}')
    # per-transaction log: field 3 is the latency in µs
    p99=$(cat "$BENCH_DIR"/pgbench_log.* | awk '{print $3}' | sort -n |
        awk '{a[NR]=$1} END{i=int(NR*0.99); if (i<1) i=1; print a[i]}')
    echo "$tps $p99"
}

declare -A TPS P99
if [ "$CLIENT_PATH_ONLY" != 1 ]; then
    for r in $(seq 1 "$REPS"); do
        for kind in select update; do
            read -r t p <<<"$(run_petagen "$kind")"
            TPS[petagen_$kind]="${TPS[petagen_$kind]:-} $t"; P99[petagen_$kind]="${P99[petagen_$kind]:-} $p"
            log "rep $r petagen.bench $kind: $t TPS, p99 $p µs"
            read -r t p <<<"$(run_pgbench "$kind")"
            TPS[pgbench_$kind]="${TPS[pgbench_$kind]:-} $t"; P99[pgbench_$kind]="${P99[pgbench_$kind]:-} $p"
            log "rep $r pgbench $kind: $t TPS, p99 $p µs"
        done
    done

    {
        echo "# petagen.bench() vs pgbench"
        echo
        bench_env
        echo "- command: \`PG_CONFIG=$PG_CONFIG N=$N SECONDS_PER_RUN=$D REPS=$REPS test/bench/bench_vs_pgbench.sh\`"
        echo "- $N rows (keys ordered), 2 workers / 2 clients, ${D} s per run, $REPS repetitions, medians; uniform keys; pgbench -n -M prepared -c 2 -j 2"
        echo
        echo "| kind | petagen.bench TPS | pgbench TPS | ratio | petagen p99 µs | pgbench p99 µs |"
        echo "|---|---|---|---|---|---|"
        for kind in select update; do
            # shellcheck disable=SC2086
            a=$(median ${TPS[petagen_$kind]}); b=$(median ${TPS[pgbench_$kind]})
            # shellcheck disable=SC2086
            echo "| $kind | $a | $b | $(awk -v a="$a" -v b="$b" 'BEGIN{printf "%.2f", a / b}') | $(median ${P99[petagen_$kind]}) | $(median ${P99[pgbench_$kind]}) |"
        done
        echo
        echo "Runs (TPS):"
        echo
        for k in petagen_select pgbench_select petagen_update pgbench_update; do echo "- $k:${TPS[$k]}"; done
    } | tee "$OUT"
else
    {
        echo "# petagen.bench(clients => $CLIENTS) vs pgbench -c $CLIENTS"
        echo
        bench_env
        echo "- command: \`PG_CONFIG=$PG_CONFIG N=$N SECONDS_PER_RUN=$D REPS=$REPS CLIENTS=$CLIENTS CLIENT_PATH_ONLY=1 test/bench/bench_vs_pgbench.sh\`"
        echo "- $N rows (keys ordered), uniform keys"
    } | tee "$OUT"
fi

# --- the client path: CLIENTS sessions each side -------------------------
for r in $(seq 1 "$REPS"); do
    read -r t p <<<"$(run_petagen_clients "$CLIENTS")"
    TPS[petagen_clients]="${TPS[petagen_clients]:-} $t"; P99[petagen_clients]="${P99[petagen_clients]:-} $p"
    log "rep $r petagen.bench select clients => $CLIENTS: $t TPS, p99 $p µs"
    read -r t p <<<"$(run_pgbench select "$CLIENTS")"
    TPS[pgbench_clients]="${TPS[pgbench_clients]:-} $t"; P99[pgbench_clients]="${P99[pgbench_clients]:-} $p"
    log "rep $r pgbench select -c $CLIENTS: $t TPS, p99 $p µs"
done
{
    echo
    echo "Client path: $CLIENTS libpq sessions each side, select, ${D} s per run, $REPS repetitions, medians;"
    echo "petagen.bench('select', workers => 2, clients => $CLIENTS) vs pgbench -n -M prepared -c $CLIENTS -j 2 (same transaction as pgbench -S, on usertable):"
    echo
    echo "| kind | petagen.bench clients TPS | pgbench TPS | ratio | petagen p99 µs | pgbench p99 µs |"
    echo "|---|---|---|---|---|---|"
    # shellcheck disable=SC2086
    a=$(median ${TPS[petagen_clients]}); b=$(median ${TPS[pgbench_clients]})
    # shellcheck disable=SC2086
    echo "| select, $CLIENTS clients | $a | $b | $(awk -v a="$a" -v b="$b" 'BEGIN{printf "%.2f", a / b}') | $(median ${P99[petagen_clients]}) | $(median ${P99[pgbench_clients]}) |"
    echo
    echo "Runs (TPS):"
    echo
    for k in petagen_clients pgbench_clients; do echo "- $k:${TPS[$k]}"; done
} | tee -a "$OUT"

[ "$CLIENT_PATH_ONLY" = 1 ] && exit 0
# --- the select sweep and its charts -------------------------------------
log "select sweep 1, 2, 4, 8 workers"
printf '\nSelect sweep (petagen.bench_sweep, %s s per run; charts in docs/):\n\n```\n' "$D" >>"$OUT"
bpsql -c "SELECT workers, round(tps) AS tps, round(p50_us::numeric, 1) AS p50_us,
                 round(p99_us::numeric, 1) AS p99_us, errors, not_found
          FROM petagen.bench_sweep('select', workers => '{1,2,4,8}', duration => '$D s')" | tee -a "$OUT"
echo '```' >>"$OUT"
sweep=$(bval "SELECT max(sweep) FROM petagen.bench_results")
mkdir -p "$BENCH_REPO/docs"
bval "SELECT petagen.chart_sweep($sweep)" >"$BENCH_REPO/docs/bench_select_tps.svg"
bval "SELECT petagen.chart_sweep($sweep, 'latency')" >"$BENCH_REPO/docs/bench_select_latency.svg"
log "charts: docs/bench_select_tps.svg, docs/bench_select_latency.svg"
