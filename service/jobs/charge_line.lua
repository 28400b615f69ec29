-- Charge a line of a fair queue the thinking seconds one of its items took: its count decays
-- by e^(-age/window) (about what it used in the last window) and grows by `seconds`, kept as
-- `<seconds>:<ms of the last charge>` in the hash `spent`. A few other lines' counts are
-- looked at too, and dropped once decayed to nothing, so the hash keeps only lines that
-- thought lately. Returns the line's count now (text).
-- KEYS: spent
-- ARGV: line seconds window_ms
local spent, line, window = KEYS[1], ARGV[1], tonumber(ARGV[3])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)

local function decayed(raw)
  if not raw then return 0 end
  local value, at = string.match(raw, '^([^:]+):(%d+)$')
  if not value then return 0 end
  return tonumber(value) * math.exp(-math.max(0, now - tonumber(at)) / window)
end

for _, other in ipairs(redis.call('HRANDFIELD', spent, 3)) do
  if other ~= line and decayed(redis.call('HGET', spent, other)) < 0.001 then
    redis.call('HDEL', spent, other)
  end
end
local value = decayed(redis.call('HGET', spent, line)) + math.max(0, tonumber(ARGV[2]))
local text = string.format('%.6f', value)
redis.call('HSET', spent, line, text .. ':' .. now)
return text
