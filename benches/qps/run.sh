#!/usr/bin/env bash
# Queries per second of an indexed point query through the broker, over loopback, with wrk.
# Starts `tessera quickstart` (all roles, sample lineitem table) on free ports, then runs wrk
# against POST /query/sql with the point query, and against GET /health on the same broker as
# the HTTP ceiling of this machine (the ratio query/health is the figure to compare across
# machines). Stops the process it started.
#
#   benches/qps/run.sh [--duration 10] [--connections 32] [--threads 2] [--sql "SELECT …"]
#
# Needs wrk (`apt-get install wrk`) and builds the release binary unless TESSERA_BIN is set.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
duration=10
connections=32
threads=2
sql="SELECT l_orderkey, l_linenumber, l_quantity FROM lineitem WHERE l_orderkey = 4242 LIMIT 10"
while [ $# -gt 0 ]; do
    case "$1" in
        --duration) duration="$2"; shift 2 ;;
        --connections) connections="$2"; shift 2 ;;
        --threads) threads="$2"; shift 2 ;;
        --sql) sql="$2"; shift 2 ;;
        *) echo "unknown option $1" >&2; exit 2 ;;
    esac
done
command -v wrk >/dev/null || { echo "error: wrk not found (apt-get install wrk)" >&2; exit 1; }
bin="${TESSERA_BIN:-}"
if [ -z "$bin" ]; then
    (cd "$repo" && cargo build --release -p tessera-api --locked >&2)
    bin="${CARGO_TARGET_DIR:-$repo/target}/release/tessera"
fi

work="$(mktemp -d)"
out="$work/quickstart.out"
"$bin" quickstart --data-dir "$work/data" --controller-port 0 --broker-port 0 --server-port 0 \
    --no-log-stderr >"$out" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 1 600); do
    grep -q '^Loaded table' "$out" && break
    kill -0 "$pid" 2>/dev/null || { cat "$out" >&2; exit 1; }
    sleep 0.2
done
grep -q '^Loaded table' "$out" || { echo "error: quickstart did not load its sample" >&2; exit 1; }
broker="$(sed -n 's/^broker //p' "$out" | head -1)"

echo "point query: $sql"
curl -s -X POST "$broker/query/sql" -H 'Content-Type: application/json' \
    -d "{\"sql\": \"$sql\"}" | head -c 400; echo
run() { wrk -t"$threads" -c"$connections" -d"${duration}s" --latency "$@"; }
q="$(TESSERA_SQL="$sql" run -s "$here/post.lua" "$broker/query/sql")"
h="$(run "$broker/health")"
echo "$q" | grep -E 'Requests/sec|Latency|99%|query_failures|Non-2xx'
qps="$(echo "$q" | awk '/Requests\/sec/ {print $2}')"
hps="$(echo "$h" | awk '/Requests\/sec/ {print $2}')"
fails="$(echo "$q" | awk '/query_failures/ {print $2}')"
printf 'query QPS %s, /health QPS %s, ratio %.2f, failed queries %s\n' \
    "$qps" "$hps" "$(echo "$qps $hps" | awk '{print $1/$2}')" "$fails"
