-- Something a tournament shows changed (a game ended): bump 'changes' and publish it; 0 for a
-- tournament that does not exist or is finished (a finished one never changes again: its last
-- change is the one that finished it). A cancelled one still shows its last games ending.
-- KEYS: tournament
-- ARGV: channel
local status = redis.call('HGET', KEYS[1], 'status')
if not status or status == 'finished' then return 0 end
local changes = redis.call('HINCRBY', KEYS[1], 'changes', 1)
redis.call('PUBLISH', ARGV[1], KEYS[1] .. ' ' .. changes)
return changes
