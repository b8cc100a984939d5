# The instances of a throwaway cluster on this machine, sourced by
# scripts/cluster.sh and scripts/citus_cluster.sh: node K listens on
# PORT+K, keeps its data in DIR/nodeK and logs to DIR/nodeK.log.  The
# sourcing script sets DIR, PORT, NODE_IDS (the node numbers), NODE_HOST
# (where psql connects: DIR's sockets or an address) and defines
# node_conf K, the postgresql.conf lines of node K.  Each node is an
# instance of scripts/instance.sh (PG_CONFIG, as root run by `postgres`).

# shellcheck source=scripts/instance.sh
. "$(dirname "${BASH_SOURCE[0]}")/instance.sh"

# psql on node $1, the rest are psql arguments.
node_psql() {
    local k=$1
    shift
    instance_psql "$NODE_HOST" $((PORT + k)) -v ON_ERROR_STOP=1 "$@"
}

# Create DIR for the instance owner; exit unless the owner can write it.
nodes_dir() { instance_dir "$DIR"; }

# Start node $1 unless it runs, creating it first if it does not exist.
node_up() {
    local k=$1 data=$DIR/node$1
    if [ ! -d "$data" ]; then
        node_conf "$k" | instance_init "$data" "$DIR/initdb$k.log"
    fi
    instance_start "$data" "$DIR/node$k.log"
    echo "node$k: port $((PORT + k)), data $data"
}

# Stop every node that runs; the data stays.
nodes_down() {
    for k in $NODE_IDS; do
        if [ -f "$DIR/node$k/postmaster.pid" ]; then
            instance_stop "$DIR/node$k"
            echo "node$k: stopped"
        fi
    done
    echo "$(basename "$0" .sh): data and logs kept in $DIR (rm -rf it to start afresh)"
}
