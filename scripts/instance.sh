# Throwaway PostgreSQL instances on this machine, sourced by scripts/demo.sh,
# scripts/nodes.sh and test/bench/lib.sh: each keeps its data in a directory
# of its own, listens on its own port on a unix socket in a directory given
# to it, never on TCP unless its postgresql.conf lines say so.  Uses the
# server PG_CONFIG names (default: the one scripts/pg_config.sh finds) and
# sets PGBIN to its programs.  As root, the instances are owned and run by
# the `postgres` OS user (initdb refuses root); as anyone else, by that user.

PG_CONFIG=${PG_CONFIG:-$(bash "$(dirname "${BASH_SOURCE[0]}")/pg_config.sh")}
export PG_CONFIG
PGBIN=$("$PG_CONFIG" --bindir)

# Run a command as the instance owner.
if [ "$(id -u)" -eq 0 ]; then
    as_owner() { runuser -u postgres -- "$@"; }
else
    as_owner() { "$@"; }
fi

# Create directory $1 for the instance owner; exit unless the owner can
# write it.
instance_dir() {
    mkdir -p "$1"
    if [ "$(id -u)" -eq 0 ]; then chown postgres: "$1"; fi
    if ! as_owner test -w "$1"; then
        echo "$(basename "$0"): $1 is not writable by the instance owner" >&2
        echo "         (as root, every parent directory must be searchable by postgres)" >&2
        exit 1
    fi
}

# initdb data directory $1 (its log in $2), more initdb options after them,
# then append postgresql.conf lines read from stdin.
instance_init() {
    local data=$1 log=$2
    shift 2
    as_owner "$PGBIN/initdb" -D "$data" -U postgres -A trust -E UTF8 \
        --no-locale --no-sync "$@" >"$log"
    as_owner tee -a "$data/postgresql.conf" >/dev/null
}

# The postgresql.conf lines of an instance listening on port $1 on a unix
# socket in directory $2 only.
instance_listen_conf() {
    printf "port = %s\nlisten_addresses = ''\nunix_socket_directories = '%s'\n" "$1" "$2"
}

# pg_ctl on data directory $1 with the server log $2: start, unless it runs.
instance_start() {
    as_owner "$PGBIN/pg_ctl" -D "$1" status >/dev/null 2>&1 ||
        as_owner "$PGBIN/pg_ctl" -D "$1" -l "$2" -w start >/dev/null
}

# Restart the instance of data directory $1 (server log $2).
instance_restart() {
    as_owner "$PGBIN/pg_ctl" -D "$1" -l "$2" -w restart >/dev/null
}

# Stop the instance of data directory $1 if it runs; the data stays.
instance_stop() {
    if [ -f "$1/postmaster.pid" ]; then
        as_owner "$PGBIN/pg_ctl" -D "$1" -m fast -w stop >/dev/null
    fi
}

# psql as postgres on the instance at host (socket directory) $1, port $2;
# the rest are psql arguments.
instance_psql() {
    local host=$1 port=$2
    shift 2
    as_owner "$PGBIN/psql" -X -q -h "$host" -p "$port" -U postgres -d postgres "$@"
}
