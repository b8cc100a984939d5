#!/usr/bin/env bash
# Checks the layers of src/ (docs/architecture.md#layers): a file includes
# headers of its own folder or of the folders below it, never of one above.
# LAYERS lists the folders from the bottom up; folders joined by "+" share a
# floor and use none of each other's headers.  The files directly under src/
# (catalog.c, compat.h, launch.c, ...) stand below every folder and include
# none of their headers.  Prints each violation and exits 1 if there is any.
set -euo pipefail
cd "$(dirname "$0")/.."

LAYERS="gen route load job bench+verify cluster"

declare -A floor
n=0
for layer in $LAYERS; do
    n=$((n + 1))
    for dir in ${layer//+/ }; do floor[$dir]=$n; done
done

bad=0
for file in src/*.[ch] src/*/*.[ch]; do
    rel=${file#src/}
    if [[ $rel == */* ]]; then
        own=${rel%%/*}
        if [ -z "${floor[$own]:-}" ]; then
            echo "check_layers: src/$own/ is not in LAYERS of $0" >&2
            bad=1
            continue
        fi
        mine=${floor[$own]}
    else
        own="" mine=0
    fi
    while IFS=: read -r line dir; do
        [ -n "${floor[$dir]:-}" ] || continue
        [ "$dir" = "$own" ] && continue
        if [ "${floor[$dir]}" -ge "$mine" ]; then
            echo "$file:$line: includes a header of $dir/, which is not below ${own:-the files directly under src}${own:+/}" >&2
            bad=1
        fi
    done < <(grep -n '^#include "[a-z_]*/' "$file" |
             sed 's|^\([0-9]*\):#include "\([a-z_]*\)/.*|\1:\2|')
done
exit $bad
