#!/usr/bin/env bash
# Install the Debian 12 packages petagen needs to build and test, if missing.
# Idempotent: does nothing (not even apt-get update) when all are present.
# Installing postgresql-15 may create and start Debian's "main" cluster on
# port 5432; we leave it alone, and nothing in petagen's scripts uses it.
set -euo pipefail

PKGS=(postgresql-15 postgresql-server-dev-15 postgresql-15-pgtap
      postgresql-contrib libxxhash-dev libipc-run-perl
      liblz4-dev libzstd-dev libkrb5-dev)   # the last three build Citus

# Run a command as root: directly when we are root, else through sudo.
as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

missing=()
for p in "${PKGS[@]}"; do
    status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
    [ "$status" = "install ok installed" ] || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
    echo "deps: all packages present"
    exit 0
fi

echo "deps: installing ${missing[*]}"
as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q
as_root env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -q --no-install-recommends "${missing[@]}"
