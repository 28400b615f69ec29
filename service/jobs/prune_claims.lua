-- Drop the claims of workers that died (their liveness key lapsed). What they held is added
-- again by the sweeper if a game still waits for it; a claim whose game moved on would
-- otherwise stay for ever. Returns how many were dropped.
-- KEYS: claims
-- ARGV:
local dropped = 0
local claims = redis.call('HGETALL', KEYS[1])
for i = 1, #claims, 2 do
  if redis.call('EXISTS', 'floe:worker:' .. claims[i + 1] .. ':alive') == 0 then
    redis.call('HDEL', KEYS[1], claims[i])
    dropped = dropped + 1
  end
end
return dropped
