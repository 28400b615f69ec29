-- Write a tournament's rounds only if nobody changed them since the caller read them (the same
-- count made, still running): {'ok', changes}, {'stale', made, status} or {'missing'}.
-- KEYS: tournament
-- ARGV: channel made_before rounds made_after status
local made = redis.call('HGET', KEYS[1], 'made')
if not made then return {'missing'} end
local status = redis.call('HGET', KEYS[1], 'status')
if made ~= ARGV[2] or status ~= 'running' then return {'stale', made, status} end
redis.call('HSET', KEYS[1], 'rounds', ARGV[3], 'made', ARGV[4], 'status', ARGV[5])
local changes = redis.call('HINCRBY', KEYS[1], 'changes', 1)
redis.call('PUBLISH', ARGV[1], KEYS[1] .. ' ' .. changes)
return {'ok', tostring(changes)}
