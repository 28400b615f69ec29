-- Count a new game against its creator's quotas, after pruning the games named (over, or
-- orphaned), and list it among the creator's games in Redis (its storage budget) when asked.
-- Returns {'ok', 0} with the slot taken, or {<quota code>, count} with nothing added.
-- A limit of 0 is off.
-- KEYS: live bots stored
-- ARGV: live_limit bot_limit game_id is_bot now_ms track_stored prune...
for i = 7, #ARGV do
  redis.call('ZREM', KEYS[1], ARGV[i])
  redis.call('ZREM', KEYS[2], ARGV[i])
end
local live_limit, bot_limit = tonumber(ARGV[1]), tonumber(ARGV[2])
local bot = ARGV[4] == '1' and bot_limit > 0
if bot then
  local count = redis.call('ZCARD', KEYS[2])
  if count >= bot_limit then return {'bot_game_quota', count} end
end
if live_limit > 0 then
  local count = redis.call('ZCARD', KEYS[1])
  if count >= live_limit then return {'live_game_quota', count} end
  redis.call('ZADD', KEYS[1], ARGV[5], ARGV[3])
end
if bot then redis.call('ZADD', KEYS[2], ARGV[5], ARGV[3]) end
if ARGV[6] == '1' then redis.call('ZADD', KEYS[3], ARGV[5], ARGV[3]) end
return {'ok', 0}
