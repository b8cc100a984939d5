# The instances of a throwaway cluster on this machine, sourced by
# scripts/cluster.sh and scripts/citus_cluster.sh: node K listens on
# PORT+K, keeps its data in DIR/nodeK and logs to DIR/nodeK.log.  The
# sourcing script sets PGBIN, DIR, PORT, NODE_IDS (the node numbers),
# NODE_HOST (where psql connects: DIR's sockets or an address) and defines
# node_conf K, the postgresql.conf lines of node K.  As root, the
# instances are owned and run by the `postgres` OS user (initdb refuses root).

# Run a command as the instance owner.
if [ "$(id -u)" -eq 0 ]; then
    as_owner() { runuser -u postgres -- "$@"; }
else
    as_owner() { "$@"; }
fi

# psql on node $1, the rest are psql arguments.
node_psql() {
    local k=$1
    shift
    as_owner "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$NODE_HOST" -p $((PORT + k)) \
        -U postgres -d postgres "$@"
}

# Create DIR for the instance owner; exit unless the owner can write it.
nodes_dir() {
    mkdir -p "$DIR"
    if [ "$(id -u)" -eq 0 ]; then chown postgres: "$DIR"; fi
    if ! as_owner test -w "$DIR"; then
        echo "$(basename "$0"): $DIR is not writable by the instance owner" >&2
        echo "         (as root, every parent directory must be searchable by postgres)" >&2
        exit 1
    fi
}

# Start node $1 unless it runs, creating it first if it does not exist.
node_up() {
    local k=$1 data=$DIR/node$1
    if [ ! -d "$data" ]; then
        as_owner "$PGBIN/initdb" -D "$data" -U postgres -A trust -E UTF8 \
            --no-locale --no-sync >"$DIR/initdb$k.log"
        node_conf "$k" | as_owner tee -a "$data/postgresql.conf" >/dev/null
    fi
    as_owner "$PGBIN/pg_ctl" -D "$data" status >/dev/null 2>&1 ||
        as_owner "$PGBIN/pg_ctl" -D "$data" -l "$DIR/node$k.log" -w start >/dev/null
    echo "node$k: port $((PORT + k)), data $data"
}

# Stop every node that runs; the data stays.
nodes_down() {
    for k in $NODE_IDS; do
        if [ -f "$DIR/node$k/postmaster.pid" ]; then
            as_owner "$PGBIN/pg_ctl" -D "$DIR/node$k" -m fast -w stop >/dev/null
            echo "node$k: stopped"
        fi
    done
    echo "$(basename "$0" .sh): data and logs kept in $DIR (rm -rf it to start afresh)"
}
