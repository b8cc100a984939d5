#!/usr/bin/env bash
# test/bench/bench_vs_goycsb.sh — petagen.bench('ycsb-a', clients => 64) vs
# go-ycsb's PostgreSQL binding at 64 threads, same machine, same table, same run.
#
#   GOYCSB=/path/to/go-ycsb test/bench/bench_vs_goycsb.sh
#   GOYCSB=… N=100000 SECONDS_PER_RUN=10 REPS=3 test/bench/bench_vs_goycsb.sh   # a short run
#
# go-ycsb is not part of petagen: build it outside the repository, e.g.
#   git clone https://github.com/pingcap/go-ycsb && cd go-ycsb
#   go build -o go-ycsb ./cmd/go-ycsb
# (keep db/pg and db/basic among the imports of cmd/go-ycsb/main.go if the
# other bindings' dependencies are in the way).
#
# Starts its own throwaway instance (see lib.sh: PG_CONFIG, BENCH_DIR,
# BENCH_PORT default 5464, PETAGEN_BUILD=1), creates the canonical
# usertable, loads N rows once with keys => 'go-ycsb' (go-ycsb's hashed
# keys, insertorder=hashed), then REPS times, alternating:
#   petagen.bench('ycsb-a', workers => 2, clients => CLIENTS, duration => D, warmup => W)
#   go-ycsb run pg -P workloads/workloada with YCSB's workload a properties
#     given explicitly (go-ycsb's bundled workloada requests keys uniformly):
#     requestdistribution=zipfian readproportion=0.5 updateproportion=0.5,
#     scan, insert and read-modify-write 0, readallfields=true,
#     recordcount=N, threadcount=CLIENTS, warmuptime=W, an operationcount
#     it never reaches (it runs until SIGINT after W + D seconds, then prints
#     its figures)
# Both sides: CLIENTS sessions of PostgreSQL's protocol, one backend each,
# prepared statements, one operation per transaction; petagen's over the
# instance's Unix-domain socket, go-ycsb's (lib/pq, which its pg binding
# gives a TCP address only) over TCP on 127.0.0.1; petagen's statements
# name the leaf of each key, go-ycsb's the partitioned table.  Throughput, p50 and p99 of every operation
# (petagen: bench_results; go-ycsb: its TOTAL line), medians; with each
# side's .hgrm of the last repetition (petagen.bench_hgrm(), go-ycsb's
# histogram.percentiles.export) in BENCH_DIR.
# Results: test/bench/results/bench_vs_goycsb.md.
#   GOYCSB           the go-ycsb binary (required)
#   N                rows        (default 1000000)
#   SECONDS_PER_RUN  measured duration (default 30)
#   WARMUP           warm-up seconds before it (default 2)
#   REPS             repetitions (default 3)
#   CLIENTS          sessions, go-ycsb's threads (default 64)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

GOYCSB=${GOYCSB:?set GOYCSB to the go-ycsb binary}
N=${N:-1000000}
D=${SECONDS_PER_RUN:-30}
W=${WARMUP:-2}
REPS=${REPS:-3}
CLIENTS=${CLIENTS:-64}
BENCH_PORT=${BENCH_PORT:-5464}
BENCH_DIR=${BENCH_DIR:-/tmp/bench-pg/bench_vs_goycsb}
OUT=$RESULTS_DIR/bench_vs_goycsb.md
[ -x "$GOYCSB" ] || { echo "GOYCSB=$GOYCSB is not an executable" >&2; exit 1; }
GOYCSB_DIR=$(cd "$(dirname "$GOYCSB")" && pwd)
WORKLOAD=$GOYCSB_DIR/workloads/workloada
[ -f "$WORKLOAD" ] || WORKLOAD=/dev/null

bench_start
# go-ycsb's pg binding connects over TCP
bpsql -c "ALTER SYSTEM SET listen_addresses = '127.0.0.1'"
instance_restart "$BENCH_DIR/data" "$BENCH_DIR/server.log"
create_usertable
log "instance up on port $BENCH_PORT ($BENCH_DIR); N=$N D=${D}s W=${W}s REPS=$REPS CLIENTS=$CLIENTS"
job=$(bval "SELECT petagen.start($N, workers => 2, keys => 'go-ycsb')")
[ "$(bval "SELECT petagen.wait($job)")" = done ] || { echo "load failed" >&2; exit 1; }
bpsql -c "VACUUM ANALYZE usertable" -c "CHECKPOINT"

