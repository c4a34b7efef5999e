#!/usr/bin/env bash
# Installs Debian's ZooKeeper (and the Java it runs on) for the multi-controller tests, which
# start it themselves on 127.0.0.1 and stop it by PID. Needs root or password-less sudo; where
# neither is available the tests say they were skipped (under CI they fail instead).
set -euo pipefail
if [ -f /usr/share/java/zookeeper.jar ] && command -v java >/dev/null 2>&1; then
    exit 0
fi
echo "installing zookeeper (Debian) for the ZooKeeper metadata-store tests"
if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq zookeeper >/dev/null
elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
    sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq zookeeper >/dev/null
else
    echo "warning: cannot install zookeeper (not root, no sudo): its tests will be skipped" >&2
fi
