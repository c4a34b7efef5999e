-- wrk script: POSTs the SQL in $TESSERA_SQL to /query/sql; answers that are not 200 or carry
-- a Pinot error ("errorCode") count as failures, summed over wrk's threads at the end.
local sql = os.getenv("TESSERA_SQL") or "SELECT COUNT(*) FROM lineitem"
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"sql": "' .. sql:gsub('"', '\\"') .. '"}'

local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  failures = 0
end

function response(status, headers, body)
  if status ~= 200 or body:find('"errorCode"', 1, true) then
    failures = failures + 1
  end
end

function done(summary, latency, requests)
  local total = 0
  for _, t in ipairs(threads) do
    total = total + t:get("failures")
  end
  io.write(string.format("query_failures %d\n", total))
end
