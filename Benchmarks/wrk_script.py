"""The wrk request script the serve benchmarks share: `{n}` in the path becomes a number of the request's own (so
every request misses the caches), and wrk's summary is printed as one RESULT line of JSON."""

WRK_SCRIPT = """
local threads = 0
function setup(thread) threads = threads + 1; thread:set("id", threads) end
function init(args) pattern = args[1]; offset = tonumber(args[2] or "0"); n = 0 end
function request()
  n = n + 1
  return wrk.format(nil, (string.gsub(pattern, "{n}", string.format("%d", offset + id * 10000000 + n))))
end
function done(summary, latency, requests)
  local errors = summary.errors
  io.write(string.format('RESULT {"requests": %d, "seconds": %f, "p50": %f, "p99": %f, "errors": %d}\\n',
    summary.requests, summary.duration / 1e6, latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    errors.connect + errors.read + errors.write + errors.timeout + errors.status))
end
"""
