-- Take the timers that are due: remove from the sorted set of timers every item due at or
-- before `now_s` (at most `limit`, the earliest first), and from the games' armed timers,
-- and return them, for the caller to add to the draws' backlog. Atomic, so of two workers
-- ticking at once only one takes a timer; one taken by a worker that dies before adding it
-- is armed again by the sweeper. An item is `<kind>-<game>-<version>` (a timeout, or a
-- tournament's next round).
-- KEYS: timers armed
-- ARGV: now_s limit
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
for _, item in ipairs(due) do
  redis.call('ZREM', KEYS[1], item)
  local game = string.match(item, '^%l+%-(.+)%-%d+$')
  if game and redis.call('HGET', KEYS[2], game) == item then
    redis.call('HDEL', KEYS[2], game)
  end
end
return due