# Operations/s, p50 and p99 (µs) of petagen.bench('ycsb-a') through CLIENTS sessions; its id.
run_petagen() {
    local row id
    row=$(bval "SELECT id, round(tps::numeric, 1), round(p50_us::numeric, 1), round(p99_us::numeric, 1),
                       errors, not_found
                FROM petagen.bench('ycsb-a', workers => 2, clients => $CLIENTS,
                                   duration => '$D s', warmup => '$W s')")
    IFS='|' read -r id tps p50 p99 err nf <<<"$row"
    [ "$err" = 0 ] && [ "$nf" = 0 ] || { echo "petagen.bench(ycsb-a): $err errors, $nf not found" >&2; exit 1; }
    bval "SELECT petagen.bench_hgrm($id)" >"$BENCH_DIR/petagen.hgrm"
    echo "$tps $p50 $p99"
}

# Operations/s, p50 and p99 (µs) of go-ycsb's workload a at CLIENTS threads (its TOTAL line).
run_goycsb() {
    local log=$BENCH_DIR/goycsb.out line tps p50 p99
    rm -rf "$BENCH_DIR/hgrm" && mkdir -p "$BENCH_DIR/hgrm"
    timeout -s INT $((W + D)) "$GOYCSB" run pg -P "$WORKLOAD" \
        -p requestdistribution=zipfian -p readproportion=0.5 -p updateproportion=0.5 \
        -p scanproportion=0 -p insertproportion=0 -p readmodifywriteproportion=0 \
        -p readallfields=true -p fieldcount=10 -p fieldlength=100 \
        -p recordcount="$N" -p operationcount=1000000000 -p threadcount="$CLIENTS" -p warmuptime="$W" \
        -p measurement.interval=3600 \
        -p histogram.percentiles.export=true -p histogram.percentiles.export.filepath="$BENCH_DIR/hgrm/" \
        -p pg.host=127.0.0.1 -p pg.port="$BENCH_PORT" -p pg.user=postgres -p pg.db=postgres \
        -p pg.sslmode=disable >"$log" 2>&1 || true
    line=$(grep '^TOTAL' "$log" | tail -1)
    [ -n "$line" ] || { cat "$log" >&2; echo "go-ycsb printed no TOTAL line" >&2; exit 1; }
    if grep -q '_ERROR' "$log"; then
        # operations the SIGINT cut short end as errors; any other is a failure
        log "go-ycsb errors: $(grep '_ERROR' "$log" | tail -3 | tr '\n' ' ')"
    fi
    tps=$(sed -n 's/.*OPS: \([0-9.]*\),.*/\1/p' <<<"$line")
    p50=$(sed -n 's/.*50th(us): \([0-9]*\),.*/\1/p' <<<"$line")
    p99=$(sed -n 's/.* 99th(us): \([0-9]*\),.*/\1/p' <<<"$line")
    echo "$tps $p50 $p99"
}

declare -A TPS P50 P99
for r in $(seq 1 "$REPS"); do
    for side in petagen goycsb; do
        read -r t p q <<<"$(run_$side)"
        [ -n "$q" ] || { echo "$side: no figures" >&2; exit 1; }
        TPS[$side]="${TPS[$side]:-} $t"; P50[$side]="${P50[$side]:-} $p"; P99[$side]="${P99[$side]:-} $q"
        log "rep $r $side: $t ops/s, p50 $p µs, p99 $q µs"
    done
done

{
    echo "# petagen.bench('ycsb-a', clients => $CLIENTS) vs go-ycsb (pg, $CLIENTS threads)"
    echo
    bench_env
    echo "- go-ycsb: $("$GOYCSB" --help 2>/dev/null | head -1 || true) ($(cd "$GOYCSB_DIR" && git log -1 --format='%h %cs' 2>/dev/null || echo 'built from source'))"
    echo "- command: \`PG_CONFIG=$PG_CONFIG GOYCSB=… N=$N SECONDS_PER_RUN=$D WARMUP=$W REPS=$REPS CLIENTS=$CLIENTS test/bench/bench_vs_goycsb.sh\`"
    echo "- $N rows (keys go-ycsb, usertable of 8 hash leaves), YCSB workload a (zipfian, 50% reads of all fields, 50% updates of one field), ${W} s warm-up + ${D} s measured per run, $REPS repetitions alternating, medians"
    echo "- petagen: \`bench('ycsb-a', workers => 2, clients => $CLIENTS)\` over the Unix-domain socket; go-ycsb: \`run pg\`, threadcount=$CLIENTS, the same properties given explicitly, over TCP on 127.0.0.1"
    echo
    echo "| side | ops/s | ratio | p50 µs | p99 µs |"
    echo "|---|---|---|---|---|"
    # shellcheck disable=SC2086
    b=$(median ${TPS[goycsb]})
    for side in petagen goycsb; do
        # shellcheck disable=SC2086
        a=$(median ${TPS[$side]})
        # shellcheck disable=SC2086
        echo "| $side | $a | $(awk -v a="$a" -v b="$b" 'BEGIN{printf "%.2f", a / b}') | $(median ${P50[$side]}) | $(median ${P99[$side]}) |"
    done
    echo
    echo "Runs (ops/s, p50, p99):"
    echo
    for side in petagen goycsb; do echo "- $side:${TPS[$side]} /${P50[$side]} /${P99[$side]}"; done
} | tee "$OUT"
