#!/usr/bin/env bash
# Writes a petagen chart, a standalone SVG document, to stdout. psql connects
# with the usual settings (PGHOST, PGPORT, PGDATABASE, PGUSER, ~/.pgpass).
#   bash scripts/chart.sh sweep ID [tps|latency] > sweep.svg
#   bash scripts/chart.sh bench ID,ID,... [tps|latency] > runs.svg
#   bash scripts/chart.sh load JOB > load.svg
#   bash scripts/chart.sh samples ID > run.svg
#   bash scripts/chart.sh matrix [ID,ID,...] > matrix.svg
#   bash scripts/chart.sh capacity ID > capacity.svg
#   bash scripts/chart.sh cluster ID > cluster.svg
# Any browser shows the files; `rsvg-convert -o x.png x.svg` makes a PNG.
set -euo pipefail

usage() {
    sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

[ $# -ge 1 ] || usage
what=$1
arg=${2:-}
metric=${3:-tps}
case $what in
    sweep) [ -n "$arg" ] || usage; sql="SELECT petagen.chart_sweep(:'arg'::bigint, :'metric')" ;;
    bench) [ -n "$arg" ] || usage; sql="SELECT petagen.chart_bench(('{' || :'arg' || '}')::bigint[], :'metric')" ;;
    load) [ -n "$arg" ] || usage; sql="SELECT petagen.chart_load(:'arg'::bigint)" ;;
    samples) [ -n "$arg" ] || usage; sql="SELECT petagen.chart_samples(:'arg'::bigint)" ;;
    capacity) [ -n "$arg" ] || usage; sql="SELECT petagen.chart_capacity(:'arg'::bigint)" ;;
    cluster) [ -n "$arg" ] || usage; sql="SELECT petagen.chart_cluster_bench(:'arg'::bigint)" ;;
    matrix) sql="SELECT petagen.chart_matrix(NULLIF('{' || :'arg' || '}', '{}')::bigint[])" ;;
    *) usage ;;
esac

# psql substitutes :'arg' (quoted as a literal) only in input it reads, not in -c.
psql -X -q -A -t -v ON_ERROR_STOP=1 -v arg="$arg" -v metric="$metric" <<<"$sql"
