-- Release this worker's claims on the items it finished, then claim the next items of the
-- first of its queues that has any: at most that queue's batch. A claim is a lease, held
-- while the worker's liveness key lives (add_items.lua and prune_claims.lua drop it after).
-- `lanes` is a JSON list, one [batch, fair] per queue, in order; each queue brings four keys
-- in `lane_keys`: its pending, lines, rotation and spent.
-- A plain queue (fair 0) gives its first in line, first. A fair queue (the bots') serves its
-- lines (add_items.lua): the line `priority` first whenever it has items; then the lines of
-- its `rotation` in turn, the first of the first `scan` there that is within its `budget`
-- (the thinking seconds charged to it, charge_line.lua, decayed by e^(-age/window): about
-- what it used in the last window) giving its oldest item and going to the back of the
-- rotation; those over budget that it passed go to the back too. When every line looked at
-- is over budget, the one that used least is served: a line alone is always served. A
-- member whose item is no longer pending (taken already) is dropped. Items pending with no
-- line (added by a Floe before the lines) are taken, first in line, once no line has any.
-- Returns {the queue's place among the lanes (1-based), item, line, item, line...} (line ''
-- for an item of no line), or {} when every queue is empty (or no lane is given: then it
-- only releases).
-- `busy` (a JSON list) names the lines this worker has a bot thinking for: none of them is
-- served (a line has one move thought about at a time; another line may have the worker's
-- second), and the no-line fallback waits while any line has items.
-- KEYS: claims lane_keys...
-- ARGV: worker lanes budget window_ms priority scan busy finished...
local claims, worker = KEYS[1], ARGV[1]
for i = 8, #ARGV do
  if redis.call('HGET', claims, ARGV[i]) == worker then redis.call('HDEL', claims, ARGV[i]) end
end
local lanes = cjson.decode(ARGV[2])
local budget, window = tonumber(ARGV[3]), tonumber(ARGV[4])
local priority, scan = ARGV[5], tonumber(ARGV[6])
local busy = {}
for _, line in ipairs(cjson.decode(ARGV[7])) do busy[line] = true end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)

local function oldest(lines, line)
  local found = redis.call('ZRANGEBYLEX', lines, '[' .. line .. '|', '(' .. line .. '}',
    'LIMIT', 0, 1)
  return found[1]
end

local function used(spent, line)
  local raw = redis.call('HGET', spent, line)
  if not raw then return 0 end
  local value, at = string.match(raw, '^([^:]+):(%d+)$')
  if not value then return 0 end
  return tonumber(value) * math.exp(-math.max(0, now - tonumber(at)) / window)
end

-- The next line to serve, or nil: the rotation's lines looked at leave its front (those
-- with no item at all for good, those passed over to its back).
local function pick(lines, rotation, spent)
  if not busy[priority] and oldest(lines, priority) then return priority end
  local front = redis.call('LRANGE', rotation, 0, scan - 1)
  local looked, chosen, passed = 0, nil, {}
  local least, least_used = nil, nil
  for i, line in ipairs(front) do
    looked = i
    if busy[line] then
      passed[#passed + 1] = line  -- thought about now: its turn is this one
    elseif oldest(lines, line) then
      local spent_here = budget > 0 and used(spent, line) or 0
      if budget <= 0 or spent_here < budget then
        chosen = line
        break
      end
      passed[#passed + 1] = line
      if least == nil or spent_here < least_used then least, least_used = line, spent_here end
    end
  end
  chosen = chosen or least
  if looked > 0 then redis.call('LTRIM', rotation, looked, -1) end
  for _, line in ipairs(passed) do
    if line ~= chosen then redis.call('RPUSH', rotation, line) end
  end
  return chosen
end

-- Claim the oldest item of `line` still pending; nil when it has none.
local function take(pending, lines, line)
  while true do
    local member = oldest(lines, line)
    if not member then return nil end
    redis.call('ZREM', lines, member)
    local item = string.match(member, '^[^|]*|%d+|(.*)$')
    if item and redis.call('ZREM', pending, item) == 1 then
      redis.call('HSET', claims, item, worker)
      return item
    end
  end
end

for place, lane in ipairs(lanes) do
  local base = 2 + (place - 1) * 4
  local pending, lines, rotation, spent = KEYS[base], KEYS[base + 1], KEYS[base + 2],
    KEYS[base + 3]
  local batch, fair = lane[1], lane[2] == 1
  local taken = {place}
  if fair then
    local tries = batch + scan
    while (#taken - 1) / 2 < batch and tries > 0 do
      tries = tries - 1
      local line = pick(lines, rotation, spent)
      if not line then break end
      local item = take(pending, lines, line)
      if item then
        taken[#taken + 1] = item
        taken[#taken + 1] = line
      end
      if line ~= priority and oldest(lines, line) and not redis.call('LPOS', rotation, line) then
        redis.call('RPUSH', rotation, line)
      end
    end
  end
  local left = batch - (#taken - 1) / 2
  if left > 0 and not (fair and next(busy) ~= nil and redis.call('ZCARD', lines) > 0) then
    local popped = redis.call('ZPOPMIN', pending, left)
    for i = 1, #popped, 2 do
      redis.call('HSET', claims, popped[i], worker)
      taken[#taken + 1] = popped[i]
      taken[#taken + 1] = ''
    end
  end
  if #taken > 1 then return taken end
end
return {}
