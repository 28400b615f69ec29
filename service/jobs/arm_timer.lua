-- Arm a game's timer: its timeout job `item` runs once the epoch second `due` has come. A game
-- has one timer at a time: the one armed for an earlier version of it is dropped (its job
-- would find the game moved on and do nothing), so the set holds one entry per live clock.
-- KEYS: timers armed
-- ARGV: game item due
local earlier = redis.call('HGET', KEYS[2], ARGV[1])
if earlier and earlier ~= ARGV[2] then
  redis.call('ZREM', KEYS[1], earlier)
end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[2])
return 1
