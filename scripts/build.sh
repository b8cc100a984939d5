#!/usr/bin/env bash
# Build petagen with PGXS and install it into the PostgreSQL 15 tree.
set -euo pipefail
cd "$(dirname "$0")/.."

PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
export PG_CONFIG

make -j"$(nproc)" PG_CONFIG="$PG_CONFIG"
if [ "$(id -u)" -eq 0 ]; then
    make install PG_CONFIG="$PG_CONFIG"
else
    sudo make install PG_CONFIG="$PG_CONFIG"
fi
