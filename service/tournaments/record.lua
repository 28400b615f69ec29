-- Write some of a tournament's fields only if nobody wrote any since the caller read them
-- (its `writes` count is still `writes_before`): {'ok', changes}, {'stale', writes} or
-- {'missing'}. `fields` are name, value pairs (`rounds`, `made`, `status`, `decisions`,
-- `token_hashes`). With `shown` = 1 what the tournament shows changed: `changes` is bumped
-- and published (the id of its SSE events); 0 (a token reissued) changes nothing shown.
-- A record written before `writes` existed counts as 0 writes.
-- KEYS: tournament
-- ARGV: channel writes_before shown fields...
if redis.call('EXISTS', KEYS[1]) == 0 then return {'missing'} end
local writes = redis.call('HGET', KEYS[1], 'writes') or '0'
if writes ~= ARGV[2] then return {'stale', writes} end
for i = 4, #ARGV, 2 do
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
end
redis.call('HINCRBY', KEYS[1], 'writes', 1)
if ARGV[3] ~= '1' then
  return {'ok', redis.call('HGET', KEYS[1], 'changes')}
end
local changes = redis.call('HINCRBY', KEYS[1], 'changes', 1)
redis.call('PUBLISH', ARGV[1], KEYS[1] .. ' ' .. changes)
return {'ok', tostring(changes)}
