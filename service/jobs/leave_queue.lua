-- A drain leaves its queue: it is no longer counted among the queue's drains. Unless it hands
-- over (`hand_over` 1), it leaves only an empty queue: with items pending it stays registered
-- and -1 is returned. Otherwise returns how many items are pending (when any, the caller
-- makes sure another drain comes for them: add_items.lua with no items).
-- KEYS: pending drains
-- ARGV: drain hand_over
local pending = redis.call('ZCARD', KEYS[1])
if pending > 0 and ARGV[2] ~= '1' then return -1 end
redis.call('HDEL', KEYS[2], ARGV[1])
return pending
