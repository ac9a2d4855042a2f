-- wrk's script for the flooder of `npm run bench:fair-use` (bench/fair-use.ts).
--
--   wrk -t T -c C -d Ss -s bench/fair-use-flood.lua URL -- '"default";q=600;w=60'
--
-- Counts every answer by status and checks every 429 against what docs/api.md promises:
-- Retry-After a whole number of seconds >= 1, RateLimit-Policy equal to the argument,
-- RateLimit `"<its name>";r=0;t=T` with T >= Retry-After (full again no sooner than the
-- next unit), a body {"error":"too many requests…"}. At the end, one line on stdout:
-- `FAIR-USE-FLOOD {json}` with the counts, the 429s that failed a check (by check, with
-- the first that failed each), the first 429 seen (its headers and body) and wrk's own
-- summary (µs).

local threads = {}

local function quote(s)
  return '"' .. string.gsub(tostring(s), '[%c"\\]', function(c) return string.format("\\u%04x", string.byte(c)) end) .. '"'
end

local function object(t)
  local parts = {}
  for k, v in pairs(t) do
    table.insert(parts, quote(k) .. ":" .. (type(v) == "number" and string.format("%d", v) or quote(v)))
  end
  return "{" .. table.concat(parts, ",") .. "}"
end

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  policy = args[1]
  name = string.match(policy or "", '^"([^"]+)"')
  statuses = {}
  bad = {}
  badSample = {}
  sample = nil
end

-- Kept as JSON text: wrk copies a thread's value to the main script flat (a table of tables crashes it).
local function fail(check, h, body)
  bad[check] = (bad[check] or 0) + 1
  if badSample[check] == nil then
    local copy = { ["(body)"] = body }
    for k, v in pairs(h) do copy[k] = v end
    badSample[check] = object(copy)
  end
end

function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
  if status ~= 429 then return end
  local h = {}
  for name, value in pairs(headers) do h[string.lower(name)] = value end
  local retry = string.match(h["retry-after"] or "", "^%d+$") and tonumber(h["retry-after"])
  if not (retry and retry >= 1) then fail("retry-after", h, body) end
  if h["ratelimit-policy"] ~= policy then fail("ratelimit-policy", h, body) end
  local n, r, t = string.match(h["ratelimit"] or "", '^"([^"]+)";r=(%d+);t=(%d+)$')
  if not (n == name and r == "0" and tonumber(t) >= (retry or 0)) then fail("ratelimit", h, body) end
  if not string.match(body or "", '^{"error":"too many requests.*"}$') then fail("body", h, body) end
  if sample == nil then
    h["(body)"] = body
    sample = h
  end
end

function done(summary, latency, requests)
  local total, failed, failedFirst, first = {}, {}, {}, nil
  for _, t in ipairs(threads) do
    for k, v in pairs(t:get("statuses") or {}) do total[tostring(k)] = (total[tostring(k)] or 0) + v end
    for k, v in pairs(t:get("bad") or {}) do failed[k] = (failed[k] or 0) + v end
    for k, v in pairs(t:get("badSample") or {}) do failedFirst[k] = failedFirst[k] or v end
    first = first or t:get("sample")
  end
  local e = summary.errors
  io.write("FAIR-USE-FLOOD {",
    '"statuses":', object(total), ",",
    '"failed":', object(failed), ",",
    '"failedSamples":{', (function()
      local parts = {}
      for k, v in pairs(failedFirst) do table.insert(parts, quote(k) .. ":" .. v) end
      return table.concat(parts, ",")
    end)(), "},",
    '"sample":', first and object(first) or "null", ",",
    '"durationUs":', string.format("%d", summary.duration), ",",
    '"requests":', string.format("%d", summary.requests), ",",
    '"socketErrors":', object({ connect = e.connect, read = e.read, write = e.write, timeout = e.timeout }), ",",
    '"latencyUs":', object({ p50 = latency:percentile(50), p99 = latency:percentile(99), max = latency.max }),
    "}\n")
end
