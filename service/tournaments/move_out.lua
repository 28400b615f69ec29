-- Delete a settled tournament's hash once the archive holds it: only if it is finished or
-- cancelled and nobody wrote it since the mover read it (its `writes` and `changes` are
-- still the ones read), so nothing written after the archived copy is ever lost.
-- Returns 'deleted', 'gone' (no hash: deleted before), 'live' (not settled) or 'stale'
-- (written since). A record written before `writes` existed counts as 0 writes.
-- KEYS: tournament
-- ARGV: writes changes
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return 'gone' end
if status ~= 'finished' and status ~= 'cancelled' then return 'live' end
if (redis.call('HGET', KEYS[1], 'writes') or '0') ~= ARGV[1] then return 'stale' end
if (redis.call('HGET', KEYS[1], 'changes') or '0') ~= ARGV[2] then return 'stale' end
redis.call('DEL', KEYS[1])
return 'deleted'
