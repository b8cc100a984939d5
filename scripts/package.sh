#!/usr/bin/env bash
# The release packages build and work: the PGXN zip (`make dist`) holds what
# a release needs and nothing else, and the Debian package of debian/ builds
# with dpkg-buildpackage for PostgreSQL 15 and, installed into a fresh
# server, creates the extension and loads and verifies rows
# (debian/tests/smoke.sql).
#   bash scripts/package.sh [DIR]
# DIR: the source tree to build the .deb from, copied to a temp dir first
# (scripts/test.sh passes its copy of the working tree's files); default:
# the committed tree at HEAD (`git archive`). The zip is always HEAD's.
# Build dependencies (debhelper, postgresql-server-dev-all, libxxhash-dev)
# are installed with apt when missing as root; as another user, the check
# is skipped, saying which are missing.
# As root, when the Debian server has no petagen of its own, the .deb is
# installed with dpkg, tested in a throwaway cluster (pg_virtualenv, run by
# the postgres user) and purged, leaving the server as it was. Otherwise
# (another user, or a petagen already installed in the server, which the
# package must not overwrite) it is unpacked into a private copy of the
# server and tested there.
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
PG_MAJOR=15
PKG=postgresql-$PG_MAJOR-petagen
BUILD_DEPS=(debhelper postgresql-server-dev-all postgresql-server-dev-$PG_MAJOR
            postgresql-$PG_MAJOR libxxhash-dev)

