-- wrk script: GET paths made from a template, `{i}` replaced by 0..count-1 in
-- turn, each connection waiting `delay_ms` between its requests, so that
-- connections x 1000 / delay_ms bounds the rate. Prints one JSON line at the end.
-- Usage: wrk -c C -t T -d D -s bench/paced.lua URL -- DELAY_MS TEMPLATE COUNT
local delay_ms, template, count
local i = 0

function init(args)
  delay_ms = tonumber(args[1])
  template = args[2]
  count = tonumber(args[3])
  i = math.random(0, count - 1)
end

function delay()
  return delay_ms
end

function request()
  i = (i + 1) % count
  local path = template:gsub("{i}", tostring(i))
  return wrk.format("GET", path)
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '{"requests":%d,"duration_us":%d,"socket_errors":%d,"non_2xx":%d,"p50_us":%d,"p99_us":%d,"max_us":%d}\n',
    summary.requests, summary.duration, e.connect + e.read + e.write + e.timeout, e.status,
    latency:percentile(50), latency:percentile(99), latency.max))
end
