-- Release this worker's claims on the items it finished, then claim the next items of the
-- first of its queues that has any, first in line first: at most that queue's batch. A claim
-- is a lease, held while the worker's liveness key lives (add_items.lua and prune_claims.lua
-- drop it after). `batches` is a JSON list: the most to claim from each of `pending`, in
-- order. Returns {the queue's place among `pending` (1-based), items...}, or {} when every
-- queue is empty (or none is given: then it only releases).
-- KEYS: claims pending...
-- ARGV: worker batches finished...
local claims, worker = KEYS[1], ARGV[1]
for i = 3, #ARGV do
  if redis.call('HGET', claims, ARGV[i]) == worker then redis.call('HDEL', claims, ARGV[i]) end
end
local batches = cjson.decode(ARGV[2])
for place = 2, #KEYS do
  local popped = redis.call('ZPOPMIN', KEYS[place], batches[place - 1])
  if #popped > 0 then
    local taken = {place - 1}
    for i = 1, #popped, 2 do
      redis.call('HSET', claims, popped[i], worker)
      taken[#taken + 1] = popped[i]
    end
    return taken
  end
end
return {}