work=$(mktemp -d "${TMPDIR:-/tmp}/petagen-package.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The zip `make dist` writes has META.json (valid JSON, its version the
# extension's), the build files and sources, and no VCS or test artefacts.
check_dist() {
    local zip version
    git clone -q "$src" "$work/dist"
    make -s -C "$work/dist" dist PG_CONFIG=/usr/lib/postgresql/$PG_MAJOR/bin/pg_config
    zip=$(ls "$work"/dist/petagen-*.zip)
    version=$(basename "$zip" .zip)
    version=${version#petagen-}
    python3 - "$zip" "$version" <<'EOF'
import json, sys, zipfile
zip_path, version = sys.argv[1], sys.argv[2]
top = "petagen-%s/" % version
names = zipfile.ZipFile(zip_path).namelist()
bad = [n for n in names if not n.startswith(top)]
assert not bad, "outside %s: %s" % (top, bad[:5])
rel = [n[len(top):] for n in names]
for need in ("META.json", "Makefile", "petagen.control", "sql/", "src/"):
    assert need in rel, "missing " + need
junk = [n for n in rel if n.startswith(".git/") or n.endswith((".o", ".so", ".bc"))
        or n.split("/")[0] in ("results", "tmp_check", "log", "regression.diffs")]
assert not junk, "artefacts in the zip: %s" % junk[:5]
meta = json.loads(zipfile.ZipFile(zip_path).read(top + "META.json"))
for key in ("name", "abstract", "version", "maintainer", "license", "provides", "meta-spec"):
    assert key in meta, "META.json lacks " + key
assert meta["version"] == version, "META.json version %s, zip %s" % (meta["version"], version)
assert meta["provides"]["petagen"]["version"] == version, "provides version differs"
print("== PGXN zip: %s, %d files" % (zip_path.rsplit("/", 1)[1], len(names)))
EOF
}

# The missing build dependencies, one per line.
missing_deps() {
    local p
    for p in "${BUILD_DEPS[@]}"; do
        [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)" = "install ok installed" ] ||
            echo "$p"
    done
}

# Build the .deb in the tree $1; its packages land in $1/..
build_deb() {
    (cd "$1" && DEB_BUILD_OPTIONS="nocheck noddebs parallel=$(nproc)" \
        dpkg-buildpackage -us -uc -b) >"$work/build.log" 2>&1 || {
        cat "$work/build.log"
        echo "FAILED: dpkg-buildpackage"
        return 1
    }
}

# Install the .deb $1 with dpkg, run the smoke test of the tree $2 in a
# throwaway cluster, purge the package.
test_dpkg() {
    local rc=0
    dpkg -i "$1" >/dev/null || { echo "FAILED: dpkg -i $1"; return 1; }
    (cd "$2" && debian/tests/smoke) || rc=$?
    dpkg --purge "$PKG" >/dev/null
    return "$rc"
}

# Unpack the .deb $1 into a private copy of the Debian server and run the
# smoke test of the tree $2 in a fresh cluster of it.
test_private() {
    local srv=$work/server dir pgbin data run=()
    for dir in /usr/lib/postgresql/$PG_MAJOR /usr/share/postgresql/$PG_MAJOR; do
        mkdir -p "$srv$dir"
        cp -a "$dir/." "$srv$dir/"
    done
    dpkg-deb -x "$1" "$work/deb"
    cp -a "$work/deb/usr/." "$srv/usr/"
    pgbin=$srv/usr/lib/postgresql/$PG_MAJOR/bin
    data=$work/data
    if [ "$(id -u)" -eq 0 ]; then
        chown -R postgres: "$work"
        run=(runuser -u postgres --)
    fi
    "${run[@]}" "$pgbin/initdb" -A trust -U postgres -D "$data" >"$work/initdb.log" 2>&1 || {
        cat "$work/initdb.log"
        return 1
    }
    "${run[@]}" "$pgbin/pg_ctl" -D "$data" -l "$work/server.log" -w \
        -o "-c listen_addresses='' -c unix_socket_directories='$work'" start >/dev/null
    local rc=0
    (cd "$2" && "${run[@]}" "$pgbin/psql" -X -h "$work" -U postgres -d postgres \
        -v ON_ERROR_STOP=1 -f debian/tests/smoke.sql) || rc=$?
    "${run[@]}" "$pgbin/pg_ctl" -D "$data" -m fast -w stop >/dev/null
    [ "$rc" -eq 0 ] || cat "$work/server.log"
    return "$rc"
}

start=$SECONDS
in_git=0
git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1 && in_git=1
if [ "$in_git" = 1 ]; then
    check_dist
else
    echo "== SKIPPED the PGXN zip: not a git checkout (make dist packs HEAD)"
fi

missing=$(missing_deps)
if [ -n "$missing" ]; then
    if [ "$(id -u)" -ne 0 ]; then
        echo "== SKIPPED the Debian package: missing build dependencies:" $missing
        echo "   (as root, this script installs them)"
        exit 0
    fi
    echo "== installing" $missing
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing \
        >"$work/apt.log" 2>&1 || {
        DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null &&
            DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
                $missing >"$work/apt.log" 2>&1
    } || { cat "$work/apt.log"; exit 1; }
fi

# dpkg-buildpackage writes its packages into the tree's parent directory.
tree=$work/build/petagen
mkdir -p "$tree"
if [ -n "${1:-}" ]; then
    cp -a "$1/." "$tree/"
elif [ "$in_git" = 1 ]; then
    git -C "$src" archive HEAD | tar -C "$tree" -xf -
else
    echo "FAILED: not a git checkout: name a source tree to build (bash $0 DIR)"
    exit 1
fi
build_deb "$tree"
deb=$(ls "$work"/build/${PKG}_*.deb)
echo "== built $(basename "$deb")"

pkglibdir=$(/usr/lib/postgresql/$PG_MAJOR/bin/pg_config --pkglibdir)
if [ "$(id -u)" -eq 0 ] && [ ! -e "$pkglibdir/petagen.so" ]; then
    echo "== installed with dpkg, tested in a throwaway cluster"
    test_dpkg "$deb" "$tree"
else
    echo "== unpacked into a private copy of the server, tested there"
    test_private "$deb" "$tree"
fi
echo "== package checks passed ($((SECONDS - start)) s)"
