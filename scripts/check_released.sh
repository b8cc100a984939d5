#!/usr/bin/env bash
# Checks that no released SQL script changes, in a tree where the Makefile has
# built the generated ones (scripts/test.sh runs it after each build):
# - every file sql/released.sha256 records (each release's install script, its
#   update script as the Makefile generated it, its sql/objects/*/V.sql) has
#   the same bytes as when it was released;
# - no sql/objects/*/V.sql of a released V appears later unrecorded, and
#   every definition is in a directory of its object (sql/objects/<name>/);
# - every `--#include` of sql/parts and sql/updates names an existing file,
#   and those of the install script (sql/parts) the newest version of each
#   object.
# Exits non-zero naming each file at fault (docs/development.md says how to
# change an object in the next release instead).
set -euo pipefail
cd "$(dirname "$0")/.."

fail=0

# The released files, byte for byte.
if ! grep -v '^#' sql/released.sha256 | sha256sum --check --quiet --strict; then
    echo "a released SQL script changed: a released version is frozen;" \
        "write the new definition into sql/objects/<name>/<next version>.sql"
    fail=1
fi

# The released versions: those whose install script is recorded.
released=$(grep -v '^#' sql/released.sha256 | awk '{print $2}' |
    sed -n 's|^sql/petagen--\([0-9.]*\)\.sql$|\1|p')
for v in $released; do
    for f in sql/objects/*/"$v".sql; do
        [ -e "$f" ] || continue
        if ! grep -v '^#' sql/released.sha256 | awk '{print $2}' | grep -qxF "$f"; then
            echo "$f: a definition of the released version $v that it did not have"
            fail=1
        fi
    done
done

# Definitions live in a directory per object, a file per version.
for f in sql/objects/*.sql; do
    [ -e "$f" ] || continue
    echo "$f: belongs in sql/objects/$(basename "$f" .sql)/<version>.sql"
    fail=1
done

# Every include resolves; the install script includes the newest versions.
while IFS=: read -r src line; do
    f=sql/${line#--#include }
    if [ ! -f "$f" ]; then
        echo "$src: includes $f, which does not exist"
        fail=1
        continue
    fi
    case "$src" in sql/parts/*) ;; *) continue ;; esac
    newest=$(find "$(dirname "$f")" -maxdepth 1 -name '*.sql' -printf '%f\n' | sort -V | tail -n 1)
    if [ "$(basename "$f")" != "$newest" ]; then
        echo "$src: includes $f, not the newest $(dirname "$f")/$newest"
        fail=1
    fi
done < <(grep -H '^--#include ' sql/parts/*.sql sql/updates/*.sql.in)

exit "$fail"
