#!/usr/bin/env bash
# Installs the S3-compatible server the deep-store tests run against: moto 5.2.5's server mode
# (`moto_server`, Apache-2.0) from PyPI, with every package pinned in moto-requirements.txt, into
# target/moto/venv. Does nothing when it is already there. Needs python3 with venv.
set -euo pipefail
cd "$(dirname "$0")/.."

dest="${CARGO_TARGET_DIR:-target}/moto"
bin="$dest/venv/bin/moto_server"
stamp="$dest/installed-$(sha256sum scripts/moto-requirements.txt | cut -c1-16)"
if [ -x "$bin" ] && [ -f "$stamp" ]; then
    exit 0
fi
rm -rf "$dest"
mkdir -p "$dest"
python3 -m venv "$dest/venv"
"$dest/venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    -r scripts/moto-requirements.txt
touch "$stamp"
"$bin" --help >/dev/null
