#!/usr/bin/env bash
# Queries per second of an indexed point query through the broker, over loopback, with wrk.
# Starts `tessera quickstart` (all roles, sample lineitem table) on free ports, then runs wrk
# against POST /query/sql with the point query, and against GET /health on the same broker as
# the HTTP ceiling of this machine (the ratio query/health is the figure to compare across
# machines). With `--servers N` the roles run as separate processes instead — a controller and
# broker, and N servers — with the sample loaded into them (`quickstart --load-into`), so the
# broker reaches its servers through their query ports (TCP). Stops the processes it started.
#
# wrk does the same work per request in both runs (a prebuilt request, no Lua per answer), so the
# ratio compares the broker's work, not the client's. Whether the queries succeeded is read from
# the broker's /metrics before and after the run: queries it answered, queries that failed (by
# Pinot error code) and documents scanned (the point query must scan its row every time: nothing
# is answered from a cache), plus wrk's own count of non-2xx answers.
#
#   benches/qps/run.sh [--duration 10] [--connections 32] [--threads 2] [--servers N] [--sql "SELECT …"]
#
# Needs wrk (`apt-get install wrk`) and builds the release binary unless TESSERA_BIN is set.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
duration=10
connections=32
threads=2
servers=0
sql="SELECT l_orderkey, l_linenumber, l_quantity FROM lineitem WHERE l_orderkey = 4242 LIMIT 10"
while [ $# -gt 0 ]; do
    case "$1" in
        --duration) duration="$2"; shift 2 ;;
        --connections) connections="$2"; shift 2 ;;
        --threads) threads="$2"; shift 2 ;;
        --servers) servers="$2"; shift 2 ;;
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
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; wait "${pids[@]}" 2>/dev/null; rm -rf "$work"' EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_health() {
    for _ in $(seq 1 300); do curl -sf "$1/health" >/dev/null && return 0; sleep 0.2; done
    echo "error: $1 did not start" >&2; exit 1
}
if [ "$servers" -eq 0 ]; then
    out="$work/quickstart.out"
    "$bin" quickstart --data-dir "$work/data" --controller-port 0 --broker-port 0 --server-port 0 \
        --no-log-stderr >"$out" 2>&1 &
    pids+=($!)
    for _ in $(seq 1 600); do
        grep -q '^Loaded table' "$out" && break
        kill -0 "${pids[0]}" 2>/dev/null || { cat "$out" >&2; exit 1; }
        sleep 0.2
    done
    grep -q '^Loaded table' "$out" || { echo "error: quickstart did not load its sample" >&2; exit 1; }
    broker="$(sed -n 's/^broker //p' "$out" | head -1)"
else
    cport="$(free_port)"; bport="$(free_port)"
    controller="http://127.0.0.1:$cport"; broker="http://127.0.0.1:$bport"
    "$bin" start --roles controller,broker --data-dir "$work/cb" --controller-port "$cport" \
        --broker-port "$bport" --no-log-stderr >"$work/cb.out" 2>&1 &
    pids+=($!)
    wait_health "$controller"
    for i in $(seq 1 "$servers"); do
        sport="$(free_port)"
        "$bin" start --roles server --data-dir "$work/s$i" --server-port "$sport" \
            --controller-url "$controller" --no-log-stderr >"$work/s$i.out" 2>&1 &
        pids+=($!)
        wait_health "http://127.0.0.1:$sport"
    done
    "$bin" quickstart --load-into "$controller" --segments "$((2 * servers))" >&2
    wait_health "$broker"
fi

echo "point query: $sql"
curl -s -X POST "$broker/query/sql" -H 'Content-Type: application/json' \
    -d "{\"sql\": \"$sql\"}" | head -c 400; echo
run() { wrk -t"$threads" -c"$connections" -d"${duration}s" --latency "$@"; }
# The broker's counters: queries answered, failed queries (all error codes), documents scanned.
counters() {
    curl -sf "$broker/metrics" | awk '
        /^tessera_queries_total/ {q = $NF}
        /^tessera_query_errors_total/ {e += $NF}
        /^tessera_docs_scanned_total/ {d = $NF}
        END {printf "%d %d %d\n", q, e, d}'
}
read -r q0 e0 d0 <<<"$(counters)"
q="$(TESSERA_SQL="$sql" run -s "$here/post.lua" "$broker/query/sql")"
read -r q1 e1 d1 <<<"$(counters)"
h="$(run "$broker/health")"
echo "$q" | grep -E 'Requests/sec|Latency|99%|Non-2xx'
qps="$(echo "$q" | awk '/Requests\/sec/ {print $2}')"
hps="$(echo "$h" | awk '/Requests\/sec/ {print $2}')"
non2xx="$(echo "$q" | awk '/Non-2xx/ {print $NF}')"
answered=$((q1 - q0)); fails=$((e1 - e0 + ${non2xx:-0}))
docs_per_query="$(echo "$((d1 - d0)) $answered" | awk '{printf "%.2f", $2 ? $1/$2 : 0}')"
echo "broker: $answered queries answered, $fails failed, $docs_per_query documents scanned per query"
printf 'query QPS %s, /health QPS %s, ratio %.2f, failed queries %s\n' \
    "$qps" "$hps" "$(echo "$qps $hps" | awk '{print $1/$2}')" "$fails"
[ "$fails" -eq 0 ] && [ "$answered" -gt 0 ] || { echo "error: failed or missing queries" >&2; exit 1; }
