#!/usr/bin/env bash
# Lay out petagen's C code as pgindent lays out PostgreSQL's: pg_bsd_indent
# with PostgreSQL's settings and typedefs.list, block comments that start
# with dashes left as written.
#   bash scripts/indent.sh           rewrite the files that need it
#   bash scripts/indent.sh --check   list them and fail, changing nothing
set -euo pipefail
cd "$(dirname "$0")/.."
check=0
[ "${1:-}" = --check ] && check=1
indent=${PG_BSD_INDENT:-pg_bsd_indent}
if ! command -v "$indent" >/dev/null; then
    echo "indent: $indent not found (Debian: apt-get install pg-bsd-indent)" >&2
    exit 1
fi
opts="-bad -bap -bbb -bc -bl -cli1 -cp33 -cdb -nce -d0 -di12 -nfc1 -i4 -l79 -lp -lpl -nip -npro -sac -tpg -ts4"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cat typedefs.list; echo bool) >"$work/typedefs"
bad=0
for f in src/*.[ch] src/*/*.[ch]; do
    # dash comments are protected from reflowing, then restored
    sed -e 's|/\* \+---|/*---X_X|g' "$f" >"$work/src.c"
    "$indent" $opts -U"$work/typedefs" "$work/src.c" "$work/out.c"
    sed -e 's|/\*---X_X|/* ---|g' \
        -e 's|^\([A-Za-z_][^ \t]*\)[ \t][ \t]*\*$|\1 *|' "$work/out.c" >"$work/new.c"
    if ! cmp -s "$f" "$work/new.c"; then
        if [ $check = 1 ]; then
            echo "indent: $f is not laid out as scripts/indent.sh lays it out" >&2
            diff -u "$f" "$work/new.c" | head -20 >&2 || true
            bad=1
        else
            cp "$work/new.c" "$f"
        fi
    fi
done
exit $bad
