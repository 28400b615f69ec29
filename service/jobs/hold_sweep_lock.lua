-- Take the sweeper's lock, or renew it if this sweeper holds it already: one sweeper sweeps
-- at a time, and a dead one's lock lapses after `ttl_ms`. 1 held, 0 another sweeper holds it.
-- KEYS: lock
-- ARGV: token ttl_ms
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
