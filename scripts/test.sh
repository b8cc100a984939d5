#!/usr/bin/env bash
# The whole test suite: dependencies, build + install, then pg_regress
# (test/sql, with its own temp instance) and the TAP tests (test/t/*.pl).
# initdb refuses to run as root, so as root the tests run as the `postgres`
# OS user in a copy of the source tree; as a normal user they run in place.
# Exits non-zero, after printing regression.diffs and TAP logs, on failure.
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD

# PG_CONFIG picks the PostgreSQL to build and test against (default: Debian's 15).
export PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}

bash scripts/deps.sh
bash scripts/build.sh
# Citus for the Citus TAP tests, built from ../shared/vendor when missing;
# exit 3 means no vendored release serves this major (those tests skip).
citus_rc=0
bash scripts/citus.sh || citus_rc=$?
[ "$citus_rc" -eq 0 ] || [ "$citus_rc" -eq 3 ] || { echo "FAILED: building Citus"; exit 1; }
PGBIN=$("$PG_CONFIG" --bindir)

# Where the tests run, and as whom.
if [ "$(id -u)" -eq 0 ]; then
    work=$(mktemp -d "${TMPDIR:-/tmp}/petagen-test.XXXXXX")
    # Copy tracked and untracked-but-not-ignored files (no build products).
    if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        git -C "$src" ls-files -z --cached --others --exclude-standard |
            tar -C "$src" --null -T - --ignore-failed-read -cf - |
            tar -C "$work" -xf -
    else
        tar -C "$src" --exclude-vcs --exclude='*.o' --exclude='*.so' \
            --exclude='*.bc' --exclude='tmp_check*' --exclude=results \
            --exclude=log --exclude=./demo -cf - . | tar -C "$work" -xf -
    fi
    chown -R postgres: "$work"
    run=(runuser -u postgres -- env "PATH=$PGBIN:$PATH" HOME="$work")
    # A small tmpfs lets 012_reserve fill a real filesystem; without mount
    # rights (a container) that part of the test is skipped.
    tmpfs=$(mktemp -d /tmp/petagen-tmpfs.XXXXXX)
    if mount -t tmpfs -o size=64m,mode=0700 petagen-test "$tmpfs" 2>/dev/null; then
        chown postgres: "$tmpfs"
        trap 'umount "$tmpfs"; rmdir "$tmpfs"' EXIT
        run+=("PETAGEN_TEST_TMPFS=$tmpfs")
    else
        rmdir "$tmpfs"
    fi
else
    work=$src
    run=(env "PATH=$PGBIN:$PATH")
fi

# PGXS has no `prove_installcheck` target; `installcheck` runs pg_regress
# (ifdef REGRESS) and then prove (ifdef TAP_TESTS). Run each half on its own
# by emptying the other variable, so one failing half does not hide the other.
# ONLY_REGRESS="01_keys 03_rows" or ONLY_TAP="test/t/010_load.pl" run a subset.
regress_rc=0 tap_rc=0
only=()
[ -n "${ONLY_REGRESS:-}" ] && only+=("REGRESS=$ONLY_REGRESS")
[ -n "${ONLY_TAP:-}" ] && only+=("PROVE_TESTS=$ONLY_TAP")
if [ -z "${ONLY_TAP:-}" ] || [ -n "${ONLY_REGRESS:-}" ]; then
    echo "== pg_regress ($work)"
    "${run[@]}" make -C "$work" installcheck TAP_TESTS= "${only[@]}" || regress_rc=$?
fi
if [ -z "${ONLY_REGRESS:-}" ] || [ -n "${ONLY_TAP:-}" ]; then
    echo "== TAP tests ($work)"
    "${run[@]}" make -C "$work" installcheck REGRESS= "${only[@]}" || tap_rc=$?
fi

if [ "$regress_rc" -ne 0 ] && [ -f "$work/regression.diffs" ]; then
    echo "== $work/regression.diffs"
    cat "$work/regression.diffs"
fi
if [ "$tap_rc" -ne 0 ]; then
    for f in "$work"/tmp_check/log/*; do
        [ -f "$f" ] || continue
        echo "== $f"
        cat "$f"
    done
fi

if [ "$regress_rc" -ne 0 ] || [ "$tap_rc" -ne 0 ]; then
    echo "FAILED: pg_regress exit $regress_rc, TAP exit $tap_rc (results in $work)"
    exit 1
fi
# A copy made for the postgres user is not needed after a clean pass.
if [ "$work" != "$src" ]; then rm -rf "$work"; fi
echo "ALL TESTS PASSED"
