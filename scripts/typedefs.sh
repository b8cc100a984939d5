#!/usr/bin/env bash
# Writes typedefs.list: the type names petagen's C code uses that a typedef
# declares, in petagen's own sources or in the server headers of every
# PostgreSQL major scripts/pg_config.sh knows and that is installed (or of
# PG_CONFIG alone).  pg_bsd_indent needs the list to lay out declarations as
# pgindent does (scripts/indent.sh).  Run it after adding a type.
#   bash scripts/typedefs.sh
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -n "${PG_CONFIG:-}" ]; then
    configs=("$PG_CONFIG")
else
    configs=()
    for m in 15 16 18; do
        c=$(bash scripts/pg_config.sh "$m")
        [ -x "$c" ] && configs+=("$c")
    done
fi
dirs=(src)
for c in "${configs[@]}"; do dirs+=("$("$c" --includedir-server)"); done
names=$(mktemp)
trap 'rm -f "$names"' EXIT
# "} Name;" closing a typedef'd struct (or "Name;" alone, after an
# attribute), "typedef <type> Name;" and "typedef <ret> (*Name) (...)"
find "${dirs[@]}" -name '*.[ch]' -print0 | xargs -0 cat |
    perl -ne 'print "$1\n" if /^\}\s*(\w+)\s*;/;
        print "$1\n" if /^([A-Z]\w*)\s*;\s*$/;
        print "$1\n" if /^typedef\s+[^;(]*?\b(\w+)\s*;/;
        print "$1\n" if /^typedef\s[^;]*?\(\s*\*\s*(\w+)\s*\)/;' |
    sort -u >"$names"
grep -ohwE '[A-Za-z_][A-Za-z0-9_]*' src/*.[ch] src/*/*.[ch] | sort -u |
    comm -12 - "$names" >typedefs.list
echo "typedefs.list: $(wc -l <typedefs.list) names"
