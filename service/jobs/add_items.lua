-- Add items to a queue's backlog, and make sure a drain will come for what is pending.
-- An item is added unless it is pending already or a live worker holds it (the claim of a
-- worker that died is dropped): a queue never holds one item twice. When any is added, every
-- live worker that listens to the queue hears of it (the queue's name on its doorbell), so
-- an idle drain takes it at once; workers that died leave the queue's set of workers.
-- Then, if items are pending and the queue has fewer drains, queued or running, than live
-- workers listen to it (at least one: a drain may wait in RQ's queue for the first worker),
-- a new drain is registered as queued, for the caller to enqueue as an RQ job. Lost drains
-- are dropped first: a running one whose worker died, and a queued one older than
-- `grace_ms` that is no longer in RQ's list (a worker took it, then died).
-- The queue Redis is one Redis, never a cluster, so workers' keys are named here:
-- `floe:worker:<name>:alive` (its liveness) and `floe:worker:<name>:bell` (its doorbell).
-- With a `line` (a fair queue's: the bots'), each item added also joins that line: a member
-- `<line>|<seq>|<item>` of `lines` (so a line's items are in order, and the line's oldest is
-- the first of its members), and the line joins the `rotation` of lines with items waiting
-- unless it is in it already (claim_items.lua serves the lines in turn). No line: the item
-- waits in `pending` alone, first come, first served.
-- Returns {how many items were added, the new drain's id or ''}.
-- KEYS: pending claims drains workers sequence rq_queue drain_sequence lines rotation
-- ARGV: queue drain_prefix grace_ms line items...
local pending, claims, drains, workers = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local function alive(worker)
  return redis.call('EXISTS', 'floe:worker:' .. worker .. ':alive') == 1
end

local listeners = {}
for _, worker in ipairs(redis.call('SMEMBERS', workers)) do
  if alive(worker) then
    listeners[#listeners + 1] = worker
  else
    redis.call('SREM', workers, worker)
  end
end

local line = ARGV[4]
local added = 0
for i = 5, #ARGV do
  local item = ARGV[i]
  if not redis.call('ZSCORE', pending, item) then
    local holder = redis.call('HGET', claims, item)
    if not (holder and alive(holder)) then
      if holder then redis.call('HDEL', claims, item) end
      local seq = redis.call('INCR', KEYS[5])
      redis.call('ZADD', pending, seq, item)
      if line ~= '' then
        redis.call('ZADD', KEYS[8], 0, string.format('%s|%015d|%s', line, seq, item))
      end
      added = added + 1
    end
  end
end
if added > 0 and line ~= '' and not redis.call('LPOS', KEYS[9], line) then
  redis.call('RPUSH', KEYS[9], line)
end
if added > 0 then
  for _, worker in ipairs(listeners) do
    local bell = 'floe:worker:' .. worker .. ':bell'
    redis.call('LPUSH', bell, ARGV[1])
    redis.call('LTRIM', bell, 0, 7)
    redis.call('EXPIRE', bell, 600)
  end
end

if redis.call('ZCARD', pending) == 0 then return {added, ''} end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local count = 0
local entries = redis.call('HGETALL', drains)
for i = 1, #entries, 2 do
  local id, where = entries[i], entries[i + 1]
  local kept
  if string.sub(where, 1, 7) == 'queued:' then
    kept = now - tonumber(string.sub(where, 8)) < tonumber(ARGV[3])
      or redis.call('LPOS', KEYS[6], id) ~= false
  else
    kept = alive(string.sub(where, 5))
  end
  if kept then count = count + 1 else redis.call('HDEL', drains, id) end
end
if count >= math.max(1, #listeners) then return {added, ''} end
local id = ARGV[2] .. redis.call('INCR', KEYS[7])
redis.call('HSET', drains, id, 'queued:' .. now)
return {added, id}
