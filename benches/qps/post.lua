-- wrk script: POSTs the SQL in $TESSERA_SQL to /query/sql. The request is built once and wrk
-- sends it as is: no Lua runs per request or per answer, so wrk spends on a query what it spends
-- on GET /health (a per-answer `response` callback cost wrk ~13 us of the two shared cores per
-- 1.7 KB answer and lowered the ratio it measured). run.sh counts failed queries from the
-- broker's own metrics instead.
local sql = os.getenv("TESSERA_SQL") or "SELECT COUNT(*) FROM lineitem"
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"sql": "' .. sql:gsub('"', '\\"') .. '"}'
