#!/usr/bin/env bash
# End-to-end tests of Tessera with the real Pinot Python clients (pinotdb DB-API + SQLAlchemy,
# pinot-connect), file writers (pyarrow, DuckDB, fastavro), and the web console in headless
# Chromium. Needs python3 with venv + pip and the debug binary target/debug/tessera (build it
# first: `cargo build -p tessera-api`). Creates tests/clients/.venv once (and installs Debian's
# chromium + chromium-driver when missing and allowed), then runs test_clients.py and
# test_console.py (twice: over HTTP, and over HTTPS with TESSERA_CONSOLE_TLS=1). The last line
# printed is `N passed, M failed`; exit code 0 only if all pass.
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
venv="$here/.venv"
bin="${TESSERA_BIN:-${CARGO_TARGET_DIR:-$repo/target}/debug/tessera}"
# Pinned clients (shared/reference/peers.md §1) and the requests/SQLAlchemy versions tested with them.
requirements=(
    "pinotdb[sqlalchemy]==9.2.2"
    "pinot-connect==0.1.1"
    "requests==2.34.2"
    "SQLAlchemy==2.1.9"
    # file writers for the ingestion tests (Parquet, Avro)
    "pyarrow==26.0.1"
    "duckdb==2.0.1"
    "fastavro==1.13.1"
    # the web console in a real browser (with Debian's chromium and chromium-driver)
    "selenium==4.51.0"
)
stamp="$venv/.requirements"

fail() {
    echo "error: $*" >&2
    echo "0 passed, 1 failed"
    exit 1
}

[ -x "$bin" ] || fail "tessera binary not found at $bin (build it with: cargo build -p tessera-api)"
command -v python3 >/dev/null || fail "python3 not found"

python="$venv/bin/python"
ready() {
    [ "$(cat "$stamp" 2>/dev/null)" = "${requirements[*]}" ] \
        && { [ -d "$venv/site" ] || "$python" -c "" 2>/dev/null; }
}
if ! ready; then
    echo "setting up $venv"
    rm -rf "$venv"
    if python3 -m venv "$venv" >/dev/null 2>&1 && "$python" -m pip --version >/dev/null 2>&1; then
        "$python" -m pip install --quiet --disable-pip-version-check "${requirements[@]}" \
            || fail "pip install of the Pinot clients failed"
    else
        # No venv/ensurepip (Debian without python3-venv): install into a plain directory with
        # the system pip and put it on PYTHONPATH.
        echo "python3 -m venv unavailable; installing the clients with python3 -m pip --target"
        rm -rf "$venv" && mkdir -p "$venv/site"
        python3 -m pip install --quiet --disable-pip-version-check --target "$venv/site" "${requirements[@]}" \
            || fail "neither python3 -m venv nor python3 -m pip works: install python3-venv or python3-pip"
    fi
    echo "${requirements[*]}" > "$stamp"
fi
if [ -d "$venv/site" ]; then
    python=python3
    export PYTHONPATH="$venv/site${PYTHONPATH:+:$PYTHONPATH}"
fi

# The console tests drive Debian's Chromium; install it when missing and this user can.
if ! { command -v chromium && command -v chromedriver; } >/dev/null 2>&1; then
    echo "installing chromium and chromium-driver (Debian) for the console tests"
    if [ "$(id -u)" = 0 ]; then
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null
    elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
        sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null
    fi
    { command -v chromium && command -v chromedriver; } >/dev/null 2>&1 \
        || fail "chromium and chromedriver are needed: apt-get install chromium chromium-driver"
fi

# Each file prints `N passed, M failed` last; the sum is this script's last line.
passed=0
failed=0
# The console suite runs twice: over HTTP, then with every port speaking TLS.
for run in test_clients.py test_console.py test_console.py:tls; do
    tests="${run%%:*}"
    tls=0
    [ "$run" != "$tests" ] && tls=1
    last="$(mktemp)"
    env TESSERA_BIN="$bin" TESSERA_CONSOLE_TLS="$tls" "$python" "$here/$tests" | tee "$last"
    counts="$(tail -n 1 "$last")"
    rm -f "$last"
    if [[ "$counts" =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
        passed=$((passed + BASH_REMATCH[1]))
        failed=$((failed + BASH_REMATCH[2]))
    else
        failed=$((failed + 1))
    fi
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ] && [ "$passed" -gt 0 ]
