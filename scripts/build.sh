#!/usr/bin/env bash
# Build petagen with PGXS, warnings as errors and scripts/ci.mk (the
# project's own build), and install it into the PostgreSQL that PG_CONFIG
# names (default: the one scripts/pg_config.sh finds),
# or under DESTDIR when it is set (scripts/test.sh: a private copy of that
# server). sudo only when that tree is not writable (Debian's is root's; the
# wheel's 18 under ~/.cache is the user's own).
set -euo pipefail
cd "$(dirname "$0")/.."

PG_CONFIG=${PG_CONFIG:-$(bash scripts/pg_config.sh)}
export PG_CONFIG

# Objects built for another server are not reused.
if [ "$(cat .build-pg-config 2>/dev/null)" != "$PG_CONFIG" ]; then
    make clean PG_CONFIG="$PG_CONFIG" >/dev/null
    echo "$PG_CONFIG" >.build-pg-config
fi
make -j"$(nproc)" -f Makefile -f scripts/ci.mk PG_CONFIG="$PG_CONFIG" PETAGEN_WERROR=1
if [ -n "${DESTDIR:-}" ]; then
    make install PG_CONFIG="$PG_CONFIG" DESTDIR="$DESTDIR"
elif [ -w "$("$PG_CONFIG" --pkglibdir)" ] && [ -w "$("$PG_CONFIG" --sharedir)/extension" ]; then
    make install PG_CONFIG="$PG_CONFIG"
else
    sudo make install PG_CONFIG="$PG_CONFIG"
fi
